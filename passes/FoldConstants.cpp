//===- passes/FoldConstants.cpp - plumb-fold-constants --------------------===//
//
// Part of Plumb. See Passes.td. Folded values come from the runtime kernels
// through the reference interpreter, so they are the bits execution would
// produce.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <functional>

namespace plumb {
#define GEN_PASS_DEF_FOLDCONSTANTSPASS
#include "passes/Passes.h.inc"
} // namespace plumb

using namespace mlir;
using namespace plumb;

namespace {

struct FoldConstantsPass
    : plumb::impl::FoldConstantsPassBase<FoldConstantsPass> {
  using Base::Base;

  /// A large (beyond max-elements) non-splat value as a dense_resource blob, as the importer
  /// stores weights (plumb-canonical-order names it after its content).
  static ElementsAttr asResource(DenseElementsAttr v) {
    if (v.isSplat() || v.getElementType().isInteger(1))
      return v;
    return DenseResourceElementsAttr::get(
        cast<ShapedType>(v.getType()), "folded",
        HeapAsmResourceBlob::allocateAndCopyInferAlign(v.getRawData()));
  }

  /// Ops folding may evaluate (once their operands are constants).
  static bool evaluable(Operation *op) {
    return isa_and_nonnull<PlumbDialect>(op->getDialect()) &&
           !isa<ConstantOp, IfOp, YieldOp>(op) && op->getNumOperands() > 0;
  }
  /// What a subgraph fold takes: evaluable ops without regions.
  static bool foldable(Operation *op) {
    return evaluable(op) && op->getNumRegions() == 0;
  }

  static int64_t resultElements(Operation *op) {
    int64_t total = 0;
    for (Type t : op->getResultTypes())
      total += cast<RankedTensorType>(t).getNumElements();
    return total;
  }

  /// Evaluates `op` (its operands constants) and replaces it by the
  /// constants it computes; false, leaving it, when it cannot be evaluated.
  bool replaceByFold(Operation *op) {
    SmallVector<DenseElementsAttr> values;
    if (!exec::foldOp(op, values))
      return false;
    const bool large = resultElements(op) > maxElements;
    OpBuilder b(op);
    for (unsigned r = 0; r < op->getNumResults(); ++r) {
      Value c = ConstantOp::create(b, op->getLoc(),
                                   large ? asResource(values[r])
                                         : cast<ElementsAttr>(values[r]));
      op->getResult(r).replaceAllUsesWith(c);
    }
    op->erase(); // constants it used up go with dead-code elimination
    return true;
  }

  /// Folds `op` if all its operands are constants and its results are small.
  void tryFold(Operation *op) {
    if (!evaluable(op))
      return;
    const int64_t total = resultElements(op);
    // Above the limit, a fold that uses up its constant operands (this op
    // is their only user; a splat counts as one element) is still taken
    // when its results are no larger: the IR cannot grow, and a weight's
    // per-run preprocessing (a zero point subtracted from int8 weights, a
    // DequantizeLinear, a transpose) is done once.
    if (total > maxElements) {
      int64_t consumed = 0;
      for (Value v : op->getOperands()) {
        auto c = v.getDefiningOp<ConstantOp>();
        if (!c)
          return;
        if (!v.hasOneUse())
          continue;
        auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
        if (!dense || !dense.isSplat())
          consumed += cast<ElementsAttr>(c.getValue()).getNumElements();
      }
      if (total > consumed)
        return;
    }
    (void)replaceByFold(op); // else left for run time (e.g. an
                             // out-of-range gather index)
  }

  /// The second phase: what the first left because some result is large.
  /// A connected subgraph of ops computable from constants is folded whole
  /// when the values it leaves to the rest of the program (its frontier)
  /// are no larger, beyond max-elements, than the constants it uses up: a
  /// weight's standardisation (the weight's mean and variance, then the
  /// normalised weight), whose steps each keep the weight alive, folds,
  /// and the IR cannot grow by more than max-elements.
  void foldSubgraphs() {
    SmallVector<Operation *> order;
    DenseMap<Operation *, unsigned> index; // op -> union-find node
    SmallVector<unsigned> parent;
    auto node = [&](Operation *op) {
      auto [it, fresh] = index.try_emplace(op, parent.size());
      if (fresh)
        parent.push_back(parent.size());
      return it->second;
    };
    std::function<unsigned(unsigned)> find = [&](unsigned x) {
      while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
      return x;
    };
    DenseSet<Operation *> inSet;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (!foldable(op))
        return;
      for (Value v : op->getOperands()) {
        Operation *d = v.getDefiningOp();
        if (!d || !(isa<ConstantOp>(d) || inSet.count(d)))
          return;
      }
      inSet.insert(op);
      order.push_back(op);
      unsigned me = node(op);
      for (Value v : op->getOperands())
        parent[find(node(v.getDefiningOp()))] = find(me);
    });
    if (order.empty())
      return;
    // Per component: frontier elements and the constants it uses up.
    DenseMap<unsigned, int64_t> frontier, freed;
    DenseSet<Operation *> counted;
    for (Operation *op : order) {
      unsigned root = find(index[op]);
      for (Value r : op->getResults())
        if (llvm::any_of(r.getUsers(),
                         [&](Operation *u) { return !inSet.count(u); }))
          frontier[root] += cast<RankedTensorType>(r.getType()).getNumElements();
      for (Value v : op->getOperands()) {
        auto c = v.getDefiningOp<ConstantOp>();
        if (!c || !counted.insert(c).second)
          continue;
        if (!llvm::all_of(c->getUsers(),
                          [&](Operation *u) { return inSet.count(u) > 0; }))
          continue;
        // A splat is one value in the IR, as in tryFold.
        auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
        freed[root] += dense && dense.isSplat()
                           ? 1
                           : cast<ElementsAttr>(c.getValue()).getNumElements();
      }
    }
    for (Operation *op : order) {
      unsigned root = find(index[op]);
      if (frontier[root] > freed[root] + maxElements)
        continue;
      if (!replaceByFold(op))
        frontier[root] = INT64_MAX; // leave the rest of it to run time
    }
  }

  void runOnOperation() override {
    // Program order is topological, so one pass in order folds whole
    // constant subgraphs: a folded op's users see constant operands.
    SmallVector<Operation *> ops;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      ops.push_back(op);
    });
    for (Operation *op : ops)
      tryFold(op);
    foldSubgraphs();
  }
};

} // namespace
