//===- passes/CanonicalOrder.cpp - plumb-canonical-order ------------------===//
//
// Part of Plumb. See Passes.td and docs/canonical.md.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Canonical/Identity.h"
#include "plumb/Support/Nodes.h"

#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <map>
#include <queue>

namespace plumb {
#define GEN_PASS_DEF_CANONICALORDERPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;
using namespace plumb;

namespace {

std::string typeKey(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return os.str();
}

/// Merges identical constants of `block`, names resource blobs after their
/// content and moves the constants, sorted by content, to the block's start.
void canonicalizeConstants(Block &block) {
  std::map<std::pair<std::string, std::string>, ConstantOp> byContent;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto c = dyn_cast<ConstantOp>(op);
    if (!c)
      continue;
    Digest digest = constantHash(c.getValue());
    std::string hash = toHex(digest);
    auto key = std::make_pair(hash, typeKey(c.getType()));
    auto it = byContent.find(key);
    if (it != byContent.end()) {
      c.getResult().replaceAllUsesWith(it->second.getResult());
      c.erase();
      continue;
    }
    byContent[key] = c;
    // Resource blobs are named after their content: c_<first 16 hex digits>.
    if (auto res = dyn_cast<DenseResourceElementsAttr>(c.getValue())) {
      std::string name = "c_" + hash.substr(0, 16);
      AsmResourceBlob *blob = res.getRawHandle().getBlob();
      if (res.getRawHandle().getKey() != name && blob) {
        auto type = cast<ShapedType>(res.getType());
        MLIRContext *ctx = c.getContext();
        auto &manager =
            DenseResourceElementsHandle::getManagerInterface(ctx)
                .getBlobManager();
        // A blob of that name already in the context (from an earlier
        // module, or renamed "_1" by a parser that met it twice) holds the
        // same content by construction: share it, so the name stays
        // canonical whatever the context has seen.
        auto *entry = manager.lookup(name);
        if (entry && entry->getBlob() &&
            entry->getBlob()->getData() == blob->getData()) {
          DenseResourceElementsHandle handle(
              entry, ctx->getLoadedDialect<BuiltinDialect>());
          c.setValueAttr(DenseResourceElementsAttr::get(type, handle));
        } else if (!entry) {
          c.setValueAttr(DenseResourceElementsAttr::get(
              type, name,
              HeapAsmResourceBlob::allocateAndCopyInferAlign(blob->getData())));
        }
        // Same content under its new name: no need to hash it again.
        if (auto *plumb = ctx->getLoadedDialect<PlumbDialect>())
          plumb->rememberConstantHash(c.getValue(), digest);
      }
    }
  }
  // Moving each to the front in reverse sorted order leaves them sorted.
  for (auto it = byContent.rbegin(); it != byContent.rend(); ++it)
    it->second->moveBefore(&block, block.begin());
}

/// The values defined in `block` that `op` (or anything nested in it) uses.
SmallVector<Operation *> blockDeps(Operation *op, Block &block) {
  llvm::SetVector<Operation *> deps;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (Operation *def = v.getDefiningOp())
        if (def->getBlock() == &block && def != op)
          deps.insert(def);
  });
  return SmallVector<Operation *>(deps.begin(), deps.end());
}

/// Orders the nodes of @main's entry block by Kahn's algorithm with ties
/// broken by node id (then by original position, for identical nodes).
void orderNodes(func::FuncOp main) {
  Block &block = main.getBody().front();
  std::vector<NodeInfo> table = computeNodeTable(main);
  llvm::DenseMap<Operation *, size_t> pos;
  for (size_t i = 0; i < table.size(); ++i)
    pos[table[i].op] = i;
  std::vector<int> pending(table.size(), 0);
  std::vector<std::vector<size_t>> users(table.size());
  for (size_t i = 0; i < table.size(); ++i)
    for (Operation *d : blockDeps(table[i].op, block)) {
      auto it = pos.find(d);
      if (it == pos.end())
        continue; // a constant
      ++pending[i];
      users[it->second].push_back(i);
    }
  auto later = [&](size_t a, size_t b) {
    if (table[a].id != table[b].id)
      return table[a].id > table[b].id;
    return a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> ready(later);
  for (size_t i = 0; i < table.size(); ++i)
    if (!pending[i])
      ready.push(i);
  Operation *terminator = block.getTerminator();
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    table[i].op->moveBefore(terminator);
    for (size_t u : users[i])
      if (--pending[u] == 0)
        ready.push(u);
  }
}

struct CanonicalOrderPass
    : plumb::impl::CanonicalOrderPassBase<CanonicalOrderPass> {
  void runOnOperation() override {
    func::FuncOp main = getMainFunc(getOperation());
    if (!main) {
      getOperation().emitError() << "the module has no func.func @main";
      return signalPassFailure();
    }
    // Constants inside plumb.if regions are canonicalised within them.
    main.walk([&](IfOp op) {
      for (Region &r : op->getRegions())
        for (Block &b : r)
          canonicalizeConstants(b);
    });
    canonicalizeConstants(main.getBody().front());
    orderNodes(main);
  }
};

} // namespace
