//===- include/plumb/Importer/ModelLoader.h - Safe ONNX file loading -*- C++ -*-===//
//
// Part of Plumb. Everything the importer needs from an ONNX file before MLIR is
// involved: parsing with limits, decoding tensors (raw, typed and external
// data) with size checks, topological ordering with cycle and undefined-tensor
// detection, and the command-line bindings (--input-shape, --dim,
// --input-value). Nothing here crashes, hangs, recurses without bound or
// allocates more than the checked sizes on malformed input: every failure is an
// ImportError with a message that names the node where there is one.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_IMPORTER_MODELLOADER_H
#define PLUMB_IMPORTER_MODELLOADER_H

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace onnx {
class AttributeProto;
class FunctionProto;
class ModelProto;
class GraphProto;
class NodeProto;
class TensorProto;
class ValueInfoProto;
} // namespace onnx

namespace plumb {
namespace importer {

/// Element types Plumb accepts. Anything else is rejected with a clear error.
enum class DType { F32, I64, I32, Bool };
const char *dtypeName(DType t);
/// Size in bytes of one element (Bool is stored as one byte, 0 or 1).
size_t dtypeSize(DType t);

/// A dense, little-endian, row-major tensor decoded from a TensorProto (or
/// from a --input-value binding).
struct TensorValue {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<char> data; // numElements(shape) * dtypeSize(dtype) bytes
  /// The ONNX data type (TensorProto.DataType) of a tensor widened on
  /// decoding: UINT8, INT8, UINT16 and INT16 are held as INT32 with their
  /// exact values (docs/determinism.md, "Narrow integers"), FLOAT16 and
  /// BFLOAT16 as FLOAT ("Half precision"); 0 otherwise.
  int32_t onnxType = 0;
  int64_t numElements() const;
};

/// Limits applied while loading. Defaults are generous for real models and
/// small enough that a hostile file cannot exhaust memory.
struct LoadLimits {
  uint64_t maxFileBytes = 4ull << 30;       // model file
  uint64_t maxTensorBytes = 2ull << 30;     // one decoded tensor
  int64_t maxElements = int64_t(1) << 31;   // elements of any tensor/shape
  int64_t maxRank = 16;
  int64_t maxNodes = 2000000;
  int64_t maxGraphDepth = 64;               // nested subgraphs (If/Loop)
};

/// Error from loading/importing. `exitCode` is 1 for bad models, 2 for usage.
struct ImportError {
  std::string message;
  int exitCode = 1;
};

/// Parses the model file. On failure returns false and fills `err`
/// ("cannot open ...", "not a valid ONNX model: ...", truncated files, ...).
bool loadModelFile(const std::string &path, onnx::ModelProto &model,
                   const LoadLimits &limits, ImportError &err);

/// The default-domain opsets and IR versions Plumb imports. Every semantic
/// change the ONNX operator changelog lists between opsets 7 and 25 for the
/// operators Plumb imports is honoured (docs/dialect.md); IR versions 11 to 13
/// only add data types (refused by name) and fields the importer ignores.
constexpr int64_t kMinOpset = 7, kMaxOpset = 25;
constexpr int64_t kMinIrVersion = 3, kMaxIrVersion = 13;

/// Checks IR version and opset imports. Fills `defaultOpset` with the version
/// of the default ("" / "ai.onnx") domain. Accepts opsets kMinOpset..kMaxOpset
/// of the default domain; other domains are allowed only if no node uses them
/// except as calls of the model's own functions (checked later).
bool checkModelHeader(const onnx::ModelProto &model, int64_t &defaultOpset,
                      ImportError &err);

/// Decodes an initializer / Constant value / attribute tensor. `modelDir` is
/// the folder holding the model: external data is read relative to it and
/// refused if its path escapes it (absolute paths, "..", symlinks out).
/// `what` describes the tensor for messages (e.g. "initializer 'w1'").
bool decodeTensor(const onnx::TensorProto &t, const std::string &modelDir,
                  const LoadLimits &limits, const std::string &what,
                  TensorValue &out, ImportError &err);

/// Fields newer than the ONNX protos Plumb builds against (Debian's ONNX
/// 1.12, IR 8). Protobuf keeps them as unknown fields; these read them from
/// there (or from the generated accessor when the protos know them).
/// NodeProto.overload and FunctionProto.overload (IR 10): "" when absent.
std::string overloadOf(const onnx::NodeProto &node);
std::string overloadOf(const onnx::FunctionProto &function);
/// FunctionProto.attribute_proto (IR 9): the function's attributes that have
/// default values. False with `err` (naming the function) when one does not
/// parse.
bool functionAttributeDefaults(const onnx::FunctionProto &function,
                               std::vector<onnx::AttributeProto> &out,
                               ImportError &err);

/// Maps an ONNX TensorProto data type to DType; false for unsupported ones.
bool dtypeFromOnnx(int32_t onnxType, DType &out);
/// Human name of an ONNX data type number ("FLOAT16", "UINT8", ...).
const char *onnxTypeName(int32_t onnxType);
/// FLOAT16 or BFLOAT16: held as FLOAT with exactly representable values
/// (docs/determinism.md, "Half precision").
bool isHalfFloatType(int32_t onnxType);
/// The float32 bits of the FLOAT16 or BFLOAT16 value whose bits are `h`
/// (exact; a NaN gives the canonical NaN).
uint32_t halfToF32Bits(int32_t onnxType, uint16_t h);

/// Formats a node for messages: "node 'name' (OpType, #index)"; an unnamed
/// node is "node #index (OpType)".
std::string describeNode(const onnx::NodeProto &node, int64_t index);

/// Names a node's subgraphs reference from enclosing scopes (recursively),
/// which are dependencies of the node like its inputs.
std::set<std::string> outerScopeReferences(const onnx::NodeProto &node);

/// Topological order of `graph.node()` (indices). `available` holds the names
/// defined before the graph runs: graph inputs, initializers and, for a
/// subgraph, every name visible from enclosing scopes. Fails on an undefined
/// tensor (naming the node and tensor), a tensor defined twice, or a cycle
/// (naming nodes on it). Iterative: no recursion on long chains. Among ready
/// nodes the file order is kept.
bool topologicalOrder(const onnx::GraphProto &graph,
                      const std::set<std::string> &available,
                      std::vector<int> &order, ImportError &err);

/// Command-line bindings.
struct InputBindings {
  std::map<std::string, std::vector<int64_t>> inputShapes; // --input-shape
  std::map<std::string, int64_t> dims;                      // --dim
  std::map<std::string, std::string> inputValues;           // --input-value (text)
  /// The shape of the sample tensor given for graph input `index` (named
  /// `name`), if there is one: plumb run's --input / --inputs-dir files, or
  /// those given to compile and import. Consulted only for an input whose
  /// declared shape leaves a dimension free and that no --input-shape binds;
  /// the sample must agree with every dimension the model (or --dim) fixes.
  /// Returns false with `err` empty when there is no sample, false with
  /// `err` set when it cannot be read.
  std::function<bool(unsigned index, const std::string &name,
                     std::vector<int64_t> &shape, std::string &err)>
      sampleShape;
};
/// Parse "NAME=1x3x224x224" (a scalar is "NAME=" or "NAME=scalar").
bool parseInputShape(const std::string &arg, InputBindings &b, ImportError &err);
/// Parse "SYMBOL=N" (N >= 1).
bool parseDim(const std::string &arg, InputBindings &b, ImportError &err);
/// Parse "NAME=V" where V is a number or a comma list "1,2,3" (kept as text,
/// converted once the input's type and shape are known).
bool parseInputValue(const std::string &arg, InputBindings &b, ImportError &err);

/// Resolves the static shape of a graph input from its ValueInfo and the
/// bindings: --input-shape wins, then --dim for symbolic dims. An unbound
/// symbolic or unknown dim fails with a message naming the input and symbol
/// (e.g. "input 'bytes' has free dimension 'unk__214' (dim 0); bind it with
/// --dim unk__214=N or --input-shape bytes=...").
/// `index` is the input's position among the graph inputs that are not
/// initializers (what InputBindings::sampleShape is asked for).
bool resolveInputShape(const onnx::ValueInfoProto &input,
                       const InputBindings &b, const LoadLimits &limits,
                       std::vector<int64_t> &shape, ImportError &err,
                       unsigned index = 0);

/// Element type of a graph input: fails (naming the input and the type, e.g.
/// "input 'x' has unsupported data type FLOAT16 (Plumb supports FLOAT, INT64,
/// INT32 and BOOL)") for non-tensor inputs and unsupported types.
bool resolveInputType(const onnx::ValueInfoProto &input, DType &dtype,
                      ImportError &err);

/// Converts a --input-value text to a tensor of the given type and shape
/// (a single value broadcasts to the whole shape).
bool convertInputValue(const std::string &name, const std::string &text,
                       DType dtype, const std::vector<int64_t> &shape,
                       TensorValue &out, ImportError &err);

/// Checked arithmetic used for every shape computation.
bool checkedMul(int64_t a, int64_t b, int64_t &out);
/// False for a negative dim, or when the product of the non-zero dims
/// overflows or exceeds `limit` (so [2^40, 2^40, 0] is refused too).
bool checkedNumElements(const std::vector<int64_t> &shape, int64_t limit,
                        int64_t &out);

} // namespace importer
} // namespace plumb

#endif // PLUMB_IMPORTER_MODELLOADER_H
