//===- test/determinism/cases.cpp - Golden cases and CPU runner -*- C++ -*-===//
//
// Part of Plumb. See cases.h. Everything here is integer-exact or goes
// through the runtime kernels, so the same bytes result on every platform
// that honours the determinism contract.
//
//===----------------------------------------------------------------------===//
#include "cases.h"

#include "plumb/runtime/cast.h"
#include "plumb/runtime/conv.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/gemm.h"
#include "plumb/runtime/math_kernels.h"
#include "plumb/runtime/indexing.h"
#include "plumb/runtime/movement.h"
#include "plumb/runtime/norm.h"
#include "plumb/runtime/pool.h"
#include "plumb/runtime/reduce.h"
#include "plumb/runtime/resize.h"
#include "plumb/runtime/rnn.h"
#include "plumb/runtime/signal.h"
#include "plumb/runtime/sha256.h"
#include "plumb/runtime/softmax.h"

#include <stdio.h>
#include <string.h>

namespace plumbdet {

//===----------------------------------------------------------------------===//
// Output serialisation.
//===----------------------------------------------------------------------===//

static void putLE(std::vector<uint8_t> &b, uint64_t v, int n) {
  for (int i = 0; i < n; ++i)
    b.push_back((uint8_t)(v >> (8 * i)));
}

void Output::addF32(const std::vector<float> &v) {
  for (float x : v)
    putLE(bytes, floatToBits(x), 4);
}
void Output::addI64(const std::vector<int64_t> &v) {
  for (int64_t x : v)
    putLE(bytes, (uint64_t)x, 8);
}
void Output::addI32(const std::vector<int32_t> &v) {
  for (int32_t x : v)
    putLE(bytes, (uint32_t)x, 4);
}
void Output::addU8(const std::vector<uint8_t> &v) {
  bytes.insert(bytes.end(), v.begin(), v.end());
}

std::string Output::sha256Hex() const {
  plumb_sha256_ctx ctx;
  plumb_sha256_init(&ctx);
  uint8_t st[4];
  for (int i = 0; i < 4; ++i)
    st[i] = (uint8_t)((uint32_t)status >> (8 * i));
  plumb_sha256_update(&ctx, st, 4);
  plumb_sha256_update(&ctx, bytes.data(), bytes.size());
  uint8_t d[32];
  plumb_sha256_final(&ctx, d);
  static const char *hx = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 32; ++i) {
    s += hx[d[i] >> 4];
    s += hx[d[i] & 15];
  }
  return s;
}

//===----------------------------------------------------------------------===//
// Generators.
//===----------------------------------------------------------------------===//

float bitsToFloat(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
uint32_t floatToBits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

std::vector<float> genUniform(uint64_t seed, size_t n, float scalePow2) {
  Rng r(seed);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    int32_t k = (int32_t)(r.next() >> 40) - (1 << 23);
    v[i] = ((float)k * 0x1p-23f) * scalePow2; // exact: |k| <= 2^23, pow2
  }
  return v;
}

static const uint32_t kSpecials[] = {
    0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, // +-0, +-inf
    0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x7FA5A5A5u, // NaNs (q, payload, s)
    0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu, // subnormals
    0x00800000u, 0x80800000u, 0x7F7FFFFFu, 0xFF7FFFFFu, // min normal, max
    0x3F800000u, 0xBF800000u, 0x3F000000u, 0x4B000000u, // 1, -1, .5, 2^23
};

std::vector<float> genEdge(uint64_t seed, size_t n, float scalePow2) {
  Rng r(seed);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t z = r.next();
    uint32_t sel = (uint32_t)(z & 31);
    if (sel == 0)
      v[i] = bitsToFloat(kSpecials[(z >> 8) % (sizeof(kSpecials) / 4)]);
    else if (sel == 1)
      v[i] = bitsToFloat((uint32_t)(z >> 32)); // any bit pattern
    else if (sel == 2) // small magnitudes down into the subnormals
      v[i] = bitsToFloat((uint32_t)(z >> 40) |
                         ((uint32_t)((z >> 8) & 1) << 31));
    else {
      int32_t k = (int32_t)(z >> 40) - (1 << 23);
      v[i] = ((float)k * 0x1p-23f) * scalePow2;
    }
  }
  return v;
}

int64_t numel(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::vector<int64_t> broadcastShape(const std::vector<int64_t> &a,
                                    const std::vector<int64_t> &b) {
  int64_t out[8];
  int r = plumb_rt_broadcast_shape(a.data(), (int32_t)a.size(), b.data(),
                                   (int32_t)b.size(), out);
  if (r < 0)
    return {};
  return std::vector<int64_t>(out, out + r);
}

bool isComparisonOp(int64_t op) { return op >= 16 && op < 32; }

//===----------------------------------------------------------------------===//
// The case list.
//===----------------------------------------------------------------------===//

static std::string dims(std::initializer_list<int64_t> d, const char *sep = "x") {
  std::string s;
  for (int64_t v : d) {
    if (!s.empty())
      s += sep;
    s += std::to_string(v);
  }
  return s;
}
static std::string dimsv(const std::vector<int64_t> &d) {
  std::string s;
  for (int64_t v : d) {
    if (!s.empty())
      s += "x";
    s += std::to_string(v);
  }
  return s.empty() ? "scalar" : s;
}
static std::string treeName(int64_t b) {
  return b == 0 ? "seq" : "b" + std::to_string(b);
}

static uint64_t gSeed = 0x504C554D42ull; // "PLUMB"
static uint64_t nextSeed() { return gSeed += 0x1000193; }

static void addGemm(std::vector<Case> &cs, int64_t M, int64_t N, int64_t K,
                    bool ta, bool tb, int cRank, float alpha, float beta,
                    int64_t block, bool edge) {
  Case c;
  c.kind = Kind::Gemm;
  c.family = "gemm";
  c.block = block;
  int64_t c0 = cRank == 2 ? M : (cRank == 1 ? N : 1);
  int64_t c1 = cRank == 2 ? N : 1;
  if (cRank == 2 && (M & 1)) // exercise [M,1] broadcast for odd M
    c1 = 1;
  c.p = {M, N, K, ta, tb, cRank, c0, c1};
  c.f = {alpha, beta};
  c.shape = dims({M, N, K}) + (ta ? " tA" : "") + (tb ? " tB" : "") +
            " C" + std::to_string(cRank) + (edge ? " edge" : "");
  c.name = "gemm/" + dims({M, N, K}) + (ta ? "/tA" : "") + (tb ? "/tB" : "") +
           "/c" + std::to_string(cRank) + (edge ? "/edge" : "") + "/" +
           treeName(block);
  auto gen = edge ? genEdge : genUniform;
  c.in.push_back(gen(nextSeed(), (size_t)(M * K), 1.0f));
  c.in.push_back(gen(nextSeed(), (size_t)(K * N), 1.0f));
  if (cRank > 0)
    c.in.push_back(gen(nextSeed(), (size_t)(cRank == 2 ? c0 * c1 : c0), 1.0f));
  cs.push_back(c);
}

static void addConv(std::vector<Case> &cs, Kind kind, int64_t N, int64_t Cin,
                    int64_t H, int64_t W, int64_t Cout, int64_t KH, int64_t KW,
                    int64_t group, int64_t sh, int64_t sw, int64_t dh,
                    int64_t dw, int64_t pt, int64_t pl, int64_t pb, int64_t pr,
                    int64_t outPad, bool bias, int64_t block, bool edge) {
  Case c;
  c.kind = kind;
  c.family = (kind == Kind::Conv2d || kind == Kind::Conv1d) ? "conv" : "convT";
  c.block = block;
  bool transposed = kind == Kind::ConvT2d || kind == Kind::ConvT1d;
  int64_t OH, OW;
  if (!transposed) {
    OH = plumb_rt_conv_out_dim(H, KH, sh, dh, pt, pb);
    OW = plumb_rt_conv_out_dim(W, KW, sw, dw, pl, pr);
  } else {
    OH = sh * (H - 1) + outPad + (KH - 1) * dh + 1 - pt - pb;
    OW = sw * (W - 1) + outPad + (KW - 1) * dw + 1 - pl - pr;
    if (kind == Kind::ConvT1d)
      OH = 1; // 1-D: output_padding applies to the length only
  }
  c.p = {N, Cin, H, W, Cout, KH, KW, OH, OW, group, sh, sw, dh, dw, pt, pl,
         pb, pr, bias};
  const char *kn = kind == Kind::Conv2d   ? "conv2d"
                   : kind == Kind::Conv1d ? "conv1d"
                   : kind == Kind::ConvT2d ? "convT2d"
                                           : "convT1d";
  c.shape = "x" + dims({N, Cin, H, W}) + " w" + dims({Cout, KH, KW}) + " g" +
            std::to_string(group) + " s" + dims({sh, sw}) + " d" +
            dims({dh, dw}) + " p" + dims({pt, pl, pb, pr}) +
            (edge ? " edge" : "");
  c.name = std::string(kn) + "/" + dims({N, Cin, H, W}) + "/" +
           dims({Cout, KH, KW}) + "/g" + std::to_string(group) + "/s" +
           dims({sh, sw}) + "/d" + dims({dh, dw}) + "/p" +
           dims({pt, pl, pb, pr}) + (bias ? "/bias" : "") +
           (edge ? "/edge" : "") + "/" + treeName(block);
  auto gen = edge ? genEdge : genUniform;
  int64_t wsz = transposed ? Cin * (Cout / group) * KH * KW
                           : Cout * (Cin / group) * KH * KW;
  c.in.push_back(gen(nextSeed(), (size_t)(N * Cin * H * W), 1.0f));
  c.in.push_back(gen(nextSeed(), (size_t)wsz, 0.5f));
  if (bias)
    c.in.push_back(genUniform(nextSeed(), (size_t)Cout, 1.0f));
  cs.push_back(c);
}

static std::vector<float> mathSweep(int fn, uint64_t seed) {
  // A sweep over the whole binary32 range (every exponent, both signs, the
  // specials) plus a dense uniform part over the function's interesting
  // range.
  std::vector<float> v;
  Rng r(seed);
  for (uint64_t i = 0; i < (1u << 15); ++i)
    v.push_back(bitsToFloat((uint32_t)(i << 17) | (uint32_t)(r.next() >> 47)));
  for (uint32_t s : kSpecials)
    v.push_back(bitsToFloat(s));
  float scale = 16.0f;
  if (fn == MathExp)
    scale = 128.0f;
  else if (fn == MathSigmoid || fn == MathGelu || fn == MathGeluTanh)
    scale = 32.0f;
  else if (fn == MathErf || fn == MathTanh)
    scale = 8.0f;
  std::vector<float> u = genUniform(r.next(), 1u << 14, scale);
  v.insert(v.end(), u.begin(), u.end());
  // Tiny arguments where x/2-style results sit on binary32 midpoints.
  for (int e = -149; e < -100; ++e)
    v.push_back(bitsToFloat((uint32_t)(e + 150) << 23 ^ 0x00012345u));
  return v;
}

std::vector<Case> buildCases() {
  gSeed = 0x504C554D42ull;
  std::vector<Case> cs;

  // GEMM: the same product under several trees; transposes, epilogues, C
  // broadcasts, edge values; a size large enough for thread splits.
  for (int64_t b : {0, 1, 7, 64, 256})
    addGemm(cs, 37, 53, 300, false, false, 2, 1.0f, 1.0f, b, false);
  addGemm(cs, 64, 48, 130, true, false, 1, 0.75f, -1.5f, 16, false);
  addGemm(cs, 33, 65, 77, false, true, 0, 2.0f, 1.0f, 0, false);
  addGemm(cs, 20, 31, 40, true, true, 2, 1.0f, 0.5f, 8, false);
  addGemm(cs, 17, 19, 50, false, false, 2, 1.0f, 1.0f, 4, true);
  addGemm(cs, 128, 96, 513, false, false, 1, 1.0f, 1.0f, 256, false);
  addGemm(cs, 1, 300, 64, false, false, 0, 1.0f, 1.0f, 0, false);
  {
    Case c;
    c.kind = Kind::MatMul;
    c.family = "matmul";
    c.block = 32;
    c.p = {3, 24, 40, 100, 0, 1}; // B broadcast over the batch
    c.shape = "3x24x100 @ 100x40 (B bcast)";
    c.name = "matmul/3x24x40x100/bbcast/b32";
    c.in.push_back(genUniform(nextSeed(), 3 * 24 * 100));
    c.in.push_back(genUniform(nextSeed(), 100 * 40));
    cs.push_back(c);
  }

  // Conv / ConvTranspose.
  for (int64_t b : {0, 16, 256})
    addConv(cs, Kind::Conv2d, 2, 8, 13, 11, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
            1, 0, true, b, false);
  addConv(cs, Kind::Conv2d, 1, 6, 15, 15, 9, 3, 5, 3, 2, 2, 1, 1, 2, 1, 0, 2,
          0, true, 7, false);
  addConv(cs, Kind::Conv2d, 1, 8, 10, 10, 8, 3, 3, 8, 1, 1, 2, 2, 2, 2, 2, 2,
          0, false, 0, false); // depthwise, dilated
  addConv(cs, Kind::Conv2d, 2, 16, 7, 9, 24, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0,
          0, true, 8, false); // 1x1
  addConv(cs, Kind::Conv2d, 1, 4, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
          true, 5, true); // edge values through padding
  addConv(cs, Kind::Conv1d, 2, 6, 1, 40, 10, 1, 5, 2, 1, 2, 1, 3, 0, 2, 0, 1,
          0, true, 4, false);
  addConv(cs, Kind::ConvT2d, 1, 6, 7, 5, 8, 3, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1,
          1, true, 0, false);
  addConv(cs, Kind::ConvT2d, 2, 4, 5, 6, 6, 4, 3, 1, 3, 2, 1, 2, 0, 1, 0, 1,
          0, true, 9, false);
  addConv(cs, Kind::ConvT1d, 1, 5, 1, 17, 3, 1, 4, 1, 1, 2, 1, 1, 0, 1, 0, 1,
          1, false, 3, false);

  // Elementwise math over sweeps (the array kernels, incl. SIMD paths).
  static const char *kMathNames[] = {"exp",  "log",        "tanh",
                                     "sigmoid", "erf",     "sqrt",
                                     "reciprocal", "gelu", "gelu_tanh",
                                     "pow", "pow_scalar"};
  for (int fn = 0; fn < MathCount; ++fn) {
    Case c;
    c.kind = Kind::Math;
    c.family = "math";
    c.p = {fn};
    c.in.push_back(mathSweep(fn, nextSeed()));
    if (fn == MathPow) {
      // Exponents: small integers, halves, random values, specials.
      std::vector<float> e = genEdge(nextSeed(), c.in[0].size(), 4.0f);
      for (size_t i = 0; i < e.size(); i += 3)
        e[i] = (float)((int)(i % 17) - 8);
      for (size_t i = 1; i < e.size(); i += 7)
        e[i] = 0.5f * (float)((int)(i % 9) - 4);
      c.in.push_back(e);
    }
    if (fn == MathPowScalar)
      c.f = {2.5f};
    c.shape = std::to_string(c.in[0].size());
    c.name = std::string("math/") + kMathNames[fn];
    cs.push_back(c);
  }

  // Elementwise unary ops (op codes of elementwise.h) on edge inputs.
  static const char *kUnaryNames[] = {
      "neg", "abs", "reciprocal", "sqrt", "exp", "log", "tanh", "sigmoid",
      "hard_sigmoid", "relu", "leaky_relu", "clip", "erf", "gelu",
      "gelu_tanh", "identity"};
  for (int op = 0; op <= 15; ++op) {
    Case c;
    c.kind = Kind::Unary;
    c.family = "unary";
    c.p = {op};
    c.f = {op == 11 ? -0.75f : 0.2f, op == 11 ? 1.5f : 0.5f};
    c.in.push_back(genEdge(nextSeed(), 4099, 8.0f));
    c.shape = "4099";
    c.name = std::string("unary/") + kUnaryNames[op];
    cs.push_back(c);
  }

  // Binary ops with numpy broadcasting.
  struct BinOp {
    int op;
    const char *n;
  };
  static const BinOp kBin[] = {{0, "add"},  {1, "sub"},    {2, "mul"},
                               {3, "div"},  {4, "pow"},    {5, "max"},
                               {6, "min"},  {16, "equal"}, {17, "less"},
                               {18, "greater"}, {19, "greater_equal"},
                               {20, "less_equal"}};
  for (const BinOp &bo : kBin) {
    Case c;
    c.kind = Kind::Binary;
    c.family = "binary";
    c.p = {bo.op};
    c.ia = {4, 1, 33};
    c.ib = {5, 33};
    c.in.push_back(genEdge(nextSeed(), 4 * 33, 4.0f));
    c.in.push_back(genEdge(nextSeed(), 5 * 33, 4.0f));
    c.shape = "4x1x33 . 5x33";
    c.name = std::string("binary/") + bo.n;
    cs.push_back(c);
  }
  {
    Case c; // scalar broadcast, column vector
    c.kind = Kind::Binary;
    c.family = "binary";
    c.p = {0};
    c.ia = {6, 1};
    c.ib = {2, 1, 9};
    c.in.push_back(genUniform(nextSeed(), 6));
    c.in.push_back(genUniform(nextSeed(), 18));
    c.shape = "6x1 . 2x1x9";
    c.name = "binary/add/col";
    cs.push_back(c);
  }

  // Reductions.
  static const char *kRedNames[] = {"sum", "mean", "max", "min", "prod",
                                    "sum_square", "l1", "l2", "log_sum",
                                    "log_sum_exp"};
  for (int op = 0; op <= 9; ++op) {
    struct Ax {
      std::vector<int64_t> shape, axes;
      int64_t block;
    };
    std::vector<Ax> axs = {{{6, 50, 7}, {1}, 8},
                           {{6, 50, 7}, {0, 2}, 0},
                           {{9, 300}, {1}, 64},
                           {{4, 5, 6}, {2, 0}, 3}};
    for (const Ax &a : axs) {
      Case c;
      c.kind = Kind::Reduce;
      c.family = "reduce";
      c.block = a.block;
      c.p = {op};
      c.ia = a.shape;
      c.ib = a.axes;
      bool pos = op == 8 || op == 4; // log_sum / prod: tame inputs
      c.in.push_back(pos ? genUniform(nextSeed(), (size_t)numel(a.shape), 2.0f)
                         : genUniform(nextSeed(), (size_t)numel(a.shape), 4.0f));
      if (pos)
        for (float &v : c.in[0])
          v = v < 0 ? -v + 0.5f : v + 0.5f;
      c.shape = dimsv(a.shape) + " axes " + dimsv(a.axes);
      c.name = std::string("reduce/") + kRedNames[op] + "/" + dimsv(a.shape) +
               "/a" + dimsv(a.axes) + "/" + treeName(a.block);
      cs.push_back(c);
    }
  }
  {
    Case c;
    c.kind = Kind::Reduce;
    c.family = "reduce";
    c.block = 5;
    c.p = {0};
    c.ia = {7, 40};
    c.ib = {1};
    c.in.push_back(genEdge(nextSeed(), 280, 1.0f));
    c.shape = "7x40 axes 1 edge";
    c.name = "reduce/sum/7x40/a1/edge/b5";
    cs.push_back(c);
  }
  for (int isMin = 0; isMin < 2; ++isMin) {
    Case c;
    c.kind = Kind::ArgMax;
    c.family = "argmax";
    c.p = {1, isMin, isMin};
    c.ia = {5, 37, 3};
    c.in.push_back(genEdge(nextSeed(), 5 * 37 * 3, 1.0f));
    c.shape = "5x37x3 axis 1";
    c.name = std::string(isMin ? "argmin" : "argmax") + "/5x37x3/a1";
    cs.push_back(c);
  }

  // Softmax / LogSoftmax.
  for (int lg = 0; lg < 2; ++lg) {
    struct Sm {
      int64_t outer, len, inner, block;
    };
    for (Sm s : {Sm{16, 100, 1, 0}, Sm{4, 77, 9, 8}, Sm{3, 1000, 2, 256}}) {
      Case c;
      c.kind = Kind::Softmax;
      c.family = lg ? "logsoftmax" : "softmax";
      c.block = s.block;
      c.p = {s.outer, s.len, s.inner, lg};
      c.in.push_back(genUniform(nextSeed(), (size_t)(s.outer * s.len * s.inner),
                                16.0f));
      c.shape = dims({s.outer, s.len, s.inner});
      c.name = c.family + "/" + c.shape + "/" + treeName(s.block);
      cs.push_back(c);
    }
  }

  // Pooling.
  auto addPool = [&](Kind k, int64_t n, int64_t ch, int32_t sd,
                     std::vector<int64_t> in, std::vector<int64_t> ker,
                     std::vector<int64_t> st, std::vector<int64_t> pads,
                     std::vector<int64_t> dil, int64_t flag, bool edge) {
    Case c;
    c.kind = k;
    c.family = k == Kind::MaxPool ? "maxpool" : "avgpool";
    int64_t out[3] = {1, 1, 1};
    std::vector<int64_t> padsCopy = pads;
    plumb_rt_pool_output_shape(sd, in.data(), ker.data(), st.data(),
                               padsCopy.data(), dil.data(), 0, 0, out);
    c.p = {n, ch, sd};
    for (int d = 0; d < 3; ++d)
      c.p.push_back(d < sd ? in[d] : 1);
    for (int d = 0; d < 3; ++d)
      c.p.push_back(d < sd ? out[d] : 1);
    for (int d = 0; d < 3; ++d)
      c.p.push_back(d < sd ? ker[d] : 1);
    for (int d = 0; d < 3; ++d)
      c.p.push_back(d < sd ? st[d] : 1);
    for (int d = 0; d < 3; ++d)
      c.p.push_back(d < sd ? pads[d] : 0);
    for (int d = 0; d < 3; ++d)
      c.p.push_back(d < sd ? pads[sd + d] : 0);
    for (int d = 0; d < 3; ++d)
      c.p.push_back(d < sd ? dil[d] : 1);
    c.p.push_back(flag);
    int64_t total = n * ch;
    for (int d = 0; d < sd; ++d)
      total *= in[d];
    c.in.push_back(edge ? genEdge(nextSeed(), (size_t)total, 2.0f)
                        : genUniform(nextSeed(), (size_t)total, 2.0f));
    c.shape = dims({n, ch}) + " in " + dimsv(in) + " k " + dimsv(ker) +
              " s " + dimsv(st) + " p " + dimsv(pads);
    c.name = c.family + "/" + std::to_string(sd) + "d/" + dimsv(in) + "/k" +
             dimsv(ker) + "/s" + dimsv(st) + "/p" + dimsv(pads) + "/d" +
             dimsv(dil) + (flag ? "/flag" : "") + (edge ? "/edge" : "");
    cs.push_back(c);
  };
  addPool(Kind::MaxPool, 2, 3, 2, {11, 12}, {3, 3}, {2, 2}, {1, 1, 1, 1},
          {1, 1}, 1, true);
  addPool(Kind::MaxPool, 1, 4, 1, {30}, {4}, {3}, {2, 1}, {2}, 0, false);
  addPool(Kind::MaxPool, 1, 2, 3, {5, 6, 7}, {2, 3, 2}, {1, 2, 2},
          {0, 1, 1, 1, 1, 0}, {1, 1, 1}, 1, false);
  addPool(Kind::AvgPool, 2, 3, 2, {11, 12}, {3, 3}, {2, 2}, {1, 1, 1, 1},
          {1, 1}, 0, false);
  addPool(Kind::AvgPool, 2, 3, 2, {11, 12}, {3, 2}, {2, 1}, {1, 0, 1, 1},
          {1, 1}, 1, false);
  addPool(Kind::AvgPool, 1, 2, 3, {5, 6, 7}, {2, 3, 2}, {1, 2, 2},
          {0, 1, 1, 1, 1, 0}, {1, 1, 1}, 1, true);
  for (int isMax = 0; isMax < 2; ++isMax) {
    Case c;
    c.kind = Kind::GlobalPool;
    c.family = "globalpool";
    c.block = isMax ? -1 : 16;
    c.p = {12, 49, isMax};
    c.in.push_back(genEdge(nextSeed(), 12 * 49, 1.0f));
    c.shape = "12x49";
    c.name = std::string("globalpool/") + (isMax ? "max" : "avg") +
             "/12x49" + (isMax ? "" : "/b16");
    cs.push_back(c);
  }

  // Normalisation.
  {
    Case c;
    c.kind = Kind::BatchNorm;
    c.family = "batchnorm";
    c.p = {2, 5, 33};
    c.f = {1e-5f};
    c.in.push_back(genUniform(nextSeed(), 2 * 5 * 33, 4.0f));
    c.in.push_back(genUniform(nextSeed(), 5));
    c.in.push_back(genUniform(nextSeed(), 5));
    c.in.push_back(genUniform(nextSeed(), 5));
    std::vector<float> var = genUniform(nextSeed(), 5);
    for (float &v : var)
      v = v < 0 ? -v : v;
    c.in.push_back(var);
    c.shape = "2x5x33";
    c.name = "batchnorm/2x5x33";
    cs.push_back(c);
  }
  for (int64_t b : {0, 4, 64}) {
    Case c;
    c.kind = Kind::LayerNorm;
    c.family = "layernorm";
    c.block = b;
    c.p = {10, 300, b != 4};
    c.f = {1e-5f};
    c.in.push_back(genUniform(nextSeed(), 3000, 8.0f));
    c.in.push_back(genUniform(nextSeed(), 300));
    c.in.push_back(genUniform(nextSeed(), 300));
    c.shape = "10x300";
    c.name = "layernorm/10x300/" + std::string(b != 4 ? "bias/" : "") +
             treeName(b);
    cs.push_back(c);
  }
  {
    Case c;
    c.kind = Kind::InstanceNorm;
    c.family = "instancenorm";
    c.block = 8;
    c.p = {2, 3, 70};
    c.f = {1e-5f};
    c.in.push_back(genUniform(nextSeed(), 2 * 3 * 70, 2.0f));
    c.in.push_back(genUniform(nextSeed(), 3));
    c.in.push_back(genUniform(nextSeed(), 3));
    c.shape = "2x3x70";
    c.name = "instancenorm/2x3x70/b8";
    cs.push_back(c);
  }

  // Resize.
  struct Rs {
    int64_t mode, coord, nearest;
    std::vector<int64_t> in, out;
    const char *n;
  };
  for (const Rs &r :
       {Rs{1, 0, 0, {1, 2, 7, 9}, {1, 2, 15, 13}, "linear/half_pixel"},
        Rs{1, 3, 0, {1, 2, 7, 9}, {1, 2, 4, 20}, "linear/align_corners"},
        Rs{0, 2, 2, {1, 3, 5, 5}, {1, 3, 12, 7}, "nearest/asymmetric/floor"},
        Rs{0, 0, 0, {2, 1, 6, 4}, {2, 1, 9, 9},
           "nearest/half_pixel/prefer_floor"}}) {
    Case c;
    c.kind = Kind::Resize;
    c.family = "resize";
    c.p = {r.mode, r.coord, r.nearest};
    c.ia = r.in;
    c.ib = r.out;
    c.in.push_back(genUniform(nextSeed(), (size_t)numel(r.in), 4.0f));
    c.shape = dimsv(r.in) + " -> " + dimsv(r.out);
    c.name = std::string("resize/") + r.n;
    cs.push_back(c);
  }

  // LSTM / GRU (bidirectional, with biases).
  for (int gru = 0; gru < 2; ++gru) {
    Case c;
    c.kind = gru ? Kind::Gru : Kind::Lstm;
    c.family = gru ? "gru" : "lstm";
    c.block = 8;
    const int64_t seq = 5, batch = 3, input = 20, hidden = 16, dirs = 2;
    const int64_t gates = gru ? 3 : 4;
    c.p = {seq, batch, input, hidden, 2, gru ? 1 : 0};
    c.in.push_back(genUniform(nextSeed(), (size_t)(seq * batch * input)));
    c.in.push_back(genUniform(nextSeed(), (size_t)(dirs * gates * hidden * input), 0.25f));
    c.in.push_back(genUniform(nextSeed(), (size_t)(dirs * gates * hidden * hidden), 0.25f));
    c.in.push_back(genUniform(nextSeed(), (size_t)(dirs * 2 * gates * hidden), 0.25f));
    c.shape = dims({seq, batch, input, hidden}) + " bidir";
    c.name = c.family + "/" + dims({seq, batch, input, hidden}) + "/bidir/b8";
    cs.push_back(c);
  }

  // Cast from float32.
  for (int64_t to : {2, 3, 4}) {
    Case c;
    c.kind = Kind::Cast;
    c.family = "cast";
    c.p = {to};
    std::vector<float> v = genEdge(nextSeed(), 2048, 1.0f);
    Rng r(nextSeed());
    for (size_t i = 0; i < v.size(); i += 4) // large magnitudes, saturation
      v[i] = bitsToFloat((uint32_t)(0x4E000000u + (r.next() & 0x03FFFFFFu)) |
                         (uint32_t)(i & 8) << 28);
    c.in.push_back(v);
    c.shape = "2048";
    c.name = std::string("cast/f32_to_") +
             (to == 2 ? "i64" : to == 3 ? "i32" : "bool");
    cs.push_back(c);
  }

  // N-d ConvTranspose (3 spatial dims; appended last so that no earlier
  // case's seeds move).
  struct NdT {
    int64_t N, Cin, Cout, group, bias, block;
    std::vector<int64_t> in, k, s, d, pb, pe;
    int64_t opad;
  };
  const NdT nds[] = {
      {2, 4, 6, 2, 1, 5, {3, 4, 5}, {3, 2, 3}, {2, 1, 2}, {1, 2, 1},
       {1, 0, 1}, {0, 1, 1}, 1},
      {1, 3, 2, 1, 0, 0, {4, 3, 3}, {2, 2, 2}, {1, 2, 1}, {1, 1, 2},
       {0, 1, 0}, {1, 0, 0}, 0},
  };
  for (const NdT &t : nds) {
    Case c;
    c.kind = Kind::ConvTNd;
    c.family = "convT";
    c.block = t.block;
    c.p = {t.N, t.Cin, t.Cout, t.group, t.bias};
    std::vector<int64_t> out;
    for (size_t j = 0; j < t.in.size(); ++j)
      out.push_back(t.s[j] * (t.in[j] - 1) + t.opad + (t.k[j] - 1) * t.d[j] +
                    1 - t.pb[j] - t.pe[j]);
    for (const std::vector<int64_t> &v : {t.in, t.k, out, t.s, t.d, t.pb,
                                          t.pe})
      c.ia.insert(c.ia.end(), v.begin(), v.end());
    c.in.push_back(genUniform(nextSeed(),
                              (size_t)(t.N * t.Cin * numel(t.in)), 1.0f));
    c.in.push_back(genUniform(nextSeed(),
                              (size_t)(t.Cin * (t.Cout / t.group) * numel(t.k)),
                              1.0f));
    if (t.bias)
      c.in.push_back(genUniform(nextSeed(), (size_t)t.Cout, 1.0f));
    c.shape = "x" + dims({t.N, t.Cin}) + "x" + dimsv(t.in) + " k" +
              dimsv(t.k) + " g" + std::to_string(t.group) + " s" +
              dimsv(t.s) + " d" + dimsv(t.d) + " p" + dimsv(t.pb) + "/" +
              dimsv(t.pe);
    c.name = "convT3d/" + dims({t.N, t.Cin}) + "x" + dimsv(t.in) + "/" +
             dims({t.Cout}) + "x" + dimsv(t.k) + "/b" +
             std::to_string(t.block);
    cs.push_back(c);
  }

  // N-d Conv (3 spatial dims; appended after everything else so that no
  // earlier case's seeds move): groups, strides, dilations, asymmetric pads
  // (one wider than the kernel: all-padding outputs), bias, trees.
  struct NdC {
    int64_t N, Cin, Cout, group, bias, block;
    std::vector<int64_t> in, k, s, d, pb, pe;
  };
  const NdC ncs[] = {
      {2, 4, 6, 2, 1, 5, {5, 6, 7}, {3, 2, 3}, {2, 1, 2}, {1, 2, 1},
       {1, 0, 1}, {0, 1, 2}},
      {1, 3, 2, 1, 0, 0, {4, 5, 3}, {2, 2, 2}, {1, 2, 1}, {1, 1, 2},
       {0, 1, 2}, {1, 0, 3}},
      {1, 4, 4, 4, 1, 7, {3, 4, 5}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1},
       {1, 1, 1}, {1, 1, 1}}, // depthwise
  };
  for (const NdC &t : ncs) {
    Case c;
    c.kind = Kind::ConvNd;
    c.family = "conv";
    c.block = t.block;
    c.p = {t.N, t.Cin, t.Cout, t.group, t.bias};
    std::vector<int64_t> out;
    for (size_t j = 0; j < t.in.size(); ++j)
      out.push_back(plumb_rt_conv_out_dim(t.in[j], t.k[j], t.s[j], t.d[j],
                                          t.pb[j], t.pe[j]));
    for (const std::vector<int64_t> &v : {t.in, t.k, out, t.s, t.d, t.pb,
                                          t.pe})
      c.ia.insert(c.ia.end(), v.begin(), v.end());
    c.in.push_back(genUniform(nextSeed(),
                              (size_t)(t.N * t.Cin * numel(t.in)), 1.0f));
    c.in.push_back(genUniform(nextSeed(),
                              (size_t)(t.Cout * (t.Cin / t.group) * numel(t.k)),
                              1.0f));
    if (t.bias)
      c.in.push_back(genUniform(nextSeed(), (size_t)t.Cout, 1.0f));
    c.shape = "x" + dims({t.N, t.Cin}) + "x" + dimsv(t.in) + " k" +
              dimsv(t.k) + " g" + std::to_string(t.group) + " s" +
              dimsv(t.s) + " d" + dimsv(t.d) + " p" + dimsv(t.pb) + "/" +
              dimsv(t.pe);
    c.name = "conv3d/" + dims({t.N, t.Cin}) + "x" + dimsv(t.in) + "/" +
             dims({t.Cout}) + "x" + dimsv(t.k) + "/g" +
             std::to_string(t.group) + "/b" + std::to_string(t.block);
    cs.push_back(c);
  }

  // Group-1 convs with up to 16 output channels (the direct AVX-512 path;
  // the hashes were made by the GEMM path, scalar and AVX2): mnist's two
  // convs, an ultraface-like stride 2, a stride of 3 (gathered lanes) with
  // dilation and edge values, a 1-D conv, rows of 16 + 1 lanes.
  addConv(cs, Kind::Conv2d, 1, 1, 28, 28, 8, 5, 5, 1, 1, 1, 1, 1, 2, 2, 2, 2,
          0, true, 256, false);
  addConv(cs, Kind::Conv2d, 1, 8, 14, 14, 16, 5, 5, 1, 1, 1, 1, 1, 2, 2, 2, 2,
          0, true, 64, false);
  addConv(cs, Kind::Conv2d, 2, 3, 33, 37, 16, 3, 3, 1, 2, 2, 1, 1, 1, 1, 1, 1,
          0, true, 0, false);
  addConv(cs, Kind::Conv2d, 1, 5, 9, 40, 7, 3, 5, 1, 1, 3, 2, 1, 2, 0, 1, 3,
          0, false, 16, true);
  addConv(cs, Kind::Conv1d, 1, 4, 1, 50, 16, 1, 7, 1, 1, 1, 1, 1, 0, 3, 0, 3,
          0, true, 8, false);
  addConv(cs, Kind::Conv2d, 1, 2, 4, 17, 3, 2, 2, 1, 1, 1, 1, 1, 0, 0, 0, 0,
          0, true, 3, false);

  // The unary ops added after the first table (codes 16 on; new cases go
  // last so every earlier case keeps its inputs and hash).
  struct LaterUnary {
    int op;
    const char *n;
    float alpha, beta;
  };
  static const LaterUnary kLater[] = {
      {16, "floor", 0, 0},      {17, "ceil", 0, 0},
      {18, "round", 0, 0},      {19, "sign", 0, 0},
      {20, "softplus", 0, 0},   {21, "softsign", 0, 0},
      {22, "elu", 0.75f, 0},    {23, "selu", 1.6732632f, 1.0507010f},
      {24, "hard_swish", 0, 0},
  };
  for (const LaterUnary &u : kLater) {
    Case c;
    c.kind = Kind::Unary;
    c.family = "unary";
    c.p = {u.op};
    c.f = {u.alpha, u.beta};
    c.in.push_back(genEdge(nextSeed(), 4099, 8.0f));
    c.shape = "4099";
    c.name = std::string("unary/") + u.n;
    cs.push_back(c);
  }

  // GatherND: tuples of every length, batch dims, negative indices.
  struct GndC {
    int64_t b;
    std::vector<int64_t> data, idx;
  };
  static const GndC kGnd[] = {
      {0, {5, 7, 3}, {4, 1}},    {0, {5, 7, 3}, {2, 3, 2}},
      {0, {5, 7, 3}, {6, 3}},    {1, {4, 6, 5}, {4, 2, 1}},
      {1, {3, 5, 4, 2}, {3, 2}}, {2, {2, 3, 9, 4}, {2, 3, 5, 1}},
  };
  for (const GndC &g : kGnd) {
    Case c;
    c.kind = Kind::GatherNd;
    c.family = "movement";
    c.p = {g.b};
    c.ia = g.data;
    c.ib = g.idx;
    c.in.push_back(genEdge(nextSeed(), (size_t)numel(g.data), 4.0f));
    const int64_t k = g.idx.back();
    std::vector<float> idx((size_t)numel(g.idx));
    Rng r(nextSeed());
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t dim = g.data[(size_t)(g.b + (int64_t)i % k)];
      idx[i] = (float)((int64_t)(r.next() % (uint64_t)(2 * dim)) - dim);
    }
    c.in.push_back(idx);
    c.shape = "data " + dimsv(g.data) + " indices " + dimsv(g.idx);
    c.name = "gather_nd/" + dimsv(g.data) + "/" + dimsv(g.idx) + "/b" +
             std::to_string(g.b);
    cs.push_back(c);
  }
  // Binary float ops added after the first table (issue 16): PRelu with a
  // per-channel slope.
  {
    Case c;
    c.kind = Kind::Binary;
    c.family = "binary";
    c.p = {8};
    c.ia = {2, 5, 67};
    c.ib = {5, 1};
    c.in.push_back(genEdge(nextSeed(), 2 * 5 * 67, 8.0f));
    c.in.push_back(genEdge(nextSeed(), 5, 2.0f));
    c.shape = "2x5x67 . 5x1";
    c.name = "binary/prelu";
    cs.push_back(c);
  }
  {
    Case c; // Mod with fmod = 1 (C fmod) on float32: mixed magnitudes
    c.kind = Kind::Binary;
    c.family = "binary";
    c.p = {11};
    c.ia = {3, 1, 41};
    c.ib = {7, 41};
    c.in.push_back(genEdge(nextSeed(), 3 * 41, 64.0f));
    c.in.push_back(genEdge(nextSeed(), 7 * 41, 2.0f));
    c.shape = "3x1x41 . 7x41";
    c.name = "binary/fmod";
    cs.push_back(c);
  }
  // Unary ops of issue 16 (codes 25 on).
  static const LaterUnary kMath[] = {
      {25, "celu", 1.5f, 0},       {26, "thresholded_relu", 0.75f, 0},
      {27, "shrink", 0.25f, 1.0f}, {28, "mish", 0, 0},
      {29, "swish", 0.5f, 0},
  };
  for (const LaterUnary &u : kMath) {
    Case c;
    c.kind = Kind::Unary;
    c.family = "unary";
    c.p = {u.op};
    c.f = {u.alpha, u.beta};
    c.in.push_back(genEdge(nextSeed(), 4099, 8.0f));
    c.shape = "4099";
    c.name = std::string("unary/") + u.n;
    cs.push_back(c);
  }

  // ScatterND: every reduction, repeated tuples (so the index order of the
  // combinations shows in the bits), negative indices, edge-value updates.
  struct SndC {
    int64_t red;
    const char *n;
    std::vector<int64_t> data, idx;
  };
  static const SndC kSnd[] = {
      {PLUMB_RT_SCATTER_NONE, "none", {6, 5, 4}, {9, 1}},
      {PLUMB_RT_SCATTER_ADD, "add", {6, 5, 4}, {9, 1}},
      {PLUMB_RT_SCATTER_ADD, "add", {5, 7}, {4, 6, 2}},
      {PLUMB_RT_SCATTER_MUL, "mul", {6, 5, 4}, {7, 2}},
      {PLUMB_RT_SCATTER_MAX, "max", {4, 3, 5}, {30, 3}},
      {PLUMB_RT_SCATTER_MIN, "min", {4, 3, 5}, {30, 3}},
  };
  for (const SndC &g : kSnd) {
    Case c;
    c.kind = Kind::ScatterNd;
    c.family = "indexing";
    c.p = {g.red};
    c.ia = g.data;
    c.ib = g.idx;
    c.in.push_back(genEdge(nextSeed(), (size_t)numel(g.data), 4.0f));
    const int64_t k = g.idx.back();
    std::vector<float> idx((size_t)numel(g.idx));
    Rng r(nextSeed());
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t dim = g.data[(size_t)((int64_t)i % k)];
      idx[i] = (float)((int64_t)(r.next() % (uint64_t)(2 * dim)) - dim);
    }
    c.in.push_back(idx);
    c.in.push_back(genEdge(nextSeed(), (size_t)scatterNdUpdates(c), 4.0f));
    c.shape = "data " + dimsv(g.data) + " indices " + dimsv(g.idx);
    c.name = std::string("scatter_nd/") + g.n + "/" + dimsv(g.data) + "/" +
             dimsv(g.idx);
    cs.push_back(c);
  }
  // The circular and hyperbolic functions (codes 30 on): edge values at two
  // scales, so sin/cos/tan see large arguments and the inverse functions
  // their domain edges.
  static const LaterUnary kTrig[] = {
      {30, "sin", 0, 0},   {31, "cos", 0, 0},   {32, "tan", 0, 0},
      {33, "asin", 0, 0},  {34, "acos", 0, 0},  {35, "atan", 0, 0},
      {36, "sinh", 0, 0},  {37, "cosh", 0, 0},  {38, "asinh", 0, 0},
      {39, "acosh", 0, 0}, {40, "atanh", 0, 0},
  };
  for (const LaterUnary &u : kTrig) {
    Case c;
    c.kind = Kind::Unary;
    c.family = "unary";
    c.p = {u.op};
    c.f = {u.alpha, u.beta};
    std::vector<float> v = genEdge(nextSeed(), 2048, 1.0f);
    std::vector<float> w = genEdge(nextSeed(), 2051, 64.0f);
    v.insert(v.end(), w.begin(), w.end());
    c.in.push_back(v);
    c.shape = "4099";
    c.name = std::string("unary/") + u.n;
    cs.push_back(c);
  }
  // TopK: edge values (NaNs, signed zeros, repeats) along an inner and the
  // last axis, largest and smallest.
  struct TopKC {
    std::vector<int64_t> shape;
    int64_t axis, k, largest;
  };
  static const TopKC kTopK[] = {
      {{3, 257, 5}, 1, 17, 1}, {{3, 257, 5}, 1, 17, 0}, {{40, 100}, 1, 100, 1},
      {{40, 100}, 1, 1, 0}};
  for (const TopKC &t : kTopK) {
    Case c;
    c.kind = Kind::TopK;
    c.family = "reduce";
    c.p = {t.axis, t.k, t.largest};
    c.ia = t.shape;
    std::vector<float> v = genEdge(nextSeed(), (size_t)numel(t.shape), 4.0f);
    for (size_t i = 0; i < v.size(); i += 7) // repeated values: ties
      v[i] = v[i / 2];
    c.in.push_back(v);
    c.shape = dimsv(t.shape);
    c.name = std::string("topk/") + (t.largest ? "largest/" : "smallest/") +
             dimsv(t.shape) + "/axis" + std::to_string(t.axis) + "/k" +
             std::to_string(t.k);
    cs.push_back(c);
  }

  // Cubic Resize (A = -0.75; mode 2 here, `nearest` holds exclude_outside).
  // Appended last: each case draws its inputs from the shared seed sequence.
  struct Rc {
    int64_t coord, exclude;
    std::vector<int64_t> in, out;
    const char *n;
  };
  for (const Rc &r :
       {Rc{0, 0, {1, 2, 7, 9}, {1, 2, 15, 13}, "cubic/half_pixel"},
        Rc{3, 1, {1, 2, 6, 5}, {1, 2, 4, 11},
           "cubic/align_corners/exclude_outside"}}) {
    Case c;
    c.kind = Kind::Resize;
    c.family = "resize";
    c.p = {2, r.coord, r.exclude};
    c.ia = r.in;
    c.ib = r.out;
    c.in.push_back(genUniform(nextSeed(), (size_t)numel(r.in), 4.0f));
    c.shape = dimsv(r.in) + " -> " + dimsv(r.out);
    c.name = std::string("resize/") + r.n;
    cs.push_back(c);
  }

  // Rounding to float16 / bfloat16 (codes 41, 42): edge values at scales
  // that reach float16's subnormals (2^-14 and below) and its overflow
  // threshold (65520), and bfloat16's ties.
  static const LaterUnary kHalf[] = {{41, "round_f16", 0, 0},
                                     {42, "round_bf16", 0, 0}};
  for (const LaterUnary &u : kHalf) {
    Case c;
    c.kind = Kind::Unary;
    c.family = "unary";
    c.p = {u.op};
    c.f = {u.alpha, u.beta};
    std::vector<float> v = genEdge(nextSeed(), 2048, 1.0f);
    for (float scale : {1.0f / 16384, 1.0f / 4194304, 65536.0f}) {
      std::vector<float> w = genEdge(nextSeed(), 1024, scale);
      v.insert(v.end(), w.begin(), w.end());
    }
    c.in.push_back(v);
    c.shape = "5120";
    c.name = std::string("unary/") + u.n;
    cs.push_back(c);
  }

  // GridSample (plumb_rt_grid_sample_f32): grid values in [-2, 2) reach
  // every padding rule; the edge cases' grids hold infinities, NaNs and huge
  // values (saturated indices, reflection of far taps). Appended last.
  struct Gs {
    int64_t mode, pad, align;
    std::vector<int64_t> in, out;
    bool edge;
    const char *n;
  };
  for (const Gs &g :
       {Gs{0, 0, 0, {2, 3, 7, 9}, {2, 3, 5, 11}, false, "linear/zeros"},
        Gs{1, 1, 1, {1, 2, 6, 5}, {1, 2, 8, 7}, false, "nearest/border/align"},
        Gs{2, 2, 0, {1, 2, 7, 6}, {1, 2, 9, 8}, false, "cubic/reflection"},
        Gs{2, 1, 1, {1, 2, 5, 8}, {1, 2, 6, 6}, false, "cubic/border/align"},
        Gs{0, 2, 1, {1, 2, 4, 5, 6}, {1, 2, 3, 4, 5}, false,
           "trilinear/reflection/align"},
        Gs{1, 2, 0, {1, 2, 6, 7}, {1, 2, 16, 16}, true,
           "nearest/reflection/edge"},
        Gs{2, 0, 1, {1, 1, 5, 6}, {1, 1, 16, 16}, true, "cubic/zeros/edge"}}) {
    Case c;
    c.kind = Kind::GridSample;
    c.family = "grid_sample";
    c.p = {g.mode, g.pad, g.align};
    c.ia = g.in;
    c.ib = g.out;
    c.in.push_back(genUniform(nextSeed(), (size_t)numel(g.in), 4.0f));
    const size_t k = g.in.size() - 2;
    size_t pts = (size_t)g.out[0];
    for (size_t d = 2; d < g.out.size(); ++d)
      pts *= (size_t)g.out[d];
    c.in.push_back((g.edge ? genEdge : genUniform)(nextSeed(), pts * k, 2.0f));
    c.shape = dimsv(g.in) + " -> " + dimsv(g.out);
    c.name = std::string("grid_sample/") + g.n;
    cs.push_back(c);
  }

  // RNN (Elman): bidirectional relu / tanh with clip and initial_h, and a
  // reverse hard_sigmoid one with two gate blocks (H = 150 > 128). Appended
  // last: each case draws its inputs from the shared seed sequence.
  struct RnnC {
    int64_t seq, batch, input, hidden, dir, act0, act1;
    float clip, alpha0, beta0;
    const char *n;
  };
  for (const RnnC &r :
       {RnnC{6, 3, 20, 16, 2, PLUMB_RT_RELU, PLUMB_RT_TANH, 4.0f, 0.0f, 0.0f,
             "bidir/relu_tanh/clip/b8"},
        RnnC{4, 2, 7, 150, 1, PLUMB_RT_HARD_SIGMOID, PLUMB_RT_HARD_SIGMOID,
             0.0f, 0.3f, 0.4f, "reverse/hard_sigmoid/b8"}}) {
    Case c;
    c.kind = Kind::Rnn;
    c.family = "rnn";
    c.block = 8;
    const int64_t dirs = r.dir == 2 ? 2 : 1;
    c.p = {r.seq, r.batch, r.input, r.hidden, r.dir, r.act0, r.act1, 1};
    c.f = {r.clip, r.alpha0, r.beta0, 0.0f, 0.0f};
    c.in.push_back(genUniform(nextSeed(), (size_t)(r.seq * r.batch * r.input)));
    c.in.push_back(genUniform(nextSeed(), (size_t)(dirs * r.hidden * r.input), 0.25f));
    c.in.push_back(genUniform(nextSeed(), (size_t)(dirs * r.hidden * r.hidden), 0.125f));
    c.in.push_back(genUniform(nextSeed(), (size_t)(dirs * 2 * r.hidden), 0.25f));
    c.in.push_back(genUniform(nextSeed(), (size_t)(dirs * r.batch * r.hidden)));
    c.shape = dims({r.seq, r.batch, r.input, r.hidden}) +
              (r.dir == 2 ? " bidir" : " reverse");
    c.name = "rnn/" + dims({r.seq, r.batch, r.input, r.hidden}) + "/" + r.n;
    cs.push_back(c);
  }

  // DFT / STFT (plumb_rt_dft_f32): composite lengths with small factors
  // (400 = 2^4 5^2, 512, 30, 60, 210), a prime (97) over a strided axis,
  // padding and truncation, onesided, inverse, edge inputs (infinities,
  // NaNs, subnormals), an STFT with a window and a complex one without.
  // Appended last: each case draws its inputs from the shared seed sequence.
  struct DftC {
    int64_t outer, len, inner, cplx, n, nOut, inv, frames, step;
    bool window, edge;
    const char *n_;
  };
  for (const DftC &d :
       {DftC{3, 400, 1, 0, 400, 201, 0, 1, 0, false, false, "real/400/onesided"},
        DftC{2, 512, 1, 1, 512, 512, 1, 1, 0, false, false,
             "complex/512/inverse"},
        DftC{2, 97, 3, 1, 97, 97, 0, 1, 0, false, false, "complex/97/strided"},
        DftC{4, 12, 2, 0, 30, 30, 0, 1, 0, false, false, "real/12/pad30"},
        DftC{1, 1000, 1, 0, 210, 210, 0, 1, 0, false, false,
             "real/1000/truncate210"},
        DftC{5, 60, 1, 1, 60, 60, 1, 1, 0, false, true, "complex/60/edge"},
        DftC{1, 1600, 1, 0, 400, 201, 0, 8, 160, true, false,
             "stft/real/400/160/window"},
        DftC{2, 128, 1, 1, 16, 16, 0, 15, 8, false, false,
             "stft/complex/16/8"}}) {
    Case c;
    c.kind = Kind::Dft;
    c.family = d.frames > 1 ? "stft" : "dft";
    c.p = {d.outer, d.len,    d.inner,  d.cplx, d.n,
           d.nOut,  d.inv,    d.frames, d.step, d.window};
    auto gen = d.edge ? genEdge : genUniform;
    c.in.push_back(gen(nextSeed(),
                       (size_t)(d.outer * d.len * d.inner * (d.cplx ? 2 : 1)),
                       1.0f));
    if (d.window)
      c.in.push_back(genUniform(nextSeed(), (size_t)d.n, 1.0f));
    c.shape = dims({d.outer, d.len, d.inner, d.cplx ? 2 : 1}) + " n" +
              std::to_string(d.n) + " bins" + std::to_string(d.nOut) +
              (d.frames > 1 ? " frames" + std::to_string(d.frames) : "");
    c.name = std::string(d.frames > 1 ? "" : "dft/") + d.n_;
    cs.push_back(c);
  }
  return cs;
}

plumb_convnd_params convNdParams(const Case &c) {
  plumb_convnd_params p{};
  p.N = c.p[0], p.Cin = c.p[1], p.Cout = c.p[2], p.group = c.p[3];
  const int64_t d = (int64_t)c.ia.size() / 7;
  p.spatial = d;
  for (int64_t j = 0; j < d; ++j) {
    p.in[j] = c.ia[j], p.kernel[j] = c.ia[d + j], p.out[j] = c.ia[2 * d + j];
    p.stride[j] = c.ia[3 * d + j], p.dilation[j] = c.ia[4 * d + j];
    p.pad_begin[j] = c.ia[5 * d + j], p.pad_end[j] = c.ia[6 * d + j];
  }
  return p;
}

//===----------------------------------------------------------------------===//
// CPU runner.
//===----------------------------------------------------------------------===//

static plumb_conv2d_params convParams(const Case &c) {
  plumb_conv2d_params p;
  p.N = c.p[CN];
  p.Cin = c.p[CCin];
  p.H = c.p[CH];
  p.W = c.p[CW];
  p.Cout = c.p[CCout];
  p.KH = c.p[CKH];
  p.KW = c.p[CKW];
  p.OH = c.p[COH];
  p.OW = c.p[COW];
  p.group = c.p[CGroup];
  p.stride_h = c.p[CSH];
  p.stride_w = c.p[CSW];
  p.dilation_h = c.p[CDH];
  p.dilation_w = c.p[CDW];
  p.pad_top = c.p[CPT];
  p.pad_left = c.p[CPL];
  p.pad_bottom = c.p[CPB];
  p.pad_right = c.p[CPR];
  return p;
}

Output runCpu(const Case &c) {
  Output o;
  switch (c.kind) {
  case Kind::Gemm: {
    int64_t M = c.p[0], N = c.p[1], K = c.p[2];
    int cRank = (int)c.p[5];
    int64_t cShape[2] = {c.p[6], c.p[7]};
    std::vector<float> y((size_t)(M * N));
    plumb_rt_gemm(M, N, K, c.f[0], c.in[0].data(), (int)c.p[3],
                  c.in[1].data(), (int)c.p[4], c.f[1],
                  cRank ? c.in[2].data() : nullptr, cShape, cRank, y.data(),
                  c.block);
    o.addF32(y);
    break;
  }
  case Kind::MatMul: {
    int64_t Bt = c.p[0], M = c.p[1], N = c.p[2], K = c.p[3];
    std::vector<float> y((size_t)(Bt * M * N));
    plumb_rt_matmul_batched(Bt, M, N, K, c.in[0].data(), c.p[4] ? 0 : M * K,
                            c.in[1].data(), c.p[5] ? 0 : K * N, y.data(),
                            c.block);
    o.addF32(y);
    break;
  }
  case Kind::Conv2d:
  case Kind::Conv1d:
  case Kind::ConvT2d:
  case Kind::ConvT1d: {
    plumb_conv2d_params p = convParams(c);
    const float *bias = c.p[CHasBias] ? c.in[2].data() : nullptr;
    std::vector<float> y((size_t)(p.N * p.Cout * p.OH * p.OW));
    if (c.kind == Kind::Conv2d)
      o.status = plumb_rt_conv2d(&p, c.in[0].data(), c.in[1].data(), bias,
                                 y.data(), c.block);
    else if (c.kind == Kind::ConvT2d)
      o.status = plumb_rt_conv_transpose2d(&p, c.in[0].data(), c.in[1].data(),
                                           bias, y.data(), c.block);
    else if (c.kind == Kind::Conv1d)
      o.status = plumb_rt_conv1d(p.N, p.Cin, p.W, p.Cout, p.KW, p.group,
                                 p.stride_w, p.dilation_w, p.pad_left,
                                 p.pad_right, c.in[0].data(), c.in[1].data(),
                                 bias, y.data(), c.block);
    else
      o.status = plumb_rt_conv_transpose1d(
          p.N, p.Cin, p.W, p.Cout, p.KW, p.OW, p.group, p.stride_w,
          p.dilation_w, p.pad_left, p.pad_right, c.in[0].data(),
          c.in[1].data(), bias, y.data(), c.block);
    o.addF32(y);
    break;
  }
  case Kind::ConvTNd: {
    plumb_convnd_params p = convNdParams(c);
    const float *bias = c.p[4] ? c.in[2].data() : nullptr;
    int64_t n = p.N * p.Cout;
    for (int64_t j = 0; j < p.spatial; ++j)
      n *= p.out[j];
    std::vector<float> y((size_t)n);
    o.status = plumb_rt_conv_transpose_nd(&p, c.in[0].data(), c.in[1].data(),
                                          bias, y.data(), c.block);
    o.addF32(y);
    break;
  }
  case Kind::ConvNd: {
    plumb_convnd_params p = convNdParams(c);
    const float *bias = c.p[4] ? c.in[2].data() : nullptr;
    int64_t n = p.N * p.Cout;
    for (int64_t j = 0; j < p.spatial; ++j)
      n *= p.out[j];
    std::vector<float> y((size_t)n);
    o.status = plumb_rt_conv_nd(&p, c.in[0].data(), c.in[1].data(), bias,
                                y.data(), c.block);
    o.addF32(y);
    break;
  }
  case Kind::Math: {
    const std::vector<float> &x = c.in[0];
    std::vector<float> y(x.size());
    int64_t n = (int64_t)x.size();
    switch (c.p[0]) {
    case MathExp: plumb_rt_exp_f32(x.data(), y.data(), n); break;
    case MathLog: plumb_rt_log_f32(x.data(), y.data(), n); break;
    case MathTanh: plumb_rt_tanh_f32(x.data(), y.data(), n); break;
    case MathSigmoid: plumb_rt_sigmoid_f32(x.data(), y.data(), n); break;
    case MathErf: plumb_rt_erf_f32(x.data(), y.data(), n); break;
    case MathSqrt: plumb_rt_sqrt_f32(x.data(), y.data(), n); break;
    case MathReciprocal: plumb_rt_reciprocal_f32(x.data(), y.data(), n); break;
    case MathGelu: plumb_rt_gelu_f32(x.data(), y.data(), n); break;
    case MathGeluTanh: plumb_rt_gelu_tanh_f32(x.data(), y.data(), n); break;
    case MathPow: plumb_rt_pow_f32(x.data(), c.in[1].data(), y.data(), n); break;
    case MathPowScalar:
      plumb_rt_pow_scalar_f32(x.data(), c.f[0], y.data(), n);
      break;
    }
    o.addF32(y);
    break;
  }
  case Kind::Unary: {
    std::vector<float> y(c.in[0].size());
    o.status = plumb_rt_unary_f32((int32_t)c.p[0], c.in[0].data(), y.data(),
                                  (int64_t)y.size(), c.f[0], c.f[1]);
    o.addF32(y);
    break;
  }
  case Kind::Binary: {
    std::vector<int64_t> os = broadcastShape(c.ia, c.ib);
    int64_t n = numel(os);
    if (isComparisonOp(c.p[0])) {
      std::vector<uint8_t> y((size_t)n);
      o.status = plumb_rt_binary_f32(
          (int32_t)c.p[0], c.in[0].data(), c.ia.data(), (int32_t)c.ia.size(),
          c.in[1].data(), c.ib.data(), (int32_t)c.ib.size(), y.data(),
          os.data(), (int32_t)os.size());
      o.addU8(y);
    } else {
      std::vector<float> y((size_t)n);
      o.status = plumb_rt_binary_f32(
          (int32_t)c.p[0], c.in[0].data(), c.ia.data(), (int32_t)c.ia.size(),
          c.in[1].data(), c.ib.data(), (int32_t)c.ib.size(), y.data(),
          os.data(), (int32_t)os.size());
      o.addF32(y);
    }
    break;
  }
  case Kind::Reduce: {
    int64_t outN = numel(c.ia);
    for (int64_t a : c.ib)
      outN /= c.ia[(size_t)a];
    std::vector<float> y((size_t)outN);
    o.status = plumb_rt_reduce_f32((int32_t)c.p[0], c.in[0].data(),
                                   c.ia.data(), (int32_t)c.ia.size(),
                                   c.ib.data(), (int32_t)c.ib.size(), y.data(),
                                   c.block);
    o.addF32(y);
    break;
  }
  case Kind::ArgMax: {
    std::vector<int64_t> y((size_t)(numel(c.ia) / c.ia[(size_t)c.p[0]]));
    o.status = plumb_rt_argmax_f32(c.in[0].data(), c.ia.data(),
                                   (int32_t)c.ia.size(), (int32_t)c.p[0],
                                   (int32_t)c.p[1], (int32_t)c.p[2], y.data());
    o.addI64(y);
    break;
  }
  case Kind::Softmax: {
    std::vector<float> y(c.in[0].size());
    o.status = plumb_rt_softmax_f32(c.in[0].data(), y.data(), c.p[0], c.p[1],
                                    c.p[2], (int32_t)c.p[3], c.block);
    o.addF32(y);
    break;
  }
  case Kind::MaxPool:
  case Kind::AvgPool: {
    int32_t sd = (int32_t)c.p[2];
    int64_t in[3], out[3], k[3], s[3], pads[6], dil[3];
    for (int d = 0; d < sd; ++d) {
      in[d] = c.p[3 + d];
      out[d] = c.p[6 + d];
      k[d] = c.p[9 + d];
      s[d] = c.p[12 + d];
      pads[d] = c.p[15 + d];
      pads[sd + d] = c.p[18 + d];
      dil[d] = c.p[21 + d];
    }
    int64_t total = c.p[0] * c.p[1];
    for (int d = 0; d < sd; ++d)
      total *= out[d];
    std::vector<float> y((size_t)total);
    if (c.kind == Kind::MaxPool) {
      std::vector<int64_t> idx(c.p[24] ? (size_t)total : 0);
      o.status = plumb_rt_maxpool_f32(c.in[0].data(), c.p[0], c.p[1], sd, in,
                                      out, k, s, pads, dil, y.data(),
                                      c.p[24] ? idx.data() : nullptr);
      o.addF32(y);
      o.addI64(idx);
    } else {
      o.status = plumb_rt_avgpool_f32(c.in[0].data(), c.p[0], c.p[1], sd, in,
                                      out, k, s, pads, dil, (int32_t)c.p[24],
                                      y.data());
      o.addF32(y);
    }
    break;
  }
  case Kind::GlobalPool: {
    std::vector<float> y((size_t)c.p[0]);
    o.status = plumb_rt_global_pool_f32(c.in[0].data(), c.p[0], c.p[1],
                                        (int32_t)c.p[2], y.data(),
                                        c.block < 0 ? 0 : c.block);
    o.addF32(y);
    break;
  }
  case Kind::BatchNorm: {
    std::vector<float> y(c.in[0].size());
    o.status = plumb_rt_batchnorm_f32(c.in[0].data(), c.p[0], c.p[1], c.p[2],
                                      c.in[1].data(), c.in[2].data(),
                                      c.in[3].data(), c.in[4].data(), c.f[0],
                                      y.data());
    o.addF32(y);
    break;
  }
  case Kind::LayerNorm: {
    std::vector<float> y(c.in[0].size()), mean((size_t)c.p[0]),
        inv((size_t)c.p[0]);
    o.status = plumb_rt_layernorm_f32(c.in[0].data(), c.p[0], c.p[1],
                                      c.in[1].data(),
                                      c.p[2] ? c.in[2].data() : nullptr,
                                      c.f[0], y.data(), mean.data(),
                                      inv.data(), c.block);
    o.addF32(y);
    o.addF32(mean);
    o.addF32(inv);
    break;
  }
  case Kind::InstanceNorm: {
    std::vector<float> y(c.in[0].size());
    o.status = plumb_rt_instancenorm_f32(c.in[0].data(), c.p[0], c.p[1],
                                         c.p[2], c.in[1].data(),
                                         c.in[2].data(), c.f[0], y.data(),
                                         c.block);
    o.addF32(y);
    break;
  }
  case Kind::Resize: {
    std::vector<float> y((size_t)numel(c.ib));
    if (c.p[0] == 2)
      o.status = plumb_rt_resize_cubic_f32(
          c.in[0].data(), c.ia.data(), (int32_t)c.ia.size(), c.ib.data(),
          c.f.empty() ? nullptr : c.f.data(), (int32_t)c.p[1], -0.75f,
          (int32_t)c.p[2], y.data());
    else
      o.status = plumb_rt_resize_f32(c.in[0].data(), c.ia.data(),
                                     (int32_t)c.ia.size(), c.ib.data(),
                                     c.f.empty() ? nullptr : c.f.data(),
                                     (int32_t)c.p[0], (int32_t)c.p[1],
                                     (int32_t)c.p[2], y.data());
    o.addF32(y);
    break;
  }
  case Kind::Lstm:
  case Kind::Gru: {
    int64_t seq = c.p[0], batch = c.p[1], input = c.p[2], hidden = c.p[3];
    int64_t dirs = c.p[4] == 2 ? 2 : 1;
    std::vector<float> Y((size_t)(seq * dirs * batch * hidden)),
        Yh((size_t)(dirs * batch * hidden)), Yc(Yh.size());
    if (c.kind == Kind::Lstm)
      o.status = plumb_rt_lstm_f32(
          c.in[0].data(), c.in[1].data(), c.in[2].data(), c.in[3].data(),
          nullptr, nullptr, nullptr, nullptr, seq, batch, input, hidden,
          (int32_t)c.p[4], 0.0f, 0, Y.data(), Yh.data(), Yc.data(), c.block);
    else
      o.status = plumb_rt_gru_f32(c.in[0].data(), c.in[1].data(),
                                  c.in[2].data(), c.in[3].data(), nullptr,
                                  nullptr, seq, batch, input, hidden,
                                  (int32_t)c.p[4], 0.0f, (int32_t)c.p[5],
                                  Y.data(), Yh.data(), c.block);
    o.addF32(Y);
    o.addF32(Yh);
    if (c.kind == Kind::Lstm)
      o.addF32(Yc);
    break;
  }
  case Kind::Rnn: {
    int64_t seq = c.p[0], batch = c.p[1], input = c.p[2], hidden = c.p[3];
    int64_t dirs = c.p[4] == 2 ? 2 : 1;
    std::vector<float> Y((size_t)(seq * dirs * batch * hidden)),
        Yh((size_t)(dirs * batch * hidden));
    o.status = plumb_rt_rnn_f32(
        c.in[0].data(), c.in[1].data(), c.in[2].data(), c.in[3].data(),
        nullptr, c.p[7] ? c.in[4].data() : nullptr, seq, batch, input, hidden,
        (int32_t)c.p[4], c.f[0], (int32_t)c.p[5], c.f[1], c.f[2],
        (int32_t)c.p[6], c.f[3], c.f[4], Y.data(), Yh.data(), c.block);
    o.addF32(Y);
    o.addF32(Yh);
    break;
  }
  case Kind::Cast: {
    size_t n = c.in[0].size();
    if (c.p[0] == PLUMB_RT_I64) {
      std::vector<int64_t> y(n);
      o.status = plumb_rt_cast(c.in[0].data(), PLUMB_RT_F32, y.data(),
                               PLUMB_RT_I64, (int64_t)n);
      o.addI64(y);
    } else if (c.p[0] == PLUMB_RT_I32) {
      std::vector<int32_t> y(n);
      o.status = plumb_rt_cast(c.in[0].data(), PLUMB_RT_F32, y.data(),
                               PLUMB_RT_I32, (int64_t)n);
      o.addI32(y);
    } else {
      std::vector<uint8_t> y(n);
      o.status = plumb_rt_cast(c.in[0].data(), PLUMB_RT_F32, y.data(),
                               PLUMB_RT_BOOL, (int64_t)n);
      o.addU8(y);
    }
    break;
  }
  case Kind::GatherNd: {
    std::vector<int64_t> idx(c.in[1].begin(), c.in[1].end());
    const int32_t r = (int32_t)c.ia.size(), q = (int32_t)c.ib.size();
    std::vector<float> y((size_t)gatherNdOutputs(c));
    o.status = plumb_rt_gather_nd(c.in[0].data(), c.ia.data(), r, idx.data(), 0,
                                  c.ib.data(), q, (int32_t)c.p[0], y.data(), 4);
    o.addF32(y);
    break;
  }
  case Kind::ScatterNd: {
    std::vector<int64_t> idx(c.in[1].begin(), c.in[1].end());
    const int32_t r = (int32_t)c.ia.size(), q = (int32_t)c.ib.size();
    std::vector<float> y(c.in[0].size());
    o.status = plumb_rt_scatter_nd(c.in[0].data(), c.ia.data(), r, idx.data(),
                                   0, c.ib.data(), q, c.in[2].data(),
                                   (int32_t)c.p[0], PLUMB_RT_F32, y.data());
    o.addF32(y);
    break;
  }
  case Kind::TopK: {
    std::vector<int64_t> out = c.ia;
    out[(size_t)c.p[0]] = c.p[1];
    std::vector<float> v((size_t)numel(out));
    std::vector<int64_t> idx(v.size());
    o.status = plumb_rt_topk_f32(c.in[0].data(), c.ia.data(),
                                 (int32_t)c.ia.size(), (int32_t)c.p[0], c.p[1],
                                 (int32_t)c.p[2], v.data(), idx.data());
    o.addF32(v);
    o.addI64(idx);
    break;
  }
  case Kind::Dft: {
    std::vector<float> y((size_t)dftOutputs(c));
    std::vector<float> scratch((size_t)dftScratch(c));
    o.status = plumb_rt_dft_f32(
        c.in[0].data(), c.p[9] ? c.in[1].data() : nullptr, c.p[0], c.p[1],
        c.p[2], (int32_t)c.p[3], c.p[4], c.p[5], (int32_t)c.p[6], c.p[7],
        c.p[8], scratch.data(), y.data());
    o.addF32(y);
    break;
  }
  case Kind::GridSample: {
    std::vector<float> y((size_t)numel(c.ib));
    o.status = plumb_rt_grid_sample_f32(
        c.in[0].data(), c.ia.data(), (int32_t)c.ia.size(), c.in[1].data(),
        c.ib.data(), (int32_t)c.p[0], (int32_t)c.p[1], (int32_t)c.p[2],
        y.data());
    o.addF32(y);
    break;
  }
  }
  return o;
}

int64_t gatherNdOutputs(const Case &c) {
  const int64_t b = c.p[0], k = c.ib.back();
  int64_t n = 1;
  for (size_t i = 0; i + 1 < c.ib.size(); ++i)
    n *= c.ib[i];
  for (size_t i = (size_t)(b + k); i < c.ia.size(); ++i)
    n *= c.ia[i];
  return n;
}

int64_t scatterNdUpdates(const Case &c) {
  const int64_t k = c.ib.back();
  int64_t n = 1;
  for (size_t i = 0; i + 1 < c.ib.size(); ++i)
    n *= c.ib[i];
  for (size_t i = (size_t)k; i < c.ia.size(); ++i)
    n *= c.ia[i];
  return n;
}

int64_t dftOutputs(const Case &c) {
  return c.p[0] * c.p[7] * c.p[5] * c.p[2] * 2;
}

int64_t dftScratch(const Case &c) {
  return plumb::rt::ops::dftScratchFloats(c.p[0] * c.p[7] * c.p[2], c.p[4]);
}

} // namespace plumbdet
