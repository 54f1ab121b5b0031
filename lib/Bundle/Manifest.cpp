//===- lib/Bundle/Manifest.cpp - A bundle's manifest.json -----------------===//
//
// Part of Plumb. See include/plumb/Bundle/Manifest.h. Written by hand (one
// node, weight or file per line keeps large manifests readable and diffable);
// read with llvm::json.
//
//===----------------------------------------------------------------------===//
#include "plumb/Bundle/Manifest.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdio>

namespace plumb {
namespace bundle {

const ManifestTarget *Manifest::target(const std::string &name) const {
  for (const ManifestTarget &t : targets)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string Manifest::fileHash(const std::string &path) const {
  for (auto &f : files)
    if (f.first == path)
      return f.second;
  return "";
}

namespace {

std::string q(const std::string &s) {
  std::string r = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      r += '\\';
      r += c;
    } else if ((unsigned char)c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", (unsigned)(unsigned char)c);
      r += buf;
    } else {
      r += c;
    }
  }
  return r + "\"";
}

std::string ints(const std::vector<int64_t> &v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i)
    r += (i ? ", " : "") + std::to_string(v[i]);
  return r + "]";
}

std::string strs(const std::vector<std::string> &v) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i)
    r += (i ? ", " : "") + q(v[i]);
  return r + "]";
}

std::string tensors(const std::vector<ManifestTensor> &v, bool inputs) {
  std::string r = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    r += i ? ",\n    " : "\n    ";
    r += "{\"index\": " + std::to_string(i) + ", \"name\": " + q(v[i].name) +
         ", \"dtype\": " + q(v[i].dtype) + ", \"shape\": " + ints(v[i].shape);
    if (!v[i].storage.empty())
      r += ", \"storage\": " + q(v[i].storage);
    if (inputs)
      r += std::string(", \"bound\": ") + (v[i].bound ? "true" : "false");
    r += "}";
  }
  return r + (v.empty() ? "]" : "\n  ]");
}

} // namespace

std::string manifestToJson(const Manifest &m) {
  std::string s = "{\n";
  s += "  \"format\": " + q(m.format) + ",\n";
  s += "  \"version\": " + std::to_string(m.version) + ",\n";
  s += "  \"plumb_version\": " + q(m.plumbVersion) + ",\n";
  s += "  \"contract\": " + q(m.contract) + ",\n";
  s += "  \"model_abi\": " + std::to_string(m.modelAbi) + ",\n";
  s += "  \"graph_hash\": " + q(m.graphHash) + ",\n";
  s += "  \"source\": {\"name\": " + q(m.sourceName) +
       ", \"sha256\": " + q(m.sourceSha256) +
       ", \"import_options\": " + strs(m.importOptions) + "},\n";
  if (!m.training.empty())
    s += "  \"training\": " + m.training + ",\n";
  if (m.hasGas)
    s += "  \"gas\": {\"schedule\": " + q(m.gasSchedule) +
         ", \"total\": " + std::to_string(m.gasTotal) + "},\n";
  else
    s += "  \"gas\": null,\n";
  s += "  \"inputs\": " + tensors(m.inputs, true) + ",\n";
  s += "  \"outputs\": " + tensors(m.outputs, false) + ",\n";
  s += "  \"nodes\": [";
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const ManifestNode &n = m.nodes[i];
    s += i ? ",\n    " : "\n    ";
    s += "{\"index\": " + std::to_string(n.index) + ", \"id\": " + q(n.id) +
         ", \"op\": " + q(n.op) + ", \"gas\": " +
         (n.hasGas ? std::to_string(n.gas) : std::string("null")) + "}";
  }
  s += m.nodes.empty() ? "],\n" : "\n  ],\n";
  s += "  \"memory\": {\"arena_bytes\": " + std::to_string(m.arenaBytes) +
       ", \"traced_arena_bytes\": " + std::to_string(m.tracedArenaBytes) +
       "},\n";
  s += "  \"weights\": {\"file\": " + q(kWeightsFile) +
       ", \"bytes\": " + std::to_string(m.weightsBytes) +
       ", \"alignment\": " + std::to_string(m.weightsAlignment) +
       ", \"sha256\": " + q(m.weightsSha256) + ",\n    \"entries\": [";
  for (size_t i = 0; i < m.weights.size(); ++i) {
    const ManifestWeight &w = m.weights[i];
    s += i ? ",\n      " : "\n      ";
    s += "{\"offset\": " + std::to_string(w.offset) +
         ", \"bytes\": " + std::to_string(w.bytes) +
         ", \"resources\": " + strs(w.resources) + "}";
  }
  s += m.weights.empty() ? "]},\n" : "\n    ]},\n";
  s += "  \"targets\": [";
  for (size_t i = 0; i < m.targets.size(); ++i) {
    const ManifestTarget &t = m.targets[i];
    s += i ? ",\n    " : "\n    ";
    s += "{\"name\": " + q(t.name) + ", \"source\": " + q(t.source) +
         ", \"built\": " + (t.built ? "true" : "false");
    if (t.built)
      s += ", \"library\": " + q(t.library) + ", \"compiler\": " +
           q(t.compiler) + ", \"flags\": " + q(t.flags);
    else
      s += ", \"reason\": " + q(t.reason);
    s += "}";
  }
  s += m.targets.empty() ? "],\n" : "\n  ],\n";
  s += "  \"files\": {";
  for (size_t i = 0; i < m.files.size(); ++i) {
    s += i ? ",\n    " : "\n    ";
    s += q(m.files[i].first) + ": " + q(m.files[i].second);
  }
  s += m.files.empty() ? "}\n" : "\n  }\n";
  s += "}\n";
  return s;
}

namespace {

/// Field readers that record the first problem.
struct Reader {
  std::string &err;
  bool ok = true;

  bool bad(const std::string &where, const std::string &what) {
    if (ok)
      err = "'" + where + "' " + what;
    ok = false;
    return false;
  }
  const llvm::json::Object *obj(const llvm::json::Object &o,
                                const std::string &k) {
    const llvm::json::Object *r = o.getObject(k);
    if (!r)
      bad(k, "is missing or not an object");
    return r;
  }
  const llvm::json::Array *arr(const llvm::json::Object &o,
                               const std::string &k) {
    const llvm::json::Array *r = o.getArray(k);
    if (!r)
      bad(k, "is missing or not an array");
    return r;
  }
  std::string str(const llvm::json::Object &o, const std::string &k) {
    auto r = o.getString(k);
    if (!r) {
      bad(k, "is missing or not a string");
      return "";
    }
    return r->str();
  }
  int64_t num(const llvm::json::Object &o, const std::string &k) {
    auto r = o.getInteger(k);
    if (!r) {
      bad(k, "is missing or not an integer");
      return 0;
    }
    return *r;
  }
  bool boolean(const llvm::json::Object &o, const std::string &k) {
    auto r = o.getBoolean(k);
    if (!r) {
      bad(k, "is missing or not a boolean");
      return false;
    }
    return *r;
  }
  std::vector<int64_t> intList(const llvm::json::Object &o,
                               const std::string &k) {
    std::vector<int64_t> v;
    if (const llvm::json::Array *a = arr(o, k))
      for (const llvm::json::Value &e : *a) {
        auto i = e.getAsInteger();
        if (!i) {
          bad(k, "must hold integers");
          break;
        }
        v.push_back(*i);
      }
    return v;
  }
  std::vector<std::string> strList(const llvm::json::Object &o,
                                   const std::string &k) {
    std::vector<std::string> v;
    if (const llvm::json::Array *a = arr(o, k))
      for (const llvm::json::Value &e : *a) {
        auto s = e.getAsString();
        if (!s) {
          bad(k, "must hold strings");
          break;
        }
        v.push_back(s->str());
      }
    return v;
  }
  std::vector<ManifestTensor> tensorList(const llvm::json::Object &o,
                                         const std::string &k, bool inputs) {
    std::vector<ManifestTensor> v;
    if (const llvm::json::Array *a = arr(o, k))
      for (const llvm::json::Value &e : *a) {
        const llvm::json::Object *t = e.getAsObject();
        if (!t) {
          bad(k, "must hold objects");
          break;
        }
        ManifestTensor mt;
        mt.name = str(*t, "name");
        mt.dtype = str(*t, "dtype");
        mt.shape = intList(*t, "shape");
        if (inputs)
          mt.bound = boolean(*t, "bound");
        if (auto s = t->getString("storage"))
          mt.storage = s->str();
        v.push_back(mt);
      }
    return v;
  }
};

} // namespace

bool manifestFromJson(const std::string &text, Manifest &m, std::string &err) {
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    err = "not valid JSON: " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root) {
    err = "not a JSON object";
    return false;
  }
  Reader r{err};
  m.format = r.str(*root, "format");
  m.version = r.num(*root, "version");
  if (r.ok && (m.format != kBundleFormat)) {
    err = "not a Plumb bundle manifest (format '" + m.format + "')";
    return false;
  }
  if (r.ok && m.version != kBundleVersion) {
    err = "bundle format version " + std::to_string(m.version) +
          " is not supported (this Plumb reads version " +
          std::to_string(kBundleVersion) + ")";
    return false;
  }
  m.plumbVersion = r.str(*root, "plumb_version");
  m.contract = r.str(*root, "contract");
  m.modelAbi = (int32_t)r.num(*root, "model_abi");
  m.graphHash = r.str(*root, "graph_hash");
  if (const llvm::json::Object *src = r.obj(*root, "source")) {
    m.sourceName = r.str(*src, "name");
    m.sourceSha256 = r.str(*src, "sha256");
    m.importOptions = r.strList(*src, "import_options");
  }
  if (const llvm::json::Value *t = root->get("training")) {
    if (!t->getAsObject()) {
      r.bad("training", "is not an object");
    } else {
      llvm::raw_string_ostream os(m.training);
      os << *t;
    }
  }
  const llvm::json::Value *gas = root->get("gas");
  if (!gas) {
    r.bad("gas", "is missing");
  } else if (const llvm::json::Object *g = gas->getAsObject()) {
    m.hasGas = true;
    m.gasSchedule = r.str(*g, "schedule");
    auto total = (*g).get("total");
    auto u = total ? total->getAsUINT64() : std::nullopt;
    if (!u)
      r.bad("gas.total", "is missing or not an unsigned integer");
    else
      m.gasTotal = *u;
  } else if (!gas->getAsNull()) {
    r.bad("gas", "must be an object or null");
  }
  m.inputs = r.tensorList(*root, "inputs", true);
  m.outputs = r.tensorList(*root, "outputs", false);
  if (const llvm::json::Array *nodes = r.arr(*root, "nodes"))
    for (const llvm::json::Value &e : *nodes) {
      const llvm::json::Object *n = e.getAsObject();
      if (!n) {
        r.bad("nodes", "must hold objects");
        break;
      }
      ManifestNode mn;
      mn.index = r.num(*n, "index");
      mn.id = r.str(*n, "id");
      mn.op = r.str(*n, "op");
      const llvm::json::Value *g = n->get("gas");
      if (g && !g->getAsNull()) {
        auto u = g->getAsUINT64();
        if (!u)
          r.bad("nodes.gas", "must be an unsigned integer or null");
        else
          mn.hasGas = true, mn.gas = *u;
      }
      m.nodes.push_back(mn);
    }
  if (const llvm::json::Object *mem = r.obj(*root, "memory"))
  {
    m.arenaBytes = r.num(*mem, "arena_bytes");
    m.tracedArenaBytes = r.num(*mem, "traced_arena_bytes");
  }
  if (const llvm::json::Object *w = r.obj(*root, "weights")) {
    if (r.ok && r.str(*w, "file") != kWeightsFile)
      r.bad("weights.file", std::string("must be \"") + kWeightsFile + "\"");
    m.weightsBytes = r.num(*w, "bytes");
    m.weightsAlignment = r.num(*w, "alignment");
    m.weightsSha256 = r.str(*w, "sha256");
    if (const llvm::json::Array *entries = r.arr(*w, "entries"))
      for (const llvm::json::Value &e : *entries) {
        const llvm::json::Object *o = e.getAsObject();
        if (!o) {
          r.bad("weights.entries", "must hold objects");
          break;
        }
        ManifestWeight mw;
        mw.offset = r.num(*o, "offset");
        mw.bytes = r.num(*o, "bytes");
        mw.resources = r.strList(*o, "resources");
        m.weights.push_back(mw);
      }
  }
  if (const llvm::json::Array *targets = r.arr(*root, "targets"))
    for (const llvm::json::Value &e : *targets) {
      const llvm::json::Object *o = e.getAsObject();
      if (!o) {
        r.bad("targets", "must hold objects");
        break;
      }
      ManifestTarget t;
      t.name = r.str(*o, "name");
      t.source = r.str(*o, "source");
      t.built = r.boolean(*o, "built");
      if (t.built) {
        t.library = r.str(*o, "library");
        t.compiler = r.str(*o, "compiler");
        t.flags = r.str(*o, "flags");
      } else {
        t.reason = r.str(*o, "reason");
      }
      m.targets.push_back(t);
    }
  if (const llvm::json::Object *files = r.obj(*root, "files")) {
    for (const auto &kv : *files) {
      auto h = kv.second.getAsString();
      if (!h) {
        r.bad("files", "must map paths to strings");
        break;
      }
      m.files.push_back({kv.first.str(), h->str()});
    }
    std::sort(m.files.begin(), m.files.end());
  }
  return r.ok;
}

} // namespace bundle
} // namespace plumb
