//===- include/plumb/Target/Plan/ModelPlan.h - Compile-time plan -*- C++ -*-===//
//
// Part of Plumb. Everything the code generators fix at compile time, shared
// by the C++ and CUDA emitters and by the bundle:
//
//  * the weight image: every constant of @main (regions included) at a
//    64-byte aligned offset of weights.bin, identical contents stored once;
//  * the memory plan: where every value lives (a graph input, a weight, an
//    output buffer, or an offset into one arena), computed from liveness so
//    buffers are reused, with reshapes aliasing their operand where that
//    cannot be observed;
//  * per-node scratch buffers.
//
// The plan depends only on the module (types, attributes, constant bytes),
// never on the machine, so emitted sources are identical everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TARGET_PLAN_MODELPLAN_H
#define PLUMB_TARGET_PLAN_MODELPLAN_H

#include "plumb/Interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace plumb {
namespace target {

/// Alignment of weights and arena buffers (a cache line; AVX-512 friendly).
constexpr int64_t kPlanAlignment = 64;

/// One stored blob of weights.bin.
struct WeightEntry {
  int64_t offset = 0;
  int64_t bytes = 0;
  /// The dense_resource keys of the constants stored here (first use
  /// first); empty when every constant stored here is inline in the IR.
  std::vector<std::string> resources;
  /// A constant whose bits are stored here (the first in walk order).
  mlir::Operation *source = nullptr;
  /// float32 data with a NaN other than 0x7FC00000: kernels must see a
  /// canonicalised copy (the interpreter canonicalises every result).
  bool needsCanonicalCopy = false;
};

enum class StorageKind { Input, Weight, Arena, Output };

/// Where the bytes of a value live.
struct Storage {
  StorageKind kind = StorageKind::Arena;
  int64_t index = 0;  // input number, weight entry or output number
  int64_t offset = 0; // arena offset (Arena only)
};

struct ValueInfo {
  exec::ElemType type = exec::ElemType::F32;
  std::vector<int64_t> shape;
  int64_t bytes = 0;
  Storage storage;
  /// A reshape whose result shares its operand's buffer.
  bool aliased = false;
};

struct ModelPlan {
  mlir::func::FuncOp main;
  std::vector<WeightEntry> weights;
  int64_t weightsBytes = 0;
  /// Every SSA value of @main and its regions (block arguments included).
  llvm::DenseMap<mlir::Value, ValueInfo> values;
  /// The top-level nodes in canonical order (graphNodes).
  std::vector<mlir::Operation *> nodes;
  /// Arena offsets of each op's scratch buffers (ops inside regions too).
  llvm::DenseMap<mlir::Operation *, std::vector<int64_t>> scratch;
  /// Arena offset of the canonicalised copy of each float32 input (-1:
  /// none); for a device-resident plan, of every used input's device copy.
  std::vector<int64_t> inputCanonicalSlot;
  /// Arena offset of the canonicalised copy of a weight entry (-1: none).
  std::vector<int64_t> weightCanonicalSlot;
  int64_t arenaBytes = 0;
  /// The largest lag this plan keeps a node's results in place for (the
  /// resultLag, or the largest of resultUntil's lags; -1: not a traced plan).
  int64_t resultLag = -1;
  /// Traced plans: per node j, the node whose results (and every earlier
  /// node's) must be hashed before node j starts (a fence), or -1 for none
  /// (nothing new since the previous fence).
  std::vector<int64_t> fenceBefore;
  /// Number of values that share an arena buffer with another (statistic).
  int64_t reusedBuffers = 0;
  /// Sum of the sizes of all arena values (what no reuse would need).
  int64_t unplannedBytes = 0;

  const ValueInfo &info(mlir::Value v) const { return values.find(v)->second; }
  /// The weight entry of a constant op.
  llvm::DenseMap<mlir::Operation *, int64_t> constantEntry;
};

/// Scratch buffer sizes (bytes) an op needs beside its operands and results.
std::vector<int64_t> scratchBytesOf(mlir::Operation *op);

struct PlanOptions {
  /// For devices: graph inputs are copied into the arena and every output
  /// is computed there (the host copies them back), so no value lives in
  /// caller memory.
  bool deviceResident = false;
  /// For traced runs (>= 0): the results of node k stay in place, unchanged,
  /// until node k + resultLag + 1 starts, so a trace recorder hashes them
  /// there while later nodes run; before node j the run waits (a fence)
  /// until the results of nodes up to j - resultLag - 1 are hashed.
  int64_t resultLag = -1;
  /// Traced runs with a lag per node (overrides resultLag when not empty;
  /// one entry per node, non-decreasing, resultUntil[k] > k): node k's
  /// results stay in place through the start of node resultUntil[k] (the
  /// number of nodes for "to the end"); before node j the run waits until
  /// the results of the last node k with resultUntil[k] <= j are hashed.
  std::vector<int64_t> resultUntil;
};

/// Builds the plan of `module`'s @main. Fails on a value whose type is not a
/// static tensor of f32/i64/i32/i1, or a constant whose bits cannot be read.
llvm::Expected<ModelPlan> planModel(mlir::ModuleOp module,
                                    PlanOptions options = {});

/// The largest lag of traced runs' plans: nodes a trace recorder may fall
/// behind the run before the run waits for it. Larger lags keep more
/// results in memory at once (and out of cache); smaller ones stall the run
/// more. 16 for every node measured as good as keeping everything on the
/// shared models (bench: scripts/trace-overhead), 4 stalled magika and
/// ultraface; traceResultUntil gives each node only the lag it needs.
constexpr int64_t kTraceResultLag = 16;
/// The cost of hashing one byte of a result, in gas (plumb-gas-v1 units),
/// for traceResultUntil's estimate: on the calibration machine one hash
/// thread does about 2.9 GB/s (16-lane SHA-256; 1.5 GB/s one chunk at a
/// time) while the kernels do 1.2e9 to 1.8e9 gas per ms, so a byte costs
/// 400 to 1200 gas; the estimate takes the slower rate so that a fence
/// rarely waits.
constexpr uint64_t kTraceHashGasPerByte = 1000;
/// Per node k, the node through whose start k's results stay in place in a
/// traced run (PlanOptions::resultUntil): the first node that starts after
/// one hash thread, working through the nodes' results in order while the
/// nodes run, would have hashed k's, estimated from each node's gas (the
/// latest schedule) and kTraceHashGasPerByte; at least one node later, at
/// most kTraceResultLag. A function of the module alone. Fails when a node
/// cannot be priced.
llvm::Expected<std::vector<int64_t>> traceResultUntil(mlir::ModuleOp module);
/// The traced-run plan of `module` (traceResultUntil's lags, or
/// kTraceResultLag for every node where a node cannot be priced), when its
/// arena stays within kTracePlanLimitBytes (no value otherwise: traced runs
/// then use the normal plan and the recorder copies results).
constexpr int64_t kTracePlanLimitBytes = int64_t(1) << 30;
llvm::Expected<std::optional<ModelPlan>> planForTraces(mlir::ModuleOp module);

/// Appends the bits of a weight entry (runtime layout: bool as one byte).
llvm::Error appendWeightBytes(const WeightEntry &entry, std::string &out);

/// The whole weight image: every entry at its offset, zero padding between.
llvm::Error buildWeightImage(const ModelPlan &plan, std::string &out);

} // namespace target
} // namespace plumb

#endif // PLUMB_TARGET_PLAN_MODELPLAN_H
