//===- tools/plumb/CompiledRun.h - The compiled path of plumb run -*- C++ -*-===//
//
// Part of Plumb. Implemented in CmdCompile.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TOOLS_PLUMB_COMPILEDRUN_H
#define PLUMB_TOOLS_PLUMB_COMPILEDRUN_H

#include "plumb/Bundle/Bundle.h"
#include "plumb/Interpreter/Tensor.h"
#include "plumb/runtime/model_abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <memory>
#include <string>
#include <vector>

namespace plumb {
namespace tool {

/// Opens and verifies a bundle; prints why it is refused (exit status 1).
std::unique_ptr<bundle::Bundle> openBundleForRun(const std::string &path,
                                                 const std::string &device,
                                                 bool interpret, int &exitCode);
/// The bundle of the canonical `module` in the cache (keyed by graph hash),
/// compiled there first when absent or stale.
std::unique_ptr<bundle::Bundle> compileIntoCache(mlir::ModuleOp module,
                                                 const std::string &model,
                                                 const std::string &device,
                                                 int &exitCode);
/// Builds (or takes from the cache) and loads the bundle's library.
std::unique_ptr<bundle::NativeModel>
loadNativeForRun(const bundle::Bundle &b, const std::string &device);
/// The interpreter's input checks (type, shape, bound values).
bool checkRunInputs(mlir::func::FuncOp func,
                    llvm::ArrayRef<exec::Tensor> inputs, std::string &err);
/// Runs the loaded library once; allocates `outputs`. With `fence` the
/// traced entry point runs, with `observed` the observed one
/// (NativeModel::run).
bool runNative(bundle::NativeModel &native, const bundle::Bundle &b,
               mlir::func::FuncOp func, llvm::ArrayRef<exec::Tensor> inputs,
               std::vector<exec::Tensor> &outputs, plumb_node_hook hook,
               void *user, std::string &err,
               plumb_node_fence fence = nullptr, bool observed = false);

} // namespace tool
} // namespace plumb

#endif // PLUMB_TOOLS_PLUMB_COMPILEDRUN_H
