//===- runtime/src/threads.cpp - Persistent thread pool ---------*- C++ -*-===//
//
// Part of Plumb. A minimal fork-join pool: N-1 persistent workers plus the
// calling thread. One job runs at a time; the range is cut into at most N
// contiguous pieces (a static partition) and piece i runs on thread i.
// Results never depend on this partition (see threads.h).
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/threads.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace plumb {
namespace rt {
namespace {

thread_local int tlsThreadIndex = 0;
thread_local bool tlsInsideJob = false;

class Pool {
public:
  ~Pool() { resize(1); }

  void resize(int n) {
    if (n < 1)
      n = 1;
    if (n > 1024)
      n = 1024;
    std::lock_guard<std::mutex> jobLock(jobMutex);
    if (static_cast<int>(workers.size()) + 1 == n)
      return;
    stopWorkers();
    numThreads = n;
    uint64_t gen;
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = false;
      stopFlag.store(false, std::memory_order_release);
      gen = generation;
    }
    for (int i = 1; i < n; ++i)
      workers.emplace_back([this, i, gen] { workerLoop(i, gen); });
  }

  int size() const { return numThreads; }

  void run(int64_t begin, int64_t end, int64_t grain,
           const std::function<void(int64_t, int64_t)> &fn) {
    if (end <= begin)
      return;
    if (grain < 1)
      grain = 1;
    int64_t n = end - begin;
    int64_t maxPieces = (n + grain - 1) / grain;
    // Serial: one thread, one piece, nested call, or pool busy.
    if (numThreads <= 1 || maxPieces <= 1 || tlsInsideJob) {
      runInline(begin, end, fn);
      return;
    }
    std::unique_lock<std::mutex> jobLock(jobMutex, std::try_to_lock);
    if (!jobLock.owns_lock()) {
      runInline(begin, end, fn);
      return;
    }
    int pieces = static_cast<int>(
        maxPieces < numThreads ? maxPieces : static_cast<int64_t>(numThreads));
    {
      std::lock_guard<std::mutex> lock(mutex);
      job = &fn;
      jobBegin = begin;
      jobEnd = end;
      jobPieces = pieces;
      pending.store(pieces - 1, std::memory_order_relaxed);
      ++generation;
      // Generation and piece count in one word: a spinning worker reads
      // both at once (the job's fields are written before, released here).
      ticket.store((generation << 16) | static_cast<uint64_t>(pieces),
                   std::memory_order_release);
    }
    cv.notify_all();
    tlsInsideJob = true;
    runPiece(0);
    tlsInsideJob = false;
    // Spin briefly for the other pieces (they are usually about as long as
    // ours), then sleep.
    if (!spinUntil([this] { return pending.load(std::memory_order_acquire) == 0; })) {
      std::unique_lock<std::mutex> lock(mutex);
      doneCv.wait(lock, [this] { return pending.load(std::memory_order_acquire) == 0; });
    }
    job = nullptr;
  }

private:
  static void runInline(int64_t begin, int64_t end,
                        const std::function<void(int64_t, int64_t)> &fn) {
    bool wasInside = tlsInsideJob;
    tlsInsideJob = true;
    fn(begin, end);
    tlsInsideJob = wasInside;
  }

  void runPiece(int i) {
    int64_t n = jobEnd - jobBegin;
    int64_t lo = jobBegin + n * i / jobPieces;
    int64_t hi = jobBegin + n * (i + 1) / jobPieces;
    if (hi > lo)
      (*job)(lo, hi);
  }

  /// Spins (with a pause) until done() or about kSpinNs have passed; true
  /// when done() held. Waking a sleeping thread costs tens of microseconds
  /// (more in a VM), about what a small kernel takes: models run hundreds
  /// of parallel regions with short serial gaps between them.
  template <typename Done> static bool spinUntil(Done done) {
    constexpr int64_t kSpinNs = 300000;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0;; ++i) {
      if (done())
        return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if ((i & 63) == 63 &&
          std::chrono::duration_cast<std::chrono::nanoseconds>(
              std::chrono::steady_clock::now() - t0)
                  .count() > kSpinNs)
        return done();
    }
  }

  void workerLoop(int index, uint64_t seen) {
    tlsThreadIndex = index;
    tlsInsideJob = true;
    for (;;) {
      int pieces;
      // The ticket holds the generation and the piece count together: a
      // worker that sits out this job must not pair its generation with
      // the piece count of the next one (it would run a piece of it twice
      // and the job's pending count would never reach zero).
      uint64_t t = ticket.load(std::memory_order_acquire);
      if ((t >> 16) == seen && !stopFlag.load(std::memory_order_acquire)) {
        spinUntil([&] {
          t = ticket.load(std::memory_order_acquire);
          return (t >> 16) != seen || stopFlag.load(std::memory_order_acquire);
        });
      }
      if ((t >> 16) == seen && !stopFlag.load(std::memory_order_acquire)) {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] {
          t = ticket.load(std::memory_order_acquire);
          return stop || (t >> 16) != seen;
        });
      }
      if (stopFlag.load(std::memory_order_acquire))
        return;
      seen = t >> 16;
      pieces = static_cast<int>(t & 0xFFFF);
      if (index < pieces) {
        runPiece(index);
        if (pending.fetch_sub(1, std::memory_order_acq_rel) == 1) {
          std::lock_guard<std::mutex> lock(mutex);
          doneCv.notify_one();
        }
      }
    }
  }

  void stopWorkers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
      stopFlag.store(true, std::memory_order_release);
    }
    cv.notify_all();
    for (auto &t : workers)
      t.join();
    workers.clear();
    numThreads = 1;
  }

  std::mutex jobMutex; // Held by the thread that owns the pool for a job.
  std::mutex mutex;    // Protects the fields below.
  std::condition_variable cv, doneCv;
  std::vector<std::thread> workers;
  int numThreads = 1;
  bool stop = false;
  uint64_t generation = 0;
  const std::function<void(int64_t, int64_t)> *job = nullptr;
  int64_t jobBegin = 0, jobEnd = 0;
  int jobPieces = 0;
  std::atomic<int> pending{0};
  std::atomic<uint64_t> ticket{0}; // (generation << 16) | pieces
  std::atomic<bool> stopFlag{false};
};

Pool &pool() {
  static Pool p;
  return p;
}

} // namespace

void parallelFor(int64_t begin, int64_t end, int64_t grain,
                 const std::function<void(int64_t, int64_t)> &fn) {
  pool().run(begin, end, grain, fn);
}

int currentThreadIndex() { return tlsInsideJob ? tlsThreadIndex : 0; }

} // namespace rt
} // namespace plumb

extern "C" void plumb_rt_set_threads(int n) { plumb::rt::pool().resize(n); }

extern "C" int plumb_rt_get_threads(void) { return plumb::rt::pool().size(); }
