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

#include "plumb/runtime/elementwise.h"

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

  /// Appends the statement applying `op` to `v` (the chained value): the
  /// per-element form of its kernel call (the same scalar functions of the
  /// runtime's op tables the kernel applies). Ops whose kernels run a
  /// vectorised math pass (exp, log, pow, ...) stay op by op.
  bool step(Operation *op, Value chained) {
    KernelLowering l;
    std::string err;
    if (!lowerOpForEmit(op, l, err) || l.calls.size() != 1)
      return false;
    const KernelCall &c = l.calls[0];
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
    if (c.fn == "unary_f32") {
      int64_t code = c.args[0].value;
      if (plumb::rt::ops::unaryF32IsMath((int32_t)code))
        return false;
      stmt = "v = unaryF32(" + c.args[0].name + ", v, " +
             floatLiteral(c.args[4].fvalue) + ", " +
             floatLiteral(c.args[5].fvalue) + ");";
    } else if (c.fn == "binary_f32") {
      int64_t code = c.args[0].value;
      if (code == PLUMB_RT_POW || plumb::rt::ops::isCompareOp((int32_t)code))
        return false;
      if (!others(x))
        return false;
      stmt = "v = binaryF32(" + c.args[0].name + ", " + x[0] + ", " + x[1] +
             ");";
    } else if (c.fn == "variadic_f32") {
      // plumb_rt_variadic_f32: acc = in0; acc = f(acc, in_k); canon.
      int64_t code = c.args[0].value;
      if (code != PLUMB_RT_ADD && code != PLUMB_RT_MAX && code != PLUMB_RT_MIN)
        return false;
      if (!others(x))
        return false;
      std::string acc = x[0];
      for (size_t k = 1; k < x.size(); ++k)
        acc = code == PLUMB_RT_ADD
                  ? "(" + acc + " + " + x[k] + ")"
                  : std::string(code == PLUMB_RT_MAX ? "maxF(" : "minF(") +
                        acc + ", " + x[k] + ")";
      stmt = "v = canon(" + acc + ");";
    } else if (auto bn = dyn_cast<BatchNormOp>(op)) {
      // plumb_rt_batchnorm_f32: sd = sqrtRn(var + eps) per channel, then
      // (((x - mean) / sd) * scale) + bias, canonicalised.
      std::string s, b, m, var;
      if (!channelParam(bn.getScale(), s) || !channelParam(bn.getBias(), b) ||
          !channelParam(bn.getMean(), m) ||
          !channelParam(bn.getVariance(), var))
        return false;
      std::string sd = "sd" + std::to_string(code.externals.size());
      pre += "  const float " + sd + " = sqrtRn(" + var + " + " +
             floatLiteral(bn.getEpsilon().convertToFloat()) + ");\n";
      stmt = "{\n      float t = v - " + m + ";\n      t = t / " + sd +
             ";\n      t = t * " + s + ";\n      v = canon(t + " + b +
             ");\n    }";
    } else {
      return false;
    }
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
