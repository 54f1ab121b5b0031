//===- include/plumb/Cost/Gas.h - Static cost of a program ------*- C++ -*-===//
//
// Part of Plumb. Gas prices a program before it runs, the way Ethereum prices
// opcodes: every node's op counts (the cost interface of the plumb dialect,
// computed from static shapes) are weighted with the integer coefficients of
// a named, versioned schedule. Integer arithmetic only, overflow-checked, so
// the figure is identical on every machine. docs/gas.md has the rules.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_COST_GAS_H
#define PLUMB_COST_GAS_H

#include "dialects/Plumb/IR/PlumbInterfaces.h"
#include "plumb/Support/Merkle.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace plumb {

/// A published gas schedule. Published schedules never change: a new
/// calibration is a new name (plumb-gas-v2, ...), and old names stay
/// available so a priced bundle can be re-priced exactly.
struct GasSchedule {
  llvm::StringRef name;
  llvm::StringRef summary;
  uint64_t base;           // per node
  uint64_t mac;            // per multiply-accumulate
  uint64_t elementwise;    // per simple operation
  uint64_t transcendental; // per exp/log/tanh/sigmoid/erf/pow/gelu
  uint64_t compare;        // per NaN-aware max/min step
  uint64_t indexed;        // per element read through a computed index
  uint64_t byteRead;       // per byte of operands
  uint64_t byteWritten;    // per byte of results
};

/// Every schedule, oldest first (lib/Cost/GasSchedules.def).
llvm::ArrayRef<GasSchedule> gasSchedules();
/// The schedule called `name`, or null.
const GasSchedule *lookupGasSchedule(llvm::StringRef name);
/// The newest schedule: the default of `plumb cost`.
const GasSchedule &latestGasSchedule();
/// "plumb-gas-v1, ..." for error messages.
std::string gasScheduleNames();

/// base + the weighted counts; nullopt if the sum overflows 64 bits.
std::optional<uint64_t> priceCounts(const OpCounts &counts,
                                    const GasSchedule &schedule);

/// One node of the report.
struct NodeGas {
  int64_t index = 0;  // canonical index (position among graphNodes)
  Digest id{};        // structural node id
  std::string op;     // "plumb.conv"
  std::string shapes; // "1x1x28x28xf32 8x1x5x5xf32 -> 1x8x28x28xf32"
  OpCounts counts;    // for plumb.if: its own plus the dearer branch's
  uint64_t flops = 0, bytes = 0, gas = 0;
};

/// All nodes of one op type.
struct OpTypeGas {
  std::string op;
  uint64_t nodes = 0, flops = 0, bytes = 0, gas = 0;
};

struct GasReport {
  std::string schedule;
  Digest graphHash{};
  std::vector<NodeGas> nodes;     // canonical order
  std::vector<OpTypeGas> opTypes; // by gas, dearest first (ties by name)
  uint64_t totalGas = 0, totalFlops = 0, totalBytes = 0;
};

/// Gas and counts of one op; for plumb.if its own work plus the dearer
/// branch (ties: then). Fails on an op without the cost interface, a
/// dynamic shape, a region other than plumb.if's, or overflow.
llvm::Expected<std::pair<OpCounts, uint64_t>>
computeOpGas(mlir::Operation *op, const GasSchedule &schedule);

/// Prices every node of @main. Errors name the node (index and op).
llvm::Expected<GasReport> computeGas(mlir::ModuleOp module,
                                     const GasSchedule &schedule);

} // namespace plumb

#endif // PLUMB_COST_GAS_H
