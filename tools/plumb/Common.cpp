//===- tools/plumb/Common.cpp - Shared pieces of the plumb driver ---------===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/InitAll.h"
#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"

#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

#include <algorithm>

#include <cstdio>

namespace plumb {
namespace tool {

int usageError(const std::string &msg, const char *cmd) {
  std::fprintf(stderr, "plumb%s%s: error: %s\n", cmd ? " " : "", cmd ? cmd : "",
               msg.c_str());
  std::fprintf(stderr, "run 'plumb %s--help' for usage\n",
               cmd ? (std::string(cmd) + " ").c_str() : "");
  return 2;
}

/// Takes the value of an option given as "--opt=V" or "--opt V".
bool takeValue(std::vector<std::string> &args, size_t &i, const std::string &opt,
               std::string &value, bool &missing) {
  const std::string &a = args[i];
  missing = false;
  if (a == opt) {
    if (i + 1 >= args.size()) {
      missing = true;
      return true;
    }
    value = args[++i];
    return true;
  }
  if (a.size() > opt.size() + 1 && a.compare(0, opt.size(), opt) == 0 &&
      a[opt.size()] == '=') {
    value = a.substr(opt.size() + 1);
    return true;
  }
  return false;
}

bool intOption(const std::string &opt, const std::string &v, bool missing,
               long lo, long hi, int &out, std::string &error) {
  char *end = nullptr;
  long n = missing ? lo - 1 : std::strtol(v.c_str(), &end, 10);
  if (missing || v.empty() || *end || n < lo || n > hi) {
    error = "option '" + opt + "' needs a number from " + std::to_string(lo) +
            " to " + std::to_string(hi);
    return false;
  }
  out = (int)n;
  return true;
}

} // namespace tool
} // namespace plumb

namespace plumb {
namespace tool {

int takeImportOption(std::vector<std::string> &args, size_t &i,
                     importer::ImportOptions &opts, const char *cmd) {
  std::string v;
  bool missing;
  importer::ImportError e;
  const std::string a = args[i];
  if (a == "--no-canonicalize") {
    opts.canonicalize = false;
    return 1;
  }
  if (takeValue(args, i, "--input-shape", v, missing)) {
    if (missing)
      return usageError("option '--input-shape' needs NAME=DIMS", cmd), -1;
    if (!importer::parseInputShape(v, opts.bindings, e))
      return usageError(e.message, cmd), -1;
    return 1;
  }
  if (takeValue(args, i, "--dim", v, missing)) {
    if (missing)
      return usageError("option '--dim' needs SYMBOL=N", cmd), -1;
    if (!importer::parseDim(v, opts.bindings, e))
      return usageError(e.message, cmd), -1;
    return 1;
  }
  if (takeValue(args, i, "--input-value", v, missing)) {
    if (missing)
      return usageError("option '--input-value' needs NAME=V", cmd), -1;
    if (!importer::parseInputValue(v, opts.bindings, e))
      return usageError(e.message, cmd), -1;
    return 1;
  }
  return 0;
}

mlir::LogicalResult canonicalize(mlir::ModuleOp module, const char *cmd,
                                 const std::string &path) {
  std::string diag;
  mlir::ScopedDiagnosticHandler handler(
      module.getContext(), [&](mlir::Diagnostic &d) {
        if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
          diag += (diag.empty() ? "" : "; ") + d.str();
        return mlir::success();
      });
  mlir::PassManager pm(module.getContext());
  buildCanonicalizePipeline(pm);
  if (mlir::failed(pm.run(module))) {
    std::fprintf(stderr, "plumb %s: error: %s: canonicalization failed: %s\n",
                 cmd, path.c_str(), diag.c_str());
    return mlir::failure();
  }
  return mlir::success();
}

mlir::OwningOpRef<mlir::ModuleOp> loadModel(mlir::MLIRContext &ctx,
                                            const std::string &path,
                                            const importer::ImportOptions &opts,
                                            const char *cmd, int &exitCode) {
  bool onnx = path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
  if (onnx) {
    importer::ImportError err;
    auto module = importer::importOnnxFile(ctx, path, opts, err);
    if (!module) {
      std::fprintf(stderr, "plumb %s: error: %s: %s\n", cmd, path.c_str(),
                   err.message.c_str());
      exitCode = err.exitCode ? err.exitCode : 1;
      return module;
    }
    if (opts.canonicalize && failed(canonicalize(*module, cmd, path))) {
      exitCode = 1;
      return nullptr;
    }
    return module;
  }
  if (!opts.bindings.inputShapes.empty() || !opts.bindings.dims.empty() ||
      !opts.bindings.inputValues.empty()) {
    usageError("--input-shape, --dim and --input-value apply to .onnx models",
               cmd);
    exitCode = 2;
    return nullptr;
  }
  std::string diag;
  llvm::raw_string_ostream os(diag);
  llvm::SourceMgr sm;
  mlir::SourceMgrDiagnosticHandler handler(sm, &ctx, os);
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(path, sm, &ctx);
  if (!module) {
    std::fprintf(stderr, "plumb %s: error: cannot load '%s'%s%s\n", cmd,
                 path.c_str(), diag.empty() ? "" : ":\n",
                 os.str().c_str());
    exitCode = 1;
    return module;
  }
  if (opts.canonicalize && failed(canonicalize(*module, cmd, path))) {
    exitCode = 1;
    return nullptr;
  }
  return module;
}

bool modelInputNames(mlir::func::FuncOp func,
                     const std::map<std::string, std::string> &inputFiles,
                     const char *cmd, std::vector<std::string> &names) {
  unsigned nargs = func.getNumArguments();
  names.assign(nargs, std::string());
  for (unsigned i = 0; i < nargs; ++i) {
    auto n = func.getArgAttrOfType<mlir::StringAttr>(i, "plumb.name");
    names[i] = n ? n.str() : "#" + std::to_string(i);
  }
  for (auto &kv : inputFiles)
    if (std::find(names.begin(), names.end(), kv.first) == names.end()) {
      usageError("--input names '" + kv.first +
                     "', which is not an input of the model",
                 cmd);
      return false;
    }
  return true;
}

std::string modelInputFile(unsigned i, const std::string &name,
                           const std::map<std::string, std::string> &inputFiles,
                           const std::string &inputsDir) {
  auto given = inputFiles.find(name);
  if (given != inputFiles.end())
    return given->second;
  if (!inputsDir.empty())
    for (const char *ext : {".pb", ".npy"}) {
      std::string p = inputsDir + "/input_" + std::to_string(i) + ext;
      if (llvm::sys::fs::exists(p))
        return p;
    }
  return "";
}

} // namespace tool
} // namespace plumb
