//===- PlumbLiteral.cpp - Small constant tensors for folding --------------===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbLiteral.h"

#include <cstring>

using namespace mlir;

namespace plumb {

float canonicalNaN(float x) {
  if (x != x) {
    uint32_t bits = 0x7FC00000u;
    std::memcpy(&x, &bits, 4);
  }
  return x;
}

int64_t wrapInt(int64_t v, Type elt) {
  if (elt.isInteger(1))
    return v != 0;
  if (elt.isInteger(32))
    return (int64_t)(int32_t)(uint32_t)(uint64_t)v;
  return v;
}

std::optional<Literal> Literal::from(Attribute attr, int64_t limit) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
  if (!dense)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(dense.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() > limit)
    return std::nullopt;
  Literal lit;
  lit.type = type;
  Type elt = type.getElementType();
  if (elt.isF32()) {
    lit.isFloat = true;
    lit.f.reserve(type.getNumElements());
    for (float v : dense.getValues<float>())
      lit.f.push_back(v);
  } else if (elt.isInteger(64)) {
    for (int64_t v : dense.getValues<int64_t>())
      lit.i.push_back(v);
  } else if (elt.isInteger(32)) {
    for (int32_t v : dense.getValues<int32_t>())
      lit.i.push_back(v);
  } else if (elt.isInteger(1)) {
    for (bool v : dense.getValues<bool>())
      lit.i.push_back(v);
  } else {
    return std::nullopt;
  }
  return lit;
}

Literal Literal::make(RankedTensorType type) {
  Literal lit;
  lit.type = type;
  lit.isFloat = type.getElementType().isF32();
  if (lit.isFloat)
    lit.f.resize(type.getNumElements());
  else
    lit.i.resize(type.getNumElements());
  return lit;
}

DenseElementsAttr Literal::toAttr() const {
  Type elt = type.getElementType();
  if (isFloat) {
    std::vector<float> v(f.size());
    for (size_t k = 0; k < f.size(); ++k)
      v[k] = canonicalNaN(f[k]);
    return DenseElementsAttr::get(type, llvm::ArrayRef<float>(v));
  }
  if (elt.isInteger(1)) {
    llvm::SmallVector<bool> v;
    for (int64_t x : i)
      v.push_back(x != 0);
    return DenseElementsAttr::get(type, llvm::ArrayRef<bool>(v));
  }
  if (elt.isInteger(32)) {
    std::vector<int32_t> v;
    for (int64_t x : i)
      v.push_back((int32_t)wrapInt(x, elt));
    return DenseElementsAttr::get(type, llvm::ArrayRef<int32_t>(v));
  }
  return DenseElementsAttr::get(type, llvm::ArrayRef<int64_t>(i));
}

std::vector<int64_t> broadcastIndices(ArrayRef<int64_t> in,
                                      ArrayRef<int64_t> out) {
  int64_t n = 1;
  for (int64_t d : out)
    n *= d;
  std::vector<int64_t> result(n);
  size_t rank = out.size(), off = rank - in.size();
  // Strides of `in` aligned to `out`'s rank; 0 on broadcast dimensions.
  std::vector<int64_t> stride(rank, 0);
  int64_t s = 1;
  for (size_t k = in.size(); k-- > 0;) {
    stride[off + k] = in[k] == 1 ? 0 : s;
    s *= in[k];
  }
  std::vector<int64_t> idx(rank, 0);
  int64_t src = 0;
  for (int64_t e = 0; e < n; ++e) {
    result[e] = src;
    for (size_t d = rank; d-- > 0;) {
      ++idx[d];
      src += stride[d];
      if (idx[d] < out[d])
        break;
      src -= stride[d] * idx[d];
      idx[d] = 0;
    }
  }
  return result;
}

} // namespace plumb
