//===- runtime/src/qdot.h - Integer products on 8- and 16-bit lanes -*- C++ -*-===//
//
// Part of Plumb. Internal to the runtime. Integer matrix products
// out[r, g] = sum_k a[r, k] * w[k, g] in uint32 (wrapping, two's-complement)
// arithmetic, the semantics of MatMulInteger and of the quantized LSTM's
// products (whose operands are small enough that nothing wraps). Sums
// modulo 2^32 are exact in any order, so the schedule (lane width, pair or
// quad products, threads) cannot change a bit; these kernels only narrow
// the operands when their values fit, so more of them fit per vector.
//
// A weight matrix w [K, G] (a constant) is packed once into one of two
// forms, after a 64-byte header {form, K, G}:
//  - 16-bit (every value in int16): columns in blocks of 16, k in pairs,
//      p[(gb * Kp + kp) * 32 + 2 * j + h] = w[2 kp + h, 16 gb + j],
//    Kp = ceil(K / 2), zero padding; each vpmaddwd lane adds two int16
//    products (exact in int32 but for 2 * (-2^15)^2 = 2^31, which wraps
//    to the same value modulo 2^32).
//  - 8-bit (every value in int8, and the CPU has AVX-512 VNNI): columns in
//    blocks of 16, k in quads,
//      p8[(gb * Kq + kq) * 64 + 4 * j + h] = w[4 kq + h, 16 gb + j],
//    Kq = ceil(K / 4), then the column sums cs[g] = sum_k w[k, g]. The rows
//    of a must span at most 255 (max - min); with base = min a,
//      sum_k a[k] w[k, g] = sum_k (a[k] - base) w[k, g] + base * cs[g],
//    the first sum by vpdpbusd on unsigned bytes a - base.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_RUNTIME_SRC_QDOT_H
#define PLUMB_RUNTIME_SRC_QDOT_H

#include <stdint.h>

#include <vector>

namespace plumb {
namespace rt {
namespace detail {

enum QdotForm : int64_t { kQdotNone = 0, kQdot16 = 1, kQdot8 = 2 };

/// Bytes of a packed K x G matrix (either form, header included; a
/// multiple of 64).
int64_t qdotMatrixBytes(int64_t K, int64_t G);

/// Packs w[k, g] - wz (wz per column g when perCol, else wz[0]; none when
/// wz is null; w row-major, row stride G) into `dst`; the 8-bit form when
/// every value fits int8 and the active ISA is AVX-512 with VNNI, else the
/// 16-bit form when every value fits int16. Returns the form, kQdotNone
/// when neither fits (dst is then unusable). `maxAbs` (when not null)
/// receives max |w - wz|.
QdotForm qdotPackMatrix(const int32_t *w, const int32_t *wz, bool perCol,
                        int64_t K, int64_t G, void *dst,
                        int64_t *maxAbs = nullptr);

/// The form a packed matrix holds.
QdotForm qdotMatrixForm(const void *packed);

/// Packs `rows` rows of a [rows, K] for the packed matrix's form into
/// `words`; false when a does not fit (16-bit: a value outside int16;
/// 8-bit: max - min over the rows above 255). `base` receives the offset
/// the product adds back (the 8-bit form's min a; 0 for the 16-bit form).
bool qdotMatrixRows(const void *packed, const int32_t *a, int64_t rows,
                    int64_t K, std::vector<uint32_t> &words, int32_t &base);

/// out[r * ldo + g] = sum_k a[r, k] * w[k, g] (mod 2^32) for r < rows and
/// every column of the blocks [gb0, gb1) (16 columns each, padding columns
/// included: ldo >= 16 * gb1), from qdotMatrixRows' words and base.
void qdotMatrixProduct(const void *packed, const uint32_t *words,
                       int64_t rows, int32_t base, int64_t gb0, int64_t gb1,
                       int32_t *out, int64_t ldo);

} // namespace detail
} // namespace rt
} // namespace plumb

#endif // PLUMB_RUNTIME_SRC_QDOT_H
