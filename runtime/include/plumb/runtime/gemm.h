//===- runtime/include/plumb/runtime/gemm.h - Deterministic GEMM -*- C++ -*-===//
//
// Part of Plumb. Matrix products under a fixed reduction tree.
//
// Numeric definition (contract plumb-det-v1, see docs/determinism.md):
//   dot(m, n) = treeDot over k = 0..K-1 of the products A[m,k] * B[k,n] under
//               blocked(block): chunks of `block` consecutive k, each chunk
//               accumulated acc = fmaf(A[m,k], B[k,n], acc) from -0.0 in
//               increasing k, chunk results combined by stride-halving
//               (treeCombine). block == 0 means one chunk (sequential).
//   Epilogue (Gemm):   y = dot
//                      y = alpha * y           (skipped when alpha == 1: exact)
//                      if C: y = y + (beta * c) (beta * c skipped when beta==1)
//                      if y is NaN: y = 0x7FC00000
//   MatMul has no epilogue beyond the NaN canonicalisation.
// Every fast path (SIMD width, threads, cache blocking) reproduces this bit for
// bit; the scalar reference is plumb_rt_gemm_reference.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_GEMM_H
#define PLUMB_RUNTIME_GEMM_H

#include "plumb/runtime/config.h"
#include "plumb/runtime/tree.h"

#include <stdint.h>

/// Highest operand rank plumb_rt_matmul_f32 accepts.
#define PLUMB_RT_GEMM_MAX_RANK 16

#ifdef __cplusplus
extern "C" {
#endif

/// General strided product with the Gemm epilogue.
///   A element (m, k) at A[m * a_rs + k * a_cs]
///   B element (k, n) at B[k * b_rs + n * b_cs]
///   C element (m, n) at C[m * c_rs + n * c_cs] (strides may be 0 to
///     broadcast; C may be NULL for "no C")
///   Y element (m, n) at Y[m * ldy + n]
/// Y must not alias A, B or C.
void plumb_rt_gemm_strided(int64_t M, int64_t N, int64_t K, float alpha,
                           const float *A, int64_t a_rs, int64_t a_cs,
                           const float *B, int64_t b_rs, int64_t b_cs,
                           float beta, const float *C, int64_t c_rs,
                           int64_t c_cs, float *Y, int64_t ldy, int64_t block);

/// ONNX Gemm: Y[M,N] = alpha * A' B' + beta * C, A' = transA ? A^T : A
/// (A stored row-major as [M,K] or, transposed, [K,M]), likewise B ([K,N] or
/// [N,K]). C (may be NULL) is broadcast to [M,N] per ONNX unidirectional
/// broadcasting from its shape c_shape[0..c_rank) (rank 0, 1 or 2).
/// Returns 0 (the int return lets every kernel-call site check alike).
int plumb_rt_gemm(int64_t M, int64_t N, int64_t K, float alpha,
                  const float *A, int transA, const float *B, int transB,
                  float beta, const float *C, const int64_t *c_shape,
                  int c_rank, float *Y, int64_t block);

/// Batched product Y[b] = A[b] * B[b] for b < batch, each [M,K] x [K,N]
/// (row-major, leading dims K and N), batch strides in elements (0 =
/// broadcast). Y is dense [batch, M, N].
void plumb_rt_matmul_batched(int64_t batch, int64_t M, int64_t N, int64_t K,
                             const float *A, int64_t a_bs, const float *B,
                             int64_t b_bs, float *Y, int64_t block);

/// ONNX / numpy MatMul with full broadcasting: ranks >= 1; a 1-D A is
/// promoted to [1,K] (the 1 removed from the result), a 1-D B to [K,1].
/// Batch dims broadcast numpy-style. y_shape (capacity >= max rank) receives
/// the result shape and *y_rank its rank. Returns 0 on success, -1 on a shape
/// mismatch (nothing written to Y then).
int plumb_rt_matmul(const float *A, const int64_t *a_shape, int a_rank,
                    const float *B, const int64_t *b_shape, int b_rank,
                    float *Y, int64_t *y_shape, int *y_rank, int64_t block);

/// plumb_rt_matmul for callers that know the result shape (the compiled
/// programs and the interpreter): same result, no shape outputs.
int plumb_rt_matmul_f32(const float *A, const int64_t *a_shape, int32_t a_rank,
                        const float *B, const int64_t *b_shape, int32_t b_rank,
                        float *Y, int64_t block);

/// Integer MatMul (ONNX MatMulInteger after the zero points are subtracted):
/// numpy matmul shapes as plumb_rt_matmul_f32, int32 operands, each output
/// the sum over k of A(m, k) * B(k, n) in two's-complement int32 arithmetic
/// (products and sums wrap modulo 2^32). Wrapping addition is associative,
/// so the result does not depend on the order of the terms: no tree.
/// Returns 0, or -1 on a shape mismatch.
int plumb_rt_matmul_i32(const int32_t *A, const int64_t *a_shape,
                        int32_t a_rank, const int32_t *B,
                        const int64_t *b_shape, int32_t b_rank, int32_t *Y);

/// plumb_rt_matmul_i32 with a 2-D B used run after run (a weight): B is
/// packed once (plumb_rt_matmul_i32_packed_size bytes, -1 for invalid
/// sizes) into a narrow form when its values fit (int8 or int16), and
/// plumb_rt_matmul_i32_packed computes from it exactly the bits of
/// plumb_rt_matmul_i32 (wrapping sums are exact in any order), falling back
/// to B itself when A's values do not fit. Both return 0, or -1.
int64_t plumb_rt_matmul_i32_packed_size(int64_t K, int64_t N);
int plumb_rt_matmul_i32_pack(const int32_t *B, int64_t K, int64_t N,
                             void *packed);
int plumb_rt_matmul_i32_packed(const int32_t *A, const int64_t *a_shape,
                               int32_t a_rank, const void *packed,
                               const int32_t *B, const int64_t *b_shape,
                               int32_t b_rank, int32_t *Y);

/// GEMV with B packed once (for a constant B used run after run): Y[n] =
/// the Gemm epilogue of the dot product over k of A[k * a_cs] and B(k, n),
/// exactly as plumb_rt_gemm_strided computes it for M = 1 (the same tree per
/// element; only the memory layout of B differs). plumb_rt_gemv_pack packs B
/// (element (k, n) at B[k * b_rs + n * b_cs], N x K) into `packed`, which
/// holds plumb_rt_gemv_packed_size(N, K) floats. C (may be NULL) is read at
/// C[n * c_cs].
int64_t plumb_rt_gemv_packed_size(int64_t N, int64_t K);
int plumb_rt_gemv_pack(int64_t N, int64_t K, const float *B, int64_t b_rs,
                       int64_t b_cs, float *packed);
int plumb_rt_gemv_packed(int64_t N, int64_t K, float alpha, const float *A,
                         int64_t a_cs, const float *packed, float beta,
                         const float *C, int64_t c_cs, float *Y,
                         int64_t block);

/// Scalar reference of plumb_rt_gemm_strided (treeDot per element, single
/// threaded). Same results bit for bit; used by tests and the referee.
void plumb_rt_gemm_reference(int64_t M, int64_t N, int64_t K, float alpha,
                             const float *A, int64_t a_rs, int64_t a_cs,
                             const float *B, int64_t b_rs, int64_t b_cs,
                             float beta, const float *C, int64_t c_rs,
                             int64_t c_cs, float *Y, int64_t ldy,
                             int64_t block);

/// GEMM with B packed once (a constant B, a weight, used run after run):
/// the same Y as plumb_rt_gemm_strided with the same arguments, bit for
/// bit; only B's packing is done ahead. plumb_rt_gemm_pack_b packs B
/// (element (k, n) at B[k * b_rs + n * b_cs]) for the active GEMM kernel
/// into `packed`, plumb_rt_gemm_packed_b_size(N, K) floats, 64-byte
/// aligned. plumb_rt_gemm_strided_packed_b uses it when it was packed for
/// the kernel active now and this K, and packs from B as usual otherwise
/// (after plumb_rt_gemm_set_isa, say), so B must stay valid.
int64_t plumb_rt_gemm_packed_b_size(int64_t N, int64_t K);
int plumb_rt_gemm_pack_b(int64_t N, int64_t K, const float *B, int64_t b_rs,
                         int64_t b_cs, float *packed);
void plumb_rt_gemm_strided_packed_b(int64_t M, int64_t N, int64_t K, float alpha,
                                    const float *A, int64_t a_rs, int64_t a_cs,
                                    const float *packed, const float *B,
                                    int64_t b_rs, int64_t b_cs, float beta,
                                    const float *C, int64_t c_rs, int64_t c_cs,
                                    float *Y, int64_t ldy, int64_t block);

/// Kernel selection for the GEMM fast path. Affects speed only, never a
/// result bit (tests use it to compare every code path). 0 = best available
/// (default), 1 = portable scalar, 2 = AVX2+FMA, 3 = AVX-512F. Requests for
/// an ISA the CPU lacks fall back to the best available below it.
void plumb_rt_gemm_set_isa(int isa);
/// The ISA the fast path currently uses (1, 2 or 3).
int plumb_rt_gemm_active_isa(void);

#ifdef __cplusplus
} // extern "C"

namespace plumb {
namespace rt {

/// The Gemm epilogue for one element, shared by host and device code.
PLUMB_INLINE float gemmEpilogue(float dot, float alpha, float beta,
                                const float *c) {
  float y = dot;
  if (alpha != 1.0f)
    y = alpha * y;
  if (c) {
    float cv = *c;
    if (beta != 1.0f)
      cv = beta * cv;
    y = y + cv;
  }
  return y;
}

/// The strides of ONNX Gemm's operands (plumb_rt_gemm) in the strided form
/// (plumb_rt_gemm_strided): A' and B' from the transposition flags, C from
/// its unidirectional broadcast to [M, N] (a dimension of 1, or a missing
/// leading one, gets stride 0). Host and CUDA twin both use it.
struct GemmStrides {
  int64_t a_rs, a_cs, b_rs, b_cs, c_rs, c_cs;
};
PLUMB_INLINE GemmStrides gemmStrides(int64_t M, int64_t N, int64_t K,
                                     int transA, int transB, bool hasC,
                                     const int64_t *c_shape, int c_rank) {
  GemmStrides s;
  // A' (m, k): A is [M,K] (rs K, cs 1) or, transposed, [K,M] (rs 1, cs M).
  s.a_rs = transA ? 1 : K, s.a_cs = transA ? M : 1;
  s.b_rs = transB ? 1 : N, s.b_cs = transB ? K : 1;
  s.c_rs = 0, s.c_cs = 0;
  if (hasC) {
    int64_t d0 = 1, d1 = 1;
    if (c_rank >= 2) {
      d0 = c_shape[c_rank - 2];
      d1 = c_shape[c_rank - 1];
    } else if (c_rank == 1) {
      d1 = c_shape[0];
    }
    s.c_cs = d1 == 1 ? 0 : 1;
    s.c_rs = d0 == 1 ? 0 : d1;
  }
  return s;
}

/// numpy MatMul geometry (plumb_rt_matmul): the product sizes, the broadcast
/// batch dimensions and each operand's batch strides. Host and CUDA twin
/// both walk the batches through matmulBatchOffsets.
struct MatMulLayout {
  int64_t M = 0, N = 0, K = 0, batch = 1;
  int32_t batchRank = 0;
  int64_t outBatch[PLUMB_RT_GEMM_MAX_RANK] = {0};
  int64_t aStride[PLUMB_RT_GEMM_MAX_RANK] = {0};
  int64_t bStride[PLUMB_RT_GEMM_MAX_RANK] = {0};
};
/// Fills `L`; false on a shape mismatch or a rank above
/// PLUMB_RT_GEMM_MAX_RANK. A 1-D A is [1,K], a 1-D B is [K,1].
PLUMB_INLINE bool matmulLayout(MatMulLayout &L, const int64_t *a_shape,
                               int32_t a_rank, const int64_t *b_shape,
                               int32_t b_rank) {
  if (a_rank < 1 || b_rank < 1 || a_rank > PLUMB_RT_GEMM_MAX_RANK ||
      b_rank > PLUMB_RT_GEMM_MAX_RANK)
    return false;
  const bool aVec = a_rank == 1, bVec = b_rank == 1;
  L.M = aVec ? 1 : a_shape[a_rank - 2];
  L.K = a_shape[a_rank - 1];
  const int64_t Kb = bVec ? b_shape[0] : b_shape[b_rank - 2];
  L.N = bVec ? 1 : b_shape[b_rank - 1];
  if (L.K != Kb)
    return false;
  const int32_t aB = aVec ? 0 : a_rank - 2, bB = bVec ? 0 : b_rank - 2;
  L.batchRank = aB > bB ? aB : bB;
  // Batch strides (elements), aligned at the right; size-1 dims broadcast.
  int64_t as = L.M * L.K, bs = L.K * L.N;
  for (int32_t d = L.batchRank - 1; d >= 0; --d) {
    const int32_t ai = d - (L.batchRank - aB), bi = d - (L.batchRank - bB);
    const int64_t ad = ai >= 0 ? a_shape[ai] : 1;
    const int64_t bd = bi >= 0 ? b_shape[bi] : 1;
    if (ad != bd && ad != 1 && bd != 1)
      return false;
    L.outBatch[d] = (ad == 0 || bd == 0) ? 0 : (ad > bd ? ad : bd);
    L.aStride[d] = ad == 1 ? 0 : as;
    L.bStride[d] = bd == 1 ? 0 : bs;
    as *= ad;
    bs *= bd;
  }
  L.batch = 1;
  for (int32_t d = 0; d < L.batchRank; ++d)
    L.batch *= L.outBatch[d];
  return true;
}
/// The element offsets into A and B of batch `b` (row-major over outBatch).
PLUMB_INLINE void matmulBatchOffsets(const MatMulLayout &L, int64_t b,
                                     int64_t *aOff, int64_t *bOff) {
  int64_t rem = b, ao = 0, bo = 0;
  for (int32_t d = L.batchRank - 1; d >= 0; --d) {
    const int64_t idx = rem % L.outBatch[d];
    rem /= L.outBatch[d];
    ao += idx * L.aStride[d];
    bo += idx * L.bStride[d];
  }
  *aOff = ao;
  *bOff = bo;
}

/// Replaces any NaN by the canonical quiet NaN 0x7FC00000, deciding on the
/// integer bits (compilers may fold a float-level NaN test away).
PLUMB_INLINE float canonicalNaN(float x) {
  union {
    uint32_t u;
    float f;
  } v;
  v.f = x;
  if ((v.u & 0x7FFFFFFFu) > 0x7F800000u)
    v.u = PLUMB_CANONICAL_NAN_BITS;
  return v.f;
}

} // namespace rt
} // namespace plumb
#endif

#endif // PLUMB_RUNTIME_GEMM_H
