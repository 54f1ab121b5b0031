//===- tools/plumb/CmdRun.cpp - plumb run ---------------------------------===//
//
// Part of Plumb. Runs a model on inputs with the reference interpreter and
// prints each output's shape and SHA-256 (canonical tensor encoding).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "plumb/Bundle/Run.h"
#include "plumb/Driver/Inputs.h"
#include "plumb/Support/Merkle.h"
#include "plumb/Support/Nodes.h"

#include "llvm/Support/FileSystem.h"

#include <cstdio>

namespace plumb {
namespace tool {

void printRunHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb run MODEL.plumb|MODEL.onnx|MODEL.mlir [import options]\n"
      "                 [--input NAME=FILE]... [--inputs-dir DIR]\n"
      "                 [--output-dir DIR] [--threads N] [--repeat N]\n"
      "                 [--interpret] [--device cpu|cuda] [--format text|json]\n"
      "                 [--trace DIR [--keep-tensors]] [--profile]\n"
      "                 [--max-memory BYTES]\n"
      "                 [--inject-fault node=K,bit=B]\n"
      "                 [--override-tree node=K,block=B]\n"
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
      "  --interpret          execute the canonical IR with the reference\n"
      "                       interpreter (same kernels, no code generation;\n"
      "                       what a referee runs). Identical bits.\n"
      "  --device cpu|cuda    where the compiled model runs (default cpu)\n"
      "  --format text|json   output format (default text)\n"
      "  --profile            time every node over the --repeat runs (10 when\n"
      "                       --repeat is not given) and print them dearest\n"
      "                       first: canonical index, op, shapes, median ms,\n"
      "                       share of the run, GFLOP/s and GB/s from the\n"
      "                       cost model's counts (docs/gas.md)\n"
      "  --trace DIR          write the run's trace to DIR: every node's result\n"
      "                       hashes and the Merkle root over them, in\n"
      "                       canonical node order (docs/trace.md)\n"
      "  --keep-tensors       with --trace, also keep every input and node\n"
      "                       output tensor (what a party needs in a dispute)\n"
      "  --hash-threads N     hash node outputs for the trace on N background\n"
      "                       threads, overlapped with the run (0: in the\n"
      "                       run's thread; default: the cores --threads\n"
      "                       leaves free, at most 8)\n"
      "  --max-memory BYTES   refuse the run, before reading the inputs or\n"
      "                       allocating anything, when weights, arena,\n"
      "                       inputs, outputs and trace buffers would exceed\n"
      "                       BYTES (suffixes K, M, G, T: 512M, 4G)\n"
      "\n"
      "testing aids (make a faulty solver on purpose; docs/dispute.md):\n"
      "  --inject-fault node=K,bit=B\n"
      "                       flip bit B of the first element of node K's\n"
      "                       first output (K: canonical index, as in the\n"
      "                       bundle manifest) and let the error propagate\n"
      "  --override-tree node=K,block=B\n"
      "                       reduce node K with blocked(B) (0: sequential)\n"
      "                       instead of its canonical tree; the trace still\n"
      "                       claims the canonical graph\n"
      "  import options       --input-shape, --dim, --input-value as in\n"
      "                       'plumb import' (for .onnx models); an input\n"
      "                       whose declared shape has free dimensions and\n"
      "                       no --input-shape takes the shape of the file\n"
      "                       given for it\n"
      "\n"
      "A bundle (from 'plumb compile') is verified against its manifest and\n"
      "its sources are re-derived from its IR before the library this Plumb\n"
      "builds from them is loaded (docs/bundle.md); a modified bundle is\n"
      "refused. An .onnx or .mlir model is compiled first, into a cache keyed\n"
      "by its graph hash ($PLUMB_CACHE_DIR, else ~/.cache/plumb).\n"
      "--override-tree implies --interpret. --repeat times one inference,\n"
      "without loading and verification.\n"
      "\n"
      "An input fixed at import with --input-value may be omitted (its bound\n"
      "value is used); if given, it must equal the bound value.\n"
      "\n"
      "exit status: 0 success, 1 bad model or inputs, 2 usage error\n");
}

namespace {

struct RunArgs {
  importer::ImportOptions opts;
  std::string model, outputDir, format = "text";
  driver::InputFiles inputs;
  int repeat = 0;
  bool profile = false;
  uint64_t maxMemory = 0; // 0: no cap
  bundle::RunOptions run;
};

/// Parses plumb run's command line: -1 to go on, else the exit status.
int parseRunArgs(const std::vector<std::string> &args, RunArgs &a) {
  const char *cmd = "run";
  bundle::RunOptions &o = a.run;
  CommandLine cl{cmd, printRunHelp, {}, &a.model};
  addImportOptions(cl.options, a.opts);
  cl.options.push_back(pairs("--input", a.inputs.byName, "FILE"));
  cl.options.push_back(text({"--inputs-dir"}, a.inputs.dir,
                            "option '--inputs-dir' needs a folder"));
  cl.options.push_back(text({"--output-dir"}, a.outputDir,
                            "option '--output-dir' needs a folder"));
  cl.options.push_back(number("--threads", o.threads, 1, 1024));
  cl.options.push_back(number("--repeat", a.repeat, 0, 1024));
  cl.options.push_back(choice({"--format"}, a.format, {"text", "json"},
                              "option '--format' must be text or json"));
  cl.options.push_back(text({"--trace"}, o.traceDir,
                            "option '--trace' needs a folder",
                            /*nonEmpty=*/true));
  cl.options.push_back(flag({"--keep-tensors"}, o.keepTensors));
  cl.options.push_back(number("--hash-threads", o.hashThreads, 0, 64));
  cl.options.push_back(valued({"--inject-fault"}, [&](const OptionUse &u) {
    trace::BitFlip f;
    std::string perr;
    if (u.missing || !trace::parseBitFlip(u.value, f, perr))
      return "option '--inject-fault': " +
             (u.missing ? "expected node=K,bit=B" : perr);
    o.faults.push_back(f);
    return std::string();
  }));
  cl.options.push_back(valued({"--override-tree"}, [&](const OptionUse &u) {
    trace::TreeOverride t;
    std::string perr;
    if (u.missing || !trace::parseTreeOverride(u.value, t, perr))
      return "option '--override-tree': " +
             (u.missing ? "expected node=K,block=B" : perr);
    o.treeOverrides.push_back(t);
    return std::string();
  }));
  cl.options.push_back(valued({"--max-memory"}, [&](const OptionUse &u) {
    std::string perr;
    if (u.missing)
      return std::string("option '--max-memory' needs a byte count (e.g. "
                         "512M, 4G)");
    if (!bundle::parseByteSize(u.value, a.maxMemory, perr))
      return "option '--max-memory': " + perr;
    if (a.maxMemory == 0)
      return std::string("option '--max-memory' must be at least 1 byte");
    return std::string();
  }));
  cl.options.push_back(flag({"--interpret"}, o.interpret));
  cl.options.push_back(flag({"--profile"}, a.profile));
  cl.options.push_back(choice({"--device"}, o.device, {"cpu", "cuda"},
                              "option '--device' must be cpu or cuda"));
  if (int r = cl.parse(args); r >= 0)
    return r;
  if (o.keepTensors && o.traceDir.empty())
    return usageError("--keep-tensors needs --trace DIR", cmd);
  if (a.profile && o.hooked())
    return usageError("--profile times an untraced run; it cannot be "
                      "combined with --trace, --inject-fault or "
                      "--override-tree",
                      cmd);
  if (!o.treeOverrides.empty())
    o.interpret = true; // another tree is another program: only the IR has it
  if (o.interpret && o.device != "cpu")
    return usageError("--interpret runs on the host; it cannot be combined "
                      "with --device " + o.device,
                      cmd);
  return -1;
}

double rate(uint64_t count, double ms) {
  return ms > 0 ? (double)count / (ms * 1e6) : 0.0;
}

/// The profile as text (a table, dearest node first) or a JSON member.
std::string profileText(const bundle::ProfileReport &p, const RunArgs &a,
                        bool json) {
  std::string s;
  char buf[512];
  if (json) {
    std::snprintf(buf, sizeof(buf),
                  ", \"profile\": {\"runs\": %d, \"run_ms\": %.4f, "
                  "\"nodes_ms\": %.4f, \"nodes\": [",
                  p.runs, p.runMs, p.nodesMs);
    s += buf;
    for (size_t i = 0; i < p.nodes.size(); ++i) {
      const bundle::NodeProfile &n = p.nodes[i];
      std::snprintf(buf, sizeof(buf),
                    "%s{\"index\": %lld, \"op\": \"%s\", \"shapes\": "
                    "\"%s\", \"ms\": %.5f, \"share\": %.5f, \"gflops\": "
                    "%.3f, \"gbytes_per_s\": %.3f}",
                    i ? ", " : "", (long long)n.index,
                    driver::jsonEscape(n.op).c_str(),
                    driver::jsonEscape(n.shapes).c_str(), n.ms,
                    p.nodesMs > 0 ? n.ms / p.nodesMs : 0.0,
                    rate(n.flops, n.ms), rate(n.bytes, n.ms));
      s += buf;
    }
    return s + "]}";
  }
  std::snprintf(buf, sizeof(buf),
                "profile: %d runs, %d thread%s, %s: median %.3f ms, nodes "
                "%.3f ms\n",
                p.runs, a.run.threads, a.run.threads == 1 ? "" : "s",
                a.run.interpret ? "interpreted" : "compiled", p.runMs,
                p.nodesMs);
  s += buf;
  s += "  index  op                             ms   share  GFLOP/s     "
       "GB/s  shapes\n";
  for (const bundle::NodeProfile &n : p.nodes) {
    std::string op = n.op.size() > 28 ? n.op.substr(0, 25) + "..." : n.op;
    std::snprintf(buf, sizeof(buf),
                  "  %5lld  %-28s %9.4f  %5.1f%%  %7.2f  %7.2f  %s\n",
                  (long long)n.index, op.c_str(), n.ms,
                  p.nodesMs > 0 ? 100.0 * n.ms / p.nodesMs : 0.0,
                  rate(n.flops, n.ms), rate(n.bytes, n.ms), n.shapes.c_str());
    s += buf;
  }
  return s;
}

/// The outputs and trace as text or JSON.
void printRunResult(const RunArgs &a, const bundle::Runner &runner,
                    const std::vector<driver::TensorSpec> &specs,
                    const std::vector<exec::Tensor> &outputs,
                    const std::vector<std::string> &hashes,
                    const bundle::RepeatTimes &t,
                    const bundle::ProfileReport *profile) {
  bool hooked = a.run.hooked();
  const trace::Trace &tr = runner.trace();
  if (a.format == "json") {
    std::printf("{\"outputs\": [");
    for (size_t i = 0; i < outputs.size(); ++i)
      std::printf("%s{\"name\": \"%s\", \"dtype\": \"%s\", \"shape\": %s, "
                  "\"sha256\": \"%s\"}",
                  i ? ", " : "", driver::jsonEscape(specs[i].name).c_str(),
                  specs[i].storage.empty() ? exec::elemTypeName(outputs[i].type)
                                           : specs[i].storage.c_str(),
                  driver::shapeJson(outputs[i].shape).c_str(),
                  hashes[i].c_str());
    std::printf("]");
    if (t.runs)
      std::printf(", \"latency_ms\": {\"median\": %.4f, \"min\": %.4f}",
                  t.median, t.best);
    if (hooked)
      std::printf(", \"trace\": {\"nodes\": %zu, \"hash_ms\": %.4f, "
                  "\"background_hash_ms\": %.4f, \"hash_threads\": %d, "
                  "\"root\": \"%s\", \"run_id\": \"%s\", "
                  "\"graph_hash\": \"%s\"}",
                  tr.nodes.size(), t.hashMs, t.backgroundHashMs,
                  runner.hashThreads(), toHex(tr.root).c_str(),
                  toHex(tr.runId).c_str(), toHex(tr.graphHash).c_str());
    if (profile)
      std::printf("%s", profileText(*profile, a, true).c_str());
    std::printf(", \"threads\": %d}\n", a.run.threads);
    return;
  }
  // A float16 / bfloat16 output is named by its storage type; its hash is
  // that of the float32 values holding it (docs/determinism.md).
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string what = outputs[i].describe();
    if (!specs[i].storage.empty())
      what = specs[i].storage + what.substr(what.find('['));
    std::printf("output %zu '%s' %s sha256=%s\n", i, specs[i].name.c_str(),
                what.c_str(), hashes[i].c_str());
  }
  if (hooked)
    std::printf("trace: %zu nodes, root %s%s%s\n", tr.nodes.size(),
                toHex(tr.root).c_str(),
                a.run.traceDir.empty() ? "" : ", written to ",
                a.run.traceDir.c_str());
  if (t.runs)
    std::printf("latency: median %.3f ms, min %.3f ms over %d runs (%d "
                "thread%s)\n",
                t.median, t.best, t.runs, a.run.threads,
                a.run.threads == 1 ? "" : "s");
  if (profile)
    std::printf("%s", profileText(*profile, a, false).c_str());
}

} // namespace

int cmdRun(std::vector<std::string> args) {
  const char *cmd = "run";
  RunArgs a;
  if (int r = parseRunArgs(args, a); r >= 0)
    return r;
  bundle::RunOptions &o = a.run;
  o.progress = [](const std::string &s) {
    std::fprintf(stderr, "plumb run: %s\n", s.c_str());
  };

  // Compiled path: a bundle is opened and verified in its own context; a
  // model file is compiled into the cache first.
  auto ctx = driver::makeContext();
  int exitCode = 0;
  std::unique_ptr<bundle::Bundle> bundled;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (llvm::sys::fs::is_directory(a.model)) {
    if (driver::bindsInputs(a.opts))
      return usageError("--input-shape, --dim and --input-value apply to "
                        ".onnx models; a bundle's shapes are fixed",
                        cmd);
    auto b = bundle::openBundleForRun(a.model, o.device, o.interpret);
    if (!b)
      return fail(cmd, llvm::toString(b.takeError()));
    bundled = std::move(*b);
  } else {
    // A dynamic model is sized by the inputs it is given, as ONNX Runtime
    // sizes it (--input-shape and --dim, where given, come first).
    driver::shapesFromSamples(a.opts, a.inputs);
    module = loadModel(*ctx, a.model, a.opts, cmd, exitCode);
    if (!module)
      return exitCode;
    if (!o.interpret) {
      auto b = bundle::compileIntoCache(*module, a.model, o.device, o.progress);
      if (!b)
        return fail(cmd, llvm::toString(b.takeError()));
      bundled = std::move(*b);
    }
  }
  mlir::ModuleOp mod = bundled ? *bundled->module : *module;
  if (!getMainFunc(mod))
    return fail(cmd, "'" + a.model + "' has no func.func @main");

  if (a.maxMemory) {
    bundle::MemoryEstimate m =
        bundle::estimateRunMemory(mod, bundled.get(), o);
    if (m.total() > a.maxMemory)
      return fail(cmd, "the run needs " + m.describe() + ", more than "
                       "--max-memory " + std::to_string(a.maxMemory) +
                       " bytes");
  }
  bundle::Runner runner(mod, bundled.get(), o);
  std::vector<exec::Tensor> inputs, outputs;
  driver::Failure f;
  if (!driver::readInputs(runner.main(), a.inputs, inputs, f))
    return report(f, cmd);
  std::string err;
  bundle::RepeatTimes times;
  bundle::ProfileReport profile;
  if (!runner.prepare(inputs, err) || !runner.run(inputs, outputs, err) ||
      !runner.repeat(a.repeat, inputs, outputs, times, err) ||
      (a.profile && !runner.profile(a.repeat ? a.repeat : 10, inputs, outputs,
                                    profile, err)))
    return fail(cmd, err);

  std::vector<driver::TensorSpec> specs = driver::outputSpecs(runner.main());
  std::vector<std::string> hashes = driver::outputHashes(outputs);
  if (!a.outputDir.empty()) {
    std::vector<std::string> names, storages;
    for (const driver::TensorSpec &s : specs) {
      names.push_back(s.name);
      storages.push_back(s.storage);
    }
    if (!driver::writeOutputs(a.outputDir, names, outputs, hashes, err,
                              storages))
      return fail(cmd, err);
  }
  printRunResult(a, runner, specs, outputs, hashes, times,
                 a.profile ? &profile : nullptr);
  return 0;
}

} // namespace tool
} // namespace plumb
