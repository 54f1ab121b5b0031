//===- lib/Interpreter/Tensor.cpp - Host tensors and their hashes ---------===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#include "plumb/Interpreter/Tensor.h"

#include "plumb/runtime/tensor_hash.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

using namespace mlir;

namespace plumb {
namespace exec {

Tensor Tensor::make(ElemType type, std::vector<int64_t> shape) {
  Tensor t;
  t.type = type;
  t.shape = std::move(shape);
  t.storage.assign((t.byteSize() + 7) / 8, 0);
  return t;
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

void Tensor::canonicalizeNaN() {
  if (type != ElemType::F32)
    return;
  uint32_t *p = as<uint32_t>();
  for (int64_t i = 0, n = numElements(); i < n; ++i)
    if ((p[i] & 0x7F800000u) == 0x7F800000u && (p[i] & 0x007FFFFFu))
      p[i] = 0x7FC00000u;
}

std::string Tensor::describe() const {
  std::string s = elemTypeName(type);
  s += "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

bool tensorFromAttr(ElementsAttr attr, Tensor &out, std::string &err) {
  auto type = cast<ShapedType>(attr.getType());
  ElemType et;
  if (!elemTypeOf(type.getElementType(), et)) {
    err = "unsupported constant element type";
    return false;
  }
  out = Tensor::make(et, std::vector<int64_t>(type.getShape().begin(),
                                              type.getShape().end()));
  int64_t n = out.numElements();
  size_t es = elemSize(et);
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (et == ElemType::Bool) {
      uint8_t *p = out.as<uint8_t>();
      int64_t i = 0;
      for (bool b : dense.getValues<bool>())
        p[i++] = b ? 1 : 0;
      return true;
    }
    ArrayRef<char> raw = dense.getRawData();
    if (dense.isSplat()) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy((char *)out.raw() + i * es, raw.data(), es);
    } else {
      std::memcpy(out.raw(), raw.data(), n * es);
    }
    return true;
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob) {
      err = "resource blob '" + res.getRawHandle().getKey().str() +
            "' has no data";
      return false;
    }
    ArrayRef<char> data = blob->getData();
    if (data.size() != (size_t)n * es) {
      err = "resource blob '" + res.getRawHandle().getKey().str() +
            "' has " + std::to_string(data.size()) + " bytes, expected " +
            std::to_string(n * es);
      return false;
    }
    std::memcpy(out.raw(), data.data(), data.size());
    return true;
  }
  err = "unsupported constant attribute";
  return false;
}

std::array<uint8_t, 32> tensorHash(const Tensor &t) {
  std::array<uint8_t, 32> d;
  plumb_rt_tensor_hash((int32_t)t.type, (int32_t)t.shape.size(), t.shape.data(),
                       t.raw(), d.data());
  return d;
}

std::string toHex(const std::array<uint8_t, 32> &digest) {
  static const char *h = "0123456789abcdef";
  std::string s;
  for (uint8_t b : digest)
    s += h[b >> 4], s += h[b & 15];
  return s;
}

} // namespace exec
} // namespace plumb
