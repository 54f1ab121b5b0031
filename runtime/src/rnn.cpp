//===- runtime/src/rnn.cpp - LSTM and GRU kernels ------------*- C++ -*-===//
//
// Part of Plumb. Semantics in rnn.h (LSTM, GRU, RNN). The input projections X_t . W^T of all
// steps are computed first (independent dot trees, split over threads); the
// recurrence then runs step by step, each step split over batch x units.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/rnn.h"
#include "plumb/runtime/cast.h"
#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/gemm.h"
#include "plumb/runtime/math_kernels.h"
#include "plumb/runtime/tree.h"

#include "gemv.h"
#include "gemm_kernels.h"
#include "qdot.h"
#include "ops_internal.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include <vector>

using namespace plumb::rt::ops;
using plumb::rt::fma_rn;

namespace {

using plumb::rt::detail::kPanel;
using plumb::rt::detail::packTransposed;
using plumb::rt::detail::packedDots;

inline float clipA(float a, float clip) {
  return clip > 0.0f ? minF(maxF(a, -clip), clip) : a;
}

struct Dims {
  int64_t seq, batch, in, hid, dirs, gates;
};

int checkCommon(const float *X, const float *W, const float *R,
                const int32_t *seq_lens, int64_t seq, int64_t batch,
                int64_t input, int64_t hidden, int32_t direction) {
  if (seq < 0 || batch < 0 || input < 0 || hidden < 0 ||
      direction < PLUMB_RT_RNN_FORWARD ||
      direction > PLUMB_RT_RNN_BIDIRECTIONAL)
    return PLUMB_RT_EINVAL;
  if ((seq * batch * input > 0 && !X) || (hidden > 0 && (!W || !R)))
    return PLUMB_RT_EINVAL;
  if (seq_lens)
    for (int64_t b = 0; b < batch; ++b)
      if (seq_lens[b] < 0 || seq_lens[b] > seq)
        return PLUMB_RT_EINVAL;
  return PLUMB_RT_OK;
}

/// Input projections for one direction: XW[(t * batch + b) * G + g] =
/// treeDot(X[t, b, :], W[g, :], in, block), every step at once with the GEMM
/// kernel (its elements are exactly treeDot; only a NaN's payload may
/// differ, and every state and output is canonicalised).
void projectInputs(const float *X, const float *Wd, const Dims &d,
                   int64_t block, std::vector<float> &XW) {
  const int64_t G = d.gates * d.hid, rows = d.seq * d.batch;
  XW.assign((size_t)(rows * G), 0.0f);
  if (rows == 0 || G == 0)
    return;
  plumb_rt_gemm_strided(rows, G, d.in, 1.0f, X, d.in, 1, Wd, 1, d.in, 1.0f,
                        nullptr, 0, 0, XW.data(), G, block);
}

/// Gate outputs per task of a recurrent step.
constexpr int64_t kGateBlock = kPanel;

/// Step index of iteration k for batch entry b (or -1 if not processed).
inline int64_t stepOf(bool reverse, int64_t k, int64_t len) {
  if (k >= len)
    return -1;
  return reverse ? len - 1 - k : k;
}

/// The LSTM cell update of step k for every active batch entry, from the
/// gate pre-activations `gates` [batch, 4H] (everything before peepholes and
/// clip). Without peepholes and input_forget, the gates i, o, f (the first
/// 3H pre-activations) go through the sigmoid array kernel and c through
/// the tanh one (each element the same function as the scalar call:
/// math_kernels.h); the rest per element as written.
void lstmCells(float *gates, float *hst, float *cst, float *act, float *tanhC,
               const float *Pd, float clip, int32_t input_forget,
               const int32_t *seq_lens, int64_t seq, int64_t Bn, int64_t H,
               int64_t k, bool reverse, float *Y, int64_t dirs, int64_t dir) {
  const bool arrays = !Pd && !input_forget;
  for (int64_t b = 0; b < Bn; ++b) {
    const int64_t len = seq_lens ? seq_lens[b] : seq;
    const int64_t t = stepOf(reverse, k, len);
    if (t < 0)
      continue;
    float *a = gates + b * 4 * H;
    float *h = hst + b * H, *c = cst + b * H;
    if (arrays) {
      if (clip > 0.0f)
        for (int64_t g = 0; g < 4 * H; ++g)
          a[g] = clipA(a[g], clip);
      plumb_rt_sigmoid_f32(a, a, 3 * H);
      plumb_rt_tanh_f32(a + 3 * H, a + 3 * H, H);
      float *cn = act + b * H;
      for (int64_t j = 0; j < H; ++j)
        cn[j] = (a[2 * H + j] * c[j]) + (a[j] * a[3 * H + j]);
      plumb_rt_tanh_f32(cn, tanhC, H);
      for (int64_t j = 0; j < H; ++j) {
        const float hn = a[H + j] * tanhC[j];
        c[j] = canon(cn[j]);
        h[j] = canon(hn);
        if (Y)
          Y[((t * dirs + dir) * Bn + b) * H + j] = h[j];
      }
      continue;
    }
    for (int64_t j = 0; j < H; ++j) {
      float ai = a[j], ao = a[H + j], af = a[2 * H + j], ac = a[3 * H + j];
      const float cprev = c[j];
      if (Pd) {
        ai = ai + (Pd[j] * cprev);
        af = af + (Pd[2 * H + j] * cprev);
      }
      const float ig = ::plumb::rt::sigmoid(clipA(ai, clip));
      const float fg =
          input_forget ? 1.0f - ig : ::plumb::rt::sigmoid(clipA(af, clip));
      const float cg = ::plumb::rt::tanh(clipA(ac, clip));
      const float cn = (fg * cprev) + (ig * cg);
      if (Pd)
        ao = ao + (Pd[H + j] * cn);
      const float og = ::plumb::rt::sigmoid(clipA(ao, clip));
      const float hn = og * ::plumb::rt::tanh(cn);
      c[j] = canon(cn);
      h[j] = canon(hn);
      if (Y)
        Y[((t * dirs + dir) * Bn + b) * H + j] = h[j];
    }
  }
}

} // namespace

extern "C" int plumb_rt_lstm_f32(const float *X, const float *W,
                                 const float *R, const float *B,
                                 const int32_t *seq_lens,
                                 const float *initial_h,
                                 const float *initial_c, const float *P,
                                 int64_t seq, int64_t batch, int64_t input,
                                 int64_t hidden, int32_t direction, float clip,
                                 int32_t input_forget, float *Y, float *Y_h,
                                 float *Y_c, int64_t block) {
  int rc = checkCommon(X, W, R, seq_lens, seq, batch, input, hidden,
                       direction);
  if (rc != PLUMB_RT_OK)
    return rc;
  Dims d{seq, batch, input, hidden,
         direction == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1, 4};
  const int64_t H = hidden, G = 4 * H, Bn = batch;
  if (Y)
    for (int64_t i = 0; i < seq * d.dirs * Bn * H; ++i)
      Y[i] = 0.0f;
  std::vector<float> XW, RT, hst((size_t)(Bn * H)), cst((size_t)(Bn * H)),
      gates((size_t)(Bn * G)), act((size_t)(Bn * H)), tanhC((size_t)H);
  const int64_t mh = ::plumb::rt::treeChunks(H, block);
  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    const bool reverse = direction == PLUMB_RT_RNN_REVERSE || dir == 1;
    const float *Wd = W + dir * G * input, *Rd = R + dir * G * H;
    const float *Wb = B ? B + dir * 2 * G : nullptr;
    const float *Rb = B ? Wb + G : nullptr;
    const float *Pd = P ? P + dir * 3 * H : nullptr;
    projectInputs(X, Wd, d, block, XW);
    for (int64_t i = 0; i < Bn * H; ++i) {
      hst[(size_t)i] = initial_h ? initial_h[dir * Bn * H + i] : 0.0f;
      cst[(size_t)i] = initial_c ? initial_c[dir * Bn * H + i] : 0.0f;
    }
    // The recurrent weights, transposed once for the whole sequence.
    packTransposed(Rd, G, H, RT);
    for (int64_t k = 0; k < seq; ++k) {
      // Gate pre-activations (all but peephole / clip) for every active b:
      // h . R^T (one tree per gate element), then + XW + Wb + Rb in order.
      const int64_t blocks = (G + kGateBlock - 1) / kGateBlock;
      parallelRange(Bn * blocks, 1 + (1 << 20) / (kGateBlock * H + 1),
                    [&](int64_t lo, int64_t hi) {
        std::vector<float> partials((size_t)(mh > 1 ? mh * kPanel : 0));
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t b = r / blocks, g0 = (r % blocks) * kGateBlock;
          const int64_t g1 = g0 + kGateBlock < G ? g0 + kGateBlock : G;
          const int64_t len = seq_lens ? seq_lens[b] : seq;
          const int64_t t = stepOf(reverse, k, len);
          if (t < 0)
            continue;
          float *a = gates.data() + b * G;
          packedDots(hst.data() + b * H, RT.data(), G, H, block, g0, g1, a,
                     partials.data());
          const float *xw = XW.data() + (t * Bn + b) * G;
          for (int64_t g = g0; g < g1; ++g) {
            float v = xw[g] + a[g];
            if (B) {
              v = v + Wb[g];
              v = v + Rb[g];
            }
            a[g] = v;
          }
        }
      });
      lstmCells(gates.data(), hst.data(), cst.data(), act.data(),
                tanhC.data(), Pd, clip, input_forget, seq_lens, seq, Bn, H,
                k, reverse, Y, d.dirs, dir);
    }
    if (Y_h)
      for (int64_t i = 0; i < Bn * H; ++i)
        Y_h[dir * Bn * H + i] = hst[(size_t)i];
    if (Y_c)
      for (int64_t i = 0; i < Bn * H; ++i)
        Y_c[dir * Bn * H + i] = cst[(size_t)i];
  }
  return PLUMB_RT_OK;
}

namespace {

/// DynamicQuantizeLinear of n floats to uint8 values (held as int32), with
/// exactly the operation sequence of the importer's composition
/// (docs/determinism.md, narrow integers): lo = min(0, min x), hi = max(0,
/// max x), s = hi == lo ? 1 : (hi - lo) / 255, z = rne(clamp(0 - lo / s, 0,
/// 255)), q = int32(rne(clamp(x / s, 0 - z, 255 - z))) + int32(z).
void dynamicQuantizeScalar(const float *x, int64_t n, int32_t *q,
                           float &scale, int32_t &zp) {
  float lo = 0.0f, hi = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    lo = minF(lo, x[i]);
    hi = maxF(hi, x[i]);
  }
  scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float zf = roundEvenF(minF(maxF(0.0f - lo / scale, 0.0f), 255.0f));
  zp = (int32_t)zf;
  const float qlo = 0.0f - zf, qhi = 255.0f - zf;
  for (int64_t i = 0; i < n; ++i)
    q[i] = castF32ToI32(roundEvenF(minF(maxF(x[i] / scale, qlo), qhi))) + zp;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/// dynamicQuantizeScalar's values on AVX-512 when x has no NaN and the scale
/// is finite (false otherwise: the caller runs the scalar form). Then every
/// x / s is finite and the clamp, rounding and conversion give integers, so
/// the sign of a zero (the only place min/max ties differ) cannot show; lo
/// and hi enter only through hi - lo, hi == lo and 0 - lo / s, where a
/// zero's sign does not change the value either.
__attribute__((target("avx512f"))) inline __m512i
quantize16(__m512 v, __m512 s, __m512 qlo, __m512 qhi, __m512i z) {
  v = _mm512_min_ps(_mm512_max_ps(_mm512_div_ps(v, s), qlo), qhi);
  v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  return _mm512_add_epi32(_mm512_cvttps_epi32(v), z);
}

__attribute__((target("avx512f"))) bool
dynamicQuantizeAvx512(const float *x, int64_t n, int32_t *q, float &scale,
                      int32_t &zp) {
  __m512 vlo = _mm512_setzero_ps(), vhi = _mm512_setzero_ps();
  __mmask16 nan = 0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 v = _mm512_loadu_ps(x + i);
    nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    vlo = _mm512_min_ps(vlo, v);
    vhi = _mm512_max_ps(vhi, v);
  }
  if (i < n) {
    const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
    const __m512 v = _mm512_maskz_loadu_ps(m, x + i);
    nan |= _mm512_mask_cmp_ps_mask(m, v, v, _CMP_UNORD_Q);
    vlo = _mm512_min_ps(vlo, v);
    vhi = _mm512_max_ps(vhi, v);
  }
  if (nan)
    return false;
  const float lo = _mm512_reduce_min_ps(vlo), hi = _mm512_reduce_max_ps(vhi);
  scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  if (!(scale - scale == 0.0f))
    return false;
  const float zf = roundEvenF(minF(maxF(0.0f - lo / scale, 0.0f), 255.0f));
  zp = (int32_t)zf;
  const __m512 s = _mm512_set1_ps(scale), qlo = _mm512_set1_ps(0.0f - zf),
               qhi = _mm512_set1_ps(255.0f - zf);
  const __m512i z = _mm512_set1_epi32(zp);
  for (i = 0; i + 16 <= n; i += 16)
    _mm512_storeu_si512(q + i, quantize16(_mm512_loadu_ps(x + i), s, qlo, qhi, z));
  if (i < n) {
    const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
    _mm512_mask_storeu_epi32(
        q + i, m, quantize16(_mm512_maskz_loadu_ps(m, x + i), s, qlo, qhi, z));
  }
  return true;
}
#endif

void dynamicQuantize(const float *x, int64_t n, int32_t *q, float &scale,
                     int32_t &zp) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool has512 = __builtin_cpu_supports("avx512f");
  if (has512 && plumb_rt_gemm_active_isa() >= plumb::rt::detail::kIsaAvx512 &&
      dynamicQuantizeAvx512(x, n, q, scale, zp))
    return;
#endif
  dynamicQuantizeScalar(x, n, q, scale, zp);
}

/// out[r, g] = float(sum_k (q[r, k] - qz) * (w[k, g] - wz[g])) * (qs *
/// ws[g]) for r < rows, g < G, the weights packed by qdotPackMatrix (ws per
/// column when perCol, else one value). The integer sum is exact (|q - qz|
/// and |w - wz| <= 255, K < 2^15: no partial sum leaves int32), so its
/// schedule (qdot.h) cannot change a bit.
void quantizedProduct(const int32_t *q, int32_t qz, float qs, int64_t rows,
                      int64_t K, const void *wp, const float *ws,
                      bool perCol, int64_t G, float *out) {
  const int64_t GB = (G + 15) / 16, ldo = GB * 16;
  std::vector<int32_t> a((size_t)(rows * K)), acc((size_t)(rows * ldo));
  for (int64_t i = 0; i < rows * K; ++i)
    a[(size_t)i] = q[i] - qz;
  std::vector<uint32_t> words;
  int32_t base = 0;
  // |q - qz| <= 255 spans at most 255: fits either form.
  plumb::rt::detail::qdotMatrixRows(wp, a.data(), rows, K, words, base);
  const int64_t grain = 1 + (1 << 17) / (rows * K * 16 + 1);
  parallelRange(GB, grain, [&](int64_t lo, int64_t hi) {
    plumb::rt::detail::qdotMatrixProduct(wp, words.data(), rows, base, lo,
                                         hi, acc.data(), ldo);
  });
  std::vector<float> mult((size_t)G);
  for (int64_t g = 0; g < G; ++g)
    mult[(size_t)g] = qs * ws[perCol ? g : 0];
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t g = 0; g < G; ++g)
      out[r * G + g] = (float)acc[(size_t)(r * ldo + g)] * mult[(size_t)g];
}

/// Bytes of one direction's packed W and R.
void dqPackedBytes(int64_t input, int64_t hidden, int64_t &bW, int64_t &bR) {
  bW = plumb::rt::detail::qdotMatrixBytes(input, 4 * hidden);
  bR = plumb::rt::detail::qdotMatrixBytes(hidden, 4 * hidden);
}

bool dqShapeOk(int64_t input, int64_t hidden, int32_t direction) {
  return input >= 0 && hidden >= 0 && input < 32768 && hidden < 32768 &&
         direction >= PLUMB_RT_RNN_FORWARD &&
         direction <= PLUMB_RT_RNN_BIDIRECTIONAL;
}

} // namespace

extern "C" int64_t plumb_rt_lstm_dq_packed_size(int64_t input, int64_t hidden,
                                                int32_t direction) {
  if (!dqShapeOk(input, hidden, direction))
    return -1;
  int64_t bW, bR;
  dqPackedBytes(input, hidden, bW, bR);
  const int64_t dirs = direction == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1;
  return dirs * (bW + bR);
}

extern "C" int plumb_rt_lstm_dq_pack(const int32_t *W, const int32_t *w_zp,
                                     int64_t w_per_col, const int32_t *R,
                                     const int32_t *r_zp, int64_t r_per_col,
                                     int64_t input, int64_t hidden,
                                     int32_t direction, void *packed) {
  if (!dqShapeOk(input, hidden, direction) || !packed ||
      (hidden > 0 && (!R || (input > 0 && !W))))
    return PLUMB_RT_EINVAL;
  const int64_t dirs = direction == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1;
  const int64_t H = hidden, G = 4 * H, wsN = w_per_col ? G : 1,
                rsN = r_per_col ? G : 1;
  int64_t bW, bR;
  dqPackedBytes(input, hidden, bW, bR);
  unsigned char *p = static_cast<unsigned char *>(packed);
  for (int64_t dir = 0; dir < dirs; ++dir) {
    unsigned char *pw = p + dir * (bW + bR), *pr = pw + bW;
    // 8-bit operands: every weight minus its zero point within +-255, so
    // the int32 sums of the products cannot wrap (K < 2^15).
    int64_t mw = 0, mr = 0;
    if (plumb::rt::detail::qdotPackMatrix(W + dir * input * G,
                                          w_zp ? w_zp + dir * wsN : nullptr,
                                          w_per_col != 0, input, G, pw,
                                          &mw) == plumb::rt::detail::kQdotNone ||
        plumb::rt::detail::qdotPackMatrix(R + dir * H * G,
                                          r_zp ? r_zp + dir * rsN : nullptr,
                                          r_per_col != 0, H, G, pr,
                                          &mr) == plumb::rt::detail::kQdotNone ||
        mw > 255 || mr > 255)
      return PLUMB_RT_EINVAL;
  }
  return PLUMB_RT_OK;
}

extern "C" int plumb_rt_lstm_dq_packed_f32(
    const float *X, const void *packed, const float *w_scale,
    int64_t w_per_col, const float *r_scale, int64_t r_per_col,
    const float *B, const float *initial_h, const float *initial_c,
    const float *P, int64_t seq, int64_t batch, int64_t input,
    int64_t hidden, int32_t direction, float clip, int32_t input_forget,
    float *Y, float *Y_h, float *Y_c) {
  if (seq < 0 || batch < 0 || !dqShapeOk(input, hidden, direction) ||
      !w_scale || !r_scale || (seq * batch * input > 0 && !X) ||
      (hidden > 0 && !packed))
    return PLUMB_RT_EINVAL;
  const int64_t dirs = direction == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1;
  const int64_t H = hidden, G = 4 * H, Bn = batch, rows = seq * batch;
  int64_t bW, bR;
  dqPackedBytes(input, hidden, bW, bR);
  const unsigned char *pk = static_cast<const unsigned char *>(packed);
  if (Y)
    for (int64_t i = 0; i < seq * dirs * Bn * H; ++i)
      Y[i] = 0.0f;
  // X is quantized once (every step at once), the same for both directions.
  std::vector<int32_t> xq((size_t)(rows * input)), hq((size_t)(Bn * H));
  float xs = 1.0f;
  int32_t xz = 0;
  dynamicQuantize(X, rows * input, xq.data(), xs, xz);
  std::vector<float> XW((size_t)(rows * G)), HR((size_t)(Bn * G)),
      hst((size_t)(Bn * H)), cst((size_t)(Bn * H)), gates((size_t)(Bn * G)),
      act((size_t)(Bn * H)), tanhC((size_t)H);
  for (int64_t dir = 0; dir < dirs; ++dir) {
    const bool reverse = direction == PLUMB_RT_RNN_REVERSE || dir == 1;
    const int64_t wsN = w_per_col ? G : 1, rsN = r_per_col ? G : 1;
    const float *Wb = B ? B + dir * 2 * G : nullptr;
    const float *Rb = B ? Wb + G : nullptr;
    const float *Pd = P ? P + dir * 3 * H : nullptr;
    const unsigned char *pw = pk ? pk + dir * (bW + bR) : nullptr;
    const unsigned char *pr = pw ? pw + bW : nullptr;
    if (rows > 0 && G > 0)
      quantizedProduct(xq.data(), xz, xs, rows, input, pw,
                       w_scale + dir * wsN, w_per_col != 0, G, XW.data());
    for (int64_t i = 0; i < Bn * H; ++i) {
      hst[(size_t)i] = initial_h ? initial_h[dir * Bn * H + i] : 0.0f;
      cst[(size_t)i] = initial_c ? initial_c[dir * Bn * H + i] : 0.0f;
    }
    for (int64_t k = 0; k < seq; ++k) {
      // H of the previous step, quantized over the whole batch, times R.
      float hs = 1.0f;
      int32_t hz = 0;
      dynamicQuantize(hst.data(), Bn * H, hq.data(), hs, hz);
      if (Bn > 0 && G > 0)
        quantizedProduct(hq.data(), hz, hs, Bn, H, pr, r_scale + dir * rsN,
                         r_per_col != 0, G, HR.data());
      for (int64_t b = 0; b < Bn; ++b) {
        const int64_t t = stepOf(reverse, k, seq);
        const float *xw = XW.data() + (t * Bn + b) * G;
        const float *hr = HR.data() + b * G;
        float *a = gates.data() + b * G;
        for (int64_t g = 0; g < G; ++g) {
          float v = xw[g] + hr[g];
          if (B) {
            v = v + Wb[g];
            v = v + Rb[g];
          }
          a[g] = v;
        }
      }
      lstmCells(gates.data(), hst.data(), cst.data(), act.data(),
                tanhC.data(), Pd, clip, input_forget, nullptr, seq, Bn, H, k,
                reverse, Y, dirs, dir);
    }
    if (Y_h)
      for (int64_t i = 0; i < Bn * H; ++i)
        Y_h[dir * Bn * H + i] = hst[(size_t)i];
    if (Y_c)
      for (int64_t i = 0; i < Bn * H; ++i)
        Y_c[dir * Bn * H + i] = cst[(size_t)i];
  }
  return PLUMB_RT_OK;
}

extern "C" int plumb_rt_lstm_dq_f32(
    const float *X, const int32_t *W, const float *w_scale,
    const int32_t *w_zp, int64_t w_per_col, const int32_t *R,
    const float *r_scale, const int32_t *r_zp, int64_t r_per_col,
    const float *B, const float *initial_h, const float *initial_c,
    const float *P, int64_t seq, int64_t batch, int64_t input,
    int64_t hidden, int32_t direction, float clip, int32_t input_forget,
    float *Y, float *Y_h, float *Y_c) {
  if (seq < 0 || batch < 0 || !dqShapeOk(input, hidden, direction) ||
      !w_scale || !r_scale || (seq * batch * input > 0 && !X) ||
      (hidden > 0 && (!W || !R)))
    return PLUMB_RT_EINVAL;
  const int64_t bytes = plumb_rt_lstm_dq_packed_size(input, hidden, direction);
  // 64-byte words: the packed form's regions are multiples of 64 bytes.
  std::vector<uint64_t> packed((size_t)((bytes + 7) / 8));
  int rc = plumb_rt_lstm_dq_pack(W, w_zp, w_per_col, R, r_zp, r_per_col,
                                 input, hidden, direction, packed.data());
  if (rc != PLUMB_RT_OK)
    return rc;
  return plumb_rt_lstm_dq_packed_f32(
      X, packed.data(), w_scale, w_per_col, r_scale, r_per_col, B, initial_h,
      initial_c, P, seq, batch, input, hidden, direction, clip, input_forget,
      Y, Y_h, Y_c);
}

extern "C" int plumb_rt_gru_f32(const float *X, const float *W, const float *R,
                                const float *B, const int32_t *seq_lens,
                                const float *initial_h, int64_t seq,
                                int64_t batch, int64_t input, int64_t hidden,
                                int32_t direction, float clip,
                                int32_t linear_before_reset, float *Y,
                                float *Y_h, int64_t block) {
  int rc = checkCommon(X, W, R, seq_lens, seq, batch, input, hidden,
                       direction);
  if (rc != PLUMB_RT_OK)
    return rc;
  Dims d{seq, batch, input, hidden,
         direction == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1, 3};
  const int64_t H = hidden, G = 3 * H, Bn = batch;
  if (Y)
    for (int64_t i = 0; i < seq * d.dirs * Bn * H; ++i)
      Y[i] = 0.0f;
  std::vector<float> XW, RT, hst((size_t)(Bn * H)), gates((size_t)(Bn * G)),
      rh((size_t)(Bn * H));
  const int64_t mh = ::plumb::rt::treeChunks(H, block);
  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    const bool reverse = direction == PLUMB_RT_RNN_REVERSE || dir == 1;
    const float *Wd = W + dir * G * input, *Rd = R + dir * G * H;
    const float *Wb = B ? B + dir * 2 * G : nullptr;
    const float *Rb = B ? Wb + G : nullptr;
    projectInputs(X, Wd, d, block, XW);
    for (int64_t i = 0; i < Bn * H; ++i)
      hst[(size_t)i] = initial_h ? initial_h[dir * Bn * H + i] : 0.0f;
    auto active = [&](int64_t b, int64_t k) {
      const int64_t len = seq_lens ? seq_lens[b] : seq;
      return stepOf(reverse, k, len);
    };
    packTransposed(Rd, G, H, RT);
    // Phase 1 covers the z and r gates, and for linear_before_reset the raw
    // h . R_h^T too.
    const int64_t g1Phase1 = linear_before_reset ? G : 2 * H;
    for (int64_t k = 0; k < seq; ++k) {
      // Phase 1: z and r gates (a_z, a_r -> activations), and for
      // linear_before_reset the raw H . R_h^T.
      const int64_t blocks = (g1Phase1 + kGateBlock - 1) / kGateBlock;
      parallelRange(Bn * blocks, 1 + (1 << 20) / (kGateBlock * H + 1),
                    [&](int64_t lo, int64_t hi) {
        std::vector<float> partials((size_t)(mh > 1 ? mh * kPanel : 0));
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t b = r / blocks, g0 = (r % blocks) * kGateBlock;
          const int64_t g1 =
              g0 + kGateBlock < g1Phase1 ? g0 + kGateBlock : g1Phase1;
          const int64_t t = active(b, k);
          if (t < 0)
            continue;
          float *a = gates.data() + b * G;
          packedDots(hst.data() + b * H, RT.data(), G, H, block, g0, g1, a,
                     partials.data());
          const float *xw = XW.data() + (t * Bn + b) * G;
          const int64_t ge = g1 < 2 * H ? g1 : 2 * H;
          for (int64_t g = g0; g < ge; ++g) {
            float v = xw[g] + a[g];
            if (B) {
              v = v + Wb[g];
              v = v + Rb[g];
            }
            a[g] = clipA(v, clip);
          }
          // The z and r activations: the sigmoid array kernel (the same
          // function per element as the scalar call).
          if (ge > g0)
            plumb_rt_sigmoid_f32(a + g0, a + g0, ge - g0);
        }
      });
      // Phase 2: candidate and new state.
      parallelRange(Bn, 1 + (1 << 20) / (H * H + 1), [&](int64_t lo,
                                                         int64_t hi) {
        std::vector<float> partials((size_t)(mh > 1 ? mh * kPanel : 0));
        for (int64_t b = lo; b < hi; ++b) {
          const int64_t t = active(b, k);
          if (t < 0)
            continue;
          float *z = gates.data() + b * G, *rg = z + H, *ah = z + 2 * H;
          const float *hp = hst.data() + b * H;
          const float *xw = XW.data() + (t * Bn + b) * G + 2 * H;
          if (!linear_before_reset) {
            float *v = rh.data() + b * H;
            for (int64_t j = 0; j < H; ++j)
              v[j] = rg[j] * hp[j];
            packedDots(v, RT.data(), G, H, block, 2 * H, G, z,
                       partials.data());
            for (int64_t j = 0; j < H; ++j) {
              float a = xw[j] + ah[j];
              if (B) {
                a = a + Wb[2 * H + j];
                a = a + Rb[2 * H + j];
              }
              ah[j] = a;
            }
          } else {
            for (int64_t j = 0; j < H; ++j) {
              float tt = ah[j];
              if (B)
                tt = tt + Rb[2 * H + j];
              tt = rg[j] * tt;
              float a = xw[j] + tt;
              if (B)
                a = a + Wb[2 * H + j];
              ah[j] = a;
            }
          }
        }
      });
      for (int64_t b = 0; b < Bn; ++b) {
        const int64_t t = active(b, k);
        if (t < 0)
          continue;
        float *z = gates.data() + b * G, *ah = z + 2 * H;
        float *h = hst.data() + b * H;
        if (clip > 0.0f)
          for (int64_t j = 0; j < H; ++j)
            ah[j] = clipA(ah[j], clip);
        plumb_rt_tanh_f32(ah, ah, H);
        for (int64_t j = 0; j < H; ++j) {
          const float hc = ah[j];
          const float u = (1.0f - z[j]) * hc;
          const float hn = u + (z[j] * h[j]);
          h[j] = canon(hn);
          if (Y)
            Y[((t * d.dirs + dir) * Bn + b) * H + j] = h[j];
        }
      }
    }
    if (Y_h)
      for (int64_t i = 0; i < Bn * H; ++i)
        Y_h[dir * Bn * H + i] = hst[(size_t)i];
  }
  return PLUMB_RT_OK;
}

extern "C" int plumb_rt_rnn_f32(const float *X, const float *W, const float *R,
                                const float *B, const int32_t *seq_lens,
                                const float *initial_h, int64_t seq,
                                int64_t batch, int64_t input, int64_t hidden,
                                int32_t direction, float clip, int32_t act0,
                                float alpha0, float beta0, int32_t act1,
                                float alpha1, float beta1, float *Y,
                                float *Y_h, int64_t block) {
  int rc = checkCommon(X, W, R, seq_lens, seq, batch, input, hidden,
                       direction);
  if (rc != PLUMB_RT_OK)
    return rc;
  Dims d{seq, batch, input, hidden,
         direction == PLUMB_RT_RNN_BIDIRECTIONAL ? 2 : 1, 1};
  const int32_t acts[2] = {act0, act1};
  const float alphas[2] = {alpha0, alpha1}, betas[2] = {beta0, beta1};
  for (int64_t dir = 0; dir < d.dirs; ++dir)
    if (!unaryF32Valid(acts[dir]))
      return PLUMB_RT_EINVAL;
  const int64_t H = hidden, Bn = batch;
  if (Y)
    for (int64_t i = 0; i < seq * d.dirs * Bn * H; ++i)
      Y[i] = 0.0f;
  std::vector<float> XW, RT, hst((size_t)(Bn * H)), gates((size_t)(Bn * H));
  const int64_t mh = ::plumb::rt::treeChunks(H, block);
  for (int64_t dir = 0; dir < d.dirs; ++dir) {
    const bool reverse = direction == PLUMB_RT_RNN_REVERSE || dir == 1;
    const float *Wd = W + dir * H * input, *Rd = R + dir * H * H;
    const float *Wb = B ? B + dir * 2 * H : nullptr;
    const float *Rb = B ? Wb + H : nullptr;
    projectInputs(X, Wd, d, block, XW);
    for (int64_t i = 0; i < Bn * H; ++i)
      hst[(size_t)i] = initial_h ? initial_h[dir * Bn * H + i] : 0.0f;
    packTransposed(Rd, H, H, RT);
    for (int64_t k = 0; k < seq; ++k) {
      // Pre-activations of every active entry: h . R^T (one tree per
      // unit), then + XW + Wb + Rb in order, then clip; the state is
      // written only after every unit of the step is computed.
      const int64_t blocks = (H + kGateBlock - 1) / kGateBlock;
      parallelRange(Bn * blocks, 1 + (1 << 20) / (kGateBlock * H + 1),
                    [&](int64_t lo, int64_t hi) {
        std::vector<float> partials((size_t)(mh > 1 ? mh * kPanel : 0));
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t b = r / blocks, g0 = (r % blocks) * kGateBlock;
          const int64_t g1 = g0 + kGateBlock < H ? g0 + kGateBlock : H;
          const int64_t len = seq_lens ? seq_lens[b] : seq;
          const int64_t t = stepOf(reverse, k, len);
          if (t < 0)
            continue;
          float *a = gates.data() + b * H;
          packedDots(hst.data() + b * H, RT.data(), H, H, block, g0, g1, a,
                     partials.data());
          const float *xw = XW.data() + (t * Bn + b) * H;
          for (int64_t g = g0; g < g1; ++g) {
            float v = xw[g] + a[g];
            if (B) {
              v = v + Wb[g];
              v = v + Rb[g];
            }
            a[g] = clipA(v, clip);
          }
        }
      });
      // The activation over the whole step (entries that did not run hold
      // stale values, which are never stored).
      plumb_rt_unary_f32(acts[dir], gates.data(), gates.data(), Bn * H,
                         alphas[dir], betas[dir]);
      for (int64_t b = 0; b < Bn; ++b) {
        const int64_t t = stepOf(reverse, k, seq_lens ? seq_lens[b] : seq);
        if (t < 0)
          continue;
        float *h = hst.data() + b * H;
        const float *a = gates.data() + b * H;
        for (int64_t j = 0; j < H; ++j) {
          h[j] = canon(a[j]);
          if (Y)
            Y[((t * d.dirs + dir) * Bn + b) * H + j] = h[j];
        }
      }
    }
    if (Y_h)
      for (int64_t i = 0; i < Bn * H; ++i)
        Y_h[dir * Bn * H + i] = hst[(size_t)i];
  }
  return PLUMB_RT_OK;
}
