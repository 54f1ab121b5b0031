//===- tools/plumb/CmdRun.cpp - plumb run ---------------------------------===//
//
// Part of Plumb. Runs a model on inputs with the reference interpreter and
// prints each output's shape and SHA-256 (canonical tensor encoding).
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "CompiledRun.h"

#include "plumb/Driver/TensorIO.h"
#include "plumb/InitAll.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Trace/TraceRecorder.h"
#include "plumb/runtime/threads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

namespace plumb {
namespace tool {

void printRunHelp(FILE *f) {
  std::fprintf(
      f,
      "usage: plumb run MODEL.plumb|MODEL.onnx|MODEL.mlir [import options]\n"
      "                 [--input NAME=FILE]... [--inputs-dir DIR]\n"
      "                 [--output-dir DIR] [--threads N] [--repeat N]\n"
      "                 [--interpret] [--device cpu|cuda] [--format text|json]\n"
      "                 [--trace DIR [--keep-tensors]]\n"
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
      "  --trace DIR          write the run's trace to DIR: every node's result\n"
      "                       hashes and the Merkle root over them, in\n"
      "                       canonical node order (docs/trace.md)\n"
      "  --keep-tensors       with --trace, also keep every input and node\n"
      "                       output tensor (what a party needs in a dispute)\n"
      "  --hash-threads N     hash node outputs for the trace on N background\n"
      "                       threads, overlapped with the run (0: in the\n"
      "                       run's thread; default: the cores --threads\n"
      "                       leaves free, at most 8)\n"
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
      "                       'plumb import' (for .onnx models)\n"
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
  std::string traceDir;
  bool keepTensors = false;
  std::vector<trace::BitFlip> faults;
  std::vector<trace::TreeOverride> treeOverrides;
  int hashThreads = -1; // -1: the cores the kernels leave free
  bool interpret = false;
  std::string device = "cpu";
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
      std::string e;
      if (!intOption(isThreads ? "--threads" : "--repeat", v, missing,
                     isThreads ? 1 : 0, 1024, isThreads ? threads : repeat, e))
        return usageError(e, cmd);
    } else if (takeValue(args, i, "--format", v, missing)) {
      if (missing || (v != "text" && v != "json"))
        return usageError("option '--format' must be text or json", cmd);
      format = v;
    } else if (takeValue(args, i, "--trace", v, missing)) {
      if (missing || v.empty())
        return usageError("option '--trace' needs a folder", cmd);
      traceDir = v;
    } else if (a == "--keep-tensors") {
      keepTensors = true;
    } else if (takeValue(args, i, "--hash-threads", v, missing)) {
      std::string e;
      if (!intOption("--hash-threads", v, missing, 0, 64, hashThreads, e))
        return usageError(e, cmd);
    } else if (takeValue(args, i, "--inject-fault", v, missing)) {
      trace::BitFlip f;
      std::string perr;
      if (missing || !trace::parseBitFlip(v, f, perr))
        return usageError("option '--inject-fault': " +
                              (missing ? "expected node=K,bit=B" : perr),
                          cmd);
      faults.push_back(f);
    } else if (takeValue(args, i, "--override-tree", v, missing)) {
      trace::TreeOverride o;
      std::string perr;
      if (missing || !trace::parseTreeOverride(v, o, perr))
        return usageError("option '--override-tree': " +
                              (missing ? "expected node=K,block=B" : perr),
                          cmd);
      treeOverrides.push_back(o);
    } else if (a == "--interpret") {
      interpret = true;
    } else if (takeValue(args, i, "--device", v, missing)) {
      if (missing || (v != "cpu" && v != "cuda"))
        return usageError("option '--device' must be cpu or cuda", cmd);
      device = v;
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
  if (keepTensors && traceDir.empty())
    return usageError("--keep-tensors needs --trace DIR", cmd);
  if (!treeOverrides.empty())
    interpret = true; // another tree is another program: only the IR has it
  if (interpret && device != "cpu")
    return usageError("--interpret runs on the host; it cannot be combined "
                      "with --device " + device,
                      cmd);

  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.disableMultithreading();
  int exitCode = 0;
  // Compiled path: a bundle is opened and verified in its own context.
  std::unique_ptr<bundle::Bundle> bundled;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (llvm::sys::fs::is_directory(model)) {
    if (!opts.bindings.inputShapes.empty() || !opts.bindings.dims.empty() ||
        !opts.bindings.inputValues.empty())
      return usageError("--input-shape, --dim and --input-value apply to "
                        ".onnx models; a bundle's shapes are fixed",
                        cmd);
    bundled = openBundleForRun(model, device, interpret, exitCode);
    if (!bundled)
      return exitCode;
  } else {
    module = loadModel(ctx, model, opts, cmd, exitCode);
    if (!module)
      return exitCode;
    if (!interpret) {
      bundled = compileIntoCache(*module, model, device, exitCode);
      if (!bundled)
        return exitCode;
    }
  }
  mlir::ModuleOp mod = bundled ? *bundled->module : *module;
  auto func = mod.lookupSymbol<mlir::func::FuncOp>("main");
  if (!func) {
    std::fprintf(stderr, "plumb run: error: '%s' has no func.func @main\n",
                 model.c_str());
    return 1;
  }

  // Inputs, in the model's input order.
  unsigned nargs = func.getNumArguments();
  std::vector<exec::Tensor> inputs(nargs);
  std::vector<std::string> names;
  if (!modelInputNames(func, inputFiles, cmd, names))
    return 2;
  for (unsigned i = 0; i < nargs; ++i) {
    std::string err;
    std::string file = modelInputFile(i, names[i], inputFiles, inputsDir);
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

  // Traces and faults name nodes by canonical index; the recorder takes the
  // graph hash and node ids before a tree override changes the IR, so a
  // solver with another reduction order still claims the canonical graph.
  bool hooked = !traceDir.empty() || !faults.empty() || !treeOverrides.empty();
  trace::TraceRecorder recorder(traceDir, keepTensors);
  llvm::DenseMap<mlir::Operation *, int64_t> nodeIndex;
  std::string note;
  if (hooked) {
    std::string err;
    if ((!bundled && !trace::canonicalizeModule(mod, err)) ||
        !recorder.begin(mod, inputs, err)) {
      std::fprintf(stderr, "plumb run: error: %s\n", err.c_str());
      return 1;
    }
    nodeIndex = trace::nodeIndexMap(func);
    if (hashThreads < 0) {
      int cores = (int)std::thread::hardware_concurrency();
      hashThreads = std::max(0, std::min(8, cores - threads));
    }
    recorder.setHashThreads((unsigned)hashThreads);
    int64_t numNodes = (int64_t)nodeIndex.size();
    for (const trace::BitFlip &f : faults) {
      if (f.node >= numNodes) {
        std::fprintf(stderr,
                     "plumb run: error: --inject-fault: node %lld does not "
                     "exist (the model has %lld nodes)\n",
                     (long long)f.node, (long long)numNodes);
        return 1;
      }
      note += (note.empty() ? "" : "; ") + std::string("inject-fault node=") +
              std::to_string(f.node) + ",bit=" + std::to_string(f.bit);
    }
    for (const trace::TreeOverride &o : treeOverrides) {
      if (!trace::applyTreeOverride(func, o, err)) {
        std::fprintf(stderr, "plumb run: error: --override-tree: %s\n",
                     err.c_str());
        return 1;
      }
      note += (note.empty() ? "" : "; ") + std::string("override-tree node=") +
              std::to_string(o.node) + ",block=" + std::to_string(o.block);
    }
  }
  std::string hookErr;
  auto runHooked = [&](trace::TraceRecorder &rec,
                       std::vector<exec::Tensor> &outs, std::string &err) {
    auto hook = [&](mlir::Operation *op, std::vector<exec::Tensor> &results) {
      auto it = nodeIndex.find(op);
      if (it == nodeIndex.end())
        return; // constants and ops nested in regions are not nodes
      for (const trace::BitFlip &f : faults)
        if (f.node == it->second && hookErr.empty()) {
          std::string ferr;
          if (results.empty() || !trace::flipBit(results[0], f.bit, ferr))
            hookErr = "--inject-fault node=" + std::to_string(f.node) + ": " +
                      (results.empty() ? "the node has no results" : ferr);
        }
      // The interpreter keeps every result in place until the run ends, so
      // background hashing reads them without a copy.
      rec.recordNode(it->second, results, /*lent=*/true);
    };
    return exec::runFunctionWithHook(func, inputs, outs, err, hook,
                                     [&] { rec.drain(); });
  };

  // The compiled model: the library built from the bundle's re-derived
  // source; the same hook records traces and injects faults.
  std::unique_ptr<bundle::NativeModel> native;
  if (bundled && !interpret) {
    std::string err;
    if (!checkRunInputs(func, inputs, err)) {
      std::fprintf(stderr, "plumb run: error: %s\n", err.c_str());
      return 1;
    }
    native = loadNativeForRun(*bundled, device);
    if (!native)
      return 1;
    native->setThreads(threads);
  }
  struct CompiledHook {
    trace::TraceRecorder *rec;
    const std::vector<trace::BitFlip> *faults;
    std::string *hookErr;
    bool lent; // results stay in place until their fence (traced entry)
    static void call(void *user, int64_t node, int32_t n,
                     const plumb_tensor_view *results) {
      auto *h = static_cast<CompiledHook *>(user);
      for (const trace::BitFlip &f : *h->faults)
        if (f.node == node && h->hookErr->empty()) {
          // A traced plan may lay a reshape's result over its operand's
          // bytes, which may not be hashed yet: hash them before the flip.
          if (h->lent)
            h->rec->waitHashed(node - 1);
          std::string ferr;
          if (n < 1 || !trace::flipBit(results[0], f.bit, ferr))
            *h->hookErr = "--inject-fault node=" + std::to_string(f.node) +
                          ": " + (n < 1 ? "the node has no results" : ferr);
        }
      h->rec->recordNode(node, n, results, h->lent);
    }
    static void fence(void *user, int64_t node) {
      static_cast<CompiledHook *>(user)->rec->waitHashed(node);
    }
  };
  auto runCompiled = [&](trace::TraceRecorder *rec,
                         std::vector<exec::Tensor> &outs, std::string &err) {
    bool traced = rec && native->canRunTraced();
    // CUDA models copy results off the device behind the run and hand the
    // copies over (lent until the next run: the recorder drains before);
    // a fault must change the device's data, so injecting one runs plainly.
    bool observed = rec && faults.empty() && native->canRunObserved();
    CompiledHook h{rec, &faults, &hookErr, traced || observed};
    return runNative(*native, *bundled, func, inputs, outs,
                     rec ? &CompiledHook::call : nullptr, rec ? &h : nullptr,
                     err, traced ? &CompiledHook::fence : nullptr, observed);
  };

  plumb_rt_set_threads(threads);
  std::vector<exec::Tensor> outputs;
  std::string err;
  auto tRun = std::chrono::steady_clock::now();
  bool ran = native ? runCompiled(hooked ? &recorder : nullptr, outputs, err)
             : hooked ? runHooked(recorder, outputs, err)
                      : exec::runFunction(func, inputs, outputs, err);
  if (hooked)
    recorder.drain(); // a traced run ends when its last hash is done
  double runMs = std::chrono::duration<double, std::milli>(
                     std::chrono::steady_clock::now() - tRun)
                     .count();
  if (!ran) {
    std::fprintf(stderr, "plumb run: error: %s\n", err.c_str());
    return 1;
  }
  if (!hookErr.empty()) {
    std::fprintf(stderr, "plumb run: error: %s\n", hookErr.c_str());
    return 1;
  }
  if (hooked && !recorder.finish(runMs, note, err)) {
    std::fprintf(stderr, "plumb run: error: %s\n", err.c_str());
    return 1;
  }
  std::vector<double> times, hashTimes, bgHashTimes;
  // Repeats of a traced run hash every node too (nothing is written), so
  // the latency includes the cost of tracing; like a solver's loop, they
  // share one recorder (the node table is computed once).
  trace::TraceRecorder hashesOnly("", false);
  if (hooked && repeat > 0)
    hashesOnly.setHashThreads((unsigned)hashThreads);
  for (int r = 0; r < repeat; ++r) {
    std::vector<exec::Tensor> again;
    if (hooked)
      hashesOnly.begin(mod, inputs, err);
    auto t0 = std::chrono::steady_clock::now();
    bool ok = native   ? runCompiled(hooked ? &hashesOnly : nullptr, again, err)
              : hooked ? runHooked(hashesOnly, again, err)
                       : exec::runFunction(func, inputs, again, err);
    auto t1 = std::chrono::steady_clock::now();
    times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    hashesOnly.drain(); // the run is over when its trace is
    t1 = std::chrono::steady_clock::now();
    times.back() = std::chrono::duration<double, std::milli>(t1 - t0).count();
    hashTimes.push_back(1000.0 * hashesOnly.hashSeconds());
    bgHashTimes.push_back(1000.0 * hashesOnly.backgroundHashSeconds());
    // Every repeat must give the first run's bits: outputs and trace root.
    if (!ok) {
      std::fprintf(stderr, "plumb run: error: repeat %d: %s\n", r + 1,
                   err.c_str());
      return 1;
    }
    bool same = again.size() == outputs.size();
    for (size_t i = 0; same && i < again.size(); ++i)
      same = again[i].type == outputs[i].type &&
             again[i].shape == outputs[i].shape &&
             again[i].storage == outputs[i].storage;
    if (!same) {
      std::fprintf(stderr,
                   "plumb run: error: repeat %d gave other outputs than the "
                   "first run\n",
                   r + 1);
      return 1;
    }
    if (hooked) {
      if (!hashesOnly.finish(times.back(), note, err)) {
        std::fprintf(stderr, "plumb run: error: repeat %d: %s\n", r + 1,
                     err.c_str());
        return 1;
      }
      if (hashesOnly.trace().root != recorder.trace().root) {
        std::fprintf(stderr,
                     "plumb run: error: repeat %d gave trace root %s, the "
                     "first run %s\n",
                     r + 1, toHex(hashesOnly.trace().root).c_str(),
                     toHex(recorder.trace().root).c_str());
        return 1;
      }
    }
  }
  // Time spent hashing node outputs (median over the repeats).
  double hashMs = 1000.0 * recorder.hashSeconds();
  double bgHashMs = 1000.0 * recorder.backgroundHashSeconds();
  if (!hashTimes.empty()) {
    std::sort(hashTimes.begin(), hashTimes.end());
    hashMs = hashTimes[hashTimes.size() / 2];
    std::sort(bgHashTimes.begin(), bgHashTimes.end());
    bgHashMs = bgHashTimes[bgHashTimes.size() / 2];
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
    if (hooked)
      std::printf(", \"trace\": {\"nodes\": %zu, \"hash_ms\": %.4f, "
                  "\"background_hash_ms\": %.4f, \"hash_threads\": %d, "
                  "\"root\": \"%s\", \"run_id\": \"%s\", "
                  "\"graph_hash\": \"%s\"}",
                  recorder.trace().nodes.size(), hashMs, bgHashMs,
                  hashThreads,
                  toHex(recorder.trace().root).c_str(),
                  toHex(recorder.trace().runId).c_str(),
                  toHex(recorder.trace().graphHash).c_str());
    std::printf(", \"threads\": %d}\n", threads);
    return 0;
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    std::printf("output %zu '%s' %s sha256=%s\n", i, outNames[i].c_str(),
                outputs[i].describe().c_str(), hashes[i].c_str());
  if (hooked)
    std::printf("trace: %zu nodes, root %s%s%s\n",
                recorder.trace().nodes.size(),
                toHex(recorder.trace().root).c_str(),
                traceDir.empty() ? "" : ", written to ", traceDir.c_str());
  if (!times.empty())
    std::printf("latency: median %.3f ms, min %.3f ms over %d runs (%d "
                "thread%s)\n",
                median, best, repeat, threads, threads == 1 ? "" : "s");
  return 0;
}

} // namespace tool
} // namespace plumb
