//===- include/plumb/Interpreter/Tensor.h - Host tensors ------*- C++ -*-===//
//
// Part of Plumb. A dense, row-major host tensor as the interpreter, the
// driver and traces see it, with its canonical hash encoding.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_INTERPRETER_TENSOR_H
#define PLUMB_INTERPRETER_TENSOR_H

#include "dialects/Plumb/IR/PlumbElemType.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace plumb {
namespace exec {

/// Element types (dialects/Plumb/IR/PlumbElemType.h).
using ::plumb::ElemType;
using ::plumb::elemSize;
using ::plumb::elemTypeName;
using ::plumb::elemTypeOf;

struct Tensor {
  ElemType type = ElemType::F32;
  std::vector<int64_t> shape;
  /// 8-byte aligned storage for numElements() * elemSize(type) bytes.
  std::vector<uint64_t> storage;

  static Tensor make(ElemType type, std::vector<int64_t> shape);
  int64_t numElements() const;
  size_t byteSize() const { return numElements() * elemSize(type); }
  void *raw() { return storage.data(); }
  const void *raw() const { return storage.data(); }
  template <typename T> T *as() { return reinterpret_cast<T *>(storage.data()); }
  template <typename T> const T *as() const {
    return reinterpret_cast<const T *>(storage.data());
  }
  /// Replaces every NaN of a float tensor by 0x7FC00000.
  void canonicalizeNaN();
  /// "float32[1x10]".
  std::string describe() const;
};

/// The bits of a constant attribute (dense or dense_resource).
bool tensorFromAttr(mlir::ElementsAttr attr, Tensor &out, std::string &err);

/// SHA-256 of the canonical encoding: "plumb-tensor-v1", the dtype code (u8),
/// the rank (u8), each dim (u64 little-endian), then the little-endian
/// element bytes with NaN canonicalised (bools as one byte 0/1).
std::array<uint8_t, 32> tensorHash(const Tensor &t);
std::string toHex(const std::array<uint8_t, 32> &digest);

} // namespace exec
} // namespace plumb

#endif // PLUMB_INTERPRETER_TENSOR_H
