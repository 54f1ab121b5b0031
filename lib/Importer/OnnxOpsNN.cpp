//===- lib/Importer/OnnxOpsNN.cpp - ONNX operators: networks and control -===//
//
// Part of Plumb. Handlers for contractions, convolutions, pooling,
// normalisation, resizing, recurrent networks and control flow. `auto_pad`
// is resolved into explicit pads; If with a condition known at import is
// replaced by its taken branch; Loop is unrolled when its trip count is known
// at import and its condition stays true, and rejected otherwise.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include <cmath>

using namespace mlir;

namespace plumb {
namespace importer {

/// The window of a sliding-window op (declared in ImporterImpl.h).
FailureOr<Window> window(Importer &im, NodeCtx &n, ArrayRef<int64_t> in,
                         std::optional<ArrayRef<int64_t>> kernelFromWeight,
                         bool allowDilations) {
  size_t spatial = in.size() - 2;
  Window w;
  std::optional<SmallVector<int64_t>> kdef;
  if (kernelFromWeight)
    kdef = SmallVector<int64_t>(kernelFromWeight->begin(),
                                kernelFromWeight->end());
  auto k = im.attrInts(n, "kernel_shape", kdef);
  auto st = im.attrInts(n, "strides", SmallVector<int64_t>(spatial, 1));
  auto dl = im.attrInts(n, "dilations", SmallVector<int64_t>(spatial, 1));
  auto pd = im.attrInts(n, "pads", SmallVector<int64_t>(2 * spatial, 0));
  auto ap = im.attrString(n, "auto_pad", std::string("NOTSET"));
  if (failed(k) || failed(st) || failed(dl) || failed(pd) || failed(ap))
    return failure();
  w.kernel = *k, w.strides = *st, w.dilations = *dl, w.pads = *pd;
  if (w.kernel.size() != spatial)
    return im.error(n) << "kernel_shape has " << w.kernel.size()
                       << " values for " << spatial << " spatial dimensions";
  if (w.strides.size() != spatial || w.dilations.size() != spatial)
    return im.error(n) << "strides and dilations need " << spatial << " values";
  if (!allowDilations &&
      llvm::any_of(w.dilations, [](int64_t d) { return d != 1; }))
    return im.error(n) << "dilations are not supported here";
  for (int64_t s : w.strides)
    if (s < 1)
      return im.error(n) << "strides must be >= 1";
  for (int64_t d : w.dilations)
    if (d < 1)
      return im.error(n) << "dilations must be >= 1";
  if (*ap == "NOTSET") {
    if (w.pads.size() != 2 * spatial)
      return im.error(n) << "pads has " << w.pads.size() << " values, expected "
                         << 2 * spatial;
  } else if (*ap == "VALID") {
    w.pads.assign(2 * spatial, 0);
  } else if (*ap == "SAME_UPPER" || *ap == "SAME_LOWER") {
    w.pads.assign(2 * spatial, 0);
    for (size_t i = 0; i < spatial; ++i) {
      int64_t out = (in[2 + i] + w.strides[i] - 1) / w.strides[i];
      int64_t total = std::max<int64_t>(
          0, (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 -
                 in[2 + i]);
      int64_t small = total / 2, big = total - small;
      w.pads[i] = *ap == "SAME_UPPER" ? small : big;
      w.pads[spatial + i] = *ap == "SAME_UPPER" ? big : small;
    }
  } else {
    return im.error(n) << "auto_pad '" << *ap << "' is not valid";
  }
  return w;
}

namespace {

using Shape = shapes::Shape;

LogicalResult floats(Importer &im, NodeCtx &n, ArrayRef<int64_t> which) {
  for (int64_t i : which)
    if (n.in(i) && !Importer::eltOf(n.in(i)).isF32())
      return im.error(n) << "input " << i << " must be a float tensor, got "
                         << Importer::eltOf(n.in(i));
  return success();
}

/// Rejects named extra outputs that Plumb does not compute.
LogicalResult onlyOutputs(Importer &im, NodeCtx &n, int count) {
  for (int i = count; i < n.proto.output_size(); ++i)
    if (!n.proto.output(i).empty())
      return im.error(n) << "output " << i << " ('" << n.proto.output(i)
                         << "') is not supported";
  return success();
}

LogicalResult matmul(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)) || failed(floats(im, n, {0, 1})))
    return failure();
  auto s = shapes::matmul(Importer::shapeOf(n.in(0)), Importer::shapeOf(n.in(1)),
                          im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, im.b.getF32Type());
  return setOut(n, im.make<MatMulOp>(n, t, n.in(0), n.in(1), TreeAttr()));
}

LogicalResult gemm(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 3)) || failed(floats(im, n, {0, 1, 2})))
    return failure();
  auto alpha = im.attrFloat(n, "alpha", 1.0f);
  auto beta = im.attrFloat(n, "beta", 1.0f);
  auto ta = im.attrInt(n, "transA", 0);
  auto tb = im.attrInt(n, "transB", 0);
  if (failed(alpha) || failed(beta) || failed(ta) || failed(tb))
    return failure();
  std::optional<ArrayRef<int64_t>> c;
  if (n.in(2))
    c = Importer::shapeOf(n.in(2));
  auto s = shapes::gemm(Importer::shapeOf(n.in(0)), Importer::shapeOf(n.in(1)),
                        c, *ta, *tb, im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, im.b.getF32Type());
  return setOut(n, im.make<GemmOp>(n, t, n.in(0), n.in(1), n.in(2),
                                   im.b.getF32FloatAttr(*alpha),
                                   im.b.getF32FloatAttr(*beta),
                                   im.b.getBoolAttr(*ta), im.b.getBoolAttr(*tb),
                                   TreeAttr()));
}

LogicalResult conv(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 3)) || failed(floats(im, n, {0, 1, 2})))
    return failure();
  auto x = Importer::shapeOf(n.in(0)), wt = Importer::shapeOf(n.in(1));
  if (x.size() < 3 || wt.size() != x.size())
    return im.error(n) << "input " << shapes::str(x) << " and weight "
                       << shapes::str(wt) << " must have equal rank >= 3";
  auto w = window(im, n, x, wt.drop_front(2), true);
  auto group = im.attrInt(n, "group", 1);
  if (failed(w) || failed(group))
    return failure();
  if (ArrayRef<int64_t>(w->kernel) != wt.drop_front(2))
    return im.error(n) << "kernel_shape " << shapes::str(w->kernel)
                       << " differs from the weight's " << shapes::str(wt.drop_front(2));
  std::optional<ArrayRef<int64_t>> bias;
  if (n.in(2))
    bias = Importer::shapeOf(n.in(2));
  auto s = shapes::conv(x, wt, bias, w->strides, w->pads, w->dilations, *group,
                        im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, im.b.getF32Type());
  return setOut(n, im.make<ConvOp>(n, t, n.in(0), n.in(1), n.in(2),
                                   im.b.getDenseI64ArrayAttr(w->strides),
                                   im.b.getDenseI64ArrayAttr(w->pads),
                                   im.b.getDenseI64ArrayAttr(w->dilations),
                                   im.b.getI64IntegerAttr(*group), TreeAttr()));
}

LogicalResult convTranspose(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 3)) || failed(floats(im, n, {0, 1, 2})))
    return failure();
  auto x = Importer::shapeOf(n.in(0)), wt = Importer::shapeOf(n.in(1));
  if (x.size() < 3 || wt.size() != x.size())
    return im.error(n) << "input and weight must have equal rank >= 3";
  size_t spatial = x.size() - 2;
  auto ap = im.attrString(n, "auto_pad", std::string("NOTSET"));
  auto k = im.attrInts(n, "kernel_shape",
                       SmallVector<int64_t>(wt.begin() + 2, wt.end()));
  auto st = im.attrInts(n, "strides", SmallVector<int64_t>(spatial, 1));
  auto dl = im.attrInts(n, "dilations", SmallVector<int64_t>(spatial, 1));
  auto pd = im.attrInts(n, "pads", SmallVector<int64_t>(2 * spatial, 0));
  auto op = im.attrInts(n, "output_padding", SmallVector<int64_t>(spatial, 0));
  auto os = im.attrInts(n, "output_shape", SmallVector<int64_t>{});
  auto group = im.attrInt(n, "group", 1);
  if (failed(ap) || failed(k) || failed(st) || failed(dl) || failed(pd) ||
      failed(op) || failed(os) || failed(group))
    return failure();
  if (st->size() != spatial || dl->size() != spatial || op->size() != spatial)
    return im.error(n) << "strides, dilations and output_padding need "
                       << spatial << " values";
  SmallVector<int64_t> pads = *pd;
  if (!os->empty() || (*ap != "NOTSET" && *ap != "VALID")) {
    // Resolve output_shape / SAME_* into explicit pads (ONNX formula).
    SmallVector<int64_t> target = *os;
    if (target.size() == spatial + 2)
      target.erase(target.begin(), target.begin() + 2);
    if (target.empty())
      for (size_t i = 0; i < spatial; ++i)
        target.push_back(x[2 + i] * (*st)[i]);
    if (target.size() != spatial)
      return im.error(n) << "output_shape needs " << spatial << " values";
    pads.assign(2 * spatial, 0);
    for (size_t i = 0; i < spatial; ++i) {
      int64_t total = (*st)[i] * (x[2 + i] - 1) + (*op)[i] +
                      ((*k)[i] - 1) * (*dl)[i] + 1 - target[i];
      // ONNX: SAME_UPPER puts the smaller half first; SAME_LOWER and NOTSET
      // (output_shape given) put the larger half first. Halves round toward
      // -inf as in the ONNX reference.
      int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
      bool upper = *ap == "SAME_UPPER";
      pads[i] = upper ? half : total - half;
      pads[spatial + i] = upper ? total - half : half;
      // A negative end pad grows the output by positions no input reaches:
      // exactly what output_padding adds.
      if (pads[spatial + i] < 0) {
        (*op)[i] -= pads[spatial + i];
        pads[spatial + i] = 0;
        if ((*op)[i] >= std::max((*st)[i], (*dl)[i]))
          return im.error(n) << "output_shape " << target[i]
                             << " of spatial dimension " << i
                             << " is larger than the op can produce";
      }
      if (pads[i] < 0)
        return im.error(n) << "output_shape " << target[i] << " of spatial "
                           << "dimension " << i << " would need a negative "
                           << "begin pad (" << pads[i] << "), which is not "
                              "supported";
    }
  } else if (*ap == "VALID") {
    pads.assign(2 * spatial, 0);
  }
  std::optional<ArrayRef<int64_t>> bias;
  if (n.in(2))
    bias = Importer::shapeOf(n.in(2));
  auto s = shapes::convTranspose(x, wt, bias, *st, pads, *dl, *op, *group,
                                 im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, im.b.getF32Type());
  return setOut(n, im.make<ConvTransposeOp>(
                       n, t, n.in(0), n.in(1), n.in(2),
                       im.b.getDenseI64ArrayAttr(*st),
                       im.b.getDenseI64ArrayAttr(pads),
                       im.b.getDenseI64ArrayAttr(*dl),
                       im.b.getDenseI64ArrayAttr(*op),
                       im.b.getI64IntegerAttr(*group), TreeAttr()));
}

LogicalResult maxPool(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(floats(im, n, {0})) ||
      failed(onlyOutputs(im, n, 2)))
    return failure();
  auto x = Importer::shapeOf(n.in(0));
  if (x.size() < 3)
    return im.error(n) << "input must have rank >= 3, got " << shapes::str(x);
  auto w = window(im, n, x, std::nullopt, true);
  auto ceil = im.attrInt(n, "ceil_mode", 0);
  auto order = im.attrInt(n, "storage_order", 0);
  if (failed(w) || failed(ceil) || failed(order))
    return failure();
  auto s = shapes::pool(x, w->kernel, w->strides, w->pads, w->dilations,
                        *ceil != 0, im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, im.b.getF32Type());
  // Indices (optional output 1), in the asked storage order.
  SmallVector<Type> indices;
  bool wantIndices = n.proto.output_size() > 1 && !n.proto.output(1).empty();
  if (*order != 0 && *order != 1)
    return im.error(n) << "storage_order must be 0 or 1, got " << *order;
  if (wantIndices) {
    if (*order == 1 && x.size() != 4)
      return im.error(n) << "storage_order 1 is supported for 2-D pools only";
    indices.push_back(Importer::tensorType(*s, im.b.getI64Type()));
  }
  auto op = im.makeOp<MaxPoolOp>(
      n, t, TypeRange(indices), n.in(0), im.b.getDenseI64ArrayAttr(w->kernel),
      im.b.getDenseI64ArrayAttr(w->strides), im.b.getDenseI64ArrayAttr(w->pads),
      im.b.getDenseI64ArrayAttr(w->dilations), im.b.getBoolAttr(*ceil != 0),
      wantIndices && *order == 1 ? im.b.getUnitAttr() : UnitAttr());
  if (failed(op))
    return failure();
  for (Value v : op->getResults())
    n.outputs.push_back(v);
  return success();
}

LogicalResult averagePool(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(floats(im, n, {0})))
    return failure();
  auto x = Importer::shapeOf(n.in(0));
  if (x.size() < 3)
    return im.error(n) << "input must have rank >= 3, got " << shapes::str(x);
  auto w = window(im, n, x, std::nullopt, true);
  auto ceil = im.attrInt(n, "ceil_mode", 0);
  auto cip = im.attrInt(n, "count_include_pad", 0);
  if (failed(w) || failed(ceil) || failed(cip))
    return failure();
  auto s = shapes::pool(x, w->kernel, w->strides, w->pads, w->dilations,
                        *ceil != 0, im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, im.b.getF32Type());
  return setOut(n, im.make<AveragePoolOp>(
                       n, t, n.in(0), im.b.getDenseI64ArrayAttr(w->kernel),
                       im.b.getDenseI64ArrayAttr(w->strides),
                       im.b.getDenseI64ArrayAttr(w->pads),
                       im.b.getBoolAttr(*ceil != 0), im.b.getBoolAttr(*cip != 0),
                       TreeAttr(),
                       // Only when some dilation is not 1, so undilated
                       // pools keep their node ids.
                       llvm::any_of(w->dilations, [](int64_t d) { return d != 1; })
                           ? im.b.getDenseI64ArrayAttr(w->dilations)
                           : DenseI64ArrayAttr()));
}

template <typename OpTy>
LogicalResult globalPool(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(floats(im, n, {0})))
    return failure();
  auto s = shapes::globalPool(Importer::shapeOf(n.in(0)), im.emitter(n));
  if (failed(s))
    return failure();
  auto t = Importer::tensorType(*s, im.b.getF32Type());
  if constexpr (std::is_same<OpTy, GlobalAveragePoolOp>::value)
    return setOut(n, im.make<OpTy>(n, t, n.in(0), TreeAttr()));
  else
    return setOut(n, im.make<OpTy>(n, t, n.in(0)));
}

LogicalResult batchNorm(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 5, 5)) || failed(floats(im, n, {0, 1, 2, 3, 4})) ||
      failed(onlyOutputs(im, n, 1)))
    return failure();
  auto eps = im.attrFloat(n, "epsilon", 1e-5f);
  auto training = im.attrInt(n, "training_mode", 0);
  auto spatial = im.attrInt(n, "spatial", 1);
  if (failed(eps) || failed(training) || failed(spatial))
    return failure();
  if (*training)
    return im.error(n) << "training_mode=1 is not supported (inference only)";
  if (!*spatial)
    return im.error(n) << "spatial=0 is not supported";
  return setOut(n, im.make<BatchNormOp>(n, n.in(0).getType(), n.in(0), n.in(1),
                                        n.in(2), n.in(3), n.in(4),
                                        im.b.getF32FloatAttr(*eps)));
}

LogicalResult layerNorm(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 3)) || failed(floats(im, n, {0, 1, 2})) ||
      failed(onlyOutputs(im, n, 3)))
    return failure();
  auto axis = im.attrInt(n, "axis", -1);
  auto eps = im.attrFloat(n, "epsilon", 1e-5f);
  auto stash = im.attrInt(n, "stash_type", 1);
  if (failed(axis) || failed(eps) || failed(stash))
    return failure();
  if (*stash != 1)
    return im.error(n) << "stash_type " << *stash
                       << " is not supported (only 1: float32)";
  auto x = Importer::shapeOf(n.in(0));
  auto a = shapes::normalizeAxis(*axis, x.size(), im.emitter(n));
  if (failed(a))
    return failure();
  // Mean and InvStdDev (optional outputs 1 and 2): computed together when
  // either is asked for.
  SmallVector<Type> stats;
  bool wantStats = false;
  for (int i = 1; i < n.proto.output_size(); ++i)
    wantStats |= !n.proto.output(i).empty();
  if (wantStats) {
    Shape rows(x.begin(), x.end());
    for (size_t d = *a; d < rows.size(); ++d)
      rows[d] = 1;
    Type t = Importer::tensorType(rows, im.b.getF32Type());
    stats = {t, t};
  }
  auto op = im.makeOp<LayerNormOp>(n, n.in(0).getType(), TypeRange(stats),
                                   n.in(0), n.in(1), n.in(2),
                                   im.b.getI64IntegerAttr(*a),
                                   im.b.getF32FloatAttr(*eps), TreeAttr());
  if (failed(op))
    return failure();
  for (Value v : op->getResults())
    n.outputs.push_back(v);
  return success();
}

/// An f32 scalar constant (broadcasts against any shape).
Value scalarF32(Importer &im, float v) {
  auto t = RankedTensorType::get({}, im.b.getF32Type());
  return im.constantOf(DenseElementsAttr::get(t, v));
}

/// InstanceNormalization, decomposed in ONNX's reference order: per (n, c)
/// plane, mean = reduce_mean(x), var = reduce_mean((x - mean) * (x - mean)),
/// y = ((scale * (x - mean)) / sqrt(var + eps)) + B, with scale and B
/// reshaped to [C, 1, ...] and broadcast. Every step is an existing op with
/// its own exact order (reduce_mean: tree sum, one division).
LogicalResult instanceNorm(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 3)) || failed(floats(im, n, {0, 1, 2})))
    return failure();
  auto eps = im.attrFloat(n, "epsilon", 1e-5f);
  if (failed(eps))
    return failure();
  auto x = Importer::shapeOf(n.in(0));
  if (x.size() < 3)
    return im.error(n) << "input must have rank >= 3 (N, C, D1, ...), got "
                       << shapes::str(x);
  for (int i = 1; i <= 2; ++i)
    if (Importer::shapeOf(n.in(i)) != ArrayRef<int64_t>{x[1]})
      return im.error(n) << "input " << i << " must have shape " << x[1]
                         << " (one value per channel), got "
                         << shapes::str(Importer::shapeOf(n.in(i)));
  Type f32 = im.b.getF32Type();
  auto xt = n.in(0).getType();
  Shape stat(x.begin(), x.end()), chan(x.size() - 1, 1);
  SmallVector<int64_t> axes;
  for (size_t d = 2; d < x.size(); ++d)
    stat[d] = 1, axes.push_back(d);
  chan[0] = x[1];
  auto st = Importer::tensorType(stat, f32);
  auto mean = [&](Value v) {
    return im.make<ReduceMeanOp>(n, st, v, im.b.getDenseI64ArrayAttr(axes),
                                 im.b.getBoolAttr(true), TreeAttr());
  };
  auto m = mean(n.in(0));
  if (failed(m))
    return failure();
  auto d = im.make<SubOp>(n, xt, n.in(0), *m);
  if (failed(d))
    return failure();
  auto d2 = im.make<MulOp>(n, xt, *d, *d);
  if (failed(d2))
    return failure();
  auto var = mean(*d2);
  if (failed(var))
    return failure();
  auto ve = im.make<AddOp>(n, st, *var, scalarF32(im, *eps));
  if (failed(ve))
    return failure();
  auto sd = im.make<SqrtOp>(n, st, *ve);
  auto sc = im.make<ReshapeOp>(n, Importer::tensorType(chan, f32), n.in(1));
  auto bi = im.make<ReshapeOp>(n, Importer::tensorType(chan, f32), n.in(2));
  if (failed(sd) || failed(sc) || failed(bi))
    return failure();
  auto sx = im.make<MulOp>(n, xt, *sc, *d);
  if (failed(sx))
    return failure();
  auto q = im.make<DivOp>(n, xt, *sx, *sd);
  if (failed(q))
    return failure();
  return setOut(n, im.make<AddOp>(n, xt, *q, *bi));
}

/// LRN, decomposed: sq = x * x; the channel window sum is a zero Pad of C by
/// (floor((size-1)/2), ceil((size-1)/2)) and a left-to-right plumb.sum of
/// the `size` shifted slices (so the edge windows are clipped);
/// y = x / pow(bias + (alpha / size) * square_sum, beta), where alpha / size
/// is computed in double and rounded once to f32 (numpy's scalar rule in
/// ONNX's reference).
LogicalResult lrn(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)) || failed(floats(im, n, {0})))
    return failure();
  auto size = im.attrInt(n, "size", std::nullopt);
  auto alpha = im.attrFloat(n, "alpha", 1e-4f);
  auto beta = im.attrFloat(n, "beta", 0.75f);
  auto bias = im.attrFloat(n, "bias", 1.0f);
  if (failed(size) || failed(alpha) || failed(beta) || failed(bias))
    return failure();
  auto x = Importer::shapeOf(n.in(0));
  if (x.size() < 3)
    return im.error(n) << "input must have rank >= 3 (N, C, D1, ...), got "
                       << shapes::str(x);
  if (*size < 1)
    return im.error(n) << "size must be positive, got " << *size;
  Type f32 = im.b.getF32Type();
  auto xt = n.in(0).getType();
  auto sq = im.make<MulOp>(n, xt, n.in(0), n.in(0));
  if (failed(sq))
    return failure();
  Value sum = *sq;
  if (*size > 1) {
    int64_t r = x.size(), lo = (*size - 1) / 2, hi = *size / 2;
    SmallVector<int64_t> pads(2 * r, 0);
    pads[1] = lo, pads[r + 1] = hi;
    Shape ps(x.begin(), x.end());
    ps[1] += lo + hi;
    auto padded = im.make<PadOp>(n, Importer::tensorType(ps, f32), *sq,
                                 im.b.getDenseI64ArrayAttr(pads),
                                 im.b.getStringAttr("constant"),
                                 im.b.getF32FloatAttr(0.0f));
    if (failed(padded))
      return failure();
    SmallVector<Value> terms;
    SmallVector<int64_t> starts(r, 0), steps(r, 1);
    for (int64_t k = 0; k < *size; ++k) {
      starts[1] = k;
      auto s = im.make<SliceOp>(n, xt, *padded,
                                im.b.getDenseI64ArrayAttr(starts),
                                im.b.getDenseI64ArrayAttr(steps));
      if (failed(s))
        return failure();
      terms.push_back(*s);
    }
    auto s = im.make<SumOp>(n, xt, terms);
    if (failed(s))
      return failure();
    sum = *s;
  }
  float coef = (float)((double)*alpha / (double)*size);
  auto scaled = im.make<MulOp>(n, xt, scalarF32(im, coef), sum);
  if (failed(scaled))
    return failure();
  auto base = im.make<AddOp>(n, xt, scalarF32(im, *bias), *scaled);
  if (failed(base))
    return failure();
  auto den = im.make<PowOp>(n, xt, *base, scalarF32(im, *beta));
  if (failed(den))
    return failure();
  return setOut(n, im.make<DivOp>(n, xt, n.in(0), *den));
}

/// Resize. Opset 18 adds `axes` (scales/sizes then name only those
/// dimensions; the others keep scale 1 and their size), `antialias` and
/// `keep_aspect_ratio_policy` (with sizes: not_larger / not_smaller use one
/// scale, the min / max of sizes[i] / in[axes[i]] in f32, for every listed
/// axis, and the output size round_half_up(scale * in)). Opset 19 adds
/// coordinate_transformation_mode half_pixel_symmetric, which is half_pixel
/// exactly when scale * in (f32) is the output size on every dimension (its
/// offset is then 0) and is refused otherwise. antialias only changes
/// linear and cubic downscaling, which are refused (and is not valid with
/// nearest). Cubic takes cubic_coeff_a and exclude_outside.
LogicalResult resize(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 4)) || failed(floats(im, n, {0})))
    return failure();
  auto x = Importer::shapeOf(n.in(0));
  int64_t rank = x.size();
  auto mode = im.attrString(n, "mode", std::string("nearest"));
  auto ctm = im.attrString(n, "coordinate_transformation_mode",
                           std::string(n.opset < 11 ? "asymmetric" : "half_pixel"));
  auto nm = im.attrString(n, "nearest_mode",
                          std::string(n.opset < 11 ? "floor" : "round_prefer_floor"));
  auto exclude = im.attrInt(n, "exclude_outside", 0);
  auto cubicA = im.attrFloat(n, "cubic_coeff_a", -0.75f);
  if (failed(mode) || failed(ctm) || failed(nm) || failed(exclude) ||
      failed(cubicA))
    return failure();
  int64_t antialias = 0;
  std::string policy = "stretch";
  SmallVector<int64_t> axes;
  bool haveAxes = false;
  if (n.opset >= 18) {
    auto aa = im.attrInt(n, "antialias", 0);
    auto kp =
        im.attrString(n, "keep_aspect_ratio_policy", std::string("stretch"));
    auto ax = im.attrInts(n, "axes", SmallVector<int64_t>{});
    if (failed(aa) || failed(kp) || failed(ax))
      return failure();
    antialias = *aa, policy = *kp;
    haveAxes = im.attr(n, "axes") != nullptr;
    SmallVector<bool> seen(rank, false);
    for (int64_t a : *ax) {
      auto na = shapes::normalizeAxis(a, rank, im.emitter(n));
      if (failed(na))
        return failure();
      if (seen[*na])
        return im.error(n) << "axis " << a << " is repeated in 'axes'";
      seen[*na] = true;
      axes.push_back(*na);
    }
  }
  if (!haveAxes)
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  if (*mode != "nearest" && *mode != "linear" && *mode != "cubic")
    return im.error(n) << "Resize mode '" << *mode
                       << "' is not valid (nearest, linear, cubic)";
  if (*ctm == "tf_crop_and_resize" || *ctm == "tf_half_pixel_for_nn")
    return im.error(n) << "coordinate_transformation_mode '" << *ctm
                       << "' is not supported";
  if (*ctm == "half_pixel_symmetric" && n.opset < 19)
    return im.error(n) << "coordinate_transformation_mode "
                          "'half_pixel_symmetric' needs opset 19 or later "
                          "(the model uses opset "
                       << n.opset << ")";
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return im.error(n) << "keep_aspect_ratio_policy '" << policy
                       << "' is not valid (stretch, not_larger, not_smaller)";
  SmallVector<float> scales(rank, 1.0f);
  SmallVector<int64_t> out(x.begin(), x.end());
  int64_t scalesIdx = n.opset < 11 ? 1 : 2, sizesIdx = n.opset < 11 ? -1 : 3;
  int64_t count = axes.size();
  SmallVector<float> given;
  if (n.in(scalesIdx)) {
    auto lit = im.constant(n.in(scalesIdx));
    if (!lit || !lit->isFloat)
      return im.error(n) << "input 'scales' must be a float tensor known at "
                            "import time (it is computed from model inputs; "
                            "bind them with --input-shape/--input-value)";
    given.assign(lit->f.begin(), lit->f.end());
  }
  if (!given.empty()) {
    if ((int64_t)given.size() != count)
      return im.error(n) << "scales has " << given.size() << " values for "
                         << (haveAxes ? "the " + std::to_string(count) + " axes"
                                      : "rank " + std::to_string(rank));
    for (int64_t i = 0; i < count; ++i) {
      int64_t d = axes[i];
      if (!(given[i] > 0.0f) || !std::isfinite(given[i]))
        return im.error(n) << "scales must be positive and finite";
      scales[d] = given[i];
      out[d] = (int64_t)std::floor((double)x[d] * (double)given[i]);
    }
  } else if (sizesIdx >= 0 && n.in(sizesIdx)) {
    auto sz = im.constInts(n, sizesIdx, "sizes");
    if (failed(sz))
      return failure();
    if ((int64_t)sz->size() != count)
      return im.error(n) << "sizes has " << sz->size() << " values for "
                         << (haveAxes ? "the " + std::to_string(count) + " axes"
                                      : "rank " + std::to_string(rank));
    for (int64_t i = 0; i < count; ++i) {
      if ((*sz)[i] < 0)
        return im.error(n) << "sizes must not be negative, got " << (*sz)[i];
      if (x[axes[i]] == 0)
        return im.error(n) << "cannot resize dimension " << axes[i]
                           << ", which is empty";
    }
    if (policy == "stretch") {
      for (int64_t i = 0; i < count; ++i) {
        int64_t d = axes[i];
        out[d] = (*sz)[i];
        scales[d] = (float)out[d] / (float)x[d];
      }
    } else {
      float s = 0.0f;
      for (int64_t i = 0; i < count; ++i) {
        float r = (float)(*sz)[i] / (float)x[axes[i]];
        s = i == 0 ? r
                   : (policy == "not_larger" ? std::min(s, r) : std::max(s, r));
      }
      for (int64_t d : axes) {
        scales[d] = s;
        out[d] = (int64_t)std::floor((double)s * (double)x[d] + 0.5);
      }
    }
  } else {
    return im.error(n) << "Resize needs scales or sizes";
  }
  if (*mode != "nearest")
    for (int64_t i = 0; i + 2 < rank && i < 2; ++i)
      if (scales[i] != 1.0f)
        return im.error(n) << *mode
                           << " Resize of batch or channel dimensions "
                              "is not supported";
  // antialias is for linear and cubic: onnx's reference and onnxruntime
  // refuse it with nearest.
  if (antialias != 0 && *mode == "nearest")
    return im.error(n) << "antialias=1 is not valid with mode 'nearest'";
  if (antialias != 0 && *mode != "nearest")
    for (int64_t d = 0; d < rank; ++d)
      if (scales[d] < 1.0f)
        return im.error(n) << "antialias=1 with " << *mode
                           << " downscaling "
                              "(dimension "
                           << d << ", scale " << scales[d]
                           << ") is not supported";
  std::string coord = *ctm;
  if (coord == "half_pixel_symmetric") {
    for (int64_t d = 0; d < rank; ++d)
      if (scales[d] * (float)x[d] != (float)out[d])
        return im.error(n) << "coordinate_transformation_mode "
                              "'half_pixel_symmetric' with a fractional "
                              "output size (dimension "
                           << d << ": " << x[d] << " * " << scales[d]
                           << ") is not supported";
    coord = "half_pixel"; // the same coordinates when the offset is 0
  }
  if (failed(shapes::numElements(out, im.emitter(n))))
    return failure();
  auto t = Importer::tensorType(out, im.b.getF32Type());
  const bool cubic = *mode == "cubic";
  if (cubic && *exclude != 0 && *exclude != 1)
    return im.error(n) << "exclude_outside must be 0 or 1, got " << *exclude;
  if (cubic && !std::isfinite(*cubicA))
    return im.error(n) << "cubic_coeff_a must be finite";
  FloatAttr aAttr = cubic ? im.b.getF32FloatAttr(*cubicA) : FloatAttr();
  BoolAttr exAttr = cubic ? im.b.getBoolAttr(*exclude != 0) : BoolAttr();
  return setOut(n, im.make<ResizeOp>(n, t, n.in(0), im.b.getStringAttr(*mode),
                                     im.b.getStringAttr(coord),
                                     im.b.getStringAttr(*nm),
                                     im.b.getDenseF32ArrayAttr(scales), aAttr,
                                     exAttr));
}

/// Upsample (opsets 7 to 9; deprecated by Resize in opset 10): plumb.resize
/// with asymmetric coordinates and, for nearest, floor of the source
/// coordinate (x_out / scale), which is what Resize 10 (and onnxruntime's
/// Upsample) computes. Scales come from the attribute (opsets 7, 8) or input
/// 1 (opset 9, known at import); output size floor(in * scale). Every scale
/// must be >= 1, as ONNX defines the op and onnxruntime checks; modes are
/// nearest and linear (linear keeps batch and channel, as Resize's).
LogicalResult upsample(Importer &im, NodeCtx &n) {
  if (n.opset >= 10)
    return im.error(n) << "Upsample is deprecated since opset 10 (the model "
                          "uses opset "
                       << n.opset << "); use Resize";
  if (failed(need(im, n, n.opset < 9 ? 1 : 2, n.opset < 9 ? 1 : 2)) ||
      failed(floats(im, n, {0})))
    return failure();
  auto x = Importer::shapeOf(n.in(0));
  int64_t rank = x.size();
  auto mode = im.attrString(n, "mode", std::string("nearest"));
  if (failed(mode))
    return failure();
  if (*mode != "nearest" && *mode != "linear")
    return im.error(n) << "Upsample mode '" << *mode
                       << "' is not valid (nearest, linear)";
  SmallVector<float> scales;
  if (n.opset < 9) {
    auto s = im.attrFloats(n, "scales", std::nullopt);
    if (failed(s))
      return failure();
    scales = *s;
  } else {
    auto lit = im.constant(n.in(1));
    if (!lit || !lit->isFloat)
      return im.error(n) << "input 'scales' must be a float tensor known at "
                            "import time (it is computed from model inputs; "
                            "bind them with --input-shape/--input-value)";
    scales.assign(lit->f.begin(), lit->f.end());
  }
  if ((int64_t)scales.size() != rank)
    return im.error(n) << "scales has " << scales.size()
                       << " values for rank " << rank;
  SmallVector<int64_t> out(x.begin(), x.end());
  for (int64_t d = 0; d < rank; ++d) {
    if (!(scales[d] >= 1.0f) || !std::isfinite(scales[d]))
      return im.error(n) << "Upsample scales must be finite and >= 1, got "
                         << scales[d] << " for dimension " << d;
    out[d] = (int64_t)std::floor((double)x[d] * (double)scales[d]);
  }
  if (*mode == "linear")
    for (int64_t d = 0; d + 2 < rank && d < 2; ++d)
      if (scales[d] != 1.0f)
        return im.error(n) << "linear Upsample of batch or channel "
                              "dimensions is not supported (dimension "
                           << d << ", scale " << scales[d] << ")";
  if (failed(shapes::numElements(out, im.emitter(n))))
    return failure();
  auto t = Importer::tensorType(out, im.b.getF32Type());
  return setOut(n, im.make<ResizeOp>(n, t, n.in(0), im.b.getStringAttr(*mode),
                                     im.b.getStringAttr("asymmetric"),
                                     im.b.getStringAttr("floor"),
                                     im.b.getDenseF32ArrayAttr(scales),
                                     FloatAttr(), BoolAttr()));
}

/// Checks an RNN's attributes that Plumb fixes (default activations, layout
/// 0, full sequence lengths) and returns the number of directions.
FailureOr<Value> transposeOf(Importer &im, NodeCtx &n, Value v,
                             ArrayRef<int64_t> perm) {
  auto s = shapes::transpose(Importer::shapeOf(v), perm, im.emitter(n));
  if (failed(s))
    return failure();
  return im.make<TransposeOp>(n, Importer::tensorType(*s, Importer::eltOf(v)),
                              v, im.b.getDenseI64ArrayAttr(perm));
}

/// RNN layout = 1 (batch first): the plumb ops take ONNX's layout 0, so X
/// ([batch, seq, input]) and the initial states ([batch, dirs, hidden]) are
/// transposed in here (inputs 0 and `states`), and rnnLayoutOut transposes
/// Y and the final states back. Only moves bits.
FailureOr<bool> rnnLayoutIn(Importer &im, NodeCtx &n,
                            ArrayRef<int64_t> states) {
  auto layout = im.attrInt(n, "layout", 0);
  if (failed(layout))
    return failure();
  if (*layout != 0 && *layout != 1)
    return im.error(n) << "layout must be 0 or 1, got " << *layout;
  if (*layout == 0)
    return false;
  if (Importer::shapeOf(n.in(0)).size() != 3)
    return im.error(n) << "X must be [batch, seq, input] with layout=1";
  SmallVector<int64_t> transposed{0};
  transposed.append(states.begin(), states.end());
  for (int64_t i : transposed) {
    if (!n.in(i))
      continue;
    auto t = transposeOf(im, n, n.in(i), {1, 0, 2});
    if (failed(t))
      return failure();
    n.inputs[i] = *t;
  }
  return true;
}

LogicalResult rnnLayoutOut(Importer &im, NodeCtx &n, Operation *op,
                           bool batchFirst) {
  for (auto [k, v] : llvm::enumerate(op->getResults())) {
    if (!batchFirst) {
      n.outputs.push_back(v);
      continue;
    }
    SmallVector<int64_t> perm = k == 0 ? SmallVector<int64_t>{2, 0, 1, 3}
                                       : SmallVector<int64_t>{1, 0, 2};
    auto t = transposeOf(im, n, v, perm);
    if (failed(t))
      return failure();
    n.outputs.push_back(*t);
  }
  return success();
}

/// `defaultActs` empty: the caller reads the activations and their
/// alpha / beta itself (RNN).
FailureOr<int64_t> rnnCommon(Importer &im, NodeCtx &n,
                             ArrayRef<StringRef> defaultActs) {
  auto dir = im.attrString(n, "direction", std::string("forward"));
  auto acts = im.attrStrings(n, "activations");
  if (failed(dir) || failed(acts))
    return failure();
  int64_t dirs = *dir == "bidirectional" ? 2 : 1;
  if (*dir != "forward" && *dir != "reverse" && *dir != "bidirectional")
    return im.error(n) << "direction '" << *dir << "' is not valid";
  for (size_t i = 0; i < acts->size() && !defaultActs.empty(); ++i) {
    StringRef want = defaultActs[i % defaultActs.size()];
    if (!StringRef((*acts)[i]).equals_insensitive(want))
      return im.error(n) << "activation '" << (*acts)[i]
                         << "' is not supported (only the defaults)";
  }
  if (!defaultActs.empty() &&
      (im.attr(n, "activation_alpha") || im.attr(n, "activation_beta")))
    return im.error(n) << "activation_alpha/beta are not supported";
  // sequence_lens (input 4) must be absent or equal to the sequence length.
  if (Value sl = n.in(4)) {
    auto lit = im.constant(sl);
    int64_t seq = Importer::shapeOf(n.in(0))[0];
    if (!lit)
      return im.error(n) << "input 'sequence_lens' must be known at import "
                            "time (bind it with --input-value)";
    if (llvm::any_of(lit->i, [&](int64_t v) { return v != seq; }))
      return im.error(n) << "sequence_lens shorter than the sequence are not "
                            "supported";
  }
  return dirs;
}

LogicalResult lstm(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 8)) ||
      failed(floats(im, n, {0, 1, 2, 3, 5, 6, 7})))
    return failure();
  auto batchFirst = rnnLayoutIn(im, n, {5, 6});
  if (failed(batchFirst))
    return failure();
  if (Importer::shapeOf(n.in(0)).size() != 3)
    return im.error(n) << "X must be [seq, batch, input]";
  auto dirs = rnnCommon(im, n, {"Sigmoid", "Tanh", "Tanh"});
  auto hidden = im.attrInt(n, "hidden_size", std::nullopt);
  auto inputForget = im.attrInt(n, "input_forget", 0);
  if (failed(dirs) || failed(hidden) || failed(inputForget))
    return failure();
  FloatAttr clip;
  if (im.attr(n, "clip")) {
    auto c = im.attrFloat(n, "clip", std::nullopt);
    if (failed(c))
      return failure();
    clip = im.b.getF32FloatAttr(*c);
  }
  Shape y, yh;
  if (failed(shapes::rnn(Importer::shapeOf(n.in(0)), Importer::shapeOf(n.in(1)),
                         Importer::shapeOf(n.in(2)), 4, *hidden, *dirs, y, yh,
                         im.emitter(n))))
    return failure();
  Type f32 = im.b.getF32Type();
  auto dirName = im.attrString(n, "direction", std::string("forward"));
  auto op = im.makeOp<LSTMOp>(
      n, Importer::tensorType(y, f32), Importer::tensorType(yh, f32),
      Importer::tensorType(yh, f32), n.in(0), n.in(1), n.in(2), n.in(3),
      n.in(5), n.in(6), n.in(7), im.b.getStringAttr(*dirName),
      im.b.getI64IntegerAttr(*hidden), clip, im.b.getBoolAttr(*inputForget != 0),
      TreeAttr());
  if (failed(op))
    return failure();
  return rnnLayoutOut(im, n, *op, *batchFirst);
}

/// com.microsoft DynamicQuantizeLSTM (ONNX Runtime's quantizer writes it for
/// LSTM): inputs X, W, R, B, sequence_lens, initial_h, initial_c, P, then
/// W_scale, W_zero_point, R_scale, R_zero_point; W [dirs, input, 4H] and R
/// [dirs, H, 4H] are 8-bit (int32 here). Imported as plumb.lstm_dq.
LogicalResult dynamicQuantizeLstm(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 12)) || failed(floats(im, n, {0, 3, 5, 6, 7, 8, 10})))
    return failure();
  if (!n.in(8) || !n.in(10))
    return im.error(n) << "W_scale and R_scale are required";
  for (int i : {1, 2, 9, 11})
    if (n.in(i) && (!Importer::eltOf(n.in(i)).isInteger(32) ||
                    !im.narrowType(n.in(i))))
      return im.error(n) << "input " << i
                         << " must be an 8-bit integer tensor";
  auto batchFirst = rnnLayoutIn(im, n, {5, 6});
  if (failed(batchFirst))
    return failure();
  ArrayRef<int64_t> x = Importer::shapeOf(n.in(0));
  if (x.size() != 3)
    return im.error(n) << "X must be [seq, batch, input]";
  auto dirs = rnnCommon(im, n, {"Sigmoid", "Tanh", "Tanh"});
  auto hidden = im.attrInt(n, "hidden_size", std::nullopt);
  auto inputForget = im.attrInt(n, "input_forget", 0);
  if (failed(dirs) || failed(hidden) || failed(inputForget))
    return failure();
  FloatAttr clip;
  if (im.attr(n, "clip")) {
    auto c = im.attrFloat(n, "clip", std::nullopt);
    if (failed(c))
      return failure();
    clip = im.b.getF32FloatAttr(*c);
  }
  Type f32 = im.b.getF32Type();
  Shape y{x[0], *dirs, x[1], *hidden}, yh{*dirs, x[1], *hidden};
  auto dirName = im.attrString(n, "direction", std::string("forward"));
  auto op = im.makeOp<LSTMDynQuantOp>(
      n, Importer::tensorType(y, f32), Importer::tensorType(yh, f32),
      Importer::tensorType(yh, f32), n.in(0), n.in(1), n.in(8), n.in(9),
      n.in(2), n.in(10), n.in(11), n.in(3), n.in(5), n.in(6), n.in(7),
      im.b.getStringAttr(*dirName), im.b.getI64IntegerAttr(*hidden), clip,
      im.b.getBoolAttr(*inputForget != 0));
  if (failed(op))
    return failure();
  return rnnLayoutOut(im, n, *op, *batchFirst);
}

LogicalResult gru(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 6)) || failed(floats(im, n, {0, 1, 2, 3, 5})))
    return failure();
  auto batchFirst = rnnLayoutIn(im, n, {5});
  if (failed(batchFirst))
    return failure();
  if (Importer::shapeOf(n.in(0)).size() != 3)
    return im.error(n) << "X must be [seq, batch, input]";
  auto dirs = rnnCommon(im, n, {"Sigmoid", "Tanh"});
  auto hidden = im.attrInt(n, "hidden_size", std::nullopt);
  auto lbr = im.attrInt(n, "linear_before_reset", 0);
  if (failed(dirs) || failed(hidden) || failed(lbr))
    return failure();
  FloatAttr clip;
  if (im.attr(n, "clip")) {
    auto c = im.attrFloat(n, "clip", std::nullopt);
    if (failed(c))
      return failure();
    clip = im.b.getF32FloatAttr(*c);
  }
  Shape y, yh;
  if (failed(shapes::rnn(Importer::shapeOf(n.in(0)), Importer::shapeOf(n.in(1)),
                         Importer::shapeOf(n.in(2)), 3, *hidden, *dirs, y, yh,
                         im.emitter(n))))
    return failure();
  Type f32 = im.b.getF32Type();
  auto dirName = im.attrString(n, "direction", std::string("forward"));
  auto op = im.makeOp<GRUOp>(
      n, Importer::tensorType(y, f32), Importer::tensorType(yh, f32), n.in(0),
      n.in(1), n.in(2), n.in(3), n.in(5), im.b.getStringAttr(*dirName),
      im.b.getI64IntegerAttr(*hidden), clip, im.b.getBoolAttr(*lbr != 0),
      TreeAttr());
  if (failed(op))
    return failure();
  return rnnLayoutOut(im, n, *op, *batchFirst);
}

/// RNN (Elman): plumb.rnn. Activations by their ONNX names (exact, as
/// onnxruntime reads them), one per direction. ONNX consumes
/// activation_alpha / activation_beta in order by the activations that take
/// them and defaults to the operators' own values; onnxruntime reads them by
/// position and uses other defaults. So an alpha (beta) is taken only where
/// both agree: when every activation takes one and one value is given per
/// activation; an activation that takes alpha (beta) without such a list is
/// refused. Affine and ScaledTanh have no plumb op and are refused.
LogicalResult rnn(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 6)) || failed(floats(im, n, {0, 1, 2, 3, 5})))
    return failure();
  auto batchFirst = rnnLayoutIn(im, n, {5});
  if (failed(batchFirst))
    return failure();
  if (Importer::shapeOf(n.in(0)).size() != 3)
    return im.error(n) << "X must be [seq, batch, input]";
  auto dirs = rnnCommon(im, n, {});
  auto hidden = im.attrInt(n, "hidden_size", std::nullopt);
  auto names = im.attrStrings(n, "activations");
  auto alphas = im.attrFloats(n, "activation_alpha", SmallVector<float>{});
  auto betas = im.attrFloats(n, "activation_beta", SmallVector<float>{});
  if (failed(dirs) || failed(hidden) || failed(names) || failed(alphas) ||
      failed(betas))
    return failure();
  std::vector<std::string> given = *names;
  if (given.empty())
    given.assign(*dirs, "Tanh");
  if ((int64_t)given.size() != *dirs)
    return im.error(n) << "activations has " << given.size()
                       << " entries for " << *dirs << " direction(s)";
  struct Act {
    const char *onnx, *plumb;
    int uses; // 0 none, 1 alpha, 2 alpha and beta
  };
  static const Act kActs[] = {{"Tanh", "tanh", 0},
                              {"Sigmoid", "sigmoid", 0},
                              {"Relu", "relu", 0},
                              {"LeakyRelu", "leaky_relu", 1},
                              {"ThresholdedRelu", "thresholded_relu", 1},
                              {"HardSigmoid", "hard_sigmoid", 2},
                              {"Elu", "elu", 1},
                              {"Softsign", "softsign", 0},
                              {"Softplus", "softplus", 0}};
  SmallVector<const Act *> acts;
  for (const std::string &g : given) {
    const Act *a = nullptr;
    for (const Act &k : kActs)
      if (g == k.onnx)
        a = &k;
    if (!a)
      return im.error(n) << "activation '" << g
                         << "' is not supported (Tanh, Sigmoid, Relu, "
                            "LeakyRelu, ThresholdedRelu, HardSigmoid, Elu, "
                            "Softsign, Softplus)";
    acts.push_back(a);
  }
  // One list: "activation_alpha" (uses >= 1) or "activation_beta" (>= 2).
  auto params = [&](StringRef what, const SmallVector<float> &values,
                    int level) -> FailureOr<SmallVector<float>> {
    bool any = llvm::any_of(acts, [&](const Act *a) { return a->uses >= level; });
    bool all = llvm::all_of(acts, [&](const Act *a) { return a->uses >= level; });
    if (!any) {
      if (!values.empty())
        return im.error(n) << what << " is given but no activation takes it";
      return SmallVector<float>(acts.size(), 0.0f);
    }
    if (!all || values.size() != acts.size())
      return im.error(n) << what
                         << " must give one value per activation, and every "
                            "activation must take one (ONNX reads the list in "
                            "order and onnxruntime by position, with other "
                            "defaults; only then do they agree)";
    return values;
  };
  auto alpha = params("activation_alpha", *alphas, 1);
  if (failed(alpha))
    return failure();
  auto beta = params("activation_beta", *betas, 2);
  if (failed(beta))
    return failure();
  SmallVector<Attribute> actAttrs;
  for (const Act *a : acts)
    actAttrs.push_back(im.b.getStringAttr(a->plumb));
  FloatAttr clip;
  if (im.attr(n, "clip")) {
    auto c = im.attrFloat(n, "clip", std::nullopt);
    if (failed(c))
      return failure();
    clip = im.b.getF32FloatAttr(*c);
  }
  Shape y, yh;
  if (failed(shapes::rnn(Importer::shapeOf(n.in(0)), Importer::shapeOf(n.in(1)),
                         Importer::shapeOf(n.in(2)), 1, *hidden, *dirs, y, yh,
                         im.emitter(n))))
    return failure();
  Type f32 = im.b.getF32Type();
  auto dirName = im.attrString(n, "direction", std::string("forward"));
  auto op = im.makeOp<RNNOp>(
      n, Importer::tensorType(y, f32), Importer::tensorType(yh, f32), n.in(0),
      n.in(1), n.in(2), n.in(3), n.in(5), im.b.getStringAttr(*dirName),
      im.b.getI64IntegerAttr(*hidden), im.b.getArrayAttr(actAttrs),
      im.b.getDenseF32ArrayAttr(*alpha), im.b.getDenseF32ArrayAttr(*beta), clip,
      TreeAttr());
  if (failed(op))
    return failure();
  return rnnLayoutOut(im, n, *op, *batchFirst);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

FailureOr<const onnx::GraphProto *> graphAttr(Importer &im, NodeCtx &n,
                                              StringRef name) {
  const auto *a = im.attr(n, name);
  if (!a || !a->has_g())
    return im.error(n) << "attribute '" << name << "' must be a graph";
  return &a->g();
}

/// GridSample (16; 20 renames the modes and adds 5-D; 22 adds bfloat16):
/// one plumb.grid_sample. Opset 16 names the modes bilinear / nearest /
/// bicubic, 20 on linear / nearest / cubic; cubic is 4-D only (as in
/// onnxruntime). Padding applies to each tap (docs/determinism.md).
LogicalResult gridSample(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)) || failed(floats(im, n, {0, 1})) ||
      failed(onlyOutputs(im, n, 1)))
    return failure();
  const bool newNames = n.opset >= 20;
  auto mode =
      im.attrString(n, "mode", std::string(newNames ? "linear" : "bilinear"));
  auto pad = im.attrString(n, "padding_mode", std::string("zeros"));
  auto ac = im.attrInt(n, "align_corners", 0);
  if (failed(mode) || failed(pad) || failed(ac))
    return failure();
  std::string m;
  if (*mode == (newNames ? "linear" : "bilinear"))
    m = "linear";
  else if (*mode == "nearest")
    m = "nearest";
  else if (*mode == (newNames ? "cubic" : "bicubic"))
    m = "cubic";
  else
    return im.error(n) << "GridSample mode '" << *mode
                       << "' is not valid at opset " << n.opset
                       << (newNames ? " (linear, nearest, cubic)"
                                    : " (bilinear, nearest, bicubic)");
  if (*pad != "zeros" && *pad != "border" && *pad != "reflection")
    return im.error(n) << "GridSample padding_mode '" << *pad
                       << "' is not valid (zeros, border, reflection)";
  if (*ac != 0 && *ac != 1)
    return im.error(n) << "align_corners must be 0 or 1, got " << *ac;
  auto x = Importer::shapeOf(n.in(0)), g = Importer::shapeOf(n.in(1));
  const int64_t r = x.size();
  if (r != 4 && r != 5)
    return im.error(n) << "GridSample supports 4-D and 5-D inputs (N, C, [D,] "
                          "H, W), got "
                       << shapes::str(x);
  if (r == 5 && !newNames)
    return im.error(n) << "a 5-D GridSample input needs opset 20, the model "
                          "has "
                       << n.opset;
  if (r == 5 && m == "cubic")
    return im.error(n) << "GridSample mode '" << *mode
                       << "' supports 4-D inputs only, got "
                       << shapes::str(x);
  if ((int64_t)g.size() != r)
    return im.error(n) << "grid must have rank " << r
                       << " (N, [D_out,] H_out, W_out, " << r - 2
                       << "), got " << shapes::str(g);
  if (g[r - 1] != r - 2)
    return im.error(n) << "grid's last dimension must be " << r - 2
                       << " (one coordinate per spatial dimension), got "
                       << shapes::str(g);
  if (g[0] != x[0])
    return im.error(n) << "grid batch " << g[0]
                       << " does not match the input batch " << x[0];
  Shape out = {x[0], x[1]};
  for (int64_t d = 1; d + 1 < r; ++d)
    out.push_back(g[d]);
  if (failed(shapes::numElements(out, im.emitter(n))))
    return failure();
  auto t = Importer::tensorType(out, im.b.getF32Type());
  return setOut(n, im.make<GridSampleOp>(n, t, n.in(0), n.in(1),
                                         im.b.getStringAttr(m),
                                         im.b.getStringAttr(*pad),
                                         im.b.getBoolAttr(*ac != 0)));
}

/// onnxruntime's base coordinates of AffineGrid on a dim of size len:
/// Eigen's LinSpaced(len, -1, 1) (-1 + i * (2 / (len - 1)), the last one 1;
/// 1 alone when len == 1), then (v * (len - 1)) / len unless align_corners.
SmallVector<float> affineBase(int64_t len, bool align) {
  SmallVector<float> v((size_t)len);
  const float step = len > 1 ? 2.0f / (float)(len - 1) : 0.0f;
  for (int64_t i = 0; i < len; ++i) {
    float b = i == len - 1 ? 1.0f : -1.0f + (float)i * step;
    if (!align)
      b = (b * (float)(len - 1)) / (float)len;
    v[(size_t)i] = b;
  }
  return v;
}

/// AffineGrid (20), decomposed: with theta (N, k, k+1) and base coordinates
/// bx, by[, bz] (affineBase, constants), grid[n, ..., j] is
/// 2-D ((theta[n,j,0] * bx) + (theta[n,j,1] * by)) + theta[n,j,2] and 3-D
/// ((theta[n,j,0] * bx) + ((theta[n,j,1] * by) + (theta[n,j,2] * bz))) +
/// theta[n,j,3], onnxruntime's order (its Eigen products), as broadcast
/// plumb.mul / plumb.add of theta's columns. `size` must be a constant.
LogicalResult affineGrid(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)) || failed(floats(im, n, {0})) ||
      failed(onlyOutputs(im, n, 1)))
    return failure();
  auto ac = im.attrInt(n, "align_corners", 0);
  if (failed(ac))
    return failure();
  if (*ac != 0 && *ac != 1)
    return im.error(n) << "align_corners must be 0 or 1, got " << *ac;
  auto size = im.constInts(n, 1, "size");
  if (failed(size))
    return failure();
  const int64_t r = size->size();
  if (r != 4 && r != 5)
    return im.error(n) << "size must hold 4 or 5 values (N, C, [D,] H, W), "
                          "got "
                       << r;
  for (int64_t v : *size)
    if (v < 1)
      return im.error(n) << "size values must be positive, got "
                         << shapes::str(*size);
  const int64_t k = r - 2, N = (*size)[0];
  auto th = Importer::shapeOf(n.in(0));
  if (th != ArrayRef<int64_t>{N, k, k + 1})
    return im.error(n) << "theta must have shape " << shapes::str({N, k, k + 1})
                       << " for size " << shapes::str(*size) << ", got "
                       << shapes::str(th);
  Type f32 = im.b.getF32Type();
  // Column q of theta as (N, 1, ..., 1, k).
  Shape colShape(r, 1);
  colShape[0] = N;
  colShape[r - 1] = k;
  auto column = [&](int64_t q) -> FailureOr<Value> {
    auto sl = im.make<SliceOp>(n, Importer::tensorType({N, k, 1}, f32),
                               n.in(0), im.b.getDenseI64ArrayAttr({0, 0, q}),
                               im.b.getDenseI64ArrayAttr({1, 1, 1}));
    if (failed(sl))
      return failure();
    return im.make<ReshapeOp>(n, Importer::tensorType(colShape, f32), *sl);
  };
  // Spatial dim d (0 = x / W, 1 = y / H, 2 = z / D) of the output (N,
  // [D,] H, W, k) is output axis r - 2 - d.
  auto base = [&](int64_t d) {
    const int64_t len = (*size)[r - 1 - d];
    Shape bs(r, 1);
    bs[r - 2 - d] = len;
    auto v = affineBase(len, *ac != 0);
    return im.constantOf(DenseElementsAttr::get(
        Importer::tensorType(bs, f32), ArrayRef<float>(v)));
  };
  auto product = [&](int64_t q) -> FailureOr<Value> {
    auto c = column(q);
    if (failed(c))
      return failure();
    Value b = base(q);
    Shape ps = shapes::Shape(Importer::shapeOf(*c).begin(),
                             Importer::shapeOf(*c).end());
    ps[r - 2 - q] = Importer::shapeOf(b)[r - 2 - q];
    return im.make<MulOp>(n, Importer::tensorType(ps, f32), *c, b);
  };
  Shape outShape(size->begin() + 2, size->end());
  outShape.insert(outShape.begin(), N);
  outShape.push_back(k);
  // Spatial part of each partial sum's shape: the union of its terms'.
  auto add = [&](Value a, Value b) -> FailureOr<Value> {
    auto sa = Importer::shapeOf(a), sb = Importer::shapeOf(b);
    Shape s(sa.begin(), sa.end());
    for (int64_t i = 0; i < r; ++i)
      s[i] = std::max(sa[i], sb[i]);
    return im.make<AddOp>(n, Importer::tensorType(s, f32), a, b);
  };
  auto p0 = product(0), p1 = product(1);
  if (failed(p0) || failed(p1))
    return failure();
  FailureOr<Value> sum;
  if (k == 2) {
    sum = add(*p0, *p1);
  } else {
    auto p2 = product(2);
    if (failed(p2))
      return failure();
    auto inner = add(*p1, *p2);
    if (failed(inner))
      return failure();
    sum = add(*p0, *inner);
  }
  if (failed(sum))
    return failure();
  auto t = column(k);
  if (failed(t))
    return failure();
  return setOut(n, add(*sum, *t));
}

} // namespace

/// If with a condition known at import is replaced by its taken branch;
/// otherwise both branches become the regions of a plumb.if.
static LogicalResult ifOpImpl(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto thenG = graphAttr(im, n, "then_branch");
  auto elseG = graphAttr(im, n, "else_branch");
  if (failed(thenG) || failed(elseG))
    return failure();
  Value cond = n.in(0);
  if (!Importer::eltOf(cond).isInteger(1) ||
      cast<RankedTensorType>(cond.getType()).getNumElements() != 1)
    return im.error(n) << "condition must be a single bool";
  if (auto c = im.constant(cond)) {
    const onnx::GraphProto *g = c->i[0] ? *thenG : *elseG;
    SmallVector<Value> outs;
    if (failed(im.importGraph(*g, *n.scope, outs)))
      return failure();
    if ((int)outs.size() != n.proto.output_size())
      return im.error(n) << "branch has " << outs.size() << " outputs, If has "
                         << n.proto.output_size();
    n.outputs.append(outs.begin(), outs.end());
    return success();
  }
  // ONNX allows any single-element condition ([1], [1, 1], ...);
  // plumb.if takes a scalar or [1] (as before), so other shapes are
  // reshaped to a scalar (a reshape only reinterprets the element).
  if (Importer::shapeOf(cond).size() > 1) {
    auto r = im.make<ReshapeOp>(
        n, Importer::tensorType({}, Importer::eltOf(cond)), cond);
    if (failed(r))
      return failure();
    cond = *r;
  }
  auto thenR = std::make_unique<Region>();
  auto elseR = std::make_unique<Region>();
  SmallVector<Value> thenOuts, elseOuts;
  OpBuilder::InsertPoint saved = im.b.saveInsertionPoint();
  auto build = [&](const onnx::GraphProto &g, Region &r,
                   SmallVector<Value> &outs) -> LogicalResult {
    Block *block = new Block();
    r.push_back(block);
    im.b.setInsertionPointToStart(block);
    if (failed(im.importGraph(g, *n.scope, outs)))
      return failure();
    YieldOp::create(im.b, n.loc, outs);
    return success();
  };
  bool ok = succeeded(build(**thenG, *thenR, thenOuts)) &&
            succeeded(build(**elseG, *elseR, elseOuts));
  im.b.restoreInsertionPoint(saved);
  if (!ok)
    return failure();
  if (TypeRange(thenOuts) != TypeRange(elseOuts))
    return im.error(n) << "then and else branches produce different types; "
                          "Plumb needs identical static types";
  auto op = IfOp::create(im.b, n.loc, TypeRange(thenOuts), cond);
  op.getThenRegion().takeBody(*thenR);
  op.getElseRegion().takeBody(*elseR);
  if (failed(verify(op)))
    return failure();
  for (auto [i, v] : llvm::enumerate(op.getResults())) {
    // A result both branches give as float16 (bfloat16) values is one
    // (docs/determinism.md, "Half precision").
    int32_t half = im.halfType(thenOuts[i]);
    if (half && im.halfType(elseOuts[i]) == half)
      im.narrowTypes[v] = half;
    n.outputs.push_back(v);
  }
  return success();
}

/// Loop with a trip count and condition known at import is unrolled; any
/// other Loop is unbounded work and is rejected.
static LogicalResult loopOp(Importer &im, NodeCtx &n) {
  constexpr int64_t kMaxTrips = 4096;
  auto body = graphAttr(im, n, "body");
  if (failed(body))
    return failure();
  std::optional<Literal> trip = im.constant(n.in(0));
  if (!n.in(0) || !trip || trip->size() != 1)
    return im.error(n) << "Loop needs a trip count known at import time; "
                          "unbounded loops are rejected";
  int64_t trips = trip->i[0];
  if (trips < 0 || trips > kMaxTrips)
    return im.error(n) << "Loop trip count " << trips
                       << " is outside [0, " << kMaxTrips << "]";
  Value cond = n.in(1);
  if (cond) {
    auto c = im.constant(cond);
    if (!c)
      return im.error(n) << "Loop condition must be known at import time";
    if (!c->i[0])
      trips = 0;
  }
  const onnx::GraphProto &g = **body;
  int64_t carried = n.numInputs() - 2;
  if (g.input_size() != carried + 2)
    return im.error(n) << "Loop body has " << g.input_size()
                       << " inputs, expected " << carried + 2;
  int64_t scans = g.output_size() - 1 - carried;
  if (scans < 0)
    return im.error(n) << "Loop body has too few outputs";
  SmallVector<Value> state(n.inputs.begin() + 2, n.inputs.end());
  SmallVector<SmallVector<Value>> scanParts(scans);
  for (int64_t it = 0; it < trips; ++it) {
    Scope iter;
    iter.parent = n.scope;
    iter.depth = n.scope->depth;
    iter.values[g.input(0).name()] = im.constI64({}, {it});
    iter.values[g.input(1).name()] = im.constantOf(DenseElementsAttr::get(
        RankedTensorType::get({}, im.b.getI1Type()), true));
    for (int64_t k = 0; k < carried; ++k)
      iter.values[g.input(2 + k).name()] = state[k];
    SmallVector<Value> outs;
    if (failed(im.importGraph(g, iter, outs)))
      return failure();
    auto c = im.constant(outs[0]);
    if (!c || c->size() != 1)
      return im.error(n) << "Loop condition depends on data; the number of "
                            "iterations must be known at import time";
    for (int64_t k = 0; k < carried; ++k)
      state[k] = outs[1 + k];
    for (int64_t k = 0; k < scans; ++k)
      scanParts[k].push_back(outs[1 + carried + k]);
    // A condition known to be false ends the loop after this iteration.
    if (!c->i[0])
      break;
  }
  n.outputs.append(state.begin(), state.end());
  for (int64_t k = 0; k < scans; ++k) {
    if (scanParts[k].empty())
      return im.error(n) << "Loop with zero iterations and scan outputs is not "
                            "supported";
    SmallVector<Value> parts;
    for (Value v : scanParts[k]) {
      SmallVector<int64_t> s{1};
      auto sh = Importer::shapeOf(v);
      s.append(sh.begin(), sh.end());
      auto r = im.make<ReshapeOp>(n, Importer::tensorType(s, Importer::eltOf(v)), v);
      if (failed(r))
        return failure();
      parts.push_back(*r);
    }
    SmallVector<ArrayRef<int64_t>> shapesIn;
    for (Value v : parts)
      shapesIn.push_back(Importer::shapeOf(v));
    auto s = shapes::concat(shapesIn, 0, im.emitter(n));
    if (failed(s))
      return failure();
    if (parts.size() == 1) {
      n.outputs.push_back(parts[0]);
      continue;
    }
    auto cat = im.make<ConcatOp>(
        n, Importer::tensorType(*s, Importer::eltOf(parts[0])), parts,
        im.b.getI64IntegerAttr(0));
    if (failed(cat))
      return failure();
    n.outputs.push_back(*cat);
  }
  return success();
}

static LogicalResult scanOp(Importer &im, NodeCtx &n) {
  return im.error(n) << "Scan is not supported yet; export the model with its "
                        "recurrence unrolled or as LSTM/GRU";
}

void registerNNHandlers(OpTable &t) {
  t.add("com.microsoft.DynamicQuantizeLSTM", dynamicQuantizeLstm, kF32);
  t.add("MatMul", matmul, kF32);
  t.add("Gemm", gemm, kF32);
  t.add("Conv", conv, kF32);
  t.add("ConvTranspose", convTranspose, kF32);
  t.add("MaxPool", maxPool, kF32);
  t.add("AveragePool", averagePool, kF32);
  t.add("GlobalAveragePool", globalPool<GlobalAveragePoolOp>, kF32);
  t.add("GlobalMaxPool", globalPool<GlobalMaxPoolOp>, kF32);
  t.add("BatchNormalization", batchNorm, kF32);
  t.add("LayerNormalization", layerNorm, kF32, 17);
  t.add("InstanceNormalization", instanceNorm, kF32);
  t.add("LRN", lrn, kF32);
  t.add("Resize", resize, kF32, 10);
  t.add("LSTM", lstm, kF32);
  t.add("GRU", gru, kF32);
  t.add("RNN", rnn, kF32);
  t.add("If", ifOpImpl, kAll);
  t.add("Loop", loopOp, kAll);
  t.add("Scan", scanOp, kRefused, 8);
  t.add("GridSample", gridSample, kF32, 16);
  t.add("AffineGrid", affineGrid, kF32, 20);
  t.add("Upsample", upsample, kF32, 7, 9);

}

} // namespace importer
} // namespace plumb
