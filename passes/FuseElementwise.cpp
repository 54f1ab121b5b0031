//===- passes/FuseElementwise.cpp - plumb-fuse-elementwise ----------------===//
//
// Part of Plumb. See Passes.td. The chain rules live in
// dialects/Plumb/IR/PlumbFusion.h, shared with the plumb.fused verifier and
// the code generators.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbFusion.h"
#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Support/Nodes.h"

#include "llvm/ADT/DenseSet.h"

namespace plumb {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;
using namespace plumb;

namespace {

/// The chain that starts at `start`: each next op is the single user of the
/// previous value and may continue the chain.
SmallVector<Operation *> chainFrom(Operation *start,
                                    const llvm::DenseSet<Operation *> &taken) {
  SmallVector<Operation *> chain{start};
  if (!isFusionHead(start) && !isFusibleElementwise(start))
    return chain;
  Operation *cur = start;
  while (true) {
    Value v = cur->getResult(0);
    if (!v.hasOneUse())
      break;
    Operation *user = *v.getUsers().begin();
    if (user->getBlock() != start->getBlock() || taken.contains(user) ||
        !canContinueChain(user, v))
      break;
    chain.push_back(user);
    cur = user;
  }
  return chain;
}

void fuse(ArrayRef<Operation *> chain) {
  Operation *last = chain.back();
  OpBuilder b(last);
  SmallVector<Location> locs;
  for (Operation *op : chain)
    locs.push_back(op->getLoc());
  Value result = last->getResult(0);
  auto fused = FusedOp::create(b, b.getFusedLoc(locs), result.getType());
  result.replaceAllUsesWith(fused.getOutput());
  Block *body = new Block();
  fused.getBody().push_back(body);
  for (Operation *op : chain)
    op->moveBefore(body, body->end());
  b.setInsertionPointToEnd(body);
  YieldOp::create(b, last->getLoc(), ValueRange{result});
}

struct FuseElementwisePass
    : plumb::impl::FuseElementwisePassBase<FuseElementwisePass> {
  void runOnOperation() override {
    func::FuncOp main = getMainFunc(getOperation());
    if (!main) {
      getOperation().emitError() << "the module has no func.func @main";
      return signalPassFailure();
    }
    Block &block = main.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : block)
      ops.push_back(&op);
    llvm::DenseSet<Operation *> taken;
    SmallVector<SmallVector<Operation *>> chains;
    for (Operation *op : ops) {
      if (taken.contains(op))
        continue;
      SmallVector<Operation *> chain = chainFrom(op, taken);
      if (chain.size() < 2)
        continue;
      taken.insert(chain.begin(), chain.end());
      chains.push_back(std::move(chain));
    }
    for (auto &chain : chains)
      fuse(chain);
  }
};

} // namespace
