//===- include/plumb/Support/Nodes.h - Graph nodes of a module -*- C++ -*-===//
//
// Part of Plumb. The "nodes" of a program are the operations of @main's body
// in IR order, except constants (weights, identified by content) and the
// terminator. After canonicalisation the IR order is the canonical order, so
// a node's position in this list is its canonical index: the numbering used
// by cost reports, bundle manifests, traces and disputes.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_SUPPORT_NODES_H
#define PLUMB_SUPPORT_NODES_H

#include "dialects/Plumb/IR/PlumbOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace plumb {

inline mlir::func::FuncOp getMainFunc(mlir::ModuleOp module) {
  return module.lookupSymbol<mlir::func::FuncOp>("main");
}

inline bool isGraphNode(mlir::Operation *op) {
  return !mlir::isa<ConstantOp, mlir::func::ReturnOp>(op);
}

/// The nodes of @main in order (canonical order once canonicalised).
inline std::vector<mlir::Operation *> graphNodes(mlir::func::FuncOp main) {
  std::vector<mlir::Operation *> nodes;
  for (mlir::Operation &op : main.getBody().front())
    if (isGraphNode(&op))
      nodes.push_back(&op);
  return nodes;
}

/// The values a node reads: its operands (as they are), then the values
/// its regions use from outside (a plumb.fused body's weights and inputs, a
/// plumb.if branch's captures), each once, in first-use order.
inline std::vector<mlir::Value> nodeInputs(mlir::Operation *op) {
  std::vector<mlir::Value> ins(op->getOperands().begin(),
                               op->getOperands().end());
  auto add = [&](mlir::Value v) {
    for (mlir::Value w : ins)
      if (w == v)
        return;
    ins.push_back(v);
  };
  op->walk([&](mlir::Operation *inner) {
    if (inner == op)
      return;
    for (mlir::Value v : inner->getOperands()) {
      mlir::Operation *owner = v.getParentBlock()->getParentOp();
      if (mlir::Operation *def = v.getDefiningOp())
        owner = def;
      if (owner != op && !op->isProperAncestor(owner))
        add(v);
    }
  });
  return ins;
}

/// How reports name a node: the op name, and for plumb.fused its chain,
/// e.g. "plumb.fused(conv,batch_norm,relu)".
inline std::string nodeLabel(mlir::Operation *op) {
  std::string s = op->getName().getStringRef().str();
  auto fused = mlir::dyn_cast<FusedOp>(op);
  if (!fused)
    return s;
  s += "(";
  bool first = true;
  for (mlir::Operation *inner : fused.getChain()) {
    s += (first ? "" : ",") + inner->getName().stripDialect().str();
    first = false;
  }
  return s + ")";
}

} // namespace plumb

#endif // PLUMB_SUPPORT_NODES_H
