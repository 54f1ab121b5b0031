//===- test/unit/importer/ModelLoaderTest.cpp - ModelLoader unit tests ----===//
//
// Part of Plumb. Builds ONNX protos in C++ (valid and hostile) and checks that
// every ModelLoader entry point accepts the good ones and rejects the bad ones
// with the exact message, without crashing, hanging or recursing.
//
//===----------------------------------------------------------------------===//

#include "plumb/Importer/ModelLoader.h"

#include "onnx/onnx_pb.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace plumb::importer;

namespace {

//===----------------------------------------------------------------------===//
// Fixtures and builders
//===----------------------------------------------------------------------===//

/// A fresh temporary folder per test, removed afterwards.
class TempDir {
public:
  TempDir() {
    char tmpl[] = "/tmp/plumb-loader-XXXXXX";
    char *d = ::mkdtemp(tmpl);
    EXPECT_NE(d, nullptr);
    path_ = d ? d : "/tmp";
  }
  ~TempDir() {
    std::string cmd = "rm -rf '" + path_ + "'";
    (void)!std::system(cmd.c_str());
  }
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }
  std::string write(const std::string &name, const std::string &bytes) const {
    std::string p = file(name);
    std::ofstream f(p, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
    return p;
  }

private:
  std::string path_;
};

onnx::NodeProto *addNode(onnx::GraphProto &g, const std::string &op,
                         const std::string &name,
                         std::vector<std::string> inputs,
                         std::vector<std::string> outputs) {
  onnx::NodeProto *n = g.add_node();
  n->set_op_type(op);
  if (!name.empty())
    n->set_name(name);
  for (auto &i : inputs)
    n->add_input(i);
  for (auto &o : outputs)
    n->add_output(o);
  return n;
}

void setTensorType(onnx::ValueInfoProto &v, const std::string &name,
                   int32_t elemType, std::vector<int64_t> dims) {
  v.set_name(name);
  auto *tt = v.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elemType);
  auto *shape = tt->mutable_shape();
  for (int64_t d : dims)
    shape->add_dim()->set_dim_value(d);
}

/// A small valid model: X[1,4] -> Relu -> Y.
onnx::ModelProto makeModel(int64_t ir = 8, int64_t opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(ir);
  auto *op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  auto *g = m.mutable_graph();
  g->set_name("g");
  setTensorType(*g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 4});
  setTensorType(*g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 4});
  addNode(*g, "Relu", "r", {"X"}, {"Y"});
  return m;
}

std::string serialize(const onnx::ModelProto &m) {
  std::string s;
  EXPECT_TRUE(m.SerializeToString(&s));
  return s;
}

/// A model whose graph nests `depth` If subgraphs (built iteratively).
onnx::ModelProto makeNestedIfModel(int depth) {
  onnx::ModelProto m = makeModel();
  onnx::GraphProto *g = m.mutable_graph();
  for (int i = 0; i < depth; ++i) {
    onnx::NodeProto *n = addNode(*g, "If", "if" + std::to_string(i + 1),
                                 {"X"}, {"o" + std::to_string(i)});
    auto *a = n->add_attribute();
    a->set_name("then_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    g = a->mutable_g();
    g->set_name("then" + std::to_string(i + 1));
  }
  return m;
}

onnx::TensorProto floatTensor(std::vector<int64_t> dims,
                              std::vector<float> values) {
  onnx::TensorProto t;
  t.set_name("t");
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    t.add_dims(d);
  for (float v : values)
    t.add_float_data(v);
  return t;
}

std::string rawBytesLE(const std::vector<uint32_t> &words) {
  std::string s;
  for (uint32_t w : words)
    for (int i = 0; i < 4; ++i)
      s += char((w >> (8 * i)) & 0xff);
  return s;
}

void addExternal(onnx::TensorProto &t, const std::string &key,
                 const std::string &value) {
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto *kv = t.add_external_data();
  kv->set_key(key);
  kv->set_value(value);
}

/// A FLOAT [2, 2] tensor stored externally at `location`.
onnx::TensorProto externalTensor(const std::string &location) {
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_dims(2);
  addExternal(t, "location", location);
  return t;
}

std::string bytesOf(const TensorValue &v) {
  return std::string(v.data.begin(), v.data.end());
}

const LoadLimits kLimits;

//===----------------------------------------------------------------------===//
// Types and arithmetic
//===----------------------------------------------------------------------===//

TEST(ModelLoaderTypes, Names) {
  EXPECT_STREQ(dtypeName(DType::F32), "FLOAT");
  EXPECT_STREQ(dtypeName(DType::I64), "INT64");
  EXPECT_STREQ(dtypeName(DType::I32), "INT32");
  EXPECT_STREQ(dtypeName(DType::Bool), "BOOL");
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::I64), 8u);
  EXPECT_EQ(dtypeSize(DType::I32), 4u);
  EXPECT_EQ(dtypeSize(DType::Bool), 1u);
  EXPECT_STREQ(onnxTypeName(0), "UNDEFINED");
  EXPECT_STREQ(onnxTypeName(1), "FLOAT");
  EXPECT_STREQ(onnxTypeName(10), "FLOAT16");
  EXPECT_STREQ(onnxTypeName(16), "BFLOAT16");
  EXPECT_STREQ(onnxTypeName(26), "INT2");
  EXPECT_STREQ(onnxTypeName(27), "UNKNOWN");
  EXPECT_STREQ(onnxTypeName(-1), "UNKNOWN");
  DType t;
  EXPECT_TRUE(dtypeFromOnnx(onnx::TensorProto::FLOAT, t));
  EXPECT_EQ(t, DType::F32);
  EXPECT_TRUE(dtypeFromOnnx(onnx::TensorProto::INT64, t));
  EXPECT_EQ(t, DType::I64);
  EXPECT_TRUE(dtypeFromOnnx(onnx::TensorProto::INT32, t));
  EXPECT_EQ(t, DType::I32);
  EXPECT_TRUE(dtypeFromOnnx(onnx::TensorProto::BOOL, t));
  EXPECT_EQ(t, DType::Bool);
  EXPECT_FALSE(dtypeFromOnnx(onnx::TensorProto::FLOAT16, t));
  EXPECT_FALSE(dtypeFromOnnx(onnx::TensorProto::DOUBLE, t));
  EXPECT_FALSE(dtypeFromOnnx(0, t));
}

TEST(ModelLoaderArith, CheckedMul) {
  int64_t r = 0;
  EXPECT_TRUE(checkedMul(3, 4, r));
  EXPECT_EQ(r, 12);
  EXPECT_TRUE(checkedMul(int64_t(1) << 31, int64_t(1) << 31, r));
  EXPECT_EQ(r, int64_t(1) << 62);
  EXPECT_FALSE(checkedMul(int64_t(1) << 32, int64_t(1) << 32, r));
  EXPECT_FALSE(checkedMul(INT64_MAX, 2, r));
  EXPECT_TRUE(checkedMul(-3, 4, r));
  EXPECT_EQ(r, -12);
}

TEST(ModelLoaderArith, CheckedNumElements) {
  int64_t n = -1;
  EXPECT_TRUE(checkedNumElements({}, 10, n));
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(checkedNumElements({2, 3, 4}, 24, n));
  EXPECT_EQ(n, 24);
  EXPECT_FALSE(checkedNumElements({2, 3, 4}, 23, n));
  EXPECT_TRUE(checkedNumElements({5, 0, 7}, 100, n));
  EXPECT_EQ(n, 0);
  EXPECT_FALSE(checkedNumElements({2, -1}, 100, n));
  EXPECT_FALSE(checkedNumElements({int64_t(1) << 40, int64_t(1) << 40, 0},
                                  INT64_MAX, n));
  EXPECT_FALSE(checkedNumElements({INT64_MAX, INT64_MAX}, INT64_MAX, n));
  TensorValue v;
  v.shape = {2, 3};
  EXPECT_EQ(v.numElements(), 6);
  v.shape = {};
  EXPECT_EQ(v.numElements(), 1);
}

//===----------------------------------------------------------------------===//
// loadModelFile
//===----------------------------------------------------------------------===//

TEST(ModelLoaderLoad, ValidModel) {
  TempDir dir;
  std::string p = dir.write("m.onnx", serialize(makeModel()));
  onnx::ModelProto m;
  ImportError err;
  ASSERT_TRUE(loadModelFile(p, m, kLimits, err)) << err.message;
  EXPECT_EQ(m.graph().node_size(), 1);
  EXPECT_EQ(m.graph().node(0).op_type(), "Relu");
}

TEST(ModelLoaderLoad, MissingFile) {
  TempDir dir;
  onnx::ModelProto m;
  ImportError err;
  std::string p = dir.file("nope.onnx");
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  EXPECT_EQ(err.message, "cannot open '" + p + "': No such file or directory");
  EXPECT_EQ(err.exitCode, 1);
}

TEST(ModelLoaderLoad, Directory) {
  TempDir dir;
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(dir.path(), m, kLimits, err));
  EXPECT_EQ(err.message, "cannot open '" + dir.path() + "': it is a directory");
}

TEST(ModelLoaderLoad, FifoDoesNotHang) {
  TempDir dir;
  std::string p = dir.file("fifo");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  EXPECT_EQ(err.message, "cannot open '" + p + "': not a regular file");
}

TEST(ModelLoaderLoad, EmptyFile) {
  TempDir dir;
  std::string p = dir.write("e.onnx", "");
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  EXPECT_EQ(err.message, "not a valid ONNX model: '" + p + "' is empty");
}

TEST(ModelLoaderLoad, TooLarge) {
  TempDir dir;
  std::string p = dir.write("m.onnx", serialize(makeModel()));
  LoadLimits small;
  small.maxFileBytes = 10;
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, small, err));
  EXPECT_EQ(err.message.rfind("model file '" + p + "' is ", 0), 0u)
      << err.message;
  EXPECT_NE(err.message.find("bytes; the limit is 10 bytes"),
            std::string::npos);
}

TEST(ModelLoaderLoad, TruncatedAtEveryLength) {
  TempDir dir;
  std::string full = serialize(makeModel());
  // Every proper prefix must fail cleanly or, when the cut falls on a field
  // boundary, load a (partial) model; never crash.
  for (size_t len = 1; len < full.size(); ++len) {
    std::string p = dir.write("t.onnx", full.substr(0, len));
    onnx::ModelProto m;
    ImportError err;
    if (!loadModelFile(p, m, kLimits, err)) {
      EXPECT_EQ(err.message.rfind("not a valid ONNX model: '" + p + "' ", 0),
                0u)
          << err.message;
    }
  }
}

TEST(ModelLoaderLoad, TruncatedMessage) {
  TempDir dir;
  std::string full = serialize(makeModel());
  std::string p = dir.write("t.onnx", full.substr(0, full.size() / 2));
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  // ir_version (2 bytes), then the graph (field 7), then opset_import.
  EXPECT_NE(err.message.find("is truncated: field 7 at byte "),
            std::string::npos)
      << err.message;
  EXPECT_NE(err.message.find(" bytes but only "), std::string::npos);
}

TEST(ModelLoaderLoad, InvalidWireType) {
  TempDir dir;
  std::string p = dir.write("r.onnx", std::string("\x0f\x01\x02", 3));
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  EXPECT_EQ(err.message, "not a valid ONNX model: '" + p +
                             "' has invalid wire type 7 in field 1 at byte 0");
}

TEST(ModelLoaderLoad, TrailingZeroByte) {
  TempDir dir;
  std::string bytes = serialize(makeModel());
  size_t n = bytes.size();
  bytes += '\0';
  std::string p = dir.write("z.onnx", bytes);
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  EXPECT_EQ(err.message, "not a valid ONNX model: '" + p +
                             "' has an invalid field tag at byte " +
                             std::to_string(n));
}

TEST(ModelLoaderLoad, StrayEndGroup) {
  TempDir dir;
  std::string bytes = serialize(makeModel());
  size_t n = bytes.size();
  bytes += '\x0c'; // field 1, wire type 4 (end group) at top level
  std::string p = dir.write("g.onnx", bytes);
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  EXPECT_EQ(err.message, "not a valid ONNX model: '" + p +
                             "' has an unexpected end-group tag at byte " +
                             std::to_string(n));
}

TEST(ModelLoaderLoad, RandomBytesNeverCrash) {
  TempDir dir;
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int round = 0; round < 300; ++round) {
    std::string bytes;
    size_t len = 1 + size_t(round * 7 % 500);
    for (size_t i = 0; i < len; ++i) {
      state ^= state << 13;
      state ^= state >> 7;
      state ^= state << 17;
      bytes += char(state & 0xff);
    }
    std::string p = dir.write("r.onnx", bytes);
    onnx::ModelProto m;
    ImportError err;
    if (loadModelFile(p, m, kLimits, err)) {
      int64_t opset;
      (void)checkModelHeader(m, opset, err);
    } else {
      EXPECT_FALSE(err.message.empty());
      EXPECT_EQ(err.exitCode, 1);
    }
  }
}

TEST(ModelLoaderLoad, MutatedModelsNeverCrash) {
  // A model with an If subgraph, typed and raw initializers; flip bytes and
  // run every stage on whatever still parses.
  onnx::ModelProto m0 = makeModel();
  onnx::GraphProto *g = m0.mutable_graph();
  *g->add_initializer() = floatTensor({2, 2}, {1, 2, 3, 4});
  g->mutable_initializer(0)->set_name("w");
  onnx::TensorProto raw;
  raw.set_name("r");
  raw.set_data_type(onnx::TensorProto::INT64);
  raw.add_dims(1);
  raw.set_raw_data(std::string(8, '\x01'));
  *g->add_initializer() = raw;
  onnx::NodeProto *ifNode = addNode(*g, "If", "if", {"X"}, {"z"});
  auto *a = ifNode->add_attribute();
  a->set_name("then_branch");
  a->set_type(onnx::AttributeProto::GRAPH);
  addNode(*a->mutable_g(), "Add", "in", {"Y", "w"}, {"z2"});
  const std::string good = serialize(m0);
  TempDir dir;
  uint64_t state = 12345;
  auto next = [&]() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(state >> 33);
  };
  for (int round = 0; round < 1500; ++round) {
    std::string bytes = good;
    int flips = 1 + int(next() % 4);
    for (int f = 0; f < flips; ++f)
      bytes[next() % bytes.size()] = char(next() & 0xff);
    if (round % 7 == 0)
      bytes.resize(next() % bytes.size());
    std::string p = dir.write("m.onnx", bytes);
    onnx::ModelProto m;
    ImportError err;
    if (!loadModelFile(p, m, kLimits, err)) {
      EXPECT_FALSE(err.message.empty());
      continue;
    }
    int64_t opset;
    (void)checkModelHeader(m, opset, err);
    std::set<std::string> avail;
    for (const auto &t : m.graph().initializer()) {
      TensorValue v;
      if (decodeTensor(t, dir.path(), kLimits, "initializer 'x'", v, err)) {
        EXPECT_EQ(int64_t(v.data.size()),
                  v.numElements() * int64_t(dtypeSize(v.dtype)));
      }
      avail.insert(t.name());
    }
    for (const auto &in : m.graph().input()) {
      std::vector<int64_t> shape;
      DType dt;
      (void)resolveInputType(in, dt, err);
      (void)resolveInputShape(in, {}, kLimits, shape, err);
      avail.insert(in.name());
    }
    std::vector<int> order;
    if (topologicalOrder(m.graph(), avail, order, err)) {
      EXPECT_EQ(int(order.size()), m.graph().node_size());
    }
  }
}

TEST(ModelLoaderLoad, ParsesButHasNoGraph) {
  TempDir dir;
  onnx::ModelProto m0;
  m0.set_ir_version(8);
  std::string p = dir.write("ng.onnx", serialize(m0));
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  EXPECT_EQ(err.message, "not a valid ONNX model: '" + p + "' has no graph");
}

TEST(ModelLoaderLoad, NestingWithinLimit) {
  TempDir dir;
  std::string p = dir.write("n.onnx", serialize(makeNestedIfModel(64)));
  onnx::ModelProto m;
  ImportError err;
  EXPECT_TRUE(loadModelFile(p, m, kLimits, err)) << err.message;
}

TEST(ModelLoaderLoad, NestingBeyondLimit) {
  TempDir dir;
  std::string p = dir.write("n.onnx", serialize(makeNestedIfModel(65)));
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  EXPECT_EQ(err.message,
            "node 'if65' (If, #0) nests subgraphs 65 levels deep; the limit "
            "is 64");
}

TEST(ModelLoaderLoad, NestingBeyondProtobufRecursionLimit) {
  TempDir dir;
  std::string p = dir.write("n.onnx", serialize(makeNestedIfModel(150)));
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, kLimits, err));
  EXPECT_EQ(err.message, "not a valid ONNX model: '" + p +
                             "' contains corrupt protobuf data or messages "
                             "nested more than 212 levels deep");
}

TEST(ModelLoaderLoad, NodeLimit) {
  TempDir dir;
  onnx::ModelProto m0 = makeModel();
  for (int i = 0; i < 10; ++i)
    addNode(*m0.mutable_graph(), "Relu", "", {"X"}, {"z" + std::to_string(i)});
  std::string p = dir.write("n.onnx", serialize(m0));
  LoadLimits small;
  small.maxNodes = 5;
  onnx::ModelProto m;
  ImportError err;
  EXPECT_FALSE(loadModelFile(p, m, small, err));
  EXPECT_EQ(err.message,
            "model has more than 5 nodes (the limit), counting subgraphs");
}

//===----------------------------------------------------------------------===//
// checkModelHeader
//===----------------------------------------------------------------------===//

TEST(ModelLoaderHeader, Valid) {
  int64_t opset = 0;
  ImportError err;
  EXPECT_TRUE(checkModelHeader(makeModel(8, 13), opset, err)) << err.message;
  EXPECT_EQ(opset, 13);
  EXPECT_TRUE(checkModelHeader(makeModel(3, 7), opset, err));
  EXPECT_EQ(opset, 7);
  EXPECT_TRUE(checkModelHeader(makeModel(10, 17), opset, err));
  EXPECT_EQ(opset, 17);
  // torch's dynamo exporter (opsets 18 to 20, IR 10) and onnx 1.20 (opset
  // 25, IR 13).
  EXPECT_TRUE(checkModelHeader(makeModel(10, 18), opset, err));
  EXPECT_EQ(opset, 18);
  EXPECT_TRUE(checkModelHeader(makeModel(13, 25), opset, err));
  EXPECT_EQ(opset, 25);
  EXPECT_TRUE(checkModelHeader(makeModel(11, 22), opset, err));
  EXPECT_EQ(opset, 22);
}

TEST(ModelLoaderHeader, AiOnnxDomainAndOthers) {
  onnx::ModelProto m = makeModel();
  m.mutable_opset_import(0)->set_domain("ai.onnx");
  auto *other = m.add_opset_import();
  other->set_domain("com.microsoft");
  other->set_version(1);
  int64_t opset = 0;
  ImportError err;
  EXPECT_TRUE(checkModelHeader(m, opset, err)) << err.message;
  EXPECT_EQ(opset, 13);
}

TEST(ModelLoaderHeader, Errors) {
  int64_t opset = 0;
  ImportError err;
  onnx::ModelProto m = makeModel();
  m.clear_ir_version();
  EXPECT_FALSE(checkModelHeader(m, opset, err));
  EXPECT_EQ(err.message, "model has no IR version (ir_version)");

  EXPECT_FALSE(checkModelHeader(makeModel(14, 13), opset, err));
  EXPECT_EQ(err.message,
            "model has IR version 14; Plumb supports IR versions 3 to 13");
  EXPECT_FALSE(checkModelHeader(makeModel(2, 13), opset, err));
  EXPECT_EQ(err.message,
            "model has IR version 2; Plumb supports IR versions 3 to 13");

  EXPECT_FALSE(checkModelHeader(makeModel(8, 30), opset, err));
  EXPECT_EQ(err.message, "model uses opset 30 of the default ONNX domain; "
                         "Plumb supports opsets 7 to 25");
  EXPECT_EQ(err.exitCode, 1);
  EXPECT_FALSE(checkModelHeader(makeModel(13, 26), opset, err));
  EXPECT_EQ(err.message, "model uses opset 26 of the default ONNX domain; "
                         "Plumb supports opsets 7 to 25");
  EXPECT_FALSE(checkModelHeader(makeModel(8, 6), opset, err));
  EXPECT_EQ(err.message, "model uses opset 6 of the default ONNX domain; "
                         "Plumb supports opsets 7 to 25");

  m = makeModel();
  m.clear_opset_import();
  EXPECT_FALSE(checkModelHeader(m, opset, err));
  EXPECT_EQ(err.message,
            "model has no opset_import for the default ONNX domain");

  m = makeModel();
  m.mutable_opset_import(0)->set_domain("com.other");
  EXPECT_FALSE(checkModelHeader(m, opset, err));
  EXPECT_EQ(err.message,
            "model has no opset_import for the default ONNX domain");

  m = makeModel();
  auto *dup = m.add_opset_import();
  dup->set_domain("ai.onnx");
  dup->set_version(13);
  EXPECT_FALSE(checkModelHeader(m, opset, err));
  EXPECT_EQ(err.message,
            "model imports the default ONNX domain twice in opset_import");

  m = makeModel();
  m.mutable_opset_import(0)->clear_version();
  EXPECT_FALSE(checkModelHeader(m, opset, err));
  EXPECT_EQ(err.message, "model's opset_import for the default ONNX domain "
                         "has no version");
}

//===----------------------------------------------------------------------===//
// decodeTensor
//===----------------------------------------------------------------------===//

TEST(ModelLoaderTensor, TypedFloat) {
  onnx::TensorProto t = floatTensor({2, 2}, {1.0f, -2.0f, 0.5f, 0.1f});
  TensorValue v;
  ImportError err;
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "initializer 't'", v, err))
      << err.message;
  EXPECT_EQ(v.dtype, DType::F32);
  EXPECT_EQ(v.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(bytesOf(v),
            rawBytesLE({0x3f800000u, 0xc0000000u, 0x3f000000u, 0x3dcccccdu}));
}

TEST(ModelLoaderTensor, RawFloatAndScalar) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.set_raw_data(rawBytesLE({0x40490fdbu})); // scalar: no dims, 1 element
  TensorValue v;
  ImportError err;
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "initializer 'pi'", v, err))
      << err.message;
  EXPECT_TRUE(v.shape.empty());
  EXPECT_EQ(v.numElements(), 1);
  EXPECT_EQ(bytesOf(v), rawBytesLE({0x40490fdbu}));
}

TEST(ModelLoaderTensor, Int64TypedAndRaw) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT64);
  t.add_dims(2);
  t.add_int64_data(-1);
  t.add_int64_data(int64_t(1) << 40);
  TensorValue v;
  ImportError err;
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "initializer 'i'", v, err));
  std::string expect = std::string(8, '\xff') +
                       std::string("\0\0\0\0\0\x01\0\0", 8);
  EXPECT_EQ(bytesOf(v), expect);
  onnx::TensorProto r;
  r.set_data_type(onnx::TensorProto::INT64);
  r.add_dims(2);
  r.set_raw_data(expect);
  TensorValue v2;
  ASSERT_TRUE(decodeTensor(r, "", kLimits, "initializer 'i'", v2, err));
  EXPECT_EQ(v2.data, v.data);
}

TEST(ModelLoaderTensor, Int32) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::INT32);
  t.add_dims(2);
  t.add_int32_data(-2);
  t.add_int32_data(7);
  TensorValue v;
  ImportError err;
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "initializer 'i'", v, err));
  EXPECT_EQ(v.dtype, DType::I32);
  EXPECT_EQ(bytesOf(v), rawBytesLE({0xfffffffeu, 7u}));
}

TEST(ModelLoaderTensor, Bool) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::BOOL);
  t.add_dims(3);
  t.add_int32_data(1);
  t.add_int32_data(0);
  t.add_int32_data(5); // normalized to 1
  TensorValue v;
  ImportError err;
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "initializer 'b'", v, err));
  EXPECT_EQ(v.dtype, DType::Bool);
  EXPECT_EQ(bytesOf(v), std::string("\x01\x00\x01", 3));
  onnx::TensorProto r;
  r.set_data_type(onnx::TensorProto::BOOL);
  r.add_dims(3);
  r.set_raw_data(std::string("\x00\x02\x01", 3));
  ASSERT_TRUE(decodeTensor(r, "", kLimits, "initializer 'b'", v, err));
  EXPECT_EQ(bytesOf(v), std::string("\x00\x01\x01", 3));
}

TEST(ModelLoaderTensor, ZeroElements) {
  onnx::TensorProto t = floatTensor({3, 0}, {});
  TensorValue v;
  ImportError err;
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "initializer 'e'", v, err))
      << err.message;
  EXPECT_EQ(v.numElements(), 0);
  EXPECT_TRUE(v.data.empty());
  t.set_raw_data("");
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "initializer 'e'", v, err))
      << err.message;
}

TEST(ModelLoaderTensor, ShapeErrors) {
  TensorValue v;
  ImportError err;
  onnx::TensorProto t = floatTensor({2, -3}, {});
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has negative dimension -3 (dim 1)");

  t = floatTensor({int64_t(1) << 62, int64_t(1) << 62}, {});
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has shape [4611686018427387904, "
                         "4611686018427387904], more than 2147483648 "
                         "elements (the limit)");

  t = floatTensor({int64_t(1) << 31, 2}, {});
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has shape [2147483648, 2], more "
                         "than 2147483648 elements (the limit)");

  t = floatTensor(std::vector<int64_t>(17, 1), {1.0f});
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has rank 17; the limit is 16");

  LoadLimits small;
  small.maxTensorBytes = 15;
  t = floatTensor({4}, {1, 2, 3, 4});
  EXPECT_FALSE(decodeTensor(t, "", small, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has shape [4] of FLOAT, more than "
                         "15 bytes (the limit)");
  LoadLimits huge;
  huge.maxElements = INT64_MAX;
  huge.maxTensorBytes = UINT64_MAX;
  t = floatTensor({int64_t(1) << 61, 2}, {}); // 2^62 elements, 2^64 bytes
  EXPECT_FALSE(decodeTensor(t, "", huge, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has shape [2305843009213693952, 2] "
                         "of FLOAT, more than 18446744073709551615 bytes (the "
                         "limit)");
}

TEST(ModelLoaderTensor, SizeMismatch) {
  TensorValue v;
  ImportError err;
  onnx::TensorProto t = floatTensor({2, 3}, {});
  t.set_raw_data(std::string(20, '\0'));
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has 20 bytes of raw_data; its shape "
                         "[2, 3] of FLOAT needs 24 bytes");

  t = floatTensor({2, 3}, {1, 2, 3, 4, 5});
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has 5 values in float_data; its "
                         "shape [2, 3] needs 6");

  t = floatTensor({}, {});
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 's'", v, err));
  EXPECT_EQ(err.message, "initializer 's' has 0 values in float_data; its "
                         "shape [] needs 1");
}

TEST(ModelLoaderTensor, FieldErrors) {
  TensorValue v;
  ImportError err;
  onnx::TensorProto t = floatTensor({1}, {});
  t.add_int64_data(3);
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' (FLOAT) stores values in "
                         "int64_data; expected float_data or raw_data");

  t = floatTensor({1}, {1.0f});
  t.set_raw_data(rawBytesLE({0}));
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message,
            "initializer 'w' has both raw_data and values in float_data");

  t = floatTensor({1}, {1.0f});
  t.mutable_segment()->set_begin(0);
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' is segmented (TensorProto.segment), "
                         "which Plumb does not support");

  t = floatTensor({1}, {1.0f});
  auto *kv = t.add_external_data();
  kv->set_key("location");
  kv->set_value("x.bin");
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external_data entries but its "
                         "data_location is not EXTERNAL");
}

TEST(ModelLoaderTensor, UnsupportedTypes) {
  TensorValue v;
  ImportError err;
  onnx::TensorProto t;
  t.add_dims(1);
  t.set_data_type(onnx::TensorProto::DOUBLE);
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'h'", v, err));
  EXPECT_EQ(err.message, "initializer 'h' has unsupported data type DOUBLE "
                         "(Plumb supports FLOAT, INT64, INT32, BOOL, UINT8, INT8, "
                         "UINT16, INT16, FLOAT16 and BFLOAT16)");
  EXPECT_EQ(err.exitCode, 1);
  // The types of IR 9 to 13, numbers the protos Plumb builds against do not
  // name: refused by name, never parsed.
  const std::pair<int, const char *> newer[] = {
      {17, "FLOAT8E4M3FN"}, {18, "FLOAT8E4M3FNUZ"},
      {19, "FLOAT8E5M2"},   {20, "FLOAT8E5M2FNUZ"},
      {21, "UINT4"},        {22, "INT4"},
      {23, "FLOAT4E2M1"},   {24, "FLOAT8E8M0"},
      {25, "UINT2"},        {26, "INT2"}};
  for (auto [number, name] : newer) {
    t.set_data_type(number);
    t.set_raw_data(std::string(3, '\x11'));
    EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'h'", v, err));
    EXPECT_EQ(err.message,
              std::string("initializer 'h' has unsupported data "
                          "type ") +
                  name + " (Plumb supports FLOAT, INT64, INT32, BOOL, UINT8, "
                         "INT8, UINT16, INT16, FLOAT16 and BFLOAT16)");
  }
  t.clear_raw_data();
  t.set_data_type(99);
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'h'", v, err));
  EXPECT_EQ(err.message, "initializer 'h' has unsupported data type number 99 "
                         "(Plumb supports FLOAT, INT64, INT32, BOOL, UINT8, INT8, "
                         "UINT16, INT16, FLOAT16 and BFLOAT16)");
  t.clear_data_type();
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "initializer 'h'", v, err));
  EXPECT_EQ(err.message, "initializer 'h' has no data type");
}

//===----------------------------------------------------------------------===//
// Fields newer than the protos (IR 9 and 10)
//===----------------------------------------------------------------------===//

/// A length-delimited field as protobuf writes it (field numbers < 16 and
/// lengths < 128 here).
std::string lengthField(int number, const std::string &payload) {
  return std::string(1, char((number << 3) | 2)) +
         std::string(1, char(payload.size())) + payload;
}

TEST(ModelLoaderTensor, HalfFloatsWidenToFloat) {
  // FLOAT16 / BFLOAT16 decode into FLOAT with their exact values, from
  // raw_data (2 bytes each) and from int32_data (the bits); a NaN becomes
  // the canonical NaN; the ONNX type is kept in onnxType.
  TensorValue v;
  ImportError err;
  onnx::TensorProto t;
  t.add_dims(5);
  auto words = [&] {
    std::vector<uint32_t> out(v.data.size() / 4);
    std::memcpy(out.data(), v.data.data(), v.data.size());
    return out;
  };
  // 1.0, -2.0, 65504, 2^-24 (smallest subnormal), a NaN with a payload
  t.set_data_type(onnx::TensorProto::FLOAT16);
  t.set_raw_data(std::string("\x00\x3c\x00\xc0\xff\x7b\x01\x00\x01\xfe", 10));
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "w", v, err)) << err.message;
  EXPECT_EQ(v.dtype, DType::F32);
  EXPECT_EQ(v.onnxType, onnx::TensorProto::FLOAT16);
  EXPECT_EQ(words(), (std::vector<uint32_t>{0x3F800000u, 0xC0000000u,
                                            0x477FE000u, 0x33800000u,
                                            0x7FC00000u}));
  t.clear_raw_data();
  for (int32_t h : {0x3C00, 0xC000, 0x7BFF, 0x0001, 0xFE01})
    t.add_int32_data(h);
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "w", v, err)) << err.message;
  EXPECT_EQ(words(), (std::vector<uint32_t>{0x3F800000u, 0xC0000000u,
                                            0x477FE000u, 0x33800000u,
                                            0x7FC00000u}));
  // bfloat16: the high half of the float32 bits
  t.set_data_type(onnx::TensorProto::BFLOAT16);
  t.clear_int32_data();
  for (int32_t h : {0x3F80, 0xC049, 0x7F7F, 0x0001, 0xFFC1})
    t.add_int32_data(h);
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "w", v, err)) << err.message;
  EXPECT_EQ(v.onnxType, onnx::TensorProto::BFLOAT16);
  EXPECT_EQ(words(), (std::vector<uint32_t>{0x3F800000u, 0xC0490000u,
                                            0x7F7F0000u, 0x00010000u,
                                            0x7FC00000u}));
  // float_data is not a half type's field.
  t.clear_int32_data();
  for (int i = 0; i < 5; ++i)
    t.add_float_data(1.0f);
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "w", v, err));
  EXPECT_EQ(err.message, "w (BFLOAT16) stores values in float_data; expected "
                         "int32_data (the bits) or raw_data");
  // raw_data of the wrong length names the type.
  t.clear_float_data();
  t.set_raw_data(std::string(4, '\0'));
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "w", v, err));
  EXPECT_EQ(err.message, "w has 4 bytes of raw_data; its shape [5] of "
                         "BFLOAT16 needs 10 bytes");
}

TEST(ModelLoaderTensor, NarrowIntegersWidenToInt32) {
  // UINT8 / INT8 / UINT16 / INT16 decode into INT32 with their exact
  // values, from raw_data (1 or 2 bytes each) and from int32_data; the
  // ONNX type is kept in onnxType.
  TensorValue v;
  ImportError err;
  onnx::TensorProto t;
  t.add_dims(3);
  auto ints = [&] {
    std::vector<int32_t> out(v.data.size() / 4);
    std::memcpy(out.data(), v.data.data(), v.data.size());
    return out;
  };
  t.set_data_type(onnx::TensorProto::UINT8);
  t.set_raw_data(std::string("\x00\x80\xff", 3));
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "w", v, err)) << err.message;
  EXPECT_EQ(v.dtype, DType::I32);
  EXPECT_EQ(v.onnxType, onnx::TensorProto::UINT8);
  EXPECT_EQ(ints(), (std::vector<int32_t>{0, 128, 255}));
  t.set_data_type(onnx::TensorProto::INT8);
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "w", v, err)) << err.message;
  EXPECT_EQ(ints(), (std::vector<int32_t>{0, -128, -1}));
  t.set_data_type(onnx::TensorProto::INT16);
  t.set_raw_data(std::string("\x01\x00\x00\x80\xff\xff", 6));
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "w", v, err)) << err.message;
  EXPECT_EQ(ints(), (std::vector<int32_t>{1, -32768, -1}));
  t.set_data_type(onnx::TensorProto::UINT16);
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "w", v, err)) << err.message;
  EXPECT_EQ(ints(), (std::vector<int32_t>{1, 32768, 65535}));
  // int32_data holds narrow values one per entry.
  t.clear_raw_data();
  t.set_data_type(onnx::TensorProto::INT8);
  t.add_int32_data(-5);
  t.add_int32_data(7);
  t.add_int32_data(127);
  ASSERT_TRUE(decodeTensor(t, "", kLimits, "w", v, err)) << err.message;
  EXPECT_EQ(ints(), (std::vector<int32_t>{-5, 7, 127}));
  // raw_data of the wrong length names the narrow type.
  t.clear_int32_data();
  t.set_raw_data(std::string(4, '\0'));
  EXPECT_FALSE(decodeTensor(t, "", kLimits, "w", v, err));
  EXPECT_EQ(err.message, "w has 4 bytes of raw_data; its shape [3] of INT8 "
                         "needs 3 bytes");
}

TEST(ModelLoaderNewerFields, NodeOverload) {
  onnx::NodeProto node;
  node.set_op_type("F");
  EXPECT_EQ(overloadOf(node), "");
  // NodeProto.overload = 8 (IR 10), unknown to the protos: kept as an
  // unknown field and read from there; the last occurrence wins.
  std::string bytes =
      node.SerializeAsString() + lengthField(8, "first") + lengthField(8, "v2");
  onnx::NodeProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(parsed.op_type(), "F");
  EXPECT_EQ(overloadOf(parsed), "v2");
}

TEST(ModelLoaderNewerFields, FunctionOverloadAndDefaults) {
  onnx::FunctionProto f;
  f.set_name("F");
  f.set_domain("local");
  onnx::AttributeProto alpha;
  alpha.set_name("alpha");
  alpha.set_type(onnx::AttributeProto::FLOAT);
  alpha.set_f(0.5f);
  // attribute_proto = 11 (IR 9), overload = 13 (IR 10).
  std::string bytes = f.SerializeAsString() +
                      lengthField(11, alpha.SerializeAsString()) +
                      lengthField(13, "fast");
  onnx::FunctionProto parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  EXPECT_EQ(overloadOf(parsed), "fast");
  std::vector<onnx::AttributeProto> defaults;
  ImportError err;
  ASSERT_TRUE(functionAttributeDefaults(parsed, defaults, err)) << err.message;
  ASSERT_EQ(defaults.size(), 1u);
  EXPECT_EQ(defaults[0].name(), "alpha");
  EXPECT_EQ(defaults[0].f(), 0.5f);

  // A default that does not parse names the function.
  onnx::FunctionProto bad;
  ASSERT_TRUE(
      bad.ParseFromString(f.SerializeAsString() + lengthField(11, "\xff\xff")));
  EXPECT_FALSE(functionAttributeDefaults(bad, defaults, err));
  EXPECT_EQ(err.message, "function 'local.F' has a default attribute value "
                         "(attribute_proto) that does not parse");
}

//===----------------------------------------------------------------------===//
// External data
//===----------------------------------------------------------------------===//

const std::string kSixteen = rawBytesLE({0x3f800000u, 0x40000000u,
                                         0x40400000u, 0x40800000u});

TEST(ModelLoaderExternal, Valid) {
  TempDir dir;
  dir.write("w.bin", kSixteen);
  TensorValue v;
  ImportError err;
  onnx::TensorProto t = externalTensor("w.bin");
  ASSERT_TRUE(decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err))
      << err.message;
  EXPECT_EQ(bytesOf(v), kSixteen);

  // With offset and length, in a subfolder, via "./".
  ::mkdir(dir.file("sub").c_str(), 0700);
  dir.write("sub/w.bin", "abcd" + kSixteen + "tail");
  t = externalTensor("./sub/w.bin");
  addExternal(t, "offset", "4");
  addExternal(t, "length", "16");
  addExternal(t, "checksum", "ignored");
  ASSERT_TRUE(decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err))
      << err.message;
  EXPECT_EQ(bytesOf(v), kSixteen);

  // "sub/../w.bin" stays inside the folder.
  t = externalTensor("sub/../w.bin");
  ASSERT_TRUE(decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err))
      << err.message;
}

TEST(ModelLoaderExternal, RelativeToCurrentFolderWhenModelDirEmpty) {
  TempDir dir;
  dir.write("w.bin", kSixteen);
  char cwd[4096];
  ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
  ASSERT_EQ(::chdir(dir.path().c_str()), 0);
  TensorValue v;
  ImportError err;
  bool ok = decodeTensor(externalTensor("w.bin"), "", kLimits,
                         "initializer 'w'", v, err);
  ASSERT_EQ(::chdir(cwd), 0);
  EXPECT_TRUE(ok) << err.message;
}

TEST(ModelLoaderExternal, Escapes) {
  TempDir dir;
  ::mkdir(dir.file("m").c_str(), 0700);
  dir.write("x.bin", kSixteen); // exists, but outside dir/m
  std::string modelDir = dir.file("m");
  TensorValue v;
  ImportError err;
  EXPECT_FALSE(decodeTensor(externalTensor("../x.bin"), modelDir, kLimits,
                            "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data location "
                         "'../x.bin', which lies outside the model folder");
  EXPECT_FALSE(decodeTensor(externalTensor("a/../../x.bin"), modelDir, kLimits,
                            "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data location "
                         "'a/../../x.bin', which lies outside the model "
                         "folder");
  std::string abs = dir.file("x.bin");
  EXPECT_FALSE(decodeTensor(externalTensor(abs), modelDir, kLimits,
                            "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data location '" + abs +
                             "', which is an absolute path; external data "
                             "must lie in the model folder");
  // A symlink inside the folder that leads out of it.
  ASSERT_EQ(::symlink(abs.c_str(), dir.file("m/link.bin").c_str()), 0);
  EXPECT_FALSE(decodeTensor(externalTensor("link.bin"), modelDir, kLimits,
                            "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data location "
                         "'link.bin', which lies outside the model folder");
  // A prefix sibling ("m2" is not inside "m").
  ::mkdir(dir.file("m2").c_str(), 0700);
  dir.write("m2/y.bin", kSixteen);
  ASSERT_EQ(::symlink(dir.file("m2/y.bin").c_str(), dir.file("m/y.bin").c_str()),
            0);
  EXPECT_FALSE(decodeTensor(externalTensor("y.bin"), modelDir, kLimits,
                            "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data location "
                         "'y.bin', which lies outside the model folder");
}

TEST(ModelLoaderExternal, FileErrors) {
  TempDir dir;
  TensorValue v;
  ImportError err;
  EXPECT_FALSE(decodeTensor(externalTensor("missing.bin"), dir.path(), kLimits,
                            "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w': cannot open external data file "
                         "'missing.bin': No such file or directory");
  ::mkdir(dir.file("d").c_str(), 0700);
  EXPECT_FALSE(decodeTensor(externalTensor("d"), dir.path(), kLimits,
                            "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w': cannot open external data file "
                         "'d': it is a directory");

  onnx::TensorProto t = externalTensor("");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data without a location");
  t = externalTensor("w.bin");
  t.clear_external_data();
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data without a location");

  t = externalTensor("w.bin");
  t.set_raw_data(kSixteen);
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has both raw_data and external data");
}

TEST(ModelLoaderExternal, RangeErrors) {
  TempDir dir;
  dir.write("w.bin", kSixteen); // 16 bytes
  TensorValue v;
  ImportError err;
  onnx::TensorProto t = externalTensor("w.bin");
  addExternal(t, "offset", "17");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data offset 17 past "
                         "the end of 'w.bin' (16 bytes)");

  t = externalTensor("w.bin");
  addExternal(t, "offset", "8");
  addExternal(t, "length", "16");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data range [8, 24) "
                         "past the end of 'w.bin' (16 bytes)");

  t = externalTensor("w.bin");
  addExternal(t, "offset", "9223372036854775807");
  addExternal(t, "length", "9223372036854775807");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data offset "
                         "9223372036854775807 past the end of 'w.bin' (16 "
                         "bytes)");

  t = externalTensor("w.bin");
  addExternal(t, "length", "12");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has external data length 12; its "
                         "shape [2, 2] of FLOAT needs 16 bytes");

  t = externalTensor("w.bin");
  addExternal(t, "offset", "4");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has 12 bytes of external data in "
                         "'w.bin' from offset 4; its shape [2, 2] of FLOAT "
                         "needs 16 bytes");

  dir.write("big.bin", kSixteen + "more");
  t = externalTensor("big.bin");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has 20 bytes of external data in "
                         "'big.bin' from offset 0 and no length; its shape "
                         "[2, 2] of FLOAT needs 16 bytes");

  t = externalTensor("w.bin");
  addExternal(t, "offset", "-1");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message,
            "initializer 'w' has invalid external data offset '-1'");
  t = externalTensor("w.bin");
  addExternal(t, "length", "99999999999999999999");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message, "initializer 'w' has invalid external data length "
                         "'99999999999999999999'");
  t = externalTensor("w.bin");
  addExternal(t, "location", "w.bin");
  EXPECT_FALSE(
      decodeTensor(t, dir.path(), kLimits, "initializer 'w'", v, err));
  EXPECT_EQ(err.message,
            "initializer 'w' has external data key 'location' twice");
}

//===----------------------------------------------------------------------===//
// describeNode / outerScopeReferences
//===----------------------------------------------------------------------===//

TEST(ModelLoaderGraph, DescribeNode) {
  onnx::NodeProto n;
  n.set_op_type("Relu");
  n.set_name("x");
  EXPECT_EQ(describeNode(n, 3), "node 'x' (Relu, #3)");
  n.clear_name();
  EXPECT_EQ(describeNode(n, 3), "node #3 (Relu)");
  n.set_name(std::string("a\nb", 3));
  EXPECT_EQ(describeNode(n, 0), "node 'a\\x0ab' (Relu, #0)");
  n.set_name(std::string(1000, 'z'));
  EXPECT_EQ(describeNode(n, 0),
            "node '" + std::string(200, 'z') + "...' (Relu, #0)");
}

onnx::GraphProto *addBranch(onnx::NodeProto &n, const std::string &attr) {
  auto *a = n.add_attribute();
  a->set_name(attr);
  a->set_type(onnx::AttributeProto::GRAPH);
  return a->mutable_g();
}

TEST(ModelLoaderGraph, OuterScopeReferences) {
  onnx::NodeProto ifNode;
  ifNode.set_op_type("If");
  ifNode.add_input("cond");
  onnx::GraphProto *then = addBranch(ifNode, "then_branch");
  addNode(*then, "Add", "", {"a", "b_local"}, {"t1"});
  addNode(*then, "Relu", "", {"c_const"}, {"b_local"});
  auto *init = then->add_initializer();
  init->set_name("c_const");
  setTensorType(*then->add_input(), "then_in", onnx::TensorProto::FLOAT, {});
  onnx::NodeProto *inner = addNode(*then, "If", "", {"t1"}, {"t2"});
  onnx::GraphProto *deep = addBranch(*inner, "then_branch");
  addNode(*deep, "Mul", "", {"t1", "d", "then_in", ""}, {"t3"});
  setTensorType(*deep->add_output(), "passthrough", onnx::TensorProto::FLOAT,
                {});
  onnx::GraphProto *els = addBranch(ifNode, "else_branch");
  addNode(*els, "Identity", "", {"e"}, {"o"});
  // GRAPHS attribute.
  auto *gs = ifNode.add_attribute();
  gs->set_name("bodies");
  gs->set_type(onnx::AttributeProto::GRAPHS);
  addNode(*gs->add_graphs(), "Neg", "", {"f"}, {"g_out"});

  std::set<std::string> refs = outerScopeReferences(ifNode);
  EXPECT_EQ(refs,
            (std::set<std::string>{"a", "d", "e", "f", "passthrough"}));

  onnx::NodeProto plain;
  plain.set_op_type("Relu");
  plain.add_input("x");
  EXPECT_TRUE(outerScopeReferences(plain).empty());
}

TEST(ModelLoaderGraph, OuterScopeReferencesDeepNesting) {
  // 5000 nested subgraphs: must not recurse.
  onnx::NodeProto root;
  root.set_op_type("If");
  onnx::NodeProto *n = &root;
  for (int i = 0; i < 5000; ++i) {
    onnx::GraphProto *g = addBranch(*n, "then_branch");
    n = addNode(*g, "If", "", {i == 4999 ? "far" : ""}, {""});
  }
  EXPECT_EQ(outerScopeReferences(root), (std::set<std::string>{"far"}));
}

//===----------------------------------------------------------------------===//
// topologicalOrder
//===----------------------------------------------------------------------===//

std::vector<int> orderOf(const onnx::GraphProto &g,
                         const std::set<std::string> &avail, bool expectOk,
                         ImportError &err) {
  std::vector<int> order;
  bool ok = topologicalOrder(g, avail, order, err);
  EXPECT_EQ(ok, expectOk) << err.message;
  if (!ok) {
    EXPECT_TRUE(order.empty());
  }
  return order;
}

TEST(ModelLoaderTopo, KeepsFileOrderAmongReady) {
  onnx::GraphProto g;
  addNode(g, "Relu", "a", {"x"}, {"a"});
  addNode(g, "Relu", "b", {"x"}, {"b"});
  addNode(g, "Add", "c", {"a", "b"}, {"c"});
  addNode(g, "Relu", "d", {"x"}, {"d"});
  ImportError err;
  EXPECT_EQ(orderOf(g, {"x"}, true, err), (std::vector<int>{0, 1, 2, 3}));
}

TEST(ModelLoaderTopo, ReordersForwardReferences) {
  onnx::GraphProto g;
  addNode(g, "Add", "c", {"a", "b"}, {"c"});
  addNode(g, "Relu", "b", {"a"}, {"b"});
  addNode(g, "Relu", "a", {"x"}, {"a"});
  addNode(g, "Relu", "z", {"x"}, {"z"});
  ImportError err;
  EXPECT_EQ(orderOf(g, {"x"}, true, err), (std::vector<int>{2, 1, 0, 3}));
}

TEST(ModelLoaderTopo, OptionalEmptyNamesIgnored) {
  onnx::GraphProto g;
  addNode(g, "Clip", "c", {"x", "", "m"}, {"y", ""});
  addNode(g, "Dropout", "d", {"y"}, {"z", ""});
  ImportError err;
  EXPECT_EQ(orderOf(g, {"x", "m"}, true, err), (std::vector<int>{0, 1}));
  onnx::GraphProto empty;
  EXPECT_TRUE(orderOf(empty, {}, true, err).empty());
}

TEST(ModelLoaderTopo, UndefinedTensor) {
  onnx::GraphProto g;
  addNode(g, "Relu", "a", {"x"}, {"a"});
  addNode(g, "Relu", "b", {"a"}, {"b"});
  addNode(g, "Relu", "c", {"b"}, {"c"});
  addNode(g, "Relu", "x", {"foo"}, {"d"});
  ImportError err;
  orderOf(g, {"x"}, false, err);
  EXPECT_EQ(err.message, "node 'x' (Relu, #3) uses tensor 'foo' which no "
                         "node, input or initializer defines");
  EXPECT_EQ(err.exitCode, 1);
}

TEST(ModelLoaderTopo, ProducedTwice) {
  onnx::GraphProto g;
  addNode(g, "Relu", "a", {"x"}, {"y"});
  addNode(g, "Neg", "", {"x"}, {"y"});
  ImportError err;
  orderOf(g, {"x"}, false, err);
  EXPECT_EQ(err.message, "tensor 'y' is produced twice: by node 'a' (Relu, "
                         "#0) and node #1 (Neg)");

  onnx::GraphProto g2;
  addNode(g2, "Split", "s", {"x"}, {"y", "y"});
  orderOf(g2, {"x"}, false, err);
  EXPECT_EQ(err.message,
            "tensor 'y' is produced twice by node 's' (Split, #0)");

  onnx::GraphProto g3;
  addNode(g3, "Relu", "r", {"x"}, {"x"});
  orderOf(g3, {"x"}, false, err);
  EXPECT_EQ(err.message, "tensor 'x' is produced by node 'r' (Relu, #0) but "
                         "is already defined as a graph input, initializer "
                         "or outer-scope value");
}

TEST(ModelLoaderTopo, TwoNodeCycle) {
  onnx::GraphProto g;
  addNode(g, "Add", "a", {"x", "b"}, {"a"});
  addNode(g, "Mul", "b", {"a", "x"}, {"b"});
  ImportError err;
  orderOf(g, {"x"}, false, err);
  EXPECT_EQ(err.message, "the graph has a cycle through node 'a' (Add, #0), "
                         "node 'b' (Mul, #1)");
}

TEST(ModelLoaderTopo, SelfLoop) {
  onnx::GraphProto g;
  addNode(g, "Relu", "ok", {"x"}, {"y"});
  addNode(g, "Add", "s", {"y", "s"}, {"s"});
  ImportError err;
  orderOf(g, {"x"}, false, err);
  EXPECT_EQ(err.message, "the graph has a cycle through node 's' (Add, #1)");
}

TEST(ModelLoaderTopo, LongerCycleWithTailAndDownstream) {
  onnx::GraphProto g;
  addNode(g, "Relu", "down", {"c3"}, {"d"});        // #0: after the cycle
  addNode(g, "Relu", "c2", {"c1"}, {"c2"});         // #1
  addNode(g, "Add", "c1", {"x", "c4"}, {"c1"});     // #2
  addNode(g, "Relu", "c3", {"c2"}, {"c3"});         // #3
  addNode(g, "Relu", "c4", {"c3"}, {"c4"});         // #4
  ImportError err;
  orderOf(g, {"x"}, false, err);
  EXPECT_EQ(err.message,
            "the graph has a cycle through node 'c2' (Relu, #1), node 'c3' "
            "(Relu, #3), node 'c4' (Relu, #4), node 'c1' (Add, #2)");
}

TEST(ModelLoaderTopo, VeryLongCycleIsAbbreviated) {
  onnx::GraphProto g;
  const int n = 100000;
  for (int i = 0; i < n; ++i)
    addNode(g, "Relu", "n" + std::to_string(i),
            {"t" + std::to_string((i + n - 1) % n)}, {"t" + std::to_string(i)});
  ImportError err;
  orderOf(g, {}, false, err);
  EXPECT_EQ(err.message,
            "the graph has a cycle through node 'n0' (Relu, #0), node 'n1' "
            "(Relu, #1), node 'n2' (Relu, #2), node 'n3' (Relu, #3), node "
            "'n4' (Relu, #4), node 'n5' (Relu, #5), node 'n6' (Relu, #6), "
            "node 'n7' (Relu, #7) and 99992 more nodes");
}

TEST(ModelLoaderTopo, LongChainIsFastAndIterative) {
  const int n = 200000;
  for (bool reversed : {false, true}) {
    onnx::GraphProto g;
    for (int k = 0; k < n; ++k) {
      int i = reversed ? n - 1 - k : k;
      addNode(g, "Relu", "",
              {i == 0 ? std::string("x") : "t" + std::to_string(i - 1)},
              {"t" + std::to_string(i)});
    }
    auto start = std::chrono::steady_clock::now();
    ImportError err;
    std::vector<int> order = orderOf(g, {"x"}, true, err);
    double secs = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
    ASSERT_EQ(order.size(), size_t(n));
    EXPECT_EQ(order.front(), reversed ? n - 1 : 0);
    EXPECT_EQ(order.back(), reversed ? 0 : n - 1);
    EXPECT_LT(secs, 5.0);
  }
}

TEST(ModelLoaderTopo, SubgraphOuterReferencesAreDependencies) {
  onnx::GraphProto g;
  onnx::NodeProto *ifNode = addNode(g, "If", "if", {"cond"}, {"out"});
  onnx::GraphProto *then = addBranch(*ifNode, "then_branch");
  addNode(*then, "Relu", "", {"late"}, {"r"});
  setTensorType(*then->add_output(), "r", onnx::TensorProto::FLOAT, {});
  addNode(g, "Neg", "late", {"x"}, {"late"});
  ImportError err;
  EXPECT_EQ(orderOf(g, {"x", "cond"}, true, err), (std::vector<int>{1, 0}));

  onnx::GraphProto bad;
  onnx::NodeProto *n2 = addNode(bad, "If", "if", {"cond"}, {"out"});
  addNode(*addBranch(*n2, "then_branch"), "Relu", "", {"nowhere"}, {"r"});
  orderOf(bad, {"cond"}, false, err);
  EXPECT_EQ(err.message, "node 'if' (If, #0) uses tensor 'nowhere' which no "
                         "node, input or initializer defines");
}

//===----------------------------------------------------------------------===//
// Command-line bindings
//===----------------------------------------------------------------------===//

TEST(ModelLoaderBindings, ParseInputShape) {
  InputBindings b;
  ImportError err;
  EXPECT_TRUE(parseInputShape("x=1x3x224x224", b, err));
  EXPECT_EQ(b.inputShapes["x"], (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_TRUE(parseInputShape("s=", b, err));
  EXPECT_TRUE(b.inputShapes["s"].empty());
  EXPECT_TRUE(parseInputShape("t=scalar", b, err));
  EXPECT_TRUE(b.inputShapes["t"].empty());
  EXPECT_TRUE(parseInputShape("z=0x5", b, err));
  EXPECT_EQ(b.inputShapes["z"], (std::vector<int64_t>{0, 5}));
  EXPECT_TRUE(parseInputShape("a=b=7", b, err)); // name "a=b"
  EXPECT_EQ(b.inputShapes["a=b"], (std::vector<int64_t>{7}));

  for (const char *bad :
       {"x", "=1x2", "y=1xfoo", "y=1xx2", "y=-1", "y=1x", "y=x1", "y=1 x2",
        "y=99999999999999999999", "y=1,2"}) {
    InputBindings b2;
    EXPECT_FALSE(parseInputShape(bad, b2, err)) << bad;
    EXPECT_EQ(err.exitCode, 2);
    EXPECT_EQ(err.message, std::string("invalid --input-shape '") + bad +
                               "': expected NAME=D1xD2x... with non-negative "
                               "integer dimensions, or NAME= for a scalar");
  }
  EXPECT_FALSE(parseInputShape("x=2", b, err));
  EXPECT_EQ(err.message, "--input-shape is given twice for input 'x'");
  EXPECT_EQ(err.exitCode, 2);
}

TEST(ModelLoaderBindings, ParseDim) {
  InputBindings b;
  ImportError err;
  EXPECT_TRUE(parseDim("batch=8", b, err));
  EXPECT_EQ(b.dims["batch"], 8);
  for (const char *bad : {"batch", "n=0", "n=-2", "n=", "=3", "n=2x2"}) {
    EXPECT_FALSE(parseDim(bad, b, err)) << bad;
    EXPECT_EQ(err.exitCode, 2);
    EXPECT_EQ(err.message, std::string("invalid --dim '") + bad +
                               "': expected SYMBOL=N with an integer N >= 1");
  }
  EXPECT_FALSE(parseDim("batch=2", b, err));
  EXPECT_EQ(err.message, "--dim is given twice for symbol 'batch'");
  EXPECT_EQ(err.exitCode, 2);
}

TEST(ModelLoaderBindings, ParseInputValue) {
  InputBindings b;
  ImportError err;
  EXPECT_TRUE(parseInputValue("x=1.5", b, err));
  EXPECT_EQ(b.inputValues["x"], "1.5");
  EXPECT_TRUE(parseInputValue("y=1,2, 3,-4e2", b, err));
  EXPECT_EQ(b.inputValues["y"], "1,2, 3,-4e2");
  EXPECT_TRUE(parseInputValue("f=true", b, err));
  for (const char *bad : {"x", "=1", "q=", "q=1,,2", "q=abc", "q=1;2"}) {
    EXPECT_FALSE(parseInputValue(bad, b, err)) << bad;
    EXPECT_EQ(err.exitCode, 2);
    EXPECT_EQ(err.message, std::string("invalid --input-value '") + bad +
                               "': expected NAME=V or NAME=V1,V2,... with "
                               "numbers");
  }
  EXPECT_FALSE(parseInputValue("x=2", b, err));
  EXPECT_EQ(err.message, "--input-value is given twice for input 'x'");
}

onnx::ValueInfoProto symbolicInput() {
  onnx::ValueInfoProto v;
  v.set_name("bytes");
  auto *tt = v.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  tt->mutable_shape()->add_dim()->set_dim_param("unk__214");
  tt->mutable_shape()->add_dim()->set_dim_value(4);
  return v;
}

TEST(ModelLoaderBindings, ResolveStaticAndBound) {
  onnx::ValueInfoProto v;
  setTensorType(v, "x", onnx::TensorProto::FLOAT, {1, 3, 0});
  InputBindings b;
  std::vector<int64_t> shape;
  ImportError err;
  ASSERT_TRUE(resolveInputShape(v, b, kLimits, shape, err)) << err.message;
  EXPECT_EQ(shape, (std::vector<int64_t>{1, 3, 0}));

  onnx::ValueInfoProto s = symbolicInput();
  b.dims["unk__214"] = 7;
  ASSERT_TRUE(resolveInputShape(s, b, kLimits, shape, err)) << err.message;
  EXPECT_EQ(shape, (std::vector<int64_t>{7, 4}));

  b.inputShapes["bytes"] = {9, 4}; // --input-shape wins over --dim
  ASSERT_TRUE(resolveInputShape(s, b, kLimits, shape, err)) << err.message;
  EXPECT_EQ(shape, (std::vector<int64_t>{9, 4}));

  onnx::ValueInfoProto scalar;
  setTensorType(scalar, "s", onnx::TensorProto::INT64, {});
  ASSERT_TRUE(resolveInputShape(scalar, {}, kLimits, shape, err));
  EXPECT_TRUE(shape.empty());
}

TEST(ModelLoaderBindings, ResolveFromSample) {
  InputBindings b;
  std::vector<int64_t> sample = {5, 4};
  std::string sampleErr;
  std::vector<unsigned> asked;
  b.sampleShape = [&](unsigned i, const std::string &name,
                      std::vector<int64_t> &shape, std::string &err) {
    asked.push_back(i);
    EXPECT_EQ(name, "bytes");
    err = sampleErr;
    if (!err.empty())
      return false;
    shape = sample;
    return true;
  };
  std::vector<int64_t> shape;
  ImportError err;
  onnx::ValueInfoProto s = symbolicInput(); // [unk__214, 4]
  ASSERT_TRUE(resolveInputShape(s, b, kLimits, shape, err, 3)) << err.message;
  EXPECT_EQ(shape, (std::vector<int64_t>{5, 4}));
  EXPECT_EQ(asked, (std::vector<unsigned>{3}));

  // The model's fixed dim and --dim must agree with the sample.
  sample = {5, 6};
  EXPECT_FALSE(resolveInputShape(s, b, kLimits, shape, err, 3));
  EXPECT_EQ(err.message, "the sample for input 'bytes' has shape [5, 6] but "
                         "dim 1 is 4");
  sample = {4};
  EXPECT_FALSE(resolveInputShape(s, b, kLimits, shape, err, 3));
  EXPECT_EQ(err.message, "the sample for input 'bytes' has shape [4] but the "
                         "model declares rank 2");
  sampleErr = "cannot open 'x.npy'";
  EXPECT_FALSE(resolveInputShape(s, b, kLimits, shape, err, 3));
  EXPECT_EQ(err.message, "the sample for input 'bytes': cannot open 'x.npy'");

  // --dim and --input-shape come first: the sample is not asked.
  sampleErr.clear();
  asked.clear();
  b.dims["unk__214"] = 2;
  ASSERT_TRUE(resolveInputShape(s, b, kLimits, shape, err, 3)) << err.message;
  EXPECT_EQ(shape, (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(asked.empty());
}

TEST(ModelLoaderBindings, ResolveErrors) {
  InputBindings b;
  std::vector<int64_t> shape;
  ImportError err;
  onnx::ValueInfoProto s = symbolicInput();
  EXPECT_FALSE(resolveInputShape(s, b, kLimits, shape, err));
  EXPECT_EQ(err.message, "input 'bytes' has free dimension 'unk__214' (dim "
                         "0); bind it with --dim unk__214=N or --input-shape "
                         "bytes=...");
  EXPECT_EQ(err.exitCode, 1);

  onnx::ValueInfoProto u = symbolicInput();
  u.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->Clear();
  EXPECT_FALSE(resolveInputShape(u, b, kLimits, shape, err));
  EXPECT_EQ(err.message, "input 'bytes' has an unknown dimension (dim 0); give "
                         "its shape with --input-shape bytes=...");

  onnx::ValueInfoProto noShape;
  noShape.set_name("n");
  noShape.mutable_type()->mutable_tensor_type()->set_elem_type(1);
  EXPECT_FALSE(resolveInputShape(noShape, b, kLimits, shape, err));
  EXPECT_EQ(err.message,
            "input 'n' has no shape; give it with --input-shape n=...");
  b.inputShapes["n"] = {2, 2};
  EXPECT_TRUE(resolveInputShape(noShape, b, kLimits, shape, err));
  EXPECT_EQ(shape, (std::vector<int64_t>{2, 2}));

  onnx::ValueInfoProto neg;
  setTensorType(neg, "g", onnx::TensorProto::FLOAT, {2, -1});
  EXPECT_FALSE(resolveInputShape(neg, b, kLimits, shape, err));
  EXPECT_EQ(err.message, "input 'g' has an unknown dimension (dim 1, written "
                         "as -1); give its shape with --input-shape g=...");
  // -1 is a free dimension: --input-shape gives it (as ONNX Runtime does).
  {
    InputBindings given = b;
    given.inputShapes["g"] = {2, 7};
    ASSERT_TRUE(resolveInputShape(neg, given, kLimits, shape, err))
        << err.message;
    EXPECT_EQ(shape, (std::vector<int64_t>{2, 7}));
    given.inputShapes["g"] = {3, 7};
    EXPECT_FALSE(resolveInputShape(neg, given, kLimits, shape, err));
  }

  onnx::ValueInfoProto huge;
  setTensorType(huge, "h", onnx::TensorProto::FLOAT,
                {int64_t(1) << 62, int64_t(1) << 62});
  EXPECT_FALSE(resolveInputShape(huge, b, kLimits, shape, err));
  EXPECT_EQ(err.message, "input 'h' has shape [4611686018427387904, "
                         "4611686018427387904], more than 2147483648 elements "
                         "(the limit)");

  onnx::ValueInfoProto fixed;
  setTensorType(fixed, "f", onnx::TensorProto::FLOAT, {1, 4});
  b.inputShapes["f"] = {1, 4, 1};
  EXPECT_FALSE(resolveInputShape(fixed, b, kLimits, shape, err));
  EXPECT_EQ(err.message, "--input-shape 'f=1x4x1' has rank 3 but the model "
                         "declares rank 2 for input 'f'");
  EXPECT_EQ(err.exitCode, 2);
  b.inputShapes["f"] = {1, 5};
  EXPECT_FALSE(resolveInputShape(fixed, b, kLimits, shape, err));
  EXPECT_EQ(err.message, "--input-shape 'f=1x5' conflicts with the model: dim "
                         "1 of input 'f' is 4");
  EXPECT_EQ(err.exitCode, 2);

  onnx::ValueInfoProto seq;
  seq.set_name("q");
  seq.mutable_type()->mutable_sequence_type();
  EXPECT_FALSE(resolveInputShape(seq, b, kLimits, shape, err));
  EXPECT_EQ(err.message,
            "input 'q' is not a tensor; Plumb supports tensor inputs only");
}

TEST(ModelLoaderBindings, ResolveInputType) {
  onnx::ValueInfoProto v;
  setTensorType(v, "x", onnx::TensorProto::INT32, {1});
  DType t;
  ImportError err;
  ASSERT_TRUE(resolveInputType(v, t, err));
  EXPECT_EQ(t, DType::I32);
  setTensorType(v, "x", onnx::TensorProto::FLOAT16, {1});
  EXPECT_FALSE(resolveInputType(v, t, err));
  EXPECT_EQ(err.message, "input 'x' has unsupported data type FLOAT16 (Plumb "
                         "supports FLOAT, INT64, INT32 and BOOL)");
  EXPECT_EQ(err.exitCode, 1);
  onnx::ValueInfoProto seq;
  seq.set_name("q");
  seq.mutable_type()->mutable_sequence_type();
  EXPECT_FALSE(resolveInputType(seq, t, err));
  EXPECT_EQ(err.message,
            "input 'q' is not a tensor; Plumb supports tensor inputs only");
  onnx::ValueInfoProto none;
  none.set_name("n");
  EXPECT_FALSE(resolveInputType(none, t, err));
  EXPECT_EQ(err.message, "input 'n' has no type");
}

TEST(ModelLoaderBindings, ConvertInputValue) {
  TensorValue v;
  ImportError err;
  ASSERT_TRUE(convertInputValue("x", "0.1", DType::F32, {2}, v, err))
      << err.message;
  EXPECT_EQ(bytesOf(v), rawBytesLE({0x3dcccccdu, 0x3dcccccdu}));
  EXPECT_EQ(v.shape, (std::vector<int64_t>{2}));

  ASSERT_TRUE(convertInputValue("x", "1, -2,+3", DType::I32, {3}, v, err));
  EXPECT_EQ(bytesOf(v), rawBytesLE({1u, 0xfffffffeu, 3u}));

  ASSERT_TRUE(convertInputValue("x", "-1", DType::I64, {}, v, err));
  EXPECT_EQ(bytesOf(v), std::string(8, '\xff'));

  ASSERT_TRUE(convertInputValue("x", "true,0,false,1", DType::Bool, {2, 2}, v,
                                err));
  EXPECT_EQ(bytesOf(v), std::string("\x01\x00\x00\x01", 4));

  ASSERT_TRUE(convertInputValue("x", "5", DType::F32, {0, 3}, v, err));
  EXPECT_TRUE(v.data.empty());

  EXPECT_FALSE(convertInputValue("x", "1,2,3", DType::F32, {2, 2}, v, err));
  EXPECT_EQ(err.message, "--input-value for 'x' has 3 values; its shape [2, "
                         "2] needs 4 (or one value for all)");
  EXPECT_EQ(err.exitCode, 2);
  EXPECT_FALSE(convertInputValue("x", "3000000000", DType::I32, {}, v, err));
  EXPECT_EQ(err.message,
            "--input-value for 'x': '3000000000' is out of range for INT32");
  EXPECT_FALSE(convertInputValue("x", "1,2.5", DType::I64, {2}, v, err));
  EXPECT_EQ(err.message,
            "--input-value for 'x': value 1: '2.5' is not an integer");
  EXPECT_FALSE(convertInputValue("x", "1e99", DType::F32, {}, v, err));
  EXPECT_EQ(err.message,
            "--input-value for 'x': '1e99' is out of range for FLOAT");
  EXPECT_FALSE(convertInputValue("x", "2", DType::Bool, {}, v, err));
  EXPECT_EQ(err.message, "--input-value for 'x': '2' is not a boolean (0, 1, "
                         "true or false)");
  EXPECT_FALSE(convertInputValue("x", "1", DType::F32,
                                 {int64_t(1) << 40}, v, err));
  EXPECT_EQ(err.message,
            "--input-value for 'x': shape [1099511627776] is too large");
}

} // namespace
