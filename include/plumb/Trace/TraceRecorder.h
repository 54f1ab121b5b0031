//===- include/plumb/Trace/TraceRecorder.h - Recording traces -*- C++ -*-===//
//
// Part of Plumb. Records a trace while a model runs, through the per-node
// hook both execution paths share: model_abi.h's plumb_node_hook for
// compiled models and the interpreter's mutable node callback. The same hook
// injects faults (testing aids for disputes): a bit flip in one node's first
// output element, or a different reduction tree at one node.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TRACE_TRACERECORDER_H
#define PLUMB_TRACE_TRACERECORDER_H

#include "plumb/Interpreter/Tensor.h"
#include "plumb/Trace/Trace.h"
#include "plumb/runtime/model_abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace plumb {
namespace trace {

/// Node indices in traces, manifests and disputes are positions in the
/// canonical order (driver::runCanonicalPipeline, Driver/Pipeline.h).

/// Canonical index of every node of @main (Support/Nodes.h); ops nested in
/// regions are absent.
llvm::DenseMap<mlir::Operation *, int64_t> nodeIndexMap(mlir::func::FuncOp main);

/// Collects per-node hashes of one run and writes the trace folder.
///
/// Hashing can run on background threads, overlapped with the run, so a
/// trace costs the run little where cores are free: the hook then only
/// queues the work (copying the data, unless the caller lends it until
/// drain()). Without threads the hook hashes in place.
class TraceRecorder {
public:
  /// `dir` empty: hashes only (nothing is written).
  TraceRecorder(std::string dir, bool keepTensors);
  ~TraceRecorder();
  TraceRecorder(const TraceRecorder &) = delete;
  TraceRecorder &operator=(const TraceRecorder &) = delete;

  /// Hash on `n` background threads (0, the default: in the hook).
  void setHashThreads(unsigned n);

  /// Starts a run of the canonical module `module` on `inputs` (in @main's
  /// argument order): fills the node table and graph hash, writes inputs
  /// when keeping tensors. The node table and graph hash are computed on
  /// the first run of a module and kept for the recorder's next runs of
  /// the same module (which must not change in between).
  bool begin(mlir::ModuleOp module, llvm::ArrayRef<exec::Tensor> inputs,
             std::string &err);

  /// Records node `index`'s results. Nodes arrive in canonical order, each
  /// once; anything else is reported by finish(). `lent`: the data stay
  /// valid and unchanged until waitHashed(index) or drain() returned (no
  /// copy is made for background hashing).
  void recordNode(int64_t index, int32_t numResults,
                  const plumb_tensor_view *results, bool lent = false);
  void recordNode(int64_t index, llvm::ArrayRef<exec::Tensor> results,
                  bool lent = false);
  /// Waits until every queued hash is done.
  void drain();
  /// Waits until the results of nodes 0..index are hashed (no longer
  /// read), hashing queued chunks meanwhile: the fence of traced compiled
  /// runs (model_abi.h's plumb_node_fence).
  void waitHashed(int64_t index);

  /// The plumb_node_hook trampoline; `user` is the TraceRecorder.
  static void abiHook(void *user, int64_t nodeIndex, int32_t numResults,
                      const plumb_tensor_view *results);

  /// Checks every node was recorded, seals the trace and writes trace.json.
  /// `runMs` is the run's wall time; the time spent writing tensors is
  /// taken off it for the manifest's informational run_ms.
  bool finish(double runMs, const std::string &note, std::string &err);

  const Trace &trace() const { return t; }
  /// Seconds the hook spent on hashes (hashing, or queueing them), seconds
  /// of hashing done on background threads (all threads together), and
  /// seconds spent writing tensors.
  double hashSeconds() const { return hashSec; }
  double backgroundHashSeconds() const;
  double writeSeconds() const { return writeSec; }

private:
  struct Pool;
  std::string dir;
  bool keep;
  Trace t;
  int64_t next = 0;
  std::string firstError;
  double hashSec = 0;
  double writeSec = 0;
  /// Shared by every recorder with the same thread count (one at a time).
  std::shared_ptr<Pool> pool;
  double busyBase = 0; // the pool's busy seconds when this run began
  /// Per node, its queued hash jobs not finished; nodes before
  /// hashedThrough + 1 have none.
  std::unique_ptr<std::atomic<int>[]> nodePending;
  int64_t hashedThrough = -1;
  /// The module of the last begin() and what begin() took from it.
  struct Header {
    mlir::Operation *module = nullptr, *first = nullptr, *last = nullptr;
    std::string contract;
    Digest graphHash{};
    std::vector<NodeRecord> nodes;
  } header;
};

/// `plumb run --inject-fault node=K,bit=B`.
struct BitFlip {
  int64_t node = -1;
  int64_t bit = 0;
};
/// Parses "node=K,bit=B" (either order).
bool parseBitFlip(const std::string &spec, BitFlip &out, std::string &err);
/// Flips bit `bit` of element 0 of `t` (bit 0 = least significant of the
/// little-endian element; bools flip their 0/1 value).
bool flipBit(exec::Tensor &t, int64_t bit, std::string &err);
bool flipBit(const plumb_tensor_view &t, int64_t bit, std::string &err);

/// `plumb run --override-tree node=K,block=B`: node K reduces with
/// blocked(B) (B = 0: sequential) instead of its canonical tree.
struct TreeOverride {
  int64_t node = -1;
  int64_t block = 0;
};
bool parseTreeOverride(const std::string &spec, TreeOverride &out,
                       std::string &err);
/// Sets the tree attribute of node K of @main; fails if K is out of range or
/// the node does not reduce.
bool applyTreeOverride(mlir::func::FuncOp main, const TreeOverride &o,
                       std::string &err);

} // namespace trace
} // namespace plumb

#endif // PLUMB_TRACE_TRACERECORDER_H
