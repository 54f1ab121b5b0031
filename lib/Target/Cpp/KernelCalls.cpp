//===- lib/Target/Cpp/KernelCalls.cpp - Op -> host kernel call ------------===//
//
// Part of Plumb. See include/plumb/Target/Cpp/KernelCalls.h. Prints an op's
// kernel calls (KernelCallOpInterface, the description the interpreter runs)
// as C statements: nothing here decides what an op computes.
//
//===----------------------------------------------------------------------===//
#include "plumb/Target/Cpp/KernelCalls.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/runtime/gemm.h"

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

const char *cTypeName(exec::ElemType t) { return elemTypeCName(t); }

//===----------------------------------------------------------------------===//
// Printing kernel calls
//===----------------------------------------------------------------------===//

namespace {

std::string str(int64_t v) {
  if (v == INT64_MIN)
    return "INT64_MIN";
  return std::to_string(v);
}

/// Prints the calls of one op against the context's pointers.
class CallPrinter {
public:
  CallPrinter(KernelCallContext &ctx, Operation *op) : ctx(ctx), op(op) {}

  bool print(const KernelLowering &l, std::string &out, std::string &err);

private:
  bool printPackedLstmDq(const KernelCall &c, std::string &out,
                         std::string &err);
  bool printPackedMatmulI32(const KernelCall &c, std::string &out,
                            std::string &err);
  std::string ctype(const KernelArg &a) const {
    return a.typed ? std::string(elemTypeCName(a.type)) : "void";
  }
  std::string buffer(const KernelArg &a, KernelArg::Kind kind, int64_t index,
                     std::string &err) {
    switch (kind) {
    case KernelArg::Kind::Operand:
      return "(const " + ctype(a) + " *)" + ctx.ptr(op->getOperand(index));
    case KernelArg::Kind::Result:
      return "(" + ctype(a) + " *)" + ctx.ptr(op->getResult(index));
    default: {
      auto it = ctx.plan.scratch.find(op);
      if (it == ctx.plan.scratch.end() ||
          (size_t)index >= it->second.size()) {
        err = "internal error: no scratch buffer " + std::to_string(index) +
              " for '" + op->getName().getStringRef().str() + "'";
        return "nullptr";
      }
      return "(" + ctype(a) + " *)(" + ctx.arena + " + " +
             std::to_string(it->second[index]) + ")";
    }
    }
  }
  /// The expression of one argument; list arguments declare a local array
  /// in `decls` first.
  std::string arg(const KernelArg &a, std::string &decls, std::string &err) {
    switch (a.kind) {
    case KernelArg::Kind::Operand:
    case KernelArg::Kind::Result:
    case KernelArg::Kind::Scratch:
      return buffer(a, a.kind, a.index, err);
    case KernelArg::Kind::Null:
      return "nullptr";
    case KernelArg::Kind::Int:
      return a.name.empty() ? str(a.value) : a.name;
    case KernelArg::Kind::Float:
      return floatLiteral(a.fvalue);
    case KernelArg::Kind::Ints:
      return ctx.pool.i64(a.ints);
    case KernelArg::Kind::Ints32: {
      std::vector<int32_t> v(a.ints.begin(), a.ints.end());
      return ctx.pool.i32(v);
    }
    case KernelArg::Kind::Floats:
      return ctx.pool.f32(a.floats);
    case KernelArg::Kind::Bytes: {
      char hex[32];
      std::snprintf(hex, sizeof(hex), "0x%016llXull",
                    (unsigned long long)a.ints[0]);
      return "&" + ctx.pool.object("uint64_t", hex);
    }
    case KernelArg::Kind::Params: {
      std::string init = paramsInit(a);
      return "&" + ctx.pool.object(a.name, init.substr(1, init.size() - 2));
    }
    case KernelArg::Kind::OperandList:
    case KernelArg::Kind::ResultList: {
      bool in = a.kind == KernelArg::Kind::OperandList;
      std::string name = (in ? "ins" : "outs") + std::to_string(lists++);
      KernelArg::Kind one = in ? KernelArg::Kind::Operand : KernelArg::Kind::Result;
      std::string items;
      for (int64_t i = 0; i < a.count; ++i)
        items += (i ? ", " : "") + buffer(a, one, a.index + i, err);
      decls += "    " +
               (in ? "const " + ctype(a) + " *const " : std::string("void *const ")) +
               name + "[] = {" + items + "};\n";
      return name;
    }
    case KernelArg::Kind::ShapeList: {
      std::string name = "shapes" + std::to_string(lists++);
      std::string items;
      for (size_t i = 0; i < a.lists.size(); ++i)
        items += (i ? ", " : "") + ctx.pool.i64(a.lists[i]);
      decls += "    const int64_t *const " + name + "[] = {" + items + "};\n";
      return name;
    }
    }
    return "nullptr";
  }

  KernelCallContext &ctx;
  Operation *op;
  int lists = 0;
};

bool isAliasedCopy(KernelCallContext &ctx, Operation *op, const KernelCall &c) {
  if (c.fn != "copy" || c.args.size() != 3)
    return false;
  const KernelArg &src = c.args[0], &dst = c.args[1];
  if (src.kind != KernelArg::Kind::Operand || dst.kind != KernelArg::Kind::Result)
    return false;
  Value r = op->getResult(dst.index);
  return ctx.plan.info(r).aliased ||
         ctx.ptr(op->getOperand(src.index)) == ctx.ptr(r);
}

/// A GEMV (one output row) whose B is a weight, as the C++ emitter runs it:
/// B packed once into a static buffer (repacked if the weights buffer
/// changes), then plumb_rt_gemv_packed, which computes every element exactly
/// as plumb_rt_gemm / plumb_rt_matmul_f32 do (the same tree per element and
/// the same epilogue; gemm.h). The interpreter runs the call as written.
struct PackedGemv {
  int64_t N = 0, K = 0, b_rs = 0, b_cs = 0, c_cs = 0;
  float alpha = 1.0f, beta = 1.0f;
  int aIndex = 0, bIndex = 1, cIndex = -1;
  int64_t block = 0;
};

/// True when kernel argument `a` is an operand stored in the weights.
bool isWeightArg(KernelCallContext &ctx, Operation *op, const KernelArg &a) {
  return a.kind == KernelArg::Kind::Operand &&
         ctx.plan.info(op->getOperand(a.index)).storage.kind == StorageKind::Weight;
}

bool asPackedGemv(KernelCallContext &ctx, Operation *op, const KernelCall &c,
                  PackedGemv &g) {
  if (ctx.prefix != "plumb_rt_")
    return false;
  auto isWeight = [&](const KernelArg &a) { return isWeightArg(ctx, op, a); };
  if (c.fn == "gemm" && c.args.size() == 14 && c.args[0].value == 1 &&
      isWeight(c.args[6])) {
    g.N = c.args[1].value, g.K = c.args[2].value;
    g.alpha = c.args[3].fvalue, g.beta = c.args[8].fvalue;
    g.aIndex = (int)c.args[4].index, g.bIndex = (int)c.args[6].index;
    const bool transB = c.args[7].value != 0;
    g.b_rs = transB ? 1 : g.N, g.b_cs = transB ? g.K : 1;
    if (c.args[9].kind == KernelArg::Kind::Operand) {
      g.cIndex = (int)c.args[9].index;
      const std::vector<int64_t> &cs = c.args[10].ints;
      const int64_t d1 = cs.empty() ? 1 : cs.back();
      g.c_cs = d1 == 1 ? 0 : 1;
    }
    g.block = c.args[13].value;
  } else if (c.fn == "matmul_f32" && c.args.size() == 8 &&
             c.args[5].value == 2 && isWeight(c.args[3])) {
    const std::vector<int64_t> &as = c.args[1].ints, &bs = c.args[4].ints;
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < as.size(); ++i)
      rows *= as[i];
    if (rows != 1 || as.empty() || as.back() != bs[0])
      return false;
    g.N = bs[1], g.K = bs[0], g.b_rs = g.N, g.b_cs = 1;
    g.aIndex = (int)c.args[0].index, g.bIndex = (int)c.args[3].index;
    g.block = c.args[7].value;
  } else {
    return false;
  }
  // Worth a packed copy only when B is more than a few cache lines.
  return g.N >= 16 && g.N * g.K >= 4096;
}

} // namespace

std::string printPackedGemm(const PackedGemmCall &g, const std::string &name) {
  std::string s = "  {\n";
  s += "    static PackedWeights " + name + ";\n";
  s += "    if (" + name + ".from != (const void *)" + g.B + ") {\n";
  s += "      free(" + name + ".data);\n";
  s += "      " + name + ".from = nullptr;\n";
  s += "      " + name + ".data = (float *)aligned_alloc(64, (size_t)((plumb_rt_gemm_packed_b_size(" +
       str(g.N) + ", " + str(g.K) + ") * 4 + 63) / 64 * 64));\n";
  s += "      if (!" + name + ".data)\n        return failText(err, err_len, \"cannot allocate "
       "packed weights\");\n";
  s += "      plumb_rt_gemm_pack_b(" + str(g.N) + ", " + str(g.K) + ", " + g.B + ", " + str(g.b_rs) +
       ", " + str(g.b_cs) + ", " + name + ".data);\n";
  s += "      " + name + ".from = (const void *)" + g.B + ";\n    }\n";
  s += "    plumb_rt_gemm_strided_packed_b(" + str(g.M) + ", " + str(g.N) + ", " + str(g.K) + ", " +
       floatLiteral(g.alpha) + ", " + g.A + ", " + str(g.a_rs) + ", " + str(g.a_cs) + ", " +
       name + ".data, " + g.B + ", " + str(g.b_rs) + ", " + str(g.b_cs) + ", " +
       floatLiteral(g.beta) + ", " + g.C + ", " + str(g.c_rs) + ", " + str(g.c_cs) + ", " + g.Y +
       ", " + str(g.N) + ", " + str(g.block) + ");\n  }\n";
  return s;
}

namespace {

std::string printPackedGemv(KernelCallContext &ctx, Operation *op,
                            const KernelCall &c, const PackedGemv &g) {
  auto ptr = [&](int i) { return ctx.ptr(op->getOperand(i)); };
  std::string B = "(const float *)" + ptr(g.bIndex);
  std::string s = "  {\n";
  s += "    static PackedWeights pw;\n";
  s += "    if (pw.from != (const void *)" + B + ") {\n";
  s += "      free(pw.data);\n";
  s += "      pw.from = nullptr;\n";
  s += "      pw.data = (float *)aligned_alloc(64, (size_t)((plumb_rt_gemv_packed_size(" +
       str(g.N) + ", " + str(g.K) + ") * 4 + 63) / 64 * 64));\n";
  s += "      if (!pw.data)\n        return failText(err, err_len, \"cannot "
       "allocate packed weights\");\n";
  s += "      rc = plumb_rt_gemv_pack(" + str(g.N) + ", " + str(g.K) + ", " + B +
       ", " + str(g.b_rs) + ", " + str(g.b_cs) + ", pw.data);\n";
  s += "      if (rc != 0)\n        " + ctx.onError(c.what, false) + "\n";
  s += "      pw.from = " + B + ";\n    }\n";
  s += "    rc = plumb_rt_gemv_packed(" + str(g.N) + ", " + str(g.K) + ", " +
       floatLiteral(g.alpha) + ", (const float *)" + ptr(g.aIndex) +
       ", 1, pw.data, " + floatLiteral(g.beta) + ", " +
       (g.cIndex >= 0 ? "(const float *)" + ptr(g.cIndex) : std::string("nullptr")) +
       ", " + str(g.c_cs) + ", (float *)" + ctx.ptr(op->getResult(0)) + ", " +
       str(g.block) + ");\n  }\n";
  s += "  if (rc != 0)\n    " + ctx.onError(c.what, false) + "\n";
  return s;
}

/// A matmul (rank-2 weight B, at least two rows of A) or Gemm (weight B,
/// M >= 2) as a packed-B GEMM (PackedGemmCall).
bool asPackedGemm(KernelCallContext &ctx, Operation *op, const KernelCall &c,
                  PackedGemmCall &g) {
  if (ctx.prefix != "plumb_rt_")
    return false;
  auto isWeight = [&](const KernelArg &a) { return isWeightArg(ctx, op, a); };
  auto operand = [&](const KernelArg &a) {
    return "(const float *)" + ctx.ptr(op->getOperand(a.index));
  };
  if (c.fn == "gemm" && c.args.size() == 14 && c.args[0].value >= 2 && isWeight(c.args[6]) &&
      c.args[4].kind == KernelArg::Kind::Operand && c.args[12].kind == KernelArg::Kind::Result) {
    g.M = c.args[0].value, g.N = c.args[1].value, g.K = c.args[2].value;
    g.alpha = c.args[3].fvalue, g.beta = c.args[8].fvalue;
    const bool hasC = c.args[9].kind == KernelArg::Kind::Operand;
    std::vector<int64_t> cs = hasC ? c.args[10].ints : std::vector<int64_t>();
    const plumb::rt::GemmStrides st = plumb::rt::gemmStrides(
        g.M, g.N, g.K, (int)c.args[5].value, (int)c.args[7].value, hasC, cs.data(), (int)cs.size());
    g.a_rs = st.a_rs, g.a_cs = st.a_cs, g.b_rs = st.b_rs, g.b_cs = st.b_cs;
    g.c_rs = st.c_rs, g.c_cs = st.c_cs;
    g.A = operand(c.args[4]), g.B = operand(c.args[6]);
    g.C = hasC ? operand(c.args[9]) : std::string("nullptr");
    g.Y = "(float *)" + ctx.ptr(op->getResult(c.args[12].index));
    g.block = c.args[13].value;
  } else if (c.fn == "matmul_f32" && c.args.size() == 8 && c.args[5].value == 2 &&
             isWeight(c.args[3]) && c.args[0].kind == KernelArg::Kind::Operand &&
             c.args[6].kind == KernelArg::Kind::Result) {
    const std::vector<int64_t> &as = c.args[1].ints, &bs = c.args[4].ints;
    if (as.size() < 2 || bs.size() != 2 || as.back() != bs[0])
      return false;
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < as.size(); ++i)
      rows *= as[i];
    if (rows < 2)
      return false;
    g.M = rows, g.N = bs[1], g.K = bs[0];
    g.a_rs = g.K, g.a_cs = 1, g.b_rs = g.N, g.b_cs = 1;
    g.A = operand(c.args[0]), g.B = operand(c.args[3]);
    g.Y = "(float *)" + ctx.ptr(op->getResult(c.args[6].index));
    g.block = c.args[7].value;
  } else {
    return false;
  }
  return g.N >= 1 && g.K >= 1 && g.N * g.K >= 4096;
}

/// A DynamicQuantizeLSTM whose W and R (and zero points) are weights: the
/// zero-point-corrected 16-bit copy of W and R is packed once into a static
/// buffer (repacked if the weights buffer changes), then
/// plumb_rt_lstm_dq_packed_f32, which gives exactly plumb_rt_lstm_dq_f32's
/// bits (rnn.h). The interpreter runs the call as written.
bool CallPrinter::printPackedLstmDq(const KernelCall &c, std::string &out,
                                    std::string &err) {
  if (ctx.prefix != "plumb_rt_" || c.fn != "lstm_dq_f32" ||
      c.args.size() != 23 || !ctx.trailingArgs.empty())
    return false;
  auto weightOrNull = [&](const KernelArg &a) {
    return a.kind == KernelArg::Kind::Null || isWeightArg(ctx, op, a);
  };
  if (!isWeightArg(ctx, op, c.args[1]) || !isWeightArg(ctx, op, c.args[5]) ||
      !weightOrNull(c.args[3]) || !weightOrNull(c.args[7]))
    return false;
  std::string decls;
  std::vector<std::string> a;
  for (const KernelArg &k : c.args)
    a.push_back(arg(k, decls, err));
  if (!err.empty())
    return true;
  auto join = [&](std::initializer_list<int> idx) {
    std::string r;
    for (int i : idx)
      r += (r.empty() ? "" : ", ") + a[(size_t)i];
    return r;
  };
  std::string s = "  {\n" + decls;
  s += "    static PackedWeights pq;\n";
  s += "    if (pq.from != (const void *)" + a[1] + ") {\n";
  s += "      free(pq.data);\n";
  s += "      pq.from = nullptr;\n";
  s += "      pq.data = (float *)aligned_alloc(64, (size_t)((plumb_rt_lstm_dq_packed_size(" +
       join({15, 16, 17}) + ") + 63) / 64 * 64));\n";
  s += "      if (!pq.data)\n        return failText(err, err_len, \"cannot "
       "allocate packed weights\");\n";
  s += "      rc = plumb_rt_lstm_dq_pack(" + join({1, 3, 4, 5, 7, 8, 15, 16, 17}) +
       ", pq.data);\n";
  s += "      if (rc != 0)\n        " + ctx.onError(c.what, false) + "\n";
  s += "      pq.from = (const void *)" + a[1] + ";\n    }\n";
  s += "    rc = plumb_rt_lstm_dq_packed_f32(" + a[0] + ", pq.data, " +
       join({2, 4, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22}) +
       ");\n  }\n";
  s += "  if (rc != 0)\n    " + ctx.onError(c.what, false) + "\n";
  out += s;
  return true;
}

/// An integer MatMul whose B is a 2-D weight: B packed once into its
/// narrow form (repacked if the weights buffer changes), then
/// plumb_rt_matmul_i32_packed, exactly plumb_rt_matmul_i32's bits (gemm.h).
bool CallPrinter::printPackedMatmulI32(const KernelCall &c, std::string &out,
                                       std::string &err) {
  if (ctx.prefix != "plumb_rt_" || c.fn != "matmul_i32" ||
      c.args.size() != 7 || !ctx.trailingArgs.empty() ||
      !isWeightArg(ctx, op, c.args[3]) ||
      c.args[4].kind != KernelArg::Kind::Ints || c.args[4].ints.size() != 2)
    return false;
  const int64_t K = c.args[4].ints[0], N = c.args[4].ints[1];
  if (K * N < 4096)
    return false;
  std::string decls;
  std::vector<std::string> a;
  for (const KernelArg &k : c.args)
    a.push_back(arg(k, decls, err));
  if (!err.empty())
    return true;
  std::string s = "  {\n" + decls;
  s += "    static PackedWeights pi;\n";
  s += "    if (pi.from != (const void *)" + a[3] + ") {\n";
  s += "      free(pi.data);\n";
  s += "      pi.from = nullptr;\n";
  s += "      pi.data = (float *)aligned_alloc(64, (size_t)((plumb_rt_matmul_i32_packed_size(" +
       str(K) + ", " + str(N) + ") + 63) / 64 * 64));\n";
  s += "      if (!pi.data)\n        return failText(err, err_len, \"cannot "
       "allocate packed weights\");\n";
  s += "      rc = plumb_rt_matmul_i32_pack(" + a[3] + ", " + str(K) + ", " +
       str(N) + ", pi.data);\n";
  s += "      if (rc != 0)\n        " + ctx.onError(c.what, false) + "\n";
  s += "      pi.from = (const void *)" + a[3] + ";\n    }\n";
  s += "    rc = plumb_rt_matmul_i32_packed(" + a[0] + ", " + a[1] + ", " + a[2] +
       ", pi.data, " + a[3] + ", " + a[4] + ", " + a[5] + ", " + a[6] +
       ");\n  }\n";
  s += "  if (rc != 0)\n    " + ctx.onError(c.what, c.rangeError) + "\n";
  out += s;
  return true;
}

bool CallPrinter::print(const KernelLowering &l, std::string &out,
                        std::string &err) {
  for (const KernelCall &c : l.calls) {
    if (isAliasedCopy(ctx, op, c))
      continue; // the result shares its operand's buffer: nothing to move
    if (printPackedLstmDq(c, out, err) || printPackedMatmulI32(c, out, err)) {
      if (!err.empty())
        return false;
      continue;
    }
    PackedGemv g;
    if (asPackedGemv(ctx, op, c, g)) {
      out += printPackedGemv(ctx, op, c, g);
      continue;
    }
    PackedGemmCall pg;
    if (ctx.epilogueFn.empty() && asPackedGemm(ctx, op, c, pg)) {
      out += printPackedGemm(pg, "pb");
      continue;
    }
    std::string decls, fn = c.fn, args;
    bool epilogue = !ctx.epilogueFn.empty() &&
                    (fn == "conv1d" || fn == "conv2d" || fn == "conv_nd");
    for (size_t i = 0; i < c.args.size(); ++i)
      args += (i ? ", " : "") + arg(c.args[i], decls, err);
    if (!err.empty())
      return false;
    if (epilogue) {
      // A fused chain's elementwise tail runs on each finished output range
      // (plumb_rt_epilogue, runtime conv.h) while it is in cache.
      decls += "    const plumb_rt_epilogue ep = {" + ctx.epilogueFn + ", " +
               ctx.epilogueCtx + "};\n";
      fn += "_ep";
      args += ", &ep";
    }
    args += ctx.trailingArgs;
    std::string call = "rc = " + ctx.prefix + fn + "(" + args + ");\n";
    if (decls.empty())
      out += "  " + call;
    else
      out += "  {\n" + decls + "    " + call + "  }\n";
    out += "  if (rc != 0)\n    " + ctx.onError(c.what, c.rangeError) + "\n";
  }
  return true;
}

} // namespace

bool lowerOpForEmit(Operation *op, KernelLowering &l, std::string &err) {
  auto k = dyn_cast<KernelCallOpInterface>(op);
  if (!k) {
    err = "cannot compile '" + op->getName().getStringRef().str() +
          "': no kernel mapping";
    return false;
  }
  return succeeded(k.lowerToKernelCalls(l, err));
}

bool isSupportedKernelOp(Operation *op) {
  return isa<KernelCallOpInterface>(op);
}

bool emitHostKernelCall(KernelCallContext &ctx, Operation *op,
                        std::string &out, std::string &err) {
  KernelLowering l;
  if (!lowerOpForEmit(op, l, err))
    return false;
  return emitKernelCalls(ctx, op, l, out, err);
}

bool emitKernelCalls(KernelCallContext &ctx, Operation *op,
                     const KernelLowering &l, std::string &out,
                     std::string &err) {
  CallPrinter p(ctx, op);
  return p.print(l, out, err);
}

} // namespace target
} // namespace plumb
