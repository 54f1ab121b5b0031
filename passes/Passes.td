//===- Passes.td - Plumb's passes ----------------------------*- tablegen -*-===//
//
// Part of Plumb. Every pass here keeps every result bit of the program; each
// description says why.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_PASSES_TD
#define PLUMB_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyStaticShapesPass
    : Pass<"plumb-verify-static-shapes", "::mlir::ModuleOp"> {
  let summary = "Checks that the module is a well-formed Plumb program";
  let description = [{
    Requires exactly one `func.func @main`, only plumb and func ops inside it,
    and a ranked, statically shaped tensor of f32, i64, i32 or i1 for every
    value. Reports every offending value, then fails. Changes nothing, so it
    trivially keeps every bit.
  }];
}

def FoldConstantsPass : Pass<"plumb-fold-constants", "::mlir::ModuleOp"> {
  let summary = "Evaluates ops whose operands are all constants";
  let description = [{
    Replaces a node whose operands are all `plumb.constant` by the constant
    it computes, evaluated with the runtime kernels (the same code that runs
    the program, with the op's tree), so folding cannot change a bit. Results
    larger than `max-elements` are left alone so folding cannot blow up the
    IR.

    Before:
      %a = plumb.constant dense<[1.0, 2.0]> : tensor<2xf32>
      %b = plumb.exp %a : tensor<2xf32>
    After:
      %b = plumb.constant dense<[2.71828175, 7.38905621]> : tensor<2xf32>
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", "65536",
           "Largest result (in elements) that is folded">
  ];
}

def SimplifyPass : Pass<"plumb-simplify", "::mlir::ModuleOp"> {
  let summary = "Bit-preserving simplifications of data movement";
  let description = [{
    Removes identities (reshape, cast, expand or transpose that change
    nothing), merges reshape chains into one reshape and transpose chains into
    one transpose, and turns transposes that only move size-1 dimensions into
    reshapes. Only ops that move bits are rewritten; arithmetic is never
    re-associated, rewritten or evaluated here, so every result bit is kept.

    Before:
      %1 = plumb.reshape %0 : tensor<2x3xf32> -> tensor<6xf32>
      %2 = plumb.reshape %1 : tensor<6xf32> -> tensor<3x2xf32>
    After:
      %2 = plumb.reshape %0 : tensor<2x3xf32> -> tensor<3x2xf32>
  }];
}

def EliminateDeadCodePass : Pass<"plumb-dce", "::mlir::ModuleOp"> {
  let summary = "Removes nodes and constants whose results are unused";
  let description = [{
    Every plumb op is free of side effects, so a node nobody reads can be
    dropped; results that are read are computed exactly as before.

    Before:
      %1 = plumb.exp %0 : tensor<4xf32>
      return %0 : tensor<4xf32>
    After:
      return %0 : tensor<4xf32>
  }];
}

def MaterializeTreesPass
    : Pass<"plumb-materialize-trees", "::mlir::ModuleOp"> {
  let summary = "Writes the reduction tree of every reducing op into the IR";
  let description = [{
    Gives every reducing op (matmul, gemm, conv, conv_transpose, pooling
    averages, layer_norm, softmax, log_softmax, reduce_sum/mean/prod, lstm,
    gru) without a `tree` the policy's tree, `#plumb.tree<blocked 256>` by
    default (docs/determinism.md). An absent tree already means exactly this
    tree, so the bits do not change; the attribute makes the order part of
    the node's identity.

    Before:
      %y = plumb.matmul %a, %b : (...) -> ...
    After:
      %y = plumb.matmul %a, %b {tree = #plumb.tree<blocked 256>} : (...) -> ...
  }];
  let options = [
    Option<"block", "block", "int64_t", "256",
           "Chunk size of the blocked tree (0 = sequential)">
  ];
}

def FuseElementwisePass : Pass<"plumb-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Fuses chains of elementwise ops (after a conv, matmul or "
                "gemm) into plumb.fused nodes";
  let description = [{
    Walks @main in order; from each float32 conv, matmul, gemm or fusible
    elementwise op it follows the single use of its value while the user is
    a fusible elementwise op of the same result shape (docs/canonical.md),
    and wraps a chain of two or more ops into one plumb.fused node whose body
    is that chain. The body's ops are the original ops, evaluated in the same
    order on the same values, so every element goes through the same rounded
    operations: every bit is kept. The fused node is one node of the trace
    and the node table.

    Before:
      %c = plumb.conv %x, %w {...} : (...) -> tensor<1x8x4x4xf32>
      %r = plumb.relu %c : tensor<1x8x4x4xf32>
    After:
      %r = plumb.fused -> tensor<1x8x4x4xf32> {
        %c = plumb.conv %x, %w {...} : (...) -> tensor<1x8x4x4xf32>
        %0 = plumb.relu %c : tensor<1x8x4x4xf32>
        plumb.yield %0 : tensor<1x8x4x4xf32>
      }
  }];
}

def CanonicalOrderPass : Pass<"plumb-canonical-order", "::mlir::ModuleOp"> {
  let summary = "Puts @main into the one canonical order";
  let description = [{
    Merges identical constants, sorts constants by content hash and names
    their resource blobs after it, then orders the nodes by Kahn's algorithm
    with ties broken by structural node id (docs/canonical.md). The order
    depends only on the graph's structure, never on ONNX node order or names.
    Reordering independent pure ops cannot change any value, so every bit is
    kept.

    Before (file order a, b):
      %a = plumb.exp %x ...
      %b = plumb.neg %x ...
    After (ordered by node id):
      %b = plumb.neg %x ...
      %a = plumb.exp %x ...
  }];
}

def PrintGasPass : Pass<"plumb-print-gas", "::mlir::ModuleOp"> {
  let summary = "Prints the gas of every node of @main (for tests)";
  let description = [{
    Prices every node of @main with a gas schedule (docs/gas.md) and prints
    one line per node (its counts and gas) and the total to stdout; a
    plumb.if costs its own base plus its dearer branch. An op without a
    static cost (a dynamic shape, counts or gas overflowing 64 bits) is an
    error at that op. Changes nothing in the IR, so it keeps every bit.

    Input:
      %y = plumb.relu %x : tensor<2x3xf32>
    Printed:
      node 0 plumb.relu macs=0 elementwise=6 transcendental=0 compare=0 indexed=0 read=24 written=24 gas=...
      total gas=... schedule=plumb-gas-v1 nodes=1
  }];
  let options = [
    Option<"schedule", "schedule", "std::string", "\"\"",
           "Gas schedule name (default: the newest)">
  ];
}

def PrintKernelCallsPass : Pass<"plumb-print-kernel-calls", "::mlir::ModuleOp"> {
  let summary = "Prints the kernel calls of every op (for tests)";
  let description = [{
    Prints, for every op that computes (in @main and in the regions of its
    plumb.if and plumb.fused nodes, in walk order), the kernel-call form the
    interpreter executes and the C++ and CUDA emitters print
    (dialects/Plumb/IR/PlumbKernelCall.h): one line per call, with buffers
    as %inN / %outN / %scratchN and their element types, constants by their
    runtime names, floats by their bits. An op that has no kernel for its
    operand types is an error at that op. Changes nothing in the IR, so it
    keeps every bit.

    Input:
      %y = plumb.relu %x : tensor<2x3xf32>
    Printed:
      op plumb.relu
      plumb_rt_unary_f32(PLUMB_RT_RELU, %in0:f32, %out0:f32, 6, 0x00000000, 0x00000000)
  }];
}

#endif // PLUMB_PASSES_TD
