//===- bench/bench_gemm.cpp - plumb-bench gemm group -----------*- C++ -*-===//
//
// Part of Plumb. Deterministic GEMM (plumb_rt_gemm_strided, tree
// blocked(kDefaultBlock)) vs OpenBLAS cblas_sgemm on square and transformer
// shapes, same thread count. Prints GFLOP/s per case and the geometric mean
// of the GFLOP/s ratio.
//
//===----------------------------------------------------------------------===//
#include "bench_common.h"

#include "plumb/runtime/gemm.h"

#include <cblas.h>

#include <stdio.h>

#include <string>

namespace plumb {
namespace bench {

int runGemm(const Options &o) {
  struct Case {
    int64_t M, N, K;
  };
  const Case cases[] = {{64, 64, 64},     {128, 128, 128},  {256, 256, 256},
                        {512, 512, 512},  {1024, 1024, 1024}, {2048, 2048, 2048},
                        {128, 768, 768},  {128, 3072, 768}, {128, 768, 3072},
                        {512, 768, 768},
                        // Small-K and skinny shapes of mobile vision models
                        // (pointwise convs and MLPs as matmuls: EdgeNeXt,
                        // ConvNeXt, MobileNet).
                        {4096, 96, 24},   {4096, 24, 96},   {1024, 192, 48},
                        {256, 352, 88},   {64, 672, 168},   {64, 168, 672}};
  const int64_t block = 256;
  GeoMean all, big;
  for (const Case &c : cases) {
    char name[64];
    snprintf(name, sizeof name, "%lldx%lldx%lld", (long long)c.M,
             (long long)c.N, (long long)c.K);
    if (!o.filter.empty() && std::string(name).find(o.filter) == std::string::npos)
      continue;
    auto A = randomFloats(c.M * c.K, 1), B = randomFloats(c.K * c.N, 2);
    std::vector<float> Y(c.M * c.N), Z(c.M * c.N);
    const double flops = 2.0 * c.M * c.N * c.K;
    const double minS = o.quick ? 0.25 : 1.0;
    double tp = timeBest(
        [&] {
          plumb_rt_gemm_strided(c.M, c.N, c.K, 1.0f, A.data(), c.K, 1,
                                B.data(), c.N, 1, 1.0f, nullptr, 0, 0,
                                Y.data(), c.N, block);
        },
        minS);
    double tb = timeBest(
        [&] {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, c.M, c.N, c.K,
                      1.0f, A.data(), c.K, B.data(), c.N, 0.0f, Z.data(), c.N);
        },
        minS);
    double gp = flops / tp * 1e-9, gb = flops / tb * 1e-9;
    printf("gemm %-16s block=%lld plumb=%7.1f GFLOP/s openblas=%7.1f GFLOP/s "
           "ratio=%.3f\n",
           name, (long long)block, gp, gb, gp / gb);
    fflush(stdout);
    all.add(gp / gb);
    if (c.M >= 512 && c.M == c.N && c.N == c.K)
      big.add(gp / gb);
  }
  printf("gemm ratio_vs_openblas=%.3f square_ge512_ratio=%.3f threads=%d\n",
         all.value(), big.value(), o.threads);
  return 0;
}

} // namespace bench
} // namespace plumb
