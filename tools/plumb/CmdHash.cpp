//===- tools/plumb/CmdHash.cpp - plumb hash -------------------------------===//
//
// Part of Plumb. Prints the graph hash of a model's canonical form (64 hex
// digits on the last line), or with --format json the node table too.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Canonical/Identity.h"
#include "plumb/runtime/config.h"
#include "plumb/Support/Nodes.h"

#include <cstdio>

namespace plumb {
namespace tool {

void printHashHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb hash MODEL.onnx|MODEL.mlir [import options]\n"
      "                  [--format text|json]\n"
      "\n"
      "Prints the graph hash: SHA-256 over the contract version, the Merkle\n"
      "root of the structural node ids in canonical order (weights enter by\n"
      "content) and the model's interface (input and output names and\n"
      "types). It does not depend on ONNX node names, node order, initializer\n"
      "order or metadata (docs/canonical.md). The hash is the last line.\n"
      "\n"
      "options:\n"
      "  --format text|json   json also prints the node table (index, id, op)\n"
      "  import options       --input-shape, --dim, --input-value\n"
      "%s"
      "\n"
      "exit status: 0 success, 1 the model cannot be loaded, 2 usage error\n",
      kSampleOptionsHelp);
}

int cmdHash(std::vector<std::string> args) {
  const char *cmd = "hash";
  importer::ImportOptions opts;
  std::string model, format = "text";
  CommandLine cl{cmd, printHashHelp, {}, &model};
  cl.options.push_back(flag({"--no-canonicalize"}, [] {
    return std::string("the graph hash is defined on the canonical form; "
                       "--no-canonicalize does not apply");
  }));
  addImportOptions(cl.options, opts);
  driver::InputFiles samples;
  addSampleOptions(cl.options, samples);
  cl.options.push_back(choice({"--format"}, format, {"text", "json"},
                              "option '--format' must be text or json"));
  if (int r = cl.parse(args); r >= 0)
    return r;
  auto ctx = driver::makeContext();
  int exitCode = 0;
  driver::shapesFromSamples(opts, samples);
  auto module = loadModel(*ctx, model, opts, cmd, exitCode);
  if (!module)
    return exitCode;
  std::string hash = toHex(computeGraphHash(*module));
  auto table = computeNodeTable(getMainFunc(*module));
  if (format == "json") {
    std::printf("{\"graph_hash\": \"%s\", \"contract\": \"%s\", \"nodes\": [",
                hash.c_str(), PLUMB_CONTRACT_VERSION);
    for (size_t i = 0; i < table.size(); ++i)
      std::printf("%s\n  {\"index\": %lld, \"id\": \"%s\", \"op\": \"%s\"}",
                  i ? "," : "", (long long)table[i].index,
                  toHex(table[i].id).c_str(), table[i].opName.c_str());
    std::printf("\n]}\n");
    return 0;
  }
  std::printf("model: %s\nnodes: %zu\ncontract: %s\n%s\n", model.c_str(),
              table.size(), PLUMB_CONTRACT_VERSION, hash.c_str());
  return 0;
}

} // namespace tool
} // namespace plumb
