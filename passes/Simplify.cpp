//===- passes/Simplify.cpp - plumb-simplify -------------------------------===//
//
// Part of Plumb. See Passes.td. Only data-movement ops are rewritten.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace plumb {
#define GEN_PASS_DEF_SIMPLIFYPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;
using namespace plumb;

namespace {

/// reshape(reshape(x)) -> reshape(x): both only reinterpret the row-major
/// element sequence.
struct MergeReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getInput());
    return success();
  }
};

/// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2).
struct MergeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(inner.getPerm()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(
        op, op.getType(), inner.getInput(), rewriter.getDenseI64ArrayAttr(perm));
    return success();
  }
};

/// A transpose that only moves size-1 dimensions keeps the row-major order:
/// it is a reshape.
struct TransposeOfUnitDimsIsReshape : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto shape = cast<RankedTensorType>(op.getInput().getType()).getShape();
    int64_t last = -1;
    for (int64_t p : op.getPerm()) {
      if (shape[p] == 1)
        continue;
      if (p < last)
        return failure();
      last = p;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput());
    return success();
  }
};

/// Ops that change nothing are replaced by their input.
template <typename OpTy>
struct RemoveIdentity : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    Value in = op->getOperand(0);
    if (in.getType() != op->getResult(0).getType())
      return failure();
    if constexpr (std::is_same<OpTy, TransposeOp>::value) {
      for (auto [i, p] : llvm::enumerate(op.getPerm()))
        if ((int64_t)i != p)
          return failure();
    }
    if constexpr (std::is_same<OpTy, SliceOp>::value) {
      if (llvm::any_of(op.getStarts(), [](int64_t s) { return s != 0; }) ||
          llvm::any_of(op.getSteps(), [](int64_t s) { return s != 1; }))
        return failure();
    }
    rewriter.replaceOp(op, in);
    return success();
  }
};

struct SimplifyPass : plumb::impl::SimplifyPassBase<SimplifyPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<MergeReshapes, MergeTransposes, TransposeOfUnitDimsIsReshape,
                 RemoveIdentity<ReshapeOp>, RemoveIdentity<TransposeOp>,
                 RemoveIdentity<CastOp>, RemoveIdentity<ExpandOp>,
                 RemoveIdentity<SliceOp>>(&getContext());
    // Structural rewrites only: constant evaluation belongs to
    // plumb-fold-constants, which uses the runtime kernels.
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    config.enableFolding(false);
    config.enableConstantCSE(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
  }
};

} // namespace
