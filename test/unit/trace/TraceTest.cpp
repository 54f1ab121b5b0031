//===- test/unit/trace/TraceTest.cpp - Trace format and recording ---------===//
//
// Part of Plumb. The node hash and run id definitions, the manifest round
// trip and its consistency checks, recording through the interpreter hook,
// kept tensors, and the fault-injection testing aids.
//
//===----------------------------------------------------------------------===//
#include "plumb/Trace/TensorHasher.h"
#include "plumb/Trace/Trace.h"
#include "plumb/Trace/TraceRecorder.h"

#include "plumb/InitAll.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Support/Nodes.h"
#include "plumb/runtime/sha256.h"
#include "plumb/runtime/tensor_hash.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

using namespace plumb;

namespace {

Digest digestOf(const char *s) { return sha256(s, std::strlen(s)); }

TEST(NodeHash, IsTheDocumentedEncoding) {
  Digest a = digestOf("a"), b = digestOf("b");
  std::vector<uint8_t> buf;
  const char tag[] = "plumb-node-v1";
  buf.insert(buf.end(), tag, tag + sizeof(tag) - 1);
  for (uint8_t v : {2, 0, 0, 0})
    buf.push_back(v);
  buf.insert(buf.end(), a.begin(), a.end());
  buf.insert(buf.end(), b.begin(), b.end());
  EXPECT_EQ(trace::nodeHash({a, b}), sha256(buf.data(), buf.size()));
  // A single result is still wrapped: a node hash never equals a tensor hash.
  EXPECT_NE(trace::nodeHash({a}), a);
  // Order and count matter.
  EXPECT_NE(trace::nodeHash({a, b}), trace::nodeHash({b, a}));
  EXPECT_NE(trace::nodeHash({a}), trace::nodeHash({a, a}));
}

class TensorHasher : public ::testing::TestWithParam<trace::Sha256Impl> {
protected:
  void SetUp() override {
    saved = trace::sha256Impl();
    if (!trace::selectSha256(GetParam()))
      GTEST_SKIP() << trace::sha256ImplName(GetParam())
                   << " is not available here";
  }
  void TearDown() override { trace::selectSha256(saved); }
  trace::Sha256Impl saved;
};

// Every implementation this machine and build have.
INSTANTIATE_TEST_SUITE_P(Impls, TensorHasher,
                         ::testing::Values(trace::Sha256Impl::Portable,
                                           trace::Sha256Impl::ShaNi,
                                           trace::Sha256Impl::OpenSSL));

// The default is chosen during static initialisation, when the runtime's
// SHA-NI detection must already answer (it once fell back to OpenSSL when
// the runtime's initialiser had not run yet). Tests restore the default.
TEST(TensorHasherSelect, StartsWithTheFastest) {
  if (plumb_sha256_has_shani())
    EXPECT_EQ(trace::sha256Impl(), trace::Sha256Impl::ShaNi);
  else
    EXPECT_NE(trace::sha256Impl(), trace::Sha256Impl::ShaNi);
}

TEST(TensorHasherSelect, PortableIsAlwaysThere) {
  trace::Sha256Impl saved = trace::sha256Impl();
  EXPECT_TRUE(trace::selectSha256(trace::Sha256Impl::Portable));
  EXPECT_EQ(trace::sha256Impl(), trace::Sha256Impl::Portable);
  EXPECT_TRUE(trace::selectSha256(saved));
  EXPECT_STREQ(trace::sha256ImplName(trace::Sha256Impl::ShaNi), "sha-ni");
}

TEST_P(TensorHasher, Sha256MatchesTheRuntimeOnEveryLength) {
  // Lengths around the block and padding boundaries, fed whole and in
  // uneven pieces.
  std::mt19937 rng(7);
  std::vector<uint8_t> data(5000);
  for (uint8_t &b : data)
    b = (uint8_t)rng();
  for (size_t n : {0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 5000}) {
    Digest want = sha256(data.data(), n);
    trace::Sha256 whole;
    whole.update(data.data(), n);
    EXPECT_EQ(whole.finish(), want) << n;
    trace::Sha256 pieces;
    for (size_t i = 0; i < n;) {
      size_t take = std::min(n - i, (size_t)(rng() % 150));
      pieces.update(data.data() + i, take);
      i += take;
    }
    EXPECT_EQ(pieces.finish(), want) << n;
  }
  // FIPS 180-4's "abc" example.
  trace::Sha256 abc;
  abc.update("abc", 3);
  EXPECT_EQ(toHex(abc.finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// The v2 tensor hash against an independent rendering of its definition
// (docs/trace.md) with the runtime's portable SHA-256 and Support/Merkle:
// the canonical bytes of plumb_rt_tensor_hash (v1), cut into 16 KiB chunks.
static Digest referenceTensorHashV2(const exec::Tensor &t) {
  std::vector<uint8_t> enc;
  int64_t n = t.numElements();
  if (t.type == exec::ElemType::F32) {
    for (int64_t i = 0; i < n; ++i) {
      uint32_t v;
      std::memcpy(&v, t.as<float>() + i, 4);
      if ((v & 0x7F800000u) == 0x7F800000u && (v & 0x007FFFFFu))
        v = 0x7FC00000u;
      for (int b = 0; b < 4; ++b)
        enc.push_back((uint8_t)(v >> (8 * b)));
    }
  } else if (t.type == exec::ElemType::Bool) {
    for (int64_t i = 0; i < n; ++i)
      enc.push_back(t.as<uint8_t>()[i] ? 1 : 0);
  } else {
    auto *p = static_cast<const uint8_t *>(t.raw());
    enc.assign(p, p + t.byteSize());
  }
  std::vector<Digest> leaves;
  for (size_t i = 0; i < enc.size(); i += 16384)
    leaves.push_back(sha256(enc.data() + i, std::min<size_t>(16384, enc.size() - i)));
  Digest root = merkleRoot(leaves);
  std::vector<uint8_t> msg;
  const char tag[] = "plumb-tensor-v2";
  msg.insert(msg.end(), tag, tag + 15);
  msg.push_back((uint8_t)t.type);
  msg.push_back((uint8_t)t.shape.size());
  for (int64_t d : t.shape)
    for (int b = 0; b < 8; ++b)
      msg.push_back((uint8_t)((uint64_t)d >> (8 * b)));
  msg.insert(msg.end(), root.begin(), root.end());
  // The v1 hash is SHA-256 over the same canonical bytes under its own tag.
  std::vector<uint8_t> v1(tag, tag + 15);
  v1[14] = '1';
  v1.push_back((uint8_t)t.type);
  v1.push_back((uint8_t)t.shape.size());
  v1.insert(v1.end(), msg.begin() + 17, msg.end() - 32);
  v1.insert(v1.end(), enc.begin(), enc.end());
  Digest wantV1;
  plumb_rt_tensor_hash((int32_t)t.type, (int32_t)t.shape.size(),
                       t.shape.data(), t.raw(), wantV1.data());
  EXPECT_EQ(sha256(v1.data(), v1.size()), wantV1) << t.describe();
  return sha256(msg.data(), msg.size());
}

TEST_P(TensorHasher, MatchesTheChunkedDefinition) {
  std::mt19937 rng(11);
  for (int32_t dtype : {1, 2, 3, 4})
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{}, {0}, {3}, {2, 2049}, {5000}, {1, 3, 7, 11},
          {3, 4096}, {4096}, {4097}, {70001}, {5, 0, 3}}) {
      exec::Tensor t = exec::Tensor::make((exec::ElemType)dtype, shape);
      auto *bytes = static_cast<uint8_t *>(t.raw());
      for (size_t i = 0; i < t.byteSize(); ++i)
        bytes[i] = (uint8_t)rng();
      if (dtype == 1 && t.numElements() > 4100) {
        uint32_t nan = 0xFFF00001u; // non-canonical NaNs, in two chunks
        std::memcpy(t.as<float>() + 1, &nan, 4);
        std::memcpy(t.as<float>() + 4099, &nan, 4);
      }
      EXPECT_EQ(trace::tensorHash(t), referenceTensorHashV2(t))
          << "dtype " << dtype << " " << t.describe();
      // Chunk digests, the chunk root and the header compose to the hash.
      std::vector<Digest> chunks = trace::chunkDigests(t);
      EXPECT_EQ(chunks.size(),
                (t.byteSize() + trace::kChunkBytes - 1) / trace::kChunkBytes);
      EXPECT_EQ(trace::chunkRoot(chunks), merkleRoot(chunks));
      EXPECT_EQ(trace::tensorHashFromRoot(dtype, (int32_t)shape.size(),
                                          shape.data(), trace::chunkRoot(chunks)),
                trace::tensorHash(t));
    }
  // A NaN's payload does not change the hash; its chunk is canonical.
  exec::Tensor a = exec::Tensor::make(exec::ElemType::F32, {9000});
  for (int i = 0; i < 9000; ++i)
    a.as<float>()[i] = (float)i;
  exec::Tensor b = a;
  uint32_t n1 = 0x7FC00000u, n2 = 0xFF812345u;
  std::memcpy(a.as<float>() + 8000, &n1, 4);
  std::memcpy(b.as<float>() + 8000, &n2, 4);
  EXPECT_EQ(trace::tensorHash(a), trace::tensorHash(b));
  EXPECT_EQ(trace::chunkDigests(a)[1], trace::chunkDigests(b)[1]);
}

// Batches mix tensors, dtypes, full and short chunks, chunks needing their
// canonical encoding (non-canonical NaNs, bools), in every group size around
// the multi-lane width; each digest equals the reference SHA-256 of the
// chunk's canonical bytes, with and without the multi-lane code.
TEST_P(TensorHasher, ChunkBatchesMatchSingleChunks) {
  std::mt19937 rng(23);
  std::vector<exec::Tensor> ts;
  for (auto [dtype, n] : std::vector<std::pair<int32_t, int64_t>>{
           {1, 4096 * 21 + 5}, {1, 4096 * 3}, {2, 2048 * 17}, {3, 4096 * 2 + 1},
           {4, 16384 * 5 + 7}, {1, 100}})
    ts.push_back(exec::Tensor::make((exec::ElemType)dtype, {n}));
  for (exec::Tensor &t : ts) {
    auto *b = static_cast<uint8_t *>(t.raw());
    for (size_t i = 0; i < t.byteSize(); ++i)
      b[i] = (uint8_t)rng();
  }
  uint32_t nan = 0xFF812345u; // non-canonical NaNs in chunks 0, 7 and 20
  for (int64_t at : {3, 4096 * 7 + 9, 4096 * 20 + 4095})
    std::memcpy(ts[0].as<float>() + at, &nan, 4);
  // Random words are NaNs one time in 256, so nearly every chunk above has
  // some. Here finite floats, with a non-canonical NaN in chunks 2 and 11
  // only and the canonical one in chunk 5 (hashed as stored), and int32
  // words that read as NaNs (never canonicalised): the multi-lane code
  // finds NaNs while hashing and re-hashes only those lanes.
  exec::Tensor finite = exec::Tensor::make(exec::ElemType::F32, {4096 * 20});
  std::uniform_real_distribution<float> real(-1e3f, 1e3f);
  for (int64_t i = 0; i < finite.numElements(); ++i)
    finite.as<float>()[i] = real(rng);
  uint32_t canonical = 0x7FC00000u, quiet = 0x7FC00001u;
  std::memcpy(finite.as<float>() + 4096 * 2 + 17, &nan, 4);
  std::memcpy(finite.as<float>() + 4096 * 11 + 4095, &quiet, 4);
  std::memcpy(finite.as<float>() + 4096 * 5, &canonical, 4);
  ts.push_back(finite);
  exec::Tensor words = exec::Tensor::make(exec::ElemType::I32, {4096 * 17});
  for (int64_t i = 0; i < words.numElements(); ++i)
    words.as<int32_t>()[i] = (int32_t)(i % 3 ? 0xFF812345u : 0x7F800001u);
  ts.push_back(words);
  std::vector<std::pair<size_t, size_t>> all; // (tensor, chunk)
  for (size_t k = 0; k < ts.size(); ++k)
    for (size_t c = 0; c < trace::numChunks((int32_t)ts[k].type,
                                            ts[k].numElements());
         ++c)
      all.push_back({k, c});
  std::shuffle(all.begin(), all.end(), rng);
  bool savedLanes = trace::multiLaneSha256();
  for (bool lanes : {false, true}) {
    if (!trace::selectMultiLaneSha256(lanes))
      continue; // no AVX-512 here
    for (size_t group : {1, 8, 9, 15, 16, 17, 33, 200}) {
      std::vector<Digest> got(all.size());
      std::vector<trace::ChunkTask> tasks(all.size());
      for (size_t i = 0; i < all.size(); ++i) {
        const exec::Tensor &t = ts[all[i].first];
        tasks[i] = {(int32_t)t.type, t.raw(), t.numElements(), all[i].second,
                    &got[i]};
      }
      trace::Sha256 h;
      for (size_t i = 0; i < all.size(); i += group)
        trace::chunkDigestBatch(h, tasks.data() + i,
                                std::min(group, all.size() - i));
      for (size_t i = 0; i < all.size(); ++i) {
        const exec::Tensor &t = ts[all[i].first];
        int64_t first, count;
        trace::chunkRange((int32_t)t.type, t.numElements(), all[i].second,
                          first, count);
        size_t es = trace::elemBytesOf((int32_t)t.type);
        std::vector<uint8_t> enc((size_t)count * es);
        trace::encodeElements((int32_t)t.type, t.raw(), first, count,
                              enc.data());
        ASSERT_EQ(got[i], sha256(enc.data(), enc.size()))
            << "lanes " << lanes << " group " << group << " tensor "
            << all[i].first << " chunk " << all[i].second;
      }
    }
  }
  trace::selectMultiLaneSha256(savedLanes);
}

TEST_P(TensorHasher, FastMerkleVerifyAgrees) {
  for (size_t n = 1; n <= 21; ++n) {
    std::vector<Digest> items;
    for (size_t i = 0; i < n; ++i)
      items.push_back(digestOf(("item" + std::to_string(i)).c_str()));
    Digest root = merkleRoot(items);
    for (size_t i = 0; i < n; ++i) {
      std::vector<Digest> proof = merkleProof(items, i);
      EXPECT_TRUE(trace::merkleVerifyFast(root, n, i, items[i], proof));
      EXPECT_FALSE(trace::merkleVerifyFast(root, n, i, items[(i + 1) % n],
                                           proof) && n > 1);
      if (!proof.empty()) {
        proof.back()[3] ^= 1;
        EXPECT_FALSE(trace::merkleVerifyFast(root, n, i, items[i], proof));
      }
    }
  }
}

TEST(RunIdentity, BindsGraphInputsAndRoot) {
  Digest g = digestOf("g"), i = digestOf("i"), r = digestOf("r");
  Digest id = trace::runIdentity(g, {i}, 5, r);
  EXPECT_NE(id, trace::runIdentity(digestOf("h"), {i}, 5, r));
  EXPECT_NE(id, trace::runIdentity(g, {digestOf("j")}, 5, r));
  EXPECT_NE(id, trace::runIdentity(g, {i}, 6, r));
  EXPECT_NE(id, trace::runIdentity(g, {i}, 5, digestOf("s")));
  EXPECT_NE(id, trace::runIdentity(g, {i, i}, 5, r));
}

trace::Trace sampleTrace() {
  trace::Trace t;
  t.contract = "plumb-det-v1";
  t.graphHash = digestOf("graph");
  trace::InputRecord in;
  in.name = "x \"quoted\"";
  in.shape = {1, 3};
  in.hash = digestOf("input");
  t.inputs.push_back(in);
  for (int i = 0; i < 5; ++i) {
    trace::NodeRecord n;
    n.index = i;
    n.id = digestOf(("id" + std::to_string(i)).c_str());
    n.op = i == 2 ? "plumb.split" : "plumb.add";
    n.results.push_back(digestOf(("r" + std::to_string(i)).c_str()));
    if (i == 2)
      n.results.push_back(digestOf("r2b"));
    t.nodes.push_back(n);
  }
  t.runMs = 1.5;
  t.note = "inject-fault node=1,bit=3";
  trace::sealTrace(t);
  return t;
}

TEST(Manifest, RoundTrips) {
  trace::Trace t = sampleTrace();
  EXPECT_EQ(t.root, merkleRoot(t.nodeHashes()));
  trace::Trace back;
  std::string err;
  ASSERT_TRUE(trace::traceFromJson(trace::traceToJson(t), back, err)) << err;
  EXPECT_EQ(back.root, t.root);
  EXPECT_EQ(back.runId, t.runId);
  EXPECT_EQ(back.graphHash, t.graphHash);
  ASSERT_EQ(back.inputs.size(), 1u);
  EXPECT_EQ(back.inputs[0].name, "x \"quoted\"");
  EXPECT_EQ(back.inputs[0].shape, (std::vector<int64_t>{1, 3}));
  ASSERT_EQ(back.nodes.size(), 5u);
  EXPECT_EQ(back.nodes[2].results.size(), 2u);
  EXPECT_EQ(back.nodes[2].op, "plumb.split");
  EXPECT_EQ(back.note, t.note);
  // The encoding is deterministic: writing it again gives the same bytes.
  EXPECT_EQ(trace::traceToJson(back), trace::traceToJson(t));
}

std::string replaceFirst(std::string s, const std::string &from,
                         const std::string &to) {
  size_t p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos)
    s.replace(p, from.size(), to);
  return s;
}

TEST(Manifest, RejectsTampering) {
  trace::Trace t = sampleTrace();
  std::string json = trace::traceToJson(t), err;
  trace::Trace out;
  // A changed result hash no longer makes its node hash.
  std::string r1 = toHex(t.nodes[1].results[0]);
  EXPECT_FALSE(trace::traceFromJson(
      replaceFirst(json, "[\"" + r1, "[\"" + toHex(digestOf("x"))), out, err));
  EXPECT_NE(err.find("node 1: 'hash' is not the node hash"), std::string::npos)
      << err;
  // A consistent change of a node (results and hash) breaks the root.
  std::string tampered = replaceFirst(json, r1, toHex(digestOf("x")));
  tampered = replaceFirst(tampered, toHex(t.nodes[1].hash),
                          toHex(trace::nodeHash({digestOf("x")})));
  EXPECT_FALSE(trace::traceFromJson(tampered, out, err));
  EXPECT_NE(err.find("'root' is not the Merkle root"), std::string::npos) << err;
  // Another input changes the run id.
  EXPECT_FALSE(trace::traceFromJson(
      replaceFirst(json, toHex(t.inputs[0].hash), toHex(digestOf("y"))), out,
      err));
  EXPECT_NE(err.find("'run_id'"), std::string::npos) << err;
  EXPECT_FALSE(trace::traceFromJson(
      replaceFirst(json, "\"version\": 2", "\"version\": 1"), out, err));
  EXPECT_NE(err.find("unsupported trace version 1"), std::string::npos) << err;
  EXPECT_FALSE(trace::traceFromJson(
      replaceFirst(json, "plumb-trace", "other"), out, err));
  EXPECT_FALSE(trace::traceFromJson("{", out, err));
  EXPECT_NE(err.find("not JSON"), std::string::npos);
  EXPECT_FALSE(trace::traceFromJson(
      replaceFirst(json, "\"num_nodes\": 5", "\"num_nodes\": 4"), out, err));
  EXPECT_NE(err.find("'num_nodes' is 4"), std::string::npos) << err;
}

TEST(FaultSpecs, Parse) {
  trace::BitFlip f;
  std::string err;
  ASSERT_TRUE(trace::parseBitFlip("node=7,bit=31", f, err)) << err;
  EXPECT_EQ(f.node, 7);
  EXPECT_EQ(f.bit, 31);
  ASSERT_TRUE(trace::parseBitFlip("bit=2,node=0", f, err));
  EXPECT_EQ(f.node, 0);
  EXPECT_EQ(f.bit, 2);
  for (const char *bad : {"", "node=1", "node=1,bit=", "node=-1,bit=2",
                          "node=1,bit=2,x=3", "node=a,bit=1", "node=1;bit=2"})
    EXPECT_FALSE(trace::parseBitFlip(bad, f, err)) << bad;
  trace::TreeOverride o;
  ASSERT_TRUE(trace::parseTreeOverride("node=3,block=0", o, err));
  EXPECT_EQ(o.node, 3);
  EXPECT_EQ(o.block, 0);
  EXPECT_FALSE(trace::parseTreeOverride("node=3,bit=0", o, err));
}

TEST(FaultSpecs, FlipBit) {
  std::string err;
  exec::Tensor f = exec::Tensor::make(exec::ElemType::F32, {2});
  f.as<float>()[0] = 1.0f;
  f.as<float>()[1] = 1.0f;
  ASSERT_TRUE(trace::flipBit(f, 31, err));
  EXPECT_EQ(f.as<float>()[0], -1.0f);
  EXPECT_EQ(f.as<float>()[1], 1.0f); // only the first element
  ASSERT_TRUE(trace::flipBit(f, 0, err));
  uint32_t bits;
  std::memcpy(&bits, f.as<float>(), 4);
  EXPECT_EQ(bits, 0xBF800001u);
  EXPECT_FALSE(trace::flipBit(f, 32, err));
  EXPECT_NE(err.find("0 to 31"), std::string::npos) << err;

  exec::Tensor i = exec::Tensor::make(exec::ElemType::I64, {1});
  i.as<int64_t>()[0] = 0;
  ASSERT_TRUE(trace::flipBit(i, 63, err));
  EXPECT_EQ(i.as<int64_t>()[0], INT64_MIN);

  exec::Tensor b = exec::Tensor::make(exec::ElemType::Bool, {1});
  b.as<uint8_t>()[0] = 1;
  ASSERT_TRUE(trace::flipBit(b, 0, err));
  EXPECT_EQ(b.as<uint8_t>()[0], 0);
  EXPECT_FALSE(trace::flipBit(b, 1, err));

  exec::Tensor empty = exec::Tensor::make(exec::ElemType::F32, {0});
  EXPECT_FALSE(trace::flipBit(empty, 0, err));
  EXPECT_NE(err.find("no elements"), std::string::npos);
}

/// The small test program, its inputs, and a recorded run of it.
struct SmallRun : ::testing::Test {
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<exec::Tensor> inputs;
  std::string dir;

  void SetUp() override {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    module = mlir::parseSourceFile<mlir::ModuleOp>(PLUMB_TEST_SMALL_MLIR, &ctx);
    ASSERT_TRUE(module);
    exec::Tensor x = exec::Tensor::make(exec::ElemType::F32, {2, 8});
    for (int i = 0; i < 16; ++i)
      x.as<float>()[i] = 0.125f * (float)((i * 7) % 11) - 0.5f;
    exec::Tensor c = exec::Tensor::make(exec::ElemType::Bool, {});
    c.as<uint8_t>()[0] = 1;
    inputs = {x, c};
    llvm::SmallString<128> tmp;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("plumb-trace-test", tmp));
    dir = std::string(tmp) + "/t";
  }
  void TearDown() override {
    llvm::sys::fs::remove_directories(llvm::sys::path::parent_path(dir));
  }

  bool record(const std::string &d, bool keep, trace::Trace &out,
              std::vector<exec::Tensor> *outputs = nullptr) {
    trace::TraceRecorder rec(d, keep);
    std::string err;
    EXPECT_TRUE(rec.begin(*module, inputs, err)) << err;
    auto main = getMainFunc(*module);
    auto index = trace::nodeIndexMap(main);
    std::vector<exec::Tensor> outs;
    auto hook = [&](mlir::Operation *op, std::vector<exec::Tensor> &results) {
      auto it = index.find(op);
      if (it != index.end())
        rec.recordNode(it->second, results);
    };
    EXPECT_TRUE(exec::runFunctionWithHook(main, inputs, outs, err, hook)) << err;
    if (outputs)
      *outputs = outs;
    bool ok = rec.finish(1.0, "", err);
    EXPECT_TRUE(ok) << err;
    out = rec.trace();
    return ok;
  }
};

TEST_F(SmallRun, RecordsEveryNodeInCanonicalOrder) {
  trace::Trace t;
  std::vector<exec::Tensor> outs;
  ASSERT_TRUE(record("", false, t, &outs));
  auto main = getMainFunc(*module);
  std::vector<mlir::Operation *> nodes = graphNodes(main);
  ASSERT_EQ(t.nodes.size(), nodes.size());
  ASSERT_EQ(t.nodes.size(), 6u); // matmul relu split reduce_sum add if
  EXPECT_EQ(t.nodes[2].op, "plumb.split");
  EXPECT_EQ(t.nodes[2].results.size(), 2u);
  EXPECT_EQ(t.nodes[5].op, "plumb.if");
  // The last nodes produce the outputs: their trace hashes are those of the
  // outputs.
  EXPECT_EQ(t.nodes[4].results[0], trace::tensorHash(outs[0]));
  EXPECT_EQ(t.nodes[5].results[0], trace::tensorHash(outs[1]));
  EXPECT_EQ(t.inputs[0].hash, trace::tensorHash(inputs[0]));
  EXPECT_EQ(t.inputs[0].name, "x");
  EXPECT_EQ(t.root, merkleRoot(t.nodeHashes()));
  // Recording is deterministic.
  trace::Trace again;
  ASSERT_TRUE(record("", false, again));
  EXPECT_EQ(again.runId, t.runId);
}

TEST_F(SmallRun, WritesReadsAndKeepsTensors) {
  trace::Trace t;
  ASSERT_TRUE(record(dir, true, t));
  trace::Trace back;
  std::string err;
  ASSERT_TRUE(trace::readTrace(dir, back, err)) << err;
  EXPECT_EQ(back.root, t.root);
  EXPECT_TRUE(back.hasTensors);
  exec::Tensor r;
  ASSERT_TRUE(trace::loadNodeTensor(dir, back, 2, 1, r, err)) << err;
  EXPECT_EQ(r.shape, (std::vector<int64_t>{2, 3}));
  ASSERT_TRUE(trace::loadInputTensor(dir, back, 1, r, err)) << err;
  EXPECT_EQ(r.type, exec::ElemType::Bool);
  EXPECT_FALSE(trace::loadNodeTensor(dir, back, 2, 2, r, err));
  // A kept tensor that does not match its hash is refused.
  std::string other = trace::nodeTensorPath(dir, 0, 0);
  ASSERT_FALSE(llvm::sys::fs::copy_file(trace::nodeTensorPath(dir, 1, 0), other));
  EXPECT_FALSE(trace::loadNodeTensor(dir, back, 0, 0, r, err));
  EXPECT_NE(err.find("does not match the hash"), std::string::npos) << err;
  // Re-recording without tensors replaces the folder's tensors.
  ASSERT_TRUE(record(dir, false, t));
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/tensors"));
  ASSERT_TRUE(trace::readTrace(dir, back, err));
  EXPECT_FALSE(trace::loadNodeTensor(dir, back, 0, 0, r, err));
  EXPECT_NE(err.find("--keep-tensors"), std::string::npos);
}

TEST_F(SmallRun, RefusesForeignFolders) {
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir));
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(dir + "/precious.txt", ec);
  }
  trace::TraceRecorder rec(dir, true);
  std::string err;
  EXPECT_FALSE(rec.begin(*module, inputs, err));
  EXPECT_NE(err.find("not a trace folder"), std::string::npos) << err;
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/precious.txt"));
}

TEST_F(SmallRun, ReportsMissingAndOutOfOrderNodes) {
  trace::TraceRecorder rec("", false);
  std::string err;
  ASSERT_TRUE(rec.begin(*module, inputs, err));
  rec.recordNode(1, {inputs[0]});
  EXPECT_FALSE(rec.finish(0, "", err));
  EXPECT_NE(err.find("node 1 reported out of order"), std::string::npos) << err;
  trace::TraceRecorder rec2("", false);
  ASSERT_TRUE(rec2.begin(*module, inputs, err));
  rec2.recordNode(0, {inputs[0]});
  EXPECT_FALSE(rec2.finish(0, "", err));
  EXPECT_NE(err.find("reported 1 of 6 nodes"), std::string::npos) << err;
}

TEST_F(SmallRun, ChunkFileHoldsEveryResultsChunkDigests) {
  trace::Trace t;
  std::vector<exec::Tensor> outs;
  ASSERT_TRUE(record(dir, true, t, &outs));
  trace::Trace back;
  std::string err;
  ASSERT_TRUE(trace::readTrace(dir, back, err)) << err;
  ASSERT_TRUE(trace::readChunkFile(dir, back, err)) << err;
  for (size_t k = 0; k < back.nodes.size(); ++k)
    for (size_t r = 0; r < back.nodes[k].results.size(); ++r) {
      exec::Tensor x;
      ASSERT_TRUE(trace::loadNodeTensor(dir, back, k, r, x, err)) << err;
      EXPECT_EQ(back.nodes[k].resultChunks[r], trace::chunkDigests(x));
      EXPECT_EQ(back.nodes[k].resultShapes[r], x.shape);
    }
  // A digest that does not give the recorded hash is refused.
  std::string path = trace::chunksPath(dir);
  auto buf = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(buf));
  std::string data = (*buf)->getBuffer().str();
  data[data.size() - 1] ^= 1;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << data;
  }
  EXPECT_FALSE(trace::readChunkFile(dir, back, err));
  EXPECT_NE(err.find("do not give the result hash"), std::string::npos) << err;
}

TEST_F(SmallRun, BackgroundHashingGivesTheSameTrace) {
  trace::Trace inHook;
  ASSERT_TRUE(record("", false, inHook));
  for (bool lent : {false, true}) {
    trace::TraceRecorder rec("", false);
    rec.setHashThreads(3);
    std::string err;
    ASSERT_TRUE(rec.begin(*module, inputs, err));
    auto main = getMainFunc(*module);
    auto index = trace::nodeIndexMap(main);
    std::vector<exec::Tensor> outs;
    auto hook = [&](mlir::Operation *op, std::vector<exec::Tensor> &results) {
      auto it = index.find(op);
      if (it != index.end())
        rec.recordNode(it->second, results, lent);
    };
    ASSERT_TRUE(exec::runFunctionWithHook(main, inputs, outs, err, hook,
                                          [&] { rec.drain(); }));
    ASSERT_TRUE(rec.finish(0, "", err)) << err;
    EXPECT_EQ(rec.trace().root, inHook.root) << "lent " << lent;
    // This program's results are all small: copies are hashed in the hook,
    // lent ones handed to the hash threads (one chunk each).
    if (!lent)
      EXPECT_EQ(rec.backgroundHashSeconds(), 0.0);
    else
      EXPECT_GT(rec.backgroundHashSeconds(), 0.0);
  }
}

// Lent results of one chunk go through the pool's lock-free ring (1024
// cells): thousands of them in one run (the ring wraps, and fills when the
// hash threads fall behind: the hook then hashes them itself), mixed with
// multi-chunk results, empty ones, every dtype and ranks 0 to 9 (above 8:
// never through the ring), give the hashes of hashing each alone.
TEST_F(SmallRun, OneChunkResultsThroughTheRing) {
  std::mt19937 rng(11);
  std::vector<std::vector<exec::Tensor>> results(6);
  for (int k = 0; k < 6; ++k)
    for (int r = 0; r < 900; ++r) {
      exec::ElemType type = (exec::ElemType)(1 + rng() % 4);
      int rank = r % 10;
      std::vector<int64_t> shape(rank, 1);
      int64_t elems = r % 97 == 0 ? 0
                      : r % 50 == 0 ? 9000 // several chunks
                                    : 1 + (int64_t)(rng() % 2048);
      if (rank)
        shape[0] = elems;
      else
        elems = 1;
      exec::Tensor t = exec::Tensor::make(type, shape);
      auto *bytes = static_cast<uint8_t *>(t.raw());
      for (size_t i = 0; i < t.byteSize(); ++i)
        bytes[i] = type == exec::ElemType::Bool ? (uint8_t)(rng() & 1)
                                                : (uint8_t)rng();
      results[k].push_back(std::move(t));
    }
  for (unsigned threads : {1u, 2u, 3u}) {
    trace::TraceRecorder rec("", false);
    rec.setHashThreads(threads);
    std::string err;
    ASSERT_TRUE(rec.begin(*module, inputs, err));
    for (int k = 0; k < 6; ++k) {
      rec.recordNode(k, results[k], /*lent=*/true);
      if (k == 3)
        rec.waitHashed(2); // a fence in between
    }
    ASSERT_TRUE(rec.finish(0, "", err)) << err;
    for (int k = 0; k < 6; ++k) {
      const trace::NodeRecord &n = rec.trace().nodes[k];
      ASSERT_EQ(n.results.size(), results[k].size());
      for (size_t r = 0; r < results[k].size(); ++r) {
        ASSERT_EQ(n.results[r], trace::tensorHash(results[k][r]))
            << "threads " << threads << " node " << k << " result " << r;
        ASSERT_EQ(n.resultChunks[r], trace::chunkDigests(results[k][r]))
            << "threads " << threads << " node " << k << " result " << r;
      }
    }
  }
}

// One recorder records run after run (a solver's loop, `plumb run
// --repeat`): each run starts afresh from the node table of the first, and
// different inputs give that run's trace.
TEST_F(SmallRun, OneRecorderRecordsRunAfterRun) {
  trace::Trace first;
  ASSERT_TRUE(record("", false, first));
  trace::TraceRecorder rec("", false);
  rec.setHashThreads(1);
  auto main = getMainFunc(*module);
  auto index = trace::nodeIndexMap(main);
  std::vector<exec::Tensor> original = inputs;
  for (int run = 0; run < 3; ++run) {
    inputs = original;
    if (run == 1)
      inputs[0].as<float>()[3] = 2.0f;
    std::string err;
    ASSERT_TRUE(rec.begin(*module, inputs, err)) << err;
    std::vector<exec::Tensor> outs;
    auto hook = [&](mlir::Operation *op, std::vector<exec::Tensor> &results) {
      auto it = index.find(op);
      if (it != index.end())
        rec.recordNode(it->second, results, /*lent=*/true);
    };
    ASSERT_TRUE(exec::runFunctionWithHook(main, inputs, outs, err, hook,
                                          [&] { rec.drain(); }));
    ASSERT_TRUE(rec.finish(0, "", err)) << err;
    const trace::Trace &t = rec.trace();
    EXPECT_EQ(t.graphHash, first.graphHash);
    ASSERT_EQ(t.nodes.size(), first.nodes.size());
    for (size_t k = 0; k < t.nodes.size(); ++k) {
      EXPECT_EQ(t.nodes[k].id, first.nodes[k].id);
      if (run != 1) {
        EXPECT_EQ(t.nodes[k].hash, first.nodes[k].hash) << "run " << run;
      }
    }
    if (run == 1)
      EXPECT_NE(t.root, first.root);
    else
      EXPECT_EQ(t.root, first.root) << "run " << run;
  }
  inputs = original;
}

// Large results are hashed chunk by chunk on every thread (work stealing):
// any thread count, lent or copied, gives the serial hashes.
TEST_F(SmallRun, ChunkedBackgroundHashingOfLargeResults) {
  std::mt19937 rng(5);
  std::vector<std::vector<exec::Tensor>> results;
  for (int k = 0; k < 6; ++k) {
    std::vector<exec::Tensor> rs;
    int count = k == 2 ? 2 : 1; // the split node has two results
    for (int r = 0; r < count; ++r) {
      exec::ElemType type = (k + r) % 3 == 0   ? exec::ElemType::F32
                            : (k + r) % 3 == 1 ? exec::ElemType::I64
                                               : exec::ElemType::Bool;
      // 1 to 30 chunks, rarely a multiple of the chunk size.
      exec::Tensor t =
          exec::Tensor::make(type, {(int64_t)(3 + k), (int64_t)(5000 * k + 77)});
      auto *bytes = static_cast<uint8_t *>(t.raw());
      for (size_t i = 0; i < t.byteSize(); ++i)
        bytes[i] = (uint8_t)rng();
      rs.push_back(std::move(t));
    }
    results.push_back(std::move(rs));
  }
  for (unsigned threads : {0u, 1u, 2u, 4u})
    for (bool lent : {false, true}) {
      trace::TraceRecorder rec("", false);
      rec.setHashThreads(threads);
      std::string err;
      ASSERT_TRUE(rec.begin(*module, inputs, err));
      for (int k = 0; k < 6; ++k)
        rec.recordNode(k, results[k], lent);
      ASSERT_TRUE(rec.finish(0, "", err)) << err;
      for (int k = 0; k < 6; ++k)
        for (size_t r = 0; r < results[k].size(); ++r)
          EXPECT_EQ(rec.trace().nodes[k].results[r],
                    referenceTensorHashV2(results[k][r]))
              << "threads " << threads << " lent " << lent << " node " << k;
      if (threads) {
        EXPECT_GT(rec.backgroundHashSeconds(), 0.0);
      }
      // The same recorder again (it keeps its node records), each node now
      // reporting another node's results: other counts, sizes and dtypes.
      ASSERT_TRUE(rec.begin(*module, inputs, err));
      for (int k = 0; k < 6; ++k)
        rec.recordNode(k, results[(k + 3) % 6], lent);
      ASSERT_TRUE(rec.finish(0, "", err)) << err;
      for (int k = 0; k < 6; ++k) {
        const auto &rs = results[(k + 3) % 6];
        const trace::NodeRecord &n = rec.trace().nodes[k];
        ASSERT_EQ(n.results.size(), rs.size());
        ASSERT_EQ(n.resultChunks.size(), rs.size());
        for (size_t r = 0; r < rs.size(); ++r) {
          EXPECT_EQ(n.results[r], referenceTensorHashV2(rs[r]))
              << "again: threads " << threads << " lent " << lent << " node " << k;
          EXPECT_EQ(n.resultShapes[r], rs[r].shape);
          EXPECT_EQ(n.resultChunks[r], trace::chunkDigests(rs[r]));
        }
      }
    }
}

// The fence of traced compiled runs: once waitHashed(k) returned, the
// results of nodes up to k may be overwritten (the run reuses their
// buffers) and the trace still holds the hashes of what they were.
TEST_F(SmallRun, WaitHashedReleasesLentResults) {
  std::mt19937 rng(9);
  for (unsigned threads : {0u, 1u, 2u}) {
    std::vector<exec::Tensor> data, want;
    for (int k = 0; k < 6; ++k) {
      exec::Tensor t = exec::Tensor::make(exec::ElemType::F32,
                                          {(int64_t)(4096 * (3 * k + 1) + 5)});
      for (int64_t i = 0; i < t.numElements(); ++i)
        t.as<float>()[i] = (float)(rng() % 1000) / 7.0f;
      want.push_back(t);
      data.push_back(std::move(t));
    }
    trace::TraceRecorder rec("", false);
    rec.setHashThreads(threads);
    std::string err;
    ASSERT_TRUE(rec.begin(*module, inputs, err));
    for (int k = 0; k < 6; ++k) {
      // A lag of one node: before node k, node k-2's results are released
      // and scribbled over.
      if (k >= 2) {
        rec.waitHashed(k - 2);
        std::fill(data[k - 2].as<float>(),
                  data[k - 2].as<float>() + data[k - 2].numElements(), -1.0f);
      }
      rec.recordNode(k, llvm::ArrayRef<exec::Tensor>(data[k]), /*lent=*/true);
    }
    ASSERT_TRUE(rec.finish(0, "", err)) << err;
    for (int k = 0; k < 6; ++k)
      EXPECT_EQ(rec.trace().nodes[k].results[0], trace::tensorHash(want[k]))
          << "threads " << threads << " node " << k;
  }
}

TEST_F(SmallRun, AbiHookRecordsViews) {
  // The compiled path reports nodes through plumb_node_hook with views.
  trace::Trace viaInterp;
  ASSERT_TRUE(record("", false, viaInterp));
  trace::TraceRecorder rec("", false);
  std::string err;
  ASSERT_TRUE(rec.begin(*module, inputs, err));
  auto main = getMainFunc(*module);
  auto index = trace::nodeIndexMap(main);
  std::vector<exec::Tensor> outs;
  auto hook = [&](mlir::Operation *op, std::vector<exec::Tensor> &results) {
    auto it = index.find(op);
    if (it == index.end())
      return;
    std::vector<plumb_tensor_view> views;
    for (exec::Tensor &r : results)
      views.push_back({(int32_t)r.type, (int32_t)r.shape.size(),
                       r.shape.data(), r.raw()});
    trace::TraceRecorder::abiHook(&rec, it->second, (int32_t)views.size(),
                                  views.data());
  };
  ASSERT_TRUE(exec::runFunctionWithHook(main, inputs, outs, err, hook));
  ASSERT_TRUE(rec.finish(0, "", err)) << err;
  EXPECT_EQ(rec.trace().root, viaInterp.root);
}

TEST_F(SmallRun, InjectedFaultPropagatesFromItsNode) {
  trace::Trace clean;
  ASSERT_TRUE(record("", false, clean));
  trace::TraceRecorder rec("", false);
  std::string err;
  ASSERT_TRUE(rec.begin(*module, inputs, err));
  auto main = getMainFunc(*module);
  auto index = trace::nodeIndexMap(main);
  std::vector<exec::Tensor> outs;
  auto hook = [&](mlir::Operation *op, std::vector<exec::Tensor> &results) {
    auto it = index.find(op);
    if (it == index.end())
      return;
    if (it->second == 1) {
      EXPECT_TRUE(trace::flipBit(results[0], 30, err));
    }
    rec.recordNode(it->second, results);
  };
  ASSERT_TRUE(exec::runFunctionWithHook(main, inputs, outs, err, hook));
  ASSERT_TRUE(rec.finish(0, "", err));
  const trace::Trace &t = rec.trace();
  // The flipped element is relu's [0][0]: it reaches split's first result,
  // the add and the if, but not the reduce_sum over split's second result.
  // Later nodes may agree again, which is why disputes search the Merkle
  // tree rather than bisect on single node hashes.
  EXPECT_EQ(t.nodes[0].hash, clean.nodes[0].hash);
  for (int k : {1, 2, 4, 5})
    EXPECT_NE(t.nodes[k].hash, clean.nodes[k].hash) << k;
  EXPECT_EQ(t.nodes[3].hash, clean.nodes[3].hash);
  EXPECT_NE(t.nodes[2].results[0], clean.nodes[2].results[0]);
  EXPECT_EQ(t.nodes[2].results[1], clean.nodes[2].results[1]);
}

TEST_F(SmallRun, TreeOverrideChangesOnlyThatNode) {
  auto main = getMainFunc(*module);
  std::string err;
  trace::TreeOverride o{1, 0};
  EXPECT_FALSE(trace::applyTreeOverride(main, o, err)); // relu has no tree
  EXPECT_NE(err.find("has no reduction tree"), std::string::npos) << err;
  o.node = 99;
  EXPECT_FALSE(trace::applyTreeOverride(main, o, err));
  EXPECT_NE(err.find("the model has 6 nodes"), std::string::npos) << err;
  o = {0, 1};
  ASSERT_TRUE(trace::applyTreeOverride(main, o, err)) << err;
  EXPECT_EQ(exec::treeBlockOf(graphNodes(main)[0]), 1);
}

} // namespace
