//===- PlumbLiteral.h - Small constant tensors for folding -----*- C++ -*-===//
//
// Part of Plumb. A constant tensor unpacked into a flat vector (f32 values,
// or integers/booleans as int64), used by folders and by the importer's
// shape computations. Stores canonicalise NaN to 0x7FC00000.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DIALECT_PLUMBLITERAL_H
#define PLUMB_DIALECT_PLUMBLITERAL_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <optional>
#include <vector>

namespace plumb {

/// Non-splat folding results are limited to this many elements.
constexpr int64_t kFoldElementLimit = int64_t(1) << 20;

struct Literal {
  mlir::RankedTensorType type;
  bool isFloat = false;
  std::vector<float> f;   // when isFloat
  std::vector<int64_t> i; // otherwise (i1 as 0/1, i32 sign-extended)

  int64_t size() const { return isFloat ? (int64_t)f.size() : (int64_t)i.size(); }
  llvm::ArrayRef<int64_t> shape() const { return type.getShape(); }

  /// Unpacks a DenseElementsAttr with at most `limit` elements (splats of any
  /// size are refused too: callers handle splats separately when they can).
  static std::optional<Literal> from(mlir::Attribute attr,
                                     int64_t limit = kFoldElementLimit);
  /// An empty literal of the given type (values to be filled).
  static Literal make(mlir::RankedTensorType type);
  /// Packs into a DenseElementsAttr (NaN canonicalised, integers wrapped to
  /// the element width).
  mlir::DenseElementsAttr toAttr() const;
};

/// Wraps an integer to the width of `elt` (i1, i32 or i64).
int64_t wrapInt(int64_t v, mlir::Type elt);
/// Returns 0x7FC00000 for any NaN, else x.
float canonicalNaN(float x);

/// For each element of `out` (row-major), the index of the element of `in`
/// it reads under numpy broadcasting.
std::vector<int64_t> broadcastIndices(llvm::ArrayRef<int64_t> in,
                                      llvm::ArrayRef<int64_t> out);

} // namespace plumb

#endif // PLUMB_DIALECT_PLUMBLITERAL_H
