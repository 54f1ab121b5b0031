//===- runtime/src/math.cpp - Elementwise math array kernels ---*- C++ -*-===//
//
// Part of Plumb. The C ABI of math_kernels.h: loops over the scalar
// reference functions of math.h. Threads (plumb_rt_set_threads) split the
// index range into contiguous blocks; every element is computed by exactly
// the scalar function, so results never depend on the thread count.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/math_kernels.h"

#include "plumb/runtime/math.h"
#include "plumb/runtime/threads.h"

namespace plumb {
namespace rt {
namespace mathavx2 { // math_avx2.cpp: bit-identical AVX2 schedules
bool available();
void expF32(const float *x, float *y, int64_t n);
void sigmoidF32(const float *x, float *y, int64_t n);
void tanhF32(const float *x, float *y, int64_t n);
void erfF32(const float *x, float *y, int64_t n);
void geluF32(const float *x, float *y, int64_t n);
void geluTanhF32(const float *x, float *y, int64_t n);
} // namespace mathavx2
namespace mathavx512 { // math_avx2.cpp: bit-identical AVX-512 schedules
bool available();
void expF32(const float *x, float *y, int64_t n);
void sigmoidF32(const float *x, float *y, int64_t n);
void tanhF32(const float *x, float *y, int64_t n);
void erfF32(const float *x, float *y, int64_t n);
void geluF32(const float *x, float *y, int64_t n);
void geluTanhF32(const float *x, float *y, int64_t n);
void cubeF32(const float *x, float *y, int64_t n);
} // namespace mathavx512
} // namespace rt
} // namespace plumb

namespace {

const bool kCpuAvx2 = plumb::rt::mathavx2::available();
const bool kCpuAvx512 = plumb::rt::mathavx512::available();
/// plumb_rt_math_set_isa: 0 best available, 1 scalar, 2 AVX2, 3 AVX-512.
int gMathIsa = 0;
bool useAvx512() { return kCpuAvx512 && (gMathIsa == 0 || gMathIsa >= 3); }
bool useAvx2() { return kCpuAvx2 && (gMathIsa == 0 || gMathIsa >= 2); }

/// Runs a block kernel (b, e) over [0, n), in parallel when worthwhile.
template <typename Block> void blocked(int64_t n, Block block);

/// Elements per parallel work item: large enough to amortise dispatch
/// (each element costs ~5-30 ns).
constexpr int64_t kGrain = 1 << 14;

template <typename F> void unaryLoop(const float *x, float *y, int64_t n, F f) {
  if (n <= 0)
    return;
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      y[i] = plumb::rt::canonicalize_nan(f(x[i]));
  };
  if (n <= kGrain || plumb_rt_get_threads() <= 1)
    body(0, n);
  else
    plumb::rt::parallelFor(0, n, kGrain, body);
}

template <typename Block> void blocked(int64_t n, Block block) {
  if (n <= 0)
    return;
  if (n <= kGrain || plumb_rt_get_threads() <= 1)
    block(0, n);
  else
    plumb::rt::parallelFor(0, n, kGrain, block);
}

} // namespace

extern "C" {

void plumb_rt_exp_f32(const float *x, float *y, int64_t n) {
  if (useAvx512())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx512::expF32(x + b, y + b, e - b); });
  else if (useAvx2())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx2::expF32(x + b, y + b, e - b); });
  else
    unaryLoop(x, y, n, [](float v) { return plumb::rt::exp(v); });
}
void plumb_rt_log_f32(const float *x, float *y, int64_t n) {
  unaryLoop(x, y, n, [](float v) { return plumb::rt::log(v); });
}
void plumb_rt_tanh_f32(const float *x, float *y, int64_t n) {
  if (useAvx512())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx512::tanhF32(x + b, y + b, e - b); });
  else if (useAvx2())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx2::tanhF32(x + b, y + b, e - b); });
  else
    unaryLoop(x, y, n, [](float v) { return plumb::rt::tanh(v); });
}
void plumb_rt_sigmoid_f32(const float *x, float *y, int64_t n) {
  if (useAvx512())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx512::sigmoidF32(x + b, y + b, e - b); });
  else if (useAvx2())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx2::sigmoidF32(x + b, y + b, e - b); });
  else
    unaryLoop(x, y, n, [](float v) { return plumb::rt::sigmoid(v); });
}
void plumb_rt_erf_f32(const float *x, float *y, int64_t n) {
  if (useAvx512())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx512::erfF32(x + b, y + b, e - b); });
  else if (useAvx2())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx2::erfF32(x + b, y + b, e - b); });
  else
    unaryLoop(x, y, n, [](float v) { return plumb::rt::erf(v); });
}
void plumb_rt_sqrt_f32(const float *x, float *y, int64_t n) {
  unaryLoop(x, y, n, [](float v) { return plumb::rt::sqrt(v); });
}
void plumb_rt_reciprocal_f32(const float *x, float *y, int64_t n) {
  unaryLoop(x, y, n, [](float v) { return plumb::rt::reciprocal(v); });
}
void plumb_rt_gelu_f32(const float *x, float *y, int64_t n) {
  if (useAvx512())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx512::geluF32(x + b, y + b, e - b); });
  else if (useAvx2())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx2::geluF32(x + b, y + b, e - b); });
  else
    unaryLoop(x, y, n, [](float v) { return plumb::rt::gelu(v); });
}
void plumb_rt_gelu_tanh_f32(const float *x, float *y, int64_t n) {
  if (useAvx512())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx512::geluTanhF32(x + b, y + b, e - b); });
  else if (useAvx2())
    blocked(n, [&](int64_t b, int64_t e) { plumb::rt::mathavx2::geluTanhF32(x + b, y + b, e - b); });
  else
    unaryLoop(x, y, n, [](float v) { return plumb::rt::gelu_tanh(v); });
}
void plumb_rt_math_set_isa(int isa) { gMathIsa = isa < 0 ? 0 : isa; }
int plumb_rt_math_active_isa(void) { return useAvx512() ? 3 : useAvx2() ? 2 : 1; }
void plumb_rt_canonicalize_nan_f32(const float *x, float *y, int64_t n) {
  unaryLoop(x, y, n, [](float v) { return v; });
}

void plumb_rt_pow_f32(const float *x, const float *e, float *out, int64_t n) {
  if (n <= 0)
    return;
  auto body = [&](int64_t b, int64_t end) {
    for (int64_t i = b; i < end; ++i)
      out[i] = plumb::rt::canonicalize_nan(plumb::rt::pow(x[i], e[i]));
  };
  if (n <= kGrain || plumb_rt_get_threads() <= 1)
    body(0, n);
  else
    plumb::rt::parallelFor(0, n, kGrain, body);
}

void plumb_rt_pow_scalar_f32(const float *x, float e, float *out, int64_t n) {
  if (e == 3.0f && useAvx512()) {
    blocked(n, [&](int64_t b, int64_t q) { plumb::rt::mathavx512::cubeF32(x + b, out + b, q - b); });
    return;
  }
  if (e == 2.0f) { // pow's own y = 2 form (an exact binary64 square) for every x
    unaryLoop(x, out, n, [](float v) {
      const double d = (double)v;
      return plumb::rt::mathdetail::toFloat(d * d);
    });
    return;
  }
  unaryLoop(x, out, n, [e](float v) { return plumb::rt::pow(v, e); });
}

} // extern "C"
