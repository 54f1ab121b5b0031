//===- test/unit/runtime/ops_golden_test.cpp - Cross-platform golden bits -*- C++ -*-===//
//
// Part of Plumb. Runs the elementwise, reduction, softmax, normalisation,
// pooling, resize and RNN kernels on fixed inputs (an integer LCG, exact
// float conversion) and compares FNV-1a hashes of the output bits with values
// recorded on x86-64 (g++ -O2). The same hashes must come out of every
// compiler, -O level, CPU architecture and thread count; the hashes were
// cross-checked with clang -O0 and aarch64 (qemu). A change here means a
// result bit changed: that needs a new PLUMB_CONTRACT_VERSION.
//
// Built with -DPLUMB_OPS_GOLDEN_MAIN this file is a standalone program that
// prints the hashes (used for the cross-architecture check).
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/norm.h"
#include "plumb/runtime/pool.h"
#include "plumb/runtime/reduce.h"
#include "plumb/runtime/resize.h"
#include "plumb/runtime/rnn.h"
#include "plumb/runtime/softmax.h"
#include "plumb/runtime/threads.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

struct Hasher {
  uint64_t h = 1469598103934665603ull;
  void add(const void *p, size_t n) {
    const unsigned char *b = static_cast<const unsigned char *>(p);
    for (size_t i = 0; i < n; ++i) {
      h ^= b[i];
      h *= 1099511628211ull;
    }
  }
  template <typename T> void add(const std::vector<T> &v) {
    add(v.data(), v.size() * sizeof(T));
  }
};

/// Exact pseudo-random floats in [-scale, scale) with 24-bit mantissas.
std::vector<float> lcg(size_t n, uint64_t seed, float scale) {
  std::vector<float> v(n);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto &f : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    int32_t m = (int32_t)(x >> 40) - (1 << 23);
    f = ((float)m * (1.0f / 8388608.0f)) * scale;
  }
  return v;
}

uint64_t hashElementwise() {
  Hasher h;
  auto x = lcg(4099, 1, 9.0f);
  // Specials: NaN payload, infinities, zeros, subnormals, huge.
  const uint32_t specials[] = {0x7FA00001u, 0xFF800000u, 0x7F800000u,
                               0x80000000u, 0x00000000u, 0x00000001u,
                               0x807FFFFFu, 0x7F7FFFFFu, 0x3F000000u};
  for (size_t i = 0; i < sizeof(specials) / 4; ++i)
    std::memcpy(&x[i * 37], &specials[i], 4);
  std::vector<float> y(x.size());
  for (int op = PLUMB_RT_NEG; op <= PLUMB_RT_SELU; ++op) {
    plumb_rt_unary_f32(op, x.data(), y.data(), (int64_t)x.size(), 0.3f, 0.45f);
    h.add(y);
  }
  auto a = lcg(4 * 33 * 31, 2, 3.0f), b = lcg(33 * 1, 3, 3.0f);
  int64_t as[] = {4, 33, 31}, bs[] = {33, 1};
  std::vector<float> o(a.size());
  for (int op : {PLUMB_RT_ADD, PLUMB_RT_SUB, PLUMB_RT_MUL, PLUMB_RT_DIV,
                 PLUMB_RT_POW, PLUMB_RT_MAX, PLUMB_RT_MIN, PLUMB_RT_PRELU}) {
    plumb_rt_binary_f32(op, a.data(), as, 3, b.data(), bs, 2, o.data(), as, 3);
    h.add(o);
  }
  return h.h;
}

uint64_t hashReduce() {
  Hasher h;
  auto x = lcg(37 * 129 * 5, 4, 2.0f);
  int64_t shape[] = {37, 129, 5};
  const int64_t axesSets[][2] = {{1, -1}, {0, -1}, {0, 2}, {2, -1}};
  const int naxes[] = {1, 1, 2, 1};
  for (int a = 0; a < 4; ++a)
    for (int64_t block : {0, 1, 16})
      for (int op = PLUMB_RT_REDUCE_SUM; op <= PLUMB_RT_REDUCE_LOG_SUM_EXP;
           ++op) {
        std::vector<float> y(37 * 129 * 5);
        plumb_rt_reduce_f32(op, x.data(), shape, 3, axesSets[a], naxes[a],
                            y.data(), block);
        h.add(y);
      }
  return h.h;
}

uint64_t hashSoftmaxNorm() {
  Hasher h;
  auto x = lcg(6 * 77 * 13, 5, 6.0f);
  std::vector<float> y(x.size());
  for (int lg = 0; lg < 2; ++lg)
    for (int64_t block : {0, 8}) {
      plumb_rt_softmax_f32(x.data(), y.data(), 6, 77, 13, lg, block);
      h.add(y);
      plumb_rt_softmax_f32(x.data(), y.data(), 6 * 77, 13, 1, lg, block);
      h.add(y);
    }
  auto sc = lcg(77 * 13, 6, 1.5f), bi = lcg(77 * 13, 7, 1.0f);
  std::vector<float> mo(6), io(6);
  for (int64_t block : {0, 32}) {
    plumb_rt_layernorm_f32(x.data(), 6, 77 * 13, sc.data(), bi.data(), 1e-5f,
                           y.data(), mo.data(), io.data(), block);
    h.add(y);
    h.add(mo);
    h.add(io);
  }
  auto var = lcg(77, 8, 1.0f);
  for (auto &v : var)
    v = v * v;
  plumb_rt_batchnorm_f32(x.data(), 6, 77, 13, sc.data(), bi.data(), sc.data() + 77,
                         var.data(), 1e-3f, y.data());
  h.add(y);
  plumb_rt_instancenorm_f32(x.data(), 6, 77, 13, sc.data(), bi.data(), 1e-5f,
                            y.data(), 4);
  h.add(y);
  return h.h;
}

uint64_t hashPoolResize() {
  Hasher h;
  auto x = lcg(2 * 3 * 17 * 19, 9, 4.0f);
  int64_t in[] = {17, 19}, k[] = {3, 2}, s[] = {2, 1}, pads[] = {1, 0, 1, 1},
          dil[] = {1, 2}, out[2];
  plumb_rt_pool_output_shape(2, in, k, s, pads, dil, 0, 1, out);
  std::vector<float> y(2 * 3 * out[0] * out[1]);
  std::vector<int64_t> idx(y.size());
  plumb_rt_maxpool_f32(x.data(), 2, 3, 2, in, out, k, s, pads, dil, y.data(),
                       idx.data());
  h.add(y);
  h.add(idx);
  for (int cip = 0; cip < 2; ++cip) {
    plumb_rt_avgpool_f32(x.data(), 2, 3, 2, in, out, k, s, pads, dil, cip,
                         y.data());
    h.add(y);
  }
  std::vector<float> g(6);
  plumb_rt_global_pool_f32(x.data(), 6, 17 * 19, 0, g.data(), 16);
  h.add(g);
  int64_t ins[] = {2, 3, 17, 19}, outs[] = {2, 3, 29, 11};
  std::vector<float> r(2 * 3 * 29 * 11);
  for (int mode = 0; mode < 2; ++mode)
    for (int coord = 0; coord <= 4; ++coord)
      for (int nm = 0; nm <= 3; ++nm) {
        if (mode == 1 && nm > 0)
          continue;
        plumb_rt_resize_f32(x.data(), ins, 4, outs, nullptr, mode, coord, nm,
                            r.data());
        h.add(r);
      }
  return h.h;
}

uint64_t hashRnn() {
  Hasher h;
  const int64_t S = 5, B = 2, I = 7, H = 11;
  auto X = lcg(S * B * I, 10, 1.0f);
  auto W = lcg(2 * 4 * H * I, 11, 0.4f), R = lcg(2 * 4 * H * H, 12, 0.4f),
       Bb = lcg(2 * 8 * H, 13, 0.3f), P = lcg(2 * 3 * H, 14, 0.3f),
       h0 = lcg(2 * B * H, 15, 0.5f), c0 = lcg(2 * B * H, 16, 0.5f);
  std::vector<float> Y(S * 2 * B * H), Yh(2 * B * H), Yc(2 * B * H);
  int32_t lens[] = {5, 3};
  for (int64_t block : {0, 4}) {
    plumb_rt_lstm_f32(X.data(), W.data(), R.data(), Bb.data(), lens, h0.data(),
                      c0.data(), P.data(), S, B, I, H,
                      PLUMB_RT_RNN_BIDIRECTIONAL, 2.5f, 0, Y.data(), Yh.data(),
                      Yc.data(), block);
    h.add(Y);
    h.add(Yh);
    h.add(Yc);
    for (int lbr = 0; lbr < 2; ++lbr) {
      plumb_rt_gru_f32(X.data(), W.data(), R.data(), Bb.data(), nullptr,
                       h0.data(), S, B, I, H, PLUMB_RT_RNN_BIDIRECTIONAL, 0.0f,
                       lbr, Y.data(), Yh.data(), block);
      h.add(Y);
      h.add(Yh);
    }
  }
  return h.h;
}

struct Golden {
  const char *name;
  uint64_t (*fn)();
  uint64_t want;
};

const Golden kGolden[] = {
    {"elementwise", hashElementwise, 0x276496f53bf5a3c2ull},
    {"reduce", hashReduce, 0xc8ed5d77cb053ed8ull},
    {"softmax_norm", hashSoftmaxNorm, 0xc332d0122778bc65ull},
    {"pool_resize", hashPoolResize, 0xdab3c049fe917b82ull},
    {"rnn", hashRnn, 0x165520e682f0ea86ull},
};

} // namespace

#if defined(PLUMB_OPS_GOLDEN_MAIN)
int main() {
  int bad = 0;
  for (int t : {1, 3}) {
    plumb_rt_set_threads(t);
    for (const Golden &g : kGolden) {
      uint64_t got = g.fn();
      std::printf("%-13s threads %d: 0x%016llxull %s\n", g.name, t,
                  (unsigned long long)got, got == g.want ? "ok" : "MISMATCH");
      bad += got != g.want;
    }
  }
  return bad != 0;
}
#else
#include <gtest/gtest.h>

TEST(OpsGolden, BitsAreIdenticalEverywhere) {
  for (int t : {1, 2, 3, 4, 8}) {
    plumb_rt_set_threads(t);
    for (const Golden &g : kGolden)
      EXPECT_EQ(g.fn(), g.want)
          << g.name << " threads " << t << " got 0x" << std::hex << g.fn();
  }
  plumb_rt_set_threads(1);
}
#endif
