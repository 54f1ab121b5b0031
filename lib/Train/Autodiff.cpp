//===- lib/Train/Autodiff.cpp - Reverse mode on plumb ---------------------===//
//
// Part of Plumb. See include/plumb/Train/Autodiff.h. One rule per op, each
// written with plumb ops (docs/training.md lists them).
//
//===----------------------------------------------------------------------===//
#include "plumb/Train/Autodiff.h"

#include "dialects/Plumb/IR/PlumbOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;

namespace plumb {
namespace train {

//===----------------------------------------------------------------------===//
// OpMaker
//===----------------------------------------------------------------------===//

RankedTensorType OpMaker::type(Value v) {
  return llvm::cast<RankedTensorType>(v.getType());
}

std::vector<int64_t> OpMaker::shape(Value v) {
  auto s = type(v).getShape();
  return {s.begin(), s.end()};
}

namespace {

std::vector<int64_t> broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> r(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    r[i] = x == 1 ? y : x;
  }
  return r;
}

RankedTensorType tensorOf(ArrayRef<int64_t> shape, Type elt) {
  return RankedTensorType::get(shape, elt);
}

template <typename OpTy>
Value binary(OpMaker &m, Value a, Value c, Type elt = {}) {
  auto s = broadcastShape(OpMaker::shape(a), OpMaker::shape(c));
  Type e = elt ? elt : OpMaker::type(a).getElementType();
  return OpTy::create(m.b, m.loc, tensorOf(s, e), a, c).getResult();
}

template <typename OpTy> Value unary(OpMaker &m, Value x) {
  return OpTy::create(m.b, m.loc, OpMaker::type(x), x).getResult();
}

} // namespace

Value OpMaker::splat(float v, ArrayRef<int64_t> s) {
  auto t = tensorOf(s, b.getF32Type());
  return ConstantOp::create(b, loc, DenseElementsAttr::get(t, v)).getResult();
}

Value OpMaker::add(Value a, Value c) { return binary<AddOp>(*this, a, c); }
Value OpMaker::sub(Value a, Value c) { return binary<SubOp>(*this, a, c); }
Value OpMaker::mul(Value a, Value c) { return binary<MulOp>(*this, a, c); }
Value OpMaker::div(Value a, Value c) { return binary<DivOp>(*this, a, c); }
Value OpMaker::pow(Value a, Value c) { return binary<PowOp>(*this, a, c); }
Value OpMaker::greater(Value a, Value c) {
  return binary<GreaterOp>(*this, a, c, b.getI1Type());
}
Value OpMaker::equal(Value a, Value c) {
  return binary<EqualOp>(*this, a, c, b.getI1Type());
}
Value OpMaker::where(Value c, Value x, Value y) {
  auto s = broadcastShape(broadcastShape(shape(c), shape(x)), shape(y));
  return WhereOp::create(b, loc, tensorOf(s, type(x).getElementType()), c, x, y)
      .getResult();
}
Value OpMaker::neg(Value x) { return unary<NegOp>(*this, x); }
Value OpMaker::exp(Value x) { return unary<ExpOp>(*this, x); }
Value OpMaker::sqrt(Value x) { return unary<SqrtOp>(*this, x); }

Value OpMaker::cast(Value x, Type elt) {
  return CastOp::create(b, loc, tensorOf(shape(x), elt), x).getResult();
}

Value OpMaker::logSoftmax(Value x, int64_t axis) {
  return LogSoftmaxOp::create(b, loc, type(x), x, b.getI64IntegerAttr(axis),
                              TreeAttr())
      .getResult();
}

Value OpMaker::reduceSum(Value x, ArrayRef<int64_t> axes, bool keepdims) {
  std::vector<int64_t> in = shape(x), out;
  for (size_t i = 0; i < in.size(); ++i) {
    bool reduced = llvm::is_contained(axes, (int64_t)i);
    if (!reduced)
      out.push_back(in[i]);
    else if (keepdims)
      out.push_back(1);
  }
  return ReduceSumOp::create(b, loc, tensorOf(out, type(x).getElementType()), x,
                             b.getDenseI64ArrayAttr(axes),
                             b.getBoolAttr(keepdims), TreeAttr())
      .getResult();
}

Value OpMaker::reshape(Value x, ArrayRef<int64_t> s) {
  if (shape(x) == std::vector<int64_t>(s.begin(), s.end()))
    return x;
  return ReshapeOp::create(b, loc, tensorOf(s, type(x).getElementType()), x)
      .getResult();
}

Value OpMaker::expand(Value x, ArrayRef<int64_t> s) {
  if (shape(x) == std::vector<int64_t>(s.begin(), s.end()))
    return x;
  return ExpandOp::create(b, loc, tensorOf(s, type(x).getElementType()), x)
      .getResult();
}

Value OpMaker::transpose(Value x, ArrayRef<int64_t> perm) {
  std::vector<int64_t> in = shape(x), out;
  for (int64_t p : perm)
    out.push_back(in[p]);
  return TransposeOp::create(b, loc, tensorOf(out, type(x).getElementType()), x,
                             b.getDenseI64ArrayAttr(perm))
      .getResult();
}

Value OpMaker::gemm(Value a, Value c, bool transA, bool transB, float alpha) {
  auto sa = shape(a), sc = shape(c);
  int64_t m = transA ? sa[1] : sa[0];
  int64_t n = transB ? sc[0] : sc[1];
  return GemmOp::create(b, loc, tensorOf({m, n}, b.getF32Type()), a, c, Value(),
                        b.getF32FloatAttr(alpha), b.getF32FloatAttr(1.0f),
                        b.getBoolAttr(transA), b.getBoolAttr(transB),
                        TreeAttr())
      .getResult();
}

Value OpMaker::unbroadcast(Value g, ArrayRef<int64_t> target) {
  std::vector<int64_t> gs = shape(g);
  if (gs == std::vector<int64_t>(target.begin(), target.end()))
    return g;
  size_t lead = gs.size() - target.size();
  std::vector<int64_t> axes;
  for (size_t i = 0; i < gs.size(); ++i)
    if (i < lead || (target[i - lead] == 1 && gs[i] != 1))
      axes.push_back((int64_t)i);
  Value s = axes.empty() ? g : reduceSum(g, axes, /*keepdims=*/false);
  return reshape(s, target);
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

namespace {

/// dxs[i]: the gradient for operand i (null: none). `dy`: the gradient of
/// the op's (single) result.
using Grads = SmallVector<Value, 3>;

Grads binaryRule(OpMaker &m, Operation *op, Value dy) {
  Value a = op->getOperand(0), c = op->getOperand(1), y = op->getResult(0);
  auto sa = OpMaker::shape(a), sc = OpMaker::shape(c);
  return TypeSwitch<Operation *, Grads>(op)
      .Case<AddOp>([&](auto) {
        return Grads{m.unbroadcast(dy, sa), m.unbroadcast(dy, sc)};
      })
      .Case<SubOp>([&](auto) {
        return Grads{m.unbroadcast(dy, sa), m.unbroadcast(m.neg(dy), sc)};
      })
      .Case<MulOp>([&](auto) {
        return Grads{m.unbroadcast(m.mul(dy, c), sa),
                     m.unbroadcast(m.mul(dy, a), sc)};
      })
      .Case<DivOp>([&](auto) {
        // y = a / c: da = dy / c, dc = -(dy * y) / c.
        return Grads{m.unbroadcast(m.div(dy, c), sa),
                     m.unbroadcast(m.neg(m.div(m.mul(dy, y), c)), sc)};
      })
      .Default([](Operation *) { return Grads{}; });
}

Grads unaryRule(OpMaker &m, Operation *op, Value dy) {
  Value x = op->getOperand(0), y = op->getResult(0);
  return TypeSwitch<Operation *, Grads>(op)
      .Case<NegOp>([&](auto) { return Grads{m.neg(dy)}; })
      .Case<ReluOp>([&](auto) {
        // dx = x > 0 ? dy : 0 (the subgradient 0 at x = 0).
        return Grads{m.where(m.greater(x, m.splat(0.0f)), dy, m.splat(0.0f))};
      })
      .Case<TanhOp>([&](auto) {
        return Grads{m.mul(dy, m.sub(m.splat(1.0f), m.mul(y, y)))};
      })
      .Case<SigmoidOp>([&](auto) {
        return Grads{m.mul(dy, m.mul(y, m.sub(m.splat(1.0f), y)))};
      })
      .Case<ExpOp>([&](auto) { return Grads{m.mul(dy, y)}; })
      .Case<LogOp>([&](auto) { return Grads{m.div(dy, x)}; })
      .Case<SqrtOp>(
          [&](auto) { return Grads{m.div(m.mul(dy, m.splat(0.5f)), y)}; })
      .Default([](Operation *) { return Grads{}; });
}

Grads gemmRule(OpMaker &m, GemmOp op, Value dy) {
  bool ta = op.getTransA(), tb = op.getTransB();
  float alpha = op.getAlpha().convertToFloat();
  float beta = op.getBeta().convertToFloat();
  Value a = op.getA(), b = op.getB();
  // Y = alpha A'B' + beta C with A' = ta ? A^T : A, B' = tb ? B^T : B.
  Value da = ta ? m.gemm(b, dy, tb, true, alpha)    // (B' G^T), K x M
                : m.gemm(dy, b, false, !tb, alpha); // G B'^T, M x K
  Value db = tb ? m.gemm(dy, a, true, ta, alpha)    // G^T A', N x K
                : m.gemm(a, dy, !ta, false, alpha); // A'^T G, K x N
  Grads g{da, db};
  if (Value c = op.getC()) {
    Value dc = beta == 1.0f ? dy : m.mul(dy, m.splat(beta));
    g.push_back(m.unbroadcast(dc, OpMaker::shape(c)));
  }
  return g;
}

/// matmul of a rank >= 2 lhs with a rank-2 rhs: through 2-D gemms.
Grads matmulRule(OpMaker &m, MatMulOp op, Value dy, std::string &err) {
  Value a = op.getLhs(), b = op.getRhs();
  auto sa = OpMaker::shape(a), sb = OpMaker::shape(b);
  if (sa.size() < 2 || sb.size() != 2) {
    err = "gradient of plumb.matmul needs a rank >= 2 lhs and a rank-2 rhs";
    return {};
  }
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < sa.size(); ++i)
    rows *= sa[i];
  Value a2 = m.reshape(a, {rows, sa.back()});
  Value g2 = m.reshape(dy, {rows, sb[1]});
  Value da = m.reshape(m.gemm(g2, b, false, true, 1.0f), sa);
  Value db = m.gemm(a2, g2, true, false, 1.0f);
  return {da, db};
}

Grads softmaxRule(OpMaker &m, Operation *op, int64_t axis, Value dy) {
  Value y = op->getResult(0);
  if (isa<SoftmaxOp>(op)) {
    // dx = y * (dy - sum(dy * y)).
    Value s = m.reduceSum(m.mul(dy, y), {axis}, true);
    return {m.mul(y, m.sub(dy, s))};
  }
  // log_softmax: dx = dy - exp(y) * sum(dy).
  Value s = m.reduceSum(dy, {axis}, true);
  return {m.sub(dy, m.mul(m.exp(y), s))};
}

Grads reduceRule(OpMaker &m, Operation *op, ArrayRef<int64_t> axes,
                 bool keepdims, Value dy) {
  Value x = op->getOperand(0);
  auto sx = OpMaker::shape(x);
  std::vector<int64_t> kept = sx;
  int64_t n = 1;
  for (int64_t a : axes) {
    kept[a] = 1;
    n *= sx[a];
  }
  (void)keepdims;
  Value g = m.expand(m.reshape(dy, kept), sx);
  if (isa<ReduceMeanOp>(op))
    g = m.div(g, m.splat((float)n));
  return {g};
}

Grads movementRule(OpMaker &m, Operation *op, Value dy) {
  Value x = op->getOperand(0);
  if (auto t = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> perm = t.getPerm();
    std::vector<int64_t> inv(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      inv[perm[i]] = (int64_t)i;
    return {m.transpose(dy, inv)};
  }
  return {m.reshape(dy, OpMaker::shape(x))};
}

/// The rule for `op`; false (with `err`) when it has none.
bool applyRule(OpMaker &m, Operation *op, Value dy, Grads &out,
               std::string &err) {
  out =
      TypeSwitch<Operation *, Grads>(op)
          .Case<AddOp, SubOp, MulOp, DivOp>(
              [&](Operation *o) { return binaryRule(m, o, dy); })
          .Case<NegOp, ReluOp, TanhOp, SigmoidOp, ExpOp, LogOp, SqrtOp>(
              [&](Operation *o) { return unaryRule(m, o, dy); })
          .Case<GemmOp>([&](GemmOp o) { return gemmRule(m, o, dy); })
          .Case<MatMulOp>([&](MatMulOp o) { return matmulRule(m, o, dy, err); })
          .Case<SoftmaxOp>(
              [&](SoftmaxOp o) { return softmaxRule(m, o, o.getAxis(), dy); })
          .Case<LogSoftmaxOp>([&](LogSoftmaxOp o) {
            return softmaxRule(m, o, o.getAxis(), dy);
          })
          .Case<ReduceSumOp>([&](ReduceSumOp o) {
            return reduceRule(m, o, o.getAxes(), o.getKeepdims(), dy);
          })
          .Case<ReduceMeanOp>([&](ReduceMeanOp o) {
            return reduceRule(m, o, o.getAxes(), o.getKeepdims(), dy);
          })
          .Case<ReshapeOp, TransposeOp>(
              [&](Operation *o) { return movementRule(m, o, dy); })
          .Default([](Operation *) { return Grads{}; });
  if (!out.empty())
    return true;
  if (err.empty())
    err = "no gradient rule for '" + op->getName().getStringRef().str() +
          "' (the loss depends on its result)";
  return false;
}

bool isFloat(Value v) {
  return llvm::cast<RankedTensorType>(v.getType()).getElementType().isF32();
}

/// The sum of a value's gradient contributions, in forward use order
/// (they were collected in reverse).
Value total(OpMaker &m, SmallVector<Value, 2> &parts) {
  if (parts.empty())
    return Value();
  Value s = parts.back();
  for (size_t i = parts.size() - 1; i-- > 0;)
    s = m.add(s, parts[i]);
  return s;
}

} // namespace

bool differentiate(func::FuncOp func, Value loss, ArrayRef<Value> wrt,
                   std::vector<Value> &grads, std::string &err) {
  Block &body = func.getBody().front();
  Operation *term = body.getTerminator();
  std::vector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);
  // Values that depend on `wrt` (float ones carry gradients).
  llvm::DenseSet<Value> active(wrt.begin(), wrt.end());
  for (Operation *op : ops)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return active.count(v); }))
      for (Value r : op->getResults())
        active.insert(r);

  OpBuilder b(term);
  OpMaker m(b, func.getLoc());
  llvm::DenseMap<Value, SmallVector<Value, 2>> parts;
  parts[loss].push_back(m.splat(1.0f, OpMaker::shape(loss)));
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    Operation *op = *it;
    if (op->getNumResults() != 1 || !active.count(op->getResult(0)) ||
        !isFloat(op->getResult(0)))
      continue;
    auto found = parts.find(op->getResult(0));
    if (found == parts.end())
      continue;
    Value dy = total(m, found->second);
    Grads dxs;
    if (!applyRule(m, op, dy, dxs, err))
      return false;
    for (unsigned i = 0; i < op->getNumOperands() && i < dxs.size(); ++i) {
      Value x = op->getOperand(i);
      if (dxs[i] && active.count(x) && isFloat(x))
        parts[x].push_back(dxs[i]);
    }
  }
  grads.clear();
  for (Value w : wrt) {
    auto found = parts.find(w);
    grads.push_back(found == parts.end() ? Value() : total(m, found->second));
  }
  return true;
}

std::vector<std::string> differentiableOps() {
  return {"plumb.add",        "plumb.sub",         "plumb.mul",
          "plumb.div",        "plumb.neg",         "plumb.relu",
          "plumb.tanh",       "plumb.sigmoid",     "plumb.exp",
          "plumb.log",        "plumb.sqrt",        "plumb.gemm",
          "plumb.matmul",     "plumb.softmax",     "plumb.log_softmax",
          "plumb.reduce_sum", "plumb.reduce_mean", "plumb.reshape",
          "plumb.transpose"};
}

} // namespace train
} // namespace plumb
