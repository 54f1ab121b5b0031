//===- test/unit/runtime/movement_test.cpp - Data movement kernels -*- C++ -*-===//
//
// Part of Plumb. Transpose / Concat / Split / Slice / Gather / Expand / Pad /
// Tile / Range / fill against naive index math and ONNX examples.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/movement.h"
#include "plumb/runtime/threads.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

namespace {
std::vector<int64_t> strides(const std::vector<int64_t> &s) {
  std::vector<int64_t> st(s.size());
  int64_t a = 1;
  for (size_t i = s.size(); i-- > 0;) {
    st[i] = a;
    a *= s[i];
  }
  return st;
}
int64_t numel(const std::vector<int64_t> &s) {
  int64_t n = 1;
  for (auto d : s)
    n *= d;
  return n;
}
std::vector<int64_t> unravel(int64_t i, const std::vector<int64_t> &s) {
  std::vector<int64_t> idx(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    idx[d] = i % s[d];
    i /= s[d];
  }
  return idx;
}
} // namespace

TEST(Movement, TransposeMatchesNaiveAllSizes) {
  std::vector<int64_t> shape = {2, 3, 4, 5};
  std::vector<std::vector<int32_t>> perms = {
      {0, 1, 2, 3}, {3, 2, 1, 0}, {0, 2, 1, 3}, {1, 0, 3, 2}, {0, 1, 3, 2},
      {2, 3, 0, 1}};
  const int64_t n = numel(shape);
  auto st = strides(shape);
  for (int64_t es : {1, 2, 4, 8, 3}) {
    std::vector<uint8_t> x((size_t)(n * es));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = (uint8_t)(i * 37 + 11);
    for (auto &perm : perms) {
      std::vector<int64_t> os(4);
      for (int k = 0; k < 4; ++k)
        os[k] = shape[perm[k]];
      std::vector<uint8_t> y(x.size());
      ASSERT_EQ(plumb_rt_transpose(x.data(), shape.data(), 4, perm.data(),
                                   y.data(), es),
                PLUMB_RT_OK);
      for (int64_t o = 0; o < n; ++o) {
        auto oi = unravel(o, os);
        int64_t src = 0;
        for (int k = 0; k < 4; ++k)
          src += oi[k] * st[perm[k]];
        ASSERT_EQ(0, std::memcmp(&y[o * es], &x[src * es], es));
      }
    }
  }
  int32_t bad[] = {0, 0, 1, 2};
  std::vector<float> y(120), x(120);
  EXPECT_EQ(plumb_rt_transpose(x.data(), shape.data(), 4, bad, y.data(), 4),
            PLUMB_RT_EINVAL);
}

TEST(Movement, TiledTransposeMatchesNaive) {
  // Large enough dims to take the 2-D tiled path (partial tiles included).
  std::vector<int64_t> shape = {3, 45, 70};
  std::vector<std::vector<int32_t>> perms = {{2, 0, 1}, {0, 2, 1}, {1, 2, 0},
                                             {2, 1, 0}};
  const int64_t n = numel(shape);
  auto st = strides(shape);
  for (int64_t es : {1, 2, 4, 8, 6}) {
    std::vector<uint8_t> x((size_t)(n * es));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = (uint8_t)(i * 131 + (i >> 8));
    for (auto &perm : perms) {
      std::vector<int64_t> os(3);
      for (int k = 0; k < 3; ++k)
        os[k] = shape[perm[k]];
      std::vector<uint8_t> y(x.size());
      for (int t : {1, 3}) {
        plumb_rt_set_threads(t);
        ASSERT_EQ(plumb_rt_transpose(x.data(), shape.data(), 3, perm.data(),
                                     y.data(), es),
                  PLUMB_RT_OK);
        for (int64_t o = 0; o < n; ++o) {
          auto oi = unravel(o, os);
          int64_t src = 0;
          for (int k = 0; k < 3; ++k)
            src += oi[k] * st[perm[k]];
          ASSERT_EQ(0, std::memcmp(&y[o * es], &x[src * es], es));
        }
      }
    }
  }
  plumb_rt_set_threads(1);
}

TEST(Movement, ConcatSplitRoundTrip) {
  std::vector<int64_t> s0 = {2, 3, 2}, s1 = {2, 1, 2}, s2 = {2, 0, 2},
                       s3 = {2, 4, 2};
  std::vector<float> a(12), b(4), c(16);
  std::iota(a.begin(), a.end(), 0.0f);
  std::iota(b.begin(), b.end(), 100.0f);
  std::iota(c.begin(), c.end(), 200.0f);
  const void *ins[] = {a.data(), b.data(), nullptr, c.data()};
  const int64_t *shapes[] = {s0.data(), s1.data(), s2.data(), s3.data()};
  std::vector<float> y(32);
  ASSERT_EQ(plumb_rt_concat(ins, shapes, 4, 3, 1, y.data(), 4), PLUMB_RT_OK);
  // y[n, k, w]: k < 3 from a, k == 3 from b, k >= 4 from c.
  for (int n = 0; n < 2; ++n)
    for (int k = 0; k < 8; ++k)
      for (int w = 0; w < 2; ++w) {
        float want = k < 3    ? a[(n * 3 + k) * 2 + w]
                     : k == 3 ? b[n * 2 + w]
                              : c[(n * 4 + (k - 4)) * 2 + w];
        ASSERT_EQ(y[(n * 8 + k) * 2 + w], want);
      }
  std::vector<float> o0(12), o1(4), o2(1), o3(16);
  int64_t ys[] = {2, 8, 2}, sizes[] = {3, 1, 0, 4};
  void *outs[] = {o0.data(), o1.data(), o2.data(), o3.data()};
  ASSERT_EQ(plumb_rt_split(y.data(), ys, 3, 1, 4, sizes, outs, 4), 0);
  EXPECT_EQ(o0, a);
  EXPECT_EQ(o1, b);
  EXPECT_EQ(o3, c);
  int64_t badSizes[] = {3, 1, 0, 3};
  EXPECT_EQ(plumb_rt_split(y.data(), ys, 3, 1, 4, badSizes, outs, 4),
            PLUMB_RT_ESHAPE);
}

TEST(Movement, SliceNormalizeOnnxExamples) {
  // ONNX Slice example: data 2x4, axes [0,1], starts [1,0], ends [2,3],
  // steps [1,2] -> [[5, 7]].
  std::vector<int64_t> shape = {2, 4};
  float x[] = {1, 2, 3, 4, 5, 6, 7, 8};
  int64_t starts[] = {1, 0}, ends[] = {2, 3}, axes[] = {0, 1}, steps[] = {1, 2};
  int64_t st[2], sp[2], os[2];
  ASSERT_EQ(plumb_rt_slice_normalize(shape.data(), 2, starts, ends, axes, steps,
                                     2, st, sp, os),
            0);
  EXPECT_EQ(os[0], 1);
  EXPECT_EQ(os[1], 2);
  float y[8];
  ASSERT_EQ(plumb_rt_slice(x, shape.data(), 2, st, sp, os, y, 4), 0);
  EXPECT_EQ(y[0], 5);
  EXPECT_EQ(y[1], 7);
  // starts [0, 1], ends [-1, 1000] (clamped) -> [[2, 3, 4]].
  int64_t s2[] = {0, 1}, e2[] = {-1, 1000};
  ASSERT_EQ(plumb_rt_slice_normalize(shape.data(), 2, s2, e2, nullptr, nullptr,
                                     2, st, sp, os),
            0);
  EXPECT_EQ(os[0], 1);
  EXPECT_EQ(os[1], 3);
  ASSERT_EQ(plumb_rt_slice(x, shape.data(), 2, st, sp, os, y, 4), 0);
  EXPECT_EQ(y[0], 2);
  EXPECT_EQ(y[2], 4);
  // Negative step: axes [1], starts [-1], ends [-1000], steps [-1] reverses
  // every row -> [[4,3,2,1],[8,7,6,5]].
  int64_t s3[] = {-1}, e3[] = {-1000}, a3[] = {-1}, p3[] = {-1};
  ASSERT_EQ(plumb_rt_slice_normalize(shape.data(), 2, s3, e3, a3, p3, 1, st,
                                     sp, os),
            0);
  EXPECT_EQ(os[1], 4);
  ASSERT_EQ(plumb_rt_slice(x, shape.data(), 2, st, sp, os, y, 4), 0);
  const float want[] = {4, 3, 2, 1, 8, 7, 6, 5};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], want[i]);
  // Negative step with a start before the beginning: ONNX clamps starts to
  // [0, dim - 1] -> one element (x[.., 0]).
  int64_t s5[] = {-10}, e5[] = {-1000}, a5[] = {1}, p5[] = {-1};
  ASSERT_EQ(plumb_rt_slice_normalize(shape.data(), 2, s5, e5, a5, p5, 1, st,
                                     sp, os),
            0);
  EXPECT_EQ(os[1], 1);
  EXPECT_EQ(st[1], 0);
  // Negative step, start past the end clamps to dim - 1; end 1 excluded:
  // indices 3, 2.
  int64_t s6[] = {100}, e6[] = {1};
  ASSERT_EQ(plumb_rt_slice_normalize(shape.data(), 2, s6, e6, a5, p5, 1, st,
                                     sp, os),
            0);
  EXPECT_EQ(os[1], 2);
  EXPECT_EQ(st[1], 3);
  // Empty result.
  int64_t s4[] = {3}, e4[] = {1}, a4[] = {1};
  ASSERT_EQ(plumb_rt_slice_normalize(shape.data(), 2, s4, e4, a4, nullptr, 1,
                                     st, sp, os),
            0);
  EXPECT_EQ(os[1], 0);
  EXPECT_EQ(plumb_rt_slice(x, shape.data(), 2, st, sp, os, y, 4), 0);
  int64_t zero[] = {0};
  EXPECT_EQ(plumb_rt_slice_normalize(shape.data(), 2, s4, e4, a4, zero, 1, st,
                                     sp, os),
            PLUMB_RT_EINVAL);
}

TEST(Movement, GatherIndicesAndErrors) {
  // ONNX Gather axis 0 example: data [[1,1.2],[2.3,3.4],[4.5,5.7]], indices
  // [[0,1],[1,2]] -> [[[1,1.2],[2.3,3.4]],[[2.3,3.4],[4.5,5.7]]].
  float x[] = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
  int64_t shape[] = {3, 2};
  int64_t idx[] = {0, 1, 1, 2};
  // Room for the larger result (axis 1 below: 3 x 3).
  float y[9];
  ASSERT_EQ(plumb_rt_gather(x, shape, 2, 0, idx, 0, 4, y, 4), 0);
  const float w[] = {1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(y[i], w[i]);
  // Axis 1 with int32 and negative indices: [[0, -1]] -> columns 0 and 1.
  int32_t idx32[] = {0, -1, -2};
  ASSERT_EQ(plumb_rt_gather(x, shape, 2, 1, idx32, 1, 3, y, 4), 0);
  const float w2[] = {1.0f, 1.2f, 1.0f, 2.3f, 3.4f, 2.3f, 4.5f, 5.7f, 4.5f};
  for (int i = 0; i < 9; ++i)
    EXPECT_EQ(y[i], w2[i]);
  int64_t bad[] = {3};
  EXPECT_EQ(plumb_rt_gather(x, shape, 2, 0, bad, 0, 1, y, 4), PLUMB_RT_ERANGE);
  int64_t bad2[] = {-4};
  EXPECT_EQ(plumb_rt_gather(x, shape, 2, 0, bad2, 0, 1, y, 4),
            PLUMB_RT_ERANGE);
}

TEST(Movement, ExpandAndTile) {
  int64_t xs[] = {3, 1};
  float x[] = {1, 2, 3};
  int64_t os[] = {2, 3, 4};
  float y[24];
  ASSERT_EQ(plumb_rt_expand(x, xs, 2, y, os, 3, 4), 0);
  for (int i = 0; i < 24; ++i)
    EXPECT_EQ(y[i], x[(i / 4) % 3]);
  EXPECT_EQ(plumb_rt_expand(x, xs, 2, y, xs + 0, 1, 4), PLUMB_RT_ESHAPE);
  // Tile [[0,1],[2,3]] by [2,2] (ONNX example).
  int64_t ts[] = {2, 2}, rep[] = {2, 2};
  int64_t xt[] = {0, 1, 2, 3}, yt[16];
  ASSERT_EQ(plumb_rt_tile(xt, ts, 2, rep, yt, 8), 0);
  const int64_t w[] = {0, 1, 0, 1, 2, 3, 2, 3, 0, 1, 0, 1, 2, 3, 2, 3};
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(yt[i], w[i]);
}

TEST(Movement, PadModesOnnxExamples) {
  // ONNX Pad examples: x = [[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]],
  // pads = [0, 2, 0, 0].
  float x[] = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
  int64_t shape[] = {3, 2}, pads[] = {0, 2, 0, 0};
  float y[12];
  float zero = 0.0f;
  ASSERT_EQ(plumb_rt_pad(x, shape, 2, pads, PLUMB_RT_PAD_CONSTANT, &zero, y, 4),
            0);
  const float wc[] = {0, 0, 1.0f, 1.2f, 0, 0, 2.3f, 3.4f, 0, 0, 4.5f, 5.7f};
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(y[i], wc[i]);
  ASSERT_EQ(plumb_rt_pad(x, shape, 2, pads, PLUMB_RT_PAD_REFLECT, nullptr, y,
                         4),
            0);
  const float wr[] = {1.0f, 1.2f, 1.0f, 1.2f, 2.3f, 3.4f,
                      2.3f, 3.4f, 4.5f, 5.7f, 4.5f, 5.7f};
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(y[i], wr[i]);
  ASSERT_EQ(plumb_rt_pad(x, shape, 2, pads, PLUMB_RT_PAD_EDGE, nullptr, y, 4),
            0);
  const float we[] = {1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f,
                      2.3f, 3.4f, 4.5f, 4.5f, 4.5f, 5.7f};
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(y[i], we[i]);
  // 1-D reflect across more than one period and wrap: x = [1, 2, 3].
  float v[] = {1, 2, 3};
  int64_t vs[] = {3}, vp[] = {5, 4};
  float vy[12];
  ASSERT_EQ(plumb_rt_pad(v, vs, 1, vp, PLUMB_RT_PAD_REFLECT, nullptr, vy, 4),
            0);
  // indices -5..6 -> reflect period 4: 3 2 1 2 3 2 1 2 3 2 1 2
  const float wv[] = {2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3};
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(vy[i], wv[i]) << i;
  ASSERT_EQ(plumb_rt_pad(v, vs, 1, vp, PLUMB_RT_PAD_WRAP, nullptr, vy, 4), 0);
  const float ww[] = {2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1};
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(vy[i], ww[i]) << i;
  // Negative pads crop; constant value bits are copied verbatim.
  int64_t np[] = {-1, 1};
  float cv = -7.5f;
  ASSERT_EQ(plumb_rt_pad(v, vs, 1, np, PLUMB_RT_PAD_CONSTANT, &cv, vy, 4), 0);
  EXPECT_EQ(vy[0], 2);
  EXPECT_EQ(vy[1], 3);
  EXPECT_EQ(vy[2], -7.5f);
}

TEST(Movement, RangeFillCopy) {
  EXPECT_EQ(plumb_rt_range_count_f32(3.0f, 9.0f, 3.0f), 2);
  EXPECT_EQ(plumb_rt_range_count_f32(10.0f, 4.0f, -2.0f), 3);
  EXPECT_EQ(plumb_rt_range_count_f32(0.0f, 1.0f, 0.3f), 4);
  EXPECT_EQ(plumb_rt_range_count_f32(1.0f, 0.0f, 1.0f), 0);
  EXPECT_EQ(plumb_rt_range_count_i64(3, 9, 3), 2);
  EXPECT_EQ(plumb_rt_range_count_i64(10, 4, -2), 3);
  EXPECT_EQ(plumb_rt_range_count_i64(0, 10, 3), 4);
  EXPECT_EQ(plumb_rt_range_count_i64(0, 1, 0), -1);
  float r[4];
  ASSERT_EQ(plumb_rt_range_f32(0.0f, 0.1f, 4, r), 0);
  // Accumulated: ((0 + 0.1) + 0.1) + 0.1.
  EXPECT_EQ(r[3], ((0.1f + 0.1f) + 0.1f));
  int64_t ri[3];
  ASSERT_EQ(plumb_rt_range_i64(10, -2, 3, ri), 0);
  EXPECT_EQ(ri[2], 6);
  int64_t fv = -3, fy[5];
  ASSERT_EQ(plumb_rt_fill(fy, 5, &fv, 8), 0);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(fy[i], -3);
  std::vector<uint8_t> big(3 << 20), dst(big.size());
  for (size_t i = 0; i < big.size(); ++i)
    big[i] = (uint8_t)(i * 7);
  plumb_rt_set_threads(3);
  ASSERT_EQ(plumb_rt_copy(big.data(), dst.data(), (int64_t)big.size()), 0);
  plumb_rt_set_threads(1);
  EXPECT_EQ(big, dst);
}

TEST(Movement, ThreadCountInvariance) {
  std::vector<int64_t> shape = {7, 33, 65, 9};
  const int64_t n = numel(shape);
  std::vector<float> x((size_t)n);
  for (int64_t i = 0; i < n; ++i)
    x[(size_t)i] = (float)i;
  int32_t perm[] = {2, 0, 3, 1};
  std::vector<float> ref((size_t)n), y((size_t)n);
  plumb_rt_set_threads(1);
  ASSERT_EQ(plumb_rt_transpose(x.data(), shape.data(), 4, perm, ref.data(), 4),
            0);
  for (int t : {2, 3, 4, 8}) {
    plumb_rt_set_threads(t);
    ASSERT_EQ(plumb_rt_transpose(x.data(), shape.data(), 4, perm, y.data(), 4),
              0);
    ASSERT_EQ(ref, y);
  }
  plumb_rt_set_threads(1);
}
