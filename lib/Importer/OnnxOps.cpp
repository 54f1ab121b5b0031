//===- lib/Importer/OnnxOps.cpp - ONNX operators: tensors and math -------===//
//
// Part of Plumb. Handlers for elementwise, reduction and data-movement
// operators, and the handler table. Each handler normalises the operator's
// opset-dependent form (attributes vs. constant inputs, negative axes,
// defaults) into one plumb op with a static result type. Shape-only
// operators (Shape, Size, ConstantOfShape, Range) always fold to constants.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include <cmath>

using namespace mlir;

namespace plumb {
namespace importer {

void registerNNHandlers(OpTable &table);

namespace {

using Shape = shapes::Shape;

Value out0(NodeCtx &n, Value v) {
  n.outputs.push_back(v);
  return v;
}

bool isFloat(Value v) { return Importer::eltOf(v).isF32(); }

FailureOr<Value> reshapeTo(Importer &im, NodeCtx &n, Value v,
                           ArrayRef<int64_t> shape);

LogicalResult requireFloat(Importer &im, NodeCtx &n, Value v) {
  if (!isFloat(v))
    return im.error(n) << "expects float tensors, got "
                       << Importer::eltOf(v);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename OpTy, bool FloatOnly>
LogicalResult unary(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  if (FloatOnly && failed(requireFloat(im, n, n.in(0))))
    return failure();
  return setOut(n, im.make<OpTy>(n, n.in(0).getType(), n.in(0)));
}

LogicalResult identity(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  out0(n, n.in(0));
  return success();
}

LogicalResult dropout(Importer &im, NodeCtx &n) {
  // Inference: Dropout is the identity and its mask is all true. Training
  // mode drops at random unless the ratio is known to be 0.
  if (failed(need(im, n, 1, 3)))
    return failure();
  if (n.in(2)) {
    auto t = im.constant(n.in(2));
    if (!t || t->size() != 1)
      return im.error(n) << "input 'training_mode' must be a scalar known at "
                            "import time";
    if (t->i[0] != 0) {
      auto r = n.in(1) ? im.constant(n.in(1)) : std::nullopt;
      bool zero = r && r->isFloat && r->size() == 1 && r->f[0] == 0.0f;
      if (!zero)
        return im.error(n) << "Dropout in training mode is not supported "
                              "(unless its ratio is known to be 0)";
    }
  }
  out0(n, n.in(0));
  if (n.proto.output_size() > 1 && !n.proto.output(1).empty()) {
    auto mask = Importer::tensorType(Importer::shapeOf(n.in(0)),
                                     im.b.getI1Type());
    n.outputs.push_back(im.constantOf(DenseElementsAttr::get(mask, true)));
  }
  return success();
}

LogicalResult hardSigmoid(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(requireFloat(im, n, n.in(0))))
    return failure();
  auto alpha = im.attrFloat(n, "alpha", 0.2f);
  auto beta = im.attrFloat(n, "beta", 0.5f);
  if (failed(alpha) || failed(beta))
    return failure();
  return setOut(n, im.make<HardSigmoidOp>(n, n.in(0).getType(), n.in(0),
                                          im.b.getF32FloatAttr(*alpha),
                                          im.b.getF32FloatAttr(*beta)));
}

/// IsNaN (opset 9): not(x == x), true exactly for NaN (IEEE equality).
LogicalResult isNaN(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(requireFloat(im, n, n.in(0))))
    return failure();
  auto t = Importer::tensorType(Importer::shapeOf(n.in(0)), im.b.getI1Type());
  auto eq = im.make<EqualOp>(n, t, n.in(0), n.in(0));
  if (failed(eq))
    return failure();
  return setOut(n, im.make<NotOp>(n, t, *eq));
}

LogicalResult leakyRelu(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(requireFloat(im, n, n.in(0))))
    return failure();
  auto alpha = im.attrFloat(n, "alpha", 0.01f);
  if (failed(alpha))
    return failure();
  return setOut(n, im.make<LeakyReluOp>(n, n.in(0).getType(), n.in(0),
                                        im.b.getF32FloatAttr(*alpha)));
}

/// Clip. Bounds known at import become plumb.clip's attributes. A bound
/// computed at run time (opset >= 11 takes the bounds as inputs) makes the
/// node plumb.max(x, min) then plumb.min(., max), with the bound tensor as
/// the second operand (reshaped to a scalar when it has a single element
/// of higher rank): plumb.clip is defined as min(max(x, lo), hi) with the
/// same Max and Min (NaN propagation, -0 < +0), so the bits are the same
/// (docs/dialect.md).
LogicalResult clip(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 3)))
    return failure();
  // Integers (opset 12): min(max(x, lo), hi) on the exact values, the bounds
  // of x's type (absent bounds leave that side open).
  Type xe = Importer::eltOf(n.in(0));
  bool intClip = n.opset >= 12 && (xe.isInteger(32) || xe.isInteger(64));
  if (!intClip && failed(requireFloat(im, n, n.in(0))))
    return failure();
  for (int i = 1; intClip && i <= 2; ++i)
    if (Value v = n.in(i)) {
      if (Importer::eltOf(v) != xe)
        return im.error(n) << "input '" << (i == 1 ? "min" : "max")
                           << "' must have the input's type " << xe << ", got "
                           << Importer::eltOf(v);
      if (mlir::cast<RankedTensorType>(v.getType()).getNumElements() != 1)
        return im.error(n) << "Clip bounds must be scalars";
    }
  float lo = -INFINITY, hi = INFINITY;
  if (n.opset < 11) {
    auto a = im.attrFloat(n, "min", -INFINITY);
    auto c = im.attrFloat(n, "max", INFINITY);
    if (failed(a) || failed(c))
      return failure();
    lo = *a, hi = *c;
    return setOut(n, im.make<ClipOp>(n, n.in(0).getType(), n.in(0),
                                     im.b.getF32FloatAttr(lo),
                                     im.b.getF32FloatAttr(hi)));
  }
  bool dynamic = intClip;
  for (int i = 1; !intClip && i <= 2; ++i) {
    Value v = n.in(i);
    if (!v)
      continue;
    StringRef what = i == 1 ? "min" : "max";
    if (!isFloat(v))
      return im.error(n) << "input '" << what << "' must be a float tensor, "
                         << "got " << Importer::eltOf(v);
    if (mlir::cast<RankedTensorType>(v.getType()).getNumElements() != 1)
      return im.error(n) << "Clip bounds must be scalars";
    auto c = im.constant(v);
    if (!c) {
      dynamic = true;
      continue;
    }
    (i == 1 ? lo : hi) = c->f[0];
  }
  if (!dynamic)
    return setOut(n, im.make<ClipOp>(n, n.in(0).getType(), n.in(0),
                                     im.b.getF32FloatAttr(lo),
                                     im.b.getF32FloatAttr(hi)));
  Value y = n.in(0);
  for (int i = 1; i <= 2; ++i) {
    Value bound = n.in(i);
    if (!bound)
      continue;
    if (!Importer::shapeOf(bound).empty()) {
      auto r = reshapeTo(im, n, bound, {});
      if (failed(r))
        return failure();
      bound = *r;
    }
    FailureOr<Value> z =
        i == 1 ? im.make<MaxOp>(n, y.getType(), ValueRange{y, bound})
               : im.make<MinOp>(n, y.getType(), ValueRange{y, bound});
    if (failed(z))
      return failure();
    y = *z;
  }
  return out0(n, y), success();
}

LogicalResult gelu(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(requireFloat(im, n, n.in(0))))
    return failure();
  auto approx = im.attrString(n, "approximate", std::string("none"));
  if (failed(approx))
    return failure();
  return setOut(n, im.make<GeluOp>(n, n.in(0).getType(), n.in(0),
                                   im.b.getStringAttr(*approx)));
}

/// Result type of a broadcasting op.
FailureOr<RankedTensorType> broadcastType(Importer &im, NodeCtx &n,
                                          ArrayRef<Value> ins, Type elt) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : ins)
    shapes.push_back(Importer::shapeOf(v));
  auto s = shapes::broadcast(shapes, im.emitter(n));
  if (failed(s))
    return failure();
  return Importer::tensorType(*s, elt);
}

template <typename OpTy, bool Compare>
LogicalResult binary(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  Value a = n.in(0), c = n.in(1);
  if (Importer::eltOf(a) != Importer::eltOf(c))
    return im.error(n) << "operand element types differ: "
                       << Importer::eltOf(a) << " and " << Importer::eltOf(c);
  Type elt = Compare ? im.b.getI1Type() : Importer::eltOf(a);
  auto t = broadcastType(im, n, {a, c}, elt);
  if (failed(t))
    return failure();
  return setOut(n, im.make<OpTy>(n, *t, a, c));
}

/// Pow. The result has the base's type (ONNX). A float base takes the
/// exponent as f32 (an integer exponent is cast: exact for |e| < 2^24, the
/// only integers a float pow can tell apart). An integer base with an
/// integer exponent is plumb.pow on integers (exact power, wrapping; a
/// narrower operand is widened first, and int32 ^ int64 is computed in
/// int64 and cast back, which keeps the same low 32 bits). An integer base
/// with a float exponent is computed in f32 and cast back to the base type
/// with plumb.cast's rules (truncation, NaN -> 0, saturation), as ONNX
/// converts the float result; docs/dialect.md.
LogicalResult pow(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  Value x = n.in(0), e = n.in(1);
  Type xt = Importer::eltOf(x), et = Importer::eltOf(e);
  auto isInt = [](Type t) { return t.isInteger(32) || t.isInteger(64); };
  if (!xt.isF32() && !isInt(xt))
    return im.error(n) << "expects a float, int32 or int64 base, got '" << xt
                       << "'";
  if (!et.isF32() && !isInt(et))
    return im.error(n) << "expects a float, int32 or int64 exponent, got '"
                       << et << "'";
  auto castTo = [&](Value v, Type t) -> FailureOr<Value> {
    return im.make<CastOp>(n, Importer::tensorType(Importer::shapeOf(v), t),
                           v);
  };
  auto powIn = [&](Value a, Value b, Type t) -> FailureOr<Value> {
    auto rt = broadcastType(im, n, {a, b}, t);
    if (failed(rt))
      return failure();
    return im.make<PowOp>(n, *rt, a, b);
  };
  Type f32 = im.b.getF32Type();
  if (xt.isF32() || et.isF32()) {
    // Float arithmetic: both operands as f32.
    FailureOr<Value> a = xt.isF32() ? FailureOr<Value>(x) : castTo(x, f32);
    FailureOr<Value> b = et.isF32() ? FailureOr<Value>(e) : castTo(e, f32);
    if (failed(a) || failed(b))
      return failure();
    auto z = powIn(*a, *b, f32);
    if (failed(z) || xt.isF32())
      return setOut(n, z);
    return setOut(n, castTo(*z, xt));
  }
  // Integer ^ integer, in the wider of the two types.
  Type wide = xt.isInteger(64) ? xt : et;
  FailureOr<Value> a = xt == wide ? FailureOr<Value>(x) : castTo(x, wide);
  FailureOr<Value> b = et == wide ? FailureOr<Value>(e) : castTo(e, wide);
  if (failed(a) || failed(b))
    return failure();
  auto z = powIn(*a, *b, wide);
  if (failed(z) || xt == wide)
    return setOut(n, z);
  return setOut(n, castTo(*z, xt));
}

template <typename OpTy>
LogicalResult variadic(Importer &im, NodeCtx &n) {
  if (n.numInputs() < 1)
    return im.error(n) << "needs at least one input";
  SmallVector<Value> ins;
  for (Value v : n.inputs) {
    if (!v)
      return im.error(n) << "inputs may not be omitted";
    if (Importer::eltOf(v) != Importer::eltOf(n.in(0)))
      return im.error(n) << "operand element types differ";
    ins.push_back(v);
  }
  if (ins.size() == 1)
    return out0(n, ins[0]), success();
  auto t = broadcastType(im, n, ins, Importer::eltOf(ins[0]));
  if (failed(t))
    return failure();
  return setOut(n, im.make<OpTy>(n, *t, ins));
}

LogicalResult where(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 3)))
    return failure();
  if (!Importer::eltOf(n.in(0)).isInteger(1))
    return im.error(n) << "condition must be bool";
  auto t = broadcastType(im, n, {n.in(0), n.in(1), n.in(2)},
                         Importer::eltOf(n.in(1)));
  if (failed(t))
    return failure();
  return setOut(n, im.make<WhereOp>(n, *t, n.in(0), n.in(1), n.in(2)));
}

LogicalResult castOp(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto to = im.attrInt(n, "to", std::nullopt);
  // `saturate` (opset 19) and `round_mode` (opset 24) only change casts to
  // the float8 types, which Plumb refuses below: checked, then ignored.
  auto saturate = im.attrInt(n, "saturate", 1);
  auto round = im.attrString(n, "round_mode", std::string("up"));
  if (failed(to) || failed(saturate) || failed(round))
    return failure();
  if (*round != "up" && *round != "down" && *round != "nearest")
    return im.error(n) << "round_mode '" << *round
                       << "' is not valid (up, down or nearest)";
  DType dt;
  // To FLOAT16 / BFLOAT16: to float32, then one rounding to the storage type
  // (docs/determinism.md, "Half precision").
  int32_t half = isHalfFloatType((int32_t)*to) ? (int32_t)*to : 0;
  if (half)
    dt = DType::F32;
  else if (!dtypeFromOnnx((int32_t)*to, dt))
    return im.error(n) << "cast to " << onnxTypeName((int32_t)*to)
                       << " is not supported (float, int64, int32, bool, "
                          "float16, bfloat16)";
  auto t = Importer::tensorType(Importer::shapeOf(n.in(0)), im.mlirType(dt));
  auto y = im.make<CastOp>(n, t, n.in(0));
  if (failed(y))
    return failure();
  if (half && im.halfType(*y) != half)
    return setOut(n, im.roundToHalf(n.loc, *y, half));
  if (!half && *y == n.in(0) && im.halfType(*y))
    // Cast from a half type to FLOAT: the value itself, as a value of
    // storage type float32 (an f32 -> f32 cast, which canonicalisation
    // removes once the import no longer needs the distinction).
    return out0(n, im.asFloat32Storage(n.loc, n.in(0))), success();
  return setOut(n, y);
}

/// CastLike (opset 15): Cast to the element type of input 1 (whose values
/// are not used), with Cast's attributes. onnxscript's functions use it.
LogicalResult castLike(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  auto saturate = im.attrInt(n, "saturate", 1);
  auto round = im.attrString(n, "round_mode", std::string("up"));
  if (failed(saturate) || failed(round))
    return failure();
  if (*round != "up" && *round != "down" && *round != "nearest")
    return im.error(n) << "round_mode '" << *round
                       << "' is not valid (up, down or nearest)";
  auto t = Importer::tensorType(Importer::shapeOf(n.in(0)),
                                Importer::eltOf(n.in(1)));
  auto y = im.make<CastOp>(n, t, n.in(0));
  if (failed(y))
    return failure();
  int32_t half = im.halfType(n.in(1));
  if (half && im.halfType(*y) != half)
    return setOut(n, im.roundToHalf(n.loc, *y, half));
  if (!half && *y == n.in(0) && im.halfType(*y))
    return out0(n, im.asFloat32Storage(n.loc, n.in(0))), success();
  return setOut(n, y);
}

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

LogicalResult constant(Importer &im, NodeCtx &n) {
  const onnx::AttributeProto *a = nullptr;
  for (const auto &attr : n.proto.attribute())
    a = &attr;
  if (n.proto.attribute_size() != 1)
    return im.error(n) << "Constant needs exactly one value attribute";
  StringRef name = a->name();
  if (name == "value") {
    int32_t onnxType = 0;
    auto t = im.attrTensor(n, "value", &onnxType);
    if (failed(t))
      return failure();
    Value c = im.constantOf(*t);
    if (onnxType)
      im.narrowTypes[c] = onnxType;
    return out0(n, c), success();
  }
  if (name == "value_float") {
    auto f = im.attrFloat(n, name, std::nullopt);
    if (failed(f))
      return failure();
    auto t = RankedTensorType::get({}, im.b.getF32Type());
    return out0(n, im.constantOf(DenseElementsAttr::get(t, *f))), success();
  }
  if (name == "value_floats") {
    auto f = im.attrFloats(n, name, std::nullopt);
    if (failed(f))
      return failure();
    auto t = RankedTensorType::get({(int64_t)f->size()}, im.b.getF32Type());
    return out0(n, im.constantOf(DenseElementsAttr::get(t, ArrayRef<float>(*f)))),
           success();
  }
  if (name == "value_int") {
    auto i = im.attrInt(n, name, std::nullopt);
    if (failed(i))
      return failure();
    return out0(n, im.constI64({}, {*i})), success();
  }
  if (name == "value_ints") {
    auto i = im.attrInts(n, name, std::nullopt);
    if (failed(i))
      return failure();
    return out0(n, im.constI64({(int64_t)i->size()}, *i)), success();
  }
  return im.error(n) << "Constant attribute '" << name
                     << "' is not supported (sparse and string constants)";
}

LogicalResult shape(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto s = Importer::shapeOf(n.in(0));
  int64_t rank = s.size();
  auto start = im.attrInt(n, "start", 0);
  auto end = im.attrInt(n, "end", rank);
  if (failed(start) || failed(end))
    return failure();
  auto clampAxis = [&](int64_t v) {
    if (v < 0)
      v += rank;
    return std::min(std::max<int64_t>(v, 0), rank);
  };
  int64_t lo = clampAxis(*start), hi = clampAxis(*end);
  SmallVector<int64_t> dims;
  for (int64_t i = lo; i < hi; ++i)
    dims.push_back(s[i]);
  return out0(n, im.constI64({(int64_t)dims.size()}, dims)), success();
}

LogicalResult size(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  int64_t count = mlir::cast<RankedTensorType>(n.in(0).getType()).getNumElements();
  return out0(n, im.constI64({}, {count})), success();
}

LogicalResult constantOfShape(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto dims = im.constInts(n, 0, "input");
  if (failed(dims))
    return failure();
  if (failed(shapes::numElements(*dims, im.emitter(n))))
    return failure();
  Attribute value = im.b.getF32FloatAttr(0.0f);
  Type elt = im.b.getF32Type();
  if (im.attr(n, "value")) {
    auto t = im.attrTensor(n, "value");
    if (failed(t))
      return failure();
    if (t->getNumElements() != 1)
      return im.error(n) << "attribute 'value' must hold one element";
    elt = t->getElementType();
    value = t->getValues<Attribute>()[0];
  }
  auto type = Importer::tensorType(*dims, elt);
  return out0(n, im.constantOf(DenseElementsAttr::get(type, value))), success();
}

LogicalResult range(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 3)))
    return failure();
  auto s = im.constant(n.in(0)), l = im.constant(n.in(1)),
       d = im.constant(n.in(2));
  if (!s || !l || !d || s->size() != 1 || l->size() != 1 || d->size() != 1)
    return im.error(n) << "start, limit and delta must be scalars known at "
                          "import time";
  Type elt = Importer::eltOf(n.in(0));
  if (s->isFloat) {
    float start = s->f[0], limit = l->f[0], delta = d->f[0];
    if (delta == 0.0f || !std::isfinite(start) || !std::isfinite(limit) ||
        !std::isfinite(delta))
      return im.error(n) << "Range needs finite values and a non-zero delta";
    double cnt = std::ceil(((double)limit - (double)start) / (double)delta);
    int64_t count = cnt > 0 ? (int64_t)cnt : 0;
    if (count > kFoldElementLimit)
      return im.error(n) << "Range of " << count << " elements is too large";
    std::vector<float> v(count);
    // Each element is start + i * delta in float: one multiply, one add.
    for (int64_t i = 0; i < count; ++i)
      v[i] = start + (float)i * delta;
    auto t = Importer::tensorType({count}, elt);
    return out0(n, im.constantOf(DenseElementsAttr::get(t, ArrayRef<float>(v)))),
           success();
  }
  int64_t start = s->i[0], limit = l->i[0], delta = d->i[0];
  if (delta == 0)
    return im.error(n) << "Range delta must not be 0";
  int64_t count = 0;
  if ((delta > 0 && limit > start) || (delta < 0 && limit < start)) {
    __int128 span = (__int128)limit - start;
    __int128 c = (span + (delta > 0 ? delta - 1 : delta + 1)) / delta;
    if (c > kFoldElementLimit)
      return im.error(n) << "Range of " << (int64_t)c
                         << " elements is too large";
    count = (int64_t)c;
  }
  Literal r = Literal::make(Importer::tensorType({count}, elt));
  for (int64_t i = 0; i < count; ++i)
    r.i[i] = start + i * delta;
  return out0(n, im.constantOf(r.toAttr())), success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

FailureOr<Value> reshapeTo(Importer &im, NodeCtx &n, Value v,
                           ArrayRef<int64_t> shape) {
  auto t = Importer::tensorType(shape, Importer::eltOf(v));
  return im.make<ReshapeOp>(n, t, v);
}

LogicalResult reshape(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  auto target = im.constInts(n, 1, "shape");
  auto allowZero = im.attrInt(n, "allowzero", 0);
  if (failed(target) || failed(allowZero))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  auto total = shapes::numElements(in, im.emitter(n));
  if (failed(total))
    return failure();
  SmallVector<int64_t> s(*target);
  int64_t inferAt = -1, known = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 0 && !*allowZero) {
      if (i >= in.size())
        return im.error(n) << "shape entry " << i
                           << " is 0 (copy) but the input has rank "
                           << in.size();
      s[i] = in[i];
    }
    if (s[i] == -1) {
      if (inferAt >= 0)
        return im.error(n) << "shape has more than one -1";
      inferAt = i;
      continue;
    }
    if (s[i] < 0)
      return im.error(n) << "shape entry " << s[i] << " is invalid";
    if (__builtin_mul_overflow(known, s[i], &known))
      return im.error(n) << "shape overflows";
  }
  if (inferAt >= 0) {
    if (known == 0 || *total % known != 0)
      return im.error(n) << "cannot reshape " << shapes::str(in) << " to "
                         << shapes::str(*target);
    s[inferAt] = *total / known;
  } else if (known != *total) {
    return im.error(n) << "cannot reshape " << shapes::str(in) << " ("
                       << *total << " elements) to " << shapes::str(s) << " ("
                       << known << " elements)";
  }
  return setOut(n, reshapeTo(im, n, n.in(0), s));
}

LogicalResult flatten(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  auto axis = im.attrInt(n, "axis", 1);
  if (failed(axis))
    return failure();
  auto a = shapes::normalizeAxis(*axis, in.size(), im.emitter(n), true);
  if (failed(a))
    return failure();
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < (int64_t)in.size(); ++i)
    (i < *a ? outer : inner) *= in[i];
  return setOut(n, reshapeTo(im, n, n.in(0), {outer, inner}));
}

/// Axes from the attribute (old opsets) or the constant input `idx`.
FailureOr<SmallVector<int64_t>> axesOf(Importer &im, NodeCtx &n, int64_t idx,
                                       bool fromInput) {
  if (fromInput) {
    // An `axes` attribute where the opset takes an input would be ignored
    // (and the node reduce or squeeze everything): refused instead.
    if (im.attr(n, "axes"))
      return im.error(n) << "has an 'axes' attribute, but at opset " << n.opset
                         << " axes are the node's input " << idx;
    if (!n.in(idx))
      return SmallVector<int64_t>{};
    return im.constInts(n, idx, "axes");
  }
  return im.attrInts(n, "axes", SmallVector<int64_t>{});
}

LogicalResult squeeze(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 2)))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  auto axes = axesOf(im, n, 1, n.opset >= 13);
  if (failed(axes))
    return failure();
  SmallVector<bool> drop(in.size(), false);
  if (axes->empty()) {
    for (size_t i = 0; i < in.size(); ++i)
      drop[i] = in[i] == 1;
  }
  for (int64_t a : *axes) {
    auto na = shapes::normalizeAxis(a, in.size(), im.emitter(n));
    if (failed(na))
      return failure();
    if (in[*na] != 1)
      return im.error(n) << "cannot squeeze dimension " << *na << " of size "
                         << in[*na];
    drop[*na] = true;
  }
  SmallVector<int64_t> s;
  for (size_t i = 0; i < in.size(); ++i)
    if (!drop[i])
      s.push_back(in[i]);
  return setOut(n, reshapeTo(im, n, n.in(0), s));
}

LogicalResult unsqueeze(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 2)))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  auto axes = axesOf(im, n, 1, n.opset >= 13);
  if (failed(axes))
    return failure();
  int64_t rank = in.size() + axes->size();
  SmallVector<bool> ins(rank, false);
  for (int64_t a : *axes) {
    auto na = shapes::normalizeAxis(a, rank, im.emitter(n));
    if (failed(na))
      return failure();
    if (ins[*na])
      return im.error(n) << "axis " << a << " repeated";
    ins[*na] = true;
  }
  SmallVector<int64_t> s;
  size_t k = 0;
  for (int64_t i = 0; i < rank; ++i)
    s.push_back(ins[i] ? 1 : in[k++]);
  return setOut(n, reshapeTo(im, n, n.in(0), s));
}

LogicalResult transpose(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  SmallVector<int64_t> rev;
  for (int64_t i = in.size(); i-- > 0;)
    rev.push_back(i);
  auto perm = im.attrInts(n, "perm", rev);
  if (failed(perm))
    return failure();
  auto s = shapes::transpose(in, *perm, im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, Importer::eltOf(n.in(0)));
  return setOut(n, im.make<TransposeOp>(n, t, n.in(0),
                                        im.b.getDenseI64ArrayAttr(*perm)));
}

LogicalResult concat(Importer &im, NodeCtx &n) {
  if (n.numInputs() < 1)
    return im.error(n) << "needs at least one input";
  auto axis = im.attrInt(n, "axis", n.opset < 4 ? std::optional<int64_t>(1)
                                                 : std::nullopt);
  if (failed(axis))
    return failure();
  SmallVector<Value> ins;
  SmallVector<ArrayRef<int64_t>> shapesIn;
  for (Value v : n.inputs) {
    if (!v)
      return im.error(n) << "inputs may not be omitted";
    if (Importer::eltOf(v) != Importer::eltOf(n.in(0)))
      return im.error(n) << "inputs have different element types";
    ins.push_back(v);
    shapesIn.push_back(Importer::shapeOf(v));
  }
  auto a = shapes::normalizeAxis(*axis, shapesIn[0].size(), im.emitter(n));
  if (failed(a))
    return failure();
  auto s = shapes::concat(shapesIn, *a, im.emitter(n));
  if (failed(s))
    return failure();
  if (ins.size() == 1)
    return out0(n, ins[0]), success();
  auto t = Importer::tensorType(*s, Importer::eltOf(ins[0]));
  return setOut(n, im.make<ConcatOp>(n, t, ins, im.b.getI64IntegerAttr(*a)));
}

LogicalResult split(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 2)))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  auto axis = im.attrInt(n, "axis", 0);
  if (failed(axis))
    return failure();
  auto a = shapes::normalizeAxis(*axis, in.size(), im.emitter(n));
  if (failed(a))
    return failure();
  SmallVector<int64_t> sizes;
  if (n.opset >= 13 && im.attr(n, "split"))
    return im.error(n) << "has a 'split' attribute, but at opset " << n.opset
                       << " the sizes are the node's input 1";
  if (n.opset >= 13 && n.in(1)) {
    auto s = im.constInts(n, 1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (n.opset < 13) {
    auto s = im.attrInts(n, "split", SmallVector<int64_t>{});
    if (failed(s))
      return failure();
    sizes = *s;
  }
  int64_t outs = n.proto.output_size();
  const onnx::AttributeProto *numOutputs =
      n.opset >= 18 ? im.attr(n, "num_outputs") : nullptr;
  if (numOutputs) {
    // Opset 18: num_outputs parts of ceil(dim / num_outputs), the last one
    // smaller (what is left, possibly 0: onnx's reference and shape
    // inference).
    auto k = im.attrInt(n, "num_outputs", std::nullopt);
    if (failed(k))
      return failure();
    if (n.in(1))
      return im.error(n) << "has both the 'split' input and the "
                            "'num_outputs' attribute";
    if (*k < 1)
      return im.error(n) << "num_outputs must be >= 1, got " << *k;
    if (*k != outs)
      return im.error(n) << "num_outputs is " << *k << " but the node has "
                         << outs << " outputs";
    int64_t dim = in[*a], chunk = (dim + *k - 1) / *k;
    int64_t last = dim - chunk * (*k - 1);
    if (last < 0)
      return im.error(n) << "cannot split dimension of size " << dim << " into "
                         << *k << " parts of " << chunk
                         << " (the last part would have " << last
                         << " elements)";
    sizes.assign(*k - 1, chunk);
    sizes.push_back(last);
  }
  if (sizes.empty()) {
    if (outs < 1 || in[*a] % outs != 0)
      return im.error(n) << "cannot split dimension of size " << in[*a]
                         << " into " << outs << " equal parts";
    sizes.assign(outs, in[*a] / outs);
  }
  if ((int64_t)sizes.size() != outs)
    return im.error(n) << "has " << sizes.size() << " split sizes but " << outs
                       << " outputs";
  SmallVector<Type> types;
  for (int64_t sz : sizes) {
    SmallVector<int64_t> s(in.begin(), in.end());
    s[*a] = sz;
    types.push_back(Importer::tensorType(s, Importer::eltOf(n.in(0))));
  }
  auto op = im.makeOp<SplitOp>(n, types, n.in(0), im.b.getI64IntegerAttr(*a),
                               im.b.getDenseI64ArrayAttr(sizes));
  if (failed(op))
    return failure();
  for (Value v : op->getResults())
    n.outputs.push_back(v);
  return success();
}

LogicalResult slice(Importer &im, NodeCtx &n) {
  auto in = Importer::shapeOf(n.in(0));
  SmallVector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    if (failed(need(im, n, 1, 1)))
      return failure();
    auto s = im.attrInts(n, "starts", std::nullopt);
    auto e = im.attrInts(n, "ends", std::nullopt);
    if (failed(s) || failed(e))
      return failure();
    starts = *s, ends = *e;
    auto a = im.attrInts(n, "axes", SmallVector<int64_t>{});
    if (failed(a))
      return failure();
    axes = *a;
  } else {
    if (failed(need(im, n, 3, 5)))
      return failure();
    auto s = im.constInts(n, 1, "starts");
    auto e = im.constInts(n, 2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s, ends = *e;
    if (n.in(3)) {
      auto a = im.constInts(n, 3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (n.in(4)) {
      auto st = im.constInts(n, 4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  for (auto &a : axes) {
    auto na = shapes::normalizeAxis(a, in.size(), im.emitter(n));
    if (failed(na))
      return failure();
    a = *na;
  }
  Shape fullStarts, fullSteps, result;
  if (failed(shapes::normalizeSlice(in, starts, ends, axes, steps, fullStarts,
                                    fullSteps, result, im.emitter(n))))
    return failure();
  auto t = Importer::tensorType(result, Importer::eltOf(n.in(0)));
  return setOut(n, im.make<SliceOp>(n, t, n.in(0),
                                    im.b.getDenseI64ArrayAttr(fullStarts),
                                    im.b.getDenseI64ArrayAttr(fullSteps)));
}

LogicalResult gatherND(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  auto b = im.attrInt(n, "batch_dims", 0);
  if (failed(b))
    return failure();
  Type it = Importer::eltOf(n.in(1));
  if (!it.isInteger(64))
    return im.error(n) << "indices must be int64";
  // The op infers its result type (and checks the shapes, naming the
  // problem at the node).
  SmallVector<Type, 1> types;
  GatherNDOp::Properties props;
  props.batch_dims = im.b.getI64IntegerAttr(*b);
  SmallVector<Value, 2> operands = {n.in(0), n.in(1)};
  GatherNDOp::Adaptor adaptor(operands, DictionaryAttr(), props);
  if (failed(GatherNDOp::inferReturnTypes(&im.ctx, n.loc, adaptor, types)))
    return failure();
  // Indices known at import are checked here, naming the dimension.
  if (auto idx = im.constant(n.in(1))) {
    auto data = Importer::shapeOf(n.in(0));
    int64_t k = Importer::shapeOf(n.in(1)).back();
    for (size_t e = 0; e < idx->i.size(); ++e) {
      int64_t d = *b + (int64_t)(e % k), v = idx->i[e];
      if (v < -data[d] || v >= data[d])
        return im.error(n) << "index " << v << " is out of range for "
                           << "dimension " << d << " of size " << data[d];
    }
  }
  return setOut(n, im.make<GatherNDOp>(n, types[0], n.in(0), n.in(1),
                                       im.b.getI64IntegerAttr(*b)));
}

LogicalResult gather(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  auto axis = im.attrInt(n, "axis", 0);
  if (failed(axis))
    return failure();
  auto data = Importer::shapeOf(n.in(0));
  auto a = shapes::normalizeAxis(*axis, data.size(), im.emitter(n));
  if (failed(a))
    return failure();
  Type it = Importer::eltOf(n.in(1));
  if (!it.isInteger(64) && !it.isInteger(32))
    return im.error(n) << "indices must be int32 or int64";
  if (auto idx = im.constant(n.in(1)))
    for (int64_t v : idx->i)
      if (v < -data[*a] || v >= data[*a])
        return im.error(n) << "index " << v << " is out of range for axis "
                           << *a << " of size " << data[*a];
  auto s = shapes::gather(data, Importer::shapeOf(n.in(1)), *a, im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, Importer::eltOf(n.in(0)));
  return setOut(n, im.make<GatherOp>(n, t, n.in(0), n.in(1),
                                     im.b.getI64IntegerAttr(*a)));
}

LogicalResult expand(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  auto target = im.constInts(n, 1, "shape");
  if (failed(target))
    return failure();
  // ONNX Expand broadcasts both ways: the result is broadcast(input, shape).
  auto s = shapes::broadcast({Importer::shapeOf(n.in(0)), *target},
                             im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, Importer::eltOf(n.in(0)));
  return setOut(n, im.make<ExpandOp>(n, t, n.in(0)));
}

LogicalResult tile(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 3)))
    return failure();
  auto reps = im.constInts(n, 1, "repeats");
  if (failed(reps))
    return failure();
  auto s = shapes::tile(Importer::shapeOf(n.in(0)), *reps, im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, Importer::eltOf(n.in(0)));
  return setOut(n, im.make<TileOp>(n, t, n.in(0),
                                   im.b.getDenseI64ArrayAttr(*reps)));
}

/// Pad mode 'wrap' (opset 19): output index o of a dimension of size d
/// reads input index (o - begin) mod d, as if the data were a torus. Each
/// padded dimension becomes a plumb.tile of enough copies and a plumb.slice
/// starting at (-begin) mod d; both only move bits.
LogicalResult padWrap(Importer &im, NodeCtx &n, ArrayRef<int64_t> pads) {
  Value v = n.in(0);
  int64_t rank = Importer::shapeOf(v).size();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t begin = pads[d], end = pads[rank + d];
    if (begin == 0 && end == 0)
      continue;
    Shape in(Importer::shapeOf(v));
    int64_t size = in[d];
    if (size == 0)
      return im.error(n) << "wrap padding of dimension " << d
                         << ", which is empty";
    int64_t start = (size - begin % size) % size, want = 0, copies = 0;
    if (__builtin_add_overflow(begin, end, &want) ||
        __builtin_add_overflow(want, size + start, &want))
      return im.error(n) << "pads overflow";
    copies = (want + size - 1) / size;
    SmallVector<int64_t> reps(rank, 1);
    reps[d] = copies;
    auto ts = shapes::tile(in, reps, im.emitter(n));
    if (failed(ts) || failed(shapes::numElements(*ts, im.emitter(n))))
      return failure();
    auto tiled =
        im.make<TileOp>(n, Importer::tensorType(*ts, Importer::eltOf(v)), v,
                        im.b.getDenseI64ArrayAttr(reps));
    if (failed(tiled))
      return failure();
    Shape out = in;
    out[d] = size + begin + end;
    SmallVector<int64_t> starts(rank, 0), steps(rank, 1);
    starts[d] = start;
    auto sliced = im.make<SliceOp>(
        n, Importer::tensorType(out, Importer::eltOf(v)), *tiled,
        im.b.getDenseI64ArrayAttr(starts), im.b.getDenseI64ArrayAttr(steps));
    if (failed(sliced))
      return failure();
    v = *sliced;
  }
  return out0(n, v), success();
}

LogicalResult pad(Importer &im, NodeCtx &n) {
  auto in = Importer::shapeOf(n.in(0));
  Type elt = Importer::eltOf(n.in(0));
  auto mode = im.attrString(n, "mode", std::string("constant"));
  if (failed(mode))
    return failure();
  SmallVector<int64_t> pads;
  Attribute value;
  if (n.opset < 11) {
    if (failed(need(im, n, 1, 1)))
      return failure();
    auto p = im.attrInts(n, "pads", std::nullopt);
    auto v = im.attrFloat(n, "value", 0.0f);
    if (failed(p) || failed(v))
      return failure();
    pads = *p;
    if (!elt.isF32())
      return im.error(n) << "Pad before opset 11 supports float tensors only";
    value = im.b.getF32FloatAttr(*v);
  } else {
    if (failed(need(im, n, 2, 4)))
      return failure();
    auto p = im.constInts(n, 1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (n.in(3)) {
      auto axes = im.constInts(n, 3, "axes");
      if (failed(axes))
        return failure();
      SmallVector<int64_t> full(2 * in.size(), 0);
      if (pads.size() != 2 * axes->size())
        return im.error(n) << "pads must have two entries per axis";
      for (size_t i = 0; i < axes->size(); ++i) {
        auto a = shapes::normalizeAxis((*axes)[i], in.size(), im.emitter(n));
        if (failed(a))
          return failure();
        full[*a] = pads[i];
        full[in.size() + *a] = pads[axes->size() + i];
      }
      pads = full;
    }
    if (n.in(2)) {
      auto c = im.constant(n.in(2));
      if (!c || c->size() != 1)
        return im.error(n) << "constant_value must be a scalar known at import";
      value = c->toAttr().getValues<Attribute>()[0];
    } else if (elt.isF32()) {
      value = im.b.getF32FloatAttr(0.0f);
    } else {
      value = im.b.getIntegerAttr(elt, 0);
    }
  }
  for (int64_t p : pads)
    if (p < 0)
      return im.error(n) << "negative pads (cropping) are not supported";
  if (*mode != "constant" && *mode != "reflect" && *mode != "edge" &&
      *mode != "wrap")
    return im.error(n) << "Pad mode '" << *mode
                       << "' is not valid (constant, reflect, edge or wrap)";
  auto s = shapes::pad(in, pads, im.emitter(n));
  if (failed(s))
    return failure();
  if (*mode == "wrap") {
    if (n.opset < 19)
      return im.error(n) << "Pad mode 'wrap' needs opset 19 or later (the "
                            "model uses opset "
                         << n.opset << ")";
    return padWrap(im, n, pads);
  }
  auto t = Importer::tensorType(*s, elt);
  return setOut(n, im.make<PadOp>(n, t, n.in(0), im.b.getDenseI64ArrayAttr(pads),
                                  im.b.getStringAttr(*mode),
                                  mlir::cast<TypedAttr>(value)));
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename OpTy>
LogicalResult reduce(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 2)))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  bool axesInput = n.opset >= 18 ||
                   (n.opset >= 13 && std::is_same<OpTy, ReduceSumOp>::value);
  auto axes = axesOf(im, n, 1, axesInput);
  auto keep = im.attrInt(n, "keepdims", 1);
  auto noop = im.attrInt(n, "noop_with_empty_axes", 0);
  if (failed(axes) || failed(keep) || failed(noop))
    return failure();
  if (axes->empty()) {
    if (*noop)
      return out0(n, n.in(0)), success();
    for (size_t i = 0; i < in.size(); ++i)
      axes->push_back(i);
  }
  for (auto &a : *axes) {
    auto na = shapes::normalizeAxis(a, in.size(), im.emitter(n));
    if (failed(na))
      return failure();
    a = *na;
  }
  llvm::sort(*axes);
  axes->erase(std::unique(axes->begin(), axes->end()), axes->end());
  auto s = shapes::reduce(in, *axes, *keep != 0, im.emitter(n));
  if (failed(s))
    return failure();
  if (Importer::eltOf(n.in(0)).isInteger(1)) {
    // Opset 20: ReduceMax and ReduceMin of bool (False < True), i.e. any
    // and all: computed on 0/1 as int64 (the integer type the reduction
    // kernels take) and cast back (nonzero is true).
    constexpr bool maxOrMin = std::is_same<OpTy, ReduceMaxOp>::value ||
                              std::is_same<OpTy, ReduceMinOp>::value;
    if (!maxOrMin || n.opset < 20)
      return im.error(n) << "reductions of bool tensors are not supported"
                         << (maxOrMin ? " before opset 20" : "");
    for (int64_t a : *axes)
      if (in[a] == 0)
        return im.error(n) << "reducing the empty dimension " << a
                           << " of a bool tensor is not supported";
    Type i64 = im.b.getI64Type();
    auto wide = im.make<CastOp>(n, Importer::tensorType(in, i64), n.in(0));
    if (failed(wide))
      return failure();
    auto r = im.make<OpTy>(n, Importer::tensorType(*s, i64), *wide,
                           im.b.getDenseI64ArrayAttr(*axes),
                           im.b.getBoolAttr(*keep != 0), TreeAttr());
    if (failed(r))
      return failure();
    return setOut(
        n, im.make<CastOp>(n, Importer::tensorType(*s, im.b.getI1Type()), *r));
  }
  auto t = Importer::tensorType(*s, Importer::eltOf(n.in(0)));
  return setOut(n, im.make<OpTy>(n, t, n.in(0), im.b.getDenseI64ArrayAttr(*axes),
                                 im.b.getBoolAttr(*keep != 0), TreeAttr()));
}

LogicalResult argMax(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  auto axis = im.attrInt(n, "axis", 0);
  auto keep = im.attrInt(n, "keepdims", 1);
  auto last = im.attrInt(n, "select_last_index", 0);
  if (failed(axis) || failed(keep) || failed(last))
    return failure();
  auto a = shapes::normalizeAxis(*axis, in.size(), im.emitter(n));
  if (failed(a))
    return failure();
  auto s = shapes::reduce(in, {*a}, *keep != 0, im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, im.b.getI64Type());
  return setOut(n, im.make<ArgMaxOp>(n, t, n.in(0), im.b.getI64IntegerAttr(*a),
                                     im.b.getBoolAttr(*keep != 0),
                                     im.b.getBoolAttr(*last != 0)));
}

template <typename OpTy>
LogicalResult softmax(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(requireFloat(im, n, n.in(0))))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  auto axis = im.attrInt(n, "axis", n.opset < 13 ? 1 : -1);
  if (failed(axis))
    return failure();
  auto a = shapes::normalizeAxis(*axis, in.size(), im.emitter(n));
  if (failed(a))
    return failure();
  if (n.opset >= 13 || *a == (int64_t)in.size() - 1)
    return setOut(n, im.make<OpTy>(n, n.in(0).getType(), n.in(0),
                                   im.b.getI64IntegerAttr(*a), TreeAttr()));
  // Opset < 13: softmax over the flattened trailing dimensions [axis, rank):
  // reshape to 2-D, normalise the last axis, reshape back (bits unchanged).
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < (int64_t)in.size(); ++i)
    (i < *a ? outer : inner) *= in[i];
  auto flat = reshapeTo(im, n, n.in(0), {outer, inner});
  if (failed(flat))
    return failure();
  auto sm = im.make<OpTy>(n, (*flat).getType(), *flat, im.b.getI64IntegerAttr(1),
                          TreeAttr());
  if (failed(sm))
    return failure();
  return setOut(n, reshapeTo(im, n, *sm, in));
}

} // namespace

LogicalResult need(Importer &im, NodeCtx &n, int64_t lo, int64_t hi) {
  if (n.numInputs() < lo || n.numInputs() > hi)
    return im.error(n) << "expects " << lo
                       << (lo == hi ? "" : " to " + std::to_string(hi))
                       << " inputs, got " << n.numInputs();
  for (int64_t i = 0; i < lo; ++i)
    if (!n.in(i))
      return im.error(n) << "input " << i << " is required";
  return success();
}

void registerNNHandlers(OpTable &table);
void registerQuantHandlers(OpTable &table);
void registerMathHandlers(OpTable &table);
void registerIndexHandlers(OpTable &table);
void registerNormHandlers(OpTable &table);
void registerAttentionHandlers(OpTable &table);
void registerSignalHandlers(OpTable &table);

const OpTable &opHandlers() {
  static const OpTable table = [] {
    OpTable t;
    t.add("Neg", unary<NegOp, false>, kNum);
    t.add("Abs", unary<AbsOp, false>, kNum);
    t.add("Reciprocal", unary<ReciprocalOp, true>, kF32);
    t.add("Sqrt", unary<SqrtOp, true>, kF32);
    t.add("Exp", unary<ExpOp, true>, kF32);
    t.add("Log", unary<LogOp, true>, kF32);
    t.add("Tanh", unary<TanhOp, true>, kF32);
    t.add("Sigmoid", unary<SigmoidOp, true>, kF32);
    t.add("Erf", unary<ErfOp, true>, kF32, 9);
    t.add("Relu", unary<ReluOp, false>, kNum);
    t.add("Not", unary<NotOp, false>, kBool);
    t.add("Identity", identity, kAll);
    t.add("Dropout", dropout, kF32);
    t.add("HardSigmoid", hardSigmoid, kF32);
    t.add("HardSwish", unary<HardSwishOp, true>, kF32, 14);
    t.add("IsNaN", isNaN, kF32, 9);
    t.add("LeakyRelu", leakyRelu, kF32);
    t.add("Clip", clip, kF32);
    t.add("Gelu", gelu, kF32, 20);
    t.add("Add", binary<AddOp, false>, kNum);
    t.add("Sub", binary<SubOp, false>, kNum);
    t.add("Mul", binary<MulOp, false>, kNum);
    t.add("Div", binary<DivOp, false>, kNum);
    t.add("Pow", pow, kNum);
    t.add("Equal", binary<EqualOp, true>, kAll);
    t.add("Less", binary<LessOp, true>, kNum);
    t.add("LessOrEqual", binary<LessOrEqualOp, true>, kNum, 12);
    t.add("Greater", binary<GreaterOp, true>, kNum);
    t.add("GreaterOrEqual", binary<GreaterOrEqualOp, true>, kNum, 12);
    t.add("And", binary<AndOp, false>, kBool);
    t.add("Or", binary<OrOp, false>, kBool);
    t.add("Sum", variadic<SumOp>, kNum);
    t.add("Max", variadic<MaxOp>, kNum);
    t.add("Min", variadic<MinOp>, kNum);
    t.add("Where", where, kAll, 9);
    t.add("Cast", castOp, kAll);
    t.add("CastLike", castLike, kAll, 15);
    t.add("Constant", constant, kAll);
    t.add("Shape", shape, kAll);
    t.add("Size", size, kAll);
    t.add("ConstantOfShape", constantOfShape, kAll, 9);
    t.add("Range", range, kF32 | kI64 | kI32, 11);
    t.add("Reshape", reshape, kAll);
    t.add("Flatten", flatten, kAll);
    t.add("Squeeze", squeeze, kAll);
    t.add("Unsqueeze", unsqueeze, kAll);
    t.add("Transpose", transpose, kAll);
    t.add("Concat", concat, kAll);
    t.add("Split", split, kAll);
    t.add("Slice", slice, kAll);
    t.add("Gather", gather, kAll);
    t.add("GatherND", gatherND, kAll, 11);
    t.add("Expand", expand, kAll, 8);
    t.add("Tile", tile, kAll);
    t.add("Pad", pad, kAll);
    t.add("ReduceSum", reduce<ReduceSumOp>, kF32 | kI64);
    t.add("ReduceMean", reduce<ReduceMeanOp>, kF32 | kI64);
    t.add("ReduceMax", reduce<ReduceMaxOp>, kF32 | kI64 | kBool);
    t.add("ReduceMin", reduce<ReduceMinOp>, kF32 | kI64 | kBool);
    t.add("ReduceProd", reduce<ReduceProdOp>, kF32 | kI64);
    t.add("ArgMax", argMax, kF32 | kInt);
    t.add("Softmax", softmax<SoftmaxOp>, kF32);
    t.add("LogSoftmax", softmax<LogSoftmaxOp>, kF32);
    registerNNHandlers(t);
    registerQuantHandlers(t);
    registerMathHandlers(t);
    registerIndexHandlers(t);
    registerNormHandlers(t);
    registerAttentionHandlers(t);
    registerSignalHandlers(t);
    return t;
  }();
  return table;
}

const std::vector<std::string> &supportedOnnxOps() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> v;
    for (auto &kv : opHandlers().all())
      if (kv.second.types != kRefused)
        v.push_back(kv.first().str());
    std::sort(v.begin(), v.end());
    return v;
  }();
  return ops;
}

std::vector<SupportedOp> supportedOps() {
  std::vector<SupportedOp> v;
  static const std::pair<unsigned, const char *> kNames[] = {
      {kF32, "float32"}, {kI64, "int64"}, {kI32, "int32"}, {kBool, "bool"}};
  for (const std::string &name : supportedOnnxOps()) {
    const OpEntry *e = opHandlers().find(name);
    SupportedOp op{name, e->sinceOpset, e->lastOpset ? e->lastOpset : kMaxOpset,
                   {}};
    for (auto [bit, text] : kNames)
      if (e->types & bit)
        op.types.push_back(text);
    v.push_back(std::move(op));
  }
  return v;
}

} // namespace importer
} // namespace plumb
