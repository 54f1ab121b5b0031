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
#include "plumb/runtime/conv.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <set>

using namespace mlir;

namespace plumb {
namespace target {

namespace {

llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 msg.c_str());
}

std::string str(int64_t v) {
  return v == INT64_MIN ? std::string("INT64_MIN") : std::to_string(v);
}

int64_t numel(const ValueInfo &v) {
  int64_t n = 1;
  for (int64_t d : v.shape)
    n *= d;
  return n;
}

bool isF32(const ModelPlan &plan, Value v) {
  return plan.info(v).type == exec::ElemType::F32;
}

/// The binary ops with a device kernel (the others run on the host).
const char *binaryCodeOf(Operation *op) {
  if (!isa<AddOp, SubOp, MulOp, DivOp, PowOp, EqualOp, LessOp, LessOrEqualOp,
           GreaterOp, GreaterOrEqualOp>(op))
    return nullptr;
  return binaryOpCode(op);
}

/// MatMul as one batched device call: the batch offsets plumb_rt_matmul
/// walks must form arithmetic sequences (always true without broadcasting
/// of more than one batch dimension).
struct MatMulShape {
  int64_t batch = 1, M = 0, N = 0, K = 0, aStride = 0, bStride = 0;
};

bool matmulAsBatched(const ValueInfo &a, const ValueInfo &b, MatMulShape &s) {
  int ar = (int)a.shape.size(), br = (int)b.shape.size();
  if (ar < 1 || br < 1)
    return false;
  bool aVec = ar == 1, bVec = br == 1;
  s.M = aVec ? 1 : a.shape[ar - 2];
  s.K = a.shape[ar - 1];
  s.N = bVec ? 1 : b.shape[br - 1];
  int aB = aVec ? 0 : ar - 2, bB = bVec ? 0 : br - 2;
  int rank = std::max(aB, bB);
  std::vector<int64_t> outBatch(rank), aStr(rank, 0), bStr(rank, 0);
  int64_t as = s.M * s.K, bs = s.K * s.N;
  for (int d = rank - 1; d >= 0; --d) {
    int ai = d - (rank - aB), bi = d - (rank - bB);
    int64_t ad = ai >= 0 ? a.shape[ai] : 1, bd = bi >= 0 ? b.shape[bi] : 1;
    if (ad != bd && ad != 1 && bd != 1)
      return false;
    outBatch[d] = (ad == 0 || bd == 0) ? 0 : std::max(ad, bd);
    aStr[d] = ad == 1 ? 0 : as;
    bStr[d] = bd == 1 ? 0 : bs;
    as *= ad;
    bs *= bd;
  }
  s.batch = 1;
  for (int64_t d : outBatch)
    s.batch *= d;
  std::vector<int64_t> aOff, bOff;
  for (int64_t i = 0; i < s.batch; ++i) {
    int64_t rem = i, ao = 0, bo = 0;
    for (int d = rank - 1; d >= 0; --d) {
      int64_t idx = rem % outBatch[d];
      rem /= outBatch[d];
      ao += idx * aStr[d];
      bo += idx * bStr[d];
    }
    aOff.push_back(ao);
    bOff.push_back(bo);
  }
  s.aStride = s.batch > 1 ? aOff[1] : 0;
  s.bStride = s.batch > 1 ? bOff[1] : 0;
  for (int64_t i = 0; i < s.batch; ++i)
    if (aOff[i] != i * s.aStride || bOff[i] != i * s.bStride)
      return false;
  return true;
}

class CudaWriter {
public:
  CudaWriter(const ModelPlan &plan, const EmitHeader &header)
      : plan(plan), header(header) {}
  llvm::Expected<std::string> run();

  /// The device statement of `op`, or "" when it has no device kernel.
  std::string deviceCall(Operation *op);
  /// Whether the node runs on the device (a fused chain: all its ops do).
  bool onDeviceOp(Operation *op) {
    if (isa<IfOp>(op))
      return true;
    if (auto f = dyn_cast<FusedOp>(op))
      return llvm::all_of(f.getChain(),
                          [&](Operation *i) { return !deviceCall(i).empty(); });
    return !deviceCall(op).empty();
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

  const ModelPlan &plan;
  const EmitHeader &header;
  LiteralPool pool;
};

std::string CudaWriter::deviceCall(Operation *op) {
  auto in = [&](unsigned i) -> const ValueInfo & {
    return plan.info(op->getOperand(i));
  };
  auto res = [&](unsigned i) -> const ValueInfo & {
    return plan.info(op->getResult(i));
  };
  auto inF = [&](unsigned i) { return cdev("float", op->getOperand(i)); };
  auto outF = [&](unsigned i) { return mdev("float", op->getResult(i)); };
  auto shape = [&](const ValueInfo &v) { return pool.i64(v.shape); };
  auto rank = [](const ValueInfo &v) { return std::to_string(v.shape.size()); };
  auto f = [](float x) { return floatLiteral(x); };
  std::string block = str(exec::treeBlockOf(op));

  if (const char *code = unaryOpCode(op)) {
    if (!isF32(plan, op->getOperand(0)))
      return "";
    float alpha = 0.0f, beta = 0.0f;
    if (auto h = dyn_cast<HardSigmoidOp>(op))
      alpha = h.getAlpha().convertToFloat(), beta = h.getBeta().convertToFloat();
    else if (auto l = dyn_cast<LeakyReluOp>(op))
      alpha = l.getAlpha().convertToFloat();
    else if (auto c = dyn_cast<ClipOp>(op))
      alpha = c.getMin().convertToFloat(), beta = c.getMax().convertToFloat();
    return std::string("plumb_cuda_unary_f32(") + code + ", " + inF(0) + ", " +
           outF(0) + ", " + str(numel(in(0))) + ", " + f(alpha) + ", " +
           f(beta) + ", 0)";
  }
  if (const char *code = binaryCodeOf(op)) {
    if (!isF32(plan, op->getOperand(0)))
      return "";
    return std::string("plumb_cuda_binary_f32(") + code + ", " + inF(0) + ", " +
           shape(in(0)) + ", " + rank(in(0)) + ", " + inF(1) + ", " +
           shape(in(1)) + ", " + rank(in(1)) + ", (void *)" +
           dev(op->getResult(0)) + ", " + shape(res(0)) + ", " + rank(res(0)) +
           ", 0)";
  }
  if (isa<SumOp, MaxOp, MinOp>(op) && isF32(plan, op->getResult(0)) &&
      op->getNumOperands() <= 2 && op->getNumOperands() >= 1) {
    // plumb_rt_variadic_f32 of one operand is canon(x) (the identity
    // kernel); of two, canon(op(a, b)) per element with the same scalar
    // functions as the binary kernel.
    if (op->getNumOperands() == 1)
      return "plumb_cuda_unary_f32(PLUMB_RT_IDENTITY, " + inF(0) + ", " +
             outF(0) + ", " + str(numel(in(0))) + ", " + f(0.0f) + ", " +
             f(0.0f) + ", 0)";
    const char *code = isa<SumOp>(op)   ? "PLUMB_RT_ADD"
                       : isa<MaxOp>(op) ? "PLUMB_RT_MAX"
                                        : "PLUMB_RT_MIN";
    return std::string("plumb_cuda_binary_f32(") + code + ", " + inF(0) +
           ", " + shape(in(0)) + ", " + rank(in(0)) + ", " + inF(1) + ", " +
           shape(in(1)) + ", " + rank(in(1)) + ", (void *)" +
           dev(op->getResult(0)) + ", " + shape(res(0)) + ", " +
           rank(res(0)) + ", 0)";
  }
  if (isa<CastOp>(op)) {
    if (!isF32(plan, op->getOperand(0)))
      return "";
    return "plumb_cuda_cast_f32(" + inF(0) + ", (void *)" +
           dev(op->getResult(0)) + ", " +
           std::to_string((int)res(0).type) + ", " + str(numel(in(0))) +
           ", 0)";
  }
  if (isa<ReshapeOp>(op)) {
    // The interpreter copies and canonicalises NaNs: the identity kernel.
    if (res(0).aliased)
      return "0";
    if (!isF32(plan, op->getOperand(0)))
      return "";
    return "plumb_cuda_unary_f32(PLUMB_RT_IDENTITY, " + inF(0) + ", " +
           outF(0) + ", " + str(numel(in(0))) + ", " + f(0.0f) + ", " +
           f(0.0f) + ", 0)";
  }
  if (isa<MatMulOp>(op)) {
    MatMulShape s;
    if (!matmulAsBatched(in(0), in(1), s))
      return "";
    return "plumb_cuda_matmul_batched(" + str(s.batch) + ", " + str(s.M) +
           ", " + str(s.N) + ", " + str(s.K) + ", " + inF(0) + ", " +
           str(s.aStride) + ", " + inF(1) + ", " + str(s.bStride) + ", " +
           outF(0) + ", " + block + ", 0)";
  }
  if (auto g = dyn_cast<GemmOp>(op)) {
    // plumb_rt_gemm's strides (runtime/src/gemm.cpp), fixed here.
    const ValueInfo &a = in(0), &y = res(0);
    int64_t M = y.shape[0], N = y.shape[1];
    int64_t K = g.getTransA() ? a.shape[0] : a.shape[1];
    int64_t a_rs = g.getTransA() ? 1 : K, a_cs = g.getTransA() ? M : 1;
    int64_t b_rs = g.getTransB() ? 1 : N, b_cs = g.getTransB() ? K : 1;
    int64_t c_rs = 0, c_cs = 0;
    std::string c = "nullptr";
    if (op->getNumOperands() > 2) {
      const ValueInfo &cv = in(2);
      int64_t cr = (int64_t)cv.shape.size(), d0 = 1, d1 = 1;
      if (cr >= 2)
        d0 = cv.shape[cr - 2], d1 = cv.shape[cr - 1];
      else if (cr == 1)
        d1 = cv.shape[0];
      c_cs = d1 == 1 ? 0 : 1;
      c_rs = d0 == 1 ? 0 : d1;
      c = inF(2);
    }
    return "plumb_cuda_gemm_strided(" + str(M) + ", " + str(N) + ", " + str(K) +
           ", " + f(g.getAlpha().convertToFloat()) + ", " + inF(0) + ", " +
           str(a_rs) + ", " + str(a_cs) + ", " + inF(1) + ", " + str(b_rs) +
           ", " + str(b_cs) + ", " + f(g.getBeta().convertToFloat()) + ", " +
           c + ", " + str(c_rs) + ", " + str(c_cs) + ", " + outF(0) + ", " +
           str(N) + ", " + block + ", 0)";
  }
  if (isa<ConvOp, ConvTransposeOp>(op)) {
    bool tr = isa<ConvTransposeOp>(op);
    const ValueInfo &x = in(0), &w = in(1), &y = res(0);
    std::string bias = op->getNumOperands() > 2 ? inF(2) : "nullptr";
    ArrayRef<int64_t> s, p, d;
    int64_t group;
    if (auto c = dyn_cast<ConvOp>(op))
      s = c.getStrides(), p = c.getPads(), d = c.getDilations(),
      group = c.getGroup();
    else {
      auto t = cast<ConvTransposeOp>(op);
      s = t.getStrides(), p = t.getPads(), d = t.getDilations(),
      group = t.getGroup();
    }
    if (x.shape.size() == 3) {
      if (!tr)
        return "plumb_cuda_conv1d(" + str(x.shape[0]) + ", " + str(x.shape[1]) +
               ", " + str(x.shape[2]) + ", " + str(w.shape[0]) + ", " +
               str(w.shape[2]) + ", " + str(group) + ", " + str(s[0]) + ", " +
               str(d[0]) + ", " + str(p[0]) + ", " + str(p[1]) + ", " + inF(0) +
               ", " + inF(1) + ", " + bias + ", " + outF(0) + ", " + block +
               ", 0)";
      return "plumb_cuda_conv_transpose1d(" + str(x.shape[0]) + ", " +
             str(x.shape[1]) + ", " + str(x.shape[2]) + ", " + str(y.shape[1]) +
             ", " + str(w.shape[2]) + ", " + str(y.shape[2]) + ", " +
             str(group) + ", " + str(s[0]) + ", " + str(d[0]) + ", " +
             str(p[0]) + ", " + str(p[1]) + ", " + inF(0) + ", " + inF(1) +
             ", " + bias + ", " + outF(0) + ", " + block + ", 0)";
    }
    if (x.shape.size() > 4) {
      // Three or more spatial dims: the N-d twins (same term order as host).
      const size_t sd = x.shape.size() - 2;
      if (sd > PLUMB_CONV_MAX_SPATIAL)
        return "";
      std::string params = pool.object(
          "plumb_convnd_params",
          convNdParamsInit(x.shape, w.shape, y.shape, group, s, d, p));
      return std::string(tr ? "plumb_cuda_conv_transpose_nd"
                            : "plumb_cuda_conv_nd") +
             "(&" + params + ", " + inF(0) + ", " +
             inF(1) + ", " + bias + ", " + outF(0) + ", " + block + ", 0)";
    }
    if (x.shape.size() != 4)
      return "";
    std::string prm = "plumb_conv2d_params{" + str(x.shape[0]) + ", " +
                      str(x.shape[1]) + ", " + str(x.shape[2]) + ", " +
                      str(x.shape[3]) + ", " + str(tr ? y.shape[1] : w.shape[0]) +
                      ", " + str(w.shape[2]) + ", " + str(w.shape[3]) + ", " +
                      str(y.shape[2]) + ", " + str(y.shape[3]) + ", " +
                      str(group) + ", " + str(s[0]) + ", " + str(s[1]) + ", " +
                      str(d[0]) + ", " + str(d[1]) + ", " + str(p[0]) + ", " +
                      str(p[1]) + ", " + str(p[2]) + ", " + str(p[3]) + "}";
    std::string params = pool.object(
        "plumb_conv2d_params",
        prm.substr(std::string("plumb_conv2d_params{").size(),
                   prm.size() - std::string("plumb_conv2d_params{").size() - 1));
    return std::string(tr ? "plumb_cuda_conv_transpose2d" : "plumb_cuda_conv2d") +
           "(&" + params + ", " + inF(0) + ", " +
           inF(1) + ", " + bias + ", " + outF(0) + ", " + block + ", 0)";
  }
  if (auto mp = dyn_cast<MaxPoolOp>(op))
    if (!mp.getIndices().empty())
      return ""; // with Indices: the host kernel
  if (isa<MaxPoolOp, AveragePoolOp>(op)) {
    const ValueInfo &x = in(0), &y = res(0);
    int32_t sd = (int32_t)x.shape.size() - 2;
    std::vector<int64_t> inSp(x.shape.begin() + 2, x.shape.end());
    std::vector<int64_t> outSp(y.shape.begin() + 2, y.shape.end());
    std::string head = inF(0) + ", " + str(x.shape[0]) + ", " +
                       str(x.shape[1]) + ", " + std::to_string(sd) + ", " +
                       pool.i64(inSp) + ", " + pool.i64(outSp) + ", ";
    if (auto mp = dyn_cast<MaxPoolOp>(op))
      return "plumb_cuda_maxpool_f32(" + head + pool.i64(mp.getKernelShape()) +
             ", " + pool.i64(mp.getStrides()) + ", " + pool.i64(mp.getPads()) +
             ", " + pool.i64(mp.getDilations()) + ", " + outF(0) +
             ", nullptr, 0)";
    auto ap = cast<AveragePoolOp>(op);
    return "plumb_cuda_avgpool_f32(" + head + pool.i64(ap.getKernelShape()) +
           ", " + pool.i64(ap.getStrides()) + ", " + pool.i64(ap.getPads()) +
           ", " +
           (ap.getDilations() ? pool.i64(*ap.getDilations())
                              : std::string("nullptr")) +
           ", " + std::to_string((int)ap.getCountIncludePad()) + ", " +
           outF(0) + ", 0)";
  }
  if (isa<GlobalAveragePoolOp, GlobalMaxPoolOp>(op)) {
    const ValueInfo &x = in(0);
    int64_t nc = x.shape[0] * x.shape[1];
    int64_t sp = nc ? numel(x) / nc : 0;
    return "plumb_cuda_global_pool_f32(" + inF(0) + ", " + str(nc) + ", " +
           str(sp) + ", " + std::to_string((int)isa<GlobalMaxPoolOp>(op)) +
           ", " + outF(0) + ", " + block + ", 0)";
  }
  if (auto bn = dyn_cast<BatchNormOp>(op)) {
    const ValueInfo &x = in(0);
    int64_t n = x.shape[0], c = x.shape[1];
    int64_t sp = n * c != 0 ? numel(x) / (n * c) : 0;
    return "plumb_cuda_batchnorm_f32(" + inF(0) + ", " + str(n) + ", " +
           str(c) + ", " + str(sp) + ", " + inF(1) + ", " + inF(2) + ", " +
           inF(3) + ", " + inF(4) + ", " + f(bn.getEpsilon().convertToFloat()) +
           ", " + outF(0) + ", 0)";
  }
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    if (!scratchBytesOf(op).empty())
      return ""; // scale or bias needs broadcasting: host
    const ValueInfo &x = in(0);
    int64_t d = 1;
    for (size_t i = ln.getAxis(); i < x.shape.size(); ++i)
      d *= x.shape[i];
    int64_t outer = d ? numel(x) / d : 0;
    return "plumb_cuda_layernorm_f32(" + inF(0) + ", " + str(outer) + ", " +
           str(d) + ", " + inF(1) + ", " +
           (op->getNumOperands() > 2 ? inF(2) : std::string("nullptr")) + ", " +
           f(ln.getEpsilon().convertToFloat()) + ", " + outF(0) + ", " +
           (ln.getStats().empty() ? std::string("nullptr, nullptr")
                                  : outF(1) + ", " + outF(2)) +
           ", " + block + ", 0)";
  }
  if (isa<SoftmaxOp, LogSoftmaxOp>(op)) {
    int64_t axis = isa<SoftmaxOp>(op) ? cast<SoftmaxOp>(op).getAxis()
                                      : cast<LogSoftmaxOp>(op).getAxis();
    const ValueInfo &x = in(0);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < axis; ++i)
      outer *= x.shape[i];
    for (size_t i = axis + 1; i < x.shape.size(); ++i)
      inner *= x.shape[i];
    int64_t len = x.shape.empty() ? 1 : x.shape[axis];
    return "plumb_cuda_softmax_f32(" + inF(0) + ", " + outF(0) + ", " +
           str(outer) + ", " + str(len) + ", " + str(inner) + ", " +
           std::to_string((int)isa<LogSoftmaxOp>(op)) + ", " + block + ", 0)";
  }
  const char *rcode =
      llvm::TypeSwitch<Operation *, const char *>(op)
          .Case<ReduceSumOp>([](auto) { return "PLUMB_RT_REDUCE_SUM"; })
          .Case<ReduceMeanOp>([](auto) { return "PLUMB_RT_REDUCE_MEAN"; })
          .Case<ReduceProdOp>([](auto) { return "PLUMB_RT_REDUCE_PROD"; })
          .Case<ReduceMaxOp>([](auto) { return "PLUMB_RT_REDUCE_MAX"; })
          .Case<ReduceMinOp>([](auto) { return "PLUMB_RT_REDUCE_MIN"; })
          .Default([](Operation *) { return (const char *)nullptr; });
  if (rcode) {
    if (!isF32(plan, op->getOperand(0)))
      return "";
    ArrayRef<int64_t> axes =
        llvm::TypeSwitch<Operation *, ArrayRef<int64_t>>(op)
            .Case<ReduceSumOp, ReduceMeanOp, ReduceProdOp, ReduceMaxOp,
                  ReduceMinOp>([](auto r) { return r.getAxes(); })
            .Default([](Operation *) { return ArrayRef<int64_t>(); });
    return std::string("plumb_cuda_reduce_f32(") + rcode + ", " + inF(0) +
           ", " + shape(in(0)) + ", " + rank(in(0)) + ", " + pool.i64(axes) +
           ", " + std::to_string(axes.size()) + ", " + outF(0) + ", " + block +
           ", 0)";
  }
  if (auto am = dyn_cast<ArgMaxOp>(op)) {
    if (!isF32(plan, op->getOperand(0)))
      return "";
    return "plumb_cuda_argmax_f32(" + inF(0) + ", " + shape(in(0)) + ", " +
           rank(in(0)) + ", " + str(am.getAxis()) + ", 0, " +
           std::to_string((int)am.getSelectLastIndex()) + ", " +
           mdev("int64_t", op->getResult(0)) + ", 0)";
  }
  if (auto r = dyn_cast<ResizeOp>(op)) {
    ResizeCodes codes = resizeCodes(r);
    const char *mode = codes.mode, *coord = codes.coord,
               *nearest = codes.nearest;
    std::vector<float> scales(r.getScales().begin(), r.getScales().end());
    return "plumb_cuda_resize_f32(" + inF(0) + ", " + shape(in(0)) + ", " +
           rank(in(0)) + ", " + shape(res(0)) + ", " + pool.f32(scales) + ", " +
           mode + ", " + coord + ", " + nearest + ", " + outF(0) + ", 0)";
  }
  return "";
}

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
  std::string call = deviceCall(op);
  if (call == "0")
    return true; // an aliased reshape: no work
  if (!call.empty()) {
    out += "  rc = " + call + ";\n" + check(node, opName, "device kernel");
    return true;
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

llvm::Expected<std::string> CudaWriter::run() {
  func::FuncOp main = plan.main;
  Block &entry = main.getBody().front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());

  std::string body;
  int64_t onDevice = 0, onHost = 0;
  // Observed runs: every node result's place in the observer's areas.
  uint64_t observeBytes = 0;
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
