//===- lib/Target/Cpp/Epilogue.cpp - Fused chain tails --------------------===//
//
// Part of Plumb. See include/plumb/Target/Cpp/Epilogue.h.
//
// The function receives y = Y + ((n * C + co) * P + begin) and `count`
// elements of plane (n, co), P = the product of the spatial dims. An
// external operand is read per element (same shape as the output: flat
// index base + i), per channel (broadcast along every dim but 1: index co)
// or as a scalar (one element).
//
//===----------------------------------------------------------------------===//
#include "plumb/Target/Cpp/Epilogue.h"

#include "plumb/Target/Cpp/KernelCalls.h"

#include "plumb/runtime/elementwise.h"

using namespace mlir;

namespace plumb {
namespace target {

namespace {

enum class Access { Element, Channel, Scalar };

bool accessOf(Value v, ArrayRef<int64_t> out, Access &a) {
  auto t = cast<RankedTensorType>(v.getType());
  ArrayRef<int64_t> s = t.getShape();
  if (s == out) {
    a = Access::Element;
    return true;
  }
  if (t.getNumElements() == 1) {
    a = Access::Scalar;
    return true;
  }
  // Right-aligned against the output: every dim 1 except the channel dim.
  int64_t r = (int64_t)out.size(), k = (int64_t)s.size();
  if (k > r || r < 2)
    return false;
  for (int64_t d = 0; d < k; ++d) {
    int64_t od = d + (r - k);
    int64_t want = od == 1 ? out[1] : 1;
    if (s[d] != want && !(od == 1 && s[d] == 1))
      return false;
  }
  a = Access::Channel;
  return true;
}

class Builder {
public:
  Builder(ArrayRef<int64_t> out, EpilogueCode &code, bool flat = false)
      : out(out), code(code), flat(flat) {}

  /// The expression reading external `v` for the current element. In flat
  /// mode (a chain over a flat index range) there is no channel access, and
  /// scalars are read from the caller's copies (code.scalars, `sc`).
  bool operand(Value v, std::string &expr) {
    Access a;
    if (!accessOf(v, out, a))
      return false;
    if (flat && a == Access::Channel)
      return false;
    if (flat && a == Access::Scalar) {
      std::string k = std::to_string(code.scalars.size());
      code.scalars.push_back(v);
      pre += "  const float s" + k + " = sc[" + k + "];\n";
      expr = "s" + k;
      return true;
    }
    std::string k = std::to_string(code.externals.size());
    code.externals.push_back(v);
    std::string name = "e" + k;
    switch (a) {
    case Access::Element:
      pre += "  const float *const " + name + " = e[" + k + "] + base;\n";
      expr = name + "[i]";
      return true;
    case Access::Channel:
      pre += "  const float " + name + " = e[" + k + "][co];\n";
      expr = name;
      return true;
    case Access::Scalar:
      pre += "  const float " + name + " = e[" + k + "][0];\n";
      expr = name;
      return true;
    }
    return false;
  }

  /// A per-channel parameter vector ([C], batch_norm's scale, bias, mean,
  /// variance): element co.
  bool channelParam(Value v, std::string &expr) {
    if (flat) // a flat range has no channel index
      return false;
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != 1 || t.getDimSize(0) != out[1])
      return false;
    std::string k = std::to_string(code.externals.size());
    code.externals.push_back(v);
    pre += "  const float e" + k + " = e[" + k + "][co];\n";
    expr = "e" + k;
    return true;
  }

  /// Appends the statement applying `op` to `v` (the chained value): the
  /// per-element form of its kernel call (the same scalar functions of the
  /// runtime's op tables the kernel applies). Ops whose kernels run a
  /// vectorised math pass (exp, log, pow, ...) stay op by op.
  bool step(Operation *op, Value chained) {
    KernelLowering l;
    std::string err;
    if (!lowerOpForEmit(op, l, err) || l.calls.size() != 1)
      return false;
    const KernelCall &c = l.calls[0];
    auto others = [&](std::vector<std::string> &exprs) {
      for (Value o : op->getOperands()) {
        if (o == chained) {
          exprs.push_back("v");
          continue;
        }
        std::string e;
        if (!operand(o, e))
          return false;
        exprs.push_back(e);
      }
      return true;
    };
    std::vector<std::string> x;
    std::string stmt;
    if (c.fn == "unary_f32") {
      int64_t code = c.args[0].value;
      if (plumb::rt::ops::unaryF32IsMath((int32_t)code))
        return false;
      stmt = "v = unaryF32(" + c.args[0].name + ", v, " +
             floatLiteral(c.args[4].fvalue) + ", " +
             floatLiteral(c.args[5].fvalue) + ");";
    } else if (c.fn == "binary_f32") {
      int64_t code = c.args[0].value;
      if (code == PLUMB_RT_POW || plumb::rt::ops::isCompareOp((int32_t)code))
        return false;
      if (!others(x))
        return false;
      stmt = "v = binaryF32(" + c.args[0].name + ", " + x[0] + ", " + x[1] +
             ");";
    } else if (c.fn == "variadic_f32") {
      // plumb_rt_variadic_f32: acc = in0; acc = f(acc, in_k); canon.
      int64_t code = c.args[0].value;
      if (code != PLUMB_RT_ADD && code != PLUMB_RT_MAX && code != PLUMB_RT_MIN)
        return false;
      if (!others(x))
        return false;
      std::string acc = x[0];
      for (size_t k = 1; k < x.size(); ++k)
        acc = code == PLUMB_RT_ADD
                  ? "(" + acc + " + " + x[k] + ")"
                  : std::string(code == PLUMB_RT_MAX ? "maxF(" : "minF(") +
                        acc + ", " + x[k] + ")";
      stmt = "v = canon(" + acc + ");";
    } else if (auto bn = dyn_cast<BatchNormOp>(op)) {
      // plumb_rt_batchnorm_f32: sd = sqrtRn(var + eps) per channel, then
      // (((x - mean) / sd) * scale) + bias, canonicalised.
      std::string s, b, m, var;
      if (!channelParam(bn.getScale(), s) || !channelParam(bn.getBias(), b) ||
          !channelParam(bn.getMean(), m) ||
          !channelParam(bn.getVariance(), var))
        return false;
      std::string sd = "sd" + std::to_string(code.externals.size());
      pre += "  const float " + sd + " = sqrtRn(" + var + " + " +
             floatLiteral(bn.getEpsilon().convertToFloat()) + ");\n";
      stmt = "{\n      float t = v - " + m + ";\n      t = t / " + sd +
             ";\n      t = t * " + s + ";\n      v = canon(t + " + b +
             ");\n    }";
    } else {
      return false;
    }
    body += "    " + stmt + "\n";
    return true;
  }

  ArrayRef<int64_t> out;
  EpilogueCode &code;
  bool flat = false;
  std::string pre, body;
};

/// Whether chain[k] can join a per-element loop: an f32 result of the
/// output's shape, every operand of the output's shape or a scalar, none of
/// them an earlier chain value other than the chained one (those share the
/// result's buffer).
bool flatCandidate(ArrayRef<Operation *> chain, size_t k,
                   ArrayRef<int64_t> shape) {
  Operation *op = chain[k];
  if (op->getNumResults() != 1)
    return false;
  auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!rt || !rt.getElementType().isF32() || rt.getShape() != shape)
    return false;
  for (Value o : op->getOperands()) {
    Operation *d = o.getDefiningOp();
    for (size_t j = 0; j < k; ++j)
      if (d == chain[j] && !(j + 1 == k))
        return false;
    auto ot = dyn_cast<RankedTensorType>(o.getType());
    if (!ot || !ot.getElementType().isF32())
      return false;
  }
  return true;
}

/// Tries chain[first..last) in a fresh builder.
bool buildFlat(ArrayRef<Operation *> chain, size_t first, size_t last,
               ArrayRef<int64_t> shape, EpilogueCode &code, Builder &b,
               std::string &init) {
  for (size_t k = first; k < last; ++k)
    if (!flatCandidate(chain, k, shape))
      return false;
  Value chained;
  if (first == 0) {
    // The head reads its first operand as the chained value.
    Operation *head = chain[0];
    if (head->getNumOperands() == 0)
      return false;
    chained = head->getOperand(0);
    if (!b.operand(chained, init))
      return false;
  } else {
    chained = chain[first - 1]->getResult(0);
    init = "y[i]";
  }
  for (size_t k = first; k < last; ++k) {
    if (!b.step(chain[k], chained))
      return false;
    chained = chain[k]->getResult(0);
  }
  return true;
}

} // namespace

size_t flatChainLength(FusedOp f, size_t first) {
  SmallVector<Operation *> chain = f.getChain();
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(f.getOutput().getType()).getShape();
  size_t best = 0;
  for (size_t last = first + 1; last <= chain.size(); ++last) {
    EpilogueCode code;
    Builder b(shape, code, true);
    std::string init;
    if (!buildFlat(chain, first, last, shape, code, b, init))
      break;
    best = last - first;
  }
  return best;
}

bool buildFlatChain(FusedOp f, size_t first, size_t last,
                    const std::string &name, EpilogueCode &out) {
  SmallVector<Operation *> chain = f.getChain();
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(f.getOutput().getType()).getShape();
  out = EpilogueCode();
  Builder b(shape, out, true);
  std::string init;
  if (!buildFlat(chain, first, last, shape, out, b, init))
    return false;
  std::string s;
  s += "// Nodes " + std::to_string(first) + ".." + std::to_string(last - 1) +
       " of a fused elementwise chain, per element.\n";
  s += "PLUMB_ELEMENTWISE void " + name +
       "(void *ctx, float *y, int64_t n, int64_t co, int64_t begin,\n"
       "    int64_t count) {\n";
  s += "  using namespace plumb::rt::ops;\n";
  s += "  const float *const *e = (const float *const *)ctx;\n";
  s += "  const int64_t base = begin;\n";
  s += "  (void)e;\n  (void)base;\n  (void)n;\n  (void)co;\n";
  s += "  const float *const sc = e[" + std::to_string(out.externals.size()) +
       "];\n  (void)sc;\n";
  s += b.pre;
  s += "  for (int64_t i = 0; i < count; ++i) {\n    float v = " + init + ";\n";
  s += b.body;
  s += "    y[i] = v;\n  }\n}\n";
  out.function = s;
  return true;
}

bool buildConvEpilogue(FusedOp f, const std::string &name, bool inPlace,
                       EpilogueCode &out, std::string &why) {
  SmallVector<Operation *> chain = f.getChain();
  if (!isa<ConvOp>(chain.front())) {
    why = "the chain does not start with a conv";
    return false;
  }
  auto outType = cast<RankedTensorType>(f.getOutput().getType());
  ArrayRef<int64_t> shape = outType.getShape();
  if (shape.size() < 3) {
    why = "the output has no channel dimension";
    return false;
  }
  int64_t planeSize = 1;
  for (size_t d = 2; d < shape.size(); ++d)
    planeSize *= shape[d];
  out = EpilogueCode();
  Builder b(shape, out);
  for (size_t i = 1; i < chain.size(); ++i)
    if (!b.step(chain[i], chain[i - 1]->getResult(0))) {
      why = "'" + chain[i]->getName().getStringRef().str() +
            "' has no per-element form for this operand layout";
      return false;
    }
  std::string s;
  s += "// The elementwise tail of a fused conv chain, per element.\n";
  s += "PLUMB_ELEMENTWISE void " + name +
       "(void *ctx, float *y, int64_t n, int64_t co, int64_t begin,\n"
       "    int64_t count) {\n";
  s += "  using namespace plumb::rt::ops;\n";
  s += "  const float *const *e = (const float *const *)ctx;\n";
  s += "  const int64_t base = (n * " + std::to_string(shape[1]) + " + co) * " +
       std::to_string(planeSize) + " + begin;\n";
  s += "  (void)e;\n  (void)base;\n";
  s += b.pre;
  std::string dst = "y";
  if (!inPlace) {
    // The chain's result has its own buffer: the last ctx entry.
    s += "  float *const dst = (float *)e[" +
         std::to_string(out.externals.size()) + "] + base;\n";
    dst = "dst";
  }
  s += "  for (int64_t i = 0; i < count; ++i) {\n    float v = y[i];\n";
  s += b.body;
  s += "    " + dst + "[i] = v;\n  }\n}\n";
  out.function = s;
  return true;
}

} // namespace target
} // namespace plumb
