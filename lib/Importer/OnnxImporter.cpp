//===- lib/Importer/OnnxImporter.cpp - ONNX graphs to plumb IR ------------===//
//
// Part of Plumb. The graph driver: builds `func.func @main` from the graph's
// inputs and outputs, imports nodes in topological order through the handler
// table (OnnxOps.cpp), folds shape computations as it goes (every tensor ends
// up with a static shape) and turns large constants into resource blobs.
//
//===----------------------------------------------------------------------===//
#include "ImporterImpl.h"

#include "plumb/Interpreter/Interpreter.h"
#include "plumb/runtime/config.h"
#include "plumb/runtime/half.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;

namespace plumb {
namespace importer {

//===----------------------------------------------------------------------===//
// Types and constants
//===----------------------------------------------------------------------===//

Type Importer::mlirType(DType t) {
  switch (t) {
  case DType::F32:
    return b.getF32Type();
  case DType::I64:
    return b.getI64Type();
  case DType::I32:
    return b.getI32Type();
  case DType::Bool:
    return b.getI1Type();
  }
  return {};
}

DenseElementsAttr Importer::toAttr(const TensorValue &t) {
  auto type = RankedTensorType::get(t.shape, mlirType(t.dtype));
  if (t.dtype == DType::Bool) {
    SmallVector<bool> v(t.data.size());
    for (size_t i = 0; i < t.data.size(); ++i)
      v[i] = t.data[i] != 0;
    return DenseElementsAttr::get(type, ArrayRef<bool>(v));
  }
  if (t.dtype == DType::F32) {
    // Canonicalise NaN payloads of weights as every stored value is.
    std::vector<float> v(t.data.size() / 4);
    std::memcpy(v.data(), t.data.data(), v.size() * 4);
    for (float &x : v)
      x = canonicalNaN(x);
    return DenseElementsAttr::get(type, ArrayRef<float>(v));
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(t.data.data(), t.data.size()));
}

Value Importer::constantOf(DenseElementsAttr attr) {
  return ConstantOp::create(b, b.getUnknownLoc(), attr);
}

Value Importer::constI64(ArrayRef<int64_t> shape, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get(shape, b.getI64Type());
  return constantOf(DenseElementsAttr::get(type, values));
}

std::optional<Literal> Importer::constant(Value v) const {
  if (!v)
    return std::nullopt;
  // A tensor without elements has exactly one value, whatever computes it
  // (e.g. an int64[0] graph input giving empty axes).
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getNumElements() == 0)
    return Literal::make(type);
  auto c = v.getDefiningOp<ConstantOp>();
  if (!c)
    return std::nullopt;
  return Literal::from(c.getValue());
}

Value Importer::foldSmallInteger(Value v) {
  Operation *op = v.getDefiningOp();
  if (!op || isa<ConstantOp, IfOp>(op) || op->getNumResults() != 1 ||
      op->getNumOperands() == 0 || op->getNumRegions() != 0)
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.getElementType().isInteger() || type.getNumElements() > kFoldElements)
    return v;
  SmallVector<DenseElementsAttr> values;
  if (!exec::foldOp(op, values))
    return v; // left for run time (e.g. an out-of-range index)
  Value c = ConstantOp::create(b, op->getLoc(), values[0]);
  op->getResult(0).replaceAllUsesWith(c);
  op->erase();
  return c;
}

FailureOr<SmallVector<int64_t>> Importer::constInts(NodeCtx &n, int64_t i,
                                                    StringRef what) {
  Value v = n.in(i);
  if (!v)
    return error(n) << "input '" << what << "' is missing";
  auto lit = constant(v);
  if (!lit || lit->isFloat)
    return error(n) << "input '" << what
                    << "' must be an integer tensor known at import time "
                       "(it is computed from model inputs; bind them with "
                       "--input-shape/--input-value)";
  return SmallVector<int64_t>(lit->i.begin(), lit->i.end());
}

FailureOr<SmallVector<float>> Importer::constFloats(NodeCtx &n, int64_t i,
                                                    StringRef what) {
  Value v = n.in(i);
  if (!v)
    return error(n) << "input '" << what << "' is missing";
  auto lit = constant(v);
  if (!lit || !lit->isFloat)
    return error(n) << "input '" << what
                    << "' must be a float tensor known at import time";
  return SmallVector<float>(lit->f.begin(), lit->f.end());
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

static const char *attrTypeName(int t) {
  switch (t) {
  case onnx::AttributeProto::FLOAT:
    return "FLOAT";
  case onnx::AttributeProto::INT:
    return "INT";
  case onnx::AttributeProto::STRING:
    return "STRING";
  case onnx::AttributeProto::TENSOR:
    return "TENSOR";
  case onnx::AttributeProto::GRAPH:
    return "GRAPH";
  case onnx::AttributeProto::FLOATS:
    return "FLOATS";
  case onnx::AttributeProto::INTS:
    return "INTS";
  case onnx::AttributeProto::STRINGS:
    return "STRINGS";
  case onnx::AttributeProto::TENSORS:
    return "TENSORS";
  case onnx::AttributeProto::GRAPHS:
    return "GRAPHS";
  case onnx::AttributeProto::SPARSE_TENSOR:
    return "SPARSE_TENSOR";
  default:
    return "UNDEFINED";
  }
}

const onnx::AttributeProto *Importer::attr(NodeCtx &n, StringRef name) {
  for (const auto &a : n.proto.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

/// The attribute's declared type; old exporters leave `type` unset, so infer
/// it from which field holds data.
static int effectiveType(const onnx::AttributeProto &a) {
  if (a.type() != onnx::AttributeProto::UNDEFINED)
    return a.type();
  if (a.ints_size())
    return onnx::AttributeProto::INTS;
  if (a.floats_size())
    return onnx::AttributeProto::FLOATS;
  if (a.strings_size())
    return onnx::AttributeProto::STRINGS;
  if (a.has_t())
    return onnx::AttributeProto::TENSOR;
  if (a.has_g())
    return onnx::AttributeProto::GRAPH;
  if (a.has_s())
    return onnx::AttributeProto::STRING;
  if (a.has_f())
    return onnx::AttributeProto::FLOAT;
  if (a.has_i())
    return onnx::AttributeProto::INT;
  return onnx::AttributeProto::UNDEFINED;
}

static InFlightDiagnostic wrongType(Importer &im, NodeCtx &n, StringRef name,
                                    StringRef want,
                                    const onnx::AttributeProto &a) {
  return im.error(n) << "attribute '" << name << "' must be " << want
                     << ", got " << attrTypeName(effectiveType(a));
}

FailureOr<int64_t> Importer::attrInt(NodeCtx &n, StringRef name,
                                     std::optional<int64_t> dflt) {
  const auto *a = attr(n, name);
  if (!a) {
    if (dflt)
      return *dflt;
    return error(n) << "required attribute '" << name << "' is missing";
  }
  if (effectiveType(*a) != onnx::AttributeProto::INT)
    return wrongType(*this, n, name, "an int", *a);
  return a->i();
}

FailureOr<float> Importer::attrFloat(NodeCtx &n, StringRef name,
                                     std::optional<float> dflt) {
  const auto *a = attr(n, name);
  if (!a) {
    if (dflt)
      return *dflt;
    return error(n) << "required attribute '" << name << "' is missing";
  }
  if (effectiveType(*a) != onnx::AttributeProto::FLOAT)
    return wrongType(*this, n, name, "a float", *a);
  return a->f();
}

FailureOr<std::string> Importer::attrString(NodeCtx &n, StringRef name,
                                            std::optional<std::string> dflt) {
  const auto *a = attr(n, name);
  if (!a) {
    if (dflt)
      return *dflt;
    return error(n) << "required attribute '" << name << "' is missing";
  }
  if (effectiveType(*a) != onnx::AttributeProto::STRING)
    return wrongType(*this, n, name, "a string", *a);
  return a->s();
}

FailureOr<SmallVector<int64_t>>
Importer::attrInts(NodeCtx &n, StringRef name,
                   std::optional<SmallVector<int64_t>> dflt) {
  const auto *a = attr(n, name);
  if (!a) {
    if (dflt)
      return *dflt;
    return error(n) << "required attribute '" << name << "' is missing";
  }
  int t = effectiveType(*a);
  if (t != onnx::AttributeProto::INTS && t != onnx::AttributeProto::UNDEFINED)
    return wrongType(*this, n, name, "ints", *a);
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

FailureOr<SmallVector<float>>
Importer::attrFloats(NodeCtx &n, StringRef name,
                     std::optional<SmallVector<float>> dflt) {
  const auto *a = attr(n, name);
  if (!a) {
    if (dflt)
      return *dflt;
    return error(n) << "required attribute '" << name << "' is missing";
  }
  int t = effectiveType(*a);
  if (t != onnx::AttributeProto::FLOATS && t != onnx::AttributeProto::UNDEFINED)
    return wrongType(*this, n, name, "floats", *a);
  return SmallVector<float>(a->floats().begin(), a->floats().end());
}

FailureOr<std::vector<std::string>> Importer::attrStrings(NodeCtx &n,
                                                          StringRef name) {
  const auto *a = attr(n, name);
  if (!a)
    return std::vector<std::string>{};
  int t = effectiveType(*a);
  if (t != onnx::AttributeProto::STRINGS && t != onnx::AttributeProto::UNDEFINED)
    return wrongType(*this, n, name, "strings", *a);
  return std::vector<std::string>(a->strings().begin(), a->strings().end());
}

FailureOr<DenseElementsAttr> Importer::attrTensor(NodeCtx &n, StringRef name,
                                                  int32_t *onnxType) {
  const auto *a = attr(n, name);
  if (!a)
    return error(n) << "required attribute '" << name << "' is missing";
  if (effectiveType(*a) != onnx::AttributeProto::TENSOR)
    return wrongType(*this, n, name, "a tensor", *a);
  TensorValue t;
  ImportError e;
  if (!decodeTensor(a->t(), modelDir, options.limits,
                    "attribute '" + name.str() + "'", t, e))
    return error(n) << e.message;
  if (onnxType)
    *onnxType = t.onnxType;
  return toAttr(t);
}

//===----------------------------------------------------------------------===//
// Graphs and nodes
//===----------------------------------------------------------------------===//

Location Importer::nodeLoc(const onnx::NodeProto &node, int64_t index) {
  return NameLoc::get(
      StringAttr::get(&ctx, locPrefix + describeNode(node, index)),
      FileLineColLoc::get(&ctx, fileName, 0, 0));
}

static std::string functionKey(const std::string &domain,
                               const std::string &name,
                               const std::string &overload) {
  std::string d = domain == "ai.onnx" ? std::string() : domain;
  return d + std::string(1, '\0') + name + std::string(1, '\0') + overload;
}

const Importer::ModelFunction *
Importer::functionFor(const onnx::NodeProto &node) const {
  if (functions.empty())
    return nullptr;
  auto it = functions.find(
      functionKey(node.domain(), node.op_type(), overloadOf(node)));
  return it == functions.end() ? nullptr : &it->second;
}

void Importer::collectUnsupported(
    const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes,
    const std::string &where, std::vector<std::string> &out, int depth,
    std::set<const ModelFunction *> &seen) {
  const auto &table = opHandlers();
  for (int i = 0; i < nodes.size(); ++i) {
    const auto &node = nodes.Get(i);
    if (const ModelFunction *f = functionFor(node)) {
      // A call of a model function: its body is checked (once) instead.
      if (seen.insert(f).second && depth < options.limits.maxGraphDepth)
        collectUnsupported(f->proto->node(), " in function '" + f->name + "'",
                           out, depth + 1, seen);
    } else {
      bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
      std::string name = defaultDomain ? node.op_type()
                                       : node.domain() + "." + node.op_type();
      if (!table.find(name))
        out.push_back(name + " (" + describeNode(node, i) + where + ")");
    }
    if (depth < options.limits.maxGraphDepth)
      for (const auto &a : node.attribute()) {
        if (a.has_g())
          collectUnsupported(a.g().node(), where, out, depth + 1, seen);
        for (const auto &sg : a.graphs())
          collectUnsupported(sg.node(), where, out, depth + 1, seen);
      }
  }
}

/// The number of nodes `nodes` has once every function call is inlined
/// (subgraphs included), saturating past the node limit. A recursive call
/// counts 0: importCall refuses it with a precise message.
int64_t Importer::inlinedSize(
    const google::protobuf::RepeatedPtrField<onnx::NodeProto> &nodes, int depth,
    std::map<const ModelFunction *, int64_t> &memo,
    std::set<const ModelFunction *> &active) {
  const int64_t cap = options.limits.maxNodes + 1;
  int64_t total = 0;
  for (const auto &node : nodes) {
    int64_t size = 1;
    if (const ModelFunction *f = functionFor(node)) {
      auto it = memo.find(f);
      if (it != memo.end()) {
        size = it->second;
      } else if (active.count(f) || depth >= options.limits.maxGraphDepth) {
        size = 0;
      } else {
        active.insert(f);
        size = inlinedSize(f->proto->node(), depth + 1, memo, active);
        active.erase(f);
        memo[f] = size;
      }
    }
    if (depth < options.limits.maxGraphDepth)
      for (const auto &a : node.attribute()) {
        if (a.has_g())
          size += inlinedSize(a.g().node(), depth + 1, memo, active);
        for (const auto &sg : a.graphs())
          size += inlinedSize(sg.node(), depth + 1, memo, active);
      }
    total = std::min(cap, total + std::min(cap, size));
  }
  return total;
}

namespace {
using AttrBindings = std::map<std::string, const onnx::AttributeProto *>;

void bindGraph(onnx::GraphProto &g, const AttrBindings &attrs,
               const std::set<std::string> &absent);

/// Prepares a copy of a function body node for inlining: an attribute that
/// refers to an attribute of the function (ref_attr_name) takes the call's
/// value, else the function's default, else it is left out (ONNX); an input
/// naming a formal input the call omits becomes "" (absent). Subgraphs are
/// bound too: their nodes see the function's attributes and inputs.
void bindNode(onnx::NodeProto &node, const AttrBindings &attrs,
              const std::set<std::string> &absent) {
  for (auto &in : *node.mutable_input())
    if (absent.count(in))
      in.clear();
  auto *list = node.mutable_attribute();
  for (int i = 0; i < list->size();) {
    onnx::AttributeProto &a = *list->Mutable(i);
    if (!a.ref_attr_name().empty()) {
      auto it = attrs.find(a.ref_attr_name());
      if (it == attrs.end()) {
        list->DeleteSubrange(i, 1);
        continue;
      }
      std::string name = a.name();
      a = *it->second; // the caller's value: its graphs are not bound here
      a.set_name(name);
      a.clear_ref_attr_name();
      ++i;
      continue;
    }
    if (a.has_g())
      bindGraph(*a.mutable_g(), attrs, absent);
    for (auto &g : *a.mutable_graphs())
      bindGraph(g, attrs, absent);
    ++i;
  }
}

void bindGraph(onnx::GraphProto &g, const AttrBindings &attrs,
               const std::set<std::string> &absent) {
  for (auto &node : *g.mutable_node())
    bindNode(node, attrs, absent);
}
} // namespace

/// Inlines a call of a model function: the body's nodes are imported in a
/// scope of their own (the formal inputs bound to the call's values, so no
/// name of the body can meet a name of the caller), under the function's
/// default-domain opset, and the formal outputs become the call's outputs.
LogicalResult Importer::importCall(NodeCtx &n, const ModelFunction &f) {
  const onnx::FunctionProto &fp = *f.proto;
  auto fail = [&](std::string msg) {
    diagText = std::move(msg);
    return failure();
  };
  if (llvm::is_contained(callStack, &f))
    return fail("function '" + f.name +
                "' calls itself; recursive functions are not supported");
  if (n.scope->depth + 1 > options.limits.maxGraphDepth)
    return fail("function calls and subgraphs nest deeper than " +
                std::to_string(options.limits.maxGraphDepth) + " levels");
  inlinedNodes += fp.node_size();
  if (inlinedNodes > options.limits.maxNodes)
    return fail("inlining the model's functions gives more than " +
                std::to_string(options.limits.maxNodes) + " nodes (the limit)");
  int64_t fnOpset = opset;
  for (const auto &o : fp.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      fnOpset = o.version();
  if (fnOpset < kMinOpset || fnOpset > kMaxOpset)
    return fail("function '" + f.name + "' uses opset " +
                std::to_string(fnOpset) +
                " of the default ONNX domain; Plumb supports opsets " +
                std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
  if (n.numInputs() > fp.input_size())
    return fail("has " + std::to_string(n.numInputs()) +
                " inputs but function '" + f.name + "' takes " +
                std::to_string(fp.input_size()));
  if (n.proto.output_size() > fp.output_size())
    return fail("has " + std::to_string(n.proto.output_size()) +
                " outputs but function '" + f.name + "' has " +
                std::to_string(fp.output_size()));

  AttrBindings attrs;
  for (const auto &d : f.defaults)
    attrs[d.name()] = &d;
  for (const auto &a : n.proto.attribute())
    attrs[a.name()] = &a; // the call's values win over the defaults
  Scope body;
  body.depth = n.scope->depth + 1; // no parent: the body sees only its inputs
  std::set<std::string> absent;
  for (int i = 0; i < fp.input_size(); ++i) {
    if (fp.input(i).empty())
      continue;
    if (Value v = n.in(i))
      body.values[fp.input(i)] = v;
    else
      absent.insert(fp.input(i));
  }
  onnx::GraphProto g;
  for (const auto &node : fp.node()) {
    onnx::NodeProto *copy = g.add_node();
    *copy = node;
    bindNode(*copy, attrs, absent);
  }
  for (const auto &o : fp.output())
    g.add_output()->set_name(o);

  int64_t savedOpset = opset;
  std::string savedPrefix = locPrefix;
  opset = fnOpset;
  locPrefix +=
      describeNode(n.proto, n.index) + " > function '" + f.name + "' > ";
  callStack.push_back(&f);
  failedNode.clear();
  SmallVector<Value> outs;
  LogicalResult r = importGraphInScope(g, body, outs);
  callStack.pop_back();
  locPrefix = savedPrefix;
  opset = savedOpset;
  if (failed(r))
    return fail("in function '" + f.name + "': " +
                (failedNode.empty() ? diagText : failedNode + ": " + diagText));
  for (int i = 0; i < n.proto.output_size(); ++i)
    n.outputs.push_back(outs[i]);
  return success();
}

//===----------------------------------------------------------------------===//
// Half precision storage types (docs/determinism.md, "Half precision")
//===----------------------------------------------------------------------===//

namespace {

/// ONNX operators whose float results are values of their inputs (moved,
/// selected, or computed exactly): their outputs keep the inputs' storage
/// type without a rounding op.
bool movesHalfValues(StringRef op) {
  static const char *const ops[] = {
      "Reshape",      "Flatten",         "Squeeze",         "Unsqueeze",
      "Transpose",    "Identity",        "Concat",          "Split",
      "Slice",        "Gather",          "GatherElements",  "GatherND",
      "Expand",       "Tile",            "Pad",             "DepthToSpace",
      "SpaceToDepth", "Where",           "Max",             "Min",
      "Relu",         "Neg",             "Abs",             "MaxPool",
      "ReduceMax",    "ReduceMin",       "TopK",            "Sign",
      "Floor",        "Ceil",            "Round",           "ScatterND",
      "ScatterElements", "Scatter",      "ReverseSequence", "Compress",
      "Trilu",        "Clip",            "Dropout",         "ConstantOfShape",
      "EyeLike",      "GlobalMaxPool",   "OneHot"};
  return llvm::is_contained(ops, op);
}

/// Float inputs whose type ONNX lets differ from the data's.
bool otherFloatInput(StringRef op, int64_t i) {
  if (op == "Resize" || op == "Upsample" || op == "BatchNormalization" ||
      op == "Dropout")
    return i >= 1;
  return op == "Pow" && i == 1;
}

/// Float outputs of another type constraint than the data (LayerNorm's mean
/// and inverse standard deviation, BatchNorm's running statistics).
bool otherFloatOutput(StringRef op, int64_t i) {
  return (op == "LayerNormalization" || op == "BatchNormalization") && i >= 1;
}

} // namespace

Value Importer::roundToHalf(Location loc, Value v, int32_t half) {
  bool bf16 = half == onnx::TensorProto::BFLOAT16;
  Value r;
  // A small constant is rounded now (the same function the kernels run).
  auto c = v.getDefiningOp<ConstantOp>();
  auto dense = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : nullptr;
  if (dense && dense.getElementType().isF32() &&
      dense.getNumElements() <= kFoldElements &&
      !c->hasAttr("plumb.initializer")) {
    SmallVector<float> vals;
    for (const APFloat &f : dense.getValues<APFloat>()) {
      float x = f.convertToFloat();
      vals.push_back(bf16 ? rt::half::roundToBf16(x)
                          : rt::half::roundToF16(x));
    }
    r = constantOf(
        DenseElementsAttr::get(cast<ShapedType>(dense.getType()),
                               ArrayRef<float>(vals)));
  } else if (bf16) {
    r = RoundBf16Op::create(b, loc, v.getType(), v);
  } else {
    r = RoundF16Op::create(b, loc, v.getType(), v);
  }
  narrowTypes[r] = half;
  return r;
}

Value Importer::asFloat32Storage(Location loc, Value v) {
  if (auto c = v.getDefiningOp<ConstantOp>())
    if (!c->hasAttr("plumb.initializer"))
      return ConstantOp::create(b, loc, c.getValue());
  return CastOp::create(b, loc, v.getType(), v);
}

LogicalResult Importer::roundHalfOutputs(NodeCtx &n) {
  StringRef op = n.opType();
  // Cast, CastLike and Constant set their outputs' storage types themselves.
  if (op == "Cast" || op == "CastLike" || op == "Constant")
    return success();
  int32_t st = 0;
  int64_t at = -1;
  for (int64_t i = 0; i < n.numInputs(); ++i) {
    Value v = n.in(i);
    if (!v || otherFloatInput(op, i) || !eltOf(v).isF32())
      continue;
    int32_t h = halfType(v);
    if (!h)
      continue;
    if (st && h != st)
      return error(n) << "mixes " << onnxTypeName(st) << " (input " << at
                      << ") and " << onnxTypeName(h) << " (input " << i
                      << ") operands; ONNX gives them one type";
    st = h;
    at = i;
  }
  // Outputs whose type an attribute gives.
  if (!st)
    for (const auto &a : n.proto.attribute()) {
      if (a.name() == "value" && op == "ConstantOfShape" && a.has_t() &&
          isHalfFloatType(a.t().data_type()))
        st = a.t().data_type();
      if (a.name() == "dtype" && isHalfFloatType(int32_t(a.i())))
        st = int32_t(a.i());
    }
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    Value v = n.outputs[i];
    if (!v || !isa<RankedTensorType>(v.getType()) || !eltOf(v).isF32() ||
        otherFloatOutput(op, int64_t(i)))
      continue;
    int32_t s = st;
    if (!s && int(i) < n.proto.output_size()) {
      // No half input (an If's or a Loop's result, say): the type the graph
      // declares for the output, when it declares one.
      auto it = declaredTypes.find(n.proto.output(int(i)));
      if (it != declaredTypes.end() && isHalfFloatType(it->second))
        s = it->second;
    }
    if (!s || halfType(v) == s)
      continue;
    if (movesHalfValues(op) && st)
      narrowTypes[v] = s;
    else
      n.outputs[i] = roundToHalf(n.loc, v, s);
  }
  return success();
}

LogicalResult Importer::importNode(const onnx::NodeProto &node, int64_t index,
                                   Scope &scope) {
  NodeCtx n{node, index, nodeLoc(node, index), opset, {}, {}, &scope};
  for (const auto &name : node.input()) {
    if (name.empty()) {
      n.inputs.push_back(Value());
      continue;
    }
    Value v;
    for (Scope *s = &scope; s && !v; s = s->parent) {
      auto it = s->values.find(name);
      if (it != s->values.end())
        v = it->second;
    }
    if (!v) {
      diagText = "uses tensor '" + name + "' which is not defined";
      failedNode = describeNode(node, index);
      return failure();
    }
    n.inputs.push_back(v);
  }
  if (const ModelFunction *f = functionFor(node)) {
    if (failed(importCall(n, *f))) {
      failedNode = describeNode(node, index);
      return failure();
    }
  } else {
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    std::string key = defaultDomain ? node.op_type()
                                    : node.domain() + "." + node.op_type();
    const OpEntry *handler = opHandlers().find(key);
    if (!handler) {
      diagText = "unsupported operator " + key;
      failedNode = describeNode(node, index);
      return failure();
    }
    diagText.clear();
    if (failed(handler->handler(*this, n)) || failed(roundHalfOutputs(n))) {
      failedNode = describeNode(node, index);
      if (diagText.empty())
        diagText = "could not be imported";
      return failure();
    }
  }
  int used = 0;
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty())
      continue;
    if (i >= (int)n.outputs.size() || !n.outputs[i]) {
      failedNode = describeNode(node, index);
      diagText = "output " + std::to_string(i) + " ('" + node.output(i) +
                 "') is not supported by Plumb";
      return failure();
    }
    scope.values[node.output(i)] = n.outputs[i];
    ++used;
  }
  (void)used;
  return success();
}

LogicalResult Importer::importGraphInScope(const onnx::GraphProto &g,
                                           Scope &scope,
                                           SmallVectorImpl<Value> &outputs) {
  // Names defined before the graph's nodes run: everything visible.
  std::set<std::string> available;
  for (Scope *s = &scope; s; s = s->parent)
    for (auto &kv : s->values)
      available.insert(kv.first().str());
  // A name given twice would make the graph (and its hash) depend on which
  // definition wins: refused, naming it.
  std::set<std::string> inits, inputs;
  for (const auto &init : g.initializer())
    if (!inits.insert(init.name()).second) {
      diagText = "initializer '" + init.name() + "' is given twice";
      return failure();
    }
  for (const auto &in : g.input())
    if (!inputs.insert(in.name()).second) {
      diagText = "graph input '" + in.name() + "' is declared twice";
      return failure();
    }
  for (const auto &node : g.node())
    for (const auto &o : node.output())
      if (!o.empty() && (inits.count(o) || inputs.count(o))) {
        diagText = "tensor '" + o + "' is both " +
                   (inputs.count(o) ? "a graph input" : "an initializer") +
                   " and an output of node '" + node.name() + "' (" +
                   node.op_type() + ")";
        return failure();
      }
  available.insert(inits.begin(), inits.end());
  available.insert(inputs.begin(), inputs.end());
  std::vector<int> order;
  ImportError err;
  if (!topologicalOrder(g, available, order, err)) {
    diagText = err.message;
    return failure();
  }
  for (const auto &vi : g.value_info())
    if (vi.type().has_tensor_type())
      declaredTypes.emplace(vi.name(), vi.type().tensor_type().elem_type());
  for (const auto &vi : g.output())
    if (vi.type().has_tensor_type())
      declaredTypes.emplace(vi.name(), vi.type().tensor_type().elem_type());
  for (const auto &init : g.initializer()) {
    if (scope.values.count(init.name()))
      continue;
    TensorValue t;
    if (!decodeTensor(init, modelDir, options.limits,
                      "initializer '" + init.name() + "'", t, err)) {
      diagText = err.message;
      return failure();
    }
    Value c = constantOf(toAttr(t));
    if (t.onnxType)
      narrowTypes[c] = t.onnxType;
    if (options.nameInitializers && !scope.parent)
      c.getDefiningOp()->setAttr("plumb.initializer",
                                 b.getStringAttr(init.name()));
    scope.values[init.name()] = c;
  }
  for (int idx : order)
    if (failed(importNode(g.node(idx), idx, scope)))
      return failure();
  for (const auto &out : g.output()) {
    Value v;
    for (Scope *s = &scope; s && !v; s = s->parent) {
      auto it = s->values.find(out.name());
      if (it != s->values.end())
        v = it->second;
    }
    if (!v) {
      diagText = "graph output '" + out.name() + "' is never produced";
      return failure();
    }
    outputs.push_back(v);
  }
  return success();
}

LogicalResult Importer::importGraph(const onnx::GraphProto &g, Scope &parent,
                                    SmallVectorImpl<Value> &outputs) {
  if (parent.depth + 1 > options.limits.maxGraphDepth) {
    diagText = "subgraphs nest deeper than " +
               std::to_string(options.limits.maxGraphDepth) + " levels";
    return failure();
  }
  Scope child;
  child.parent = &parent;
  child.depth = parent.depth + 1;
  // Save and restore the node being imported's error context.
  std::string savedNode = failedNode;
  if (failed(importGraphInScope(g, child, outputs)))
    return failure();
  failedNode = savedNode;
  return success();
}

/// Replaces large dense constants by dense_resource blobs.
static void moveLargeConstantsToResources(ModuleOp module, int64_t threshold) {
  OpBuilder b(module.getContext());
  int counter = 0;
  module.walk([&](ConstantOp c) {
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense || dense.isSplat())
      return;
    ArrayRef<char> raw = dense.getRawData();
    if ((int64_t)raw.size() < threshold || dense.getElementType().isInteger(1))
      return;
    auto blob = HeapAsmResourceBlob::allocateAndCopyInferAlign(raw);
    std::string name = "w" + std::to_string(counter++);
    auto attr = DenseResourceElementsAttr::get(
        cast<ShapedType>(dense.getType()), name, std::move(blob));
    c.setValueAttr(attr);
  });
}

OwningOpRef<ModuleOp> Importer::run(const onnx::ModelProto &model,
                                    const std::string &path,
                                    ImportError &err) {
  fileName = llvm::sys::path::filename(path).str();
  if (!checkModelHeader(model, opset, err))
    return nullptr;
  const onnx::GraphProto &g = model.graph();

  // The model's functions (IR >= 8), by (domain, name, overload).
  for (const auto &f : model.functions()) {
    ModelFunction mf;
    mf.proto = &f;
    std::string overload = overloadOf(f);
    mf.name = (f.domain().empty() ? std::string() : f.domain() + ".") +
              f.name() + (overload.empty() ? std::string() : ":" + overload);
    if (!functionAttributeDefaults(f, mf.defaults, err))
      return nullptr;
    std::string name = mf.name;
    if (!functions
             .emplace(functionKey(f.domain(), f.name(), overload),
                      std::move(mf))
             .second) {
      err = {"model defines function '" + name + "' twice", 1};
      return nullptr;
    }
  }

  // Every unsupported operator at once, before any other work.
  std::vector<std::string> unsupported;
  std::set<const ModelFunction *> seen;
  collectUnsupported(g.node(), "", unsupported, 0, seen);
  if (!unsupported.empty()) {
    std::sort(unsupported.begin(), unsupported.end());
    std::string msg = "unsupported operators: ";
    for (size_t i = 0; i < unsupported.size(); ++i)
      msg += (i ? ", " : "") + unsupported[i];
    // Operators whose output size depends on the data: say why.
    std::string dd;
    for (const char *op : {"NonMaxSuppression", "Unique", "Compress"})
      for (const std::string &u : unsupported)
        if (llvm::StringRef(u).starts_with(std::string(op) + " ")) {
          dd += (dd.empty() ? "" : ", ") + std::string(op);
          break;
        }
    if (!dd.empty())
      msg += "; " + dd +
             ": the output size depends on the input's values and Plumb "
             "compiles static shapes (export the model without its "
             "post-processing)";
    err = {msg, 1};
    return nullptr;
  }

  // Function calls inline their bodies: a model of few nodes can expand to
  // exponentially many (each function calling the previous one twice).
  if (!functions.empty()) {
    std::map<const ModelFunction *, int64_t> memo;
    std::set<const ModelFunction *> active;
    if (inlinedSize(g.node(), 0, memo, active) > options.limits.maxNodes) {
      err = {"inlining the model's functions gives more than " +
                 std::to_string(options.limits.maxNodes) + " nodes (the limit)",
             1};
      return nullptr;
    }
  }

  // Collect diagnostics as text for the failing node's message.
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    if (d.getSeverity() != DiagnosticSeverity::Error)
      return success();
    if (!diagText.empty())
      diagText += "; ";
    diagText += d.str();
    return success();
  });

  // Graph interface: inputs that are not initializers, in order.
  std::set<std::string> initNames;
  for (const auto &init : g.initializer())
    initNames.insert(init.name());
  SmallVector<Type> argTypes;
  SmallVector<const onnx::ValueInfoProto *> args;
  SmallVector<int32_t> argNarrow; // the ONNX type of a narrow input, else 0
  for (const auto &in : g.input()) {
    if (initNames.count(in.name()))
      continue;
    if (!in.type().has_tensor_type()) {
      err = {"input '" + in.name() + "' is not a tensor", 1};
      return nullptr;
    }
    DType dt;
    int32_t et = in.type().tensor_type().elem_type();
    // An 8- or 16-bit integer input is an int32 argument holding its values
    // (docs/determinism.md, "Narrow integers"), as constants are.
    bool narrow =
        et == onnx::TensorProto::UINT8 || et == onnx::TensorProto::INT8 ||
        et == onnx::TensorProto::UINT16 || et == onnx::TensorProto::INT16;
    // FLOAT16 and BFLOAT16 inputs are float32 arguments rounded to their
    // storage type on entry ("Half precision").
    bool half = isHalfFloatType(et);
    if (narrow) {
      dt = DType::I32;
    } else if (half) {
      dt = DType::F32;
    } else if (!dtypeFromOnnx(et, dt)) {
      err = {"input '" + in.name() + "' has element type " + onnxTypeName(et) +
                 ", which Plumb does not support (float, int64, int32, bool; "
                 "uint8, int8, uint16 and int16 as int32; float16 and "
                 "bfloat16 as float)",
             1};
      return nullptr;
    }
    argNarrow.push_back(narrow || half ? et : 0);
    std::vector<int64_t> shape;
    if (!resolveInputShape(in, options.bindings, options.limits, shape, err,
                           unsigned(args.size())))
      return nullptr;
    argTypes.push_back(RankedTensorType::get(shape, mlirType(dt)));
    args.push_back(&in);
  }
  for (const auto &kv : options.bindings.inputShapes) {
    bool found = llvm::any_of(args, [&](const onnx::ValueInfoProto *a) {
      return a->name() == kv.first;
    });
    if (!found) {
      err = {"--input-shape names '" + kv.first +
                 "', which is not an input of the model",
             2};
      return nullptr;
    }
  }

  auto module = ModuleOp::create(b.getUnknownLoc());
  OwningOpRef<ModuleOp> owned(module);
  module->setAttr("plumb.contract", b.getStringAttr(PLUMB_CONTRACT_VERSION));
  module->setAttr("plumb.opset", b.getI64IntegerAttr(opset));
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, b.getUnknownLoc(), "main",
                                   b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);

  Scope top;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &name = args[i]->name();
    func.setArgAttr(i, "plumb.name", b.getStringAttr(name));
    top.values[name] = entry->getArgument(i);
    if (argNarrow[i])
      narrowTypes[entry->getArgument(i)] = argNarrow[i];
    bool half = isHalfFloatType(argNarrow[i]);
    if (half)
      func.setArgAttr(i, "plumb.storage",
                      b.getStringAttr(argNarrow[i] == onnx::TensorProto::FLOAT16
                                          ? "float16"
                                          : "bfloat16"));
    auto bound = options.bindings.inputValues.find(name);
    if (bound != options.bindings.inputValues.end()) {
      auto type = cast<RankedTensorType>(argTypes[i]);
      DType dt = half ? DType::F32 : DType::I32;
      if (!argNarrow[i])
        dtypeFromOnnx(args[i]->type().tensor_type().elem_type(), dt);
      TensorValue tv;
      if (!convertInputValue(name, bound->second, dt,
                             std::vector<int64_t>(type.getShape().begin(),
                                                  type.getShape().end()),
                             tv, err))
        return nullptr;
      DenseElementsAttr value = toAttr(tv);
      func.setArgAttr(i, "plumb.bound_value", value);
      top.values[name] = constantOf(value);
    }
    if (half)
      top.values[name] = roundToHalf(b.getUnknownLoc(), top.values[name],
                                     argNarrow[i]);
  }
  for (const auto &kv : options.bindings.inputValues)
    if (!llvm::any_of(args, [&](const onnx::ValueInfoProto *a) {
          return a->name() == kv.first;
        })) {
      err = {"--input-value names '" + kv.first +
                 "', which is not an input of the model",
             2};
      return nullptr;
    }

  SmallVector<Value> outputs;
  if (failed(importGraphInScope(g, top, outputs))) {
    err.exitCode = 1;
    err.message = failedNode.empty() ? diagText : failedNode + ": " + diagText;
    return nullptr;
  }
  // Outputs keep the model's element types.
  for (int i = 0; i < g.output_size(); ++i) {
    int32_t et = g.output(i).type().tensor_type().elem_type();
    DType dt;
    if (et == onnx::TensorProto::UINT8 || et == onnx::TensorProto::INT8 ||
        et == onnx::TensorProto::UINT16 || et == onnx::TensorProto::INT16) {
      err = {"output '" + g.output(i).name() + "' is " + onnxTypeName(et) +
                 ": Plumb computes 8- and 16-bit integers inside a graph "
                 "(held as int32) but does not return them yet; return them "
                 "dequantized or cast to INT32",
             1};
      return nullptr;
    }
    if (isHalfFloatType(et)) {
      if (!cast<RankedTensorType>(outputs[i].getType())
               .getElementType()
               .isF32()) {
        err = {"output '" + g.output(i).name() + "' is declared as " +
                   onnxTypeName(et) + " but computed as another type",
               1};
        return nullptr;
      }
      // A value the inference gave another storage type is rounded to the
      // declared one (a float32 value returned as FLOAT16, say).
      if (halfType(outputs[i]) != et)
        outputs[i] = roundToHalf(b.getUnknownLoc(), outputs[i], et);
    }
    if (et != 0 && dtypeFromOnnx(et, dt) &&
        mlirType(dt) != cast<RankedTensorType>(outputs[i].getType()).getElementType()) {
      err = {"output '" + g.output(i).name() + "' is declared as " +
                 onnxTypeName(et) + " but computed as another type",
             1};
      return nullptr;
    }
  }
  func::ReturnOp::create(b, b.getUnknownLoc(), outputs);
  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  func.setFunctionType(b.getFunctionType(argTypes, resultTypes));
  for (int i = 0; i < g.output_size(); ++i) {
    func.setResultAttr(i, "plumb.name", b.getStringAttr(g.output(i).name()));
    int32_t et = g.output(i).type().tensor_type().elem_type();
    if (isHalfFloatType(et))
      func.setResultAttr(i, "plumb.storage",
                         b.getStringAttr(et == onnx::TensorProto::FLOAT16
                                             ? "float16"
                                             : "bfloat16"));
  }

  // Drop what nothing uses (unused initializers, folded shape pieces).
  IRRewriter rewriter(&ctx);
  (void)runRegionDCE(rewriter, func.getBody());
  moveLargeConstantsToResources(module, options.resourceThresholdBytes);

  diagText.clear();
  if (failed(verify(module))) {
    err = {"the imported module does not verify: " + diagText, 1};
    return nullptr;
  }
  return owned;
}

OwningOpRef<ModuleOp> importOnnxFile(MLIRContext &ctx, const std::string &path,
                                     const ImportOptions &options,
                                     ImportError &err) {
  ctx.loadDialect<PlumbDialect, func::FuncDialect>();
  onnx::ModelProto model;
  if (!loadModelFile(path, model, options.limits, err))
    return nullptr;
  std::string dir = llvm::sys::path::parent_path(path).str();
  if (dir.empty())
    dir = ".";
  Importer importer(ctx, options, dir);
  return importer.run(model, path, err);
}

} // namespace importer
} // namespace plumb
