//===- include/plumb/Train/Autodiff.h - Reverse mode on plumb -*- C++ -*-===//
//
// Part of Plumb. Reverse-mode differentiation of a plumb function
// (docs/training.md): every differentiable op has a gradient rule that is
// itself plumb ops (so each reduction a rule adds gets its own fixed tree
// when the canonical pipeline materialises trees). A value used by several
// ops receives one gradient contribution per use; they are summed left to
// right in the forward order of the using ops (block order), so a weight
// used several times accumulates its gradient in one fixed order.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TRAIN_AUTODIFF_H
#define PLUMB_TRAIN_AUTODIFF_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <string>
#include <vector>

namespace plumb {
namespace train {

/// Small builders for the ops gradient rules and optimisers emit (result
/// types computed here; trees left to the canonical pipeline).
class OpMaker {
public:
  OpMaker(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}
  static mlir::RankedTensorType type(mlir::Value v);
  static std::vector<int64_t> shape(mlir::Value v);
  /// A float32 constant of `shape` filled with v (a scalar for {}).
  mlir::Value splat(float v, llvm::ArrayRef<int64_t> shape = {});
  mlir::Value add(mlir::Value a, mlir::Value c);
  mlir::Value sub(mlir::Value a, mlir::Value c);
  mlir::Value mul(mlir::Value a, mlir::Value c);
  mlir::Value div(mlir::Value a, mlir::Value c);
  mlir::Value pow(mlir::Value a, mlir::Value c);
  mlir::Value greater(mlir::Value a, mlir::Value c);
  mlir::Value equal(mlir::Value a, mlir::Value c);
  mlir::Value where(mlir::Value c, mlir::Value x, mlir::Value y);
  mlir::Value neg(mlir::Value x);
  mlir::Value exp(mlir::Value x);
  mlir::Value sqrt(mlir::Value x);
  mlir::Value cast(mlir::Value x, mlir::Type elt);
  mlir::Value logSoftmax(mlir::Value x, int64_t axis);
  mlir::Value reduceSum(mlir::Value x, llvm::ArrayRef<int64_t> axes,
                        bool keepdims);
  mlir::Value reshape(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  mlir::Value expand(mlir::Value x, llvm::ArrayRef<int64_t> shape);
  mlir::Value transpose(mlir::Value x, llvm::ArrayRef<int64_t> perm);
  /// alpha * A' * B' (no C).
  mlir::Value gemm(mlir::Value a, mlir::Value c, bool transA, bool transB,
                   float alpha);
  /// Sums `g` (of a broadcast result) down to `target` (the shape of the
  /// operand that was broadcast): over leading axes, then over the axes
  /// where the operand had 1, then reshaped.
  mlir::Value unbroadcast(mlir::Value g, llvm::ArrayRef<int64_t> target);

  mlir::OpBuilder &b;
  mlir::Location loc;
};

/// Appends the gradient of the scalar `loss` with respect to each of `wrt`
/// to `func`'s body (before its terminator). `grads[i]` is null when
/// `wrt[i]` does not affect the loss. Fails with a message naming the op
/// when a value the loss depends on goes through an op with no rule.
bool differentiate(mlir::func::FuncOp func, mlir::Value loss,
                   llvm::ArrayRef<mlir::Value> wrt,
                   std::vector<mlir::Value> &grads, std::string &err);

/// The plumb ops with a gradient rule ("plumb.add", ...), for docs and
/// the gradient-check test.
std::vector<std::string> differentiableOps();

} // namespace train
} // namespace plumb

#endif // PLUMB_TRAIN_AUTODIFF_H
