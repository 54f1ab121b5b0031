//===- python/src/Core.h - What the Python module calls --------*- C++ -*-===//
//
// Part of Plumb. The Python module's view of the library, in plain C++
// types: no MLIR, LLVM or nanobind header appears here. Core.cpp is
// compiled like the rest of Plumb (no RTTI, no exceptions) and calls the
// same library functions `plumb` does (Driver/, Bundle/Run.h, Cost/,
// Dispute/); Module.cpp, the nanobind side, turns its results and errors
// into Python objects. Errors carry the tool's messages.
//
//===----------------------------------------------------------------------===//
#ifndef PLUMB_PYTHON_CORE_H
#define PLUMB_PYTHON_CORE_H

#include "plumb/runtime/model_abi.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace plumb {
namespace py {

/// What went wrong, and which Python exception says so.
struct Error {
  enum Kind { None, Plumb, Model, Input, Usage } kind = None;
  std::string message;
  explicit operator bool() const { return kind != None; }
  bool set(Kind k, std::string m) {
    kind = k;
    message = std::move(m);
    return false;
  }
};

/// Import options in the tool's syntax ("x=1x3x224x224", "N=1", "k=3").
struct Bindings {
  std::vector<std::string> inputShapes, dims, inputValues;
};

/// An input or output of a model: dtype codes as in model_abi.h (1 float32,
/// 2 int64, 3 int32, 4 bool).
struct TensorInfo {
  std::string name;
  int32_t dtype = 1;
  std::vector<int64_t> shape;
  bool bound = false; // fixed at import (--input-value)
};

struct NodeInfo {
  int64_t index = 0;
  std::string id, op;
  uint64_t gas = 0;
};

struct CostRow {
  int64_t index = 0;
  std::string id, op, shapes;
  uint64_t gas = 0, flops = 0, bytes = 0;
  uint64_t macs = 0, elementwise = 0, transcendental = 0, compare = 0,
           indexed = 0, bytesRead = 0, bytesWritten = 0;
};
struct CostOpType {
  std::string op;
  uint64_t nodes = 0, flops = 0, bytes = 0, gas = 0;
};
struct CostReport {
  std::string schedule, graphHash;
  uint64_t totalGas = 0, totalFlops = 0, totalBytes = 0;
  std::vector<CostRow> nodes;
  std::vector<CostOpType> opTypes;
};

/// The canonical IR text (`plumb import`).
std::string importModel(const std::string &path, const Bindings &b,
                        bool canonicalize, Error &err);
/// The graph hash, 64 hex digits (`plumb hash`).
std::string hashModel(const std::string &path, const Bindings &b, Error &err);
/// Writes the bundle of the model at `path` into `dir` (`plumb compile`);
/// `target`: cpu, cuda or all. `importArgs` are recorded in the manifest.
bool compileModel(const std::string &path, const Bindings &b,
                  const std::string &target, const std::string &dir,
                  const std::string &sourceName, Error &err);

/// How one run goes.
struct RunRequest {
  int threads = 1;
  std::string device = "cpu";
  bool interpret = false;
  std::string traceDir; // record a trace there
  bool keepTensors = false;
};
struct RunReport {
  std::string traceRoot; // hex, when a trace was recorded
  int64_t traceNodes = 0;
};

struct PartyVerdict {
  std::string name, reason, root, claim;
  bool lost = false;
  uint64_t bytesSent = 0, bytesReceived = 0;
};
struct Verdict {
  std::string loser, nodeId, op, error, supplier, graphHash;
  int64_t firstDivergentIndex = -1, numNodes = 0;
  int rounds = 0, messages = 0, executedNodes = 0, chunkRounds = 0;
  uint64_t bytesExchanged = 0;
  bool rootsAgree = false, subNode = false;
  int64_t divergentChunk = -1, numChunks = 0;
  double refereeMs = 0;
  PartyVerdict parties[2];
  std::vector<std::string> log;
};

/// A verified bundle (opened as `plumb run` opens it) and the libraries
/// loaded for it. Runs of one library are serialised (a model's arena is
/// its own); the caller may release the GIL around run().
class Bundle {
public:
  static std::unique_ptr<Bundle> open(const std::string &dir, Error &err);
  ~Bundle();

  const std::string &dir() const;
  const std::string &graphHash() const;
  const std::vector<TensorInfo> &inputs() const;
  const std::vector<TensorInfo> &outputs() const;
  std::vector<NodeInfo> nodes() const;
  bool cost(const std::string &schedule, CostReport &out, Error &err) const;

  /// The one input check (driver::checkInputs), with its message. An
  /// input fixed at import may be omitted (a view without data): it gets
  /// its bound value, kept in `bound`.
  bool checkInputs(std::vector<plumb_tensor_view> &inputs,
                   std::vector<std::vector<uint64_t>> &bound,
                   Error &err) const;
  /// Checks the arguments of a run (the tool's usage errors).
  static bool validate(const RunRequest &r, Error &err);
  /// Makes sure what a run on `device` needs is there (the bundle verified
  /// for it, its library built or taken from the cache and loaded). Call
  /// with the GIL held or not; it may compile (seconds).
  bool prepare(const RunRequest &r, Error &err);
  /// Runs on checked inputs into `outputs` (allocated by the caller in the
  /// outputs' types). Compiled runs without a trace read the inputs and
  /// write the outputs in place; the others copy them.
  bool run(const std::vector<plumb_tensor_view> &inputs,
           std::vector<plumb_tensor_view> &outputs, const RunRequest &r,
           RunReport &report, Error &err);

  /// Settles a dispute between two trace folders over this bundle's model
  /// (`plumb dispute BUNDLE --party A=DIR --party B=DIR`), the parties
  /// answering in this process. `known` are inputs the referee knows (an
  /// empty view: unknown).
  bool dispute(const std::string &dirA, const std::string &dirB,
               const std::string &nameA, const std::string &nameB,
               const std::vector<plumb_tensor_view> &known, int timeoutMs,
               Verdict &out, Error &err);

  struct State;

private:
  Bundle() = default;
  std::unique_ptr<State> s;
};

/// SHA-256 of the canonical encoding of a tensor (`plumb run`'s output
/// hashes).
std::string tensorHash(const plumb_tensor_view &t);

/// Plumb's version and contract.
const char *version();
const char *contract();

} // namespace py
} // namespace plumb

#endif // PLUMB_PYTHON_CORE_H
