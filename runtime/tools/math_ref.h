//===- runtime/tools/math_ref.h - MPFR references for math.h ------*- C++ -*-===//
//
// Part of Plumb. Correctly rounded binary32 references (MPFR) for every
// function in plumb/runtime/math.h, shared by the checker
// (plumb-check-math) and the unit tests. Host only; links -lmpfr -lgmp.
//
// Rounding to binary32 is emulated the documented MPFR way: the exact value is
// rounded to 24 bits with the exponent range set to binary32's
// (emin = -148, emax = 128) and then mpfr_subnormalize'd, giving IEEE
// round-to-nearest-even including subnormals, underflow to 0 and overflow to
// inf. Composite functions (sigmoid, gelu, gelu_tanh) use a Ziv loop:
// evaluate at precision p with a conservative error bound, and raise p until
// mpfr_can_round certifies the 24-bit rounding.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_TOOLS_MATH_REF_H
#define PLUMB_RUNTIME_TOOLS_MATH_REF_H

#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

namespace plumb {
namespace mathref {

inline uint32_t bitsOf(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
inline float floatOf(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}
inline bool isNaNBits(uint32_t u) { return (u & 0x7FFFFFFFu) > 0x7F800000u; }

enum class Fn {
  Exp, Log, Tanh, Sigmoid, Erf, Sqrt, Reciprocal, Gelu, GeluTanh, Pow,
  Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh
};

struct FnInfo {
  const char *name;
  Fn fn;
  bool unary;
  bool correctlyRounded; // declared (and exhaustively verified) CR
};

inline const FnInfo *fnTable(int *n) {
  static const FnInfo kFns[] = {
      {"exp", Fn::Exp, true, true},          {"log", Fn::Log, true, true},
      {"tanh", Fn::Tanh, true, true},        {"sigmoid", Fn::Sigmoid, true, true},
      {"erf", Fn::Erf, true, true},          {"sqrt", Fn::Sqrt, true, true},
      {"reciprocal", Fn::Reciprocal, true, true}, {"gelu", Fn::Gelu, true, false},
      {"gelu_tanh", Fn::GeluTanh, true, false},   {"pow", Fn::Pow, false, false},
      {"sin", Fn::Sin, true, true},
      {"cos", Fn::Cos, true, true},
      {"tan", Fn::Tan, true, true},
      {"asin", Fn::Asin, true, true},
      {"acos", Fn::Acos, true, true},
      {"atan", Fn::Atan, true, true},
      {"sinh", Fn::Sinh, true, true},
      {"cosh", Fn::Cosh, true, true},
      {"asinh", Fn::Asinh, true, true},
      {"acosh", Fn::Acosh, true, true},
      {"atanh", Fn::Atanh, true, true},
  };
  *n = (int)(sizeof(kFns) / sizeof(kFns[0]));
  return kFns;
}

inline const FnInfo *findFn(const std::string &name) {
  int n;
  const FnInfo *t = fnTable(&n);
  for (int i = 0; i < n; ++i)
    if (name == t[i].name)
      return &t[i];
  return nullptr;
}

/// Rounds the high-precision value v (with rounding direction ternary `inex`
/// already folded into v being at precision > 24) to binary32.
inline float roundToFloat(mpfr_t v) {
  mpfr_exp_t oldMin = mpfr_get_emin(), oldMax = mpfr_get_emax();
  mpfr_t r;
  mpfr_init2(r, 24);
  mpfr_set_emin(-148);
  mpfr_set_emax(128);
  int t = mpfr_set(r, v, MPFR_RNDN);
  t = mpfr_check_range(r, t, MPFR_RNDN);
  t = mpfr_subnormalize(r, t, MPFR_RNDN);
  float f = mpfr_get_flt(r, MPFR_RNDN);
  mpfr_set_emin(oldMin);
  mpfr_set_emax(oldMax);
  mpfr_clear(r);
  return f;
}

/// Evaluates fn at precision `prec` into v (initialised by the caller to
/// prec). Returns the number of trustworthy bits (for mpfr_can_round).
inline long evalAt(Fn fn, mpfr_t v, float xf, float yf, mpfr_prec_t prec) {
  mpfr_t x, t, u;
  mpfr_inits2(prec, x, t, u, (mpfr_ptr)0);
  mpfr_set_flt(x, xf, MPFR_RNDN);
  long good = prec - 1;
  switch (fn) {
  case Fn::Exp:
    mpfr_exp(v, x, MPFR_RNDN);
    break;
  case Fn::Log:
    mpfr_log(v, x, MPFR_RNDN);
    break;
  case Fn::Tanh:
    mpfr_tanh(v, x, MPFR_RNDN);
    break;
  case Fn::Erf:
    mpfr_erf(v, x, MPFR_RNDN);
    break;
  case Fn::Sqrt:
    mpfr_sqrt(v, x, MPFR_RNDN);
    break;
  case Fn::Reciprocal:
    mpfr_ui_div(v, 1, x, MPFR_RNDN);
    break;
  case Fn::Sigmoid: // 1/(1+e^-x): 3 roundings, well conditioned.
    mpfr_neg(t, x, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    mpfr_ui_div(v, 1, t, MPFR_RNDN);
    good = prec - 4;
    break;
  case Fn::Gelu: // x * erfc(-x/sqrt2) / 2; erfc condition number <= ~x^2.
    mpfr_sqrt_ui(t, 2, MPFR_RNDN);
    mpfr_div(t, x, t, MPFR_RNDN);
    mpfr_neg(t, t, MPFR_RNDN);
    mpfr_erfc(t, t, MPFR_RNDN);
    mpfr_mul(t, t, x, MPFR_RNDN);
    mpfr_div_2ui(v, t, 1, MPFR_RNDN);
    good = prec - 20;
    break;
  case Fn::GeluTanh: { // x / (1 + exp(-2 sqrt(2/pi) (x + 0.044715 x^3)))
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_ui_div(t, 2, t, MPFR_RNDN);
    mpfr_sqrt(t, t, MPFR_RNDN); // sqrt(2/pi)
    mpfr_set_str(u, "0.044715", 10, MPFR_RNDN);
    mpfr_mul(u, u, x, MPFR_RNDN);
    mpfr_mul(u, u, x, MPFR_RNDN);
    mpfr_mul(u, u, x, MPFR_RNDN);
    mpfr_add(u, u, x, MPFR_RNDN);
    mpfr_mul(u, u, t, MPFR_RNDN);
    mpfr_mul_si(u, u, -2, MPFR_RNDN);
    mpfr_exp(u, u, MPFR_RNDN);
    mpfr_add_ui(u, u, 1, MPFR_RNDN);
    mpfr_div(v, x, u, MPFR_RNDN);
    good = prec - 20;
    break;
  }
  case Fn::Pow:
    mpfr_set_flt(t, yf, MPFR_RNDN);
    mpfr_pow(v, x, t, MPFR_RNDN);
    break;
  case Fn::Sin:
    mpfr_sin(v, x, MPFR_RNDN);
    break;
  case Fn::Cos:
    mpfr_cos(v, x, MPFR_RNDN);
    break;
  case Fn::Tan:
    mpfr_tan(v, x, MPFR_RNDN);
    break;
  case Fn::Asin:
    mpfr_asin(v, x, MPFR_RNDN);
    break;
  case Fn::Acos:
    mpfr_acos(v, x, MPFR_RNDN);
    break;
  case Fn::Atan:
    mpfr_atan(v, x, MPFR_RNDN);
    break;
  case Fn::Sinh:
    mpfr_sinh(v, x, MPFR_RNDN);
    break;
  case Fn::Cosh:
    mpfr_cosh(v, x, MPFR_RNDN);
    break;
  case Fn::Asinh:
    mpfr_asinh(v, x, MPFR_RNDN);
    break;
  case Fn::Acosh:
    mpfr_acosh(v, x, MPFR_RNDN);
    break;
  case Fn::Atanh:
    mpfr_atanh(v, x, MPFR_RNDN);
    break;
  }
  mpfr_clears(x, t, u, (mpfr_ptr)0);
  return good;
}

/// Applies a single correctly rounding MPFR operation at 24 bits in the
/// binary32 exponent range (MPFR's own correct rounding, then subnormalize).
inline float direct24(Fn fn, float xf, float yf) {
  mpfr_exp_t oldMin = mpfr_get_emin(), oldMax = mpfr_get_emax();
  mpfr_t a, b, r;
  mpfr_inits2(24, a, b, r, (mpfr_ptr)0);
  mpfr_set_flt(a, xf, MPFR_RNDN);
  mpfr_set_flt(b, yf, MPFR_RNDN);
  mpfr_set_emin(-148);
  mpfr_set_emax(128);
  int t = 0;
  switch (fn) {
  case Fn::Exp: t = mpfr_exp(r, a, MPFR_RNDN); break;
  case Fn::Log: t = mpfr_log(r, a, MPFR_RNDN); break;
  case Fn::Tanh: t = mpfr_tanh(r, a, MPFR_RNDN); break;
  case Fn::Erf: t = mpfr_erf(r, a, MPFR_RNDN); break;
  case Fn::Sqrt: t = mpfr_sqrt(r, a, MPFR_RNDN); break;
  case Fn::Reciprocal: t = mpfr_ui_div(r, 1, a, MPFR_RNDN); break;
  case Fn::Pow: t = mpfr_pow(r, a, b, MPFR_RNDN); break;
  case Fn::Sin: t = mpfr_sin(r, a, MPFR_RNDN); break;
  case Fn::Cos: t = mpfr_cos(r, a, MPFR_RNDN); break;
  case Fn::Tan: t = mpfr_tan(r, a, MPFR_RNDN); break;
  case Fn::Asin: t = mpfr_asin(r, a, MPFR_RNDN); break;
  case Fn::Acos: t = mpfr_acos(r, a, MPFR_RNDN); break;
  case Fn::Atan: t = mpfr_atan(r, a, MPFR_RNDN); break;
  case Fn::Sinh: t = mpfr_sinh(r, a, MPFR_RNDN); break;
  case Fn::Cosh: t = mpfr_cosh(r, a, MPFR_RNDN); break;
  case Fn::Asinh: t = mpfr_asinh(r, a, MPFR_RNDN); break;
  case Fn::Acosh: t = mpfr_acosh(r, a, MPFR_RNDN); break;
  case Fn::Atanh: t = mpfr_atanh(r, a, MPFR_RNDN); break;
  default: break;
  }
  t = mpfr_check_range(r, t, MPFR_RNDN);
  t = mpfr_subnormalize(r, t, MPFR_RNDN);
  float f = mpfr_get_flt(r, MPFR_RNDN);
  mpfr_set_emin(oldMin);
  mpfr_set_emax(oldMax);
  mpfr_clears(a, b, r, (mpfr_ptr)0);
  return f;
}

/// The correctly rounded binary32 result of fn(x[, y]); NaN results are
/// returned as the canonical NaN. (MPFR follows C99 Annex F for pow's special
/// cases: pow(1, NaN) = 1, pow(NaN, 0) = 1, ...)
inline float reference(Fn fn, float x, float y = 0.0f) {
  if (fn != Fn::Sigmoid && fn != Fn::Gelu && fn != Fn::GeluTanh) {
    float f = direct24(fn, x, y);
    return std::isnan(f) ? floatOf(0x7FC00000u) : f;
  }
  if (std::isnan(x))
    return floatOf(0x7FC00000u);
  // Exact special values.
  if (fn == Fn::Gelu || fn == Fn::GeluTanh) {
    if (x == 0.0f)
      return x; // +-0 * 1/2
    if (std::isinf(x))
      return x > 0 ? x : -0.0f; // the limit
  }
  if (fn == Fn::Sigmoid && std::isinf(x))
    return x > 0 ? 1.0f : 0.0f;
  // Ziv loop. Every binary32 rounding boundary (also in the subnormal range)
  // is a 25-bit number, so can_round at 25 bits with RNDZ certifies RNDN.
  for (mpfr_prec_t prec = 80;; prec *= 2) {
    mpfr_t v;
    mpfr_init2(v, prec);
    long good = evalAt(fn, v, x, y, prec);
    bool ok = !mpfr_regular_p(v) || prec >= 4096 ||
              mpfr_can_round(v, good, MPFR_RNDN, MPFR_RNDZ, 24 + 1);
    float f = 0.0f;
    if (ok)
      f = roundToFloat(v); // exact results (sigmoid(0) = 0.5) end at 4096 bits
    mpfr_clear(v);
    if (ok)
      return std::isnan(f) ? floatOf(0x7FC00000u) : f;
  }
}

/// Error of `got` in binary32 ulps of the exact value (precision 256).
inline double ulpError(Fn fn, float x, float y, float got) {
  if (std::isnan(got) || std::isinf(got)) {
    float ref = reference(fn, x, y);
    if (bitsOf(ref) == bitsOf(got) || (std::isnan(ref) && std::isnan(got)))
      return 0.0;
    return 1e30;
  }
  mpfr_t v, g;
  mpfr_init2(v, 256);
  mpfr_init2(g, 256);
  evalAt(fn, v, x, y, 256);
  if (!mpfr_number_p(v)) {
    mpfr_clears(v, g, (mpfr_ptr)0);
    return 1e30;
  }
  mpfr_set_flt(g, got, MPFR_RNDN);
  mpfr_sub(g, g, v, MPFR_RNDN);
  mpfr_abs(g, g, MPFR_RNDN);
  long e = mpfr_zero_p(v) ? -1000 : (long)mpfr_get_exp(v); // v in [2^(e-1), 2^e)
  long ue = e - 24;
  if (ue < -149)
    ue = -149;
  mpfr_div_2si(g, g, ue, MPFR_RNDN);
  double r = mpfr_get_d(g, MPFR_RNDN);
  mpfr_clears(v, g, (mpfr_ptr)0);
  return r;
}

} // namespace mathref
} // namespace plumb

#endif // PLUMB_RUNTIME_TOOLS_MATH_REF_H
