//===- PlumbFusion.h - Which ops plumb.fused may hold ----------*- C++ -*-===//
//
// Part of Plumb. The rules of elementwise fusion (docs/canonical.md), shared
// by the plumb.fused verifier, the plumb-fuse-elementwise pass and the code
// generators, so the three can never disagree.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DIALECT_PLUMBFUSION_H
#define PLUMB_DIALECT_PLUMBFUSION_H

#include "mlir/IR/Operation.h"

namespace plumb {

/// A reducing op that may start a fused chain: plumb.conv, plumb.matmul,
/// plumb.gemm (float32).
bool isFusionHead(mlir::Operation *op);

/// A float32 elementwise op that may continue a chain: unary arithmetic
/// (not cast), add/sub/mul/div/pow, sum/max/min, batch_norm.
bool isFusibleElementwise(mlir::Operation *op);

/// Whether `op` may take `chained` (one of its operands, the previous
/// value of the chain) as its chain operand: an elementwise op whose result
/// has the shape and type of `chained` (the chain value is never broadcast)
/// and, for batch_norm, which takes it as its data input (operand 0).
bool canContinueChain(mlir::Operation *op, mlir::Value chained);

} // namespace plumb

#endif // PLUMB_DIALECT_PLUMBFUSION_H
