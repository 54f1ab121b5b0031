//===- test/fuzz/fuzz_trace.cpp - Reading a trace folder ------------------===//
//
// Part of Plumb. The input is an archive (FuzzSupport.h) of a trace folder:
// trace.json, and optionally chunks.bin and tensors/*.npy. The harness reads
// it as a party does (trace::readTrace, then readChunkFile when chunks.bin
// is there, then every kept tensor with loadInputTensor / loadNodeTensor).
// With a member "reseal" the harness first makes trace.json's hashes
// consistent, as a forger would (resealed()).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "plumb/Trace/Trace.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace {

using namespace plumb;

/// trace.json with every node hash, the root and the run id recomputed from
/// the result, input and graph hashes it gives, as a forger would write it;
/// the text as given where those do not parse.
std::string resealed(const std::string &text) {
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return text;
  }
  llvm::json::Object *o = parsed->getAsObject();
  llvm::json::Array *nodes = o ? o->getArray("nodes") : nullptr;
  llvm::json::Array *inputs = o ? o->getArray("inputs") : nullptr;
  auto graph = o ? o->getString("graph_hash") : std::nullopt;
  Digest graphHash;
  if (!nodes || !inputs || !graph || !fromHex(graph->str(), graphHash))
    return text;
  std::vector<Digest> inputHashes, nodeHashes;
  for (llvm::json::Value &v : *inputs) {
    llvm::json::Object *in = v.getAsObject();
    auto h = in ? in->getString("sha256") : std::nullopt;
    Digest d;
    if (!h || !fromHex(h->str(), d))
      return text;
    inputHashes.push_back(d);
  }
  for (llvm::json::Value &v : *nodes) {
    llvm::json::Object *n = v.getAsObject();
    llvm::json::Array *results = n ? n->getArray("results") : nullptr;
    if (!results)
      return text;
    std::vector<Digest> rs;
    for (llvm::json::Value &r : *results) {
      auto h = r.getAsString();
      Digest d;
      if (!h || !fromHex(h->str(), d))
        return text;
      rs.push_back(d);
    }
    nodeHashes.push_back(trace::nodeHash(rs));
    (*n)["hash"] = toHex(nodeHashes.back());
  }
  Digest root = merkleRoot(nodeHashes);
  (*o)["root"] = toHex(root);
  (*o)["run_id"] = toHex(
      trace::runIdentity(graphHash, inputHashes, nodeHashes.size(), root));
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*o)));
  return os.str();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::map<std::string, std::string> files = fuzz::splitArchive(data, size);
  // With a member "reseal", the harness makes trace.json's own hashes
  // consistent first (resealed()), so that what lies behind those checks
  // is fuzzed too.
  if (files.count("reseal") && files.count("trace.json"))
    files["trace.json"] = resealed(files["trace.json"]);
  std::string dir = fuzz::freshDir("trace");
  fuzz::writeMembers(dir, files);
  trace::Trace t;
  std::string err;
  bool read = trace::readTrace(dir, t, err);
  if (fuzz::verbose())
    std::fprintf(stderr, "%s\n", read ? "read" : err.c_str());
  if (!read) {
    if (err.empty())
      std::abort();
    return 0;
  }
  if (files.count("chunks.bin") && !trace::readChunkFile(dir, t, err) &&
      err.empty())
    std::abort();
  if (!t.hasTensors)
    return 0;
  // Bounded: a trace claiming a million nodes reads at most 64 tensors.
  int budget = 64;
  for (unsigned i = 0; i < t.inputs.size() && budget > 0; ++i, --budget) {
    exec::Tensor x;
    err.clear();
    if (!trace::loadInputTensor(dir, t, i, x, err) && err.empty())
      std::abort();
  }
  for (int64_t n = 0; n < (int64_t)t.nodes.size() && budget > 0; ++n)
    for (unsigned r = 0; r < t.nodes[n].results.size() && budget > 0;
         ++r, --budget) {
      exec::Tensor x;
      err.clear();
      if (!trace::loadNodeTensor(dir, t, n, r, x, err) && err.empty())
        std::abort();
    }
  return 0;
}
