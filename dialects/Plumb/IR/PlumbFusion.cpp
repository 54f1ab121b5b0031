//===- PlumbFusion.cpp - plumb.fused and the rules of fusion --------------===//
//
// Part of Plumb. See PlumbFusion.h.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbFusion.h"

#include "dialects/Plumb/IR/PlumbOps.h"

using namespace mlir;

namespace plumb {

namespace {

bool isF32Tensor(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.hasStaticShape() && r.getElementType().isF32();
}

bool allF32(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0)
    return false;
  for (Type t : op->getOperandTypes())
    if (!isF32Tensor(t))
      return false;
  return isF32Tensor(op->getResult(0).getType());
}

} // namespace

bool isFusionHead(Operation *op) {
  return op->hasTrait<plumb::OpTrait::FusionHead>() && allF32(op);
}

bool isFusibleElementwise(Operation *op) {
  if (!allF32(op))
    return false;
  return op->hasTrait<plumb::OpTrait::FusibleTail>();
}

bool canContinueChain(Operation *op, Value chained) {
  if (!isFusibleElementwise(op) || chained.getType() != op->getResult(0).getType())
    return false;
  if (isa<BatchNormOp>(op))
    return op->getOperand(0) == chained && !llvm::is_contained(
                                               op->getOperands().drop_front(),
                                               chained);
  // The chained value is used once, so it is exactly one operand.
  return llvm::count(op->getOperands(), chained) == 1;
}

SmallVector<Operation *> FusedOp::getChain() {
  SmallVector<Operation *> chain;
  for (Operation &op : getBody().front())
    if (!isa<YieldOp>(op))
      chain.push_back(&op);
  return chain;
}

Value FusedOp::getYielded() {
  auto y = dyn_cast<YieldOp>(getBody().front().back());
  return y && y.getValues().size() == 1 ? y.getValues()[0] : Value();
}

LogicalResult FusedOp::verify() {
  Block &block = getBody().front();
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return emitOpError() << "body must end with plumb.yield";
  if (yield.getValues().size() != 1 ||
      yield.getValues()[0].getType() != getOutput().getType())
    return emitOpError() << "body must yield one value of the result type "
                         << getOutput().getType();
  SmallVector<Operation *> chain = getChain();
  if (chain.size() < 2)
    return emitOpError() << "body must hold a chain of at least two ops, "
                            "it holds "
                         << chain.size();
  Value prev;
  for (auto [i, op] : llvm::enumerate(chain)) {
    if (i == 0) {
      if (!isFusionHead(op) && !isFusibleElementwise(op))
        return emitOpError() << "cannot start a chain with '"
                             << op->getName()
                             << "' (a float32 conv, matmul, gemm or "
                                "elementwise op is needed)";
    } else {
      if (!isFusibleElementwise(op))
        return emitOpError() << "op " << i << " of the chain, '"
                             << op->getName()
                             << "', is not a fusible float32 elementwise op";
      if (!canContinueChain(op, prev))
        return emitOpError() << "op " << i << " of the chain, '"
                             << op->getName()
                             << "', must take the previous op's value as one "
                                "operand of its result's shape";
    }
    if (i > 0 && !prev.hasOneUse())
      return emitOpError() << "the value of op " << i - 1
                           << " of the chain must have exactly one use";
    for (Value v : op->getOperands())
      if (v != prev && v.getParentRegion() == &getBody())
        return emitOpError() << "op " << i
                             << " of the chain uses a value of the body that "
                                "is not the previous op's";
    prev = op->getResult(0);
  }
  if (yield.getValues()[0] != prev || !prev.hasOneUse())
    return emitOpError() << "must yield the value of the chain's last op, "
                            "and only there";
  return success();
}

} // namespace plumb
