//===- PlumbFolds.cpp - Exact folders of the plumb ops --------------------===//
//
// Part of Plumb. Folding never changes a bit: data movement copies bits,
// integer arithmetic wraps exactly as the kernels do, and floating-point
// folds use only single IEEE operations (+ - * / and comparisons) evaluated
// in float with no contraction, which is exactly what every kernel computes.
// Transcendental ops are not folded here.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbLiteral.h"
#include "dialects/Plumb/IR/PlumbOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace plumb;

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The splat value of a constant operand, if it is a splat.
static Attribute splatOf(Attribute a) {
  auto d = dyn_cast_or_null<DenseElementsAttr>(a);
  if (d && d.isSplat())
    return d.getSplatValue<Attribute>();
  return {};
}

/// A one-element literal holding a splat value (for computing splat folds).
static std::optional<Literal> splatLiteral(Attribute a) {
  auto d = dyn_cast_or_null<DenseElementsAttr>(a);
  if (!d || !d.isSplat())
    return std::nullopt;
  auto scalarType = RankedTensorType::get({}, d.getElementType());
  return Literal::from(DenseElementsAttr::get(scalarType, splatOf(a)));
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Applies a unary function elementwise (splats stay splats).
template <typename FF, typename FI>
static Attribute foldUnary(Attribute in, RankedTensorType outType, FF ff,
                           FI fi) {
  bool splat = splatOf(in) != nullptr;
  std::optional<Literal> a = splat ? splatLiteral(in) : Literal::from(in);
  if (!a)
    return {};
  Literal r = *a;
  r.type = splat ? RankedTensorType::get({}, outType.getElementType()) : outType;
  r.isFloat = outType.getElementType().isF32();
  for (auto &v : r.f)
    v = ff(v);
  for (auto &v : r.i)
    v = wrapInt(fi(v), outType.getElementType());
  DenseElementsAttr attr = r.toAttr();
  if (splat)
    return DenseElementsAttr::get(outType, attr.getSplatValue<Attribute>());
  return attr;
}

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getInput(), typeOf(getOutput()), [](float x) { return -x; },
      [](int64_t x) { return (int64_t)(0ull - (uint64_t)x); });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getInput(), typeOf(getOutput()), [](float x) { return x; },
      [](int64_t x) { return (int64_t)(x == 0); });
}

namespace {
/// Scalar semantics of one binary op on floats and on integers. Comparison
/// ops produce 0/1 integers from either.
struct BinarySem {
  bool floatToBool = false; // comparisons: float inputs, i1 output
  std::function<float(float, float)> f;
  std::function<int64_t(int64_t, int64_t)> i;
  std::function<int64_t(float, float)> fcmp;
};
} // namespace

static Attribute foldBinary(Attribute lhs, Attribute rhs, Value lhsV, Value rhsV,
                            RankedTensorType outType, const BinarySem &sem) {
  if (!lhs || !rhs)
    return {};
  Type inElt = typeOf(lhsV).getElementType();
  bool inFloat = inElt.isF32();
  if ((inFloat && !sem.f && !sem.fcmp) || (!inFloat && !sem.i))
    return {};
  bool splat = splatOf(lhs) && splatOf(rhs);
  std::optional<Literal> a = splat ? splatLiteral(lhs) : Literal::from(lhs);
  std::optional<Literal> b = splat ? splatLiteral(rhs) : Literal::from(rhs);
  if (!a || !b || (!splat && outType.getNumElements() > kFoldElementLimit))
    return {};
  RankedTensorType rt =
      splat ? RankedTensorType::get({}, outType.getElementType()) : outType;
  Literal r = Literal::make(rt);
  auto ia = broadcastIndices(a->shape(), rt.getShape());
  auto ib = broadcastIndices(b->shape(), rt.getShape());
  Type outElt = outType.getElementType();
  for (size_t k = 0; k < ia.size(); ++k) {
    if (inFloat && r.isFloat)
      r.f[k] = sem.f(a->f[ia[k]], b->f[ib[k]]);
    else if (inFloat)
      r.i[k] = sem.fcmp(a->f[ia[k]], b->f[ib[k]]);
    else
      r.i[k] = wrapInt(sem.i(a->i[ia[k]], b->i[ib[k]]), outElt.isInteger(1) ? outElt : inElt);
  }
  DenseElementsAttr attr = r.toAttr();
  if (splat)
    return DenseElementsAttr::get(outType, attr.getSplatValue<Attribute>());
  return attr;
}

static int64_t wrapAdd(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static int64_t wrapSub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
static int64_t wrapMul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}
// Integer division of the kernels: truncation toward zero, x / 0 = 0 and
// INT_MIN / -1 = INT_MIN (the wrapped result). Inputs are already wrapped to
// the element width, so the i32 case wraps again in foldBinary.
static int64_t safeDiv(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  if (b == -1)
    return (int64_t)(0ull - (uint64_t)a);
  return a / b;
}

#define PLUMB_FOLD_BINARY(OP, ...)                                             \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    BinarySem sem;                                                             \
    __VA_ARGS__;                                                               \
    return foldBinary(adaptor.getLhs(), adaptor.getRhs(), getLhs(), getRhs(),  \
                      typeOf(getOutput()), sem);                               \
  }

PLUMB_FOLD_BINARY(AddOp, sem.f = [](float a, float b) { return a + b; };
                  sem.i = wrapAdd)
PLUMB_FOLD_BINARY(SubOp, sem.f = [](float a, float b) { return a - b; };
                  sem.i = wrapSub)
PLUMB_FOLD_BINARY(MulOp, sem.f = [](float a, float b) { return a * b; };
                  sem.i = wrapMul)
PLUMB_FOLD_BINARY(DivOp, sem.f = [](float a, float b) { return a / b; };
                  sem.i = safeDiv)
PLUMB_FOLD_BINARY(PowOp, (void)0) // our own pow: folded by the runtime later
PLUMB_FOLD_BINARY(EqualOp,
                  sem.fcmp = [](float a, float b) -> int64_t { return a == b; };
                  sem.i = [](int64_t a, int64_t b) -> int64_t { return a == b; })
PLUMB_FOLD_BINARY(LessOp,
                  sem.fcmp = [](float a, float b) -> int64_t { return a < b; };
                  sem.i = [](int64_t a, int64_t b) -> int64_t { return a < b; })
PLUMB_FOLD_BINARY(LessOrEqualOp,
                  sem.fcmp = [](float a, float b) -> int64_t { return a <= b; };
                  sem.i = [](int64_t a, int64_t b) -> int64_t { return a <= b; })
PLUMB_FOLD_BINARY(GreaterOp,
                  sem.fcmp = [](float a, float b) -> int64_t { return a > b; };
                  sem.i = [](int64_t a, int64_t b) -> int64_t { return a > b; })
PLUMB_FOLD_BINARY(GreaterOrEqualOp,
                  sem.fcmp = [](float a, float b) -> int64_t { return a >= b; };
                  sem.i = [](int64_t a, int64_t b) -> int64_t { return a >= b; })
PLUMB_FOLD_BINARY(AndOp,
                  sem.i = [](int64_t a, int64_t b) -> int64_t { return a && b; })
PLUMB_FOLD_BINARY(OrOp,
                  sem.i = [](int64_t a, int64_t b) -> int64_t { return a || b; })
#undef PLUMB_FOLD_BINARY

/// max/min with NaN propagation and max(-0, +0) = +0, min(-0, +0) = -0.
static float fmaxExact(float a, float b) {
  if (a != a || b != b)
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
static float fminExact(float a, float b) {
  if (a != a || b != b)
    return std::numeric_limits<float>::quiet_NaN();
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

template <typename OpTy>
static Attribute foldVariadic(OpTy op, ArrayRef<Attribute> ins,
                              const BinarySem &sem) {
  if (ins.empty() || llvm::any_of(ins, [](Attribute a) { return !a; }))
    return {};
  Attribute acc = ins[0];
  Value accV = op->getOperand(0);
  for (size_t k = 1; k < ins.size(); ++k) {
    // Shape of the partial result: broadcast of the operands so far.
    SmallVector<ArrayRef<int64_t>> shapes;
    for (size_t j = 0; j <= k; ++j)
      shapes.push_back(typeOf(op->getOperand(j)).getShape());
    size_t rank = 0;
    for (auto s : shapes)
      rank = std::max(rank, s.size());
    SmallVector<int64_t> out(rank, 1);
    for (auto s : shapes)
      for (size_t d = 0; d < s.size(); ++d)
        if (s[d] != 1)
          out[rank - s.size() + d] = s[d];
    auto t = RankedTensorType::get(out, typeOf(accV).getElementType());
    acc = foldBinary(acc, ins[k], accV, op->getOperand(k), t, sem);
    if (!acc)
      return {};
  }
  if (cast<DenseElementsAttr>(acc).getType() != op.getType())
    return {};
  return acc;
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs()[0];
  BinarySem sem;
  sem.f = fmaxExact;
  sem.i = [](int64_t a, int64_t b) { return a > b ? a : b; };
  return foldVariadic(*this, adaptor.getInputs(), sem);
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs()[0];
  BinarySem sem;
  sem.f = fminExact;
  sem.i = [](int64_t a, int64_t b) { return a < b ? a : b; };
  return foldVariadic(*this, adaptor.getInputs(), sem);
}

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  auto c = Literal::from(adaptor.getCond());
  auto x = Literal::from(adaptor.getX());
  auto y = Literal::from(adaptor.getY());
  RankedTensorType t = typeOf(getOutput());
  if (!c || !x || !y || t.getNumElements() > kFoldElementLimit)
    return {};
  Literal r = Literal::make(t);
  auto ic = broadcastIndices(c->shape(), t.getShape());
  auto ix = broadcastIndices(x->shape(), t.getShape());
  auto iy = broadcastIndices(y->shape(), t.getShape());
  for (size_t k = 0; k < ic.size(); ++k) {
    bool pick = c->i[ic[k]] != 0;
    if (r.isFloat)
      r.f[k] = pick ? x->f[ix[k]] : y->f[iy[k]];
    else
      r.i[k] = pick ? x->i[ix[k]] : y->i[iy[k]];
  }
  return r.toAttr();
}

/// f32 -> integer: truncate toward zero; NaN -> 0; saturate out of range.
static int64_t floatToInt(float x, Type elt) {
  if (elt.isInteger(1))
    return x != 0.0f; // NaN != 0: true, as the runtime's cast
  if (x != x)
    return 0;
  double lo = elt.isInteger(32) ? -2147483648.0 : -9223372036854775808.0;
  double hi = elt.isInteger(32) ? 2147483648.0 : 9223372036854775808.0;
  double t = std::trunc((double)x);
  if (t < lo)
    return elt.isInteger(32) ? INT32_MIN : INT64_MIN;
  if (t >= hi)
    return elt.isInteger(32) ? INT32_MAX : INT64_MAX;
  return (int64_t)t;
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  RankedTensorType inT = typeOf(getInput()), outT = typeOf(getOutput());
  if (inT == outT)
    return getInput();
  Type inElt = inT.getElementType(), outElt = outT.getElementType();
  bool splat = splatOf(adaptor.getInput()) != nullptr;
  std::optional<Literal> a =
      splat ? splatLiteral(adaptor.getInput()) : Literal::from(adaptor.getInput());
  if (!a)
    return {};
  RankedTensorType rt = splat ? RankedTensorType::get({}, outElt) : outT;
  Literal r = Literal::make(rt);
  for (int64_t k = 0; k < r.size(); ++k) {
    if (inElt.isF32() && outElt.isF32())
      r.f[k] = a->f[k];
    else if (inElt.isF32())
      r.i[k] = floatToInt(a->f[k], outElt);
    else if (outElt.isF32())
      r.f[k] = (float)a->i[k]; // round to nearest even
    else
      r.i[k] = wrapInt(a->i[k], outElt);
  }
  DenseElementsAttr attr = r.toAttr();
  if (splat)
    return DenseElementsAttr::get(outT, attr.getSplatValue<Attribute>());
  return attr;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  auto d = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
  if (!d)
    return {};
  return d.reshape(typeOf(getOutput()));
}

/// Generic gather-style fold: output element k reads input element src[k].
static Attribute foldByIndex(Attribute in, RankedTensorType outT,
                             llvm::function_ref<std::vector<int64_t>()> src) {
  if (auto s = splatOf(in))
    return DenseElementsAttr::get(outT, s);
  auto a = Literal::from(in);
  if (!a || outT.getNumElements() > kFoldElementLimit)
    return {};
  std::vector<int64_t> idx = src();
  Literal r = Literal::make(outT);
  for (size_t k = 0; k < idx.size(); ++k) {
    if (r.isFloat)
      r.f[k] = a->f[idx[k]];
    else
      r.i[k] = a->i[idx[k]];
  }
  return r.toAttr();
}

static std::vector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    s[d - 1] = s[d] * shape[d];
  return s;
}

/// Visits every multi-index of `shape` in row-major order.
static void forEachIndex(ArrayRef<int64_t> shape,
                         llvm::function_ref<void(ArrayRef<int64_t>)> fn) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    fn(idx);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType outT = typeOf(getOutput());
  auto perm = getPerm();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return getInput();
  return foldByIndex(adaptor.getInput(), outT, [&] {
    auto inStr = rowMajorStrides(typeOf(getInput()).getShape());
    std::vector<int64_t> src;
    forEachIndex(outT.getShape(), [&](ArrayRef<int64_t> idx) {
      int64_t s = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        s += idx[d] * inStr[perm[d]];
      src.push_back(s);
    });
    return src;
  });
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  RankedTensorType outT = typeOf(getOutput());
  if (getInput().getType() == outT &&
      llvm::all_of(getStarts(), [](int64_t s) { return s == 0; }) &&
      llvm::all_of(getSteps(), [](int64_t s) { return s == 1; }))
    return getInput();
  return foldByIndex(adaptor.getInput(), outT, [&] {
    auto inStr = rowMajorStrides(typeOf(getInput()).getShape());
    std::vector<int64_t> src;
    forEachIndex(outT.getShape(), [&](ArrayRef<int64_t> idx) {
      int64_t s = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        s += (getStarts()[d] + idx[d] * getSteps()[d]) * inStr[d];
      src.push_back(s);
    });
    return src;
  });
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  RankedTensorType outT = typeOf(getOutput());
  if (getInput().getType() == outT)
    return getInput();
  return foldByIndex(adaptor.getInput(), outT, [&] {
    return broadcastIndices(typeOf(getInput()).getShape(), outT.getShape());
  });
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  auto idx = Literal::from(adaptor.getIndices());
  if (!idx)
    return {};
  RankedTensorType dataT = typeOf(getData()), outT = typeOf(getOutput());
  int64_t axis = getAxis(), dim = dataT.getDimSize(axis);
  for (int64_t v : idx->i)
    if (v < -dim || v >= dim)
      return {}; // left for the kernel to report at run time
  return foldByIndex(adaptor.getData(), outT, [&] {
    auto inStr = rowMajorStrides(dataT.getShape());
    size_t ir = idx->shape().size();
    auto idxStr = rowMajorStrides(idx->shape());
    std::vector<int64_t> src;
    forEachIndex(outT.getShape(), [&](ArrayRef<int64_t> o) {
      int64_t s = 0;
      for (int64_t d = 0; d < axis; ++d)
        s += o[d] * inStr[d];
      int64_t flat = 0;
      for (size_t d = 0; d < ir; ++d)
        flat += o[axis + d] * idxStr[d];
      int64_t v = idx->i[flat];
      if (v < 0)
        v += dim;
      s += v * inStr[axis];
      for (size_t d = axis + 1; d < dataT.getShape().size(); ++d)
        s += o[d - 1 + ir] * inStr[d];
      src.push_back(s);
    });
    return src;
  });
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1)
    return getInputs()[0];
  RankedTensorType outT = typeOf(getOutput());
  if (outT.getNumElements() > kFoldElementLimit)
    return {};
  SmallVector<Literal> parts;
  for (Attribute a : adaptor.getInputs()) {
    auto l = Literal::from(a);
    if (!l) {
      // Splats of small size unpack through a dense copy.
      auto d = dyn_cast_or_null<DenseElementsAttr>(a);
      if (!d)
        return {};
      return {};
    }
    parts.push_back(*l);
  }
  int64_t axis = getAxis();
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= outT.getDimSize(d);
  Literal r = Literal::make(outT);
  int64_t pos = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (auto &p : parts) {
      int64_t chunk = p.size() / std::max<int64_t>(outer, 1);
      for (int64_t k = 0; k < chunk; ++k, ++pos) {
        if (r.isFloat)
          r.f[pos] = p.f[o * chunk + k];
        else
          r.i[pos] = p.i[o * chunk + k];
      }
    }
  }
  return r.toAttr();
}

//===----------------------------------------------------------------------===//
// Elementwise math ops (lib/Importer/OnnxOpsMath.cpp).
//===----------------------------------------------------------------------===//

#define PLUMB_FOLD_BINARY_INT(OP, FN)                                          \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    BinarySem sem;                                                             \
    sem.i = FN;                                                                \
    return foldBinary(adaptor.getLhs(), adaptor.getRhs(), getLhs(), getRhs(),  \
                      typeOf(getOutput()), sem);                               \
  }
PLUMB_FOLD_BINARY_INT(XorOp,
                      [](int64_t a, int64_t b) -> int64_t { return !a != !b; })
PLUMB_FOLD_BINARY_INT(BitAndOp,
                      [](int64_t a, int64_t b) -> int64_t { return a & b; })
PLUMB_FOLD_BINARY_INT(BitOrOp,
                      [](int64_t a, int64_t b) -> int64_t { return a | b; })
PLUMB_FOLD_BINARY_INT(BitXorOp,
                      [](int64_t a, int64_t b) -> int64_t { return a ^ b; })
#undef PLUMB_FOLD_BINARY_INT
// The shifts depend on the element width: folded by the runtime later.
OpFoldResult ShiftLeftOp::fold(FoldAdaptor) { return {}; }
OpFoldResult ShiftRightOp::fold(FoldAdaptor) { return {}; }
