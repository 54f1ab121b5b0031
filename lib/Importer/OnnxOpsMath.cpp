//===- lib/Importer/OnnxOpsMath.cpp - ONNX operators: elementwise math ----===//
//
// Part of Plumb. Handlers for the elementwise math operators whose
// per-element arithmetic is one scalar function of runtime elementwise.h
// (the exact operation sequences are in docs/determinism.md): rounding
// (Floor, Ceil, Round), Sign, the activations Softplus, Softsign, Elu, Selu,
// PRelu, Celu, ThresholdedRelu, Shrink, Mish and Swish, Mod, Mean, the
// bitwise and shift operators, Xor, IsInf, and the circular and hyperbolic
// functions (Sin Cos Tan Asin Acos Atan Sinh Cosh Asinh Acosh Atanh), and
// the window functions (HannWindow, HammingWindow, BlackmanWindow), constants
// computed here with the runtime's cos.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include "plumb/runtime/elementwise.h"

#include <cmath>

using namespace mlir;

namespace plumb {
namespace importer {

void registerMathHandlers(OpTable &t);

namespace {

/// Exactly `count` inputs, all present, and (when `floatOnly`) input 0 is
/// float32.
LogicalResult checkInputs(Importer &im, NodeCtx &n, int64_t count,
                          bool floatOnly) {
  if (n.numInputs() != count)
    return im.error(n) << "expects " << count << " inputs, got "
                       << n.numInputs();
  for (int64_t i = 0; i < count; ++i)
    if (!n.in(i))
      return im.error(n) << "input " << i << " is required";
  if (floatOnly && !Importer::eltOf(n.in(0)).isF32())
    return im.error(n) << "expects float tensors, got "
                       << Importer::eltOf(n.in(0));
  return success();
}

/// The numpy broadcast of the inputs' shapes, as a tensor type of `elt`.
FailureOr<RankedTensorType> broadcastOf(Importer &im, NodeCtx &n,
                                        ArrayRef<Value> ins, Type elt) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : ins)
    shapes.push_back(Importer::shapeOf(v));
  auto s = shapes::broadcast(shapes, im.emitter(n));
  if (failed(s))
    return failure();
  return Importer::tensorType(*s, elt);
}

bool isInt(Type t) { return t.isInteger(32) || t.isInteger(64); }

/// Two inputs of one element type, which `ok` accepts (`what` names the
/// types in the error).
LogicalResult checkBinary(Importer &im, NodeCtx &n, bool (*ok)(Type),
                          StringRef what) {
  if (failed(checkInputs(im, n, 2, false)))
    return failure();
  Type a = Importer::eltOf(n.in(0)), c = Importer::eltOf(n.in(1));
  if (a != c)
    return im.error(n) << "operand element types differ: " << a << " and "
                       << c;
  if (!ok(a))
    return im.error(n) << "expects " << what << " tensors, got " << a;
  return success();
}

template <typename OpTy>
LogicalResult binaryOf(Importer &im, NodeCtx &n, Value a, Value c) {
  auto t = broadcastOf(im, n, {a, c}, Importer::eltOf(a));
  if (failed(t))
    return failure();
  return setOut(n, im.make<OpTy>(n, *t, a, c));
}

template <typename OpTy> LogicalResult intBinary(Importer &im, NodeCtx &n) {
  if (failed(checkBinary(im, n, isInt, "int32 or int64")))
    return failure();
  return binaryOf<OpTy>(im, n, n.in(0), n.in(1));
}

template <typename OpTy> LogicalResult floatUnary(Importer &im, NodeCtx &n) {
  if (failed(checkInputs(im, n, 1, true)))
    return failure();
  return setOut(n, im.make<OpTy>(n, n.in(0).getType(), n.in(0)));
}

/// Elu(alpha = 1.0).
LogicalResult elu(Importer &im, NodeCtx &n) {
  if (failed(checkInputs(im, n, 1, true)))
    return failure();
  auto alpha = im.attrFloat(n, "alpha", 1.0f);
  if (failed(alpha))
    return failure();
  return setOut(n, im.make<EluOp>(n, n.in(0).getType(), n.in(0),
                                  im.b.getF32FloatAttr(*alpha)));
}

/// Selu(alpha = 1.67326319..., gamma = 1.05070102...), ONNX's defaults as
/// float32.
LogicalResult selu(Importer &im, NodeCtx &n) {
  if (failed(checkInputs(im, n, 1, true)))
    return failure();
  auto alpha = im.attrFloat(n, "alpha", 1.67326319217681884765625f);
  auto gamma = im.attrFloat(n, "gamma", 1.05070102214813232421875f);
  if (failed(alpha) || failed(gamma))
    return failure();
  return setOut(n, im.make<SeluOp>(n, n.in(0).getType(), n.in(0),
                                   im.b.getF32FloatAttr(*alpha),
                                   im.b.getF32FloatAttr(*gamma)));
}

/// PRelu(X, slope): slope broadcasts unidirectionally to X (opset >= 7), so
/// the result has X's shape; a slope that would grow X is an error.
LogicalResult prelu(Importer &im, NodeCtx &n) {
  if (failed(checkInputs(im, n, 2, true)))
    return failure();
  Value x = n.in(0), slope = n.in(1);
  if (!Importer::eltOf(slope).isF32())
    return im.error(n) << "slope must be a float tensor, got "
                       << Importer::eltOf(slope);
  auto s = shapes::broadcast({Importer::shapeOf(x), Importer::shapeOf(slope)},
                             im.emitter(n));
  if (failed(s))
    return failure();
  if (ArrayRef<int64_t>(*s) != Importer::shapeOf(x))
    return im.error(n) << "slope of shape "
                       << shapes::str(Importer::shapeOf(slope))
                       << " does not broadcast to X's shape "
                       << shapes::str(Importer::shapeOf(x));
  return setOut(n, im.make<PReluOp>(n, x.getType(), x, slope));
}

/// A float unary op whose N attributes are floats with defaults.
template <typename OpTy, size_t N>
LogicalResult floatUnaryAttr(Importer &im, NodeCtx &n,
                             const std::pair<const char *, float> (&attrs)[N]) {
  if (failed(checkInputs(im, n, 1, true)))
    return failure();
  SmallVector<FloatAttr> vals;
  for (auto [name, dflt] : attrs) {
    auto v = im.attrFloat(n, name, dflt);
    if (failed(v))
      return failure();
    vals.push_back(im.b.getF32FloatAttr(*v));
  }
  if constexpr (N == 1)
    return setOut(n, im.make<OpTy>(n, n.in(0).getType(), n.in(0), vals[0]));
  else
    return setOut(n, im.make<OpTy>(n, n.in(0).getType(), n.in(0), vals[0],
                                   vals[1]));
}

LogicalResult celu(Importer &im, NodeCtx &n) {
  return floatUnaryAttr<CeluOp>(im, n, {{"alpha", 1.0f}});
}
LogicalResult thresholdedRelu(Importer &im, NodeCtx &n) {
  return floatUnaryAttr<ThresholdedReluOp>(im, n, {{"alpha", 1.0f}});
}
LogicalResult shrink(Importer &im, NodeCtx &n) {
  return floatUnaryAttr<ShrinkOp>(im, n, {{"bias", 0.0f}, {"lambd", 0.5f}});
}
LogicalResult swish(Importer &im, NodeCtx &n) {
  return floatUnaryAttr<SwishOp>(im, n, {{"alpha", 1.0f}});
}

/// Mod (opset 10): fmod = 0 (integers only) takes the divisor's sign,
/// fmod = 1 is C fmod.
LogicalResult mod(Importer &im, NodeCtx &n) {
  auto num = [](Type t) { return t.isF32() || isInt(t); };
  if (failed(checkBinary(im, n, num, "float, int32 or int64")))
    return failure();
  auto f = im.attrInt(n, "fmod", 0);
  if (failed(f))
    return failure();
  if (*f != 0 && *f != 1)
    return im.error(n) << "attribute 'fmod' must be 0 or 1, got " << *f;
  if (Importer::eltOf(n.in(0)).isF32() && *f == 0)
    return im.error(n) << "fmod = 0 is defined for integers only (float "
                          "Mod needs fmod = 1)";
  auto t = broadcastOf(im, n, {n.in(0), n.in(1)}, Importer::eltOf(n.in(0)));
  if (failed(t))
    return failure();
  return setOut(n, im.make<ModOp>(n, *t, n.in(0), n.in(1),
                                  im.b.getBoolAttr(*f != 0)));
}

/// Mean (float32): one input is passed through, more are plumb.mean.
LogicalResult mean(Importer &im, NodeCtx &n) {
  if (n.numInputs() < 1)
    return im.error(n) << "needs at least one input";
  SmallVector<Value> ins;
  for (Value v : n.inputs) {
    if (!v)
      return im.error(n) << "inputs may not be omitted";
    if (!Importer::eltOf(v).isF32())
      return im.error(n) << "expects float tensors, got "
                         << Importer::eltOf(v);
    ins.push_back(v);
  }
  if (ins.size() == 1) {
    n.outputs.push_back(ins[0]);
    return success();
  }
  auto t = broadcastOf(im, n, ins, Importer::eltOf(ins[0]));
  if (failed(t))
    return failure();
  return setOut(n, im.make<MeanOp>(n, *t, ins));
}

LogicalResult xorOp(Importer &im, NodeCtx &n) {
  auto isBool = [](Type t) { return t.isInteger(1); };
  if (failed(checkBinary(im, n, isBool, "bool")))
    return failure();
  return binaryOf<XorOp>(im, n, n.in(0), n.in(1));
}

/// A scalar constant of `elt` (f32 or an integer type).
Value scalarOf(Importer &im, Type elt, double f, int64_t i) {
  auto t = Importer::tensorType({}, elt);
  if (elt.isF32())
    return im.constantOf(DenseElementsAttr::get(t, (float)f));
  return im.constantOf(
      DenseElementsAttr::get(t, APInt(elt.getIntOrFloatBitWidth(), i, true)));
}

/// BitwiseNot (opset 18): x ^ -1 (all bits set), the same bits.
LogicalResult bitwiseNot(Importer &im, NodeCtx &n) {
  if (failed(checkInputs(im, n, 1, false)))
    return failure();
  Type elt = Importer::eltOf(n.in(0));
  if (!isInt(elt))
    return im.error(n) << "expects int32 or int64 tensors, got " << elt;
  return binaryOf<BitXorOp>(im, n, n.in(0), scalarOf(im, elt, 0, -1));
}

/// Sign: float32 by plumb.sign; int32 / int64 as cast(x > 0) - cast(x < 0)
/// (exact: -1, 0 or 1).
LogicalResult sign(Importer &im, NodeCtx &n) {
  if (failed(checkInputs(im, n, 1, false)))
    return failure();
  Value x = n.in(0);
  Type elt = Importer::eltOf(x);
  if (elt.isF32())
    return setOut(n, im.make<SignOp>(n, x.getType(), x));
  if (!isInt(elt))
    return im.error(n) << "expects float32, int32 or int64 tensors, got "
                       << elt;
  auto shape = Importer::shapeOf(x);
  auto bt = Importer::tensorType(shape, im.b.getI1Type());
  auto it = Importer::tensorType(shape, elt);
  Value zero = scalarOf(im, elt, 0, 0);
  auto pos = im.make<GreaterOp>(n, bt, x, zero);
  auto neg = im.make<LessOp>(n, bt, x, zero);
  if (failed(pos) || failed(neg))
    return failure();
  auto p = im.make<CastOp>(n, it, *pos);
  auto q = im.make<CastOp>(n, it, *neg);
  if (failed(p) || failed(q))
    return failure();
  return setOut(n, im.make<SubOp>(n, it, *p, *q));
}

/// BitShift (opset 11), direction LEFT or RIGHT, on the bits as unsigned.
LogicalResult bitShift(Importer &im, NodeCtx &n) {
  if (failed(checkBinary(im, n, isInt, "int32 or int64")))
    return failure();
  auto dir = im.attrString(n, "direction", std::nullopt);
  if (failed(dir))
    return failure();
  if (*dir == "LEFT")
    return binaryOf<ShiftLeftOp>(im, n, n.in(0), n.in(1));
  if (*dir == "RIGHT")
    return binaryOf<ShiftRightOp>(im, n, n.in(0), n.in(1));
  return im.error(n) << "attribute 'direction' must be LEFT or RIGHT, got '"
                     << *dir << "'";
}

/// IsInf (opset 10): x == +inf (detect_positive) or x == -inf
/// (detect_negative), IEEE equality; neither flag gives all false.
LogicalResult isInf(Importer &im, NodeCtx &n) {
  if (failed(checkInputs(im, n, 1, true)))
    return failure();
  auto neg = im.attrInt(n, "detect_negative", 1);
  auto pos = im.attrInt(n, "detect_positive", 1);
  if (failed(neg) || failed(pos))
    return failure();
  Value x = n.in(0);
  auto t = Importer::tensorType(Importer::shapeOf(x), im.b.getI1Type());
  if (!*neg && !*pos)
    return setOut(n, im.constantOf(DenseElementsAttr::get(t, false)));
  auto eq = [&](double v) -> FailureOr<Value> {
    return im.make<EqualOp>(n, t, x, scalarOf(im, im.b.getF32Type(), v, 0));
  };
  FailureOr<Value> p = *pos ? eq(INFINITY) : FailureOr<Value>(failure());
  FailureOr<Value> m = *neg ? eq(-INFINITY) : FailureOr<Value>(failure());
  if ((*pos && failed(p)) || (*neg && failed(m)))
    return failure();
  if (!*neg)
    return setOut(n, p);
  if (!*pos)
    return setOut(n, m);
  return setOut(n, im.make<OrOp>(n, t, *p, *m));
}

/// The cosine-sum windows of opset 17 (Hann, Hamming, Blackman), ONNX's
/// function body in float32 (docs/determinism.md, "Window functions"):
/// N = periodic ? size : size - 1, inc = tau / N, x_i = i * inc,
/// y_i = (a0 - (a1 * cos(x_i))) + (a2 * cos(x_i * 2)), with tau, a0, a1, a2
/// the float32 constants of the body and cos the runtime's (math.h, the
/// function plumb.cos computes). `size` must be known at import; the result
/// is a constant.
template <int Kind> LogicalResult cosineWindow(Importer &im, NodeCtx &n) {
  // Kind 0 Hann, 1 Hamming, 2 Blackman: the body's A0, A1, A2 (bits).
  static const uint32_t kCoef[3][3] = {{0x3F000000u, 0x3F000000u, 0u},
                                       {0x3F0B2164u, 0x3EE9BD38u, 0u},
                                       {0x3ED70A3Du, 0x3F000000u, 0x3DA3D70Au}};
  if (failed(checkInputs(im, n, 1, false)))
    return failure();
  if (!isInt(Importer::eltOf(n.in(0))))
    return im.error(n) << "input 'size' must be int32 or int64, got "
                       << Importer::eltOf(n.in(0));
  auto periodic = im.attrInt(n, "periodic", 1);
  auto dtype = im.attrInt(n, "output_datatype", 1);
  if (failed(periodic) || failed(dtype))
    return failure();
  if (*periodic != 0 && *periodic != 1)
    return im.error(n) << "periodic must be 0 or 1, got " << *periodic;
  if (*dtype != onnx::TensorProto::FLOAT)
    return im.error(n) << "output_datatype " << *dtype
                       << " is not supported (only 1, float32)";
  auto size = im.constInts(n, 0, "size");
  if (failed(size))
    return failure();
  if (size->size() != 1)
    return im.error(n) << "input 'size' must hold one value, got "
                       << size->size();
  const int64_t len = (*size)[0];
  // > 0 as ONNX's shape inference requires; <= 2^24: every index i is exact
  // in float32.
  if (len < 1 || len > (int64_t(1) << 24))
    return im.error(n) << "size " << len << " is outside [1, 16777216]";
  auto f = [](uint32_t b) { return ::plumb::rt::ops::fromBits(b); };
  const float a0 = f(kCoef[Kind][0]), a1 = f(kCoef[Kind][1]),
              a2 = f(kCoef[Kind][2]), tau = f(0x40C90FDBu);
  const float sizeF = (float)len;
  const float denom = *periodic ? sizeF : sizeF - 1.0f;
  const float inc = tau / denom;
  SmallVector<float> y((size_t)len);
  for (int64_t i = 0; i < len; ++i) {
    const float x = (float)i * inc;
    const float c1 = ::plumb::rt::cos(x), c2 = ::plumb::rt::cos(x * 2.0f);
    const float t = a0 - (a1 * c1);
    y[(size_t)i] = ::plumb::rt::ops::canon(t + (a2 * c2));
  }
  auto type = Importer::tensorType({len}, im.b.getF32Type());
  return setOut(n, im.constantOf(
                       DenseElementsAttr::get(type, ArrayRef<float>(y))));
}

} // namespace

void registerMathHandlers(OpTable &t) {
  t.add("Floor", floatUnary<FloorOp>, kF32);
  t.add("Ceil", floatUnary<CeilOp>, kF32);
  t.add("Round", floatUnary<RoundOp>, kF32, 11);
  t.add("Sign", sign, kF32 | kInt, 9);
  t.add("Softplus", floatUnary<SoftplusOp>, kF32);
  t.add("Softsign", floatUnary<SoftsignOp>, kF32);
  t.add("Elu", elu, kF32);
  t.add("Selu", selu, kF32);
  t.add("PRelu", prelu, kF32);
  t.add("Celu", celu, kF32, 12);
  t.add("ThresholdedRelu", thresholdedRelu, kF32, 10);
  t.add("Shrink", shrink, kF32, 9);
  t.add("Mish", floatUnary<MishOp>, kF32, 18);
  t.add("Swish", swish, kF32, 24);
  t.add("Mod", mod, kNum, 10);
  t.add("Mean", mean, kF32);
  t.add("Xor", xorOp, kBool);
  t.add("BitwiseAnd", intBinary<BitAndOp>, kInt, 18);
  t.add("BitwiseOr", intBinary<BitOrOp>, kInt, 18);
  t.add("BitwiseXor", intBinary<BitXorOp>, kInt, 18);
  t.add("BitwiseNot", bitwiseNot, kInt, 18);
  t.add("BitShift", bitShift, kInt, 11);
  t.add("IsInf", isInf, kF32, 10);
  t.add("Sin", floatUnary<SinOp>, kF32, 7);
  t.add("Cos", floatUnary<CosOp>, kF32, 7);
  t.add("Tan", floatUnary<TanOp>, kF32, 7);
  t.add("Asin", floatUnary<AsinOp>, kF32, 7);
  t.add("Acos", floatUnary<AcosOp>, kF32, 7);
  t.add("Atan", floatUnary<AtanOp>, kF32, 7);
  t.add("Sinh", floatUnary<SinhOp>, kF32, 9);
  t.add("Cosh", floatUnary<CoshOp>, kF32, 9);
  t.add("Asinh", floatUnary<AsinhOp>, kF32, 9);
  t.add("Acosh", floatUnary<AcoshOp>, kF32, 9);
  t.add("Atanh", floatUnary<AtanhOp>, kF32, 9);
  t.add("HannWindow", cosineWindow<0>, kInt, 17);
  t.add("HammingWindow", cosineWindow<1>, kInt, 17);
  t.add("BlackmanWindow", cosineWindow<2>, kInt, 17);
}

} // namespace importer
} // namespace plumb
