//===- include/plumb/Canonical/Identity.h - Node ids and graph hash -*- C++ -*-===//
//
// Part of Plumb. Structural identity of a program, independent of ONNX node
// names, tensor names, node order, initializer order and file layout:
//
//  * a node id is SHA-256 over the op name, its canonically encoded
//    attributes, its result types, and its operands' identities (a graph input
//    by position and type, a constant by content, another node's result by
//    that node's id and result number); regions are hashed structurally;
//  * the graph hash is SHA-256 over the contract version, the Merkle root of
//    the node ids in canonical order, and the interface (input names and
//    types, output names, types and the results they name).
//
// See docs/canonical.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_CANONICAL_IDENTITY_H
#define PLUMB_CANONICAL_IDENTITY_H

#include "plumb/Support/Merkle.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace plumb {

struct NodeInfo {
  int64_t index = 0;        // canonical position among graphNodes()
  Digest id{};              // structural node id
  mlir::Operation *op = nullptr;
  std::string opName;       // e.g. "plumb.conv"
};

/// Structural ids of every node of @main, in IR order (which is the
/// canonical order once the module went through plumb-canonicalize).
std::vector<NodeInfo> computeNodeTable(mlir::func::FuncOp main);

/// Content hash of a constant (type and bits).
Digest constantHash(mlir::ElementsAttr value);

/// The graph hash of a module (see above).
Digest computeGraphHash(mlir::ModuleOp module);

} // namespace plumb

#endif // PLUMB_CANONICAL_IDENTITY_H
