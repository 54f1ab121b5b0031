//===- runtime/cuda/device_ops.h - Per-element work of the CUDA twin -*- C++ -*-===//
//
// Part of Plumb. The per-output-element functions the CUDA kernels run, as
// PLUMB_HD inline functions: each computes one output element (or one row
// for row-wise ops) with exactly the operation sequence the determinism
// contract defines, calling the same header arithmetic as the CPU kernels
// (tree.h, gemm.h, conv.h, elementwise.h -> math.h, broadcast.h, resize.h,
// signal.h, cast.h). The __global__ kernels in *.cu are thin index wrappers
// around these functions, so the whole per-element logic also compiles as plain
// host C++: test/determinism's emulation runner executes it on the CPU and
// compares against the CPU kernels bit for bit, which checks the CUDA twin's
// arithmetic on machines without a GPU.
//
// Reduction trees are evaluated by treeEval (below): the chunks of a
// blocked(B) tree are visited in bit-reversed order and merged with a binary
// counter, which is the stride-halving tree of tree.h evaluated in
// O(log m) registers (see docs/determinism.md, "Equivalent evaluation orders").
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_CUDA_DEVICE_OPS_H
#define PLUMB_RUNTIME_CUDA_DEVICE_OPS_H

#include "plumb/runtime/cast.h"
#include "plumb/runtime/config.h"
#include "plumb/runtime/conv.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/broadcast.h"
#include "plumb/runtime/gemm.h"
#include "plumb/runtime/pool.h"
#include "plumb/runtime/reduce.h"
#include "plumb/runtime/resize.h"
#include "plumb/runtime/signal.h"
#include "plumb/runtime/tree.h"

#include <stdint.h>

namespace plumb {
namespace cuda {

using ::plumb::rt::fma_rn;
namespace ops = ::plumb::rt::ops;

//===----------------------------------------------------------------------===//
// Trees.
//===----------------------------------------------------------------------===//

/// Smallest L with 2^L >= m.
PLUMB_INLINE int treeLevels(int64_t m) {
  int l = 0;
  while (((int64_t)1 << l) < m)
    ++l;
  return l;
}

/// The low L bits of j in reverse order.
PLUMB_INLINE int64_t bitReverse(int64_t j, int l) {
  int64_t r = 0;
  for (int i = 0; i < l; ++i) {
    r = (r << 1) | (j & 1);
    j >>= 1;
  }
  return r;
}

/// The blocked(block) tree over n terms: chunk(lo, hi) returns the
/// sequential accumulation of terms [lo, hi) (from the identity); chunk
/// results are combined with comb by stride-halving over the padded power of
/// two P. Evaluated as the adjacent-pairs tree over the bit-reversed chunk
/// order with a binary counter (identical result; padding leaves hold `pad`,
/// the identity of comb: -0.0 for +, 1.0 for *, for which x comb pad == x
/// bit for bit, exactly like treeCombine's skipped additions).
template <typename Chunk, typename Comb>
PLUMB_INLINE float treeEval(int64_t n, int64_t block, float pad,
                            const Chunk &chunk, const Comb &comb) {
  const int64_t m = ::plumb::rt::treeChunks(n, block);
  if (m == 1)
    return chunk((int64_t)0, n);
  const int l = treeLevels(m);
  const int64_t p = (int64_t)1 << l;
  float stack[64];
  for (int64_t j = 0; j < p; ++j) {
    const int64_t c = bitReverse(j, l);
    float v = pad;
    if (c < m) {
      const int64_t lo = c * block;
      v = chunk(lo, lo + block < n ? lo + block : n);
    }
    int lvl = 0;
    for (int64_t t = j; t & 1; t >>= 1, ++lvl)
      v = comb(stack[lvl], v);
    stack[lvl] = v;
  }
  return stack[l];
}

struct AddOp {
  PLUMB_INLINE float operator()(float a, float b) const { return a + b; }
};
struct MulOp {
  PLUMB_INLINE float operator()(float a, float b) const { return a * b; }
};

/// Sum of x[0], x[s], ... (n terms) under the tree (== rt::treeSum).
PLUMB_INLINE float treeSumStrided(const float *x, int64_t n, int64_t s,
                                  int64_t block) {
  auto chunk = [x, s](int64_t lo, int64_t hi) {
    float acc = -0.0f;
    for (int64_t i = lo; i < hi; ++i)
      acc = acc + x[i * s];
    return acc;
  };
  return treeEval(n, block, -0.0f, chunk, AddOp());
}

/// Dot product a[i*sa] * b[i*sb] under the tree (== rt::treeDot).
PLUMB_INLINE float treeDotStrided(const float *a, int64_t sa, const float *b,
                                  int64_t sb, int64_t n, int64_t block) {
  auto chunk = [a, sa, b, sb](int64_t lo, int64_t hi) {
    float acc = -0.0f;
    for (int64_t i = lo; i < hi; ++i)
      acc = fma_rn(a[i * sa], b[i * sb], acc);
    return acc;
  };
  return treeEval(n, block, -0.0f, chunk, AddOp());
}

//===----------------------------------------------------------------------===//
// GEMM / MatMul.
//===----------------------------------------------------------------------===//

struct GemmArgs {
  int64_t M, N, K;
  float alpha, beta;
  const float *A;
  int64_t a_rs, a_cs;
  const float *B;
  int64_t b_rs, b_cs;
  const float *C; // may be null
  int64_t c_rs, c_cs;
  float *Y;
  int64_t ldy;
  int64_t block;
};

/// Y[m, n] of plumb_rt_gemm_strided.
PLUMB_INLINE void gemmElement(const GemmArgs &g, int64_t m, int64_t n) {
  const float dot = treeDotStrided(g.A + m * g.a_rs, g.a_cs, g.B + n * g.b_cs,
                                   g.b_rs, g.K, g.block);
  const float *c = g.C ? g.C + m * g.c_rs + n * g.c_cs : nullptr;
  g.Y[m * g.ldy + n] =
      ::plumb::rt::canonicalNaN(::plumb::rt::gemmEpilogue(dot, g.alpha, g.beta, c));
}

//===----------------------------------------------------------------------===//
// Conv / ConvTranspose (NCHW; 1-D is H = KH = 1; both also N-d).
//===----------------------------------------------------------------------===//

/// Output element `idx` (row-major over [N, Cout, OH, OW]) of Conv.
PLUMB_INLINE void conv2dElement(const plumb_conv2d_params &p, const float *X,
                                const float *W, const float *bias, float *Y,
                                int64_t block, int64_t idx) {
  const int64_t ow = idx % p.OW;
  int64_t t = idx / p.OW;
  const int64_t oh = t % p.OH;
  t /= p.OH;
  const int64_t co = t % p.Cout;
  const int64_t n = t / p.Cout;
  const int64_t cin_g = p.Cin / p.group, cout_g = p.Cout / p.group;
  const int64_t g = co / cout_g;
  const int64_t kk = p.KH * p.KW;
  const float *xb = X + (n * p.Cin + g * cin_g) * p.H * p.W;
  const float *wb = W + co * cin_g * kk;
  auto chunk = [&](int64_t lo, int64_t hi) {
    int64_t ci = lo / kk, r = lo % kk;
    int64_t kh = r / p.KW, kw = r % p.KW;
    float acc = -0.0f;
    for (int64_t k = lo; k < hi; ++k) {
      const int64_t ih = ::plumb::rt::convInputPos(oh, kh, p.stride_h,
                                                   p.dilation_h, p.pad_top, p.H);
      const int64_t iw = ::plumb::rt::convInputPos(ow, kw, p.stride_w,
                                                   p.dilation_w, p.pad_left, p.W);
      const float x = (ih >= 0 && iw >= 0) ? xb[(ci * p.H + ih) * p.W + iw] : 0.0f;
      acc = fma_rn(x, wb[k], acc);
      if (++kw == p.KW) {
        kw = 0;
        if (++kh == p.KH) {
          kh = 0;
          ++ci;
        }
      }
    }
    return acc;
  };
  float y = treeEval(cin_g * kk, block, -0.0f, chunk, AddOp());
  if (bias)
    y = y + bias[co];
  Y[idx] = ::plumb::rt::canonicalNaN(y);
}

/// Output element `idx` of ConvTranspose (gather formulation, W is
/// [Cin, Cout/group, KH, KW]).
PLUMB_INLINE void convTranspose2dElement(const plumb_conv2d_params &p,
                                         const float *X, const float *W,
                                         const float *bias, float *Y,
                                         int64_t block, int64_t idx) {
  const int64_t ow = idx % p.OW;
  int64_t t = idx / p.OW;
  const int64_t oh = t % p.OH;
  t /= p.OH;
  const int64_t co = t % p.Cout;
  const int64_t n = t / p.Cout;
  const int64_t cin_g = p.Cin / p.group, cout_g = p.Cout / p.group;
  const int64_t g = co / cout_g;
  const int64_t kk = p.KH * p.KW;
  const float *xb = X + (n * p.Cin + g * cin_g) * p.H * p.W;
  const float *wb = W + ((g * cin_g) * cout_g + (co - g * cout_g)) * kk;
  auto chunk = [&](int64_t lo, int64_t hi) {
    int64_t ci = lo / kk, r = lo % kk;
    int64_t kh = r / p.KW, kw = r % p.KW;
    float acc = -0.0f;
    for (int64_t k = lo; k < hi; ++k) {
      const int64_t ih = ::plumb::rt::convTransposeInputPos(
          oh, kh, p.stride_h, p.dilation_h, p.pad_top, p.H);
      const int64_t iw = ::plumb::rt::convTransposeInputPos(
          ow, kw, p.stride_w, p.dilation_w, p.pad_left, p.W);
      const float x = (ih >= 0 && iw >= 0) ? xb[(ci * p.H + ih) * p.W + iw] : 0.0f;
      acc = fma_rn(x, wb[ci * cout_g * kk + kh * p.KW + kw], acc);
      if (++kw == p.KW) {
        kw = 0;
        if (++kh == p.KH) {
          kh = 0;
          ++ci;
        }
      }
    }
    return acc;
  };
  float y = treeEval(cin_g * kk, block, -0.0f, chunk, AddOp());
  if (bias)
    y = y + bias[co];
  Y[idx] = ::plumb::rt::canonicalNaN(y);
}

/// Output element `idx` (row-major over [N, Cout, out...]) of the N-d Conv
/// of conv.h: terms (ci, k_0, ..., k_{d-1}), k_{d-1} fastest, +0.0 for
/// padding taps (they still participate), W [Cout, Cin/group, kernel...].
PLUMB_INLINE void convNdElement(const plumb_convnd_params &p, const float *X,
                                const float *W, const float *bias, float *Y,
                                int64_t block, int64_t idx) {
  const int64_t d = p.spatial;
  int64_t o[PLUMB_CONV_MAX_SPATIAL];
  int64_t t = idx, in = 1, kk = 1;
  for (int64_t j = d - 1; j >= 0; --j) {
    o[j] = t % p.out[j];
    t /= p.out[j];
    in *= p.in[j];
    kk *= p.kernel[j];
  }
  const int64_t co = t % p.Cout;
  const int64_t n = t / p.Cout;
  const int64_t cin_g = p.Cin / p.group, cout_g = p.Cout / p.group;
  const int64_t g = co / cout_g;
  const float *xb = X + (n * p.Cin + g * cin_g) * in;
  const float *wb = W + co * cin_g * kk;
  auto chunk = [&](int64_t lo, int64_t hi) {
    int64_t ci = lo / kk, r = lo % kk;
    int64_t k[PLUMB_CONV_MAX_SPATIAL];
    for (int64_t j = d - 1, q = r; j >= 0; --j) {
      k[j] = q % p.kernel[j];
      q /= p.kernel[j];
    }
    float acc = -0.0f;
    for (int64_t e = lo; e < hi; ++e) {
      int64_t off = 0;
      for (int64_t j = 0; j < d && off >= 0; ++j) {
        const int64_t i = ::plumb::rt::convInputPos(
            o[j], k[j], p.stride[j], p.dilation[j], p.pad_begin[j], p.in[j]);
        off = i < 0 ? -1 : off * p.in[j] + i;
      }
      const float x = off >= 0 ? xb[ci * in + off] : 0.0f;
      acc = fma_rn(x, wb[e], acc);
      for (int64_t j = d - 1; j >= 0; --j) {
        if (++k[j] < p.kernel[j])
          break;
        k[j] = 0;
      }
      if (++r == kk) {
        r = 0;
        ++ci;
      }
    }
    return acc;
  };
  float y = treeEval(cin_g * kk, block, -0.0f, chunk, AddOp());
  if (bias)
    y = y + bias[co];
  Y[idx] = ::plumb::rt::canonicalNaN(y);
}

/// Output element `idx` (row-major over [N, Cout, out...]) of the N-d
/// ConvTranspose of conv.h: terms (ci, k_0, ..., k_{d-1}), k_{d-1} fastest.
PLUMB_INLINE void convTransposeNdElement(const plumb_convnd_params &p,
                                         const float *X, const float *W,
                                         const float *bias, float *Y,
                                         int64_t block, int64_t idx) {
  const int64_t d = p.spatial;
  int64_t o[PLUMB_CONV_MAX_SPATIAL];
  int64_t t = idx, in = 1, kk = 1;
  for (int64_t j = d - 1; j >= 0; --j) {
    o[j] = t % p.out[j];
    t /= p.out[j];
    in *= p.in[j];
    kk *= p.kernel[j];
  }
  const int64_t co = t % p.Cout;
  const int64_t n = t / p.Cout;
  const int64_t cin_g = p.Cin / p.group, cout_g = p.Cout / p.group;
  const int64_t g = co / cout_g;
  const float *xb = X + (n * p.Cin + g * cin_g) * in;
  const float *wb = W + ((g * cin_g) * cout_g + (co - g * cout_g)) * kk;
  auto chunk = [&](int64_t lo, int64_t hi) {
    int64_t ci = lo / kk, r = lo % kk;
    int64_t k[PLUMB_CONV_MAX_SPATIAL];
    for (int64_t j = d - 1, q = r; j >= 0; --j) {
      k[j] = q % p.kernel[j];
      q /= p.kernel[j];
    }
    float acc = -0.0f;
    for (int64_t e = lo; e < hi; ++e) {
      int64_t off = 0;
      for (int64_t j = 0; j < d && off >= 0; ++j) {
        const int64_t i = ::plumb::rt::convTransposeInputPos(
            o[j], k[j], p.stride[j], p.dilation[j], p.pad_begin[j], p.in[j]);
        off = i < 0 ? -1 : off * p.in[j] + i;
      }
      const float x = off >= 0 ? xb[ci * in + off] : 0.0f;
      acc = fma_rn(x, wb[ci * cout_g * kk + r], acc);
      for (int64_t j = d - 1; j >= 0; --j) {
        if (++k[j] < p.kernel[j])
          break;
        k[j] = 0;
      }
      if (++r == kk) {
        r = 0;
        ++ci;
      }
    }
    return acc;
  };
  float y = treeEval(cin_g * kk, block, -0.0f, chunk, AddOp());
  if (bias)
    y = y + bias[co];
  Y[idx] = ::plumb::rt::canonicalNaN(y);
}

//===----------------------------------------------------------------------===//
// Elementwise.
//===----------------------------------------------------------------------===//

// The per-element arithmetic of the unary and binary ops is elementwise.h's
// op tables (ops::unaryF32, ops::binaryF32, ops::compareValues), shared with
// the host kernels; launchers reject unknown codes (ops::unaryF32Valid,
// ops::binaryF32Valid).

/// Output element i of a broadcast binary op.
PLUMB_INLINE void binaryElement(const ops::BroadcastPlan &plan, int32_t op,
                                const float *a, const float *b, void *out,
                                int64_t i) {
  const float x = a[ops::broadcastOffset(plan, 0, i)];
  const float y = b[ops::broadcastOffset(plan, 1, i)];
  if (ops::isCompareOp(op))
    static_cast<uint8_t *>(out)[i] = ops::compareValues(op, x, y);
  else
    static_cast<float *>(out)[i] = ops::binaryF32(op, x, y);
}

/// Cast of one float32 to int64 / int32 / bool (cast.h).
PLUMB_INLINE void castF32Element(const float *x, void *y, int32_t to,
                                 int64_t i) {
  const float v = x[i];
  if (to == PLUMB_RT_I64)
    static_cast<int64_t *>(y)[i] = ops::castF32ToI64(v);
  else if (to == PLUMB_RT_I32)
    static_cast<int32_t *>(y)[i] = ops::castF32ToI32(v);
  else if (to == PLUMB_RT_BOOL)
    static_cast<uint8_t *>(y)[i] = v != 0.0f;
  else
    static_cast<float *>(y)[i] = ops::canon(v);
}

/// Cast of element i between any two element types (cast.h's rules, as
/// plumb_rt_cast applies them).
PLUMB_INLINE void castElement(const void *x, int32_t from, void *y, int32_t to,
                              int64_t i) {
  if (from == PLUMB_RT_F32) {
    castF32Element(static_cast<const float *>(x), y, to, i);
    return;
  }
  // Integers and bools: the value as int64 (bools as 0/1), then converted.
  int64_t v;
  if (from == PLUMB_RT_I64)
    v = static_cast<const int64_t *>(x)[i];
  else if (from == PLUMB_RT_I32)
    v = static_cast<const int32_t *>(x)[i];
  else
    v = static_cast<const uint8_t *>(x)[i] != 0;
  if (to == PLUMB_RT_F32)
    static_cast<float *>(y)[i] = from == PLUMB_RT_I32
                                     ? ops::castI32ToF32((int32_t)v)
                                     : ops::castI64ToF32(v);
  else if (to == PLUMB_RT_I64)
    static_cast<int64_t *>(y)[i] = v;
  else if (to == PLUMB_RT_I32)
    static_cast<int32_t *>(y)[i] = (int32_t)(uint32_t)(uint64_t)v;
  else
    static_cast<uint8_t *>(y)[i] = v != 0;
}

//===----------------------------------------------------------------------===//
// Reductions.
//===----------------------------------------------------------------------===//

/// Reduction geometry: output o -> kept coords (row-major over kdims) and
/// term k -> reduced coords (row-major over rdims, ascending axis order).
struct ReduceLayout {
  int32_t nk, nr;
  int64_t n; // number of terms
  int64_t kdims[PLUMB_RT_MAX_RANK], kstr[PLUMB_RT_MAX_RANK];
  int64_t rdims[PLUMB_RT_MAX_RANK], rstr[PLUMB_RT_MAX_RANK];
};

/// Builds the layout (host). Returns PLUMB_RT_OK or an error code.
inline int makeReduceLayout(ReduceLayout &L, const int64_t *shape,
                            int32_t rank, const int64_t *axes, int32_t n_axes,
                            int64_t *outputs) {
  if (rank < 0 || rank > PLUMB_RT_MAX_RANK || n_axes < 0 || n_axes > rank)
    return PLUMB_RT_EINVAL;
  bool red[PLUMB_RT_MAX_RANK] = {false};
  for (int32_t i = 0; i < n_axes; ++i) {
    if (axes[i] < 0 || axes[i] >= rank || red[axes[i]])
      return PLUMB_RT_EINVAL;
    red[axes[i]] = true;
  }
  int64_t st[PLUMB_RT_MAX_RANK], s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    if (shape[d] < 0)
      return PLUMB_RT_EINVAL;
    st[d] = s;
    s *= shape[d];
  }
  L.nk = L.nr = 0;
  L.n = 1;
  *outputs = 1;
  for (int32_t d = 0; d < rank; ++d) {
    if (red[d]) {
      L.rdims[L.nr] = shape[d];
      L.rstr[L.nr++] = st[d];
      L.n *= shape[d];
    } else {
      L.kdims[L.nk] = shape[d];
      L.kstr[L.nk++] = st[d];
      *outputs *= shape[d];
    }
  }
  return PLUMB_RT_OK;
}

PLUMB_INLINE int64_t reduceBase(const ReduceLayout &L, int64_t o) {
  int64_t off = 0;
  for (int32_t d = L.nk - 1; d >= 0; --d) {
    const int64_t q = o / L.kdims[d];
    off += (o - q * L.kdims[d]) * L.kstr[d];
    o = q;
  }
  return off;
}

PLUMB_INLINE int64_t reduceTermOff(const ReduceLayout &L, int64_t k) {
  int64_t off = 0;
  for (int32_t d = L.nr - 1; d >= 0; --d) {
    const int64_t q = k / L.rdims[d];
    off += (k - q * L.rdims[d]) * L.rstr[d];
    k = q;
  }
  return off;
}

/// Output o of plumb_rt_reduce_f32 (op codes of reduce.h).
PLUMB_INLINE float reduceElement(const ReduceLayout &L, int32_t op,
                                 const float *x, int64_t block, int64_t o) {
  const int64_t n = L.n;
  if (n == 0) {
    switch (op) {
    case PLUMB_RT_REDUCE_MEAN: return ops::canonicalNaN();
    case PLUMB_RT_REDUCE_PROD: return 1.0f;
    case PLUMB_RT_REDUCE_MAX:
    case PLUMB_RT_REDUCE_LOG_SUM:
    case PLUMB_RT_REDUCE_LOG_SUM_EXP: return ops::negInf();
    case PLUMB_RT_REDUCE_MIN: return ops::posInf();
    default: return 0.0f;
    }
  }
  const float *base = x + reduceBase(L, o);
  const ReduceLayout *lp = &L;
  auto term = [base, lp](int64_t k) { return base[reduceTermOff(*lp, k)]; };
  auto sumChunk = [&](int64_t lo, int64_t hi) {
    float acc = -0.0f;
    for (int64_t k = lo; k < hi; ++k)
      acc = acc + term(k);
    return acc;
  };
  auto sqChunk = [&](int64_t lo, int64_t hi) {
    float acc = -0.0f;
    for (int64_t k = lo; k < hi; ++k) {
      const float t = term(k);
      acc = fma_rn(t, t, acc);
    }
    return acc;
  };
  switch (op) {
  case PLUMB_RT_REDUCE_SUM:
    return ops::canon(treeEval(n, block, -0.0f, sumChunk, AddOp()));
  case PLUMB_RT_REDUCE_MEAN:
    return ops::canon(treeEval(n, block, -0.0f, sumChunk, AddOp()) /
                      ops::castI64ToF32(n));
  case PLUMB_RT_REDUCE_MAX:
  case PLUMB_RT_REDUCE_MIN: {
    float a = op == PLUMB_RT_REDUCE_MAX ? ops::negInf() : ops::posInf();
    for (int64_t k = 0; k < n; ++k)
      a = op == PLUMB_RT_REDUCE_MAX ? ops::maxF(a, term(k)) : ops::minF(a, term(k));
    return ops::canon(a);
  }
  case PLUMB_RT_REDUCE_PROD: {
    auto chunk = [&](int64_t lo, int64_t hi) {
      float acc = 1.0f;
      for (int64_t k = lo; k < hi; ++k)
        acc = acc * term(k);
      return acc;
    };
    return ops::canon(treeEval(n, block, 1.0f, chunk, MulOp()));
  }
  case PLUMB_RT_REDUCE_SUM_SQUARE:
    return ops::canon(treeEval(n, block, -0.0f, sqChunk, AddOp()));
  case PLUMB_RT_REDUCE_L1: {
    auto chunk = [&](int64_t lo, int64_t hi) {
      float acc = -0.0f;
      for (int64_t k = lo; k < hi; ++k)
        acc = acc + ops::absF(term(k));
      return acc;
    };
    return ops::canon(treeEval(n, block, -0.0f, chunk, AddOp()));
  }
  case PLUMB_RT_REDUCE_L2:
    return ops::canon(ops::sqrtRn(treeEval(n, block, -0.0f, sqChunk, AddOp())));
  case PLUMB_RT_REDUCE_LOG_SUM:
    return ops::canon(
        ::plumb::rt::log(treeEval(n, block, -0.0f, sumChunk, AddOp())));
  default: { // PLUMB_RT_REDUCE_LOG_SUM_EXP
    float mx = ops::negInf();
    for (int64_t k = 0; k < n; ++k)
      mx = ops::maxF(mx, term(k));
    if (mx != mx || mx == ops::posInf() || mx == ops::negInf())
      return ops::canon(mx);
    auto chunk = [&](int64_t lo, int64_t hi) {
      float acc = -0.0f;
      for (int64_t k = lo; k < hi; ++k)
        acc = acc + ::plumb::rt::exp(term(k) - mx);
      return acc;
    };
    const float s = treeEval(n, block, -0.0f, chunk, AddOp());
    return ops::canon(mx + ::plumb::rt::log(s));
  }
  }
}

PLUMB_INLINE bool reduceOpValid(int32_t op) { return op >= 0 && op <= 9; }

/// ArgMax / ArgMin of the row at output o of an (outer, len, inner) view.
PLUMB_INLINE int64_t argmaxElement(const float *x, int64_t len, int64_t inner,
                                   int32_t is_min, int32_t last, int64_t o) {
  const int64_t oo = o / inner, j = o - oo * inner;
  const float *p = x + oo * len * inner + j;
  float best = p[0];
  bool bestNaN = best != best;
  int64_t bi = 0;
  for (int64_t k = 1; k < len; ++k) {
    const float v = p[k * inner];
    const bool vNaN = v != v;
    bool take;
    if (bestNaN)
      take = last && vNaN;
    else if (vNaN)
      take = true;
    else if (v == best)
      take = last != 0;
    else
      take = is_min ? (v < best) : (v > best);
    if (take) {
      best = v;
      bestNaN = vNaN;
      bi = k;
    }
  }
  return bi;
}

//===----------------------------------------------------------------------===//
// Softmax, normalisation.
//===----------------------------------------------------------------------===//

/// One row (r = outer index * inner + inner index) of Softmax / LogSoftmax.
PLUMB_INLINE void softmaxRow(const float *x, float *y, int64_t len,
                             int64_t inner, int32_t log_softmax, int64_t block,
                             int64_t r) {
  const int64_t o = r / inner, j = r - o * inner;
  const float *px = x + o * len * inner + j;
  float *py = y + o * len * inner + j;
  float mx = ops::negInf();
  for (int64_t i = 0; i < len; ++i)
    mx = ops::maxF(mx, px[i * inner]);
  if (!log_softmax) {
    for (int64_t i = 0; i < len; ++i)
      py[i * inner] = ::plumb::rt::exp(px[i * inner] - mx);
    const float s = treeSumStrided(py, len, inner, block);
    for (int64_t i = 0; i < len; ++i)
      py[i * inner] = ops::canon(py[i * inner] / s);
    return;
  }
  auto chunk = [px, inner, mx](int64_t lo, int64_t hi) {
    float acc = -0.0f;
    for (int64_t i = lo; i < hi; ++i)
      acc = acc + ::plumb::rt::exp(px[i * inner] - mx);
    return acc;
  };
  const float ls = ::plumb::rt::log(treeEval(len, block, -0.0f, chunk, AddOp()));
  for (int64_t i = 0; i < len; ++i)
    py[i * inner] = ops::canon((px[i * inner] - mx) - ls);
}

/// y = canon((((x - mean) / sqrt(var + eps)) * scale) + bias) for element i of
/// an [n, c, spatial] tensor.
PLUMB_INLINE void batchnormElement(const float *x, int64_t c, int64_t spatial,
                                   const float *scale, const float *bias,
                                   const float *mean, const float *var,
                                   float eps, float *y, int64_t i) {
  const int64_t k = (i / spatial) % c;
  const float sd = ops::sqrtRn(var[k] + eps);
  float t = x[i] - mean[k];
  t = t / sd;
  t = t * scale[k];
  y[i] = ops::canon(t + bias[k]);
}

/// The LayerNormalization sequence over one row of d values (norm.h).
/// scale/bias are read at i * sstride / i * bstride (bias may be null).
PLUMB_INLINE void normRow(const float *x, int64_t d, const float *scale,
                          int64_t sstride, const float *bias, int64_t bstride,
                          float eps, float *y, int64_t block, float *meanOut,
                          float *invOut) {
  if (d == 0) {
    if (meanOut)
      *meanOut = ops::canonicalNaN();
    if (invOut)
      *invOut = ops::canonicalNaN();
    return;
  }
  const float df = ops::castI64ToF32(d);
  const float mean = treeSumStrided(x, d, 1, block) / df;
  for (int64_t i = 0; i < d; ++i)
    y[i] = x[i] - mean;
  const float var = treeDotStrided(y, 1, y, 1, d, block) / df;
  const float sd = ops::sqrtRn(var + eps);
  for (int64_t i = 0; i < d; ++i) {
    float t = y[i] / sd;
    t = t * scale[i * sstride];
    if (bias)
      t = t + bias[i * bstride];
    y[i] = ops::canon(t);
  }
  if (meanOut)
    *meanOut = ops::canon(mean);
  if (invOut)
    *invOut = ops::canon(1.0f / sd);
}

//===----------------------------------------------------------------------===//
// Pooling.
//===----------------------------------------------------------------------===//

/// Pool geometry padded to three spatial dims (unused dims have size 1).
struct PoolGeom {
  int64_t in[3], out[3], k[3], st[3], pb[3], pe[3], dil[3];
  int64_t inSize, outSize;
};

/// Builds the geometry (host); mirrors the argument checks of pool.cpp.
inline int makePoolGeom(PoolGeom &g, int32_t sdims, const int64_t *in_spatial,
                        const int64_t *out_spatial, const int64_t *kernel,
                        const int64_t *strides, const int64_t *pads,
                        const int64_t *dilations) {
  if (sdims < 1 || sdims > 3 || !in_spatial || !out_spatial || !kernel ||
      !strides || !pads)
    return PLUMB_RT_EINVAL;
  g.inSize = g.outSize = 1;
  for (int32_t d = 0; d < 3; ++d) {
    if (d < sdims) {
      g.in[d] = in_spatial[d];
      g.out[d] = out_spatial[d];
      g.k[d] = kernel[d];
      g.st[d] = strides[d];
      g.pb[d] = pads[d];
      g.pe[d] = pads[sdims + d];
      g.dil[d] = dilations ? dilations[d] : 1;
      if (g.in[d] < 0 || g.out[d] < 0 || g.k[d] < 1 || g.st[d] < 1 ||
          g.dil[d] < 1)
        return PLUMB_RT_EINVAL;
    } else {
      g.in[d] = g.out[d] = g.k[d] = g.st[d] = g.dil[d] = 1;
      g.pb[d] = g.pe[d] = 0;
    }
    g.inSize *= g.in[d];
    g.outSize *= g.out[d];
  }
  return PLUMB_RT_OK;
}

/// Calls fn(offset in plane) for the valid window positions of output
/// (o0, o1, o2) in row-major window order.
template <typename Fn>
PLUMB_INLINE void poolWindow(const PoolGeom &g, const int64_t *o, Fn &fn) {
  for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
    const int64_t p0 = o[0] * g.st[0] - g.pb[0] + k0 * g.dil[0];
    if (p0 < 0 || p0 >= g.in[0])
      continue;
    for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
      const int64_t p1 = o[1] * g.st[1] - g.pb[1] + k1 * g.dil[1];
      if (p1 < 0 || p1 >= g.in[1])
        continue;
      for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
        const int64_t p2 = o[2] * g.st[2] - g.pb[2] + k2 * g.dil[2];
        if (p2 < 0 || p2 >= g.in[2])
          continue;
        fn((p0 * g.in[1] + p1) * g.in[2] + p2);
      }
    }
  }
}

PLUMB_INLINE void poolCoords(const PoolGeom &g, int64_t i, int64_t *o,
                             int64_t *plane) {
  o[2] = i % g.out[2];
  i /= g.out[2];
  o[1] = i % g.out[1];
  i /= g.out[1];
  o[0] = i % g.out[0];
  *plane = i / g.out[0];
}

/// MaxPool output i (and its index when `indices` is non-null).
PLUMB_INLINE void maxpoolElement(const PoolGeom &g, const float *x, float *y,
                                 int64_t *indices, int64_t i) {
  int64_t o[3], pl;
  poolCoords(g, i, o, &pl);
  const float *plane = x + pl * g.inSize;
  float best = ops::negInf();
  auto fmax = [&](int64_t off) { best = ops::maxF(best, plane[off]); };
  poolWindow(g, o, fmax);
  y[i] = best;
  if (indices) {
    const uint32_t want = ops::bitsOf(best);
    int64_t idx = -1;
    auto find = [&](int64_t off) {
      if (idx < 0 && ops::bitsOf(ops::canon(plane[off])) == want)
        idx = off;
    };
    poolWindow(g, o, find);
    indices[i] = idx < 0 ? -1 : pl * g.inSize + idx;
  }
}

/// AveragePool output i.
PLUMB_INLINE void avgpoolElement(const PoolGeom &g, const float *x, float *y,
                                 int32_t count_include_pad, int64_t i) {
  int64_t o[3], pl;
  poolCoords(g, i, o, &pl);
  const float *plane = x + pl * g.inSize;
  float acc = -0.0f;
  int64_t valid = 0;
  auto sum = [&](int64_t off) {
    acc = acc + plane[off];
    ++valid;
  };
  poolWindow(g, o, sum);
  int64_t cnt = valid;
  if (count_include_pad) {
    cnt = 1;
    for (int32_t d = 0; d < 3; ++d) {
      const int64_t b = o[d] * g.st[d] - g.pb[d];
      int64_t c = 0;
      for (int64_t k = 0; k < g.k[d]; ++k) {
        const int64_t p = b + k * g.dil[d];
        if (p >= -g.pb[d] && p < g.in[d] + g.pe[d])
          ++c;
      }
      cnt *= c;
    }
  }
  y[i] = ops::canon(acc / ops::castI64ToF32(cnt));
}

/// GlobalAveragePool / GlobalMaxPool of row r.
PLUMB_INLINE void globalPoolElement(const float *x, int64_t spatial,
                                    int32_t is_max, float *y, int64_t block,
                                    int64_t r) {
  const float *p = x + r * spatial;
  if (is_max) {
    float b = ops::negInf();
    for (int64_t i = 0; i < spatial; ++i)
      b = ops::maxF(b, p[i]);
    y[r] = b;
    return;
  }
  y[r] = ops::canon(treeSumStrided(p, spatial, 1, block) /
                    ops::castI64ToF32(spatial));
}

//===----------------------------------------------------------------------===//
// Resize (nearest / n-linear).
//===----------------------------------------------------------------------===//

struct ResizeArgs {
  int32_t rank, mode, coord, nearest;
  int64_t in[PLUMB_RT_MAX_RANK], out[PLUMB_RT_MAX_RANK], st[PLUMB_RT_MAX_RANK];
  float scale[PLUMB_RT_MAX_RANK];
};

/// Source index pair and weight of output index i on dim d (resize.h).
PLUMB_INLINE void resizeDim(const ResizeArgs &a, int32_t d, int64_t i,
                            int64_t *i0, int64_t *i1, float *l) {
  const int64_t in = a.in[d];
  float c = ops::resizeCoord(a.coord, i, in, a.out[d], a.scale[d]);
  const float hiF = ops::castI64ToF32(in - 1);
  if (a.mode == PLUMB_RT_RESIZE_NEAREST) {
    float r;
    if (a.nearest == PLUMB_RT_NEAREST_FLOOR) {
      r = ops::floorF(c);
    } else if (a.nearest == PLUMB_RT_NEAREST_CEIL) {
      r = ops::ceilF(c);
    } else {
      const float f = ops::floorF(c);
      const float frac = c - f;
      const bool up = a.nearest == PLUMB_RT_NEAREST_ROUND_PREFER_CEIL
                          ? frac >= 0.5f
                          : frac > 0.5f;
      r = up ? f + 1.0f : f;
    }
    if (!(r >= 0.0f))
      r = 0.0f;
    if (r > hiF)
      r = hiF;
    *i0 = *i1 = (int64_t)r;
    *l = 0.0f;
    return;
  }
  if (!(c >= 0.0f))
    c = 0.0f;
  if (c > hiF)
    c = hiF;
  const float f = ops::floorF(c);
  *i0 = (int64_t)f;
  *i1 = *i0 + 1 < in ? *i0 + 1 : in - 1;
  *l = c - f;
}

/// Output element idx of Resize. Linear: separable, innermost dim first;
/// a dim with l == 0 takes the i0 value, else v = (v0 * (1 - l)) + (v1 * l).
PLUMB_INLINE void resizeElement(const ResizeArgs &a, const float *x, float *y,
                                int64_t idx) {
  int64_t o[PLUMB_RT_MAX_RANK];
  int64_t q = idx;
  for (int32_t d = a.rank - 1; d >= 0; --d) {
    o[d] = q % a.out[d];
    q /= a.out[d];
  }
  int64_t i0[PLUMB_RT_MAX_RANK], i1[PLUMB_RT_MAX_RANK];
  float l[PLUMB_RT_MAX_RANK];
  int64_t base = 0;
  int32_t act[PLUMB_RT_MAX_RANK], na = 0;
  for (int32_t d = 0; d < a.rank; ++d) {
    resizeDim(a, d, o[d], &i0[d], &i1[d], &l[d]);
    base += i0[d] * a.st[d];
    if (l[d] != 0.0f)
      act[na++] = d;
  }
  if (a.mode == PLUMB_RT_RESIZE_NEAREST) {
    y[idx] = x[base]; // bits moved, no arithmetic
    return;
  }
  // Leaves: bit (na-1-j) of the leaf index selects i1 on active dim act[j]
  // (outermost active dim = most significant bit).
  float v[1 << PLUMB_RT_MAX_RANK];
  const int64_t leaves = (int64_t)1 << na;
  for (int64_t s = 0; s < leaves; ++s) {
    int64_t off = base;
    for (int32_t j = 0; j < na; ++j)
      if ((s >> (na - 1 - j)) & 1)
        off += (i1[act[j]] - i0[act[j]]) * a.st[act[j]];
    v[s] = x[off];
  }
  // Combine innermost active dim first (least significant bit).
  for (int32_t j = na - 1; j >= 0; --j) {
    const float lw = l[act[j]];
    const float w0 = 1.0f - lw;
    const int64_t half = (int64_t)1 << j;
    for (int64_t s = 0; s < half; ++s)
      v[s] = (v[2 * s] * w0) + (v[2 * s + 1] * lw);
  }
  y[idx] = ops::canon(v[0]);
}

} // namespace cuda
} // namespace plumb

#endif // PLUMB_RUNTIME_CUDA_DEVICE_OPS_H
