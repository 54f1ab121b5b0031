//===- PlumbElemType.h - Element types of plumb tensors ---------*- C++ -*-===//
//
// Part of Plumb. The element types a plumb tensor may have, numbered as the
// runtime numbers them (runtime cast.h plumb_rt_dtype), with their names,
// sizes and MLIR types. Everything that handles tensor bits (interpreter,
// kernel calls, emitters, traces) reads the element type from here.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DIALECT_PLUMBELEMTYPE_H
#define PLUMB_DIALECT_PLUMBELEMTYPE_H

#include "mlir/IR/Types.h"

#include <cstddef>
#include <cstdint>

namespace plumb {

/// Element types; the numbers are the runtime's dtype codes (cast.h).
enum class ElemType : int32_t { F32 = 1, I64 = 2, I32 = 3, Bool = 4 };

/// "float32", "int64", "int32", "bool".
const char *elemTypeName(ElemType t);
/// Bytes per element (bools are one byte, 0 or 1).
size_t elemSize(ElemType t);
/// The element type of an MLIR element type (f32, i64, i32, i1).
bool elemTypeOf(mlir::Type t, ElemType &out);
/// The kernel-name suffix of an element type: "f32", "i64", "i32", "bool".
const char *elemTypeSuffix(ElemType t);
/// The C type the kernels take for it: "float", "int64_t", "int32_t",
/// "uint8_t".
const char *elemTypeCName(ElemType t);

} // namespace plumb

#endif // PLUMB_DIALECT_PLUMBELEMTYPE_H
