//===- lib/Target/Cpp/Epilogue.cpp - Fused chain tails --------------------===//
//
// Part of Plumb. See include/plumb/Target/Cpp/Epilogue.h.
//
// The function receives y = Y + ((n * C + co) * P + begin) and `count`
// elements of plane (n, co), P = the product of the spatial dims. An
// external operand is read per element (same shape as the output: flat
// index base + i), per channel (broadcast along every dim but 1: index co)
// or as a scalar (one element).
//
//===----------------------------------------------------------------------===//
#include "plumb/Target/Cpp/Epilogue.h"

#include "plumb/Target/Cpp/KernelCalls.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace plumb {
namespace target {

namespace {

enum class Access { Element, Channel, Scalar };

bool accessOf(Value v, ArrayRef<int64_t> out, Access &a) {
  auto t = cast<RankedTensorType>(v.getType());
  ArrayRef<int64_t> s = t.getShape();
  if (s == out) {
    a = Access::Element;
    return true;
  }
  if (t.getNumElements() == 1) {
    a = Access::Scalar;
    return true;
  }
  // Right-aligned against the output: every dim 1 except the channel dim.
  int64_t r = (int64_t)out.size(), k = (int64_t)s.size();
  if (k > r || r < 2)
    return false;
  for (int64_t d = 0; d < k; ++d) {
    int64_t od = d + (r - k);
    int64_t want = od == 1 ? out[1] : 1;
    if (s[d] != want && !(od == 1 && s[d] == 1))
      return false;
  }
  a = Access::Channel;
  return true;
}

class Builder {
public:
  Builder(ArrayRef<int64_t> out, EpilogueCode &code)
      : out(out), code(code) {}

  /// The expression reading external `v` for the current element.
  bool operand(Value v, std::string &expr) {
    Access a;
    if (!accessOf(v, out, a))
      return false;
    std::string k = std::to_string(code.externals.size());
    code.externals.push_back(v);
    std::string name = "e" + k;
    switch (a) {
    case Access::Element:
      pre += "  const float *const " + name + " = e[" + k + "] + base;\n";
      expr = name + "[i]";
      return true;
    case Access::Channel:
      pre += "  const float " + name + " = e[" + k + "][co];\n";
      expr = name;
      return true;
    case Access::Scalar:
      pre += "  const float " + name + " = e[" + k + "][0];\n";
      expr = name;
      return true;
    }
    return false;
  }

  /// A per-channel parameter vector ([C], batch_norm's scale, bias, mean,
  /// variance): element co.
  bool channelParam(Value v, std::string &expr) {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getRank() != 1 || t.getDimSize(0) != out[1])
      return false;
    std::string k = std::to_string(code.externals.size());
    code.externals.push_back(v);
    pre += "  const float e" + k + " = e[" + k + "][co];\n";
    expr = "e" + k;
    return true;
  }

  /// Appends the statement applying `op` to `v` (the chained value).
  bool step(Operation *op, Value chained) {
    auto others = [&](std::vector<std::string> &exprs) {
      for (Value o : op->getOperands()) {
        if (o == chained) {
          exprs.push_back("v");
          continue;
        }
        std::string e;
        if (!operand(o, e))
          return false;
        exprs.push_back(e);
      }
      return true;
    };
    std::vector<std::string> x;
    std::string stmt;
    bool ok =
        llvm::TypeSwitch<Operation *, bool>(op)
            .Case<NegOp>([&](auto) { stmt = "v = canon(negF(v));"; return true; })
            .Case<AbsOp>([&](auto) { stmt = "v = canon(absF(v));"; return true; })
            .Case<ReluOp>([&](auto) { stmt = "v = reluF(v);"; return true; })
            .Case<ReciprocalOp>(
                [&](auto) { stmt = "v = reciprocalF(v);"; return true; })
            .Case<SqrtOp>([&](auto) { stmt = "v = sqrtF(v);"; return true; })
            .Case<LeakyReluOp>([&](LeakyReluOp l) {
              stmt = "v = leakyReluF(v, " +
                     floatLiteral(l.getAlpha().convertToFloat()) + ");";
              return true;
            })
            .Case<ClipOp>([&](ClipOp c) {
              stmt = "v = clipF(v, " +
                     floatLiteral(c.getMin().convertToFloat()) + ", " +
                     floatLiteral(c.getMax().convertToFloat()) + ");";
              return true;
            })
            .Case<HardSigmoidOp>([&](HardSigmoidOp h) {
              stmt = "v = hardSigmoidF(v, " +
                     floatLiteral(h.getAlpha().convertToFloat()) + ", " +
                     floatLiteral(h.getBeta().convertToFloat()) + ");";
              return true;
            })
            .Case<AddOp, SubOp, MulOp, DivOp>([&](Operation *b) {
              if (!others(x))
                return false;
              const char *sym = isa<AddOp>(b)   ? " + "
                                : isa<SubOp>(b) ? " - "
                                : isa<MulOp>(b) ? " * "
                                                : " / ";
              stmt = "v = canon(" + x[0] + sym + x[1] + ");";
              return true;
            })
            .Case<SumOp, MaxOp, MinOp>([&](Operation *m) {
              // plumb_rt_variadic_f32: acc = in0; acc = f(acc, in_k); canon.
              if (!others(x))
                return false;
              std::string acc = x[0];
              for (size_t k = 1; k < x.size(); ++k)
                acc = isa<SumOp>(m) ? "(" + acc + " + " + x[k] + ")"
                                    : std::string(isa<MaxOp>(m) ? "maxF("
                                                                : "minF(") +
                                          acc + ", " + x[k] + ")";
              stmt = "v = canon(" + acc + ");";
              return true;
            })
            .Case<BatchNormOp>([&](BatchNormOp bn) {
              // plumb_rt_batchnorm_f32: sd = sqrtRn(var + eps) per channel,
              // then (((x - mean) / sd) * scale) + bias, canonicalised.
              std::string s, b, m, var;
              if (!channelParam(bn.getScale(), s) ||
                  !channelParam(bn.getBias(), b) ||
                  !channelParam(bn.getMean(), m) ||
                  !channelParam(bn.getVariance(), var))
                return false;
              std::string sd = "sd" + std::to_string(code.externals.size());
              pre += "  const float " + sd + " = sqrtRn(" + var + " + " +
                     floatLiteral(bn.getEpsilon().convertToFloat()) + ");\n";
              stmt = "{\n      float t = v - " + m + ";\n      t = t / " + sd +
                     ";\n      t = t * " + s + ";\n      v = canon(t + " + b +
                     ");\n    }";
              return true;
            })
            .Default([&](Operation *) { return false; });
    if (!ok)
      return false;
    body += "    " + stmt + "\n";
    return true;
  }

  ArrayRef<int64_t> out;
  EpilogueCode &code;
  std::string pre, body;
};

} // namespace

bool buildConvEpilogue(FusedOp f, const std::string &name, bool inPlace,
                       EpilogueCode &out, std::string &why) {
  SmallVector<Operation *> chain = f.getChain();
  if (!isa<ConvOp>(chain.front())) {
    why = "the chain does not start with a conv";
    return false;
  }
  auto outType = cast<RankedTensorType>(f.getOutput().getType());
  ArrayRef<int64_t> shape = outType.getShape();
  if (shape.size() < 3) {
    why = "the output has no channel dimension";
    return false;
  }
  int64_t planeSize = 1;
  for (size_t d = 2; d < shape.size(); ++d)
    planeSize *= shape[d];
  out = EpilogueCode();
  Builder b(shape, out);
  for (size_t i = 1; i < chain.size(); ++i)
    if (!b.step(chain[i], chain[i - 1]->getResult(0))) {
      why = "'" + chain[i]->getName().getStringRef().str() +
            "' has no per-element form for this operand layout";
      return false;
    }
  std::string s;
  s += "// The elementwise tail of a fused conv chain, per element.\n";
  s += "PLUMB_ELEMENTWISE void " + name +
       "(void *ctx, float *y, int64_t n, int64_t co, int64_t begin,\n"
       "    int64_t count) {\n";
  s += "  using namespace plumb::rt::ops;\n";
  s += "  const float *const *e = (const float *const *)ctx;\n";
  s += "  const int64_t base = (n * " + std::to_string(shape[1]) + " + co) * " +
       std::to_string(planeSize) + " + begin;\n";
  s += "  (void)e;\n  (void)base;\n";
  s += b.pre;
  std::string dst = "y";
  if (!inPlace) {
    // The chain's result has its own buffer: the last ctx entry.
    s += "  float *const dst = (float *)e[" +
         std::to_string(out.externals.size()) + "] + base;\n";
    dst = "dst";
  }
  s += "  for (int64_t i = 0; i < count; ++i) {\n    float v = y[i];\n";
  s += b.body;
  s += "    " + dst + "[i] = v;\n  }\n}\n";
  out.function = s;
  return true;
}

} // namespace target
} // namespace plumb
