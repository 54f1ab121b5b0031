//===- runtime/src/elementwise.cpp - Elementwise kernels -----*- C++ -*-===//
//
// Part of Plumb. Host kernels of the unary, broadcasting binary, Where and
// variadic ops. The per-element arithmetic is the PLUMB_HD code of
// elementwise.h; this file only schedules it (threads split the output range,
// the innermost broadcast run is a plain loop the compiler may vectorise —
// vectorising an elementwise loop never changes any element's operations).
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/elementwise.h"
#include "plumb/runtime/broadcast.h"
#include "plumb/runtime/math_kernels.h"

#include "ops_internal.h"

#include <string.h>

#include <algorithm>

using namespace plumb::rt::ops;

namespace {

constexpr int64_t kGrain = 1 << 14;

template <typename T, typename Fn>
int applyUnary(const T *x, T *y, int64_t n, Fn fn) {
  if (n < 0 || (n > 0 && (!x || !y)))
    return PLUMB_RT_EINVAL;
  parallelRange(n, kGrain, [x, y, &fn](int64_t lo, int64_t hi) {
    // Local copies: a byte store could otherwise alias the captured
    // pointers, which kept the loop scalar and reloading them.
    const T *xs = x;
    T *ys = y;
    const Fn f = fn;
    for (int64_t i = lo; i < hi; ++i)
      ys[i] = f(xs[i]);
  });
  return PLUMB_RT_OK;
}

/// Runs out[i] = fn(a[ia], b[ib]) over a broadcast plan with two inputs.
template <typename TA, typename TO, typename Fn>
void runBinary(const BroadcastPlan &p, const TA *a, const TA *b, TO *out,
               Fn fn) {
  parallelRange(p.total, kGrain, [&](int64_t lo, int64_t hi) {
    forEachBroadcastRun(p, lo, hi,
                        [&](int64_t o, int64_t cnt, const int64_t *off,
                            const int64_t *st) {
                          const TA *pa = a + off[0];
                          const TA *pb = b + off[1];
                          TO *po = out + o;
                          if (st[0] == 1 && st[1] == 1) {
                            for (int64_t j = 0; j < cnt; ++j)
                              po[j] = fn(pa[j], pb[j]);
                          } else if (st[0] == 1 && st[1] == 0) {
                            const TA bv = *pb;
                            for (int64_t j = 0; j < cnt; ++j)
                              po[j] = fn(pa[j], bv);
                          } else if (st[0] == 0 && st[1] == 1) {
                            const TA av = *pa;
                            for (int64_t j = 0; j < cnt; ++j)
                              po[j] = fn(av, pb[j]);
                          } else {
                            for (int64_t j = 0; j < cnt; ++j)
                              po[j] = fn(pa[j * st[0]], pb[j * st[1]]);
                          }
                        });
  });
}

int planBinary(BroadcastPlan &p, const void *a, const int64_t *a_shape,
               int32_t a_rank, const void *b, const int64_t *b_shape,
               int32_t b_rank, const void *out, const int64_t *out_shape,
               int32_t out_rank) {
  if (!validShape(a_shape, a_rank) || !validShape(b_shape, b_rank) ||
      !validShape(out_shape, out_rank))
    return PLUMB_RT_ESHAPE;
  const int64_t *shapes[2] = {a_shape, b_shape};
  int32_t ranks[2] = {a_rank, b_rank};
  int rc = makeBroadcastPlan(p, 2, shapes, ranks, out_shape, out_rank);
  if (rc != PLUMB_RT_OK)
    return rc;
  if (p.total > 0 && (!a || !b || !out))
    return PLUMB_RT_EINVAL;
  return PLUMB_RT_OK;
}

template <typename T, typename Fn>
int compareOp(int32_t op, const BroadcastPlan &p, const T *a, const T *b,
              void *out) {
  uint8_t *o = static_cast<uint8_t *>(out);
  switch (op) {
#define PLUMB_X(NAME, CODE, EXPR)                                              \
  case CODE:                                                                   \
    runBinary(p, a, b, o, [](T x, T y) -> uint8_t { return EXPR; });          \
    return PLUMB_RT_OK;
    PLUMB_COMPARE_OPS(PLUMB_X)
#undef PLUMB_X
  default:
    return PLUMB_RT_EINVAL;
  }
}

struct NoFn {};

template <typename T>
int binaryInt(int32_t op, const T *a, const int64_t *a_shape, int32_t a_rank,
              const T *b, const int64_t *b_shape, int32_t b_rank, void *out,
              const int64_t *out_shape, int32_t out_rank) {
  BroadcastPlan p;
  int rc = planBinary(p, a, a_shape, a_rank, b, b_shape, b_rank, out,
                      out_shape, out_rank);
  if (rc != PLUMB_RT_OK)
    return rc;
  T *o = static_cast<T *>(out);
  switch (op) {
  case PLUMB_RT_ADD:
    runBinary(p, a, b, o, [](T x, T y) { return addI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_SUB:
    runBinary(p, a, b, o, [](T x, T y) { return subI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_MUL:
    runBinary(p, a, b, o, [](T x, T y) { return mulI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_DIV:
    runBinary(p, a, b, o, [](T x, T y) { return divI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_POW:
    runBinary(p, a, b, o, [](T x, T y) { return powI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_MAX:
    runBinary(p, a, b, o, [](T x, T y) { return maxI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_MIN:
    runBinary(p, a, b, o, [](T x, T y) { return minI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_MOD:
    runBinary(p, a, b, o, [](T x, T y) { return modI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_FMOD:
    runBinary(p, a, b, o, [](T x, T y) { return fmodI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_BIT_AND:
    runBinary(p, a, b, o, [](T x, T y) { return bitAndI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_BIT_OR:
    runBinary(p, a, b, o, [](T x, T y) { return bitOrI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_BIT_XOR:
    runBinary(p, a, b, o, [](T x, T y) { return bitXorI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_SHIFT_LEFT:
    runBinary(p, a, b, o, [](T x, T y) { return shlI(x, y); });
    return PLUMB_RT_OK;
  case PLUMB_RT_SHIFT_RIGHT:
    runBinary(p, a, b, o, [](T x, T y) { return shrI(x, y); });
    return PLUMB_RT_OK;
  default:
    return compareOp<T, NoFn>(op, p, a, b, out);
  }
}

template <typename T>
int unaryInt(int32_t op, const T *x, T *y, int64_t n, T lo, T hi) {
  switch (op) {
  case PLUMB_RT_NEG:
    return applyUnary(x, y, n, [](T v) { return negI(v); });
  case PLUMB_RT_ABS:
    return applyUnary(x, y, n, [](T v) { return absI(v); });
  case PLUMB_RT_RELU:
    return applyUnary(x, y, n, [](T v) { return v > 0 ? v : T(0); });
  case PLUMB_RT_CLIP:
    return applyUnary(x, y, n,
                      [lo, hi](T v) { return minI(maxI(v, lo), hi); });
  case PLUMB_RT_IDENTITY:
    return applyUnary(x, y, n, [](T v) { return v; });
  default:
    return PLUMB_RT_EINVAL;
  }
}

template <typename T, typename Fold, typename Fin>
int variadic(int32_t count, const T *const *inputs,
             const int64_t *const *shapes, const int32_t *ranks, T *out,
             const int64_t *out_shape, int32_t out_rank, Fold fold, Fin fin) {
  if (count < 1 || !inputs || !shapes || !ranks ||
      !validShape(out_shape, out_rank))
    return PLUMB_RT_EINVAL;
  // Validate every input against the output shape first.
  BroadcastPlan p;
  for (int32_t k = 0; k < count; ++k) {
    if (!validShape(shapes[k], ranks[k]))
      return PLUMB_RT_ESHAPE;
    int rc = makeBroadcastPlan(p, 1, &shapes[k], &ranks[k], out_shape,
                               out_rank);
    if (rc != PLUMB_RT_OK)
      return rc;
  }
  const int64_t total = p.total;
  if (total == 0)
    return PLUMB_RT_OK;
  // acc = in[0] (broadcast into out), then out = fold(out, in[k]) for k >= 1.
  // Each element's fold sequence is in[0], in[1], ... regardless of schedule.
  for (int32_t k = 0; k < count; ++k) {
    makeBroadcastPlan(p, 1, &shapes[k], &ranks[k], out_shape, out_rank);
    const T *in = inputs[k];
    const bool first = (k == 0);
    const bool last = (k == count - 1);
    parallelRange(total, kGrain, [&](int64_t lo, int64_t hi) {
      forEachBroadcastRun(p, lo, hi,
                          [&](int64_t o, int64_t cnt, const int64_t *off,
                              const int64_t *st) {
                            const T *pi = in + off[0];
                            T *po = out + o;
                            for (int64_t j = 0; j < cnt; ++j) {
                              T v = pi[j * st[0]];
                              T r = first ? v : fold(po[j], v);
                              po[j] = last ? fin(r) : r;
                            }
                          });
    });
  }
  return PLUMB_RT_OK;
}

/// Delegates to math.h's array kernels (bit-identical SIMD schedules of the
/// same scalar functions, NaN-canonicalising).
int mathArray(void (*fn)(const float *, float *, int64_t), const float *x,
              float *y, int64_t n) {
  if (n < 0 || (n > 0 && (!x || !y)))
    return PLUMB_RT_EINVAL;
  fn(x, y, n);
  return PLUMB_RT_OK;
}

/// Variadic Sum / Max / Min of integers (wraparound), left to right.
template <typename T>
int variadicInt(int32_t op, int32_t count, const T *const *inputs,
                const int64_t *const *shapes, const int32_t *ranks, T *out,
                const int64_t *out_shape, int32_t out_rank) {
  auto id = [](T v) { return v; };
  switch (op) {
  case PLUMB_RT_ADD:
    return variadic(count, inputs, shapes, ranks, out, out_shape, out_rank,
                    [](T a, T b) { return addI(a, b); }, id);
  case PLUMB_RT_MAX:
    return variadic(count, inputs, shapes, ranks, out, out_shape, out_rank,
                    [](T a, T b) { return maxI(a, b); }, id);
  case PLUMB_RT_MIN:
    return variadic(count, inputs, shapes, ranks, out, out_shape, out_rank,
                    [](T a, T b) { return minI(a, b); }, id);
  default:
    return PLUMB_RT_EINVAL;
  }
}

} // namespace

extern "C" {

int plumb_rt_unary_f32(int32_t op, const float *x, float *y, int64_t n,
                       float alpha, float beta) {
  // PLUMB_UNARY_F32_MATH_OPS run through their vectorised array kernels
  // (math_kernels.h, bit-identical to the scalar functions); the others are
  // loops over the op table's expression.
  switch (op) {
  case PLUMB_RT_EXP:
    return mathArray(plumb_rt_exp_f32, x, y, n);
  case PLUMB_RT_LOG:
    return mathArray(plumb_rt_log_f32, x, y, n);
  case PLUMB_RT_TANH:
    return mathArray(plumb_rt_tanh_f32, x, y, n);
  case PLUMB_RT_SIGMOID:
    return mathArray(plumb_rt_sigmoid_f32, x, y, n);
  case PLUMB_RT_ERF:
    return mathArray(plumb_rt_erf_f32, x, y, n);
  case PLUMB_RT_GELU:
    return mathArray(plumb_rt_gelu_f32, x, y, n);
  case PLUMB_RT_GELU_TANH:
    return mathArray(plumb_rt_gelu_tanh_f32, x, y, n);
#define PLUMB_X(NAME, CODE, EXPR)                                              \
  case CODE:                                                                   \
    return applyUnary(x, y, n, [alpha, beta](float v) {                        \
      (void)alpha;                                                             \
      (void)beta;                                                              \
      return EXPR;                                                             \
    });
    PLUMB_UNARY_F32_SCALAR_OPS(PLUMB_X)
#undef PLUMB_X
  default:
    return PLUMB_RT_EINVAL;
  }
}

int plumb_rt_unary_i64(int32_t op, const int64_t *x, int64_t *y, int64_t n,
                       int64_t lo, int64_t hi) {
  return unaryInt<int64_t>(op, x, y, n, lo, hi);
}

int plumb_rt_unary_i32(int32_t op, const int32_t *x, int32_t *y, int64_t n,
                       int32_t lo, int32_t hi) {
  return unaryInt<int32_t>(op, x, y, n, lo, hi);
}

int plumb_rt_not_bool(const uint8_t *x, uint8_t *y, int64_t n) {
  return applyUnary(x, y, n, [](uint8_t v) -> uint8_t { return v == 0; });
}

int plumb_rt_binary_f32(int32_t op, const float *a, const int64_t *a_shape,
                        int32_t a_rank, const float *b, const int64_t *b_shape,
                        int32_t b_rank, void *out, const int64_t *out_shape,
                        int32_t out_rank) {
  BroadcastPlan p;
  int rc = planBinary(p, a, a_shape, a_rank, b, b_shape, b_rank, out,
                      out_shape, out_rank);
  if (rc != PLUMB_RT_OK)
    return rc;
  float *o = static_cast<float *>(out);
  if (op == PLUMB_RT_POW && p.total > 0 && a_rank == out_rank &&
      std::equal(a_shape, a_shape + a_rank, out_shape) &&
      std::all_of(b_shape, b_shape + b_rank, [](int64_t d) { return d == 1; })) {
    // x ** scalar (x ** 3 in gelu's tanh form): the contiguous kernel, the
    // same canon(pow(x, e)) per element (math_kernels.h).
    plumb_rt_pow_scalar_f32(a, *b, o, p.total);
    return PLUMB_RT_OK;
  }
  switch (op) {
#define PLUMB_X(NAME, CODE, EXPR)                                              \
  case CODE:                                                                   \
    runBinary(p, a, b, o, [](float x, float y) { return EXPR; });             \
    return PLUMB_RT_OK;
    PLUMB_BINARY_F32_OPS(PLUMB_X)
#undef PLUMB_X
  default:
    return compareOp<float, NoFn>(op, p, a, b, out);
  }
}

int plumb_rt_binary_i64(int32_t op, const int64_t *a, const int64_t *a_shape,
                        int32_t a_rank, const int64_t *b,
                        const int64_t *b_shape, int32_t b_rank, void *out,
                        const int64_t *out_shape, int32_t out_rank) {
  return binaryInt<int64_t>(op, a, a_shape, a_rank, b, b_shape, b_rank, out,
                            out_shape, out_rank);
}

int plumb_rt_binary_i32(int32_t op, const int32_t *a, const int64_t *a_shape,
                        int32_t a_rank, const int32_t *b,
                        const int64_t *b_shape, int32_t b_rank, void *out,
                        const int64_t *out_shape, int32_t out_rank) {
  return binaryInt<int32_t>(op, a, a_shape, a_rank, b, b_shape, b_rank, out,
                            out_shape, out_rank);
}

int plumb_rt_binary_bool(int32_t op, const uint8_t *a, const int64_t *a_shape,
                         int32_t a_rank, const uint8_t *b,
                         const int64_t *b_shape, int32_t b_rank, uint8_t *out,
                         const int64_t *out_shape, int32_t out_rank) {
  BroadcastPlan p;
  int rc = planBinary(p, a, a_shape, a_rank, b, b_shape, b_rank, out,
                      out_shape, out_rank);
  if (rc != PLUMB_RT_OK)
    return rc;
  switch (op) {
  case PLUMB_RT_AND:
    runBinary(p, a, b, out,
              [](uint8_t x, uint8_t y) -> uint8_t { return (x != 0) & (y != 0); });
    return PLUMB_RT_OK;
  case PLUMB_RT_OR:
    runBinary(p, a, b, out,
              [](uint8_t x, uint8_t y) -> uint8_t { return (x != 0) | (y != 0); });
    return PLUMB_RT_OK;
  case PLUMB_RT_XOR:
  case PLUMB_RT_EQUAL: {
    const bool eq = (op == PLUMB_RT_EQUAL);
    runBinary(p, a, b, out, [eq](uint8_t x, uint8_t y) -> uint8_t {
      return ((x != 0) != (y != 0)) != eq;
    });
    return PLUMB_RT_OK;
  }
  default:
    return PLUMB_RT_EINVAL;
  }
}

int plumb_rt_where(const uint8_t *cond, const int64_t *c_shape, int32_t c_rank,
                   const void *x, const int64_t *x_shape, int32_t x_rank,
                   const void *y, const int64_t *y_shape, int32_t y_rank,
                   void *out, const int64_t *out_shape, int32_t out_rank,
                   int64_t elem_size) {
  if (!validShape(c_shape, c_rank) || !validShape(x_shape, x_rank) ||
      !validShape(y_shape, y_rank) || !validShape(out_shape, out_rank))
    return PLUMB_RT_ESHAPE;
  if (elem_size != 1 && elem_size != 2 && elem_size != 4 && elem_size != 8)
    return PLUMB_RT_EINVAL;
  const int64_t *shapes[3] = {c_shape, x_shape, y_shape};
  int32_t ranks[3] = {c_rank, x_rank, y_rank};
  BroadcastPlan p;
  int rc = makeBroadcastPlan(p, 3, shapes, ranks, out_shape, out_rank);
  if (rc != PLUMB_RT_OK)
    return rc;
  if (p.total > 0 && (!cond || !x || !y || !out))
    return PLUMB_RT_EINVAL;
  auto run = [&](auto tag) {
    typedef decltype(tag) T;
    const T *px = static_cast<const T *>(x);
    const T *py = static_cast<const T *>(y);
    T *po = static_cast<T *>(out);
    parallelRange(p.total, kGrain, [&](int64_t lo, int64_t hi) {
      forEachBroadcastRun(p, lo, hi,
                          [&](int64_t o, int64_t cnt, const int64_t *off,
                              const int64_t *st) {
                            const uint8_t *c = cond + off[0];
                            const T *a = px + off[1], *b = py + off[2];
                            T *r = po + o;
                            // Contiguous condition, each value contiguous
                            // or one scalar: loops the compiler vectorises.
                            if (st[0] == 1 && st[1] <= 1 && st[2] <= 1) {
                              if (st[1] == 1 && st[2] == 1) {
                                for (int64_t j = 0; j < cnt; ++j)
                                  r[j] = c[j] ? a[j] : b[j];
                              } else if (st[1] == 0 && st[2] == 1) {
                                const T av = *a;
                                for (int64_t j = 0; j < cnt; ++j)
                                  r[j] = c[j] ? av : b[j];
                              } else if (st[1] == 1 && st[2] == 0) {
                                const T bv = *b;
                                for (int64_t j = 0; j < cnt; ++j)
                                  r[j] = c[j] ? a[j] : bv;
                              } else {
                                const T av = *a, bv = *b;
                                for (int64_t j = 0; j < cnt; ++j)
                                  r[j] = c[j] ? av : bv;
                              }
                              return;
                            }
                            for (int64_t j = 0; j < cnt; ++j)
                              r[j] = c[j * st[0]] ? a[j * st[1]] : b[j * st[2]];
                          });
    });
  };
  switch (elem_size) {
  case 1:
    run(uint8_t());
    break;
  case 2:
    run(uint16_t());
    break;
  case 4:
    run(uint32_t());
    break;
  default:
    run(uint64_t());
    break;
  }
  return PLUMB_RT_OK;
}

int plumb_rt_variadic_f32(int32_t op, int32_t count, const float *const *inputs,
                          const int64_t *const *shapes, const int32_t *ranks,
                          float *out, const int64_t *out_shape,
                          int32_t out_rank) {
  auto id = [](float v) { return canon(v); };
  switch (op) {
  case PLUMB_RT_ADD:
    return variadic(count, inputs, shapes, ranks, out, out_shape, out_rank,
                    [](float a, float b) { return a + b; }, id);
  case PLUMB_RT_MAX:
    return variadic(count, inputs, shapes, ranks, out, out_shape, out_rank,
                    [](float a, float b) { return maxF(a, b); }, id);
  case PLUMB_RT_MIN:
    return variadic(count, inputs, shapes, ranks, out, out_shape, out_rank,
                    [](float a, float b) { return minF(a, b); }, id);
  case PLUMB_RT_MEAN: {
    const float c = (float)count;
    return variadic(count, inputs, shapes, ranks, out, out_shape, out_rank,
                    [](float a, float b) { return a + b; },
                    [c](float v) { return canon(v / c); });
  }
  default:
    return PLUMB_RT_EINVAL;
  }
}

int plumb_rt_variadic_i64(int32_t op, int32_t count,
                          const int64_t *const *inputs,
                          const int64_t *const *shapes, const int32_t *ranks,
                          int64_t *out, const int64_t *out_shape,
                          int32_t out_rank) {
  return variadicInt(op, count, inputs, shapes, ranks, out, out_shape,
                     out_rank);
}

int plumb_rt_variadic_i32(int32_t op, int32_t count,
                          const int32_t *const *inputs,
                          const int64_t *const *shapes, const int32_t *ranks,
                          int32_t *out, const int64_t *out_shape,
                          int32_t out_rank) {
  return variadicInt(op, count, inputs, shapes, ranks, out, out_shape,
                     out_rank);
}

int plumb_rt_broadcast_shape(const int64_t *a_shape, int32_t a_rank,
                             const int64_t *b_shape, int32_t b_rank,
                             int64_t *out_shape) {
  if (!validShape(a_shape, a_rank) || !validShape(b_shape, b_rank) ||
      a_rank > PLUMB_RT_MAX_RANK || b_rank > PLUMB_RT_MAX_RANK || !out_shape)
    return PLUMB_RT_ESHAPE;
  int32_t r = a_rank > b_rank ? a_rank : b_rank;
  for (int32_t d = 0; d < r; ++d) {
    int32_t ia = d - (r - a_rank), ib = d - (r - b_rank);
    int64_t da = ia >= 0 ? a_shape[ia] : 1, db = ib >= 0 ? b_shape[ib] : 1;
    if (da != db && da != 1 && db != 1)
      return PLUMB_RT_ESHAPE;
    out_shape[d] = da == 1 ? db : da;
  }
  return r;
}

} // extern "C"
