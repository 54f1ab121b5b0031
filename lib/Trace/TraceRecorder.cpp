//===- lib/Trace/TraceRecorder.cpp - Recording traces, fault injection ----===//
//
// Part of Plumb. See include/plumb/Trace/TraceRecorder.h and docs/trace.md.
//
//===----------------------------------------------------------------------===//
#include "plumb/Trace/TraceRecorder.h"

#include "dialects/Plumb/IR/PlumbOps.h"
#include "plumb/Canonical/Identity.h"
#include "plumb/Driver/TensorIO.h"
#include "plumb/Support/Nodes.h"
#include "plumb/Trace/TensorHasher.h"
#include "plumb/runtime/config.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

using namespace mlir;

namespace plumb {
namespace trace {

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

/// Background hashing with work stealing over chunks. Each result becomes a
/// job of numChunks chunks; any thread (the background threads, and the
/// run's own thread in drain()) claims the next unclaimed chunk of the
/// oldest job, so a large tensor is hashed by every thread at once and a
/// small one is one chunk. Whoever finishes a job's last chunk builds its
/// chunk tree and stores the tensor hash. Idle threads spin briefly before
/// they sleep, so a model with many tiny nodes does not pay a wake-up per
/// node.
/// Results up to this size are hashed in the hook (see recordNode).
static constexpr size_t kInlineBytes = 4096;
/// Small results of up to this rank go through the pool's lock-free ring.
static constexpr int kSmallMaxRank = 8;

struct TraceRecorder::Pool {
  /// Copies of results that were not lent. Buffers are recycled (a fresh
  /// large allocation costs a page fault per 4 KiB on first touch, more than
  /// the copy itself).
  struct Buffer {
    std::unique_ptr<uint8_t[]> data;
    size_t capacity = 0;
    bool empty() const { return !data; }
  };
  struct Job {
    Digest *slot = nullptr;
    std::atomic<int> *nodePending = nullptr; // jobs of its node not done
    std::vector<Digest> *chunksSlot = nullptr; // receives the leaves
    int32_t dtype = 1;
    std::vector<int64_t> shape;
    const void *data = nullptr;
    Buffer owned; // a copy when the data were not lent
    size_t bytes = 0;
    int64_t numElements = 0;
    size_t chunks = 0;
    size_t next = 0;                // next chunk to claim (under mu)
    std::atomic<size_t> finished{0}; // chunks hashed
    std::vector<Digest> leaves;
  };
  /// A small lent result (one chunk), handed off without a lock or an
  /// allocation: a recording thread puts it into `ring`, any hashing
  /// thread takes it out (a bounded multi-consumer queue after Dmitry
  /// Vyukov's: each cell's sequence number says whether it is free or full).
  struct Small {
    int32_t dtype = 1;
    int32_t rank = 0;
    int64_t shape[kSmallMaxRank] = {};
    const void *data = nullptr;
    int64_t numElements = 0;
    Digest *slot = nullptr;
    std::vector<Digest> *chunksSlot = nullptr;
    std::atomic<int> *nodePending = nullptr;
  };
  struct Cell {
    std::atomic<size_t> seq{0};
    Small item;
  };
  static constexpr size_t kRingCells = 1024; // a power of two
  std::unique_ptr<Cell[]> ring;
  alignas(64) std::atomic<size_t> ringHead{0}; // next cell to claim to fill
  alignas(64) std::atomic<size_t> ringTail{0}; // next cell to take
  alignas(64) std::mutex mu;
  std::condition_variable work, idle;
  std::deque<std::shared_ptr<Job>> queue; // jobs with chunks to claim
  std::atomic<size_t> pending{0};        // jobs not finished
  /// Chunks queued, not yet claimed (every queued job has one or more), read
  /// without mu by idle threads.
  std::atomic<size_t> unclaimed{0};
  size_t copiedBytes = 0;                // held in copies, bounded
  std::atomic<int> sleepers{0}; // changed under mu
  int drainWaiters = 0;
  bool stop = false;
  double busySec = 0;
  std::vector<std::thread> threads;

  static constexpr size_t kMaxCopiedBytes = size_t(512) << 20;
  static constexpr size_t kMaxSpareBytes = size_t(256) << 20;
  static constexpr double kSpinSec = 300e-6;

  /// Set while a recorder records a run: idle threads poll instead of
  /// sleeping.
  std::atomic<bool> armed{false};
  std::atomic<bool> stopping{false};

  /// Arms the pool and waits (at most 10 ms) until no thread sleeps, so
  /// the run does not pay their wake-up (tens of microseconds here).
  void arm() {
    {
      std::lock_guard<std::mutex> lock(mu);
      armed.store(true, std::memory_order_relaxed);
    }
    work.notify_all();
    auto t0 = std::chrono::steady_clock::now();
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (sleepers == 0)
          return;
      }
      if (std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(10))
        return;
      std::this_thread::yield();
    }
  }
  void disarm() { armed.store(false, std::memory_order_relaxed); }

  double busySeconds() {
    std::lock_guard<std::mutex> lock(mu);
    return busySec;
  }

  /// One pool per thread count for the whole process, so the threads of
  /// run after run (`plumb run --repeat`, a solver's loop) are already up.
  static std::shared_ptr<Pool> shared(unsigned n) {
    static std::mutex m;
    static std::map<unsigned, std::shared_ptr<Pool>> pools;
    std::lock_guard<std::mutex> lock(m);
    std::shared_ptr<Pool> &p = pools[n];
    if (!p)
      p = std::make_shared<Pool>(n);
    return p;
  }

  explicit Pool(unsigned n) : ring(new Cell[kRingCells]) {
    for (size_t i = 0; i < kRingCells; ++i)
      ring[i].seq.store(i, std::memory_order_relaxed);
    for (unsigned i = 0; i < n; ++i)
      threads.emplace_back([this] { loop(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
      stopping.store(true, std::memory_order_relaxed);
    }
    work.notify_all();
    for (std::thread &th : threads)
      th.join();
  }

  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }

  /// A claimed run of chunks (hashed together: see chunkDigestBatch).
  struct Claim {
    std::shared_ptr<Job> jobs[kHashLanes];
    size_t chunks[kHashLanes];
    size_t n = 0;
  };

  /// Claims the next chunks in queue order: a whole multi-lane batch when
  /// enough are queued (sixteen hash in about the time of eight one by one),
  /// else one, so a short queue is worked on at once and more chunks may
  /// arrive meanwhile; `sec` (time spent on the previous claim) is booked.
  bool claim(Claim &out, double &sec) {
    std::lock_guard<std::mutex> lock(mu);
    size_t want = multiLaneSha256() && unclaimed.load(std::memory_order_relaxed) >= 9
                      ? kHashLanes
                      : 1;
    busySec += sec;
    sec = 0;
    out.n = 0;
    while (!queue.empty() && out.n < want) {
      std::shared_ptr<Job> &front = queue.front();
      while (front->next < front->chunks && out.n < want) {
        out.jobs[out.n] = front;
        out.chunks[out.n++] = front->next++;
        unclaimed.fetch_sub(1, std::memory_order_relaxed);
      }
      if (front->next == front->chunks)
        queue.pop_front();
    }
    return out.n > 0;
  }

  /// Hashes claimed chunks; the last one of a job completes it.
  void hashClaim(Sha256 &h, Claim &cl, double &sec) {
    auto t0 = std::chrono::steady_clock::now();
    ChunkTask tasks[kHashLanes];
    for (size_t i = 0; i < cl.n; ++i) {
      Job &job = *cl.jobs[i];
      tasks[i].dtype = job.dtype;
      tasks[i].data = job.owned.empty() ? job.data : job.owned.data.get();
      tasks[i].numElements = job.numElements;
      tasks[i].chunk = cl.chunks[i];
      tasks[i].out = &job.leaves[cl.chunks[i]];
    }
    chunkDigestBatch(h, tasks, cl.n);
    for (size_t i = 0; i < cl.n; ++i) {
      Job &job = *cl.jobs[i];
      if (job.finished.fetch_add(1, std::memory_order_acq_rel) + 1 ==
          job.chunks)
        complete(job);
      cl.jobs[i].reset();
    }
    cl.n = 0;
    sec += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
               .count();
  }

  void complete(Job &job) {
    *job.slot = tensorHashFromRoot(job.dtype, (int32_t)job.shape.size(),
                                   job.shape.data(), chunkRoot(job.leaves));
    *job.chunksSlot = std::move(job.leaves);
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mu);
      bool copied = !job.owned.empty();
      if (copied) {
        copiedBytes -= job.bytes;
        recycle(std::move(job.owned));
        job.owned = Buffer();
      }
      if (job.nodePending)
        job.nodePending->fetch_sub(1, std::memory_order_release);
      bool last = pending.fetch_sub(1, std::memory_order_acq_rel) == 1;
      wake = (last && drainWaiters > 0) || copied;
    }
    if (wake)
      idle.notify_all();
  }

  /// Queues a small result; false when the ring is full (the caller
  /// hashes it itself).
  bool pushSmall(const Small &item) {
    size_t pos = ringHead.load(std::memory_order_relaxed);
    Cell *c;
    while (true) {
      c = &ring[pos & (kRingCells - 1)];
      size_t seq = c->seq.load(std::memory_order_acquire);
      auto dif = (std::ptrdiff_t)seq - (std::ptrdiff_t)pos;
      if (dif == 0) {
        if (ringHead.compare_exchange_weak(pos, pos + 1,
                                           std::memory_order_relaxed))
          break;
      } else if (dif < 0) {
        return false;
      } else {
        pos = ringHead.load(std::memory_order_relaxed);
      }
    }
    c->item = item;
    pending.fetch_add(1, std::memory_order_relaxed);
    item.nodePending->fetch_add(1, std::memory_order_relaxed);
    c->seq.store(pos + 1, std::memory_order_release);
    // Publish before reading `sleepers` (a thread going to sleep publishes
    // `sleepers` before it reads the ring): no lost wake-up on any CPU.
    std::atomic_thread_fence(std::memory_order_seq_cst);
    // Armed threads poll; an unarmed pool's sleeping threads need a call.
    if (sleepers.load(std::memory_order_relaxed) > 0) {
      { std::lock_guard<std::mutex> lock(mu); }
      work.notify_one();
    }
    return true;
  }

  /// Whether the oldest cell holds a published result.
  bool smallQueued() const {
    size_t tail = ringTail.load(std::memory_order_relaxed);
    return ring[tail & (kRingCells - 1)].seq.load(std::memory_order_acquire) ==
           tail + 1;
  }

  /// Takes the oldest queued small result; false when none is.
  bool popSmall(Small &out) {
    size_t pos = ringTail.load(std::memory_order_relaxed);
    while (true) {
      Cell &c = ring[pos & (kRingCells - 1)];
      size_t seq = c.seq.load(std::memory_order_acquire);
      auto dif = (std::ptrdiff_t)seq - (std::ptrdiff_t)(pos + 1);
      if (dif == 0) {
        if (ringTail.compare_exchange_weak(pos, pos + 1,
                                           std::memory_order_relaxed)) {
          out = c.item;
          c.seq.store(pos + kRingCells, std::memory_order_release);
          return true;
        }
      } else if (dif < 0) {
        return false;
      } else {
        pos = ringTail.load(std::memory_order_relaxed);
      }
    }
  }

  /// Hashes one queued small result if there is one.
  bool hashSmallOnce(double &sec) {
    Small it;
    if (!popSmall(it))
      return false;
    auto t0 = std::chrono::steady_clock::now();
    // Into the record's own vector (kept from the last run: no allocation).
    std::vector<Digest> &leaves = *it.chunksSlot;
    leaves.resize(numChunks(it.dtype, it.numElements));
    Sha256 h;
    for (size_t c = 0; c < leaves.size(); ++c)
      leaves[c] = chunkDigestWith(h, it.dtype, it.data, it.numElements, c);
    *it.slot = tensorHashFromRoot(it.dtype, it.rank, it.shape,
                                  chunkRoot(leaves));
    it.nodePending->fetch_sub(1, std::memory_order_release);
    if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      bool wake;
      {
        std::lock_guard<std::mutex> lock(mu);
        wake = drainWaiters > 0;
      }
      if (wake)
        idle.notify_all();
    }
    sec += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
               .count();
    return true;
  }

  /// Hashes the next work there is: a queued small result, else a claim of
  /// chunks; false when there is none.
  bool hashNext(Sha256 &h, Claim &cl, double &sec) {
    if (hashSmallOnce(sec))
      return true;
    if (!claim(cl, sec))
      return false;
    hashClaim(h, cl, sec);
    return true;
  }

  void loop() {
    Sha256 h;
    double sec = 0;
    Claim cl;
    while (true) {
      if (hashNext(h, cl, sec))
        continue;
      // Wait a little without sleeping (yielding the core to anything
      // runnable): the next node's results are usually close. While a run
      // is being recorded (armed), keep waiting so: a wake-up costs tens
      // of microseconds, a whole run of a small model.
      auto t0 = std::chrono::steady_clock::now();
      bool found = false;
      while (!found) {
        for (int i = 0; i < 16 && !found; ++i) {
          found = unclaimed.load(std::memory_order_relaxed) > 0 ||
                  smallQueued();
          pause();
        }
        if (!found)
          std::this_thread::yield();
        if (stopping.load(std::memory_order_relaxed))
          break;
        if (!armed.load(std::memory_order_relaxed) &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                    .count() > kSpinSec)
          break;
      }
      if (found)
        continue;
      std::unique_lock<std::mutex> lock(mu);
      ++sleepers;
      work.wait(lock, [&] {
        return stop || !queue.empty() || smallQueued() ||
               armed.load(std::memory_order_relaxed);
      });
      --sleepers;
      if (stop && queue.empty())
        return;
    }
  }

  /// A buffer of at least `bytes` for a copy (waits while copies hold too
  /// much memory): the smallest spare one that fits, or a new one.
  Buffer takeBuffer(size_t bytes) {
    std::unique_lock<std::mutex> lock(mu);
    idle.wait(lock, [&] {
      return copiedBytes == 0 || copiedBytes + bytes <= kMaxCopiedBytes;
    });
    copiedBytes += bytes;
    lock.unlock();
    return reuse(bytes);
  }

  /// Spare buffers, shared by every recorder of the process (a solver
  /// records run after run of the same model: the same sizes recur).
  static std::mutex spareMu;
  static std::vector<Buffer> spare;
  static size_t spareBytes;

  static void recycle(Buffer b) {
    std::lock_guard<std::mutex> lock(spareMu);
    if (spareBytes + b.capacity <= kMaxSpareBytes) {
      spareBytes += b.capacity;
      spare.push_back(std::move(b));
    }
  }

  static Buffer reuse(size_t bytes) {
    std::unique_lock<std::mutex> lock(spareMu);
    size_t best = spare.size();
    for (size_t i = 0; i < spare.size(); ++i)
      if (spare[i].capacity >= bytes &&
          (best == spare.size() || spare[i].capacity < spare[best].capacity))
        best = i;
    if (best < spare.size()) {
      Buffer b = std::move(spare[best]);
      spare[best] = std::move(spare.back());
      spare.pop_back();
      spareBytes -= b.capacity;
      return b;
    }
    lock.unlock();
    Buffer b;
    b.data.reset(new uint8_t[bytes]);
    b.capacity = bytes;
    return b;
  }

  void push(std::shared_ptr<Job> job) {
    std::unique_lock<std::mutex> lock(mu);
    pending.fetch_add(1, std::memory_order_relaxed);
    bool many = job->chunks > 1;
    unclaimed.fetch_add(job->chunks, std::memory_order_release);
    queue.push_back(std::move(job));
    int asleep = sleepers;
    lock.unlock();
    if (asleep > 0) {
      if (many)
        work.notify_all();
      else
        work.notify_one();
    }
  }

  /// Hashes one queued small result or claim of chunks on the caller's
  /// thread; false when nothing was left.
  bool helpOnce() {
    double sec = 0;
    Claim cl;
    thread_local Sha256 h;
    if (!hashNext(h, cl, sec))
      return false;
    std::lock_guard<std::mutex> lock(mu);
    busySec += sec;
    return true;
  }

  /// The caller hashes too until nothing is left to claim, then waits for
  /// the chunks other threads are still on.
  void drain() {
    Sha256 h;
    double sec = 0;
    Claim cl;
    while (hashNext(h, cl, sec)) {
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      busySec += sec;
    }
    for (int i = 0; i < 4096 && pending.load(std::memory_order_acquire); ++i)
      pause();
    if (!pending.load(std::memory_order_acquire))
      return;
    std::unique_lock<std::mutex> lock(mu);
    ++drainWaiters;
    idle.wait(lock, [&] { return pending.load() == 0; });
    --drainWaiters;
  }
};

std::mutex TraceRecorder::Pool::spareMu;
std::vector<TraceRecorder::Pool::Buffer> TraceRecorder::Pool::spare;
size_t TraceRecorder::Pool::spareBytes = 0;

TraceRecorder::TraceRecorder(std::string dir, bool keepTensors)
    : dir(std::move(dir)), keep(keepTensors) {}

TraceRecorder::~TraceRecorder() {
  if (pool) {
    pool->drain();
    pool->disarm();
  }
}

void TraceRecorder::setHashThreads(unsigned n) {
  if (pool) {
    pool->drain();
    pool->disarm();
  }
  pool = n ? Pool::shared(n) : nullptr;
  if (pool) {
    busyBase = pool->busySeconds();
    pool->arm();
  }
}

void TraceRecorder::drain() {
  if (pool) {
    pool->drain();
    pool->disarm();
  }
  hashedThrough = next - 1;
}

void TraceRecorder::waitHashed(int64_t index) {
  index = std::min<int64_t>(index, next - 1);
  while (hashedThrough < index) {
    if (!pool ||
        nodePending[hashedThrough + 1].load(std::memory_order_acquire) == 0) {
      ++hashedThrough;
      continue;
    }
    // Behind: help rather than wait (the run is stalled anyway).
    if (!pool->helpOnce())
      Pool::pause();
  }
}

double TraceRecorder::backgroundHashSeconds() const {
  return pool ? pool->busySeconds() - busyBase : 0;
}

bool TraceRecorder::begin(ModuleOp module, llvm::ArrayRef<exec::Tensor> inputs,
                          std::string &err) {
  func::FuncOp main = getMainFunc(module);
  if (!main) {
    err = "the module has no func.func @main";
    return false;
  }
  drain();
  // Another run of the same module (a solver's loop, `plumb run --repeat`)
  // keeps the node records: recording a node then reuses their vectors
  // instead of allocating them again.
  std::vector<NodeRecord> kept = std::move(t.nodes);
  t = Trace();
  next = 0;
  hashedThrough = -1;
  if (pool) {
    busyBase = pool->busySeconds();
    pool->arm();
  }
  firstError.clear();
  hashSec = writeSec = 0;
  // The graph hash and node ids print the whole IR: once per module (the
  // same op, with the same first and last node and node count).
  std::vector<Operation *> graph = graphNodes(main);
  Operation *first = graph.empty() ? nullptr : graph.front();
  Operation *last = graph.empty() ? nullptr : graph.back();
  bool sameModule = header.module == module.getOperation() &&
                    header.nodes.size() == graph.size() &&
                    header.first == first && header.last == last;
  if (!sameModule) {
    header.module = module.getOperation();
    header.first = first;
    header.last = last;
    auto contract = module->getAttrOfType<StringAttr>("plumb.contract");
    header.contract = contract ? contract.str() : PLUMB_CONTRACT_VERSION;
    header.graphHash = computeGraphHash(module);
    header.nodes.clear();
    for (const NodeInfo &n : computeNodeTable(main)) {
      NodeRecord r;
      r.index = n.index;
      r.id = n.id;
      r.op = n.opName;
      header.nodes.push_back(std::move(r));
    }
  }
  t.contract = header.contract;
  t.graphHash = header.graphHash;
  if (sameModule && kept.size() == header.nodes.size())
    t.nodes = std::move(kept); // every record is overwritten by its node
  else
    t.nodes = header.nodes;
  t.hasTensors = keep;
  nodePending.reset(new std::atomic<int>[t.nodes.size() + 1]);
  for (size_t i = 0; i <= t.nodes.size(); ++i)
    nodePending[i].store(0, std::memory_order_relaxed);
  for (unsigned i = 0; i < inputs.size(); ++i) {
    InputRecord in;
    auto name = main.getArgAttrOfType<StringAttr>(i, "plumb.name");
    in.name = name ? name.str() : "#" + std::to_string(i);
    in.type = inputs[i].type;
    in.shape = inputs[i].shape;
    in.hash = trace::tensorHash(inputs[i]);
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
  // Sized in place: a record kept from the last run has its vectors.
  n.results.assign(numResults, Digest{});
  n.resultTypes.assign(numResults, 0);
  n.resultShapes.resize(numResults);
  n.resultChunks.resize(numResults);
  for (int32_t r = 0; r < numResults; ++r) {
    const plumb_tensor_view &v = results[r];
    if (!validDtype(v.dtype)) {
      if (firstError.empty())
        firstError = "node " + std::to_string(index) + " result " +
                     std::to_string(r) + " has unknown dtype code " +
                     std::to_string(v.dtype);
      // Nothing of a kept record's last run stays beside this one's.
      for (int32_t q = r; q < numResults; ++q)
        n.resultShapes[q].clear(), n.resultChunks[q].clear();
      return;
    }
    int64_t count = numElementsOf(v.rank, v.shape);
    size_t bytes = (size_t)count * elemBytesOf(v.dtype);
    n.resultTypes[r] = v.dtype;
    n.resultShapes[r].assign(v.shape, v.shape + v.rank);
    if (pool && lent && bytes <= kChunkBytes && v.rank <= kSmallMaxRank) {
      // Lent results of one chunk: a lock-free hand-off (a few stores).
      Pool::Small item;
      item.dtype = v.dtype;
      item.rank = v.rank;
      std::copy(v.shape, v.shape + v.rank, item.shape);
      item.data = v.data;
      item.numElements = count;
      item.slot = &n.results[r];
      item.chunksSlot = &n.resultChunks[r];
      item.nodePending = &nodePending[index];
      if (pool->pushSmall(item))
        continue;
    }
    if (!pool || bytes <= kInlineBytes) {
      // Small results are hashed right here: cheaper than a locked hand-off.
      n.resultChunks[r] = chunkDigests(v.dtype, count, v.data);
      n.results[r] = tensorHashFromRoot(v.dtype, v.rank, v.shape,
                                        chunkRoot(n.resultChunks[r]));
      continue;
    }
    auto job = std::make_shared<Pool::Job>();
    job->slot = &n.results[r];
    job->chunksSlot = &n.resultChunks[r];
    job->dtype = v.dtype;
    job->shape.assign(v.shape, v.shape + v.rank);
    job->data = v.data;
    job->bytes = bytes;
    job->numElements = count;
    job->chunks = numChunks(v.dtype, count);
    job->leaves.resize(job->chunks);
    job->nodePending = &nodePending[index];
    nodePending[index].fetch_add(1, std::memory_order_relaxed);
    if (!lent) {
      job->owned = pool->takeBuffer(bytes);
      std::memcpy(job->owned.data.get(), v.data, bytes);
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
  return writeChunkFile(dir, t, err) && writeTrace(dir, t, err);
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
