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
//    Min(Max(t, +0), 1) with the Max/Min rules below. HardSwish: x times
//    HardSigmoid(x) with alpha = 1/6 (0x3E2AAAAB), beta = 0.5.
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
//  * Celu(alpha): x >= 0 ? x : alpha * (exp(x / alpha) - 1) as t = x / alpha;
//    t = exp(t); t = t - 1; y = alpha * t (x = -0 gives -0). NaN -> NaN.
//  * ThresholdedRelu(alpha): x > alpha ? x : +0 (ONNX's definition: NaN
//    gives +0, as both comparisons are false).
//  * Shrink(bias, lambd): x < -lambd ? x + bias : (x > lambd ? x - bias : +0)
//    (-lambd by a sign flip; NaN gives +0 by the same rule).
//  * Mish: x * tanh(softplus(x)) as t = exp(x); t = t + 1; t = log(t);
//    t = tanh(t); y = x * t (math.h exp, log, tanh; every step rounded to
//    float32). exp overflow (x > 88.72...) gives t = 1, so y = x there.
//  * Swish(alpha): x * sigmoid(alpha * x) as t = alpha * x; s = sigmoid(t);
//    y = x * s (math.h sigmoid).
//  * Bitwise And / Or / Xor (int32/int64): the bit operations; Xor (bool)
//    is a != b. BitShift (int32/int64, ONNX's unsigned semantics): the bits
//    as unsigned, shifted left or logically right; a shift amount that is
//    negative or >= the bit width gives 0.
//  * FMod (float32, ONNX Mod with fmod = 1): C fmod, exact: the remainder of
//    x / y truncated toward zero, with x's sign (a zero result is +-0 as x);
//    computed on the integer significands (no division, no libm). NaN if x
//    or y is NaN, x is +-inf or y is +-0; x itself when y is +-inf.
//  * RoundF16 / RoundBf16: x rounded to the nearest float16 / bfloat16 value
//    (ties to even, subnormals kept, overflow to +-inf, NaN canonical), as
//    the float32 holding it; computed on the bits (half.h).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_ELEMENTWISE_H
#define PLUMB_RUNTIME_ELEMENTWISE_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>


//===----------------------------------------------------------------------===//
// The op tables: every float32 unary and binary op, its code and its
// per-element arithmetic (a C++ expression of v, alpha, beta or x, y over the
// functions below). Everything that computes these ops reads these tables:
// the host kernels, the CUDA twin (runtime/cuda), the emitted conv epilogues
// and the op codes the compiler passes. Adding an op is one line here and
// its scalar function.
//===----------------------------------------------------------------------===//

/// X(NAME, CODE, EXPR): plumb_rt_unary_f32 op PLUMB_RT_<NAME> = CODE computes
/// y = EXPR for each element v (alpha and beta are the call's parameters).
/// The transcendental ops, which the host also runs through vectorised array
/// kernels (math_kernels.h, bit-identical to the scalar functions):
#define PLUMB_UNARY_F32_MATH_OPS(X)                                            \
  X(EXP, 4, expF(v))                                                           \
  X(LOG, 5, logF(v))                                                           \
  X(TANH, 6, tanhF(v))                                                         \
  X(SIGMOID, 7, sigmoidF(v))                                                   \
  X(ERF, 12, erfF(v))                                                          \
  X(GELU, 13, geluErfF(v))                                                     \
  X(GELU_TANH, 14, geluTanhF(v))
/// ... and the others, computed by their expression on every target:
#define PLUMB_UNARY_F32_SCALAR_OPS(X)                                          \
  X(NEG, 0, canon(negF(v)))                                                    \
  X(ABS, 1, canon(absF(v)))                                                    \
  X(RECIPROCAL, 2, reciprocalF(v))                                             \
  X(SQRT, 3, sqrtF(v))                                                         \
  X(HARD_SIGMOID, 8, hardSigmoidF(v, alpha, beta))                             \
  X(RELU, 9, reluF(v))                                                         \
  X(LEAKY_RELU, 10, leakyReluF(v, alpha))                                      \
  X(CLIP, 11, clipF(v, alpha, beta))                                           \
  X(IDENTITY, 15, canon(v))                                                    \
  X(FLOOR, 16, canon(floorF(v)))                                               \
  X(CEIL, 17, canon(ceilF(v)))                                                 \
  X(ROUND, 18, canon(roundEvenF(v)))                                           \
  X(SIGN, 19, signF(v))                                                        \
  X(SOFTPLUS, 20, softplusF(v))                                                \
  X(SOFTSIGN, 21, softsignF(v))                                                \
  X(ELU, 22, eluF(v, alpha))                                                   \
  X(SELU, 23, seluF(v, alpha, beta))                                           \
  X(HARD_SWISH, 24, hardSwishF(v))                                             \
  X(CELU, 25, celuF(v, alpha))                                                 \
  X(THRESHOLDED_RELU, 26, thresholdedReluF(v, alpha))                          \
  X(SHRINK, 27, shrinkF(v, alpha, beta))                                       \
  X(MISH, 28, mishF(v))                                                        \
  X(SWISH, 29, swishF(v, alpha))                                               \
  X(SIN, 30, ::plumb::rt::sin(v))                                              \
  X(COS, 31, ::plumb::rt::cos(v))                                              \
  X(TAN, 32, ::plumb::rt::tan(v))                                              \
  X(ASIN, 33, ::plumb::rt::asin(v))                                            \
  X(ACOS, 34, ::plumb::rt::acos(v))                                            \
  X(ATAN, 35, ::plumb::rt::atan(v))                                            \
  X(SINH, 36, ::plumb::rt::sinh(v))                                            \
  X(COSH, 37, ::plumb::rt::cosh(v))                                            \
  X(ASINH, 38, ::plumb::rt::asinh(v))                                          \
  X(ACOSH, 39, ::plumb::rt::acosh(v))                                          \
  X(ATANH, 40, ::plumb::rt::atanh(v))                                          \
  X(ROUND_F16, 41, ::plumb::rt::half::roundToF16(v))                           \
  X(ROUND_BF16, 42, ::plumb::rt::half::roundToBf16(v))
#define PLUMB_UNARY_F32_OPS(X)                                                 \
  PLUMB_UNARY_F32_MATH_OPS(X)                                                  \
  PLUMB_UNARY_F32_SCALAR_OPS(X)

/// X(NAME, CODE, EXPR): plumb_rt_binary_f32 arithmetic op PLUMB_RT_<NAME> =
/// CODE computes z = EXPR for each pair (x, y).
#define PLUMB_BINARY_F32_OPS(X)                                                \
  X(ADD, 0, canon(x + y))                                                      \
  X(SUB, 1, canon(x - y))                                                      \
  X(MUL, 2, canon(x * y))                                                      \
  X(DIV, 3, canon(x / y))                                                      \
  X(POW, 4, powF(x, y))                                                        \
  X(MAX, 5, maxF(x, y))                                                        \
  X(MIN, 6, minF(x, y))                                                        \
  X(PRELU, 8, preluF(x, y))                                                    \
  X(FMOD_F32, 11, fmodF(x, y))

/// X(NAME, CODE, EXPR): comparison op PLUMB_RT_<NAME> = CODE (every numeric
/// type; IEEE for float32), z = EXPR as 0/1.
#define PLUMB_COMPARE_OPS(X)                                                   \
  X(EQUAL, 16, x == y)                                                         \
  X(LESS, 17, x < y)                                                           \
  X(GREATER, 18, x > y)                                                        \
  X(GREATER_OR_EQUAL, 19, x >= y)                                              \
  X(LESS_OR_EQUAL, 20, x <= y)

#if defined(__cplusplus)
#include "plumb/runtime/half.h"
#include "plumb/runtime/math.h"

namespace plumb {
namespace rt {
namespace ops {

//===----------------------------------------------------------------------===//
// Bit helpers.
//===----------------------------------------------------------------------===//

PLUMB_INLINE uint32_t bitsOf(float f) { return half::f32Bits(f); }

PLUMB_INLINE float fromBits(uint32_t u) { return half::f32FromBits(u); }

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

/// HardSwish: x * HardSigmoid(x) with alpha = 1/6 (rounded to float32) and
/// beta = 0.5: t = alpha * x; t = t + 0.5; h = Min(Max(t, +0), 1); x * h.
PLUMB_INLINE float hardSwishF(float x) {
  const float h = hardSigmoidF(x, fromBits(0x3E2AAAABu), 0.5f);
  return canon(x * h);
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

/// Celu(alpha): t = x / alpha; t = exp(t); t = t - 1; y = alpha * t for
/// x < 0, else x.
PLUMB_INLINE float celuF(float x, float alpha) {
  if (x != x)
    return canonicalNaN();
  if (x >= 0.0f)
    return x;
  float t = x / alpha;
  t = ::plumb::rt::exp(t);
  t = t - 1.0f;
  return canon(alpha * t);
}

/// ThresholdedRelu(alpha): x > alpha ? x : +0 (NaN gives +0).
PLUMB_INLINE float thresholdedReluF(float x, float alpha) {
  return x > alpha ? x : 0.0f;
}

/// Shrink(bias, lambd): x < -lambd ? x + bias : (x > lambd ? x - bias : +0).
PLUMB_INLINE float shrinkF(float x, float bias, float lambd) {
  if (x < negF(lambd))
    return canon(x + bias);
  if (x > lambd)
    return canon(x - bias);
  return 0.0f;
}

/// Mish: t = exp(x); t = t + 1; t = log(t); t = tanh(t); y = x * t.
PLUMB_INLINE float mishF(float x) {
  float t = ::plumb::rt::exp(x);
  t = t + 1.0f;
  t = ::plumb::rt::log(t);
  t = ::plumb::rt::tanh(t);
  return canon(x * t);
}

/// Swish(alpha): t = alpha * x; s = sigmoid(t); y = x * s.
PLUMB_INLINE float swishF(float x, float alpha) {
  const float t = alpha * x;
  const float s = ::plumb::rt::sigmoid(t);
  return canon(x * s);
}

/// The float m * 2^e (0 <= m < 2^24, -149 <= e <= 104, the product a float):
/// one exact multiplication by a power of two.
PLUMB_INLINE float scaleSig(uint32_t m, int32_t e) {
  const float p = e >= -126 ? fromBits((uint32_t)(e + 127) << 23)
                            : fromBits(1u << (e + 149));
  return (float)m * p;
}

/// FMod (ONNX Mod, fmod = 1): C fmod(x, y), exact. With |x| = mx * 2^ex and
/// |y| = my * 2^ey (integer significands), r = (mx * 2^(ex - ey)) mod my by
/// doubling steps (r = 2r; r -= my when r >= my); the result is
/// r * 2^ey with x's sign.
PLUMB_INLINE float fmodF(float x, float y) {
  const uint32_t bx = bitsOf(x), by = bitsOf(y);
  const uint32_t ax = bx & 0x7FFFFFFFu, ay = by & 0x7FFFFFFFu;
  const uint32_t sign = bx & 0x80000000u;
  if (ax > 0x7F800000u || ay > 0x7F800000u || ax == 0x7F800000u || ay == 0)
    return canonicalNaN();
  if (ay == 0x7F800000u || ax < ay)
    return x;
  const int32_t Ex = (int32_t)(ax >> 23), Ey = (int32_t)(ay >> 23);
  const uint32_t mx = Ex ? (ax & 0x7FFFFFu) | 0x800000u : ax;
  const uint32_t my = Ey ? (ay & 0x7FFFFFu) | 0x800000u : ay;
  const int32_t ex = Ex ? Ex - 150 : -149, ey = Ey ? Ey - 150 : -149;
  uint32_t r = mx % my;
  for (int32_t d = ex - ey; d > 0; --d) {
    r <<= 1;
    if (r >= my)
      r -= my;
  }
  return fromBits(bitsOf(scaleSig(r, ey)) | sign);
}

/// One float32 unary op by its code (PLUMB_UNARY_F32_OPS); every target's
/// kernels and the emitted epilogues call this with the op's code, which the
/// compiler folds when it is a constant. An unknown code gives canon(v)
/// (callers check with unaryF32Valid first).
PLUMB_INLINE float unaryF32(int32_t op, float v, float alpha, float beta) {
  (void)alpha;
  (void)beta;
  switch (op) {
#define PLUMB_X(NAME, CODE, EXPR)                                              \
  case CODE:                                                                   \
    return EXPR;
    PLUMB_UNARY_F32_OPS(PLUMB_X)
#undef PLUMB_X
  default:
    return canon(v);
  }
}

PLUMB_INLINE bool unaryF32Valid(int32_t op) {
  switch (op) {
#define PLUMB_X(NAME, CODE, EXPR) case CODE:
    PLUMB_UNARY_F32_OPS(PLUMB_X)
#undef PLUMB_X
    return true;
  default:
    return false;
  }
}

/// Whether a unary op is one of PLUMB_UNARY_F32_MATH_OPS (the host runs it
/// through a vectorised array kernel).
PLUMB_INLINE bool unaryF32IsMath(int32_t op) {
  switch (op) {
#define PLUMB_X(NAME, CODE, EXPR) case CODE:
    PLUMB_UNARY_F32_MATH_OPS(PLUMB_X)
#undef PLUMB_X
    return true;
  default:
    return false;
  }
}

/// One float32 arithmetic binary op by its code (PLUMB_BINARY_F32_OPS); an
/// unknown code gives minF (callers check with binaryF32Valid first).
PLUMB_INLINE float binaryF32(int32_t op, float x, float y) {
  switch (op) {
#define PLUMB_X(NAME, CODE, EXPR)                                              \
  case CODE:                                                                   \
    return EXPR;
    PLUMB_BINARY_F32_OPS(PLUMB_X)
#undef PLUMB_X
  default:
    return minF(x, y);
  }
}

/// A comparison by its code (PLUMB_COMPARE_OPS), 0/1.
template <typename T>
PLUMB_INLINE uint8_t compareValues(int32_t op, T x, T y) {
  switch (op) {
#define PLUMB_X(NAME, CODE, EXPR)                                              \
  case CODE:                                                                   \
    return EXPR;
    PLUMB_COMPARE_OPS(PLUMB_X)
#undef PLUMB_X
  default:
    return 0;
  }
}

PLUMB_INLINE bool binaryF32Valid(int32_t op) {
  switch (op) {
#define PLUMB_X(NAME, CODE, EXPR) case CODE:
    PLUMB_BINARY_F32_OPS(PLUMB_X)
    PLUMB_COMPARE_OPS(PLUMB_X)
#undef PLUMB_X
    return true;
  default:
    return false;
  }
}

PLUMB_INLINE bool isCompareOp(int32_t op) { return op >= 16 && op < 32; }
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
template <typename T> PLUMB_INLINE T bitAndI(T a, T b) { return a & b; }
template <typename T> PLUMB_INLINE T bitOrI(T a, T b) { return a | b; }
template <typename T> PLUMB_INLINE T bitXorI(T a, T b) { return a ^ b; }
/// BitShift on the bits as unsigned; amounts < 0 or >= the width give 0.
template <typename T> PLUMB_INLINE T shlI(T a, T s) {
  typedef typename UnsignedOf<T>::type U;
  if (s < 0 || s >= (T)(8 * sizeof(T)))
    return 0;
  return (T)((U)a << (U)s);
}
template <typename T> PLUMB_INLINE T shrI(T a, T s) {
  typedef typename UnsignedOf<T>::type U;
  if (s < 0 || s >= (T)(8 * sizeof(T)))
    return 0;
  return (T)((U)a >> (U)s);
}

} // namespace ops
} // namespace rt
} // namespace plumb
#endif // __cplusplus

//===----------------------------------------------------------------------===//
// C ABI.
//===----------------------------------------------------------------------===//

/// Unary op codes for plumb_rt_unary_f32 (alpha/beta meaning per op:
/// HARD_SIGMOID alpha, beta; LEAKY_RELU and ELU alpha; CLIP alpha = min,
/// beta = max (-inf/+inf when absent); SELU alpha, beta = gamma; GELU is
/// approximate = "none", GELU_TANH approximate = "tanh"; IDENTITY copies with
/// NaNs canonicalised; ROUND is half to even).
enum plumb_rt_unary_op {
#define PLUMB_X(NAME, CODE, EXPR) PLUMB_RT_##NAME = CODE,
  PLUMB_UNARY_F32_OPS(PLUMB_X)
#undef PLUMB_X
};

/// Binary op codes. Arithmetic codes produce the input type; comparison codes
/// produce bool (uint8 0/1); logical codes take and produce bool. PRELU is
/// float32 only (a < 0 ? b * a : a, b = slope); MOD (sign of the divisor,
/// ONNX fmod = 0) and FMOD (sign of the dividend) are integer only.
enum plumb_rt_binary_op {
#define PLUMB_X(NAME, CODE, EXPR) PLUMB_RT_##NAME = CODE,
  PLUMB_BINARY_F32_OPS(PLUMB_X)
  PLUMB_COMPARE_OPS(PLUMB_X)
#undef PLUMB_X
  PLUMB_RT_MOD = 9,
  PLUMB_RT_FMOD = 10,
  PLUMB_RT_AND = 32,
  PLUMB_RT_OR = 33,
  PLUMB_RT_XOR = 34,
  PLUMB_RT_BIT_AND = 12,
  PLUMB_RT_BIT_OR = 13,
  PLUMB_RT_BIT_XOR = 14,
  PLUMB_RT_SHIFT_LEFT = 40,
  PLUMB_RT_SHIFT_RIGHT = 41,
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

/// Variadic Sum / Max / Min over int32 (wraparound), left to right.
int plumb_rt_variadic_i32(int32_t op, int32_t count,
                          const int32_t *const *inputs,
                          const int64_t *const *shapes, const int32_t *ranks,
                          int32_t *out, const int64_t *out_shape,
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
