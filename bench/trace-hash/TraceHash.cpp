//===- bench/trace-hash/TraceHash.cpp - trace hashing vs OpenSSL ----------===//
//
// Part of Plumb. `plumb-bench-hash [--mb N] [--seconds S]`: how fast a
// trace's leaves (16 KiB chunks of a node's output, docs/trace.md) are
// hashed on one core, against OpenSSL's SHA-256 of the same chunks in the
// same run. Cases:
//   openssl      SHA256() of each chunk (the baseline)
//   portable     Plumb's portable SHA-256, one chunk at a time
//   sha-ni       Plumb's SHA-NI code, one chunk at a time
//   16-lane      chunkDigestBatch with the 16-lane AVX-512 code
//   16-lane+nan  the same with a non-canonical NaN in one chunk in 64
//                (those lanes are hashed again from their encoding)
//   tensor       tensorHash of the whole buffer (chunks, chunk tree, header;
//                checked against the header over OpenSSL's chunk digests)
// Every case's digests are checked against OpenSSL's (of the canonical
// bytes) before it is timed. Prints GB/s and the ratio to OpenSSL per case
// and a summary line `hash best_ratio_vs_openssl=<r> impl=<name>`.
//
//===----------------------------------------------------------------------===//
#include "plumb/Trace/TensorHasher.h"

#include "bench_common.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace plumb;

namespace {

int usage(const char *why) {
  if (why)
    fprintf(stderr, "plumb-bench-hash: %s\n", why);
  fprintf(stderr,
          "usage: plumb-bench-hash [--mb N] [--seconds S]\n"
          "  --mb N       megabytes of float32 data to hash (default 16)\n"
          "  --seconds S  time each case for at least S seconds (default 0.5)\n");
  return why ? 2 : 0;
}

} // namespace

int main(int argc, char **argv) {
  size_t mb = 16;
  double seconds = 0.5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h")
      return usage(nullptr);
    if ((a == "--mb" || a == "--seconds") && i + 1 == argc)
      return usage(("missing value for " + a).c_str());
    if (a == "--mb" || a == "--seconds") {
      char *end;
      double v = strtod(argv[++i], &end);
      if (*end || !(v > 0) || v > 4096)
        return usage(("bad value for " + a).c_str());
      (a == "--mb" ? (void)(mb = (size_t)v) : (void)(seconds = v));
      if (mb == 0)
        return usage("--mb must be at least 1");
      continue;
    }
    return usage(("unknown argument '" + a + "'").c_str());
  }

  // Finite floats, as a node's output mostly is.
  const int64_t n = (int64_t)(mb << 20) / 4;
  std::vector<float> data(n);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> d(-4.0f, 4.0f);
  for (float &x : data)
    x = d(rng);
  std::vector<float> nanData = data;
  const size_t chunks = trace::numChunks(1, n);
  const int64_t perChunk = (int64_t)(trace::kChunkBytes / 4);
  const uint32_t otherNaN = 0x7FC12345u, canonical = 0x7FC00000u;
  for (size_t c = 0; c < chunks; c += 64)
    std::memcpy(&nanData[c * perChunk + 5], &otherNaN, 4);

  // OpenSSL's digests of the canonical bytes: what every case must give.
  auto opensslAll = [&](const std::vector<float> &v, std::vector<Digest> &out) {
    out.resize(chunks);
    std::vector<float> canon;
    for (size_t c = 0; c < chunks; ++c) {
      int64_t first, count;
      trace::chunkRange(1, n, c, first, count);
      const float *p = v.data() + first;
      canon.assign(p, p + count);
      for (float &x : canon) {
        uint32_t u;
        std::memcpy(&u, &x, 4);
        if ((u & 0x7FFFFFFFu) > 0x7F800000u)
          std::memcpy(&x, &canonical, 4);
      }
      SHA256(reinterpret_cast<const unsigned char *>(canon.data()),
             (size_t)count * 4, out[c].data());
    }
  };
  std::vector<Digest> want, wantNaN, got(chunks);
  opensslAll(data, want);
  opensslAll(nanData, wantNaN);

  auto batch = [&](const std::vector<float> &v) {
    std::vector<trace::ChunkTask> tasks(chunks);
    for (size_t c = 0; c < chunks; ++c)
      tasks[c] = {1, v.data(), n, c, &got[c]};
    trace::Sha256 h;
    trace::chunkDigestBatch(h, tasks.data(), chunks);
  };
  auto oneByOne = [&](const std::vector<float> &v) {
    trace::Sha256 h;
    for (size_t c = 0; c < chunks; ++c)
      got[c] = trace::chunkDigestWith(h, 1, v.data(), n, c);
  };

  struct Case {
    const char *name;
    std::function<bool()> setup; // false: not available here
    std::function<void()> run;
    const std::vector<Digest> *expect;
  };
  const bool lanesAvailable = trace::selectMultiLaneSha256(true);
  trace::selectMultiLaneSha256(false);
  std::vector<Case> cases = {
      {"openssl", [] { return true; },
       [&] {
         for (size_t c = 0; c < chunks; ++c)
           SHA256(reinterpret_cast<const unsigned char *>(data.data() +
                                                          c * perChunk),
                  trace::kChunkBytes, got[c].data());
       },
       &want},
      {"portable",
       [] {
         trace::selectMultiLaneSha256(false);
         return trace::selectSha256(trace::Sha256Impl::Portable);
       },
       [&] { oneByOne(data); }, &want},
      {"sha-ni",
       [] {
         trace::selectMultiLaneSha256(false);
         return trace::selectSha256(trace::Sha256Impl::ShaNi);
       },
       [&] { oneByOne(data); }, &want},
      {"16-lane", [&] { return lanesAvailable && trace::selectMultiLaneSha256(true); },
       [&] { batch(data); }, &want},
      {"16-lane+nan", [&] { return lanesAvailable && trace::selectMultiLaneSha256(true); },
       [&] { batch(nanData); }, &wantNaN},
  };

  printf("# plumb-bench-hash: %zu MB of float32, %zu chunks of %zu bytes, one "
         "thread; %s\n",
         mb, chunks, (size_t)trace::kChunkBytes, OpenSSL_version(OPENSSL_VERSION));
  printf("%-12s %10s %10s %8s\n", "case", "ms", "GB/s", "ratio");
  const trace::Sha256Impl defaultImpl = trace::sha256Impl();
  const double bytes = (double)n * 4;
  double baseline = 0, best = 0;
  const char *bestName = "openssl";
  int failures = 0;
  for (const Case &c : cases) {
    if (!c.setup()) {
      printf("%-12s %10s\n", c.name, "n/a");
      continue;
    }
    std::fill(got.begin(), got.end(), Digest{});
    c.run();
    if (got != *c.expect) {
      fprintf(stderr, "plumb-bench-hash: %s gives other digests than OpenSSL\n",
              c.name);
      ++failures;
      continue;
    }
    double s = plumb::bench::timeBest(c.run, seconds);
    double gbs = bytes / s / 1e9;
    if (!baseline)
      baseline = gbs;
    printf("%-12s %10.3f %10.2f %8.2f\n", c.name, s * 1e3, gbs, gbs / baseline);
    if (gbs / baseline > best && strcmp(c.name, "openssl") != 0)
      best = gbs / baseline, bestName = c.name;
  }
  // The whole tensor hash (chunks, chunk tree, header) with the defaults.
  trace::selectSha256(defaultImpl);
  trace::selectMultiLaneSha256(lanesAvailable);
  exec::Tensor t = exec::Tensor::make(exec::ElemType::F32, {n});
  std::memcpy(t.raw(), data.data(), (size_t)n * 4);
  Digest h1 = trace::tensorHash(t);
  if (h1 != trace::tensorHashFromRoot(1, 1, &n, trace::chunkRoot(want))) {
    fprintf(stderr, "plumb-bench-hash: tensor gives another hash than OpenSSL's "
                    "chunk digests make\n");
    return 1;
  }
  double s = plumb::bench::timeBest([&] { h1 = trace::tensorHash(t); }, seconds);
  printf("%-12s %10.3f %10.2f %8.2f\n", "tensor", s * 1e3, bytes / s / 1e9,
         bytes / s / 1e9 / baseline);
  printf("hash best_ratio_vs_openssl=%.2f impl=%s openssl_gbs=%.2f\n", best,
         bestName, baseline);
  return failures ? 1 : 0;
}
