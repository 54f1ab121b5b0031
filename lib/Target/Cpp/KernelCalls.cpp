//===- lib/Target/Cpp/KernelCalls.cpp - Op -> host kernel call ------------===//
//
// Part of Plumb. See include/plumb/Target/Cpp/KernelCalls.h. Every function
// here mirrors its namesake in lib/Interpreter/Interpreter.cpp argument for
// argument; a change there must be made here too (the compiled-vs-interpreted
// tests catch a difference).
//
//===----------------------------------------------------------------------===//
#include "plumb/Target/Cpp/KernelCalls.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/runtime/conv.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cstdio>
#include <cstring>

using namespace mlir;

namespace plumb {
namespace target {

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

std::string LiteralPool::intern(const std::string &type,
                                const std::string &prefix,
                                const std::string &body, size_t count) {
  std::string key = type + "|" + body;
  auto it = names.find(key);
  if (it != names.end())
    return it->second;
  std::string name = prefix + std::to_string(counter++);
  names[key] = name;
  // A zero-length array is not C++: keep one element so the pointer is
  // valid; the kernels never read past the rank or count they are given.
  decls += "static const " + type + " " + name + "[" +
           std::to_string(count ? count : 1) + "] = {" +
           (count ? body : std::string("0")) + "};\n";
  return name;
}

std::string LiteralPool::i64(llvm::ArrayRef<int64_t> values) {
  std::string body;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i)
      body += ", ";
    if (values[i] == INT64_MIN)
      body += "INT64_MIN";
    else
      body += std::to_string(values[i]);
  }
  return intern("int64_t", "kI", body, values.size());
}

std::string LiteralPool::i32(llvm::ArrayRef<int32_t> values) {
  std::string body;
  for (size_t i = 0; i < values.size(); ++i)
    body += (i ? ", " : "") + std::to_string(values[i]);
  return intern("int32_t", "kP", body, values.size());
}

std::string LiteralPool::f32(llvm::ArrayRef<float> values) {
  std::string body;
  for (size_t i = 0; i < values.size(); ++i)
    body += (i ? ", " : "") + floatLiteral(values[i]);
  return intern("float", "kF", body, values.size());
}

std::string LiteralPool::object(const std::string &type,
                                const std::string &init) {
  std::string key = "object|" + type + "|" + init;
  auto it = names.find(key);
  if (it != names.end())
    return it->second;
  std::string name = "kO" + std::to_string(counter++);
  names[key] = name;
  decls += "static const " + type + " " + name + " = {" + init + "};\n";
  return name;
}

std::string floatLiteral(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "plumb_f32(0x%08Xu)", u);
  return buf;
}

std::string cStringLiteral(llvm::StringRef s) {
  std::string r = "\"";
  for (char c : s) {
    unsigned char u = (unsigned char)c;
    if (c == '"' || c == '\\') {
      r += '\\';
      r += c;
    } else if (u < 0x20 || u >= 0x7F || c == '?') {
      // Octal escapes: no trigraphs, no multi-byte surprises.
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\%03o", u);
      r += buf;
    } else {
      r += c;
    }
  }
  return r + "\"";
}

const char *cTypeName(exec::ElemType t) {
  switch (t) {
  case exec::ElemType::F32:
    return "float";
  case exec::ElemType::I64:
    return "int64_t";
  case exec::ElemType::I32:
    return "int32_t";
  case exec::ElemType::Bool:
    return "uint8_t";
  }
  return "void";
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

const char *unaryOpCode(Operation *op) {
  return llvm::TypeSwitch<Operation *, const char *>(op)
      .Case<NegOp>([](auto) { return "PLUMB_RT_NEG"; })
      .Case<AbsOp>([](auto) { return "PLUMB_RT_ABS"; })
      .Case<ReciprocalOp>([](auto) { return "PLUMB_RT_RECIPROCAL"; })
      .Case<SqrtOp>([](auto) { return "PLUMB_RT_SQRT"; })
      .Case<ExpOp>([](auto) { return "PLUMB_RT_EXP"; })
      .Case<LogOp>([](auto) { return "PLUMB_RT_LOG"; })
      .Case<TanhOp>([](auto) { return "PLUMB_RT_TANH"; })
      .Case<SigmoidOp>([](auto) { return "PLUMB_RT_SIGMOID"; })
      .Case<ErfOp>([](auto) { return "PLUMB_RT_ERF"; })
      .Case<ReluOp>([](auto) { return "PLUMB_RT_RELU"; })
      .Case<HardSigmoidOp>([](auto) { return "PLUMB_RT_HARD_SIGMOID"; })
      .Case<LeakyReluOp>([](auto) { return "PLUMB_RT_LEAKY_RELU"; })
      .Case<ClipOp>([](auto) { return "PLUMB_RT_CLIP"; })
      .Case<GeluOp>([](GeluOp g) {
        return g.getApproximate() == "tanh" ? "PLUMB_RT_GELU_TANH"
                                            : "PLUMB_RT_GELU";
      })
      .Default([](Operation *) { return (const char *)nullptr; });
}

const char *binaryOpCode(Operation *op) {
  return llvm::TypeSwitch<Operation *, const char *>(op)
      .Case<AddOp, SumOp>([](auto) { return "PLUMB_RT_ADD"; })
      .Case<SubOp>([](auto) { return "PLUMB_RT_SUB"; })
      .Case<MulOp>([](auto) { return "PLUMB_RT_MUL"; })
      .Case<DivOp>([](auto) { return "PLUMB_RT_DIV"; })
      .Case<PowOp>([](auto) { return "PLUMB_RT_POW"; })
      .Case<MaxOp>([](auto) { return "PLUMB_RT_MAX"; })
      .Case<MinOp>([](auto) { return "PLUMB_RT_MIN"; })
      .Case<EqualOp>([](auto) { return "PLUMB_RT_EQUAL"; })
      .Case<LessOp>([](auto) { return "PLUMB_RT_LESS"; })
      .Case<LessOrEqualOp>([](auto) { return "PLUMB_RT_LESS_OR_EQUAL"; })
      .Case<GreaterOp>([](auto) { return "PLUMB_RT_GREATER"; })
      .Case<GreaterOrEqualOp>(
          [](auto) { return "PLUMB_RT_GREATER_OR_EQUAL"; })
      .Case<AndOp>([](auto) { return "PLUMB_RT_AND"; })
      .Case<OrOp>([](auto) { return "PLUMB_RT_OR"; })
      .Default([](Operation *) { return (const char *)nullptr; });
}

std::string convNdParamsInit(ArrayRef<int64_t> x, ArrayRef<int64_t> w,
                             ArrayRef<int64_t> y, int64_t group,
                             ArrayRef<int64_t> strides,
                             ArrayRef<int64_t> dilations,
                             ArrayRef<int64_t> pads) {
  const size_t sd = x.size() - 2;
  auto list = [&](auto get) {
    std::string r = "{";
    for (size_t j = 0; j < sd; ++j)
      r += (j ? ", " : "") + std::to_string(get(j));
    return r + "}";
  };
  // Cout is the result's channel count (the weight's first dim for conv).
  return std::to_string(x[0]) + ", " + std::to_string(x[1]) + ", " +
         std::to_string(y[1]) + ", " + std::to_string(group) + ", " +
         std::to_string((int64_t)sd) + ", " +
         list([&](size_t j) { return x[2 + j]; }) + ", " +
         list([&](size_t j) { return w[2 + j]; }) + ", " +
         list([&](size_t j) { return y[2 + j]; }) + ", " +
         list([&](size_t j) { return strides[j]; }) + ", " +
         list([&](size_t j) { return dilations[j]; }) + ", " +
         list([&](size_t j) { return pads[j]; }) + ", " +
         list([&](size_t j) { return pads[sd + j]; });
}

ResizeCodes resizeCodes(ResizeOp r) {
  ResizeCodes k;
  k.mode = r.getMode() == "linear" ? "PLUMB_RT_RESIZE_LINEAR"
                                   : "PLUMB_RT_RESIZE_NEAREST";
  StringRef c = r.getCoordinateTransformationMode();
  k.coord = c == "pytorch_half_pixel" ? "PLUMB_RT_COORD_PYTORCH_HALF_PIXEL"
            : c == "asymmetric"       ? "PLUMB_RT_COORD_ASYMMETRIC"
            : c == "align_corners"    ? "PLUMB_RT_COORD_ALIGN_CORNERS"
                                      : "PLUMB_RT_COORD_HALF_PIXEL";
  StringRef nm = r.getNearestMode();
  k.nearest = nm == "round_prefer_ceil" ? "PLUMB_RT_NEAREST_ROUND_PREFER_CEIL"
              : nm == "floor"           ? "PLUMB_RT_NEAREST_FLOOR"
              : nm == "ceil"            ? "PLUMB_RT_NEAREST_CEIL"
                                        : "PLUMB_RT_NEAREST_ROUND_PREFER_FLOOR";
  return k;
}

namespace {

std::string str(int64_t v) {
  if (v == INT64_MIN)
    return "INT64_MIN";
  return std::to_string(v);
}

/// Emits the statements of one op; `fail()` records an error.
class Lowering {
public:
  Lowering(KernelCallContext &ctx, Operation *op, std::string &out,
           std::string &err)
      : ctx(ctx), op(op), out(out), err(err) {}

  bool run();

private:
  const ValueInfo &info(Value v) const { return ctx.plan.info(v); }
  const ValueInfo &in(unsigned i) const { return info(op->getOperand(i)); }
  const ValueInfo &res(unsigned i = 0) const { return info(op->getResult(i)); }
  std::string cptr(const char *type, Value v) {
    return std::string("(const ") + type + " *)" + ctx.ptr(v);
  }
  std::string mptr(const char *type, Value v) {
    return std::string("(") + type + " *)" + ctx.ptr(v);
  }
  std::string inF(unsigned i) { return cptr("float", op->getOperand(i)); }
  std::string inRaw(unsigned i) { return cptr("void", op->getOperand(i)); }
  std::string outF(unsigned i = 0) { return mptr("float", op->getResult(i)); }
  std::string outRaw(unsigned i = 0) { return mptr("void", op->getResult(i)); }
  std::string shape(const ValueInfo &v) { return ctx.pool.i64(v.shape); }
  static std::string rank(const ValueInfo &v) {
    return std::to_string(v.shape.size());
  }
  static int64_t numel(const ValueInfo &v) {
    int64_t n = 1;
    for (int64_t d : v.shape)
      n *= d;
    return n;
  }
  static std::string esize(const ValueInfo &v) {
    return std::to_string(exec::elemSize(v.type));
  }
  std::string block() { return str(exec::treeBlockOf(op)); }
  std::string f(float v) { return floatLiteral(v); }
  std::string f(const llvm::APFloat &v) { return floatLiteral(v.convertToFloat()); }

  /// `rc = CALL;` and the error check.
  void call(const std::string &c, const std::string &what,
            bool rangeCheck = false) {
    out += "  rc = " + c + ";\n";
    out += "  if (rc != 0)\n    " + ctx.onError(what, rangeCheck) + "\n";
  }
  bool fail(const std::string &msg) {
    err = msg;
    return false;
  }
  std::string opName() const { return op->getName().getStringRef().str(); }

  bool unary();
  bool binary();
  bool variadic();
  bool where();
  bool castOp();
  bool matmul();
  bool gemm();
  bool conv();
  bool convTranspose();
  bool pool();
  bool globalPool(bool isMax);
  bool batchNorm();
  bool layerNorm();
  bool softmax(int64_t axis, bool log);
  bool reduce(const char *code, ArrayRef<int64_t> axes);
  bool argMax();
  bool copyBits();
  bool transpose();
  bool concat();
  bool split();
  bool slice();
  bool gather();
  bool expand();
  bool pad();
  bool tile();
  bool resize();
  bool lstm();
  bool gru();

  KernelCallContext &ctx;
  Operation *op;
  std::string &out;
  std::string &err;
};

bool Lowering::unary() {
  const ValueInfo &x = in(0);
  std::string n = str(numel(x));
  if (isa<NotOp>(op)) {
    call("plumb_rt_not_bool(" + cptr("uint8_t", op->getOperand(0)) + ", " +
             mptr("uint8_t", op->getResult(0)) + ", " + n + ")",
         "not");
    return true;
  }
  const char *code = unaryOpCode(op);
  if (!code)
    return fail("no kernel for '" + opName() + "'");
  float alpha = 0.0f, beta = 0.0f;
  if (auto h = dyn_cast<HardSigmoidOp>(op))
    alpha = h.getAlpha().convertToFloat(), beta = h.getBeta().convertToFloat();
  else if (auto l = dyn_cast<LeakyReluOp>(op))
    alpha = l.getAlpha().convertToFloat();
  else if (auto c = dyn_cast<ClipOp>(op))
    alpha = c.getMin().convertToFloat(), beta = c.getMax().convertToFloat();
  switch (x.type) {
  case exec::ElemType::F32:
    call(std::string("plumb_rt_unary_f32(") + code + ", " + inF(0) + ", " +
             outF() + ", " + n + ", " + f(alpha) + ", " + f(beta) + ")",
         "unary");
    return true;
  case exec::ElemType::I64:
    call(std::string("plumb_rt_unary_i64(") + code + ", " +
             cptr("int64_t", op->getOperand(0)) + ", " +
             mptr("int64_t", op->getResult(0)) + ", " + n +
             ", INT64_MIN, INT64_MAX)",
         "unary");
    return true;
  case exec::ElemType::I32:
    call(std::string("plumb_rt_unary_i32(") + code + ", " +
             cptr("int32_t", op->getOperand(0)) + ", " +
             mptr("int32_t", op->getResult(0)) + ", " + n +
             ", INT32_MIN, INT32_MAX)",
         "unary");
    return true;
  default:
    return fail("unsupported element type for " + opName());
  }
}

bool Lowering::binary() {
  const ValueInfo &a = in(0), &b = in(1), &y = res();
  const char *code = binaryOpCode(op);
  if (!code)
    return fail("no kernel for '" + opName() + "'");
  const char *fn = nullptr, *t = nullptr;
  switch (a.type) {
  case exec::ElemType::F32:
    fn = "plumb_rt_binary_f32", t = "float";
    break;
  case exec::ElemType::I64:
    fn = "plumb_rt_binary_i64", t = "int64_t";
    break;
  case exec::ElemType::I32:
    fn = "plumb_rt_binary_i32", t = "int32_t";
    break;
  case exec::ElemType::Bool:
    fn = "plumb_rt_binary_bool", t = "uint8_t";
    break;
  }
  std::string yp = a.type == exec::ElemType::Bool ? mptr("uint8_t", op->getResult(0))
                                                   : outRaw();
  call(std::string(fn) + "(" + code + ", " + cptr(t, op->getOperand(0)) + ", " +
           shape(a) + ", " + rank(a) + ", " + cptr(t, op->getOperand(1)) +
           ", " + shape(b) + ", " + rank(b) + ", " + yp + ", " + shape(y) +
           ", " + rank(y) + ")",
       opName());
  return true;
}

bool Lowering::variadic() {
  const ValueInfo &y = res();
  const char *code = binaryOpCode(op);
  unsigned count = op->getNumOperands();
  std::string shapes, ranks, ptrs;
  auto list = [&](const char *t) {
    std::string s;
    for (unsigned i = 0; i < count; ++i)
      s += std::string(i ? ", " : "") + cptr(t, op->getOperand(i));
    return s;
  };
  for (unsigned i = 0; i < count; ++i) {
    shapes += std::string(i ? ", " : "") + shape(in(i));
    ranks += std::string(i ? ", " : "") + rank(in(i));
  }
  if (y.type == exec::ElemType::F32 || y.type == exec::ElemType::I64) {
    bool isF = y.type == exec::ElemType::F32;
    const char *t = isF ? "float" : "int64_t";
    out += "  {\n";
    out += std::string("    const ") + t + " *ins[] = {" + list(t) + "};\n";
    out += "    const int64_t *shapes[] = {" + shapes + "};\n";
    out += "    const int32_t ranks[] = {" + ranks + "};\n";
    out += std::string("    rc = ") +
           (isF ? "plumb_rt_variadic_f32(" : "plumb_rt_variadic_i64(") + code +
           ", " + std::to_string(count) + ", ins, shapes, ranks, " +
           mptr(t, op->getResult(0)) + ", " + shape(y) + ", " + rank(y) +
           ");\n";
    out += "  }\n";
    out += "  if (rc != 0)\n    " + ctx.onError("variadic", false) + "\n";
    return true;
  }
  if (y.type != exec::ElemType::I32)
    return fail("unsupported element type for " + opName());
  // int32: fold pairwise, left to right, through two scratch buffers; each
  // partial result has the broadcast shape of the operands so far.
  auto it = ctx.plan.scratch.find(op);
  if (it == ctx.plan.scratch.end() || it->second.size() < 2)
    return fail("internal error: no scratch buffers for " + opName());
  std::vector<int64_t> accShape = in(0).shape;
  std::string acc = cptr("int32_t", op->getOperand(0));
  for (unsigned k = 1; k < count; ++k) {
    const ValueInfo &b = in(k);
    // Broadcast shape of acc and b (numpy rules, shapes are static).
    size_t r = std::max(accShape.size(), b.shape.size());
    std::vector<int64_t> next(r);
    for (size_t i = 0; i < r; ++i) {
      int64_t da = i + accShape.size() >= r ? accShape[i + accShape.size() - r] : 1;
      int64_t db = i + b.shape.size() >= r ? b.shape[i + b.shape.size() - r] : 1;
      next[i] = da == 1 ? db : da;
    }
    bool lastStep = k + 1 == count;
    std::string dst =
        lastStep ? mptr("int32_t", op->getResult(0))
                 : "(int32_t *)(" + ctx.arena + " + " +
                       std::to_string(it->second[k % 2]) + ")";
    call(std::string("plumb_rt_binary_i32(") + code + ", " + acc + ", " +
             ctx.pool.i64(accShape) + ", " + std::to_string(accShape.size()) +
             ", " + cptr("int32_t", op->getOperand(k)) + ", " + shape(b) +
             ", " + rank(b) + ", " + dst + ", " + ctx.pool.i64(next) + ", " +
             std::to_string(r) + ")",
         "variadic");
    acc = "(const int32_t *)(" + ctx.arena + " + " +
          std::to_string(it->second[k % 2]) + ")";
    accShape = next;
  }
  if (count == 1)
    out += "  memcpy(" + outRaw() + ", " + inRaw(0) + ", " +
           str(in(0).bytes) + ");\n";
  return true;
}

bool Lowering::where() {
  const ValueInfo &c = in(0), &x = in(1), &z = in(2), &y = res();
  call("plumb_rt_where(" + cptr("uint8_t", op->getOperand(0)) + ", " + shape(c) +
           ", " + rank(c) + ", " + inRaw(1) + ", " + shape(x) + ", " + rank(x) +
           ", " + inRaw(2) + ", " + shape(z) + ", " + rank(z) + ", " +
           outRaw() + ", " + shape(y) + ", " + rank(y) + ", " + esize(y) + ")",
       "where");
  return true;
}

bool Lowering::castOp() {
  const ValueInfo &x = in(0), &y = res();
  call("plumb_rt_cast(" + inRaw(0) + ", " + std::to_string((int)x.type) + ", " +
           outRaw() + ", " + std::to_string((int)y.type) + ", " +
           str(numel(x)) + ")",
       "cast");
  return true;
}

bool Lowering::matmul() {
  const ValueInfo &a = in(0), &b = in(1);
  out += "  {\n    int64_t yshape[16];\n    int yrank = 0;\n";
  out += "    rc = plumb_rt_matmul(" + inF(0) + ", " + shape(a) + ", " +
         rank(a) + ", " + inF(1) + ", " + shape(b) + ", " + rank(b) + ", " +
         outF() + ", yshape, &yrank, " + block() + ");\n  }\n";
  out += "  if (rc != 0)\n    " + ctx.onError("matmul", false) + "\n";
  return true;
}

bool Lowering::gemm() {
  auto g = cast<GemmOp>(op);
  const ValueInfo &a = in(0), &y = res();
  bool hasC = op->getNumOperands() > 2;
  int64_t M = y.shape[0], N = y.shape[1];
  int64_t K = g.getTransA() ? a.shape[0] : a.shape[1];
  std::string c = hasC ? inF(2) : "nullptr";
  std::string cs = hasC ? shape(in(2)) : "nullptr";
  std::string cr = hasC ? rank(in(2)) : "0";
  out += "  plumb_rt_gemm(" + str(M) + ", " + str(N) + ", " + str(K) + ", " +
         f(g.getAlpha()) + ", " + inF(0) + ", " +
         std::to_string((int)g.getTransA()) + ", " + inF(1) + ", " +
         std::to_string((int)g.getTransB()) + ", " + f(g.getBeta()) + ", " + c +
         ", " + cs + ", " + cr + ", " + outF() + ", " + block() + ");\n";
  return true;
}

bool Lowering::conv() {
  auto c = cast<ConvOp>(op);
  const ValueInfo &x = in(0), &w = in(1), &y = res();
  std::string bias = op->getNumOperands() > 2 ? inF(2) : "nullptr";
  auto s = c.getStrides(), p = c.getPads(), d = c.getDilations();
  // A fused chain's elementwise tail runs on each finished output range
  // (plumb_rt_epilogue, runtime conv.h) while it is in cache.
  std::string ep = "nullptr";
  out += "  {\n";
  if (!ctx.epilogueFn.empty()) {
    out += "    const plumb_rt_epilogue ep = {" + ctx.epilogueFn + ", " +
           ctx.epilogueCtx + "};\n";
    ep = "&ep";
  }
  if (x.shape.size() == 3) {
    out += "    rc = plumb_rt_conv1d_ep(" + str(x.shape[0]) + ", " +
           str(x.shape[1]) + ", " + str(x.shape[2]) + ", " + str(w.shape[0]) +
           ", " + str(w.shape[2]) + ", " + str(c.getGroup()) + ", " +
           str(s[0]) + ", " + str(d[0]) + ", " + str(p[0]) + ", " + str(p[1]) +
           ", " + inF(0) + ", " + inF(1) + ", " + bias + ", " + outF() +
           ", " + block() + ", " + ep + ");\n  }\n";
    out += "  if (rc != 0)\n    " + ctx.onError("conv1d", false) + "\n";
    return true;
  }
  if (x.shape.size() != 4) {
    // Three or more spatial dims: the N-d kernel (same term order; the
    // epilogue sees planes of prod(out) elements).
    const size_t sd = x.shape.size() - 2;
    if (sd > PLUMB_CONV_MAX_SPATIAL)
      return fail("conv with " + std::to_string(sd) +
                  " spatial dimensions is not supported by the kernels");
    out += "    static const plumb_convnd_params prm = {" +
           convNdParamsInit(x.shape, w.shape, y.shape, c.getGroup(), s, d, p) +
           "};\n";
    out += "    rc = plumb_rt_conv_nd_ep(&prm, " + inF(0) + ", " + inF(1) + ", " +
           bias + ", " + outF() + ", " + block() + ", " + ep + ");\n  }\n";
    out += "  if (rc != 0)\n    " + ctx.onError("conv_nd", false) + "\n";
    return true;
  }
  out += "    static const plumb_conv2d_params prm = {" + str(x.shape[0]) +
         ", " + str(x.shape[1]) + ", " + str(x.shape[2]) + ", " +
         str(x.shape[3]) + ", " + str(w.shape[0]) + ", " + str(w.shape[2]) +
         ", " + str(w.shape[3]) + ", " + str(y.shape[2]) + ", " +
         str(y.shape[3]) + ", " + str(c.getGroup()) + ", " + str(s[0]) + ", " +
         str(s[1]) + ", " + str(d[0]) + ", " + str(d[1]) + ", " + str(p[0]) +
         ", " + str(p[1]) + ", " + str(p[2]) + ", " + str(p[3]) + "};\n";
  out += "    rc = plumb_rt_conv2d_ep(&prm, " + inF(0) + ", " + inF(1) + ", " +
         bias + ", " + outF() + ", " + block() + ", " + ep + ");\n  }\n";
  out += "  if (rc != 0)\n    " + ctx.onError("conv2d", false) + "\n";
  return true;
}

bool Lowering::convTranspose() {
  auto c = cast<ConvTransposeOp>(op);
  const ValueInfo &x = in(0), &w = in(1), &y = res();
  std::string bias = op->getNumOperands() > 2 ? inF(2) : "nullptr";
  auto s = c.getStrides(), p = c.getPads(), d = c.getDilations();
  if (x.shape.size() == 3) {
    call("plumb_rt_conv_transpose1d(" + str(x.shape[0]) + ", " +
             str(x.shape[1]) + ", " + str(x.shape[2]) + ", " + str(y.shape[1]) +
             ", " + str(w.shape[2]) + ", " + str(y.shape[2]) + ", " +
             str(c.getGroup()) + ", " + str(s[0]) + ", " + str(d[0]) + ", " +
             str(p[0]) + ", " + str(p[1]) + ", " + inF(0) + ", " + inF(1) +
             ", " + bias + ", " + outF() + ", " + block() + ")",
         "conv_transpose1d");
    return true;
  }
  if (x.shape.size() != 4) {
    // Three or more spatial dims: the N-d kernel (same term order).
    const size_t sd = x.shape.size() - 2;
    if (sd > PLUMB_CONV_MAX_SPATIAL)
      return fail("conv_transpose with " + std::to_string(sd) +
                  " spatial dimensions is not supported by the kernels");
    out += "  {\n    static const plumb_convnd_params prm = {" +
           convNdParamsInit(x.shape, w.shape, y.shape, c.getGroup(), s, d, p) +
           "};\n";
    out += "    rc = plumb_rt_conv_transpose_nd(&prm, " + inF(0) + ", " + inF(1) +
           ", " + bias + ", " + outF() + ", " + block() + ");\n  }\n";
    out += "  if (rc != 0)\n    " + ctx.onError("conv_transpose_nd", false) +
           "\n";
    return true;
  }
  out += "  {\n    static const plumb_conv2d_params prm = {" + str(x.shape[0]) +
         ", " + str(x.shape[1]) + ", " + str(x.shape[2]) + ", " +
         str(x.shape[3]) + ", " + str(y.shape[1]) + ", " + str(w.shape[2]) +
         ", " + str(w.shape[3]) + ", " + str(y.shape[2]) + ", " +
         str(y.shape[3]) + ", " + str(c.getGroup()) + ", " + str(s[0]) + ", " +
         str(s[1]) + ", " + str(d[0]) + ", " + str(d[1]) + ", " + str(p[0]) +
         ", " + str(p[1]) + ", " + str(p[2]) + ", " + str(p[3]) + "};\n";
  out += "    rc = plumb_rt_conv_transpose2d(&prm, " + inF(0) + ", " + inF(1) +
         ", " + bias + ", " + outF() + ", " + block() + ");\n  }\n";
  out += "  if (rc != 0)\n    " + ctx.onError("conv_transpose2d", false) + "\n";
  return true;
}

bool Lowering::pool() {
  const ValueInfo &x = in(0), &y = res();
  int32_t sd = (int32_t)x.shape.size() - 2;
  std::vector<int64_t> inSp(x.shape.begin() + 2, x.shape.end());
  std::vector<int64_t> outSp(y.shape.begin() + 2, y.shape.end());
  std::string head = inF(0) + ", " + str(x.shape[0]) + ", " + str(x.shape[1]) +
                     ", " + std::to_string(sd) + ", " + ctx.pool.i64(inSp) +
                     ", " + ctx.pool.i64(outSp) + ", ";
  if (auto mp = dyn_cast<MaxPoolOp>(op)) {
    bool withIndices = !mp.getIndices().empty();
    std::string indices =
        withIndices ? mptr("int64_t", op->getResult(1)) : "nullptr";
    call("plumb_rt_maxpool_f32(" + head + ctx.pool.i64(mp.getKernelShape()) +
             ", " + ctx.pool.i64(mp.getStrides()) + ", " +
             ctx.pool.i64(mp.getPads()) + ", " + ctx.pool.i64(mp.getDilations()) +
             ", " + outF() + ", " + indices + ")",
         "max_pool");
    if (mp.getColumnMajorIndices())
      call("plumb_rt_pool_indices_column_major(" + indices + ", " +
               str(numel(res(1))) + ", " + str(x.shape[2]) + ", " +
               str(x.shape[3]) + ")",
           "max_pool indices");
    return true;
  }
  auto ap = cast<AveragePoolOp>(op);
  call("plumb_rt_avgpool_f32(" + head + ctx.pool.i64(ap.getKernelShape()) +
           ", " + ctx.pool.i64(ap.getStrides()) + ", " +
           ctx.pool.i64(ap.getPads()) + ", " +
           (ap.getDilations() ? ctx.pool.i64(*ap.getDilations())
                              : std::string("nullptr")) +
           ", " +
           std::to_string((int)ap.getCountIncludePad()) + ", " + outF() + ")",
       "average_pool");
  return true;
}

bool Lowering::globalPool(bool isMax) {
  const ValueInfo &x = in(0);
  int64_t nc = x.shape[0] * x.shape[1];
  int64_t sp = nc ? numel(x) / nc : 0;
  call("plumb_rt_global_pool_f32(" + inF(0) + ", " + str(nc) + ", " + str(sp) +
           ", " + std::to_string((int)isMax) + ", " + outF() + ", " + block() +
           ")",
       "global_pool");
  return true;
}

bool Lowering::batchNorm() {
  auto bn = cast<BatchNormOp>(op);
  const ValueInfo &x = in(0);
  int64_t n = x.shape[0], c = x.shape[1];
  int64_t sp = n * c ? numel(x) / (n * c) : 0;
  call("plumb_rt_batchnorm_f32(" + inF(0) + ", " + str(n) + ", " + str(c) +
           ", " + str(sp) + ", " + inF(1) + ", " + inF(2) + ", " + inF(3) +
           ", " + inF(4) + ", " + f(bn.getEpsilon()) + ", " + outF() + ")",
       "batch_norm");
  return true;
}

bool Lowering::layerNorm() {
  auto ln = cast<LayerNormOp>(op);
  const ValueInfo &x = in(0);
  int64_t axis = ln.getAxis();
  std::vector<int64_t> norm(x.shape.begin() + axis, x.shape.end());
  int64_t d = 1;
  for (int64_t v : norm)
    d *= v;
  int64_t outer = d ? numel(x) / d : 0;
  // The interpreter broadcasts scale and bias to the normalised shape
  // (plumb_rt_expand); an operand already of that shape is used as is (the
  // expansion would be a plain copy of its bits).
  const std::vector<int64_t> *slots = nullptr;
  auto it = ctx.plan.scratch.find(op);
  if (it != ctx.plan.scratch.end())
    slots = &it->second;
  unsigned nextSlot = 0;
  auto expanded = [&](unsigned i) -> std::string {
    const ValueInfo &t = in(i);
    if (t.shape == norm)
      return inF(i);
    if (!slots || nextSlot >= slots->size()) {
      err = "internal error: no scratch buffer for layer_norm";
      return "";
    }
    std::string dst = "(" + ctx.arena + " + " +
                      std::to_string((*slots)[nextSlot++]) + ")";
    out += "  plumb_rt_expand(" + inRaw(i) + ", " + shape(t) + ", " + rank(t) +
           ", " + dst + ", " + ctx.pool.i64(norm) + ", " +
           std::to_string(norm.size()) + ", 4);\n";
    return "(const float *)" + dst;
  };
  std::string scale = expanded(1);
  std::string bias = op->getNumOperands() > 2 ? expanded(2) : "nullptr";
  if (!err.empty())
    return false;
  std::string stats = ln.getStats().empty()
                          ? std::string("nullptr, nullptr")
                          : outF(1) + ", " + outF(2);
  call("plumb_rt_layernorm_f32(" + inF(0) + ", " + str(outer) + ", " + str(d) +
           ", " + scale + ", " + bias + ", " + f(ln.getEpsilon()) + ", " +
           outF() + ", " + stats + ", " + block() + ")",
       "layer_norm");
  return true;
}

bool Lowering::softmax(int64_t axis, bool log) {
  const ValueInfo &x = in(0);
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < axis; ++i)
    outer *= x.shape[i];
  for (size_t i = axis + 1; i < x.shape.size(); ++i)
    inner *= x.shape[i];
  int64_t len = x.shape.empty() ? 1 : x.shape[axis];
  call("plumb_rt_softmax_f32(" + inF(0) + ", " + outF() + ", " + str(outer) +
           ", " + str(len) + ", " + str(inner) + ", " +
           std::to_string((int)log) + ", " + block() + ")",
       "softmax");
  return true;
}

bool Lowering::reduce(const char *code, ArrayRef<int64_t> axes) {
  const ValueInfo &x = in(0);
  if (x.type == exec::ElemType::F32) {
    call(std::string("plumb_rt_reduce_f32(") + code + ", " + inF(0) + ", " +
             shape(x) + ", " + rank(x) + ", " + ctx.pool.i64(axes) + ", " +
             std::to_string(axes.size()) + ", " + outF() + ", " + block() + ")",
         "reduce");
    return true;
  }
  if (x.type == exec::ElemType::I64) {
    call(std::string("plumb_rt_reduce_i64(") + code + ", " +
             cptr("int64_t", op->getOperand(0)) + ", " + shape(x) + ", " +
             rank(x) + ", " + ctx.pool.i64(axes) + ", " +
             std::to_string(axes.size()) + ", " +
             mptr("int64_t", op->getResult(0)) + ")",
         "reduce");
    return true;
  }
  return fail("reductions of " + std::string(exec::elemTypeName(x.type)) +
              " are not supported by the kernels");
}

bool Lowering::argMax() {
  auto am = cast<ArgMaxOp>(op);
  const ValueInfo &x = in(0);
  std::string tail = ", " + shape(x) + ", " + rank(x) + ", " +
                     str(am.getAxis()) + ", 0, " +
                     std::to_string((int)am.getSelectLastIndex()) + ", " +
                     mptr("int64_t", op->getResult(0)) + ")";
  if (x.type == exec::ElemType::F32) {
    call("plumb_rt_argmax_f32(" + inF(0) + tail, "arg_max");
    return true;
  }
  if (x.type == exec::ElemType::I64) {
    call("plumb_rt_argmax_i64(" + cptr("int64_t", op->getOperand(0)) + tail,
         "arg_max");
    return true;
  }
  return fail("arg_max of this element type is not supported");
}

bool Lowering::copyBits() {
  if (res().aliased)
    return true; // shares its operand's buffer: nothing to move
  out += "  memcpy(" + outRaw() + ", " + inRaw(0) + ", " + str(in(0).bytes) +
         ");\n";
  return true;
}

bool Lowering::transpose() {
  auto t = cast<TransposeOp>(op);
  const ValueInfo &x = in(0);
  std::vector<int32_t> perm(t.getPerm().begin(), t.getPerm().end());
  call("plumb_rt_transpose(" + inRaw(0) + ", " + shape(x) + ", " + rank(x) +
           ", " + ctx.pool.i32(perm) + ", " + outRaw() + ", " + esize(x) + ")",
       "transpose");
  return true;
}

bool Lowering::concat() {
  auto c = cast<ConcatOp>(op);
  const ValueInfo &y = res();
  std::string ptrs, shapes;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    ptrs += std::string(i ? ", " : "") + inRaw(i);
    shapes += std::string(i ? ", " : "") + shape(in(i));
  }
  out += "  {\n    const void *ins[] = {" + ptrs + "};\n";
  out += "    const int64_t *shapes[] = {" + shapes + "};\n";
  out += "    rc = plumb_rt_concat(ins, shapes, " +
         std::to_string(op->getNumOperands()) + ", " + rank(y) + ", " +
         str(c.getAxis()) + ", " + outRaw() + ", " + esize(y) + ");\n  }\n";
  out += "  if (rc != 0)\n    " + ctx.onError("concat", false) + "\n";
  return true;
}

bool Lowering::split() {
  auto s = cast<SplitOp>(op);
  const ValueInfo &x = in(0);
  std::string outs;
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    outs += std::string(i ? ", " : "") + outRaw(i);
  std::vector<int64_t> sizes(s.getSizes().begin(), s.getSizes().end());
  out += "  {\n    void *const outs[] = {" + outs + "};\n";
  out += "    rc = plumb_rt_split(" + inRaw(0) + ", " + shape(x) + ", " +
         rank(x) + ", " + str(s.getAxis()) + ", " +
         std::to_string(sizes.size()) + ", " + ctx.pool.i64(sizes) +
         ", outs, " + esize(x) + ");\n  }\n";
  out += "  if (rc != 0)\n    " + ctx.onError("split", false) + "\n";
  return true;
}

bool Lowering::slice() {
  auto s = cast<SliceOp>(op);
  const ValueInfo &x = in(0), &y = res();
  call("plumb_rt_slice(" + inRaw(0) + ", " + shape(x) + ", " + rank(x) + ", " +
           ctx.pool.i64(s.getStarts()) + ", " + ctx.pool.i64(s.getSteps()) +
           ", " + shape(y) + ", " + outRaw() + ", " + esize(x) + ")",
       "slice");
  return true;
}

bool Lowering::gather() {
  auto g = cast<GatherOp>(op);
  const ValueInfo &x = in(0), &idx = in(1);
  call("plumb_rt_gather(" + inRaw(0) + ", " + shape(x) + ", " + rank(x) + ", " +
           str(g.getAxis()) + ", " + inRaw(1) + ", " +
           std::to_string((int)(idx.type == exec::ElemType::I32)) + ", " +
           str(numel(idx)) + ", " + outRaw() + ", " + esize(x) + ")",
       "gather", /*rangeCheck=*/true);
  return true;
}

bool Lowering::expand() {
  const ValueInfo &x = in(0), &y = res();
  call("plumb_rt_expand(" + inRaw(0) + ", " + shape(x) + ", " + rank(x) + ", " +
           outRaw() + ", " + shape(y) + ", " + rank(y) + ", " + esize(x) + ")",
       "expand");
  return true;
}

bool Lowering::pad() {
  auto p = cast<PadOp>(op);
  const ValueInfo &x = in(0);
  const char *mode = p.getMode() == "reflect" ? "PLUMB_RT_PAD_REFLECT"
                     : p.getMode() == "edge"  ? "PLUMB_RT_PAD_EDGE"
                                              : "PLUMB_RT_PAD_CONSTANT";
  // The pad value as the 8 bytes the interpreter builds.
  uint64_t value = 0;
  Attribute v = p.getValue();
  if (auto fa = dyn_cast<FloatAttr>(v)) {
    float fv = (float)fa.getValueAsDouble();
    std::memcpy(&value, &fv, 4);
  } else if (auto ia = dyn_cast<IntegerAttr>(v)) {
    int64_t iv = ia.getValue().getSExtValue();
    if (x.type == exec::ElemType::I32) {
      int32_t i32 = (int32_t)iv;
      std::memcpy(&value, &i32, 4);
    } else if (x.type == exec::ElemType::Bool) {
      value = iv != 0;
    } else {
      std::memcpy(&value, &iv, 8);
    }
  }
  char hex[32];
  std::snprintf(hex, sizeof(hex), "0x%016llXull", (unsigned long long)value);
  std::vector<int64_t> pads(p.getPads().begin(), p.getPads().end());
  out += std::string("  {\n    static const uint64_t value = ") + hex + ";\n";
  out += "    rc = plumb_rt_pad(" + inRaw(0) + ", " + shape(x) + ", " + rank(x) +
         ", " + ctx.pool.i64(pads) + ", " + mode + ", &value, " + outRaw() +
         ", " + esize(x) + ");\n  }\n";
  out += "  if (rc != 0)\n    " + ctx.onError("pad", false) + "\n";
  return true;
}

bool Lowering::tile() {
  auto t = cast<TileOp>(op);
  const ValueInfo &x = in(0);
  std::vector<int64_t> reps(t.getRepeats().begin(), t.getRepeats().end());
  call("plumb_rt_tile(" + inRaw(0) + ", " + shape(x) + ", " + rank(x) + ", " +
           ctx.pool.i64(reps) + ", " + outRaw() + ", " + esize(x) + ")",
       "tile");
  return true;
}

bool Lowering::resize() {
  auto r = cast<ResizeOp>(op);
  const ValueInfo &x = in(0), &y = res();
  ResizeCodes codes = resizeCodes(r);
  const char *mode = codes.mode, *coord = codes.coord,
             *nearest = codes.nearest;
  std::vector<float> scales(r.getScales().begin(), r.getScales().end());
  call("plumb_rt_resize_f32(" + inF(0) + ", " + shape(x) + ", " + rank(x) +
           ", " + shape(y) + ", " + ctx.pool.f32(scales) + ", " + mode + ", " +
           coord + ", " + nearest + ", " + outF() + ")",
       "resize");
  return true;
}

const char *rnnDirection(StringRef d) {
  return d == "reverse"         ? "PLUMB_RT_RNN_REVERSE"
         : d == "bidirectional" ? "PLUMB_RT_RNN_BIDIRECTIONAL"
                                : "PLUMB_RT_RNN_FORWARD";
}

bool Lowering::lstm() {
  auto l = cast<LSTMOp>(op);
  const ValueInfo &x = in(0);
  auto opt = [&](Value v) {
    return v ? cptr("float", v) : std::string("nullptr");
  };
  float clip = l.getClip() ? l.getClip()->convertToFloat() : 0.0f;
  call("plumb_rt_lstm_f32(" + inF(0) + ", " + inF(1) + ", " + inF(2) + ", " +
           opt(l.getB()) + ", nullptr, " + opt(l.getInitialH()) + ", " +
           opt(l.getInitialC()) + ", " + opt(l.getP()) + ", " +
           str(x.shape[0]) + ", " + str(x.shape[1]) + ", " + str(x.shape[2]) +
           ", " + str(l.getHiddenSize()) + ", " +
           rnnDirection(l.getDirection()) + ", " + f(clip) + ", " +
           std::to_string((int)l.getInputForget()) + ", " + outF(0) + ", " +
           outF(1) + ", " + outF(2) + ", " + block() + ")",
       "lstm");
  return true;
}

bool Lowering::gru() {
  auto g = cast<GRUOp>(op);
  const ValueInfo &x = in(0);
  auto opt = [&](Value v) {
    return v ? cptr("float", v) : std::string("nullptr");
  };
  float clip = g.getClip() ? g.getClip()->convertToFloat() : 0.0f;
  call("plumb_rt_gru_f32(" + inF(0) + ", " + inF(1) + ", " + inF(2) + ", " +
           opt(g.getB()) + ", nullptr, " + opt(g.getInitialH()) + ", " +
           str(x.shape[0]) + ", " + str(x.shape[1]) + ", " + str(x.shape[2]) +
           ", " + str(g.getHiddenSize()) + ", " +
           rnnDirection(g.getDirection()) + ", " + f(clip) + ", " +
           std::to_string((int)g.getLinearBeforeReset()) + ", " + outF(0) +
           ", " + outF(1) + ", " + block() + ")",
       "gru");
  return true;
}

bool Lowering::run() {
  bool known = true;
  bool ok =
      llvm::TypeSwitch<Operation *, bool>(op)
          .Case<NegOp, AbsOp, ReciprocalOp, SqrtOp, ExpOp, LogOp, TanhOp,
                SigmoidOp, ErfOp, ReluOp, NotOp, HardSigmoidOp, LeakyReluOp,
                ClipOp, GeluOp>([&](auto) { return unary(); })
          .Case<AddOp, SubOp, MulOp, DivOp, PowOp, EqualOp, LessOp,
                LessOrEqualOp, GreaterOp, GreaterOrEqualOp, AndOp, OrOp>(
              [&](auto) { return binary(); })
          .Case<SumOp, MaxOp, MinOp>([&](auto) { return variadic(); })
          .Case<WhereOp>([&](auto) { return where(); })
          .Case<CastOp>([&](auto) { return castOp(); })
          .Case<MatMulOp>([&](auto) { return matmul(); })
          .Case<GemmOp>([&](auto) { return gemm(); })
          .Case<ConvOp>([&](auto) { return conv(); })
          .Case<ConvTransposeOp>([&](auto) { return convTranspose(); })
          .Case<MaxPoolOp, AveragePoolOp>([&](auto) { return pool(); })
          .Case<GlobalAveragePoolOp>([&](auto) { return globalPool(false); })
          .Case<GlobalMaxPoolOp>([&](auto) { return globalPool(true); })
          .Case<BatchNormOp>([&](auto) { return batchNorm(); })
          .Case<LayerNormOp>([&](auto) { return layerNorm(); })
          .Case<SoftmaxOp>(
              [&](SoftmaxOp s) { return softmax(s.getAxis(), false); })
          .Case<LogSoftmaxOp>(
              [&](LogSoftmaxOp s) { return softmax(s.getAxis(), true); })
          .Case<ReduceSumOp>([&](ReduceSumOp r) {
            return reduce("PLUMB_RT_REDUCE_SUM", r.getAxes());
          })
          .Case<ReduceMeanOp>([&](ReduceMeanOp r) {
            return reduce("PLUMB_RT_REDUCE_MEAN", r.getAxes());
          })
          .Case<ReduceProdOp>([&](ReduceProdOp r) {
            return reduce("PLUMB_RT_REDUCE_PROD", r.getAxes());
          })
          .Case<ReduceMaxOp>([&](ReduceMaxOp r) {
            return reduce("PLUMB_RT_REDUCE_MAX", r.getAxes());
          })
          .Case<ReduceMinOp>([&](ReduceMinOp r) {
            return reduce("PLUMB_RT_REDUCE_MIN", r.getAxes());
          })
          .Case<ArgMaxOp>([&](auto) { return argMax(); })
          .Case<ReshapeOp>([&](auto) { return copyBits(); })
          .Case<TransposeOp>([&](auto) { return transpose(); })
          .Case<ConcatOp>([&](auto) { return concat(); })
          .Case<SplitOp>([&](auto) { return split(); })
          .Case<SliceOp>([&](auto) { return slice(); })
          .Case<GatherOp>([&](auto) { return gather(); })
          .Case<ExpandOp>([&](auto) { return expand(); })
          .Case<PadOp>([&](auto) { return pad(); })
          .Case<TileOp>([&](auto) { return tile(); })
          .Case<ResizeOp>([&](auto) { return resize(); })
          .Case<LSTMOp>([&](auto) { return lstm(); })
          .Case<GRUOp>([&](auto) { return gru(); })
          .Default([&](Operation *) {
            known = false;
            return false;
          });
  if (!known)
    return fail("cannot compile '" + opName() + "': no kernel mapping");
  return ok;
}

} // namespace

bool isSupportedKernelOp(Operation *op) {
  return isa<NegOp, AbsOp, ReciprocalOp, SqrtOp, ExpOp, LogOp, TanhOp,
             SigmoidOp, ErfOp, ReluOp, NotOp, HardSigmoidOp, LeakyReluOp,
             ClipOp, GeluOp, AddOp, SubOp, MulOp, DivOp, PowOp, EqualOp,
             LessOp, LessOrEqualOp, GreaterOp, GreaterOrEqualOp, AndOp, OrOp,
             SumOp, MaxOp, MinOp, WhereOp, CastOp, MatMulOp, GemmOp, ConvOp,
             ConvTransposeOp, MaxPoolOp, AveragePoolOp, GlobalAveragePoolOp,
             GlobalMaxPoolOp, BatchNormOp, LayerNormOp, SoftmaxOp,
             LogSoftmaxOp, ReduceSumOp, ReduceMeanOp, ReduceProdOp,
             ReduceMaxOp, ReduceMinOp, ArgMaxOp, ReshapeOp, TransposeOp,
             ConcatOp, SplitOp, SliceOp, GatherOp, ExpandOp, PadOp, TileOp,
             ResizeOp, LSTMOp, GRUOp>(op);
}

bool emitHostKernelCall(KernelCallContext &ctx, Operation *op,
                        std::string &out, std::string &err) {
  Lowering l(ctx, op, out, err);
  return l.run();
}

} // namespace target
} // namespace plumb
