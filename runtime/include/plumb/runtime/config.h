//===- runtime/include/plumb/runtime/config.h - Host/device macros -*- C++ -*-===//
//
// Part of Plumb. Macros that let one source of arithmetic compile for the host
// (C++) and for CUDA devices, plus the determinism contract version.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_CONFIG_H
#define PLUMB_RUNTIME_CONFIG_H

#include <stdint.h>

#if defined(__CUDACC__)
#define PLUMB_HD __host__ __device__
#define PLUMB_INLINE __host__ __device__ __forceinline__
#else
#define PLUMB_HD
#if defined(__GNUC__)
#define PLUMB_INLINE inline __attribute__((always_inline))
#else
#define PLUMB_INLINE inline
#endif
#endif

/// The version of the determinism contract. Any change to any result bit of
/// any kernel requires a new version. Recorded in every bundle and trace.
#define PLUMB_CONTRACT_VERSION "plumb-det-v1"

/// The canonical NaN every kernel stores.
#define PLUMB_CANONICAL_NAN_BITS 0x7FC00000u

#endif // PLUMB_RUNTIME_CONFIG_H
