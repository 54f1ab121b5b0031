//===- lib/Trace/TraceRecorder.cpp - Recording traces, fault injection ----===//
//
// Part of Plumb. See include/plumb/Trace/TraceRecorder.h and docs/trace.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Trace/TraceRecorder.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "passes/Passes.h"
#include "plumb/Canonical/Identity.h"
#include "plumb/Driver/TensorIO.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Trace/TensorHasher.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

using namespace mlir;

namespace plumb {
namespace trace {

bool canonicalizeModule(ModuleOp module, std::string &err) {
  std::string diag;
  llvm::raw_string_ostream os(diag);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    os << d << "\n";
    return success();
  });
  PassManager pm(module.getContext());
  buildCanonicalizePipeline(pm);
  if (failed(pm.run(module))) {
    err = "canonicalisation failed" + (diag.empty() ? "" : ": " + os.str());
    while (!err.empty() && err.back() == '\n')
      err.pop_back();
    return false;
  }
  return true;
}

llvm::DenseMap<Operation *, int64_t> nodeIndexMap(func::FuncOp main) {
  llvm::DenseMap<Operation *, int64_t> map;
  int64_t i = 0;
  for (Operation *op : graphNodes(main))
    map[op] = i++;
  return map;
}

//===----------------------------------------------------------------------===//
// TraceRecorder
//===----------------------------------------------------------------------===//

/// Background hashing: a queue of (node, result, data) jobs and the threads
/// that hash them into the trace's result slots.
struct TraceRecorder::Pool {
  struct Job {
    NodeRecord *node;
    unsigned result;
    int32_t dtype;
    std::vector<int64_t> shape;
    const void *data;
    std::vector<uint64_t> owned; // a copy when the data were not lent
    size_t bytes;
  };
  std::mutex mu;
  std::condition_variable work, done;
  std::deque<Job> queue;
  size_t inFlight = 0;      // queued or being hashed
  size_t copiedBytes = 0;   // held in copies, bounded
  bool stop = false;
  double busySec = 0;
  std::vector<std::thread> threads;

  static constexpr size_t kMaxCopiedBytes = size_t(512) << 20;

  explicit Pool(unsigned n) {
    for (unsigned i = 0; i < n; ++i)
      threads.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    work.notify_all();
    for (std::thread &th : threads)
      th.join();
  }
  void loop() {
    while (true) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mu);
        work.wait(lock, [&] { return stop || !queue.empty(); });
        if (queue.empty())
          return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      auto t0 = std::chrono::steady_clock::now();
      job.node->results[job.result] =
          tensorHash(job.dtype, (int32_t)job.shape.size(), job.shape.data(),
                     job.owned.empty() ? job.data : job.owned.data());
      double sec = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - t0)
                       .count();
      {
        std::lock_guard<std::mutex> lock(mu);
        busySec += sec;
        if (!job.owned.empty())
          copiedBytes -= job.bytes;
        --inFlight;
      }
      done.notify_all();
    }
  }
  void push(Job job) {
    std::unique_lock<std::mutex> lock(mu);
    if (!job.owned.empty()) {
      done.wait(lock, [&] {
        return copiedBytes == 0 || copiedBytes + job.bytes <= kMaxCopiedBytes;
      });
      copiedBytes += job.bytes;
    }
    ++inFlight;
    queue.push_back(std::move(job));
    lock.unlock();
    work.notify_one();
  }
  void drain() {
    std::unique_lock<std::mutex> lock(mu);
    done.wait(lock, [&] { return inFlight == 0; });
  }
};

TraceRecorder::TraceRecorder(std::string dir, bool keepTensors)
    : dir(std::move(dir)), keep(keepTensors) {}

TraceRecorder::~TraceRecorder() {
  if (pool)
    pool->drain();
}

void TraceRecorder::setHashThreads(unsigned n) {
  if (pool)
    pool->drain();
  pool.reset(n ? new Pool(n) : nullptr);
}

void TraceRecorder::drain() {
  if (pool)
    pool->drain();
}

double TraceRecorder::backgroundHashSeconds() const {
  if (!pool)
    return 0;
  std::lock_guard<std::mutex> lock(pool->mu);
  return pool->busySec;
}

bool TraceRecorder::begin(ModuleOp module, llvm::ArrayRef<exec::Tensor> inputs,
                          std::string &err) {
  func::FuncOp main = getMainFunc(module);
  if (!main) {
    err = "the module has no func.func @main";
    return false;
  }
  drain();
  t = Trace();
  next = 0;
  firstError.clear();
  hashSec = writeSec = 0;
  auto contract = module->getAttrOfType<StringAttr>("plumb.contract");
  t.contract = contract ? contract.str() : "plumb-det-v1";
  t.graphHash = computeGraphHash(module);
  for (const NodeInfo &n : computeNodeTable(main)) {
    NodeRecord r;
    r.index = n.index;
    r.id = n.id;
    r.op = n.opName;
    t.nodes.push_back(std::move(r));
  }
  t.hasTensors = keep;
  for (unsigned i = 0; i < inputs.size(); ++i) {
    InputRecord in;
    auto name = main.getArgAttrOfType<StringAttr>(i, "plumb.name");
    in.name = name ? name.str() : "#" + std::to_string(i);
    in.type = inputs[i].type;
    in.shape = inputs[i].shape;
    in.hash = exec::tensorHash(inputs[i]);
    t.inputs.push_back(std::move(in));
  }
  if (dir.empty())
    return true;
  // Only ever replace a trace: never write into an unrelated folder.
  bool exists = llvm::sys::fs::is_directory(dir);
  if (exists) {
    std::error_code ec;
    llvm::sys::fs::directory_iterator it(dir, ec), end;
    bool empty = !ec && it == end;
    if (!empty && !llvm::sys::fs::exists(manifestPath(dir))) {
      err = "'" + dir + "' exists and is not a trace folder (no trace.json); "
            "refusing to write into it";
      return false;
    }
    if (llvm::sys::fs::exists(dir + "/tensors"))
      if (auto rec = llvm::sys::fs::remove_directories(dir + "/tensors")) {
        err = "cannot clear '" + dir + "/tensors': " + rec.message();
        return false;
      }
  } else if (llvm::sys::fs::exists(dir)) {
    err = "'" + dir + "' exists and is not a folder";
    return false;
  }
  std::string sub = keep ? dir + "/tensors" : dir;
  if (auto ec = llvm::sys::fs::create_directories(sub)) {
    err = "cannot create '" + sub + "': " + ec.message();
    return false;
  }
  if (keep)
    for (unsigned i = 0; i < inputs.size(); ++i)
      if (!driver::writeNpy(inputTensorPath(dir, i), inputs[i], err))
        return false;
  return true;
}

static exec::Tensor tensorOfView(const plumb_tensor_view &v) {
  std::vector<int64_t> shape(v.shape, v.shape + v.rank);
  exec::Tensor t = exec::Tensor::make((exec::ElemType)v.dtype, shape);
  std::memcpy(t.raw(), v.data, t.byteSize());
  return t;
}

static bool validDtype(int32_t d) { return d >= 1 && d <= 4; }

void TraceRecorder::recordNode(int64_t index, int32_t numResults,
                               const plumb_tensor_view *results, bool lent) {
  auto t0 = std::chrono::steady_clock::now();
  if (index != next || index >= (int64_t)t.nodes.size()) {
    if (firstError.empty())
      firstError = "node " + std::to_string(index) + " reported out of order "
                   "(expected node " + std::to_string(next) + " of " +
                   std::to_string(t.nodes.size()) + ")";
    return;
  }
  NodeRecord &n = t.nodes[next++];
  n.results.assign(numResults, Digest{});
  for (int32_t r = 0; r < numResults; ++r) {
    const plumb_tensor_view &v = results[r];
    if (!validDtype(v.dtype)) {
      if (firstError.empty())
        firstError = "node " + std::to_string(index) + " result " +
                     std::to_string(r) + " has unknown dtype code " +
                     std::to_string(v.dtype);
      return;
    }
    if (!pool) {
      n.results[r] = tensorHash(v.dtype, v.rank, v.shape, v.data);
      continue;
    }
    Pool::Job job{&n, (unsigned)r, v.dtype,
                  std::vector<int64_t>(v.shape, v.shape + v.rank), v.data,
                  {}, 0};
    int64_t count = 1;
    for (int64_t d : job.shape)
      count *= d;
    job.bytes = (size_t)count * exec::elemSize((exec::ElemType)v.dtype);
    if (!lent && job.bytes) {
      job.owned.resize((job.bytes + 7) / 8);
      std::memcpy(job.owned.data(), v.data, job.bytes);
    }
    pool->push(std::move(job));
  }
  auto t1 = std::chrono::steady_clock::now();
  hashSec += std::chrono::duration<double>(t1 - t0).count();
  if (!keep)
    return;
  for (int32_t r = 0; r < numResults; ++r) {
    std::string err;
    if (!driver::writeNpy(nodeTensorPath(dir, index, r),
                          tensorOfView(results[r]), err) &&
        firstError.empty())
      firstError = err;
  }
  writeSec += std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            t1)
                  .count();
}

void TraceRecorder::recordNode(int64_t index,
                               llvm::ArrayRef<exec::Tensor> results,
                               bool lent) {
  std::vector<plumb_tensor_view> views;
  for (const exec::Tensor &r : results)
    views.push_back({(int32_t)r.type, (int32_t)r.shape.size(), r.shape.data(),
                     const_cast<void *>(r.raw())});
  recordNode(index, (int32_t)views.size(), views.data(), lent);
}

void TraceRecorder::abiHook(void *user, int64_t nodeIndex, int32_t numResults,
                            const plumb_tensor_view *results) {
  static_cast<TraceRecorder *>(user)->recordNode(nodeIndex, numResults,
                                                 results);
}

bool TraceRecorder::finish(double runMs, const std::string &note,
                           std::string &err) {
  drain();
  if (firstError.empty() && next != (int64_t)t.nodes.size())
    firstError = "the run reported " + std::to_string(next) + " of " +
                 std::to_string(t.nodes.size()) + " nodes";
  if (!firstError.empty()) {
    err = "trace: " + firstError;
    return false;
  }
  t.runMs = runMs - 1000.0 * writeSec;
  t.note = note;
  sealTrace(t);
  if (dir.empty())
    return true;
  return writeTrace(dir, t, err);
}

//===----------------------------------------------------------------------===//
// Fault injection (testing aids)
//===----------------------------------------------------------------------===//

/// Parses "a=N,b=M" into the two named non-negative integers.
static bool parsePair(const std::string &spec, const char *a, const char *b,
                      int64_t &va, int64_t &vb, std::string &err) {
  bool haveA = false, haveB = false;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string item = spec.substr(pos, comma == std::string::npos
                                            ? std::string::npos
                                            : comma - pos);
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq);
    std::string val = eq == std::string::npos ? "" : item.substr(eq + 1);
    char *end = nullptr;
    long long v = val.empty() ? -1 : std::strtoll(val.c_str(), &end, 10);
    if (eq == std::string::npos || val.empty() || *end || v < 0 ||
        (key != a && key != b)) {
      err = "expected " + std::string(a) + "=N," + b + "=N, got '" + spec + "'";
      return false;
    }
    (key == a ? va : vb) = v;
    (key == a ? haveA : haveB) = true;
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  if (!haveA || !haveB) {
    err = "expected " + std::string(a) + "=N," + b + "=N, got '" + spec + "'";
    return false;
  }
  return true;
}

bool parseBitFlip(const std::string &spec, BitFlip &out, std::string &err) {
  return parsePair(spec, "node", "bit", out.node, out.bit, err);
}

bool parseTreeOverride(const std::string &spec, TreeOverride &out,
                       std::string &err) {
  return parsePair(spec, "node", "block", out.node, out.block, err);
}

static bool flipRaw(int32_t dtype, int64_t numElements, void *data,
                    int64_t bit, std::string &err) {
  if (numElements == 0) {
    err = "the output has no elements to flip";
    return false;
  }
  int64_t bits = dtype == 2 ? 64 : dtype == 4 ? 1 : 32;
  if (bit < 0 || bit >= bits) {
    err = "bit " + std::to_string(bit) + " is out of range for a " +
          exec::elemTypeName((exec::ElemType)dtype) + " element (0 to " +
          std::to_string(bits - 1) + ")";
    return false;
  }
  auto *p = static_cast<uint8_t *>(data);
  if (dtype == 4)
    p[0] = p[0] ? 0 : 1;
  else
    p[bit / 8] ^= (uint8_t)(1u << (bit % 8)); // little-endian element bytes
  return true;
}

bool flipBit(exec::Tensor &t, int64_t bit, std::string &err) {
  return flipRaw((int32_t)t.type, t.numElements(), t.raw(), bit, err);
}

bool flipBit(const plumb_tensor_view &t, int64_t bit, std::string &err) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.rank; ++d)
    n *= t.shape[d];
  return flipRaw(t.dtype, n, t.data, bit, err);
}

bool applyTreeOverride(func::FuncOp main, const TreeOverride &o,
                       std::string &err) {
  std::vector<Operation *> nodes = graphNodes(main);
  if (o.node < 0 || o.node >= (int64_t)nodes.size()) {
    err = "node " + std::to_string(o.node) + " does not exist (the model has " +
          std::to_string(nodes.size()) + " nodes)";
    return false;
  }
  Operation *op = nodes[o.node];
  // A plumb.fused node reduces in its head (conv, matmul, gemm).
  if (auto fused = dyn_cast<FusedOp>(op))
    op = fused.getChain().front();
  if (!op->hasAttr("tree")) {
    err = "node " + std::to_string(o.node) + " ('" +
          op->getName().getStringRef().str() + "') has no reduction tree";
    return false;
  }
  op->setAttr("tree", TreeAttr::get(op->getContext(), o.block));
  return true;
}

} // namespace trace
} // namespace plumb
