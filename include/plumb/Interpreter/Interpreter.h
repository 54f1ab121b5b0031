//===- include/plumb/Interpreter/Interpreter.h - Reference executor -*- C++ -*-===//
//
// Part of Plumb. Executes plumb IR directly with the runtime kernels: the
// reference path a referee uses, and the semantics every compiled program
// must reproduce bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_INTERPRETER_INTERPRETER_H
#define PLUMB_INTERPRETER_INTERPRETER_H

#include "plumb/Interpreter/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace plumb {
namespace exec {

/// The reduction tree block an op uses: its `tree` attribute, or the
/// default policy (blocked(256)) when the attribute is absent.
int64_t treeBlockOf(mlir::Operation *op);
constexpr int64_t kDefaultTreeBlock = 256;

/// Executes one plumb op (not plumb.if) on its operand tensors. This is what
/// a referee re-executes in a dispute.
bool executeOp(mlir::Operation *op, llvm::ArrayRef<const Tensor *> inputs,
               std::vector<Tensor> &results, std::string &err);

/// Called after every executed op (in execution order) with its results.
using NodeCallback =
    llvm::function_ref<void(mlir::Operation *, llvm::ArrayRef<Tensor>)>;

/// Runs `func` on `inputs` (checked against the signature, and against
/// plumb.bound_value for bound inputs).
bool runFunction(mlir::func::FuncOp func, llvm::ArrayRef<Tensor> inputs,
                 std::vector<Tensor> &outputs, std::string &err,
                 NodeCallback callback = nullptr);

} // namespace exec
} // namespace plumb

#endif // PLUMB_INTERPRETER_INTERPRETER_H
