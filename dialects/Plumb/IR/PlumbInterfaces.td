//===- PlumbInterfaces.td - Interfaces of the plumb ops ------*- tablegen -*-===//
//
// Part of Plumb. The cost interface: every plumb op states how much work it
// does, computed from its static shapes and attributes alone. The gas
// schedules (include/plumb/Cost/Gas.h, docs/gas.md) price these counts.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_INTERFACES_TD
#define PLUMB_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Plumb_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::plumb";
  let description = [{
    The work an op does, counted from its static operand and result types
    and its attributes (never from data): multiply-accumulate steps of dot
    products, simple elementwise operations, transcendental evaluations,
    NaN-aware compare steps, elements read through computed indices, and
    bytes read (every operand once, in full) and written (every result).
    The counts are exact for the operation sequence the op's description
    defines (docs/gas.md lists the formula of every op family).

    Every plumb op implements it: `Plumb_Op` declares the method, so an op
    without an implementation does not link. Counting is overflow-checked:
    a count that does not fit in 64 bits is a failure, never a wrap.
    `plumb.if` counts only its own work (reading the condition); the gas of
    its branches is added by `computeGas` (the dearer branch).
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/[{Counts the op's work from its static shapes; fails when a
                 count overflows 64 bits.}],
      /*retTy=*/"::mlir::FailureOr<::plumb::OpCounts>",
      /*methodName=*/"getCounts">,
  ];
}

#endif // PLUMB_INTERFACES_TD
