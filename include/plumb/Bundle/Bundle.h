//===- include/plumb/Bundle/Bundle.h - Compiled bundles -----------*- C++ -*-===//
//
// Part of Plumb. A bundle is the folder `plumb compile` writes (layout and
// trust model in docs/bundle.md): manifest.json, the canonical IR with its
// weights moved to weights.bin, the emitted C++ and CUDA sources and the
// libraries built from them. Opening a bundle verifies it completely before
// anything runs: every file against the manifest, the graph hash, node table
// and gas recomputed from the IR, the weight image re-derived from the IR,
// and the sources re-emitted from the IR and compared byte for byte. Only
// then is a library built (or taken from the local cache) from those
// re-derived sources; a library shipped inside a bundle is never loaded.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_BUNDLE_BUNDLE_H
#define PLUMB_BUNDLE_BUNDLE_H

#include "plumb/Bundle/Manifest.h"
#include "plumb/Bundle/NativeBuild.h"
#include "plumb/Target/Plan/ModelPlan.h"
#include "plumb/runtime/model_abi.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace plumb {
namespace bundle {

/// The canonical IR text of a bundle: the module printed without its
/// resource blobs (their bytes live in weights.bin).
std::string printBundleIr(mlir::ModuleOp module);

/// The emitted sources of a module, as compile and run derive them.
llvm::Expected<std::string> deriveCpuSource(mlir::ModuleOp module,
                                            const std::string &graphHash);
llvm::Expected<std::string> deriveCudaSource(mlir::ModuleOp module,
                                             const std::string &graphHash);

struct CompileOptions {
  bool buildCpu = true;
  bool buildCuda = true;
  std::string cxx; // host compiler override
  std::string sourceName, sourceSha256;
  std::vector<std::string> importOptions;
  /// The manifest's training section (Manifest::training).
  std::string training;
  /// More files of the bundle (relative path, bytes), listed and hashed in
  /// the manifest like the others.
  std::vector<std::pair<std::string, std::string>> extraFiles;
  ProgressFn progress;
};

/// Writes the bundle of the canonical `module` into `dir`. An existing `dir`
/// must be a bundle (or empty) and is replaced only once the new one is
/// complete.
llvm::Expected<Manifest> writeBundle(mlir::ModuleOp module,
                                     const std::string &dir,
                                     const CompileOptions &opts);

/// A verified bundle. It owns the context its module lives in: resource
/// names are bound to weights.bin by name, which needs a context where no
/// other module has claimed them.
struct Bundle {
  std::string dir;
  Manifest manifest;
  std::unique_ptr<llvm::MemoryBuffer> weights; // weights.bin, mapped
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;    // blobs point into `weights`
  std::string cpuSource, cudaSource;           // as re-derived
};

struct OpenOptions {
  /// Re-emit the sources of these targets and compare them with the files.
  bool checkCpu = true;
  bool checkCuda = false;
};

/// Opens and verifies the bundle in `dir` (see above). Any mismatch is an
/// error naming the file and what differs.
llvm::Expected<std::unique_ptr<Bundle>> openBundle(const std::string &dir,
                                                   const OpenOptions &opts);
/// The same; `ctx` is not used (the bundle's module lives in the bundle's
/// own context). Kept for callers written against the first interface.
inline llvm::Expected<std::unique_ptr<Bundle>>
openBundle(mlir::MLIRContext &ctx, const std::string &dir,
           const OpenOptions &opts) {
  (void)ctx;
  return openBundle(dir, opts);
}

/// Whether `path` looks like a bundle folder (has a manifest.json).
bool isBundleDir(const std::string &path);

/// A loaded model library.
class NativeModel {
public:
  ~NativeModel();
  /// dlopens `path` and checks its ABI version and graph hash.
  static llvm::Expected<std::unique_ptr<NativeModel>>
  load(const std::string &path, const std::string &graphHash);
  void setThreads(int n);
  /// Whether the library has plumb_model_run_traced (model_abi.h): a run
  /// given a hook and a fence then keeps each node's results in place until
  /// the fence for that node returned, so a recorder reads them there.
  bool canRunTraced() const { return runTracedFn != nullptr; }
  /// Whether the library has plumb_model_run_observed (CUDA models): the
  /// hook then sees copies of the results, later and from another thread.
  bool canRunObserved() const { return runObservedFn != nullptr; }
  /// With `fence` (only where canRunTraced()), the traced entry point runs;
  /// with `observed` (only where canRunObserved()), the observed one.
  bool run(const void *weights, const plumb_tensor_view *inputs,
           plumb_tensor_view *outputs, plumb_node_hook hook, void *user,
           std::string &err, plumb_node_fence fence = nullptr,
           bool observed = false);
  const std::string &path() const { return libPath; }

private:
  NativeModel() = default;
  void *handle = nullptr;
  plumb_model_run_fn runFn = nullptr;
  void (*setThreadsFn)(int32_t) = nullptr;
  plumb_model_run_traced_fn runTracedFn = nullptr;
  plumb_model_run_fn runObservedFn = nullptr;
  std::string libPath;
};

/// Builds the library of a verified bundle's target ("cpu" or "cuda") from
/// its re-derived source, or takes it from the cache, and loads it.
llvm::Expected<std::unique_ptr<NativeModel>>
loadBundleLibrary(const Bundle &b, const std::string &target,
                  const std::string &cxx, const ProgressFn &progress);

} // namespace bundle
} // namespace plumb

#endif // PLUMB_BUNDLE_BUNDLE_H
