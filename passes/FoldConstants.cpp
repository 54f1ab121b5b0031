//===- passes/FoldConstants.cpp - plumb-fold-constants --------------------===//
//
// Part of Plumb. See Passes.td. Folded values come from the runtime kernels
// through the reference interpreter, so they are the bits execution would
// produce.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace plumb {
#define GEN_PASS_DEF_FOLDCONSTANTSPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;
using namespace plumb;

namespace {

struct FoldConstantsPass
    : plumb::impl::FoldConstantsPassBase<FoldConstantsPass> {
  using Base::Base;

  /// A large (beyond max-elements) non-splat value as a dense_resource blob, as the importer
  /// stores weights (plumb-canonical-order names it after its content).
  static ElementsAttr asResource(DenseElementsAttr v) {
    if (v.isSplat() || v.getElementType().isInteger(1))
      return v;
    return DenseResourceElementsAttr::get(
        cast<ShapedType>(v.getType()), "folded",
        HeapAsmResourceBlob::allocateAndCopyInferAlign(v.getRawData()));
  }

  /// Folds `op` if all its operands are constants and its results are small.
  void tryFold(Operation *op) {
    if (!isa_and_nonnull<PlumbDialect>(op->getDialect()) ||
        isa<ConstantOp, IfOp, YieldOp>(op) || op->getNumOperands() == 0)
      return;
    int64_t total = 0;
    for (Type t : op->getResultTypes())
      total += cast<RankedTensorType>(t).getNumElements();
    // Above the limit, a fold that uses up its constant operands (this op
    // is their only user; a splat counts as one element) is still taken
    // when its results are no larger: the IR cannot grow, and a weight's
    // per-run preprocessing (a zero point subtracted from int8 weights, a
    // DequantizeLinear, a transpose) is done once.
    if (total > maxElements) {
      int64_t consumed = 0;
      for (Value v : op->getOperands()) {
        auto c = v.getDefiningOp<ConstantOp>();
        if (!c)
          return;
        if (!v.hasOneUse())
          continue;
        auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
        if (!dense || !dense.isSplat())
          consumed += cast<ElementsAttr>(c.getValue()).getNumElements();
      }
      if (total > consumed)
        return;
    }
    SmallVector<DenseElementsAttr> values;
    if (!exec::foldOp(op, values))
      return; // left for run time (e.g. an out-of-range gather index)
    OpBuilder b(op);
    for (unsigned r = 0; r < op->getNumResults(); ++r) {
      Value c = ConstantOp::create(
          b, op->getLoc(),
          total > maxElements ? asResource(values[r])
                              : cast<ElementsAttr>(values[r]));
      op->getResult(r).replaceAllUsesWith(c);
    }
    op->erase();
  }

  void runOnOperation() override {
    // Program order is topological, so one pass in order folds whole
    // constant subgraphs: a folded op's users see constant operands.
    SmallVector<Operation *> ops;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      ops.push_back(op);
    });
    for (Operation *op : ops)
      tryFold(op);
  }
};

} // namespace
