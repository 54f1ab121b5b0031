//===- include/plumb/Dispute/Party.h - A party answering from a trace -*- C++ -*-===//
//
// Part of Plumb. A dispute party that answers the referee from its trace
// folder (`plumb serve-trace`): its commitment, node hashes with Merkle
// proofs, subtree hashes of its node and chunk trees, and kept tensors. For the adversarial suite it can misbehave on
// purpose (testing aids, docs/dispute.md): lie about a hash, forge a proof,
// send tensors that do not match, or fall silent.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DISPUTE_PARTY_H
#define PLUMB_DISPUTE_PARTY_H

#include "plumb/Dispute/Protocol.h"
#include "plumb/Trace/Trace.h"

#include <cstdio>
#include <map>
#include <tuple>
#include <memory>
#include <string>

namespace plumb {
namespace dispute {

struct Behaviour {
  /// lie-hash=K: claim a different hash for node K's first result and commit
  /// to the root that follows (a consistent liar).
  int64_t lieHash = -1;
  /// inconsistent-hash=K: claim a node hash for K that is not the
  /// combination of its result hashes.
  int64_t inconsistentHash = -1;
  /// forge-proof=N: corrupt the N-th tree answer (1-based; "forge-proof"
  /// alone means 1): a query_node or query_chunk answer gets a wrong proof,
  /// a query_subtrees answer a wrong first hash.
  int64_t forgeProof = 0;
  /// bad-tensors: flip a bit of every tensor sent.
  bool badTensors = false;
  /// silent-after=N: answer the first N requests, then nothing.
  int64_t silentAfter = -1;
  /// silent-on-tensors: answer nothing from the first request for tensor
  /// data (query_tensors or query_tensor_chunks) on.
  bool silentOnTensors = false;
};

/// Parses one --behave value and adds it to `b`.
bool parseBehaviour(const std::string &spec, Behaviour &b, std::string &err);

class TraceParty : public Responder {
public:
  /// Reads and checks the trace in `dir`.
  static std::unique_ptr<TraceParty> open(const std::string &dir,
                                          const Behaviour &b,
                                          std::string &err);
  bool respond(const std::string &request, std::string &reply,
               std::string &attachment) override;
  /// True once the referee said "end".
  bool finished() const { return done; }

private:
  TraceParty() = default;
  std::string errorReply(const std::string &msg);
  std::string answerNode(const llvm::json::Object &req);
  std::string answerTensors(const llvm::json::Object &req,
                            std::string &attachment);
  std::string answerChunkRoot(const llvm::json::Object &req);
  std::string answerChunk(const llvm::json::Object &req);
  std::string answerSubtrees(const llvm::json::Object &req);
  /// Adds the frontier `req` asks for ("ranges" of `tree`) to the answer
  /// `r`: "hashes", and for the node tree each single node's "results".
  /// Returns an error message, or "".
  std::string frontier(const llvm::json::Object &req, llvm::StringRef tree,
                       llvm::json::Object &r);
  /// Counts a tree answer; true if it is the one forge-proof corrupts.
  bool forgeThis();
  std::string answerTensorChunks(const llvm::json::Object &req,
                                 std::string &attachment);

  /// A kept tensor with its chunk digests (loaded once).
  struct Kept {
    exec::Tensor tensor;
    std::vector<Digest> chunks;
    Digest root{};
  };
  /// The tensor an item names ({"kind": "input"|"node", "index", "result"}),
  /// or null with `err`.
  const Kept *kept(const llvm::json::Object &item, std::string &err);
  std::map<std::tuple<bool, int64_t, int64_t>, Kept> cache;
  bool silenced = false;
  /// Whether chunks.bin was read (every node result's chunk digests).
  bool haveChunks = false;
  /// The chunk digests of the node result a request names ("index",
  /// "result"): from chunks.bin, else from the kept tensor.
  const std::vector<Digest> *resultChunks(const llvm::json::Object &req,
                                          std::string &err);

  std::string dir;
  trace::Trace t;
  Behaviour b;
  std::vector<Digest> leaves; // node hashes as this party claims them
  Digest root{};
  int64_t requests = 0;
  int64_t treeAnswers = 0; // query_node, query_chunk, query_subtrees
  bool done = false;
};

/// Answers requests read line by line from `in` on `out` until end of input
/// or the referee's "end". Returns the exit status.
int serveParty(TraceParty &party, FILE *in, FILE *out);

} // namespace dispute
} // namespace plumb

#endif // PLUMB_DISPUTE_PARTY_H
