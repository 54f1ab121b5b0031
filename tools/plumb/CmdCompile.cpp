//===- tools/plumb/CmdCompile.cpp - plumb compile and compiled runs -------===//
//
// Part of Plumb. `plumb compile` writes a bundle (docs/bundle.md).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Bundle/Bundle.h"
#include "plumb/Support/Nodes.h"

#include "llvm/Support/Path.h"

#include <chrono>
#include <cstdio>

namespace plumb {
namespace tool {

void printCompileHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb compile MODEL.onnx|MODEL.mlir [-o OUT.plumb]\n"
      "                     [--target cpu|cuda|all] [import options]\n"
      "                     [--cxx COMPILER] [--quiet]\n"
      "                     [--input NAME=FILE]... [--inputs-dir DIR]\n"
      "       plumb compile MODEL.onnx --train --loss cross_entropy|mse|output\n"
      "                     --optimizer SPEC [--batch N] [--frozen NAME]...\n"
      "                     [-o RUN.plumb] (a training step; docs/training.md)\n"
      "\n"
      "Compiles the model into a bundle folder: manifest.json (graph hash,\n"
      "contract, gas, interface, nodes in canonical order, the SHA-256 of\n"
      "every file), model.mlir (the canonical IR, weights elided),\n"
      "weights.bin (64-byte aligned), the emitted C++ and CUDA sources and\n"
      "the libraries built from them. Every shape, reduction tree and buffer\n"
      "offset is fixed at compile time; the sources are byte-identical on\n"
      "every machine. Run the bundle with 'plumb run OUT.plumb', which\n"
      "verifies it and builds its own library from re-derived sources\n"
      "(docs/bundle.md).\n"
      "\n"
      "options:\n"
      "  -o, --output DIR     the bundle folder (default: MODEL.plumb in the\n"
      "                       current folder); an existing bundle there is\n"
      "                       replaced once the new one is complete\n"
      "  --target T           which libraries to build: cpu, cuda or all\n"
      "                       (default all; the CUDA library is built when\n"
      "                       nvcc and Plumb's CUDA kernels are present, and\n"
      "                       the manifest says why when not). Both sources\n"
      "                       are always emitted.\n"
      "  --cxx COMPILER       host C++ compiler (default $PLUMB_CXX, $CXX,\n"
      "                       then c++, g++ or clang++ on PATH)\n"
      "  --quiet              no progress on stderr\n"
      "  import options       --input-shape, --dim, --input-value as in\n"
      "                       'plumb import' (for .onnx models)\n"
      "%s"
      "\n"
      "training (docs/training.md):\n"
      "  --train              compile one training step instead: (parameters,\n"
      "                       optimiser state, step, batch, labels|targets) ->\n"
      "                       (parameters', state', loss); every float\n"
      "                       initializer not --frozen is a parameter\n"
      "  --loss L             cross_entropy (first output = logits [batch,\n"
      "                       classes], new int64 input 'labels'), mse (new\n"
      "                       input 'targets'), output (first output = loss)\n"
      "  --optimizer SPEC     sgd:lr=0.1 | momentum:lr=..,momentum=.. |\n"
      "                       adam:lr=..,beta1=..,beta2=..,eps=.. |\n"
      "                       adamw:...,weight_decay=..\n"
      "  --batch N            fix the batch dimension (the first axis of every\n"
      "                       input) to N\n"
      "  --frozen NAME        keep initializer NAME constant (repeatable)\n"
      "\n"
      "exit status: 0 success, 1 bad model or failed build, 2 usage error\n",
      kSampleOptionsHelp);
}

namespace {

std::string withCommas(uint64_t v) {
  std::string s = std::to_string(v), r;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0)
      r += ',';
    r += s[i];
  }
  return r;
}

bundle::ProgressFn progressTo(const char *cmd, bool quiet) {
  if (quiet)
    return nullptr;
  return [cmd](const std::string &s) {
    std::fprintf(stderr, "plumb %s: %s\n", cmd, s.c_str());
    std::fflush(stderr);
  };
}

void printManifestSummary(const std::string &out, const bundle::Manifest &m) {
  std::printf("bundle   %s\n", out.c_str());
  std::printf("graph    %s\n", m.graphHash.c_str());
  std::printf("nodes    %zu\n", m.nodes.size());
  if (m.hasGas)
    std::printf("gas      %s (%s)\n", withCommas(m.gasTotal).c_str(),
                m.gasSchedule.c_str());
  std::printf("memory   weights %s bytes, arena %s bytes\n",
              withCommas(m.weightsBytes).c_str(),
              withCommas(m.arenaBytes).c_str());
  for (const bundle::ManifestTarget &t : m.targets)
    std::printf("%-8s %s\n", t.name.c_str(),
                t.built ? ("built: " + t.library).c_str()
                        : ("not built: " + t.reason).c_str());
}

} // namespace

int cmdCompile(std::vector<std::string> args) {
  const char *cmd = "compile";
  importer::ImportOptions opts;
  std::string model, out, targetName = "all", cxx;
  std::vector<std::string> importArgs;
  bool quiet = false;
  CommandLine cl{cmd, printCompileHelp, {}, &model};
  addImportOptions(cl.options, opts, &importArgs);
  driver::InputFiles samples;
  addSampleOptions(cl.options, samples);
  cl.options.push_back(text({"-o", "--output"}, out,
                            "option '-o' needs a folder", /*nonEmpty=*/true));
  cl.options.push_back(choice({"--target"}, targetName, {"cpu", "cuda", "all"},
                              "option '--target' must be cpu, cuda or all"));
  cl.options.push_back(text({"--cxx"}, cxx, "option '--cxx' needs a compiler",
                            /*nonEmpty=*/true));
  cl.options.push_back(flag({"--quiet"}, quiet));
  TrainFlags train;
  addTrainOptions(cl.options, train);
  if (int r = cl.parse(args); r >= 0)
    return r;
  if (int r = checkTrainFlags(train, model, cmd); r >= 0)
    return r;
  if (out.empty())
    out = llvm::sys::path::stem(model).str() + ".plumb";

  auto start = std::chrono::steady_clock::now();
  bundle::ProgressFn progress = progressTo(cmd, quiet);
  if (progress)
    progress("loading and canonicalising " +
             llvm::sys::path::filename(model).str());
  auto ctx = driver::makeContext();
  int exitCode = 0;
  // Bundles always hold the canonical form.
  opts.canonicalize = true;
  bundle::CompileOptions co;
  if (train.on && !prepareTrainImport(train, model, opts, cmd, exitCode))
    return exitCode;
  driver::shapesFromSamples(opts, samples, &importArgs);
  auto module = loadModel(*ctx, model, opts, cmd, exitCode);
  if (!module)
    return exitCode;
  if (train.on && !buildTraining(train, model, *module, co, cmd, exitCode))
    return exitCode;
  if (!getMainFunc(*module))
    return fail(cmd, "'" + model + "' has no func.func @main");

  co.buildCpu = targetName != "cuda";
  co.buildCuda = targetName != "cpu";
  co.cxx = cxx;
  co.sourceName = llvm::sys::path::filename(model).str();
  co.sourceSha256 = bundle::fileSha256(model);
  co.importOptions = importArgs;
  co.progress = progress;
  auto m = bundle::writeBundle(*module, out, co);
  if (!m)
    return fail(cmd, llvm::toString(m.takeError()));
  double secs = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  printManifestSummary(out, *m);
  if (progress) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "done in %.1f s", secs);
    progress(buf);
  }
  return 0;
}

} // namespace tool
} // namespace plumb
