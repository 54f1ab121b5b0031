//===- tools/plumb/CmdRun.cpp - plumb run ---------------------------------===//
//
// Part of Plumb. Runs a model on inputs with the reference interpreter and
// prints each output's shape and SHA-256 (canonical tensor encoding).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Driver/TensorIO.h"
#include "plumb/InitAll.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/runtime/threads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

namespace plumb {
namespace tool {

void printRunHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb run MODEL.onnx|MODEL.mlir [import options]\n"
      "                 [--input NAME=FILE]... [--inputs-dir DIR]\n"
      "                 [--output-dir DIR] [--threads N] [--repeat N]\n"
      "                 [--interpret] [--format text|json]\n"
      "\n"
      "Runs the model with Plumb's deterministic kernels and prints the shape\n"
      "and SHA-256 of every output (over the canonical encoding: dtype, shape,\n"
      "little-endian bytes, NaN canonicalised). Results are bit-identical on\n"
      "every machine and thread count.\n"
      "\n"
      "options:\n"
      "  --input NAME=FILE    an input as .npy or ONNX TensorProto .pb\n"
      "  --inputs-dir DIR     read input_<i>.pb (or .npy) for input i, as in\n"
      "                       ONNX's test_data_set_N folders\n"
      "  --output-dir DIR     write output_<i>.npy and outputs.json there\n"
      "  --threads N          kernel threads (default 1; never changes a bit)\n"
      "  --repeat N           run N more times after a warm-up and report the\n"
      "                       median and minimum latency\n"
      "  --interpret          execute the IR with the reference interpreter\n"
      "                       (the only mode until bundles exist)\n"
      "  --format text|json   output format (default text)\n"
      "  import options       --input-shape, --dim, --input-value as in\n"
      "                       'plumb import' (for .onnx models)\n"
      "\n"
      "An input fixed at import with --input-value may be omitted (its bound\n"
      "value is used); if given, it must equal the bound value.\n"
      "\n"
      "exit status: 0 success, 1 bad model or inputs, 2 usage error\n");
}

static std::string jsonEscape(const std::string &s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\')
      r += '\\', r += c;
    else if ((unsigned char)c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      r += buf;
    } else
      r += c;
  }
  return r;
}

static std::string shapeText(const std::vector<int64_t> &s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

int cmdRun(std::vector<std::string> args) {
  const char *cmd = "run";
  importer::ImportOptions opts;
  std::string model, inputsDir, outputDir, format = "text";
  std::map<std::string, std::string> inputFiles;
  int threads = 1, repeat = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::string v;
    bool missing = false;
    if (a == "-h" || a == "--help") {
      printRunHelp(stdout);
      return 0;
    }
    if (int r = takeImportOption(args, i, opts, cmd)) {
      if (r < 0)
        return 2;
    } else if (takeValue(args, i, "--input", v, missing)) {
      size_t eq = v.find('=');
      if (missing || eq == std::string::npos || eq == 0)
        return usageError("option '--input' needs NAME=FILE", cmd);
      inputFiles[v.substr(0, eq)] = v.substr(eq + 1);
    } else if (takeValue(args, i, "--inputs-dir", v, missing)) {
      if (missing)
        return usageError("option '--inputs-dir' needs a folder", cmd);
      inputsDir = v;
    } else if (takeValue(args, i, "--output-dir", v, missing)) {
      if (missing)
        return usageError("option '--output-dir' needs a folder", cmd);
      outputDir = v;
    } else if (takeValue(args, i, "--threads", v, missing) ||
               takeValue(args, i, "--repeat", v, missing)) {
      bool isThreads = a.rfind("--threads", 0) == 0;
      char *end = nullptr;
      long n = missing ? -1 : std::strtol(v.c_str(), &end, 10);
      if (missing || v.empty() || *end || n < (isThreads ? 1 : 0) || n > 1024)
        return usageError(std::string("option '") +
                              (isThreads ? "--threads" : "--repeat") +
                              "' needs a number" +
                              (isThreads ? " from 1 to 1024" : " from 0 to 1024"),
                          cmd);
      (isThreads ? threads : repeat) = (int)n;
    } else if (takeValue(args, i, "--format", v, missing)) {
      if (missing || (v != "text" && v != "json"))
        return usageError("option '--format' must be text or json", cmd);
      format = v;
    } else if (a == "--interpret") {
      // The interpreter is the execution path until bundles exist.
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
  auto func = module->lookupSymbol<mlir::func::FuncOp>("main");
  if (!func) {
    std::fprintf(stderr, "plumb run: error: '%s' has no func.func @main\n",
                 model.c_str());
    return 1;
  }

  // Inputs, in the model's input order.
  unsigned nargs = func.getNumArguments();
  std::vector<exec::Tensor> inputs(nargs);
  std::vector<std::string> names(nargs);
  for (unsigned i = 0; i < nargs; ++i) {
    auto n = func.getArgAttrOfType<mlir::StringAttr>(i, "plumb.name");
    names[i] = n ? n.str() : "#" + std::to_string(i);
  }
  for (auto &kv : inputFiles)
    if (std::find(names.begin(), names.end(), kv.first) == names.end())
      return usageError("--input names '" + kv.first +
                            "', which is not an input of the model",
                        cmd);
  for (unsigned i = 0; i < nargs; ++i) {
    std::string err, file;
    auto given = inputFiles.find(names[i]);
    if (given != inputFiles.end()) {
      file = given->second;
    } else if (!inputsDir.empty()) {
      for (const char *ext : {".pb", ".npy"}) {
        std::string p = inputsDir + "/input_" + std::to_string(i) + ext;
        if (llvm::sys::fs::exists(p)) {
          file = p;
          break;
        }
      }
    }
    if (file.empty()) {
      if (auto bound = func.getArgAttrOfType<mlir::ElementsAttr>(
              i, "plumb.bound_value")) {
        if (!exec::tensorFromAttr(bound, inputs[i], err)) {
          std::fprintf(stderr, "plumb run: error: %s\n", err.c_str());
          return 1;
        }
        continue;
      }
      std::fprintf(stderr,
                   "plumb run: error: no value for input '%s' (#%u); give "
                   "--input %s=FILE or --inputs-dir DIR\n",
                   names[i].c_str(), i, names[i].c_str());
      return 1;
    }
    if (!driver::readTensorFile(file, inputs[i], err)) {
      std::fprintf(stderr, "plumb run: error: input '%s': %s\n",
                   names[i].c_str(), err.c_str());
      return 1;
    }
  }

  plumb_rt_set_threads(threads);
  std::vector<exec::Tensor> outputs;
  std::string err;
  if (!exec::runFunction(func, inputs, outputs, err)) {
    std::fprintf(stderr, "plumb run: error: %s\n", err.c_str());
    return 1;
  }
  std::vector<double> times;
  for (int r = 0; r < repeat; ++r) {
    std::vector<exec::Tensor> again;
    auto t0 = std::chrono::steady_clock::now();
    exec::runFunction(func, inputs, again, err);
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }

  std::vector<std::string> outNames(outputs.size()), hashes(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto n = func.getResultAttrOfType<mlir::StringAttr>(i, "plumb.name");
    outNames[i] = n ? n.str() : "#" + std::to_string(i);
    hashes[i] = exec::toHex(exec::tensorHash(outputs[i]));
  }
  if (!outputDir.empty()) {
    if (auto ec = llvm::sys::fs::create_directories(outputDir)) {
      std::fprintf(stderr, "plumb run: error: cannot create '%s': %s\n",
                   outputDir.c_str(), ec.message().c_str());
      return 1;
    }
    std::string json = "[\n";
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path = outputDir + "/output_" + std::to_string(i) + ".npy";
      if (!driver::writeNpy(path, outputs[i], err)) {
        std::fprintf(stderr, "plumb run: error: %s\n", err.c_str());
        return 1;
      }
      json += "  {\"index\": " + std::to_string(i) + ", \"name\": \"" +
              jsonEscape(outNames[i]) + "\", \"dtype\": \"" +
              exec::elemTypeName(outputs[i].type) + "\", \"shape\": " +
              shapeText(outputs[i].shape) + ", \"sha256\": \"" + hashes[i] +
              "\"}" + (i + 1 < outputs.size() ? ",\n" : "\n");
    }
    json += "]\n";
    if (!writeFileAtomically(outputDir + "/outputs.json", json, err)) {
      std::fprintf(stderr, "plumb run: error: %s\n", err.c_str());
      return 1;
    }
  }
  double median = 0, best = 0;
  if (!times.empty()) {
    std::sort(times.begin(), times.end());
    median = times[times.size() / 2];
    best = times.front();
  }
  if (format == "json") {
    std::printf("{\"outputs\": [");
    for (size_t i = 0; i < outputs.size(); ++i)
      std::printf("%s{\"name\": \"%s\", \"dtype\": \"%s\", \"shape\": %s, "
                  "\"sha256\": \"%s\"}",
                  i ? ", " : "", jsonEscape(outNames[i]).c_str(),
                  exec::elemTypeName(outputs[i].type),
                  shapeText(outputs[i].shape).c_str(), hashes[i].c_str());
    std::printf("]");
    if (!times.empty())
      std::printf(", \"latency_ms\": {\"median\": %.4f, \"min\": %.4f}", median,
                  best);
    std::printf(", \"threads\": %d}\n", threads);
    return 0;
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    std::printf("output %zu '%s' %s sha256=%s\n", i, outNames[i].c_str(),
                outputs[i].describe().c_str(), hashes[i].c_str());
  if (!times.empty())
    std::printf("latency: median %.3f ms, min %.3f ms over %d runs (%d "
                "thread%s)\n",
                median, best, repeat, threads, threads == 1 ? "" : "s");
  return 0;
}

} // namespace tool
} // namespace plumb
