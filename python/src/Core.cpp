//===- python/src/Core.cpp - What the Python module calls -----------------===//
//
// Part of Plumb. See Core.h. Each function does what the matching `plumb`
// command does, through the same library calls.
//
//===----------------------------------------------------------------------===//
#include "Core.h"

#include "plumb/Bundle/Run.h"
#include "plumb/Canonical/Identity.h"
#include "plumb/Cost/Gas.h"
#include "plumb/Dispute/Party.h"
#include "plumb/Dispute/Referee.h"
#include "plumb/Driver/Inputs.h"
#include "plumb/Driver/Model.h"
#include "plumb/Support/Merkle.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Trace/TensorHasher.h"
#include "plumb/Trace/Trace.h"
#include "plumb/runtime/config.h"
#include "plumb/runtime/threads.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <map>
#include <mutex>

namespace plumb {
namespace py {

namespace {

Error::Kind kindOf(const driver::Failure &f) {
  return f.usage || f.exitCode == 2 ? Error::Usage : Error::Model;
}

bool parseBindings(const Bindings &b, importer::ImportOptions &opts,
                   std::vector<std::string> *raw, Error &err) {
  using Parse = bool (*)(const std::string &, importer::InputBindings &,
                         importer::ImportError &);
  struct Kind {
    const char *flag;
    const std::vector<std::string> *values;
    Parse parse;
  };
  for (Kind k : {Kind{"--input-shape", &b.inputShapes, importer::parseInputShape},
                 Kind{"--dim", &b.dims, importer::parseDim},
                 Kind{"--input-value", &b.inputValues,
                      importer::parseInputValue}})
    for (const std::string &v : *k.values) {
      importer::ImportError e;
      if (!k.parse(v, opts.bindings, e))
        return err.set(Error::Usage, e.message);
      if (raw)
        raw->insert(raw->end(), {k.flag, v});
    }
  return true;
}

/// The canonical module of the model at `path`, in `ctx`.
mlir::OwningOpRef<mlir::ModuleOp> load(mlir::MLIRContext &ctx,
                                       const std::string &path,
                                       const Bindings &b, bool canonicalize,
                                       std::vector<std::string> *raw,
                                       Error &err) {
  importer::ImportOptions opts;
  if (!parseBindings(b, opts, raw, err))
    return nullptr;
  opts.canonicalize = canonicalize;
  driver::Failure f;
  auto module = driver::loadModel(ctx, path, opts, f);
  if (!module)
    err.set(kindOf(f), f.message);
  else if (!getMainFunc(*module))
    err.set(Error::Model, "'" + path + "' has no func.func @main");
  return err ? nullptr : std::move(module);
}

TensorInfo infoOf(const driver::TensorSpec &s) {
  return {s.name, (int32_t)s.type, s.shape, (bool)s.bound};
}

exec::Tensor tensorOf(const plumb_tensor_view &v) {
  exec::Tensor t = exec::Tensor::make(
      (exec::ElemType)v.dtype, std::vector<int64_t>(v.shape, v.shape + v.rank));
  if (t.byteSize())
    std::memcpy(t.raw(), v.data, t.byteSize());
  return t;
}

} // namespace

const char *version() { return bundle::plumbVersion(); }
const char *contract() { return PLUMB_CONTRACT_VERSION; }

std::string importModel(const std::string &path, const Bindings &b,
                        bool canonicalize, Error &err) {
  auto ctx = driver::makeContext();
  auto module = load(*ctx, path, b, canonicalize, nullptr, err);
  if (!module)
    return "";
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags());
  os << "\n";
  return text;
}

std::string hashModel(const std::string &path, const Bindings &b, Error &err) {
  auto ctx = driver::makeContext();
  auto module = load(*ctx, path, b, /*canonicalize=*/true, nullptr, err);
  return module ? toHex(computeGraphHash(*module)) : "";
}

bool compileModel(const std::string &path, const Bindings &b,
                  const std::string &target, const std::string &dir,
                  const std::string &sourceName, Error &err) {
  if (target != "cpu" && target != "cuda" && target != "all")
    return err.set(Error::Usage, "target must be cpu, cuda or all, not '" +
                                     target + "'");
  auto ctx = driver::makeContext();
  bundle::CompileOptions co;
  auto module = load(*ctx, path, b, /*canonicalize=*/true, &co.importOptions,
                     err);
  if (!module)
    return false;
  co.buildCpu = target != "cuda";
  co.buildCuda = target != "cpu";
  co.sourceName = sourceName;
  co.sourceSha256 = bundle::fileSha256(path);
  auto m = bundle::writeBundle(*module, dir, co);
  if (!m)
    return err.set(Error::Model, llvm::toString(m.takeError()));
  return true;
}

std::string tensorHash(const plumb_tensor_view &v) {
  return exec::toHex(exec::tensorHash(tensorOf(v)));
}

//===----------------------------------------------------------------------===//
// Bundle
//===----------------------------------------------------------------------===//

struct Bundle::State {
  /// The bundle as `plumb run` verifies it for each device ("cpu" first).
  std::map<std::string, std::unique_ptr<bundle::Bundle>> verified;
  std::map<std::string, std::unique_ptr<bundle::NativeModel>> natives;
  std::vector<TensorInfo> inputs, outputs;
  std::mutex mutex;

  bundle::Bundle &primary() { return *verified.at("cpu"); }
};

Bundle::~Bundle() = default;

std::unique_ptr<Bundle> Bundle::open(const std::string &dir, Error &err) {
  auto b = bundle::openBundleForRun(dir, "cpu", /*interpret=*/false);
  if (!b) {
    err.set(Error::Model, llvm::toString(b.takeError()));
    return nullptr;
  }
  std::unique_ptr<Bundle> r(new Bundle());
  r->s = std::make_unique<State>();
  mlir::func::FuncOp main = getMainFunc(*(*b)->module);
  for (const driver::TensorSpec &t : driver::inputSpecs(main))
    r->s->inputs.push_back(infoOf(t));
  for (const driver::TensorSpec &t : driver::outputSpecs(main))
    r->s->outputs.push_back(infoOf(t));
  r->s->verified["cpu"] = std::move(*b);
  return r;
}

const std::string &Bundle::dir() const { return s->primary().dir; }
const std::string &Bundle::graphHash() const {
  return s->primary().manifest.graphHash;
}
const std::vector<TensorInfo> &Bundle::inputs() const { return s->inputs; }
const std::vector<TensorInfo> &Bundle::outputs() const { return s->outputs; }

std::vector<NodeInfo> Bundle::nodes() const {
  std::vector<NodeInfo> r;
  for (const bundle::ManifestNode &n : s->primary().manifest.nodes)
    r.push_back({n.index, n.id, n.op, n.gas});
  return r;
}

bool Bundle::cost(const std::string &schedule, CostReport &out,
                  Error &err) const {
  const GasSchedule *gs =
      schedule.empty() ? &latestGasSchedule() : lookupGasSchedule(schedule);
  if (!gs)
    return err.set(Error::Usage, "unknown gas schedule '" + schedule +
                                     "'; known schedules: " +
                                     gasScheduleNames());
  auto r = computeGas(*s->primary().module, *gs);
  if (!r)
    return err.set(Error::Model, llvm::toString(r.takeError()));
  out.schedule = r->schedule;
  out.graphHash = toHex(r->graphHash);
  out.totalGas = r->totalGas;
  out.totalFlops = r->totalFlops;
  out.totalBytes = r->totalBytes;
  for (const NodeGas &n : r->nodes)
    out.nodes.push_back({n.index, toHex(n.id), n.op, n.shapes, n.gas, n.flops,
                         n.bytes, n.counts.macs, n.counts.elementwise,
                         n.counts.transcendental, n.counts.compare,
                         n.counts.indexed, n.counts.bytesRead,
                         n.counts.bytesWritten});
  for (const OpTypeGas &t : r->opTypes)
    out.opTypes.push_back({t.op, t.nodes, t.flops, t.bytes, t.gas});
  return true;
}

bool Bundle::checkInputs(std::vector<plumb_tensor_view> &inputs,
                         std::vector<std::vector<uint64_t>> &bound,
                         Error &err) const {
  mlir::func::FuncOp main = getMainFunc(*s->primary().module);
  std::vector<driver::TensorSpec> specs = driver::inputSpecs(main);
  bound.resize(inputs.size());
  std::string msg;
  for (size_t i = 0; i < inputs.size() && i < specs.size(); ++i) {
    if (inputs[i].data || !specs[i].bound)
      continue;
    exec::Tensor t;
    if (!exec::tensorFromAttr(specs[i].bound, t, msg))
      return err.set(Error::Model, msg);
    bound[i] = std::move(t.storage);
    static uint64_t empty;
    inputs[i].data = bound[i].empty() ? &empty : bound[i].data();
  }
  if (!driver::checkInputs(main, inputs, msg))
    return err.set(Error::Input, msg);
  return true;
}

bool Bundle::validate(const RunRequest &r, Error &err) {
  if (r.device != "cpu" && r.device != "cuda")
    return err.set(Error::Usage,
                   "device must be cpu or cuda, not '" + r.device + "'");
  if (r.interpret && r.device != "cpu")
    return err.set(Error::Usage, "interpret runs on the host; it cannot be "
                                 "combined with device " + r.device);
  if (r.threads < 1 || r.threads > 1024)
    return err.set(Error::Usage, "threads must be a number from 1 to 1024");
  return true;
}

bool Bundle::prepare(const RunRequest &r, Error &err) {
  std::lock_guard<std::mutex> lock(s->mutex);
  if (!s->verified.count(r.device)) {
    auto b = bundle::openBundleForRun(dir(), r.device, /*interpret=*/false);
    if (!b)
      return err.set(Error::Model, llvm::toString(b.takeError()));
    s->verified[r.device] = std::move(*b);
  }
  if (r.interpret || s->natives.count(r.device))
    return true;
  auto lib = bundle::loadBundleLibrary(*s->verified[r.device], r.device, "",
                                       nullptr);
  if (!lib)
    return err.set(Error::Plumb, llvm::toString(lib.takeError()));
  s->natives[r.device] = std::move(*lib);
  return true;
}

bool Bundle::run(const std::vector<plumb_tensor_view> &inputs,
                 std::vector<plumb_tensor_view> &outputs, const RunRequest &r,
                 RunReport &report, Error &err) {
  std::lock_guard<std::mutex> lock(s->mutex);
  bundle::Bundle &b = *s->verified.at(r.device);
  std::string msg;
  if (!r.interpret && r.traceDir.empty()) {
    // The plain compiled run: the arrays themselves, no copy.
    bundle::NativeModel &native = *s->natives.at(r.device);
    native.setThreads(r.threads);
    plumb_rt_set_threads(r.threads);
    if (!bundle::runNative(native, b, inputs, outputs, nullptr, nullptr, msg))
      return err.set(Error::Plumb, msg);
    return true;
  }
  std::vector<exec::Tensor> in, out;
  for (const plumb_tensor_view &v : inputs)
    in.push_back(tensorOf(v));
  bundle::RunOptions o;
  o.threads = r.threads;
  o.device = r.device;
  o.interpret = r.interpret;
  o.traceDir = r.traceDir;
  o.keepTensors = r.keepTensors;
  if (!r.interpret)
    o.native = s->natives.at(r.device).get();
  bundle::Runner runner(*b.module, &b, o);
  if (!runner.prepare(in, msg) || !runner.run(in, out, msg))
    return err.set(Error::Plumb, msg);
  for (size_t i = 0; i < out.size() && i < outputs.size(); ++i)
    if (out[i].byteSize())
      std::memcpy(outputs[i].data, out[i].raw(), out[i].byteSize());
  if (!r.traceDir.empty()) {
    report.traceRoot = toHex(runner.trace().root);
    report.traceNodes = (int64_t)runner.trace().nodes.size();
  }
  return true;
}

bool Bundle::dispute(const std::string &dirA, const std::string &dirB,
                     const std::string &nameA, const std::string &nameB,
                     const std::vector<plumb_tensor_view> &known,
                     int timeoutMs, Verdict &v, Error &err) {
  std::string names[2] = {nameA, nameB};
  const std::string dirs[2] = {dirA, dirB};
  if (nameA == nameB)
    return err.set(Error::Usage, "party '" + nameA + "' is given twice");
  std::unique_ptr<dispute::TraceParty> parties[2];
  for (int p = 0; p < 2; ++p) {
    if (!llvm::sys::fs::exists(trace::manifestPath(dirs[p])))
      return err.set(Error::Usage, "party " + names[p] + ": '" + dirs[p] +
                                       "' is not a trace folder (no "
                                       "trace.json)");
    std::string msg;
    parties[p] = dispute::TraceParty::open(dirs[p], dispute::Behaviour(), msg);
    if (!parties[p])
      return err.set(Error::Plumb, "party " + names[p] + ": " + msg);
  }
  std::lock_guard<std::mutex> lock(s->mutex);
  mlir::ModuleOp module = *s->primary().module;
  dispute::RefereeOptions ropts;
  ropts.roundTimeoutMs = timeoutMs;
  ropts.knownInputs.resize(s->inputs.size());
  for (size_t i = 0; i < known.size() && i < s->inputs.size(); ++i)
    if (known[i].data)
      ropts.knownInputs[i] = trace::tensorHash(tensorOf(known[i]));
  dispute::Referee referee(module);
  dispute::LocalChannel a(*parties[0]), b(*parties[1]);
  dispute::DisputeResult res = referee.run(a, b, names, ropts);
  if (!res.error.empty())
    return err.set(res.error.find("different inputs") != std::string::npos
                       ? Error::Usage
                       : Error::Plumb,
                   res.error);
  v.loser = res.loser();
  v.firstDivergentIndex = res.firstDivergent;
  v.nodeId = res.firstDivergent >= 0 ? toHex(res.nodeId) : "";
  v.op = res.op;
  v.rounds = res.rounds;
  v.messages = res.messages;
  v.bytesExchanged = res.bytes;
  v.executedNodes = res.executedNodes;
  v.rootsAgree = res.rootsAgree;
  v.subNode = res.subNode;
  v.divergentChunk = res.divergentChunk;
  v.numChunks = res.numChunks;
  v.chunkRounds = res.chunkRounds;
  v.supplier = res.supplier;
  v.refereeMs = res.refereeMs;
  v.numNodes = referee.numNodes();
  v.graphHash = toHex(referee.graphHash());
  v.log = res.log;
  for (int p = 0; p < 2; ++p) {
    const dispute::PartyReport &pr = res.parties[p];
    v.parties[p] = {pr.name, pr.reason, pr.committed ? toHex(pr.root) : "",
                    pr.hasClaim ? toHex(pr.claim) : "", pr.lost,
                    pr.bytesSent, pr.bytesReceived};
  }
  return true;
}

} // namespace py
} // namespace plumb
