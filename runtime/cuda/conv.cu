//===- runtime/cuda/conv.cu - CUDA twin: Conv and ConvTranspose (N-d) -*- CUDA -*-===//
//
// Part of Plumb. Entry points of plumb_cuda.h for this family; the
// per-element arithmetic is device_ops.h (the same header functions as the
// CPU kernels), the argument checks launchers.h.
//
//===----------------------------------------------------------------------===//
#include "cuda_exec.cuh"

#define PLUMB_ABI_CONV
#include "abi.inc"
