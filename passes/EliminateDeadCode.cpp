//===- passes/EliminateDeadCode.cpp - plumb-dce ---------------------------===//
//
// Part of Plumb. See Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace plumb {
#define GEN_PASS_DEF_ELIMINATEDEADCODEPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;

namespace {

struct EliminateDeadCodePass
    : plumb::impl::EliminateDeadCodePassBase<EliminateDeadCodePass> {
  void runOnOperation() override {
    // Walk blocks backwards so a dead op's operands become dead in turn.
    getOperation().walk([&](Block *block) {
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
        if (isa_and_nonnull<plumb::PlumbDialect>(op.getDialect()) && op.use_empty() &&
            isMemoryEffectFree(&op) && !op.hasTrait<OpTrait::IsTerminator>())
          op.erase();
    });
  }
};

} // namespace
