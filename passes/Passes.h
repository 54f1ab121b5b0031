//===- passes/Passes.h - Plumb's passes ------------------------*- C++ -*-===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_PASSES_PASSES_H
#define PLUMB_PASSES_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace plumb {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

/// The plumb-canonicalize pipeline: verify, simplify, fold constants, CSE,
/// DCE, materialise trees, fuse elementwise chains, canonical order.
/// docs/canonical.md.
void buildCanonicalizePipeline(mlir::OpPassManager &pm);

/// Registers every pass and the plumb-canonicalize pipeline.
void registerAllPlumbPasses();

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace plumb

#endif // PLUMB_PASSES_PASSES_H
