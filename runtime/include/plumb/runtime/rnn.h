//===- runtime/include/plumb/runtime/rnn.h - LSTM and GRU ------*- C++ -*-===//
//
// Part of Plumb. ONNX LSTM, GRU and RNN, layout 0 (X [seq, batch, input], Y [seq,
// dirs, batch, hidden]), directions forward / reverse / bidirectional,
// default activations (f = Sigmoid, g = h = Tanh, from math.h); RNN takes
// its activation by op code.
//
// Every gate pre-activation of unit j (gate row g = gate * H + j) at a step:
//   xw = treeDot(X_t[b, :], W[g, :], I, block)     (tree.h, fmaf chunks)
//   hr = treeDot(H_prev[b, :], R[g, :], H, block)
//   a  = xw + hr;  if B: a = a + Wb[g];  a = a + Rb[g]   (in this order)
// LSTM (gate order i, o, f, c as in ONNX W/R/B; peephole P order i, o, f):
//   peephole (if P): a_i = a_i + (P_i[j] * C_prev[j]); a_f likewise; a_o uses
//   the new C: a_o = a_o + (P_o[j] * C[j]).
//   clip > 0: a = Min(Max(a, -clip), clip) right before the activation.
//   i = sigmoid(a_i); f = input_forget ? 1 - i : sigmoid(a_f);
//   c~ = tanh(a_c); C = (f * C_prev) + (i * c~); o = sigmoid(a_o);
//   H = o * tanh(C).
// GRU (gate order z, r, h):
//   z = sigmoid(a_z), r = sigmoid(a_r) (a as above, clipped);
//   linear_before_reset = 0: rh = r * H_prev (per element);
//       a_h = xw_h + treeDot(rh, R_h[j, :]);  + Wbh;  + Rbh
//   linear_before_reset = 1: t = treeDot(H_prev, R_h[j, :]); t = t + Rbh (if
//       B); t = r * t; a_h = xw_h + t; a_h = a_h + Wbh (if B)
//   h~ = tanh(clip(a_h));  H = ((1 - z) * h~) + (z * H_prev).
// RNN (one gate; activation f per direction, a plumb_rt_unary_f32 op code
// with its alpha / beta):
//   a as above (xw + hr, + Wb, + Rb), clipped; H = f(a) (unaryF32 of
//   elementwise.h: the same function as the plumb op of that code).
// Without B no bias additions happen at all. Without initial_h / initial_c
// the states start at +0.0. seq_lens (int32, per batch entry, 0..seq) may be
// null (= all seq): entry b runs steps t < seq_lens[b] only (reverse: from
// seq_lens[b] - 1 down to 0); Y rows of unprocessed steps are +0.0; Y_h / Y_c
// hold the state after the last processed step (the initial state if none).
// All stores NaN-canonicalised. Threads split batch x gate rows.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_RNN_H
#define PLUMB_RUNTIME_RNN_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/ops_status.h"

#include <stdint.h>

enum plumb_rt_rnn_direction {
  PLUMB_RT_RNN_FORWARD = 0,
  PLUMB_RT_RNN_REVERSE = 1,
  PLUMB_RT_RNN_BIDIRECTIONAL = 2,
};

#ifdef __cplusplus
extern "C" {
#endif

/// LSTM. W [dirs, 4H, I], R [dirs, 4H, H], B [dirs, 8H] or null, P [dirs, 3H]
/// or null, initial_h / initial_c [dirs, batch, H] or null. Outputs Y [seq,
/// dirs, batch, H], Y_h / Y_c [dirs, batch, H], each may be null. clip <= 0:
/// no clipping. dirs = 2 for bidirectional, else 1.
int plumb_rt_lstm_f32(const float *X, const float *W, const float *R,
                      const float *B, const int32_t *seq_lens,
                      const float *initial_h, const float *initial_c,
                      const float *P, int64_t seq, int64_t batch,
                      int64_t input, int64_t hidden, int32_t direction,
                      float clip, int32_t input_forget, float *Y, float *Y_h,
                      float *Y_c, int64_t block);

/// com.microsoft DynamicQuantizeLSTM (as ONNX Runtime's quantizer writes
/// it): W [dirs, I, 4H] and R [dirs, H, 4H] hold 8-bit integers as int32,
/// with scales and zero points per direction (w_per_col = 0: [dirs]) or per
/// gate column ([dirs, 4H]); the zero points may be null (0). Per direction
/// X (all steps at once) and, at every step, H_prev (all batch entries) are
/// dynamically quantized to uint8 (DynamicQuantizeLinear's sequence); each
/// product is the exact int32 sum of (q - qz) * (w - wz[g]) times
/// (q_scale * w_scale[g]) (one rounding to float, then one multiply). The
/// gate pre-activation is (xw + hr), then + Wb, then + Rb; the cell update
/// is plumb_rt_lstm_f32's. No seq_lens; NaN-canonicalised stores.
int plumb_rt_lstm_dq_f32(const float *X, const int32_t *W,
                         const float *w_scale, const int32_t *w_zp,
                         int64_t w_per_col, const int32_t *R,
                         const float *r_scale, const int32_t *r_zp,
                         int64_t r_per_col, const float *B,
                         const float *initial_h, const float *initial_c,
                         const float *P, int64_t seq, int64_t batch,
                         int64_t input, int64_t hidden, int32_t direction,
                         float clip, int32_t input_forget, float *Y,
                         float *Y_h, float *Y_c);

/// plumb_rt_lstm_dq_f32 in two parts, for weights used run after run: the
/// zero-point-corrected W and R packed once (the bytes
/// plumb_rt_lstm_dq_packed_size gives; -1 for invalid sizes), then the
/// recurrence from the packed copy. The two give exactly the bits of
/// plumb_rt_lstm_dq_f32 (the integer sums are exact in any order). The pack
/// fails (PLUMB_RT_EINVAL) when a weight minus its zero point is outside
/// [-255, 255].
int64_t plumb_rt_lstm_dq_packed_size(int64_t input, int64_t hidden,
                                     int32_t direction);
int plumb_rt_lstm_dq_pack(const int32_t *W, const int32_t *w_zp,
                          int64_t w_per_col, const int32_t *R,
                          const int32_t *r_zp, int64_t r_per_col,
                          int64_t input, int64_t hidden, int32_t direction,
                          void *packed);
int plumb_rt_lstm_dq_packed_f32(const float *X, const void *packed,
                                const float *w_scale, int64_t w_per_col,
                                const float *r_scale, int64_t r_per_col,
                                const float *B, const float *initial_h,
                                const float *initial_c, const float *P,
                                int64_t seq, int64_t batch, int64_t input,
                                int64_t hidden, int32_t direction, float clip,
                                int32_t input_forget, float *Y, float *Y_h,
                                float *Y_c);

/// GRU. W [dirs, 3H, I], R [dirs, 3H, H], B [dirs, 6H] or null, initial_h
/// [dirs, batch, H] or null. Outputs Y [seq, dirs, batch, H] and Y_h.
int plumb_rt_gru_f32(const float *X, const float *W, const float *R,
                     const float *B, const int32_t *seq_lens,
                     const float *initial_h, int64_t seq, int64_t batch,
                     int64_t input, int64_t hidden, int32_t direction,
                     float clip, int32_t linear_before_reset, float *Y,
                     float *Y_h, int64_t block);

/// RNN (Elman). W [dirs, H, I], R [dirs, H, H], B [dirs, 2H] or null,
/// initial_h [dirs, batch, H] or null. act0 / alpha0 / beta0 is the
/// activation of direction 0 (forward, or the only direction), act1 ... that
/// of direction 1 (bidirectional only): plumb_rt_unary_f32 op codes (an
/// unknown code is PLUMB_RT_EINVAL). Outputs Y [seq, dirs, batch, H] and Y_h.
int plumb_rt_rnn_f32(const float *X, const float *W, const float *R,
                     const float *B, const int32_t *seq_lens,
                     const float *initial_h, int64_t seq, int64_t batch,
                     int64_t input, int64_t hidden, int32_t direction,
                     float clip, int32_t act0, float alpha0, float beta0,
                     int32_t act1, float alpha1, float beta1, float *Y,
                     float *Y_h, int64_t block);

#ifdef __cplusplus
}
#endif

#endif // PLUMB_RUNTIME_RNN_H
