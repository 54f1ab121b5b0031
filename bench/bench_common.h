//===- bench/bench_common.h - plumb-bench shared helpers -------*- C++ -*-===//
//
// Part of Plumb. Timing harness shared by the bench groups: best-of-reps
// wall time, geometric-mean ratio summaries, OpenBLAS thread control.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_BENCH_COMMON_H
#define PLUMB_BENCH_COMMON_H

#include <stdint.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace plumb {
namespace bench {

struct Options {
  int threads = 1;
  bool quick = true;  // --quick (default): short timing windows.
  std::string filter; // substring a case name must contain
};

/// Best wall time (seconds) of fn over repetitions, after one warm-up call.
/// Runs for at least `minSeconds` (and at least 2 timed reps).
inline double timeBest(const std::function<void()> &fn, double minSeconds) {
  using Clock = std::chrono::steady_clock;
  fn();
  double best = 1e30, total = 0;
  int reps = 0;
  while (reps < 2 || total < minSeconds) {
    auto t0 = Clock::now();
    fn();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = s < best ? s : best;
    total += s;
    ++reps;
    if (reps >= 1000)
      break;
  }
  return best;
}

inline std::vector<float> randomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(rng);
  return v;
}

/// Accumulates log-ratios for a geometric mean.
struct GeoMean {
  double logSum = 0;
  int n = 0;
  void add(double r) {
    logSum += std::log(r);
    ++n;
  }
  double value() const { return n ? std::exp(logSum / n) : 0.0; }
};

/// Sets the OpenBLAS thread count (no-op when not linked against OpenBLAS).
void setBlasThreads(int n);
/// Prints which OpenBLAS core / OPENBLAS_CORETYPE is in use.
void printBlasInfo();

} // namespace bench
} // namespace plumb

#endif // PLUMB_BENCH_COMMON_H
