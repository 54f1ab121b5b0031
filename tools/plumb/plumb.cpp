//===- tools/plumb/plumb.cpp - The plumb driver ---------------------------===//
//
// Part of Plumb. `plumb <command> [options]`. Exit status: 0 success, 1 a bad
// model or failed check, 2 a usage error.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace plumb::tool;

namespace {


constexpr const char *kVersion = "0.1.0";

void printMainHelp(FILE *f) {
  std::fprintf(f,
               "usage: plumb <command> [options]\n"
               "\n"
               "Deterministic compiler toolchain for ONNX models.\n"
               "\n"
               "commands:\n"
               "  import    import an ONNX model into plumb IR (MLIR text)\n"
               "  hash      print the graph hash of a model's canonical form\n"
               "  compile   compile a model into a bundle (C++ and CUDA)\n"
               "  run       run a model on inputs and print output hashes\n"
               "  cost      price a model in gas before it runs\n"
               "  dispute   settle two traces' disagreement by refereed delegation\n"
               "  serve-trace  answer a dispute referee as a party from a trace\n"
               "  help      show help for a command (plumb help run)\n"
               "\n"
               "options:\n"
               "  -h, --help     show this help\n"
               "  --version      print the Plumb version and contract version\n"
               "\n"
               "Run 'plumb <command> --help' for a command's options.\n");
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    printMainHelp(stderr);
    return 2;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  if (cmd == "-h" || cmd == "--help") {
    printMainHelp(stdout);
    return 0;
  }
  if (cmd == "--version") {
    std::printf("plumb %s (contract %s)\n", kVersion, "plumb-det-v1");
    return 0;
  }
  if (cmd == "help") {
    if (args.empty()) {
      printMainHelp(stdout);
      return 0;
    }
    if (args[0] == "import") {
      printImportHelp(stdout);
      return 0;
    }
    if (args[0] == "hash") {
      printHashHelp(stdout);
      return 0;
    }
    if (args[0] == "compile") {
      printCompileHelp(stdout);
      return 0;
    }
    if (args[0] == "run") {
      printRunHelp(stdout);
      return 0;
    }
    if (args[0] == "cost") {
      printCostHelp(stdout);
      return 0;
    }
    if (args[0] == "dispute") {
      printDisputeHelp(stdout);
      return 0;
    }
    if (args[0] == "serve-trace") {
      printServeTraceHelp(stdout);
      return 0;
    }
    return usageError("unknown command '" + args[0] + "'", nullptr);
  }
  if (cmd == "import")
    return cmdImport(args);
  if (cmd == "hash")
    return cmdHash(args);
  if (cmd == "compile")
    return cmdCompile(args);
  if (cmd == "run")
    return cmdRun(args);
  if (cmd == "cost")
    return cmdCost(args);
  if (cmd == "dispute")
    return cmdDispute(args);
  if (cmd == "serve-trace")
    return cmdServeTrace(args);
  return usageError("unknown command '" + cmd + "'", nullptr);
}
