//===- passes/PrintGas.cpp - plumb-print-gas ------------------------------===//
//
// Part of Plumb. See Passes.td. The lit face of the cost model: every op
// family's hand-computed gas is checked through this pass (test/Cost/).
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Cost/Gas.h"
#include "plumb/Support/Nodes.h"

#include "llvm/Support/raw_ostream.h"

namespace plumb {
#define GEN_PASS_DEF_PRINTGASPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;

namespace {

struct PrintGasPass : plumb::impl::PrintGasPassBase<PrintGasPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const plumb::GasSchedule *schedule =
        schedule_empty() ? &plumb::latestGasSchedule()
                         : plumb::lookupGasSchedule(this->schedule);
    if (!schedule) {
      module.emitError() << "unknown gas schedule '" << this->schedule
                         << "'; known schedules: " << plumb::gasScheduleNames();
      return signalPassFailure();
    }
    func::FuncOp main = plumb::getMainFunc(module);
    if (!main) {
      module.emitError() << "the module has no func.func @main";
      return signalPassFailure();
    }
    llvm::raw_ostream &os = llvm::outs();
    plumb::CheckedCount total;
    int64_t index = 0;
    bool ok = true;
    for (Operation *op : plumb::graphNodes(main)) {
      auto priced = plumb::computeOpGas(op, *schedule);
      if (!priced) {
        op->emitError() << llvm::toString(priced.takeError());
        ok = false;
        ++index;
        continue;
      }
      const plumb::OpCounts &c = priced->first;
      os << "node " << index++ << " " << op->getName() << " macs=" << c.macs
         << " elementwise=" << c.elementwise
         << " transcendental=" << c.transcendental << " compare=" << c.compare
         << " indexed=" << c.indexed << " read=" << c.bytesRead
         << " written=" << c.bytesWritten << " gas=" << priced->second << "\n";
      total += priced->second;
    }
    if (!ok)
      return signalPassFailure();
    if (total.overflowed()) {
      main.emitError() << "the total gas overflows 64 bits; the program is "
                          "refused";
      return signalPassFailure();
    }
    os << "total gas=" << total.value() << " schedule=" << schedule->name
       << " nodes=" << index << "\n";
    os.flush();
  }

  bool schedule_empty() const { return this->schedule.empty(); }
};

} // namespace
