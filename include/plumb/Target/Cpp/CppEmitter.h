//===- include/plumb/Target/Cpp/CppEmitter.h - C++ code generation -*- C++ -*-===//
//
// Part of Plumb. Emits one C++ file from canonical plumb IR: a compiled model
// exporting the entry points of runtime/include/plumb/runtime/model_abi.h,
// calling the host kernel library with every shape, attribute and reduction
// tree as a literal, nodes in canonical order, values at the offsets of the
// compile-time memory plan, and the node hook after every node. The text is
// a function of the IR and the Plumb version only: byte-identical on every
// machine and every run.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TARGET_CPP_CPPEMITTER_H
#define PLUMB_TARGET_CPP_CPPEMITTER_H

#include "plumb/Target/Plan/ModelPlan.h"

#include "llvm/Support/Error.h"

#include <string>

namespace plumb {
namespace target {

/// What the generated file states about itself.
struct EmitHeader {
  std::string graphHash;    // 64 hex digits
  std::string plumbVersion; // "0.1.0"
  std::string contract;     // "plumb-det-v1"
};

/// The C++ source of the compiled model. With `tracePlan` (the same module
/// planned with a resultLag) the model also exports plumb_model_run_traced
/// and plumb_model_trace_lag (model_abi.h): the nodes again, at that plan's
/// offsets, with a fence before each node.
llvm::Expected<std::string> emitCpp(const ModelPlan &plan,
                                    const EmitHeader &header,
                                    const ModelPlan *tracePlan = nullptr);

/// emitCpp with the module's trace plan (planForTraces) where it has one:
/// what bundles contain.
llvm::Expected<std::string> emitCppForModule(mlir::ModuleOp module,
                                             const ModelPlan &plan,
                                             const EmitHeader &header);

/// Exported symbol beyond model_abi.h's list: sets the kernel thread count
/// of the model's own copy of the runtime (`void (int32_t)`).
constexpr const char *kSetThreadsSymbol = "plumb_model_set_threads";
/// Optional entry points of model_abi.h for traced runs.
constexpr const char *kRunTracedSymbol = "plumb_model_run_traced";
constexpr const char *kTraceLagSymbol = "plumb_model_trace_lag";

} // namespace target
} // namespace plumb

#endif // PLUMB_TARGET_CPP_CPPEMITTER_H
