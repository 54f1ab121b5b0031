//===- runtime/include/plumb/runtime/ops_status.h - Kernel status codes -*- C++ -*-===//
//
// Part of Plumb. Return codes shared by the non-GEMM kernels (elementwise,
// reductions, pooling, movement, ...). Every `plumb_rt_*` kernel that can
// reject its arguments returns one of these; 0 means the output was written.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_OPS_STATUS_H
#define PLUMB_RUNTIME_OPS_STATUS_H

#ifndef PLUMB_RT_OK
/// Success: every output element was written.
#define PLUMB_RT_OK 0
#endif
#ifndef PLUMB_RT_EINVAL
/// Invalid argument: unknown op code, null pointer, negative dimension, ...
#define PLUMB_RT_EINVAL (-1)
#endif
#ifndef PLUMB_RT_ESHAPE
/// Shapes are inconsistent (broadcast failure, wrong output shape, rank > 8).
#define PLUMB_RT_ESHAPE (-2)
#endif
#ifndef PLUMB_RT_ERANGE
/// An index is out of range (Gather). Output contents are then unspecified.
#define PLUMB_RT_ERANGE (-3)
#endif

/// Maximum tensor rank accepted by the broadcasting / movement kernels.
#define PLUMB_RT_MAX_RANK 8

#endif // PLUMB_RUNTIME_OPS_STATUS_H
