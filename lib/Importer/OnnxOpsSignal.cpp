//===- lib/Importer/OnnxOpsSignal.cpp - ONNX signal operators -------------===//
//
// Part of Plumb. Handlers for DFT (17: axis attribute, 20: axis input) and
// STFT (17), one plumb.dft / plumb.stft each over the DFT kernel, and
// MelWeightMatrix (17), a constant computed here with ONNX's reference
// arithmetic (its inputs must be known at import). Semantics:
// docs/determinism.md, "DFT and STFT" and "MelWeightMatrix".
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include "plumb/runtime/math.h"
#include "plumb/runtime/signal.h"

#include <cmath>
#include <cstdio>

using namespace mlir;

namespace plumb {
namespace importer {

void registerSignalHandlers(OpTable &t);

namespace {

using Shape = shapes::Shape;

/// Input `i` as one integer known at import (`what` names it).
FailureOr<int64_t> oneInt(Importer &im, NodeCtx &n, int64_t i,
                          StringRef what) {
  if (!Importer::eltOf(n.in(i)).isInteger(32) &&
      !Importer::eltOf(n.in(i)).isInteger(64))
    return im.error(n) << "input '" << what << "' must be int32 or int64, got "
                       << Importer::eltOf(n.in(i));
  auto v = im.constInts(n, i, what);
  if (failed(v))
    return failure();
  if (v->size() != 1)
    return im.error(n) << "input '" << what << "' must hold one value, got "
                       << v->size();
  return (*v)[0];
}

/// Input `i` as one float known at import.
FailureOr<float> oneFloat(Importer &im, NodeCtx &n, int64_t i,
                          StringRef what) {
  if (!Importer::eltOf(n.in(i)).isF32())
    return im.error(n) << "input '" << what << "' must be a float tensor, got "
                       << Importer::eltOf(n.in(i));
  auto v = im.constFloats(n, i, what);
  if (failed(v))
    return failure();
  if (v->size() != 1)
    return im.error(n) << "input '" << what << "' must hold one value, got "
                       << v->size();
  return (*v)[0];
}

/// An attribute that is 0 or 1.
FailureOr<bool> flagAttr(Importer &im, NodeCtx &n, StringRef name,
                         int64_t dflt) {
  auto v = im.attrInt(n, name, dflt);
  if (failed(v))
    return failure();
  if (*v != 0 && *v != 1)
    return im.error(n) << name << " must be 0 or 1, got " << *v;
  return *v == 1;
}

/// DFT (17: `axis` attribute, default 1; 20: `axis` input, default -2,
/// known at import). `dft_length` (known at import) pads or truncates the
/// axis; onesided keeps n / 2 + 1 bins of a real input; inverse divides by
/// n (docs/determinism.md "DFT and STFT").
LogicalResult dft(Importer &im, NodeCtx &n) {
  const bool axisInput = n.opset >= 20;
  if (failed(need(im, n, 1, axisInput ? 3 : 2)))
    return failure();
  for (int i = 1; i < n.proto.output_size(); ++i)
    if (!n.proto.output(i).empty())
      return im.error(n) << "DFT has one output";
  Value x = n.in(0);
  if (!Importer::eltOf(x).isF32())
    return im.error(n) << "input must be a float tensor, got "
                       << Importer::eltOf(x);
  auto inverse = flagAttr(im, n, "inverse", 0);
  auto onesided = flagAttr(im, n, "onesided", 0);
  if (failed(inverse) || failed(onesided))
    return failure();
  int64_t axis;
  if (axisInput) {
    axis = -2;
    if (n.in(2)) {
      auto a = oneInt(im, n, 2, "axis");
      if (failed(a))
        return failure();
      axis = *a;
    }
  } else {
    auto a = im.attrInt(n, "axis", 1);
    if (failed(a))
      return failure();
    axis = *a;
  }
  auto xs = Importer::shapeOf(x);
  const int64_t r = xs.size();
  if (r < 2 || (xs[r - 1] != 1 && xs[r - 1] != 2))
    return im.error(n) << "input must have rank >= 2 and a last dimension of "
                          "1 (real) or 2 (complex), got "
                       << shapes::str(xs);
  if (axis < -r || axis > r - 2 || axis == -1)
    return im.error(n) << "axis " << axis << " is outside [" << -r
                       << ", -2] and [0, " << r - 2
                       << "] (the last dimension holds the parts)";
  const int64_t a = axis < 0 ? axis + r : axis;
  int64_t len = xs[a];
  if (n.in(1)) {
    auto l = oneInt(im, n, 1, "dft_length");
    if (failed(l))
      return failure();
    len = *l;
    if (len < 1 || len > PLUMB_RT_DFT_MAX_LENGTH)
      return im.error(n) << "dft_length " << len << " is outside [1, "
                         << PLUMB_RT_DFT_MAX_LENGTH << "]";
  } else if (len < 1 || len > PLUMB_RT_DFT_MAX_LENGTH) {
    return im.error(n) << "the transform length (axis " << a << " of "
                       << shapes::str(xs) << ") is outside [1, "
                       << PLUMB_RT_DFT_MAX_LENGTH << "]; give dft_length";
  }
  if (*onesided && xs[r - 1] != 1)
    return im.error(n) << "onesided needs a real input (last dimension 1): "
                          "ONNX defines no onesided output of a complex one";
  if (*onesided && *inverse)
    return im.error(n) << "onesided and inverse cannot both be set";
  Shape out(xs.begin(), xs.end());
  out[a] = *onesided ? len / 2 + 1 : len;
  out[r - 1] = 2;
  if (failed(shapes::numElements(out, im.emitter(n))))
    return failure();
  auto t = Importer::tensorType(out, im.b.getF32Type());
  return setOut(n, im.make<DFTOp>(n, t, x, im.b.getI64IntegerAttr(a),
                                  im.b.getI64IntegerAttr(len),
                                  im.b.getBoolAttr(*inverse),
                                  im.b.getBoolAttr(*onesided)));
}

/// STFT (17): frame_step and frame_length known at import; frame_length
/// defaults to the window's length, else the signal's; onesided (default 1)
/// needs a real signal.
LogicalResult stft(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 2, 4)))
    return failure();
  for (int i = 1; i < n.proto.output_size(); ++i)
    if (!n.proto.output(i).empty())
      return im.error(n) << "STFT has one output";
  Value x = n.in(0), w = n.in(2);
  if (!Importer::eltOf(x).isF32())
    return im.error(n) << "signal must be a float tensor, got "
                       << Importer::eltOf(x);
  auto xs = Importer::shapeOf(x);
  if (xs.size() != 3 || (xs[2] != 1 && xs[2] != 2))
    return im.error(n) << "signal must be (batch, length, 1 or 2), got "
                       << shapes::str(xs);
  auto onesided = flagAttr(im, n, "onesided", 1);
  if (failed(onesided))
    return failure();
  auto step = oneInt(im, n, 1, "frame_step");
  if (failed(step))
    return failure();
  if (*step < 1)
    return im.error(n) << "frame_step must be positive, got " << *step;
  int64_t len = xs[1];
  if (w) {
    if (!Importer::eltOf(w).isF32())
      return im.error(n) << "window must be a float tensor, got "
                         << Importer::eltOf(w);
    auto ws = Importer::shapeOf(w);
    if (ws.size() != 1)
      return im.error(n) << "window must have rank 1, got " << shapes::str(ws);
    len = ws[0];
  }
  if (n.in(3)) {
    auto l = oneInt(im, n, 3, "frame_length");
    if (failed(l))
      return failure();
    if (w && *l != len)
      return im.error(n) << "frame_length " << *l << " differs from the "
                         << "window's length " << len;
    len = *l;
  }
  if (len < 1 || len > xs[1] || len > PLUMB_RT_DFT_MAX_LENGTH)
    return im.error(n) << "frame_length " << len << " is outside [1, "
                       << std::min<int64_t>(xs[1], PLUMB_RT_DFT_MAX_LENGTH)
                       << "] (the signal has " << xs[1] << " samples)";
  if (*onesided && xs[2] != 1)
    return im.error(n) << "onesided (default 1) needs a real signal (last "
                          "dimension 1); set onesided = 0 for a complex one";
  Shape out = {xs[0], (xs[1] - len) / *step + 1,
               *onesided ? len / 2 + 1 : len, 2};
  if (failed(shapes::numElements(out, im.emitter(n))))
    return failure();
  auto t = Importer::tensorType(out, im.b.getF32Type());
  return setOut(n, im.make<STFTOp>(n, t, x, w, im.b.getI64IntegerAttr(*step),
                                   im.b.getI64IntegerAttr(len),
                                   im.b.getBoolAttr(*onesided)));
}

/// log10(x) for x > 0 as float32: binary64 ln x (the runtime's logCore,
/// math.h) times 1/ln 10, rounded once (exact for x = 1 and 10).
float log10F(float x) {
  return (float)(::plumb::rt::mathdetail::logCore((double)x) *
                 0x1.bcb7b1526e50ep-2);
}

/// 10^t in binary64 for |t| <= 300: the runtime's expCore (math.h) of
/// t ln 10 formed as a double-double (Dekker's product, no FMA; ln 10 as
/// hi + lo), relative error about 2^-51; exactly 1 for t = 0.
double pow10D(double t) {
  const double hi = 0x1.26bb1bbb55516p+1, lo = -0x1.f48ad494ea3e9p-53;
  const double h = t * hi;
  const double sp = 134217729.0; // 2^27 + 1
  const double ct = t * sp, th = ct - (ct - t), tl = t - th;
  const double ch = hi * sp, hh = ch - (ch - hi), hl = hi - hh;
  const double e = ((th * hh - h) + th * hl + tl * hh) + tl * hl;
  return ::plumb::rt::mathdetail::expCore(h, e + t * lo);
}

/// floor(a / b) of the exact quotient for a finite double a and b > 0
/// (numpy's float floor_divide, which corrects the rounded quotient by
/// fmod).
double floorDivide(double a, double b) {
  double q = std::floor(a / b);
  if (q * b > a)
    q -= 1.0;
  else if ((q + 1.0) * b <= a)
    q += 1.0;
  return q;
}

/// A frequency for a message: "%g" (8000, 20.5).
std::string hzText(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", (double)v);
  return buf;
}

/// MelWeightMatrix (17): a constant (num_spectrogram_bins, num_mel_bins),
/// num_spectrogram_bins = dft_length / 2 + 1, with onnx's reference
/// arithmetic (onnx/reference/ops/op_mel_weight_matrix.py, numpy's types):
/// the edges' mels in float32 (2595 * log10(1 + hz / 700)), the step in
/// float32, the num_mel_bins + 2 points i * step + low_mel and their
/// frequencies 700 * (10^(mel / 2595) - 1) and bins
/// floor(((dft_length + 1) * hz) / sample_rate) in binary64, then the
/// triangles' weights (j - left) / (center - left) and (right - j) /
/// (right - center) rounded once to float32 (docs/determinism.md
/// "MelWeightMatrix"). Every input must be known at import.
LogicalResult melWeightMatrix(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 5, 5)))
    return failure();
  auto dtype = im.attrInt(n, "output_datatype", onnx::TensorProto::FLOAT);
  if (failed(dtype))
    return failure();
  if (*dtype != onnx::TensorProto::FLOAT)
    return im.error(n) << "output_datatype " << *dtype
                       << " is not supported (only 1, float32)";
  auto bins = oneInt(im, n, 0, "num_mel_bins");
  auto dftLen = failed(bins) ? FailureOr<int64_t>(failure())
                             : oneInt(im, n, 1, "dft_length");
  auto rate = failed(dftLen) ? FailureOr<int64_t>(failure())
                             : oneInt(im, n, 2, "sample_rate");
  auto lowHz = failed(rate) ? FailureOr<float>(failure())
                            : oneFloat(im, n, 3, "lower_edge_hertz");
  auto highHz = failed(lowHz) ? FailureOr<float>(failure())
                              : oneFloat(im, n, 4, "upper_edge_hertz");
  if (failed(highHz))
    return failure();
  const int64_t N = *bins, D = *dftLen, R = *rate;
  const int64_t maxInt = ((int64_t)1 << 31) - 2;
  if (N < 1 || N > maxInt)
    return im.error(n) << "num_mel_bins must be positive, got " << N;
  if (D < 1 || D > maxInt)
    return im.error(n) << "dft_length must be positive, got " << D;
  if (R < 1 || R > maxInt)
    return im.error(n) << "sample_rate must be positive, got " << R;
  const float lo = *lowHz, hi = *highHz;
  if (!(lo >= 0.0f) || !(hi >= lo) || !std::isfinite(hi))
    return im.error(n) << "the edges must satisfy 0 <= lower_edge_hertz <= "
                          "upper_edge_hertz (finite), got "
                       << hzText(lo) << " and " << hzText(hi);
  const int64_t spec = D / 2 + 1;
  if (failed(shapes::numElements({spec, N}, im.emitter(n))))
    return failure();
  const float lowMel = 2595.0f * log10F(1.0f + lo / 700.0f);
  const float highMel = 2595.0f * log10F(1.0f + hi / 700.0f);
  const float melStep = (highMel - lowMel) / (float)(N + 2);
  SmallVector<int64_t> f((size_t)(N + 2));
  for (int64_t i = 0; i < N + 2; ++i) {
    const double mel = (double)i * (double)melStep + (double)lowMel;
    const double hz = 700.0 * (pow10D(mel / 2595.0) - 1.0);
    const double k = floorDivide((double)(D + 1) * hz, (double)R);
    if (!(k >= 0.0) || k >= (double)spec)
      return im.error(n) << "the mel filter bank reaches spectrogram bin "
                         << (k < 0.0 ? "below 0" : std::to_string((int64_t)k))
                         << ", outside the " << spec
                         << " bins of dft_length " << D << " (upper_edge_hertz "
                         << hzText(hi) << " is too high for sample_rate " << R << ")";
    f[(size_t)i] = (int64_t)k;
  }
  std::vector<float> w((size_t)(spec * N), 0.0f);
  for (int64_t i = 0; i < N; ++i) {
    const int64_t left = f[i], center = f[i + 1], right = f[i + 2];
    if (center == left) {
      w[(size_t)(center * N + i)] = 1.0f;
    } else {
      for (int64_t j = left; j <= center; ++j)
        w[(size_t)(j * N + i)] =
            (float)((double)(j - left) / (double)(center - left));
    }
    for (int64_t j = center; j < right; ++j)
      w[(size_t)(j * N + i)] =
          (float)((double)(right - j) / (double)(right - center));
  }
  auto type = Importer::tensorType({spec, N}, im.b.getF32Type());
  return setOut(n, im.constantOf(
                       DenseElementsAttr::get(type, ArrayRef<float>(w))));
}

} // namespace

void registerSignalHandlers(OpTable &t) {
  t.add("DFT", dft, kF32, 17);
  t.add("STFT", stft, kF32, 17);
  t.add("MelWeightMatrix", melWeightMatrix, kInt, 17);
}

} // namespace importer
} // namespace plumb
