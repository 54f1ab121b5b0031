//===- tools/plumb/plumb.cpp - The plumb driver ---------------------------===//
//
// Part of Plumb. `plumb <command> [options]`. Exit status: 0 success, 1 a bad
// model or failed check, 2 a usage error.
//
//===----------------------------------------------------------------------===//
#include "plumb/Importer/OnnxImporter.h"
#include "plumb/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace plumb;

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
               "  help      show help for a command (plumb help import)\n"
               "\n"
               "options:\n"
               "  -h, --help     show this help\n"
               "  --version      print the Plumb version and contract version\n"
               "\n"
               "Run 'plumb <command> --help' for a command's options.\n");
}

void printImportHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb import MODEL.onnx [-o OUT.mlir] [--input-shape NAME=DIMS]...\n"
      "                    [--dim SYMBOL=N]... [--input-value NAME=V]...\n"
      "\n"
      "Imports an ONNX model (opsets 7 to 17) into the plumb dialect with a\n"
      "static shape for every tensor, folding shape computations, and writes\n"
      "it as MLIR text (to stdout without -o). Large weights are written as\n"
      "resource blobs at the end of the file.\n"
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
      "  -h, --help                show this help\n"
      "\n"
      "exit status: 0 success, 1 the model cannot be imported, 2 usage error\n");
}

int usageError(const std::string &msg, const char *cmd) {
  std::fprintf(stderr, "plumb%s%s: error: %s\n", cmd ? " " : "", cmd ? cmd : "",
               msg.c_str());
  std::fprintf(stderr, "run 'plumb %s--help' for usage\n",
               cmd ? (std::string(cmd) + " ").c_str() : "");
  return 2;
}

/// Takes the value of an option given as "--opt=V" or "--opt V".
bool takeValue(std::vector<std::string> &args, size_t &i, const std::string &opt,
               std::string &value, bool &missing) {
  const std::string &a = args[i];
  missing = false;
  if (a == opt) {
    if (i + 1 >= args.size()) {
      missing = true;
      return true;
    }
    value = args[++i];
    return true;
  }
  if (a.size() > opt.size() + 1 && a.compare(0, opt.size(), opt) == 0 &&
      a[opt.size()] == '=') {
    value = a.substr(opt.size() + 1);
    return true;
  }
  return false;
}

/// Writes `text` to `path` through a temporary file, so a failure never
/// leaves a half-written or clobbered output.
bool writeFileAtomically(const std::string &path, const std::string &text,
                         std::string &err) {
  std::string tmp = path + ".tmp-plumb";
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(tmp, ec);
    if (ec) {
      err = "cannot write '" + path + "': " + ec.message();
      return false;
    }
    os << text;
    os.close();
    if (os.has_error()) {
      err = "cannot write '" + path + "': " + os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return false;
    }
  }
  if ((ec = llvm::sys::fs::rename(tmp, path))) {
    err = "cannot write '" + path + "': " + ec.message();
    llvm::sys::fs::remove(tmp);
    return false;
  }
  return true;
}

int cmdImport(std::vector<std::string> args) {
  const char *cmd = "import";
  importer::ImportOptions opts;
  std::string model, output;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::string v;
    bool missing;
    importer::ImportError e;
    if (a == "-h" || a == "--help") {
      printImportHelp(stdout);
      return 0;
    }
    if (takeValue(args, i, "-o", v, missing) ||
        takeValue(args, i, "--output", v, missing)) {
      if (missing)
        return usageError("option '" + a + "' needs a file name", cmd);
      output = v;
    } else if (takeValue(args, i, "--input-shape", v, missing)) {
      if (missing)
        return usageError("option '--input-shape' needs NAME=DIMS", cmd);
      if (!importer::parseInputShape(v, opts.bindings, e))
        return usageError(e.message, cmd);
    } else if (takeValue(args, i, "--dim", v, missing)) {
      if (missing)
        return usageError("option '--dim' needs SYMBOL=N", cmd);
      if (!importer::parseDim(v, opts.bindings, e))
        return usageError(e.message, cmd);
    } else if (takeValue(args, i, "--input-value", v, missing)) {
      if (missing)
        return usageError("option '--input-value' needs NAME=V", cmd);
      if (!importer::parseInputValue(v, opts.bindings, e))
        return usageError(e.message, cmd);
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      return usageError("unknown option '" + a + "'", cmd);
    } else if (model.empty()) {
      model = a;
    } else {
      return usageError("unexpected argument '" + a + "' (one model at a time)",
                        cmd);
    }
  }
  if (model.empty())
    return usageError("no model given", cmd);

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.disableMultithreading();
  importer::ImportError err;
  auto module = importer::importOnnxFile(ctx, model, opts, err);
  if (!module) {
    std::fprintf(stderr, "plumb import: error: %s: %s\n", model.c_str(),
                 err.message.c_str());
    return err.exitCode ? err.exitCode : 1;
  }
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
  if (!writeFileAtomically(output, text, werr)) {
    std::fprintf(stderr, "plumb import: error: %s\n", werr.c_str());
    return 1;
  }
  return 0;
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
    return usageError("unknown command '" + args[0] + "'", nullptr);
  }
  if (cmd == "import")
    return cmdImport(args);
  return usageError("unknown command '" + cmd + "'", nullptr);
}
