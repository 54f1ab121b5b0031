//===- runtime/include/plumb/runtime/math_exceptions.h - Hard cases -*- C++ -*-===//
//
// Part of Plumb. The exception lists of math.h: for each function, the inputs
// (binary32 bits) whose binary64 approximation lies so close to a rounding
// midpoint that it would round the wrong way, with the correctly rounded
// result bits (computed by MPFR). Found exhaustively, over all 2^32 inputs,
// by `scripts/check-math --exhaustive FN`, which prints mismatches as
// `case X: return Y;` lines; enter them here as X(x, y). Consulted only when
// math.h's `nearMidpoint` fires. 0 means "no exception".
//
// Each list is an X-macro so the unit tests can verify every entry against
// MPFR.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_MATH_EXCEPTIONS_H
#define PLUMB_RUNTIME_MATH_EXCEPTIONS_H

#include "plumb/runtime/config.h"

#include <stdint.h>

// exp: exhaustive check result in docs/math.md.
#define PLUMB_MATH_EXP_EXCEPTIONS(X)

// log: exhaustive check result in docs/math.md.
#define PLUMB_MATH_LOG_EXCEPTIONS(X)                                           \
  X(0x3C413D3Au, 0xC08E158Fu) /* log(0x1.827a74p-7) */                         \
  X(0x41178FEBu, 0x400FE5E7u) /* log(0x1.2f1fd6p+3) */                         \
  X(0x4C5D65A5u, 0x418F034Bu) /* log(0x1.bacb4ap+25) */                        \
  X(0x65D890D3u, 0x4254D1F9u) /* log(0x1.b121a6p+76) */                        \
  X(0x6F31A8ECu, 0x42845A89u) /* log(0x1.6351d8p+95) */

// tanh: exhaustive check result in docs/math.md.
#define PLUMB_MATH_TANH_EXCEPTIONS(X)

// sigmoid: exhaustive check result in docs/math.md.
#define PLUMB_MATH_SIGMOID_EXCEPTIONS(X)

// erf: exhaustive check result in docs/math.md.
#define PLUMB_MATH_ERF_EXCEPTIONS(X)

// gelu: exhaustive check result in docs/math.md.
#define PLUMB_MATH_GELU_EXCEPTIONS(X)

// gelu_tanh: exhaustive check result in docs/math.md.
#define PLUMB_MATH_GELU_TANH_EXCEPTIONS(X)

namespace plumb {
namespace rt {
namespace mathdetail {

#define PLUMB_MATH_EXCEPTION_CASE(x, y)                                        \
  case x:                                                                      \
    return y;

PLUMB_HD inline uint32_t expException(uint32_t x) {
  switch (x) {
    PLUMB_MATH_EXP_EXCEPTIONS(PLUMB_MATH_EXCEPTION_CASE)
  default:
    return 0;
  }
}

PLUMB_HD inline uint32_t logException(uint32_t x) {
  switch (x) {
    PLUMB_MATH_LOG_EXCEPTIONS(PLUMB_MATH_EXCEPTION_CASE)
  default:
    return 0;
  }
}

PLUMB_HD inline uint32_t tanhException(uint32_t x) {
  switch (x) {
    PLUMB_MATH_TANH_EXCEPTIONS(PLUMB_MATH_EXCEPTION_CASE)
  default:
    return 0;
  }
}

PLUMB_HD inline uint32_t sigmoidException(uint32_t x) {
  switch (x) {
    PLUMB_MATH_SIGMOID_EXCEPTIONS(PLUMB_MATH_EXCEPTION_CASE)
  default:
    return 0;
  }
}

PLUMB_HD inline uint32_t erfException(uint32_t x) {
  switch (x) {
    PLUMB_MATH_ERF_EXCEPTIONS(PLUMB_MATH_EXCEPTION_CASE)
  default:
    return 0;
  }
}

PLUMB_HD inline uint32_t geluException(uint32_t x) {
  switch (x) {
    PLUMB_MATH_GELU_EXCEPTIONS(PLUMB_MATH_EXCEPTION_CASE)
  default:
    return 0;
  }
}

PLUMB_HD inline uint32_t gelu_tanhException(uint32_t x) {
  switch (x) {
    PLUMB_MATH_GELU_TANH_EXCEPTIONS(PLUMB_MATH_EXCEPTION_CASE)
  default:
    return 0;
  }
}

#undef PLUMB_MATH_EXCEPTION_CASE

/// pow is not exhaustively checkable; no hard cases are listed.
PLUMB_HD inline uint32_t powException(uint32_t x, uint32_t y) {
  (void)x;
  (void)y;
  return 0;
}

} // namespace mathdetail
} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_MATH_EXCEPTIONS_H
