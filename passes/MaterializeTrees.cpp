//===- passes/MaterializeTrees.cpp - plumb-materialize-trees --------------===//
//
// Part of Plumb. See Passes.td. The policy (which ops reduce, which tree) is
// target-independent and documented in docs/determinism.md.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbOps.h"

namespace plumb {
#define GEN_PASS_DEF_MATERIALIZETREESPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;
using namespace plumb;

namespace {

struct MaterializeTreesPass
    : plumb::impl::MaterializeTreesPassBase<MaterializeTreesPass> {
  using Base::Base;
  void runOnOperation() override {
    if (block < 0) {
      getOperation().emitError() << "tree block must be >= 0, got " << block;
      return signalPassFailure();
    }
    auto tree = TreeAttr::get(&getContext(), block);
    getOperation().walk([&](Operation *op) {
      if (!op->hasTrait<plumb::OpTrait::HasReductionTree>())
        return;
      if (!op->hasAttr("tree"))
        op->setAttr("tree", tree);
    });
  }
};

} // namespace
