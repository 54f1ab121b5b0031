//===- lib/Cost/Gas.cpp - Gas schedules and the gas of a program ----------===//
//
// Part of Plumb. See include/plumb/Cost/Gas.h and docs/gas.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Cost/Gas.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Canonical/Identity.h"
#include "plumb/Support/Nodes.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace mlir;

namespace plumb {

//===----------------------------------------------------------------------===//
// Schedules
//===----------------------------------------------------------------------===//

static const GasSchedule kSchedules[] = {
#define PLUMB_GAS_SCHEDULE(NAME, BASE, MAC, ELEM, TRANS, CMP, IDX, READ,       \
                           WRITTEN, SUMMARY)                                   \
  {NAME, SUMMARY, BASE, MAC, ELEM, TRANS, CMP, IDX, READ, WRITTEN},
#include "GasSchedules.def"
#undef PLUMB_GAS_SCHEDULE
};

llvm::ArrayRef<GasSchedule> gasSchedules() { return kSchedules; }

const GasSchedule *lookupGasSchedule(llvm::StringRef name) {
  for (const GasSchedule &s : kSchedules)
    if (s.name == name)
      return &s;
  return nullptr;
}

const GasSchedule &latestGasSchedule() {
  return kSchedules[std::size(kSchedules) - 1];
}

std::string gasScheduleNames() {
  std::string r;
  for (const GasSchedule &s : kSchedules)
    r += (r.empty() ? "" : ", ") + s.name.str();
  return r;
}

std::optional<uint64_t> priceCounts(const OpCounts &c, const GasSchedule &s) {
  CheckedCount g = CheckedCount(s.base) + CheckedCount(s.mac) * c.macs +
                   CheckedCount(s.elementwise) * c.elementwise +
                   CheckedCount(s.transcendental) * c.transcendental +
                   CheckedCount(s.compare) * c.compare +
                   CheckedCount(s.indexed) * c.indexed +
                   CheckedCount(s.byteRead) * c.bytesRead +
                   CheckedCount(s.byteWritten) * c.bytesWritten;
  if (g.overflowed())
    return std::nullopt;
  return g.value();
}

//===----------------------------------------------------------------------===//
// Pricing
//===----------------------------------------------------------------------===//

namespace {

std::string typeText(Type t) {
  auto st = dyn_cast<ShapedType>(t);
  if (!st) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t.print(os);
    return s;
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  if (st.hasRank())
    for (int64_t d : st.getShape()) {
      if (ShapedType::isDynamic(d))
        os << "?x";
      else
        os << d << "x";
    }
  else
    os << "*x";
  st.getElementType().print(os);
  return s;
}

std::string shapesText(Operation *op) {
  std::string s;
  for (Value v : nodeInputs(op))
    s += (s.empty() ? "" : " ") + typeText(v.getType());
  s += s.empty() ? "->" : " ->";
  for (Value v : op->getResults())
    s += " " + typeText(v.getType());
  return s;
}

bool isStatic(Type t) {
  auto st = dyn_cast<ShapedType>(t);
  return st && st.hasStaticShape();
}

llvm::Error opError(Operation *op, const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + op->getName().getStringRef() + "' " +
                                     msg);
}

/// Sums the gas of the ops of one region (a plumb.if branch, a plumb.fused
/// body; constants are not nodes and cost nothing; the yield costs nothing).
llvm::Expected<std::pair<OpCounts, uint64_t>>
branchGas(Region &region, const GasSchedule &schedule) {
  OpCounts counts;
  CheckedCount gas;
  for (Block &block : region)
    for (Operation &op : block) {
      if (isa<ConstantOp, YieldOp>(op))
        continue;
      auto inner = computeOpGas(&op, schedule);
      if (!inner)
        return inner.takeError();
      if (!counts.add(inner->first))
        return opError(&op, "in a region: op counts overflow 64 bits");
      gas += inner->second;
    }
  if (gas.overflowed())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the gas of a region overflows "
                                   "64 bits");
  return std::make_pair(counts, gas.value());
}

} // namespace

llvm::Expected<std::pair<OpCounts, uint64_t>>
computeOpGas(Operation *op, const GasSchedule &schedule) {
  auto cost = dyn_cast<CostOpInterface>(op);
  if (!cost)
    return opError(op, "has no cost: only plumb ops are priced (loops must be "
                       "unrolled at import; unbounded work is refused)");
  for (Type t : op->getOperandTypes())
    if (!isStatic(t))
      return opError(op, "has an operand of type " + typeText(t) +
                             "; gas is only defined for static shapes");
  for (Type t : op->getResultTypes())
    if (!isStatic(t))
      return opError(op, "has a result of type " + typeText(t) +
                             "; gas is only defined for static shapes");
  // plumb.fused: exactly the sum of its body, so fusion never changes gas.
  if (auto fused = dyn_cast<FusedOp>(op)) {
    auto body = branchGas(fused.getBody(), schedule);
    if (!body)
      return body.takeError();
    return *body;
  }
  auto own = cost.getCounts();
  if (failed(own))
    return opError(op, "op counts overflow 64 bits (shapes too large); the "
                       "program is refused");
  auto ownGas = priceCounts(*own, schedule);
  if (!ownGas)
    return opError(op, "gas overflows 64 bits; the program is refused");
  if (op->getNumRegions() == 0)
    return std::make_pair(*own, *ownGas);

  auto ifOp = dyn_cast<IfOp>(op);
  if (!ifOp)
    return opError(op, "has regions; only plumb.if and plumb.fused have a "
                       "static cost");
  auto thenGas = branchGas(ifOp.getThenRegion(), schedule);
  if (!thenGas)
    return thenGas.takeError();
  auto elseGas = branchGas(ifOp.getElseRegion(), schedule);
  if (!elseGas)
    return elseGas.takeError();
  // The dearer branch; on a tie the then branch (same gas either way).
  const auto &dear = elseGas->second > thenGas->second ? *elseGas : *thenGas;
  OpCounts counts = *own;
  CheckedCount gas = CheckedCount(*ownGas) + dear.second;
  if (!counts.add(dear.first) || gas.overflowed())
    return opError(op, "gas overflows 64 bits; the program is refused");
  return std::make_pair(counts, gas.value());
}

llvm::Expected<GasReport> computeGas(ModuleOp module,
                                     const GasSchedule &schedule) {
  func::FuncOp main = getMainFunc(module);
  if (!main)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the module has no func.func @main");
  GasReport report;
  report.schedule = schedule.name.str();
  // Refuse before hashing: identity needs well-formed plumb nodes.
  for (Operation *op : graphNodes(main))
    if (!isa<CostOpInterface>(op))
      return opError(op, "has no cost: only plumb ops are priced (loops "
                         "must be unrolled at import; unbounded work is "
                         "refused)");
  std::vector<NodeInfo> table = computeNodeTable(main);
  CheckedCount total, totalFlops, totalBytes;
  llvm::StringMap<size_t> typeIndex;
  for (const NodeInfo &info : table) {
    auto priced = computeOpGas(info.op, schedule);
    if (!priced)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "node " + std::to_string(info.index) +
                                         ": " +
                                         llvm::toString(priced.takeError()));
    NodeGas node;
    node.index = info.index;
    node.id = info.id;
    node.op = info.opName;
    node.shapes = shapesText(info.op);
    node.counts = priced->first;
    node.gas = priced->second;
    if (!node.counts.flops(node.flops) || !node.counts.bytes(node.bytes))
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "node " + std::to_string(info.index) + ": '" + info.opName +
              "' flops or bytes overflow 64 bits; the program is refused");
    total += node.gas;
    totalFlops += node.flops;
    totalBytes += node.bytes;
    auto [it, inserted] = typeIndex.try_emplace(node.op, report.opTypes.size());
    if (inserted) {
      report.opTypes.emplace_back();
      report.opTypes.back().op = node.op;
    }
    OpTypeGas &t = report.opTypes[it->second];
    CheckedCount g = CheckedCount(t.gas) + node.gas;
    CheckedCount f = CheckedCount(t.flops) + node.flops;
    CheckedCount b = CheckedCount(t.bytes) + node.bytes;
    t.nodes += 1;
    t.gas = g.value(), t.flops = f.value(), t.bytes = b.value();
    report.nodes.push_back(std::move(node));
  }
  if (total.overflowed() || totalFlops.overflowed() || totalBytes.overflowed())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the total gas overflows 64 bits; the "
                                   "program is refused");
  // Per-type sums are bounded by the totals, which did not overflow.
  report.totalGas = total.value();
  report.totalFlops = totalFlops.value();
  report.totalBytes = totalBytes.value();
  std::sort(report.opTypes.begin(), report.opTypes.end(),
            [](const OpTypeGas &a, const OpTypeGas &b) {
              return a.gas != b.gas ? a.gas > b.gas : a.op < b.op;
            });
  report.graphHash = computeGraphHash(module);
  return report;
}

} // namespace plumb
