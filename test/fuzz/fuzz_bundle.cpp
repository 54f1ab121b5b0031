//===- test/fuzz/fuzz_bundle.cpp - Opening and verifying a bundle ---------===//
//
// Part of Plumb. The input is an archive of a bundle's files (FuzzSupport.h:
// manifest.json, model.mlir, weights.bin, cpu/model.cpp, ...), written into
// a fresh folder and opened with bundle::openBundle, which verifies it
// completely (docs/bundle.md). The harness plays an attacker who keeps the
// manifest consistent: before opening, each file hash the manifest lists,
// and the weights' hash, are set to the real SHA-256 of that archive
// member, and when the only complaint is the graph hash, it is set to the
// one Plumb computed and the bundle opened again. Otherwise the first
// changed byte of any file would end at the hash check, and nothing behind
// it (the IR parser, the weights binding, the plan, the emitter) would be
// fuzzed. No library is built or loaded (openBundle builds none).
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"

#include "plumb/Bundle/Bundle.h"
#include "plumb/Support/Merkle.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace {

std::string hexSha(const std::string &s) {
  return plumb::toHex(plumb::sha256(s.data(), s.size()));
}

/// The manifest with its hashes made true (see above); the text as given
/// when it is no JSON object.
std::string consistentManifest(const std::string &text,
                               const std::map<std::string, std::string> &files,
                               const std::string &graphHash) {
  auto parsed = llvm::json::parse(text);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return text;
  }
  llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return text;
  if (llvm::json::Object *listed = root->getObject("files"))
    for (auto &kv : *listed) {
      auto it = files.find(kv.first.str());
      if (it != files.end())
        kv.second = hexSha(it->second);
    }
  if (llvm::json::Object *w = root->getObject("weights")) {
    auto it = files.find("weights.bin");
    if (it != files.end())
      (*w)["sha256"] = hexSha(it->second);
  }
  if (!graphHash.empty())
    (*root)["graph_hash"] = graphHash;
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*root)));
  return os.str();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace plumb;
  std::map<std::string, std::string> files = fuzz::splitArchive(data, size);
  std::string dir = fuzz::freshDir("bundle");
  fuzz::writeMembers(dir, files, bundle::kManifestFile);
  auto mf = files.find(bundle::kManifestFile);
  if (mf == files.end())
    return 0;
  std::string graphHash;
  for (int attempt = 0; attempt < 2; ++attempt) {
    fuzz::writeFile(dir + "/" + bundle::kManifestFile,
                    consistentManifest(mf->second, files, graphHash));
    bundle::OpenOptions opts;
    auto b = bundle::openBundle(dir, opts);
    if (b) {
      if (fuzz::verbose())
        std::fprintf(stderr, "opened\n");
      return 0;
    }
    std::string msg = llvm::toString(b.takeError());
    if (fuzz::verbose())
      std::fprintf(stderr, "refused: %s\n", msg.c_str());
    if (msg.empty())
      std::abort();
    static const std::string kGraph =
        "the graph hash of model.mlir and weights.bin (";
    if (msg.compare(0, kGraph.size(), kGraph) != 0 || !graphHash.empty())
      return 0;
    graphHash = msg.substr(kGraph.size(), 64);
  }
  return 0;
}
