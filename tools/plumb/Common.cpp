//===- tools/plumb/Common.cpp - Shared pieces of the plumb driver ---------===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

namespace plumb {
namespace tool {

int fail(const char *cmd, const std::string &msg) {
  std::fprintf(stderr, "plumb %s: error: %s\n", cmd, msg.c_str());
  return 1;
}

int report(const driver::Failure &f, const char *cmd) {
  if (f.usage)
    return usageError(f.message, cmd);
  fail(cmd, f.message);
  return f.exitCode;
}

mlir::OwningOpRef<mlir::ModuleOp> loadModel(mlir::MLIRContext &ctx,
                                            const std::string &path,
                                            const importer::ImportOptions &opts,
                                            const char *cmd, int &exitCode) {
  driver::Failure f;
  auto module = driver::loadModel(ctx, path, opts, f);
  if (!module)
    exitCode = report(f, cmd);
  return module;
}

} // namespace tool
} // namespace plumb
