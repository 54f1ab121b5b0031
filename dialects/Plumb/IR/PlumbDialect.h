//===- PlumbDialect.h - The plumb dialect ----------------------*- C++ -*-===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DIALECT_PLUMBDIALECT_H
#define PLUMB_DIALECT_PLUMBDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include <array>
#include <cstdint>
#include <memory>

#include "dialects/Plumb/IR/PlumbDialect.h.inc"

#endif // PLUMB_DIALECT_PLUMBDIALECT_H
