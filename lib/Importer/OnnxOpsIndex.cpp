//===- lib/Importer/OnnxOpsIndex.cpp - ONNX operators: indexing ----------===//
//
// Part of Plumb. Handlers for the indexing operators (GatherElements,
// ScatterND, ScatterElements) and for operators composed at import from
// existing plumb ops (ReduceL1/L2/SumSquare/LogSum/LogSumExp, ArgMin, ...).
// A composition only moves bits or applies ops whose semantics are already
// in the contract; the exact operation order of each one is written in
// docs/determinism.md ("Operators composed at import").
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

using namespace mlir;

namespace plumb {
namespace importer {

namespace {

using Shape = shapes::Shape;

/// The runtime's largest rank (PLUMB_RT_MAX_RANK): coordinate tuples add a
/// dimension, so element-wise indexing takes data of rank below it.
constexpr int64_t kMaxRank = 8;

LogicalResult needFloat(Importer &im, NodeCtx &n, Value v) {
  if (!Importer::eltOf(v).isF32())
    return im.error(n) << "expects float tensors, got " << Importer::eltOf(v);
  return success();
}

FailureOr<Value> castTo(Importer &im, NodeCtx &n, Value v, Type elt) {
  if (Importer::eltOf(v) == elt)
    return v;
  return im.make<CastOp>(n, Importer::tensorType(Importer::shapeOf(v), elt), v);
}

/// A binary op whose result has the broadcast shape of its operands.
template <typename OpTy>
FailureOr<Value> binary(Importer &im, NodeCtx &n, Value a, Value b,
                        Type elt = {}) {
  auto s = shapes::broadcast({Importer::shapeOf(a), Importer::shapeOf(b)},
                             im.emitter(n));
  if (failed(s))
    return failure();
  return im.make<OpTy>(n, Importer::tensorType(*s, elt ? elt : Importer::eltOf(a)),
                       a, b);
}

/// A scalar constant of `elt` (f32 or an integer type), as a rank-0 tensor.
Value scalar(Importer &im, Type elt, double v) {
  auto t = Importer::tensorType({}, elt);
  if (elt.isF32())
    return im.constantOf(DenseElementsAttr::get(t, (float)v));
  return im.constantOf(
      DenseElementsAttr::get(t, APInt(elt.getIntOrFloatBitWidth(), (int64_t)v,
                                      /*isSigned=*/true)));
}

//===----------------------------------------------------------------------===//
// Element coordinates (GatherElements, ScatterElements)
//===----------------------------------------------------------------------===//

/// The full coordinates of every element of `idx` (shape S, rank r, int32
/// or int64) as int64 tuples of shape S + [r]: entry d of the tuple of the
/// element at (i_0, ..., i_{r-1}) is idx's value when d == axis and i_d
/// otherwise. Each non-axis entry is a small iota broadcast by plumb.expand
/// (left unfolded, so the model holds S[d] numbers, not numel(S)); the
/// pieces are concatenated on the new last dimension. Only moves bits.
FailureOr<Value> elementCoords(Importer &im, NodeCtx &n, Value idx,
                               int64_t axis) {
  Shape s(Importer::shapeOf(idx));
  int64_t r = s.size();
  Shape col(s);
  col.push_back(1);
  Type i64 = im.b.getI64Type();
  auto wide = castTo(im, n, idx, i64);
  if (failed(wide))
    return failure();
  auto own = reshapeOrSame(im, n, *wide, col);
  if (failed(own) || r == 1)
    return own;
  SmallVector<Value> pieces;
  for (int64_t d = 0; d < r; ++d) {
    if (d == axis) {
      pieces.push_back(*own);
      continue;
    }
    Shape ishape(r + 1, 1);
    ishape[d] = s[d];
    SmallVector<int64_t> iota(s[d]);
    for (int64_t k = 0; k < s[d]; ++k)
      iota[k] = k;
    Value c = im.constI64(ishape, iota);
    auto e = im.makeOp<ExpandOp>(n, Importer::tensorType(col, i64), c);
    if (failed(e))
      return failure();
    pieces.push_back(e->getResult());
  }
  Shape all(s);
  all.push_back(r);
  return im.make<ConcatOp>(n, Importer::tensorType(all, i64), pieces,
                           im.b.getI64IntegerAttr(r));
}

/// The checks GatherElements and ScatterElements share: equal ranks, the
/// axis, int32/int64 indices no larger than data off the axis, a rank that
/// leaves room for the coordinate dimension, and indices known at import in
/// range. Returns the normalised axis.
FailureOr<int64_t> checkElements(Importer &im, NodeCtx &n, Value data,
                                 Value idx) {
  auto axis = im.attrInt(n, "axis", 0);
  if (failed(axis))
    return failure();
  auto d = Importer::shapeOf(data), s = Importer::shapeOf(idx);
  if (d.size() != s.size() || d.empty())
    return im.error(n) << "data " << shapes::str(d) << " and indices "
                       << shapes::str(s) << " must have the same rank >= 1";
  if ((int64_t)d.size() >= kMaxRank)
    return im.error(n) << "rank " << d.size() << " is above the "
                       << kMaxRank - 1 << " supported";
  auto a = shapes::normalizeAxis(*axis, d.size(), im.emitter(n));
  if (failed(a))
    return failure();
  Type it = Importer::eltOf(idx);
  if (!it.isInteger(64) && !it.isInteger(32))
    return im.error(n) << "indices must be int32 or int64";
  for (size_t k = 0; k < d.size(); ++k)
    if ((int64_t)k != *a && s[k] > d[k])
      return im.error(n) << "indices " << shapes::str(s)
                         << " exceed data " << shapes::str(d)
                         << " in dimension " << k;
  if (auto c = im.constant(idx))
    for (int64_t v : c->i)
      if (v < -d[*a] || v >= d[*a])
        return im.error(n) << "index " << v << " is out of range for axis "
                           << *a << " of size " << d[*a];
  return *a;
}

/// GatherElements (opset 11/13): output[i] = data[i with i_axis replaced by
/// indices[i]], as plumb.gather_nd on the full coordinates of every element
/// (elementCoords). Negative indices count from the end; an index out of
/// range is a run-time error (gather_nd's).
LogicalResult gatherElements(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  auto a = checkElements(im, n, n.in(0), n.in(1));
  if (failed(a))
    return failure();
  auto coords = elementCoords(im, n, n.in(1), *a);
  if (failed(coords))
    return failure();
  auto t = withShape(n.in(0), Importer::shapeOf(n.in(1)));
  return setOut(n, im.make<GatherNDOp>(n, t, n.in(0), *coords,
                                       im.b.getI64IntegerAttr(0)));
}

//===----------------------------------------------------------------------===//
// Reductions composed from reduce_sum / reduce_max and elementwise ops
//===----------------------------------------------------------------------===//

/// The reduced axes of a ReduceX node (attribute before opset 18, the
/// optional constant input 1 from 18), sorted and unique; empty with
/// `noop` set when noop_with_empty_axes asks for no reduction.
struct ReduceAxes {
  SmallVector<int64_t> axes;
  bool keep = true, noop = false;
  Shape kept, out; // the result shape with keepdims, and the final one
};

FailureOr<ReduceAxes> reduceAxes(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, n.opset >= 18 ? 2 : 1)))
    return failure();
  auto in = Importer::shapeOf(n.in(0));
  ReduceAxes r;
  if (n.opset >= 18) {
    if (im.attr(n, "axes"))
      return im.error(n) << "has an 'axes' attribute, but at opset "
                         << n.opset << " axes are the node's input 1";
    if (n.in(1)) {
      auto c = im.constInts(n, 1, "axes");
      if (failed(c))
        return failure();
      r.axes = *c;
    }
  } else {
    auto c = im.attrInts(n, "axes", SmallVector<int64_t>{});
    if (failed(c))
      return failure();
    r.axes = *c;
  }
  auto keep = im.attrInt(n, "keepdims", 1);
  auto noop = n.opset >= 18 ? im.attrInt(n, "noop_with_empty_axes", 0)
                            : FailureOr<int64_t>(0);
  if (failed(keep) || failed(noop))
    return failure();
  r.keep = *keep != 0;
  if (r.axes.empty()) {
    if (*noop) {
      r.noop = true;
      r.kept = r.out = Shape(in);
      return r;
    }
    for (size_t i = 0; i < in.size(); ++i)
      r.axes.push_back(i);
  }
  for (auto &a : r.axes) {
    auto na = shapes::normalizeAxis(a, in.size(), im.emitter(n));
    if (failed(na))
      return failure();
    a = *na;
  }
  llvm::sort(r.axes);
  r.axes.erase(std::unique(r.axes.begin(), r.axes.end()), r.axes.end());
  auto kept = shapes::reduce(in, r.axes, true, im.emitter(n));
  auto out = shapes::reduce(in, r.axes, r.keep, im.emitter(n));
  if (failed(kept) || failed(out))
    return failure();
  r.kept = *kept;
  r.out = *out;
  return r;
}

/// `OpTy` (reduce_sum or reduce_max) of v over r.axes with keepdims; the
/// identity when the node reduces nothing.
template <typename OpTy>
FailureOr<Value> reduceKept(Importer &im, NodeCtx &n, const ReduceAxes &r,
                            Value v) {
  if (r.noop)
    return v;
  return im.make<OpTy>(n, withShape(v, r.kept), v,
                       im.b.getDenseI64ArrayAttr(r.axes),
                       im.b.getBoolAttr(true), TreeAttr());
}

template <typename OpTy>
FailureOr<Value> unaryOf(Importer &im, NodeCtx &n, FailureOr<Value> v) {
  if (failed(v))
    return failure();
  return im.make<OpTy>(n, v->getType(), *v);
}

enum class Composed { L1, L2, SumSquare, LogSum, LogSumExp };

/// log(sum(exp(x - s))) + s with s = max(x) where finite, else 0 (an
/// infinite or NaN maximum would turn x - s into NaN for the other terms).
FailureOr<Value> logSumExp(Importer &im, NodeCtx &n, const ReduceAxes &r,
                           Value x) {
  auto m = reduceKept<ReduceMaxOp>(im, n, r, x);
  if (failed(m))
    return failure();
  Type f32 = im.b.getF32Type(), i1 = im.b.getI1Type();
  auto mm = binary<SubOp>(im, n, *m, *m);
  if (failed(mm))
    return failure();
  auto finite = binary<EqualOp>(im, n, *mm, scalar(im, f32, 0.0), i1);
  if (failed(finite))
    return failure();
  auto s = im.make<WhereOp>(n, (*m).getType(), *finite, *m, scalar(im, f32, 0));
  if (failed(s))
    return failure();
  auto d = binary<SubOp>(im, n, x, *s);
  auto e = unaryOf<ExpOp>(im, n, d);
  if (failed(e))
    return failure();
  auto l = unaryOf<LogOp>(im, n, reduceKept<ReduceSumOp>(im, n, r, *e));
  if (failed(l))
    return failure();
  return binary<AddOp>(im, n, *l, *s);
}

template <Composed K>
LogicalResult composedReduce(Importer &im, NodeCtx &n) {
  auto r = reduceAxes(im, n);
  if (failed(r))
    return failure();
  Value x = n.in(0);
  Type elt = Importer::eltOf(x);
  bool intOk = K == Composed::L1 || K == Composed::SumSquare;
  if (!elt.isF32() && !(intOk && elt.isInteger(64)))
    return im.error(n) << "expects " << (intOk ? "float or int64" : "float")
                       << " tensors, got " << elt;
  FailureOr<Value> y;
  switch (K) {
  case Composed::L1: {
    auto a = unaryOf<AbsOp>(im, n, x);
    if (failed(a))
      return failure();
    y = reduceKept<ReduceSumOp>(im, n, *r, *a);
    break;
  }
  case Composed::SumSquare:
  case Composed::L2: {
    auto sq = binary<MulOp>(im, n, x, x);
    if (failed(sq))
      return failure();
    y = reduceKept<ReduceSumOp>(im, n, *r, *sq);
    if (K == Composed::L2)
      y = unaryOf<SqrtOp>(im, n, y);
    break;
  }
  case Composed::LogSum:
    y = unaryOf<LogOp>(im, n, reduceKept<ReduceSumOp>(im, n, *r, x));
    break;
  case Composed::LogSumExp:
    // Over no axes the result is x itself (each term is its own maximum).
    y = r->noop ? FailureOr<Value>(x) : logSumExp(im, n, *r, x);
    break;
  }
  if (failed(y))
    return failure();
  return setOut(n, reshapeOrSame(im, n, *y, r->out));
}

/// ArgMin as ArgMax of an order-reversing bijection: -x for floats (a sign
/// flip, exact: NaN stays the extreme that wins first, -0 and +0 still
/// tie), -1 - x (= ~x, no overflow) for int64 and int32.
LogicalResult argMin(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  Value x = n.in(0);
  Type elt = Importer::eltOf(x);
  auto in = Importer::shapeOf(x);
  auto axis = im.attrInt(n, "axis", 0);
  auto keep = im.attrInt(n, "keepdims", 1);
  auto last = im.attrInt(n, "select_last_index", 0);
  if (failed(axis) || failed(keep) || failed(last))
    return failure();
  if (!elt.isF32() && !elt.isInteger(64) && !elt.isInteger(32))
    return im.error(n) << "expects float, int64 or int32 tensors, got " << elt;
  auto a = shapes::normalizeAxis(*axis, in.size(), im.emitter(n));
  if (failed(a))
    return failure();
  auto s = shapes::reduce(in, {*a}, *keep != 0, im.emitter(n));
  if (failed(s))
    return failure();
  FailureOr<Value> flipped =
      elt.isF32() ? im.make<NegOp>(n, x.getType(), x)
                  : binary<SubOp>(im, n, scalar(im, elt, -1), x);
  if (failed(flipped))
    return failure();
  auto t = Importer::tensorType(*s, im.b.getI64Type());
  return setOut(n, im.make<ArgMaxOp>(n, t, *flipped,
                                     im.b.getI64IntegerAttr(*a),
                                     im.b.getBoolAttr(*keep != 0),
                                     im.b.getBoolAttr(*last != 0)));
}

//===----------------------------------------------------------------------===//
// Scatter
//===----------------------------------------------------------------------===//

/// The `reduction` attribute (opset 16: none/add/mul; 18: max/min too).
FailureOr<std::string> scatterReduction(Importer &im, NodeCtx &n,
                                        Value data) {
  auto r = im.attrString(n, "reduction", std::string("none"));
  if (failed(r))
    return failure();
  bool known = *r == "none" || *r == "add" || *r == "mul" || *r == "max" ||
               *r == "min";
  if (!known)
    return im.error(n) << "reduction '" << *r
                       << "' is not valid (none, add, mul, max or min)";
  int64_t since = *r == "none" ? 0 : (*r == "add" || *r == "mul") ? 16 : 18;
  if (n.opset < since)
    return im.error(n) << "reduction '" << *r << "' needs opset " << since
                       << " or later (the model uses opset " << n.opset << ")";
  if (*r != "none" && Importer::eltOf(data).isInteger(1))
    return im.error(n) << "reduction '" << *r << "' of bool data";
  return r;
}

LogicalResult sameElt(Importer &im, NodeCtx &n, Value data, Value updates) {
  if (Importer::eltOf(data) != Importer::eltOf(updates))
    return im.error(n) << "data and updates element types differ: "
                       << Importer::eltOf(data) << " and "
                       << Importer::eltOf(updates);
  return success();
}

/// ScatterND (opset 11; reduction 16/18): plumb.scatter_nd. Tuples known at
/// import are range-checked here, naming the dimension.
LogicalResult scatterND(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 3)))
    return failure();
  Value data = n.in(0), idx = n.in(1), upd = n.in(2);
  auto red = scatterReduction(im, n, data);
  if (failed(red) || failed(sameElt(im, n, data, upd)))
    return failure();
  Type it = Importer::eltOf(idx);
  if (!it.isInteger(64) && !it.isInteger(32))
    return im.error(n) << "indices must be int64 or int32";
  auto d = Importer::shapeOf(data), s = Importer::shapeOf(idx);
  if (s.empty() || s.back() < 1 || s.back() > (int64_t)d.size())
    return im.error(n) << "indices " << shapes::str(s)
                       << " do not hold index tuples into data "
                       << shapes::str(d);
  if (auto c = im.constant(idx)) {
    int64_t k = s.back();
    for (size_t e = 0; e < c->i.size(); ++e) {
      int64_t dim = d[e % k], v = c->i[e];
      if (v < -dim || v >= dim)
        return im.error(n) << "index " << v << " is out of range for "
                           << "dimension " << e % k << " of size " << dim;
    }
  }
  return setOut(n, im.make<ScatterNDOp>(n, data.getType(), data, idx, upd,
                                        im.b.getStringAttr(*red)));
}

/// ScatterElements (opset 11; reduction 16/18) and Scatter (opset 9-10):
/// plumb.scatter_nd on the full coordinates of every index element
/// (elementCoords), so the updates apply in row-major order of indices.
LogicalResult scatterElements(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 3)))
    return failure();
  Value data = n.in(0), idx = n.in(1), upd = n.in(2);
  auto red = scatterReduction(im, n, data);
  if (failed(red) || failed(sameElt(im, n, data, upd)))
    return failure();
  if (Importer::shapeOf(idx) != Importer::shapeOf(upd))
    return im.error(n) << "indices " << shapes::str(Importer::shapeOf(idx))
                       << " and updates " << shapes::str(Importer::shapeOf(upd))
                       << " must have the same shape";
  auto a = checkElements(im, n, data, idx);
  if (failed(a))
    return failure();
  auto coords = elementCoords(im, n, idx, *a);
  if (failed(coords))
    return failure();
  return setOut(n, im.make<ScatterNDOp>(n, data.getType(), data, *coords, upd,
                                        im.b.getStringAttr(*red)));
}

//===----------------------------------------------------------------------===//
// Masks and constants: Trilu, EyeLike, OneHot
//===----------------------------------------------------------------------===//

/// The single integer of constant input `i` (a scalar or one element).
FailureOr<int64_t> constScalar(Importer &im, NodeCtx &n, int64_t i,
                               StringRef what) {
  auto v = im.constInts(n, i, what);
  if (failed(v))
    return failure();
  if (v->size() != 1)
    return im.error(n) << what << " must hold one value, got " << v->size();
  return (*v)[0];
}

/// Trilu (opset 14): plumb.where(mask, x, 0) with a constant [N, M] mask of
/// the kept elements (upper: j - i >= k, lower: j - i <= k), broadcast over
/// the leading dimensions. Only moves bits.
LogicalResult trilu(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 2)))
    return failure();
  auto upper = im.attrInt(n, "upper", 1);
  if (failed(upper))
    return failure();
  int64_t k = 0;
  if (n.in(1)) {
    auto c = constScalar(im, n, 1, "k");
    if (failed(c))
      return failure();
    k = *c;
  }
  Value x = n.in(0);
  auto s = Importer::shapeOf(x);
  if (s.size() < 2)
    return im.error(n) << "expects a tensor of rank >= 2, got "
                       << shapes::str(s);
  int64_t rows = s[s.size() - 2], cols = s.back();
  Literal mask = Literal::make(Importer::tensorType({rows, cols},
                                                    im.b.getI1Type()));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      mask.i[i * cols + j] = *upper ? (j - i >= k) : (j - i <= k);
  Value m = im.constantOf(mask.toAttr());
  Type elt = Importer::eltOf(x);
  return setOut(n, im.make<WhereOp>(n, x.getType(), m, x, scalar(im, elt, 0)));
}

/// The element type an ONNX `dtype` attribute names (`dflt` when absent).
FailureOr<Type> dtypeAttr(Importer &im, NodeCtx &n, Type dflt) {
  const onnx::AttributeProto *a = im.attr(n, "dtype");
  if (!a)
    return dflt;
  auto v = im.attrInt(n, "dtype", std::nullopt);
  if (failed(v))
    return failure();
  DType dt;
  // FLOAT16 / BFLOAT16: float32 values (the importer records the storage
  // type from the attribute, docs/determinism.md "Half precision").
  if (isHalfFloatType((int32_t)*v))
    dt = DType::F32;
  else if (!dtypeFromOnnx((int32_t)*v, dt))
    return im.error(n) << "dtype " << onnxTypeName((int32_t)*v)
                       << " is not supported (float, int64, int32, bool)";
  return im.mlirType(dt);
}

/// EyeLike (opset 9): a constant of the input's 2-D shape, ones on diagonal
/// k (column - row == k), zeros elsewhere.
LogicalResult eyeLike(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto k = im.attrInt(n, "k", 0);
  auto elt = dtypeAttr(im, n, Importer::eltOf(n.in(0)));
  if (failed(k) || failed(elt))
    return failure();
  auto s = Importer::shapeOf(n.in(0));
  if (s.size() != 2)
    return im.error(n) << "expects a 2-D input, got " << shapes::str(s);
  Literal r = Literal::make(Importer::tensorType(s, *elt));
  for (int64_t i = 0; i < s[0]; ++i)
    for (int64_t j = 0; j < s[1]; ++j) {
      bool one = j - i == *k;
      if (r.isFloat)
        r.f[i * s[1] + j] = one ? 1.0f : 0.0f;
      else
        r.i[i * s[1] + j] = one;
    }
  n.outputs.push_back(im.constantOf(r.toAttr()));
  return success();
}

/// OneHot (opset 9/11): out = where(idx == c || idx == c - depth, on, off)
/// for class c along the new axis (idx cast to int64; an index outside
/// [-depth, depth) gives a row of `off`, as onnxruntime). `depth` must be
/// known at import; `values` ([off, on]) may be run-time data.
LogicalResult oneHot(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 3)))
    return failure();
  // depth may be of any numeric type (a float is truncated, as onnxruntime
  // converts it).
  auto dl = im.constant(n.in(1));
  if (!dl || dl->size() != 1)
    return im.error(n) << "depth must be a single value known at import";
  if (dl->isFloat && !(dl->f[0] >= 1.0f && dl->f[0] < 2147483648.0f))
    return im.error(n) << "depth must be positive, got " << dl->f[0];
  FailureOr<int64_t> depth = dl->isFloat ? (int64_t)dl->f[0] : dl->i[0];
  auto axis = im.attrInt(n, "axis", -1);
  if (failed(axis))
    return failure();
  if (*depth < 1)
    return im.error(n) << "depth must be positive, got " << *depth;
  Value idx = n.in(0), vals = n.in(2);
  if (Importer::shapeOf(vals) != ArrayRef<int64_t>{2})
    return im.error(n) << "values must have shape [2], got "
                       << shapes::str(Importer::shapeOf(vals));
  Shape s(Importer::shapeOf(idx));
  auto a = shapes::normalizeAxis(*axis, s.size() + 1, im.emitter(n));
  if (failed(a))
    return failure();
  Type i64 = im.b.getI64Type(), i1 = im.b.getI1Type();
  Shape e(s), out(s), cls(s.size() + 1, 1);
  e.insert(e.begin() + *a, 1);
  out.insert(out.begin() + *a, *depth);
  cls[*a] = *depth;
  auto wide = castTo(im, n, idx, i64);
  if (failed(wide))
    return failure();
  auto col = reshapeOrSame(im, n, *wide, e);
  if (failed(col))
    return failure();
  SmallVector<int64_t> pos(*depth), neg(*depth);
  for (int64_t c = 0; c < *depth; ++c)
    pos[c] = c, neg[c] = c - *depth;
  auto eqPos = binary<EqualOp>(im, n, *col, im.constI64(cls, pos), i1);
  auto eqNeg = binary<EqualOp>(im, n, *col, im.constI64(cls, neg), i1);
  if (failed(eqPos) || failed(eqNeg))
    return failure();
  auto hit = binary<OrOp>(im, n, *eqPos, *eqNeg);
  if (failed(hit))
    return failure();
  auto one = withShape(vals, {1});
  auto off = im.make<SliceOp>(n, one, vals, im.b.getDenseI64ArrayAttr({0}),
                              im.b.getDenseI64ArrayAttr({1}));
  auto on = im.make<SliceOp>(n, one, vals, im.b.getDenseI64ArrayAttr({1}),
                             im.b.getDenseI64ArrayAttr({1}));
  if (failed(off) || failed(on))
    return failure();
  return setOut(n, im.make<WhereOp>(n, withShape(vals, out), *hit, *on, *off));
}

//===----------------------------------------------------------------------===//
// DepthToSpace / SpaceToDepth: reshape, transpose, reshape (moves bits)
//===----------------------------------------------------------------------===//

FailureOr<Value> reshapeTransposeReshape(Importer &im, NodeCtx &n, Value x,
                                         ArrayRef<int64_t> mid,
                                         ArrayRef<int64_t> perm,
                                         ArrayRef<int64_t> out) {
  auto a = reshapeOrSame(im, n, x, mid);
  if (failed(a))
    return failure();
  auto ts = shapes::transpose(mid, perm, im.emitter(n));
  if (failed(ts))
    return failure();
  auto t = im.make<TransposeOp>(n, withShape(x, *ts), *a,
                                im.b.getDenseI64ArrayAttr(perm));
  if (failed(t))
    return failure();
  return reshapeOrSame(im, n, *t, out);
}

template <bool ToSpace>
LogicalResult depthSpace(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto bs = im.attrInt(n, "blocksize", std::nullopt);
  auto mode = im.attrString(n, "mode", std::string("DCR"));
  if (failed(bs) || failed(mode))
    return failure();
  Value x = n.in(0);
  auto s = Importer::shapeOf(x);
  if (s.size() != 4)
    return im.error(n) << "expects a 4-D input, got " << shapes::str(s);
  int64_t b = *bs, N = s[0], C = s[1], H = s[2], W = s[3];
  if (b < 1)
    return im.error(n) << "blocksize must be positive, got " << b;
  if (ToSpace) {
    if (*mode != "DCR" && *mode != "CRD")
      return im.error(n) << "mode '" << *mode << "' is not DCR or CRD";
    if (C % (b * b) != 0)
      return im.error(n) << "channels " << C << " are not a multiple of "
                         << "blocksize^2 = " << b * b;
    int64_t c = C / (b * b);
    Shape out = {N, c, H * b, W * b};
    if (*mode == "DCR")
      return setOut(n, reshapeTransposeReshape(im, n, x, {N, b, b, c, H, W},
                                               {0, 3, 4, 1, 5, 2}, out));
    return setOut(n, reshapeTransposeReshape(im, n, x, {N, c, b, b, H, W},
                                             {0, 1, 4, 2, 5, 3}, out));
  }
  if (H % b != 0 || W % b != 0)
    return im.error(n) << "spatial size " << H << "x" << W
                       << " is not a multiple of blocksize " << b;
  return setOut(n, reshapeTransposeReshape(
                       im, n, x, {N, C, H / b, b, W / b, b}, {0, 3, 5, 1, 2, 4},
                       {N, C * b * b, H / b, W / b}));
}

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

/// Float CumSum over an axis longer than this is refused: it is composed as
/// a chain of one add per element of the axis.
constexpr int64_t kMaxFloatCumSum = 1024;

/// The slice [start, start + len) of v along `axis` (step -1 from start
/// when `reverse`, len = the whole axis then).
FailureOr<Value> sliceAxis(Importer &im, NodeCtx &n, Value v, int64_t axis,
                           int64_t start, int64_t len, int64_t step = 1) {
  Shape s(Importer::shapeOf(v));
  SmallVector<int64_t> starts(s.size(), 0), steps(s.size(), 1);
  starts[axis] = start;
  steps[axis] = step;
  s[axis] = len;
  return im.make<SliceOp>(n, withShape(v, s), v,
                          im.b.getDenseI64ArrayAttr(starts),
                          im.b.getDenseI64ArrayAttr(steps));
}

/// v shifted by `d` along `axis`: d zeros in front, the last d elements
/// dropped (pad then slice; bits moved).
FailureOr<Value> shiftAxis(Importer &im, NodeCtx &n, Value v, int64_t axis,
                           int64_t d) {
  Shape s(Importer::shapeOf(v)), padded(s);
  SmallVector<int64_t> pads(2 * s.size(), 0);
  pads[axis] = d;
  padded[axis] += d;
  Type elt = Importer::eltOf(v);
  TypedAttr zero = elt.isF32() ? TypedAttr(im.b.getF32FloatAttr(0.0f))
                               : TypedAttr(im.b.getIntegerAttr(elt, 0));
  auto p = im.make<PadOp>(n, withShape(v, padded), v,
                          im.b.getDenseI64ArrayAttr(pads),
                          im.b.getStringAttr("constant"), zero);
  if (failed(p))
    return failure();
  return sliceAxis(im, n, *p, axis, 0, s[axis]);
}

/// Integer CumSum: wrapping adds are exact and order-free, so the running
/// sums are formed in ceil(log2 L) steps y += shift(y, 2^k) (Hillis-Steele).
FailureOr<Value> cumSumInt(Importer &im, NodeCtx &n, Value x, int64_t axis,
                           bool exclusive) {
  int64_t len = Importer::shapeOf(x)[axis];
  Value y = x;
  for (int64_t d = 1; d < len; d *= 2) {
    auto sh = shiftAxis(im, n, y, axis, d);
    if (failed(sh))
      return failure();
    auto sum = im.make<AddOp>(n, y.getType(), y, *sh);
    if (failed(sum))
      return failure();
    y = *sum;
  }
  if (exclusive && len > 0)
    return shiftAxis(im, n, y, axis, 1);
  return y;
}

/// Float CumSum: the sequential chain r_i = r_{i-1} + x_i from r_0 = x_0
/// (exclusive: from r_0 = +0, r_i = r_{i-1} + x_{i-1}), as onnxruntime
/// computes it; the running sums are concatenated along the axis.
FailureOr<Value> cumSumFloat(Importer &im, NodeCtx &n, Value x, int64_t axis,
                             bool exclusive) {
  int64_t len = Importer::shapeOf(x)[axis];
  if (len > kMaxFloatCumSum)
    return im.error(n) << "CumSum of float over an axis of length " << len
                       << " is not supported (at most " << kMaxFloatCumSum
                       << ": it becomes one add per element)";
  if (len == 0 || (len == 1 && !exclusive))
    return x;
  SmallVector<Value> outs;
  Value run;
  if (exclusive) {
    auto z = shiftAxis(im, n, x, axis, 1);
    if (failed(z))
      return failure();
    auto first = sliceAxis(im, n, *z, axis, 0, 1);
    if (failed(first))
      return failure();
    run = *first;
    outs.push_back(run);
  }
  for (int64_t i = 0; i < len - (exclusive ? 1 : 0); ++i) {
    auto xi = sliceAxis(im, n, x, axis, i, 1);
    if (failed(xi))
      return failure();
    if (!run) {
      run = *xi;
    } else {
      auto sum = im.make<AddOp>(n, run.getType(), run, *xi);
      if (failed(sum))
        return failure();
      run = *sum;
    }
    outs.push_back(run);
  }
  if (outs.size() == 1)
    return outs[0];
  return im.make<ConcatOp>(n, x.getType(), outs, im.b.getI64IntegerAttr(axis));
}

/// CumSum (opset 11/14): `axis` known at import; `reverse` walks the axis
/// backwards (a step -1 slice before and after).
LogicalResult cumSum(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  auto axis = constScalar(im, n, 1, "axis");
  auto excl = im.attrInt(n, "exclusive", 0);
  auto rev = im.attrInt(n, "reverse", 0);
  if (failed(axis) || failed(excl) || failed(rev))
    return failure();
  Value x = n.in(0);
  Type elt = Importer::eltOf(x);
  if (!elt.isF32() && !elt.isInteger(64) && !elt.isInteger(32))
    return im.error(n) << "expects float, int64 or int32 tensors, got " << elt;
  auto s = Importer::shapeOf(x);
  auto a = shapes::normalizeAxis(*axis, s.size(), im.emitter(n));
  if (failed(a))
    return failure();
  int64_t len = s[*a];
  if (*rev && len > 1) {
    auto r = sliceAxis(im, n, x, *a, len - 1, len, -1);
    if (failed(r))
      return failure();
    x = *r;
  }
  auto y = elt.isF32() ? cumSumFloat(im, n, x, *a, *excl != 0)
                       : cumSumInt(im, n, x, *a, *excl != 0);
  if (failed(y))
    return failure();
  if (*rev && len > 1)
    return setOut(n, sliceAxis(im, n, *y, *a, len - 1, len, -1));
  return setOut(n, y);
}

/// MaxUnpool (opsets 9, 11): a zero tensor of the output shape (an expanded
/// +0 scalar, left unfolded) with X's values written at I's flat indices
/// (MaxPool's Indices: row-major over the whole output, batch and channel
/// included) by plumb.scatter_nd on the flattened output, one index after
/// another in I's row-major order (a repeated index keeps the last value,
/// as onnxruntime), then reshaped. The output shape is
/// (in - 1) * stride + kernel - pad_begin - pad_end per spatial dimension,
/// or output_shape (input 2, known at import). An index out of range is
/// scatter_nd's run-time error. Only moves bits.
LogicalResult maxUnpool(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 3)))
    return failure();
  Value x = n.in(0), idx = n.in(1);
  if (!Importer::eltOf(x).isF32())
    return im.error(n) << "X must be a float tensor";
  if (!Importer::eltOf(idx).isInteger(64) ||
      Importer::shapeOf(idx) != Importer::shapeOf(x))
    return im.error(n) << "I must be an int64 tensor of X's shape "
                       << shapes::str(Importer::shapeOf(x));
  Shape s(Importer::shapeOf(x));
  if (s.size() < 3)
    return im.error(n) << "X must have rank >= 3, got " << shapes::str(s);
  const size_t sp = s.size() - 2;
  auto k = im.attrInts(n, "kernel_shape", std::nullopt);
  auto st = im.attrInts(n, "strides", SmallVector<int64_t>(sp, 1));
  auto pd = im.attrInts(n, "pads", SmallVector<int64_t>(2 * sp, 0));
  if (failed(k) || failed(st) || failed(pd))
    return failure();
  if (k->size() != sp || st->size() != sp || pd->size() != 2 * sp)
    return im.error(n) << "kernel_shape and strides need " << sp
                       << " values and pads " << 2 * sp;
  Shape out(s);
  for (size_t i = 0; i < sp; ++i) {
    if ((*k)[i] < 1 || (*st)[i] < 1 || (*pd)[i] < 0 || (*pd)[sp + i] < 0)
      return im.error(n) << "kernel_shape and strides must be >= 1, pads >= 0";
    out[2 + i] = (s[2 + i] - 1) * (*st)[i] + (*k)[i] - (*pd)[i] - (*pd)[sp + i];
    if (out[2 + i] < 1)
      return im.error(n) << "output dimension " << 2 + i << " would be "
                         << out[2 + i];
  }
  if (n.in(2)) {
    auto os = im.constInts(n, 2, "output_shape");
    if (failed(os))
      return failure();
    if (os->size() != s.size())
      return im.error(n) << "output_shape has " << os->size()
                         << " values for rank " << s.size();
    for (int64_t v : *os)
      if (v < 1)
        return im.error(n) << "output_shape values must be >= 1, got " << v;
    out.assign(os->begin(), os->end());
  }
  auto total = shapes::numElements(out, im.emitter(n));
  if (failed(total))
    return failure();
  int64_t count = 1;
  for (int64_t v : s)
    count *= v;
  Type f32 = im.b.getF32Type();
  auto zeros = im.makeOp<ExpandOp>(n, Importer::tensorType({*total}, f32),
                                   scalar(im, f32, 0.0));
  if (failed(zeros))
    return failure();
  auto flatIdx = reshapeOrSame(im, n, idx, Shape{count, 1});
  auto flatX = reshapeOrSame(im, n, x, Shape{count});
  if (failed(flatIdx) || failed(flatX))
    return failure();
  auto y = im.make<ScatterNDOp>(n, Importer::tensorType({*total}, f32),
                                zeros->getResult(), *flatIdx, *flatX,
                                im.b.getStringAttr("none"));
  if (failed(y))
    return failure();
  return setOut(n, reshapeOrSame(im, n, *y, out));
}

/// ReverseSequence (opset 10): along time_axis, the first sequence_lens[b]
/// elements of batch entry b are reversed, the others kept. As plumb.gather_nd
/// on the coordinates of the first two dimensions: for time index t and
/// length l, source time l - 1 - t where t < l, else t (one where of two
/// int64 differences; the batch coordinate is an expanded iota). A constant
/// sequence_lens folds to constant coordinates and is range-checked here;
/// a run-time length above the time length is gather_nd's range error.
/// Only moves bits.
LogicalResult reverseSequence(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 2)))
    return failure();
  Value x = n.in(0), lens = n.in(1);
  auto ta = im.attrInt(n, "time_axis", 0);
  auto ba = im.attrInt(n, "batch_axis", 1);
  if (failed(ta) || failed(ba))
    return failure();
  if (!((*ta == 0 && *ba == 1) || (*ta == 1 && *ba == 0)))
    return im.error(n) << "time_axis and batch_axis must be 0 and 1 (in "
                          "either order), got "
                       << *ta << " and " << *ba;
  Shape d(Importer::shapeOf(x));
  if (d.size() < 2)
    return im.error(n) << "input must have rank >= 2, got " << shapes::str(d);
  const int64_t T = d[*ta], B = d[*ba];
  Type lt = Importer::eltOf(lens);
  if (!lt.isInteger(64) || Importer::shapeOf(lens) != ArrayRef<int64_t>{B})
    return im.error(n) << "sequence_lens must be an int64 tensor of shape ["
                       << B << "] (the batch size)";
  if (auto c = im.constant(lens))
    for (int64_t v : c->i)
      if (v < 0 || v > T)
        return im.error(n) << "sequence_lens value " << v
                           << " is outside [0, " << T << "]";
  Type i64 = im.b.getI64Type(), i1 = im.b.getI1Type();
  const bool timeFirst = *ta == 0;
  Shape two{d[0], d[1]}, col{d[0], d[1], 1};
  auto iota = [&](int64_t len, bool first) {
    SmallVector<int64_t> v(len);
    for (int64_t k = 0; k < len; ++k)
      v[k] = k;
    return im.constI64(first ? Shape{len, 1} : Shape{1, len}, v);
  };
  Value t = iota(T, timeFirst), b = iota(B, !timeFirst);
  auto l = reshapeOrSame(im, n, lens, timeFirst ? Shape{1, B} : Shape{B, 1});
  if (failed(l))
    return failure();
  auto lm1 = binary<SubOp>(im, n, *l, scalar(im, i64, 1));
  if (failed(lm1))
    return failure();
  auto rev = binary<SubOp>(im, n, *lm1, t);
  auto inside = binary<LessOp>(im, n, t, *l, i1);
  auto tFull = im.makeOp<ExpandOp>(n, Importer::tensorType(two, i64), t);
  auto bFull = im.makeOp<ExpandOp>(n, Importer::tensorType(two, i64), b);
  if (failed(rev) || failed(inside) || failed(tFull) || failed(bFull))
    return failure();
  auto src = im.make<WhereOp>(n, Importer::tensorType(two, i64), *inside, *rev,
                              tFull->getResult());
  if (failed(src))
    return failure();
  auto s3 = reshapeOrSame(im, n, *src, col);
  auto b3 = reshapeOrSame(im, n, bFull->getResult(), col);
  if (failed(s3) || failed(b3))
    return failure();
  SmallVector<Value> parts = timeFirst ? SmallVector<Value>{*s3, *b3}
                                       : SmallVector<Value>{*b3, *s3};
  auto coords = im.make<ConcatOp>(
      n, Importer::tensorType({d[0], d[1], 2}, i64), parts,
      im.b.getI64IntegerAttr(2));
  if (failed(coords))
    return failure();
  return setOut(n, im.make<GatherNDOp>(n, x.getType(), x, *coords,
                                       im.b.getI64IntegerAttr(0)));
}

} // namespace

/// TopK: k from the attribute (opset 1) or the K input (opset 10, known
/// after folding); always sorted (sorted = 0 leaves ONNX's order
/// unspecified, so the sorted order is one valid answer).
LogicalResult topK(Importer &im, NodeCtx &n) {
  bool kInput = n.opset >= 10;
  if (failed(need(im, n, kInput ? 2 : 1, kInput ? 2 : 1)))
    return failure();
  Value x = n.in(0);
  auto in = Importer::shapeOf(x);
  if (in.empty())
    return im.error(n) << "expects a tensor of rank >= 1, got a scalar";
  auto axis = im.attrInt(n, "axis", -1);
  auto largest = im.attrInt(n, "largest", 1);
  auto sorted = im.attrInt(n, "sorted", 1);
  if (failed(axis) || failed(largest) || failed(sorted))
    return failure();
  auto a = shapes::normalizeAxis(*axis, in.size(), im.emitter(n));
  if (failed(a))
    return failure();
  int64_t k;
  if (kInput) {
    auto ks = im.constInts(n, 1, "K");
    if (failed(ks))
      return failure();
    if (ks->size() != 1)
      return im.error(n) << "K must hold one value, got " << ks->size();
    k = (*ks)[0];
  } else {
    auto ka = im.attrInt(n, "k", std::nullopt);
    if (failed(ka))
      return failure();
    k = *ka;
  }
  if (k < 0 || k > in[*a])
    return im.error(n) << "k = " << k << " is outside [0, " << in[*a]
                       << "], the length of axis " << *a;
  Shape out(in.begin(), in.end());
  out[*a] = k;
  auto op = im.makeOp<TopKOp>(
      n, Importer::tensorType(out, Importer::eltOf(x)),
      Importer::tensorType(out, im.b.getI64Type()), x,
      im.b.getI64IntegerAttr(*a), im.b.getI64IntegerAttr(k),
      im.b.getBoolAttr(*largest != 0));
  if (failed(op))
    return failure();
  for (Value v : op->getResults())
    n.outputs.push_back(v);
  return success();
}

/// NonZero: the output size depends on the data, so only a constant input
/// (known after folding) is accepted; it folds to the int64 [rank, count]
/// indices of its nonzero elements in row-major order.
LogicalResult nonZero(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 1, 1)))
    return failure();
  auto lit = im.constant(n.in(0));
  if (!lit)
    return im.error(n) << "the output size of NonZero depends on the input's "
                          "values, which are not known at import (Plumb "
                          "compiles static shapes; bind the inputs that "
                          "compute it with --input-value)";
  auto shape = lit->shape();
  const int64_t rank = (int64_t)shape.size(), total = lit->size();
  std::vector<int64_t> hits;
  for (int64_t k = 0; k < total; ++k)
    if (lit->isFloat ? lit->f[(size_t)k] != 0.0f : lit->i[(size_t)k] != 0)
      hits.push_back(k);
  const int64_t r = std::max<int64_t>(rank, 1), count = (int64_t)hits.size();
  std::vector<int64_t> out((size_t)(r * count));
  for (int64_t j = 0; j < count; ++j) {
    int64_t rem = hits[(size_t)j];
    for (int64_t d = rank - 1; d >= 0; --d) {
      out[(size_t)(d * count + j)] = rem % shape[d];
      rem /= shape[d];
    }
    if (rank == 0)
      out[(size_t)j] = 0;
  }
  return setOut(n, im.constI64({r, count}, out));
}

void registerIndexHandlers(OpTable &t) {
  t.add("TopK", topK, kNum);
  t.add("NonZero", nonZero, kAll, 9);

  t.add("GatherElements", gatherElements, kAll, 11);
  t.add("ReduceL1", composedReduce<Composed::L1>, kF32 | kI64);
  t.add("ReduceL2", composedReduce<Composed::L2>, kF32);
  t.add("ReduceSumSquare", composedReduce<Composed::SumSquare>, kF32 | kI64);
  t.add("ReduceLogSum", composedReduce<Composed::LogSum>, kF32);
  t.add("ReduceLogSumExp", composedReduce<Composed::LogSumExp>, kF32);
  t.add("ArgMin", argMin, kF32 | kInt);
  t.add("ScatterND", scatterND, kAll, 11);
  t.add("ScatterElements", scatterElements, kAll, 11);
  t.add("Scatter", scatterElements, kAll, 9);
  t.add("Trilu", trilu, kAll, 14);
  t.add("CumSum", cumSum, kNum, 11);
  t.add("EyeLike", eyeLike, kAll, 9);
  t.add("OneHot", oneHot, kAll, 9);
  t.add("DepthToSpace", depthSpace<true>, kAll);
  t.add("SpaceToDepth", depthSpace<false>, kAll);
  t.add("ReverseSequence", reverseSequence, kAll, 10);
  t.add("MaxUnpool", maxUnpool, kF32, 9);
}

} // namespace importer
} // namespace plumb
