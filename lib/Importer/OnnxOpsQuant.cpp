//===- lib/Importer/OnnxOpsQuant.cpp - ONNX operators: quantization -------===//
//
// Part of Plumb. Linear quantization: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul and
// QLinearConv, composed from plumb ops. ONNX's 8- and 16-bit integer
// tensors are int32 tensors here, holding their exact values; the importer's
// narrowTypes map remembers their ONNX type (docs/determinism.md, "Narrow
// integers"). Every step is a plumb op with its
// own contract, so the sequence below is the whole definition:
//
//   dequantize(x, s, z) = f32(x - z) * s            (x - z exact in int32)
//   quantize(x, s, z)   = int32(rne(clamp(x / s, qmin - z, qmax - z))) + z
//
// where rne(w) = (w + 1.5 * 2^23) - 1.5 * 2^23, which is round-half-to-even
// of w exactly for |w| <= 2^22 (the clamp keeps |w| <= 2^17), and clamp is
// max then min (a NaN quotient stays NaN and casts to 0, giving z). This is
// ONNX Runtime's order (divide, clamp in float, round, add the zero point).
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include "onnx/onnx_pb.h"

using namespace mlir;

namespace plumb {
namespace importer {

namespace {

/// The integer range of an ONNX quantized type.
struct QRange {
  int64_t lo, hi;
};
std::optional<QRange> rangeOf(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::UINT8:
    return QRange{0, 255};
  case onnx::TensorProto::INT8:
    return QRange{-128, 127};
  case onnx::TensorProto::UINT16:
    return QRange{0, 65535};
  case onnx::TensorProto::INT16:
    return QRange{-32768, 32767};
  default:
    return std::nullopt;
  }
}

/// A small builder over Importer::make for the composed sequences.
struct Q {
  Importer &im;
  NodeCtx &n;
  Type f32() { return im.b.getF32Type(); }
  Type i32() { return im.b.getI32Type(); }
  static ArrayRef<int64_t> shape(Value v) { return Importer::shapeOf(v); }
  RankedTensorType like(Value v, Type t) {
    return Importer::tensorType(shape(v), t);
  }
  FailureOr<RankedTensorType> bcast(Value a, Value b, Type t) {
    auto s = shapes::broadcast({shape(a), shape(b)}, im.emitter(n));
    if (failed(s))
      return failure();
    return Importer::tensorType(*s, t);
  }
  template <typename OpTy> FailureOr<Value> bin(Value a, Value b) {
    auto t = bcast(a, b, Importer::eltOf(a));
    if (failed(t))
      return failure();
    return im.make<OpTy>(n, *t, a, b);
  }
  template <typename OpTy> FailureOr<Value> var(Value a, Value b) {
    auto t = bcast(a, b, Importer::eltOf(a));
    if (failed(t))
      return failure();
    return im.make<OpTy>(n, *t, ValueRange{a, b});
  }
  FailureOr<Value> cast(Value v, Type t) {
    if (Importer::eltOf(v) == t)
      return v;
    return im.make<CastOp>(n, like(v, t), v);
  }
  Value scalarF(float x) {
    auto t = RankedTensorType::get({}, f32());
    return im.constantOf(DenseElementsAttr::get(t, x));
  }
  /// Round half to even of |w| <= 2^22, exactly (see the file comment).
  FailureOr<Value> rne(Value w) {
    Value magic = scalarF(12582912.0f);
    auto up = bin<AddOp>(w, magic);
    if (failed(up))
      return failure();
    return bin<SubOp>(*up, magic);
  }
  FailureOr<Value> reshape(Value v, ArrayRef<int64_t> s) {
    if (shape(v) == s)
      return v;
    return im.make<ReshapeOp>(n, Importer::tensorType(s, Importer::eltOf(v)),
                              v);
  }
};

/// Scale or zero point `v` of a per-axis (de)quantization of `x`: a scalar or
/// one-element tensor broadcasts as it is; a 1-D tensor of x.shape[axis]
/// elements is reshaped to broadcast along `axis`.
FailureOr<Value> alongAxis(Importer &im, NodeCtx &n, Value v, Value x,
                           StringRef what) {
  ArrayRef<int64_t> vs = Importer::shapeOf(v), xs = Importer::shapeOf(x);
  int64_t count = 1;
  for (int64_t d : vs)
    count *= d;
  Q q{im, n};
  if (count == 1)
    return q.reshape(v, {});
  auto ax = im.attrInt(n, "axis", 1);
  if (failed(ax))
    return failure();
  auto a = shapes::normalizeAxis(*ax, xs.size(), im.emitter(n));
  if (failed(a))
    return failure();
  if (vs.size() != 1 || vs[0] != xs[*a])
    return im.error(n) << "'" << what << "' has shape " << shapes::str(vs)
                       << "; per-axis quantization along axis " << *a
                       << " needs a 1-D tensor of " << xs[*a] << " elements";
  SmallVector<int64_t> s(xs.size(), 1);
  s[*a] = xs[*a];
  return q.reshape(v, s);
}

LogicalResult noBlocks(Importer &im, NodeCtx &n) {
  auto bs = im.attrInt(n, "block_size", 0);
  if (failed(bs))
    return failure();
  if (*bs != 0)
    return im.error(n) << "blocked quantization (block_size " << *bs
                       << ") is not supported yet";
  return success();
}

LogicalResult requireInt32(Importer &im, NodeCtx &n, Value v, StringRef what) {
  if (!Importer::eltOf(v).isInteger(32))
    return im.error(n) << "'" << what << "' must be an 8-, 16- or 32-bit "
                       << "integer tensor, got " << Importer::eltOf(v);
  return success();
}

/// DequantizeLinear (opsets 10, 13 axis, 19, 21 block_size): f32(x - z) * s.
LogicalResult dequantizeLinear(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 3)) || failed(noBlocks(im, n)) ||
      failed(requireInt32(im, n, n.in(0), "x")))
    return failure();
  Q q{im, n};
  Value x = n.in(0);
  if (!Importer::eltOf(n.in(1)).isF32())
    return im.error(n) << "'x_scale' must be float32, got "
                       << Importer::eltOf(n.in(1));
  auto s = alongAxis(im, n, n.in(1), x, "x_scale");
  if (failed(s))
    return failure();
  Value d = x;
  if (Value z = n.in(2)) {
    if (failed(requireInt32(im, n, z, "x_zero_point")))
      return failure();
    auto za = alongAxis(im, n, z, x, "x_zero_point");
    if (failed(za))
      return failure();
    auto diff = q.bin<SubOp>(x, *za);
    if (failed(diff))
      return failure();
    d = *diff;
  }
  auto f = q.cast(d, q.f32());
  if (failed(f))
    return failure();
  return setOut(n, q.bin<MulOp>(*f, *s));
}

/// int32(rne(clamp(v, lo, hi))) + z, with lo/hi/z broadcasting against v.
FailureOr<Value> saturateRound(Q &q, Value v, Value lo, Value hi, Value z) {
  auto a = q.var<MaxOp>(v, lo);
  if (failed(a))
    return failure();
  auto b = q.var<MinOp>(*a, hi);
  if (failed(b))
    return failure();
  auto r = q.rne(*b);
  if (failed(r))
    return failure();
  auto i = q.cast(*r, q.i32());
  if (failed(i))
    return failure();
  return q.bin<AddOp>(*i, z);
}

/// The output type of QuantizeLinear: the zero point's type, else
/// `output_dtype` (opset 21), else uint8.
FailureOr<int32_t> quantizedType(Importer &im, NodeCtx &n) {
  int32_t t = 0;
  if (Value z = n.in(2)) {
    t = im.narrowType(z);
    if (!t)
      return im.error(n) << "'y_zero_point' must be a uint8, int8, uint16 or "
                         << "int16 constant, got " << Importer::eltOf(z);
  }
  auto od = im.attrInt(n, "output_dtype", 0);
  if (failed(od))
    return failure();
  if (*od && t && *od != t)
    return im.error(n) << "'output_dtype' " << *od
                       << " differs from the zero point's type " << t;
  if (!t)
    t = *od ? int32_t(*od) : int32_t(onnx::TensorProto::UINT8);
  if (!rangeOf(t))
    return im.error(n) << "quantizes to ONNX type " << t
                       << "; Plumb quantizes to uint8, int8, uint16 and int16";
  return t;
}

/// QuantizeLinear (opsets 10, 13 axis, 19 saturate, 21 block_size and
/// output_dtype): int32(rne(clamp(x / s, qmin - z, qmax - z))) + z.
LogicalResult quantizeLinear(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 3)) || failed(noBlocks(im, n)))
    return failure();
  Q q{im, n};
  Value x = n.in(0);
  if (!Importer::eltOf(x).isF32() || !Importer::eltOf(n.in(1)).isF32())
    return im.error(n) << "quantizes float32 'x' by a float32 'y_scale'";
  auto type = quantizedType(im, n);
  if (failed(type))
    return failure();
  QRange r = *rangeOf(*type);
  auto s = alongAxis(im, n, n.in(1), x, "y_scale");
  if (failed(s))
    return failure();
  Value z = im.constantOf(DenseElementsAttr::get(
      RankedTensorType::get({}, q.i32()), int32_t(0)));
  if (n.in(2)) {
    auto za = alongAxis(im, n, n.in(2), x, "y_zero_point");
    if (failed(za))
      return failure();
    z = *za;
  }
  auto zf = q.cast(z, q.f32());
  auto v = q.bin<DivOp>(x, *s);
  if (failed(zf) || failed(v))
    return failure();
  auto lo = q.bin<SubOp>(q.scalarF(float(r.lo)), *zf);
  auto hi = q.bin<SubOp>(q.scalarF(float(r.hi)), *zf);
  if (failed(lo) || failed(hi))
    return failure();
  auto y = saturateRound(q, *v, *lo, *hi, z);
  if (failed(y))
    return failure();
  im.narrowTypes[*y] = *type;
  return setOut(n, y);
}

/// A full reduction of `x` to a scalar.
template <typename OpTy> FailureOr<Value> reduceAll(Q &q, Value x) {
  SmallVector<int64_t> axes;
  for (size_t i = 0; i < Q::shape(x).size(); ++i)
    axes.push_back(int64_t(i));
  return q.im.make<OpTy>(q.n, RankedTensorType::get({}, q.f32()), x,
                         q.im.b.getDenseI64ArrayAttr(axes),
                         q.im.b.getBoolAttr(false), TreeAttr());
}

/// DynamicQuantizeLinear (opset 11), as ONNX Runtime computes it:
///   lo = min(0, min(x)), hi = max(0, max(x)),
///   s = hi == lo ? 1 : (hi - lo) / 255,
///   z = rne(clamp(0 - lo / s, 0, 255)),
///   y = int32(rne(clamp(x / s, 0 - z, 255 - z))) + int32(z).
LogicalResult dynamicQuantizeLinear(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  Q q{im, n};
  Value x = n.in(0);
  if (!Importer::eltOf(x).isF32())
    return im.error(n) << "quantizes a float32 tensor, got "
                       << Importer::eltOf(x);
  if (Importer::shapeOf(x).empty() ||
      mlir::cast<RankedTensorType>(x.getType()).getNumElements() == 0)
    return im.error(n) << "needs a non-empty tensor of rank >= 1";
  Value zero = q.scalarF(0.0f);
  auto mn = reduceAll<ReduceMinOp>(q, x);
  auto mx = reduceAll<ReduceMaxOp>(q, x);
  if (failed(mn) || failed(mx))
    return failure();
  auto lo = q.var<MinOp>(*mn, zero);
  auto hi = q.var<MaxOp>(*mx, zero);
  if (failed(lo) || failed(hi))
    return failure();
  auto range = q.bin<SubOp>(*hi, *lo);
  auto same = im.make<EqualOp>(n, RankedTensorType::get({}, im.b.getI1Type()),
                               *hi, *lo);
  if (failed(range) || failed(same))
    return failure();
  auto scaled = q.bin<DivOp>(*range, q.scalarF(255.0f));
  if (failed(scaled))
    return failure();
  auto s = im.make<WhereOp>(n, RankedTensorType::get({}, q.f32()), *same,
                            q.scalarF(1.0f), *scaled);
  if (failed(s))
    return failure();
  auto ratio = q.bin<DivOp>(*lo, *s);
  if (failed(ratio))
    return failure();
  auto izp = q.bin<SubOp>(zero, *ratio);
  if (failed(izp))
    return failure();
  auto c0 = q.var<MaxOp>(*izp, zero);
  if (failed(c0))
    return failure();
  auto c1 = q.var<MinOp>(*c0, q.scalarF(255.0f));
  if (failed(c1))
    return failure();
  auto zf = q.rne(*c1);
  if (failed(zf))
    return failure();
  auto zi = q.cast(*zf, q.i32());
  auto v = q.bin<DivOp>(x, *s);
  auto zlo = q.bin<SubOp>(zero, *zf);
  auto zhi = q.bin<SubOp>(q.scalarF(255.0f), *zf);
  if (failed(zi) || failed(v) || failed(zlo) || failed(zhi))
    return failure();
  auto y = saturateRound(q, *v, *zlo, *zhi, *zi);
  if (failed(y))
    return failure();
  im.narrowTypes[*y] = onnx::TensorProto::UINT8;
  im.narrowTypes[*zi] = onnx::TensorProto::UINT8;
  n.outputs = {*y, *s, *zi};
  return success();
}

/// A zero point of MatMulInteger's operand `i` (0: A, per row; 1: B, per
/// column), shaped to broadcast against the operand.
FailureOr<Value> matmulZeroPoint(Importer &im, NodeCtx &n, int i) {
  Value v = n.in(i), z = n.in(i + 2);
  Q q{im, n};
  ArrayRef<int64_t> vs = Q::shape(v), zs = Q::shape(z);
  int64_t count = 1;
  for (int64_t d : zs)
    count *= d;
  if (count == 1)
    return q.reshape(z, {});
  if (zs.size() == 1 && i == 0 && vs.size() >= 2 && zs[0] == vs[vs.size() - 2])
    return q.reshape(z, {zs[0], 1}); // per row of A
  if (zs.size() == 1 && i == 1 && !vs.empty() && zs[0] == vs.back())
    return z; // per column of B
  if (zs.size() >= 2 && succeeded(shapes::broadcast({vs, zs}, im.emitter(n))))
    return z;
  return im.error(n) << "zero point " << shapes::str(zs) << " of "
                     << (i == 0 ? "A " : "B ") << shapes::str(vs)
                     << " is neither a scalar nor per "
                     << (i == 0 ? "row" : "column");
}

/// MatMulInteger (opset 10): (A - a_zero_point) x (B - b_zero_point) in
/// wrapping int32 (plumb.matmul_integer).
LogicalResult matMulInteger(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 4)))
    return failure();
  Q q{im, n};
  Value ab[2];
  for (int i = 0; i < 2; ++i) {
    if (failed(requireInt32(im, n, n.in(i), i == 0 ? "A" : "B")))
      return failure();
    ab[i] = n.in(i);
    if (!n.in(i + 2))
      continue;
    if (failed(requireInt32(im, n, n.in(i + 2),
                            i == 0 ? "a_zero_point" : "b_zero_point")))
      return failure();
    auto z = matmulZeroPoint(im, n, i);
    if (failed(z))
      return failure();
    auto d = q.bin<SubOp>(ab[i], *z);
    if (failed(d))
      return failure();
    ab[i] = *d;
  }
  auto s = shapes::matmul(Q::shape(ab[0]), Q::shape(ab[1]), im.emitter(n));
  if (failed(s))
    return failure();
  return setOut(n, im.make<MatMulIntegerOp>(
                        n, Importer::tensorType(*s, q.i32()), ab[0], ab[1]));
}

/// The number of elements of a static shape.
int64_t elements(ArrayRef<int64_t> s) {
  int64_t c = 1;
  for (int64_t d : s)
    c *= d;
  return c;
}

/// ConvInteger (opset 10): y[n, m, o] = the exact int32 sum over the window
/// of (x - x_zero_point) * (w[m] - w_zero_point[m]), Conv's geometry
/// (auto_pad, pads, strides, dilations, group; any number of spatial
/// dimensions). ONNX pads x with x_zero_point, so a padded position adds 0.
/// Composed as im2col and one plumb.matmul_integer (exact in any order):
///   xd   = pad(x - xz, 0)             [N, C, padded...]
///   tap k (row-major over the kernel): the slice of xd from k * dilation
///        with step stride, [N, C, out...], reshaped to [N, C, 1, P]
///        (P = prod(out))
///   cols = concat of the T taps        [N, C, T, P] = [N, g, Cg*T, P]
///   wd   = (w - wz) reshaped to        [g, M/g, Cg*T]
///   y    = matmul_integer(wd, cols)    [N, g, M/g, P] = [N, M, out...]
/// (the group and batch dimensions are left out of the matmul when 1).
FailureOr<Value> convIntegerAcc(Importer &im, NodeCtx &n, Value x, Value w,
                                Value xz, Value wz) {
  if (failed(requireInt32(im, n, x, "x")) ||
      failed(requireInt32(im, n, w, "w")))
    return failure();
  Q q{im, n};
  ArrayRef<int64_t> xs = Q::shape(x), ws = Q::shape(w);
  if (xs.size() < 3 || ws.size() != xs.size())
    return im.error(n) << "input " << shapes::str(xs) << " and weight "
                       << shapes::str(ws) << " must have equal rank >= 3";
  auto win = window(im, n, xs, ws.drop_front(2), true);
  auto group = im.attrInt(n, "group", 1);
  if (failed(win) || failed(group))
    return failure();
  if (ArrayRef<int64_t>(win->kernel) != ws.drop_front(2))
    return im.error(n) << "kernel_shape " << shapes::str(win->kernel)
                       << " differs from the weight's "
                       << shapes::str(ws.drop_front(2));
  auto out = shapes::conv(xs, ws, std::nullopt, win->strides, win->pads,
                          win->dilations, *group, im.emitter(n));
  if (failed(out))
    return failure();
  const int64_t N = xs[0], C = xs[1], M = ws[0], g = *group, Cg = C / g;
  const size_t sd = xs.size() - 2;

  if (Value z = xz) {
    if (failed(requireInt32(im, n, z, "x_zero_point")))
      return failure();
    if (elements(Q::shape(z)) != 1)
      return im.error(n) << "'x_zero_point' has shape "
                         << shapes::str(Q::shape(z)) << "; " << n.opType()
                         << "'s input zero point is one value";
    auto zr = q.reshape(z, {});
    auto d = failed(zr) ? FailureOr<Value>(failure()) : q.bin<SubOp>(x, *zr);
    if (failed(d))
      return failure();
    x = *d;
  }
  if (Value z = wz) {
    if (failed(requireInt32(im, n, z, "w_zero_point")))
      return failure();
    ArrayRef<int64_t> zs = Q::shape(z);
    SmallVector<int64_t> along(ws.size(), 1);
    if (elements(zs) == 1)
      along.clear();
    else if (zs.size() == 1 && zs[0] == M)
      along[0] = M;
    else
      return im.error(n) << "'w_zero_point' has shape " << shapes::str(zs)
                         << "; it must be one value or one per output "
                         << "channel (" << M << ")";
    auto zr = q.reshape(z, along);
    auto d = failed(zr) ? FailureOr<Value>(failure()) : q.bin<SubOp>(w, *zr);
    if (failed(d))
      return failure();
    w = *d;
  }

  // Pad with 0 (the zero point, once subtracted).
  if (llvm::any_of(win->pads, [](int64_t p) { return p != 0; })) {
    SmallVector<int64_t> pads(2 * xs.size(), 0), ps(xs);
    for (size_t i = 0; i < sd; ++i) {
      pads[2 + i] = win->pads[i];
      pads[xs.size() + 2 + i] = win->pads[sd + i];
      ps[2 + i] += win->pads[i] + win->pads[sd + i];
    }
    auto p = im.make<PadOp>(n, Importer::tensorType(ps, q.i32()), x,
                            im.b.getDenseI64ArrayAttr(pads),
                            im.b.getStringAttr("constant"),
                            im.b.getI32IntegerAttr(0));
    if (failed(p))
      return failure();
    x = *p;
  }

  // One strided slice per kernel tap, in row-major tap order.
  const int64_t T = elements(win->kernel),
                P = elements(ArrayRef(*out).drop_front(2));
  SmallVector<int64_t> sliceShape{N, C};
  sliceShape.append(out->begin() + 2, out->end());
  SmallVector<int64_t> steps{1, 1};
  steps.append(win->strides.begin(), win->strides.end());
  SmallVector<Value> taps;
  SmallVector<int64_t> k(sd, 0);
  for (int64_t t = 0; t < T; ++t) {
    SmallVector<int64_t> starts{0, 0};
    for (size_t i = 0; i < sd; ++i)
      starts.push_back(k[i] * win->dilations[i]);
    Value tap = x;
    if (Q::shape(x) != ArrayRef<int64_t>(sliceShape) ||
        llvm::any_of(starts, [](int64_t s) { return s != 0; })) {
      auto s = im.make<SliceOp>(n, Importer::tensorType(sliceShape, q.i32()), x,
                                im.b.getDenseI64ArrayAttr(starts),
                                im.b.getDenseI64ArrayAttr(steps));
      if (failed(s))
        return failure();
      tap = *s;
    }
    auto r = q.reshape(tap, {N, C, 1, P});
    if (failed(r))
      return failure();
    taps.push_back(*r);
    for (size_t i = sd; i-- > 0;) { // next tap, last dimension fastest
      if (++k[i] < win->kernel[i])
        break;
      k[i] = 0;
    }
  }
  Value cols = taps[0];
  if (T > 1) {
    auto c = im.make<ConcatOp>(n, Importer::tensorType({N, C, T, P}, q.i32()),
                               taps, im.b.getI64IntegerAttr(2));
    if (failed(c))
      return failure();
    cols = *c;
  }
  const int64_t K = Cg * T;
  SmallVector<int64_t> colShape, wShape, yShape;
  if (N != 1)
    colShape.push_back(N), yShape.push_back(N);
  if (g != 1)
    colShape.push_back(g), wShape.push_back(g), yShape.push_back(g);
  colShape.append({K, P});
  wShape.append({M / g, K});
  yShape.append({M / g, P});
  auto c2 = q.reshape(cols, colShape);
  auto w2 = q.reshape(w, wShape);
  if (failed(c2) || failed(w2))
    return failure();
  auto y = im.make<MatMulIntegerOp>(n, Importer::tensorType(yShape, q.i32()),
                                    *w2, *c2);
  if (failed(y))
    return failure();
  return q.reshape(*y, *out);
}

LogicalResult convInteger(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 4)))
    return failure();
  return setOut(n, convIntegerAcc(im, n, n.in(0), n.in(1), n.in(2), n.in(3)));
}

/// A float32 scale input, checked.
LogicalResult requireF32(Importer &im, NodeCtx &n, Value v, StringRef what) {
  if (!Importer::eltOf(v).isF32())
    return im.error(n) << "'" << what << "' must be float32, got "
                       << Importer::eltOf(v);
  return success();
}

/// The requantization of QLinearMatMul and QLinearConv, ONNX Runtime's
/// (MlasRequantizeOutput) in float32:
///   s = (a_scale * b_scale) / y_scale               (f32 mul, f32 div)
///   y = int32(rne(clamp(f32(acc) * s, qmin - yz, qmax - yz))) + yz
/// f32(acc) rounds to nearest even (exact for |acc| <= 2^24); the scales and
/// yz are already shaped to broadcast against acc.
FailureOr<Value> requantize(Importer &im, NodeCtx &n, Value acc, Value as,
                            Value bs, Value ys, Value yz) {
  Q q{im, n};
  int32_t t = im.narrowType(yz);
  std::optional<QRange> r = rangeOf(t);
  if (!r || !Importer::eltOf(yz).isInteger(32))
    return im.error(n) << "'y_zero_point' must be a uint8, int8, uint16 or "
                       << "int16 tensor, got " << Importer::eltOf(yz);
  auto ab = q.bin<MulOp>(as, bs);
  if (failed(ab))
    return failure();
  auto s = q.bin<DivOp>(*ab, ys);
  auto f = q.cast(acc, q.f32());
  auto zf = q.cast(yz, q.f32());
  if (failed(s) || failed(f) || failed(zf))
    return failure();
  auto v = q.bin<MulOp>(*f, *s);
  auto lo = q.bin<SubOp>(q.scalarF(float(r->lo)), *zf);
  auto hi = q.bin<SubOp>(q.scalarF(float(r->hi)), *zf);
  if (failed(v) || failed(lo) || failed(hi))
    return failure();
  auto y = saturateRound(q, *v, *lo, *hi, yz);
  if (failed(y))
    return failure();
  if (Importer::shapeOf(*y) != Importer::shapeOf(acc))
    return im.error(n) << "the scales and zero points broadcast the result "
                       << shapes::str(Importer::shapeOf(acc)) << " to "
                       << shapes::str(Importer::shapeOf(*y));
  im.narrowTypes[*y] = t;
  return y;
}

/// Scale or zero point `v` of QLinearConv: one value (a scalar), or, where
/// `perChannel`, one per output channel (shaped [M, 1, ...] to broadcast
/// against the [N, M, ...] result of rank `rank`).
FailureOr<Value> convParam(Importer &im, NodeCtx &n, Value v, StringRef what,
                           bool perChannel, int64_t M, size_t rank) {
  Q q{im, n};
  ArrayRef<int64_t> vs = Q::shape(v);
  if (elements(vs) == 1)
    return q.reshape(v, {});
  if (perChannel && vs.size() == 1 && vs[0] == M) {
    SmallVector<int64_t> s(rank - 1, 1);
    s[0] = M;
    return q.reshape(v, s);
  }
  return im.error(n) << "'" << what << "' has shape " << shapes::str(vs)
                     << (perChannel ? "; it must be one value or one per "
                                      "output channel ("
                                    : "; it must be one value (")
                     << M << " channels)";
}

/// QLinearConv (opset 10): ConvInteger's exact int32 sum, plus the int32
/// bias B, requantized (see requantize). The scales are per tensor, w_scale
/// and w_zero_point may be per output channel.
LogicalResult qlinearConv(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 8, 9)))
    return failure();
  for (int i : {1, 4, 6})
    if (failed(requireF32(im, n, n.in(i),
                          i == 1   ? "x_scale"
                          : i == 4 ? "w_scale"
                                   : "y_scale")))
      return failure();
  Q q{im, n};
  auto acc = convIntegerAcc(im, n, n.in(0), n.in(3), n.in(2), n.in(5));
  if (failed(acc))
    return failure();
  int64_t M = Q::shape(n.in(3))[0];
  size_t rank = Q::shape(*acc).size();
  Value sum = *acc;
  if (Value bias = n.in(8)) {
    if (failed(requireInt32(im, n, bias, "B")))
      return failure();
    ArrayRef<int64_t> bsh = Q::shape(bias);
    if (bsh.size() != 1 || bsh[0] != M)
      return im.error(n) << "'B' has shape " << shapes::str(bsh)
                         << "; it must have one value per output channel (" << M
                         << ")";
    SmallVector<int64_t> s(rank - 1, 1);
    s[0] = M;
    auto b = q.reshape(bias, s);
    auto a = failed(b) ? FailureOr<Value>(failure()) : q.bin<AddOp>(sum, *b);
    if (failed(a))
      return failure();
    sum = *a;
  }
  auto xs = convParam(im, n, n.in(1), "x_scale", false, M, rank);
  auto ws = convParam(im, n, n.in(4), "w_scale", true, M, rank);
  auto ys = convParam(im, n, n.in(6), "y_scale", false, M, rank);
  auto yz = convParam(im, n, n.in(7), "y_zero_point", false, M, rank);
  if (failed(xs) || failed(ws) || failed(ys) || failed(yz))
    return failure();
  if (n.in(7) != *yz)
    im.narrowTypes[*yz] = im.narrowType(n.in(7));
  return setOut(n, requantize(im, n, sum, *xs, *ws, *ys, *yz));
}

/// Scale or zero point `v` of QLinearMatMul's operand `i` (0: a, per row;
/// 1: b, per column; 2: y, per column), shaped to broadcast against `x`
/// (the operand, or the result for y).
FailureOr<Value> matmulParam(Importer &im, NodeCtx &n, Value v, Value x, int i,
                             StringRef what) {
  Q q{im, n};
  ArrayRef<int64_t> vs = Q::shape(v), xs = Q::shape(x);
  if (elements(vs) == 1)
    return q.reshape(v, {});
  if (vs.size() == 1 && i == 0 && xs.size() >= 2 && vs[0] == xs[xs.size() - 2])
    return q.reshape(v, {vs[0], 1}); // per row of a
  if (vs.size() == 1 && i > 0 && !xs.empty() && vs[0] == xs.back())
    return v; // per column
  if (vs.size() >= 2 && vs.size() <= xs.size() && shapes::broadcastsTo(vs, xs))
    return v;
  return im.error(n) << "'" << what << "' has shape " << shapes::str(vs)
                     << "; it must be one value or per "
                     << (i == 0 ? "row of " : "column of ") << shapes::str(xs);
}

/// QLinearMatMul (opsets 10, 21): matmul_integer(a - a_zero_point,
/// b - b_zero_point) requantized (see requantize); a's scale and zero point
/// per tensor or per row, b's and y's per tensor or per column.
LogicalResult qlinearMatMul(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 8, 8)))
    return failure();
  for (int i : {1, 4, 6})
    if (failed(requireF32(im, n, n.in(i),
                          i == 1   ? "a_scale"
                          : i == 4 ? "b_scale"
                                   : "y_scale")))
      return failure();
  Q q{im, n};
  Value ab[2];
  const char *names[2][2] = {{"a", "a_zero_point"}, {"b", "b_zero_point"}};
  for (int i = 0; i < 2; ++i) {
    Value v = n.in(3 * i), z = n.in(3 * i + 2);
    if (failed(requireInt32(im, n, v, names[i][0])) ||
        failed(requireInt32(im, n, z, names[i][1])))
      return failure();
    auto zr = matmulParam(im, n, z, v, i, names[i][1]);
    auto d = failed(zr) ? FailureOr<Value>(failure()) : q.bin<SubOp>(v, *zr);
    if (failed(d))
      return failure();
    ab[i] = *d;
  }
  auto s = shapes::matmul(Q::shape(ab[0]), Q::shape(ab[1]), im.emitter(n));
  if (failed(s))
    return failure();
  auto acc = im.make<MatMulIntegerOp>(n, Importer::tensorType(*s, q.i32()),
                                      ab[0], ab[1]);
  if (failed(acc))
    return failure();
  auto as = matmulParam(im, n, n.in(1), n.in(0), 0, "a_scale");
  auto bs = matmulParam(im, n, n.in(4), n.in(3), 1, "b_scale");
  auto ys = matmulParam(im, n, n.in(6), *acc, 2, "y_scale");
  auto yz = matmulParam(im, n, n.in(7), *acc, 2, "y_zero_point");
  if (failed(as) || failed(bs) || failed(ys) || failed(yz))
    return failure();
  if (n.in(7) != *yz)
    im.narrowTypes[*yz] = im.narrowType(n.in(7));
  return setOut(n, requantize(im, n, *acc, *as, *bs, *ys, *yz));
}

} // namespace

void registerQuantHandlers(OpTable &t) {
  t.add("DequantizeLinear", dequantizeLinear, kI32, 10);
  t.add("QuantizeLinear", quantizeLinear, kF32, 10);
  t.add("DynamicQuantizeLinear", dynamicQuantizeLinear, kF32, 11);
  t.add("MatMulInteger", matMulInteger, kI32, 10);
  t.add("ConvInteger", convInteger, kI32, 10);
  t.add("QLinearConv", qlinearConv, kI32, 10);
  t.add("QLinearMatMul", qlinearMatMul, kI32, 10);
}

} // namespace importer
} // namespace plumb
