//===- PlumbShapes.h - Shape inference for plumb ops -----------*- C++ -*-===//
//
// Part of Plumb. One shape function per op family, shared by the verifiers
// (which compare with the declared result type) and the ONNX importer (which
// builds result types with them). All arithmetic is overflow-checked: a shape
// whose element count exceeds kMaxElements is an error, never a wrap.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DIALECT_PLUMBSHAPES_H
#define PLUMB_DIALECT_PLUMBSHAPES_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace plumb {
namespace shapes {

using Shape = llvm::SmallVector<int64_t, 6>;
using EmitFn = llvm::function_ref<mlir::InFlightDiagnostic()>;

/// No tensor may have more elements than this (2^40).
constexpr int64_t kMaxElements = int64_t(1) << 40;

/// Element count with overflow and limit checks.
mlir::FailureOr<int64_t> numElements(llvm::ArrayRef<int64_t> shape, EmitFn emit);
/// "1x3x224x224" ("scalar" for rank 0).
std::string str(llvm::ArrayRef<int64_t> shape);

mlir::FailureOr<Shape> broadcast(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes,
                                 EmitFn emit);
/// True if `from` broadcasts to exactly `to`.
bool broadcastsTo(llvm::ArrayRef<int64_t> from, llvm::ArrayRef<int64_t> to);
mlir::FailureOr<Shape> matmul(llvm::ArrayRef<int64_t> a,
                              llvm::ArrayRef<int64_t> b, EmitFn emit);
mlir::FailureOr<Shape> gemm(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                            std::optional<llvm::ArrayRef<int64_t>> c, bool transA,
                            bool transB, EmitFn emit);
mlir::FailureOr<Shape> conv(llvm::ArrayRef<int64_t> x, llvm::ArrayRef<int64_t> w,
                            std::optional<llvm::ArrayRef<int64_t>> bias,
                            llvm::ArrayRef<int64_t> strides,
                            llvm::ArrayRef<int64_t> pads,
                            llvm::ArrayRef<int64_t> dilations, int64_t group,
                            EmitFn emit);
mlir::FailureOr<Shape>
convTranspose(llvm::ArrayRef<int64_t> x, llvm::ArrayRef<int64_t> w,
              std::optional<llvm::ArrayRef<int64_t>> bias,
              llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> pads,
              llvm::ArrayRef<int64_t> dilations,
              llvm::ArrayRef<int64_t> outputPadding, int64_t group, EmitFn emit);
mlir::FailureOr<Shape> pool(llvm::ArrayRef<int64_t> x,
                            llvm::ArrayRef<int64_t> kernel,
                            llvm::ArrayRef<int64_t> strides,
                            llvm::ArrayRef<int64_t> pads,
                            llvm::ArrayRef<int64_t> dilations, bool ceilMode,
                            EmitFn emit);
mlir::FailureOr<Shape> globalPool(llvm::ArrayRef<int64_t> x, EmitFn emit);
mlir::FailureOr<Shape> reduce(llvm::ArrayRef<int64_t> x,
                              llvm::ArrayRef<int64_t> axes, bool keepdims,
                              EmitFn emit);
mlir::FailureOr<Shape> transpose(llvm::ArrayRef<int64_t> x,
                                 llvm::ArrayRef<int64_t> perm, EmitFn emit);
mlir::FailureOr<Shape> concat(llvm::ArrayRef<llvm::ArrayRef<int64_t>> xs,
                              int64_t axis, EmitFn emit);
mlir::FailureOr<Shape> gather(llvm::ArrayRef<int64_t> data,
                              llvm::ArrayRef<int64_t> indices, int64_t axis,
                              EmitFn emit);
mlir::FailureOr<Shape> pad(llvm::ArrayRef<int64_t> x,
                           llvm::ArrayRef<int64_t> pads, EmitFn emit);
mlir::FailureOr<Shape> tile(llvm::ArrayRef<int64_t> x,
                            llvm::ArrayRef<int64_t> repeats, EmitFn emit);
/// ONNX Slice normalisation: from (possibly negative, clamped) starts/ends and
/// steps for the listed axes, computes full-rank starts/steps and the result
/// shape. Axes must already be non-negative and unique.
mlir::LogicalResult normalizeSlice(llvm::ArrayRef<int64_t> x,
                                   llvm::ArrayRef<int64_t> starts,
                                   llvm::ArrayRef<int64_t> ends,
                                   llvm::ArrayRef<int64_t> axes,
                                   llvm::ArrayRef<int64_t> steps,
                                   Shape &fullStarts, Shape &fullSteps,
                                   Shape &result, EmitFn emit);
/// Checks a normalised slice against an input and result shape.
mlir::LogicalResult verifySlice(llvm::ArrayRef<int64_t> x,
                                llvm::ArrayRef<int64_t> starts,
                                llvm::ArrayRef<int64_t> steps,
                                llvm::ArrayRef<int64_t> result, EmitFn emit);
/// Result shapes of LSTM (Y, Y_h, Y_c) / GRU (Y, Y_h).
mlir::LogicalResult rnn(llvm::ArrayRef<int64_t> x, llvm::ArrayRef<int64_t> w,
                        llvm::ArrayRef<int64_t> r, int64_t gates,
                        int64_t hiddenSize, int64_t numDirections,
                        Shape &y, Shape &yh, EmitFn emit);

/// Normalises an ONNX axis in [-rank, rank) to [0, rank), or with
/// `inclusive` (Flatten's axis) one in [-rank, rank] to [0, rank].
mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank, EmitFn emit,
                                       bool inclusive = false);

} // namespace shapes
} // namespace plumb

#endif // PLUMB_DIALECT_PLUMBSHAPES_H
