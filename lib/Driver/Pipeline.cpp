//===- lib/Driver/Pipeline.cpp - The canonical pipeline -------------------===//
//
// Part of Plumb. See include/plumb/Driver/Pipeline.h.
//
//===----------------------------------------------------------------------===//
#include "plumb/Driver/Pipeline.h"

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

namespace plumb {
namespace driver {

mlir::LogicalResult
runCanonicalPipeline(mlir::ModuleOp module,
                     std::vector<PipelineDiagnostic> *diags) {
  mlir::ScopedDiagnosticHandler handler(
      module.getContext(), [&](mlir::Diagnostic &d) {
        if (diags) {
          std::string loc;
          llvm::raw_string_ostream os(loc);
          os << d.getLocation();
          diags->push_back({d.getSeverity(), os.str(), d.str()});
        }
        return mlir::success();
      });
  mlir::PassManager pm(module.getContext());
  buildCanonicalizePipeline(pm);
  return pm.run(module);
}

bool canonicalize(mlir::ModuleOp module, std::string &err) {
  std::vector<PipelineDiagnostic> diags;
  if (mlir::succeeded(runCanonicalPipeline(module, &diags)))
    return true;
  std::string text;
  for (const PipelineDiagnostic &d : diags)
    text += d.message + "\n";
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  err = "canonicalisation failed" + (text.empty() ? "" : ": " + text);
  return false;
}

} // namespace driver
} // namespace plumb
