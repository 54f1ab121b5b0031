//===- test/unit/runtime/tree_test.cpp - Reduction tree tests --*- C++ -*-===//
//
// Part of Plumb. The reference trees of tree.h against hand-written
// evaluations of the contract's definition (docs/determinism.md).
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/tree.h"

#include <gtest/gtest.h>

#include <math.h>
#include <string.h>

#include <random>
#include <vector>

namespace {

using namespace plumb::rt;

uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/// Literal transcription of the contract: chunks, pad to P with -0.0,
/// stride-halving over the padded array (no skipping).
float contractSum(const std::vector<float> &x, int64_t block) {
  const int64_t n = static_cast<int64_t>(x.size());
  const int64_t b = (block <= 0 || block >= n) ? n : block;
  std::vector<float> v;
  for (int64_t lo = 0; lo < n; lo += b) {
    float acc = -0.0f;
    for (int64_t i = lo; i < std::min(n, lo + b); ++i)
      acc = acc + x[i];
    v.push_back(acc);
  }
  if (v.empty())
    v.push_back(-0.0f);
  size_t p = 1;
  while (p < v.size())
    p <<= 1;
  v.resize(p, -0.0f);
  for (size_t s = p / 2; s >= 1; s /= 2)
    for (size_t i = 0; i < s; ++i)
      v[i] = v[i] + v[i + s];
  return v[0];
}

TEST(Tree, ChunkCounts) {
  EXPECT_EQ(treeChunks(10, 0), 1);
  EXPECT_EQ(treeChunks(10, 10), 1);
  EXPECT_EQ(treeChunks(10, 11), 1);
  EXPECT_EQ(treeChunks(10, 3), 4);
  EXPECT_EQ(treeChunks(0, 3), 1);
}

TEST(Tree, WorkedExampleFromTheDoc) {
  // n = 7, block 2: chunks c0={x0,x1} c1={x2,x3} c2={x4,x5} c3={x6};
  // P = 4: ((c0 + c2) + (c1 + c3)).
  const float x[7] = {1e8f, 1.0f, 1.0f, -1e8f, 3.0f, 1.0f, 0.5f};
  float scratch[8];
  float c0 = (-0.0f + 1e8f) + 1.0f, c1 = (-0.0f + 1.0f) + -1e8f;
  float c2 = (-0.0f + 3.0f) + 1.0f, c3 = -0.0f + 0.5f;
  float expect = (c0 + c2) + (c1 + c3);
  EXPECT_EQ(bits(treeSum(x, 7, 1, 2, scratch)), bits(expect));
  // c0 = 1e8 (1e8 + 1 rounds back), c1 = -1e8, c2 = 4, c3 = 0.5;
  // 1e8 + 4 ties to even -> 1e8; -1e8 + 0.5 -> -1e8; total +0.0.
  EXPECT_EQ(bits(expect), 0u);
  // Sequential: ((((((1e8 + 1) + 1) - 1e8) + 3) + 1) + 0.5) = 4.5.
  EXPECT_EQ(treeSum(x, 7, 1, 0, scratch), 4.5f);
}

TEST(Tree, MatchesContractTranscription) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  std::vector<float> scratch(2000);
  for (int64_t n : {0, 1, 2, 3, 5, 8, 9, 31, 100, 257, 1000})
    for (int64_t block : {0, 1, 2, 3, 7, 64, 256, 5000}) {
      std::vector<float> x(n);
      for (auto &v : x)
        v = d(rng) * (rng() % 2 ? 1e-3f : 1e3f);
      EXPECT_EQ(bits(treeSum(x.data(), n, 1, block, scratch.data())),
                bits(contractSum(x, block)))
          << n << " " << block;
    }
}

TEST(Tree, DotUsesFmaPerChunk) {
  // One chunk: acc = fmaf(a1, b1, fmaf(a0, b0, -0.0)).
  const float a[2] = {1.0f, 1.0f + 0x1p-23f}, b[2] = {-1.0f, 1.0f - 0x1p-23f};
  float s[2];
  float dot = treeDot(a, 1, b, 1, 2, 0, s);
  // acc = -1, then fma adds a1*b1 = 1 - 2^-46 exactly -> -2^-46 (a product
  // rounded first would give 0).
  EXPECT_EQ(dot, -0x1p-46f);
  // Two chunks of 1: products rounded separately: (-1) + (1) = +0.0.
  EXPECT_EQ(bits(treeDot(a, 1, b, 1, 2, 1, s)), 0u);
  // Empty dot and empty sum are -0.0.
  EXPECT_EQ(bits(treeDot(a, 1, b, 1, 0, 4, s)), 0x80000000u);
  EXPECT_EQ(bits(treeSum(a, 0, 1, 0, s)), 0x80000000u);
}

} // namespace
