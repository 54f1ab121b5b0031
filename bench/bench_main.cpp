//===- bench/bench_main.cpp - plumb-bench driver ---------------*- C++ -*-===//
//
// Part of Plumb. `plumb-bench <group> [--threads N] [--quick|--full]
// [--filter S]`. Groups: gemm, conv, math (bench_math.cpp), all.
// Each group prints per-case lines and one summary line
// `<group> ratio_vs_openblas=<geomean> threads=<n>` (or its own summary).
//
//===----------------------------------------------------------------------===//
#include "bench_common.h"

#include "plumb/runtime/config.h"
#include "plumb/runtime/gemm.h"
#include "plumb/runtime/threads.h"

#include <cblas.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>

namespace plumb {
namespace bench {
int runGemm(const Options &o);
int runConv(const Options &o);
int runMath(const Options &o);

void setBlasThreads(int n) { openblas_set_num_threads(n); }

void printBlasInfo() {
  const char *env = getenv("OPENBLAS_CORETYPE");
  printf("# openblas core=%s config=\"%s\" OPENBLAS_CORETYPE=%s\n",
         openblas_get_corename(), openblas_get_config(), env ? env : "(unset)");
}
} // namespace bench
} // namespace plumb

static void usage() {
  fprintf(stderr, "usage: plumb-bench <gemm|conv|math|all> [--threads N] "
                  "[--quick|--full] [--filter SUBSTRING]\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage();
    return 2;
  }
  std::string group = argv[1];
  plumb::bench::Options o;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc)
      o.threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick"))
      o.quick = true;
    else if (!strcmp(argv[i], "--full"))
      o.quick = false;
    else if (!strcmp(argv[i], "--filter") && i + 1 < argc)
      o.filter = argv[++i];
    else {
      usage();
      return 2;
    }
  }
  if (o.threads < 1)
    o.threads = 1;
  plumb_rt_set_threads(o.threads);
  plumb::bench::setBlasThreads(o.threads);
  printf("# plumb-bench contract=%s threads=%d gemm_isa=%d mode=%s\n",
         PLUMB_CONTRACT_VERSION, o.threads, plumb_rt_gemm_active_isa(),
         o.quick ? "quick" : "full");
  plumb::bench::printBlasInfo();
  int rc = 0;
  if (group == "gemm" || group == "all")
    rc |= plumb::bench::runGemm(o);
  if (group == "conv" || group == "all")
    rc |= plumb::bench::runConv(o);
  if (group == "math" || group == "all")
    rc |= plumb::bench::runMath(o);
  if (group != "gemm" && group != "conv" && group != "math" && group != "all") {
    usage();
    return 2;
  }
  return rc;
}
