//===- lib/Importer/OnnxOpsAttention.cpp - ONNX Attention, RotaryEmbedding ===//
//
// Part of Plumb. Attention (opset 23, 24) and RotaryEmbedding (opset 23)
// composed at import from existing plumb ops (reshape / transpose / concat
// / expand / slice / gather / mul / add / sub / div / sqrt / tanh / where /
// less / pad / softmax / matmul) in the order of ONNX's function bodies
// (onnx 1.20.1), so that execution, gas, slicing and the CUDA twins are
// those of the ops used. Operations that only move bits or select exact
// constants (the causal mask, a bool mask's 0 / -inf) are built directly;
// every arithmetic step is the function body's. docs/determinism.md
// ("Operators composed at import") states the order.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include <limits>

using namespace mlir;

namespace plumb {
namespace importer {

void registerAttentionHandlers(OpTable &t);

namespace {

using Shape = shapes::Shape;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

/// A binary op whose result has the broadcast shape of its operands.
template <typename OpTy>
FailureOr<Value> binary(Importer &im, NodeCtx &n, FailureOr<Value> a,
                        FailureOr<Value> b, Type elt = {}) {
  if (failed(a) || failed(b))
    return failure();
  auto s = shapes::broadcast({Importer::shapeOf(*a), Importer::shapeOf(*b)},
                             im.emitter(n));
  if (failed(s))
    return failure();
  return im.make<OpTy>(
      n, Importer::tensorType(*s, elt ? elt : Importer::eltOf(*a)), *a, *b);
}

template <typename OpTy>
FailureOr<Value> unary(Importer &im, NodeCtx &n, FailureOr<Value> v) {
  if (failed(v))
    return failure();
  return im.make<OpTy>(n, v->getType(), *v);
}

FailureOr<Value> transposeTo(Importer &im, NodeCtx &n, FailureOr<Value> v,
                             ArrayRef<int64_t> perm) {
  if (failed(v))
    return failure();
  auto s = shapes::transpose(Importer::shapeOf(*v), perm, im.emitter(n));
  if (failed(s))
    return failure();
  return im.make<TransposeOp>(n, withShape(*v, *s), *v,
                              im.b.getDenseI64ArrayAttr(perm));
}

FailureOr<Value> reshape(Importer &im, NodeCtx &n, FailureOr<Value> v,
                         ArrayRef<int64_t> shape) {
  if (failed(v))
    return failure();
  return reshapeOrSame(im, n, *v, shape);
}

/// v[..., begin : end : step] along the last axis.
FailureOr<Value> sliceLast(Importer &im, NodeCtx &n, FailureOr<Value> v,
                           int64_t begin, int64_t end, int64_t step = 1) {
  if (failed(v))
    return failure();
  Shape s(Importer::shapeOf(*v));
  if (begin == 0 && end == s.back() && step == 1)
    return *v;
  SmallVector<int64_t> starts(s.size(), 0), steps(s.size(), 1);
  starts.back() = begin;
  steps.back() = step;
  s.back() = (end - begin + step - 1) / step;
  return im.make<SliceOp>(n, withShape(*v, s), *v,
                          im.b.getDenseI64ArrayAttr(starts),
                          im.b.getDenseI64ArrayAttr(steps));
}

/// The concatenation of a and b along `axis` (the last when -1).
FailureOr<Value> concat(Importer &im, NodeCtx &n, FailureOr<Value> a,
                        FailureOr<Value> b, int64_t axis) {
  if (failed(a) || failed(b))
    return failure();
  int64_t rank = Importer::shapeOf(*a).size();
  if (axis < 0)
    axis += rank;
  auto s = shapes::concat({Importer::shapeOf(*a), Importer::shapeOf(*b)}, axis,
                          im.emitter(n));
  if (failed(s))
    return failure();
  return im.make<ConcatOp>(n, withShape(*a, *s), ValueRange{*a, *b},
                           im.b.getI64IntegerAttr(axis));
}

Value scalarF32(Importer &im, float v) {
  auto t = RankedTensorType::get({}, im.b.getF32Type());
  return im.constantOf(DenseElementsAttr::get(t, v));
}

LogicalResult needFloat(Importer &im, NodeCtx &n, int64_t i, StringRef name) {
  if (!Importer::eltOf(n.in(i)).isF32())
    return im.error(n) << "input " << i << " (" << name
                       << ") must be a float tensor, got "
                       << Importer::eltOf(n.in(i));
  return success();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// Q, K or V as [batch, heads, sequence, head size]: 4-D as given; 3-D
/// [batch, sequence, heads * head size] reshaped and transposed (the
/// function body's Reshape to [B, S, heads, -1] and Transpose [0, 2, 1, 3]).
FailureOr<Value> toHeads(Importer &im, NodeCtx &n, int64_t i, StringRef name,
                         int64_t heads, StringRef attrName) {
  Value v = n.in(i);
  auto s = Importer::shapeOf(v);
  if (s.size() == 4)
    return v;
  if (s[2] % heads != 0)
    return im.error(n) << "input " << i << " (" << name << ") of shape "
                       << shapes::str(s) << ": its last dimension is not a "
                       << "multiple of " << attrName << " " << heads;
  return transposeTo(im, n,
                     reshapeOrSame(im, n, v, {s[0], s[1], heads, s[2] / heads}),
                     {0, 2, 1, 3});
}

/// Attention (opset 23, 24), ONNX's function body:
///   q, k, v as [B, H, S, D] (3-D inputs reshaped by q_num_heads /
///   kv_num_heads); present_key = concat(past_key, k) on axis 2 (the same for
///   values); c = sqrt(scale) with scale the attribute or 1 / sqrt(float(D))
///   (each step rounded to float32); bias = attn_mask (a bool mask as
///   where(mask, 0, -inf); at opset 24 a mask shorter than the total
///   sequence is padded with -inf), + the causal mask (-inf where
///   row + past_length < column) when is_causal, + the padding mask of
///   nonpad_kv_seqlen [B, 1, 1, T] (-inf at columns >= nonpad_kv_seqlen[b]);
///   GQA repeats each kv head q_num_heads / kv_num_heads times
///   ([h0, h0, h1, h1, ...]); qk = matmul(q * c, transpose(k) * c);
///   w = qk + bias; softcap: w = tanh(w / softcap) * softcap;
///   y = matmul(softmax(w, -1), v), 3-D outputs transposed and reshaped
///   back. qk_matmul_output is qk (mode 0), qk + bias (1), after softcap (2)
///   or the softmax (3).
LogicalResult attention(Importer &im, NodeCtx &n) {
  bool v24 = n.opset >= 24;
  if (failed(need(im, n, 3, v24 ? 7 : 6)))
    return failure();
  auto scaleAttr = im.attr(n, "scale");
  auto scale = im.attrFloat(n, "scale", 1.0f);
  auto causal = im.attrInt(n, "is_causal", 0);
  auto qHeadsAttr = im.attr(n, "q_num_heads");
  auto kvHeadsAttr = im.attr(n, "kv_num_heads");
  auto qHeadsIn = im.attrInt(n, "q_num_heads", 0);
  auto kvHeadsIn = im.attrInt(n, "kv_num_heads", 0);
  auto softcap = im.attrFloat(n, "softcap", 0.0f);
  auto mode = im.attrInt(n, "qk_matmul_output_mode", 0);
  auto precision = im.attrInt(n, "softmax_precision", 0);
  if (failed(scale) || failed(causal) || failed(qHeadsIn) ||
      failed(kvHeadsIn) || failed(softcap) || failed(mode) || failed(precision))
    return failure();
  for (int i = 0; i < 3; ++i)
    if (failed(needFloat(im, n, i, i == 0 ? "Q" : i == 1 ? "K" : "V")))
      return failure();
  Value pastKey = n.in(4), pastValue = n.in(5), nonpad = n.in(6);
  Value mask = n.in(3);
  if (*causal != 0 && *causal != 1)
    return im.error(n) << "is_causal must be 0 or 1, got " << *causal;
  if (*mode < 0 || *mode > 3)
    return im.error(n) << "qk_matmul_output_mode must be 0, 1, 2 or 3, got "
                       << *mode;
  // softmax_precision: Plumb computes the softmax in float32 (a float16 /
  // bfloat16 operand type keeps its intermediates in float32, as every
  // composed op does); a narrower precision than the data's rounds the
  // softmax's input and output to it (the function body's two Casts).
  int32_t dataHalf = im.halfType(n.in(0));
  int32_t roundTo = 0;
  if (*precision == onnx::TensorProto::DOUBLE)
    return im.error(n) << "softmax_precision DOUBLE (11) is not supported "
                          "(Plumb computes in float32)";
  if (*precision != 0 && *precision != onnx::TensorProto::FLOAT &&
      *precision != onnx::TensorProto::FLOAT16 &&
      *precision != onnx::TensorProto::BFLOAT16)
    return im.error(n) << "softmax_precision " << *precision
                       << " is not a float type (FLOAT, FLOAT16, BFLOAT16 "
                          "or DOUBLE)";
  if (isHalfFloatType(int32_t(*precision)) && *precision != dataHalf)
    roundTo = int32_t(*precision);

  auto qs = Importer::shapeOf(n.in(0)), ks = Importer::shapeOf(n.in(1)),
       vs = Importer::shapeOf(n.in(2));
  if ((qs.size() != 3 && qs.size() != 4) || ks.size() != qs.size() ||
      vs.size() != qs.size())
    return im.error(n) << "Q, K and V must all be 3-D or all 4-D, got "
                       << shapes::str(qs) << ", " << shapes::str(ks) << " and "
                       << shapes::str(vs);
  bool threeD = qs.size() == 3;
  int64_t qHeads, kvHeads;
  if (threeD) {
    if (!qHeadsAttr || !kvHeadsAttr)
      return im.error(n) << "3-D inputs need the q_num_heads and "
                            "kv_num_heads attributes";
    qHeads = *qHeadsIn;
    kvHeads = *kvHeadsIn;
    if (qHeads < 1 || kvHeads < 1)
      return im.error(n) << "q_num_heads and kv_num_heads must be positive, "
                            "got "
                         << qHeads << " and " << kvHeads;
  } else {
    qHeads = qs[1];
    kvHeads = ks[1];
    if (qHeadsAttr && *qHeadsIn != qHeads)
      return im.error(n) << "q_num_heads " << *qHeadsIn
                         << " differs from the 4-D Q's " << qHeads << " heads";
    if (kvHeadsAttr && *kvHeadsIn != kvHeads)
      return im.error(n) << "kv_num_heads " << *kvHeadsIn
                         << " differs from the 4-D K's " << kvHeads << " heads";
  }
  if (qHeads % kvHeads != 0)
    return im.error(n) << "q_num_heads " << qHeads
                       << " is not a multiple of kv_num_heads " << kvHeads;
  if (!pastKey != !pastValue)
    return im.error(n) << "past_key and past_value must be given together";
  if (nonpad && pastKey)
    return im.error(n) << "nonpad_kv_seqlen cannot be used with past_key / "
                          "past_value (the cache is updated outside the "
                          "operator in that use)";

  auto q = toHeads(im, n, 0, "Q", qHeads, "q_num_heads");
  if (failed(q))
    return failure();
  auto k = toHeads(im, n, 1, "K", kvHeads, "kv_num_heads");
  if (failed(k))
    return failure();
  auto v = toHeads(im, n, 2, "V", kvHeads, "kv_num_heads");
  if (failed(v))
    return failure();
  Shape q4(Importer::shapeOf(*q)), k4(Importer::shapeOf(*k)),
      v4(Importer::shapeOf(*v));
  int64_t B = q4[0], S = q4[2], D = q4[3], kvLen = k4[2], Dv = v4[3];
  if (k4[0] != B || v4[0] != B || k4[1] != kvHeads || v4[1] != kvHeads ||
      v4[2] != kvLen || k4[3] != D)
    return im.error(n) << "Q, K and V as [batch, heads, sequence, head size] "
                       << shapes::str(q4) << ", " << shapes::str(k4) << " and "
                       << shapes::str(v4) << " do not agree";

  // The KV cache.
  int64_t pastLen = 0;
  Value presentKey = *k, presentValue = *v;
  if (pastKey) {
    for (int i = 4; i <= 5; ++i)
      if (failed(needFloat(im, n, i, i == 4 ? "past_key" : "past_value")))
        return failure();
    auto pk = Importer::shapeOf(pastKey), pv = Importer::shapeOf(pastValue);
    if (pk.size() != 4 || pv.size() != 4 || pk[0] != B || pk[1] != kvHeads ||
        pk[3] != D || pv[0] != B || pv[1] != kvHeads || pv[3] != Dv ||
        pv[2] != pk[2])
      return im.error(n) << "past_key " << shapes::str(pk) << " and past_value "
                         << shapes::str(pv) << " must be [" << B << ", "
                         << kvHeads << ", past, " << D << "] and [" << B << ", "
                         << kvHeads << ", past, " << Dv << "]";
    pastLen = pk[2];
    auto ck = concat(im, n, pastKey, *k, 2);
    auto cv = concat(im, n, pastValue, *v, 2);
    if (failed(ck) || failed(cv))
      return failure();
    presentKey = *ck;
    presentValue = *cv;
  }
  int64_t total = pastLen + kvLen;

  // The scale: c = sqrt(scale), scale = 1 / sqrt(float(D)) by default.
  // (Operands are built one statement at a time so that the import's op
  // order does not depend on the compiler's argument evaluation order.)
  FailureOr<Value> c = scalarF32(im, *scale);
  if (!scaleAttr) {
    auto sqrtD = unary<SqrtOp>(im, n, scalarF32(im, (float)D));
    c = binary<DivOp>(im, n, scalarF32(im, 1.0f), sqrtD);
  }
  c = unary<SqrtOp>(im, n, c);

  // The bias.
  Value bias;
  if (mask) {
    Type me = Importer::eltOf(mask);
    auto ms = Importer::shapeOf(mask);
    if (!me.isF32() && !me.isInteger(1))
      return im.error(n) << "attn_mask must be a bool or float tensor, got "
                         << me;
    if (ms.empty() && v24)
      return im.error(n) << "attn_mask must have rank >= 1 at opset 24 (its "
                            "last axis is padded to the total sequence length)";
    Value m = mask;
    if (me.isInteger(1)) {
      Value zero = scalarF32(im, 0.0f), negInf = scalarF32(im, kNegInf);
      auto w = im.make<WhereOp>(n, Importer::tensorType(ms, im.b.getF32Type()),
                                mask, zero, negInf);
      if (failed(w))
        return failure();
      m = *w;
    }
    if (v24 && ms.back() < total) {
      SmallVector<int64_t> pads(2 * ms.size(), 0);
      pads.back() = total - ms.back();
      Shape ps(ms);
      ps.back() = total;
      auto p = im.make<PadOp>(
          n, withShape(m, ps), m, im.b.getDenseI64ArrayAttr(pads),
          im.b.getStringAttr("constant"), im.b.getF32FloatAttr(kNegInf));
      if (failed(p))
        return failure();
      m = *p;
    }
    bias = m;
  }
  if (*causal) {
    // -inf where row + past_length < column (upper-left aligned, offset by
    // the cache): the body's Less of the two ranges and its Where.
    SmallVector<int64_t> rows(S), cols(total);
    for (int64_t r = 0; r < S; ++r)
      rows[r] = r + pastLen;
    for (int64_t col = 0; col < total; ++col)
      cols[col] = col;
    Value rowsPast = im.constI64({S, 1}, rows);
    Value colsAll = im.constI64({1, total}, cols);
    auto lt = binary<LessOp>(im, n, rowsPast, colsAll, im.b.getI1Type());
    if (failed(lt))
      return failure();
    Value negInf = scalarF32(im, kNegInf), zero = scalarF32(im, 0.0f);
    auto tri =
        im.make<WhereOp>(n, Importer::tensorType({S, total}, im.b.getF32Type()),
                         *lt, negInf, zero);
    if (failed(tri))
      return failure();
    Value t = *tri;
    if (bias) {
      auto sum = binary<AddOp>(im, n, bias, t);
      if (failed(sum))
        return failure();
      bias = *sum;
    } else {
      bias = t; // zeros + the causal mask
    }
  }
  if (nonpad) {
    if (!Importer::eltOf(nonpad).isInteger(64) ||
        Importer::shapeOf(nonpad) != ArrayRef<int64_t>{B})
      return im.error(n) << "nonpad_kv_seqlen must be an int64 tensor of "
                            "shape ["
                         << B << "]";
    SmallVector<int64_t> iota(kvLen);
    for (int64_t j = 0; j < kvLen; ++j)
      iota[j] = j;
    Value cols = im.constI64({kvLen}, iota);
    auto lens = reshapeOrSame(im, n, nonpad, {B, 1});
    auto lt = binary<LessOp>(im, n, cols, lens, im.b.getI1Type());
    if (failed(lt))
      return failure();
    Value zero = scalarF32(im, 0.0f), negInf = scalarF32(im, kNegInf);
    auto pm =
        im.make<WhereOp>(n, Importer::tensorType({B, kvLen}, im.b.getF32Type()),
                         *lt, zero, negInf);
    auto pm4 = reshape(im, n, pm, {B, 1, 1, kvLen});
    if (failed(pm4))
      return failure();
    if (bias) {
      auto sum = binary<AddOp>(im, n, bias, *pm4);
      if (failed(sum))
        return failure();
      bias = *sum;
    } else {
      bias = *pm4; // zeros + the padding mask
    }
  }
  // With no mask at all the body adds zeros: only the sign of a zero score
  // can tell, and only qk_matmul_output (modes 1, 2) shows it.
  bool wantQk = n.proto.output_size() > 3 && !n.proto.output(3).empty();
  if (!bias && wantQk && (*mode == 1 || *mode == 2))
    bias = scalarF32(im, 0.0f);

  // GQA: [B, Hk, T, D] -> [B, Hk, rep, T, D] -> [B, Hq, T, D].
  int64_t rep = qHeads / kvHeads;
  Value kAtt = presentKey, vAtt = presentValue;
  if (rep > 1) {
    auto repeat = [&](Value x, int64_t d) -> FailureOr<Value> {
      auto u = reshapeOrSame(im, n, x, {B, kvHeads, 1, total, d});
      if (failed(u))
        return failure();
      auto e =
          im.make<ExpandOp>(n, withShape(x, {B, kvHeads, rep, total, d}), *u);
      return reshape(im, n, e, {B, qHeads, total, d});
    };
    auto rk = repeat(presentKey, D), rv = repeat(presentValue, Dv);
    if (failed(rk) || failed(rv))
      return failure();
    kAtt = *rk;
    vAtt = *rv;
  }

  auto qScaled = binary<MulOp>(im, n, *q, c);
  auto kT = transposeTo(im, n, kAtt, {0, 1, 3, 2});
  auto kScaled = binary<MulOp>(im, n, kT, c);
  if (failed(qScaled) || failed(kScaled))
    return failure();
  Shape ws = {B, qHeads, S, total};
  auto qk =
      im.make<MatMulOp>(n, withShape(*q, ws), *qScaled, *kScaled, TreeAttr());
  if (failed(qk))
    return failure();
  FailureOr<Value> withBias = *qk;
  if (bias) {
    auto bs = shapes::broadcast({ws, Importer::shapeOf(bias)}, im.emitter(n));
    if (failed(bs))
      return failure();
    if (ArrayRef<int64_t>(*bs) != ArrayRef<int64_t>(ws))
      return im.error(n) << "the attention bias of shape "
                         << shapes::str(Importer::shapeOf(bias))
                         << " does not broadcast to the scores' shape "
                         << shapes::str(ws);
    withBias = binary<AddOp>(im, n, *qk, bias);
  }
  FailureOr<Value> capped = withBias;
  if (*softcap != 0.0f) {
    Value sc = scalarF32(im, *softcap);
    capped = binary<MulOp>(
        im, n, unary<TanhOp>(im, n, binary<DivOp>(im, n, withBias, sc)), sc);
  }
  if (failed(capped))
    return failure();
  auto roundPrecision = [&](FailureOr<Value> x) -> FailureOr<Value> {
    if (!roundTo || failed(x))
      return x;
    if (roundTo == onnx::TensorProto::BFLOAT16)
      return unary<RoundBf16Op>(im, n, x);
    return unary<RoundF16Op>(im, n, x);
  };
  auto smIn = roundPrecision(*capped);
  if (failed(smIn))
    return failure();
  auto sm = roundPrecision(im.make<SoftmaxOp>(
      n, smIn->getType(), *smIn, im.b.getI64IntegerAttr(3), TreeAttr()));
  if (failed(sm))
    return failure();
  auto y = im.make<MatMulOp>(n, withShape(*q, {B, qHeads, S, Dv}), *sm, vAtt,
                             TreeAttr());
  if (threeD)
    y = reshape(im, n, transposeTo(im, n, y, {0, 2, 1, 3}),
                {B, S, qHeads * Dv});
  if (failed(y))
    return failure();
  n.outputs.push_back(*y);
  n.outputs.push_back(presentKey);
  n.outputs.push_back(presentValue);
  Value qkOut = *mode == 0   ? *qk
                : *mode == 1 ? *withBias
                : *mode == 2 ? *capped
                             : *sm;
  n.outputs.push_back(qkOut);
  return success();
}

//===----------------------------------------------------------------------===//
// RotaryEmbedding
//===----------------------------------------------------------------------===//

/// RotaryEmbedding (opset 23), ONNX's function body: x as [B, S, H, D] (4-D
/// [B, H, S, D] transposed; 3-D [B, S, H * D] reshaped by num_heads); the
/// first r = rotary_embedding_dim (default D) channels rotate: cos and sin
/// are the caches gathered by position_ids (or the caches themselves,
/// [B, S, *]), sliced to r / 2 and unsqueezed to [B, S, 1, r / 2]; x1, x2
/// are the halves (or, interleaved, the even and odd channels);
/// real = cos * x1 - sin * x2, imag = sin * x1 + cos * x2 (each product
/// rounded, then the sum); the result is concat(real, imag) (interleaved:
/// real and imag alternate) followed by the channels not rotated, in X's
/// layout.
LogicalResult rotaryEmbedding(Importer &im, NodeCtx &n) {
  if (failed(need(im, n, 3, 4)))
    return failure();
  auto interleaved = im.attrInt(n, "interleaved", 0);
  auto rdimAttr = im.attrInt(n, "rotary_embedding_dim", 0);
  auto heads = im.attrInt(n, "num_heads", 0);
  if (failed(interleaved) || failed(rdimAttr) || failed(heads))
    return failure();
  if (*interleaved != 0 && *interleaved != 1)
    return im.error(n) << "interleaved must be 0 or 1, got " << *interleaved;
  for (int i = 0; i < 3; ++i)
    if (failed(needFloat(im, n, i,
                         i == 0   ? "X"
                         : i == 1 ? "cos_cache"
                                  : "sin_cache")))
      return failure();
  Value x = n.in(0), pos = n.in(3);
  auto xs = Importer::shapeOf(x);
  FailureOr<Value> xin;
  if (xs.size() == 4) {
    xin = transposeTo(im, n, x, {0, 2, 1, 3});
  } else if (xs.size() == 3) {
    if (*heads < 1)
      return im.error(n) << "a 3-D input needs a positive num_heads, got "
                         << *heads;
    if (xs[2] % *heads != 0)
      return im.error(n) << "the hidden size " << xs[2]
                         << " is not a multiple of num_heads " << *heads;
    xin = reshapeOrSame(im, n, x, {xs[0], xs[1], *heads, xs[2] / *heads});
  } else {
    return im.error(n) << "input must be 3-D or 4-D, got " << shapes::str(xs);
  }
  if (failed(xin))
    return failure();
  Shape s4(Importer::shapeOf(*xin));
  int64_t D = s4[3];
  int64_t r = *rdimAttr > 0 ? *rdimAttr : D;
  if (r > D || r % 2 != 0)
    return im.error(n) << "the rotated dimension " << r
                       << " must be even and at most the head size " << D;
  int64_t half = r / 2;

  FailureOr<Value> cosG = n.in(1), sinG = n.in(2);
  if (pos) {
    if (!Importer::eltOf(pos).isInteger(64))
      return im.error(n) << "position_ids must be an int64 tensor, got "
                         << Importer::eltOf(pos);
    auto ps = Importer::shapeOf(pos);
    for (int i = 1; i <= 2; ++i)
      if (Importer::shapeOf(n.in(i)).size() != 2)
        return im.error(n) << "with position_ids, input " << i
                           << " must be 2-D [max position + 1, "
                           << "rotary dim / 2], got "
                           << shapes::str(Importer::shapeOf(n.in(i)));
    auto gather = [&](Value cache) {
      Shape gs(ps);
      gs.push_back(Importer::shapeOf(cache)[1]);
      return im.make<GatherOp>(n, withShape(cache, gs), cache, pos,
                               im.b.getI64IntegerAttr(0));
    };
    cosG = gather(n.in(1));
    sinG = gather(n.in(2));
  } else {
    for (int i = 1; i <= 2; ++i)
      if (Importer::shapeOf(n.in(i)).size() != 3)
        return im.error(n) << "without position_ids, input " << i
                           << " must be 3-D [batch, sequence, rotary dim / "
                           << "2], got "
                           << shapes::str(Importer::shapeOf(n.in(i)));
  }
  if (failed(cosG) || failed(sinG))
    return failure();
  for (Value cache : {*cosG, *sinG})
    if (Importer::shapeOf(cache).back() < half)
      return im.error(n) << "the cos / sin caches have "
                         << Importer::shapeOf(cache).back()
                         << " values per position, fewer than the rotated "
                            "dimension / 2 = "
                         << half;
  auto prep = [&](Value cache) {
    auto sl = sliceLast(im, n, cache, 0, half);
    if (failed(sl))
      return sl;
    Shape cs(Importer::shapeOf(*sl));
    cs.insert(cs.begin() + 2, 1);
    return reshapeOrSame(im, n, *sl, cs);
  };
  auto cosU = prep(*cosG), sinU = prep(*sinG);
  if (failed(cosU) || failed(sinU))
    return failure();

  auto toRotate = sliceLast(im, n, *xin, 0, r);
  FailureOr<Value> x1, x2;
  if (*interleaved) {
    x1 = sliceLast(im, n, toRotate, 0, r, 2);
    x2 = sliceLast(im, n, toRotate, 1, r, 2);
  } else {
    x1 = sliceLast(im, n, toRotate, 0, half);
    x2 = sliceLast(im, n, toRotate, half, r);
  }
  if (failed(x1) || failed(x2))
    return failure();
  Shape hs(Importer::shapeOf(*x1));
  for (Value cache : {*cosU, *sinU}) {
    auto b = shapes::broadcast({hs, Importer::shapeOf(cache)}, im.emitter(n));
    if (failed(b))
      return failure();
    if (ArrayRef<int64_t>(*b) != ArrayRef<int64_t>(hs))
      return im.error(n) << "the cos / sin values of shape "
                         << shapes::str(Importer::shapeOf(cache))
                         << " do not broadcast to the rotated halves' shape "
                         << shapes::str(hs);
  }
  auto cosX1 = binary<MulOp>(im, n, *cosU, *x1);
  auto sinX2 = binary<MulOp>(im, n, *sinU, *x2);
  auto real = binary<SubOp>(im, n, cosX1, sinX2);
  auto sinX1 = binary<MulOp>(im, n, *sinU, *x1);
  auto cosX2 = binary<MulOp>(im, n, *cosU, *x2);
  auto imag = binary<AddOp>(im, n, sinX1, cosX2);
  if (failed(real) || failed(imag))
    return failure();
  FailureOr<Value> rotated;
  if (*interleaved) {
    Shape us(hs);
    us.push_back(1);
    auto realU = reshape(im, n, real, us);
    auto imagU = reshape(im, n, imag, us);
    auto pair = concat(im, n, realU, imagU, -1);
    Shape rs(hs);
    rs.back() = r;
    rotated = reshape(im, n, pair, rs);
  } else {
    rotated = concat(im, n, real, imag, -1);
  }
  FailureOr<Value> y = rotated;
  if (r < D) {
    auto kept = sliceLast(im, n, *xin, r, D);
    y = concat(im, n, rotated, kept, -1);
  }
  if (xs.size() == 4)
    y = transposeTo(im, n, y, {0, 2, 1, 3});
  else
    y = reshape(im, n, y, xs);
  return setOut(n, y);
}

} // namespace

void registerAttentionHandlers(OpTable &t) {
  t.add("Attention", attention, kF32, 23);
  t.add("RotaryEmbedding", rotaryEmbedding, kF32, 23);
}

} // namespace importer
} // namespace plumb
