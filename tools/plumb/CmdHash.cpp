//===- tools/plumb/CmdHash.cpp - plumb hash -------------------------------===//
//
// Part of Plumb. Prints the graph hash of a model's canonical form (64 hex
// digits on the last line), or with --format json the node table too.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Canonical/Identity.h"
#include "plumb/InitAll.h"
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
      "\n"
      "exit status: 0 success, 1 the model cannot be loaded, 2 usage error\n");
}

int cmdHash(std::vector<std::string> args) {
  const char *cmd = "hash";
  importer::ImportOptions opts;
  std::string model, format = "text";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::string v;
    bool missing = false;
    if (a == "-h" || a == "--help") {
      printHashHelp(stdout);
      return 0;
    }
    if (a == "--no-canonicalize")
      return usageError("the graph hash is defined on the canonical form; "
                        "--no-canonicalize does not apply",
                        cmd);
    if (int r = takeImportOption(args, i, opts, cmd)) {
      if (r < 0)
        return 2;
    } else if (takeValue(args, i, "--format", v, missing)) {
      if (missing || (v != "text" && v != "json"))
        return usageError("option '--format' must be text or json", cmd);
      format = v;
    } else if (!a.empty() && a[0] == '-') {
      return usageError("unknown option '" + a + "'", cmd);
    } else if (model.empty()) {
      model = a;
    } else {
      return usageError("unexpected argument '" + a + "'", cmd);
    }
  }
  if (model.empty())
    return usageError("no model given", cmd);
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.disableMultithreading();
  int exitCode = 0;
  auto module = loadModel(ctx, model, opts, cmd, exitCode);
  if (!module)
    return exitCode;
  std::string hash = toHex(computeGraphHash(*module));
  if (format == "json") {
    auto table = computeNodeTable(getMainFunc(*module));
    std::printf("{\"graph_hash\": \"%s\", \"contract\": \"%s\", \"nodes\": [",
                hash.c_str(), "plumb-det-v1");
    for (size_t i = 0; i < table.size(); ++i)
      std::printf("%s\n  {\"index\": %lld, \"id\": \"%s\", \"op\": \"%s\"}",
                  i ? "," : "", (long long)table[i].index,
                  toHex(table[i].id).c_str(), table[i].opName.c_str());
    std::printf("\n]}\n");
    return 0;
  }
  auto table = computeNodeTable(getMainFunc(*module));
  std::printf("model: %s\nnodes: %zu\ncontract: plumb-det-v1\n%s\n",
              model.c_str(), table.size(), hash.c_str());
  return 0;
}

} // namespace tool
} // namespace plumb
