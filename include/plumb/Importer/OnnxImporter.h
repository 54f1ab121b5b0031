//===- include/plumb/Importer/OnnxImporter.h - ONNX to plumb IR -*- C++ -*-===//
//
// Part of Plumb. Imports an ONNX model into a module holding one
// `func.func @main` of plumb ops with static shapes everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_IMPORTER_ONNXIMPORTER_H
#define PLUMB_IMPORTER_ONNXIMPORTER_H

#include "plumb/Importer/ModelLoader.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace plumb {
namespace importer {

struct ImportOptions {
  InputBindings bindings;
  LoadLimits limits;
  /// Constants of at least this many bytes become dense_resource blobs.
  int64_t resourceThresholdBytes = 256;
  /// Whether tools run the plumb-canonicalize pipeline after loading
  /// (`--no-canonicalize` turns it off). The importer itself ignores it.
  bool canonicalize = true;
  /// Mark each top-level initializer's constant with its name
  /// (`plumb.initializer`), for `plumb compile --train`, which turns the
  /// float ones into parameters. Off for everything else (the attribute
  /// would change the graph hash).
  bool nameInitializers = false;
};

/// Imports the model at `path`. On failure returns null and fills `err` with
/// a message naming the node (and exit code 1), or every unsupported
/// operator at once.
mlir::OwningOpRef<mlir::ModuleOp> importOnnxFile(mlir::MLIRContext &ctx,
                                                 const std::string &path,
                                                 const ImportOptions &options,
                                                 ImportError &err);

/// The ONNX operator types (default domain) the importer maps.
const std::vector<std::string> &supportedOnnxOps();

/// One supported operator as `plumb import --list-ops` prints it.
struct SupportedOp {
  std::string name;
  int64_t firstOpset, lastOpset;
  /// Element types of its data operands ("float32", "int64", ...).
  std::vector<std::string> types;
};
/// Every supported operator of the default domain, sorted by name (those
/// the importer only recognises to refuse with an explanation are not).
std::vector<SupportedOp> supportedOps();


} // namespace importer
} // namespace plumb

#endif // PLUMB_IMPORTER_ONNXIMPORTER_H
