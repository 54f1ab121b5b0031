//===- runtime/include/plumb/runtime/math_kernels.h - Math C ABI -*- C++ -*-===//
//
// Part of Plumb. C ABI array kernels over the scalar functions of math.h:
// y[i] = f(x[i]) for 0 <= i < n, bit-identical to the scalar reference for
// every i (any thread count: threads split the index range only). Every
// stored NaN is the canonical 0x7FC00000. x and y may alias exactly. n <= 0
// does nothing.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_MATH_KERNELS_H
#define PLUMB_RUNTIME_MATH_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void plumb_rt_exp_f32(const float *x, float *y, int64_t n);
void plumb_rt_log_f32(const float *x, float *y, int64_t n);
void plumb_rt_tanh_f32(const float *x, float *y, int64_t n);
void plumb_rt_sigmoid_f32(const float *x, float *y, int64_t n);
void plumb_rt_erf_f32(const float *x, float *y, int64_t n);
void plumb_rt_sqrt_f32(const float *x, float *y, int64_t n);
void plumb_rt_reciprocal_f32(const float *x, float *y, int64_t n);
/// Gelu approximate="none": x * Phi(x).
void plumb_rt_gelu_f32(const float *x, float *y, int64_t n);
/// Gelu approximate="tanh".
void plumb_rt_gelu_tanh_f32(const float *x, float *y, int64_t n);
/// out[i] = pow(x[i], e[i]) (same-length arrays; broadcasting is the caller's).
void plumb_rt_pow_f32(const float *x, const float *e, float *out, int64_t n);
/// out[i] = pow(x[i], e) for a scalar exponent.
void plumb_rt_pow_scalar_f32(const float *x, float e, float *out, int64_t n);
/// y[i] = x[i] with every NaN replaced by 0x7FC00000.
void plumb_rt_canonicalize_nan_f32(const float *x, float *y, int64_t n);

/// Schedule selection for exp, sigmoid, tanh, erf, gelu and gelu_tanh.
/// Affects speed only, never a result bit (tests use it to compare every
/// schedule): 0 = best available (default), 1 = scalar, 2 = AVX2, 3 =
/// AVX-512F. A request for an ISA the CPU lacks falls back below it. Not
/// thread-safe against concurrent kernel calls; set it before running.
void plumb_rt_math_set_isa(int isa);
/// The schedule those kernels use now (1, 2 or 3).
int plumb_rt_math_active_isa(void);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // PLUMB_RUNTIME_MATH_KERNELS_H
