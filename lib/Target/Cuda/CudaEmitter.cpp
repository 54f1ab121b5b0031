//===- lib/Target/Cuda/CudaEmitter.cpp - CUDA code generation -------------===//
//
// Part of Plumb. See include/plumb/Target/Cuda/CudaEmitter.h.
//
// The device arena D and its host mirror H share the memory plan's offsets.
// A value lives on the device; its host mirror is valid only where the code
// made it so: graph inputs are staged through H (and canonicalised there),
// float32 weights with NaNs to canonicalise likewise, and a node run on the
// host downloads its arena operands into H first. Because the plan never
// lets two live buffers overlap, a host copy stays valid as long as its
// value lives. Transfers are synchronous, so the default stream orders
// everything, except an observed (traced) run's copies of node results,
// which a second stream takes off the device behind the run
// (plumb_cuda_observe, docs/trace.md).
//
//===----------------------------------------------------------------------===//
#include "plumb/Target/Cuda/CudaEmitter.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Target/Cpp/GeneratedCode.h"
#include "plumb/Target/Cpp/KernelCalls.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <set>

using namespace mlir;

namespace plumb {
namespace target {

namespace {

llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 msg.c_str());
}

/// Whether plumb_rt_<fn> has a CUDA twin (runtime kernels.def).
bool hasCudaTwin(llvm::StringRef fn) {
  static const llvm::StringMap<bool> twins = [] {
    llvm::StringMap<bool> m;
#define PLUMB_KERNEL(fn, cuda) m[#fn] = (cuda) != 0;
#include "plumb/runtime/kernels.def"
#undef PLUMB_KERNEL
    return m;
  }();
  auto it = twins.find(fn);
  return it != twins.end() && it->second;
}

/// The kernel calls of `op` when every one of them has a CUDA twin.
bool deviceLowering(Operation *op, KernelLowering &l) {
  std::string err;
  if (!lowerOpForEmit(op, l, err))
    return false;
  return llvm::all_of(l.calls,
                      [](const KernelCall &c) { return hasCudaTwin(c.fn); });
}

class CudaWriter {
public:
  CudaWriter(const ModelPlan &plan, const EmitHeader &header)
      : plan(plan), header(header) {}
  llvm::Expected<std::string> run();

  /// Whether the node runs on the device (a fused chain: all its ops do).
  bool onDeviceOp(Operation *op) {
    if (isa<IfOp>(op))
      return true;
    KernelLowering l;
    if (auto f = dyn_cast<FusedOp>(op))
      return llvm::all_of(f.getChain(), [&](Operation *i) {
        KernelLowering inner;
        return deviceLowering(i, inner);
      });
    return deviceLowering(op, l);
  }

private:
  std::string dev(Value v) const {
    const ValueInfo &info = plan.info(v);
    switch (info.storage.kind) {
    case StorageKind::Input:
      return "(D + " + std::to_string(plan.inputCanonicalSlot[info.storage.index]) +
             ")";
    case StorageKind::Weight: {
      int64_t e = info.storage.index;
      if (info.type == exec::ElemType::F32 && plan.weightCanonicalSlot[e] >= 0)
        return "(D + " + std::to_string(plan.weightCanonicalSlot[e]) + ")";
      return "(DW + " + std::to_string(plan.weights[e].offset) + ")";
    }
    case StorageKind::Arena:
    case StorageKind::Output:
      return "(D + " + std::to_string(info.storage.offset) + ")";
    }
    return "nullptr";
  }
  std::string host(Value v) const {
    const ValueInfo &info = plan.info(v);
    switch (info.storage.kind) {
    case StorageKind::Input:
      return "(H + " + std::to_string(plan.inputCanonicalSlot[info.storage.index]) +
             ")";
    case StorageKind::Weight: {
      int64_t e = info.storage.index;
      if (info.type == exec::ElemType::F32 && plan.weightCanonicalSlot[e] >= 0)
        return "(H + " + std::to_string(plan.weightCanonicalSlot[e]) + ")";
      return "(W + " + std::to_string(plan.weights[e].offset) + ")";
    }
    case StorageKind::Arena:
    case StorageKind::Output:
      return "(H + " + std::to_string(info.storage.offset) + ")";
    }
    return "nullptr";
  }
  bool inArena(Value v) const {
    return plan.info(v).storage.kind == StorageKind::Arena;
  }
  std::string cdev(const char *t, Value v) {
    return std::string("(const ") + t + " *)" + dev(v);
  }
  std::string mdev(const char *t, Value v) {
    return std::string("(") + t + " *)" + dev(v);
  }
  std::string check(int64_t node, const std::string &opName,
                    const std::string &what) {
    return "  if (rc != 0)\n    return fail(err, err_len, " +
           std::to_string(node) + ", \"" + opName + "\", \"" + what +
           "\", rc);\n";
  }
  std::string download(Value v, int64_t node, const std::string &opName) {
    return "  rc = plumb_cuda_download((void *)" + host(v) + ", " + dev(v) +
           ", " + std::to_string(plan.info(v).bytes) + ");\n" +
           check(node, opName, "download");
  }
  std::string upload(Value v, int64_t node, const std::string &opName) {
    return "  rc = plumb_cuda_upload((void *)" + dev(v) + ", " + host(v) +
           ", " + std::to_string(plan.info(v).bytes) + ");\n" +
           check(node, opName, "upload");
  }

  bool emitOp(Operation *op, int64_t node, std::string &out, std::string &err);
  bool emitIf(IfOp op, int64_t node, std::string &out, std::string &err);
  /// Every node: its kernel calls (device or host), then the hand-over of
  /// its results to an observer or a hook.
  llvm::Error emitNodes(std::string &body, int64_t &onDevice, int64_t &onHost,
                        uint64_t &observeBytes);
  std::string emitPrologue();
  std::string emitOutputs();

  const ModelPlan &plan;
  const EmitHeader &header;
  LiteralPool pool;
};

bool CudaWriter::emitIf(IfOp op, int64_t node, std::string &out,
                        std::string &err) {
  std::string opName = "plumb.if";
  Value cond = op.getCond();
  out += "  {\n    uint8_t cond = 0;\n";
  out += "    rc = plumb_cuda_download(&cond, " + dev(cond) + ", 1);\n";
  out += indent(check(node, opName, "download"), 2);
  out += "    taken = cond != 0;\n  }\n";
  out += "  if (taken) {\n";
  for (int branch = 0; branch < 2; ++branch) {
    Region &r = branch == 0 ? op.getThenRegion() : op.getElseRegion();
    std::string body;
    for (Operation &inner : r.front()) {
      if (isa<ConstantOp>(inner))
        continue;
      if (auto y = dyn_cast<YieldOp>(inner)) {
        // Device to device through the result's host mirror.
        for (auto [i, v] : llvm::enumerate(y.getOperands())) {
          Value res = op->getResult(i);
          std::string bytes = std::to_string(plan.info(v).bytes);
          if (inArena(v))
            body += "  rc = plumb_cuda_download((void *)" + host(res) + ", " +
                    dev(v) + ", " + bytes + ");\n" +
                    check(node, opName, "download") +
                    "  rc = plumb_cuda_upload((void *)" + dev(res) + ", " +
                    host(res) + ", " + bytes + ");\n" +
                    check(node, opName, "upload");
          else
            body += "  rc = plumb_cuda_upload((void *)" + dev(res) + ", " +
                    host(v) + ", " + bytes + ");\n" +
                    check(node, opName, "upload");
        }
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

bool CudaWriter::emitOp(Operation *op, int64_t node, std::string &out,
                        std::string &err) {
  if (auto i = dyn_cast<IfOp>(op))
    return emitIf(i, node, out, err);
  if (auto f = dyn_cast<FusedOp>(op)) {
    // The chain op by op, in the buffers the plan shares with the result.
    for (Operation *inner : f.getChain())
      if (!emitOp(inner, node, out, err))
        return false;
    return true;
  }
  std::string opName = op->getName().getStringRef().str();
  KernelLowering calls;
  if (deviceLowering(op, calls)) {
    KernelCallContext ctx{plan, pool, [this](Value v) { return dev(v); }, "D",
                          nullptr};
    ctx.prefix = "plumb_cuda_";
    ctx.trailingArgs = ", 0";
    ctx.onError = [&](const std::string &what, bool) {
      return "return fail(err, err_len, " + std::to_string(node) + ", \"" +
             opName + "\", \"" + what + " device kernel\", rc);";
    };
    return emitKernelCalls(ctx, op, calls, out, err);
  }
  // On the host: operands down, kernel, results up.
  std::set<std::string> seen;
  for (Value v : op->getOperands())
    if (inArena(v) && seen.insert(dev(v)).second)
      out += download(v, node, opName);
  KernelCallContext ctx{plan, pool, [this](Value v) { return host(v); }, "H",
                        nullptr};
  ctx.onError = [&](const std::string &what, bool rangeCheck) {
    std::string msg = rangeCheck
                          ? "rc == PLUMB_RT_ERANGE ? \"" + what +
                                " index out of range\" : \"" + what + " kernel\""
                          : "\"" + what + " kernel\"";
    return "return fail(err, err_len, " + std::to_string(node) + ", \"" +
           opName + "\", " + msg + ", rc);";
  };
  if (!emitHostKernelCall(ctx, op, out, err))
    return false;
  for (Value r : op->getResults())
    if (!plan.info(r).aliased)
      out += upload(r, node, opName);
  return true;
}

llvm::Error CudaWriter::emitNodes(std::string &body, int64_t &onDevice,
                                  int64_t &onHost, uint64_t &observeBytes) {
  for (auto [k, op] : llvm::enumerate(plan.nodes)) {
    std::string opName = op->getName().getStringRef().str();
    bool device = onDeviceOp(op);
    (device ? onDevice : onHost)++;
    body += "\n  // node " + std::to_string(k) + ": " + opName + " -> ";
    for (auto [i, r] : llvm::enumerate(op->getResults()))
      body += (i ? ", " : "") + shapeText(plan.info(r).shape, plan.info(r).type);
    body += device ? "\n" : " (host kernel)\n";
    std::string err;
    if (!emitOp(op, (int64_t)k, body, err))
      return fail("node " + std::to_string(k) + " (" + opName + "): " + err);
    if (op->getNumResults()) {
      std::string seen = "{\n  const plumb_cuda_observed o[] = {";
      std::string views = "  const plumb_tensor_view v[] = {";
      for (auto [i, r] : llvm::enumerate(op->getResults())) {
        const ValueInfo &info = plan.info(r);
        seen += std::string(i ? ", " : "") + "{" + dev(r) + ", " +
                std::to_string(observeBytes) + ", " +
                std::to_string(info.bytes) + "}";
        views += std::string(i ? ", " : "") + "{" +
                 std::to_string((int)info.type) + ", " +
                 std::to_string(info.shape.size()) + ", " +
                 pool.i64(info.shape) + ", nullptr}";
        observeBytes += (info.bytes + 255) / 256 * 256;
      }
      seen += "};\n" + views + "};\n  rc = plumb_cuda_observe(obs, " +
              std::to_string(k) + ", " + std::to_string(op->getNumResults()) +
              ", o, v, hook, user);\n" + check((int64_t)k, opName, "observe") +
              "}\n";
      body += "  if (obs) {\n" + indent(seen, 2) + "  } else if (hook) {\n";
      std::string inner;
      for (Value r : op->getResults())
        inner += download(r, (int64_t)k, opName);
      inner += "{\n  const plumb_tensor_view r[] = {";
      for (auto [i, r] : llvm::enumerate(op->getResults())) {
        const ValueInfo &info = plan.info(r);
        inner += (i ? ", " : "") + std::string("{") +
                 std::to_string((int)info.type) + ", " +
                 std::to_string(info.shape.size()) + ", " +
                 pool.i64(info.shape) + ", (void *)" + host(r) + "}";
      }
      inner += "};\n  hook(user, " + std::to_string(k) + ", " +
               std::to_string(op->getNumResults()) + ", r);\n}\n";
      for (Value r : op->getResults())
        inner += upload(r, (int64_t)k, opName);
      body += indent(inner, 2) + "  }\n";
    }
  }
  return llvm::Error::success();
}

/// Interface checks, and the inputs and canonicalised weights staged in H
/// and uploaded.
std::string CudaWriter::emitPrologue() {
  Block &entry = func::FuncOp(plan.main).getBody().front();
  std::string prologue = interfaceChecks(plan, pool);
  // Inputs: staged and canonicalised in H, then uploaded.
  for (BlockArgument a : entry.getArguments()) {
    int64_t slot = plan.inputCanonicalSlot[a.getArgNumber()];
    if (slot < 0)
      continue;
    const ValueInfo &info = plan.info(a);
    std::string i = std::to_string(a.getArgNumber());
    std::string bytes = std::to_string(info.bytes);
    std::string h = "(H + " + std::to_string(slot) + ")";
    prologue += "  memcpy(" + h + ", inputs[" + i + "].data, " + bytes + ");\n";
    if (info.type == exec::ElemType::F32)
      prologue += "  if (hasNonCanonicalNaN((const float *)" + h + ", " +
                  std::to_string(info.bytes / 4) +
                  "))\n    plumb_rt_canonicalize_nan_f32((const float *)" + h +
                  ", (float *)" + h + ", " + std::to_string(info.bytes / 4) +
                  ");\n";
    prologue += "  rc = plumb_cuda_upload(D + " + std::to_string(slot) + ", " +
                h + ", " + bytes + ");\n";
    prologue += "  if (rc != 0)\n    return failText(err, err_len, \"cannot "
                "upload input " +
                i + "\");\n";
  }
  for (auto [e, w] : llvm::enumerate(plan.weights)) {
    int64_t slot = plan.weightCanonicalSlot[e];
    if (slot < 0)
      continue;
    prologue += "  plumb_rt_canonicalize_nan_f32((const float *)(W + " +
                std::to_string(w.offset) + "), (float *)(H + " +
                std::to_string(slot) + "), " + std::to_string(w.bytes / 4) +
                ");\n";
    prologue += "  rc = plumb_cuda_upload(D + " + std::to_string(slot) +
                ", H + " + std::to_string(slot) + ", " +
                std::to_string(w.bytes) + ");\n";
    prologue += "  if (rc != 0)\n    return failText(err, err_len, \"cannot "
                "upload weights\");\n";
  }

  return prologue;
}

/// The outputs: downloaded, or copied from an input or a weight.
std::string CudaWriter::emitOutputs() {
  auto ret = cast<func::ReturnOp>(func::FuncOp(plan.main).getBody().front().getTerminator());
  std::string epilogue;
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    const ValueInfo &info = plan.info(v);
    std::string o = "outputs[" + std::to_string(i) + "].data";
    std::string bytes = std::to_string(info.bytes);
    if (info.storage.kind == StorageKind::Input)
      epilogue += "  memcpy(" + o + ", inputs[" +
                  std::to_string(info.storage.index) + "].data, " + bytes +
                  ");\n";
    else if (info.storage.kind == StorageKind::Weight)
      epilogue += "  memcpy(" + o + ", W + " +
                  std::to_string(plan.weights[info.storage.index].offset) +
                  ", " + bytes + ");\n";
    else
      epilogue += "  rc = plumb_cuda_download(" + o + ", " + dev(v) + ", " +
                  bytes + ");\n  if (rc != 0)\n    return failText(err, "
                  "err_len, \"cannot download output " +
                  std::to_string(i) + "\");\n";
  }

  return epilogue;
}

llvm::Expected<std::string> CudaWriter::run() {
  func::FuncOp main = plan.main;
  std::string body;
  int64_t onDevice = 0, onHost = 0;
  // Observed runs: every node result's place in the observer's areas.
  uint64_t observeBytes = 0;
  if (auto err = emitNodes(body, onDevice, onHost, observeBytes))
    return std::move(err);
  std::string prologue = emitPrologue();
  std::string epilogue = emitOutputs();

  std::string s = generatedBanner(
      "model.cu", "Plumb compiled model for CUDA", header,
      "// Compile with nvcc --fmad=false -ftz=false -prec-div=true "
      "-prec-sqrt=true.\n//\n// " +
          std::to_string(plan.nodes.size()) + " nodes (" +
          std::to_string(onDevice) + " on the device, " +
          std::to_string(onHost) + " on host kernels); device arena " +
          std::to_string(plan.arenaBytes) + " bytes.\n");
  s += generatedPrelude("#include \"plumb_cuda.h\"\n", header, plan);
  s += "constexpr size_t kWeightsBytes = " + std::to_string(plan.weightsBytes) +
       ";\n";
  s += "// Observed runs: the copies of every node's results.\n"
       "constexpr size_t kObserveBytes = " +
       std::to_string(observeBytes) + ";\n"
       "constexpr int64_t kNodes = " +
       std::to_string(plan.nodes.size()) + ";\n";
  s += "\n// Shapes and attribute arrays.\n";
  s += pool.text();
  s += "\n";
  s += generatedHelpers();
  s += "\n"
       "// Device arena, its host mirror and the device copy of the weights,\n"
       "// kept across runs (runs are serialised).\n"
       "std::mutex gRunMutex;\n"
       "struct State {\n"
       "  char *D = nullptr, *H = nullptr, *DW = nullptr;\n"
       "  const void *weightsFrom = nullptr;\n"
       "  plumb_cuda_observer *obs = nullptr;\n"
       "  bool noObserver = false;\n"
       "  ~State() {\n"
       "    if (obs)\n"
       "      plumb_cuda_observer_destroy(obs);\n"
       "    if (D)\n"
       "      plumb_cuda_free(D);\n"
       "    if (DW)\n"
       "      plumb_cuda_free(DW);\n"
       "    free(H);\n"
       "  }\n"
       "} gState;\n"
       "\n";
  s += generatedIdentityExports();
  s += "\n"
       "PLUMB_EXPORT void plumb_model_set_threads(int32_t n) {\n"
       "  std::lock_guard<std::mutex> lock(gRunMutex);\n"
       "  plumb_rt_set_threads(n); // host kernels only\n"
       "}\n"
       "\n"
       "// Waits for an observed run's hook calls on every way out of a run.\n"
       "struct ObserverWait {\n"
       "  plumb_cuda_observer *obs;\n"
       "  ~ObserverWait() {\n"
       "    if (obs)\n"
       "      plumb_cuda_observer_wait(obs);\n"
       "  }\n"
       "};\n"
       "\n"
       "static int32_t runModel(const void *weights,\n"
       "                        const plumb_tensor_view *inputs,\n"
       "                        plumb_tensor_view *outputs, plumb_node_hook hook,\n"
       "                        void *user, bool observe, char *err,\n"
       "                        size_t err_len) {\n"
       "  std::lock_guard<std::mutex> lock(gRunMutex);\n"
       "  if (plumb_cuda_device_count() < 1)\n"
       "    return failText(err, err_len, \"no CUDA device\");\n"
       "  if (!gState.D) {\n"
       "    if (plumb_cuda_alloc((void **)&gState.D, kArenaBytes) != 0)\n"
       "      return failText(err, err_len, \"cannot allocate the device arena\");\n"
       "    if (!(gState.H = (char *)aligned_alloc(64, kArenaBytes)))\n"
       "      return failText(err, err_len, \"cannot allocate the host mirror\");\n"
       "  }\n"
       "  if (gState.weightsFrom != weights) {\n"
       "    if (!gState.DW &&\n"
       "        plumb_cuda_alloc((void **)&gState.DW, kWeightsBytes + 64) != 0)\n"
       "      return failText(err, err_len, \"cannot allocate device weights\");\n"
       "    if (kWeightsBytes &&\n"
       "        plumb_cuda_upload(gState.DW, weights, kWeightsBytes) != 0)\n"
       "      return failText(err, err_len, \"cannot upload the weights\");\n"
       "    gState.weightsFrom = weights;\n"
       "  }\n"
       "  // Without room for the observer's copies, the hook gets downloads.\n"
       "  if (observe && hook && !gState.obs && !gState.noObserver &&\n"
       "      plumb_cuda_observer_create(&gState.obs, kObserveBytes, kNodes) != 0)\n"
       "    gState.noObserver = true;\n"
       "  plumb_cuda_observer *const obs = observe && hook ? gState.obs : nullptr;\n"
       "  ObserverWait observed{obs};\n"
       "  char *const D = gState.D;\n"
       "  char *const H = gState.H;\n"
       "  const char *const DW = gState.DW;\n"
       "  const char *const W = (const char *)weights;\n"
       "  (void)D;\n"
       "  (void)H;\n"
       "  (void)DW;\n"
       "  (void)W;\n"
       "  int rc = 0;\n"
       "  (void)rc;\n";
  bool hasIf = false;
  main.walk([&](IfOp) { hasIf = true; });
  if (hasIf)
    s += "  bool taken = false;\n";
  s += prologue;
  s += body;
  s += "\n  if (obs) {\n"
       "    observed.obs = nullptr;\n"
       "    if (plumb_cuda_observer_wait(obs) != 0)\n"
       "      return failText(err, err_len, \"cannot copy the results off the \"\n"
       "                      \"device\");\n"
       "  }\n";
  s += "\n  // Outputs.\n" + epilogue;
  s += "  return 0;\n}\n";
  s += "\n"
       "PLUMB_EXPORT int32_t plumb_model_run(const void *weights,\n"
       "                                     const plumb_tensor_view *inputs,\n"
       "                                     plumb_tensor_view *outputs,\n"
       "                                     plumb_node_hook hook, void *user,\n"
       "                                     char *err, size_t err_len) {\n"
       "  return runModel(weights, inputs, outputs, hook, user, false, err,\n"
       "                  err_len);\n"
       "}\n"
       "\n"
       "// The hook sees copies, behind the run (model_abi.h).\n"
       "PLUMB_EXPORT int32_t plumb_model_run_observed(\n"
       "    const void *weights, const plumb_tensor_view *inputs,\n"
       "    plumb_tensor_view *outputs, plumb_node_hook hook, void *user, char *err,\n"
       "    size_t err_len) {\n"
       "  return runModel(weights, inputs, outputs, hook, user, true, err,\n"
       "                  err_len);\n"
       "}\n";
  return s;
}

} // namespace

bool hasDeviceKernel(Operation *op, const ModelPlan &plan) {
  EmitHeader h;
  CudaWriter w(plan, h);
  return w.onDeviceOp(op);
}

llvm::Expected<std::string> emitCuda(const ModelPlan &plan,
                                     const EmitHeader &header) {
  CudaWriter w(plan, header);
  return w.run();
}

} // namespace target
} // namespace plumb
