//===- include/plumb/Dispute/Slice.h - Sub-node re-execution ---*- C++ -*-===//
//
// Part of Plumb. A referee that found the first divergent chunk of a node's
// result (docs/dispute.md) recomputes only the output elements of that
// chunk: it derives the box of output elements to compute (the chunk's
// elements, widened to what the op can compute on its own), the box of each
// operand those elements read, and runs the same reference kernel with the
// same reduction tree on those parts. Every output element of a Plumb
// kernel is a function of its own inputs and the op's tree only (the
// determinism contract, docs/determinism.md), so the slice's bits are the
// full run's bits (tested in test/unit/dispute/SliceTest.cpp).
//
// Sliced ops: elementwise unary, binary and variadic ops with broadcasting,
// where, cast (each output element reads the same or the broadcast
// element); batch_norm (per channel); matmul (rows of A, the whole matrices
// of B of the batch); gemm (rows of A, all of B and the rows of C); conv
// (the input window of the output rows, over all input channels of their
// groups, and the weights and biases of their output channels); plumb.fused
// (its head sliced as above, then every body op on the same output box);
// the data movement ops: reshape (the same run of flat indices of the
// input), transpose (the permuted box), slice (the input range the box's
// strided indices cover) and concat (each operand's part of the box along
// the axis).
// Every other op, and any op with more than one result or other regions,
// is executed whole.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DISPUTE_SLICE_H
#define PLUMB_DISPUTE_SLICE_H

#include "plumb/Interpreter/Tensor.h"

#include "mlir/IR/Operation.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace plumb {
namespace dispute {

/// A box of a tensor: per axis the half-open range [lo, hi).
struct Box {
  std::vector<int64_t> lo, hi;
  std::vector<int64_t> shape() const;
  int64_t numElements() const;
  /// The whole of a tensor of `shape`.
  static Box whole(const std::vector<int64_t> &shape);
};

/// What to compute for output elements [first, first + count) of result 0.
struct SlicePlan {
  /// The output elements computed: covers the range.
  Box out;
  /// The parts of values defined outside the node that the computation
  /// reads, in the order executeSlice consumes them: for an op, its
  /// operands in order; for a plumb.fused node, the operands from outside
  /// of each body op in order (a value may appear more than once).
  std::vector<std::pair<mlir::Value, Box>> reads;
  /// For a conv (or a fused node's conv head): the pads and group of the
  /// sliced op.
  std::vector<int64_t> convPads;
  int64_t convGroup = 0;
  /// For a slice: its starts, relative to the input part.
  std::vector<int64_t> sliceStarts;
};

/// Whether the referee can slice `op` at all (else it executes it whole).
bool canSlice(mlir::Operation *op, std::string &why);

/// Plans the computation of output elements [first, first + count) of
/// result 0 of `op`; false (with the reason) where the op is executed whole.
bool planSlice(mlir::Operation *op, int64_t first, int64_t count,
               SlicePlan &plan, std::string &why);

/// Box `b` of `t`, as a tensor of b.shape().
exec::Tensor extractBox(const exec::Tensor &t, const Box &b);

/// The runs of flat element indices of a tensor of `shape` that box `b`
/// covers, in row-major order of the box, as [begin, end) pairs (adjacent
/// runs merged).
std::vector<std::pair<int64_t, int64_t>>
boxRuns(const std::vector<int64_t> &shape, const Box &b);

/// Runs `op` on `parts` (the boxes of plan.reads, in that order), giving the
/// output box `out` (a tensor of plan.out.shape()).
bool executeSlice(mlir::Operation *op, const SlicePlan &plan,
                  llvm::ArrayRef<const exec::Tensor *> parts, exec::Tensor &out,
                  std::string &err);

/// The elements [first, first + count) of a tensor of `shape` taken from
/// `outBox`, the values of box `b` of it (which must cover them), as a 1-D
/// tensor.
exec::Tensor gatherRange(const exec::Tensor &outBox, const Box &b,
                         const std::vector<int64_t> &shape, int64_t first,
                         int64_t count);

} // namespace dispute
} // namespace plumb

#endif // PLUMB_DISPUTE_SLICE_H
