//===- lib/Dispute/Referee.cpp - Refereed delegation ----------------------===//
//
// Part of Plumb. See include/plumb/Dispute/Referee.h and docs/dispute.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Dispute/Referee.h"

#include "plumb/Dispute/Slice.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Canonical/Identity.h"
#include "plumb/Driver/Inputs.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Trace/TensorHasher.h"
#include "plumb/Trace/Trace.h"
#include "plumb/runtime/config.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <chrono>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <set>

using namespace mlir;

namespace plumb {
namespace dispute {

std::string DisputeResult::loser() const {
  bool a = parties[0].lost, b = parties[1].lost;
  if (a && b)
    return "both";
  if (a)
    return parties[0].name;
  if (b)
    return parties[1].name;
  return "none";
}

std::vector<Value> externalValues(Operation *op) {
  llvm::SetVector<Value> ext;
  for (Value v : op->getOperands())
    ext.insert(v);
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (Value v : inner->getOperands()) {
      Operation *owner = v.getParentBlock()->getParentOp();
      if (Operation *def = v.getDefiningOp())
        owner = def;
      if (owner != op && !op->isProperAncestor(owner))
        ext.insert(v);
    }
  });
  return std::vector<Value>(ext.begin(), ext.end());
}


namespace {

using Clock = std::chrono::steady_clock;

/// CPU time of the calling thread (user and system).
double threadCpuMs() {
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

/// One protocol run: the two channels, the time spent waiting on them, and
/// the bookkeeping of who lost why.
struct Session {
  Channel *ch[2];
  DisputeResult &res;
  const RefereeOptions &opts;
  double waitMs = 0;

  bool alive(int p) const { return !res.parties[p].lost; }
  const std::string &name(int p) const { return res.parties[p].name; }

  void lose(int p, const std::string &why) {
    PartyReport &r = res.parties[p];
    if (r.lost)
      return;
    r.lost = true;
    r.reason = why;
    res.log.push_back("party " + r.name + " loses: " + why);
  }

  /// Sends `msg` to party p and reads its answer of type `want`; a party
  /// that does not answer in time, answers with an error or with anything
  /// else loses.
  bool ask(int p, const llvm::json::Object &msg, const char *want,
           llvm::json::Object &reply) {
    std::string request = serialize(msg);
    auto t0 = Clock::now();
    std::string err, line;
    ++res.messages;
    bool ok = ch[p]->send(request, err) &&
              ch[p]->receive(line, opts.roundTimeoutMs, err);
    waitMs += msSince(t0);
    return accept(p, msg, want, ok, line, err, reply);
  }

  /// One round to both parties still standing: sends `msg` (written once)
  /// to each before reading either answer, so they work at the same time
  /// (the round takes as long as the slower one). Each party has the round
  /// limit from its own request. `got[p]`: whether p answered validly.
  void askBoth(const llvm::json::Object &msg, const char *want,
               llvm::json::Object reply[2], bool got[2]) {
    std::string request = serialize(msg);
    auto t0 = Clock::now();
    bool sent[2] = {false, false};
    std::string err[2], line[2];
    Clock::time_point deadline[2];
    for (int p = 0; p < 2; ++p) {
      got[p] = false;
      if (!alive(p))
        continue;
      ++res.messages;
      sent[p] = ch[p]->send(request, err[p]);
      deadline[p] = Clock::now() + std::chrono::milliseconds(opts.roundTimeoutMs);
    }
    bool ok[2] = {false, false};
    for (int p = 0; p < 2; ++p)
      if (sent[p])
        ok[p] = ch[p]->receiveBy(line[p], deadline[p], opts.roundTimeoutMs,
                                 err[p]);
    waitMs += msSince(t0);
    for (int p = 0; p < 2; ++p)
      if (alive(p))
        got[p] = accept(p, msg, want, ok[p], line[p], err[p], reply[p]);
  }

  /// Checks an answer to `msg` (`ok`: one line arrived): a party that did
  /// not answer, answered with an error or with anything but `want` loses.
  bool accept(int p, const llvm::json::Object &msg, const char *want, bool ok,
              const std::string &line, const std::string &err,
              llvm::json::Object &reply) {
    std::string type, perr;
    if (!ok) {
      lose(p, "no valid answer to '" +
                  msg.getString("type").value_or("").str() + "': " + err);
      return false;
    }
    if (!parseMessage(line, reply, type, perr)) {
      lose(p, "sent an invalid message: " + perr);
      return false;
    }
    if (type == "error") {
      lose(p, "answered '" + msg.getString("type").value_or("").str() +
                  "' with an error: " +
                  reply.getString("message").value_or("").str());
      return false;
    }
    if (type != want) {
      lose(p, "answered with '" + type + "' where '" + want + "' was due");
      return false;
    }
    return true;
  }

  void end() {
    llvm::json::Object msg = makeMessage("end");
    msg["loser"] = res.loser();
    for (int p = 0; p < 2; ++p) {
      auto t0 = Clock::now();
      std::string err;
      ch[p]->send(serialize(msg), err); // best effort; nothing is due back
      waitMs += msSince(t0);
    }
  }
};

/// A node answer, checked against the party's committed root.
struct NodeAnswer {
  Digest hash{};
  std::vector<Digest> results;
  std::vector<Digest> proof;
};

llvm::json::Object nodeQuery(int64_t index) {
  llvm::json::Object msg = makeMessage("query_node");
  msg["index"] = index;
  return msg;
}

/// Checks party p's answer for node `index` against its root.
bool checkNode(Session &s, int p, int64_t index, int64_t numNodes,
               const llvm::json::Object &reply, NodeAnswer &out) {
  auto idx = reply.getInteger("index");
  if (!idx || *idx != index || !digestFromJson(reply, "node_hash", out.hash) ||
      !digestsFromJson(reply.get("result_hashes"), out.results) ||
      !digestsFromJson(reply.get("proof"), out.proof)) {
    s.lose(p, "malformed answer for node " + std::to_string(index));
    return false;
  }
  if (!trace::merkleVerifyFast(s.res.parties[p].root, (size_t)numNodes, (size_t)index,
                    out.hash, out.proof)) {
    s.lose(p, "invalid Merkle proof for node " + std::to_string(index) +
                  " against its root " + toHex(s.res.parties[p].root));
    return false;
  }
  return true;
}

bool queryNode(Session &s, int p, int64_t index, int64_t numNodes,
               NodeAnswer &out) {
  llvm::json::Object reply;
  return s.ask(p, nodeQuery(index), "node", reply) &&
         checkNode(s, p, index, numNodes, reply, out);
}

/// Levels of a tree the referee descends per round: it asks for the
/// subtree hashes up to 2^kDescentDepth ranges below the current one.
constexpr unsigned kDescentDepth = 4;

/// The ranges of a frontier, as a request lists them.
llvm::json::Array rangesToJson(const std::vector<MerkleRange> &ranges) {
  llvm::json::Array rs;
  rs.reserve(ranges.size());
  for (auto [a, b] : ranges)
    rs.push_back(llvm::json::Array{(int64_t)a, (int64_t)b});
  return rs;
}

/// The multi-level Merkle descent (docs/dispute.md, steps 2 and 3) over
/// both parties' node trees (`chunkNode` < 0) or the chunk trees of result
/// 0 of node `chunkNode`, of `size` items. Each round asks both parties for
/// the frontier kDescentDepth levels below the range both disagree on
/// (query_subtrees), checks that each party's frontier hashes to its claim
/// for that range, and moves to the first frontier range where the two
/// differ, until the range is one item, whose two values (and, in the node
/// tree, the node's result hashes) the last round gives.
///
/// The first round: for the node tree its answers are in hand (`first`,
/// `firstGot`: the commitments carry the first frontier) and `claim[p]` is
/// party p's committed root; for a chunk tree there is no claim yet:
/// `rootCheck(p, root)` judges the root party p's first frontier folds to
/// (it must give p's claimed result hash) and calls s.lose if not.
///
/// Returns false when a party lost (or the referee failed: res.error);
/// else `leaf` is the first item they disagree on, `items` their values
/// there and, in the node tree, `leafResults` their result hashes for it
/// (unchecked).
bool descend(Session &s, int64_t chunkNode, int64_t size, Digest claim[2],
             const llvm::json::Object *first, const bool *firstGot,
             const std::function<bool(int, const Digest &)> &rootCheck,
             int &rounds, int64_t &leaf, Digest items[2],
             std::vector<Digest> leafResults[2]) {
  bool chunks = chunkNode >= 0;
  const char *what = chunks ? "chunks" : "nodes";
  auto range = [&](size_t lo, size_t hi) {
    return std::string(what) + " [" + std::to_string(lo) + ", " +
           std::to_string(hi) + ")" +
           (chunks ? " of node " + std::to_string(chunkNode) : "");
  };
  size_t lo = 0, hi = (size_t)size;
  std::string claimOf[2];
  for (int p = 0; p < 2; ++p)
    claimOf[p] = chunks ? "its result hash" : "its root";
  bool firstRound = true;
  while (true) {
    std::vector<MerkleRange> ranges = merkleFrontier(lo, hi, kDescentDepth);
    llvm::json::Object replies[2];
    bool gotBoth[2];
    const llvm::json::Object *reply = replies;
    const bool *got = gotBoth;
    ++rounds;
    if (firstRound && first) {
      reply = first;
      got = firstGot;
    } else {
      llvm::json::Object msg = makeMessage("query_subtrees");
      msg["tree"] = what;
      if (chunks) {
        msg["index"] = chunkNode;
        msg["result"] = 0;
      }
      msg["ranges"] = rangesToJson(ranges);
      s.askBoth(msg, "subtrees", replies, gotBoth);
    }
    std::vector<Digest> values[2];
    for (int p = 0; p < 2; ++p) {
      if (!got[p] || !s.alive(p))
        continue;
      if (!(firstRound && first)) {
        auto tree = reply[p].getString("tree");
        if (!tree || *tree != what) {
          s.lose(p, "malformed subtree hashes for " + range(lo, hi));
          continue;
        }
      }
      if (!digestsFromJson(reply[p].get("hashes"), values[p]) ||
          values[p].size() != ranges.size()) {
        s.lose(p, "malformed subtree hashes for " + range(lo, hi));
        continue;
      }
      Digest folded;
      if (!trace::merkleFoldFast(lo, hi, kDescentDepth, values[p], folded)) {
        s.lose(p, "malformed subtree hashes for " + range(lo, hi));
        continue;
      }
      if (firstRound && rootCheck) {
        if (rootCheck(p, folded))
          claim[p] = folded;
        continue;
      }
      if (folded != claim[p])
        s.lose(p, "invalid subtree hashes for " + range(lo, hi) +
                      ": they do not hash to " + claimOf[p] + " " +
                      toHex(claim[p]));
    }
    firstRound = false;
    if (!s.alive(0) || !s.alive(1))
      return false;
    size_t i = 0;
    while (i < ranges.size() && values[0][i] == values[1][i])
      ++i;
    if (i == ranges.size()) { // both frontiers fold to different claims
      s.res.error = "internal error: equal frontiers for different hashes of " +
                    range(lo, hi);
      return false;
    }
    std::tie(lo, hi) = ranges[i];
    bool done = hi - lo == 1; // then the search is over
    for (int p = 0; p < 2; ++p) {
      if (done) {
        items[p] = values[p][i];
        if (!chunks) { // the node's result hashes, beside its hash
          const llvm::json::Array *rs = reply[p].getArray("results");
          leafResults[p].clear();
          if (rs && rs->size() == ranges.size())
            digestsFromJson(&(*rs)[i], leafResults[p]);
        }
      } else {
        claim[p] = values[p][i];
        claimOf[p] = "its hash of " + range(lo, hi);
      }
    }
    s.res.log.push_back(std::string(chunks ? "chunk round " : "round ") +
                        std::to_string(rounds) + ": " + range(lo, hi) +
                        " hold the first disagreement");
    if (done)
      break;
  }
  leaf = (int64_t)lo;
  return true;
}

/// A value the divergent node reads: graph input `index`, or result
/// `result` of earlier node `index`.
struct Needed {
  Value v;
  bool input;
  int64_t index;
  unsigned result;

  /// How a tensor request names it.
  llvm::json::Object item() const {
    llvm::json::Object o{{"kind", input ? "input" : "node"}, {"index", index}};
    if (!input)
      o["result"] = (int64_t)result;
    return o;
  }
  /// How verdicts name it.
  std::string describe() const {
    return input ? "input " + std::to_string(index)
                 : "result " + std::to_string(result) + " of node " +
                       std::to_string(index);
  }
};

/// The agreed hash of every needed value: graph inputs from the input
/// hashes both parties committed to, earlier results as party `p` proves
/// them against its root. False when `p` lost on the way.
bool agreedHashes(Session &s, int p, const std::vector<Needed> &needed,
                  int64_t numNodes, const std::vector<Digest> &inputHashes,
                  const std::vector<Operation *> &nodes,
                  std::vector<Digest> &want) {
  want.assign(needed.size(), Digest{});
  llvm::DenseMap<int64_t, NodeAnswer> answers;
  for (size_t i = 0; i < needed.size(); ++i) {
    if (needed[i].input) {
      want[i] = inputHashes[needed[i].index];
      continue;
    }
    int64_t j = needed[i].index;
    if (!answers.count(j)) {
      NodeAnswer ans;
      if (!queryNode(s, p, j, numNodes, ans))
        return false;
      if (trace::nodeHash(ans.results) != ans.hash ||
          ans.results.size() != nodes[j]->getNumResults()) {
        s.lose(p, "inconsistent hash: its result hashes for node " +
                      std::to_string(j) + " do not make its node hash");
        return false;
      }
      answers[j] = ans;
    }
    want[i] = answers[j].results[needed[i].result];
  }
  return true;
}

/// The chunks of value `v` (its canonical chunking) that box `b` touches,
/// added to `out`; returns v's chunk count.
int64_t chunksOfBox(Value v, const Box &b, std::set<int64_t> &out) {
  auto t = cast<RankedTensorType>(v.getType());
  exec::ElemType et;
  exec::elemTypeOf(t.getElementType(), et);
  std::vector<int64_t> shape(t.getShape().begin(), t.getShape().end());
  int64_t per = (int64_t)(trace::kChunkBytes / exec::elemSize(et));
  for (auto [lo, hi] : boxRuns(shape, b))
    for (int64_t ch = lo / per; ch <= (hi - 1) / per; ++ch)
      out.insert(ch);
  return (int64_t)trace::numChunks(
      (int32_t)et, trace::numElementsOf((int32_t)shape.size(), shape.data()));
}

/// Fills box `b` of a tensor of `shape` from its chunks (canonical bytes by
/// chunk index); every chunk the box touches must be there.
bool assembleBox(exec::ElemType type, const std::vector<int64_t> &shape,
                 const Box &b, const std::map<int64_t, std::string> &chunks,
                 exec::Tensor &out) {
  out = exec::Tensor::make(type, b.shape());
  int64_t per = (int64_t)(trace::kChunkBytes / exec::elemSize(type));
  size_t es = exec::elemSize(type);
  auto *dst = static_cast<uint8_t *>(out.raw());
  for (auto [lo, hi] : boxRuns(shape, b)) {
    for (int64_t f = lo; f < hi;) {
      int64_t c = f / per, off = f - c * per;
      int64_t take = std::min(hi - f, per - off);
      auto it = chunks.find(c);
      if (it == chunks.end() || (int64_t)it->second.size() < (off + take) * (int64_t)es)
        return false;
      std::memcpy(dst, it->second.data() + off * es, (size_t)take * es);
      dst += take * es;
      f += take;
    }
  }
  return true;
}

/// The shape and element type of value `v`, as the IR declares them.
std::vector<int64_t> irShape(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  return std::vector<int64_t>(t.getShape().begin(), t.getShape().end());
}
exec::ElemType irType(Value v) {
  exec::ElemType t;
  exec::elemTypeOf(cast<RankedTensorType>(v.getType()).getElementType(), t);
  return t;
}

} // namespace

Referee::Referee(ModuleOp module) : module(module) {
  main = getMainFunc(module);
  if (main) {
    nodes = graphNodes(main);
    for (const NodeInfo &n : computeNodeTable(main))
      nodeIds.push_back(n.id);
  }
  graph = computeGraphHash(module);
  // Set up the hash library now (OpenSSL's first digest loads its provider,
  // about a millisecond), with the program, outside the timed protocol.
  trace::tensorHash(exec::Tensor::make(exec::ElemType::F32, {0}));
  auto c = module->getAttrOfType<StringAttr>("plumb.contract");
  contract = c ? c.str() : PLUMB_CONTRACT_VERSION;
  // What every dispute over this model starts with, prepared once with the
  // model: the inputs the IR binds, and the commitment request, so that a
  // dispute's first act is to send that request (see run()).
  if (main) {
    boundInputs.resize(main.getNumArguments());
    for (unsigned i = 0; i < main.getNumArguments(); ++i)
      if (auto bound =
              main.getArgAttrOfType<ElementsAttr>(i, "plumb.bound_value")) {
        exec::Tensor t;
        std::string err;
        if (exec::tensorFromAttr(bound, t, err))
          boundInputs[i] = trace::tensorHash(t);
      }
  }
  commitRequest = makeMessage("commit_request");
  commitRequest["ranges"] =
      rangesToJson(merkleFrontier(0, nodes.size(), kDescentDepth));
}

//===----------------------------------------------------------------------===//
// One dispute, phase by phase (docs/dispute.md)
//===----------------------------------------------------------------------===//

/// One dispute between two parties: the commitments (1), the node search
/// (2), the claims for the node found (3), its reads (4), the chunk search
/// and the re-execution of the part of the node around the divergent chunk
/// (3b), or of the whole node (4b, 5), and the verdict.
class RefereeDispute {
public:
  RefereeDispute(Referee &ref, Channel &a, Channel &b,
                 const std::string names[2], const RefereeOptions &opts)
      : ref(ref), opts(opts), s{{&a, &b}, res, opts} {
    res.parties[0].name = names[0];
    res.parties[1].name = names[1];
  }

  DisputeResult run();

private:
  /// The operand parts a party supplies for the slice of node K around the
  /// divergent chunk (3b).
  struct SliceParts {
    std::vector<Needed> needed;
    std::vector<std::set<int64_t>> chunkSets;
    /// Whether the whole tensor is asked for (the parts need more than
    /// half of its chunks: no proofs to send or check then).
    std::vector<bool> whole;
    llvm::DenseMap<Value, size_t> neededIndex;
    std::vector<exec::Tensor> wholeTensors;
    std::vector<std::map<int64_t, std::string>> chunkData;
  };
  /// What a chunk item's header promised.
  struct ChunkExpect {
    Digest root{};
    std::vector<std::pair<int64_t, std::vector<Digest>>> chunks;
    int64_t numChunks = 0;
  };

  DisputeResult &finish();
  bool commit();
  bool checkCommitment(int p, const std::vector<std::optional<Digest>> &known);
  bool searchNodes();
  void takeClaims();
  bool findReads();
  bool constantBox(Value v, const Box &box, exec::Tensor &out,
                   std::string &err) const;
  bool settleByChunks();
  bool chunkSearchApplies(int64_t numel, int64_t m);
  bool searchChunks(int32_t dtype, const std::vector<int64_t> &shape,
                    int64_t m, int64_t &c, Digest claim[2]);
  void planParts(const SlicePlan &plan, SliceParts &sp) const;
  bool supplyChunks(int p, int64_t c, SliceParts &sp);
  bool readChunkHeaders(int p, const llvm::json::Array &got,
                        const std::vector<Digest> &want, const SliceParts &sp,
                        std::vector<ChunkExpect> &expect);
  bool readChunkData(int p, const std::vector<Digest> &want,
                     const std::vector<ChunkExpect> &expect, SliceParts &sp);
  bool executeChunk(const SlicePlan &plan, SliceParts &sp, int64_t c,
                    int32_t dtype, const std::vector<int64_t> &shape,
                    int64_t numel, const Digest claim[2]);
  bool supplyWhole(int p, std::vector<exec::Tensor> &supplied);
  void executeWhole(std::vector<exec::Tensor> &supplied);

  Referee &ref;
  const RefereeOptions &opts;
  DisputeResult res;
  Session s;
  Clock::time_point start = Clock::now();
  double cpuStart = threadCpuMs();
  int64_t n = 0;
  unsigned numInputs = 0;
  std::vector<Digest> inputHashes[2];
  llvm::json::Object commits[2];
  bool committed[2] = {false, false};
  /// The first divergent node, its operation and both parties' hashes and
  /// result hashes for it (from the node search).
  int64_t K = 0;
  Operation *op = nullptr;
  Digest leafHash[2];
  std::vector<Digest> leafResults[2];
  /// Node K's reads: constants from the referee's IR (loaded when needed)
  /// and values a party supplies.
  std::vector<std::pair<Value, ElementsAttr>> constantAttrs;
  std::vector<Needed> needed;
};

DisputeResult &RefereeDispute::finish() {
  s.end();
  res.wallMs = msSince(start);
  res.refereeMs = res.wallMs - s.waitMs;
  res.cpuMs = threadCpuMs() - cpuStart;
  for (int p = 0; p < 2; ++p) {
    res.parties[p].bytesSent = s.ch[p]->bytesSent;
    res.parties[p].bytesReceived = s.ch[p]->bytesReceived;
    res.bytes += s.ch[p]->bytesSent + s.ch[p]->bytesReceived;
  }
  return res;
}

DisputeResult RefereeDispute::run() {
  if (!ref.main) {
    res.error = "the referee's module has no func.func @main";
    return finish();
  }
  n = (int64_t)ref.nodes.size();
  numInputs = ref.main.getNumArguments();
  if (!commit() || !searchNodes())
    return finish();
  takeClaims();
  if (!findReads() || settleByChunks())
    return finish();
  res.log.push_back("node " + std::to_string(K) + " is executed whole: " +
                    res.wholeNodeReason);
  std::vector<exec::Tensor> supplied(needed.size());
  bool haveInputs = needed.empty();
  for (int p = 0; p < 2 && !haveInputs; ++p)
    if (s.alive(p) && supplyWhole(p, supplied)) {
      haveInputs = true;
      res.supplier = s.name(p);
    }
  if (!haveInputs) {
    res.log.push_back("no party supplied valid inputs for node " +
                      std::to_string(K) + "; nothing to execute");
    return finish();
  }
  executeWhole(supplied);
  return finish();
}

/// 1. Commitments. The commitment request carries the node tree's first
/// frontier: each party answers with its root and that frontier (the
/// search's first round). False when the dispute is over.
bool RefereeDispute::commit() {
  // The protocol's clocks start here, at the referee's first act. The
  // parties were just started and, on a shared machine, take the cores for
  // their start-up: a referee preempted before its first message counted
  // that as its own time (2.5 to 5.6 ms, against 0.5 ms of work, in most
  // cold ultraface disputes measured on two cores, 20 us of set-up or none).
  // Everything above is bookkeeping.
  cpuStart = threadCpuMs();
  start = Clock::now();
  s.askBoth(ref.commitRequest, "commit", commits, committed);

  // Inputs the referee knows: bound in the IR, or given to it.
  std::vector<std::optional<Digest>> known(numInputs);
  for (unsigned i = 0; i < numInputs; ++i)
    known[i] = ref.boundInputs[i]         ? ref.boundInputs[i]
               : i < opts.knownInputs.size() ? opts.knownInputs[i]
                                             : std::nullopt;
  for (int p = 0; p < 2; ++p)
    if (committed[p] && checkCommitment(p, known)) {
      PartyReport &r = res.parties[p];
      r.committed = true;
      res.log.push_back("party " + r.name + " commits to root " +
                        toHex(r.root));
    }
  if (!s.alive(0) || !s.alive(1))
    return false; // one side forfeited before there was anything to compare
  if (inputHashes[0] != inputHashes[1]) {
    res.error = "the parties committed to different inputs; give the inputs "
                "(--input/--inputs-dir) so the referee can tell which is right";
    return false;
  }
  if (res.parties[0].root == res.parties[1].root) {
    res.rootsAgree = true;
    res.log.push_back("the roots agree: nothing to dispute");
    return false;
  }
  return true;
}

/// Party p's commitment against the model: trace version, contract, graph,
/// node and input counts, the inputs the referee knows.
bool RefereeDispute::checkCommitment(
    int p, const std::vector<std::optional<Digest>> &known) {
  llvm::json::Object &reply = commits[p];
  PartyReport &r = res.parties[p];
  auto version = reply.getInteger("trace_version");
  auto c = reply.getString("contract");
  auto count = reply.getInteger("num_nodes");
  Digest g;
  if (!version || !c || !count || !digestFromJson(reply, "graph_hash", g) ||
      !digestFromJson(reply, "root", r.root) ||
      !digestsFromJson(reply.get("input_hashes"), inputHashes[p])) {
    s.lose(p, "malformed commitment");
    return false;
  }
  if (auto ms = reply.getNumber("run_ms"))
    r.runMs = *ms;
  if (*version != trace::kTraceVersion) {
    s.lose(p, "committed to trace version " + std::to_string(*version) +
                  ", the referee uses " + std::to_string(trace::kTraceVersion));
    return false;
  }
  if (*c != ref.contract) {
    s.lose(p, "committed to contract '" + c->str() + "', the model uses '" +
                  ref.contract + "'");
    return false;
  }
  if (g != ref.graph) {
    s.lose(p, "committed to graph " + toHex(g) + ", the model's is " +
                  toHex(ref.graph));
    return false;
  }
  if (*count != n) {
    s.lose(p, "committed to " + std::to_string(*count) +
                  " nodes, the model has " + std::to_string(n));
    return false;
  }
  if (inputHashes[p].size() != numInputs) {
    s.lose(p, "committed to " + std::to_string(inputHashes[p].size()) +
                  " inputs, the model has " + std::to_string(numInputs));
    return false;
  }
  for (unsigned i = 0; i < numInputs; ++i)
    if (known[i] && *known[i] != inputHashes[p][i]) {
      s.lose(p, "committed to input " + std::to_string(i) + " " +
                    toHex(inputHashes[p][i]) + ", the referee knows it as " +
                    toHex(*known[i]));
      return false;
    }
  return true;
}

/// 2. Descends both Merkle trees to the first leaf they disagree on,
/// kDescentDepth levels a round (the commitments gave the first frontier;
/// then query_subtrees). The last round gives both parties' hashes of node
/// K (tied to their roots by the frontiers above it) and its result hashes:
/// their claims (3). False when the dispute is over.
bool RefereeDispute::searchNodes() {
  Digest claim[2] = {res.parties[0].root, res.parties[1].root};
  if (!descend(s, -1, n, claim, commits, committed, nullptr, res.rounds, K,
               leafHash, leafResults)) {
    if (res.error.empty())
      res.log.push_back("the search stopped at round " +
                        std::to_string(res.rounds));
    return false;
  }
  op = ref.nodes[K];
  res.firstDivergent = K;
  res.nodeId = ref.nodeIds[K];
  res.op = op->getName().getStringRef().str();
  return true;
}

/// 3. Both claims for node K: the result hashes must make the node hash.
void RefereeDispute::takeClaims() {
  for (int p = 0; p < 2; ++p) {
    const std::vector<Digest> &results = leafResults[p];
    if (results.empty()) {
      s.lose(p, "sent no valid result hashes for node " + std::to_string(K));
      continue;
    }
    if (results.size() != op->getNumResults()) {
      s.lose(p, "claims " + std::to_string(results.size()) +
                    " results for node " + std::to_string(K) + " ('" + res.op +
                    "'), which has " + std::to_string(op->getNumResults()));
      continue;
    }
    if (trace::nodeHash(results) != leafHash[p]) {
      s.lose(p, "inconsistent hash: its node hash for node " +
                    std::to_string(K) +
                    " is not the combination of its result hashes");
      continue;
    }
    PartyReport &r = res.parties[p];
    r.hasClaim = true;
    r.claim = leafHash[p];
    r.claimResults = results;
  }
  res.log.push_back("first divergent node: " + std::to_string(K) + " ('" +
                    res.op + "', id " + toHex(res.nodeId) + ")");
}

/// 4. The inputs of node K: constants from the referee's IR; graph inputs
/// and earlier nodes' results supplied by a party and checked against the
/// agreed hashes (the input hashes both committed to; the result hashes of
/// nodes < K, where both trees agree). False on an internal error.
bool RefereeDispute::findReads() {
  llvm::DenseMap<Operation *, int64_t> indexOf;
  for (int64_t i = 0; i < n; ++i)
    indexOf[ref.nodes[i]] = i;
  Block &entry = ref.main.getBody().front();
  for (Value v : externalValues(op)) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &entry) {
        res.error = "internal error: node reads a block argument of a region";
        return false;
      }
      needed.push_back({v, true, (int64_t)arg.getArgNumber(), 0});
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (auto c = dyn_cast<ConstantOp>(def)) {
      constantAttrs.push_back({v, c.getValue()}); // loaded when needed
      continue;
    }
    auto it = indexOf.find(def);
    if (it == indexOf.end() || it->second >= K) {
      res.error = "internal error: node " + std::to_string(K) +
                  " reads a value that is not an earlier node's result";
      return false;
    }
    needed.push_back(
        {v, false, it->second, (unsigned)cast<OpResult>(v).getResultNumber()});
  }
  return true;
}

/// Box `box` of the constant `v`, read straight from the attribute's raw
/// data where it is dense (no copy of the whole weight tensor).
bool RefereeDispute::constantBox(Value v, const Box &box, exec::Tensor &out,
                                 std::string &err) const {
  ElementsAttr attr;
  for (auto &[cv, a] : constantAttrs)
    if (cv == v)
      attr = a;
  if (!attr) {
    err = "internal error: a read is neither supplied nor a constant";
    return false;
  }
  auto type = cast<ShapedType>(attr.getType());
  exec::ElemType et;
  if (!exec::elemTypeOf(type.getElementType(), et)) {
    err = "unsupported constant element type";
    return false;
  }
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  size_t es = exec::elemSize(et);
  size_t bytes =
      (size_t)trace::numElementsOf((int32_t)shape.size(), shape.data()) * es;
  ArrayRef<char> raw;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (et != exec::ElemType::Bool && dense.isSplat() &&
        dense.getRawData().size() == es) {
      // One value: the box filled with it (doubling copies), not the
      // whole tensor converted element by element first.
      out = exec::Tensor::make(et, box.shape());
      auto *dst = static_cast<char *>(out.raw());
      size_t total = (size_t)box.numElements() * es;
      if (total) {
        std::memcpy(dst, dense.getRawData().data(), es);
        for (size_t done = es; done < total;) {
          size_t k = std::min(done, total - done);
          std::memcpy(dst + done, dst, k);
          done += k;
        }
      }
      return true;
    }
    if (!dense.isSplat() && et != exec::ElemType::Bool)
      raw = dense.getRawData();
  } else if (auto r = dyn_cast<DenseResourceElementsAttr>(attr)) {
    if (AsmResourceBlob *blob = r.getRawHandle().getBlob())
      raw = blob->getData();
  }
  if (raw.size() != bytes) { // splats, bools: the general conversion
    exec::Tensor whole;
    if (!exec::tensorFromAttr(attr, whole, err))
      return false;
    out = extractBox(whole, box);
    return true;
  }
  out = exec::Tensor::make(et, box.shape());
  auto *dst = static_cast<char *>(out.raw());
  for (auto [lo, hi] : boxRuns(shape, box)) {
    std::memcpy(dst, raw.data() + lo * es, (size_t)(hi - lo) * es);
    dst += (hi - lo) * es;
  }
  return true;
}

/// 3b. Sub-node dispute (Verde-style): descends the two chunk trees of the
/// node's result to the first chunk they disagree on, then recomputes only
/// the output elements of that chunk from the input chunks they read
/// (Dispute/Slice.h). Returns true when the dispute is settled here; false
/// to execute the whole node instead (an op without a slicing rule, or only
/// one party left to judge), with res.wholeNodeReason saying why.
bool RefereeDispute::settleByChunks() {
  std::string why;
  if (!s.alive(0) || !s.alive(1) || !res.parties[0].hasClaim ||
      !res.parties[1].hasClaim) {
    res.wholeNodeReason = "only one party is left to judge";
    return false;
  }
  if (!canSlice(op, why)) {
    res.wholeNodeReason = why;
    return false;
  }
  auto rt = cast<RankedTensorType>(op->getResult(0).getType());
  int32_t dtype = (int32_t)irType(op->getResult(0));
  std::vector<int64_t> shape(rt.getShape().begin(), rt.getShape().end());
  int64_t numel = trace::numElementsOf((int32_t)shape.size(), shape.data());
  int64_t m = (int64_t)trace::numChunks(dtype, numel);
  res.divergentResult = 0;
  res.numChunks = m;
  res.resultElements = numel;
  if (!chunkSearchApplies(numel, m))
    return false;
  int64_t c = 0;
  Digest claim[2];
  if (!searchChunks(dtype, shape, m, c, claim))
    return !res.error.empty();
  int64_t first, count;
  trace::chunkRange(dtype, numel, (size_t)c, first, count);
  res.log.push_back("first divergent chunk: " + std::to_string(c) + " of " +
                    std::to_string(m) + " (elements [" +
                    std::to_string(first) + ", " +
                    std::to_string(first + count) + ") of result 0), " +
                    std::to_string(res.chunkRounds) + " chunk rounds");
  SlicePlan plan;
  if (!planSlice(op, first, count, plan, why)) {
    res.wholeNodeReason = why;
    return false;
  }
  res.subNode = true;
  SliceParts sp;
  planParts(plan, sp);
  bool haveParts = sp.needed.empty();
  for (int p = 0; p < 2 && !haveParts; ++p)
    if (s.alive(p) && supplyChunks(p, c, sp)) {
      haveParts = true;
      res.supplier = s.name(p);
    }
  if (!haveParts) {
    res.log.push_back("no party supplied valid input chunks for node " +
                      std::to_string(K) + "; nothing to execute");
    return true;
  }
  executeChunk(plan, sp, c, dtype, shape, numel, claim);
  return true;
}

/// Whether a result of `m` chunks is worth a chunk search (else the reason
/// the node is executed whole).
bool RefereeDispute::chunkSearchApplies(int64_t numel, int64_t m) {
  if (m == 0) { // no chunks to search (both claims agree on the result)
    res.wholeNodeReason = "its result has no elements";
    return false;
  }
  if (m != 1 || opts.searchOneChunk)
    return true;
  // The chunk is the whole result. Unless its parts of the inputs are
  // smaller than the inputs (a slice, say), the chunk search would only add
  // its round to the same computation and data.
  SlicePlan whole;
  std::string why;
  bool partial = false;
  if (planSlice(op, 0, numel, whole, why))
    for (const auto &[v, box] : whole.reads) {
      if (box.numElements() == 0 ||
          !llvm::any_of(needed, [&](const Needed &nd) { return nd.v == v; }))
        continue;
      std::set<int64_t> cs;
      int64_t total = chunksOfBox(v, box, cs);
      partial |= (int64_t)cs.size() * 2 <= total;
    }
  if (!partial)
    res.wholeNodeReason = "its result is one chunk, which reads its inputs "
                          "whole";
  return partial;
}

/// The chunk search: the same descent over the two chunk trees. The root
/// each party's first frontier folds to must give the result hash it
/// claimed (3b); the last round gives both digests of the chunk, `claim`.
bool RefereeDispute::searchChunks(int32_t dtype,
                                  const std::vector<int64_t> &shape, int64_t m,
                                  int64_t &c, Digest claim[2]) {
  auto rootCheck = [&](int p, const Digest &root) {
    if (trace::tensorHashFromRoot(dtype, (int32_t)shape.size(), shape.data(),
                                  root) == res.parties[p].claimResults[0])
      return true;
    s.lose(p, "inconsistent hash: its chunk tree for node " +
                  std::to_string(K) + " does not give its result hash");
    return false;
  };
  Digest croot[2]; // each party's chunk root, bound to its result hash
  std::vector<Digest> unused[2];
  if (!descend(s, K, m, croot, nullptr, nullptr, rootCheck, res.chunkRounds, c,
               claim, unused)) {
    if (res.error.empty())
      res.wholeNodeReason = "a party forfeited during the chunk search";
    return false;
  }
  res.divergentChunk = c;
  for (int p = 0; p < 2; ++p) {
    res.parties[p].hasChunkClaim = true;
    res.parties[p].chunkClaim = claim[p];
  }
  return true;
}

/// The operand parts: constants from the referee's IR; the rest from the
/// chunks a party supplies (the whole tensor where the parts need more than
/// half of its chunks). Only the values the plan reads something of are
/// asked for (a concat operand outside the output box is not).
void RefereeDispute::planParts(const SlicePlan &plan, SliceParts &sp) const {
  for (const Needed &nd : needed)
    if (llvm::any_of(plan.reads, [&](const auto &r) {
          return r.first == nd.v && r.second.numElements() > 0;
        }))
      sp.needed.push_back(nd);
  size_t k = sp.needed.size();
  sp.chunkSets.resize(k);
  sp.whole.assign(k, false);
  for (size_t i = 0; i < k; ++i)
    sp.neededIndex[sp.needed[i].v] = i;
  for (const auto &[v, box] : plan.reads) {
    auto it = sp.neededIndex.find(v);
    if (it == sp.neededIndex.end())
      continue; // a constant
    chunksOfBox(v, box, sp.chunkSets[it->second]);
  }
  for (size_t i = 0; i < k; ++i) {
    std::vector<int64_t> sh = irShape(sp.needed[i].v);
    int64_t mi = (int64_t)trace::numChunks(
        (int32_t)irType(sp.needed[i].v),
        trace::numElementsOf((int32_t)sh.size(), sh.data()));
    sp.whole[i] = (int64_t)sp.chunkSets[i].size() * 2 > mi;
  }
  sp.wholeTensors.resize(k);
  sp.chunkData.resize(k);
}

/// Party p's turn to supply the parts chunk `c` reads: the agreed hashes,
/// the request, the headers, then the data. False (with nothing kept) when
/// it did not.
bool RefereeDispute::supplyChunks(int p, int64_t c, SliceParts &sp) {
  res.log.push_back("party " + s.name(p) + "'s turn to supply the input "
                    "chunks of node " + std::to_string(K) + " that chunk " +
                    std::to_string(c) + " reads");
  std::vector<Digest> want;
  if (!agreedHashes(s, p, sp.needed, n, inputHashes[0], ref.nodes, want))
    return false;
  llvm::json::Object msg = makeMessage("query_tensor_chunks");
  llvm::json::Array items;
  for (size_t i = 0; i < sp.needed.size(); ++i) {
    llvm::json::Object item = sp.needed[i].item();
    if (sp.whole[i]) {
      item["whole"] = true;
    } else {
      llvm::json::Array cs;
      for (int64_t ch : sp.chunkSets[i])
        cs.push_back(ch);
      item["chunks"] = std::move(cs);
    }
    items.push_back(std::move(item));
  }
  msg["items"] = std::move(items);
  llvm::json::Object reply;
  if (!s.ask(p, msg, "tensor_chunks", reply))
    return false;
  const llvm::json::Array *got = reply.getArray("items");
  if (!got || got->size() != sp.needed.size()) {
    s.lose(p, "sent the wrong number of tensor items");
    return false;
  }
  // Every header first, against the IR and the request, so nothing
  // unexpected is ever read; then the data, each chunk against its proof.
  std::vector<ChunkExpect> expect(sp.needed.size());
  if (readChunkHeaders(p, *got, want, sp, expect) &&
      readChunkData(p, want, expect, sp))
    return true;
  for (size_t i = 0; i < sp.needed.size(); ++i) {
    sp.chunkData[i].clear();
    sp.wholeTensors[i] = exec::Tensor();
  }
  return false;
}

bool RefereeDispute::readChunkHeaders(int p, const llvm::json::Array &got,
                                      const std::vector<Digest> &want,
                                      const SliceParts &sp,
                                      std::vector<ChunkExpect> &expect) {
  auto what = [&](size_t i) { return sp.needed[i].describe(); };
  for (size_t i = 0; i < sp.needed.size(); ++i) {
    const llvm::json::Object *o = got[i].getAsObject();
    std::string err;
    exec::ElemType type;
    std::vector<int64_t> sh;
    size_t bytes;
    if (!o || !parseTensorHeader(*o, type, sh, bytes, err) ||
        !digestFromJson(*o, "chunk_root", expect[i].root)) {
      s.lose(p, "sent an unreadable tensor item for " + what(i) +
                    (err.empty() ? "" : ": " + err));
      return false;
    }
    if (type != irType(sp.needed[i].v) || sh != irShape(sp.needed[i].v)) {
      s.lose(p, "sent a tensor item of another type or shape for " + what(i));
      return false;
    }
    int32_t dt = (int32_t)type;
    int64_t numel = trace::numElementsOf((int32_t)sh.size(), sh.data());
    expect[i].numChunks = (int64_t)trace::numChunks(dt, numel);
    if (trace::tensorHashFromRoot(dt, (int32_t)sh.size(), sh.data(),
                                  expect[i].root) != want[i]) {
      s.lose(p, "sent a chunk root for " + what(i) +
                    " that does not give the agreed hash " + toHex(want[i]));
      return false;
    }
    if (sp.whole[i]) {
      if (!o->getBoolean("whole").value_or(false)) {
        s.lose(p, "did not send the whole of " + what(i));
        return false;
      }
      continue;
    }
    const llvm::json::Array *cs = o->getArray("chunks");
    if (!cs || cs->size() != sp.chunkSets[i].size()) {
      s.lose(p, "sent the wrong chunks of " + what(i));
      return false;
    }
    auto wantChunk = sp.chunkSets[i].begin();
    for (const llvm::json::Value &cv : *cs) {
      const llvm::json::Object *co = cv.getAsObject();
      std::vector<Digest> proof;
      auto ci = co ? co->getInteger("chunk") : std::nullopt;
      auto cb = co ? co->getInteger("bytes") : std::nullopt;
      int64_t f0, cnt;
      trace::chunkRange(dt, numel, (size_t)*wantChunk, f0, cnt);
      if (!ci || *ci != *wantChunk || !cb ||
          *cb != cnt * (int64_t)exec::elemSize(type) ||
          !digestsFromJson(co->get("proof"), proof)) {
        s.lose(p, "sent a malformed chunk of " + what(i));
        return false;
      }
      expect[i].chunks.push_back({*ci, std::move(proof)});
      ++wantChunk;
    }
  }
  return true;
}

/// The data of every item: the whole tensor against its agreed hash, or
/// each chunk against its Merkle proof.
bool RefereeDispute::readChunkData(int p, const std::vector<Digest> &want,
                                   const std::vector<ChunkExpect> &expect,
                                   SliceParts &sp) {
  auto what = [&](size_t i) { return sp.needed[i].describe(); };
  for (size_t i = 0; i < sp.needed.size(); ++i) {
    std::string err;
    Value v = sp.needed[i].v;
    if (sp.whole[i]) {
      exec::Tensor t = exec::Tensor::make(irType(v), irShape(v));
      auto t0 = Clock::now();
      bool got = s.ch[p]->receiveBytes(static_cast<char *>(t.raw()),
                                       t.byteSize(), opts.roundTimeoutMs, err);
      s.waitMs += msSince(t0);
      if (!got) {
        s.lose(p, "did not send the data of " + what(i) + ": " + err);
        return false;
      }
      auto tv = Clock::now();
      bool match = trace::tensorHash(t) == want[i];
      res.verifyMs += msSince(tv);
      if (!match) {
        s.lose(p, "sent a tensor for " + what(i) +
                      " that does not match the agreed hash " +
                      toHex(want[i]));
        return false;
      }
      sp.wholeTensors[i] = std::move(t);
      continue;
    }
    size_t es = exec::elemSize(irType(v));
    std::vector<int64_t> sh = irShape(v);
    int64_t numel = trace::numElementsOf((int32_t)sh.size(), sh.data());
    for (auto &[ci, proof] : expect[i].chunks) {
      int64_t f0, cnt;
      trace::chunkRange((int32_t)irType(v), numel, (size_t)ci, f0, cnt);
      std::string bytes((size_t)cnt * es, '\0');
      auto t0 = Clock::now();
      bool got = s.ch[p]->receiveBytes(&bytes[0], bytes.size(),
                                       opts.roundTimeoutMs, err);
      s.waitMs += msSince(t0);
      if (!got) {
        s.lose(p, "did not send the data of " + what(i) + ": " + err);
        return false;
      }
      auto tv = Clock::now();
      Digest d = trace::chunkDigestOfBytes(bytes.data(), bytes.size());
      bool proven = trace::merkleVerifyFast(
          expect[i].root, (size_t)expect[i].numChunks, (size_t)ci, d, proof);
      res.verifyMs += msSince(tv);
      if (!proven) {
        s.lose(p, "sent chunk " + std::to_string(ci) + " of " + what(i) +
                      " that its Merkle proof does not tie to the agreed "
                      "hash " +
                      toHex(want[i]));
        return false;
      }
      sp.chunkData[i][ci] = std::move(bytes);
    }
  }
  return true;
}

/// The slice of node K around chunk `c`, from the supplied parts and the
/// constants, executed with the reference kernels and compared with both
/// parties' digests of the chunk.
bool RefereeDispute::executeChunk(const SlicePlan &plan, SliceParts &sp,
                                  int64_t c, int32_t dtype,
                                  const std::vector<int64_t> &shape,
                                  int64_t numel, const Digest claim[2]) {
  std::string err;
  std::vector<exec::Tensor> parts(plan.reads.size());
  for (size_t k = 0; k < plan.reads.size(); ++k) {
    const auto &[v, box] = plan.reads[k];
    auto it = sp.neededIndex.find(v);
    if (box.numElements() == 0) {
      parts[k] = exec::Tensor::make(irType(v), box.shape());
    } else if (it == sp.neededIndex.end()) {
      auto tc = Clock::now();
      bool okc = constantBox(v, box, parts[k], err);
      res.constantsMs += msSince(tc);
      if (!okc) {
        res.error = "referee: " + err;
        return false;
      }
    } else if (sp.whole[it->second]) {
      parts[k] = extractBox(sp.wholeTensors[it->second], box);
    } else if (!assembleBox(irType(v), irShape(v), box,
                            sp.chunkData[it->second], parts[k])) {
      res.error = "internal error: a needed input chunk is missing";
      return false;
    }
  }
  std::vector<const exec::Tensor *> ptrs;
  for (const exec::Tensor &t : parts)
    ptrs.push_back(&t);
  exec::Tensor outBox;
  auto t0 = Clock::now();
  bool ran = executeSlice(op, plan, ptrs, outBox, err);
  res.nodeExecMs = msSince(t0);
  res.executedNodes = 1;
  if (!ran) {
    res.error = "referee: executing part of node " + std::to_string(K) +
                " failed: " + err;
    return false;
  }
  int64_t first, count;
  trace::chunkRange(dtype, numel, (size_t)c, first, count);
  exec::Tensor mine = gatherRange(outBox, plan.out, shape, first, count);
  res.referenceChunk = trace::chunkDigest(dtype, mine.raw(), count, 0);
  res.haveReferenceChunk = true;
  res.computedElements = plan.out.numElements();
  res.outputFraction = numel ? (double)res.computedElements / numel : 1.0;
  res.log.push_back(
      "the referee computed " + std::to_string(res.computedElements) +
      " of the " + std::to_string(numel) + " output elements of node " +
      std::to_string(K) + ": chunk " + std::to_string(c) + " hashes to " +
      toHex(res.referenceChunk));
  for (int p = 0; p < 2; ++p) {
    if (!s.alive(p) || claim[p] == res.referenceChunk)
      continue;
    s.lose(p, "computed node " + std::to_string(K) + " ('" + res.op +
                  "') wrongly: its chunk " + std::to_string(c) +
                  " of result 0 (elements [" + std::to_string(first) + ", " +
                  std::to_string(first + count) + ")) hashes to " +
                  toHex(claim[p]) + ", the reference computation gives " +
                  toHex(res.referenceChunk));
  }
  return true;
}

/// 4b. Party p's turn to supply node K's inputs whole, each checked against
/// its agreed hash (the headers first, against the IR's types, so nothing
/// unexpected is ever read; then the attachment, straight into the
/// tensors).
bool RefereeDispute::supplyWhole(int p, std::vector<exec::Tensor> &supplied) {
  res.log.push_back("party " + s.name(p) + "'s turn to supply the " +
                    std::to_string(needed.size()) + " input tensor(s) of node " +
                    std::to_string(K));
  // The agreed hash of every needed earlier result, proven against the
  // supplier's root.
  std::vector<Digest> want;
  if (!agreedHashes(s, p, needed, n, inputHashes[0], ref.nodes, want))
    return false;
  llvm::json::Object msg = makeMessage("query_tensors");
  llvm::json::Array items;
  for (const Needed &nd : needed)
    items.push_back(nd.item());
  msg["items"] = std::move(items);
  llvm::json::Object reply;
  if (!s.ask(p, msg, "tensors", reply))
    return false;
  const llvm::json::Array *got = reply.getArray("items");
  if (!got || got->size() != needed.size()) {
    s.lose(p, "sent the wrong number of tensors");
    return false;
  }
  auto what = [&](size_t i) { return needed[i].describe(); };
  for (size_t i = 0; i < needed.size(); ++i) {
    const llvm::json::Object *o = (*got)[i].getAsObject();
    std::string err;
    exec::ElemType type;
    std::vector<int64_t> shape;
    size_t bytes;
    if (!o || !parseTensorHeader(*o, type, shape, bytes, err)) {
      s.lose(p, "sent an unreadable tensor for " + what(i) +
                    (err.empty() ? "" : ": " + err));
      return false;
    }
    exec::ElemType et = irType(needed[i].v);
    std::vector<int64_t> due = irShape(needed[i].v);
    if (type != et || shape != due) {
      // Described, never made: the party's shape may claim terabytes.
      s.lose(p, "sent a " + driver::describeTensor(type, shape) +
                    " tensor for " + what(i) + ", which is " +
                    driver::describeTensor(et, due));
      return false;
    }
    supplied[i] = exec::Tensor::make(type, shape);
  }
  for (size_t i = 0; i < needed.size(); ++i) {
    std::string err;
    auto t0 = Clock::now();
    bool got = s.ch[p]->receiveBytes(static_cast<char *>(supplied[i].raw()),
                                     supplied[i].byteSize(),
                                     opts.roundTimeoutMs, err);
    s.waitMs += msSince(t0);
    if (!got) {
      s.lose(p, "did not send the data of " + what(i) + ": " + err);
      return false;
    }
  }
  auto tv = Clock::now();
  std::vector<bool> matches(needed.size(), true);
  for (size_t i = 0; i < needed.size(); ++i)
    matches[i] = trace::tensorHash(supplied[i]) == want[i];
  res.verifyMs += msSince(tv);
  for (size_t i = 0; i < needed.size(); ++i)
    if (!matches[i]) {
      s.lose(p, "sent a tensor for " + what(i) +
                    " that does not match the agreed hash " + toHex(want[i]));
      return false;
    }
  return true;
}

/// 5. Re-executes node K with the reference kernels on the supplied inputs
/// and the IR's constants, and compares with both claims.
void RefereeDispute::executeWhole(std::vector<exec::Tensor> &supplied) {
  llvm::DenseMap<Value, const exec::Tensor *> env;
  for (size_t i = 0; i < needed.size(); ++i)
    env[needed[i].v] = &supplied[i];
  std::vector<exec::Tensor> constants;
  constants.reserve(constantAttrs.size()); // env points into it
  std::string err;
  for (auto &[v, attr] : constantAttrs) {
    constants.emplace_back();
    auto tc = Clock::now();
    auto ct = cast<ShapedType>(attr.getType());
    bool okc = constantBox(
        v,
        Box::whole(std::vector<int64_t>(ct.getShape().begin(),
                                        ct.getShape().end())),
        constants.back(), err);
    res.constantsMs += msSince(tc);
    if (!okc) {
      res.error = "referee: " + err;
      return;
    }
    env[v] = &constants.back();
  }
  std::vector<exec::Tensor> results;
  auto t0 = Clock::now();
  bool ran = exec::executeNode(op, env, results, err);
  res.nodeExecMs = msSince(t0);
  res.executedNodes = 1;
  res.outputFraction = 1.0;
  if (!ran) {
    res.error = "referee: executing node " + std::to_string(K) +
                " failed: " + err;
    return;
  }
  for (const exec::Tensor &t : results)
    res.referenceResults.push_back(trace::tensorHash(t));
  res.reference = trace::nodeHash(res.referenceResults);
  res.haveReference = true;
  res.log.push_back("the referee executed node " + std::to_string(K) +
                    ": node hash " + toHex(res.reference));
  for (int p = 0; p < 2; ++p) {
    PartyReport &r = res.parties[p];
    if (!s.alive(p) || !r.hasClaim || r.claim == res.reference)
      continue;
    std::string which;
    for (size_t i = 0; i < results.size(); ++i)
      if (i < r.claimResults.size() &&
          r.claimResults[i] != res.referenceResults[i])
        which += (which.empty() ? "" : ", ") + std::to_string(i);
    s.lose(p, "computed node " + std::to_string(K) + " ('" + res.op +
                  "') wrongly: it claims " + toHex(r.claim) +
                  ", the reference execution gives " + toHex(res.reference) +
                  " (result" +
                  (which.find(',') == std::string::npos ? " " : "s ") + which +
                  " differ)");
  }
}

DisputeResult Referee::run(Channel &a, Channel &b, const std::string names[2],
                           const RefereeOptions &opts) {
  return RefereeDispute(*this, a, b, names, opts).run();
}

} // namespace dispute
} // namespace plumb
