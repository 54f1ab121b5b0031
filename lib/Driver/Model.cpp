//===- lib/Driver/Model.cpp - Loading models ------------------------------===//
//
// Part of Plumb. See include/plumb/Driver/Model.h.
//
//===----------------------------------------------------------------------===//
#include "plumb/Driver/Model.h"

#include "plumb/Driver/Pipeline.h"
#include "plumb/InitAll.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace plumb {
namespace driver {

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->disableMultithreading();
  return ctx;
}

bool bindsInputs(const importer::ImportOptions &opts) {
  return !opts.bindings.inputShapes.empty() || !opts.bindings.dims.empty() ||
         !opts.bindings.inputValues.empty();
}

namespace {

/// The pipeline's errors as loadModel reports them: messages joined by "; ".
bool canonicalizeOrFail(mlir::ModuleOp module, const std::string &path,
                        Failure &failure) {
  std::vector<PipelineDiagnostic> diags;
  if (mlir::succeeded(runCanonicalPipeline(module, &diags)))
    return true;
  std::string text;
  for (const PipelineDiagnostic &d : diags)
    if (d.severity == mlir::DiagnosticSeverity::Error)
      text += (text.empty() ? "" : "; ") + d.message;
  failure = {1, path + ": canonicalization failed: " + text};
  return false;
}

} // namespace

mlir::OwningOpRef<mlir::ModuleOp>
loadModel(mlir::MLIRContext &ctx, const std::string &path,
          const importer::ImportOptions &opts, Failure &failure) {
  bool onnx = path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (onnx) {
    importer::ImportError err;
    module = importer::importOnnxFile(ctx, path, opts, err);
    if (!module) {
      failure = {err.exitCode ? err.exitCode : 1, path + ": " + err.message};
      return module;
    }
  } else {
    if (bindsInputs(opts)) {
      failure = {2,
                 "--input-shape, --dim and --input-value apply to .onnx models",
                 true};
      return nullptr;
    }
    std::string diag;
    llvm::raw_string_ostream os(diag);
    llvm::SourceMgr sm;
    mlir::SourceMgrDiagnosticHandler handler(sm, &ctx, os);
    module = mlir::parseSourceFile<mlir::ModuleOp>(path, sm, &ctx);
    if (!module) {
      failure = {1, "cannot load '" + path + "'" +
                        (os.str().empty() ? "" : ":\n" + os.str())};
      return module;
    }
  }
  if (opts.canonicalize && !canonicalizeOrFail(*module, path, failure))
    return nullptr;
  return module;
}

} // namespace driver
} // namespace plumb
