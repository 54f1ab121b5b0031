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

} // namespace plumb

#endif // PLUMB_SUPPORT_NODES_H
