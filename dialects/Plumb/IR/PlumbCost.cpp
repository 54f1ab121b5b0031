//===- PlumbCost.cpp - Op counts of the plumb ops (cost interface) --------===//
//
// Part of Plumb. getCounts() of every plumb op: the work the op's defined
// operation sequence does, from static shapes and attributes only. One
// function per op family; docs/gas.md states each formula. All arithmetic goes
// through CheckedCount, so a count that does not fit in 64 bits fails.
//
// Conventions shared by every family:
//  * bytes read = the bytes of every operand, each read once in full
//    (constants included: a weight is paid for by the node that reads it;
//    plumb.constant itself is not a node and counts nothing);
//  * bytes written = the bytes of every result;
//  * element sizes: f32 and i32 4 bytes, i64 8 bytes, i1 1 byte.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/runtime/signal.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace plumb;

#include "dialects/Plumb/IR/PlumbInterfaces.cpp.inc"

namespace {

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

CheckedCount product(ArrayRef<int64_t> dims) {
  CheckedCount n(1);
  for (int64_t d : dims)
    n *= CheckedCount::fromDim(d);
  return n;
}

CheckedCount elems(Value v) { return product(shapeOf(v)); }

CheckedCount elemBytes(Type elt) {
  unsigned bits = elt.getIntOrFloatBitWidth();
  return CheckedCount(bits <= 8 ? 1 : (bits + 7) / 8);
}

CheckedCount bytes(Value v) {
  return elems(v) * elemBytes(cast<ShapedType>(v.getType()).getElementType());
}

/// Accumulates the counts of one op; bytes are those of all operands and
/// results unless the family says otherwise.
struct Counter {
  CheckedCount macs, elementwise, transcendental, compare, indexed, read,
      written;

  explicit Counter(Operation *op, bool io = true) {
    if (!io)
      return;
    for (Value v : op->getOperands())
      read += bytes(v);
    for (Value v : op->getResults())
      written += bytes(v);
  }

  FailureOr<OpCounts> finish() const {
    if (macs.overflowed() || elementwise.overflowed() ||
        transcendental.overflowed() || compare.overflowed() ||
        indexed.overflowed() || read.overflowed() || written.overflowed())
      return failure();
    OpCounts c;
    c.macs = macs.value();
    c.elementwise = elementwise.value();
    c.transcendental = transcendental.value();
    c.compare = compare.value();
    c.indexed = indexed.value();
    c.bytesRead = read.value();
    c.bytesWritten = written.value();
    return c;
  }
};

/// One reduction step per input element (an add, or a NaN-aware compare
/// step for max/min/argmax), plus `perOut` operations per result element
/// (the division of a mean).
FailureOr<OpCounts> reduction(Operation *op, uint64_t perOut,
                              bool compare = false) {
  Counter c(op);
  (compare ? c.compare : c.elementwise) = elems(op->getOperand(0));
  c.elementwise += elems(op->getResult(0)) * CheckedCount(perOut);
  return c.finish();
}

/// Product of the dimensions from `from` on.
CheckedCount tail(ArrayRef<int64_t> s, size_t from) {
  return from >= s.size() ? CheckedCount(1) : product(s.drop_front(from));
}

} // namespace

/// Elementwise families: `e` simple operations, `t` transcendental
/// evaluations and `k` compare steps per result element (of result 0).
FailureOr<OpCounts> plumb::elementwiseCounts(Operation *op, uint64_t e,
                                             uint64_t t, uint64_t k) {
  Counter c(op);
  CheckedCount n = elems(op->getResult(0));
  c.elementwise = n * e;
  c.transcendental = n * t;
  c.compare = n * k;
  return c.finish();
}

/// Variadic sum/max/min: n inputs combine left to right, n - 1 additions (or
/// NaN-aware compare steps) per result element (one input is a copy), plus
/// `fin` operations per element (Mean's division).
FailureOr<OpCounts> plumb::variadicCounts(Operation *op, bool compare,
                                          uint64_t fin) {
  uint64_t n = op->getNumOperands(), steps = n ? n - 1 : 0;
  return elementwiseCounts(op, (compare ? 0 : steps) + fin, 0,
                           compare ? steps : 0);
}

/// Contiguous data movement (runs of elements copied): bytes only.
FailureOr<OpCounts> plumb::movementCounts(Operation *op) {
  return Counter(op).finish();
}

/// Indexed data movement: every result element is read through its own
/// computed index.
FailureOr<OpCounts> plumb::indexedMovementCounts(Operation *op) {
  Counter c(op);
  for (Value v : op->getResults())
    c.indexed += elems(v);
  return c.finish();
}

//===----------------------------------------------------------------------===//
// Not nodes: constants and terminators
//===----------------------------------------------------------------------===//

FailureOr<OpCounts> ConstantOp::getCounts() { return OpCounts(); }
FailureOr<OpCounts> YieldOp::getCounts() { return OpCounts(); }

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// Unary, binary and variadic ops: their op classes in PlumbOps.td give
// their per-element counts (elementwiseCounts, variadicCounts): one
// operation per element; Plumb's own math counts as one transcendental
// evaluation (gelu and sigmoid are single correctly rounded functions);
// hard_sigmoid is mul, add, max, min; leaky_relu compare and mul; clip is
// two NaN-aware compare steps (max then min).
FailureOr<OpCounts> WhereOp::getCounts() {
  return elementwiseCounts(getOperation(), 1, 0);
}
FailureOr<OpCounts> CastOp::getCounts() {
  return elementwiseCounts(getOperation(), 1, 0);
}

/// pow: f32 is one evaluation of Plumb's pow; an integer power is priced at
/// its worst case, square-and-multiply over every exponent bit (two
/// multiplies per bit: 62 for int32, 126 for int64).
FailureOr<OpCounts> PowOp::getCounts() {
  Type t = cast<ShapedType>(getOutput().getType()).getElementType();
  if (t.isF32())
    return elementwiseCounts(getOperation(), 0, 1);
  return elementwiseCounts(getOperation(),
                          2 * (uint64_t)(t.getIntOrFloatBitWidth() - 1), 0);
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// matmul: every result element is a K-term dot product (K = the last
/// dimension of lhs, also for a promoted 1-D lhs).
FailureOr<OpCounts> MatMulOp::getCounts() {
  Counter c(getOperation());
  ArrayRef<int64_t> a = shapeOf(getLhs());
  c.macs = elems(getOutput()) * CheckedCount::fromDim(a.empty() ? 1 : a.back());
  return c.finish();
}

/// matmul_integer: as matmul (integer multiply-adds priced as MACs).
FailureOr<OpCounts> MatMulIntegerOp::getCounts() {
  Counter c(getOperation());
  ArrayRef<int64_t> a = shapeOf(getLhs());
  c.macs = elems(getOutput()) * CheckedCount::fromDim(a.empty() ? 1 : a.back());
  return c.finish();
}

/// gemm: M*N K-term dot products, then alpha * t (if alpha != 1), and
/// t + beta * c (one add, one more multiply if beta != 1).
FailureOr<OpCounts> GemmOp::getCounts() {
  Counter c(getOperation());
  ArrayRef<int64_t> a = shapeOf(getA());
  CheckedCount out = elems(getOutput());
  c.macs = out * CheckedCount::fromDim(getTransA() ? a[0] : a[1]);
  uint64_t e = getAlpha().convertToFloat() != 1.0f ? 1 : 0;
  if (getC())
    e += getBeta().convertToFloat() != 1.0f ? 2 : 1;
  c.elementwise = out * CheckedCount(e);
  return c.finish();
}

/// conv: every result element reduces over Cin/group x kernel terms (padded
/// positions are terms too); the bias is one add per result element.
FailureOr<OpCounts> ConvOp::getCounts() {
  Counter c(getOperation());
  CheckedCount out = elems(getOutput());
  c.macs = out * tail(shapeOf(getWeight()), 1);
  if (getBias())
    c.elementwise = out;
  return c.finish();
}

/// conv_transpose: every input element meets Cout/group x kernel weights
/// (W is [Cin, Cout/group, k...]); bias as for conv.
FailureOr<OpCounts> ConvTransposeOp::getCounts() {
  Counter c(getOperation());
  c.macs = elems(getInput()) * tail(shapeOf(getWeight()), 1);
  if (getBias())
    c.elementwise = elems(getOutput());
  return c.finish();
}

//===----------------------------------------------------------------------===//
// Pooling and normalisation
//===----------------------------------------------------------------------===//

/// Windowed pooling: every window position of every result element (the
/// whole window counts, padding included) is an indexed read and one
/// compare step (max) or one add (average); average adds one division per
/// result element.
FailureOr<OpCounts> MaxPoolOp::getCounts() {
  Counter c(getOperation());
  CheckedCount taps = elems(getOutput()) * product(getKernelShape());
  c.compare = taps;
  c.indexed = taps;
  return c.finish();
}
FailureOr<OpCounts> AveragePoolOp::getCounts() {
  Counter c(getOperation());
  CheckedCount out = elems(getOutput());
  CheckedCount taps = out * product(getKernelShape());
  c.elementwise = taps + out;
  c.indexed = taps;
  return c.finish();
}
FailureOr<OpCounts> GlobalAveragePoolOp::getCounts() {
  return reduction(getOperation(), 1);
}
FailureOr<OpCounts> GlobalMaxPoolOp::getCounts() {
  return reduction(getOperation(), 0, /*compare=*/true);
}

/// batch_norm: per channel sqrt(var + eps) (2), per element sub, div, mul,
/// add (4).
FailureOr<OpCounts> BatchNormOp::getCounts() {
  Counter c(getOperation());
  ArrayRef<int64_t> x = shapeOf(getInput());
  CheckedCount channels = CheckedCount::fromDim(x.size() > 1 ? x[1] : 1);
  c.elementwise = elems(getOutput()) * CheckedCount(4) + channels * 2;
  return c.finish();
}

/// layer_norm over rows of D elements: per element one sum step, one
/// subtraction, one square-accumulate (a MAC), one division, one multiply
/// and (with bias) one add; per row two divisions, one add and one sqrt.
FailureOr<OpCounts> LayerNormOp::getCounts() {
  Counter c(getOperation());
  ArrayRef<int64_t> x = shapeOf(getInput());
  int64_t axis = std::min<int64_t>(std::max<int64_t>(getAxis(), 0), x.size());
  CheckedCount rows = product(x.take_front(axis));
  CheckedCount n = elems(getInput());
  c.macs = n;
  c.elementwise = n * CheckedCount(getBias() ? 5 : 4) + rows * 4;
  return c.finish();
}

/// softmax: per element a max step (compare), subtraction, exp, sum step,
/// division. log_softmax: max step, subtraction, exp, sum step, subtraction,
/// plus one log per row.
static FailureOr<OpCounts> softmaxFamily(Operation *op, int64_t axis,
                                         bool logRows) {
  Counter c(op);
  ArrayRef<int64_t> x = shapeOf(op->getOperand(0));
  CheckedCount n = elems(op->getOperand(0));
  c.compare = n;
  c.elementwise = n * CheckedCount(3);
  c.transcendental = n;
  if (logRows && axis >= 0 && axis < (int64_t)x.size())
    c.transcendental += product(x.take_front(axis)) * tail(x, axis + 1);
  return c.finish();
}
FailureOr<OpCounts> SoftmaxOp::getCounts() {
  return softmaxFamily(getOperation(), getAxis(), false);
}
FailureOr<OpCounts> LogSoftmaxOp::getCounts() {
  return softmaxFamily(getOperation(), getAxis(), true);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

FailureOr<OpCounts> ReduceSumOp::getCounts() {
  return reduction(getOperation(), 0);
}
FailureOr<OpCounts> ReduceMeanOp::getCounts() {
  return reduction(getOperation(), 1);
}
FailureOr<OpCounts> ReduceProdOp::getCounts() {
  return reduction(getOperation(), 0);
}
FailureOr<OpCounts> ReduceMaxOp::getCounts() {
  return reduction(getOperation(), 0, /*compare=*/true);
}
FailureOr<OpCounts> ReduceMinOp::getCounts() {
  return reduction(getOperation(), 0, /*compare=*/true);
}
FailureOr<OpCounts> ArgMaxOp::getCounts() {
  return reduction(getOperation(), 0, /*compare=*/true);
}
/// A bounded selection: each input element is compared against the kept
/// k-element heap, about log2(k) + 1 compare steps.
FailureOr<OpCounts> TopKOp::getCounts() {
  Counter c(getOperation());
  uint64_t depth = 1;
  for (uint64_t k = (uint64_t)getK(); k > 1; k >>= 1)
    ++depth;
  c.compare = elems(getInput()) * CheckedCount(depth);
  return c.finish();
}

//===----------------------------------------------------------------------===//
// Data movement: bits are moved, no arithmetic
//===----------------------------------------------------------------------===//

// Contiguous runs: reshape, concat, split, expand and tile copy runs of
// consecutive elements.
FailureOr<OpCounts> ReshapeOp::getCounts() { return movementCounts(getOperation()); }
FailureOr<OpCounts> ConcatOp::getCounts() { return movementCounts(getOperation()); }
FailureOr<OpCounts> SplitOp::getCounts() { return movementCounts(getOperation()); }
FailureOr<OpCounts> ExpandOp::getCounts() { return movementCounts(getOperation()); }
FailureOr<OpCounts> TileOp::getCounts() { return movementCounts(getOperation()); }
// Indexed: every result element of transpose, slice, gather and pad has its
// own source index.
FailureOr<OpCounts> TransposeOp::getCounts() {
  return indexedMovementCounts(getOperation());
}
FailureOr<OpCounts> SliceOp::getCounts() {
  return indexedMovementCounts(getOperation());
}
FailureOr<OpCounts> GatherOp::getCounts() {
  return indexedMovementCounts(getOperation());
}
FailureOr<OpCounts> PadOp::getCounts() {
  return indexedMovementCounts(getOperation());
}

/// resize: nearest reads one tap per result element; linear reads 2^d taps
/// over the d dimensions whose size changes and combines them separably:
/// 2^d - 1 combinations of two products and one sum per result element.
/// Cubic reads 4^d taps and makes (4^d - 1) / 3 combinations of four
/// products and three sums.
FailureOr<OpCounts> ResizeOp::getCounts() {
  Counter c(getOperation());
  CheckedCount out = elems(getOutput());
  if (getMode() == "nearest") {
    c.indexed = out;
    return c.finish();
  }
  ArrayRef<int64_t> in = shapeOf(getInput()), outShape = shapeOf(getOutput());
  uint64_t d = 0;
  for (auto [a, b] : llvm::zip(in, outShape))
    d += a != b;
  if (getMode() == "cubic") {
    if (d >= 31)
      return failure();
    uint64_t taps = uint64_t(1) << (2 * d);
    c.indexed = out * CheckedCount(taps);
    c.elementwise = out * CheckedCount((taps - 1) / 3 * 7);
    return c.finish();
  }
  if (d >= 62)
    return failure();
  c.indexed = out * CheckedCount(uint64_t(1) << d);
  c.elementwise = out * CheckedCount(((uint64_t(1) << d) - 1) * 3);
  return c.finish();
}

//===----------------------------------------------------------------------===//
// Recurrent networks
//===----------------------------------------------------------------------===//

/// Steps x batch x directions, the units every gate computation runs over.
static CheckedCount rnnSteps(Value x, Value w) {
  ArrayRef<int64_t> xs = shapeOf(x), ws = shapeOf(w);
  return CheckedCount::fromDim(xs[0]) * CheckedCount::fromDim(xs[1]) *
         CheckedCount::fromDim(ws[0]);
}

/// lstm, per step, batch row, direction and hidden unit: 4 gates of
/// (input + H)-term dot products; 3 adds per gate (x.W + h.R + Wb + Rb);
/// c' = f*c + i*g (3); h' = o*tanh(c') (1); peepholes 2 per gate for i, f,
/// o; clip 2 compare steps per gate; 5 transcendental (3 sigmoid, 2 tanh).
FailureOr<OpCounts> LSTMOp::getCounts() {
  Counter c(getOperation());
  CheckedCount units =
      rnnSteps(getX(), getW()) * CheckedCount::fromDim(getHiddenSize());
  ArrayRef<int64_t> xs = shapeOf(getX());
  CheckedCount k =
      CheckedCount::fromDim(xs[2]) + CheckedCount::fromDim(getHiddenSize());
  c.macs = units * CheckedCount(4) * k;
  uint64_t e = 12 + 3 + 1 + (getP() ? 6 : 0);
  c.elementwise = units * CheckedCount(e);
  c.compare = units * CheckedCount(getClip() ? 8 : 0);
  c.transcendental = units * CheckedCount(5);
  return c.finish();
}

/// lstm_dq: as lstm (the products are integer MACs), plus the dynamic
/// quantization of X (once) and of H (every step): 6 elementwise and 2
/// compare steps per quantized element.
FailureOr<OpCounts> LSTMDynQuantOp::getCounts() {
  Counter c(getOperation());
  ArrayRef<int64_t> xs = shapeOf(getX()), ws = shapeOf(getW());
  CheckedCount steps = CheckedCount::fromDim(xs[0]) *
                       CheckedCount::fromDim(xs[1]) *
                       CheckedCount::fromDim(ws[0]);
  CheckedCount h = CheckedCount::fromDim(getHiddenSize());
  CheckedCount units = steps * h;
  CheckedCount k = CheckedCount::fromDim(xs[2]) + h;
  c.macs = units * CheckedCount(4) * k;
  CheckedCount quantized =
      CheckedCount::fromDim(xs[0]) * CheckedCount::fromDim(xs[1]) *
      CheckedCount::fromDim(xs[2]) + units;
  c.elementwise = units * CheckedCount(16 + (getP() ? 6 : 0) + 8) +
                  quantized * CheckedCount(6);
  c.compare = units * CheckedCount(getClip() ? 8 : 0) +
              quantized * CheckedCount(4);
  c.transcendental = units * CheckedCount(5);
  return c.finish();
}

/// gru, per step, batch row, direction and hidden unit: 3 gates of
/// (input + H)-term dot products; 3 adds per gate; the reset product (1);
/// h' = (1 - z)*n + z*h (4); clip 2 compare steps per gate; 3 transcendental
/// (2 sigmoid, 1 tanh).
FailureOr<OpCounts> GRUOp::getCounts() {
  Counter c(getOperation());
  CheckedCount units =
      rnnSteps(getX(), getW()) * CheckedCount::fromDim(getHiddenSize());
  ArrayRef<int64_t> xs = shapeOf(getX());
  CheckedCount k =
      CheckedCount::fromDim(xs[2]) + CheckedCount::fromDim(getHiddenSize());
  c.macs = units * CheckedCount(3) * k;
  c.elementwise = units * CheckedCount(14);
  c.compare = units * CheckedCount(getClip() ? 6 : 0);
  c.transcendental = units * CheckedCount(3);
  return c.finish();
}

/// rnn, per step, batch row, direction and hidden unit: one (input + H)-term
/// dot product; 3 adds (x.W + h.R + Wb + Rb); clip 2 compare steps; the
/// activation: 1 transcendental for tanh, sigmoid, elu and softplus, else 1
/// elementwise (relu, leaky_relu, thresholded_relu, softsign) or 2
/// (hard_sigmoid), plus 2 compare steps for hard_sigmoid's clamp.
FailureOr<OpCounts> RNNOp::getCounts() {
  Counter c(getOperation());
  CheckedCount units =
      rnnSteps(getX(), getW()) * CheckedCount::fromDim(getHiddenSize());
  ArrayRef<int64_t> xs = shapeOf(getX());
  CheckedCount k =
      CheckedCount::fromDim(xs[2]) + CheckedCount::fromDim(getHiddenSize());
  c.macs = units * k;
  // The dearer of the two directions' activations prices every unit.
  uint64_t e = 0, t = 0, cmp = 0;
  for (Attribute a : getActivations()) {
    StringRef n = cast<StringAttr>(a).getValue();
    bool trans = n == "tanh" || n == "sigmoid" || n == "elu" ||
                 n == "softplus";
    t = std::max<uint64_t>(t, trans ? 1 : 0);
    e = std::max<uint64_t>(e, n == "hard_sigmoid" ? 2 : trans ? 0 : 1);
    cmp = std::max<uint64_t>(cmp, n == "hard_sigmoid" ? 2 : 0);
  }
  c.elementwise = units * CheckedCount(3 + e);
  c.compare = units * CheckedCount((getClip() ? 2 : 0) + cmp);
  c.transcendental = units * CheckedCount(t);
  return c.finish();
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// plumb.if reads its condition; its branches are priced by computeGas (the
/// dearer of the two), since "dearer" needs a schedule.
FailureOr<OpCounts> IfOp::getCounts() {
  Counter c(getOperation(), /*io=*/false);
  c.read = bytes(getCond());
  return c.finish();
}

/// plumb.fused does no work of its own: its gas is its body's, summed by
/// computeGas (docs/gas.md), so fusion never changes a model's gas.
FailureOr<OpCounts> FusedOp::getCounts() {
  Counter c(getOperation(), /*io=*/false);
  return c.finish();
}

//===----------------------------------------------------------------------===//
// Indexed writes
//===----------------------------------------------------------------------===//

/// scatter_nd: the copy of data (bytes), one indexed write per update
/// element, and per update element one add/mul (simple) or one Max/Min
/// (compare) when it combines.
FailureOr<OpCounts> ScatterNDOp::getCounts() {
  Counter c(getOperation());
  CheckedCount u = elems(getUpdates());
  c.indexed = u;
  StringRef r = getReduction();
  if (r == "add" || r == "mul")
    c.elementwise = u;
  else if (r == "max" || r == "min")
    c.compare = u;
  return c.finish();
}
//===----------------------------------------------------------------------===//
// Grid sampling
//===----------------------------------------------------------------------===//

/// grid_sample, per result element over k spatial dims: 4k operations to
/// unnormalize the grid point; nearest reads one tap; linear reads 2^k taps
/// and makes 3k weight operations and 2^k - 1 combinations of two products
/// and one sum; cubic (k = 2) reads 16 taps, makes 28 weight operations per
/// dim and 5 combinations of four products and three sums.
FailureOr<OpCounts> GridSampleOp::getCounts() {
  Counter c(getOperation());
  CheckedCount out = elems(getOutput());
  const uint64_t k = shapeOf(getInput()).size() - 2;
  StringRef m = getMode();
  if (m == "nearest") {
    c.indexed = out;
    c.elementwise = out * CheckedCount(4 * k);
  } else if (m == "linear") {
    const uint64_t taps = uint64_t(1) << k;
    c.indexed = out * CheckedCount(taps);
    c.elementwise = out * CheckedCount(4 * k + 3 * k + 3 * (taps - 1));
  } else {
    c.indexed = out * CheckedCount(16);
    c.elementwise = out * CheckedCount(4 * k + 28 * k + 5 * 7);
  }
  return c.finish();
}

//===----------------------------------------------------------------------===//
// Fourier transforms
//===----------------------------------------------------------------------===//

namespace {
/// dft / stft over `transforms` transforms of n points, nOut bins written:
/// 2n transcendental evaluations (a sine and a cosine per twiddle); per
/// transform and stage s of radix p (n outputs, nOut for the last) p
/// indexed reads and p - 1 complex terms of 8 operations (4 products, the
/// product's 2 sums, 2 accumulations) per output; a window multiplies
/// every loaded part (1 or 2 per point); the inverse divides 2 parts per
/// bin.
FailureOr<OpCounts> dftCounts(Operation *op, int64_t transforms, int64_t n,
                              int64_t nOut, int64_t parts, bool window,
                              bool inverse) {
  Counter c(op);
  ::plumb::rt::ops::DftPlan g;
  if (!::plumb::rt::ops::dftPlan(g, 1, n, 1, 0, n, nOut, 0, 1, 0))
    return failure();
  CheckedCount t = CheckedCount::fromDim(transforms);
  CheckedCount reads(0), terms(0);
  for (int32_t s = 0; s < g.stages; ++s) {
    const uint64_t outs = (uint64_t)(s == g.stages - 1 ? nOut : n);
    reads += CheckedCount(outs) * CheckedCount((uint64_t)g.radix[s]);
    terms += CheckedCount(outs) * CheckedCount((uint64_t)g.radix[s] - 1);
  }
  c.transcendental = CheckedCount(2 * (uint64_t)n);
  c.indexed = t * reads;
  c.elementwise = t * terms * CheckedCount(8);
  if (window)
    c.elementwise += t * CheckedCount((uint64_t)(n * parts));
  if (inverse)
    c.elementwise += t * CheckedCount(2 * (uint64_t)nOut);
  return c.finish();
}
} // namespace

FailureOr<OpCounts> DFTOp::getCounts() {
  ArrayRef<int64_t> x = shapeOf(getInput()), y = shapeOf(getOutput());
  const int64_t axis = getAxis(), r = (int64_t)x.size();
  int64_t transforms = 1;
  for (int64_t d = 0; d < r - 1; ++d)
    if (d != axis)
      transforms *= x[d];
  return dftCounts(getOperation(), transforms, getLength(), y[axis], x[r - 1],
                   false, getInverse());
}

FailureOr<OpCounts> STFTOp::getCounts() {
  ArrayRef<int64_t> x = shapeOf(getSignal()), y = shapeOf(getOutput());
  return dftCounts(getOperation(), x[0] * y[1], getFrameLength(), y[2], x[2],
                   (bool)getWindow(), false);
}
