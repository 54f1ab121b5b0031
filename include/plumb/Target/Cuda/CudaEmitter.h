//===- include/plumb/Target/Cuda/CudaEmitter.h - CUDA code generation -*- C++ -*-===//
//
// Part of Plumb. Emits the CUDA source of a compiled model: host code that
// exports the entry points of model_abi.h and runs the nodes in canonical
// order on the GPU through the device kernel library (runtime/cuda,
// plumb_cuda.h), with shapes, attributes and reduction trees as literals
// and every value at its offset of a device-resident memory plan. Nodes
// without a device kernel run on the host kernels over a host mirror of the
// arena (their operands are downloaded, their results uploaded), so every
// node computes exactly what the interpreter computes. Compiled by nvcc with
// --fmad=false -ftz=false -prec-div=true -prec-sqrt=true.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TARGET_CUDA_CUDAEMITTER_H
#define PLUMB_TARGET_CUDA_CUDAEMITTER_H

#include "plumb/Target/Cpp/CppEmitter.h"
#include "plumb/Target/Plan/ModelPlan.h"

#include "llvm/Support/Error.h"

#include <string>

namespace plumb {
namespace target {

/// The CUDA source of the compiled model; `plan` must be device-resident
/// (PlanOptions::deviceResident).
llvm::Expected<std::string> emitCuda(const ModelPlan &plan,
                                     const EmitHeader &header);

/// Whether `op` runs on a device kernel in emitted CUDA code (otherwise on
/// the host kernels).
bool hasDeviceKernel(mlir::Operation *op, const ModelPlan &plan);

} // namespace target
} // namespace plumb

#endif // PLUMB_TARGET_CUDA_CUDAEMITTER_H
