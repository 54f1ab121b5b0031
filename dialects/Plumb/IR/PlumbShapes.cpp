//===- PlumbShapes.cpp - Shape inference for plumb ops --------------------===//
//
// Part of Plumb. See PlumbShapes.h.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbShapes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <string>

using namespace mlir;

namespace plumb {
namespace shapes {

std::string str(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += "x";
    s += std::to_string(shape[i]);
  }
  return s;
}

FailureOr<int64_t> numElements(ArrayRef<int64_t> shape, EmitFn emit) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return emit() << "negative dimension in shape " << str(shape);
    int64_t next;
    if (__builtin_mul_overflow(n, d, &next) || next > kMaxElements)
      return emit() << "shape " << str(shape) << " has more than 2^40 elements";
    n = next;
  }
  return n;
}

static LogicalResult checkResult(const Shape &s, EmitFn emit) {
  return failure(failed(numElements(s, emit)));
}

FailureOr<Shape> broadcast(ArrayRef<ArrayRef<int64_t>> shapes, EmitFn emit) {
  size_t rank = 0;
  for (auto s : shapes)
    rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (auto s : shapes) {
    size_t off = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t d = s[i], &o = out[off + i];
      if (d == o || d == 1)
        continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string all;
      for (auto t : shapes)
        all += (all.empty() ? "" : ", ") + str(t);
      return emit() << "shapes " << all << " are not broadcast-compatible";
    }
  }
  if (failed(checkResult(out, emit)))
    return failure();
  return out;
}

bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  size_t off = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[off + i])
      return false;
  return true;
}

FailureOr<Shape> matmul(ArrayRef<int64_t> a, ArrayRef<int64_t> b, EmitFn emit) {
  if (a.empty() || b.empty())
    return emit() << "matmul operands must have rank >= 1, got " << str(a)
                  << " and " << str(b);
  Shape pa(a.begin(), a.end()), pb(b.begin(), b.end());
  bool promoteA = pa.size() == 1, promoteB = pb.size() == 1;
  if (promoteA)
    pa.insert(pa.begin(), 1);
  if (promoteB)
    pb.push_back(1);
  int64_t k1 = pa.back(), k2 = pb[pb.size() - 2];
  if (k1 != k2)
    return emit() << "matmul contraction dimensions differ: " << str(a)
                  << " and " << str(b) << " (" << k1 << " vs " << k2 << ")";
  ArrayRef<int64_t> ba = ArrayRef<int64_t>(pa).drop_back(2);
  ArrayRef<int64_t> bb = ArrayRef<int64_t>(pb).drop_back(2);
  auto batch = broadcast({ba, bb}, emit);
  if (failed(batch))
    return failure();
  Shape out = *batch;
  if (!promoteA)
    out.push_back(pa[pa.size() - 2]);
  if (!promoteB)
    out.push_back(pb.back());
  if (failed(checkResult(out, emit)))
    return failure();
  return out;
}

FailureOr<Shape> gemm(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                      std::optional<ArrayRef<int64_t>> c, bool transA,
                      bool transB, EmitFn emit) {
  if (a.size() != 2 || b.size() != 2)
    return emit() << "gemm operands must be 2-D, got " << str(a) << " and "
                  << str(b);
  int64_t m = transA ? a[1] : a[0], ka = transA ? a[0] : a[1];
  int64_t kb = transB ? b[1] : b[0], n = transB ? b[0] : b[1];
  if (ka != kb)
    return emit() << "gemm contraction dimensions differ: A' is " << m << "x"
                  << ka << ", B' is " << kb << "x" << n;
  Shape out{m, n};
  if (c && !broadcastsTo(*c, out))
    return emit() << "gemm C of shape " << str(*c)
                  << " does not broadcast to " << str(out);
  return out;
}

static LogicalResult checkSpatialAttrs(size_t spatial, ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> pads,
                                       ArrayRef<int64_t> dilations,
                                       EmitFn emit) {
  if (strides.size() != spatial)
    return emit() << "expected " << spatial << " strides, got "
                  << strides.size();
  if (pads.size() != 2 * spatial)
    return emit() << "expected " << 2 * spatial << " pads, got " << pads.size();
  if (dilations.size() != spatial)
    return emit() << "expected " << spatial << " dilations, got "
                  << dilations.size();
  for (int64_t s : strides)
    if (s < 1)
      return emit() << "strides must be >= 1";
  for (int64_t d : dilations)
    if (d < 1)
      return emit() << "dilations must be >= 1";
  for (int64_t p : pads)
    if (p < 0)
      return emit() << "pads must be >= 0";
  return success();
}

// Output size of one sliding-window dimension, overflow-checked.
static FailureOr<int64_t> windowOut(int64_t in, int64_t k, int64_t stride,
                                    int64_t padBegin, int64_t padEnd,
                                    int64_t dilation, bool ceilMode,
                                    EmitFn emit) {
  int64_t span, padded;
  if (__builtin_mul_overflow(dilation, k - 1, &span) ||
      __builtin_add_overflow(in, padBegin, &padded) ||
      __builtin_add_overflow(padded, padEnd, &padded))
    return emit() << "window arithmetic overflows";
  int64_t avail = padded - span - 1;
  if (avail < 0)
    return emit() << "window of size " << k << " (dilation " << dilation
                  << ") does not fit input size " << in << " with pads "
                  << padBegin << "+" << padEnd;
  int64_t out = ceilMode ? (avail + stride - 1) / stride + 1 : avail / stride + 1;
  // ONNX/PyTorch rule: with ceil_mode the last window must start inside the
  // input or left padding.
  if (ceilMode && (out - 1) * stride >= in + padBegin)
    --out;
  return out;
}

FailureOr<Shape> conv(ArrayRef<int64_t> x, ArrayRef<int64_t> w,
                      std::optional<ArrayRef<int64_t>> bias,
                      ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                      ArrayRef<int64_t> dilations, int64_t group, EmitFn emit) {
  if (x.size() < 3)
    return emit() << "conv input must have rank >= 3 (N, C, spatial...), got "
                  << str(x);
  if (w.size() != x.size())
    return emit() << "conv weight rank " << w.size()
                  << " differs from input rank " << x.size();
  size_t spatial = x.size() - 2;
  if (failed(checkSpatialAttrs(spatial, strides, pads, dilations, emit)))
    return failure();
  if (group < 1 || x[1] % group != 0 || w[0] % group != 0)
    return emit() << "group " << group << " must divide input channels " << x[1]
                  << " and output channels " << w[0];
  if (w[1] * group != x[1])
    return emit() << "conv weight expects " << w[1] << " x " << group
                  << " input channels, input has " << x[1];
  if (bias && (bias->size() != 1 || (*bias)[0] != w[0]))
    return emit() << "conv bias must have shape " << w[0] << ", got "
                  << str(*bias);
  Shape out{x[0], w[0]};
  for (size_t i = 0; i < spatial; ++i) {
    auto o = windowOut(x[2 + i], w[2 + i], strides[i], pads[i],
                       pads[spatial + i], dilations[i], false, emit);
    if (failed(o))
      return failure();
    out.push_back(*o);
  }
  if (failed(checkResult(out, emit)))
    return failure();
  return out;
}

FailureOr<Shape> convTranspose(ArrayRef<int64_t> x, ArrayRef<int64_t> w,
                               std::optional<ArrayRef<int64_t>> bias,
                               ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                               ArrayRef<int64_t> dilations,
                               ArrayRef<int64_t> outputPadding, int64_t group,
                               EmitFn emit) {
  if (x.size() < 3 || w.size() != x.size())
    return emit() << "conv_transpose needs input and weight of equal rank >= 3, "
                     "got "
                  << str(x) << " and " << str(w);
  size_t spatial = x.size() - 2;
  if (failed(checkSpatialAttrs(spatial, strides, pads, dilations, emit)))
    return failure();
  if (outputPadding.size() != spatial)
    return emit() << "expected " << spatial << " output_padding values";
  if (group < 1 || x[1] % group != 0 || w[0] != x[1])
    return emit() << "conv_transpose weight has " << w[0]
                  << " input channels, input has " << x[1] << " (group "
                  << group << ")";
  int64_t co = w[1] * group;
  if (bias && (bias->size() != 1 || (*bias)[0] != co))
    return emit() << "conv_transpose bias must have shape " << co;
  Shape out{x[0], co};
  for (size_t i = 0; i < spatial; ++i) {
    if (outputPadding[i] < 0 || outputPadding[i] >= std::max(strides[i], dilations[i]))
      return emit() << "output_padding must be in [0, max(stride, dilation))";
    int64_t o = strides[i] * (x[2 + i] - 1) + outputPadding[i] +
                (w[2 + i] - 1) * dilations[i] + 1 - pads[i] - pads[spatial + i];
    if (o < 1)
      return emit() << "conv_transpose output dimension " << i
                    << " would be " << o;
    out.push_back(o);
  }
  if (failed(checkResult(out, emit)))
    return failure();
  return out;
}

FailureOr<Shape> pool(ArrayRef<int64_t> x, ArrayRef<int64_t> kernel,
                      ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                      ArrayRef<int64_t> dilations, bool ceilMode, EmitFn emit) {
  if (x.size() < 3)
    return emit() << "pooling input must have rank >= 3, got " << str(x);
  size_t spatial = x.size() - 2;
  if (kernel.size() != spatial)
    return emit() << "expected " << spatial << " kernel_shape values, got "
                  << kernel.size();
  for (int64_t k : kernel)
    if (k < 1)
      return emit() << "kernel_shape values must be >= 1";
  if (failed(checkSpatialAttrs(spatial, strides, pads, dilations, emit)))
    return failure();
  Shape out{x[0], x[1]};
  for (size_t i = 0; i < spatial; ++i) {
    if (pads[i] >= kernel[i] || pads[spatial + i] >= kernel[i])
      return emit() << "pads must be smaller than the kernel";
    auto o = windowOut(x[2 + i], kernel[i], strides[i], pads[i],
                       pads[spatial + i], dilations[i], ceilMode, emit);
    if (failed(o))
      return failure();
    out.push_back(*o);
  }
  return out;
}

FailureOr<Shape> globalPool(ArrayRef<int64_t> x, EmitFn emit) {
  if (x.size() < 3)
    return emit() << "global pooling input must have rank >= 3, got " << str(x);
  Shape out{x[0], x[1]};
  out.append(x.size() - 2, 1);
  return out;
}

FailureOr<Shape> reduce(ArrayRef<int64_t> x, ArrayRef<int64_t> axes,
                        bool keepdims, EmitFn emit) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || axes[i] >= (int64_t)x.size())
      return emit() << "reduction axis " << axes[i] << " out of range for rank "
                    << x.size();
    if (i && axes[i] <= axes[i - 1])
      return emit() << "reduction axes must be sorted and unique";
  }
  Shape out;
  for (int64_t d = 0; d < (int64_t)x.size(); ++d) {
    if (llvm::is_contained(axes, d)) {
      if (keepdims)
        out.push_back(1);
    } else {
      out.push_back(x[d]);
    }
  }
  return out;
}

FailureOr<Shape> transpose(ArrayRef<int64_t> x, ArrayRef<int64_t> perm,
                           EmitFn emit) {
  if (perm.size() != x.size())
    return emit() << "perm has " << perm.size() << " entries for rank "
                  << x.size();
  llvm::SmallVector<bool> seen(x.size(), false);
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= (int64_t)x.size() || seen[p])
      return emit() << "perm is not a permutation of 0.." << x.size() - 1;
    seen[p] = true;
    out.push_back(x[p]);
  }
  return out;
}

FailureOr<Shape> concat(ArrayRef<ArrayRef<int64_t>> xs, int64_t axis,
                        EmitFn emit) {
  if (xs.empty())
    return emit() << "concat needs at least one input";
  size_t rank = xs[0].size();
  if (axis < 0 || axis >= (int64_t)rank)
    return emit() << "concat axis " << axis << " out of range for rank "
                  << rank;
  Shape out(xs[0].begin(), xs[0].end());
  out[axis] = 0;
  for (auto s : xs) {
    if (s.size() != rank)
      return emit() << "concat inputs have different ranks";
    for (size_t d = 0; d < rank; ++d)
      if ((int64_t)d != axis && s[d] != out[d])
        return emit() << "concat inputs differ in dimension " << d << ": "
                      << str(xs[0]) << " vs " << str(s);
    if (__builtin_add_overflow(out[axis], s[axis], &out[axis]))
      return emit() << "concat size overflows";
  }
  if (failed(checkResult(out, emit)))
    return failure();
  return out;
}

FailureOr<Shape> gather(ArrayRef<int64_t> data, ArrayRef<int64_t> indices,
                        int64_t axis, EmitFn emit) {
  if (axis < 0 || axis >= (int64_t)data.size())
    return emit() << "gather axis " << axis << " out of range for rank "
                  << data.size();
  Shape out(data.begin(), data.begin() + axis);
  out.append(indices.begin(), indices.end());
  out.append(data.begin() + axis + 1, data.end());
  if (failed(checkResult(out, emit)))
    return failure();
  return out;
}

FailureOr<Shape> pad(ArrayRef<int64_t> x, ArrayRef<int64_t> pads, EmitFn emit) {
  if (pads.size() != 2 * x.size())
    return emit() << "expected " << 2 * x.size() << " pads, got "
                  << pads.size();
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    if (pads[d] < 0 || pads[x.size() + d] < 0)
      return emit() << "pads must be >= 0";
    int64_t o;
    if (__builtin_add_overflow(x[d], pads[d], &o) ||
        __builtin_add_overflow(o, pads[x.size() + d], &o))
      return emit() << "padded size overflows";
    out.push_back(o);
  }
  if (failed(checkResult(out, emit)))
    return failure();
  return out;
}

FailureOr<Shape> tile(ArrayRef<int64_t> x, ArrayRef<int64_t> repeats,
                      EmitFn emit) {
  if (repeats.size() != x.size())
    return emit() << "expected " << x.size() << " repeats, got "
                  << repeats.size();
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    int64_t o;
    if (repeats[d] < 0)
      return emit() << "repeats must be >= 0";
    if (__builtin_mul_overflow(x[d], repeats[d], &o))
      return emit() << "tiled size overflows";
    out.push_back(o);
  }
  if (failed(checkResult(out, emit)))
    return failure();
  return out;
}

LogicalResult normalizeSlice(ArrayRef<int64_t> x, ArrayRef<int64_t> starts,
                             ArrayRef<int64_t> ends, ArrayRef<int64_t> axes,
                             ArrayRef<int64_t> steps, Shape &fullStarts,
                             Shape &fullSteps, Shape &result, EmitFn emit) {
  size_t rank = x.size();
  if (starts.size() != ends.size() || starts.size() != axes.size() ||
      starts.size() != steps.size())
    return emit() << "slice starts, ends, axes and steps differ in length";
  fullStarts.assign(rank, 0);
  fullSteps.assign(rank, 1);
  result.assign(x.begin(), x.end());
  llvm::SmallVector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i];
    if (a < 0 || a >= (int64_t)rank || seen[a])
      return emit() << "slice axis " << a << " invalid or repeated";
    seen[a] = true;
    int64_t dim = x[a], step = steps[i];
    if (step == 0)
      return emit() << "slice step must not be 0";
    int64_t s = starts[i], e = ends[i];
    // Clamp as ONNX does (values beyond int range mean "to the end").
    if (s < 0)
      s = s < -dim ? -dim : s, s += dim;
    if (e < 0)
      e = e < -dim ? -dim : e, e += dim;
    int64_t count;
    if (step > 0) {
      s = std::min(std::max<int64_t>(s, 0), dim);
      e = std::min(std::max<int64_t>(e, 0), dim);
      count = e > s ? (e - s + step - 1) / step : 0;
    } else {
      // Negative steps: start clamps to [0, dim-1], end to [-1, dim-1].
      s = std::min(std::max<int64_t>(s, 0), dim - 1);
      if (ends[i] < -dim)
        e = -1;
      e = std::min(std::max<int64_t>(e, -1), dim - 1);
      count = s > e ? (s - e + (-step) - 1) / (-step) : 0;
    }
    fullStarts[a] = count > 0 ? s : 0;
    fullSteps[a] = step;
    result[a] = count;
  }
  return success();
}

LogicalResult verifySlice(ArrayRef<int64_t> x, ArrayRef<int64_t> starts,
                          ArrayRef<int64_t> steps, ArrayRef<int64_t> result,
                          EmitFn emit) {
  if (starts.size() != x.size() || steps.size() != x.size() ||
      result.size() != x.size())
    return emit() << "slice needs one start and step per dimension (rank "
                  << x.size() << ")";
  for (size_t d = 0; d < x.size(); ++d) {
    if (steps[d] == 0)
      return emit() << "slice step of dimension " << d << " is 0";
    if (result[d] == 0)
      continue;
    int64_t last = starts[d] + (result[d] - 1) * steps[d];
    if (starts[d] < 0 || starts[d] >= x[d] || last < 0 || last >= x[d])
      return emit() << "slice of dimension " << d << " (start " << starts[d]
                    << ", step " << steps[d] << ", count " << result[d]
                    << ") leaves the input size " << x[d];
  }
  return success();
}

LogicalResult rnn(ArrayRef<int64_t> x, ArrayRef<int64_t> w, ArrayRef<int64_t> r,
                  int64_t gates, int64_t hiddenSize, int64_t numDirections,
                  Shape &y, Shape &yh, EmitFn emit) {
  if (x.size() != 3)
    return emit() << "recurrent input X must be [seq, batch, input], got "
                  << str(x);
  if (hiddenSize < 1)
    return emit() << "hidden_size must be >= 1";
  if (w.size() != 3 || w[0] != numDirections || w[1] != gates * hiddenSize ||
      w[2] != x[2])
    return emit() << "W must be " << numDirections << "x" << gates * hiddenSize
                  << "x" << x[2] << ", got " << str(w);
  if (r.size() != 3 || r[0] != numDirections || r[1] != gates * hiddenSize ||
      r[2] != hiddenSize)
    return emit() << "R must be " << numDirections << "x" << gates * hiddenSize
                  << "x" << hiddenSize << ", got " << str(r);
  y = {x[0], numDirections, x[1], hiddenSize};
  yh = {numDirections, x[1], hiddenSize};
  return success();
}

FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank, EmitFn emit,
                                 bool inclusive) {
  // Inclusive (Flatten): [-rank, rank], a negative axis counts from rank.
  int64_t hi = inclusive ? rank + 1 : rank;
  if (axis < -rank || axis >= hi)
    return emit() << "axis " << axis << " out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

} // namespace shapes
} // namespace plumb
