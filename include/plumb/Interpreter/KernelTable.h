//===- include/plumb/Interpreter/KernelTable.h - Kernel calls, run -*- C++ -*-===//
//
// Part of Plumb. Executes the kernel-call form of an op
// (dialects/Plumb/IR/PlumbKernelCall.h) on host buffers: one table maps each
// entry point of runtime/include/plumb/runtime/kernels.def to its C
// function, and each call's arguments are converted to the function's
// parameter types from its declaration.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_INTERPRETER_KERNELTABLE_H
#define PLUMB_INTERPRETER_KERNELTABLE_H

#include "dialects/Plumb/IR/PlumbKernelCall.h"

#include <string>
#include <vector>

namespace plumb {
namespace exec {

/// The buffers a node's calls address by index.
struct KernelBuffers {
  std::vector<const void *> operands;
  std::vector<void *> results;
  std::vector<void *> scratch;
};

/// Runs one call. Returns false with `err` for an unknown entry point, an
/// argument the entry point cannot take, or a kernel that fails.
bool runKernelCall(const KernelCall &call, const KernelBuffers &buffers,
                   std::string &err);

/// Whether plumb_rt_<fn> is in the kernel table.
bool isKnownKernel(llvm::StringRef fn);

} // namespace exec
} // namespace plumb

#endif // PLUMB_INTERPRETER_KERNELTABLE_H
