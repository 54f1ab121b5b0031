//===- PlumbElemType.cpp - Element types of plumb tensors -----------------===//
//
// Part of Plumb. See PlumbElemType.h.
//
//===----------------------------------------------------------------------===//
#include "dialects/Plumb/IR/PlumbElemType.h"

#include "mlir/IR/BuiltinTypes.h"

namespace plumb {

namespace {
struct ElemTypeInfo {
  const char *name, *suffix, *cname;
  size_t size;
};

ElemTypeInfo infoOf(ElemType t) {
  switch (t) {
  case ElemType::F32:
    return {"float32", "f32", "float", 4};
  case ElemType::I64:
    return {"int64", "i64", "int64_t", 8};
  case ElemType::I32:
    return {"int32", "i32", "int32_t", 4};
  case ElemType::Bool:
    return {"bool", "bool", "uint8_t", 1};
  }
  return {"?", "?", "void", 0};
}
} // namespace

const char *elemTypeName(ElemType t) { return infoOf(t).name; }
size_t elemSize(ElemType t) { return infoOf(t).size; }
const char *elemTypeSuffix(ElemType t) { return infoOf(t).suffix; }
const char *elemTypeCName(ElemType t) { return infoOf(t).cname; }

bool elemTypeOf(mlir::Type t, ElemType &out) {
  if (t.isF32())
    out = ElemType::F32;
  else if (t.isInteger(64))
    out = ElemType::I64;
  else if (t.isInteger(32))
    out = ElemType::I32;
  else if (t.isInteger(1))
    out = ElemType::Bool;
  else
    return false;
  return true;
}

} // namespace plumb
