//===- runtime/cuda/movement.cu - CUDA twin: data movement with indices -*- CUDA -*-===//
//
// Part of Plumb. Entry points of plumb_cuda.h for this family; the index
// geometry is movement.h's (shared with the CPU kernels), the argument
// checks launchers.h.
//
//===----------------------------------------------------------------------===//
#include "cuda_exec.cuh"

#define PLUMB_ABI_MOVEMENT
#include "abi.inc"
