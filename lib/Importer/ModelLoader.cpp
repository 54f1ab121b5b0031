//===- lib/Importer/ModelLoader.cpp - Safe ONNX file loading -------------===//
//
// Part of Plumb. See include/plumb/Importer/ModelLoader.h for the contract.
//
// Everything here treats the model file as hostile: every size is checked
// before it is used to allocate, nothing recurses on data from the file (graph
// nesting is walked with explicit stacks, protobuf parsing runs under a
// recursion limit), and every failure is an ImportError with a message that
// starts lowercase, has no trailing period and names things in single quotes.
// No exceptions are used (the build uses -fno-exceptions).
//
//===----------------------------------------------------------------------===//

#include "plumb/Importer/ModelLoader.h"

#include "plumb/runtime/half.h"

#include "onnx/onnx_pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <limits>
#include <queue>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

namespace plumb {
namespace importer {

namespace {

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

bool fail(ImportError &err, std::string message, int exitCode = 1) {
  err.message = std::move(message);
  err.exitCode = exitCode;
  return false;
}

std::string errnoText(int e) {
  return std::error_code(e, std::generic_category()).message();
}

/// Quotes a name for a message: 'name'. Control characters and bytes >= 0x7f
/// are escaped as \xNN and very long names are shortened, so a hostile file
/// cannot put terminal garbage or megabytes into a diagnostic.
std::string quote(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  const size_t maxShown = 200;
  std::string out = "'";
  size_t shown = 0;
  for (unsigned char c : s) {
    if (shown == maxShown) {
      out += "...";
      break;
    }
    if (c < 0x20 || c >= 0x7f || c == '\\') {
      out += '\\';
      if (c == '\\') {
        out += '\\';
      } else {
        out += 'x';
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    } else {
      out += char(c);
    }
    ++shown;
  }
  out += "'";
  return out;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string typeText(int32_t onnxType) {
  const char *name = onnxTypeName(onnxType);
  if (std::strcmp(name, "UNKNOWN") == 0)
    return "number " + std::to_string(onnxType);
  return name;
}

const char *const kSupportedTypes = "FLOAT, INT64, INT32 and BOOL";
/// Constants may also be narrow integers (decoded into INT32).
const char *const kSupportedConstantTypes =
    "FLOAT, INT64, INT32, BOOL, UINT8, INT8, UINT16, INT16, FLOAT16 and "
    "BFLOAT16";

/// Strict non-negative decimal integer (no sign, no spaces, no overflow).
bool parseUnsigned(std::string_view s, int64_t &out) {
  if (s.empty())
    return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    int d = c - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10)
      return false;
    v = v * 10 + d;
  }
  out = v;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

/// Little-endian stores, independent of the host's byte order.
void storeLE(char *p, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i)
    p[i] = char((v >> (8 * i)) & 0xff);
}
void storeF32(char *p, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  storeLE(p, bits, 4);
}

/// Reads exactly `n` bytes at `offset` (pread loop); false with errno-text on
/// failure or early end of file.
bool preadAll(int fd, char *buf, uint64_t n, uint64_t offset,
              std::string &why) {
  uint64_t done = 0;
  while (done < n) {
    size_t chunk = size_t(std::min<uint64_t>(n - done, uint64_t(1) << 30));
    ssize_t r = ::pread(fd, buf + done, chunk, off_t(offset + done));
    if (r < 0) {
      if (errno == EINTR)
        continue;
      why = errnoText(errno);
      return false;
    }
    if (r == 0) {
      why = "the file ended early (it changed while being read)";
      return false;
    }
    done += uint64_t(r);
  }
  return true;
}

/// Opens a file for reading without blocking on FIFOs and checks that it is a
/// regular file. Returns the fd (>= 0) and its size, or -1 with `why`.
int openRegularFile(const std::string &path, uint64_t &size,
                    std::string &why) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    why = errnoText(errno);
    return -1;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    why = errnoText(errno);
    ::close(fd);
    return -1;
  }
  if (S_ISDIR(st.st_mode)) {
    why = "it is a directory";
    ::close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    why = "not a regular file";
    ::close(fd);
    return -1;
  }
  size = uint64_t(st.st_size);
  return fd;
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0)
      ::close(fd);
  }
};

//===----------------------------------------------------------------------===//
// Wire-format diagnosis (only runs when protobuf refuses the file)
//===----------------------------------------------------------------------===//

bool readVarint(const uint8_t *p, size_t size, size_t &pos, uint64_t &out) {
  uint64_t v = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos >= size)
      return false;
    uint8_t b = p[pos++];
    v |= uint64_t(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      out = v;
      return true;
    }
  }
  return false;
}

/// Scans the top level of the message (groups included, iteratively) and
/// describes the first structural problem: truncation, invalid wire types,
/// unbalanced groups. Returns an empty string if the top level is sound.
std::string diagnoseWireFormat(const uint8_t *p, size_t size) {
  size_t pos = 0;
  int groupDepth = 0;
  while (pos < size) {
    size_t tagPos = pos;
    uint64_t tag;
    if (!readVarint(p, size, pos, tag)) {
      if (pos >= size)
        return "is truncated: a field tag at byte " + std::to_string(tagPos) +
               " runs past the end of the file";
      return "has a malformed field tag at byte " + std::to_string(tagPos);
    }
    uint64_t field = tag >> 3;
    unsigned wire = unsigned(tag & 7);
    if (field == 0 || tag > 0xffffffffull)
      return "has an invalid field tag at byte " + std::to_string(tagPos);
    std::string fieldText =
        "field " + std::to_string(field) + " at byte " + std::to_string(tagPos);
    switch (wire) {
    case 0: {
      uint64_t v;
      if (!readVarint(p, size, pos, v)) {
        if (pos >= size)
          return "is truncated: " + fieldText +
                 " runs past the end of the file";
        return "has a malformed varint in " + fieldText;
      }
      break;
    }
    case 1:
    case 5: {
      size_t need = wire == 1 ? 8 : 4;
      if (size - pos < need)
        return "is truncated: " + fieldText + " needs " + std::to_string(need) +
               " bytes but only " + std::to_string(size - pos) + " remain";
      pos += need;
      break;
    }
    case 2: {
      uint64_t len;
      if (!readVarint(p, size, pos, len)) {
        if (pos >= size)
          return "is truncated: " + fieldText +
                 " runs past the end of the file";
        return "has a malformed length in " + fieldText;
      }
      if (len > size - pos)
        return "is truncated: " + fieldText + " declares " +
               std::to_string(len) + " bytes but only " +
               std::to_string(size - pos) + " remain";
      pos += size_t(len);
      break;
    }
    case 3:
      ++groupDepth;
      break;
    case 4:
      if (groupDepth == 0)
        return "has an unexpected end-group tag at byte " +
               std::to_string(tagPos);
      --groupDepth;
      break;
    default:
      return "has invalid wire type " + std::to_string(wire) + " in " +
             fieldText;
    }
  }
  if (groupDepth != 0)
    return "is truncated: a group is not closed before the end of the file";
  return "";
}

//===----------------------------------------------------------------------===//
// Graph walking
//===----------------------------------------------------------------------===//

bool nodeHasSubgraphs(const onnx::NodeProto &node) {
  for (const auto &a : node.attribute())
    if (a.has_g() || a.graphs_size() > 0)
      return true;
  return false;
}

template <typename Fn>
void forEachSubgraph(const onnx::NodeProto &node, Fn fn) {
  for (const auto &a : node.attribute()) {
    if (a.has_g())
      fn(a.g());
    for (const auto &g : a.graphs())
      fn(g);
  }
}

/// Checks subgraph nesting depth and the total node count, iteratively.
bool checkGraphLimits(const onnx::GraphProto &root, const LoadLimits &limits,
                      ImportError &err) {
  struct Item {
    const onnx::GraphProto *graph;
    int64_t depth;
  };
  std::vector<Item> stack{{&root, 0}};
  int64_t nodes = 0;
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    const onnx::GraphProto &g = *item.graph;
    nodes += g.node_size();
    if (nodes > limits.maxNodes)
      return fail(err, "model has more than " +
                           std::to_string(limits.maxNodes) +
                           " nodes (the limit), counting subgraphs");
    for (int i = 0; i < g.node_size(); ++i) {
      const onnx::NodeProto &n = g.node(i);
      if (!nodeHasSubgraphs(n))
        continue;
      if (item.depth + 1 > limits.maxGraphDepth)
        return fail(err, describeNode(n, i) + " nests subgraphs " +
                             std::to_string(item.depth + 1) +
                             " levels deep; the limit is " +
                             std::to_string(limits.maxGraphDepth));
      forEachSubgraph(n, [&](const onnx::GraphProto &sub) {
        stack.push_back({&sub, item.depth + 1});
      });
    }
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

const char *dtypeName(DType t) {
  switch (t) {
  case DType::F32:
    return "FLOAT";
  case DType::I64:
    return "INT64";
  case DType::I32:
    return "INT32";
  case DType::Bool:
    return "BOOL";
  }
  return "UNKNOWN";
}

size_t dtypeSize(DType t) {
  switch (t) {
  case DType::F32:
    return 4;
  case DType::I64:
    return 8;
  case DType::I32:
    return 4;
  case DType::Bool:
    return 1;
  }
  return 1;
}

int64_t TensorValue::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool dtypeFromOnnx(int32_t onnxType, DType &out) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT:
    out = DType::F32;
    return true;
  case onnx::TensorProto::INT64:
    out = DType::I64;
    return true;
  case onnx::TensorProto::INT32:
    out = DType::I32;
    return true;
  case onnx::TensorProto::BOOL:
    out = DType::Bool;
    return true;
  default:
    return false;
  }
}

const char *onnxTypeName(int32_t onnxType) {
  // Numbers from onnx.proto (TensorProto.DataType), including the ones newer
  // than the ONNX headers Plumb builds against.
  static const char *const names[] = {
      "UNDEFINED",      "FLOAT",        "UINT8",          "INT8",
      "UINT16",         "INT16",        "INT32",          "INT64",
      "STRING",         "BOOL",         "FLOAT16",        "DOUBLE",
      "UINT32",         "UINT64",       "COMPLEX64",      "COMPLEX128",
      "BFLOAT16",       "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
      "FLOAT8E5M2FNUZ", "UINT4",        "INT4",           "FLOAT4E2M1",
      "FLOAT8E8M0",     "UINT2",        "INT2"};
  if (onnxType < 0 || size_t(onnxType) >= sizeof(names) / sizeof(names[0]))
    return "UNKNOWN";
  return names[onnxType];
}

//===----------------------------------------------------------------------===//
// Fields newer than the protos
//===----------------------------------------------------------------------===//

namespace {

/// The last value of length-delimited unknown field `number` ("" if none):
/// protobuf's rule for a repeated occurrence of a singular field.
std::string unknownString(const google::protobuf::UnknownFieldSet &fields,
                          int number) {
  std::string value;
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField &f = fields.field(i);
    if (f.number() == number &&
        f.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      value = f.length_delimited();
  }
  return value;
}

// The generated accessor when the protos have the field, else the unknown
// field with its number in onnx.proto.
template <typename T>
auto overloadField(const T &m, int, int)
    -> decltype(std::string(m.overload())) {
  return m.overload();
}
template <typename T> std::string overloadField(const T &m, int number, long) {
  return unknownString(m.unknown_fields(), number);
}

template <typename T>
auto defaultsField(const T &f, std::vector<onnx::AttributeProto> &out,
                   ImportError &, int)
    -> decltype(f.attribute_proto(), bool()) {
  out.assign(f.attribute_proto().begin(), f.attribute_proto().end());
  return true;
}
template <typename T>
bool defaultsField(const T &f, std::vector<onnx::AttributeProto> &out,
                   ImportError &err, long) {
  const google::protobuf::UnknownFieldSet &fields = f.unknown_fields();
  out.clear();
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField &u = fields.field(i);
    if (u.number() != 11) // FunctionProto.attribute_proto
      continue;
    onnx::AttributeProto a;
    if (u.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED ||
        !a.ParseFromString(u.length_delimited()))
      return fail(err, "function " + quote(f.domain() + "." + f.name()) +
                           " has a default attribute value (attribute_proto) "
                           "that does not parse");
    out.push_back(std::move(a));
  }
  return true;
}

} // namespace

std::string overloadOf(const onnx::NodeProto &node) {
  return overloadField(node, 8, 0); // NodeProto.overload = 8
}

std::string overloadOf(const onnx::FunctionProto &function) {
  return overloadField(function, 13, 0); // FunctionProto.overload = 13
}

bool functionAttributeDefaults(const onnx::FunctionProto &function,
                               std::vector<onnx::AttributeProto> &out,
                               ImportError &err) {
  return defaultsField(function, out, err, 0);
}

//===----------------------------------------------------------------------===//
// Checked arithmetic
//===----------------------------------------------------------------------===//

bool checkedMul(int64_t a, int64_t b, int64_t &out) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return false;
  out = r;
  return true;
}

bool checkedNumElements(const std::vector<int64_t> &shape, int64_t limit,
                        int64_t &out) {
  // The product of the non-zero dims must not overflow nor exceed `limit`,
  // even when some dim is 0: [2^40, 2^40, 0] is refused, since code that
  // computes strides or prefix products would overflow on it.
  int64_t nonZero = 1;
  bool anyZero = false;
  for (int64_t d : shape) {
    if (d < 0)
      return false;
    if (d == 0) {
      anyZero = true;
      continue;
    }
    if (!checkedMul(nonZero, d, nonZero) || nonZero > limit)
      return false;
  }
  out = anyZero ? 0 : nonZero;
  return true;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

bool loadModelFile(const std::string &path, onnx::ModelProto &model,
                   const LoadLimits &limits, ImportError &err) {
  std::string why;
  uint64_t size = 0;
  int fd = openRegularFile(path, size, why);
  if (fd < 0)
    return fail(err, "cannot open " + quote(path) + ": " + why);
  FdCloser closer{fd};

  if (size == 0)
    return fail(err, "not a valid ONNX model: " + quote(path) + " is empty");
  if (size > limits.maxFileBytes)
    return fail(err, "model file " + quote(path) + " is " +
                         std::to_string(size) + " bytes; the limit is " +
                         std::to_string(limits.maxFileBytes) + " bytes");
  if (size > uint64_t(INT_MAX))
    return fail(err, "model file " + quote(path) + " is " +
                         std::to_string(size) +
                         " bytes; protobuf cannot parse files of 2 GiB or "
                         "more (store the weights as external data)");

  std::vector<uint8_t> buf(static_cast<size_t>(size));
  if (!preadAll(fd, reinterpret_cast<char *>(buf.data()), size, 0, why))
    return fail(err, "cannot read " + quote(path) + ": " + why);

  // Nesting: ModelProto > GraphProto > NodeProto > AttributeProto > GraphProto
  // ... costs 3 levels per subgraph; leave room for maxGraphDepth so that
  // checkGraphLimits, not protobuf, reports a too-deep model when it can.
  int64_t recursion = std::max<int64_t>(200, 3 * limits.maxGraphDepth + 20);
  recursion = std::min<int64_t>(recursion, 10000);

  bool parsed;
  bool consumed;
  int position;
  {
    google::protobuf::LogSilencer silence;
    google::protobuf::io::CodedInputStream in(buf.data(), int(size));
    in.SetTotalBytesLimit(int(size));
    in.SetRecursionLimit(int(recursion));
    model.Clear();
    parsed = model.ParseFromCodedStream(&in);
    consumed = parsed && in.ConsumedEntireMessage();
    position = in.CurrentPosition();
  }
  if (!parsed || !consumed) {
    std::string diag = diagnoseWireFormat(buf.data(), buf.size());
    model.Clear();
    if (!diag.empty())
      return fail(err, "not a valid ONNX model: " + quote(path) + " " + diag);
    if (parsed)
      return fail(err, "not a valid ONNX model: " + quote(path) +
                           " has unexpected data at byte " +
                           std::to_string(position));
    return fail(err, "not a valid ONNX model: " + quote(path) +
                         " contains corrupt protobuf data or messages nested "
                         "more than " +
                         std::to_string(recursion) + " levels deep");
  }
  if (uint64_t(position) != size) {
    model.Clear();
    return fail(err, "not a valid ONNX model: " + quote(path) +
                         " has unexpected data at byte " +
                         std::to_string(position));
  }
  if (!model.has_graph())
    return fail(err, "not a valid ONNX model: " + quote(path) +
                         " has no graph");
  return checkGraphLimits(model.graph(), limits, err);
}

bool checkModelHeader(const onnx::ModelProto &model, int64_t &defaultOpset,
                      ImportError &err) {
  if (!model.has_ir_version())
    return fail(err, "model has no IR version (ir_version)");
  int64_t ir = model.ir_version();
  if (ir < kMinIrVersion || ir > kMaxIrVersion)
    return fail(err, "model has IR version " + std::to_string(ir) +
                         "; Plumb supports IR versions " +
                         std::to_string(kMinIrVersion) + " to " +
                         std::to_string(kMaxIrVersion));
  bool found = false;
  int64_t version = 0;
  std::set<std::string> domains;
  for (const auto &op : model.opset_import()) {
    std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
    if (!domains.insert(domain).second)
      return fail(err, "model imports " +
                           (domain.empty() ? std::string("the default ONNX "
                                                         "domain")
                                           : "domain " + quote(domain)) +
                           " twice in opset_import");
    if (!op.has_version())
      return fail(err,
                  "model's opset_import for " +
                      (domain.empty() ? std::string("the default ONNX domain")
                                      : "domain " + quote(domain)) +
                      " has no version");
    if (domain.empty()) {
      found = true;
      version = op.version();
    }
  }
  if (!found)
    return fail(err, "model has no opset_import for the default ONNX domain");
  if (version < kMinOpset || version > kMaxOpset)
    return fail(err, "model uses opset " + std::to_string(version) +
                         " of the default ONNX domain; Plumb supports opsets " +
                         std::to_string(kMinOpset) + " to " +
                         std::to_string(kMaxOpset));
  defaultOpset = version;
  return true;
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

namespace {

/// Reads the external data of `t` into `out` (exactly `expected` bytes).
bool readExternalData(const onnx::TensorProto &t, const std::string &modelDir,
                      const std::string &what, uint64_t expected,
                      const std::string &needText, std::vector<char> &out,
                      ImportError &err) {
  if (t.has_raw_data())
    return fail(err, what + " has both raw_data and external data");
  std::string location;
  bool haveLocation = false, haveLength = false;
  int64_t offset = 0, length = 0;
  std::set<std::string> seen;
  for (const auto &kv : t.external_data()) {
    const std::string &key = kv.key();
    if (!seen.insert(key).second)
      return fail(err, what + " has external data key " + quote(key) +
                           " twice");
    if (key == "location") {
      location = kv.value();
      haveLocation = true;
    } else if (key == "offset") {
      if (!parseUnsigned(kv.value(), offset))
        return fail(err, what + " has invalid external data offset " +
                             quote(kv.value()));
    } else if (key == "length") {
      if (!parseUnsigned(kv.value(), length))
        return fail(err, what + " has invalid external data length " +
                             quote(kv.value()));
      haveLength = true;
    }
    // Other keys ("checksum", ...) are informative only.
  }
  if (!haveLocation || location.empty())
    return fail(err, what + " has external data without a location");
  if (location.find('\0') != std::string::npos)
    return fail(err, what + " has external data location " + quote(location) +
                         " containing a NUL character");
  if (location.front() == '/')
    return fail(err, what + " has external data location " + quote(location) +
                         ", which is an absolute path; external data must lie "
                         "in the model folder");
  // Lexical check first: refuse any path that climbs above the folder, even
  // when the file it names does not exist.
  {
    int64_t depth = 0;
    for (std::string_view part : split(location, '/')) {
      if (part.empty() || part == ".")
        continue;
      if (part == "..") {
        if (--depth < 0)
          return fail(err, what + " has external data location " +
                               quote(location) +
                               ", which lies outside the model folder");
      } else {
        ++depth;
      }
    }
  }
  std::string dir = modelDir.empty() ? std::string(".") : modelDir;
  std::string full = dir + "/" + location;

  // Canonical check: catches symlinks that lead out of the folder.
  char *dirReal = ::realpath(dir.c_str(), nullptr);
  if (!dirReal)
    return fail(err, what + ": cannot open the model folder " + quote(dir) +
                         ": " + errnoText(errno));
  std::string dirCanon(dirReal);
  std::free(dirReal);
  char *fileReal = ::realpath(full.c_str(), nullptr);
  if (!fileReal)
    return fail(err, what + ": cannot open external data file " +
                         quote(location) + ": " + errnoText(errno));
  std::string fileCanon(fileReal);
  std::free(fileReal);
  std::string prefix = dirCanon == "/" ? dirCanon : dirCanon + "/";
  if (fileCanon.compare(0, prefix.size(), prefix) != 0)
    return fail(err, what + " has external data location " + quote(location) +
                         ", which lies outside the model folder");

  std::string why;
  uint64_t fileSize = 0;
  int fd = openRegularFile(fileCanon, fileSize, why);
  if (fd < 0)
    return fail(err, what + ": cannot open external data file " +
                         quote(location) + ": " + why);
  FdCloser closer{fd};

  if (uint64_t(offset) > fileSize)
    return fail(err, what + " has external data offset " +
                         std::to_string(offset) + " past the end of " +
                         quote(location) + " (" + std::to_string(fileSize) +
                         " bytes)");
  uint64_t available = fileSize - uint64_t(offset);
  if (haveLength) {
    if (uint64_t(length) > available)
      return fail(err, what + " has external data range [" +
                           std::to_string(offset) + ", " +
                           std::to_string(uint64_t(offset) + uint64_t(length)) +
                           ") past the end of " + quote(location) + " (" +
                           std::to_string(fileSize) + " bytes)");
    if (uint64_t(length) != expected)
      return fail(err, what + " has external data length " +
                           std::to_string(length) + "; " + needText);
  } else if (available < expected) {
    return fail(err, what + " has " + std::to_string(available) +
                         " bytes of external data in " + quote(location) +
                         " from offset " + std::to_string(offset) + "; " +
                         needText);
  } else if (available != expected) {
    return fail(err, what + " has " + std::to_string(available) +
                         " bytes of external data in " + quote(location) +
                         " from offset " + std::to_string(offset) +
                         " and no length; " + needText);
  }
  out.assign(size_t(expected), 0);
  if (!preadAll(fd, out.data(), expected, uint64_t(offset), why))
    return fail(err, what + ": cannot read external data file " +
                         quote(location) + ": " + why);
  return true;
}

/// Bytes per element of the integer types narrower than INT32 that are
/// decoded into INT32, or 0 for any other type.
size_t narrowIntSize(int32_t onnxType) {
  switch (onnxType) {
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::INT8:
    return 1;
  case onnx::TensorProto::UINT16:
  case onnx::TensorProto::INT16:
    return 2;
  default:
    return 0;
  }
}

/// Little-endian 8/16-bit integers (signed or not, by the ONNX type) as
/// little-endian int32 values.
std::vector<char> widenNarrowInts(const std::vector<char> &in,
                                  int32_t onnxType, int64_t elements) {
  std::vector<char> out(size_t(elements) * 4);
  for (int64_t i = 0; i < elements; ++i) {
    int32_t v;
    const auto *p = reinterpret_cast<const unsigned char *>(in.data());
    switch (onnxType) {
    case onnx::TensorProto::UINT8:
      v = p[i];
      break;
    case onnx::TensorProto::INT8:
      v = int8_t(p[i]);
      break;
    case onnx::TensorProto::UINT16:
      v = uint16_t(p[2 * i] | (p[2 * i + 1] << 8));
      break;
    default: // INT16
      v = int16_t(uint16_t(p[2 * i] | (p[2 * i + 1] << 8)));
      break;
    }
    storeLE(out.data() + 4 * i, uint64_t(uint32_t(v)), 4);
  }
  return out;
}

/// FLOAT16 and BFLOAT16 values (little-endian bits) as the float32 values
/// they are, exactly (docs/determinism.md, "Half precision").
std::vector<char> widenHalfFloats(const std::vector<char> &in,
                                  int32_t onnxType, int64_t elements) {
  std::vector<char> out(size_t(elements) * 4);
  const auto *p = reinterpret_cast<const unsigned char *>(in.data());
  for (int64_t i = 0; i < elements; ++i) {
    uint16_t h = uint16_t(p[2 * i] | (p[2 * i + 1] << 8));
    uint32_t bits = halfToF32Bits(onnxType, h);
    storeLE(out.data() + 4 * i, uint64_t(bits), 4);
  }
  return out;
}

} // namespace

bool isHalfFloatType(int32_t onnxType) {
  return onnxType == onnx::TensorProto::FLOAT16 ||
         onnxType == onnx::TensorProto::BFLOAT16;
}

uint32_t halfToF32Bits(int32_t onnxType, uint16_t h) {
  return onnxType == onnx::TensorProto::BFLOAT16
             ? rt::half::bf16ToF32Bits(h)
             : rt::half::f16ToF32Bits(h);
}

bool decodeTensor(const onnx::TensorProto &t, const std::string &modelDir,
                  const LoadLimits &limits, const std::string &what,
                  TensorValue &out, ImportError &err) {
  DType dtype;
  if (!t.has_data_type() || t.data_type() == onnx::TensorProto::UNDEFINED)
    return fail(err, what + " has no data type");
  // 8- and 16-bit integers are decoded into INT32 (exact values).
  size_t narrowSize = narrowIntSize(t.data_type());
  // FLOAT16 and BFLOAT16 are decoded into FLOAT (exact values); their
  // typed field is int32_data (the bits), as for the narrow integers.
  bool half = isHalfFloatType(t.data_type());
  if (half)
    narrowSize = 2;
  if (half)
    dtype = DType::F32;
  else if (narrowSize)
    dtype = DType::I32;
  else if (!dtypeFromOnnx(t.data_type(), dtype))
    return fail(err, what + " has unsupported data type " +
                         typeText(t.data_type()) + " (Plumb supports " +
                         kSupportedConstantTypes + ")");
  if (t.has_segment())
    return fail(err, what + " is segmented (TensorProto.segment), which Plumb "
                            "does not support");
  if (t.dims_size() > limits.maxRank)
    return fail(err, what + " has rank " + std::to_string(t.dims_size()) +
                         "; the limit is " + std::to_string(limits.maxRank));
  std::vector<int64_t> shape(t.dims().begin(), t.dims().end());
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0)
      return fail(err, what + " has negative dimension " +
                           std::to_string(shape[i]) + " (dim " +
                           std::to_string(i) + ")");
  int64_t elements;
  if (!checkedNumElements(shape, limits.maxElements, elements))
    return fail(err, what + " has shape " + formatShape(shape) +
                         ", more than " + std::to_string(limits.maxElements) +
                         " elements (the limit)");
  size_t esize = narrowSize ? narrowSize : dtypeSize(dtype);
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(uint64_t(elements), uint64_t(esize), &bytes) ||
      bytes > limits.maxTensorBytes)
    return fail(err, what + " has shape " + formatShape(shape) + " of " +
                         dtypeName(dtype) + ", more than " +
                         std::to_string(limits.maxTensorBytes) +
                         " bytes (the limit)");
  std::string needText = "its shape " + formatShape(shape) + " of " +
                         (narrowSize ? typeText(t.data_type())
                                     : std::string(dtypeName(dtype))) +
                         " needs " + std::to_string(bytes) + " bytes";

  // Typed fields that do not belong to this type must be empty.
  int typedFloat = t.float_data_size(), typedI64 = t.int64_data_size(),
      typedI32 = t.int32_data_size();
  const char *expectedField = half                  ? "int32_data"
                              : dtype == DType::F32 ? "float_data"
                              : dtype == DType::I64 ? "int64_data"
                                                    : "int32_data";
  auto strayField = [&]() -> const char * {
    if (typedFloat && dtype != DType::F32)
      return "float_data";
    if (typedI64 && dtype != DType::I64)
      return "int64_data";
    if (typedI32 && dtype != DType::I32 && dtype != DType::Bool && !half)
      return "int32_data";
    if (t.double_data_size())
      return "double_data";
    if (t.uint64_data_size())
      return "uint64_data";
    if (t.string_data_size())
      return "string_data";
    return nullptr;
  };
  if (const char *stray = strayField())
    return fail(err, what + " (" + dtypeName(dtype) + ") stores values in " +
                         stray + "; expected " + expectedField +
                         " or raw_data");
  int typedCount = typedFloat + typedI64 + typedI32;
  if (half && typedFloat)
    return fail(err, what + " (" + typeText(t.data_type()) +
                         ") stores values in float_data; expected int32_data "
                         "(the bits) or raw_data");

  std::vector<char> data;
  bool external = t.has_data_location() &&
                  t.data_location() == onnx::TensorProto::EXTERNAL;
  if (!external && t.external_data_size() > 0)
    return fail(err, what + " has external_data entries but its "
                            "data_location is not EXTERNAL");
  if (external || t.has_raw_data()) {
    if (typedCount > 0)
      return fail(err, what + " has both " +
                           (external ? std::string("external data")
                                     : std::string("raw_data")) +
                           " and values in " + expectedField);
  }
  if (external) {
    if (!readExternalData(t, modelDir, what, bytes, needText, data, err))
      return false;
  } else if (t.has_raw_data()) {
    const std::string &raw = t.raw_data();
    if (uint64_t(raw.size()) != bytes)
      return fail(err, what + " has " + std::to_string(raw.size()) +
                           " bytes of raw_data; " + needText);
    data.assign(raw.begin(), raw.end());
  } else {
    if (int64_t(typedCount) != elements)
      return fail(err, what + " has " + std::to_string(typedCount) +
                           " values in " + expectedField + "; its shape " +
                           formatShape(shape) + " needs " +
                           std::to_string(elements));
    data.assign(size_t(bytes), 0);
    char *p = data.data();
    for (int64_t i = 0; i < elements && narrowSize; ++i)
      storeLE(p + narrowSize * i, uint64_t(uint32_t(t.int32_data(int(i)))),
              int(narrowSize));
    for (int64_t i = 0; i < elements && !narrowSize; ++i) {
      switch (dtype) {
      case DType::F32:
        storeF32(p + 4 * i, t.float_data(int(i)));
        break;
      case DType::I64:
        storeLE(p + 8 * i, uint64_t(t.int64_data(int(i))), 8);
        break;
      case DType::I32:
        storeLE(p + 4 * i, uint64_t(uint32_t(t.int32_data(int(i)))), 4);
        break;
      case DType::Bool:
        p[i] = t.int32_data(int(i)) != 0 ? 1 : 0;
        break;
      }
    }
  }
  if (dtype == DType::Bool)
    for (char &c : data)
      c = c != 0 ? 1 : 0; // canonical booleans
  out.onnxType = 0;
  if (half) {
    data = widenHalfFloats(data, t.data_type(), elements);
    out.onnxType = t.data_type();
  } else if (narrowSize) {
    data = widenNarrowInts(data, t.data_type(), elements);
    out.onnxType = t.data_type();
  }
  out.dtype = dtype;
  out.shape = std::move(shape);
  out.data = std::move(data);
  return true;
}

//===----------------------------------------------------------------------===//
// Graph order
//===----------------------------------------------------------------------===//

std::string describeNode(const onnx::NodeProto &node, int64_t index) {
  std::string op = node.op_type().empty() ? std::string("no op_type")
                                          : quote(node.op_type());
  // op_type is shown unquoted, as in "(Relu, #3)"; strip the quotes added for
  // escaping.
  if (!node.op_type().empty())
    op = op.substr(1, op.size() - 2);
  if (node.name().empty())
    return "node #" + std::to_string(index) + " (" + op + ")";
  return "node " + quote(node.name()) + " (" + op + ", #" +
         std::to_string(index) + ")";
}

std::set<std::string> outerScopeReferences(const onnx::NodeProto &node) {
  // Each frame is one subgraph; `parent` links to the enclosing subgraph frame
  // (-1 for the node's own subgraphs). A name used in a frame is an outer
  // reference if no frame on its chain defines it.
  struct Frame {
    const onnx::GraphProto *graph;
    int parent;
    std::unordered_set<std::string_view> defined;
  };
  std::set<std::string> result;
  std::vector<Frame> frames;
  std::vector<int> work;
  forEachSubgraph(node, [&](const onnx::GraphProto &g) {
    frames.push_back({&g, -1, {}});
    work.push_back(int(frames.size()) - 1);
  });
  while (!work.empty()) {
    int fi = work.back();
    work.pop_back();
    const onnx::GraphProto &g = *frames[fi].graph;
    {
      auto &def = frames[fi].defined;
      for (const auto &v : g.input())
        def.insert(v.name());
      for (const auto &t : g.initializer())
        def.insert(t.name());
      for (const auto &t : g.sparse_initializer()) {
        def.insert(t.values().name());
      }
      for (const auto &n : g.node())
        for (const auto &o : n.output())
          if (!o.empty())
            def.insert(o);
    }
    auto isOuter = [&](std::string_view name) {
      for (int f = fi; f >= 0; f = frames[f].parent)
        if (frames[f].defined.count(name))
          return false;
      return true;
    };
    for (const auto &n : g.node())
      for (const auto &in : n.input())
        if (!in.empty() && isOuter(in))
          result.insert(in);
    // Graph outputs may name outer values directly (pass-through).
    for (const auto &o : g.output())
      if (!o.name().empty() && isOuter(o.name()))
        result.insert(o.name());
    for (const auto &n : g.node())
      forEachSubgraph(n, [&](const onnx::GraphProto &sub) {
        frames.push_back({&sub, fi, {}});
        work.push_back(int(frames.size()) - 1);
      });
  }
  return result;
}

bool topologicalOrder(const onnx::GraphProto &graph,
                      const std::set<std::string> &available,
                      std::vector<int> &order, ImportError &err) {
  const int n = graph.node_size();
  order.clear();

  // Producer of every node output.
  std::unordered_map<std::string_view, int> producer;
  producer.reserve(size_t(n) * 2);
  for (int i = 0; i < n; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    for (const auto &o : node.output()) {
      if (o.empty())
        continue;
      auto ins = producer.emplace(o, i);
      if (!ins.second) {
        int first = ins.first->second;
        if (first == i)
          return fail(err, "tensor " + quote(o) + " is produced twice by " +
                               describeNode(node, i));
        return fail(err, "tensor " + quote(o) + " is produced twice: by " +
                             describeNode(graph.node(first), first) +
                             " and " + describeNode(node, i));
      }
      if (available.count(o))
        return fail(err, "tensor " + quote(o) + " is produced by " +
                             describeNode(node, i) +
                             " but is already defined as a graph input, "
                             "initializer or outer-scope value");
    }
  }

  // Dependencies: predecessor lists (a producer may appear more than once;
  // in-degree counts edges, so duplicates are consistent).
  std::vector<std::vector<int>> preds(static_cast<size_t>(n));
  std::vector<int> indegree(size_t(n), 0);
  std::vector<std::vector<int>> succs(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    auto addDep = [&](const std::string &name) -> bool {
      auto it = producer.find(name);
      if (it != producer.end()) {
        preds[i].push_back(it->second);
        succs[it->second].push_back(i);
        ++indegree[i];
        return true;
      }
      if (available.count(name))
        return true;
      return fail(err, describeNode(node, i) + " uses tensor " + quote(name) +
                           " which no node, input or initializer defines");
    };
    for (const auto &in : node.input())
      if (!in.empty() && !addDep(in))
        return false;
    if (nodeHasSubgraphs(node))
      for (const std::string &name : outerScopeReferences(node))
        if (!addDep(name))
          return false;
  }

  // Kahn's algorithm; ready nodes leave in file order (min-heap by index).
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i)
    if (indegree[i] == 0)
      ready.push(i);
  order.reserve(size_t(n));
  std::vector<int> remaining = indegree;
  while (!ready.empty()) {
    int v = ready.top();
    ready.pop();
    order.push_back(v);
    for (int s : succs[v])
      if (--remaining[s] == 0)
        ready.push(s);
  }
  if (int(order.size()) == n)
    return true;

  // A cycle: every unprocessed node has an unprocessed predecessor. Walk
  // backwards from the lowest unprocessed node, always taking the lowest
  // unprocessed predecessor, until a node repeats; the repeated stretch is a
  // cycle.
  std::vector<char> done(size_t(n), 0);
  for (int v : order)
    done[v] = 1;
  int start = 0;
  while (done[start])
    ++start;
  std::vector<int> walk;
  std::vector<int> posInWalk(size_t(n), -1);
  int v = start;
  while (posInWalk[v] < 0) {
    posInWalk[v] = int(walk.size());
    walk.push_back(v);
    int next = -1;
    for (int p : preds[v])
      if (!done[p] && (next < 0 || p < next))
        next = p;
    v = next; // always found: v has a remaining in-degree
  }
  std::vector<int> cycle(walk.begin() + posInWalk[v], walk.end());
  std::reverse(cycle.begin(), cycle.end()); // now in data-flow order
  auto minIt = std::min_element(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), minIt, cycle.end());

  order.clear();
  std::string msg = "the graph has a cycle through ";
  const size_t shown = 8;
  for (size_t i = 0; i < cycle.size() && i < shown; ++i) {
    if (i)
      msg += ", ";
    msg += describeNode(graph.node(cycle[i]), cycle[i]);
  }
  if (cycle.size() > shown)
    msg += " and " + std::to_string(cycle.size() - shown) + " more nodes";
  return fail(err, msg);
}

//===----------------------------------------------------------------------===//
// Command-line bindings
//===----------------------------------------------------------------------===//

namespace {

/// Splits "NAME=VALUE" at the last '='; false if there is none or NAME is
/// empty.
bool splitBinding(const std::string &arg, std::string &name,
                  std::string &value) {
  size_t eq = arg.rfind('=');
  if (eq == std::string::npos || eq == 0)
    return false;
  name = arg.substr(0, eq);
  value = arg.substr(eq + 1);
  return true;
}

/// Parses one --input-value item for `dtype` into `bits` (little-endian
/// bytes of one element). `why` explains a failure.
bool parseValueItem(std::string_view item, DType dtype, char *dst,
                    std::string &why) {
  std::string_view s = trim(item);
  if (!s.empty() && s.front() == '+')
    s.remove_prefix(1);
  if (s.empty()) {
    why = "an empty value";
    return false;
  }
  const char *b = s.data(), *e = s.data() + s.size();
  switch (dtype) {
  case DType::F32: {
    float f;
    auto r = std::from_chars(b, e, f, std::chars_format::general);
    if (r.ec == std::errc::result_out_of_range) {
      why = quote(item) + " is out of range for FLOAT";
      return false;
    }
    if (r.ec != std::errc() || r.ptr != e) {
      why = quote(item) + " is not a number";
      return false;
    }
    storeF32(dst, f);
    return true;
  }
  case DType::I64:
  case DType::I32: {
    int64_t v = 0;
    auto r = std::from_chars(b, e, v, 10);
    if (r.ec == std::errc::result_out_of_range ||
        (r.ec == std::errc() && r.ptr == e && dtype == DType::I32 &&
         (v < INT32_MIN || v > INT32_MAX))) {
      why = quote(item) + " is out of range for " + dtypeName(dtype);
      return false;
    }
    if (r.ec != std::errc() || r.ptr != e) {
      why = quote(item) + " is not an integer";
      return false;
    }
    storeLE(dst, uint64_t(v), dtypeSize(dtype));
    return true;
  }
  case DType::Bool:
    if (s == "1" || s == "true") {
      *dst = 1;
      return true;
    }
    if (s == "0" || s == "false") {
      *dst = 0;
      return true;
    }
    why = quote(item) + " is not a boolean (0, 1, true or false)";
    return false;
  }
  return false;
}

bool looksLikeNumber(std::string_view item) {
  std::string_view s = trim(item);
  if (!s.empty() && s.front() == '+')
    s.remove_prefix(1);
  if (s.empty())
    return false;
  if (s == "true" || s == "false")
    return true;
  double d;
  auto r = std::from_chars(s.data(), s.data() + s.size(), d,
                           std::chars_format::general);
  // Out-of-range magnitudes are reported once the type is known.
  return (r.ec == std::errc() || r.ec == std::errc::result_out_of_range) &&
         r.ptr == s.data() + s.size();
}

} // namespace

bool parseInputShape(const std::string &arg, InputBindings &b,
                     ImportError &err) {
  auto usage = [&]() {
    return fail(err,
                "invalid --input-shape " + quote(arg) +
                    ": expected NAME=D1xD2x... with non-negative integer "
                    "dimensions, or NAME= for a scalar",
                2);
  };
  std::string name, text;
  if (!splitBinding(arg, name, text))
    return usage();
  std::vector<int64_t> dims;
  if (!text.empty() && text != "scalar") {
    for (std::string_view part : split(text, 'x')) {
      int64_t d;
      if (!parseUnsigned(part, d))
        return usage();
      dims.push_back(d);
    }
  }
  if (!b.inputShapes.emplace(name, std::move(dims)).second)
    return fail(err, "--input-shape is given twice for input " + quote(name),
                2);
  return true;
}

bool parseDim(const std::string &arg, InputBindings &b, ImportError &err) {
  std::string name, text;
  int64_t v;
  if (!splitBinding(arg, name, text) || !parseUnsigned(text, v) || v < 1)
    return fail(err,
                "invalid --dim " + quote(arg) +
                    ": expected SYMBOL=N with an integer N >= 1",
                2);
  if (!b.dims.emplace(name, v).second)
    return fail(err, "--dim is given twice for symbol " + quote(name), 2);
  return true;
}

bool parseInputValue(const std::string &arg, InputBindings &b,
                     ImportError &err) {
  std::string name, text;
  bool ok = splitBinding(arg, name, text) && !trim(text).empty();
  if (ok)
    for (std::string_view item : split(text, ','))
      if (!looksLikeNumber(item))
        ok = false;
  if (!ok)
    return fail(err,
                "invalid --input-value " + quote(arg) +
                    ": expected NAME=V or NAME=V1,V2,... with numbers",
                2);
  if (!b.inputValues.emplace(name, text).second)
    return fail(err, "--input-value is given twice for input " + quote(name),
                2);
  return true;
}

bool resolveInputType(const onnx::ValueInfoProto &input, DType &dtype,
                      ImportError &err) {
  std::string what = "input " + quote(input.name());
  if (!input.has_type() || !input.type().has_tensor_type()) {
    if (input.has_type() && input.type().value_case() !=
                                onnx::TypeProto::VALUE_NOT_SET)
      return fail(err, what + " is not a tensor; Plumb supports tensor "
                              "inputs only");
    return fail(err, what + " has no type");
  }
  int32_t t = input.type().tensor_type().elem_type();
  if (t == onnx::TensorProto::UNDEFINED)
    return fail(err, what + " has no data type");
  if (!dtypeFromOnnx(t, dtype))
    return fail(err, what + " has unsupported data type " + typeText(t) +
                         " (Plumb supports " + kSupportedTypes + ")");
  return true;
}

bool resolveInputShape(const onnx::ValueInfoProto &input,
                       const InputBindings &b, const LoadLimits &limits,
                       std::vector<int64_t> &shape, ImportError &err,
                       unsigned index) {
  const std::string &name = input.name();
  std::string what = "input " + quote(name);
  if (input.has_type() && input.type().value_case() !=
                              onnx::TypeProto::VALUE_NOT_SET &&
      !input.type().has_tensor_type())
    return fail(err, what + " is not a tensor; Plumb supports tensor inputs "
                            "only");
  bool modelHasShape =
      input.type().has_tensor_type() && input.type().tensor_type().has_shape();
  const onnx::TensorShapeProto *mshape =
      modelHasShape ? &input.type().tensor_type().shape() : nullptr;

  std::vector<int64_t> result;
  auto it = b.inputShapes.find(name);
  if (it != b.inputShapes.end()) {
    result = it->second;
    std::string given = "--input-shape " + quote(name + "=" + [&] {
                          std::string s;
                          for (size_t i = 0; i < result.size(); ++i)
                            s += (i ? "x" : "") + std::to_string(result[i]);
                          return s;
                        }());
    if (mshape) {
      if (mshape->dim_size() != int(result.size()))
        return fail(err,
                    given + " has rank " + std::to_string(result.size()) +
                        " but the model declares rank " +
                        std::to_string(mshape->dim_size()) + " for " + what,
                    2);
      for (int i = 0; i < mshape->dim_size(); ++i) {
        const auto &d = mshape->dim(i);
        // A negative dim_value (Paddle's exporters write -1) is an unknown
        // dimension, as ONNX Runtime reads it: the given size stands.
        if (d.has_dim_value() && d.dim_value() >= 0 &&
            d.dim_value() != result[size_t(i)])
          return fail(err,
                      given + " conflicts with the model: dim " +
                          std::to_string(i) + " of " + what + " is " +
                          std::to_string(d.dim_value()),
                      2);
      }
    }
  } else {
    // The model's own shape, up to its first free dimension (whose message
    // is kept: it stands unless a sample input supplies the shape).
    std::string freeDim;
    if (!mshape)
      freeDim = what + " has no shape; give it with --input-shape " + name +
                "=...";
    else if (mshape->dim_size() > limits.maxRank)
      return fail(err, what + " has rank " +
                           std::to_string(mshape->dim_size()) +
                           "; the limit is " + std::to_string(limits.maxRank));
    for (int i = 0; mshape && freeDim.empty() && i < mshape->dim_size(); ++i) {
      const auto &d = mshape->dim(i);
      if (d.has_dim_value()) {
        if (d.dim_value() < 0)
          freeDim = what + " has an unknown dimension (dim " +
                    std::to_string(i) + ", written as " +
                    std::to_string(d.dim_value()) +
                    "); give its shape with --input-shape " + name + "=...";
        else
          result.push_back(d.dim_value());
      } else if (d.has_dim_param() && !d.dim_param().empty()) {
        auto dit = b.dims.find(d.dim_param());
        if (dit == b.dims.end())
          freeDim = what + " has free dimension " + quote(d.dim_param()) +
                    " (dim " + std::to_string(i) + "); bind it with --dim " +
                    d.dim_param() + "=N or --input-shape " + name + "=...";
        else
          result.push_back(dit->second);
      } else {
        freeDim = what + " has an unknown dimension (dim " + std::to_string(i) +
                  "); give its shape with --input-shape " + name + "=...";
      }
    }
    if (!freeDim.empty()) {
      std::vector<int64_t> sample;
      std::string serr;
      if (!b.sampleShape || !b.sampleShape(index, name, sample, serr))
        return fail(err, serr.empty() ? freeDim
                                      : "the sample for " + what + ": " + serr);
      std::string given = "the sample for " + what + " has shape " +
                          formatShape(sample);
      if (mshape && mshape->dim_size() != int(sample.size()))
        return fail(err, given + " but the model declares rank " +
                             std::to_string(mshape->dim_size()));
      for (int i = 0; mshape && i < mshape->dim_size(); ++i) {
        const auto &d = mshape->dim(i);
        int64_t fixed = -1;
        if (d.has_dim_value() && d.dim_value() >= 0)
          fixed = d.dim_value();
        else if (d.has_dim_param() && b.dims.count(d.dim_param()))
          fixed = b.dims.at(d.dim_param());
        if (fixed >= 0 && fixed != sample[size_t(i)])
          return fail(err, given + " but dim " + std::to_string(i) +
                               " is " + std::to_string(fixed));
      }
      result = std::move(sample);
    }
  }
  if (int64_t(result.size()) > limits.maxRank)
    return fail(err, what + " has rank " + std::to_string(result.size()) +
                         "; the limit is " + std::to_string(limits.maxRank));
  int64_t elements;
  if (!checkedNumElements(result, limits.maxElements, elements))
    return fail(err, what + " has shape " + formatShape(result) +
                         ", more than " + std::to_string(limits.maxElements) +
                         " elements (the limit)");
  shape = std::move(result);
  return true;
}

bool convertInputValue(const std::string &name, const std::string &text,
                       DType dtype, const std::vector<int64_t> &shape,
                       TensorValue &out, ImportError &err) {
  const LoadLimits limits;
  std::string what = "--input-value for " + quote(name);
  int64_t elements;
  if (!checkedNumElements(shape, limits.maxElements, elements) ||
      uint64_t(elements) * dtypeSize(dtype) > limits.maxTensorBytes)
    return fail(err, what + ": shape " + formatShape(shape) +
                         " is too large");
  std::vector<std::string_view> items = split(text, ',');
  if (items.size() != 1 && int64_t(items.size()) != elements)
    return fail(err,
                what + " has " + std::to_string(items.size()) +
                    " values; its shape " + formatShape(shape) + " needs " +
                    std::to_string(elements) + " (or one value for all)",
                2);
  size_t esize = dtypeSize(dtype);
  std::vector<char> data(size_t(elements) * esize, 0);
  std::string why;
  if (items.size() == 1) {
    char one[8] = {0};
    if (!parseValueItem(items[0], dtype, one, why))
      return fail(err, what + ": " + why, 2);
    for (int64_t i = 0; i < elements; ++i)
      std::memcpy(data.data() + size_t(i) * esize, one, esize);
  } else {
    for (size_t i = 0; i < items.size(); ++i)
      if (!parseValueItem(items[i], dtype, data.data() + i * esize, why))
        return fail(err, what + ": value " + std::to_string(i) + ": " + why,
                    2);
  }
  out.dtype = dtype;
  out.shape = shape;
  out.data = std::move(data);
  return true;
}

} // namespace importer
} // namespace plumb
