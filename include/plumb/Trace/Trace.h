//===- include/plumb/Trace/Trace.h - Per-node hash traces -----*- C++ -*-===//
//
// Part of Plumb. A trace is the per-node record of one run: for every node in
// canonical order the canonical hash of each of its results, the node hash
// that combines them, and a Merkle root over the node hashes. It lives in a
// folder with a versioned manifest `trace.json` and, with --keep-tensors,
// every node's output tensors under `tensors/`. The format is specified in
// docs/trace.md; this header is its one implementation.
//
//   node hash = SHA-256("plumb-node-v1" || u32le(m) || h_0 || ... || h_{m-1})
//               h_r: the trace tensor hash of result r (TensorHasher.h:
//               "plumb-tensor-v2", a Merkle root over 16 KiB chunks)
//   root      = Merkle root (Support/Merkle.h) over the node hashes
//   run id    = SHA-256("plumb-run-v1" || graph hash || u32le(#inputs)
//               || input hashes || u64le(#nodes) || root)
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_TRACE_TRACE_H
#define PLUMB_TRACE_TRACE_H

#include "plumb/Interpreter/Tensor.h"
#include "plumb/Support/Merkle.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plumb {
namespace trace {

/// The manifest's "format" and "version" fields. The version changes with
/// any change of the manifest, the hashes or the tensor files.
constexpr const char *kTraceFormat = "plumb-trace";
constexpr int64_t kTraceVersion = 2;

/// One graph input as the run saw it.
struct InputRecord {
  std::string name;
  exec::ElemType type = exec::ElemType::F32;
  std::vector<int64_t> shape;
  Digest hash{};
};

/// One node: its canonical index, structural id (Canonical/Identity.h), op
/// name, result hashes and node hash.
struct NodeRecord {
  int64_t index = 0;
  Digest id{};
  std::string op;
  std::vector<Digest> results;
  Digest hash{};
  /// Per result: its dtype code, shape and chunk digests (written to
  /// chunks.bin; empty when not known, e.g. after reading trace.json).
  std::vector<int32_t> resultTypes;
  std::vector<std::vector<int64_t>> resultShapes;
  std::vector<std::vector<Digest>> resultChunks;
};

struct Trace {
  int64_t version = kTraceVersion;
  std::string contract;
  Digest graphHash{};
  std::vector<InputRecord> inputs;
  std::vector<NodeRecord> nodes;
  Digest root{};
  Digest runId{};
  /// Whether tensors/ holds every node's results and every input.
  bool hasTensors = false;
  /// Fault injected while recording ("" for none); informational, so a
  /// trace made with --inject-fault says so.
  std::string note;
  /// Wall time of the traced run in milliseconds; informational (not part of
  /// any hash).
  double runMs = 0;

  std::vector<Digest> nodeHashes() const;
  std::vector<Digest> inputHashes() const;
};

/// The node hash of a node whose results hash to `results`.
Digest nodeHash(llvm::ArrayRef<Digest> results);
/// The run identity (see above).
Digest runIdentity(const Digest &graphHash, llvm::ArrayRef<Digest> inputHashes,
                   uint64_t numNodes, const Digest &root);
/// Fills every node's hash, the root and the run id from the result hashes.
void sealTrace(Trace &t);

/// File names inside a trace folder.
std::string manifestPath(const std::string &dir);
std::string nodeTensorPath(const std::string &dir, int64_t node,
                           unsigned result);
std::string inputTensorPath(const std::string &dir, unsigned input);
std::string chunksPath(const std::string &dir);

/// chunks.bin: every node result's chunk digests, so a party can answer a
/// chunk search without its tensors. "PLMBCHK1", then for each node in
/// order and each of its results: dtype (u8), rank (u8), dims (u64le each),
/// chunk count (u64le), the digests (32 bytes each).
bool writeChunkFile(const std::string &dir, const Trace &t, std::string &err);
/// Reads chunks.bin into the node records of `t` (a trace read from the
/// same folder), checking each result's digests against its hash.
bool readChunkFile(const std::string &dir, Trace &t, std::string &err);

/// The manifest as JSON text (the exact bytes writeTrace writes).
std::string traceToJson(const Trace &t);
/// Parses and checks a manifest: format and version, every hash well formed,
/// node indices 0..n-1 in order, each node hash equal to the combination of
/// its result hashes, the root and the run id recomputed from them.
bool traceFromJson(const std::string &text, Trace &out, std::string &err);

/// Writes trace.json into `dir` (created if needed).
bool writeTrace(const std::string &dir, const Trace &t, std::string &err);
/// Reads and checks `dir`/trace.json.
bool readTrace(const std::string &dir, Trace &out, std::string &err);

/// Reads a kept tensor and checks it against its recorded hash.
bool loadNodeTensor(const std::string &dir, const Trace &t, int64_t node,
                    unsigned result, exec::Tensor &out, std::string &err);
bool loadInputTensor(const std::string &dir, const Trace &t, unsigned input,
                     exec::Tensor &out, std::string &err);

} // namespace trace
} // namespace plumb

#endif // PLUMB_TRACE_TRACE_H
