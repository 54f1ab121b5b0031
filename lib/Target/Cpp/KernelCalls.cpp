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

bool CallPrinter::print(const KernelLowering &l, std::string &out,
                        std::string &err) {
  for (const KernelCall &c : l.calls) {
    if (isAliasedCopy(ctx, op, c))
      continue; // the result shares its operand's buffer: nothing to move
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
