//===- PlumbInterfaces.h - Interfaces of the plumb ops ----------*- C++ -*-===//
//
// Part of Plumb. The cost interface (PlumbInterfaces.td) and the op counts it
// returns, with the overflow-checked arithmetic every count goes through.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DIALECT_PLUMBINTERFACES_H
#define PLUMB_DIALECT_PLUMBINTERFACES_H

#include "dialects/Plumb/IR/PlumbKernelCall.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace plumb {

/// An unsigned 64-bit count whose arithmetic never wraps: a result that does
/// not fit sets a sticky overflow flag that every later operation keeps.
class CheckedCount {
public:
  CheckedCount(uint64_t v = 0) : v(v) {}
  /// A dimension or element count from a shape (negative is an overflow:
  /// static shapes never hold one).
  static CheckedCount fromDim(int64_t d) {
    CheckedCount c(d < 0 ? 0 : uint64_t(d));
    c.overflow = d < 0;
    return c;
  }
  bool overflowed() const { return overflow; }
  uint64_t value() const { return v; }

  friend CheckedCount operator+(CheckedCount a, CheckedCount b) {
    CheckedCount r;
    r.overflow =
        a.overflow || b.overflow || __builtin_add_overflow(a.v, b.v, &r.v);
    return r;
  }
  friend CheckedCount operator*(CheckedCount a, CheckedCount b) {
    CheckedCount r;
    r.overflow =
        a.overflow || b.overflow || __builtin_mul_overflow(a.v, b.v, &r.v);
    return r;
  }
  CheckedCount &operator+=(CheckedCount b) { return *this = *this + b; }
  CheckedCount &operator*=(CheckedCount b) { return *this = *this * b; }

private:
  uint64_t v = 0;
  bool overflow = false;
};

/// The work of one op, counted from static shapes (see docs/gas.md).
struct OpCounts {
  /// Multiply-accumulate steps of dot products (conv, matmul, gemm, RNNs).
  uint64_t macs = 0;
  /// Simple operations: IEEE add/sub/mul/div/sqrt, comparisons, selects,
  /// conversions, one step of a sum/max/min reduction.
  uint64_t elementwise = 0;
  /// Evaluations of exp, log, tanh, sigmoid, erf, gelu or pow (Plumb's own
  /// math).
  uint64_t transcendental = 0;
  /// NaN-aware maximum/minimum steps (NaN propagates, -0.0 < +0.0): max and
  /// min reductions, arg_max, max pooling, clip, softmax's running maximum.
  uint64_t compare = 0;
  /// Elements read through a per-element multi-dimensional index instead of
  /// a contiguous stream: pooling windows, transpose, slice, gather, pad,
  /// resize taps.
  uint64_t indexed = 0;
  /// Bytes of every operand (each read once, in full) and of every result.
  uint64_t bytesRead = 0;
  uint64_t bytesWritten = 0;

  /// Floating-point operations: 2 per MAC, 1 per elementwise,
  /// transcendental or compare operation. Fails (returns false) on overflow.
  bool flops(uint64_t &out) const {
    CheckedCount f =
        CheckedCount(macs) * 2 + elementwise + transcendental + compare;
    out = f.value();
    return !f.overflowed();
  }
  bool bytes(uint64_t &out) const {
    CheckedCount b = CheckedCount(bytesRead) + bytesWritten;
    out = b.value();
    return !b.overflowed();
  }
  /// Field-wise sum; fails (returns false) on overflow.
  bool add(const OpCounts &o) {
    CheckedCount m = CheckedCount(macs) + o.macs;
    CheckedCount e = CheckedCount(elementwise) + o.elementwise;
    CheckedCount t = CheckedCount(transcendental) + o.transcendental;
    CheckedCount c = CheckedCount(compare) + o.compare;
    CheckedCount x = CheckedCount(indexed) + o.indexed;
    CheckedCount r = CheckedCount(bytesRead) + o.bytesRead;
    CheckedCount w = CheckedCount(bytesWritten) + o.bytesWritten;
    if (m.overflowed() || e.overflowed() || t.overflowed() || c.overflowed() ||
        x.overflowed() || r.overflowed() || w.overflowed())
      return false;
    macs = m.value(), elementwise = e.value(), transcendental = t.value();
    compare = c.value(), indexed = x.value();
    bytesRead = r.value(), bytesWritten = w.value();
    return true;
  }
  bool operator==(const OpCounts &o) const {
    return macs == o.macs && elementwise == o.elementwise &&
           transcendental == o.transcendental && compare == o.compare &&
           indexed == o.indexed && bytesRead == o.bytesRead &&
           bytesWritten == o.bytesWritten;
  }
};

/// The counts of an elementwise op: `e` simple operations, `t`
/// transcendental evaluations and `k` compare steps per element of result 0,
/// and the bytes of every operand and result (PlumbCost.cpp).
mlir::FailureOr<OpCounts> elementwiseCounts(mlir::Operation *op, uint64_t e,
                                            uint64_t t, uint64_t k = 0);
/// Data movement: the bytes of every operand and result, and for indexed
/// movement one indexed read per result element (PlumbCost.cpp).
mlir::FailureOr<OpCounts> movementCounts(mlir::Operation *op);
mlir::FailureOr<OpCounts> indexedMovementCounts(mlir::Operation *op);
/// The counts of a variadic op: n - 1 steps per element (additions, or
/// NaN-aware compare steps when `compare`), plus `fin` operations per
/// element for a final step (Mean's division).
mlir::FailureOr<OpCounts> variadicCounts(mlir::Operation *op, bool compare,
                                         uint64_t fin = 0);

/// The kernel calls of the op families the op classes of PlumbOps.td share
/// (PlumbKernelCalls.cpp): a unary op with its plumb_rt_unary_op code and
/// parameters, a broadcast binary op with its plumb_rt_binary_op code, a
/// variadic op with the code of its fold.
mlir::LogicalResult lowerUnaryOp(mlir::Operation *op, int32_t code,
                                 float alpha, float beta, KernelLowering &l,
                                 std::string &err);
mlir::LogicalResult lowerBinaryOp(mlir::Operation *op, int32_t code,
                                  KernelLowering &l, std::string &err);
mlir::LogicalResult lowerVariadicOp(mlir::Operation *op, int32_t code,
                                    KernelLowering &l, std::string &err);

namespace OpTrait {
// The op properties of PlumbInterfaces.td; markers without methods.
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
};
template <typename ConcreteType>
class FusibleTail : public mlir::OpTrait::TraitBase<ConcreteType, FusibleTail> {
};
template <typename ConcreteType>
class FusionHead : public mlir::OpTrait::TraitBase<ConcreteType, FusionHead> {
};
template <typename ConcreteType>
class Movement : public mlir::OpTrait::TraitBase<ConcreteType, Movement> {};
template <typename ConcreteType>
class HasReductionTree
    : public mlir::OpTrait::TraitBase<ConcreteType, HasReductionTree> {};
} // namespace OpTrait

} // namespace plumb

#include "dialects/Plumb/IR/PlumbInterfaces.h.inc"

#endif // PLUMB_DIALECT_PLUMBINTERFACES_H
