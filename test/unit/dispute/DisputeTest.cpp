//===- test/unit/dispute/DisputeTest.cpp - Referee, parties, messages -----===//
//
// Part of Plumb. The wire format, and whole disputes between in-process
// parties over traces of a small program: every fault position, both sides,
// and each adversarial behaviour. The referee must find the first divergent
// node, blame the right party, never blame an honest one, and execute
// exactly one node.
//
//===----------------------------------------------------------------------===//
#include "plumb/Dispute/Party.h"
#include "plumb/Dispute/Protocol.h"
#include "plumb/Dispute/Referee.h"

#include "plumb/InitAll.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Trace/TensorHasher.h"
#include "plumb/Trace/TraceRecorder.h"

#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace plumb;
using namespace plumb::dispute;

namespace {

TEST(Messages, HeaderIsChecked) {
  llvm::json::Object m = makeMessage("query_node");
  m["index"] = 3;
  std::string line = serialize(m), type, err;
  EXPECT_EQ(line.find('\n'), std::string::npos);
  llvm::json::Object back;
  ASSERT_TRUE(parseMessage(line, back, type, err)) << err;
  EXPECT_EQ(type, "query_node");
  EXPECT_EQ(back.getInteger("index"), 3);
  EXPECT_FALSE(parseMessage("[1]", back, type, err));
  EXPECT_FALSE(parseMessage("{\"protocol\":\"plumb-dispute\",\"version\":1,"
                            "\"type\":\"x\"}",
                            back, type, err));
  EXPECT_NE(err.find("unsupported protocol version 1"), std::string::npos);
  // Version 3 (the commitment, the node's claims and the chunk roots in
  // rounds of their own) is not spoken.
  EXPECT_FALSE(parseMessage("{\"protocol\":\"plumb-dispute\",\"version\":3,"
                            "\"type\":\"commit_request\"}",
                            back, type, err));
  EXPECT_NE(err.find("unsupported protocol version 3"), std::string::npos);
  // Version 2 (one tree level a round, no query_subtrees) is not spoken.
  EXPECT_FALSE(parseMessage("{\"protocol\":\"plumb-dispute\",\"version\":2,"
                            "\"type\":\"query_node\"}",
                            back, type, err));
  EXPECT_FALSE(parseMessage("{\"protocol\":\"other\",\"version\":1,"
                            "\"type\":\"x\"}",
                            back, type, err));
  EXPECT_FALSE(parseMessage("{\"protocol\":\"plumb-dispute\",\"version\":1}",
                            back, type, err));
  EXPECT_FALSE(parseMessage("not json", back, type, err));
}

TEST(Messages, TensorHeaders) {
  for (exec::ElemType t : {exec::ElemType::F32, exec::ElemType::I64,
                           exec::ElemType::I32, exec::ElemType::Bool}) {
    exec::Tensor x = exec::Tensor::make(t, {2, 3});
    exec::ElemType type;
    std::vector<int64_t> shape;
    size_t bytes;
    std::string err;
    ASSERT_TRUE(parseTensorHeader(tensorHeader(x), type, shape, bytes, err))
        << err;
    EXPECT_EQ(type, t);
    EXPECT_EQ(shape, x.shape);
    EXPECT_EQ(bytes, x.byteSize());
  }
  exec::Tensor scalar = exec::Tensor::make(exec::ElemType::F32, {});
  exec::ElemType type;
  std::vector<int64_t> shape;
  size_t bytes;
  std::string err;
  llvm::json::Object o = tensorHeader(scalar);
  ASSERT_TRUE(parseTensorHeader(o, type, shape, bytes, err));
  EXPECT_EQ(bytes, 4u);
  o["shape"] = llvm::json::Array{2};
  EXPECT_FALSE(parseTensorHeader(o, type, shape, bytes, err));
  EXPECT_NE(err.find("'bytes' is 4 but a float32 tensor of 2 elements has 8"),
            std::string::npos)
      << err;
  o = tensorHeader(scalar);
  o["dtype"] = "float16";
  EXPECT_FALSE(parseTensorHeader(o, type, shape, bytes, err));
  o = tensorHeader(scalar);
  o["shape"] = llvm::json::Array{int64_t(1) << 41};
  EXPECT_FALSE(parseTensorHeader(o, type, shape, bytes, err));
  o = tensorHeader(scalar);
  o.erase("bytes");
  EXPECT_FALSE(parseTensorHeader(o, type, shape, bytes, err));
}

TEST(Messages, AttachmentsFollowTheirLine) {
  struct Echo : Responder {
    bool respond(const std::string &request, std::string &reply,
                 std::string &attachment) override {
      reply = request;
      attachment = "0123456789";
      return true;
    }
  } echo;
  LocalChannel ch(echo);
  std::string err, line;
  ASSERT_TRUE(ch.send("{}", err));
  ASSERT_TRUE(ch.receive(line, 10, err));
  char buf[10];
  ASSERT_TRUE(ch.receiveBytes(buf, 4, 10, err));
  EXPECT_EQ(std::string(buf, 4), "0123");
  ASSERT_TRUE(ch.receiveBytes(buf, 6, 10, err));
  EXPECT_EQ(std::string(buf, 6), "456789");
  EXPECT_FALSE(ch.receiveBytes(buf, 1, 10, err));
  EXPECT_EQ(ch.bytesSent, 3u);
  EXPECT_EQ(ch.bytesReceived, 13u);
}

TEST(Behaviours, Parse) {
  Behaviour b;
  std::string err;
  ASSERT_TRUE(parseBehaviour("lie-hash=3", b, err));
  EXPECT_EQ(b.lieHash, 3);
  ASSERT_TRUE(parseBehaviour("forge-proof", b, err));
  EXPECT_EQ(b.forgeProof, 1);
  ASSERT_TRUE(parseBehaviour("forge-proof=4", b, err));
  EXPECT_EQ(b.forgeProof, 4);
  ASSERT_TRUE(parseBehaviour("silent-after=0", b, err));
  EXPECT_EQ(b.silentAfter, 0);
  ASSERT_TRUE(parseBehaviour("bad-tensors", b, err));
  EXPECT_TRUE(b.badTensors);
  ASSERT_TRUE(parseBehaviour("silent-on-tensors", b, err));
  EXPECT_TRUE(b.silentOnTensors);
  ASSERT_TRUE(parseBehaviour("inconsistent-hash=0", b, err));
  for (const char *bad : {"lie-hash", "lie-hash=-1", "forge-proof=0",
                          "bad-tensors=1", "sing", "silent-after=x"})
    EXPECT_FALSE(parseBehaviour(bad, b, err)) << bad;
}

/// Traces of the small program: an honest one and faulty ones.
class Disputes : public ::testing::Test {
protected:
  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<exec::Tensor> inputs;
  std::string tmp;
  /// The element record() flips (0: flipBit's element 0).
  int64_t flipElement = 0;
  /// Whether record() keeps the tensors.
  bool keepTensors = true;

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
    llvm::SmallString<128> t;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("plumb-dispute-test", t));
    tmp = std::string(t);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(tmp); }

  /// Records a trace (with tensors); fault at node `k` (bit `bit`) if k >= 0.
  std::string record(const std::string &name, int64_t k = -1, int64_t bit = 30,
                     std::vector<exec::Tensor> in = {}) {
    if (in.empty())
      in = inputs;
    std::string dir = tmp + "/" + name;
    trace::TraceRecorder rec(dir, keepTensors);
    std::string err;
    EXPECT_TRUE(rec.begin(*module, in, err)) << err;
    auto main = getMainFunc(*module);
    auto index = trace::nodeIndexMap(main);
    std::vector<exec::Tensor> outs;
    auto hook = [&](mlir::Operation *op, std::vector<exec::Tensor> &results) {
      auto it = index.find(op);
      if (it == index.end())
        return;
      if (it->second == k) {
        if (flipElement == 0) {
          EXPECT_TRUE(trace::flipBit(results[0], bit, err));
        } else { // bit `bit` of element flipElement of a float32 result
          auto *p = static_cast<uint8_t *>(results[0].raw()) + 4 * flipElement;
          p[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
      }
      rec.recordNode(it->second, results);
    };
    EXPECT_TRUE(exec::runFunctionWithHook(main, in, outs, err, hook)) << err;
    EXPECT_TRUE(rec.finish(1.0, "", err)) << err;
    return dir;
  }

  /// The referee's options in these tests: the chunk search is held even
  /// for the small program's results of one chunk (the default executes
  /// those whole: OneChunkResultsAreExecutedWhole).
  static RefereeOptions searching() {
    RefereeOptions o;
    o.searchOneChunk = true;
    return o;
  }

  DisputeResult dispute(const std::string &a, const std::string &b,
                        Behaviour ba = {}, Behaviour bb = {},
                        RefereeOptions opts = searching()) {
    std::string err;
    auto pa = TraceParty::open(a, ba, err);
    EXPECT_TRUE(pa) << err;
    auto pb = TraceParty::open(b, bb, err);
    EXPECT_TRUE(pb) << err;
    LocalChannel ca(*pa), cb(*pb);
    Referee referee(*module);
    std::string names[2] = {"A", "B"};
    return referee.run(ca, cb, names, opts);
  }
};

/// Rounds of the node search for first divergent node k of n, worked out
/// independently of merkleFrontier: the depth of leaf k in the tree (one
/// binary split per level), four levels a round, the first of them the
/// commitment (so at least one; the last round gives the node's claims).
int nodeRounds(int64_t n, int64_t k) {
  int64_t lo = 0, hi = n;
  int depth = 0;
  while (hi - lo > 1) {
    int64_t s = 1;
    while (s * 2 < hi - lo)
      s *= 2;
    if (k < lo + s)
      hi = lo + s;
    else
      lo = lo + s;
    ++depth;
  }
  return std::max(1, (depth + 3) / 4);
}

TEST(Frontier, EnumeratesTheSubtreesFourLevelsDown) {
  using R = std::vector<MerkleRange>;
  // 6 items: the tree is 4 + 2, every leaf within 3 levels: one round
  // reaches them all.
  EXPECT_EQ(merkleFrontier(0, 6, 4),
            (R{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}}));
  EXPECT_EQ(merkleFrontier(0, 6, 1), (R{{0, 4}, {4, 6}}));
  EXPECT_EQ(merkleFrontier(0, 6, 2), (R{{0, 2}, {2, 4}, {4, 5}, {5, 6}}));
  // 44 items (32 + 12): four levels down, 8 subtrees of 4 on the left,
  // on the right (8 + 4) 4 pairs and 4 single leaves.
  R f = merkleFrontier(0, 44, 4);
  EXPECT_EQ(f.size(), 16u);
  EXPECT_EQ(f.front(), MerkleRange(0, 4));
  EXPECT_EQ(f[7], MerkleRange(28, 32));
  EXPECT_EQ(f[8], MerkleRange(32, 34));
  EXPECT_EQ(f[12], MerkleRange(40, 41));
  EXPECT_EQ(f.back(), MerkleRange(43, 44));
  // A subtree of one item is its own frontier; depth 0 the range itself.
  EXPECT_EQ(merkleFrontier(5, 6, 4), (R{{5, 6}}));
  EXPECT_EQ(merkleFrontier(32, 44, 0), (R{{32, 44}}));
  // Every size: the frontier tiles the range in order, has at most 16
  // ranges, each a subtree; folding the true subtree hashes (items for
  // single leaves) gives the subtree's hash, with both SHA-256 codes.
  std::vector<Digest> items;
  for (int i = 0; i < 300; ++i)
    items.push_back(sha256(&i, sizeof(i)));
  for (size_t n = 1; n <= 300; n = n < 40 ? n + 1 : n * 3 / 2) {
    std::vector<Digest> its(items.begin(), items.begin() + n);
    for (unsigned depth : {1u, 2u, 4u}) {
      R fr = merkleFrontier(0, n, depth);
      ASSERT_FALSE(fr.empty());
      EXPECT_LE(fr.size(), size_t(1) << depth);
      size_t at = 0;
      std::vector<Digest> values;
      for (auto [lo, hi] : fr) {
        EXPECT_EQ(lo, at) << n;
        EXPECT_LT(lo, hi);
        at = hi;
        values.push_back(hi - lo == 1 ? its[lo] : merkleSubtree(its, lo, hi));
      }
      EXPECT_EQ(at, n);
      Digest slow, fast;
      ASSERT_TRUE(merkleFold(0, n, depth, values, slow));
      ASSERT_TRUE(trace::merkleFoldFast(0, n, depth, values, fast));
      EXPECT_EQ(slow, merkleRoot(its)) << n;
      EXPECT_EQ(fast, slow);
      // A wrong count or a changed value does not fold to the root.
      values.push_back(values[0]);
      EXPECT_FALSE(merkleFold(0, n, depth, values, slow));
      values.pop_back();
      values.back()[0] ^= 1;
      ASSERT_TRUE(merkleFold(0, n, depth, values, slow));
      EXPECT_NE(slow, merkleRoot(its));
    }
  }
  // Descending: the frontier of a frontier range is that subtree's.
  R sub = merkleFrontier(32, 44, 4);
  EXPECT_EQ(sub, (R{{32, 33}, {33, 34}, {34, 35}, {35, 36}, {36, 37},
                    {37, 38}, {38, 39}, {39, 40}, {40, 41}, {41, 42},
                    {42, 43}, {43, 44}}));
  std::vector<Digest> its(items.begin(), items.begin() + 44), values;
  for (auto [lo, hi] : sub)
    values.push_back(its[lo]);
  Digest h;
  ASSERT_TRUE(trace::merkleFoldFast(32, 44, 4, values, h));
  EXPECT_EQ(h, merkleSubtree(its, 32, 44));
}

TEST_F(Disputes, AgreeingTracesHaveNothingToDispute) {
  std::string a = record("a"), b = record("b");
  DisputeResult r = dispute(a, b);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.rootsAgree);
  EXPECT_EQ(r.loser(), "none");
  EXPECT_EQ(r.executedNodes, 0);
  EXPECT_EQ(r.rounds, 0);
  EXPECT_EQ(r.firstDivergent, -1);
}

TEST_F(Disputes, EveryFaultPositionOnEitherSide) {
  std::string honest = record("honest");
  for (int64_t k = 0; k < 6; ++k) {
    std::string faulty = record("faulty" + std::to_string(k), k);
    for (int side = 0; side < 2; ++side) {
      DisputeResult r = side ? dispute(honest, faulty) : dispute(faulty, honest);
      SCOPED_TRACE("fault at node " + std::to_string(k) + ", faulty party " +
                   (side ? "B" : "A"));
      EXPECT_TRUE(r.error.empty()) << r.error;
      EXPECT_EQ(r.firstDivergent, k);
      EXPECT_EQ(r.loser(), side ? "B" : "A");
      EXPECT_EQ(r.executedNodes, 1);
      // 6 nodes: one round (the commitment's frontier) reaches every leaf
      // and gives the claims.
      EXPECT_EQ(r.rounds, 1);
      EXPECT_EQ(r.rounds, nodeRounds(6, k));
      // matmul, relu and add are sliced: the chunk search finds the chunk
      // of element 0 (one chunk: one round gives both digests), the
      // referee computes it; the split, the reduction and the if are
      // executed whole.
      bool sliced = k == 0 || k == 1 || k == 4;
      EXPECT_EQ(r.subNode, sliced) << r.wholeNodeReason;
      if (sliced) {
        EXPECT_TRUE(r.haveReferenceChunk);
        EXPECT_EQ(r.divergentChunk, 0);
        EXPECT_EQ(r.chunkRounds, 1); // the one chunk (it folds to the root)
        EXPECT_EQ(r.parties[side ? 0 : 1].chunkClaim, r.referenceChunk);
        EXPECT_NE(r.parties[side ? 1 : 0].chunkClaim, r.referenceChunk);
        EXPECT_GT(r.computedElements, 0);
        EXPECT_LE(r.computedElements, r.resultElements);
      } else {
        EXPECT_TRUE(r.haveReference);
        EXPECT_EQ(r.parties[side ? 0 : 1].claim, r.reference);
        EXPECT_EQ(r.outputFraction, 1.0);
      }
      EXPECT_GT(r.bytes, 0u);
    }
  }
}

TEST_F(Disputes, IfNodeReExecutesItsRegionWithCapturedValues) {
  auto main = getMainFunc(*module);
  mlir::Operation *ifOp = graphNodes(main)[5];
  std::vector<mlir::Value> ext = externalValues(ifOp);
  ASSERT_EQ(ext.size(), 3u);
  EXPECT_EQ(ext[0], main.getArgument(1)); // the condition
  EXPECT_EQ(ext[1], graphNodes(main)[0]->getResult(0)); // %0, captured
  EXPECT_EQ(ext[2], graphNodes(main)[1]->getResult(0)); // %1, captured
  DisputeResult r = dispute(record("h"), record("f", 5));
  EXPECT_EQ(r.firstDivergent, 5);
  EXPECT_EQ(r.op, "plumb.if");
  EXPECT_EQ(r.loser(), "B");
}

TEST_F(Disputes, FirstDivergenceDecidesWhenBothAreFaulty) {
  // A goes wrong at node 3, B already at node 1: B is blamed for node 1.
  DisputeResult r = dispute(record("a3", 3), record("b1", 1));
  EXPECT_EQ(r.firstDivergent, 1);
  EXPECT_EQ(r.loser(), "B");
  // Both wrong at the same node, differently.
  r = dispute(record("a1", 1, 30), record("b1x", 1, 29));
  EXPECT_EQ(r.firstDivergent, 1);
  EXPECT_EQ(r.loser(), "both");
  EXPECT_EQ(r.executedNodes, 1);
}

TEST_F(Disputes, ConsistentLiarIsFoundAndBlamed) {
  std::string h = record("h");
  for (int64_t k : {0, 3, 5}) {
    Behaviour lie;
    lie.lieHash = k;
    DisputeResult r = dispute(h, h, {}, lie);
    EXPECT_EQ(r.firstDivergent, k);
    EXPECT_EQ(r.loser(), "B");
    EXPECT_EQ(r.executedNodes, 1);
    // At a sliced node (the matmul) the liar cannot back its hash with a
    // chunk tree; elsewhere the re-executed node contradicts it.
    EXPECT_NE(r.parties[1].reason.find(k == 0 ? "chunk tree" : "wrongly"),
              std::string::npos)
        << r.parties[1].reason;
  }
}

TEST_F(Disputes, InconsistentHashLoses) {
  std::string h = record("h");
  Behaviour b;
  b.inconsistentHash = 2;
  DisputeResult r = dispute(h, h, b, {});
  EXPECT_EQ(r.firstDivergent, 2);
  EXPECT_EQ(r.loser(), "A");
  EXPECT_NE(r.parties[0].reason.find("inconsistent hash"), std::string::npos)
      << r.parties[0].reason;
  // The honest party is still judged on the one node.
  EXPECT_EQ(r.executedNodes, 1);
}

TEST_F(Disputes, ForgedProofLoses) {
  std::string h = record("h"), f = record("f", 4);
  // Forged in the first round: the forger loses at once.
  Behaviour forge;
  forge.forgeProof = 1;
  DisputeResult r = dispute(h, f, {}, forge);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_NE(r.parties[1].reason.find(
                "invalid subtree hashes for nodes [0, 6): they do not hash "
                "to its root"),
            std::string::npos)
      << r.parties[1].reason;
  EXPECT_EQ(r.executedNodes, 0);
  EXPECT_EQ(r.firstDivergent, -1);
  // Forged in its first answer after the search (node 4 of 6: the
  // commitment's frontier locates it; then the chunk tree's frontier): the
  // node is found, the forger loses and the honest party is still
  // confirmed by one execution of the whole node.
  forge.forgeProof = 2;
  r = dispute(h, f, {}, forge);
  EXPECT_EQ(r.firstDivergent, 4);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_NE(r.parties[1].reason.find("its chunk tree for node 4 does not give "
                                     "its result hash"),
            std::string::npos)
      << r.parties[1].reason;
  EXPECT_EQ(r.executedNodes, 1);
  EXPECT_FALSE(r.subNode);
  EXPECT_EQ(r.parties[0].claim, r.reference);
  // Forged in a proof it supplies (an earlier node's, against its root): A
  // faulty and the forger, its turn first.
  forge.forgeProof = 3;
  r = dispute(f, h, forge, {});
  EXPECT_EQ(r.firstDivergent, 4);
  EXPECT_EQ(r.loser(), "A");
  EXPECT_NE(r.parties[0].reason.find("invalid Merkle proof for node 2"),
            std::string::npos)
      << r.parties[0].reason;
  EXPECT_EQ(r.supplier, "B");
  EXPECT_EQ(r.executedNodes, 1);
}

TEST_F(Disputes, TensorsThatDoNotMatchLose) {
  std::string h = record("h"), f = record("f", 3);
  Behaviour bad;
  bad.badTensors = true;
  // A (whose turn it is) sends bad tensors: A loses, B supplies, and B's
  // wrong node 3 makes it lose too.
  DisputeResult r = dispute(h, f, bad, {});
  EXPECT_EQ(r.firstDivergent, 3);
  EXPECT_EQ(r.loser(), "both");
  EXPECT_NE(r.parties[0].reason.find("does not match the agreed hash"),
            std::string::npos)
      << r.parties[0].reason;
  EXPECT_EQ(r.supplier, "B");
  EXPECT_EQ(r.executedNodes, 1);
  // The faulty party sending bad tensors never gets the turn: A supplies.
  r = dispute(h, f, {}, bad);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_EQ(r.supplier, "A");
  // An honest opponent with bad tensors against a faulty A.
  r = dispute(f, h, {}, bad);
  EXPECT_EQ(r.loser(), "A");
}

TEST_F(Disputes, SilenceLoses) {
  std::string h = record("h"), f = record("f", 2);
  Behaviour silent;
  silent.silentAfter = 0;
  RefereeOptions fast = searching();
  fast.roundTimeoutMs = 50;
  DisputeResult r = dispute(h, f, {}, silent, fast);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_NE(r.parties[1].reason.find("no answer"), std::string::npos);
  // Silent once the node is found (the commitment, whose frontier locates
  // node 2 and gives the claims, answered; not the proof of node 2's
  // input): it loses, B is confirmed by the execution.
  silent.silentAfter = 1;
  r = dispute(f, h, silent, {}, fast);
  EXPECT_EQ(r.firstDivergent, 2);
  EXPECT_EQ(r.loser(), "A");
  EXPECT_EQ(r.executedNodes, 1);
}

// By default a result of one chunk that reads its inputs whole is executed
// whole: the chunk search would add two rounds to the same work.
TEST_F(Disputes, OneChunkResultsAreExecutedWhole) {
  std::string h = record("h"), f = record("f", 1); // the relu
  DisputeResult searched = dispute(h, f);
  DisputeResult r = dispute(h, f, {}, {}, RefereeOptions());
  EXPECT_TRUE(searched.subNode);
  EXPECT_FALSE(r.subNode);
  EXPECT_EQ(r.wholeNodeReason,
            "its result is one chunk, which reads its inputs whole");
  EXPECT_EQ(r.firstDivergent, 1);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_EQ(r.executedNodes, 1);
  EXPECT_EQ(r.chunkRounds, 0);
  EXPECT_EQ(r.messages, searched.messages - 2 * searched.chunkRounds);
}

// A splat constant (one value for every element) is read as the box a
// slice needs, or whole, filled with its value: the reference computation
// still confirms the honest party, in part and whole.
TEST_F(Disputes, SplatConstantsAreReadFilled) {
  module = mlir::parseSourceString<mlir::ModuleOp>(
      "func.func @main(%x: tensor<64x96xf32> {plumb.name = \"x\"}) -> tensor<64x80xf32> {"
      " %w = plumb.constant dense<0.375> : tensor<96x80xf32>"
      " %0 = plumb.matmul %x, %w {tree = #plumb.tree<blocked 16>}"
      " : (tensor<64x96xf32>, tensor<96x80xf32>) -> tensor<64x80xf32>"
      " return %0 : tensor<64x80xf32> }",
      &ctx);
  ASSERT_TRUE(module);
  exec::Tensor x = exec::Tensor::make(exec::ElemType::F32, {64, 96});
  for (int i = 0; i < 64 * 96; ++i)
    x.as<float>()[i] = 0.01f * (float)((i * 29) % 97) - 0.4f;
  inputs = {x};
  std::string h = record("h"), f = record("f", 0, 20);
  DisputeResult r = dispute(h, f);
  EXPECT_TRUE(r.subNode) << r.wholeNodeReason;
  EXPECT_EQ(r.loser(), "B");
  EXPECT_EQ(r.numChunks, 2);
  EXPECT_LT(r.computedElements, r.resultElements);
  EXPECT_EQ(r.parties[0].chunkClaim, r.referenceChunk);
  // B forfeits in the chunk search: A is judged on the whole node.
  Behaviour quits;
  quits.silentAfter = 1;
  RefereeOptions fast = searching();
  fast.roundTimeoutMs = 50;
  r = dispute(h, f, {}, quits, fast);
  EXPECT_FALSE(r.subNode);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_TRUE(r.haveReference);
  EXPECT_EQ(r.parties[0].claim, r.reference);
}

TEST_F(Disputes, InputsMustAgree) {
  std::vector<exec::Tensor> other = inputs;
  other[0].as<float>()[0] += 1.0f;
  std::string a = record("a"), b = record("b", -1, 0, other);
  DisputeResult r = dispute(a, b);
  EXPECT_NE(r.error.find("different inputs"), std::string::npos);
  EXPECT_EQ(r.loser(), "none");
  // With the inputs known, the party that ran other inputs loses.
  RefereeOptions known = searching();
  known.knownInputs = {trace::tensorHash(inputs[0]),
                       trace::tensorHash(inputs[1])};
  r = dispute(a, b, {}, {}, known);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.loser(), "B");
  EXPECT_NE(r.parties[1].reason.find("committed to input 0"), std::string::npos);
}

} // namespace

/// A program whose results span several chunks, for the chunk search.
class SubNodeDisputes : public Disputes {
protected:
  void SetUp() override {
    Disputes::SetUp();
    module = mlir::parseSourceString<mlir::ModuleOp>(
        "func.func @main(%x: tensor<256x64xf32> {plumb.name = \"x\"},"
        " %w: tensor<64x128xf32> {plumb.name = \"w\"}) -> tensor<256x128xf32> {"
        " %0 = plumb.matmul %x, %w {tree = #plumb.tree<blocked 16>}"
        " : (tensor<256x64xf32>, tensor<64x128xf32>) -> tensor<256x128xf32>"
        " %1 = plumb.relu %0 : tensor<256x128xf32>"
        " %2 = plumb.add %1, %0 : (tensor<256x128xf32>, tensor<256x128xf32>)"
        " -> tensor<256x128xf32>"
        " return %2 : tensor<256x128xf32> }",
        &ctx);
    ASSERT_TRUE(module);
    exec::Tensor x = exec::Tensor::make(exec::ElemType::F32, {256, 64});
    exec::Tensor w = exec::Tensor::make(exec::ElemType::F32, {64, 128});
    for (int i = 0; i < 256 * 64; ++i)
      x.as<float>()[i] = 0.01f * (float)((i * 37) % 101) - 0.5f;
    for (int i = 0; i < 64 * 128; ++i)
      w.as<float>()[i] = 0.02f * (float)((i * 53) % 89) - 0.8f;
    inputs = {x, w};
  }
};

TEST_F(SubNodeDisputes, FindsTheChunkAndComputesOnlyIt) {
  std::string h = record("h");
  // Node 0 (matmul, 256x128 = 8 chunks): element 30000 is in chunk 7.
  flipElement = 30000;
  for (int64_t k = 0; k < 3; ++k) {
    std::string f = record("f" + std::to_string(k), k, 20);
    for (int side = 0; side < 2; ++side) {
      SCOPED_TRACE("node " + std::to_string(k) + " side " + std::to_string(side));
      DisputeResult r = side ? dispute(h, f) : dispute(f, h);
      EXPECT_TRUE(r.error.empty()) << r.error;
      EXPECT_EQ(r.firstDivergent, k);
      EXPECT_EQ(r.loser(), side ? "B" : "A");
      EXPECT_TRUE(r.subNode) << r.wholeNodeReason;
      EXPECT_EQ(r.numChunks, 8);
      EXPECT_EQ(r.divergentChunk, 7);
      // One descent round: 8 chunks are 3 levels, and the round's
      // frontier (8 single chunks) folds to the chunk root and gives both
      // digests.
      EXPECT_EQ(r.chunkRounds, 1);
      EXPECT_EQ(r.executedNodes, 1);
      // 32 whole rows of 128: exactly the chunk.
      EXPECT_EQ(r.computedElements, 4096);
      EXPECT_DOUBLE_EQ(r.outputFraction, 0.125);
      EXPECT_EQ(r.parties[side ? 0 : 1].chunkClaim, r.referenceChunk);
    }
  }
}

TEST_F(SubNodeDisputes, FirstDivergentChunkDecides) {
  // Both faulty at node 2: A at element 20000 (chunk 4), B at element 5
  // (chunk 0). The first divergent chunk is 0, where only B is wrong; the
  // referee judges that chunk only.
  flipElement = 20000;
  std::string a = record("a", 2, 20);
  flipElement = 5;
  std::string b = record("b", 2, 20);
  DisputeResult r = dispute(a, b);
  EXPECT_EQ(r.firstDivergent, 2);
  EXPECT_EQ(r.divergentChunk, 0);
  EXPECT_EQ(r.loser(), "B");
  // Both wrong in the same chunk: both lose.
  flipElement = 4000;
  std::string c = record("c", 2, 20);
  r = dispute(b, c);
  EXPECT_EQ(r.divergentChunk, 0);
  EXPECT_EQ(r.loser(), "both");
}

TEST_F(SubNodeDisputes, BadChunksAndSilenceLose) {
  std::string h = record("h");
  flipElement = 30000;
  std::string f = record("f", 1, 20);
  // A (faulty) supplies chunks that fail their proofs: A loses, B supplies.
  Behaviour bad;
  bad.badTensors = true;
  DisputeResult r = dispute(f, h, bad, {});
  EXPECT_EQ(r.loser(), "A");
  EXPECT_NE(r.parties[0].reason.find("Merkle proof"), std::string::npos)
      << r.parties[0].reason;
  EXPECT_EQ(r.supplier, "B");
  EXPECT_TRUE(r.subNode);
  EXPECT_EQ(r.executedNodes, 1);
  // A falls silent when asked for tensors: A loses, B supplies.
  Behaviour silent;
  silent.silentOnTensors = true;
  r = dispute(f, h, silent, {});
  EXPECT_EQ(r.loser(), "A");
  EXPECT_EQ(r.supplier, "B");
  EXPECT_TRUE(r.subNode);
  // A forfeits during the chunk search: B is judged on the whole node.
  Behaviour quits;
  quits.silentAfter = 1; // the commitment (and the node round): then nothing
  r = dispute(f, h, quits, {});
  EXPECT_EQ(r.loser(), "A");
  EXPECT_FALSE(r.subNode);
  EXPECT_EQ(r.executedNodes, 1);
  EXPECT_EQ(r.outputFraction, 1.0);
  EXPECT_TRUE(r.haveReference);
}

TEST_F(SubNodeDisputes, ChunkSearchNeedsNoTensorsFromTheAccused) {
  // The faulty party kept no tensors: it answers the chunk search from its
  // chunks.bin; the honest party supplies the input chunks.
  std::string h = record("h");
  flipElement = 30000;
  keepTensors = false;
  std::string f = record("f", 2, 20);
  DisputeResult r = dispute(h, f);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_TRUE(r.subNode) << r.wholeNodeReason;
  EXPECT_EQ(r.divergentChunk, 7);
  EXPECT_EQ(r.supplier, "A");
}

namespace {

/// A party that answers its commitment and its first `switchAfter`
/// frontiers (the commitment's is the first) from one trace and everything
/// after from another: from then on its frontiers hash to the other
/// trace's subtrees, not to what it claimed before.
struct TwoFaced : Responder {
  Responder &first, &second;
  int switchAfter;
  int subtrees = 0;
  /// Appends a hash to every subtrees answer (a wrong count).
  bool extraHash = false;
  TwoFaced(Responder &a, Responder &b, int n)
      : first(a), second(b), switchAfter(n) {}
  bool respond(const std::string &request, std::string &reply,
               std::string &attachment) override {
    llvm::json::Object req;
    std::string type, err;
    EXPECT_TRUE(parseMessage(request, req, type, err)) << err;
    // The commitment comes from the first trace; its frontier (the
    // first round) from the second when switchAfter is 0.
    bool frontier = type == "commit_request" || type == "query_subtrees";
    bool useFirst = type == "commit_request" ||
                    (frontier && subtrees < switchAfter);
    if (frontier)
      ++subtrees;
    if (!(useFirst ? first : second).respond(request, reply, attachment))
      return false;
    if (type == "commit_request" && switchAfter == 0) {
      std::string other, att;
      EXPECT_TRUE(second.respond(request, other, att));
      llvm::json::Object r, o;
      EXPECT_TRUE(parseMessage(reply, r, type, err));
      EXPECT_TRUE(parseMessage(other, o, type, err));
      r["hashes"] = *o.get("hashes");
      r["results"] = *o.get("results");
      reply = serialize(r);
      type = "commit_request";
    }
    if (extraHash && frontier) {
      llvm::json::Object r;
      EXPECT_TRUE(parseMessage(reply, r, type, err));
      r.getArray("hashes")->push_back(toHex(Digest{}));
      reply = serialize(r);
    }
    return true;
  }
};

} // namespace

/// A chain of 40 nodes: leaves 0..31 are 5 levels deep (two descent
/// rounds, the first the commitment), 32..39 four (the commitment's round).
class ChainDisputes : public Disputes {
protected:
  static constexpr int kNodes = 40;
  void SetUp() override {
    Disputes::SetUp();
    std::string src = "func.func @main(%x: tensor<2x8xf32> {plumb.name = "
                      "\"x\"}) -> tensor<2x8xf32> {";
    for (int i = 0; i < kNodes; ++i)
      src += " %" + std::to_string(i) + " = plumb.relu " +
             (i ? "%" + std::to_string(i - 1) : std::string("%x")) +
             " : tensor<2x8xf32>";
    src += " return %" + std::to_string(kNodes - 1) + " : tensor<2x8xf32> }";
    module = mlir::parseSourceString<mlir::ModuleOp>(src, &ctx);
    ASSERT_TRUE(module);
    inputs = {inputs[0]};
  }

  DisputeResult run(Responder &a, Responder &b) {
    LocalChannel ca(a), cb(b);
    Referee referee(*module);
    std::string names[2] = {"A", "B"};
    return referee.run(ca, cb, names, searching());
  }
};

TEST_F(ChainDisputes, RoundsAreTheLeafDepthOverFour) {
  EXPECT_EQ(nodeRounds(kNodes, 0), 2);
  EXPECT_EQ(nodeRounds(kNodes, 31), 2);
  EXPECT_EQ(nodeRounds(kNodes, 32), 1);
  std::string h = record("h");
  for (int64_t k = 0; k < kNodes; ++k) {
    std::string f = record("f" + std::to_string(k), k);
    for (int side = 0; side < 2; ++side) {
      SCOPED_TRACE("fault at node " + std::to_string(k) + ", side " +
                   std::to_string(side));
      DisputeResult r = side ? dispute(h, f) : dispute(f, h);
      EXPECT_TRUE(r.error.empty()) << r.error;
      EXPECT_EQ(r.firstDivergent, k);
      EXPECT_EQ(r.loser(), side ? "B" : "A");
      EXPECT_EQ(r.executedNodes, 1);
      EXPECT_TRUE(r.subNode) << r.wholeNodeReason;
      // ceil(log2 40) = 6 levels: at most 2 descent rounds (v2: 6), the
      // first the commitment.
      EXPECT_EQ(r.rounds, nodeRounds(kNodes, k));
      EXPECT_EQ(r.chunkRounds, 1);
      // Every round asks both parties: commit (the first node round), the
      // other node rounds, the chunk round; then the supplier proves the
      // operand's node (none for node 0, which reads the input) and sends
      // its chunk.
      EXPECT_EQ(r.messages, 2 * (r.rounds + r.chunkRounds) + (k ? 2 : 1));
    }
  }
}

TEST_F(ChainDisputes, AnInconsistentFrontierLoses) {
  std::string h = record("h"), f = record("f", 5), g = record("g", 6);
  std::string err;
  auto ph = TraceParty::open(h, {}, err);
  auto pf = TraceParty::open(f, {}, err);
  auto pg = TraceParty::open(g, {}, err);
  ASSERT_TRUE(ph && pf && pg) << err;
  // B commits to f and answers the first round (the commitment's frontier)
  // from it (the disagreement with A is in nodes [4, 8)), then the second
  // from g: leaves 6 and 7 of g do not hash to the hash of [4, 8) it gave
  // in round 1. It loses there, before any node is located; A is not
  // blamed.
  TwoFaced b(*pf, *pg, 1);
  DisputeResult r = run(*ph, b);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_EQ(r.rounds, 2);
  EXPECT_NE(r.parties[1].reason.find(
                "invalid subtree hashes for nodes [4, 8): they do not hash to "
                "its hash of nodes [4, 8)"),
            std::string::npos)
      << r.parties[1].reason;
  EXPECT_EQ(r.firstDivergent, -1);
  EXPECT_EQ(r.executedNodes, 0);
  // From the first round on: its frontier does not hash to its root.
  auto pf1 = TraceParty::open(f, {}, err);
  auto pg1 = TraceParty::open(g, {}, err);
  TwoFaced a(*pf1, *pg1, 0);
  r = run(a, *ph);
  EXPECT_EQ(r.loser(), "A");
  EXPECT_EQ(r.rounds, 1);
  EXPECT_NE(r.parties[0].reason.find("invalid subtree hashes for nodes [0, 40): "
                                     "they do not hash to its root"),
            std::string::npos)
      << r.parties[0].reason;
  // A frontier with a hash too many is malformed.
  auto pf2 = TraceParty::open(f, {}, err);
  TwoFaced extra(*pf2, *pf2, 99);
  extra.extraHash = true;
  r = run(*ph, extra);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_NE(r.parties[1].reason.find("malformed subtree hashes for nodes [0, 40)"),
            std::string::npos)
      << r.parties[1].reason;
}

TEST_F(ChainDisputes, ForgedSubtreeHashInALaterRoundLoses) {
  // forge-proof=2 corrupts the second tree answer: the second descent
  // round's frontier (node 5 is 5 levels deep; the commitment's frontier
  // is the first).
  std::string h = record("h"), f = record("f", 5);
  Behaviour forge;
  forge.forgeProof = 2;
  DisputeResult r = dispute(h, f, {}, forge);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_EQ(r.rounds, 2);
  EXPECT_NE(r.parties[1].reason.find("invalid subtree hashes for nodes [4, 8)"),
            std::string::npos)
      << r.parties[1].reason;
  // forge-proof=3: its first answer after the search (the chunk tree's
  // frontier): node 5 is found, and A is confirmed by the whole node.
  forge.forgeProof = 3;
  r = dispute(h, f, {}, forge);
  EXPECT_EQ(r.firstDivergent, 5);
  EXPECT_EQ(r.loser(), "B");
  EXPECT_NE(r.parties[1].reason.find("chunk tree for node 5"),
            std::string::npos)
      << r.parties[1].reason;
  EXPECT_EQ(r.executedNodes, 1);
  EXPECT_FALSE(r.subNode);
}
