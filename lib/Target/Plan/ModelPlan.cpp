//===- lib/Target/Plan/ModelPlan.cpp - Weights and memory plan ------------===//
//
// Part of Plumb. See include/plumb/Target/Plan/ModelPlan.h.
//
// Liveness runs over a linearisation of @main: every op gets a position in a
// pre-order walk, a plumb.if also gets an end position after its regions
// (its results are written by the yields inside, so they are live from the
// if's start to past its end). A value lives from its definition to its last
// use; graph outputs live to the end. Buffers are then packed into one arena
// greedily, largest first, each at the lowest 64-byte aligned offset that
// does not overlap a buffer live at the same time. Every tie is broken by
// position, so the plan is a function of the module alone.
//
//===----------------------------------------------------------------------===//
#include "plumb/Target/Plan/ModelPlan.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Cost/Gas.h"
#include "plumb/Support/Merkle.h"
#include "plumb/Support/Nodes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <map>

using namespace mlir;

namespace plumb {
namespace target {

namespace {

int64_t alignUp(int64_t v) {
  return (v + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment;
}

llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 msg.c_str());
}

bool hasNonCanonicalNaN(const exec::Tensor &t) {
  if (t.type != exec::ElemType::F32)
    return false;
  const uint32_t *p = t.as<uint32_t>();
  for (int64_t i = 0, n = t.numElements(); i < n; ++i) {
    uint32_t u = p[i];
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) &&
        u != 0x7FC00000u)
      return true;
  }
  return false;
}

/// One arena buffer: a group of values sharing storage, a scratch buffer or
/// an input copy. Live over [start, end] (positions, inclusive).
struct Buffer {
  int64_t start = 0, end = 0, bytes = 0;
  int64_t order = 0; // creation order: the final tie-break
  int64_t offset = -1;
};

class Planner {
public:
  Planner(ModelPlan &plan, PlanOptions options)
      : plan(plan), options(options) {}

  llvm::Error run(func::FuncOp main) {
    plan.main = main;
    plan.nodes = graphNodes(main);
    Block &entry = main.getBody().front();
    if (auto err = describeValues(main))
      return err;
    if (auto err = planWeights(main))
      return err;
    int64_t t = 0;
    linearize(entry, t);
    endPos = t + 1;
    planFusedChains(main);
    assignStorage(main);
    pack();
    for (auto &kv : sharesResult)
      plan.values[kv.first].storage = plan.values[kv.second].storage;
    return llvm::Error::success();
  }

private:
  llvm::Error describe(Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    ValueInfo info;
    if (!type || !type.hasStaticShape() ||
        !exec::elemTypeOf(type.getElementType(), info.type)) {
      std::string s;
      llvm::raw_string_ostream os(s);
      v.getType().print(os);
      return fail("cannot compile a value of type " + os.str() +
                  " (static tensors of f32, i64, i32 and i1 only)");
    }
    info.shape.assign(type.getShape().begin(), type.getShape().end());
    int64_t n = 1;
    for (int64_t d : info.shape)
      n *= d;
    info.bytes = n * (int64_t)exec::elemSize(info.type);
    plan.values[v] = info;
    return llvm::Error::success();
  }

  llvm::Error describeValues(func::FuncOp main) {
    for (BlockArgument a : main.getBody().front().getArguments())
      if (auto err = describe(a))
        return err;
    llvm::Error result = llvm::Error::success();
    main.getBody().walk([&](Operation *op) {
      if (result)
        return WalkResult::interrupt();
      for (Value r : op->getResults())
        if (auto err = describe(r)) {
          result = std::move(err);
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return result;
  }

  llvm::Error planWeights(func::FuncOp main) {
    // Content -> entry, so identical constants are stored once.
    std::map<std::pair<int64_t, Digest>, int64_t> byContent;
    llvm::Error result = llvm::Error::success();
    main.getBody().walk<WalkOrder::PreOrder>([&](ConstantOp c) {
      if (result)
        return WalkResult::interrupt();
      exec::Tensor t;
      std::string err;
      if (!exec::tensorFromAttr(c.getValue(), t, err)) {
        result = fail("constant: " + err);
        return WalkResult::interrupt();
      }
      int64_t bytes = (int64_t)t.byteSize();
      Digest d = sha256(t.raw(), (size_t)bytes);
      auto key = std::make_pair(bytes, d);
      auto it = byContent.find(key);
      int64_t index;
      if (it == byContent.end()) {
        WeightEntry e;
        e.offset = plan.weightsBytes;
        e.bytes = bytes;
        e.source = c;
        plan.weightsBytes = alignUp(plan.weightsBytes + std::max<int64_t>(bytes, 1));
        index = (int64_t)plan.weights.size();
        plan.weights.push_back(e);
        byContent[key] = index;
      } else {
        index = it->second;
      }
      WeightEntry &e = plan.weights[index];
      // A kernel must see canonical NaNs whatever the element type the
      // other users of these bytes have.
      if (hasNonCanonicalNaN(t))
        e.needsCanonicalCopy = true;
      if (auto res = dyn_cast<DenseResourceElementsAttr>(c.getValue())) {
        std::string k = res.getRawHandle().getKey().str();
        if (!llvm::is_contained(e.resources, k))
          e.resources.push_back(k);
      }
      plan.constantEntry[c] = index;
      return WalkResult::advance();
    });
    if (result)
      return result;
    plan.weightCanonicalSlot.assign(plan.weights.size(), -1);
    return llvm::Error::success();
  }

  void use(Value v, int64_t p) {
    auto it = last.find(v);
    if (it == last.end() || it->second < p)
      last[v] = p;
  }

  void linearize(Block &block, int64_t &t) {
    for (Operation &op : block) {
      int64_t p = t++;
      pos[&op] = p;
      for (Value r : op.getResults())
        def[r] = p;
      if (!isa<func::ReturnOp>(op))
        for (Value v : op.getOperands())
          use(v, p);
      for (Region &r : op.getRegions())
        for (Block &b : r)
          linearize(b, t);
      if (op.getNumRegions()) {
        int64_t q = t++;
        for (Value r : op.getResults())
          use(r, q);
      }
    }
  }

  int64_t lastUse(Value v) {
    auto it = last.find(v);
    return it == last.end() ? def.lookup(v) : it->second;
  }

  /// Union-find over values sharing a buffer.
  Value root(Value v) {
    while (true) {
      auto it = parent.find(v);
      if (it == parent.end() || it->second == v)
        return v;
      v = it->second;
    }
  }

  /// A plumb.fused chain computes in its result's buffer: the last value
  /// always, and each earlier value whose next op can run in place on it
  /// (elementwise kernels may write over an input of the output's shape;
  /// variadic ones only over their first).
  void planFusedChains(func::FuncOp main) {
    main.walk([&](FusedOp f) {
      SmallVector<Operation *> chain = f.getChain();
      Value result = f.getOutput();
      sharesResult[chain.back()->getResult(0)] = result;
      for (size_t i = chain.size() - 1; i > 0; --i) {
        Operation *next = chain[i];
        Value v = chain[i - 1]->getResult(0);
        if (isa<SumOp, MaxOp, MinOp>(next) && next->getOperand(0) != v)
          break;
        sharesResult[v] = result;
      }
    });
  }

  void assignStorage(func::FuncOp main) {
    Block &entry = main.getBody().front();
    for (BlockArgument a : entry.getArguments()) {
      ValueInfo &info = plan.values[a];
      info.storage = {StorageKind::Input, a.getArgNumber(), 0};
    }
    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    for (Value v : ret.getOperands())
      use(v, endPos);
    // Last uses by ops: whether a reshape may alias its operand. Keeping
    // results for the trace recorder only reads them, and reading them
    // through an alias reads the same bytes.
    lastRead = last;
    // Traced runs: node k's results live through the start of node
    // k + lag + 1 (inclusive, so that node's own results never share them;
    // ops in its regions may, which the fence before it allows).
    if (options.resultLag >= 0 || !options.resultUntil.empty()) {
      int64_t n = (int64_t)plan.nodes.size();
      std::vector<int64_t> until = options.resultUntil;
      if (until.empty())
        for (int64_t k = 0; k < n; ++k)
          until.push_back(k + options.resultLag + 1);
      plan.resultLag = options.resultUntil.empty() ? options.resultLag : 0;
      plan.fenceBefore.assign(n, -1);
      int64_t fenced = -1;
      for (int64_t k = 0; k < n; ++k) {
        int64_t u = until[k];
        if (!options.resultUntil.empty())
          plan.resultLag = std::max(plan.resultLag, std::min(u, n) - k - 1);
        int64_t p = u < n ? pos.lookup(plan.nodes[u]) : endPos;
        for (Value r : plan.nodes[k]->getResults())
          use(r, p);
        // Before node u, k's results may be overwritten (by ops in u's
        // regions; by later nodes): they must be hashed.
        if (u < n && k > fenced) {
          plan.fenceBefore[u] = k;
          fenced = k;
        }
      }
    }
    // Outputs computed by a top-level node are written in place.
    llvm::DenseSet<Value> outputValues;
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      Operation *d = v.getDefiningOp();
      if (options.deviceResident || !d || isa<ConstantOp>(d) ||
          d->getBlock() != &entry || outputValues.contains(v))
        continue;
      outputValues.insert(v);
      plan.values[v].storage = {StorageKind::Output, (int64_t)i, 0};
    }
    // Every other value, in walk order.
    main.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (auto c = dyn_cast<ConstantOp>(op)) {
        int64_t e = plan.constantEntry.lookup(op);
        plan.values[c.getResult()].storage = {StorageKind::Weight, e, 0};
        return;
      }
      for (Value r : op->getResults()) {
        if (outputValues.contains(r) || sharesResult.count(r))
          continue;
        if (isa<ReshapeOp>(op) && canAlias(op, outputValues)) {
          parent[r] = root(op->getOperand(0));
          plan.values[r].aliased = true;
          continue;
        }
        parent[r] = r;
        arenaValues.push_back(r);
      }
      std::vector<int64_t> sizes = scratchBytesOf(op);
      for (int64_t s : sizes) {
        int64_t p = pos.lookup(op);
        scratchBuffers[op].push_back(addBuffer(p, p, s));
      }
    });
    // Groups: one buffer per root, covering all members' lifetimes.
    llvm::DenseMap<Value, int64_t> groupBuffer;
    std::vector<Value> members;
    for (Value v : arenaValues)
      members.push_back(v);
    // Aliased values are not in arenaValues; collect them in walk order.
    main.getBody().walk<WalkOrder::PreOrder>([&](ReshapeOp r) {
      if (plan.values[r.getResult()].aliased)
        members.push_back(r.getResult());
    });
    for (Value v : members) {
      Value g = root(v);
      int64_t s = def.lookup(v), e = lastUse(v);
      auto it = groupBuffer.find(g);
      if (it == groupBuffer.end()) {
        groupBuffer[g] = addBuffer(s, e, plan.values[v].bytes);
      } else {
        Buffer &b = buffers[it->second];
        b.start = std::min(b.start, s);
        b.end = std::max(b.end, e);
        b.bytes = std::max(b.bytes, plan.values[v].bytes);
        ++plan.reusedBuffers;
      }
    }
    for (Value v : members)
      valueBuffer[v] = groupBuffer[root(v)];
    // Canonicalised copies of float32 inputs (made at entry when needed).
    plan.inputCanonicalSlot.assign(entry.getNumArguments(), -1);
    for (BlockArgument a : entry.getArguments()) {
      const ValueInfo &info = plan.values[a];
      if ((info.type == exec::ElemType::F32 || options.deviceResident) &&
          !a.use_empty())
        inputSlot[a.getArgNumber()] = addBuffer(-1, lastUse(a), info.bytes);
    }
    for (auto [i, e] : llvm::enumerate(plan.weights))
      if (e.needsCanonicalCopy)
        weightSlot[i] = addBuffer(-1, endPos, e.bytes);
  }

  /// A reshape may share its operand's buffer when nobody can tell: the
  /// operand is an arena value (not an input, weight or output) whose last
  /// use is this reshape, and the result is not a graph output.
  bool canAlias(Operation *op, const llvm::DenseSet<Value> &outputValues) {
    Value src = op->getOperand(0);
    Operation *d = src.getDefiningOp();
    if (!d || isa<ConstantOp>(d) || outputValues.contains(src))
      return false;
    auto it = lastRead.find(src);
    int64_t lastOp = it == lastRead.end() ? def.lookup(src) : it->second;
    return lastOp == pos.lookup(op);
  }

  int64_t addBuffer(int64_t s, int64_t e, int64_t bytes) {
    Buffer b;
    b.start = s;
    b.end = e;
    b.bytes = alignUp(std::max<int64_t>(bytes, 1));
    b.order = (int64_t)buffers.size();
    buffers.push_back(b);
    return b.order;
  }

  void pack() {
    std::vector<int64_t> order(buffers.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = (int64_t)i;
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      const Buffer &x = buffers[a], &y = buffers[b];
      if (x.bytes != y.bytes)
        return x.bytes > y.bytes;
      if (x.start != y.start)
        return x.start < y.start;
      return x.order < y.order;
    });
    std::vector<int64_t> placed;
    int64_t total = 0;
    for (int64_t i : order) {
      Buffer &b = buffers[i];
      plan.unplannedBytes += b.bytes;
      std::vector<std::pair<int64_t, int64_t>> busy; // [offset, end)
      for (int64_t j : placed) {
        const Buffer &o = buffers[j];
        if (o.start <= b.end && b.start <= o.end)
          busy.push_back({o.offset, o.offset + o.bytes});
      }
      std::sort(busy.begin(), busy.end());
      int64_t off = 0;
      for (auto &r : busy) {
        if (r.first - off >= b.bytes)
          break;
        off = std::max(off, r.second);
      }
      b.offset = off;
      total = std::max(total, off + b.bytes);
      placed.push_back(i);
    }
    plan.arenaBytes = total;
    for (auto &kv : valueBuffer)
      plan.values[kv.first].storage = {StorageKind::Arena, 0,
                                       buffers[kv.second].offset};
    for (auto &kv : scratchBuffers)
      for (int64_t b : kv.second)
        plan.scratch[kv.first].push_back(buffers[b].offset);
    for (auto &kv : inputSlot)
      plan.inputCanonicalSlot[kv.first] = buffers[kv.second].offset;
    for (auto &kv : weightSlot)
      plan.weightCanonicalSlot[kv.first] = buffers[kv.second].offset;
  }

  ModelPlan &plan;
  PlanOptions options;
  llvm::DenseMap<Operation *, int64_t> pos;
  llvm::DenseMap<Value, int64_t> def, last, lastRead;
  llvm::DenseMap<Value, Value> parent;
  llvm::DenseMap<Value, Value> sharesResult; // chain value -> fused result
  std::vector<Value> arenaValues;
  std::vector<Buffer> buffers;
  llvm::DenseMap<Value, int64_t> valueBuffer;
  std::map<Operation *, std::vector<int64_t>> scratchBuffers;
  std::map<int64_t, int64_t> inputSlot, weightSlot;
  int64_t endPos = 0;
};

/// Bytes of a static tensor type in the runtime's layout (bool: one byte).
int64_t bytesOf(Type t) {
  auto r = cast<RankedTensorType>(t);
  exec::ElemType et = exec::ElemType::F32;
  exec::elemTypeOf(r.getElementType(), et);
  return r.getNumElements() * (int64_t)exec::elemSize(et);
}

} // namespace

std::vector<int64_t> scratchBytesOf(Operation *op) {
  // The scratch buffers the op's kernel calls use.
  auto kernels = dyn_cast<KernelCallOpInterface>(op);
  if (!kernels)
    return {};
  KernelLowering l;
  std::string err;
  if (failed(kernels.lowerToKernelCalls(l, err)))
    return {};
  return l.scratchBytes;
}

llvm::Expected<ModelPlan> planModel(ModuleOp module, PlanOptions options) {
  func::FuncOp main = getMainFunc(module);
  if (!main)
    return fail("the module has no func.func @main");
  if (main.getBody().getBlocks().size() != 1)
    return fail("@main must have a single block");
  if (!options.resultUntil.empty()) {
    const std::vector<int64_t> &u = options.resultUntil;
    int64_t n = (int64_t)graphNodes(main).size();
    if ((int64_t)u.size() != n)
      return fail("resultUntil has " + std::to_string(u.size()) +
                  " entries for " + std::to_string(n) + " nodes");
    for (int64_t k = 0; k < n; ++k)
      if (u[k] <= k || u[k] > n || (k && u[k] < u[k - 1]))
        return fail("resultUntil[" + std::to_string(k) + "] = " +
                    std::to_string(u[k]) +
                    " is not a later node, at most the node count, and no "
                    "earlier than the previous entry");
  }
  ModelPlan plan;
  Planner planner(plan, options);
  if (auto err = planner.run(main))
    return std::move(err);
  return std::move(plan);
}

llvm::Expected<std::vector<int64_t>> traceResultUntil(ModuleOp module) {
  func::FuncOp main = getMainFunc(module);
  if (!main)
    return fail("the module has no func.func @main");
  std::vector<Operation *> nodes = graphNodes(main);
  int64_t n = (int64_t)nodes.size();
  const GasSchedule &schedule = latestGasSchedule();
  // Simulated time in gas: node k ends at end[k]; one hash thread takes the
  // results in node order, each when its node ends, and is done with node
  // k's at hashed[k].
  std::vector<double> end(n), hashed(n);
  double t = 0, h = 0;
  for (int64_t k = 0; k < n; ++k) {
    auto gas = computeOpGas(nodes[k], schedule);
    if (!gas)
      return gas.takeError();
    uint64_t bytes = 0;
    for (Value r : nodes[k]->getResults())
      if (auto ty = dyn_cast<RankedTensorType>(r.getType()))
        if (ty.hasStaticShape())
          bytes += (uint64_t)bytesOf(ty);
    t += (double)gas->second;
    end[k] = t;
    h = std::max(h, t) + (double)bytes * (double)kTraceHashGasPerByte;
    hashed[k] = h;
  }
  // Node j starts at end[j - 1]; k stays until the first node that starts
  // once k is hashed (hashed[] and end[] grow, so the result does too).
  std::vector<int64_t> until(n);
  int64_t j = 1;
  for (int64_t k = 0; k < n; ++k) {
    j = std::max(j, k + 1);
    while (j < n && j <= k + kTraceResultLag && end[j - 1] < hashed[k])
      ++j;
    until[k] = std::max<int64_t>(j, k + 2 < n ? k + 2 : n);
    if (k && until[k] < until[k - 1])
      until[k] = until[k - 1];
  }
  return until;
}

llvm::Expected<std::optional<ModelPlan>> planForTraces(ModuleOp module) {
  PlanOptions options;
  auto until = traceResultUntil(module);
  if (until)
    options.resultUntil = std::move(*until);
  else {
    llvm::consumeError(until.takeError());
    options.resultLag = kTraceResultLag;
  }
  auto plan = planModel(module, options);
  if (!plan)
    return plan.takeError();
  if (plan->arenaBytes > kTracePlanLimitBytes)
    return std::optional<ModelPlan>();
  return std::optional<ModelPlan>(std::move(*plan));
}

llvm::Error appendWeightBytes(const WeightEntry &entry, std::string &out) {
  exec::Tensor t;
  std::string err;
  if (!exec::tensorFromAttr(cast<ConstantOp>(entry.source).getValue(), t, err))
    return fail("constant: " + err);
  out.append((const char *)t.raw(), t.byteSize());
  return llvm::Error::success();
}

llvm::Error buildWeightImage(const ModelPlan &plan, std::string &out) {
  out.clear();
  out.reserve((size_t)plan.weightsBytes);
  for (const WeightEntry &e : plan.weights) {
    out.resize((size_t)e.offset, '\0');
    if (auto err = appendWeightBytes(e, out))
      return err;
  }
  out.resize((size_t)plan.weightsBytes, '\0');
  return llvm::Error::success();
}

} // namespace target
} // namespace plumb
