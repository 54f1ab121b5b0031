//===- include/plumb/Target/Cpp/Epilogue.h - Fused chain tails -*- C++ -*-===//
//
// Part of Plumb. The per-element form of a plumb.fused chain's tail (the
// elementwise ops after a conv head), as a C++ function the conv kernels
// call on finished output ranges (plumb_rt_epilogue, runtime conv.h). Each
// op is written with the same scalar function the runtime's elementwise
// kernel applies (runtime/include/plumb/runtime/elementwise.h, norm.h), in
// the body's order, so every element gets the bits the op-by-op run gives;
// the compiled-vs-interpreted tests check it on every model.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TARGET_CPP_EPILOGUE_H
#define PLUMB_TARGET_CPP_EPILOGUE_H

#include "dialects/Plumb/IR/PlumbOps.h"

#include <string>
#include <vector>

namespace plumb {
namespace target {

struct EpilogueCode {
  /// The definition of a plumb_rt_epilogue_fn named as requested; its ctx
  /// is a `const float *const *` array holding `externals` in order.
  std::string function;
  /// The values the tail reads besides the chain (weights, earlier nodes).
  std::vector<mlir::Value> externals;
  /// Flat chains only: one-element operands, whose values the caller
  /// copies into a float array passed as the ctx entry after `externals`
  /// (read before any thread writes the result, which may share storage).
  std::vector<mlir::Value> scalars;
};

/// Builds the epilogue of `f` (a plumb.fused whose head is a plumb.conv).
/// With `inPlace` the final values overwrite the conv's output (which then
/// is the fused result's buffer); otherwise they go to the fused result,
/// whose base the caller passes as one more ctx entry after `externals`.
/// Returns false, leaving a reason in `why`, when some tail op or operand
/// layout has no per-element form here; the chain then runs op by op.
bool buildConvEpilogue(FusedOp f, const std::string &name, bool inPlace,
                       EpilogueCode &out, std::string &why);

/// A run of a plumb.fused chain whose head is elementwise: the longest
/// run chain[first, first + n) of f32 ops of the result's shape whose
/// operands are of that shape or scalars, each with a per-element form
/// (0 when chain[first] has none).
size_t flatChainLength(FusedOp f, size_t first);

/// The per-element loop of chain[first, last) as a plumb_rt_epilogue_fn
/// over flat ranges of the result (runtime elementwise.h,
/// plumb_rt_elementwise_apply, passes n = co = 0): element i reads the
/// head's first operand (first == 0) or the previous chain value in the
/// result's buffer, applies each op's scalar function, and stores in place.
bool buildFlatChain(FusedOp f, size_t first, size_t last,
                    const std::string &name, EpilogueCode &out);

} // namespace target
} // namespace plumb

#endif // PLUMB_TARGET_CPP_EPILOGUE_H
