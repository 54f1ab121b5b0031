//===- PlumbOps.td - Operations of the plumb dialect ---------*- tablegen -*-===//
//
// Part of Plumb. One op per ONNX operator (after import-time normalisation:
// axes are non-negative, padding is explicit, shape arguments are static
// attributes or result types). docs/dialect.md maps every ONNX operator to
// these ops; docs/determinism.md gives the exact numeric semantics.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_OPS_TD
#define PLUMB_OPS_TD

include "PlumbBase.td"
include "PlumbAttrs.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Plumb_OptTree : OptionalAttr<Plumb_TreeAttr>;

// An op that computes: it lowers to kernel calls (PlumbKernelCalls.cpp), the
// one description every executor reads.
class Plumb_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Plumb_Op<mnemonic,
               !listconcat(traits,
                           [DeclareOpInterfaceMethods<Plumb_KernelCallOpInterface>])>;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Plumb_ConstantOp : Plumb_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "output"]>]> {
  let summary = "A constant tensor (initializer, Constant node or folded value)";
  let description = [{
    A tensor whose bits are given by `value`. Large weights are stored as
    `dense_resource` blobs so the IR stays readable.

    ```mlir
    %w = plumb.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %big = plumb.constant dense_resource<w0> : tensor<16x8x5x5xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

// An elementwise unary op: its runtime code (the op tables of runtime
// elementwise.h, which hold its per-element arithmetic), its cost per
// element [simple, transcendental, compare] (docs/gas.md), and the C++
// expressions of the kernel's alpha and beta parameters. Fusible ops are the
// float32 ones.
class Plumb_UnaryOp<string mnemonic, Type T, string rtCode, list<int> cost,
                    string sem, dag extra = (ins), string alpha = "0.0f",
                    string beta = "0.0f", list<Trait> traits = []>
    : Plumb_ComputeOp<mnemonic, !listconcat([Pure, SameOperandsAndResultType,
                                             Plumb_Elementwise], traits)> {
  let summary = "Elementwise " # mnemonic;
  let description = sem # [{

    ```mlir
    %y = plumb.}] # mnemonic # [{ %x : tensor<2x3xf32>
    ```
  }];
  let arguments = !con((ins T:$input), extra);
  let results = (outs T:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDeclaration = [{
    /// The op's plumb_rt_unary_op code (runtime elementwise.h).
    int32_t getUnaryCode() { return }] # rtCode # [{; }
    /// The kernel's alpha and beta parameters.
    float getUnaryAlpha() { return }] # alpha # [{; }
    float getUnaryBeta() { return }] # beta # [{; }
  }];
  let extraClassDefinition = [{
    ::mlir::FailureOr<::plumb::OpCounts> $cppClass::getCounts() {
      return ::plumb::elementwiseCounts(getOperation(), }] #
        !interleave(cost, ", ") # [{);
    }
    ::mlir::LogicalResult
    $cppClass::lowerToKernelCalls(::plumb::KernelLowering &l,
                                  std::string &err) {
      return ::plumb::lowerUnaryOp(getOperation(), getUnaryCode(),
                                   getUnaryAlpha(), getUnaryBeta(), l, err);
    }
  }];
}

class Plumb_FloatUnaryOp<string mnemonic, string rtCode, list<int> cost,
                         string sem, dag extra = (ins), string alpha = "0.0f",
                         string beta = "0.0f">
    : Plumb_UnaryOp<mnemonic, Plumb_FloatTensor, rtCode, cost, sem, extra, alpha,
                    beta, [Plumb_FusibleTail]>;

def Plumb_NegOp : Plumb_UnaryOp<"neg", Plumb_NumTensor, "PLUMB_RT_NEG", [1, 0],
  "y = -x (sign flip; integers wrap: -INT_MIN = INT_MIN).", (ins), "0.0f",
  "0.0f", [Plumb_FusibleTail]> { let hasFolder = 1; }
def Plumb_AbsOp : Plumb_UnaryOp<"abs", Plumb_NumTensor, "PLUMB_RT_ABS", [1, 0],
  "y = |x| (clears the sign bit; integers wrap: |INT_MIN| = INT_MIN).", (ins),
  "0.0f", "0.0f", [Plumb_FusibleTail]>;
def Plumb_ReciprocalOp : Plumb_FloatUnaryOp<"reciprocal", "PLUMB_RT_RECIPROCAL",
  [1, 0], "y = 1 / x, one IEEE division (correctly rounded).">;
def Plumb_SqrtOp : Plumb_FloatUnaryOp<"sqrt", "PLUMB_RT_SQRT", [1, 0],
  "y = sqrt(x), IEEE square root (correctly rounded); sqrt(x<0) = NaN.">;
def Plumb_ExpOp : Plumb_FloatUnaryOp<"exp", "PLUMB_RT_EXP", [0, 1],
  "y = e^x, Plumb's own correctly rounded exp (docs/math.md).">;
def Plumb_LogOp : Plumb_FloatUnaryOp<"log", "PLUMB_RT_LOG", [0, 1],
  "y = ln x, Plumb's own correctly rounded log (docs/math.md).">;
def Plumb_TanhOp : Plumb_FloatUnaryOp<"tanh", "PLUMB_RT_TANH", [0, 1],
  "y = tanh x, Plumb's own correctly rounded tanh (docs/math.md).">;
def Plumb_SigmoidOp : Plumb_FloatUnaryOp<"sigmoid", "PLUMB_RT_SIGMOID", [0, 1],
  "y = 1 / (1 + e^-x) as defined in docs/math.md.">;
def Plumb_ErfOp : Plumb_FloatUnaryOp<"erf", "PLUMB_RT_ERF", [0, 1],
  "y = erf x, Plumb's own correctly rounded erf (docs/math.md).">;
def Plumb_ReluOp : Plumb_UnaryOp<"relu", Plumb_NumTensor, "PLUMB_RT_RELU",
  [1, 0], "y = x > 0 ? x : 0 (NaN stays NaN, -0.0 gives +0.0).", (ins), "0.0f",
  "0.0f", [Plumb_FusibleTail]>;
def Plumb_NotOp : Plumb_UnaryOp<"not", Plumb_BoolTensor, "-1", [1, 0],
  "Logical negation of an i1 tensor."> { let hasFolder = 1; }

def Plumb_HardSigmoidOp : Plumb_FloatUnaryOp<"hard_sigmoid",
  "PLUMB_RT_HARD_SIGMOID", [4, 0],
  "y = max(0, min(1, alpha * x + beta)), one multiply then one add (no fma).",
  (ins F32Attr:$alpha, F32Attr:$beta), "getAlpha().convertToFloat()",
  "getBeta().convertToFloat()">;
def Plumb_HardSwishOp : Plumb_FloatUnaryOp<"hard_swish", "PLUMB_RT_HARD_SWISH",
  [5, 0],
  "y = x * hard_sigmoid(x) with alpha = 1/6 (rounded to f32) and beta = 0.5: "
  "t = alpha * x; t = t + 0.5; h = min(max(t, 0), 1); y = x * h (no fma).">;
def Plumb_LeakyReluOp : Plumb_FloatUnaryOp<"leaky_relu", "PLUMB_RT_LEAKY_RELU",
  [2, 0], "y = x < 0 ? alpha * x : x.", (ins F32Attr:$alpha),
  "getAlpha().convertToFloat()">;
def Plumb_ClipOp : Plumb_FloatUnaryOp<"clip", "PLUMB_RT_CLIP", [0, 0, 2],
  "y = min(max(x, min), max); NaN stays NaN. Bounds default to -inf/+inf.",
  (ins F32Attr:$min, F32Attr:$max), "getMin().convertToFloat()",
  "getMax().convertToFloat()">;
def Plumb_GeluOp : Plumb_FloatUnaryOp<"gelu",
  "(getApproximate() == \"tanh\" ? PLUMB_RT_GELU_TANH : PLUMB_RT_GELU)",
  [0, 1],
  "approximate = \"none\": y = 0.5 * x * (1 + erf(x / sqrt(2))); \"tanh\": "
  "y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))); exact operation "
  "sequence in docs/math.md.",
  (ins DefaultValuedStrAttr<StrAttr, "none">:$approximate)> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise with numpy broadcasting
//===----------------------------------------------------------------------===//

// A binary op with numpy broadcasting: its plumb_rt_binary_op code (runtime
// elementwise.h) and its cost per result element [simple, transcendental]
// (empty: the op writes its own getCounts).
class Plumb_BroadcastOp<string mnemonic, Type T, Type R, string rtCode,
                        string sem, list<int> cost = [1, 0],
                        list<Trait> traits = []>
    : Plumb_ComputeOp<mnemonic, !listconcat([Pure, Plumb_Elementwise], traits)> {
  let summary = "Elementwise " # mnemonic # " with numpy broadcasting";
  let description = sem # [{ Operands broadcast numpy-style to the result
    shape; both operands have the same element type.

    ```mlir
    %z = plumb.}] # mnemonic # [{ %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins T:$lhs, T:$rhs);
  let results = (outs R:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The op's plumb_rt_binary_op code (runtime elementwise.h).
    static constexpr int32_t kBinaryCode = }] # rtCode # [{;
  }];
  let extraClassDefinition = !strconcat(!if(!empty(cost), "", [{
    ::mlir::FailureOr<::plumb::OpCounts> $cppClass::getCounts() {
      return ::plumb::elementwiseCounts(getOperation(), }] #
        !interleave(cost, ", ") # [{);
    }
  }]), [{
    ::mlir::LogicalResult
    $cppClass::lowerToKernelCalls(::plumb::KernelLowering &l,
                                  std::string &err) {
      return ::plumb::lowerBinaryOp(getOperation(), kBinaryCode, l, err);
    }
  }]);
}

class Plumb_ArithOp<string mnemonic, string rtCode, string sem,
                    list<int> cost = [1, 0]>
    : Plumb_BroadcastOp<mnemonic, Plumb_NumTensor, Plumb_NumTensor, rtCode, sem,
                        cost, [Plumb_FusibleTail]>;
class Plumb_CompareOp<string mnemonic, Type T, string rtCode, string sem>
    : Plumb_BroadcastOp<mnemonic, T, Plumb_BoolTensor, rtCode, sem>;

def Plumb_AddOp : Plumb_ArithOp<"add", "PLUMB_RT_ADD",
  "z = x + y (IEEE; integers wrap).">;
def Plumb_SubOp : Plumb_ArithOp<"sub", "PLUMB_RT_SUB",
  "z = x - y (IEEE; integers wrap).">;
def Plumb_MulOp : Plumb_ArithOp<"mul", "PLUMB_RT_MUL",
  "z = x * y (IEEE; integers wrap).">;
def Plumb_DivOp : Plumb_ArithOp<"div", "PLUMB_RT_DIV",
  "z = x / y (IEEE; integers truncate toward zero, x / 0 = 0, INT_MIN / -1 = INT_MIN).">;
def Plumb_PowOp : Plumb_ArithOp<"pow", "PLUMB_RT_POW",
  "z = x^y: f32, Plumb's own pow (docs/math.md); int32/int64, the exact "
  "power by repeated squaring with two's complement wraparound, and for "
  "y < 0: 1 for x = 1, +-1 for x = -1 (by the parity of y), 0 otherwise "
  "(0^y = 0 too).", []>;
def Plumb_EqualOp : Plumb_CompareOp<"equal", Plumb_Tensor, "PLUMB_RT_EQUAL",
  "z = x == y (IEEE comparison: NaN is unequal to everything).">;
def Plumb_LessOp : Plumb_CompareOp<"less", Plumb_NumTensor, "PLUMB_RT_LESS",
  "z = x < y.">;
def Plumb_LessOrEqualOp : Plumb_CompareOp<"less_or_equal", Plumb_NumTensor,
  "PLUMB_RT_LESS_OR_EQUAL", "z = x <= y.">;
def Plumb_GreaterOp : Plumb_CompareOp<"greater", Plumb_NumTensor,
  "PLUMB_RT_GREATER", "z = x > y.">;
def Plumb_GreaterOrEqualOp : Plumb_CompareOp<"greater_or_equal",
  Plumb_NumTensor, "PLUMB_RT_GREATER_OR_EQUAL", "z = x >= y.">;
def Plumb_AndOp : Plumb_BroadcastOp<"and", Plumb_BoolTensor, Plumb_BoolTensor,
  "PLUMB_RT_AND", "z = x and y.">;
def Plumb_OrOp : Plumb_BroadcastOp<"or", Plumb_BoolTensor, Plumb_BoolTensor,
  "PLUMB_RT_OR", "z = x or y.">;

// A variadic op folded left to right: its plumb_rt_binary_op code (the fold)
// and whether its steps are NaN-aware compares (docs/gas.md).
class Plumb_VariadicOp<string mnemonic, Type T, string rtCode, bit compare,
                       string sem>
    : Plumb_ComputeOp<mnemonic, [Pure, Plumb_Elementwise, Plumb_FusibleTail]> {
  let summary = "Elementwise " # mnemonic # " of one or more tensors";
  let description = sem # [{ All operands broadcast numpy-style to the
    result shape and are combined strictly left to right:
    ((x0 op x1) op x2) ...

    ```mlir
    %z = plumb.}] # mnemonic # [{ %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<T>:$inputs);
  let results = (outs T:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The plumb_rt_binary_op code of the fold (runtime elementwise.h).
    static constexpr int32_t kFoldCode = }] # rtCode # [{;
  }];
  let extraClassDefinition = [{
    ::mlir::FailureOr<::plumb::OpCounts> $cppClass::getCounts() {
      return ::plumb::variadicCounts(getOperation(), }] # compare # [{);
    }
    ::mlir::LogicalResult
    $cppClass::lowerToKernelCalls(::plumb::KernelLowering &l,
                                  std::string &err) {
      return ::plumb::lowerVariadicOp(getOperation(), kFoldCode, l, err);
    }
  }];
}

def Plumb_SumOp : Plumb_VariadicOp<"sum", Plumb_NumTensor, "PLUMB_RT_ADD", 0,
  "Sum (IEEE additions).">;
def Plumb_MaxOp : Plumb_VariadicOp<"max", Plumb_NumTensor, "PLUMB_RT_MAX", 1,
  "Maximum: NaN if either side is NaN; max(-0.0, +0.0) = +0.0."> {
  let hasFolder = 1;
}
def Plumb_MinOp : Plumb_VariadicOp<"min", Plumb_NumTensor, "PLUMB_RT_MIN", 1,
  "Minimum: NaN if either side is NaN; min(-0.0, +0.0) = -0.0."> {
  let hasFolder = 1;
}

def Plumb_WhereOp : Plumb_ComputeOp<"where", [Pure, Plumb_Elementwise]> {
  let summary = "Elementwise select with numpy broadcasting";
  let description = [{
    output = cond ? x : y, all three broadcast to the result shape. Moves bits.

    ```mlir
    %z = plumb.where %c, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Plumb_BoolTensor:$cond, Plumb_Tensor:$x, Plumb_Tensor:$y);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat =
      "$cond `,` $x `,` $y attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Plumb_CastOp : Plumb_ComputeOp<"cast", [Pure, Plumb_Elementwise]> {
  let summary = "Element type conversion";
  let description = [{
    Converts each element to the result element type. f32 -> integer truncates
    toward zero; NaN gives 0 and out-of-range values saturate to the integer
    range. Integer -> f32 rounds to nearest even. Anything -> i1 is `x != 0`;
    i1 -> number gives 0 or 1. i64 -> i32 keeps the low 32 bits.

    ```mlir
    %y = plumb.cast %x : tensor<4xi64> -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$input);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Plumb_MatMulOp : Plumb_ComputeOp<"matmul",
    [Pure, Plumb_FusionHead, Plumb_HasReductionTree]> {
  let summary = "numpy matmul (batched, broadcasting)";
  let description = [{
    numpy `matmul` semantics (1-D operands are promoted and the promoted
    dimension removed, batch dimensions broadcast). Each output element is the
    dot product over k = 0..K-1 in increasing order, reduced by `tree`
    (products with fma inside each chunk).

    ```mlir
    %c = plumb.matmul %a, %b {tree = #plumb.tree<blocked 64>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$lhs, Plumb_FloatTensor:$rhs,
                       Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Plumb_MatMulIntegerOp : Plumb_ComputeOp<"matmul_integer", [Pure]> {
  let summary = "numpy matmul of int32 tensors, wrapping (MatMulInteger)";
  let description = [{
    numpy `matmul` shapes as `plumb.matmul`; each output element is the sum
    over k of lhs(m, k) * rhs(k, n) in two's-complement int32 arithmetic
    (products and sums wrap modulo 2^32). The sum is exact in any order, so
    the op has no tree. ONNX MatMulInteger imports as this op on the
    operands minus their zero points (8-bit values held as int32).

    ```mlir
    %c = plumb.matmul_integer %a, %b : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I32]>:$lhs,
                       StaticShapeTensorOf<[I32]>:$rhs);
  let results = (outs StaticShapeTensorOf<[I32]>:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Plumb_GemmOp : Plumb_ComputeOp<"gemm",
    [Pure, Plumb_FusionHead, Plumb_HasReductionTree]> {
  let summary = "General matrix multiply Y = alpha * A' * B' + beta * C";
  let description = [{
    A' = trans_a ? A^T : A (M x K), B' likewise (K x N), C broadcasts to M x N.
    Per element: t = dot over k in increasing order reduced by `tree`; if
    alpha != 1, t = alpha * t; if C is present, t = t + (beta != 1 ? beta * c : c).

    ```mlir
    %y = plumb.gemm %a, %b, %c {alpha = 1.0 : f32, beta = 1.0 : f32, trans_a = false, trans_b = true} : (tensor<1x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<1x1000xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$a, Plumb_FloatTensor:$b,
                       Optional<Plumb_FloatTensor>:$c, F32Attr:$alpha,
                       F32Attr:$beta, BoolAttr:$trans_a, BoolAttr:$trans_b,
                       Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat =
      "$a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Plumb_ConvOp : Plumb_ComputeOp<"conv",
    [Pure, Plumb_FusionHead, Plumb_HasReductionTree]> {
  let summary = "N-d convolution (NCHW, OIHW weights, groups)";
  let description = [{
    ONNX Conv with explicit `pads` (begins then ends per spatial dim). Each
    output element reduces over (input channel of its group, kernel position)
    flattened with the last kernel dimension fastest, by `tree`; padded
    positions are +0.0 terms; the bias is added after the reduction.

    ```mlir
    %y = plumb.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x28x28xf32>, tensor<8x1x5x5xf32>, tensor<8xf32>) -> tensor<1x8x28x28xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, Plumb_FloatTensor:$weight,
                       Optional<Plumb_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$group,
                       Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

def Plumb_ConvTransposeOp : Plumb_ComputeOp<"conv_transpose",
    [Pure, Plumb_HasReductionTree]> {
  let summary = "N-d transposed convolution";
  let description = [{
    ONNX ConvTranspose with explicit `pads` and `output_padding` (output_shape
    is resolved into pads at import), any number of spatial dims. Each output
    element is a sum over every (input channel of its group, kernel position)
    pair, in increasing order of input channel then kernel position (row
    major, last spatial dim fastest); a pair that reaches no input element
    contributes +0.0 * w. Reduced by `tree`; bias after (docs/determinism.md).

    ```mlir
    %y = plumb.conv_transpose %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x17x17xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, Plumb_FloatTensor:$weight,
                       Optional<Plumb_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding, I64Attr:$group,
                       Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling and normalisation
//===----------------------------------------------------------------------===//

def Plumb_MaxPoolOp : Plumb_ComputeOp<"max_pool", [Pure]> {
  let summary = "N-d max pooling";
  let description = [{
    ONNX MaxPool with explicit pads; padded positions are ignored. The window
    is scanned in row-major order; NaN propagates. An optional second result
    is ONNX's Indices (int64): the flattened input index of the first window
    position holding the result's bits, row-major, or for 2-D pools with
    `column_major_indices` numbered column by column within each plane
    (storage_order 1).

    ```mlir
    %y = plumb.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x28x28xf32> -> tensor<1x8x14x14xf32>
    %z, %i = plumb.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : tensor<1x8x28x28xf32> -> tensor<1x8x14x14xf32>, tensor<1x8x14x14xi64>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                       UnitAttr:$column_major_indices);
  let results = (outs Plumb_FloatTensor:$output,
                      Variadic<StaticShapeTensorOf<[I64]>>:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output) "
                       "(`,` type($indices)^)?";
  let hasVerifier = 1;
}

def Plumb_AveragePoolOp : Plumb_ComputeOp<"average_pool",
    [Pure, Plumb_HasReductionTree]> {
  let summary = "N-d average pooling";
  let description = [{
    ONNX AveragePool with explicit pads and optional `dilations` (absent:
    all 1). The window sum runs sequentially in row-major window order from
    -0.0, then one division by the count (all window positions if
    count_include_pad, else only those inside the input).

    ```mlir
    %y = plumb.average_pool %x {kernel_shape = array<i64: 7, 7>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : tensor<1x2048x7x7xf32> -> tensor<1x2048x1x1xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, DenseI64ArrayAttr:$kernel_shape,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       BoolAttr:$ceil_mode, BoolAttr:$count_include_pad,
                       Plumb_OptTree:$tree,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Plumb_GlobalAveragePoolOp : Plumb_ComputeOp<"global_average_pool",
    [Pure, Plumb_HasReductionTree]> {
  let summary = "Mean over all spatial positions";
  let description = [{
    Sum over the spatial positions in row-major order by `tree`, then one
    division by their count.

    ```mlir
    %y = plumb.global_average_pool %x : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Plumb_GlobalMaxPoolOp : Plumb_ComputeOp<"global_max_pool", [Pure]> {
  let summary = "Maximum over all spatial positions";
  let description = [{
    Scans spatial positions in row-major order; NaN propagates.

    ```mlir
    %y = plumb.global_max_pool %x : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Plumb_BatchNormOp : Plumb_ComputeOp<"batch_norm",
    [Pure, Plumb_FusibleTail]> {
  let summary = "Batch normalisation (inference)";
  let description = [{
    Per channel c (dimension 1): y = (x - mean[c]) / sqrt(var[c] + epsilon)
    * scale[c] + bias[c], evaluated in exactly that order with IEEE operations
    (one subtraction, one addition, one square root, one division, one
    multiplication, one addition).

    ```mlir
    %y = plumb.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x16x8x8xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, Plumb_FloatTensor:$scale,
                       Plumb_FloatTensor:$bias, Plumb_FloatTensor:$mean,
                       Plumb_FloatTensor:$variance, F32Attr:$epsilon);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Plumb_LayerNormOp : Plumb_ComputeOp<"layer_norm",
    [Pure, Plumb_HasReductionTree]> {
  let summary = "Layer normalisation over the trailing dimensions from `axis`";
  let description = [{
    Over the n = prod(shape[axis:]) trailing elements: mean = sum(x) / n,
    var = sum((x - mean)^2) / n (both sums by `tree`; the squares accumulate
    as fma(d, d, acc) inside each chunk, d = x - mean),
    y = (x - mean) / sqrt(var + epsilon) * scale + bias.
    Optionally two more results, ONNX's Mean and InvStdDev: per row the
    mean and 1 / sqrt(var + epsilon), shaped as the input with every
    dimension from `axis` on set to 1.

    ```mlir
    %y = plumb.layer_norm %x, %s, %b {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
    %z, %mean, %inv = plumb.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-05 : f32} : (tensor<1x4x8xf32>, tensor<8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>)
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, Plumb_FloatTensor:$scale,
                       Optional<Plumb_FloatTensor>:$bias, I64Attr:$axis,
                       F32Attr:$epsilon, Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$output,
                      Variadic<Plumb_FloatTensor>:$stats);
  let assemblyFormat = "$input `,` $scale (`,` $bias^)? attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

class Plumb_SoftmaxBase<string mnemonic, string sem>
    : Plumb_ComputeOp<mnemonic, [Pure, SameOperandsAndResultType,
                                 Plumb_HasReductionTree]> {
  let summary = mnemonic # " along one axis";
  let description = sem # [{

    ```mlir
    %y = plumb.}] # mnemonic # [{ %x {axis = 1 : i64} : tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, I64Attr:$axis,
                       Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Plumb_SoftmaxOp : Plumb_SoftmaxBase<"softmax",
  "m = max along the axis (sequential), e_i = exp(x_i - m), s = sum of e by "
  "`tree`, y_i = e_i / s. (ONNX opset < 13 flattening is imported as "
  "reshapes around this op.)">;
def Plumb_LogSoftmaxOp : Plumb_SoftmaxBase<"log_softmax",
  "m = max along the axis, s = sum of exp(x_i - m) by `tree`, "
  "y_i = (x_i - m) - log(s).">;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Plumb_ReduceOp<string mnemonic, string sem, list<Trait> traits = []>
    : Plumb_ComputeOp<mnemonic, !listconcat([Pure], traits)> {
  let summary = mnemonic # " over a set of axes";
  let description = sem # [{ `axes` are sorted, unique and non-negative; the
    reduced elements of one output are visited in row-major order of the
    reduced axes. Without `keepdims` the reduced axes are removed.

    ```mlir
    %y = plumb.}] # mnemonic # [{ %x {axes = array<i64: 1>, keepdims = true} : tensor<2x3xf32> -> tensor<2x1xf32>
    ```
  }];
  let arguments = (ins Plumb_NumTensor:$input, DenseI64ArrayAttr:$axes,
                       BoolAttr:$keepdims, Plumb_OptTree:$tree);
  let results = (outs Plumb_NumTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Plumb_ReduceSumOp : Plumb_ReduceOp<"reduce_sum",
  "Sum by `tree` (integers wrap).", [Plumb_HasReductionTree]>;
def Plumb_ReduceMeanOp : Plumb_ReduceOp<"reduce_mean",
  "Sum by `tree`, then one division by the number of reduced elements.",
  [Plumb_HasReductionTree]>;
def Plumb_ReduceProdOp : Plumb_ReduceOp<"reduce_prod",
  "Product with the shape of `tree`: chunks multiplied sequentially from 1.0, "
  "then combined by stride-halving multiplication (padding 1.0).",
  [Plumb_HasReductionTree]>;
def Plumb_ReduceMaxOp : Plumb_ReduceOp<"reduce_max",
  "Sequential maximum (NaN propagates; `tree` is ignored and absent).">;
def Plumb_ReduceMinOp : Plumb_ReduceOp<"reduce_min",
  "Sequential minimum (NaN propagates; `tree` is ignored and absent).">;

def Plumb_ArgMaxOp : Plumb_ComputeOp<"arg_max", [Pure]> {
  let summary = "Index of the maximum along an axis";
  let description = [{
    The first (or with `select_last_index` the last) index of the maximum;
    a NaN counts as larger than everything.

    ```mlir
    %i = plumb.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = false} : tensor<1x10xf32> -> tensor<1xi64>
    ```
  }];
  let arguments = (ins Plumb_NumTensor:$input, I64Attr:$axis,
                       BoolAttr:$keepdims, BoolAttr:$select_last_index);
  let results = (outs StaticShapeTensorOf<[I64]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Plumb_TopKOp : Plumb_ComputeOp<"top_k", [Pure]> {
  let summary = "The k largest (or smallest) elements along an axis, sorted";
  let description = [{
    ONNX TopK. Along `axis`, the k elements first in the order "larger
    first" (`largest = true`) or "smaller first", and their int64 indices.
    The order is total, so the result does not depend on the algorithm:
    NaN counts as larger than every number in both modes (first when
    largest, last otherwise), equal values (-0 and +0 too) keep index
    order. Results are always sorted (ONNX `sorted = 0` leaves the order
    unspecified). NaN values are stored canonical.

    ```mlir
    %v, %i = plumb.top_k %x {axis = 1 : i64, k = 2 : i64, largest = true} : tensor<3x5xf32> -> tensor<3x2xf32>, tensor<3x2xi64>
    ```
  }];
  let arguments = (ins Plumb_NumTensor:$input, I64Attr:$axis, I64Attr:$k,
                       BoolAttr:$largest);
  let results = (outs Plumb_NumTensor:$values,
                      StaticShapeTensorOf<[I64]>:$indices);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($values) `,` type($indices)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement (no arithmetic: bits are moved, never changed)
//===----------------------------------------------------------------------===//

def Plumb_ReshapeOp : Plumb_ComputeOp<"reshape", [Pure, Plumb_Movement]> {
  let summary = "Reinterprets the row-major elements with a new shape";
  let description = [{
    Also the form of ONNX Flatten, Squeeze and Unsqueeze.

    ```mlir
    %y = plumb.reshape %x : tensor<1x16x4x4xf32> -> tensor<1x256xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$input);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Plumb_TransposeOp : Plumb_ComputeOp<"transpose", [Pure, Plumb_Movement]> {
  let summary = "Permutes dimensions: output dim i is input dim perm[i]";
  let description = [{
    ```mlir
    %y = plumb.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x2x3x4xf32> -> tensor<1x3x4x2xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Plumb_ConcatOp : Plumb_ComputeOp<"concat", [Pure, Plumb_Movement]> {
  let summary = "Concatenates tensors along an axis";
  let description = [{
    ```mlir
    %y = plumb.concat %a, %b {axis = 1 : i64} : (tensor<1x2xf32>, tensor<1x3xf32>) -> tensor<1x5xf32>
    ```
  }];
  let arguments = (ins Variadic<Plumb_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Plumb_SplitOp : Plumb_ComputeOp<"split", [Pure]> {
  let summary = "Splits a tensor along an axis into pieces of given sizes";
  let description = [{
    ```mlir
    %a, %b = plumb.split %x {axis = 0 : i64, sizes = array<i64: 2, 4>} : tensor<6xf32> -> tensor<2xf32>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$input, I64Attr:$axis,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<Plumb_Tensor>:$outputs);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($outputs)";
  let hasVerifier = 1;
}

def Plumb_SliceOp : Plumb_ComputeOp<"slice", [Pure, Plumb_Movement]> {
  let summary = "Strided slice with one start and step per dimension";
  let description = [{
    Output element i (per dimension d) is input element starts[d] + i *
    steps[d]; the result type gives the count. Starts are in range and steps
    non-zero (negative steps walk backwards).

    ```mlir
    %y = plumb.slice %x {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<4x8xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$steps);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Plumb_GatherOp : Plumb_ComputeOp<"gather", [Pure]> {
  let summary = "Gathers slices along an axis by index";
  let description = [{
    ONNX Gather: output shape is data[:axis] + indices + data[axis+1:].
    Negative indices count from the end; an index out of range is a run-time
    error.

    ```mlir
    %y = plumb.gather %data, %idx {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$data, Plumb_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat =
      "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Plumb_GatherNDOp : Plumb_ComputeOp<"gather_nd",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "Gathers slices by index tuples (ONNX GatherND)";
  let description = [{
    `indices` (rank q, last dimension k) holds index tuples into dimensions
    [b, b + k) of `data`, b = `batch_dims` (the first b dimensions of both
    are batch dimensions and equal). The result, of shape
    indices[:-1] + data[b + k:], holds for each tuple the slice of data it
    names (moved bits). Negative indices count from the end; an index out of
    range is a run-time error. The result type is inferred.

    ```mlir
    %y = plumb.gather_nd %data, %idx : (tensor<2x3x4xf32>, tensor<5x2xi64>) -> tensor<5x4xf32>
    %z = plumb.gather_nd %data, %b {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$data, Plumb_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$batch_dims);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat =
      "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::mlir::FailureOr<::plumb::OpCounts> $cppClass::getCounts() {
      return ::plumb::indexedMovementCounts(getOperation());
    }
  }];
}

def Plumb_ExpandOp : Plumb_ComputeOp<"expand", [Pure]> {
  let summary = "Broadcasts a tensor to the result shape";
  let description = [{
    ```mlir
    %y = plumb.expand %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$input);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Plumb_PadOp : Plumb_ComputeOp<"pad", [Pure]> {
  let summary = "Pads with a constant, by reflection or by edge replication";
  let description = [{
    `pads` holds the begin pads of every dimension then the end pads (all
    non-negative). `mode` is "constant" (fill with `value`), "reflect" or
    "edge".

    ```mlir
    %y = plumb.pad %x {mode = "constant", pads = array<i64: 0, 1, 0, 1>, value = 0.0 : f32} : tensor<2x3xf32> -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$input, DenseI64ArrayAttr:$pads,
                       StrAttr:$mode, TypedAttrInterface:$value);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Plumb_TileOp : Plumb_ComputeOp<"tile", [Pure]> {
  let summary = "Repeats a tensor along each dimension";
  let description = [{
    ```mlir
    %y = plumb.tile %x {repeats = array<i64: 2, 1>} : tensor<2x3xf32> -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Plumb_ResizeOp : Plumb_ComputeOp<"resize", [Pure]> {
  let summary = "Nearest, linear or cubic resampling";
  let description = [{
    ONNX Resize with one scale per dimension (`scales`) and the result type
    giving the output size. `mode` is "nearest", "linear" or "cubic" (cubic
    takes `cubic_coeff_a` and `exclude_outside`, present only with cubic);
    `coordinate_transformation_mode` is one of half_pixel, asymmetric,
    align_corners, pytorch_half_pixel; `nearest_mode` one of
    round_prefer_floor, round_prefer_ceil, floor, ceil. The float operation
    sequence for coordinates and weights is in docs/determinism.md.

    ```mlir
    %y = plumb.resize %x {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, StrAttr:$mode,
                       StrAttr:$coordinate_transformation_mode,
                       StrAttr:$nearest_mode, DenseF32ArrayAttr:$scales,
                       OptionalAttr<F32Attr>:$cubic_coeff_a,
                       OptionalAttr<BoolAttr>:$exclude_outside);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Recurrent networks
//===----------------------------------------------------------------------===//

def Plumb_LSTMOp : Plumb_ComputeOp<"lstm",
    [Pure, AttrSizedOperandSegments, Plumb_HasReductionTree]> {
  let summary = "ONNX LSTM (layout 0, default activations)";
  let description = [{
    X [seq, batch, input], W [dirs, 4H, input], R [dirs, 4H, H], B [dirs, 8H],
    initial_h/initial_c [dirs, batch, H], P [dirs, 3H]. Gate order i, o, f, c.
    Per step: g = (x_t . W^T by `tree`) + (h . R^T by `tree`) + Wb + Rb (added
    in that order), i = sigmoid(g_i + p_i*c), f = sigmoid(g_f + p_f*c),
    c' = f*c + i*tanh(g_c), o = sigmoid(g_o + p_o*c'), h' = o*tanh(c').
    Results Y [seq, dirs, batch, H], Y_h and Y_c [dirs, batch, H].

    ```mlir
    %y, %yh, %yc = plumb.lstm %x, %w, %r, %b, %h0, %c0 {direction = "forward", hidden_size = 128 : i64} : (...) -> (...)
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$x, Plumb_FloatTensor:$w,
                       Plumb_FloatTensor:$r, Optional<Plumb_FloatTensor>:$b,
                       Optional<Plumb_FloatTensor>:$initial_h,
                       Optional<Plumb_FloatTensor>:$initial_c,
                       Optional<Plumb_FloatTensor>:$p, StrAttr:$direction,
                       I64Attr:$hidden_size, OptionalAttr<F32Attr>:$clip,
                       BoolAttr:$input_forget, Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$y, Plumb_FloatTensor:$y_h,
                      Plumb_FloatTensor:$y_c);
  let assemblyFormat = [{
    $x `,` $w `,` $r (`bias` $b^)? (`initial_h` $initial_h^)?
    (`initial_c` $initial_c^)? (`peephole` $p^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Plumb_LSTMDynQuantOp : Plumb_ComputeOp<"lstm_dq",
    [Pure, AttrSizedOperandSegments]> {
  let summary = "LSTM with 8-bit weights and dynamically quantized inputs "
                "(com.microsoft DynamicQuantizeLSTM)";
  let description = [{
    X [seq, batch, input]; W [dirs, input, 4H] and R [dirs, H, 4H] hold
    8-bit integers as int32; w_scale / r_scale are [dirs] or [dirs, 4H]
    (per gate column), the zero points (optional, 0 when absent) the same
    shape as their scale. Per direction, X (all steps at once) and at every
    step H_prev (all batch entries) are quantized to uint8 as
    DynamicQuantizeLinear does; the products are exact int32 sums scaled once
    by (input scale * weight scale). The rest is `plumb.lstm` (gates i, o, f,
    c; B, initial states and peepholes as there). Runtime rnn.h,
    plumb_rt_lstm_dq_f32, is the exact definition.

    ```mlir
    %y, %yh, %yc = plumb.lstm_dq %x, %w, %ws, %r, %rs {direction = "forward", hidden_size = 8 : i64} : (...) -> (...)
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$x, StaticShapeTensorOf<[I32]>:$w,
                       Plumb_FloatTensor:$w_scale,
                       Optional<StaticShapeTensorOf<[I32]>>:$w_zero_point,
                       StaticShapeTensorOf<[I32]>:$r,
                       Plumb_FloatTensor:$r_scale,
                       Optional<StaticShapeTensorOf<[I32]>>:$r_zero_point,
                       Optional<Plumb_FloatTensor>:$b,
                       Optional<Plumb_FloatTensor>:$initial_h,
                       Optional<Plumb_FloatTensor>:$initial_c,
                       Optional<Plumb_FloatTensor>:$p, StrAttr:$direction,
                       I64Attr:$hidden_size, OptionalAttr<F32Attr>:$clip,
                       BoolAttr:$input_forget);
  let results = (outs Plumb_FloatTensor:$y, Plumb_FloatTensor:$y_h,
                      Plumb_FloatTensor:$y_c);
  let assemblyFormat = [{
    $x `,` $w `,` $w_scale (`w_zero_point` $w_zero_point^)? `,` $r `,`
    $r_scale (`r_zero_point` $r_zero_point^)? (`bias` $b^)?
    (`initial_h` $initial_h^)? (`initial_c` $initial_c^)? (`peephole` $p^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Plumb_GRUOp : Plumb_ComputeOp<"gru",
    [Pure, AttrSizedOperandSegments, Plumb_HasReductionTree]> {
  let summary = "ONNX GRU (layout 0, default activations)";
  let description = [{
    X [seq, batch, input], W [dirs, 3H, input], R [dirs, 3H, H], B [dirs, 6H],
    initial_h [dirs, batch, H]. Gate order z, r, h. Per step, with dot
    products by `tree`: z = sigmoid(xWz + hRz + Wbz + Rbz), r likewise,
    n = tanh(xWh + (r*(hRh + Rbh) if linear_before_reset else (r*h)Rh + Rbh)
    + Wbh), h' = (1 - z)*n + z*h. Results Y [seq, dirs, batch, H] and Y_h.

    ```mlir
    %y, %yh = plumb.gru %x, %w, %r {direction = "forward", hidden_size = 16 : i64, linear_before_reset = false} : (...) -> (...)
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$x, Plumb_FloatTensor:$w,
                       Plumb_FloatTensor:$r, Optional<Plumb_FloatTensor>:$b,
                       Optional<Plumb_FloatTensor>:$initial_h,
                       StrAttr:$direction, I64Attr:$hidden_size,
                       OptionalAttr<F32Attr>:$clip,
                       BoolAttr:$linear_before_reset, Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$y, Plumb_FloatTensor:$y_h);
  let assemblyFormat = [{
    $x `,` $w `,` $r (`bias` $b^)? (`initial_h` $initial_h^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Plumb_RNNOp : Plumb_ComputeOp<"rnn",
    [Pure, AttrSizedOperandSegments, Plumb_HasReductionTree]> {
  let summary = "ONNX RNN (Elman; layout 0)";
  let description = [{
    X [seq, batch, input], W [dirs, H, input], R [dirs, H, H], B [dirs, 2H],
    initial_h [dirs, batch, H]. Per step, with dot products by `tree`:
    a = (xW + hR), then + Wb, then + Rb (no additions without B), clipped
    to [-clip, clip] when `clip` is given, H = f(a). `activations` holds one
    activation per direction, by the name of the plumb op that computes it
    (tanh, sigmoid, relu, leaky_relu, thresholded_relu, hard_sigmoid, elu,
    softsign, softplus), with its `activation_alpha` / `activation_beta`
    (one each per direction; 0 where the op takes none): f(v) is that op's
    per-element function, bit for bit. Results Y [seq, dirs, batch, H] and
    Y_h [dirs, batch, H]. Runtime rnn.h, plumb_rt_rnn_f32.

    ```mlir
    %y, %yh = plumb.rnn %x, %w, %r {activation_alpha = array<f32: 0.0>, activation_beta = array<f32: 0.0>, activations = ["tanh"], direction = "forward", hidden_size = 16 : i64} : (...) -> (...)
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$x, Plumb_FloatTensor:$w,
                       Plumb_FloatTensor:$r, Optional<Plumb_FloatTensor>:$b,
                       Optional<Plumb_FloatTensor>:$initial_h,
                       StrAttr:$direction, I64Attr:$hidden_size,
                       StrArrayAttr:$activations,
                       DenseF32ArrayAttr:$activation_alpha,
                       DenseF32ArrayAttr:$activation_beta,
                       OptionalAttr<F32Attr>:$clip, Plumb_OptTree:$tree);
  let results = (outs Plumb_FloatTensor:$y, Plumb_FloatTensor:$y_h);
  let assemblyFormat = [{
    $x `,` $w `,` $r (`bias` $b^)? (`initial_h` $initial_h^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The plumb_rt_unary_f32 code of activation `name` and the name of its
    /// enum constant; std::nullopt for a name the op does not take.
    static std::optional<std::pair<int32_t, llvm::StringRef>>
    activationCode(llvm::StringRef name);
  }];
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def Plumb_IfOp : Plumb_Op<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "Data-dependent choice between two regions";
  let description = [{
    ONNX If whose condition is not known at import time (a known condition is
    replaced by its taken branch). Both regions yield values of the result
    types; both are verified. Regions may use values from enclosing scopes.

    ```mlir
    %r = plumb.if %c : tensor<i1> -> tensor<2xf32> {
      plumb.yield %a : tensor<2xf32>
    } else {
      plumb.yield %b : tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I1]>:$cond);
  let results = (outs Variadic<Plumb_Tensor>:$results);
  let regions = (region SizedRegion<1>:$then_region, SizedRegion<1>:$else_region);
  let assemblyFormat = [{
    $cond `:` type($cond) (`->` type($results)^)? $then_region `else`
    $else_region attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fusion
//===----------------------------------------------------------------------===//

def Plumb_FusedOp : Plumb_Op<"fused", [RecursiveMemoryEffects,
                                        NoRegionArguments]> {
  let summary = "One graph node made of a chain of ops (elementwise fusion)";
  let description = [{
    Made by `plumb-fuse-elementwise`. The body is a chain of ordinary plumb
    ops: optionally a head that reduces (`plumb.conv`, `plumb.matmul`,
    `plumb.gemm`), then elementwise ops (unary, binary and variadic
    arithmetic, `plumb.batch_norm`), each taking the previous op's value as
    one operand, of the same shape as its result; the other operands are
    values defined outside (weights, earlier nodes, graph inputs). Every body
    value but the last has exactly one use, by the next op; the last is
    yielded and becomes the node's result.

    The node computes exactly what its body ops compute one after the other,
    so each output element goes through the same sequence of rounded
    operations as without fusion: fusion never changes a bit. It changes
    what a trace records (one hash for the node instead of one per op) and
    lets code generators keep the chain's intermediate values in cache or
    registers. Gas is the sum of the body's gas.

    ```mlir
    %y = plumb.fused -> tensor<1x8x28x28xf32> {
      %c = plumb.conv %x, %w, %b {...} : (...) -> tensor<1x8x28x28xf32>
      %r = plumb.relu %c : tensor<1x8x28x28xf32>
      plumb.yield %r : tensor<1x8x28x28xf32>
    }
    ```
  }];
  let results = (outs Plumb_Tensor:$output);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`->` type($output) $body attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The body's ops in order, without the terminator.
    ::llvm::SmallVector<::mlir::Operation *> getChain();
    /// The value the body yields.
    ::mlir::Value getYielded();
  }];
}

def Plumb_YieldOp : Plumb_Op<"yield",
    [Pure, Terminator, ReturnLike, ParentOneOf<["IfOp", "FusedOp"]>]> {
  let summary = "Yields the results of a plumb.if or plumb.fused region";
  let description = [{
    ```mlir
    plumb.yield %a : tensor<2xf32>
    ```
  }];
  let arguments = (ins Variadic<Plumb_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Elementwise math (ONNX importer lib/Importer/OnnxOpsMath.cpp). The exact
// operation sequences are the scalar functions of runtime elementwise.h and
// docs/determinism.md.
//===----------------------------------------------------------------------===//

def Plumb_FloorOp : Plumb_FloatUnaryOp<"floor", "PLUMB_RT_FLOOR", [0, 0, 2],
  "y = floor(x), exact; keeps the sign of zero (floor(-0.5) = -1, "
  "floor(-0) = -0); NaN and infinities unchanged.">;
def Plumb_CeilOp : Plumb_FloatUnaryOp<"ceil", "PLUMB_RT_CEIL", [0, 0, 2],
  "y = ceil(x), exact; ceil(-0.5) = -0; NaN and infinities unchanged.">;
def Plumb_RoundOp : Plumb_FloatUnaryOp<"round", "PLUMB_RT_ROUND", [1, 0, 2],
  "y = x rounded to the nearest integer, halves to even, exact; keeps the "
  "sign of zero (round(-0.5) = -0).">;
def Plumb_SignOp : Plumb_FloatUnaryOp<"sign", "PLUMB_RT_SIGN", [0, 0, 2],
  "y = 1 for x > 0, -1 for x < 0, x itself for +-0; NaN stays NaN.">;
def Plumb_SoftplusOp : Plumb_FloatUnaryOp<"softplus", "PLUMB_RT_SOFTPLUS",
  [1, 2], "y = log(exp(x) + 1) as t = exp(x); t = t + 1; y = log(t), with "
  "Plumb's own exp and log (docs/math.md).">;
def Plumb_SoftsignOp : Plumb_FloatUnaryOp<"softsign", "PLUMB_RT_SOFTSIGN",
  [3, 0], "y = x / (1 + |x|), one addition then one IEEE division.">;
def Plumb_EluOp : Plumb_FloatUnaryOp<"elu", "PLUMB_RT_ELU", [2, 1, 1],
  "y = x >= 0 ? x : alpha * (exp(x) - 1) (t = exp(x); t = t - 1; "
  "y = alpha * t).", (ins F32Attr:$alpha), "getAlpha().convertToFloat()">;
def Plumb_SeluOp : Plumb_FloatUnaryOp<"selu", "PLUMB_RT_SELU", [3, 1, 1],
  "y = x > 0 ? gamma * x : gamma * ((alpha * exp(x)) - alpha), one rounding "
  "per operation.", (ins F32Attr:$alpha, F32Attr:$gamma),
  "getAlpha().convertToFloat()", "getGamma().convertToFloat()">;
def Plumb_PReluOp : Plumb_BroadcastOp<"prelu", Plumb_FloatTensor,
  Plumb_FloatTensor, "PLUMB_RT_PRELU",
  "z = x < 0 ? slope * x : x (x = lhs, slope = rhs; -0 stays -0).", [1, 0],
  [Plumb_FusibleTail]>;

def Plumb_ModOp : Plumb_ComputeOp<"mod", [Pure, Plumb_Elementwise]> {
  let summary = "Elementwise remainder with numpy broadcasting";
  let description = [{
    ONNX Mod. `fmod = true`: C fmod, the remainder of x / y truncated toward
    zero, with the sign of x (f32: exact; NaN for y = 0 or x infinite, x for
    y infinite). `fmod = false` (integers only): the remainder with the sign
    of y (Python's %). Integers: x mod 0 = 0. Both operands have the same
    element type and broadcast numpy-style to the result shape.

    ```mlir
    %z = plumb.mod %x, %y {fmod = false} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
    ```
  }];
  let arguments = (ins Plumb_NumTensor:$lhs, Plumb_NumTensor:$rhs,
                       BoolAttr:$fmod);
  let results = (outs Plumb_NumTensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The plumb_rt_binary_op code of the kernel (runtime elementwise.h).
    int32_t getBinaryCode();
  }];
  let extraClassDefinition = [{
    ::mlir::FailureOr<::plumb::OpCounts> $cppClass::getCounts() {
      return ::plumb::elementwiseCounts(getOperation(), 2, 0);
    }
    ::mlir::LogicalResult
    $cppClass::lowerToKernelCalls(::plumb::KernelLowering &l,
                                  std::string &err) {
      return ::plumb::lowerBinaryOp(getOperation(), getBinaryCode(), l, err);
    }
  }];
}

def Plumb_MeanOp : Plumb_ComputeOp<"mean", [Pure, Plumb_Elementwise]> {
  let summary = "Elementwise mean of one or more tensors";
  let description = [{
    ONNX Mean (f32): all operands broadcast numpy-style to the result shape;
    acc = x0; acc = acc + x1; ... strictly left to right (IEEE additions),
    then one IEEE division acc / n (n as f32).

    ```mlir
    %z = plumb.mean %a, %b, %c : (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<Plumb_FloatTensor>:$inputs);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::mlir::FailureOr<::plumb::OpCounts> $cppClass::getCounts() {
      return ::plumb::variadicCounts(getOperation(), false, 1);
    }
    ::mlir::LogicalResult
    $cppClass::lowerToKernelCalls(::plumb::KernelLowering &l,
                                  std::string &err) {
      return ::plumb::lowerVariadicOp(getOperation(), PLUMB_RT_MEAN, l, err);
    }
  }];
}

def Plumb_CeluOp : Plumb_FloatUnaryOp<"celu", "PLUMB_RT_CELU", [3, 1, 1],
  "y = x >= 0 ? x : alpha * (exp(x / alpha) - 1) as t = x / alpha; "
  "t = exp(t); t = t - 1; y = alpha * t.", (ins F32Attr:$alpha),
  "getAlpha().convertToFloat()">;
def Plumb_ThresholdedReluOp : Plumb_FloatUnaryOp<"thresholded_relu",
  "PLUMB_RT_THRESHOLDED_RELU", [0, 0, 1],
  "y = x > alpha ? x : +0 (NaN gives +0).", (ins F32Attr:$alpha),
  "getAlpha().convertToFloat()">;
def Plumb_ShrinkOp : Plumb_FloatUnaryOp<"shrink", "PLUMB_RT_SHRINK", [1, 0, 2],
  "y = x < -lambd ? x + bias : (x > lambd ? x - bias : +0) (NaN gives +0).",
  (ins F32Attr:$bias, F32Attr:$lambd), "getBias().convertToFloat()",
  "getLambd().convertToFloat()">;
def Plumb_MishOp : Plumb_FloatUnaryOp<"mish", "PLUMB_RT_MISH", [2, 3],
  "y = x * tanh(log(exp(x) + 1)), every step rounded to f32, Plumb's own "
  "exp, log and tanh.">;
def Plumb_SwishOp : Plumb_FloatUnaryOp<"swish", "PLUMB_RT_SWISH", [2, 1],
  "y = x * sigmoid(alpha * x) as t = alpha * x; s = sigmoid(t); y = x * s.",
  (ins F32Attr:$alpha), "getAlpha().convertToFloat()">;
def Plumb_XorOp : Plumb_BroadcastOp<"xor", Plumb_BoolTensor, Plumb_BoolTensor,
  "PLUMB_RT_XOR", "z = x != y (logical exclusive or).">;
def Plumb_BitAndOp : Plumb_BroadcastOp<"bit_and", Plumb_IntTensor,
  Plumb_IntTensor, "PLUMB_RT_BIT_AND", "z = x & y (bitwise).">;
def Plumb_BitOrOp : Plumb_BroadcastOp<"bit_or", Plumb_IntTensor,
  Plumb_IntTensor, "PLUMB_RT_BIT_OR", "z = x | y (bitwise).">;
def Plumb_BitXorOp : Plumb_BroadcastOp<"bit_xor", Plumb_IntTensor,
  Plumb_IntTensor, "PLUMB_RT_BIT_XOR", "z = x ^ y (bitwise).">;
def Plumb_ShiftLeftOp : Plumb_BroadcastOp<"shift_left", Plumb_IntTensor,
  Plumb_IntTensor, "PLUMB_RT_SHIFT_LEFT",
  "z = x << y on the bits as unsigned; y < 0 or y >= the bit width gives 0.">;
def Plumb_ShiftRightOp : Plumb_BroadcastOp<"shift_right", Plumb_IntTensor,
  Plumb_IntTensor, "PLUMB_RT_SHIFT_RIGHT",
  "z = x >> y, logical (the bits as unsigned); y < 0 or y >= the bit width "
  "gives 0.">;

// The circular and hyperbolic functions: Plumb's own, correctly rounded
// (runtime math_trig.h, docs/math.md).
def Plumb_SinOp : Plumb_FloatUnaryOp<"sin", "PLUMB_RT_SIN", [0, 1],
  "y = sin x, correctly rounded (docs/math.md).">;
def Plumb_CosOp : Plumb_FloatUnaryOp<"cos", "PLUMB_RT_COS", [0, 1],
  "y = cos x, correctly rounded (docs/math.md).">;
def Plumb_TanOp : Plumb_FloatUnaryOp<"tan", "PLUMB_RT_TAN", [0, 1],
  "y = tan x, correctly rounded (docs/math.md).">;
def Plumb_AsinOp : Plumb_FloatUnaryOp<"asin", "PLUMB_RT_ASIN", [0, 1],
  "y = arcsin x (NaN outside [-1, 1]), correctly rounded (docs/math.md).">;
def Plumb_AcosOp : Plumb_FloatUnaryOp<"acos", "PLUMB_RT_ACOS", [0, 1],
  "y = arccos x (NaN outside [-1, 1]), correctly rounded (docs/math.md).">;
def Plumb_AtanOp : Plumb_FloatUnaryOp<"atan", "PLUMB_RT_ATAN", [0, 1],
  "y = arctan x, correctly rounded (docs/math.md).">;
def Plumb_SinhOp : Plumb_FloatUnaryOp<"sinh", "PLUMB_RT_SINH", [0, 1],
  "y = sinh x, correctly rounded (docs/math.md).">;
def Plumb_CoshOp : Plumb_FloatUnaryOp<"cosh", "PLUMB_RT_COSH", [0, 1],
  "y = cosh x, correctly rounded (docs/math.md).">;
def Plumb_AsinhOp : Plumb_FloatUnaryOp<"asinh", "PLUMB_RT_ASINH", [0, 1],
  "y = arsinh x, correctly rounded (docs/math.md).">;
def Plumb_AcoshOp : Plumb_FloatUnaryOp<"acosh", "PLUMB_RT_ACOSH", [0, 1],
  "y = arcosh x (NaN below 1), correctly rounded (docs/math.md).">;
def Plumb_AtanhOp : Plumb_FloatUnaryOp<"atanh", "PLUMB_RT_ATANH", [0, 1],
  "y = artanh x (NaN outside [-1, 1], +-inf at +-1), correctly rounded (docs/math.md).">;

// Rounding to the 2-byte float types: a float16 / bfloat16 value is the
// float32 holding it (docs/determinism.md, "Half precision").
def Plumb_RoundF16Op : Plumb_FloatUnaryOp<"round_f16", "PLUMB_RT_ROUND_F16",
  [2, 0],
  "y = x rounded to the nearest float16 value (ties to even, subnormals kept, "
  "|x| >= 65520 gives +-inf, NaN canonical), as the float32 holding it.">;
def Plumb_RoundBf16Op : Plumb_FloatUnaryOp<"round_bf16", "PLUMB_RT_ROUND_BF16",
  [2, 0],
  "y = x rounded to the nearest bfloat16 value (ties to even, overflow to "
  "+-inf, NaN canonical), as the float32 holding it.">;

//===----------------------------------------------------------------------===//
// Indexed writes
//===----------------------------------------------------------------------===//

def Plumb_ScatterNDOp : Plumb_ComputeOp<"scatter_nd", [Pure]> {
  let summary = "Writes or combines update slices at index tuples (ONNX ScatterND)";
  let description = [{
    The result starts as `data`. `indices` (rank q, last dimension k <= rank
    of data) holds index tuples; `updates` has shape indices[:-1] +
    data[k:]. Tuple after tuple, in row-major order of indices[:-1], the
    slice of the result the tuple names is combined element by element with
    its update slice: `reduction` "none" moves the update (with repeated
    tuples the last wins), "add" and "mul" apply one IEEE operation
    (NaN canonicalised; integers wrap), "max" and "min" the NaN-propagating
    Max/Min of the elementwise ops. So repeated tuples combine in index
    order, never by a tree. Negative indices count from the end; an index
    out of range is a run-time error. Bool data takes "none" only. Also the
    form of ONNX ScatterElements and Scatter, whose indices the importer
    turns into full coordinate tuples.

    ```mlir
    %y = plumb.scatter_nd %data, %idx, %upd {reduction = "add"} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Plumb_Tensor:$data, Plumb_IndexTensor:$indices,
                       Plumb_Tensor:$updates,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$reduction);
  let results = (outs Plumb_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Grid sampling
//===----------------------------------------------------------------------===//

def Plumb_GridSampleOp : Plumb_ComputeOp<"grid_sample", [Pure]> {
  let summary = "Samples an image at grid locations (ONNX GridSample)";
  let description = [{
    `input` is (N, C, H, W) or (N, C, D, H, W); `grid` is (N, Ho, Wo, 2) or
    (N, Do, Ho, Wo, 3) of normalized coordinates (x, y[, z]) in [-1, 1];
    the result is (N, C, [Do,] Ho, Wo). `mode` is "linear", "nearest" or
    "cubic" (4-D only, A = -0.75); `padding_mode` "zeros", "border" or
    "reflection", applied to each tap's index; `align_corners` as in ONNX.
    The float32 operation sequence (onnxruntime's) is in
    docs/determinism.md "GridSample".

    ```mlir
    %y = plumb.grid_sample %x, %g {mode = "linear", padding_mode = "zeros", align_corners = false} : (tensor<1x3x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, Plumb_FloatTensor:$grid,
                       StrAttr:$mode, StrAttr:$padding_mode,
                       BoolAttr:$align_corners);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $grid attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fourier transforms
//===----------------------------------------------------------------------===//

def Plumb_DFTOp : Plumb_ComputeOp<"dft", [Pure]> {
  let summary = "Discrete Fourier transform along one axis (ONNX DFT)";
  let description = [{
    `input` is real (last dimension 1) or complex (last dimension 2: real,
    imaginary); the transform runs along `axis` (not the last dimension)
    with `length` points: the input is zero-padded or truncated to `length`
    along the axis. The result is complex (last dimension 2) with `length`
    bins along the axis, or `length / 2 + 1` when `onesided` (a real input
    only, not with `inverse`). `inverse` uses e^(+2 pi i jk / length) and
    divides each part by `length`. The float32 operation sequence -- a
    mixed-radix decimation over the ascending prime factors of `length`
    with a fixed order of every sum, twiddle factors from the runtime's
    binary64 sine and cosine -- is in docs/determinism.md "DFT and STFT".

    ```mlir
    %y = plumb.dft %x {axis = 1 : i64, inverse = false, length = 16 : i64, onesided = true} : (tensor<2x16x1xf32>) -> tensor<2x9x2xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$input, I64Attr:$axis,
                       I64Attr:$length, BoolAttr:$inverse, BoolAttr:$onesided);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Plumb_STFTOp : Plumb_ComputeOp<"stft", [Pure]> {
  let summary = "Short-time Fourier transform (ONNX STFT)";
  let description = [{
    `signal` is (batch, signal_length, 1) real or (batch, signal_length, 2)
    complex. Frame f (f < frames = (signal_length - frame_length) /
    frame_step + 1) is the `frame_length` samples from f * frame_step, each
    part multiplied by `window` (shape (frame_length), float32 products)
    when there is one, then transformed as plumb.dft does (forward). The
    result is (batch, frames, bins, 2) with bins = frame_length / 2 + 1 when
    `onesided` (a real signal only), else frame_length. Operation sequence:
    docs/determinism.md "DFT and STFT".

    ```mlir
    %y = plumb.stft %s, %w {frame_length = 16 : i64, frame_step = 8 : i64, onesided = true} : (tensor<1x128x1xf32>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
    ```
  }];
  let arguments = (ins Plumb_FloatTensor:$signal,
                       Optional<Plumb_FloatTensor>:$window,
                       I64Attr:$frame_step, I64Attr:$frame_length,
                       BoolAttr:$onesided);
  let results = (outs Plumb_FloatTensor:$output);
  let assemblyFormat = [{
    $signal (`,` $window^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // PLUMB_OPS_TD
