//===- lib/Bundle/Run.cpp - Running models --------------------------------===//
//
// Part of Plumb. See include/plumb/Bundle/Run.h.
//
//===----------------------------------------------------------------------===//
#include "plumb/Bundle/Run.h"

#include "plumb/Canonical/Identity.h"
#include "plumb/Cost/Gas.h"
#include "plumb/Driver/Inputs.h"
#include "plumb/Driver/Pipeline.h"
#include "plumb/Interpreter/Interpreter.h"
#include "plumb/Support/Merkle.h"
#include "plumb/Support/Nodes.h"
#include "plumb/runtime/threads.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

namespace plumb {
namespace bundle {

namespace {

llvm::Error fail(const std::string &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s",
                                 msg.c_str());
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - t0)
      .count();
}

/// The hook of compiled runs: records each node into the trace and injects
/// the faults asked for.
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

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

bool sameOutputs(const std::vector<exec::Tensor> &a,
                 const std::vector<exec::Tensor> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].type != b[i].type || a[i].shape != b[i].shape ||
        a[i].storage != b[i].storage)
      return false;
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Opening and compiling
//===----------------------------------------------------------------------===//

OpenOptions runOpenOptions(const std::string &device, bool interpret) {
  OpenOptions oo;
  oo.checkCpu = !interpret && device == "cpu";
  oo.checkCuda = !interpret && device == "cuda";
  return oo;
}

llvm::Expected<std::unique_ptr<Bundle>>
openBundleForRun(const std::string &path, const std::string &device,
                 bool interpret) {
  auto b = openBundle(path, runOpenOptions(device, interpret));
  if (!b)
    return fail("refusing bundle '" + path +
                "': " + llvm::toString(b.takeError()));
  return b;
}

llvm::Expected<std::unique_ptr<Bundle>>
compileIntoCache(mlir::ModuleOp module, const std::string &sourcePath,
                 const std::string &device, const ProgressFn &progress) {
  std::string hash = toHex(computeGraphHash(module));
  std::string dir = cacheDir() + "/bundles/" + hash;
  OpenOptions oo = runOpenOptions(device, /*interpret=*/false);
  bool damaged = false;
  if (isBundleDir(dir)) {
    auto b = openBundle(dir, oo);
    if (b)
      return b;
    llvm::consumeError(b.takeError()); // stale or damaged: compile again
    damaged = true;
  }
  if (auto ec = llvm::sys::fs::create_directories(cacheDir() + "/bundles"))
    return fail("cannot create the cache in '" + cacheDir() +
                "': " + ec.message());
  std::string name = llvm::sys::path::filename(sourcePath).str();
  if (progress)
    progress("compiling " + name + " into the cache (" + dir + ")");
  CompileOptions co;
  co.buildCpu = device == "cpu";
  co.buildCuda = device == "cuda";
  co.sourceName = name;
  co.sourceSha256 = fileSha256(sourcePath);
  co.progress = progress;
  // Other runs may compile the same model at the same time: each writes a
  // private folder and moves it into place only if the entry is still
  // absent; a valid entry is never replaced (the bundles are identical).
  std::string pid = std::to_string(llvm::sys::Process::getProcessId());
  std::string mine = dir + ".new-" + pid;
  llvm::sys::fs::remove_directories(mine);
  auto m = writeBundle(module, mine, co);
  if (!m)
    return m.takeError();
  if (damaged) {
    // It failed to open above: set it aside (if another run has not).
    std::string stale = dir + ".stale-" + pid;
    if (!llvm::sys::fs::rename(dir, stale))
      llvm::sys::fs::remove_directories(stale);
  }
  if (llvm::sys::fs::rename(mine, dir))
    llvm::sys::fs::remove_directories(mine); // another run was first
  return openBundle(dir, oo);
}

//===----------------------------------------------------------------------===//
// Native runs
//===----------------------------------------------------------------------===//

bool runNative(NativeModel &native, const Bundle &b,
               llvm::ArrayRef<plumb_tensor_view> inputs,
               llvm::MutableArrayRef<plumb_tensor_view> outputs,
               plumb_node_hook hook, void *user, std::string &err,
               plumb_node_fence fence, bool observed) {
  return native.run(b.weights->getBufferStart(), inputs.data(), outputs.data(),
                    hook, user, err, fence, observed);
}

bool runNative(NativeModel &native, const Bundle &b, mlir::func::FuncOp func,
               llvm::ArrayRef<exec::Tensor> inputs,
               std::vector<exec::Tensor> &outputs, plumb_node_hook hook,
               void *user, std::string &err, plumb_node_fence fence,
               bool observed) {
  std::vector<plumb_tensor_view> in, out;
  for (const exec::Tensor &t : inputs)
    in.push_back(driver::viewOf(t));
  outputs.clear();
  for (const driver::TensorSpec &s : driver::outputSpecs(func))
    outputs.push_back(exec::Tensor::make(s.type, s.shape));
  for (const exec::Tensor &t : outputs)
    out.push_back(driver::viewOf(t));
  return runNative(native, b, in, out, hook, user, err, fence, observed);
}

//===----------------------------------------------------------------------===//
// Memory estimate (plumb run --max-memory)
//===----------------------------------------------------------------------===//

namespace {

uint64_t satAdd(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

/// Bytes of a statically shaped tensor value (bool: one byte an element,
/// as exec::Tensor stores it); 0 for anything else.
uint64_t typeBytes(mlir::Type t) {
  auto rt = mlir::dyn_cast<mlir::RankedTensorType>(t);
  if (!rt || !rt.hasStaticShape())
    return 0;
  unsigned bits = rt.getElementType().getIntOrFloatBitWidth();
  uint64_t n = (bits + 7) / 8;
  for (int64_t d : rt.getShape())
    if (__builtin_mul_overflow(n, uint64_t(d), &n))
      return UINT64_MAX;
  return n;
}

uint64_t resultBytes(mlir::Operation *op) {
  uint64_t n = 0;
  for (mlir::Type t : op->getResultTypes())
    if (mlir::isa<mlir::RankedTensorType>(t) &&
        mlir::cast<mlir::RankedTensorType>(t).getElementType().isIntOrFloat())
      n = satAdd(n, typeBytes(t));
  return n;
}

} // namespace

uint64_t MemoryEstimate::total() const {
  return satAdd(satAdd(satAdd(weights, arena), satAdd(inputs, outputs)),
                trace);
}

std::string MemoryEstimate::describe() const {
  return std::to_string(total()) + " bytes (weights " +
         std::to_string(weights) + ", arena " + std::to_string(arena) +
         ", inputs " + std::to_string(inputs) + ", outputs " +
         std::to_string(outputs) + ", trace " + std::to_string(trace) + ")";
}

MemoryEstimate estimateRunMemory(mlir::ModuleOp module, const Bundle *bundle,
                                 const RunOptions &opts) {
  MemoryEstimate m;
  mlir::func::FuncOp main = getMainFunc(module);
  if (!main)
    return m;
  bool hooked = opts.hooked();
  bool compiled = bundle && !opts.interpret;
  uint64_t constants = 0, nodes = 0;
  for (mlir::Operation &op : main.getBody().front()) {
    if (mlir::isa<mlir::func::ReturnOp>(op))
      continue;
    if (mlir::isa<ConstantOp>(op))
      constants = satAdd(constants, resultBytes(&op));
    else
      nodes = satAdd(nodes, resultBytes(&op));
  }
  for (mlir::Type t : main.getArgumentTypes())
    m.inputs = satAdd(m.inputs, typeBytes(t));
  for (mlir::Type t : main.getResultTypes())
    m.outputs = satAdd(m.outputs, typeBytes(t));
  m.weights = bundle ? uint64_t(std::max<int64_t>(0, bundle->manifest.weightsBytes))
                     : constants;
  if (compiled) {
    int64_t arena = hooked && bundle->manifest.tracedArenaBytes > 0
                        ? bundle->manifest.tracedArenaBytes
                        : bundle->manifest.arenaBytes;
    m.arena = uint64_t(std::max<int64_t>(0, arena));
    int hashThreads = opts.hashThreads;
    if (hashThreads < 0)
      hashThreads = std::max(
          0, std::min(8, (int)std::thread::hardware_concurrency() - opts.threads));
    // The recorder copies results for its background threads, holding at
    // most 512 MiB of copies and 256 MiB of spare buffers
    // (lib/Trace/TraceRecorder.cpp).
    if (hooked && hashThreads > 0)
      m.trace = std::min<uint64_t>(nodes, uint64_t(768) << 20);
  } else {
    // The interpreter lends its results to the recorder (no copies).
    m.arena = nodes;
  }
  return m;
}

bool parseByteSize(const std::string &text, uint64_t &out, std::string &err) {
  size_t i = 0;
  uint64_t n = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (__builtin_mul_overflow(n, uint64_t(10), &n) ||
        __builtin_add_overflow(n, uint64_t(text[i] - '0'), &n)) {
      err = "'" + text + "' is too large";
      return false;
    }
    ++i;
  }
  std::string suffix = text.substr(i);
  for (char &c : suffix)
    c = (char)std::toupper((unsigned char)c);
  unsigned shift = 0;
  if (!suffix.empty() && std::string("KMGT").find(suffix[0]) != std::string::npos) {
    shift = 10 * (1 + (unsigned)std::string("KMGT").find(suffix[0]));
    suffix = suffix.substr(1);
    if (suffix == "IB" || suffix == "B")
      suffix.clear();
  } else if (suffix == "B") {
    suffix.clear();
  }
  if (i == 0 || !suffix.empty()) {
    err = "'" + text + "' is not a byte count (e.g. 1048576, 512M, 4G)";
    return false;
  }
  if (shift && n > (UINT64_MAX >> shift)) {
    err = "'" + text + "' is too large";
    return false;
  }
  out = n << shift;
  return true;
}

//===----------------------------------------------------------------------===//
// Runner
//===----------------------------------------------------------------------===//

Runner::Runner(mlir::ModuleOp module, const Bundle *bundle, RunOptions o)
    : module(module), func(getMainFunc(module)), bundle(bundle),
      opts(std::move(o)), recorder(opts.traceDir, opts.keepTensors) {}

Runner::~Runner() = default;

const trace::Trace &Runner::trace() const { return recorder.trace(); }

bool Runner::prepareTrace(llvm::ArrayRef<exec::Tensor> inputs,
                          std::string &err) {
  // Traces and faults name nodes by canonical index; the recorder takes the
  // graph hash and node ids before a tree override changes the IR, so a
  // solver with another reduction order still claims the canonical graph.
  if ((!bundle && !driver::canonicalize(module, err)) ||
      !recorder.begin(module, inputs, err))
    return false;
  nodeIndex = trace::nodeIndexMap(func);
  if (opts.hashThreads < 0) {
    int cores = (int)std::thread::hardware_concurrency();
    opts.hashThreads = std::max(0, std::min(8, cores - opts.threads));
  }
  recorder.setHashThreads((unsigned)opts.hashThreads);
  int64_t numNodes = (int64_t)nodeIndex.size();
  for (const trace::BitFlip &f : opts.faults) {
    if (f.node >= numNodes) {
      err = "--inject-fault: node " + std::to_string(f.node) +
            " does not exist (the model has " + std::to_string(numNodes) +
            " nodes)";
      return false;
    }
    note += (note.empty() ? "" : "; ") + std::string("inject-fault node=") +
            std::to_string(f.node) + ",bit=" + std::to_string(f.bit);
  }
  for (const trace::TreeOverride &o : opts.treeOverrides) {
    if (!trace::applyTreeOverride(func, o, err)) {
      err = "--override-tree: " + err;
      return false;
    }
    note += (note.empty() ? "" : "; ") + std::string("override-tree node=") +
            std::to_string(o.node) + ",block=" + std::to_string(o.block);
  }
  return true;
}

bool Runner::prepare(llvm::ArrayRef<exec::Tensor> inputs, std::string &err) {
  if (opts.hooked() && !prepareTrace(inputs, err))
    return false;
  if (!compiled())
    return true;
  // The compiled model: the library built from the bundle's re-derived
  // source; the same hook records traces and injects faults.
  if (!driver::checkInputs(func, inputs, err))
    return false;
  native = opts.native;
  if (!native) {
    auto lib = loadBundleLibrary(*bundle, opts.device, "", opts.progress);
    if (!lib) {
      err = llvm::toString(lib.takeError());
      return false;
    }
    ownNative = std::move(*lib);
    native = ownNative.get();
  }
  native->setThreads(opts.threads);
  return true;
}

bool Runner::runInterpreted(trace::TraceRecorder *rec,
                            llvm::ArrayRef<exec::Tensor> inputs,
                            std::vector<exec::Tensor> &outputs,
                            std::string &err) {
  if (!rec)
    return exec::runFunction(func, inputs, outputs, err);
  auto hook = [&](mlir::Operation *op, std::vector<exec::Tensor> &results) {
    auto it = nodeIndex.find(op);
    if (it == nodeIndex.end())
      return; // constants and ops nested in regions are not nodes
    for (const trace::BitFlip &f : opts.faults)
      if (f.node == it->second && hookErr.empty()) {
        std::string ferr;
        if (results.empty() || !trace::flipBit(results[0], f.bit, ferr))
          hookErr = "--inject-fault node=" + std::to_string(f.node) + ": " +
                    (results.empty() ? "the node has no results" : ferr);
      }
    // The interpreter keeps every result in place until the run ends, so
    // background hashing reads them without a copy.
    rec->recordNode(it->second, results, /*lent=*/true);
  };
  return exec::runFunctionWithHook(func, inputs, outputs, err, hook,
                                   [&] { rec->drain(); });
}

bool Runner::runCompiled(trace::TraceRecorder *rec,
                         llvm::ArrayRef<exec::Tensor> inputs,
                         std::vector<exec::Tensor> &outputs,
                         std::string &err) {
  bool traced = rec && native->canRunTraced();
  // CUDA models copy results off the device behind the run and hand the
  // copies over (lent until the next run: the recorder drains before);
  // a fault must change the device's data, so injecting one runs plainly.
  bool observed = rec && opts.faults.empty() && native->canRunObserved();
  CompiledHook h{rec, &opts.faults, &hookErr, traced || observed};
  return runNative(*native, *bundle, func, inputs, outputs,
                   rec ? &CompiledHook::call : nullptr, rec ? &h : nullptr,
                   err, traced ? &CompiledHook::fence : nullptr, observed);
}

bool Runner::runOnce(trace::TraceRecorder *rec,
                     llvm::ArrayRef<exec::Tensor> inputs,
                     std::vector<exec::Tensor> &outputs, std::string &err) {
  return compiled() ? runCompiled(rec, inputs, outputs, err)
                    : runInterpreted(rec, inputs, outputs, err);
}

bool Runner::run(llvm::ArrayRef<exec::Tensor> inputs,
                 std::vector<exec::Tensor> &outputs, std::string &err) {
  bool hooked = opts.hooked();
  plumb_rt_set_threads(opts.threads);
  auto t0 = std::chrono::steady_clock::now();
  bool ran = runOnce(hooked ? &recorder : nullptr, inputs, outputs, err);
  if (hooked)
    recorder.drain(); // a traced run ends when its last hash is done
  double runMs = msSince(t0);
  if (!ran)
    return false;
  if (!hookErr.empty()) {
    err = hookErr;
    return false;
  }
  return !hooked || recorder.finish(runMs, note, err);
}

bool Runner::repeat(int n, llvm::ArrayRef<exec::Tensor> inputs,
                    const std::vector<exec::Tensor> &first, RepeatTimes &times,
                    std::string &err) {
  bool hooked = opts.hooked();
  std::vector<double> ms, hashMs, bgHashMs;
  // Repeats of a traced run hash every node too (nothing is written), so
  // the latency includes the cost of tracing; like a solver's loop, they
  // share one recorder (the node table is computed once).
  trace::TraceRecorder hashesOnly("", false);
  if (hooked && n > 0)
    hashesOnly.setHashThreads((unsigned)opts.hashThreads);
  for (int r = 0; r < n; ++r) {
    std::vector<exec::Tensor> again;
    if (hooked)
      hashesOnly.begin(module, inputs, err);
    auto t0 = std::chrono::steady_clock::now();
    bool ok = runOnce(hooked ? &hashesOnly : nullptr, inputs, again, err);
    hashesOnly.drain(); // the run is over when its trace is
    ms.push_back(msSince(t0));
    hashMs.push_back(1000.0 * hashesOnly.hashSeconds());
    bgHashMs.push_back(1000.0 * hashesOnly.backgroundHashSeconds());
    // Every repeat must give the first run's bits: outputs and trace root.
    std::string rep = "repeat " + std::to_string(r + 1);
    if (!ok) {
      err = rep + ": " + err;
      return false;
    }
    if (!sameOutputs(again, first)) {
      err = rep + " gave other outputs than the first run";
      return false;
    }
    if (!hooked)
      continue;
    if (!hashesOnly.finish(ms.back(), note, err)) {
      err = rep + ": " + err;
      return false;
    }
    if (hashesOnly.trace().root != recorder.trace().root) {
      err = rep + " gave trace root " + toHex(hashesOnly.trace().root) +
            ", the first run " + toHex(recorder.trace().root);
      return false;
    }
  }
  times.runs = n;
  times.median = median(ms);
  times.best = ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end());
  times.hashMs = hashMs.empty() ? 1000.0 * recorder.hashSeconds()
                                : median(hashMs);
  times.backgroundHashMs = bgHashMs.empty()
                               ? 1000.0 * recorder.backgroundHashSeconds()
                               : median(bgHashMs);
  return true;
}

//===----------------------------------------------------------------------===//
// Profiles
//===----------------------------------------------------------------------===//

namespace {
/// Records the time at which each node ends.
struct TimingHook {
  std::vector<std::chrono::steady_clock::time_point> ends;
  static void call(void *user, int64_t node, int32_t,
                   const plumb_tensor_view *) {
    auto *h = static_cast<TimingHook *>(user);
    if (node >= 0 && (size_t)node < h->ends.size())
      h->ends[(size_t)node] = std::chrono::steady_clock::now();
  }
};
} // namespace

bool Runner::profile(int runs, llvm::ArrayRef<exec::Tensor> inputs,
                     const std::vector<exec::Tensor> &first,
                     ProfileReport &report, std::string &err) {
  auto gas = computeGas(module, latestGasSchedule());
  if (!gas) {
    err = llvm::toString(gas.takeError());
    return false;
  }
  const size_t n = gas->nodes.size();
  llvm::DenseMap<mlir::Operation *, int64_t> index = trace::nodeIndexMap(func);
  std::vector<std::vector<double>> perNode(n);
  std::vector<double> total;
  plumb_rt_set_threads(opts.threads);
  for (int r = 0; r < runs; ++r) {
    TimingHook h;
    h.ends.assign(n, {});
    std::vector<exec::Tensor> again;
    auto t0 = std::chrono::steady_clock::now();
    bool ok;
    if (compiled()) {
      ok = runNative(*native, *bundle, func, inputs, again, &TimingHook::call,
                     &h, err);
    } else {
      auto hook = [&](mlir::Operation *op, std::vector<exec::Tensor> &) {
        auto it = index.find(op);
        if (it != index.end())
          TimingHook::call(&h, it->second, 0, nullptr);
      };
      ok = exec::runFunctionWithHook(func, inputs, again, err, hook);
    }
    total.push_back(msSince(t0));
    std::string rep = "profile run " + std::to_string(r + 1);
    if (!ok) {
      err = rep + ": " + err;
      return false;
    }
    if (!sameOutputs(again, first)) {
      err = rep + " gave other outputs than the first run";
      return false;
    }
    // Nodes run in canonical order: a node's time is from the end of the
    // one before it (the run's start for the first).
    auto prev = t0;
    for (size_t k = 0; k < n; ++k) {
      perNode[k].push_back(
          std::chrono::duration<double, std::milli>(h.ends[k] - prev).count());
      prev = h.ends[k];
    }
  }
  report = ProfileReport();
  report.runs = runs;
  report.runMs = median(total);
  for (size_t k = 0; k < n; ++k) {
    const NodeGas &g = gas->nodes[k];
    NodeProfile p{g.index, g.op, g.shapes, median(perNode[k]), g.flops,
                  g.bytes};
    report.nodesMs += p.ms;
    report.nodes.push_back(std::move(p));
  }
  std::stable_sort(report.nodes.begin(), report.nodes.end(),
                   [](const NodeProfile &a, const NodeProfile &b) {
                     return a.ms > b.ms;
                   });
  return true;
}

} // namespace bundle
} // namespace plumb
