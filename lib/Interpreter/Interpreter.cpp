//===- lib/Interpreter/Interpreter.cpp - Reference executor ---------------===//
//
// Part of Plumb. Runs plumb IR op by op: each op runs its kernel calls
// (KernelCallOpInterface, the one description the emitters print too)
// through the kernel table (KernelTable.cpp). Every op's numeric semantics
// live in the kernels (runtime/).
//
//===----------------------------------------------------------------------===//
#include "plumb/Interpreter/Interpreter.h"

#include "dialects/Plumb/IR/PlumbOps.h"

#include "plumb/Interpreter/KernelTable.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace plumb {
namespace exec {

int64_t treeBlockOf(Operation *op) {
  if (auto tree = op->getAttrOfType<TreeAttr>("tree"))
    return tree.getBlock();
  return kDefaultTreeBlock;
}

bool foldOp(Operation *op, SmallVectorImpl<DenseElementsAttr> &results) {
  std::vector<Tensor> ins(op->getNumOperands());
  std::vector<const Tensor *> ptrs;
  std::string err;
  for (unsigned i = 0; i < op->getNumOperands(); ++i) {
    auto c = op->getOperand(i).getDefiningOp<ConstantOp>();
    if (!c || !tensorFromAttr(c.getValue(), ins[i], err))
      return false;
    ptrs.push_back(&ins[i]);
  }
  std::vector<Tensor> outs;
  if (!executeOp(op, ptrs, outs, err) || outs.size() != op->getNumResults())
    return false;
  results.clear();
  for (unsigned r = 0; r < op->getNumResults(); ++r) {
    auto type = cast<RankedTensorType>(op->getResult(r).getType());
    const Tensor &t = outs[r];
    if (t.type == ElemType::Bool) {
      SmallVector<bool> v;
      for (int64_t i = 0; i < t.numElements(); ++i)
        v.push_back(t.as<uint8_t>()[i] != 0);
      results.push_back(DenseElementsAttr::get(type, ArrayRef<bool>(v)));
    } else {
      results.push_back(DenseElementsAttr::getFromRawBuffer(
          type, ArrayRef<char>((const char *)t.raw(), t.byteSize())));
    }
  }
  return true;
}

bool executeOp(Operation *op, ArrayRef<const Tensor *> inputs,
               std::vector<Tensor> &results, std::string &err) {
  results.clear();
  if (auto c = dyn_cast<ConstantOp>(op)) {
    results.resize(1);
    return tensorFromAttr(c.getValue(), results[0], err);
  }
  auto kernels = dyn_cast<KernelCallOpInterface>(op);
  if (!kernels) {
    err = "the interpreter cannot execute '" +
          op->getName().getStringRef().str() + "'";
    return false;
  }
  // The op's one description: its kernel calls (PlumbKernelCalls.cpp), run
  // on the operand tensors, into fresh result tensors and scratch buffers.
  KernelLowering lowering;
  if (failed(kernels.lowerToKernelCalls(lowering, err)))
    return false;
  // The calls address the tensors by the op's types: a tensor of another
  // shape or element type would be read or written out of bounds.
  if (inputs.size() != op->getNumOperands()) {
    err = "internal error: '" + op->getName().getStringRef().str() + "' has " +
          std::to_string(op->getNumOperands()) + " operands, " +
          std::to_string(inputs.size()) + " tensors were given";
    return false;
  }
  KernelBuffers buffers;
  for (auto [i, t] : llvm::enumerate(inputs)) {
    auto type = cast<RankedTensorType>(op->getOperand(i).getType());
    ElemType et = ElemType::F32;
    if (!elemTypeOf(type.getElementType(), et) || t->type != et ||
        ArrayRef<int64_t>(t->shape) != type.getShape()) {
      err = "internal error: operand " + std::to_string(i) + " of '" +
            op->getName().getStringRef().str() + "' is " + t->describe() +
            ", not of the op's type";
      return false;
    }
    buffers.operands.push_back(t->raw());
  }
  results.resize(op->getNumResults());
  for (unsigned i = 0; i < op->getNumResults(); ++i) {
    auto type = cast<RankedTensorType>(op->getResult(i).getType());
    ElemType et = ElemType::F32;
    elemTypeOf(type.getElementType(), et);
    results[i] = Tensor::make(et, std::vector<int64_t>(type.getShape().begin(),
                                                       type.getShape().end()));
    buffers.results.push_back(results[i].raw());
  }
  std::vector<std::vector<uint64_t>> scratch;
  for (int64_t bytes : lowering.scratchBytes) {
    scratch.emplace_back((size_t)(bytes + 7) / 8 + 1);
    buffers.scratch.push_back(scratch.back().data());
  }
  for (const KernelCall &call : lowering.calls)
    if (!runKernelCall(call, buffers, err))
      return false;
  for (Tensor &t : results)
    t.canonicalizeNaN();
  return true;
}

namespace {

/// Executes the ops of one block; `values` maps SSA values to tensors.
class Runner {
public:
  Runner(MutableNodeCallback cb, std::string &err) : cb(cb), err(err) {}

  bool runBlock(Block &block, llvm::DenseMap<Value, Tensor> &values,
                std::vector<Tensor> *yielded) {
    for (Operation &op : block) {
      if (auto ret = dyn_cast<func::ReturnOp>(op))
        return collect(ret->getOperands(), values, yielded);
      if (auto y = dyn_cast<YieldOp>(op))
        return collect(y->getOperands(), values, yielded);
      if (!runOp(op, values))
        return false;
    }
    return true;
  }

  /// Executes one op of a block (plumb.if runs its taken region) and stores
  /// its results in `values`.
  bool runOp(Operation &op, llvm::DenseMap<Value, Tensor> &values) {
    std::vector<Tensor> outs;
    if (auto ifOp = dyn_cast<IfOp>(op)) {
      const Tensor *c = lookup(ifOp.getCond(), values);
      if (!c)
        return false;
      Region &r = c->as<uint8_t>()[0] ? ifOp.getThenRegion()
                                      : ifOp.getElseRegion();
      if (!runBlock(r.front(), values, &outs))
        return false;
      // A branch may forward a graph input unchanged: results are stored
      // values, so their NaNs are canonical like every other node's.
      for (Tensor &t : outs)
        t.canonicalizeNaN();
    } else if (auto fused = dyn_cast<FusedOp>(op)) {
      // The chain, op by op, with the same kernels as unfused: the same
      // bits. Its intermediate values are not nodes and are not reported.
      llvm::DenseMap<Value, Tensor> local;
      for (Operation *inner : fused.getChain()) {
        std::vector<const Tensor *> ins;
        for (Value v : inner->getOperands()) {
          auto it = local.find(v);
          const Tensor *t = it != local.end() ? &it->second : lookup(v, values);
          if (!t)
            return false;
          ins.push_back(t);
        }
        std::vector<Tensor> r;
        if (!executeOp(inner, ins, r, err)) {
          err = "'" + inner->getName().getStringRef().str() +
                "' in plumb.fused: " + err;
          return false;
        }
        local[inner->getResult(0)] = std::move(r[0]);
      }
      outs.push_back(std::move(local[fused.getYielded()]));
    } else {
      std::vector<const Tensor *> ins;
      for (Value v : op.getOperands()) {
        const Tensor *t = lookup(v, values);
        if (!t)
          return false;
        ins.push_back(t);
      }
      if (!executeOp(&op, ins, outs, err)) {
        err = "'" + op.getName().getStringRef().str() + "': " + err;
        return false;
      }
    }
    if (cb)
      cb(&op, outs);
    for (unsigned i = 0; i < outs.size(); ++i)
      values[op.getResult(i)] = std::move(outs[i]);
    return true;
  }

private:
  const Tensor *lookup(Value v, llvm::DenseMap<Value, Tensor> &values) {
    auto it = values.find(v);
    if (it == values.end()) {
      err = "internal error: a value is used before it is computed";
      return nullptr;
    }
    return &it->second;
  }
  bool collect(OperandRange vals, llvm::DenseMap<Value, Tensor> &values,
               std::vector<Tensor> *out) {
    if (!out)
      return true;
    for (Value v : vals) {
      const Tensor *t = lookup(v, values);
      if (!t)
        return false;
      out->push_back(*t);
    }
    return true;
  }

  MutableNodeCallback cb;
  std::string &err;
};

} // namespace

bool runFunction(func::FuncOp func, ArrayRef<Tensor> inputs,
                 std::vector<Tensor> &outputs, std::string &err,
                 NodeCallback callback) {
  if (!callback)
    return runFunctionWithHook(func, inputs, outputs, err, nullptr);
  auto adapt = [&](Operation *op, std::vector<Tensor> &results) {
    callback(op, results);
  };
  return runFunctionWithHook(func, inputs, outputs, err, adapt);
}

bool executeNode(Operation *op, const llvm::DenseMap<Value, const Tensor *> &env,
                 std::vector<Tensor> &results, std::string &err) {
  if (op->getNumRegions() == 0) {
    std::vector<const Tensor *> ins;
    for (Value v : op->getOperands()) {
      auto it = env.find(v);
      if (it == env.end()) {
        err = "internal error: no tensor for an operand";
        return false;
      }
      ins.push_back(it->second);
    }
    return executeOp(op, ins, results, err);
  }
  // plumb.if, plumb.fused: run the region on copies of the values it reads.
  llvm::DenseMap<Value, Tensor> values;
  for (auto &kv : env)
    values[kv.first] = *kv.second;
  Runner runner(nullptr, err);
  if (!runner.runOp(*op, values))
    return false;
  results.clear();
  for (unsigned i = 0; i < op->getNumResults(); ++i)
    results.push_back(std::move(values[op->getResult(i)]));
  return true;
}

bool runFunctionWithHook(func::FuncOp func, ArrayRef<Tensor> inputs,
                         std::vector<Tensor> &outputs, std::string &err,
                         MutableNodeCallback callback,
                         llvm::function_ref<void()> atEnd) {
  Block &entry = func.getBody().front();
  if (inputs.size() != entry.getNumArguments()) {
    err = "the model has " + std::to_string(entry.getNumArguments()) +
          " inputs, " + std::to_string(inputs.size()) + " were given";
    return false;
  }
  llvm::DenseMap<Value, Tensor> values;
  for (unsigned i = 0; i < inputs.size(); ++i) {
    auto type = cast<RankedTensorType>(entry.getArgument(i).getType());
    ElemType et;
    elemTypeOf(type.getElementType(), et);
    auto nameAttr = func.getArgAttrOfType<StringAttr>(i, "plumb.name");
    std::string name = nameAttr ? nameAttr.str() : "#" + std::to_string(i);
    const Tensor &t = inputs[i];
    if (t.type != et || ArrayRef<int64_t>(t.shape) != type.getShape()) {
      Tensor want = Tensor::make(et, std::vector<int64_t>(type.getShape().begin(),
                                                         type.getShape().end()));
      err = "input '" + name + "' must be " + want.describe() + ", got " +
            t.describe();
      return false;
    }
    if (auto bound = func.getArgAttrOfType<ElementsAttr>(i, "plumb.bound_value")) {
      Tensor b;
      if (!tensorFromAttr(bound, b, err))
        return false;
      if (tensorHash(b) != tensorHash(t)) {
        err = "input '" + name +
              "' was fixed at import (--input-value) and must equal the "
              "bound value";
        return false;
      }
    }
    values[entry.getArgument(i)] = t;
  }
  outputs.clear();
  Runner runner(callback, err);
  bool ok = runner.runBlock(entry, values, &outputs);
  if (atEnd)
    atEnd();
  return ok;
}

} // namespace exec
} // namespace plumb
