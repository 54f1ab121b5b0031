//===- PlumbOps.h - Operations and attributes of plumb ---------*- C++ -*-===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DIALECT_PLUMBOPS_H
#define PLUMB_DIALECT_PLUMBOPS_H

#include "dialects/Plumb/IR/PlumbDialect.h"
#include "dialects/Plumb/IR/PlumbInterfaces.h"

// The op codes the ops name (PlumbOps.td): the kernel library's tables.
#include "plumb/runtime/elementwise.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_ATTRDEF_CLASSES
#include "dialects/Plumb/IR/PlumbAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Plumb/IR/PlumbOps.h.inc"

#endif // PLUMB_DIALECT_PLUMBOPS_H
