//===- PlumbOps.cpp - Verifiers of the plumb ops --------------------------===//
//
// Part of Plumb. Every verifier recomputes the result shape with the shared
// shape functions (PlumbShapes.h) and reports the exact difference.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbOps.h"
#include "dialects/Plumb/IR/PlumbShapes.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/signal.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace plumb;

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}
static Type eltOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// Compares an inferred shape with the declared result type.
static LogicalResult expectShape(Operation *op, Value result,
                                 FailureOr<shapes::Shape> inferred) {
  if (failed(inferred))
    return failure();
  if (shapeOf(result) != ArrayRef<int64_t>(*inferred))
    return op->emitOpError() << "result shape " << shapes::str(shapeOf(result))
                             << " differs from the inferred shape "
                             << shapes::str(*inferred);
  return success();
}

static LogicalResult expectSameElt(Operation *op, Value a, Value b,
                                   StringRef what) {
  if (eltOf(a) != eltOf(b))
    return op->emitOpError() << what << " element types differ: " << eltOf(a)
                             << " vs " << eltOf(b);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError() << "approximate must be \"none\" or \"tanh\", got \""
                         << getApproximate() << "\"";
  return success();
}

/// Shared verifier of the broadcasting binary ops.
static LogicalResult verifyBroadcastBinary(Operation *op) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value out = op->getResult(0);
  if (failed(expectSameElt(op, lhs, rhs, "operand")))
    return failure();
  if (!eltOf(out).isInteger(1) && eltOf(out) != eltOf(lhs))
    return op->emitOpError() << "result element type " << eltOf(out)
                             << " differs from operand element type "
                             << eltOf(lhs);
  return expectShape(op, out,
                     shapes::broadcast({shapeOf(lhs), shapeOf(rhs)},
                                       [&] { return op->emitOpError(); }));
}

#define PLUMB_BROADCAST_VERIFIER(OP)                                           \
  LogicalResult OP::verify() { return verifyBroadcastBinary(*this); }
PLUMB_BROADCAST_VERIFIER(AddOp)
PLUMB_BROADCAST_VERIFIER(SubOp)
PLUMB_BROADCAST_VERIFIER(MulOp)
PLUMB_BROADCAST_VERIFIER(DivOp)
PLUMB_BROADCAST_VERIFIER(PowOp)
PLUMB_BROADCAST_VERIFIER(EqualOp)
PLUMB_BROADCAST_VERIFIER(LessOp)
PLUMB_BROADCAST_VERIFIER(LessOrEqualOp)
PLUMB_BROADCAST_VERIFIER(GreaterOp)
PLUMB_BROADCAST_VERIFIER(GreaterOrEqualOp)
PLUMB_BROADCAST_VERIFIER(AndOp)
PLUMB_BROADCAST_VERIFIER(OrOp)
#undef PLUMB_BROADCAST_VERIFIER

static LogicalResult verifyVariadic(Operation *op) {
  if (op->getNumOperands() == 0)
    return op->emitOpError() << "needs at least one operand";
  SmallVector<ArrayRef<int64_t>> ins;
  for (Value v : op->getOperands()) {
    if (failed(expectSameElt(op, v, op->getResult(0), "operand and result")))
      return failure();
    ins.push_back(shapeOf(v));
  }
  return expectShape(op, op->getResult(0),
                     shapes::broadcast(ins, [&] { return op->emitOpError(); }));
}
LogicalResult SumOp::verify() { return verifyVariadic(*this); }
LogicalResult MaxOp::verify() { return verifyVariadic(*this); }
LogicalResult MinOp::verify() { return verifyVariadic(*this); }

LogicalResult WhereOp::verify() {
  if (failed(expectSameElt(*this, getX(), getY(), "x and y")) ||
      failed(expectSameElt(*this, getX(), getOutput(), "x and result")))
    return failure();
  return expectShape(*this, getOutput(),
                     shapes::broadcast({shapeOf(getCond()), shapeOf(getX()),
                                        shapeOf(getY())},
                                       [&] { return emitOpError(); }));
}

LogicalResult CastOp::verify() {
  if (shapeOf(getInput()) != shapeOf(getOutput()))
    return emitOpError() << "cast changes the shape from "
                         << shapes::str(shapeOf(getInput())) << " to "
                         << shapes::str(shapeOf(getOutput()));
  return success();
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::verify() {
  return expectShape(*this, getOutput(),
                     shapes::matmul(shapeOf(getLhs()), shapeOf(getRhs()),
                                    [&] { return emitOpError(); }));
}

LogicalResult MatMulIntegerOp::verify() {
  return expectShape(*this, getOutput(),
                     shapes::matmul(shapeOf(getLhs()), shapeOf(getRhs()),
                                    [&] { return emitOpError(); }));
}

LogicalResult GemmOp::verify() {
  std::optional<ArrayRef<int64_t>> c;
  if (getC())
    c = shapeOf(getC());
  return expectShape(*this, getOutput(),
                     shapes::gemm(shapeOf(getA()), shapeOf(getB()), c,
                                  getTransA(), getTransB(),
                                  [&] { return emitOpError(); }));
}

LogicalResult ConvOp::verify() {
  std::optional<ArrayRef<int64_t>> bias;
  if (getBias())
    bias = shapeOf(getBias());
  return expectShape(*this, getOutput(),
                     shapes::conv(shapeOf(getInput()), shapeOf(getWeight()),
                                  bias, getStrides(), getPads(),
                                  getDilations(), getGroup(),
                                  [&] { return emitOpError(); }));
}

LogicalResult ConvTransposeOp::verify() {
  std::optional<ArrayRef<int64_t>> bias;
  if (getBias())
    bias = shapeOf(getBias());
  return expectShape(
      *this, getOutput(),
      shapes::convTranspose(shapeOf(getInput()), shapeOf(getWeight()), bias,
                            getStrides(), getPads(), getDilations(),
                            getOutputPadding(), getGroup(),
                            [&] { return emitOpError(); }));
}

//===----------------------------------------------------------------------===//
// Pooling and normalisation
//===----------------------------------------------------------------------===//

LogicalResult MaxPoolOp::verify() {
  if (failed(expectShape(*this, getOutput(),
                         shapes::pool(shapeOf(getInput()), getKernelShape(),
                                      getStrides(), getPads(), getDilations(),
                                      getCeilMode(),
                                      [&] { return emitOpError(); }))))
    return failure();
  if (getIndices().size() > 1)
    return emitOpError() << "has " << getIndices().size() + 1
                         << " results; expected 1, or 2 (output, indices)";
  if (!getIndices().empty() &&
      shapeOf(getIndices()[0]) != shapeOf(getOutput()))
    return emitOpError() << "indices must have the output's shape "
                         << shapes::str(shapeOf(getOutput()));
  if (getColumnMajorIndices() &&
      (getIndices().empty() || shapeOf(getInput()).size() != 4))
    return emitOpError() << "column_major_indices needs the indices result "
                            "of a 2-D pool";
  return success();
}

LogicalResult AveragePoolOp::verify() {
  SmallVector<int64_t> dil(getKernelShape().size(), 1);
  if (auto d = getDilations()) {
    if (d->size() != dil.size())
      return emitOpError() << "dilations need " << dil.size() << " values, got "
                           << d->size();
    dil.assign(d->begin(), d->end());
  }
  return expectShape(*this, getOutput(),
                     shapes::pool(shapeOf(getInput()), getKernelShape(),
                                  getStrides(), getPads(), dil, getCeilMode(),
                                  [&] { return emitOpError(); }));
}

LogicalResult GlobalAveragePoolOp::verify() {
  return expectShape(*this, getOutput(),
                     shapes::globalPool(shapeOf(getInput()),
                                        [&] { return emitOpError(); }));
}

LogicalResult GlobalMaxPoolOp::verify() {
  return expectShape(*this, getOutput(),
                     shapes::globalPool(shapeOf(getInput()),
                                        [&] { return emitOpError(); }));
}

LogicalResult BatchNormOp::verify() {
  auto x = shapeOf(getInput());
  if (x.size() < 2)
    return emitOpError() << "input must have rank >= 2, got "
                         << shapes::str(x);
  for (Value v : {getScale(), getBias(), getMean(), getVariance()})
    if (shapeOf(v).size() != 1 || shapeOf(v)[0] != x[1])
      return emitOpError() << "per-channel operands must have shape " << x[1]
                           << ", got " << shapes::str(shapeOf(v));
  if (shapeOf(getOutput()) != x)
    return emitOpError() << "result shape differs from input shape";
  return success();
}

LogicalResult LayerNormOp::verify() {
  auto x = shapeOf(getInput());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= (int64_t)x.size())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << x.size();
  auto norm = x.drop_front(axis);
  if (!shapes::broadcastsTo(shapeOf(getScale()), norm))
    return emitOpError() << "scale of shape "
                         << shapes::str(shapeOf(getScale()))
                         << " does not broadcast to " << shapes::str(norm);
  if (getBias() && !shapes::broadcastsTo(shapeOf(getBias()), norm))
    return emitOpError() << "bias of shape " << shapes::str(shapeOf(getBias()))
                         << " does not broadcast to " << shapes::str(norm);
  if (shapeOf(getOutput()) != x)
    return emitOpError() << "result must have the input's shape "
                         << shapes::str(x);
  if (!getStats().empty()) {
    if (getStats().size() != 2)
      return emitOpError() << "has " << getStats().size() + 1
                           << " results; expected 1, or 3 (output, mean, "
                              "inverse standard deviation)";
    llvm::SmallVector<int64_t> rows(x.begin(), x.end());
    for (size_t d = axis; d < rows.size(); ++d)
      rows[d] = 1;
    for (Value v : getStats())
      if (shapeOf(v) != ArrayRef<int64_t>(rows))
        return emitOpError() << "mean and inverse standard deviation must "
                                "have shape "
                             << shapes::str(rows) << ", got "
                             << shapes::str(shapeOf(v));
  }
  return success();
}

static LogicalResult verifyAxis(Operation *op, int64_t axis, Value input) {
  int64_t rank = shapeOf(input).size();
  if (axis < 0 || axis >= std::max<int64_t>(rank, 1))
    return op->emitOpError() << "axis " << axis << " out of range for rank "
                             << rank;
  return success();
}
LogicalResult SoftmaxOp::verify() { return verifyAxis(*this, getAxis(), getInput()); }
LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput());
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

static LogicalResult verifyReduce(Operation *op, ArrayRef<int64_t> axes,
                                  bool keepdims) {
  Value in = op->getOperand(0), out = op->getResult(0);
  if (failed(expectSameElt(op, in, out, "input and result")))
    return failure();
  return expectShape(op, out,
                     shapes::reduce(shapeOf(in), axes, keepdims,
                                    [&] { return op->emitOpError(); }));
}
#define PLUMB_REDUCE_VERIFIER(OP)                                              \
  LogicalResult OP::verify() {                                                 \
    return verifyReduce(*this, getAxes(), getKeepdims());                      \
  }
PLUMB_REDUCE_VERIFIER(ReduceSumOp)
PLUMB_REDUCE_VERIFIER(ReduceMeanOp)
PLUMB_REDUCE_VERIFIER(ReduceProdOp)
PLUMB_REDUCE_VERIFIER(ReduceMaxOp)
PLUMB_REDUCE_VERIFIER(ReduceMinOp)
#undef PLUMB_REDUCE_VERIFIER

LogicalResult ArgMaxOp::verify() {
  int64_t rank = shapeOf(getInput()).size();
  if (getAxis() < 0 || getAxis() >= rank)
    return emitOpError() << "axis " << getAxis() << " out of range for rank "
                         << rank;
  int64_t axis = getAxis();
  return expectShape(*this, getOutput(),
                     shapes::reduce(shapeOf(getInput()), {axis}, getKeepdims(),
                                    [&] { return emitOpError(); }));
}

LogicalResult TopKOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t rank = in.size(), axis = getAxis(), k = getK();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << rank;
  if (k < 0 || k > in[axis])
    return emitOpError() << "k = " << k << " outside [0, " << in[axis]
                         << "] (the axis length)";
  if (getValues().getType().getElementType() !=
      getInput().getType().getElementType())
    return emitOpError() << "values must have the input's element type";
  shapes::Shape want(in.begin(), in.end());
  want[axis] = k;
  if (failed(expectShape(*this, getValues(), want)))
    return failure();
  return expectShape(*this, getIndices(), want);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto emit = [&] { return emitOpError(); };
  auto a = shapes::numElements(shapeOf(getInput()), emit);
  auto b = shapes::numElements(shapeOf(getOutput()), emit);
  if (failed(a) || failed(b))
    return failure();
  if (*a != *b)
    return emitOpError() << "reshape from " << shapes::str(shapeOf(getInput()))
                         << " (" << *a << " elements) to "
                         << shapes::str(shapeOf(getOutput())) << " (" << *b
                         << " elements)";
  return expectSameElt(*this, getInput(), getOutput(), "input and result");
}

LogicalResult TransposeOp::verify() {
  if (failed(expectSameElt(*this, getInput(), getOutput(), "input and result")))
    return failure();
  return expectShape(*this, getOutput(),
                     shapes::transpose(shapeOf(getInput()), getPerm(),
                                       [&] { return emitOpError(); }));
}

LogicalResult ConcatOp::verify() {
  SmallVector<ArrayRef<int64_t>> ins;
  for (Value v : getInputs()) {
    if (failed(expectSameElt(*this, v, getOutput(), "input and result")))
      return failure();
    ins.push_back(shapeOf(v));
  }
  return expectShape(*this, getOutput(),
                     shapes::concat(ins, getAxis(),
                                    [&] { return emitOpError(); }));
}

LogicalResult SplitOp::verify() {
  auto in = shapeOf(getInput());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= (int64_t)in.size())
    return emitOpError() << "axis " << axis << " out of range for rank "
                         << in.size();
  if (getSizes().size() != getOutputs().size())
    return emitOpError() << "has " << getSizes().size() << " sizes but "
                         << getOutputs().size() << " results";
  int64_t total = 0;
  for (auto [size, out] : llvm::zip(getSizes(), getOutputs())) {
    if (size < 0)
      return emitOpError() << "split sizes must be >= 0";
    total += size;
    SmallVector<int64_t> expect(in.begin(), in.end());
    expect[axis] = size;
    if (shapeOf(out) != ArrayRef<int64_t>(expect))
      return emitOpError() << "result shape " << shapes::str(shapeOf(out))
                           << " differs from the inferred shape "
                           << shapes::str(expect);
    if (failed(expectSameElt(*this, getInput(), out, "input and result")))
      return failure();
  }
  if (total != in[axis])
    return emitOpError() << "split sizes add up to " << total
                         << ", dimension " << axis << " has " << in[axis];
  return success();
}

LogicalResult SliceOp::verify() {
  if (failed(expectSameElt(*this, getInput(), getOutput(), "input and result")))
    return failure();
  return shapes::verifySlice(shapeOf(getInput()), getStarts(), getSteps(),
                             shapeOf(getOutput()),
                             [&] { return emitOpError(); });
}

LogicalResult GatherOp::verify() {
  if (failed(expectSameElt(*this, getData(), getOutput(), "data and result")))
    return failure();
  return expectShape(*this, getOutput(),
                     shapes::gather(shapeOf(getData()), shapeOf(getIndices()),
                                    getAxis(), [&] { return emitOpError(); }));
}

LogicalResult GatherNDOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto data = cast<RankedTensorType>(adaptor.getData().getType());
  auto idx = cast<RankedTensorType>(adaptor.getIndices().getType());
  ArrayRef<int64_t> d = data.getShape(), i = idx.getShape();
  int64_t b = adaptor.getBatchDims(), r = d.size(), q = i.size();
  std::string why;
  if (q < 1) {
    why = "indices must have rank >= 1";
  } else if (b < 0 || b >= q || b >= r) {
    why = "batch_dims " + std::to_string(b) + " out of range for data rank " +
          std::to_string(r) + " and indices rank " + std::to_string(q);
  } else if (i[q - 1] < 1 || i[q - 1] > r - b) {
    why = "index tuples of length " + std::to_string(i[q - 1]) +
          " cannot index the " + std::to_string(r - b) +
          " non-batch dimensions of data";
  } else {
    for (int64_t j = 0; j < b && why.empty(); ++j)
      if (d[j] != i[j])
        why = "batch dimension " + std::to_string(j) + " differs: data " +
              shapes::str(d) + ", indices " + shapes::str(i);
  }
  if (!why.empty())
    return emitOptionalError(loc, "gather_nd: ", why);
  SmallVector<int64_t> out(i.begin(), i.end() - 1);
  out.append(d.begin() + b + i[q - 1], d.end());
  types.push_back(RankedTensorType::get(out, data.getElementType()));
  return success();
}

LogicalResult ExpandOp::verify() {
  if (failed(expectSameElt(*this, getInput(), getOutput(), "input and result")))
    return failure();
  if (!shapes::broadcastsTo(shapeOf(getInput()), shapeOf(getOutput())))
    return emitOpError() << "cannot broadcast "
                         << shapes::str(shapeOf(getInput())) << " to "
                         << shapes::str(shapeOf(getOutput()));
  return success();
}

LogicalResult PadOp::verify() {
  if (getMode() != "constant" && getMode() != "reflect" && getMode() != "edge")
    return emitOpError() << "mode must be constant, reflect or edge, got \""
                         << getMode() << "\"";
  if (getValue().getType() != eltOf(getInput()))
    return emitOpError() << "pad value type " << getValue().getType()
                         << " differs from element type " << eltOf(getInput());
  auto in = shapeOf(getInput());
  if (getMode() != "constant") {
    for (size_t d = 0; d < in.size() && 2 * in.size() == getPads().size(); ++d)
      if ((getPads()[d] > 0 || getPads()[in.size() + d] > 0) && in[d] == 0)
        return emitOpError() << getMode() << " padding of an empty dimension";
    if (getMode() == "reflect")
      for (size_t d = 0; d < in.size() && 2 * in.size() == getPads().size(); ++d)
        if (getPads()[d] >= in[d] || getPads()[in.size() + d] >= in[d])
          if (getPads()[d] > 0 || getPads()[in.size() + d] > 0)
            return emitOpError() << "reflect pads of dimension " << d
                                 << " must be smaller than its size " << in[d];
  }
  return expectShape(*this, getOutput(),
                     shapes::pad(in, getPads(), [&] { return emitOpError(); }));
}

LogicalResult TileOp::verify() {
  return expectShape(*this, getOutput(),
                     shapes::tile(shapeOf(getInput()), getRepeats(),
                                  [&] { return emitOpError(); }));
}

LogicalResult ResizeOp::verify() {
  auto in = shapeOf(getInput()), out = shapeOf(getOutput());
  if (in.size() != out.size())
    return emitOpError() << "resize changes the rank";
  if (getScales().size() != in.size())
    return emitOpError() << "expected " << in.size() << " scales, got "
                         << getScales().size();
  for (float s : getScales())
    if (!(s > 0.0f))
      return emitOpError() << "scales must be positive";
  StringRef mode = getMode(), ctm = getCoordinateTransformationMode(),
            nm = getNearestMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitOpError() << "mode must be nearest, linear or cubic, got \""
                         << mode << "\"";
  if (mode == "cubic" && (!getCubicCoeffAAttr() || !getExcludeOutsideAttr()))
    return emitOpError() << "cubic resize needs cubic_coeff_a and "
                            "exclude_outside";
  if (mode != "cubic" && (getCubicCoeffAAttr() || getExcludeOutsideAttr()))
    return emitOpError() << "cubic_coeff_a and exclude_outside are only for "
                            "mode cubic";
  if (!llvm::is_contained({"half_pixel", "asymmetric", "align_corners",
                           "pytorch_half_pixel"},
                          ctm))
    return emitOpError() << "unsupported coordinate_transformation_mode \""
                         << ctm << "\"";
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}, nm))
    return emitOpError() << "unsupported nearest_mode \"" << nm << "\"";
  return success();
}

//===----------------------------------------------------------------------===//
// Recurrent networks
//===----------------------------------------------------------------------===//

static FailureOr<int64_t> directions(Operation *op, StringRef direction) {
  if (direction == "forward" || direction == "reverse")
    return 1;
  if (direction == "bidirectional")
    return 2;
  return op->emitOpError() << "direction must be forward, reverse or "
                              "bidirectional, got \""
                           << direction << "\"";
}

template <typename OpTy>
static LogicalResult verifyRnn(OpTy op, int64_t gates) {
  auto dirs = directions(op, op.getDirection());
  if (failed(dirs))
    return failure();
  shapes::Shape y, yh;
  if (failed(shapes::rnn(shapeOf(op.getX()), shapeOf(op.getW()),
                         shapeOf(op.getR()), gates, op.getHiddenSize(), *dirs,
                         y, yh, [&] { return op.emitOpError(); })))
    return failure();
  int64_t h = op.getHiddenSize();
  if (op.getB()) {
    SmallVector<int64_t> b{*dirs, 2 * gates * h};
    if (shapeOf(op.getB()) != ArrayRef<int64_t>(b))
      return op.emitOpError() << "B must have shape " << shapes::str(b)
                              << ", got " << shapes::str(shapeOf(op.getB()));
  }
  if (op.getInitialH() && shapeOf(op.getInitialH()) != ArrayRef<int64_t>(yh))
    return op.emitOpError() << "initial_h must have shape " << shapes::str(yh);
  if (failed(expectShape(op, op.getY(), FailureOr<shapes::Shape>(y))) ||
      failed(expectShape(op, op.getYH(), FailureOr<shapes::Shape>(yh))))
    return failure();
  return success();
}

LogicalResult LSTMOp::verify() {
  if (failed(verifyRnn(*this, 4)))
    return failure();
  auto dirs = *directions(*this, getDirection());
  SmallVector<int64_t> yc{dirs, shapeOf(getX())[1], (int64_t)getHiddenSize()};
  if (getInitialC() && shapeOf(getInitialC()) != ArrayRef<int64_t>(yc))
    return emitOpError() << "initial_c must have shape " << shapes::str(yc);
  if (getP()) {
    SmallVector<int64_t> p{dirs, 3 * (int64_t)getHiddenSize()};
    if (shapeOf(getP()) != ArrayRef<int64_t>(p))
      return emitOpError() << "P must have shape " << shapes::str(p);
  }
  return expectShape(*this, getYC(), FailureOr<shapes::Shape>(shapes::Shape(yc)));
}

LogicalResult LSTMDynQuantOp::verify() {
  auto dirs = directions(*this, getDirection());
  if (failed(dirs))
    return failure();
  ArrayRef<int64_t> x = shapeOf(getX());
  const int64_t h = getHiddenSize(), d = *dirs;
  if (x.size() != 3 || h < 1)
    return emitOpError() << "needs X of rank 3 and hidden_size >= 1";
  auto want = [&](Value v, ArrayRef<int64_t> s, StringRef what) {
    if (v && shapeOf(v) != s)
      return emitOpError() << what << " must have shape " << shapes::str(s)
                           << ", got " << shapes::str(shapeOf(v)),
             false;
    return true;
  };
  SmallVector<int64_t> w{d, x[2], 4 * h}, r{d, h, 4 * h}, b{d, 8 * h},
      st{d, x[1], h}, p{d, 3 * h}, y{x[0], d, x[1], h};
  if (!want(getW(), w, "W") || !want(getR(), r, "R") ||
      !want(getB(), b, "B") || !want(getInitialH(), st, "initial_h") ||
      !want(getInitialC(), st, "initial_c") || !want(getP(), p, "P"))
    return failure();
  for (auto [s, z, what] : {std::tuple(getWScale(), getWZeroPoint(), "W"),
                            std::tuple(getRScale(), getRZeroPoint(), "R")}) {
    ArrayRef<int64_t> ss = shapeOf(s);
    SmallVector<int64_t> col{d, 4 * h};
    if (ss != ArrayRef<int64_t>{d} && ss != ArrayRef<int64_t>(col))
      return emitOpError() << what << "'s scale must have shape "
                           << shapes::str({d}) << " or " << shapes::str(col)
                           << ", got " << shapes::str(ss);
    if (z && shapeOf(z) != ss)
      return emitOpError() << what << "'s zero point must have its scale's "
                           << "shape " << shapes::str(ss);
  }
  if (!want(getY(), y, "Y") || !want(getYH(), st, "Y_h") ||
      !want(getYC(), st, "Y_c"))
    return failure();
  return success();
}

LogicalResult GRUOp::verify() { return verifyRnn(*this, 3); }

std::optional<std::pair<int32_t, StringRef>>
RNNOp::activationCode(StringRef name) {
  static const std::tuple<const char *, int32_t, const char *> kActs[] = {
      {"tanh", PLUMB_RT_TANH, "PLUMB_RT_TANH"},
      {"sigmoid", PLUMB_RT_SIGMOID, "PLUMB_RT_SIGMOID"},
      {"relu", PLUMB_RT_RELU, "PLUMB_RT_RELU"},
      {"leaky_relu", PLUMB_RT_LEAKY_RELU, "PLUMB_RT_LEAKY_RELU"},
      {"thresholded_relu", PLUMB_RT_THRESHOLDED_RELU,
       "PLUMB_RT_THRESHOLDED_RELU"},
      {"hard_sigmoid", PLUMB_RT_HARD_SIGMOID, "PLUMB_RT_HARD_SIGMOID"},
      {"elu", PLUMB_RT_ELU, "PLUMB_RT_ELU"},
      {"softsign", PLUMB_RT_SOFTSIGN, "PLUMB_RT_SOFTSIGN"},
      {"softplus", PLUMB_RT_SOFTPLUS, "PLUMB_RT_SOFTPLUS"}};
  for (auto [n, code, enumName] : kActs)
    if (name == n)
      return std::make_pair(code, StringRef(enumName));
  return std::nullopt;
}

LogicalResult RNNOp::verify() {
  if (failed(verifyRnn(*this, 1)))
    return failure();
  const size_t dirs = *directions(*this, getDirection());
  if (getActivations().size() != dirs ||
      getActivationAlpha().size() != dirs ||
      getActivationBeta().size() != dirs)
    return emitOpError() << "needs one activation, activation_alpha and "
                            "activation_beta per direction ("
                         << dirs << ")";
  for (Attribute a : getActivations())
    if (!activationCode(cast<StringAttr>(a).getValue()))
      return emitOpError() << "activation '" << cast<StringAttr>(a).getValue()
                           << "' is not one of tanh, sigmoid, relu, "
                              "leaky_relu, thresholded_relu, hard_sigmoid, "
                              "elu, softsign, softplus";
  return success();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

LogicalResult IfOp::verify() {
  if (!shapeOf(getCond()).empty() &&
      !(shapeOf(getCond()).size() == 1 && shapeOf(getCond())[0] == 1))
    return emitOpError() << "condition must hold one element, got shape "
                         << shapes::str(shapeOf(getCond()));
  for (Region *r : {&getThenRegion(), &getElseRegion()}) {
    Block &block = r->front();
    auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
    if (!yield)
      return emitOpError() << "region must end with plumb.yield";
    if (yield.getValues().getTypes() != getResultTypes())
      return emitOpError() << "branch yields types that differ from the "
                              "results";
  }
  return success();
}

#define GET_OP_CLASSES
#include "dialects/Plumb/IR/PlumbOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Elementwise math ops (lib/Importer/OnnxOpsMath.cpp).
//===----------------------------------------------------------------------===//

LogicalResult PReluOp::verify() { return verifyBroadcastBinary(*this); }
// Folded by the runtime later (the kernel's own arithmetic), as Pow.
OpFoldResult PReluOp::fold(FoldAdaptor) { return {}; }

LogicalResult ModOp::verify() {
  if (eltOf(getLhs()).isF32() && !getFmod())
    return emitOpError() << "fmod = false is defined for integers only";
  return verifyBroadcastBinary(*this);
}
int32_t ModOp::getBinaryCode() {
  if (eltOf(getLhs()).isF32())
    return PLUMB_RT_FMOD_F32;
  return getFmod() ? PLUMB_RT_FMOD : PLUMB_RT_MOD;
}

LogicalResult MeanOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one operand";
  return verifyVariadic(*this);
}

LogicalResult XorOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult BitAndOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult BitOrOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult BitXorOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult ShiftLeftOp::verify() { return verifyBroadcastBinary(*this); }
LogicalResult ShiftRightOp::verify() { return verifyBroadcastBinary(*this); }

//===----------------------------------------------------------------------===//
// Indexed writes
//===----------------------------------------------------------------------===//

LogicalResult ScatterNDOp::verify() {
  if (failed(expectSameElt(*this, getData(), getOutput(), "data and result")) ||
      failed(expectSameElt(*this, getData(), getUpdates(), "data and updates")))
    return failure();
  if (getOutput().getType() != getData().getType())
    return emitOpError() << "result type must be data's type";
  StringRef r = getReduction();
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min")
    return emitOpError() << "reduction '" << r
                         << "' is not none, add, mul, max or min";
  Type elt = eltOf(getData());
  if (elt.isInteger(1) && r != "none")
    return emitOpError() << "bool data takes reduction 'none' only";
  ArrayRef<int64_t> d = shapeOf(getData()), i = shapeOf(getIndices());
  int64_t r0 = d.size(), q = i.size();
  if (r0 < 1 || q < 1)
    return emitOpError() << "data and indices must have rank >= 1";
  if (i[q - 1] < 1 || i[q - 1] > r0)
    return emitOpError() << "index tuples of length " << i[q - 1]
                         << " cannot index data of rank " << r0;
  shapes::Shape want(i.begin(), i.end() - 1);
  want.append(d.begin() + i[q - 1], d.end());
  if (shapeOf(getUpdates()) != ArrayRef<int64_t>(want))
    return emitOpError() << "updates must have shape " << shapes::str(want)
                         << " (indices[:-1] + data[k:]), got "
                         << shapes::str(shapeOf(getUpdates()));
  return success();
}

//===----------------------------------------------------------------------===//
// Grid sampling
//===----------------------------------------------------------------------===//

LogicalResult GridSampleOp::verify() {
  auto in = shapeOf(getInput()), grid = shapeOf(getGrid()),
       out = shapeOf(getOutput());
  const int64_t r = in.size();
  if (r != 4 && r != 5)
    return emitOpError() << "input must have rank 4 or 5 (N, C, [D,] H, W), "
                            "got "
                         << shapes::str(in);
  if ((int64_t)grid.size() != r)
    return emitOpError() << "grid must have rank " << r << " like the input, "
                         << "got " << shapes::str(grid);
  if (grid[r - 1] != r - 2)
    return emitOpError() << "grid's last dimension must be " << r - 2
                         << " (one coordinate per spatial dimension), got "
                         << grid[r - 1];
  if (grid[0] != in[0])
    return emitOpError() << "grid batch " << grid[0]
                         << " does not match the input batch " << in[0];
  SmallVector<int64_t> want = {in[0], in[1]};
  for (int64_t d = 1; d + 1 < r; ++d)
    want.push_back(grid[d]);
  if (ArrayRef<int64_t>(want) != out)
    return emitOpError() << "result must have shape " << shapes::str(want)
                         << " (N, C, grid's spatial sizes), got "
                         << shapes::str(out);
  StringRef mode = getMode(), pad = getPaddingMode();
  if (mode != "linear" && mode != "nearest" && mode != "cubic")
    return emitOpError() << "mode must be linear, nearest or cubic, got \""
                         << mode << "\"";
  if (mode == "cubic" && r != 4)
    return emitOpError() << "cubic grid_sample needs a 4-D input";
  if (pad != "zeros" && pad != "border" && pad != "reflection")
    return emitOpError() << "padding_mode must be zeros, border or "
                            "reflection, got \""
                         << pad << "\"";
  bool empty = false;
  for (int64_t v : out)
    empty |= v == 0;
  for (int64_t d = 2; d < r && !empty; ++d)
    if (in[d] == 0)
      return emitOpError() << "input spatial dimensions must be non-zero, got "
                           << shapes::str(in);
  return success();
}

//===----------------------------------------------------------------------===//
// Fourier transforms
//===----------------------------------------------------------------------===//

namespace {
/// The bins of a transform of n points: n, or n / 2 + 1 when onesided.
int64_t dftBins(int64_t n, bool onesided) { return onesided ? n / 2 + 1 : n; }
} // namespace

LogicalResult DFTOp::verify() {
  auto in = shapeOf(getInput()), out = shapeOf(getOutput());
  const int64_t r = in.size();
  if (r < 2 || (in[r - 1] != 1 && in[r - 1] != 2))
    return emitOpError() << "input must have rank >= 2 and a last dimension "
                            "of 1 (real) or 2 (complex), got "
                         << shapes::str(in);
  const int64_t axis = getAxis(), n = getLength();
  if (axis < 0 || axis > r - 2)
    return emitOpError() << "axis " << axis << " is outside [0, " << r - 2
                         << "] (the last dimension holds the parts)";
  if (n < 1 || n > PLUMB_RT_DFT_MAX_LENGTH)
    return emitOpError() << "length " << n << " is outside [1, "
                         << PLUMB_RT_DFT_MAX_LENGTH << "]";
  if (getOnesided() && in[r - 1] != 1)
    return emitOpError() << "onesided needs a real input (last dimension 1)";
  if (getOnesided() && getInverse())
    return emitOpError() << "onesided and inverse cannot both be set";
  SmallVector<int64_t> want(in.begin(), in.end());
  want[axis] = dftBins(n, getOnesided());
  want[r - 1] = 2;
  if (ArrayRef<int64_t>(want) != out)
    return emitOpError() << "result must have shape " << shapes::str(want)
                         << ", got " << shapes::str(out);
  return success();
}

LogicalResult STFTOp::verify() {
  auto in = shapeOf(getSignal()), out = shapeOf(getOutput());
  if (in.size() != 3 || (in[2] != 1 && in[2] != 2))
    return emitOpError() << "signal must be (batch, length, 1 or 2), got "
                         << shapes::str(in);
  const int64_t step = getFrameStep(), len = getFrameLength();
  if (step < 1)
    return emitOpError() << "frame_step must be positive, got " << step;
  if (len < 1 || len > in[1] || len > PLUMB_RT_DFT_MAX_LENGTH)
    return emitOpError() << "frame_length " << len << " is outside [1, "
                         << std::min<int64_t>(in[1], PLUMB_RT_DFT_MAX_LENGTH)
                         << "]";
  if (Value w = getWindow()) {
    auto ws = shapeOf(w);
    if (ws.size() != 1 || ws[0] != len)
      return emitOpError() << "window must have shape (" << len
                           << "), got " << shapes::str(ws);
  }
  if (getOnesided() && in[2] != 1)
    return emitOpError() << "onesided needs a real signal (last dimension 1)";
  SmallVector<int64_t> want = {in[0], (in[1] - len) / step + 1,
                               dftBins(len, getOnesided()), 2};
  if (ArrayRef<int64_t>(want) != out)
    return emitOpError() << "result must have shape " << shapes::str(want)
                         << ", got " << shapes::str(out);
  return success();
}
