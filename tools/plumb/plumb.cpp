//===- tools/plumb/plumb.cpp - The plumb driver ---------------------------===//
//
// Part of Plumb. `plumb <command> [options]`. Exit status: 0 success, 1 a bad
// model or failed check, 2 a usage error.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Bundle/NativeBuild.h"
#include "plumb/runtime/config.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace plumb::tool;

namespace {


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
               "  train     run a training bundle for N steps (docs/training.md)\n"
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
  struct Command {
    const char *name;
    int (*run)(std::vector<std::string>);
    void (*help)(FILE *);
  };
  static const Command commands[] = {
      {"import", cmdImport, printImportHelp},
      {"hash", cmdHash, printHashHelp},
      {"compile", cmdCompile, printCompileHelp},
      {"run", cmdRun, printRunHelp},
      {"train", cmdTrain, printTrainHelp},
      {"cost", cmdCost, printCostHelp},
      {"dispute", cmdDispute, printDisputeHelp},
      {"serve-trace", cmdServeTrace, printServeTraceHelp},
  };
  auto find = [](const std::string &name) -> const Command * {
    for (const Command &c : commands)
      if (name == c.name)
        return &c;
    return nullptr;
  };
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
    std::printf("plumb %s (contract %s)\n", plumb::bundle::plumbVersion(),
                PLUMB_CONTRACT_VERSION);
    return 0;
  }
  if (cmd == "help") {
    if (args.empty()) {
      printMainHelp(stdout);
      return 0;
    }
    if (const Command *c = find(args[0])) {
      c->help(stdout);
      return 0;
    }
    return usageError("unknown command '" + args[0] + "'", nullptr);
  }
  if (const Command *c = find(cmd))
    return c->run(args);
  return usageError("unknown command '" + cmd + "'", nullptr);
}
