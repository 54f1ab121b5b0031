//===- tools/plumb/CmdImport.cpp - plumb import ---------------------------===//
//
// Part of Plumb.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Driver/Files.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace plumb {
namespace tool {

void printImportHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb import MODEL.onnx [-o OUT.mlir] [--input-shape NAME=DIMS]...\n"
      "                    [--dim SYMBOL=N]... [--input-value NAME=V]...\n"
      "                    [--no-canonicalize]\n"
      "\n"
      "Imports an ONNX model (opsets 7 to 25) into the plumb dialect with a\n"
      "static shape for every tensor, folding shape computations, runs the\n"
      "plumb-canonicalize pipeline (docs/canonical.md) and writes the IR as\n"
      "MLIR text (to stdout without -o). Large weights are written as\n"
      "resource blobs at the end of the file, named after their content.\n"
      "\n"
      "options:\n"
      "  -o, --output FILE         write the IR to FILE (written only on success)\n"
      "  --input-shape NAME=DIMS   fix the shape of input NAME, e.g. 1x3x224x224\n"
      "                            (an empty DIMS means a scalar)\n"
      "  --dim SYMBOL=N            bind the symbolic dimension SYMBOL to N\n"
      "  --input-value NAME=V      fix the value of input NAME (a number or a\n"
      "                            comma list); it stays an input whose value\n"
      "                            must equal V at run time, and lets shape\n"
      "                            computations and If conditions fold\n"
      "  --no-canonicalize         write the IR as imported (file order, no\n"
      "                            trees, no constant folding)\n"
      "  -h, --help                show this help\n"
      "\n"
      "exit status: 0 success, 1 the model cannot be imported, 2 usage error\n");
}

int cmdImport(std::vector<std::string> args) {
  const char *cmd = "import";
  importer::ImportOptions opts;
  std::string model, output;
  CommandLine cl{cmd, printImportHelp, {}, &model};
  cl.unexpectedNote = " (one model at a time)";
  cl.dashIsPositional = true;
  cl.options.push_back(valued({"-o", "--output"}, [&](const OptionUse &u) {
    if (u.missing)
      return "option '" + u.name + "' needs a file name";
    output = u.value;
    return std::string();
  }));
  addImportOptions(cl.options, opts);
  if (int r = cl.parse(args); r >= 0)
    return r;

  auto ctx = driver::makeContext();
  int exitCode = 0;
  auto module = loadModel(*ctx, model, opts, cmd, exitCode);
  if (!module)
    return exitCode;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags());
  os << "\n";
  os.flush();
  if (output.empty() || output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::string werr;
  if (!writeFileAtomically(output, text, werr))
    return fail(cmd, werr);
  return 0;
}

} // namespace tool
} // namespace plumb
