//===- include/plumb/Driver/Model.h - Loading models ----------*- C++ -*-===//
//
// Part of Plumb. What every front end does first: read a model file (.onnx
// is imported, anything else parsed as plumb IR) and put it into the
// canonical form, with the messages and exit statuses the plumb tool shows
// (1 a bad model, 2 a usage error).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DRIVER_MODEL_H
#define PLUMB_DRIVER_MODEL_H

#include "plumb/Importer/OnnxImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>

namespace plumb {
namespace driver {

/// Why a step failed: the message (what the tool prints after
/// "plumb CMD: error: ") and the exit status it gives (1 a bad model or a
/// failed check, 2 a usage error). `usage`: a mistake on the command line,
/// which the tool prints with its "run 'plumb CMD --help'" hint.
struct Failure {
  int exitCode = 1;
  std::string message;
  bool usage = false;
};

/// A context with every Plumb dialect, single-threaded (what the tools and
/// the Python module compile and run in).
std::unique_ptr<mlir::MLIRContext> makeContext();

/// Whether `opts` binds any input (--input-shape, --dim, --input-value).
bool bindsInputs(const importer::ImportOptions &opts);

/// Loads the model at `path`, canonicalised unless opts.canonicalize is
/// false. Returns null with `failure` set when it cannot.
mlir::OwningOpRef<mlir::ModuleOp>
loadModel(mlir::MLIRContext &ctx, const std::string &path,
          const importer::ImportOptions &opts, Failure &failure);

} // namespace driver
} // namespace plumb

#endif // PLUMB_DRIVER_MODEL_H
