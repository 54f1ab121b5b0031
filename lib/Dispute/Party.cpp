//===- lib/Dispute/Party.cpp - A party answering from a trace -------------===//
//
// Part of Plumb. See include/plumb/Dispute/Party.h and docs/dispute.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Dispute/Party.h"

#include "plumb/Trace/TensorHasher.h"
#include "plumb/Trace/TraceRecorder.h"

#include "llvm/Support/FileSystem.h"

#include <cstdint>
#include <cstring>

namespace plumb {
namespace dispute {

bool parseBehaviour(const std::string &spec, Behaviour &b, std::string &err) {
  size_t eq = spec.find('=');
  std::string key = spec.substr(0, eq);
  std::string val = eq == std::string::npos ? "" : spec.substr(eq + 1);
  auto number = [&](int64_t &out, int64_t min) {
    char *end = nullptr;
    long long v = val.empty() ? -1 : std::strtoll(val.c_str(), &end, 10);
    if (val.empty() || *end || v < min) {
      err = "--behave " + key + " needs a number >= " + std::to_string(min) +
            ", got '" + spec + "'";
      return false;
    }
    out = v;
    return true;
  };
  if (key == "lie-hash")
    return number(b.lieHash, 0);
  if (key == "inconsistent-hash")
    return number(b.inconsistentHash, 0);
  if (key == "forge-proof") {
    if (eq == std::string::npos) {
      b.forgeProof = 1;
      return true;
    }
    return number(b.forgeProof, 1);
  }
  if (key == "silent-after")
    return number(b.silentAfter, 0);
  if (key == "bad-tensors" && eq == std::string::npos) {
    b.badTensors = true;
    return true;
  }
  if (key == "silent-on-tensors" && eq == std::string::npos) {
    b.silentOnTensors = true;
    return true;
  }
  err = "unknown behaviour '" + spec +
        "' (lie-hash=K, inconsistent-hash=K, forge-proof[=N], bad-tensors, "
        "silent-after=N, silent-on-tensors)";
  return false;
}

std::unique_ptr<TraceParty> TraceParty::open(const std::string &dir,
                                             const Behaviour &b,
                                             std::string &err) {
  std::unique_ptr<TraceParty> p(new TraceParty());
  p->dir = dir;
  p->b = b;
  if (!trace::readTrace(dir, p->t, err))
    return nullptr;
  // The chunk digests answer chunk searches without the tensors.
  if (llvm::sys::fs::exists(trace::chunksPath(dir))) {
    if (!trace::readChunkFile(dir, p->t, err))
      return nullptr;
    p->haveChunks = true;
  }
  int64_t n = (int64_t)p->t.nodes.size();
  for (int64_t k : {b.lieHash, b.inconsistentHash})
    if (k >= n) {
      err = "--behave names node " + std::to_string(k) + " but the trace has " +
            std::to_string(n) + " nodes";
      return nullptr;
    }
  if (b.lieHash >= 0) {
    // A consistent lie: a different first result hash, and every hash above
    // it recomputed.
    trace::NodeRecord &node = p->t.nodes[b.lieHash];
    Digest &h = node.results[0];
    h = sha256(h.data(), h.size());
    node.hash = trace::nodeHash(node.results);
  }
  p->leaves = p->t.nodeHashes();
  if (b.inconsistentHash >= 0) {
    Digest &h = p->leaves[b.inconsistentHash];
    h = sha256(h.data(), h.size());
  }
  p->root = merkleRoot(p->leaves);
  return p;
}

std::string TraceParty::errorReply(const std::string &msg) {
  llvm::json::Object r = makeMessage("error");
  r["message"] = msg;
  return serialize(r);
}

bool TraceParty::respond(const std::string &request, std::string &reply,
                         std::string &attachment) {
  ++requests;
  attachment.clear();
  llvm::json::Object req;
  std::string type, err;
  if (!parseMessage(request, req, type, err)) {
    reply = errorReply("bad request: " + err);
    return true;
  }
  if (type == "end") {
    done = true;
    return false;
  }
  if (b.silentAfter >= 0 && requests > b.silentAfter)
    return false;
  if (b.silentOnTensors &&
      (type == "query_tensors" || type == "query_tensor_chunks"))
    silenced = true;
  if (silenced)
    return false;
  if (type == "commit_request") {
    llvm::json::Object r = makeMessage("commit");
    r["trace_version"] = t.version;
    r["contract"] = t.contract;
    r["graph_hash"] = toHex(t.graphHash);
    r["input_hashes"] = digestsToJson(t.inputHashes());
    r["num_nodes"] = (int64_t)leaves.size();
    r["root"] = toHex(root);
    r["run_id"] = toHex(trace::runIdentity(t.graphHash, t.inputHashes(),
                                           leaves.size(), root));
    r["run_ms"] = t.runMs;
    // The node tree's first frontier, when asked for (the search's first
    // round).
    if (req.get("ranges")) {
      std::string err = frontier(req, "nodes", r);
      if (!err.empty()) {
        reply = errorReply(err);
        return true;
      }
    }
    reply = serialize(r);
    return true;
  }
  if (type == "query_node") {
    reply = answerNode(req);
    return true;
  }
  if (type == "query_tensors") {
    reply = answerTensors(req, attachment);
    return true;
  }
  if (type == "query_chunk_root") {
    reply = answerChunkRoot(req);
    return true;
  }
  if (type == "query_chunk") {
    reply = answerChunk(req);
    return true;
  }
  if (type == "query_subtrees") {
    reply = answerSubtrees(req);
    return true;
  }
  if (type == "query_tensor_chunks") {
    reply = answerTensorChunks(req, attachment);
    return true;
  }
  reply = errorReply("unknown request type '" + type + "'");
  return true;
}

std::string TraceParty::answerNode(const llvm::json::Object &req) {
  auto index = req.getInteger("index");
  if (!index || *index < 0 || *index >= (int64_t)leaves.size())
    return errorReply("query_node needs an 'index' from 0 to " +
                      std::to_string(leaves.size() - 1));
  std::vector<Digest> proof = merkleProof(leaves, (size_t)*index);
  if (forgeThis()) {
    if (proof.empty())
      proof.push_back(sha256("forged", 6));
    else
      proof[0][0] ^= 1;
  }
  llvm::json::Object r = makeMessage("node");
  r["index"] = *index;
  r["node_hash"] = toHex(leaves[*index]);
  r["result_hashes"] = digestsToJson(t.nodes[*index].results);
  r["proof"] = digestsToJson(proof);
  return serialize(r);
}

bool TraceParty::forgeThis() {
  ++treeAnswers;
  return b.forgeProof && treeAnswers == b.forgeProof;
}

std::string TraceParty::frontier(const llvm::json::Object &req,
                                 llvm::StringRef tree, llvm::json::Object &r) {
  const llvm::json::Array *ranges = req.getArray("ranges");
  if (!ranges)
    return "a frontier request needs 'ranges'";
  const std::vector<Digest> *items = &leaves;
  std::string err;
  if (tree == "chunks" && !(items = resultChunks(req, err)))
    return err;
  int64_t n = (int64_t)items->size();
  std::vector<Digest> out;
  std::vector<int64_t> single; // the ranges of one node
  for (const llvm::json::Value &rv : *ranges) {
    const llvm::json::Array *rg = rv.getAsArray();
    auto lo = rg && rg->size() == 2 ? (*rg)[0].getAsInteger() : std::nullopt;
    auto hi = rg && rg->size() == 2 ? (*rg)[1].getAsInteger() : std::nullopt;
    if (!lo || !hi || *lo < 0 || *hi <= *lo || *hi > n)
      return "a range must be [lo, hi] with 0 <= lo < hi <= " +
             std::to_string(n);
    // One item: the item itself (the referee computes its leaf hash).
    out.push_back(*hi - *lo == 1 ? (*items)[*lo]
                                 : merkleSubtree(*items, *lo, *hi));
    single.push_back(*hi - *lo == 1 ? *lo : -1);
  }
  if (forgeThis() && !out.empty())
    out[0][0] ^= 1;
  r["hashes"] = digestsToJson(out);
  if (tree == "nodes") {
    // Beside a single node's hash, its result hashes: its claim, should
    // the search end there.
    llvm::json::Array results;
    results.reserve(single.size());
    for (int64_t k : single)
      results.push_back(k < 0 ? llvm::json::Array()
                              : digestsToJson(t.nodes[k].results));
    r["results"] = std::move(results);
  }
  return "";
}

std::string TraceParty::answerSubtrees(const llvm::json::Object &req) {
  auto tree = req.getString("tree");
  if (!tree || (*tree != "nodes" && *tree != "chunks") || !req.getArray("ranges"))
    return errorReply("query_subtrees needs 'tree' (nodes or chunks) and "
                      "'ranges'");
  llvm::json::Object r = makeMessage("subtrees");
  r["tree"] = tree->str();
  std::string err = frontier(req, *tree, r);
  if (!err.empty())
    return errorReply(err);
  // Checked by frontier (resultChunks) for the chunk tree.
  if (*tree == "chunks") {
    r["index"] = *req.getInteger("index");
    r["result"] = *req.getInteger("result");
  }
  return serialize(r);
}

std::string TraceParty::answerTensors(const llvm::json::Object &req,
                                      std::string &attachment) {
  const llvm::json::Array *items = req.getArray("items");
  if (!items)
    return errorReply("query_tensors needs 'items'");
  llvm::json::Array out;
  std::string data; // the attachment, handed over only on success
  for (const llvm::json::Value &v : *items) {
    const llvm::json::Object *item = v.getAsObject();
    auto kind = item ? item->getString("kind") : std::nullopt;
    auto index = item ? item->getInteger("index") : std::nullopt;
    if (!kind || !index || *index < 0)
      return errorReply("a tensor item needs 'kind' and 'index'");
    exec::Tensor tensor;
    std::string err;
    llvm::json::Object o;
    if (*kind == "input") {
      // Positions are unsigned 32-bit in the trace readers: a larger one
      // names nothing (and must not wrap around to one that exists).
      if (*index > INT32_MAX)
        return errorReply("the trace has no input " + std::to_string(*index));
      if (!trace::loadInputTensor(dir, t, (unsigned)*index, tensor, err))
        return errorReply(err);
    } else if (*kind == "node") {
      auto result = item->getInteger("result");
      if (result && *result > INT32_MAX)
        return errorReply("the trace has no result " +
                          std::to_string(*result) + " of node " +
                          std::to_string(*index));
      if (!result || *result < 0)
        return errorReply("a node tensor item needs 'result'");
      if (!trace::loadNodeTensor(dir, t, *index, (unsigned)*result, tensor,
                                 err))
        return errorReply(err);
      o["result"] = *result;
    } else {
      return errorReply("unknown tensor kind '" + kind->str() + "'");
    }
    if (b.badTensors) {
      if (tensor.numElements() > 0)
        trace::flipBit(tensor, 0, err);
      else
        tensor.shape.push_back(0);
    }
    llvm::json::Object header = tensorHeader(tensor);
    for (auto &kv : header)
      o[kv.first] = std::move(kv.second);
    data.append(static_cast<const char *>(tensor.raw()), tensor.byteSize());
    o["kind"] = kind->str();
    o["index"] = *index;
    out.push_back(std::move(o));
  }
  llvm::json::Object r = makeMessage("tensors");
  r["items"] = std::move(out);
  attachment = std::move(data);
  return serialize(r);
}

const TraceParty::Kept *TraceParty::kept(const llvm::json::Object &item,
                                         std::string &err) {
  auto kind = item.getString("kind");
  auto index = item.getInteger("index");
  if (!kind || !index || *index < 0 || (*kind != "input" && *kind != "node")) {
    err = "a tensor item needs 'kind' (input or node) and 'index'";
    return nullptr;
  }
  bool input = *kind == "input";
  // Input and result positions are unsigned 32-bit below: larger ones name
  // nothing (and must not wrap around to one that exists).
  if (input && *index > INT32_MAX) {
    err = "the trace has no input " + std::to_string(*index);
    return nullptr;
  }
  int64_t result = 0;
  if (!input) {
    auto r = item.getInteger("result");
    if (r && *r > INT32_MAX) {
      err = "the trace has no result " + std::to_string(*r) + " of node " +
            std::to_string(*index);
      return nullptr;
    }
    if (!r || *r < 0) {
      err = "a node tensor item needs 'result'";
      return nullptr;
    }
    result = *r;
  }
  auto key = std::make_tuple(input, *index, result);
  auto it = cache.find(key);
  if (it != cache.end())
    return &it->second;
  Kept k;
  bool ok = input ? trace::loadInputTensor(dir, t, (unsigned)*index, k.tensor, err)
                  : trace::loadNodeTensor(dir, t, *index, (unsigned)result,
                                          k.tensor, err);
  if (!ok)
    return nullptr;
  k.chunks = trace::chunkDigests(k.tensor);
  k.root = merkleRoot(k.chunks);
  return &cache.emplace(key, std::move(k)).first->second;
}

const std::vector<Digest> *TraceParty::resultChunks(const llvm::json::Object &req,
                                                    std::string &err) {
  auto index = req.getInteger("index");
  auto result = req.getInteger("result");
  if (haveChunks) {
    if (!index || !result || *index < 0 || *index >= (int64_t)t.nodes.size() ||
        *result < 0 || *result >= (int64_t)t.nodes[*index].results.size()) {
      err = "the trace has no such node result";
      return nullptr;
    }
    return &t.nodes[*index].resultChunks[*result];
  }
  llvm::json::Object item{{"kind", "node"}};
  if (index)
    item["index"] = *index;
  if (result)
    item["result"] = *result;
  const Kept *k = kept(item, err);
  return k ? &k->chunks : nullptr;
}

std::string TraceParty::answerChunkRoot(const llvm::json::Object &req) {
  std::string err;
  const std::vector<Digest> *chunks = resultChunks(req, err);
  if (!chunks)
    return errorReply(err);
  llvm::json::Object r = makeMessage("chunk_root");
  r["index"] = *req.getInteger("index");
  r["result"] = *req.getInteger("result");
  r["chunk_root"] = toHex(trace::chunkRoot(*chunks));
  r["num_chunks"] = (int64_t)chunks->size();
  return serialize(r);
}

std::string TraceParty::answerChunk(const llvm::json::Object &req) {
  auto chunk = req.getInteger("chunk");
  std::string err;
  const std::vector<Digest> *chunks = resultChunks(req, err);
  if (!chunks)
    return errorReply(err);
  if (!chunk || *chunk < 0 || *chunk >= (int64_t)chunks->size())
    return errorReply("query_chunk needs a 'chunk' from 0 to " +
                      std::to_string((int64_t)chunks->size() - 1));
  llvm::json::Object r = makeMessage("chunk");
  r["index"] = *req.getInteger("index");
  r["result"] = *req.getInteger("result");
  r["chunk"] = *chunk;
  r["digest"] = toHex((*chunks)[*chunk]);
  std::vector<Digest> proof = merkleProof(*chunks, (size_t)*chunk);
  if (forgeThis()) {
    if (proof.empty())
      proof.push_back(sha256("forged", 6));
    else
      proof[0][0] ^= 1;
  }
  r["proof"] = digestsToJson(proof);
  return serialize(r);
}

std::string TraceParty::answerTensorChunks(const llvm::json::Object &req,
                                           std::string &attachment) {
  const llvm::json::Array *items = req.getArray("items");
  if (!items)
    return errorReply("query_tensor_chunks needs 'items'");
  llvm::json::Array out;
  std::string data; // the attachment, handed over only on success
  for (const llvm::json::Value &v : *items) {
    const llvm::json::Object *item = v.getAsObject();
    std::string err;
    const Kept *k = item ? kept(*item, err) : nullptr;
    if (!k)
      return errorReply(item ? err : "a tensor item is not an object");
    const exec::Tensor &tensor = k->tensor;
    llvm::json::Object o = tensorHeader(tensor);
    o["kind"] = *item->getString("kind");
    o["index"] = *item->getInteger("index");
    if (auto r = item->getInteger("result"))
      o["result"] = *r;
    o["chunk_root"] = toHex(k->root);
    int32_t dtype = (int32_t)tensor.type;
    size_t es = trace::elemBytesOf(dtype);
    if (item->getBoolean("whole").value_or(false)) {
      o["whole"] = true;
      std::string bytes(tensor.byteSize(), '\0');
      trace::encodeElements(dtype, tensor.raw(), 0, tensor.numElements(),
                            reinterpret_cast<uint8_t *>(&bytes[0]));
      if (b.badTensors && !bytes.empty())
        bytes[0] ^= 1;
      data += bytes;
      out.push_back(std::move(o));
      continue;
    }
    const llvm::json::Array *chunks = item->getArray("chunks");
    if (!chunks)
      return errorReply("a chunk item needs 'chunks' or 'whole'");
    llvm::json::Array answers;
    for (const llvm::json::Value &cv : *chunks) {
      auto c = cv.getAsInteger();
      if (!c || *c < 0 || *c >= (int64_t)k->chunks.size())
        return errorReply("a chunk index is out of range");
      int64_t first, count;
      trace::chunkRange(dtype, tensor.numElements(), (size_t)*c, first, count);
      std::string bytes((size_t)count * es, '\0');
      trace::encodeElements(dtype, tensor.raw(), first, count,
                            reinterpret_cast<uint8_t *>(&bytes[0]));
      if (b.badTensors && !bytes.empty())
        bytes[0] ^= 1;
      data += bytes;
      answers.push_back(llvm::json::Object{
          {"chunk", *c},
          {"bytes", (int64_t)bytes.size()},
          {"proof", digestsToJson(merkleProof(k->chunks, (size_t)*c))}});
    }
    o["chunks"] = std::move(answers);
    out.push_back(std::move(o));
  }
  llvm::json::Object r = makeMessage("tensor_chunks");
  r["items"] = std::move(out);
  attachment = std::move(data);
  return serialize(r);
}

int serveParty(TraceParty &party, FILE *in, FILE *out) {
  std::string line;
  char buf[1 << 16];
  while (std::fgets(buf, sizeof(buf), in)) {
    size_t len = std::strlen(buf);
    line.append(buf, len);
    if (len == 0 || buf[len - 1] != '\n') {
      if (line.size() > kMaxMessageBytes) {
        std::fprintf(stderr, "serve-trace: the referee sent a message longer "
                             "than %zu MiB; stopping\n",
                     kMaxMessageBytes >> 20);
        return 1;
      }
      continue; // a long line arrives in pieces
    }
    line.pop_back();
    std::string reply, attachment;
    if (party.respond(line, reply, attachment)) {
      std::fwrite(reply.data(), 1, reply.size(), out);
      std::fputc('\n', out);
      std::fwrite(attachment.data(), 1, attachment.size(), out);
      std::fflush(out);
    }
    line.clear();
    if (party.finished())
      return 0;
  }
  return 0;
}

} // namespace dispute
} // namespace plumb
