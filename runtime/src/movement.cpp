//===- runtime/src/movement.cpp - Data movement kernels ------*- C++ -*-===//
//
// Part of Plumb. Transpose, Concat, Split, Slice, Gather, Expand, Pad, Tile,
// copy/fill and Range. All but Range move bits only. Work is split over
// output rows; see movement.h for the exact index mappings.
//
//===----------------------------------------------------------------------===//

#include "plumb/runtime/movement.h"
#include "plumb/runtime/broadcast.h"
#include "plumb/runtime/elementwise.h"

#include "ops_internal.h"

#include <string.h>

using namespace plumb::rt::ops;

namespace {

constexpr int64_t kRowGrainBytes = 1 << 15;

/// Copies n elements of elem_size bytes from src (stride ss elements) to dst
/// (stride ds elements).
inline void copyRun(char *dst, int64_t ds, const char *src, int64_t ss,
                    int64_t n, int64_t es) {
  if (ds == 1 && ss == 1) {
    memcpy(dst, src, (size_t)(n * es));
    return;
  }
  switch (es) {
  case 1:
    for (int64_t j = 0; j < n; ++j)
      dst[j * ds] = src[j * ss];
    return;
  case 2: {
    uint16_t *d = reinterpret_cast<uint16_t *>(dst);
    const uint16_t *s = reinterpret_cast<const uint16_t *>(src);
    for (int64_t j = 0; j < n; ++j)
      memcpy(d + j * ds, s + j * ss, 2);
    return;
  }
  case 4:
    for (int64_t j = 0; j < n; ++j)
      memcpy(dst + j * ds * 4, src + j * ss * 4, 4);
    return;
  case 8:
    for (int64_t j = 0; j < n; ++j)
      memcpy(dst + j * ds * 8, src + j * ss * 8, 8);
    return;
  default:
    for (int64_t j = 0; j < n; ++j)
      memcpy(dst + j * ds * es, src + j * ss * es, (size_t)es);
    return;
  }
}

/// General strided N-d copy: for every multi-index i over dims,
/// dst[sum i_d * dst_st[d]] = src[sum i_d * src_st[d]] (element strides).
/// Dims are coalesced first; work is split over rows (all but the last dim).
void stridedCopy(int32_t rank, const int64_t *dims_in, const char *src,
                 const int64_t *src_st_in, char *dst, const int64_t *dst_st_in,
                 int64_t es) {
  int64_t dims[PLUMB_RT_MAX_RANK], ss[PLUMB_RT_MAX_RANK], dsx[PLUMB_RT_MAX_RANK];
  int32_t r = 0;
  for (int32_t d = 0; d < rank; ++d) {
    if (dims_in[d] == 0)
      return;
    if (dims_in[d] == 1)
      continue;
    if (r > 0 && ss[r - 1] == src_st_in[d] * dims_in[d] &&
        dsx[r - 1] == dst_st_in[d] * dims_in[d]) {
      dims[r - 1] *= dims_in[d];
      ss[r - 1] = src_st_in[d];
      dsx[r - 1] = dst_st_in[d];
      continue;
    }
    dims[r] = dims_in[d];
    ss[r] = src_st_in[d];
    dsx[r] = dst_st_in[d];
    ++r;
  }
  if (r == 0) {
    memcpy(dst, src, (size_t)es);
    return;
  }
  const int64_t inner = dims[r - 1];
  // Transposing copies (the innermost destination dim reads the source with a
  // non-unit stride while another dim q is source-contiguous) run as 2-D
  // tiles over (q, innermost) so both sides stay in cache.
  int32_t q = -1;
  if (ss[r - 1] != 1 && dsx[r - 1] == 1)
    for (int32_t d = 0; d + 1 < r; ++d)
      if (ss[d] == 1)
        q = d;
  if (q >= 0 && dims[q] >= 8 && inner >= 8) {
    constexpr int64_t T = 32;
    // Outer index space: every dim except q and r-1.
    int64_t od[PLUMB_RT_MAX_RANK], os[PLUMB_RT_MAX_RANK], odd[PLUMB_RT_MAX_RANK];
    int32_t on = 0;
    for (int32_t d = 0; d + 1 < r; ++d)
      if (d != q) {
        od[on] = dims[d];
        os[on] = ss[d];
        odd[on++] = dsx[d];
      }
    const int64_t outer = prodDims(od, 0, on);
    const int64_t ta = (dims[q] + T - 1) / T, tb = (inner + T - 1) / T;
    const int64_t sq = dsx[q], sb = ss[r - 1];
    parallelRange(outer * ta * tb, 4, [&](int64_t lo, int64_t hi) {
      for (int64_t w = lo; w < hi; ++w) {
        int64_t o = w / (ta * tb), t = w - o * (ta * tb);
        const int64_t a0 = (t / tb) * T, b0 = (t % tb) * T;
        int64_t so = 0, dof = 0;
        for (int32_t d = on - 1; d >= 0; --d) {
          int64_t i = o % od[d];
          o /= od[d];
          so += i * os[d];
          dof += i * odd[d];
        }
        const int64_t a1 = a0 + T < dims[q] ? a0 + T : dims[q];
        const int64_t b1 = b0 + T < inner ? b0 + T : inner;
        for (int64_t a = a0; a < a1; ++a)
          copyRun(dst + (dof + a * sq + b0) * es, 1,
                  src + (so + a + b0 * sb) * es, sb, b1 - b0, es);
      }
    });
    return;
  }
  const int64_t rows = prodDims(dims, 0, r - 1);
  int64_t grain = kRowGrainBytes / (inner * es) + 1;
  parallelRange(rows, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      int64_t so = 0, dof = 0, q = row;
      for (int32_t d = r - 2; d >= 0; --d) {
        int64_t i = q % dims[d];
        q /= dims[d];
        so += i * ss[d];
        dof += i * dsx[d];
      }
      copyRun(dst + dof * es, dsx[r - 1], src + so * es, ss[r - 1], inner,
              es);
    }
  });
}

inline void contiguousStrides(const int64_t *shape, int32_t rank,
                              int64_t *st) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    st[d] = s;
    s *= shape[d];
  }
}

bool okRank(const int64_t *shape, int32_t rank) {
  return rank <= PLUMB_RT_MAX_RANK && validShape(shape, rank);
}

} // namespace

extern "C" {

int plumb_rt_copy(const void *x, void *y, int64_t nbytes) {
  if (nbytes < 0 || (nbytes > 0 && (!x || !y)))
    return PLUMB_RT_EINVAL;
  if (nbytes == 0 || x == y)
    return PLUMB_RT_OK;
  const char *s = static_cast<const char *>(x);
  char *d = static_cast<char *>(y);
  parallelRange(nbytes, 1 << 20, [&](int64_t lo, int64_t hi) {
    memcpy(d + lo, s + lo, (size_t)(hi - lo));
  });
  return PLUMB_RT_OK;
}

int plumb_rt_fill(void *y, int64_t n, const void *value, int64_t elem_size) {
  if (n < 0 || elem_size < 1 || (n > 0 && (!y || !value)))
    return PLUMB_RT_EINVAL;
  char *d = static_cast<char *>(y);
  parallelRange(n, 1 << 15, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i)
      memcpy(d + i * elem_size, value, (size_t)elem_size);
  });
  return PLUMB_RT_OK;
}

int plumb_rt_transpose(const void *x, const int64_t *shape, int32_t rank,
                       const int32_t *perm, void *y, int64_t elem_size) {
  if (!okRank(shape, rank) || elem_size < 1 || (rank > 0 && !perm))
    return PLUMB_RT_EINVAL;
  bool seen[PLUMB_RT_MAX_RANK] = {false};
  for (int32_t k = 0; k < rank; ++k) {
    if (perm[k] < 0 || perm[k] >= rank || seen[perm[k]])
      return PLUMB_RT_EINVAL;
    seen[perm[k]] = true;
  }
  int64_t xst[PLUMB_RT_MAX_RANK], odims[PLUMB_RT_MAX_RANK],
      sst[PLUMB_RT_MAX_RANK], dst[PLUMB_RT_MAX_RANK];
  contiguousStrides(shape, rank, xst);
  for (int32_t k = 0; k < rank; ++k) {
    odims[k] = shape[perm[k]];
    sst[k] = xst[perm[k]];
  }
  contiguousStrides(odims, rank, dst);
  if (prodDims(odims, 0, rank) > 0 && (!x || !y))
    return PLUMB_RT_EINVAL;
  stridedCopy(rank, odims, static_cast<const char *>(x), sst,
              static_cast<char *>(y), dst, elem_size);
  return PLUMB_RT_OK;
}

int plumb_rt_concat(const void *const *inputs, const int64_t *const *shapes,
                    int32_t count, int32_t rank, int32_t axis, void *y,
                    int64_t elem_size) {
  if (count < 1 || !inputs || !shapes || rank < 1 ||
      rank > PLUMB_RT_MAX_RANK || axis < 0 || axis >= rank || elem_size < 1)
    return PLUMB_RT_EINVAL;
  int64_t odims[PLUMB_RT_MAX_RANK];
  for (int32_t d = 0; d < rank; ++d)
    odims[d] = shapes[0][d];
  odims[axis] = 0;
  for (int32_t k = 0; k < count; ++k) {
    if (!okRank(shapes[k], rank))
      return PLUMB_RT_ESHAPE;
    for (int32_t d = 0; d < rank; ++d)
      if (d != axis && shapes[k][d] != shapes[0][d])
        return PLUMB_RT_ESHAPE;
    odims[axis] += shapes[k][axis];
  }
  int64_t yst[PLUMB_RT_MAX_RANK], ist[PLUMB_RT_MAX_RANK];
  contiguousStrides(odims, rank, yst);
  int64_t at = 0;
  for (int32_t k = 0; k < count; ++k) {
    contiguousStrides(shapes[k], rank, ist);
    if (prodDims(shapes[k], 0, rank) > 0)
      stridedCopy(rank, shapes[k], static_cast<const char *>(inputs[k]), ist,
                  static_cast<char *>(y) + at * yst[axis] * elem_size, yst,
                  elem_size);
    at += shapes[k][axis];
  }
  return PLUMB_RT_OK;
}

int plumb_rt_split(const void *x, const int64_t *shape, int32_t rank,
                   int32_t axis, int32_t count, const int64_t *sizes,
                   void *const *outputs, int64_t elem_size) {
  if (!okRank(shape, rank) || rank < 1 || axis < 0 || axis >= rank ||
      count < 1 || !sizes || !outputs || elem_size < 1)
    return PLUMB_RT_EINVAL;
  int64_t sum = 0;
  for (int32_t k = 0; k < count; ++k) {
    if (sizes[k] < 0)
      return PLUMB_RT_ESHAPE;
    sum += sizes[k];
  }
  if (sum != shape[axis])
    return PLUMB_RT_ESHAPE;
  int64_t xst[PLUMB_RT_MAX_RANK], odims[PLUMB_RT_MAX_RANK],
      ost[PLUMB_RT_MAX_RANK];
  contiguousStrides(shape, rank, xst);
  for (int32_t d = 0; d < rank; ++d)
    odims[d] = shape[d];
  int64_t at = 0;
  for (int32_t k = 0; k < count; ++k) {
    odims[axis] = sizes[k];
    contiguousStrides(odims, rank, ost);
    if (prodDims(odims, 0, rank) > 0)
      stridedCopy(rank, odims,
                  static_cast<const char *>(x) + at * xst[axis] * elem_size,
                  xst, static_cast<char *>(outputs[k]), ost, elem_size);
    at += sizes[k];
  }
  return PLUMB_RT_OK;
}

int plumb_rt_slice_normalize(const int64_t *shape, int32_t rank,
                             const int64_t *starts, const int64_t *ends,
                             const int64_t *axes, const int64_t *steps,
                             int32_t n_axes, int64_t *out_start,
                             int64_t *out_step, int64_t *out_shape) {
  if (!okRank(shape, rank) || n_axes < 0 || (n_axes > 0 && (!starts || !ends)) ||
      !out_start || !out_step || !out_shape)
    return PLUMB_RT_EINVAL;
  bool seen[PLUMB_RT_MAX_RANK] = {false};
  for (int32_t d = 0; d < rank; ++d) {
    out_start[d] = 0;
    out_step[d] = 1;
    out_shape[d] = shape[d];
  }
  for (int32_t k = 0; k < n_axes; ++k) {
    int64_t a = axes ? axes[k] : k;
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank || seen[a])
      return PLUMB_RT_EINVAL;
    seen[a] = true;
    const int64_t dim = shape[a];
    const int64_t step = steps ? steps[k] : 1;
    if (step == 0)
      return PLUMB_RT_EINVAL;
    int64_t s = starts[k], e = ends[k];
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    if (step > 0) {
      s = s < 0 ? 0 : (s > dim ? dim : s);
      e = e < 0 ? 0 : (e > dim ? dim : e);
    } else {
      s = s < 0 ? 0 : s;
      s = s > dim - 1 ? dim - 1 : s; // [0, dim - 1] (ONNX spec)
      e = e < -1 ? -1 : (e > dim - 1 ? dim - 1 : e);
    }
    int64_t n;
    if (step > 0)
      n = e > s ? (e - s + step - 1) / step : 0;
    else
      n = s > e ? (s - e + (-step) - 1) / (-step) : 0;
    out_start[a] = n > 0 ? s : 0;
    out_step[a] = step;
    out_shape[a] = n;
  }
  return PLUMB_RT_OK;
}

int plumb_rt_slice(const void *x, const int64_t *shape, int32_t rank,
                   const int64_t *start, const int64_t *step,
                   const int64_t *out_shape, void *y, int64_t elem_size) {
  if (!okRank(shape, rank) || !okRank(out_shape, rank) || elem_size < 1 ||
      (rank > 0 && (!start || !step)))
    return PLUMB_RT_EINVAL;
  int64_t xst[PLUMB_RT_MAX_RANK], sst[PLUMB_RT_MAX_RANK], yst[PLUMB_RT_MAX_RANK];
  contiguousStrides(shape, rank, xst);
  contiguousStrides(out_shape, rank, yst);
  int64_t base = 0;
  for (int32_t d = 0; d < rank; ++d) {
    if (out_shape[d] == 0)
      return PLUMB_RT_OK;
    int64_t last = start[d] + (out_shape[d] - 1) * step[d];
    if (start[d] < 0 || start[d] >= shape[d] || last < 0 || last >= shape[d])
      return PLUMB_RT_ERANGE;
    base += start[d] * xst[d];
    sst[d] = step[d] * xst[d];
  }
  stridedCopy(rank, out_shape, static_cast<const char *>(x) + base * elem_size,
              sst, static_cast<char *>(y), yst, elem_size);
  return PLUMB_RT_OK;
}

int plumb_rt_gather(const void *x, const int64_t *shape, int32_t rank,
                    int32_t axis, const void *indices, int32_t index_is_i32,
                    int64_t n_indices, void *y, int64_t elem_size) {
  if (!okRank(shape, rank) || rank < 1 || axis < 0 || axis >= rank ||
      n_indices < 0 || elem_size < 1 || (n_indices > 0 && !indices))
    return PLUMB_RT_EINVAL;
  const int64_t dim = shape[axis];
  const int64_t outer = prodDims(shape, 0, axis);
  const int64_t inner = prodDims(shape, axis + 1, rank);
  auto idx = [&](int64_t k) -> int64_t {
    int64_t v = index_is_i32 ? static_cast<const int32_t *>(indices)[k]
                             : static_cast<const int64_t *>(indices)[k];
    return v < 0 ? v + dim : v;
  };
  for (int64_t k = 0; k < n_indices; ++k) {
    int64_t v = idx(k);
    if (v < 0 || v >= dim)
      return PLUMB_RT_ERANGE;
  }
  const int64_t rowBytes = inner * elem_size;
  const char *src = static_cast<const char *>(x);
  char *dst = static_cast<char *>(y);
  const int64_t rows = outer * n_indices;
  if (rows == 0 || rowBytes == 0)
    return PLUMB_RT_OK;
  parallelRange(rows, kRowGrainBytes / rowBytes + 1,
                [&](int64_t lo, int64_t hi) {
                  for (int64_t r = lo; r < hi; ++r) {
                    int64_t o = r / n_indices, k = r - o * n_indices;
                    memcpy(dst + r * rowBytes,
                           src + (o * dim + idx(k)) * rowBytes,
                           (size_t)rowBytes);
                  }
                });
  return PLUMB_RT_OK;
}

int plumb_rt_gather_nd(const void *data, const int64_t *data_shape,
                       int32_t data_rank, const void *indices,
                       int32_t index_is_i32, const int64_t *idx_shape,
                       int32_t idx_rank, int32_t batch_dims, void *y,
                       int64_t elem_size) {
  plumb::rt::GatherNdGeom g;
  if (elem_size < 1 || !okRank(data_shape, data_rank) ||
      !okRank(idx_shape, idx_rank) ||
      plumb::rt::makeGatherNdGeom(g, data_shape, data_rank, idx_shape,
                                  idx_rank, batch_dims,
                                  index_is_i32) != PLUMB_RT_OK)
    return PLUMB_RT_EINVAL;
  const int64_t rows = g.batches * g.tuples;
  if (rows > 0 && !indices)
    return PLUMB_RT_EINVAL;
  // Every index is checked before anything is written.
  for (int64_t r = 0; r < rows; ++r)
    if (plumb::rt::gatherNdOffset(g, indices, r / g.tuples, r % g.tuples) < 0)
      return PLUMB_RT_ERANGE;
  const int64_t rowBytes = g.slice * elem_size;
  if (rows == 0 || rowBytes == 0)
    return PLUMB_RT_OK;
  const char *src = static_cast<const char *>(data);
  char *dst = static_cast<char *>(y);
  parallelRange(rows, kRowGrainBytes / rowBytes + 1,
                [&](int64_t lo, int64_t hi) {
                  for (int64_t r = lo; r < hi; ++r)
                    memcpy(dst + r * rowBytes,
                           src + plumb::rt::gatherNdOffset(
                                     g, indices, r / g.tuples, r % g.tuples) *
                                     elem_size,
                           (size_t)rowBytes);
                });
  return PLUMB_RT_OK;
}

int plumb_rt_expand(const void *x, const int64_t *shape, int32_t rank,
                    void *y, const int64_t *out_shape, int32_t out_rank,
                    int64_t elem_size) {
  if (!okRank(shape, rank) || !okRank(out_shape, out_rank) || elem_size < 1)
    return PLUMB_RT_EINVAL;
  BroadcastPlan p;
  int rc = makeBroadcastPlan(p, 1, &shape, &rank, out_shape, out_rank);
  if (rc != PLUMB_RT_OK)
    return rc;
  if (p.total == 0)
    return PLUMB_RT_OK;
  int64_t yst[PLUMB_RT_MAX_RANK];
  contiguousStrides(p.dims, p.rank, yst);
  stridedCopy(p.rank, p.dims, static_cast<const char *>(x), p.strides[0],
              static_cast<char *>(y), yst, elem_size);
  return PLUMB_RT_OK;
}

int plumb_rt_pad(const void *x, const int64_t *shape, int32_t rank,
                 const int64_t *pads, int32_t mode, const void *value, void *y,
                 int64_t elem_size) {
  if (!okRank(shape, rank) || rank < 1 || !pads || elem_size < 1 ||
      mode < PLUMB_RT_PAD_CONSTANT || mode > PLUMB_RT_PAD_WRAP)
    return PLUMB_RT_EINVAL;
  int64_t odims[PLUMB_RT_MAX_RANK];
  for (int32_t d = 0; d < rank; ++d) {
    odims[d] = shape[d] + pads[d] + pads[rank + d];
    if (odims[d] < 0)
      return PLUMB_RT_ESHAPE;
  }
  const int64_t total = prodDims(odims, 0, rank);
  if (total == 0)
    return PLUMB_RT_OK;
  if (mode != PLUMB_RT_PAD_CONSTANT)
    for (int32_t d = 0; d < rank; ++d)
      if (shape[d] == 0)
        return PLUMB_RT_EINVAL;
  // Maps output index o on dim d to an input index, or -1 (constant fill).
  auto mapIndex = [&](int32_t d, int64_t o) -> int64_t {
    const int64_t n = shape[d];
    int64_t i = o - pads[d];
    if (i >= 0 && i < n)
      return i;
    switch (mode) {
    case PLUMB_RT_PAD_CONSTANT:
      return -1;
    case PLUMB_RT_PAD_EDGE:
      return i < 0 ? 0 : n - 1;
    case PLUMB_RT_PAD_WRAP: {
      int64_t m = i % n;
      return m < 0 ? m + n : m;
    }
    default: { // reflect
      if (n == 1)
        return 0;
      const int64_t period = 2 * (n - 1);
      int64_t m = i % period;
      if (m < 0)
        m += period;
      return m < n ? m : period - m;
    }
    }
  };
  static const uint64_t kZero[4] = {0, 0, 0, 0};
  const char *fillv = static_cast<const char *>(value);
  if (!fillv) {
    if (elem_size <= 32) {
      fillv = reinterpret_cast<const char *>(kZero);
    } else {
      return PLUMB_RT_EINVAL;
    }
  }
  int64_t xst[PLUMB_RT_MAX_RANK];
  contiguousStrides(shape, rank, xst);
  const int64_t inner = odims[rank - 1];
  const int64_t rows = total / inner;
  const char *src = static_cast<const char *>(x);
  char *dst = static_cast<char *>(y);
  const int64_t es = elem_size;
  const int32_t last = rank - 1;
  parallelRange(rows, kRowGrainBytes / (inner * es) + 1, [&](int64_t lo,
                                                              int64_t hi) {
    for (int64_t row = lo; row < hi; ++row) {
      char *out = dst + row * inner * es;
      int64_t so = 0, q = row;
      bool fillRow = false;
      for (int32_t d = last - 1; d >= 0; --d) {
        int64_t o = q % odims[d];
        q /= odims[d];
        int64_t i = mapIndex(d, o);
        if (i < 0)
          fillRow = true;
        else
          so += i * xst[d];
      }
      if (fillRow) {
        for (int64_t j = 0; j < inner; ++j)
          memcpy(out + j * es, fillv, (size_t)es);
        continue;
      }
      const char *in = src + so * es;
      for (int64_t j = 0; j < inner; ++j) {
        int64_t i = mapIndex(last, j);
        memcpy(out + j * es, i < 0 ? fillv : in + i * es, (size_t)es);
      }
    }
  });
  return PLUMB_RT_OK;
}

int plumb_rt_tile(const void *x, const int64_t *shape, int32_t rank,
                  const int64_t *repeats, void *y, int64_t elem_size) {
  if (!okRank(shape, rank) || elem_size < 1 || (rank > 0 && !repeats))
    return PLUMB_RT_EINVAL;
  int64_t odims[PLUMB_RT_MAX_RANK], xst[PLUMB_RT_MAX_RANK];
  for (int32_t d = 0; d < rank; ++d) {
    if (repeats[d] < 0)
      return PLUMB_RT_EINVAL;
    odims[d] = shape[d] * repeats[d];
  }
  const int64_t total = prodDims(odims, 0, rank);
  if (total == 0)
    return PLUMB_RT_OK;
  if (rank == 0) {
    memcpy(y, x, (size_t)elem_size);
    return PLUMB_RT_OK;
  }
  contiguousStrides(shape, rank, xst);
  const int32_t last = rank - 1;
  const int64_t inner = odims[last], xin = shape[last];
  const int64_t rows = total / inner;
  const int64_t es = elem_size;
  const char *src = static_cast<const char *>(x);
  char *dst = static_cast<char *>(y);
  parallelRange(rows, kRowGrainBytes / (inner * es) + 1,
                [&](int64_t lo, int64_t hi) {
                  for (int64_t row = lo; row < hi; ++row) {
                    int64_t so = 0, q = row;
                    for (int32_t d = last - 1; d >= 0; --d) {
                      int64_t o = q % odims[d];
                      q /= odims[d];
                      so += (o % shape[d]) * xst[d];
                    }
                    char *out = dst + row * inner * es;
                    for (int64_t r = 0; r < repeats[last]; ++r)
                      memcpy(out + r * xin * es, src + so * es,
                             (size_t)(xin * es));
                  }
                });
  return PLUMB_RT_OK;
}

int64_t plumb_rt_range_count_f32(float start, float limit, float delta) {
  if (delta == 0.0f)
    return -1;
  float q = (limit - start) / delta;
  if (q != q || q == posInf() || q == negInf())
    return -1;
  float c = ceilF(q);
  if (c <= 0.0f)
    return 0;
  if (c >= 9.2233720e18f)
    return -1;
  return (int64_t)c;
}

int64_t plumb_rt_range_count_i64(int64_t start, int64_t limit, int64_t delta) {
  if (delta == 0)
    return -1;
  // ceil((limit - start) / delta) in exact integer arithmetic.
  __int128 num = (__int128)limit - (__int128)start;
  __int128 q = num / delta, r = num % delta;
  if (r != 0 && ((r > 0) == (delta > 0)))
    q += 1;
  return q > 0 ? (int64_t)q : 0;
}

int plumb_rt_range_f32(float start, float delta, int64_t n, float *y) {
  if (n < 0 || (n > 0 && !y))
    return PLUMB_RT_EINVAL;
  float v = start;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = canon(v);
    v = v + delta;
  }
  return PLUMB_RT_OK;
}

int plumb_rt_range_i64(int64_t start, int64_t delta, int64_t n, int64_t *y) {
  if (n < 0 || (n > 0 && !y))
    return PLUMB_RT_EINVAL;
  int64_t v = start;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = v;
    v = addI(v, delta);
  }
  return PLUMB_RT_OK;
}

} // extern "C"
