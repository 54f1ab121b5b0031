//===- lib/Trace/Trace.cpp - Trace hashes and the trace folder ------------===//
//
// Part of Plumb. See include/plumb/Trace/Trace.h and docs/trace.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Trace/Trace.h"

#include "plumb/Driver/Files.h"
#include "plumb/Driver/TensorIO.h"
#include "plumb/Trace/TensorHasher.h"
#include "plumb/runtime/sha256.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstring>

namespace plumb {
namespace trace {

static void putU32(plumb_sha256_ctx &ctx, uint32_t v) {
  uint8_t le[4];
  for (int i = 0; i < 4; ++i)
    le[i] = (uint8_t)(v >> (8 * i));
  plumb_sha256_update(&ctx, le, 4);
}

static void putU64(plumb_sha256_ctx &ctx, uint64_t v) {
  uint8_t le[8];
  for (int i = 0; i < 8; ++i)
    le[i] = (uint8_t)(v >> (8 * i));
  plumb_sha256_update(&ctx, le, 8);
}

Digest nodeHash(llvm::ArrayRef<Digest> results) {
  plumb_sha256_ctx ctx;
  plumb_sha256_init(&ctx);
  static const char tag[] = "plumb-node-v1";
  plumb_sha256_update(&ctx, tag, sizeof(tag) - 1);
  putU32(ctx, (uint32_t)results.size());
  for (const Digest &d : results)
    plumb_sha256_update(&ctx, d.data(), d.size());
  Digest out;
  plumb_sha256_final(&ctx, out.data());
  return out;
}

Digest runIdentity(const Digest &graphHash, llvm::ArrayRef<Digest> inputHashes,
                   uint64_t numNodes, const Digest &root) {
  plumb_sha256_ctx ctx;
  plumb_sha256_init(&ctx);
  static const char tag[] = "plumb-run-v1";
  plumb_sha256_update(&ctx, tag, sizeof(tag) - 1);
  plumb_sha256_update(&ctx, graphHash.data(), 32);
  putU32(ctx, (uint32_t)inputHashes.size());
  for (const Digest &d : inputHashes)
    plumb_sha256_update(&ctx, d.data(), 32);
  putU64(ctx, numNodes);
  plumb_sha256_update(&ctx, root.data(), 32);
  Digest out;
  plumb_sha256_final(&ctx, out.data());
  return out;
}

std::vector<Digest> Trace::nodeHashes() const {
  std::vector<Digest> h;
  h.reserve(nodes.size());
  for (const NodeRecord &n : nodes)
    h.push_back(n.hash);
  return h;
}

std::vector<Digest> Trace::inputHashes() const {
  std::vector<Digest> h;
  for (const InputRecord &i : inputs)
    h.push_back(i.hash);
  return h;
}

void sealTrace(Trace &t) {
  for (NodeRecord &n : t.nodes)
    n.hash = nodeHash(n.results);
  t.root = merkleRoot(t.nodeHashes());
  t.runId = runIdentity(t.graphHash, t.inputHashes(), t.nodes.size(), t.root);
}

std::string manifestPath(const std::string &dir) { return dir + "/trace.json"; }

std::string nodeTensorPath(const std::string &dir, int64_t node,
                           unsigned result) {
  return dir + "/tensors/node-" + std::to_string(node) + "." +
         std::to_string(result) + ".npy";
}

std::string inputTensorPath(const std::string &dir, unsigned input) {
  return dir + "/tensors/input-" + std::to_string(input) + ".npy";
}

std::string chunksPath(const std::string &dir) { return dir + "/chunks.bin"; }

static const char kChunkMagic[8] = {'P', 'L', 'M', 'B', 'C', 'H', 'K', '1'};

bool writeChunkFile(const std::string &dir, const Trace &t, std::string &err) {
  std::string data(kChunkMagic, 8);
  auto u64 = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i)
      data += (char)(uint8_t)(v >> (8 * i));
  };
  for (const NodeRecord &n : t.nodes) {
    if (n.resultChunks.size() != n.results.size()) {
      err = "internal error: node " + std::to_string(n.index) +
            " has no chunk digests";
      return false;
    }
    for (size_t r = 0; r < n.results.size(); ++r) {
      data += (char)(uint8_t)n.resultTypes[r];
      data += (char)(uint8_t)n.resultShapes[r].size();
      for (int64_t d : n.resultShapes[r])
        u64((uint64_t)d);
      u64(n.resultChunks[r].size());
      for (const Digest &d : n.resultChunks[r])
        data.append(reinterpret_cast<const char *>(d.data()), 32);
    }
  }
  return writeFileAtomically(chunksPath(dir), data, err);
}

bool readChunkFile(const std::string &dir, Trace &t, std::string &err) {
  std::string path = chunksPath(dir);
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    err = "cannot read '" + path + "': " + buf.getError().message();
    return false;
  }
  llvm::StringRef data = (*buf)->getBuffer();
  size_t pos = 0;
  auto bad = [&](const std::string &why) {
    err = "'" + path + "': " + why;
    return false;
  };
  auto take = [&](size_t n, const char *&p) {
    if (data.size() - pos < n)
      return false;
    p = data.data() + pos;
    pos += n;
    return true;
  };
  auto u64 = [&](uint64_t &v) {
    const char *p;
    if (!take(8, p))
      return false;
    v = 0;
    for (int i = 0; i < 8; ++i)
      v |= (uint64_t)(uint8_t)p[i] << (8 * i);
    return true;
  };
  const char *p;
  if (!take(8, p) || std::memcmp(p, kChunkMagic, 8) != 0)
    return bad("not a chunk digest file");
  for (NodeRecord &n : t.nodes) {
    n.resultTypes.clear();
    n.resultShapes.clear();
    n.resultChunks.clear();
    for (size_t r = 0; r < n.results.size(); ++r) {
      std::string where = "node " + std::to_string(n.index) + " result " +
                          std::to_string(r);
      if (!take(2, p))
        return bad("truncated at " + where);
      int32_t dtype = (uint8_t)p[0];
      size_t rank = (uint8_t)p[1];
      if (dtype < 1 || dtype > 4)
        return bad(where + ": unknown dtype");
      std::vector<int64_t> shape(rank);
      uint64_t numel = 1;
      for (size_t i = 0; i < rank; ++i) {
        uint64_t d;
        if (!u64(d) || d > (uint64_t(1) << 40))
          return bad("truncated or insane dimension at " + where);
        shape[i] = (int64_t)d;
        numel = d && numel > (uint64_t(1) << 40) / d ? (uint64_t(1) << 41)
                                                     : numel * d;
      }
      uint64_t count;
      if (!u64(count) || numel > (uint64_t(1) << 40) ||
          count != numChunks(dtype, (int64_t)numel))
        return bad(where + ": wrong chunk count");
      // The digests must be in the file before room is made for them (a
      // claimed 2^40-element result would otherwise allocate 16 GiB).
      if ((data.size() - pos) / 32 < count)
        return bad("truncated at " + where + ": " + std::to_string(count) +
                   " chunk digests claimed, " +
                   std::to_string((data.size() - pos) / 32) + " in the file");
      std::vector<Digest> ds(count);
      for (Digest &d : ds) {
        if (!take(32, p))
          return bad("truncated at " + where);
        std::memcpy(d.data(), p, 32);
      }
      if (tensorHashFromRoot(dtype, (int32_t)rank, shape.data(),
                             chunkRoot(ds)) != n.results[r])
        return bad(where + ": the chunk digests do not give the result hash "
                           "in trace.json");
      n.resultTypes.push_back(dtype);
      n.resultShapes.push_back(std::move(shape));
      n.resultChunks.push_back(std::move(ds));
    }
  }
  if (pos != data.size())
    return bad("trailing bytes");
  return true;
}

//===----------------------------------------------------------------------===//
// trace.json
//===----------------------------------------------------------------------===//

static std::string quote(llvm::StringRef s) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::json::Value(s.str());
  return os.str();
}

static std::string dimsText(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

std::string traceToJson(const Trace &t) {
  std::string j = "{\n";
  j += "  \"format\": \"" + std::string(kTraceFormat) + "\",\n";
  j += "  \"version\": " + std::to_string(t.version) + ",\n";
  j += "  \"contract\": " + quote(t.contract) + ",\n";
  j += "  \"graph_hash\": \"" + toHex(t.graphHash) + "\",\n";
  j += "  \"num_nodes\": " + std::to_string(t.nodes.size()) + ",\n";
  j += "  \"root\": \"" + toHex(t.root) + "\",\n";
  j += "  \"run_id\": \"" + toHex(t.runId) + "\",\n";
  j += "  \"tensors\": " + std::string(t.hasTensors ? "true" : "false") + ",\n";
  char ms[64];
  std::snprintf(ms, sizeof(ms), "%.3f", t.runMs);
  j += "  \"run_ms\": " + std::string(ms) + ",\n";
  j += "  \"note\": " + quote(t.note) + ",\n";
  j += "  \"inputs\": [";
  for (size_t i = 0; i < t.inputs.size(); ++i) {
    const InputRecord &in = t.inputs[i];
    j += std::string(i ? ",\n" : "\n") + "    {\"index\": " + std::to_string(i) +
         ", \"name\": " + quote(in.name) + ", \"dtype\": \"" +
         exec::elemTypeName(in.type) + "\", \"shape\": " + dimsText(in.shape) +
         ", \"sha256\": \"" + toHex(in.hash) + "\"}";
  }
  j += t.inputs.empty() ? "],\n" : "\n  ],\n";
  j += "  \"nodes\": [";
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const NodeRecord &n = t.nodes[i];
    j += std::string(i ? ",\n" : "\n") + "    {\"index\": " +
         std::to_string(n.index) + ", \"id\": \"" + toHex(n.id) +
         "\", \"op\": " + quote(n.op) + ", \"hash\": \"" + toHex(n.hash) +
         "\", \"results\": [";
    for (size_t r = 0; r < n.results.size(); ++r)
      j += (r ? ", \"" : "\"") + toHex(n.results[r]) + "\"";
    j += "]}";
  }
  j += t.nodes.empty() ? "]\n" : "\n  ]\n";
  j += "}\n";
  return j;
}

static bool elemTypeFromName(llvm::StringRef s, exec::ElemType &out) {
  for (exec::ElemType t : {exec::ElemType::F32, exec::ElemType::I64,
                           exec::ElemType::I32, exec::ElemType::Bool})
    if (s == exec::elemTypeName(t)) {
      out = t;
      return true;
    }
  return false;
}

static bool digestField(const llvm::json::Object &o, llvm::StringRef key,
                        Digest &out, std::string &err,
                        const std::string &where) {
  auto s = o.getString(key);
  if (!s || !fromHex(s->str(), out)) {
    err = where + ": '" + key.str() + "' must be 64 hex digits";
    return false;
  }
  return true;
}

bool traceFromJson(const std::string &text, Trace &out, std::string &err) {
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    err = "not JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *o = parsed->getAsObject();
  if (!o) {
    err = "the manifest is not a JSON object";
    return false;
  }
  auto format = o->getString("format");
  if (!format || *format != kTraceFormat) {
    err = "not a Plumb trace ('format' must be \"plumb-trace\")";
    return false;
  }
  auto version = o->getInteger("version");
  if (!version || *version != kTraceVersion) {
    err = "unsupported trace version " +
          (version ? std::to_string(*version) : std::string("(missing)")) +
          " (this Plumb reads version " + std::to_string(kTraceVersion) + ")";
    return false;
  }
  Trace t;
  t.version = *version;
  auto contract = o->getString("contract");
  auto tensors = o->getBoolean("tensors");
  auto numNodes = o->getInteger("num_nodes");
  const llvm::json::Array *inputs = o->getArray("inputs");
  const llvm::json::Array *nodes = o->getArray("nodes");
  if (!contract || !tensors || !numNodes || !inputs || !nodes) {
    err = "the manifest lacks one of 'contract', 'tensors', 'num_nodes', "
          "'inputs', 'nodes'";
    return false;
  }
  t.contract = contract->str();
  t.hasTensors = *tensors;
  if (auto ms = o->getNumber("run_ms"))
    t.runMs = *ms;
  if (auto note = o->getString("note"))
    t.note = note->str();
  Digest root, runId;
  if (!digestField(*o, "graph_hash", t.graphHash, err, "manifest") ||
      !digestField(*o, "root", root, err, "manifest") ||
      !digestField(*o, "run_id", runId, err, "manifest"))
    return false;
  for (size_t i = 0; i < inputs->size(); ++i) {
    std::string where = "input " + std::to_string(i);
    const llvm::json::Object *io = (*inputs)[i].getAsObject();
    if (!io) {
      err = where + " is not an object";
      return false;
    }
    InputRecord in;
    auto name = io->getString("name");
    auto dtype = io->getString("dtype");
    const llvm::json::Array *shape = io->getArray("shape");
    if (!name || !dtype || !elemTypeFromName(*dtype, in.type) || !shape) {
      err = where + " needs 'name', 'dtype' (float32, int64, int32, bool) and "
                    "'shape'";
      return false;
    }
    in.name = name->str();
    for (const llvm::json::Value &d : *shape) {
      auto v = d.getAsInteger();
      if (!v || *v < 0) {
        err = where + ": a dimension is not a non-negative integer";
        return false;
      }
      in.shape.push_back(*v);
    }
    if (!digestField(*io, "sha256", in.hash, err, where))
      return false;
    t.inputs.push_back(std::move(in));
  }
  if ((size_t)*numNodes != nodes->size()) {
    err = "'num_nodes' is " + std::to_string(*numNodes) + " but 'nodes' has " +
          std::to_string(nodes->size()) + " entries";
    return false;
  }
  for (size_t i = 0; i < nodes->size(); ++i) {
    std::string where = "node " + std::to_string(i);
    const llvm::json::Object *no = (*nodes)[i].getAsObject();
    if (!no) {
      err = where + " is not an object";
      return false;
    }
    NodeRecord n;
    auto index = no->getInteger("index");
    auto op = no->getString("op");
    const llvm::json::Array *results = no->getArray("results");
    if (!index || *index != (int64_t)i || !op || !results || results->empty()) {
      err = where + " needs 'index' " + std::to_string(i) +
            ", 'op' and a non-empty 'results' list";
      return false;
    }
    n.index = *index;
    n.op = op->str();
    Digest claimed;
    if (!digestField(*no, "id", n.id, err, where) ||
        !digestField(*no, "hash", claimed, err, where))
      return false;
    for (const llvm::json::Value &r : *results) {
      auto s = r.getAsString();
      Digest d;
      if (!s || !fromHex(s->str(), d)) {
        err = where + ": a result hash is not 64 hex digits";
        return false;
      }
      n.results.push_back(d);
    }
    n.hash = nodeHash(n.results);
    if (n.hash != claimed) {
      err = where + ": 'hash' is not the node hash of its 'results'";
      return false;
    }
    t.nodes.push_back(std::move(n));
  }
  sealTrace(t);
  if (t.root != root) {
    err = "'root' is not the Merkle root of the node hashes";
    return false;
  }
  if (t.runId != runId) {
    err = "'run_id' does not match the graph hash, inputs and root";
    return false;
  }
  out = std::move(t);
  return true;
}

bool writeTrace(const std::string &dir, const Trace &t, std::string &err) {
  if (auto ec = llvm::sys::fs::create_directories(dir)) {
    err = "cannot create '" + dir + "': " + ec.message();
    return false;
  }
  return writeFileAtomically(manifestPath(dir), traceToJson(t), err);
}

bool readTrace(const std::string &dir, Trace &out, std::string &err) {
  std::string path = manifestPath(dir);
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf) {
    err = "cannot read '" + path + "': " + buf.getError().message();
    return false;
  }
  if (!traceFromJson((*buf)->getBuffer().str(), out, err)) {
    err = "'" + path + "': " + err;
    return false;
  }
  return true;
}

static bool loadChecked(const std::string &path, const Digest &want,
                        exec::Tensor &out, std::string &err) {
  if (!driver::readNpy(path, out, err))
    return false;
  if (trace::tensorHash(out) != want) {
    err = "'" + path + "' does not match the hash recorded in the trace";
    return false;
  }
  return true;
}

bool loadNodeTensor(const std::string &dir, const Trace &t, int64_t node,
                    unsigned result, exec::Tensor &out, std::string &err) {
  if (node < 0 || node >= (int64_t)t.nodes.size() ||
      result >= t.nodes[node].results.size()) {
    err = "the trace has no result " + std::to_string(result) + " of node " +
          std::to_string(node);
    return false;
  }
  if (!t.hasTensors) {
    err = "the trace keeps no tensors (record it with --keep-tensors)";
    return false;
  }
  return loadChecked(nodeTensorPath(dir, node, result),
                     t.nodes[node].results[result], out, err);
}

bool loadInputTensor(const std::string &dir, const Trace &t, unsigned input,
                     exec::Tensor &out, std::string &err) {
  if (input >= t.inputs.size()) {
    err = "the trace has no input " + std::to_string(input);
    return false;
  }
  if (!t.hasTensors) {
    err = "the trace keeps no tensors (record it with --keep-tensors)";
    return false;
  }
  return loadChecked(inputTensorPath(dir, input), t.inputs[input].hash, out,
                     err);
}

} // namespace trace
} // namespace plumb
