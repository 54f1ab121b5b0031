//===- include/plumb/Driver/Inputs.h - A model's interface ----*- C++ -*-===//
//
// Part of Plumb. A model's inputs and outputs as front ends see them (names,
// element types, shapes), the one check of the tensors given for its inputs
// (type, shape, bound values: what the interpreter checks in
// exec::runFunction, with its messages), finding and reading input files
// (--input NAME=FILE, --inputs-dir DIR) and writing outputs (--output-dir).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DRIVER_INPUTS_H
#define PLUMB_DRIVER_INPUTS_H

#include "plumb/Driver/Model.h"
#include "plumb/Interpreter/Tensor.h"
#include "plumb/runtime/model_abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"

#include <map>
#include <string>
#include <vector>

namespace plumb {
namespace driver {

/// An input or output of @main.
struct TensorSpec {
  std::string name; // plumb.name, else "#i"
  exec::ElemType type = exec::ElemType::F32;
  std::vector<int64_t> shape;
  /// The value an input was fixed to at import (--input-value), if any.
  mlir::ElementsAttr bound;
  /// "float16" / "bfloat16" for a float32 tensor holding values of that type
  /// (plumb.storage, docs/determinism.md "Half precision"), else empty.
  std::string storage;
  /// "float32[1x10]", as exec::Tensor::describe writes it.
  std::string describe() const;
};

std::vector<TensorSpec> inputSpecs(mlir::func::FuncOp func);
std::vector<TensorSpec> outputSpecs(mlir::func::FuncOp func);

/// "float32[1x10]" for a tensor of `type` and `shape`.
std::string describeTensor(exec::ElemType type, llvm::ArrayRef<int64_t> shape);

/// The check of the tensors given for @main's inputs: their number, each
/// one's type and shape, and that a bound input equals its bound value.
/// The message names the input ("input 'x' must be float32[1x4], got
/// float32[2x4]").
bool checkInputs(mlir::func::FuncOp func,
                 llvm::ArrayRef<plumb_tensor_view> inputs, std::string &err);
bool checkInputs(mlir::func::FuncOp func, llvm::ArrayRef<exec::Tensor> inputs,
                 std::string &err);

/// A view of `t` (its data is not copied; an empty tensor gets a valid
/// pointer all the same).
plumb_tensor_view viewOf(const exec::Tensor &t);

/// Where input files come from: --input NAME=FILE and --inputs-dir DIR.
struct InputFiles {
  std::map<std::string, std::string> byName;
  std::string dir;

  /// The file for input `i` named `name`: --input NAME=FILE, else
  /// DIR/input_<i>.pb or .npy, else "".
  std::string fileFor(unsigned i, const std::string &name) const;
  /// A usage error (exit status 2) when --input names no input of `func`.
  bool checkNames(mlir::func::FuncOp func, Failure &failure) const;
};

/// Lets the import of an .onnx model take the shape of an input whose
/// declared shape leaves dimensions free from the file `files` gives for it
/// (importer::InputBindings::sampleShape), as ONNX Runtime sizes a dynamic
/// model by its inputs. `taken`, when given, receives "--input-shape",
/// "NAME=DIMS" for every shape so taken (what a bundle records as its
/// import options).
void shapesFromSamples(importer::ImportOptions &opts, const InputFiles &files,
                       std::vector<std::string> *taken = nullptr);

/// Every input of @main, in order, from `files` or, for an input fixed at
/// import, its bound value. A missing or unreadable input fails.
bool readInputs(mlir::func::FuncOp func, const InputFiles &files,
                std::vector<exec::Tensor> &inputs, Failure &failure);

/// The SHA-256 of the canonical encoding of each output (hex), as
/// `plumb run` prints them.
std::vector<std::string> outputHashes(llvm::ArrayRef<exec::Tensor> outputs);

/// Writes output_<i>.npy and outputs.json (index, name, dtype, shape,
/// sha256) into `dir`, creating it. An output whose `storages` entry is
/// "float16" is written as <f2, "bfloat16" as <u2 of its bits; its hash is
/// the float32 one (the hash of the values Plumb holds).
bool writeOutputs(const std::string &dir, llvm::ArrayRef<std::string> names,
                  llvm::ArrayRef<exec::Tensor> outputs,
                  llvm::ArrayRef<std::string> hashes, std::string &err,
                  llvm::ArrayRef<std::string> storages = {});

/// JSON helpers shared by the front ends' outputs.
std::string jsonEscape(const std::string &s);
std::string shapeJson(llvm::ArrayRef<int64_t> shape); // "[1,3]"

} // namespace driver
} // namespace plumb

#endif // PLUMB_DRIVER_INPUTS_H
