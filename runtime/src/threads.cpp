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
    stop = false;
    uint64_t gen;
    {
      std::lock_guard<std::mutex> lock(mutex);
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
      pending = pieces - 1;
      ++generation;
    }
    cv.notify_all();
    tlsInsideJob = true;
    runPiece(0);
    tlsInsideJob = false;
    std::unique_lock<std::mutex> lock(mutex);
    doneCv.wait(lock, [this] { return pending == 0; });
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

  void workerLoop(int index, uint64_t seen) {
    tlsThreadIndex = index;
    tlsInsideJob = true;
    for (;;) {
      int pieces;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return stop || generation != seen; });
        if (stop)
          return;
        seen = generation;
        // Read under the lock: a worker that sits out this job must not see
        // the piece count of the next one (it would run a piece of it twice
        // and the job's pending count would never reach zero).
        pieces = jobPieces;
      }
      if (index < pieces) {
        runPiece(index);
        std::lock_guard<std::mutex> lock(mutex);
        if (--pending == 0)
          doneCv.notify_one();
      }
    }
  }

  void stopWorkers() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
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
  int pending = 0;
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
