//===- include/plumb/Driver/Pipeline.h - The canonical pipeline -*- C++ -*-===//
//
// Part of Plumb. The one entry point that puts a module into the canonical
// form (the plumb-canonicalize pipeline, passes/Pipeline.cpp): node indices
// in traces, manifests and disputes are positions in that form. Every front
// end (the plumb tool, the Python module) and library that canonicalises
// calls this; each formats the diagnostics its own way.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DRIVER_PIPELINE_H
#define PLUMB_DRIVER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include <string>
#include <vector>

namespace plumb {
namespace driver {

/// One diagnostic the pipeline emitted.
struct PipelineDiagnostic {
  mlir::DiagnosticSeverity severity;
  std::string location; // as MLIR prints it
  std::string message;
};

/// Runs plumb-canonicalize on `module` (keeps every result bit). The
/// diagnostics it emits are collected into `diags` (when given), never
/// printed.
mlir::LogicalResult
runCanonicalPipeline(mlir::ModuleOp module,
                     std::vector<PipelineDiagnostic> *diags = nullptr);

/// The same, with the error text front ends show: "canonicalisation
/// failed: " and every diagnostic's message, one a line.
bool canonicalize(mlir::ModuleOp module, std::string &err);

} // namespace driver
} // namespace plumb

#endif // PLUMB_DRIVER_PIPELINE_H
