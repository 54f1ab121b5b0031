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

#include "dialects/Plumb/IR/PlumbKernelCall.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace plumb {
namespace exec {

/// The reduction tree block an op uses: its `tree` attribute, or the
/// default policy (blocked(256)) when the attribute is absent.
int64_t treeBlockOf(mlir::Operation *op);
using ::plumb::kDefaultTreeBlock;

/// Executes one plumb op (not plumb.if) on its operand tensors. This is what
/// a referee re-executes in a dispute.
bool executeOp(mlir::Operation *op, llvm::ArrayRef<const Tensor *> inputs,
               std::vector<Tensor> &results, std::string &err);

/// Constant folding by execution: when every operand of `op` is a
/// plumb.constant, runs `op` and stores one attribute per result
/// (the bits execution gives). False (nothing stored) when an operand is not
/// constant or execution fails (e.g. an out-of-range index, left for run
/// time). Used by plumb-fold-constants and by the importer.
bool foldOp(mlir::Operation *op,
            llvm::SmallVectorImpl<mlir::DenseElementsAttr> &results);

/// Called after every executed op (in execution order) with its results.
using NodeCallback =
    llvm::function_ref<void(mlir::Operation *, llvm::ArrayRef<Tensor>)>;

/// Runs `func` on `inputs` (checked against the signature, and against
/// plumb.bound_value for bound inputs).
bool runFunction(mlir::func::FuncOp func, llvm::ArrayRef<Tensor> inputs,
                 std::vector<Tensor> &outputs, std::string &err,
                 NodeCallback callback = nullptr);

/// Called after every executed op (in execution order) with its results,
/// before any later op reads them. The hook may change them (fault
/// injection for tests); a change propagates to later ops. This is the
/// interpreter's side of model_abi.h's plumb_node_hook.
using MutableNodeCallback =
    llvm::function_ref<void(mlir::Operation *, std::vector<Tensor> &)>;

/// runFunction with a hook that may change each op's results. The results
/// the hook sees stay in place (same storage) until execution stops; `atEnd`
/// is called then (after the last op, or at a failure) while they are still
/// alive, so a hook may read them later than its own call until then.
bool runFunctionWithHook(mlir::func::FuncOp func, llvm::ArrayRef<Tensor> inputs,
                         std::vector<Tensor> &outputs, std::string &err,
                         MutableNodeCallback hook,
                         llvm::function_ref<void()> atEnd = nullptr);

/// Executes one node of a function body on its own, including plumb.if
/// (whose regions may read values defined outside it). `env` maps every
/// value defined outside `op` that `op` reads (operands and values its
/// regions capture) to its tensor. What a referee re-executes in a dispute.
bool executeNode(mlir::Operation *op,
                 const llvm::DenseMap<mlir::Value, const Tensor *> &env,
                 std::vector<Tensor> &results, std::string &err);

} // namespace exec
} // namespace plumb

#endif // PLUMB_INTERPRETER_INTERPRETER_H
