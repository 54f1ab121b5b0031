//===- bench/bench_math.cpp - plumb-bench math group -----------*- C++ -*-===//
//
// Part of Plumb. Elementwise math speed: the correctly rounded plumb_rt_*_f32
// array kernels (math_kernels.h) against glibc's float functions (expf,
// logf, ...; not correctly rounded, and not reproducible across libms) on
// 1M-element arrays of typical values. One line per function with ns/element
// for both and the ratio glibc_time / plumb_time (> 1: plumb faster), then
// `math ratio_vs_glibc=<geomean> threads=<n>`. glibc runs single-threaded in
// a plain loop; plumb uses plumb_rt_set_threads(threads).
//
//===----------------------------------------------------------------------===//
#include "bench_common.h"

#include "plumb/runtime/math_kernels.h"
#include "plumb/runtime/threads.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

namespace plumb {
namespace bench {

namespace {

struct MathCase {
  const char *name;
  float lo, hi;
  void (*plumbFn)(const float *, float *, int64_t);
  float (*libmFn)(float);
};

float geluLibm(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678f)); }
float geluTanhLibm(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}
float sigmoidLibm(float x) { return 1.0f / (1.0f + expf(-x)); }
float powLibm(float x) { return powf(x, 1.37f); }
void powPlumb(const float *x, float *y, int64_t n) { plumb_rt_pow_scalar_f32(x, 1.37f, y, n); }
float pow2Libm(float x) { return powf(x, 2.0f); }
void pow2Plumb(const float *x, float *y, int64_t n) { plumb_rt_pow_scalar_f32(x, 2.0f, y, n); }
float pow3Libm(float x) { return powf(x, 3.0f); }
void pow3Plumb(const float *x, float *y, int64_t n) { plumb_rt_pow_scalar_f32(x, 3.0f, y, n); }

} // namespace

int runMath(const Options &o) {
  const MathCase cases[] = {
      {"exp", -20.0f, 20.0f, plumb_rt_exp_f32, expf},
      {"log", 0.001f, 100.0f, plumb_rt_log_f32, logf},
      {"tanh", -5.0f, 5.0f, plumb_rt_tanh_f32, tanhf},
      {"sigmoid", -10.0f, 10.0f, plumb_rt_sigmoid_f32, sigmoidLibm},
      {"erf", -3.0f, 3.0f, plumb_rt_erf_f32, erff},
      {"gelu", -5.0f, 5.0f, plumb_rt_gelu_f32, geluLibm},
      {"gelu_tanh", -5.0f, 5.0f, plumb_rt_gelu_tanh_f32, geluTanhLibm},
      {"pow(x,1.37)", 0.01f, 10.0f, powPlumb, powLibm},
      {"pow(x,2)", -10.0f, 10.0f, pow2Plumb, pow2Libm},
      {"pow(x,3)", -10.0f, 10.0f, pow3Plumb, pow3Libm},
      {"sqrt", 0.0f, 100.0f, plumb_rt_sqrt_f32, sqrtf},
  };
  const int64_t n = 1 << 20;
  const double minSec = o.quick ? 0.05 : 0.5;
  plumb_rt_set_threads(o.threads);
  GeoMean gm;
  int ran = 0;
  for (const MathCase &c : cases) {
    if (!o.filter.empty() && std::string(c.name).find(o.filter) == std::string::npos)
      continue;
    std::vector<float> x = randomFloats(n, 42);
    for (float &v : x)
      v = c.lo + (v + 1.0f) * 0.5f * (c.hi - c.lo);
    std::vector<float> y(n), z(n);
    double tp = timeBest([&] { c.plumbFn(x.data(), y.data(), n); }, minSec);
    double tl = timeBest(
        [&] {
          for (int64_t i = 0; i < n; ++i)
            z[i] = c.libmFn(x[i]);
        },
        minSec);
    // Agreement with glibc (which is not always correctly rounded).
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i)
      differ += memcmp(&y[i], &z[i], 4) != 0;
    double ratio = tl / tp;
    gm.add(ratio);
    ++ran;
    printf("math %-12s plumb=%6.2f ns/elem glibc=%6.2f ns/elem ratio=%.3f "
           "differ_from_glibc=%lld/%lld\n",
           c.name, tp * 1e9 / n, tl * 1e9 / n, ratio, (long long)differ, (long long)n);
  }
  printf("math ratio_vs_glibc=%.3f cases=%d threads=%d\n", gm.value(), ran, o.threads);
  return 0;
}

} // namespace bench
} // namespace plumb
