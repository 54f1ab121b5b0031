//===- test/unit/runtime/gemm_test.cpp - GEMM determinism tests -*- C++ -*-===//
//
// Part of Plumb. The GEMM fast path (every ISA, thread count, shape and tree
// block) must equal the treeDot reference bit for bit; the reference must be
// accurate against a float64 product; the epilogue, subnormals and NaN
// canonicalisation follow the contract.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/conv.h"
#include "plumb/runtime/gemm.h"
#include "plumb/runtime/threads.h"

#include <gtest/gtest.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cstring>
#include <random>
#include <vector>

namespace {

uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

float fromBits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

std::vector<float> randomVec(size_t n, std::mt19937 &rng, float lo = -1.0f,
                             float hi = 1.0f) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(rng);
  return v;
}

/// First index where a and b differ bitwise, or -1.
int64_t firstDiff(const std::vector<float> &a, const std::vector<float> &b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (bits(a[i]) != bits(b[i]))
      return static_cast<int64_t>(i);
  return -1;
}

struct IsaGuard {
  ~IsaGuard() {
    plumb_rt_gemm_set_isa(0);
    plumb_rt_set_threads(1);
  }
};

TEST(Gemm, FastPathMatchesReferenceBitwise) {
  IsaGuard guard;
  std::mt19937 rng(1234);
  const int64_t shapes[][3] = {{1, 1, 1},    {1, 1, 0},    {3, 5, 7},
                               {13, 33, 65}, {12, 32, 64}, {25, 17, 129},
                               {6, 16, 300}, {37, 70, 513}, {64, 100, 31},
                               {2, 97, 1000}};
  const int64_t blocks[] = {0, 1, 7, 64, 256};
  const int threadCounts[] = {1, 2, 3, 4, 8};
  for (auto &s : shapes) {
    const int64_t M = s[0], N = s[1], K = s[2];
    auto A = randomVec(M * K + 1, rng);
    auto B = randomVec(K * N + 1, rng);
    for (int64_t block : blocks) {
      std::vector<float> ref(M * N);
      plumb_rt_gemm_reference(M, N, K, 1.0f, A.data(), K, 1, B.data(), N, 1,
                              1.0f, nullptr, 0, 0, ref.data(), N, block);
      for (int isa = 1; isa <= 3; ++isa) {
        plumb_rt_gemm_set_isa(isa);
        for (int t : threadCounts) {
          plumb_rt_set_threads(t);
          std::vector<float> y(M * N, 42.0f);
          plumb_rt_gemm_strided(M, N, K, 1.0f, A.data(), K, 1, B.data(), N, 1,
                                1.0f, nullptr, 0, 0, y.data(), N, block);
          ASSERT_EQ(firstDiff(ref, y), -1)
              << "M=" << M << " N=" << N << " K=" << K << " block=" << block
              << " isa=" << plumb_rt_gemm_active_isa() << " threads=" << t;
        }
      }
    }
  }
}


// Cross-platform golden value: a hash of GEMM (5 trees, epilogue), Conv and
// ConvTranspose outputs on portable LCG inputs. The same value was obtained
// with g++ 12 -O2 (AVX-512, AVX2 and scalar kernels, 1 and 3 threads), g++
// -O0 -march=x86-64, clang 22 -O3 -march=native, and aarch64 (g++ cross,
// run under qemu-aarch64). A change here is a contract change.
namespace golden {
inline std::vector<float> lcgVec(size_t n, uint64_t seed) {
  std::vector<float> v(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto &x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<int32_t>(s >> 40) - (1 << 23)) * 0x1p-23f;
  }
  return v;
}
inline uint64_t fnv(const std::vector<float> &y, uint64_t h) {
  for (float f : y) {
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; ++i) {
      h ^= (u >> (8 * i)) & 0xFF;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}
inline uint64_t goldenHash() {
  uint64_t h = 0xcbf29ce484222325ull;
  const int64_t M = 37, N = 70, K = 515;
  auto A = lcgVec(M * K, 1), B = lcgVec(K * N, 2), C = lcgVec(N, 3);
  for (int64_t block : {0, 1, 7, 64, 256}) {
    std::vector<float> y(M * N);
    int64_t cs = N;
    plumb_rt_gemm(M, N, K, 0.75f, A.data(), 0, B.data(), 0, -1.5f, C.data(), &cs, 1, y.data(), block);
    h = fnv(y, h);
  }
  plumb_conv2d_params p = {2, 8, 9, 11, 6, 3, 3, 0, 0, 2, 2, 1, 1, 2, 1, 2, 0, 1};
  p.OH = plumb_rt_conv_out_dim(p.H, p.KH, p.stride_h, p.dilation_h, p.pad_top, p.pad_bottom);
  p.OW = plumb_rt_conv_out_dim(p.W, p.KW, p.stride_w, p.dilation_w, p.pad_left, p.pad_right);
  auto X = lcgVec(2 * 8 * 9 * 11, 4), W = lcgVec(6 * 4 * 9, 5), bias = lcgVec(6, 6);
  std::vector<float> y(2 * 6 * p.OH * p.OW);
  plumb_rt_conv2d(&p, X.data(), W.data(), bias.data(), y.data(), 5);
  h = fnv(y, h);
  plumb_conv2d_params q = {1, 4, 5, 4, 6, 3, 3, 0, 0, 2, 2, 2, 1, 1, 1, 0, 1, 0};
  q.OH = 2 * 4 + 3 - 2 + 1; q.OW = 2 * 3 + 3 - 1;
  auto Xt = lcgVec(4 * 5 * 4, 7), Wt = lcgVec(4 * 3 * 9, 8);
  std::vector<float> yt(6 * q.OH * q.OW);
  plumb_rt_conv_transpose2d(&q, Xt.data(), Wt.data(), bias.data(), yt.data(), 4);
  h = fnv(yt, h);
  return h;
}
}

TEST(Gemm, CrossPlatformGoldenHash) {
  IsaGuard guard;
  for (int isa = 1; isa <= 3; ++isa)
    for (int t : {1, 3}) {
      plumb_rt_gemm_set_isa(isa);
      plumb_rt_set_threads(t);
      EXPECT_EQ(golden::goldenHash(), 0xe583bc4cc76c07a7ull)
          << "isa=" << isa << " threads=" << t;
    }
}

TEST(Gemm, ThreadedLargeShapesMatchReferenceBitwise) {
  // Big enough (> 4M multiply-adds per thread) that up to 8 threads really
  // split the work over M/N tiles.
  IsaGuard guard;
  std::mt19937 rng(77);
  const int64_t shapes[][3] = {{150, 333, 700}, {61, 1000, 517}};
  for (auto &s : shapes) {
    const int64_t M = s[0], N = s[1], K = s[2];
    auto A = randomVec(M * K, rng), B = randomVec(K * N, rng);
    for (int64_t block : {0, 7, 64}) {
      std::vector<float> ref(M * N);
      plumb_rt_gemm_reference(M, N, K, 1.0f, A.data(), K, 1, B.data(), N, 1,
                              1.0f, nullptr, 0, 0, ref.data(), N, block);
      for (int t : {1, 2, 3, 4, 8}) {
        plumb_rt_set_threads(t);
        std::vector<float> y(M * N);
        plumb_rt_gemm_strided(M, N, K, 1.0f, A.data(), K, 1, B.data(), N, 1,
                              1.0f, nullptr, 0, 0, y.data(), N, block);
        ASSERT_EQ(firstDiff(ref, y), -1) << M << " block=" << block
                                         << " t=" << t;
      }
    }
  }
}

TEST(Gemm, TransposesAndEpilogueMatchReference) {
  IsaGuard guard;
  std::mt19937 rng(99);
  const int64_t M = 19, N = 45, K = 150;
  auto A = randomVec(M * K, rng), B = randomVec(K * N, rng);
  auto C = randomVec(M * N, rng);
  const int64_t block = 32;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int cr = -1; cr <= 2; ++cr) {
        // Reference through the strided form.
        const int64_t a_rs = ta ? 1 : K, a_cs = ta ? M : 1;
        const int64_t b_rs = tb ? 1 : N, b_cs = tb ? K : 1;
        int64_t shape[2];
        int64_t c_rs = 0, c_cs = 0;
        const float *c = C.data();
        if (cr == -1)
          c = nullptr;
        else if (cr == 0) {
        } else if (cr == 1) {
          shape[0] = N;
          c_cs = 1;
        } else {
          shape[0] = M;
          shape[1] = N;
          c_rs = N;
          c_cs = 1;
        }
        std::vector<float> ref(M * N), y(M * N);
        plumb_rt_gemm_reference(M, N, K, 0.5f, A.data(), a_rs, a_cs, B.data(),
                                b_rs, b_cs, -2.0f, c, c_rs, c_cs, ref.data(),
                                N, block);
        for (int t : {1, 3}) {
          plumb_rt_set_threads(t);
          plumb_rt_gemm(M, N, K, 0.5f, A.data(), ta, B.data(), tb, -2.0f, c,
                        shape, cr < 0 ? 0 : cr, y.data(), block);
          ASSERT_EQ(firstDiff(ref, y), -1) << ta << tb << cr;
        }
        // Spot-check the epilogue order by hand on element (1, 2).
        std::vector<float> dotOnly(M * N);
        plumb_rt_gemm_reference(M, N, K, 1.0f, A.data(), a_rs, a_cs, B.data(),
                                b_rs, b_cs, 1.0f, nullptr, 0, 0,
                                dotOnly.data(), N, block);
        float expect = 0.5f * dotOnly[1 * N + 2];
        if (c)
          expect = expect + (-2.0f * c[1 * c_rs + 2 * c_cs]);
        EXPECT_EQ(bits(expect), bits(y[1 * N + 2]));
      }
}

TEST(Gemm, TreeSemanticsByHand) {
  // K = 5, block 2: chunks {0,1},{2,3},{4}; P = 4:
  // ((c0 + c2) + c1) with c3 padding -> (c0 + c2) + c1.
  const float a[5] = {1e8f, 1.0f, -1e8f, 1.0f, 3.0f};
  const float b[5] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  float y = 0;
  plumb_rt_gemm_strided(1, 1, 5, 1.0f, a, 5, 1, b, 1, 1, 1.0f, nullptr, 0, 0,
                        &y, 1, 2);
  float c0 = fmaf(1.0f, 1.0f, fmaf(1e8f, 1.0f, -0.0f)); // 1e8 (1 lost)
  float c1 = fmaf(1.0f, 1.0f, fmaf(-1e8f, 1.0f, -0.0f));
  float c2 = fmaf(3.0f, 1.0f, -0.0f);
  float expect = (c0 + c2) + c1;
  EXPECT_EQ(bits(expect), bits(y));
  // Sequential: ((((1e8 + 1) - 1e8) + 1) + 3) = 4 (1e8+1 rounds to 1e8).
  plumb_rt_gemm_strided(1, 1, 5, 1.0f, a, 5, 1, b, 1, 1, 1.0f, nullptr, 0, 0,
                        &y, 1, 0);
  EXPECT_EQ(y, 4.0f);
}

TEST(Gemm, AccuracyAgainstFloat64) {
  std::mt19937 rng(7);
  const int64_t M = 64, N = 64, K = 1024;
  auto A = randomVec(M * K, rng), B = randomVec(K * N, rng);
  double worstRel = 0;
  for (int64_t block : {0, 64, 256}) {
    std::vector<float> y(M * N);
    plumb_rt_gemm_strided(M, N, K, 1.0f, A.data(), K, 1, B.data(), N, 1, 1.0f,
                          nullptr, 0, 0, y.data(), N, block);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) {
        double exact = 0, absSum = 0;
        for (int64_t k = 0; k < K; ++k) {
          double p = static_cast<double>(A[m * K + k]) * B[k * N + n];
          exact += p;
          absSum += fabs(p);
        }
        double err = fabs(y[m * N + n] - exact) / absSum;
        worstRel = std::max(worstRel, err);
        // Classic bound for blocked summation: (B + log2 m) * eps.
        ASSERT_LT(err, (block == 0 ? K : block + 4) * 6e-8);
      }
  }
  RecordProperty("worst_rel_error_over_abs_sum", std::to_string(worstRel));
  printf("gemm worst |err|/sum|a*b| vs float64: %.3g\n", worstRel);
}

TEST(Gemm, SubnormalsAreKept) {
  // 1e-20 * 1e-20 = 1e-40, a subnormal float: no FTZ/DAZ anywhere.
  std::vector<float> A(13 * 3, 1e-20f), B(3 * 40, 1e-20f), y(13 * 40);
  plumb_rt_set_threads(2);
  plumb_rt_gemm_strided(13, 40, 3, 1.0f, A.data(), 3, 1, B.data(), 40, 1, 1.0f,
                        nullptr, 0, 0, y.data(), 40, 0);
  plumb_rt_set_threads(1);
  float p = 1e-20f * 1e-20f;
  ASSERT_NE(p, 0.0f);
  float expect = (p + p) + p; // fma of exact subnormal products
  expect = fmaf(1e-20f, 1e-20f, fmaf(1e-20f, 1e-20f, fmaf(1e-20f, 1e-20f, -0.0f)));
  for (float v : y) {
    EXPECT_EQ(bits(v), bits(expect));
    EXPECT_EQ(fpclassify(v), FP_SUBNORMAL);
  }
  // Subnormal inputs times 1 stay subnormal.
  float sub = fromBits(0x00000123u), one = 1.0f, out = 0;
  plumb_rt_gemm_strided(1, 1, 1, 1.0f, &sub, 1, 1, &one, 1, 1, 1.0f, nullptr,
                        0, 0, &out, 1, 0);
  EXPECT_EQ(bits(out), 0x00000123u);
}

TEST(Gemm, NaNIsCanonical) {
  IsaGuard guard;
  std::mt19937 rng(5);
  const int64_t M = 15, N = 35, K = 20;
  auto A = randomVec(M * K, rng), B = randomVec(K * N, rng);
  A[3 * K + 4] = fromBits(0xFFC12345u);        // negative NaN with payload
  B[5 * N + 7] = INFINITY;                      // inf
  A[6 * K + 5] = 0.0f;                          // 0 * inf = NaN in row 6
  for (int isa = 1; isa <= 3; ++isa) {
    plumb_rt_gemm_set_isa(isa);
    std::vector<float> y(M * N);
    plumb_rt_gemm_strided(M, N, K, 1.0f, A.data(), K, 1, B.data(), N, 1, 1.0f,
                          nullptr, 0, 0, y.data(), N, 4);
    for (int64_t n = 0; n < N; ++n)
      EXPECT_EQ(bits(y[3 * N + n]), 0x7FC00000u);
    EXPECT_EQ(bits(y[6 * N + 7]), 0x7FC00000u);
    EXPECT_TRUE(isinf(y[0 * N + 7]));
  }
}

TEST(Gemm, EmptyReductionIsNegativeZero) {
  float y[6];
  plumb_rt_gemm_strided(2, 3, 0, 1.0f, nullptr, 0, 1, nullptr, 3, 1, 1.0f,
                        nullptr, 0, 0, y, 3, 0);
  for (float v : y)
    EXPECT_EQ(bits(v), 0x80000000u);
}

TEST(MatMul, BroadcastingShapesAndValues) {
  std::mt19937 rng(11);
  // A [2,1,5,7] x B [3,7,4] -> [2,3,5,4].
  const int64_t as[] = {2, 1, 5, 7}, bs[] = {3, 7, 4};
  auto A = randomVec(2 * 5 * 7, rng), B = randomVec(3 * 7 * 4, rng);
  std::vector<float> y(2 * 3 * 5 * 4);
  int64_t ys[4];
  int yr = 0;
  ASSERT_EQ(plumb_rt_matmul(A.data(), as, 4, B.data(), bs, 3, y.data(), ys,
                            &yr, 3),
            0);
  ASSERT_EQ(yr, 4);
  EXPECT_EQ(ys[0], 2);
  EXPECT_EQ(ys[1], 3);
  EXPECT_EQ(ys[2], 5);
  EXPECT_EQ(ys[3], 4);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      std::vector<float> ref(5 * 4);
      plumb_rt_gemm_reference(5, 4, 7, 1.0f, A.data() + i * 35, 7, 1,
                              B.data() + j * 28, 4, 1, 1.0f, nullptr, 0, 0,
                              ref.data(), 4, 3);
      for (int e = 0; e < 20; ++e)
        ASSERT_EQ(bits(ref[e]), bits(y[(i * 3 + j) * 20 + e]));
    }
  // 1-D x 1-D -> scalar (rank 0), 1-D x 2-D -> [N].
  const int64_t v[] = {7}, m2[] = {7, 4};
  float s = 0;
  ASSERT_EQ(plumb_rt_matmul(A.data(), v, 1, A.data() + 7, v, 1, &s, ys, &yr, 0),
            0);
  EXPECT_EQ(yr, 0);
  float expect = -0.0f;
  for (int k = 0; k < 7; ++k)
    expect = fmaf(A[k], A[7 + k], expect);
  EXPECT_EQ(bits(s), bits(expect));
  std::vector<float> row(4);
  ASSERT_EQ(plumb_rt_matmul(A.data(), v, 1, B.data(), m2, 2, row.data(), ys,
                            &yr, 0),
            0);
  ASSERT_EQ(yr, 1);
  EXPECT_EQ(ys[0], 4);
  // Mismatched K.
  const int64_t bad[] = {6, 4};
  EXPECT_EQ(plumb_rt_matmul(A.data(), v, 1, B.data(), bad, 2, row.data(), ys,
                            &yr, 0),
            -1);
}

TEST(MatMul, BatchedEqualsLoop) {
  IsaGuard guard;
  std::mt19937 rng(3);
  const int64_t batch = 5, M = 9, N = 40, K = 77;
  auto A = randomVec(batch * M * K, rng), B = randomVec(K * N, rng);
  std::vector<float> y(batch * M * N);
  plumb_rt_set_threads(3);
  plumb_rt_matmul_batched(batch, M, N, K, A.data(), M * K, B.data(), 0,
                          y.data(), 16);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<float> ref(M * N);
    plumb_rt_gemm_reference(M, N, K, 1.0f, A.data() + b * M * K, K, 1,
                            B.data(), N, 1, 1.0f, nullptr, 0, 0, ref.data(), N,
                            16);
    for (int64_t e = 0; e < M * N; ++e)
      ASSERT_EQ(bits(ref[e]), bits(y[b * M * N + e]));
  }
}

// B packed once (plumb_rt_gemm_pack_b) gives plumb_rt_gemm_strided's bits
// for every shape class, ISA and thread count; packed under one ISA and
// used under another, it falls back to packing B as usual.
TEST(Gemm, PackedBMatchesStridedBitwise) {
  IsaGuard guard;
  std::mt19937 rng(21);
  struct Shape {
    int64_t M, N, K;
    bool transB;
  };
  const Shape shapes[] = {{2, 33, 17, false},  {13, 70, 300, false}, {64, 256, 96, true},
                          {200, 40, 513, false}, {7, 1, 5, true},     {31, 97, 1, false}};
  for (const Shape &sh : shapes) {
    auto A = randomVec(sh.M * sh.K, rng), B = randomVec(sh.K * sh.N, rng), C = randomVec(sh.N, rng);
    const int64_t b_rs = sh.transB ? 1 : sh.N, b_cs = sh.transB ? sh.K : 1;
    for (int packIsa : {1, 2, 3}) {
      plumb_rt_gemm_set_isa(packIsa);
      std::vector<float> packed(plumb_rt_gemm_packed_b_size(sh.N, sh.K) + 16);
      float *pk = packed.data() + (16 - ((uintptr_t)packed.data() / 4) % 16) % 16;
      ASSERT_EQ(plumb_rt_gemm_pack_b(sh.N, sh.K, B.data(), b_rs, b_cs, pk), 0);
      for (int isa : {1, 2, 3})
        for (int t : {1, 3}) {
          plumb_rt_gemm_set_isa(isa);
          plumb_rt_set_threads(t);
          std::vector<float> want(sh.M * sh.N), got(sh.M * sh.N);
          plumb_rt_gemm_strided(sh.M, sh.N, sh.K, 1.0f, A.data(), sh.K, 1, B.data(), b_rs, b_cs,
                                1.0f, C.data(), 0, 1, want.data(), sh.N, 64);
          plumb_rt_gemm_strided_packed_b(sh.M, sh.N, sh.K, 1.0f, A.data(), sh.K, 1, pk, B.data(),
                                         b_rs, b_cs, 1.0f, C.data(), 0, 1, got.data(), sh.N, 64);
          ASSERT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)))
              << sh.M << "x" << sh.N << "x" << sh.K << " packed isa " << packIsa << " isa "
              << isa << " threads " << t;
        }
    }
  }
  std::vector<float> dummy(16);
  EXPECT_NE(plumb_rt_gemm_pack_b(-1, 4, dummy.data(), 1, 1, dummy.data()), 0);
  EXPECT_NE(plumb_rt_gemm_pack_b(4, 4, dummy.data(), 1, 1, nullptr), 0);
}

// A weight matrix shared by every batch (activations of rank 3-4 times a
// rank-2 B): plumb_rt_matmul runs the batches as the rows of one product;
// every element is still the per-slice reference's treeDot, at every ISA
// and thread count.
TEST(MatMul, SharedWeightBatchesEqualPerSliceReference) {
  IsaGuard guard;
  std::mt19937 rng(5);
  const int64_t as[] = {1, 6, 11, 37}, bs[] = {37, 29}, bs3[] = {1, 37, 29};
  const int64_t rows = 6 * 11, K = 37, N = 29;
  auto A = randomVec(rows * K, rng), B = randomVec(K * N, rng);
  std::vector<float> ref(rows * N);
  for (int64_t s = 0; s < 6; ++s)
    plumb_rt_gemm_reference(11, N, K, 1.0f, A.data() + s * 11 * K, K, 1, B.data(), N, 1, 1.0f,
                            nullptr, 0, 0, ref.data() + s * 11 * N, N, 16);
  for (int isa : {1, 2, 3})
    for (int t : {1, 3}) {
      plumb_rt_gemm_set_isa(isa);
      plumb_rt_set_threads(t);
      for (const int64_t *b : {bs, bs3}) {
        std::vector<float> y(rows * N, 1.0f);
        ASSERT_EQ(plumb_rt_matmul_f32(A.data(), as, 4, B.data(), b, b == bs ? 2 : 3, y.data(), 16),
                  0);
        for (int64_t e = 0; e < rows * N; ++e)
          ASSERT_EQ(bits(ref[e]), bits(y[e])) << "isa " << isa << " threads " << t;
      }
      std::vector<float> yb(rows * N);
      plumb_rt_matmul_batched(6, 11, N, K, A.data(), 11 * K, B.data(), 0, yb.data(), 16);
      ASSERT_EQ(0, std::memcmp(yb.data(), ref.data(), ref.size() * sizeof(float)));
    }
}

} // namespace

namespace {

TEST(Gemm, GemvTransBMatchesReferenceBitwise) {
  // M = 1 with B transposed (B's columns contiguous) takes the row-dot
  // path; A as a row or (transA) a strided column; C absent, scalar or [N].
  std::mt19937 rng(91);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (int64_t N : {1, 7, 8, 9, 100})
    for (int64_t K : {1, 5, 300, 1000})
      for (int ta = 0; ta < 2; ++ta)
        for (int cr = -1; cr <= 1; ++cr) {
          std::vector<float> A(2 * K), B(N * K), C(N);
          for (auto &v : A)
            v = d(rng);
          for (auto &v : B)
            v = d(rng);
          for (auto &v : C)
            v = d(rng);
          if (K > 4 && N > 3) {
            B[3 * K + 2] = INFINITY; // inf * finite, then NaN in row 3 via 0
            A[2] = 0.0f;
          }
          const float *c = cr < 0 ? nullptr : C.data();
          const int64_t cs = N, a_cs = ta ? 2 : 1; // ta: strided A row
          for (int64_t block : {0, 1, 7, 256}) {
            std::vector<float> ref(N), y(N, 9.0f);
            plumb_rt_gemm_reference(1, N, K, 0.5f, A.data(), 2 * K, a_cs,
                                    B.data(), 1, K, -2.0f, c, 0,
                                    cr == 1 ? 1 : 0, ref.data(), N, block);
            for (int t : {1, 3}) {
              plumb_rt_set_threads(t);
              if (ta)
                plumb_rt_gemm_strided(1, N, K, 0.5f, A.data(), 2 * K, a_cs,
                                      B.data(), 1, K, -2.0f, c, 0,
                                      cr == 1 ? 1 : 0, y.data(), N, block);
              else
                plumb_rt_gemm(1, N, K, 0.5f, A.data(), 0, B.data(), 1, -2.0f,
                              c, &cs, cr < 0 ? 0 : cr, y.data(), block);
              for (int64_t n = 0; n < N; ++n) {
                uint32_t u, v;
                memcpy(&u, &ref[n], 4);
                memcpy(&v, &y[n], 4);
                ASSERT_EQ(u, v) << "N=" << N << " K=" << K << " ta=" << ta
                                << " cr=" << cr << " block=" << block
                                << " n=" << n;
              }
            }
            plumb_rt_set_threads(1);
          }
        }
}

} // namespace

namespace {

// The packed GEMV (a constant B packed once, plumb_rt_gemv_packed) gives
// exactly plumb_rt_gemm_strided's M = 1 result: every tree block (one chunk,
// several, a partial last one), both layouts of B, C broadcast or per
// column, alpha/beta, N across panel boundaries, edge values (NaN, infs,
// signed zeros, subnormals) and thread counts.
TEST(Gemv, PackedMatchesGemmBitwise) {
  IsaGuard guard;
  std::mt19937 rng(11);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN,
                            1e-40f, -1e-40f, 3.0e38f};
  for (int64_t N : {1, 16, 127, 128, 129, 300})
    for (int64_t K : {1, 7, 64, 257, 600})
      for (int64_t block : {0, 8, 64, 256})
        for (int transB = 0; transB < 2; ++transB)
          for (int cMode = 0; cMode < 3; ++cMode)
            for (int threads : {1, 3}) {
              plumb_rt_set_threads(threads);
              std::vector<float> A = randomVec((size_t)K, rng);
              std::vector<float> B = randomVec((size_t)(N * K), rng);
              std::vector<float> C = randomVec((size_t)N, rng);
              if (K > 3) {
                A[1] = specials[(N + K) % 8];
                B[2] = specials[(N + block) % 8];
              }
              const int64_t b_rs = transB ? 1 : N, b_cs = transB ? K : 1;
              const float *c = cMode ? C.data() : nullptr;
              const int64_t c_cs = cMode == 2 ? 1 : 0;
              const float alpha = cMode ? 0.75f : 1.0f;
              const float beta = cMode == 1 ? -1.5f : 1.0f;
              std::vector<float> want((size_t)N), got((size_t)N, 7.0f);
              plumb_rt_gemm_strided(1, N, K, alpha, A.data(), K, 1, B.data(),
                                    b_rs, b_cs, beta, c, 0, c_cs, want.data(),
                                    N, block);
              std::vector<float> packed(
                  (size_t)plumb_rt_gemv_packed_size(N, K));
              ASSERT_EQ(plumb_rt_gemv_pack(N, K, B.data(), b_rs, b_cs,
                                           packed.data()),
                        0);
              ASSERT_EQ(plumb_rt_gemv_packed(N, K, alpha, A.data(), 1,
                                             packed.data(), beta, c, c_cs,
                                             got.data(), block),
                        0);
              ASSERT_EQ(firstDiff(want, got), -1)
                  << "N=" << N << " K=" << K << " block=" << block
                  << " transB=" << transB << " cMode=" << cMode
                  << " threads=" << threads;
            }
}

TEST(Gemv, PackedRejectsBadArguments) {
  float y = 0, a = 1, p = 1;
  EXPECT_EQ(plumb_rt_gemv_packed_size(-1, 4), -1);
  EXPECT_NE(plumb_rt_gemv_pack(4, 4, nullptr, 4, 1, &p), 0);
  EXPECT_NE(plumb_rt_gemv_packed(4, 4, 1.0f, &a, 1, nullptr, 1.0f, nullptr, 0,
                                 &y, 0),
            0);
  EXPECT_EQ(plumb_rt_gemv_packed(0, 4, 1.0f, &a, 1, &p, 1.0f, nullptr, 0,
                                 nullptr, 0),
            0);
}

} // namespace

// MatMulInteger's kernel: int32 products and sums wrapping modulo 2^32
// (full-range values, so the wraparound is exercised), against the plain
// triple loop; rows not a multiple of 4, columns beyond one tile of 256 and
// not a multiple of it, a broadcast batch, 1 to 3 threads.
TEST(MatMul, Int32WrapsAndMatchesTripleLoop) {
  std::mt19937 g(17);
  std::uniform_int_distribution<int64_t> d(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> small(-255, 255);
  struct S {
    std::vector<int64_t> a, b;
  };
  for (const S &s : {S{{7, 33}, {33, 600}}, S{{2, 5, 19}, {19, 257}},
                     S{{20, 64}, {64, 8}}, S{{1, 3, 9}, {2, 9, 300}}}) {
    for (int full = 0; full < 2; ++full) {
      auto fill = [&](const std::vector<int64_t> &sh) {
        int64_t n = 1;
        for (auto v : sh)
          n *= v;
        std::vector<int32_t> v((size_t)n);
        for (auto &x : v)
          x = full ? (int32_t)d(g) : small(g);
        return v;
      };
      auto A = fill(s.a), B = fill(s.b);
      // Shapes: [.., M, K] x [.., K, N] with numpy batch broadcasting.
      const int64_t K = s.a.back(), M = s.a[s.a.size() - 2], N = s.b.back();
      const int64_t ba = (int64_t)A.size() / (M * K),
                    bb = (int64_t)B.size() / (K * N);
      const int64_t batch = std::max(ba, bb);
      std::vector<int32_t> want((size_t)(batch * M * N));
      for (int64_t t = 0; t < batch; ++t)
        for (int64_t m = 0; m < M; ++m)
          for (int64_t n = 0; n < N; ++n) {
            uint32_t acc = 0;
            for (int64_t k = 0; k < K; ++k)
              acc += uint32_t(A[(size_t)(((ba == 1 ? 0 : t) * M + m) * K + k)]) *
                     uint32_t(B[(size_t)(((bb == 1 ? 0 : t) * K + k) * N + n)]);
            want[(size_t)((t * M + m) * N + n)] = (int32_t)acc;
          }
      for (int threads : {1, 2, 3}) {
        plumb_rt_set_threads(threads);
        std::vector<int32_t> y(want.size(), 7);
        ASSERT_EQ(plumb_rt_matmul_i32(A.data(), s.a.data(), (int32_t)s.a.size(),
                                      B.data(), s.b.data(), (int32_t)s.b.size(),
                                      y.data()),
                  0);
        ASSERT_EQ(y, want) << threads << " full=" << full;
      }
      plumb_rt_set_threads(1);
    }
  }
}

// The narrow forms of an integer MatMul (runtime/src/qdot.h): B packed as
// int8 (with VNNI) or int16, A's rows as bytes over their minimum or int16
// pairs. Every operand range that picks a different path (int8 A span and
// B, int16 extremes whose pair sums wrap, A too wide for the 8-bit form, B
// too wide for any) gives the triple loop's wrapping sums, through the
// packed API and the one-call form, on every ISA and thread count.
TEST(MatMul, Int32NarrowFormsMatchTripleLoop) {
  std::mt19937 g(23);
  struct R {
    int32_t alo, ahi, blo, bhi;
  };
  const R ranges[] = {
      {-200, 55, -128, 127},       // 8-bit form (span 255), else 16-bit
      {0, 255, -128, 127},         // uint8 activations
      {-32768, -32760, -32768, -32768}, // 2 * 2^30 pair sums wrap
      {-300, 300, -128, 127},      // A too wide for bytes: 16-bit or loop
      {-40000, 40000, -5, 5},      // A outside int16: the int32 loop
      {-3, 3, -70000, 70000},      // B outside int16: the int32 loop
  };
  struct S {
    std::vector<int64_t> a, b;
  };
  for (const R &rg : ranges)
    for (const S &s : {S{{37, 70}, {70, 45}}, S{{2, 9, 64}, {64, 160}},
                       S{{1, 33}, {33, 17}}}) {
      std::uniform_int_distribution<int32_t> da(rg.alo, rg.ahi),
          db(rg.blo, rg.bhi);
      int64_t na = 1, nb = 1;
      for (auto v : s.a)
        na *= v;
      for (auto v : s.b)
        nb *= v;
      std::vector<int32_t> A((size_t)na), B((size_t)nb);
      for (auto &x : A)
        x = da(g);
      for (auto &x : B)
        x = db(g);
      const int64_t K = s.b[0], N = s.b[1], rows = na / K;
      std::vector<int32_t> want((size_t)(rows * N));
      for (int64_t m = 0; m < rows; ++m)
        for (int64_t n = 0; n < N; ++n) {
          uint32_t acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += uint32_t(A[(size_t)(m * K + k)]) *
                   uint32_t(B[(size_t)(k * N + n)]);
          want[(size_t)(m * N + n)] = (int32_t)acc;
        }
      for (int isa : {3, 2, 1})
        for (int threads : {1, 2, 3}) {
          plumb_rt_gemm_set_isa(isa);
          plumb_rt_set_threads(threads);
          std::vector<int32_t> y(want.size(), 7), yp(want.size(), 7);
          ASSERT_EQ(plumb_rt_matmul_i32(A.data(), s.a.data(),
                                        (int32_t)s.a.size(), B.data(),
                                        s.b.data(), 2, y.data()),
                    0);
          ASSERT_EQ(y, want) << "isa " << isa << " threads " << threads
                             << " A " << rg.alo << ".." << rg.ahi;
          // Packed on the widest ISA, run on this one.
          plumb_rt_gemm_set_isa(3);
          std::vector<uint64_t> pk(
              (size_t)plumb_rt_matmul_i32_packed_size(K, N) / 8);
          ASSERT_EQ(plumb_rt_matmul_i32_pack(B.data(), K, N, pk.data()), 0);
          plumb_rt_gemm_set_isa(isa);
          ASSERT_EQ(plumb_rt_matmul_i32_packed(
                        A.data(), s.a.data(), (int32_t)s.a.size(), pk.data(),
                        B.data(), s.b.data(), 2, yp.data()),
                    0);
          ASSERT_EQ(yp, want) << "packed isa " << isa << " threads "
                              << threads << " A " << rg.alo << ".." << rg.ahi;
        }
    }
  plumb_rt_gemm_set_isa(0);
  plumb_rt_set_threads(1);
}
