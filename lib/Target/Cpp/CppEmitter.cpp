//===- lib/Target/Cpp/CppEmitter.cpp - C++ code generation ----------------===//
//
// Part of Plumb. See include/plumb/Target/Cpp/CppEmitter.h.
//
// Layout of the generated file: banner, includes, literal arrays (shapes and
// attribute arrays, each once), helpers, then the exported functions.
// plumb_model_run checks the interface, canonicalises NaNs of float inputs
// that need it, runs the nodes in canonical order (a plumb.if becomes an
// if/else over both regions), calls the hook after each node and copies the
// outputs not computed in place.
//
//===----------------------------------------------------------------------===//
#include "plumb/Target/Cpp/CppEmitter.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Target/Cpp/Epilogue.h"
#include "plumb/Target/Cpp/GeneratedCode.h"
#include "plumb/Target/Cpp/KernelCalls.h"

#include "llvm/ADT/STLExtras.h"

#include <map>

using namespace mlir;

namespace plumb {
namespace target {

namespace {

llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 msg.c_str());
}

/// What the run functions of one file share: the literal pool and the
/// functions defined before them (conv epilogues, each once).
struct SharedText {
  LiteralPool pool;
  std::string functions;
  /// Epilogue definitions by name, to reuse an identical one.
  std::map<std::string, std::string> epilogues;
};

/// Writes the body of one run function: prologue, the nodes, the outputs
/// not computed in place, for one memory plan.
class CppWriter {
public:
  CppWriter(const ModelPlan &plan, SharedText &shared, std::string variant)
      : plan(plan), pool(shared.pool), shared(shared),
        variant(std::move(variant)) {}

  llvm::Expected<std::string> runBody();

private:
  /// The pointer expression of a value as a kernel operand.
  std::string ptr(Value v) const {
    if (auto o = cachedConstants.find(v); o != cachedConstants.end())
      return o->second;
    const ValueInfo &info = plan.info(v);
    switch (info.storage.kind) {
    case StorageKind::Input:
      return "x" + std::to_string(info.storage.index);
    case StorageKind::Weight: {
      int64_t e = info.storage.index;
      if (info.type == exec::ElemType::F32 && plan.weightCanonicalSlot[e] >= 0)
        return "(A + " + std::to_string(plan.weightCanonicalSlot[e]) + ")";
      return "(W + " + std::to_string(plan.weights[e].offset) + ")";
    }
    case StorageKind::Arena:
      return "(A + " + std::to_string(info.storage.offset) + ")";
    case StorageKind::Output:
      return "out" + std::to_string(info.storage.index);
    }
    return "nullptr";
  }
  /// The raw bits of a value (graph inputs as given, NaNs not touched).
  std::string rawPtr(Value v) const {
    const ValueInfo &info = plan.info(v);
    if (info.storage.kind == StorageKind::Input)
      return "in" + std::to_string(info.storage.index);
    if (info.storage.kind == StorageKind::Weight)
      return "(W + " +
             std::to_string(plan.weights[info.storage.index].offset) + ")";
    return ptr(v);
  }

  std::string view(Value v) {
    const ValueInfo &info = plan.info(v);
    return "{" + std::to_string((int)info.type) + ", " +
           std::to_string(info.shape.size()) + ", " + pool.i64(info.shape) +
           ", (void *)" + ptr(v) + "}";
  }

  bool emitOp(Operation *op, int64_t node, std::string &out, std::string &err);
  bool emitIf(IfOp op, int64_t node, std::string &out, std::string &err);
  bool emitFused(FusedOp op, int64_t node, std::string &out, std::string &err);
  bool emitMatMulBias(MatMulOp mm, Operation *add, std::string &out);
  bool emitCachedTranspose(TransposeOp t, int64_t node, std::string &out, std::string &err);
  /// Values held in a buffer of their own across runs (ptr() expressions).
  llvm::DenseMap<Value, std::string> cachedConstants;
  KernelCallContext context(Operation *op, int64_t node);

  const ModelPlan &plan;
  LiteralPool &pool;
  SharedText &shared;
  /// Suffix of this plan's epilogue names where they differ from another's.
  std::string variant;
};

bool CppWriter::emitIf(IfOp op, int64_t node, std::string &out,
                       std::string &err) {
  out += "  if (*(const uint8_t *)" + ptr(op.getCond()) + ") {\n";
  for (int branch = 0; branch < 2; ++branch) {
    Region &r = branch == 0 ? op.getThenRegion() : op.getElseRegion();
    std::string body;
    for (Operation &inner : r.front()) {
      if (isa<ConstantOp>(inner))
        continue;
      if (auto y = dyn_cast<YieldOp>(inner)) {
        for (auto [i, v] : llvm::enumerate(y.getOperands()))
          body += "  memcpy((void *)" + ptr(op->getResult(i)) + ", " + ptr(v) +
                  ", " + std::to_string(plan.info(v).bytes) + ");\n";
        continue;
      }
      if (!emitOp(&inner, node, body, err))
        return false;
    }
    out += indent(body, 2);
    out += branch == 0 ? "  } else {\n" : "  }\n";
  }
  return true;
}

/// A plumb.fused chain computes in its result's buffer (the plan shares
/// it with the chain's values). A conv head applies the elementwise tail
/// per finished output plane while it is in cache; otherwise, or when the
/// tail has no per-element form, the ops run one after the other.
bool CppWriter::emitFused(FusedOp op, int64_t node, std::string &out,
                          std::string &err) {
  SmallVector<Operation *> chain = op.getChain();
  if (isa<ConvOp>(chain.front())) {
    std::string name = "plumb_epilogue_" + std::to_string(node);
    EpilogueCode code;
    std::string why;
    bool inPlace = ptr(chain.front()->getResult(0)) == ptr(op.getOutput());
    if (buildConvEpilogue(op, name, inPlace, code, why)) {
      // Plans differ in offsets only, so the function is usually the same;
      // where it is not (in place in one plan only), it gets its own name.
      auto known = shared.epilogues.find(name);
      if (known != shared.epilogues.end() && known->second != code.function) {
        name += variant;
        code = EpilogueCode();
        buildConvEpilogue(op, name, inPlace, code, why);
        known = shared.epilogues.find(name);
      }
      if (known == shared.epilogues.end()) {
        shared.epilogues[name] = code.function;
        shared.functions += code.function + "\n";
      }
      std::vector<std::string> ctxPtrs;
      for (Value v : code.externals)
        ctxPtrs.push_back("(const float *)" + ptr(v));
      if (!inPlace)
        ctxPtrs.push_back("(const float *)" + ptr(op.getOutput()));
      std::string body = "const float *const ep_args[] = {";
      for (auto [i, p] : llvm::enumerate(ctxPtrs))
        body += (i ? ", " : "") + p;
      if (ctxPtrs.empty())
        body += "nullptr";
      body += "};\n(void)ep_args;\n";
      KernelCallContext ctx = context(chain.front(), node);
      ctx.epilogueFn = name;
      ctx.epilogueCtx = "(void *)ep_args";
      std::string call;
      if (!emitHostKernelCall(ctx, chain.front(), call, err))
        return false;
      out += "  {\n" + indent(body, 4) + indent(call, 2) + "  }\n";
      return true;
    }
    out += "  // op by op: " + why + "\n";
  }
  size_t first = 0;
  if (auto mm = dyn_cast<MatMulOp>(chain.front()); mm && chain.size() >= 2 &&
                                                    emitMatMulBias(mm, chain[1], out))
    first = 2;
  // Runs of at least two elementwise ops with a per-element form become
  // one loop over the result (one pass instead of one per op); the rest
  // run op by op.
  const std::string outPtr = ptr(op.getOutput());
  const int64_t count =
      cast<RankedTensorType>(op.getOutput().getType()).getNumElements();
  for (size_t i = first; i < chain.size();) {
    size_t n = flatChainLength(op, i);
    if (n >= 2 && (i == 0 || ptr(chain[i - 1]->getResult(0)) == outPtr) &&
        ptr(chain[i + n - 1]->getResult(0)) == outPtr) {
      std::string name =
          "plumb_chain_" + std::to_string(node) + "_" + std::to_string(i);
      EpilogueCode code;
      if (buildFlatChain(op, i, i + n, name, code)) {
        auto known = shared.epilogues.find(name);
        if (known != shared.epilogues.end() && known->second != code.function) {
          name += variant;
          buildFlatChain(op, i, i + n, name, code);
          known = shared.epilogues.find(name);
        }
        if (known == shared.epilogues.end()) {
          shared.epilogues[name] = code.function;
          shared.functions += code.function + "\n";
        }
        std::string body = "const float sc_vals[] = {";
        for (auto [k, v] : llvm::enumerate(code.scalars))
          body += (k ? ", " : "") + std::string("*(const float *)") + ptr(v);
        if (code.scalars.empty())
          body += "0.0f";
        body += "};\nconst float *const ep_args[] = {";
        for (Value v : code.externals)
          body += "(const float *)" + ptr(v) + ", ";
        body += "sc_vals};\n";
        body += "plumb_rt_elementwise_apply(" + name + ", (void *)ep_args, (float *)" +
                outPtr + ", " + std::to_string(count) + ");\n";
        out += "  {\n" + indent(body, 4) + "  }\n";
        i += n;
        continue;
      }
    }
    if (!emitOp(chain[i], node, out, err))
      return false;
    ++i;
  }
  return true;
}

/// matmul then the add of a bias along the last axis ([N], or [1,...,1,N])
/// or of a tensor of the result's shape (a residual), the head of a fused
/// chain, as one GEMM whose epilogue adds it:
/// plumb_rt_gemm_strided's y = dot + c is the add's IEEE sum of the same
/// two floats (alpha = beta = 1 apply no operation), so the bits are the
/// matmul's and then the add's, with one pass over the output instead of
/// two. Only for a weight-like B of rank 2 (or leading 1s) shared by all
/// of A's rows, and more than a few rows (one row keeps the packed GEMV).
bool CppWriter::emitMatMulBias(MatMulOp mm, Operation *add, std::string &out) {
  auto addOp = dyn_cast<AddOp>(add);
  if (!addOp)
    return false;
  Value mmOut = mm.getResult();
  Value bias;
  if (addOp.getLhs() == mmOut)
    bias = addOp.getRhs();
  else if (addOp.getRhs() == mmOut)
    bias = addOp.getLhs();
  if (!bias || bias == mmOut)
    return false;
  auto at = dyn_cast<RankedTensorType>(mm.getLhs().getType());
  auto bt = dyn_cast<RankedTensorType>(mm.getRhs().getType());
  auto yt = dyn_cast<RankedTensorType>(mmOut.getType());
  auto ct = dyn_cast<RankedTensorType>(bias.getType());
  auto rt = dyn_cast<RankedTensorType>(addOp.getResult().getType());
  if (!at || !bt || !yt || !ct || !rt || !at.hasStaticShape() || !bt.hasStaticShape() ||
      !ct.hasStaticShape() || !rt.hasStaticShape() || rt.getShape() != yt.getShape() ||
      !at.getElementType().isF32() || !bt.getElementType().isF32() ||
      !ct.getElementType().isF32() || at.getRank() < 2 || bt.getRank() < 2 ||
      ct.getRank() < 1 || ct.getRank() > yt.getRank())
    return false;
  ArrayRef<int64_t> as = at.getShape(), bs = bt.getShape(), cs = ct.getShape();
  for (int64_t d : bs.drop_back(2))
    if (d != 1)
      return false;
  const int64_t K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K || cs.back() != N)
    return false;
  int64_t rows = 1;
  for (int64_t d : as.drop_back())
    rows *= d;
  // C: a bias along the last axis (row stride 0), or a whole [.., N]
  // tensor of the result's shape (a residual, row stride N).
  int64_t cRowStride = 0;
  if (cs == yt.getShape()) {
    cRowStride = N;
  } else {
    for (int64_t d : cs.drop_back())
      if (d != 1)
        return false;
  }
  if (rows < 4 || N < 1 || K < 1)
    return false;
  KernelLowering l;
  std::string why;
  if (!lowerOpForEmit(mm, l, why) || l.calls.size() != 1 || l.calls[0].fn != "matmul_f32" ||
      l.calls[0].args.size() != 8)
    return false;
  const int64_t block = l.calls[0].args[7].value;
  const std::string Y = ptr(addOp.getResult());
  if (Y == ptr(bias) || Y == ptr(mm.getLhs()) || Y == ptr(mm.getRhs()))
    return false;
  if (plan.info(mm.getRhs()).storage.kind == StorageKind::Weight && N * K >= 4096) {
    PackedGemmCall g;
    g.M = rows, g.N = N, g.K = K, g.a_rs = K, g.a_cs = 1, g.b_rs = N, g.b_cs = 1;
    g.c_rs = cRowStride, g.c_cs = 1;
    g.A = "(const float *)" + ptr(mm.getLhs());
    g.B = "(const float *)" + ptr(mm.getRhs());
    g.C = "(const float *)" + ptr(bias);
    g.Y = "(float *)" + Y;
    g.block = block;
    out += printPackedGemm(g, "pb");
    return true;
  }
  out += "  plumb_rt_gemm_strided(" + std::to_string(rows) + ", " + std::to_string(N) + ", " +
         std::to_string(K) + ", 1.0f, (const float *)" + ptr(mm.getLhs()) + ", " +
         std::to_string(K) + ", 1, (const float *)" + ptr(mm.getRhs()) + ", " +
         std::to_string(N) + ", 1, 1.0f, (const float *)" + ptr(bias) + ", " +
         std::to_string(cRowStride) + ", 1, (float *)" + Y +
         ", " + std::to_string(N) + ", " + std::to_string(block) + ");\n";
  return true;
}

/// A transpose of a weight (the tied LM head of GPT-2-style models, [V, D]
/// -> [D, V]) computes the same bits on every run: it is computed once into
/// a buffer kept across runs (recomputed when the weights buffer changes,
/// as the packed GEMV weights are), and its users and the trace hook read
/// that buffer. Only when every user reads the value into results of its
/// own (none computes in place or aliases it). Returns false, with err
/// empty, when the node is not such a transpose.
bool CppWriter::emitCachedTranspose(TransposeOp t, int64_t node, std::string &out,
                                    std::string &err) {
  Value in = t.getInput(), r = t.getResult();
  auto rt = dyn_cast<RankedTensorType>(r.getType());
  if (!rt || !rt.hasStaticShape() || !rt.getElementType().isF32() ||
      plan.info(in).storage.kind != StorageKind::Weight ||
      plan.info(r).storage.kind != StorageKind::Arena || rt.getNumElements() < 4096)
    return false;
  const std::string own = ptr(r);
  for (Operation *user : r.getUsers()) {
    if (!isa<MatMulOp, GemmOp>(user))
      return false;
    for (Value o : user->getResults())
      if (ptr(o) == own)
        return false;
  }
  const std::string name = "cached_" + std::to_string(node);
  const int64_t bytes = (rt.getNumElements() * 4 + 63) / 64 * 64;
  cachedConstants[r] = "((char *)" + name + ".data)";
  KernelCallContext ctx = context(t, node);
  std::string call;
  if (!emitHostKernelCall(ctx, t, call, err))
    return false;
  out += "  static PackedWeights " + name + ";\n";
  out += "  if (" + name + ".from != (const void *)W) {\n";
  out += "    free(" + name + ".data);\n    " + name + ".from = nullptr;\n";
  out += "    " + name + ".data = (float *)aligned_alloc(64, " + std::to_string(bytes) + ");\n";
  out += "    if (!" + name + ".data)\n      return failText(err, err_len, \"cannot allocate a "
         "cached constant\");\n";
  out += "  " + call;
  out += "    " + name + ".from = (const void *)W;\n  }\n";
  return true;
}

KernelCallContext CppWriter::context(Operation *op, int64_t node) {
  std::string opName = op->getName().getStringRef().str();
  KernelCallContext ctx{plan, pool, [this](Value v) { return ptr(v); }, "A",
                        nullptr};
  ctx.onError = [node, opName](const std::string &what, bool rangeCheck) {
    std::string msg = rangeCheck
                          ? "rc == PLUMB_RT_ERANGE ? \"" + what +
                                " index out of range\" : \"" + what + " kernel\""
                          : "\"" + what + " kernel\"";
    return "return fail(err, err_len, " + std::to_string(node) + ", \"" +
           opName + "\", " + msg + ", rc);";
  };
  return ctx;
}

bool CppWriter::emitOp(Operation *op, int64_t node, std::string &out,
                       std::string &err) {
  if (auto i = dyn_cast<IfOp>(op))
    return emitIf(i, node, out, err);
  if (auto f = dyn_cast<FusedOp>(op))
    return emitFused(f, node, out, err);
  if (auto t = dyn_cast<TransposeOp>(op)) {
    bool done = false;
    if (!(done = emitCachedTranspose(t, node, out, err)) && !err.empty())
      return false;
    if (done)
      return true;
  }
  KernelCallContext ctx = context(op, node);
  return emitHostKernelCall(ctx, op, out, err);
}

llvm::Expected<std::string> CppWriter::runBody() {
  func::FuncOp main = plan.main;
  Block &entry = main.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());

  // The body first: it fills the literal pool.
  std::string body;
  for (auto [k, op] : llvm::enumerate(plan.nodes)) {
    int64_t fenced = plan.fenceBefore.empty() ? -1 : plan.fenceBefore[k];
    if (fenced >= 0)
      body += "\n  fence(user, " + std::to_string(fenced) + ");";
    body += "\n  // node " + std::to_string(k) + ": " +
            op->getName().getStringRef().str() + " -> ";
    for (auto [i, r] : llvm::enumerate(op->getResults())) {
      const ValueInfo &info = plan.info(r);
      body += (i ? ", " : "") + shapeText(info.shape, info.type);
    }
    body += "\n";
    std::string err;
    if (!emitOp(op, (int64_t)k, body, err))
      return fail("node " + std::to_string(k) + " (" +
                  op->getName().getStringRef().str() + "): " + err);
    if (op->getNumResults()) {
      body += "  if (hook) {\n    const plumb_tensor_view r[] = {";
      for (auto [i, r] : llvm::enumerate(op->getResults()))
        body += (i ? ", " : "") + view(r);
      body += "};\n    hook(user, " + std::to_string(k) + ", " +
              std::to_string(op->getNumResults()) + ", r);\n  }\n";
    }
  }

  // Interface checks, input pointers and canonical copies.
  std::string prologue = interfaceChecks(plan, pool);
  for (BlockArgument a : entry.getArguments()) {
    std::string i = std::to_string(a.getArgNumber());
    prologue += "  const char *const in" + i + " = (const char *)inputs[" + i +
                "].data;\n";
    int64_t slot = plan.inputCanonicalSlot[a.getArgNumber()];
    if (slot < 0) {
      prologue += "  const char *const x" + i + " = in" + i + ";\n";
      continue;
    }
    int64_t n = plan.info(a).bytes / 4;
    prologue += "  const char *x" + i + " = in" + i + ";\n";
    prologue += "  if (hasNonCanonicalNaN((const float *)in" + i + ", " +
                std::to_string(n) + ")) {\n";
    prologue += "    plumb_rt_canonicalize_nan_f32((const float *)in" + i +
                ", (float *)(A + " + std::to_string(slot) + "), " +
                std::to_string(n) + ");\n";
    prologue += "    x" + i + " = A + " + std::to_string(slot) + ";\n  }\n";
  }
  for (size_t i = 0; i < ret.getNumOperands(); ++i)
    prologue += "  char *const out" + std::to_string(i) + " = (char *)outputs[" +
                std::to_string(i) + "].data;\n";
  for (auto [e, w] : llvm::enumerate(plan.weights))
    if (plan.weightCanonicalSlot[e] >= 0)
      prologue += "  plumb_rt_canonicalize_nan_f32((const float *)(W + " +
                  std::to_string(w.offset) + "), (float *)(A + " +
                  std::to_string(plan.weightCanonicalSlot[e]) + "), " +
                  std::to_string(w.bytes / 4) + ");\n";

  // Outputs not computed in place.
  std::string epilogue;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    const ValueInfo &info = plan.info(v);
    if (info.storage.kind == StorageKind::Output &&
        info.storage.index == (int64_t)i)
      continue;
    epilogue += "  memcpy(out" + std::to_string(i) + ", " + rawPtr(v) + ", " +
                std::to_string(info.bytes) + ");\n";
  }

  std::string s = prologue + body;
  if (!epilogue.empty())
    s += "\n  // Outputs not computed in place.\n" + epilogue;
  return s;
}

} // namespace

llvm::Expected<std::string> emitCpp(const ModelPlan &plan,
                                    const EmitHeader &header,
                                    const ModelPlan *tracePlan) {
  SharedText shared;
  auto body = CppWriter(plan, shared, "").runBody();
  if (!body)
    return body.takeError();
  std::string traced;
  if (tracePlan) {
    auto b = CppWriter(*tracePlan, shared, "_traced").runBody();
    if (!b)
      return b.takeError();
    traced = std::move(*b);
  }

  int64_t weightCount = (int64_t)plan.weights.size();
  std::string notes =
      "//\n// " + std::to_string(plan.nodes.size()) + " nodes; weights " +
      std::to_string(plan.weightsBytes) + " bytes in " +
      std::to_string(weightCount) + " entries; arena " +
      std::to_string(plan.arenaBytes) + " bytes (" +
      std::to_string(plan.unplannedBytes) + " without reuse).\n";
  if (tracePlan)
    notes += "// Traced runs keep each node's results in place for up to " +
             std::to_string(tracePlan->resultLag) +
             " more nodes: arena " + std::to_string(tracePlan->arenaBytes) +
             " bytes.\n";
  std::string s =
      generatedBanner("model.cpp", "Plumb compiled model", header, notes);
  s += generatedPrelude("", header, plan);
  if (tracePlan)
    s += "constexpr size_t kTracedArenaBytes = " +
         std::to_string(std::max<int64_t>(tracePlan->arenaBytes, kPlanAlignment)) +
         ";\n";
  s += "\n// Shapes and attribute arrays.\n";
  s += shared.pool.text();
  if (!shared.functions.empty())
    s += "\n" + shared.functions;
  s += "\n";
  s += generatedHelpers();
  s += "\n"
       "// One arena per loaded model and plan, reused by every run (runs are\n"
       "// serialised).\n"
       "std::mutex gRunMutex;\n"
       "struct Arena {\n"
       "  char *base = nullptr;\n"
       "  ~Arena() { free(base); }\n"
       "  char *get(size_t bytes) {\n"
       "    if (!base)\n"
       "      base = (char *)aligned_alloc(64, bytes);\n"
       "    return base;\n"
       "  }\n"
       "} gArena";
  s += tracePlan ? ", gTracedArena;\n" : ";\n";
  std::string signature =
      "(char *const A, const char *const W,\n"
      "                const plumb_tensor_view *inputs,\n"
      "                plumb_tensor_view *outputs, plumb_node_hook hook,\n"
      "                void *user, char *err, size_t err_len) {\n"
      "  (void)W;\n"
      "  int rc = 0;\n"
      "  (void)rc;\n";
  s += "\n"
       "int32_t runPlanned" + signature + *body + "  return 0;\n}\n";
  if (tracePlan) {
    std::string tracedSignature = signature;
    tracedSignature.replace(tracedSignature.find("plumb_node_hook hook,"),
                            21, "plumb_node_hook hook, plumb_node_fence fence,");
    s += "\n"
         "// The same nodes at the trace plan's offsets, fenced.\n"
         "int32_t runTraced" + tracedSignature + traced + "  return 0;\n}\n";
  }
  s += "\n";
  s += generatedIdentityExports();
  s += "\n"
       "PLUMB_EXPORT void plumb_model_set_threads(int32_t n) {\n"
       "  std::lock_guard<std::mutex> lock(gRunMutex);\n"
       "  plumb_rt_set_threads(n);\n"
       "}\n"
       "\n";
  if (tracePlan)
    s += "PLUMB_EXPORT int32_t plumb_model_trace_lag(void) { return " +
         std::to_string(tracePlan->resultLag) +
         "; }\n"
         "\n"
         "PLUMB_EXPORT int32_t plumb_model_run_traced(\n"
         "    const void *weights, const plumb_tensor_view *inputs,\n"
         "    plumb_tensor_view *outputs, plumb_node_hook hook,\n"
         "    plumb_node_fence fence, void *user, char *err, size_t err_len) {\n"
         "  std::lock_guard<std::mutex> lock(gRunMutex);\n"
         "  if (!hook || !fence)\n"
         "    return failText(err, err_len, \"a traced run needs a hook and a "
         "fence\");\n"
         "  char *const A = gTracedArena.get(kTracedArenaBytes);\n"
         "  if (!A)\n"
         "    return failText(err, err_len, \"cannot allocate the arena\");\n"
         "  return runTraced(A, (const char *)weights, inputs, outputs, hook, "
         "fence, user,\n"
         "                   err, err_len);\n"
         "}\n"
         "\n";
  s += "PLUMB_EXPORT int32_t plumb_model_run(const void *weights,\n"
       "                                     const plumb_tensor_view *inputs,\n"
       "                                     plumb_tensor_view *outputs,\n"
       "                                     plumb_node_hook hook, void *user,\n"
       "                                     char *err, size_t err_len) {\n"
       "  std::lock_guard<std::mutex> lock(gRunMutex);\n"
       "  const char *const W = (const char *)weights;\n";
  s += "  char *const A = gArena.get(kArenaBytes);\n"
       "  if (!A)\n"
       "    return failText(err, err_len, \"cannot allocate the arena\");\n"
       "  return runPlanned(A, W, inputs, outputs, hook, user, err, err_len);\n"
       "}\n";
  return s;
}

llvm::Expected<std::string> emitCppForModule(ModuleOp module,
                                             const ModelPlan &plan,
                                             const EmitHeader &header) {
  auto traced = planForTraces(module);
  if (!traced)
    return traced.takeError();
  return emitCpp(plan, header, *traced ? &**traced : nullptr);
}

} // namespace target
} // namespace plumb
