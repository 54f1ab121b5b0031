//===- lib/Canonical/Identity.cpp - Node ids and graph hash ---------------===//
//
// Part of Plumb. See include/plumb/Canonical/Identity.h and docs/canonical.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Canonical/Identity.h"

#include "plumb/Interpreter/Tensor.h"
#include "plumb/Support/Nodes.h"
#include "plumb/runtime/config.h"
#include "plumb/runtime/sha256.h"
#include "plumb/runtime/tensor_hash.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;

namespace plumb {

namespace {

/// Incremental SHA-256 with length-prefixed fields, so no two different
/// field sequences encode to the same bytes.
struct Hasher {
  plumb_sha256_ctx ctx;
  Hasher() { plumb_sha256_init(&ctx); }
  void bytes(const void *p, size_t n) {
    uint8_t len[8];
    for (int i = 0; i < 8; ++i)
      len[i] = (uint8_t)((uint64_t)n >> (8 * i));
    plumb_sha256_update(&ctx, len, 8);
    plumb_sha256_update(&ctx, p, n);
  }
  void str(llvm::StringRef s) { bytes(s.data(), s.size()); }
  void digest(const Digest &d) { bytes(d.data(), d.size()); }
  void u64(uint64_t v) { bytes(&v, sizeof(v)); } // little-endian hosts only
  Digest finish() {
    Digest d;
    plumb_sha256_final(&ctx, d.data());
    return d;
  }
};

std::string printed(Attribute a) {
  if (!a)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return os.str();
}

std::string printed(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return os.str();
}

class IdComputer {
public:
  llvm::DenseMap<Value, Digest> valueIds;

  void seedArguments(Block &entry) {
    for (BlockArgument arg : entry.getArguments()) {
      Hasher h;
      h.str("arg");
      h.u64(arg.getArgNumber());
      h.str(printed(arg.getType()));
      valueIds[arg] = h.finish();
    }
  }

  /// Id of a node (non-constant op); also records the ids of its results.
  Digest nodeId(Operation *op) {
    Hasher h;
    h.str("plumb-node-v1");
    h.str(op->getName().getStringRef());
    h.str(printed(op->getPropertiesAsAttribute()));
    h.str(printed(op->getDiscardableAttrDictionary()));
    h.u64(op->getNumResults());
    for (Type t : op->getResultTypes())
      h.str(printed(t));
    h.u64(op->getNumOperands());
    for (Value v : op->getOperands())
      h.digest(valueId(v));
    h.u64(op->getNumRegions());
    for (Region &r : op->getRegions()) {
      h.u64(r.getBlocks().size());
      for (Block &b : r)
        for (Operation &inner : b)
          h.digest(opId(&inner));
    }
    Digest id = h.finish();
    for (OpResult res : op->getResults()) {
      Hasher rh;
      rh.str("result");
      rh.digest(id);
      rh.u64(res.getResultNumber());
      valueIds[res] = rh.finish();
    }
    return id;
  }

  /// Id of any op: constants are identified by content.
  Digest opId(Operation *op) {
    if (auto c = dyn_cast<ConstantOp>(op)) {
      Digest d = constantHash(c.getValue());
      Hasher h;
      h.str("const");
      h.digest(d);
      valueIds[c.getResult()] = h.finish();
      return valueIds[c.getResult()];
    }
    return nodeId(op);
  }

  Digest valueId(Value v) {
    auto it = valueIds.find(v);
    if (it != valueIds.end())
      return it->second;
    // A value defined later (not in topological order) or outside: hash its
    // defining op now (constants), else a fixed marker.
    if (Operation *def = v.getDefiningOp())
      if (isa<ConstantOp>(def)) {
        opId(def);
        return valueIds[v];
      }
    Hasher h;
    h.str("unknown-value");
    return h.finish();
  }
};

} // namespace

namespace {
Digest hashConstant(ElementsAttr value) {
  auto type = cast<ShapedType>(value.getType());
  exec::ElemType et;
  Digest d{};
  if (!exec::elemTypeOf(type.getElementType(), et))
    return d;
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (dense.isSplat()) {
      uint64_t elem = 0;
      if (et == exec::ElemType::Bool)
        elem = dense.getSplatValue<bool>() ? 1 : 0;
      else
        std::memcpy(&elem, dense.getRawData().data(), exec::elemSize(et));
      plumb_rt_tensor_hash_splat((int32_t)et, (int32_t)shape.size(),
                                 shape.data(), &elem, d.data());
      return d;
    }
  }
  exec::Tensor t;
  std::string err;
  if (!exec::tensorFromAttr(value, t, err))
    return d;
  return exec::tensorHash(t);
}
} // namespace

Digest constantHash(ElementsAttr value) {
  // Weights are hashed once per context: attributes are immutable and live
  // as long as it, so the digest of one never changes.
  auto *dialect = value.getContext()->getLoadedDialect<PlumbDialect>();
  Digest d;
  if (dialect && dialect->lookupConstantHash(value, d))
    return d;
  d = hashConstant(value);
  if (dialect)
    dialect->rememberConstantHash(value, d);
  return d;
}

std::vector<NodeInfo> computeNodeTable(func::FuncOp main) {
  std::vector<NodeInfo> table;
  if (!main || main.getBody().empty())
    return table;
  IdComputer ids;
  Block &entry = main.getBody().front();
  ids.seedArguments(entry);
  int64_t index = 0;
  for (Operation &op : entry) {
    if (isa<func::ReturnOp>(op))
      continue;
    Digest id = ids.opId(&op);
    if (!isGraphNode(&op))
      continue;
    NodeInfo info;
    info.index = index++;
    info.id = id;
    info.op = &op;
    info.opName = nodeLabel(&op);
    table.push_back(info);
  }
  return table;
}

Digest computeGraphHash(ModuleOp module) {
  func::FuncOp main = getMainFunc(module);
  Hasher h;
  h.str("plumb-graph-v1");
  h.str(PLUMB_CONTRACT_VERSION);
  if (!main)
    return h.finish();
  std::vector<NodeInfo> table = computeNodeTable(main);
  std::vector<Digest> ids;
  for (const NodeInfo &n : table)
    ids.push_back(n.id);
  h.digest(merkleRoot(ids));
  // The interface: input names and types, output names, types and sources.
  IdComputer values;
  Block &entry = main.getBody().front();
  values.seedArguments(entry);
  for (Operation &op : entry)
    if (!isa<func::ReturnOp>(op))
      values.opId(&op);
  h.u64(main.getNumArguments());
  for (unsigned i = 0; i < main.getNumArguments(); ++i) {
    auto name = main.getArgAttrOfType<StringAttr>(i, "plumb.name");
    h.str(name ? name.getValue() : "");
    h.str(printed(main.getArgument(i).getType()));
    h.str(printed(main.getArgAttr(i, "plumb.bound_value")));
    // The storage type of a float16 / bfloat16 input (docs/determinism.md,
    // "Half precision"), hashed only where there is one, so the identity of
    // every other graph is unchanged.
    if (auto storage = main.getArgAttrOfType<StringAttr>(i, "plumb.storage")) {
      h.str("plumb.storage");
      h.str(storage.getValue());
    }
  }
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  h.u64(ret.getNumOperands());
  for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
    auto name = main.getResultAttrOfType<StringAttr>(i, "plumb.name");
    h.str(name ? name.getValue() : "");
    h.str(printed(ret.getOperand(i).getType()));
    h.digest(values.valueId(ret.getOperand(i)));
    if (auto storage =
            main.getResultAttrOfType<StringAttr>(i, "plumb.storage")) {
      h.str("plumb.storage");
      h.str(storage.getValue());
    }
  }
  return h.finish();
}

} // namespace plumb
