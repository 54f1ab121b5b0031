//===- include/plumb/Dispute/Referee.h - Refereed delegation --*- C++ -*-===//
//
// Part of Plumb. The referee of a dispute between two parties that ran the
// same canonical module on the same inputs and committed to different trace
// roots (docs/dispute.md): it finds the first node whose output they disagree
// on by descending their Merkle trees four levels a round (about
// ceil(log2 n) / 4 rounds, plus one for the node's claims), then the first
// chunk of that node's result they disagree on by descending the result's
// chunk tree the same way, has a party supply the input chunks that chunk reads
// (checked by Merkle proofs against the agreed hashes), recomputes only
// those output elements with the reference kernels and says who computed
// them wrongly (Dispute/Slice.h). Ops without a slicing rule, and disputes
// where only one party is left to judge, re-execute the whole node. It
// never runs the model.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_DISPUTE_REFEREE_H
#define PLUMB_DISPUTE_REFEREE_H

#include "plumb/Dispute/Protocol.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace plumb {
namespace dispute {

struct RefereeOptions {
  /// How long a party may take to answer one request.
  int roundTimeoutMs = 20000;
  /// Input hashes the referee knows independently (from input files), by
  /// input position; a party that commits to other inputs loses. Inputs
  /// bound in the IR (plumb.bound_value) are always known.
  std::vector<std::optional<Digest>> knownInputs;
  /// Hold the chunk search even where the result is one chunk that reads
  /// its inputs whole (it adds a round to the same computation; by
  /// default such a node is executed whole). For tests of the chunk search
  /// on small programs.
  bool searchOneChunk = false;
};

struct PartyReport {
  std::string name;
  bool lost = false;
  std::string reason;
  bool committed = false;
  Digest root{};
  double runMs = 0; // from its commitment (informational)
  bool hasClaim = false;
  Digest claim{};
  std::vector<Digest> claimResults;
  /// Its digest of the divergent chunk (sub-node disputes).
  bool hasChunkClaim = false;
  Digest chunkClaim{};
  uint64_t bytesSent = 0;     // referee to party
  uint64_t bytesReceived = 0; // party to referee
};

struct DisputeResult {
  /// Set when no dispute could be held (e.g. the parties ran different
  /// inputs and the referee cannot tell which); nobody is blamed.
  std::string error;
  bool rootsAgree = false;
  int64_t firstDivergent = -1;
  Digest nodeId{};
  std::string op;
  /// Node search rounds: the Merkle descent (query_subtrees, both parties
  /// at once) plus the node query.
  int rounds = 0;
  /// Requests sent to the parties, all phases.
  int messages = 0;
  uint64_t bytes = 0;
  /// Nodes the referee executed (1 once the node is found and a party
  /// supplied its inputs; 0 otherwise).
  int executedNodes = 0;
  /// The party whose tensors the referee used.
  std::string supplier;
  bool haveReference = false;
  Digest reference{};
  std::vector<Digest> referenceResults;
  /// Sub-node dispute: the second bisection over the chunks of result
  /// `divergentResult` of the node found chunk `divergentChunk` of
  /// `numChunks`, and the referee computed only `computedElements` of the
  /// result's `resultElements` (the output box covering that chunk).
  bool subNode = false;
  /// Why the node was executed whole (when it was).
  std::string wholeNodeReason;
  int divergentResult = -1;
  int64_t divergentChunk = -1;
  int64_t numChunks = 0;
  /// Chunk search rounds: the chunk roots, then the chunk tree descent
  /// (whose last round gives the digests of the divergent chunk).
  int chunkRounds = 0;
  int64_t computedElements = 0;
  int64_t resultElements = 0;
  bool haveReferenceChunk = false;
  Digest referenceChunk{};
  /// Share of the node's output the referee computed (1 when whole).
  double outputFraction = 0;
  /// The referee's own time (waiting on parties excluded), the time of the
  /// one node execution, and the wall time of the whole protocol, counted
  /// from the commitment request (the model's set-up, including hashing the
  /// inputs the IR binds, is the Referee constructor's, once per model).
  double refereeMs = 0;
  double nodeExecMs = 0;
  double wallMs = 0;
  /// CPU time of the referee's thread over the whole protocol, from the
  /// same point (user and
  /// system: its JSON, hashing and execution, and the kernel's work for its
  /// messages; time blocked waiting for parties is not CPU time).
  double cpuMs = 0;
  /// Parts of refereeMs: loading the node's constants from the IR, and
  /// checking supplied data (hashing tensors and chunks, chunk proofs); the
  /// rest of it is the protocol (messages, JSON, node and chunk proofs) and
  /// preparing the operands.
  double constantsMs = 0;
  double verifyMs = 0;
  PartyReport parties[2];
  /// What happened, one line per step (the evidence).
  std::vector<std::string> log;

  /// "A", "B", "both" or "none" (by party names).
  std::string loser() const;
};

class RefereeDispute;

class Referee {
public:
  /// `module` is the referee's own canonical module (plumb-canonicalize).
  explicit Referee(mlir::ModuleOp module);

  /// Holds the dispute between parties named `names` on `a` and `b`.
  DisputeResult run(Channel &a, Channel &b, const std::string names[2],
                    const RefereeOptions &opts);

  int64_t numNodes() const { return (int64_t)nodes.size(); }
  const Digest &graphHash() const { return graph; }

private:
  friend class RefereeDispute; // one dispute, phase by phase (Referee.cpp)
  mlir::ModuleOp module;
  mlir::func::FuncOp main;
  std::vector<mlir::Operation *> nodes;
  std::vector<Digest> nodeIds;
  Digest graph{};
  std::string contract;
  /// Inputs the IR binds (plumb.bound_value): their hashes, by argument.
  std::vector<std::optional<Digest>> boundInputs;
  /// The commitment request (it carries the node tree's first frontier).
  llvm::json::Object commitRequest;
};

/// The values defined outside `op` that it reads: its operands, then values
/// its regions capture, each once, in first-use order.
std::vector<mlir::Value> externalValues(mlir::Operation *op);

} // namespace dispute
} // namespace plumb

#endif // PLUMB_DISPUTE_REFEREE_H
