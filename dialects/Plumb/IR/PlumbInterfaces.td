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

def Plumb_KernelCallOpInterface : OpInterface<"KernelCallOpInterface"> {
  let cppNamespace = "::plumb";
  let description = [{
    The one description of how an op executes: the calls of runtime kernels
    (plumb_rt_<fn>, runtime/include/plumb/runtime/kernels.def) that compute
    its results from its operands, with every shape, attribute, reduction
    tree and element type as an argument (PlumbKernelCall.h). The
    interpreter executes the calls through its kernel table, the C++ emitter
    prints them, the CUDA emitter prints them against the CUDA twin where
    every call has one; so every executor runs the same kernels with the same
    arguments. Computed from static types and attributes only.

    Every op that computes implements it (`Plumb_ComputeOp` declares it), so
    an op without a lowering does not link. Constants, plumb.if and
    plumb.fused are structure, not kernels, and do not implement it.
  }];
  let methods = [
    InterfaceMethod<
      /*desc=*/[{Appends the op's kernel calls (in execution order) and
                 scratch buffers to `lowering`; fails with `error` for
                 operand types or attributes the kernels do not support.}],
      /*retTy=*/"::mlir::LogicalResult",
      /*methodName=*/"lowerToKernelCalls",
      /*args=*/(ins "::plumb::KernelLowering &":$lowering,
                    "std::string &":$error)>,
  ];
}

// Op properties that executors and analyses read (PlumbTraits.h).
class Plumb_OpTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::plumb::OpTrait";
}
/// Output element i reads element i of each (numpy-broadcast) operand and
/// nothing else: the referee re-executes any output range of it
/// (lib/Dispute/Slice.cpp).
def Plumb_Elementwise : Plumb_OpTrait<"Elementwise">;
/// May continue a plumb.fused chain (float32 arithmetic, one result of the
/// chained value's shape): plumb-fuse-elementwise.
def Plumb_FusibleTail : Plumb_OpTrait<"FusibleTail">;
/// May head a plumb.fused chain (a reduction whose result the tail consumes
/// while it is hot).
def Plumb_FusionHead : Plumb_OpTrait<"FusionHead">;
/// Pure data movement with a sub-node rule in the referee: every output
/// element is a copy of one input element.
def Plumb_Movement : Plumb_OpTrait<"Movement">;
/// Reduces floating-point sums along a `#plumb.tree`:
/// plumb-materialize-trees gives it the policy's tree when it has none.
def Plumb_HasReductionTree : Plumb_OpTrait<"HasReductionTree">;

#endif // PLUMB_INTERFACES_TD
