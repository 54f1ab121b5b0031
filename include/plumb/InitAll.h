//===- include/plumb/InitAll.h - The one registration point ----*- C++ -*-===//
//
// Part of Plumb. Every tool registers dialects and passes through here.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_INITALL_H
#define PLUMB_INITALL_H

#include "dialects/Plumb/IR/PlumbDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace plumb {

/// Registers the dialects a Plumb module may contain.
inline void registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<PlumbDialect, mlir::func::FuncDialect>();
}

/// Registers Plumb's passes and the upstream passes Plumb pipelines use
/// (canonicalize, cse, symbol-dce, ...).
inline void registerAllPasses() {
  mlir::registerTransformsPasses();
  registerAllPlumbPasses();
}

} // namespace plumb

#endif // PLUMB_INITALL_H
