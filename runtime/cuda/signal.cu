//===- runtime/cuda/signal.cu - CUDA twin: DFT and STFT ---------*- CUDA -*-===//
//
// Part of Plumb. Entry points of plumb_cuda.h for this family; the twiddle
// and per-output arithmetic is signal.h's (the same functions as the CPU
// kernel), the argument checks and the stage launches launchers.h.
//
//===----------------------------------------------------------------------===//
#include "cuda_exec.cuh"

#define PLUMB_ABI_SIGNAL
#include "abi.inc"
