//===- runtime/include/plumb/runtime/elementwise.h - Elementwise ops -*- C++ -*-===//
//
// Part of Plumb. The per-element arithmetic of every elementwise operator,
// written once as PLUMB_HD inline functions for host and CUDA, plus the C ABI
// of the host kernels.
//
// Numeric semantics (float32, round-to-nearest-even, subnormals kept, no
// contraction):
//  * Every float result goes through canon(): a NaN is stored as 0x7FC00000.
//  * Neg: sign flip (bit operation). Abs: sign clear (bit operation).
//  * Reciprocal: 1.0f / x (IEEE division). Sqrt: IEEE sqrt.
//  * Exp Log Tanh Sigmoid Erf Pow: plumb::rt::exp/log/tanh/sigmoid/erf/pow from
//    math.h (our own correctly specified code, never libm). This header is the
//    only place in the non-GEMM kernels that names them.
//  * HardSigmoid(alpha, beta): t = alpha * x; t = t + beta; then
//    Min(Max(t, +0), 1) with the Max/Min rules below.
//  * Relu: x > 0 ? x : +0.0 (so Relu(-0) = +0); NaN -> NaN.
//  * LeakyRelu(alpha): x >= 0 ? x : alpha * x (x = -0 gives -0).
//  * Clip(lo, hi): Min(Max(x, lo), hi) (ONNX order; lo > hi gives hi).
//  * Gelu(none) / Gelu(tanh): plumb::rt::gelu / gelu_tanh from math.h (each
//    evaluated in binary64 and rounded once; see docs/math.md).
//  * Max / Min: NaN if either operand is NaN; Max(+0,-0) = +0 and
//    Min(+0,-0) = -0 in either order (so the result never depends on operand
//    order, which makes variadic and reduction forms order-free).
//  * Comparisons: IEEE (any comparison with NaN is false, +0 == -0).
//  * Floor / Ceil / Round (half to even) are exact and keep the sign of zero.
//    Sign: +-1, or x itself for +-0. PRelu: x < 0 ? slope * x : x.
//    Softplus: log(exp(x) + 1) as t = exp(x); t = t + 1; log(t).
//    Softsign: x / (1 + |x|). Elu: x >= 0 ? x : alpha * (exp(x) - 1).
//    Selu: x > 0 ? gamma * x : gamma * ((alpha * exp(x)) - alpha).
//  * Integer arithmetic (int64/int32): two's complement wraparound. Division
//    truncates toward zero; x / 0 = 0; INT_MIN / -1 = INT_MIN. Mod (fmod=0)
//    takes the divisor's sign, FMod (fmod=1) the dividend's; x mod 0 = 0. Pow(int):
//    exponent >= 0 by repeated squaring with wraparound; exponent < 0 gives
//    1 for base 1, +-1 for base -1 (by parity), 0 otherwise (0^-n = 0).
//    Neg/Abs wrap (Abs(INT_MIN) = INT_MIN).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_ELEMENTWISE_H
#define PLUMB_RUNTIME_ELEMENTWISE_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

#if defined(__cplusplus)
#include "plumb/runtime/math.h"

namespace plumb {
namespace rt {
namespace ops {

//===----------------------------------------------------------------------===//
// Bit helpers.
//===----------------------------------------------------------------------===//

PLUMB_INLINE uint32_t bitsOf(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  __builtin_memcpy(&u, &f, sizeof(u));
  return u;
#endif
}

PLUMB_INLINE float fromBits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  __builtin_memcpy(&f, &u, sizeof(f));
  return f;
#endif
}

PLUMB_INLINE bool isNaN(float x) { return x != x; }

/// Canonicalises NaN to 0x7FC00000; every other value is returned unchanged.
/// Decided on the integer bits: compilers treat NaN payloads as unspecified
/// and may fold a float-level `x != x ? qnan : x` back to `x` (clang does).
PLUMB_INLINE float canon(float x) {
  uint32_t b = bitsOf(x);
  return fromBits((b & 0x7FFFFFFFu) > 0x7F800000u ? PLUMB_CANONICAL_NAN_BITS
                                                  : b);
}

PLUMB_INLINE float canonicalNaN() { return fromBits(PLUMB_CANONICAL_NAN_BITS); }
PLUMB_INLINE float posInf() { return fromBits(0x7F800000u); }
PLUMB_INLINE float negInf() { return fromBits(0xFF800000u); }

/// IEEE square root (correctly rounded instruction on every target).
PLUMB_INLINE float sqrtRn(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#else
  return __builtin_sqrtf(x);
#endif
}

/// floor() for float without libm: exact for every float.
PLUMB_INLINE float floorF(float x) {
  // |x| >= 2^23 (or NaN/inf): already an integer.
  if (!(x > -8388608.0f && x < 8388608.0f))
    return x;
  float t = (float)(int32_t)x; // truncation toward zero, exact here
  if (t > x)
    t = t - 1.0f;
  if (t == 0.0f && bitsOf(x) >> 31)
    t = fromBits(0x80000000u); // floor(-0) = -0, floor(-0.3) handled above
  return t;
}

/// ceil() for float without libm: exact for every float.
PLUMB_INLINE float ceilF(float x) {
  if (!(x > -8388608.0f && x < 8388608.0f))
    return x;
  float t = (float)(int32_t)x;
  if (t < x)
    t = t + 1.0f;
  if (t == 0.0f && bitsOf(x) >> 31)
    t = fromBits(0x80000000u); // ceil(-0.5) = -0
  return t;
}

/// Round half to even (ONNX Round), exact; keeps the sign of zero.
PLUMB_INLINE float roundEvenF(float x) {
  if (!(x > -8388608.0f && x < 8388608.0f))
    return x;
  const float f = floorF(x);
  const float d = x - f; // exact
  float r = f;
  if (d > 0.5f || (d == 0.5f && ((int32_t)f & 1)))
    r = f + 1.0f;
  if (r == 0.0f)
    r = fromBits(bitsOf(x) & 0x80000000u);
  return r;
}

//===----------------------------------------------------------------------===//
// Float32 unary ops.
//===----------------------------------------------------------------------===//

PLUMB_INLINE float negF(float x) { return fromBits(bitsOf(x) ^ 0x80000000u); }
PLUMB_INLINE float absF(float x) { return fromBits(bitsOf(x) & 0x7FFFFFFFu); }

/// Max with NaN propagation and +0 > -0 (order-free).
/// Written as selects (no data-dependent branches) so loops vectorise.
PLUMB_INLINE float maxF(float a, float b) {
  float m = a > b ? a : b;
  m = a == b ? fromBits(bitsOf(a) & bitsOf(b)) : m;
  return (a != a || b != b) ? canonicalNaN() : m;
}

/// Min with NaN propagation and -0 < +0 (order-free).
PLUMB_INLINE float minF(float a, float b) {
  float m = a < b ? a : b;
  m = a == b ? fromBits(bitsOf(a) | bitsOf(b)) : m;
  return (a != a || b != b) ? canonicalNaN() : m;
}

/// Order keys: maxKey is strictly monotone in the Max order above (-0 < +0,
/// every NaN above +inf), so an integer max fold of keys equals the Max fold
/// of the floats; it vectorises where the float form does not. minKey maps
/// NaN below -inf for Min folds.
PLUMB_INLINE int32_t orderKey(float x) {
  const int32_t s = (int32_t)bitsOf(x);
  return s ^ ((s >> 31) & 0x7FFFFFFF);
}
PLUMB_INLINE int32_t maxKey(float x) { return x != x ? INT32_MAX : orderKey(x); }
PLUMB_INLINE int32_t minKey(float x) { return x != x ? INT32_MIN : orderKey(x); }
/// Inverse of max/minKey (the NaN keys give the canonical NaN).
PLUMB_INLINE float fromKey(int32_t k) {
  if (k == INT32_MAX || k == INT32_MIN)
    return canonicalNaN();
  return fromBits((uint32_t)(k ^ ((k >> 31) & 0x7FFFFFFF)));
}

PLUMB_INLINE float reluF(float x) {
  if (x != x)
    return canonicalNaN();
  return x > 0.0f ? x : 0.0f;
}

PLUMB_INLINE float leakyReluF(float x, float alpha) {
  if (x != x)
    return canonicalNaN();
  return x >= 0.0f ? x : canon(alpha * x);
}

PLUMB_INLINE float clipF(float x, float lo, float hi) {
  return minF(maxF(x, lo), hi);
}

PLUMB_INLINE float hardSigmoidF(float x, float alpha, float beta) {
  float t = alpha * x;
  t = t + beta;
  return minF(maxF(t, 0.0f), 1.0f);
}

PLUMB_INLINE float signF(float x) {
  if (x != x)
    return canonicalNaN();
  return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x);
}

/// PRelu: x < 0 ? slope * x : x.
PLUMB_INLINE float preluF(float x, float slope) {
  return canon(x < 0.0f ? slope * x : x);
}

PLUMB_INLINE float reciprocalF(float x) { return canon(1.0f / x); }
PLUMB_INLINE float sqrtF(float x) { return canon(sqrtRn(x)); }
PLUMB_INLINE float expF(float x) { return canon(::plumb::rt::exp(x)); }
PLUMB_INLINE float logF(float x) { return canon(::plumb::rt::log(x)); }
PLUMB_INLINE float tanhF(float x) { return canon(::plumb::rt::tanh(x)); }
PLUMB_INLINE float sigmoidF(float x) { return canon(::plumb::rt::sigmoid(x)); }
PLUMB_INLINE float erfF(float x) { return canon(::plumb::rt::erf(x)); }
PLUMB_INLINE float powF(float a, float b) { return canon(::plumb::rt::pow(a, b)); }

/// Softplus: t = exp(x); t = t + 1; y = log(t).
PLUMB_INLINE float softplusF(float x) {
  float t = ::plumb::rt::exp(x);
  t = t + 1.0f;
  return canon(::plumb::rt::log(t));
}

/// Softsign: x / (1 + |x|).
PLUMB_INLINE float softsignF(float x) {
  float d = absF(x);
  d = 1.0f + d;
  return canon(x / d);
}

/// Elu(alpha): x >= 0 ? x : alpha * (exp(x) - 1)  (t = exp(x); t = t - 1;
/// y = alpha * t). NaN -> NaN.
PLUMB_INLINE float eluF(float x, float alpha) {
  if (x != x)
    return canonicalNaN();
  if (x >= 0.0f)
    return x;
  float t = ::plumb::rt::exp(x);
  t = t - 1.0f;
  return canon(alpha * t);
}

/// Selu(alpha, gamma): x > 0 ? gamma * x : gamma * ((alpha * exp(x)) - alpha).
PLUMB_INLINE float seluF(float x, float alpha, float gamma) {
  if (x != x)
    return canonicalNaN();
  if (x > 0.0f)
    return canon(gamma * x);
  float t = ::plumb::rt::exp(x);
  t = alpha * t;
  t = t - alpha;
  return canon(gamma * t);
}

/// Gelu(approximate="none"): math.h's gelu (x * Phi(x), rounded once).
PLUMB_INLINE float geluErfF(float x) { return canon(::plumb::rt::gelu(x)); }

/// Gelu(approximate="tanh"): math.h's gelu_tanh (rounded once).
PLUMB_INLINE float geluTanhF(float x) {
  return canon(::plumb::rt::gelu_tanh(x));
}
//===----------------------------------------------------------------------===//
// Integer ops (two's complement wraparound, computed in unsigned).
//===----------------------------------------------------------------------===//

template <typename T> struct UnsignedOf;
template <> struct UnsignedOf<int64_t> { typedef uint64_t type; };
template <> struct UnsignedOf<int32_t> { typedef uint32_t type; };

template <typename T> PLUMB_INLINE T addI(T a, T b) {
  typedef typename UnsignedOf<T>::type U;
  return (T)((U)a + (U)b);
}
template <typename T> PLUMB_INLINE T subI(T a, T b) {
  typedef typename UnsignedOf<T>::type U;
  return (T)((U)a - (U)b);
}
template <typename T> PLUMB_INLINE T mulI(T a, T b) {
  typedef typename UnsignedOf<T>::type U;
  return (T)((U)a * (U)b);
}
template <typename T> PLUMB_INLINE T negI(T a) {
  typedef typename UnsignedOf<T>::type U;
  return (T)((U)0 - (U)a);
}
template <typename T> PLUMB_INLINE T absI(T a) { return a < 0 ? negI(a) : a; }
/// Truncating division; x / 0 = 0; MIN / -1 = MIN (wraparound).
template <typename T> PLUMB_INLINE T divI(T a, T b) {
  if (b == 0)
    return 0;
  if (b == -1)
    return negI(a);
  return a / b;
}
/// Integer Mod, fmod = 0: the result has the sign of the divisor (Python);
/// x mod 0 = 0.
template <typename T> PLUMB_INLINE T modI(T a, T b) {
  if (b == 0 || b == -1)
    return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r = addI(r, b);
  return r;
}
/// Integer Mod, fmod = 1: the result has the sign of the dividend (C);
/// x fmod 0 = 0.
template <typename T> PLUMB_INLINE T fmodI(T a, T b) {
  if (b == 0 || b == -1)
    return 0;
  return a % b;
}
/// Integer power with wraparound (see file comment for negative exponents).
template <typename T> PLUMB_INLINE T powI(T base, T e) {
  if (e < 0) {
    if (base == 1)
      return 1;
    if (base == -1)
      return (e & 1) ? -1 : 1;
    return 0;
  }
  typedef typename UnsignedOf<T>::type U;
  U r = 1, b = (U)base;
  U ue = (U)e;
  while (ue) {
    if (ue & 1)
      r = r * b;
    b = b * b;
    ue >>= 1;
  }
  return (T)r;
}
template <typename T> PLUMB_INLINE T maxI(T a, T b) { return a > b ? a : b; }
template <typename T> PLUMB_INLINE T minI(T a, T b) { return a < b ? a : b; }

} // namespace ops
} // namespace rt
} // namespace plumb
#endif // __cplusplus

//===----------------------------------------------------------------------===//
// C ABI.
//===----------------------------------------------------------------------===//

/// Unary op codes for plumb_rt_unary_f32 (alpha/beta meaning per op).
enum plumb_rt_unary_op {
  PLUMB_RT_NEG = 0,
  PLUMB_RT_ABS = 1,
  PLUMB_RT_RECIPROCAL = 2,
  PLUMB_RT_SQRT = 3,
  PLUMB_RT_EXP = 4,
  PLUMB_RT_LOG = 5,
  PLUMB_RT_TANH = 6,
  PLUMB_RT_SIGMOID = 7,
  PLUMB_RT_HARD_SIGMOID = 8, ///< alpha, beta
  PLUMB_RT_RELU = 9,
  PLUMB_RT_LEAKY_RELU = 10, ///< alpha
  PLUMB_RT_CLIP = 11,       ///< alpha = min, beta = max (pass -inf/+inf if absent)
  PLUMB_RT_ERF = 12,
  PLUMB_RT_GELU = 13,      ///< approximate = "none"
  PLUMB_RT_GELU_TANH = 14, ///< approximate = "tanh"
  PLUMB_RT_IDENTITY = 15,  ///< copy (NaNs canonicalised)
  PLUMB_RT_FLOOR = 16,
  PLUMB_RT_CEIL = 17,
  PLUMB_RT_ROUND = 18, ///< half to even
  PLUMB_RT_SIGN = 19,
  PLUMB_RT_SOFTPLUS = 20,
  PLUMB_RT_SOFTSIGN = 21,
  PLUMB_RT_ELU = 22,  ///< alpha
  PLUMB_RT_SELU = 23, ///< alpha, beta = gamma
};

/// Binary op codes. Arithmetic codes produce the input type; comparison codes
/// produce bool (uint8 0/1); logical codes take and produce bool.
enum plumb_rt_binary_op {
  PLUMB_RT_ADD = 0,
  PLUMB_RT_SUB = 1,
  PLUMB_RT_MUL = 2,
  PLUMB_RT_DIV = 3,
  PLUMB_RT_POW = 4,
  PLUMB_RT_MAX = 5,
  PLUMB_RT_MIN = 6,
  PLUMB_RT_PRELU = 8, ///< f32 only: a < 0 ? b * a : a (b = slope)
  PLUMB_RT_MOD = 9,   ///< integers only: sign of divisor (ONNX fmod = 0)
  PLUMB_RT_FMOD = 10, ///< integers only: sign of dividend (ONNX fmod = 1)
  PLUMB_RT_EQUAL = 16,
  PLUMB_RT_LESS = 17,
  PLUMB_RT_GREATER = 18,
  PLUMB_RT_GREATER_OR_EQUAL = 19,
  PLUMB_RT_LESS_OR_EQUAL = 20,
  PLUMB_RT_AND = 32,
  PLUMB_RT_OR = 33,
  PLUMB_RT_XOR = 34,
};

#ifdef __cplusplus
extern "C" {
#endif

/// y[i] = op(x[i]) for i < n (float32). x and y may alias exactly.
/// alpha/beta: HardSigmoid(alpha, beta), LeakyRelu(alpha), Clip(min, max).
int plumb_rt_unary_f32(int32_t op, const float *x, float *y, int64_t n,
                       float alpha, float beta);
/// Integer unary: NEG, ABS, RELU (max(x,0)), CLIP (lo, hi), IDENTITY.
int plumb_rt_unary_i64(int32_t op, const int64_t *x, int64_t *y, int64_t n,
                       int64_t lo, int64_t hi);
int plumb_rt_unary_i32(int32_t op, const int32_t *x, int32_t *y, int64_t n,
                       int32_t lo, int32_t hi);
/// Logical Not on bool (any nonzero byte is true; output 0/1).
int plumb_rt_not_bool(const uint8_t *x, uint8_t *y, int64_t n);

/// Numpy-broadcast binary op. a has shape a_shape[0..a_rank), b likewise; the
/// output shape out_shape[0..out_rank) must equal the broadcast shape (ranks
/// right-aligned, every input dim equal to the output dim or 1). Ranks <= 8.
/// Arithmetic ops (ADD..FMOD) write `out` of the input type; comparison ops
/// write uint8 0/1 to `out`. `out` may alias an input of the full output
/// shape. Returns PLUMB_RT_OK or an error code.
int plumb_rt_binary_f32(int32_t op, const float *a, const int64_t *a_shape,
                        int32_t a_rank, const float *b, const int64_t *b_shape,
                        int32_t b_rank, void *out, const int64_t *out_shape,
                        int32_t out_rank);
int plumb_rt_binary_i64(int32_t op, const int64_t *a, const int64_t *a_shape,
                        int32_t a_rank, const int64_t *b,
                        const int64_t *b_shape, int32_t b_rank, void *out,
                        const int64_t *out_shape, int32_t out_rank);
int plumb_rt_binary_i32(int32_t op, const int32_t *a, const int64_t *a_shape,
                        int32_t a_rank, const int32_t *b,
                        const int64_t *b_shape, int32_t b_rank, void *out,
                        const int64_t *out_shape, int32_t out_rank);
/// AND / OR / XOR / EQUAL on bool tensors (nonzero = true), uint8 0/1 output.
int plumb_rt_binary_bool(int32_t op, const uint8_t *a, const int64_t *a_shape,
                         int32_t a_rank, const uint8_t *b,
                         const int64_t *b_shape, int32_t b_rank, uint8_t *out,
                         const int64_t *out_shape, int32_t out_rank);

/// Where(cond, x, y) with three-way numpy broadcasting, any element type of
/// `elem_size` bytes (1, 2, 4 or 8): moves bits, no arithmetic.
int plumb_rt_where(const uint8_t *cond, const int64_t *c_shape, int32_t c_rank,
                   const void *x, const int64_t *x_shape, int32_t x_rank,
                   const void *y, const int64_t *y_shape, int32_t y_rank,
                   void *out, const int64_t *out_shape, int32_t out_rank,
                   int64_t elem_size);

/// Variadic Sum / Max / Min / Mean (op = ADD, MAX, MIN, or PLUMB_RT_MEAN) of
/// `count` >= 1 broadcast inputs, folded strictly left to right:
/// acc = in[0]; acc = op(acc, in[1]); ...; Mean then divides acc by (float)count.
/// count == 1 copies (canonicalising NaN). `out` may alias only an input of
/// the full output shape at position 0.
#define PLUMB_RT_MEAN 7
int plumb_rt_variadic_f32(int32_t op, int32_t count, const float *const *inputs,
                          const int64_t *const *shapes, const int32_t *ranks,
                          float *out, const int64_t *out_shape,
                          int32_t out_rank);
/// Variadic Sum / Max / Min over int64 (wraparound), left to right.
int plumb_rt_variadic_i64(int32_t op, int32_t count,
                          const int64_t *const *inputs,
                          const int64_t *const *shapes, const int32_t *ranks,
                          int64_t *out, const int64_t *out_shape,
                          int32_t out_rank);

/// Computes the numpy broadcast of two shapes into out_shape (capacity 8);
/// returns the output rank, or PLUMB_RT_ESHAPE.
int plumb_rt_broadcast_shape(const int64_t *a_shape, int32_t a_rank,
                             const int64_t *b_shape, int32_t b_rank,
                             int64_t *out_shape);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_ELEMENTWISE_H
