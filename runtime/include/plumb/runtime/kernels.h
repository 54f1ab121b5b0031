//===- runtime/include/plumb/runtime/kernels.h - Every kernel's C ABI -*- C++ -*-===//
//
// Part of Plumb. Declares every entry point kernels.def lists: what the
// interpreter's kernel table and the emitted programs call.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_KERNELS_H
#define PLUMB_RUNTIME_KERNELS_H

#include "plumb/runtime/cast.h"
#include "plumb/runtime/conv.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/gemm.h"
#include "plumb/runtime/indexing.h"
#include "plumb/runtime/movement.h"
#include "plumb/runtime/norm.h"
#include "plumb/runtime/pool.h"
#include "plumb/runtime/pool_indices.h"
#include "plumb/runtime/reduce.h"
#include "plumb/runtime/resize.h"
#include "plumb/runtime/rnn.h"
#include "plumb/runtime/signal.h"
#include "plumb/runtime/softmax.h"

#endif // PLUMB_RUNTIME_KERNELS_H
