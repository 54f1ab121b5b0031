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
      "                    [--no-canonicalize] [--input NAME=FILE]...\n"
      "                    [--inputs-dir DIR]\n"
      "       plumb import --list-ops [--format text|json]\n"
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
      "  --input NAME=FILE         a sample for input NAME (.npy or .pb): an\n"
      "                            input whose declared shape has free\n"
      "                            dimensions (and no --input-shape) takes\n"
      "                            the sample's shape\n"
      "  --inputs-dir DIR          samples input_<i>.pb (or .npy) for input i,\n"
      "                            used the same way\n"
      "  --list-ops                print the supported ONNX operators (default\n"
      "                            domain) with their opsets and element types\n"
      "  --format text|json        the --list-ops format (default text)\n"
      "  -h, --help                show this help\n"
      "\n"
      "exit status: 0 success, 1 the model cannot be imported, 2 usage error\n");
}

namespace {
/// --list-ops: one line (or JSON object) per operator.
int listOps(const std::string &format) {
  std::vector<importer::SupportedOp> ops = importer::supportedOps();
  if (format == "json") {
    std::string s = "{\"opsets\":[" + std::to_string(importer::kMinOpset) +
                    "," + std::to_string(importer::kMaxOpset) +
                    "],\"ir_versions\":[" +
                    std::to_string(importer::kMinIrVersion) + "," +
                    std::to_string(importer::kMaxIrVersion) + "],\"ops\":[";
    for (size_t i = 0; i < ops.size(); ++i) {
      s += std::string(i ? "," : "") + "{\"name\":\"" + ops[i].name +
           "\",\"opsets\":[" + std::to_string(ops[i].firstOpset) + "," +
           std::to_string(ops[i].lastOpset) + "],\"types\":[";
      for (size_t t = 0; t < ops[i].types.size(); ++t)
        s += std::string(t ? "," : "") + "\"" + ops[i].types[t] + "\"";
      s += "]}";
    }
    s += "]}\n";
    std::fwrite(s.data(), 1, s.size(), stdout);
    return 0;
  }
  std::printf("%zu ONNX operators (default domain, opsets %lld to %lld; IR "
              "versions %lld to %lld):\n",
              ops.size(), (long long)importer::kMinOpset,
              (long long)importer::kMaxOpset,
              (long long)importer::kMinIrVersion,
              (long long)importer::kMaxIrVersion);
  for (const importer::SupportedOp &op : ops) {
    std::string types;
    for (size_t t = 0; t < op.types.size(); ++t)
      types += (t ? ", " : "") + op.types[t];
    std::printf("  %-24s opsets %2lld-%lld  %s\n", op.name.c_str(),
                (long long)op.firstOpset, (long long)op.lastOpset,
                types.c_str());
  }
  return 0;
}
} // namespace

int cmdImport(std::vector<std::string> args) {
  const char *cmd = "import";
  importer::ImportOptions opts;
  std::string model, output, format = "text";
  bool list = false;
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
  driver::InputFiles samples;
  addSampleOptions(cl.options, samples);
  cl.options.push_back(flag({"--list-ops"}, list));
  cl.options.push_back(choice({"--format"}, format, {"text", "json"},
                              "option '--format' needs text or json"));
  cl.noPositional = nullptr; // --list-ops takes none
  if (int r = cl.parse(args); r >= 0)
    return r;
  if (list) {
    if (!model.empty())
      return usageError("--list-ops takes no model", cmd);
    return listOps(format);
  }
  if (model.empty())
    return usageError("no model given", cmd);

  auto ctx = driver::makeContext();
  int exitCode = 0;
  driver::shapesFromSamples(opts, samples);
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
