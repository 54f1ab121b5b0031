//===- lib/Importer/ImporterImpl.h - Importer internals --------*- C++ -*-===//
//
// Part of Plumb. The state shared by the graph driver (OnnxImporter.cpp) and
// the per-operator handlers (OnnxOps*.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_LIB_IMPORTER_IMPORTERIMPL_H
#define PLUMB_LIB_IMPORTER_IMPORTERIMPL_H

#include "plumb/Importer/OnnxImporter.h"

#include "dialects/Plumb/IR/PlumbLiteral.h"
#include "dialects/Plumb/IR/PlumbOps.h"
#include "dialects/Plumb/IR/PlumbShapes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <set>

#include "onnx/onnx_pb.h"

namespace plumb {
namespace importer {

/// Names visible in one graph; subgraphs chain to their parent scope.
struct Scope {
  llvm::StringMap<mlir::Value> values;
  Scope *parent = nullptr;
  int depth = 0;
};

/// One ONNX node being imported.
struct NodeCtx {
  const onnx::NodeProto &proto;
  int64_t index;
  mlir::Location loc;
  int64_t opset;
  llvm::SmallVector<mlir::Value> inputs;  // null where an optional is absent
  llvm::SmallVector<mlir::Value> outputs; // filled by the handler
  Scope *scope;

  int64_t numInputs() const { return inputs.size(); }
  mlir::Value in(int64_t i) const {
    return i < (int64_t)inputs.size() ? inputs[i] : mlir::Value();
  }
  llvm::StringRef opType() const { return proto.op_type(); }
};

class Importer;
using OpHandler = mlir::LogicalResult (*)(Importer &, NodeCtx &);

/// Element types an operator takes (what `plumb import --list-ops` prints).
enum OpTypes : unsigned {
  kF32 = 1,
  kI64 = 2,
  kI32 = 4,
  kBool = 8,
  kInt = kI64 | kI32,
  kNum = kF32 | kInt,
  kAll = kNum | kBool,
  /// Known, and refused by its handler with an explanation (not listed).
  kRefused = 0,
};

/// One ONNX operator of the default domain the importer handles: its
/// handler, the first opset it is imported from (7, Plumb's first, unless the
/// operator is newer), the last (0: every later opset; an operator ONNX
/// deprecated, such as Upsample, ends before the deprecation), and the
/// element types of its data operands.
struct OpEntry {
  OpHandler handler = nullptr;
  int64_t sinceOpset = 7;
  unsigned types = kF32;
  int64_t lastOpset = 0;
};

/// The handler table: ONNX op type -> entry. Handlers register with `add`.
class OpTable {
public:
  void add(llvm::StringRef op, OpHandler h, unsigned types, int64_t since = 7,
           int64_t last = 0) {
    entries[op] = OpEntry{h, since < 7 ? 7 : since, types, last};
  }
  const OpEntry *find(llvm::StringRef op) const {
    auto it = entries.find(op);
    return it == entries.end() ? nullptr : &it->second;
  }
  const llvm::StringMap<OpEntry> &all() const { return entries; }

private:
  llvm::StringMap<OpEntry> entries;
};

const OpTable &opHandlers();

/// Handler helpers shared by the OnnxOps*.cpp files: the handler's result
/// `v` as the node's next output, and the input count check (inputs below
/// `lo` must be present).
inline mlir::LogicalResult setOut(NodeCtx &n, mlir::FailureOr<mlir::Value> v) {
  if (mlir::failed(v))
    return mlir::failure();
  n.outputs.push_back(*v);
  return mlir::success();
}
mlir::LogicalResult need(Importer &im, NodeCtx &n, int64_t lo, int64_t hi);

class Importer {
public:
  Importer(mlir::MLIRContext &ctx, const ImportOptions &options,
           std::string modelDir)
      : ctx(ctx), b(&ctx), options(options), modelDir(std::move(modelDir)) {}

  mlir::OwningOpRef<mlir::ModuleOp> run(const onnx::ModelProto &model,
                                        const std::string &path,
                                        ImportError &err);

  // --- used by handlers -----------------------------------------------------
  mlir::MLIRContext &ctx;
  mlir::OpBuilder b;

  /// Emits an error at the node (collected into the node's message).
  mlir::InFlightDiagnostic error(NodeCtx &n) { return mlir::emitError(n.loc); }
  /// A callable for the shape functions' EmitFn. It returns the lambda itself,
  /// not a function_ref: a function_ref to the lambda would dangle once this
  /// function returns.
  auto emitter(NodeCtx &n) {
    return [this, &n]() { return error(n); };
  }

  static llvm::ArrayRef<int64_t> shapeOf(mlir::Value v) {
    return mlir::cast<mlir::RankedTensorType>(v.getType()).getShape();
  }
  static mlir::Type eltOf(mlir::Value v) {
    return mlir::cast<mlir::RankedTensorType>(v.getType()).getElementType();
  }
  static mlir::RankedTensorType tensorType(llvm::ArrayRef<int64_t> shape,
                                           mlir::Type elt) {
    return mlir::RankedTensorType::get(shape, elt);
  }

  /// Creates `OpTy` (folding it when its operands are constants) and verifies
  /// it, so errors point at the node.
  template <typename OpTy, typename... Args>
  mlir::FailureOr<mlir::Value> make(NodeCtx &n, Args &&...args) {
    // A training import keeps every op that reads a named initializer
    // (a parameter to be): folding it would turn the parameter into a
    // constant.
    if (options.nameInitializers) {
      auto op = OpTy::create(b, n.loc, args...);
      if (readsNamedInitializer(op)) {
        if (mlir::failed(mlir::verify(op)))
          return mlir::failure();
        return op->getResult(0);
      }
      op->erase();
    }
    llvm::SmallVector<mlir::Value, 1> results;
    b.createOrFold<OpTy>(results, n.loc, std::forward<Args>(args)...);
    if (results.empty())
      return mlir::failure();
    if (mlir::Operation *op = results[0].getDefiningOp())
      if (mlir::failed(mlir::verify(op)))
        return mlir::failure();
    return foldSmallInteger(results[0]);
  }
  /// A small integer value (a shape computation: at most kFoldElements
  /// elements) whose operands are all constants, computed now by the
  /// reference interpreter when the op has no folder of its own, so the
  /// operands that must be known at import (Reshape's shape, Pad's pads,
  /// ...) are known through any op. The bits are those execution would
  /// produce (plumb-fold-constants does the same later for every op).
  mlir::Value foldSmallInteger(mlir::Value v);
  static constexpr int64_t kFoldElements = 4096;
  static bool readsNamedInitializer(mlir::Operation *op) {
    for (mlir::Value v : op->getOperands())
      if (mlir::Operation *d = v.getDefiningOp())
        if (d->hasAttr("plumb.initializer"))
          return true;
    return false;
  }
  /// Like make() for ops with several results (never folded).
  template <typename OpTy, typename... Args>
  mlir::FailureOr<OpTy> makeOp(NodeCtx &n, Args &&...args) {
    auto op = OpTy::create(b, n.loc, std::forward<Args>(args)...);
    if (mlir::failed(mlir::verify(op)))
      return mlir::failure();
    return op;
  }

  /// The value of a constant operand (null if not constant or too large).
  std::optional<Literal> constant(mlir::Value v) const;
  /// Input `i` as constant integers; fails naming the input when it is not
  /// known at import time. `what` is the ONNX input name ("shape", "axes").
  mlir::FailureOr<llvm::SmallVector<int64_t>> constInts(NodeCtx &n, int64_t i,
                                                        llvm::StringRef what);
  /// Input `i` as constant floats.
  mlir::FailureOr<llvm::SmallVector<float>> constFloats(NodeCtx &n, int64_t i,
                                                        llvm::StringRef what);

  mlir::Value constantOf(mlir::DenseElementsAttr attr);
  mlir::Value constI64(llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<int64_t> values);

  // Attributes, type-checked: a wrong type is an error naming the attribute.
  const onnx::AttributeProto *attr(NodeCtx &n, llvm::StringRef name);
  mlir::FailureOr<int64_t> attrInt(NodeCtx &n, llvm::StringRef name,
                                   std::optional<int64_t> dflt);
  mlir::FailureOr<float> attrFloat(NodeCtx &n, llvm::StringRef name,
                                   std::optional<float> dflt);
  mlir::FailureOr<std::string> attrString(NodeCtx &n, llvm::StringRef name,
                                          std::optional<std::string> dflt);
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  attrInts(NodeCtx &n, llvm::StringRef name,
           std::optional<llvm::SmallVector<int64_t>> dflt);
  mlir::FailureOr<llvm::SmallVector<float>>
  attrFloats(NodeCtx &n, llvm::StringRef name,
             std::optional<llvm::SmallVector<float>> dflt);
  mlir::FailureOr<std::vector<std::string>>
  attrStrings(NodeCtx &n, llvm::StringRef name);
  /// `onnxType`, when given, receives TensorValue::onnxType.
  mlir::FailureOr<mlir::DenseElementsAttr>
  attrTensor(NodeCtx &n, llvm::StringRef name, int32_t *onnxType = nullptr);

  /// ONNX 8/16-bit integer tensors are int32 values here (their exact
  /// values); this map gives their ONNX type (TensorProto.DataType), which
  /// QuantizeLinear's output, saturation and Cast need.
  llvm::DenseMap<mlir::Value, int32_t> narrowTypes;
  int32_t narrowType(mlir::Value v) const {
    auto it = narrowTypes.find(v);
    return it == narrowTypes.end() ? 0 : it->second;
  }
  /// The storage type of a float value: FLOAT16 or BFLOAT16 for a float32
  /// value holding one (the same map, docs/determinism.md "Half
  /// precision"), 0 for float32.
  int32_t halfType(mlir::Value v) const {
    int32_t t = narrowType(v);
    return isHalfFloatType(t) ? t : 0;
  }
  /// `v` rounded to the storage type `half` (FLOAT16 or BFLOAT16) by
  /// plumb.round_f16 / round_bf16, and recorded as of that type.
  mlir::Value roundToHalf(mlir::Location loc, mlir::Value v, int32_t half);
  /// A value equal to `v` (a float16 / bfloat16 one) of storage type
  /// float32, as Cast to FLOAT gives: a copy of a constant (still known at
  /// import), else an f32 -> f32 cast, which canonicalisation removes once
  /// the import no longer needs the distinction.
  mlir::Value asFloat32Storage(mlir::Location loc, mlir::Value v);
  /// After a node's handler: the storage types of its float outputs and the
  /// rounding op after each output whose storage type is FLOAT16/BFLOAT16.
  mlir::LogicalResult roundHalfOutputs(NodeCtx &n);
  /// Element types the graphs declare for their values (value_info and
  /// outputs), the fallback of the storage inference.
  std::map<std::string, int32_t> declaredTypes;

  /// Converts a decoded tensor to an attribute.
  mlir::DenseElementsAttr toAttr(const TensorValue &t);
  mlir::Type mlirType(DType t);

  /// Imports a subgraph's nodes into the current insertion point under a new
  /// child scope of `parent`; `outputs` receives the graph outputs.
  mlir::LogicalResult importGraph(const onnx::GraphProto &g, Scope &parent,
                                  llvm::SmallVectorImpl<mlir::Value> &outputs);

  /// Error text collected from diagnostics for the node being imported.
  std::string diagText;

  /// A function of the model (ModelProto.functions, IR >= 8): a node whose
  /// (domain, op_type, overload) names one is replaced by the function's body
  /// (inlined), with its own scope and opset.
  struct ModelFunction {
    const onnx::FunctionProto *proto = nullptr;
    std::string name; // "domain.name" (":overload" when there is one)
    std::vector<onnx::AttributeProto> defaults; // attribute_proto (IR 9)
  };
  const ModelFunction *functionFor(const onnx::NodeProto &node) const;

private:
  mlir::LogicalResult importCall(NodeCtx &n, const ModelFunction &f);
  mlir::LogicalResult importGraphInScope(const onnx::GraphProto &g,
                                         Scope &scope,
                                         llvm::SmallVectorImpl<mlir::Value> &outputs);
  mlir::LogicalResult importNode(const onnx::NodeProto &node, int64_t index,
                                 Scope &scope);
  mlir::Location nodeLoc(const onnx::NodeProto &node, int64_t index);
  void collectUnsupported(
      const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes,
      const std::string &where, std::vector<std::string> &out, int depth,
      std::set<const ModelFunction *> &seen);
  int64_t
  inlinedSize(const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes,
              int depth, std::map<const ModelFunction *, int64_t> &memo,
              std::set<const ModelFunction *> &active);

  const ImportOptions &options;
  std::string modelDir;
  std::string fileName;
  int64_t opset = 0;
  /// Set by the first failing node: its description.
  std::string failedNode;
  bool failedWithMessage = false;
  /// Model functions by "domain\0name\0overload".
  std::map<std::string, ModelFunction> functions;
  /// Functions being inlined (innermost last): a call of one of them again
  /// is recursion, which is refused.
  std::vector<const ModelFunction *> callStack;
  /// Nodes imported from function bodies so far (bounded by maxNodes).
  int64_t inlinedNodes = 0;
  /// Prepended to node locations inside function bodies.
  std::string locPrefix;
};

/// A tensor type of `v`'s element type with `shape`.
inline mlir::RankedTensorType withShape(mlir::Value v,
                                        llvm::ArrayRef<int64_t> shape) {
  return Importer::tensorType(shape, Importer::eltOf(v));
}

/// The window of a sliding-window op (Conv, ConvInteger, the pools): its
/// kernel_shape, strides, dilations and explicit pads (begins then ends,
/// `auto_pad` resolved against the input shape `in`, rank >= 3). The kernel
/// defaults to `kernelFromWeight` when given (OnnxOpsNN.cpp).
struct Window {
  llvm::SmallVector<int64_t> kernel, strides, dilations, pads;
};
mlir::FailureOr<Window>
window(Importer &im, NodeCtx &n, llvm::ArrayRef<int64_t> in,
       std::optional<llvm::ArrayRef<int64_t>> kernelFromWeight,
       bool allowDilations);

/// `v` reshaped to `shape` (row-major, the same elements); `v` itself when it
/// has that shape already.
inline mlir::FailureOr<mlir::Value> reshapeOrSame(Importer &im, NodeCtx &n,
                                                  mlir::Value v,
                                                  llvm::ArrayRef<int64_t> shape) {
  if (Importer::shapeOf(v) == shape)
    return v;
  return im.make<ReshapeOp>(n, withShape(v, shape), v);
}

} // namespace importer
} // namespace plumb

#endif // PLUMB_LIB_IMPORTER_IMPORTERIMPL_H
