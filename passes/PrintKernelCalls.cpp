//===- passes/PrintKernelCalls.cpp - plumb-print-kernel-calls -------------===//
//
// Part of Plumb. See Passes.td. The lit face of the kernel-call form: every
// op family's lowering is checked through this pass (test/Target/), without
// running or compiling anything.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbOps.h"

#include "llvm/Support/raw_ostream.h"

namespace plumb {
#define GEN_PASS_DEF_PRINTKERNELCALLSPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;

namespace {

struct PrintKernelCallsPass
    : plumb::impl::PrintKernelCallsPassBase<PrintKernelCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    bool ok = true;
    getOperation().walk([&](plumb::KernelCallOpInterface op) {
      plumb::KernelLowering l;
      std::string err;
      if (failed(op.lowerToKernelCalls(l, err))) {
        op->emitError() << err;
        ok = false;
        return;
      }
      os << "op " << op->getName() << "\n";
      plumb::printKernelLowering(l, os);
    });
    os.flush();
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
