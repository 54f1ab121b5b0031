//===- test/determinism/golden.cpp - Cross-platform golden hashes -*- C++ -*-===//
//
// Part of Plumb. Runs every case of cases.h with the CPU kernels and prints
// one line per case: `<name> <sha256 of the output bytes>`. The committed
// test/determinism/golden.txt is this output; scripts/check-determinism
// builds this program with many compilers / flags / architectures / thread
// counts and requires the same bytes everywhere.
//
// Usage: plumb-det-golden [--threads N] [--gemm-isa N] [--filter S]
//                         [--check golden.txt] [--time]
//   --threads   plumb_rt_set_threads (default: $PLUMB_DET_THREADS or 1)
//   --gemm-isa  plumb_rt_gemm_set_isa (default: $PLUMB_DET_GEMM_ISA or 0)
//   --check F   compare with F instead of printing; exit 1 on any mismatch
//
//===----------------------------------------------------------------------===//
#include "cases.h"

#include "plumb/runtime/config.h"
#include "plumb/runtime/gemm.h"
#include "plumb/runtime/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace plumbdet;

int main(int argc, char **argv) {
  int threads = 1, isa = 0;
  if (const char *e = getenv("PLUMB_DET_THREADS"))
    threads = atoi(e);
  if (const char *e = getenv("PLUMB_DET_GEMM_ISA"))
    isa = atoi(e);
  std::string filter, check;
  bool timing = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--threads" && i + 1 < argc)
      threads = atoi(argv[++i]);
    else if (a == "--gemm-isa" && i + 1 < argc)
      isa = atoi(argv[++i]);
    else if (a == "--filter" && i + 1 < argc)
      filter = argv[++i];
    else if (a == "--check" && i + 1 < argc)
      check = argv[++i];
    else if (a == "--time")
      timing = true;
    else {
      fprintf(stderr,
              "usage: %s [--threads N] [--gemm-isa N] [--filter S] "
              "[--check golden.txt] [--time]\n",
              argv[0]);
      return 2;
    }
  }
  plumb_rt_set_threads(threads);
  plumb_rt_gemm_set_isa(isa);

  std::map<std::string, std::string> golden;
  if (!check.empty()) {
    std::ifstream in(check);
    if (!in) {
      fprintf(stderr, "cannot read %s\n", check.c_str());
      return 2;
    }
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#')
        continue;
      std::istringstream ls(line);
      std::string name, hash;
      ls >> name >> hash;
      golden[name] = hash;
    }
  }

  std::vector<Case> cases = buildCases();
  int bad = 0, checked = 0;
  if (check.empty())
    printf("# %s golden hashes (test/determinism); regenerate with "
           "scripts/check-determinism --regen\n",
           PLUMB_CONTRACT_VERSION);
  for (const Case &c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos)
      continue;
    auto t0 = std::chrono::steady_clock::now();
    Output o = runCpu(c);
    auto t1 = std::chrono::steady_clock::now();
    std::string h = o.sha256Hex();
    if (o.status != 0)
      fprintf(stderr, "warning: %s returned status %d\n", c.name.c_str(),
              o.status);
    if (check.empty()) {
      if (timing)
        printf("%s %s %.3fms\n", c.name.c_str(), h.c_str(),
               std::chrono::duration<double, std::milli>(t1 - t0).count());
      else
        printf("%s %s\n", c.name.c_str(), h.c_str());
      continue;
    }
    ++checked;
    auto it = golden.find(c.name);
    if (it == golden.end()) {
      printf("MISSING %s (not in %s; regenerate)\n", c.name.c_str(),
             check.c_str());
      ++bad;
    } else if (it->second != h) {
      printf("MISMATCH %s\n  golden %s\n  got    %s\n", c.name.c_str(),
             it->second.c_str(), h.c_str());
      ++bad;
    }
  }
  if (!check.empty()) {
    printf("%d/%d cases match %s (threads %d, gemm isa %d)\n", checked - bad,
           checked, check.c_str(), threads, plumb_rt_gemm_active_isa());
    return bad ? 1 : 0;
  }
  return 0;
}
