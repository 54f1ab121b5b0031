//===- include/plumb/Bundle/Run.h - Running models ------------*- C++ -*-===//
//
// Part of Plumb. What `plumb run` and the Python module do to run a model:
// open a bundle as a run verifies it, compile a model file into the bundle
// cache (keyed by graph hash), load a bundle's library, and run it, compiled
// or with the reference interpreter, once or repeatedly (every repeat must
// give the first run's bits), with a trace, injected faults or another
// reduction tree (testing aids, docs/dispute.md). Messages are the tool's,
// without its "plumb run: error: " prefix.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_BUNDLE_RUN_H
#define PLUMB_BUNDLE_RUN_H

#include "plumb/Bundle/Bundle.h"
#include "plumb/Interpreter/Tensor.h"
#include "plumb/Trace/TraceRecorder.h"
#include "plumb/runtime/model_abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <string>
#include <vector>

namespace plumb {
namespace bundle {

/// How a run opens a bundle: verified completely, with the source of the
/// target it runs on re-derived (none when the interpreter runs it).
OpenOptions runOpenOptions(const std::string &device, bool interpret);

/// Opens `path` for a run on `device` (see runOpenOptions); the error says
/// why the bundle is refused ("refusing bundle 'P': ...").
llvm::Expected<std::unique_ptr<Bundle>>
openBundleForRun(const std::string &path, const std::string &device,
                 bool interpret);

/// The bundle of the canonical `module` in the cache ($PLUMB_CACHE_DIR or
/// ~/.cache/plumb, bundles/<graph hash>), compiled there first when absent
/// or stale. `sourcePath` is the model file it came from (the manifest
/// records its name and hash). Progress lines go to `progress`.
llvm::Expected<std::unique_ptr<Bundle>>
compileIntoCache(mlir::ModuleOp module, const std::string &sourcePath,
                 const std::string &device, const ProgressFn &progress);

/// Runs a loaded library once on `inputs`, writing into `outputs` (data
/// allocated by the caller, in @main's result types). With `fence` the
/// traced entry point runs, with `observed` the observed one
/// (NativeModel::run).
bool runNative(NativeModel &native, const Bundle &b,
               llvm::ArrayRef<plumb_tensor_view> inputs,
               llvm::MutableArrayRef<plumb_tensor_view> outputs,
               plumb_node_hook hook, void *user, std::string &err,
               plumb_node_fence fence = nullptr, bool observed = false);
/// The same on tensors; allocates `outputs`.
bool runNative(NativeModel &native, const Bundle &b, mlir::func::FuncOp func,
               llvm::ArrayRef<exec::Tensor> inputs,
               std::vector<exec::Tensor> &outputs, plumb_node_hook hook,
               void *user, std::string &err, plumb_node_fence fence = nullptr,
               bool observed = false);

struct RunOptions {
  int threads = 1;
  std::string device = "cpu";
  /// Run the IR with the reference interpreter (identical bits).
  bool interpret = false;
  /// Record a trace into this folder (docs/trace.md).
  std::string traceDir;
  bool keepTensors = false;
  /// Background hashing threads; -1: the cores `threads` leaves free, at
  /// most 8.
  int hashThreads = -1;
  std::vector<trace::BitFlip> faults;
  std::vector<trace::TreeOverride> treeOverrides;
  /// Lines about building the library.
  ProgressFn progress;
  /// A library already loaded for this bundle and device (not owned);
  /// otherwise prepare() builds or takes one from the cache.
  NativeModel *native = nullptr;

  /// Whether every node's results go through the hook (a trace, a fault
  /// or a tree override).
  bool hooked() const {
    return !traceDir.empty() || !faults.empty() || !treeOverrides.empty();
  }
};

/// What a run allocates, in bytes, computed from the types of @main and
/// the bundle's manifest before anything is allocated (`plumb run
/// --max-memory`, docs/security.md). Sums saturate at UINT64_MAX.
struct MemoryEstimate {
  /// The bundle's weights.bin (mapped when the bundle is opened) or, for a
  /// model run without a bundle, the constants of the module.
  uint64_t weights = 0;
  /// The compiled library's arena (the traced entry point's when the run
  /// is traced); the interpreter: every node's results (it may hold them
  /// all until the run ends).
  uint64_t arena = 0;
  uint64_t inputs = 0, outputs = 0;
  /// Copies queued for background hashing of a traced compiled run
  /// (bounded by the recorder's 768 MiB of copies and spare buffers).
  uint64_t trace = 0;
  uint64_t total() const;
  /// "N bytes (weights W, arena A, inputs I, outputs O, trace T)".
  std::string describe() const;
};
MemoryEstimate estimateRunMemory(mlir::ModuleOp module, const Bundle *bundle,
                                 const RunOptions &opts);

/// Parses a byte count with an optional binary suffix: "4096", "512K",
/// "512M", "4G", "1T" (also "512MiB", "4GB"; K = 1024). False with `err`
/// on anything else or on overflow.
bool parseByteSize(const std::string &text, uint64_t &out, std::string &err);

/// Latency of repeated runs, in milliseconds.
struct RepeatTimes {
  int runs = 0;
  double median = 0, best = 0;
  /// Time spent hashing node outputs (the median over the repeats; the
  /// first run's when there were none).
  double hashMs = 0, backgroundHashMs = 0;
};

/// One node's share of a profiled run (`plumb run --profile`).
struct NodeProfile {
  int64_t index = 0; ///< canonical index
  std::string op;    ///< "plumb.fused(conv,relu)"
  std::string shapes;
  double ms = 0;     ///< median over the profiled runs
  uint64_t flops = 0, bytes = 0; ///< the cost model's counts (docs/gas.md)
};

/// Where a run's time goes: every node, dearest first.
struct ProfileReport {
  int runs = 0;
  double runMs = 0;   ///< median latency of the profiled runs
  double nodesMs = 0; ///< sum of the nodes' medians
  std::vector<NodeProfile> nodes;
};

/// One model, run as `plumb run` runs it.
class Runner {
public:
  /// Runs `module`'s @main: compiled from `bundle` (whose module it is),
  /// or, with opts.interpret or without a bundle, with the interpreter.
  Runner(mlir::ModuleOp module, const Bundle *bundle, RunOptions opts);
  ~Runner();

  mlir::func::FuncOp main() const { return func; }
  bool compiled() const { return bundle && !opts.interpret; }

  /// Before the first run: sets up the trace (the node table, faults and
  /// tree overrides checked and applied) and, for a compiled run, checks
  /// `inputs` and loads the library.
  bool prepare(llvm::ArrayRef<exec::Tensor> inputs, std::string &err);
  /// The first run: recorded into the trace, which is written at its end.
  bool run(llvm::ArrayRef<exec::Tensor> inputs,
           std::vector<exec::Tensor> &outputs, std::string &err);
  /// `n` more runs; each must give `first` (the first run's outputs) and,
  /// when hooked, the first run's trace root.
  bool repeat(int n, llvm::ArrayRef<exec::Tensor> inputs,
              const std::vector<exec::Tensor> &first, RepeatTimes &times,
              std::string &err);

  /// `runs` more runs, each timing every node (a clock read after each
  /// node: nothing else is added to the run); each must give `first`.
  bool profile(int runs, llvm::ArrayRef<exec::Tensor> inputs,
               const std::vector<exec::Tensor> &first, ProfileReport &report,
               std::string &err);

  /// The first run's trace (when hooked).
  const trace::Trace &trace() const;
  int hashThreads() const { return opts.hashThreads; }

private:
  bool runOnce(trace::TraceRecorder *rec, llvm::ArrayRef<exec::Tensor> inputs,
               std::vector<exec::Tensor> &outputs, std::string &err);
  bool runInterpreted(trace::TraceRecorder *rec,
                      llvm::ArrayRef<exec::Tensor> inputs,
                      std::vector<exec::Tensor> &outputs, std::string &err);
  bool runCompiled(trace::TraceRecorder *rec,
                   llvm::ArrayRef<exec::Tensor> inputs,
                   std::vector<exec::Tensor> &outputs, std::string &err);
  bool prepareTrace(llvm::ArrayRef<exec::Tensor> inputs, std::string &err);

  mlir::ModuleOp module;
  mlir::func::FuncOp func;
  const Bundle *bundle;
  RunOptions opts;
  std::unique_ptr<NativeModel> ownNative;
  NativeModel *native = nullptr;
  trace::TraceRecorder recorder;
  llvm::DenseMap<mlir::Operation *, int64_t> nodeIndex;
  /// What the trace says was done on purpose (faults, tree overrides).
  std::string note;
  /// The first error of a fault injection in the hook.
  std::string hookErr;
};

} // namespace bundle
} // namespace plumb

#endif // PLUMB_BUNDLE_RUN_H
