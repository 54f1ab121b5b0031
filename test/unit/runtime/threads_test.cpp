//===- test/unit/runtime/threads_test.cpp - Thread pool tests --*- C++ -*-===//
//
// Part of Plumb. parallelFor covers its range exactly once, respects the
// grain, runs nested calls serially, and survives resizing.
//
//===----------------------------------------------------------------------===//
#include "plumb/runtime/threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

TEST(Threads, DefaultIsOneAndSetGet) {
  EXPECT_EQ(plumb_rt_get_threads(), 1);
  plumb_rt_set_threads(4);
  EXPECT_EQ(plumb_rt_get_threads(), 4);
  plumb_rt_set_threads(0);
  EXPECT_EQ(plumb_rt_get_threads(), 1);
  plumb_rt_set_threads(1);
}

TEST(Threads, CoversRangeExactlyOnce) {
  for (int t : {1, 2, 3, 4, 8, 16}) {
    plumb_rt_set_threads(t);
    for (int64_t n : {0, 1, 5, 7, 100, 1001}) {
      for (int64_t grain : {1, 3, 64}) {
        std::vector<std::atomic<int>> hits(static_cast<size_t>(n) + 1);
        std::atomic<int> calls{0};
        plumb::rt::parallelFor(10, 10 + n, grain, [&](int64_t lo, int64_t hi) {
          ASSERT_LE(10, lo);
          ASSERT_LE(hi, 10 + n);
          ASSERT_LT(lo, hi);
          ++calls;
          for (int64_t i = lo; i < hi; ++i)
            hits[i - 10]++;
        });
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(hits[i].load(), 1) << "t=" << t << " n=" << n;
        // No more pieces than threads or than the grain allows.
        EXPECT_LE(calls.load(), t);
        EXPECT_LE(calls.load(), (n + grain - 1) / grain);
      }
    }
  }
  plumb_rt_set_threads(1);
}

TEST(Threads, UsesSeveralThreadsAndNestedRunsSerially) {
  plumb_rt_set_threads(4);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::set<int> indices;
  std::atomic<int64_t> innerSum{0};
  plumb::rt::parallelFor(0, 4, 1, [&](int64_t lo, int64_t hi) {
    {
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
      indices.insert(plumb::rt::currentThreadIndex());
    }
    for (int64_t i = lo; i < hi; ++i) {
      std::thread::id self = std::this_thread::get_id();
      plumb::rt::parallelFor(0, 100, 1, [&](int64_t a, int64_t b) {
        EXPECT_EQ(std::this_thread::get_id(), self); // nested: inline
        for (int64_t j = a; j < b; ++j)
          innerSum += j;
      });
    }
  });
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(indices, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(innerSum.load(), 4 * 4950);
  plumb_rt_set_threads(1);
}

TEST(Threads, ManyJobsAndResizes) {
  for (int round = 0; round < 50; ++round) {
    plumb_rt_set_threads(1 + round % 5);
    std::atomic<int64_t> sum{0};
    plumb::rt::parallelFor(0, 1000, 10, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        sum += i;
    });
    ASSERT_EQ(sum.load(), 499500);
  }
  plumb_rt_set_threads(1);
}

} // namespace

// Regression: a worker sitting out a small job used to read the next job's
// piece count, run a piece twice and leave the caller waiting forever. Many
// back-to-back jobs of alternating sizes must all complete and cover their
// range exactly once.
TEST(Threads, BackToBackJobsOfDifferentSizesComplete) {
  plumb_rt_set_threads(4);
  std::vector<std::atomic<int>> hits(64);
  for (int round = 0; round < 20000; ++round) {
    int64_t n = (round % 2) ? 2 : 64;
    for (int64_t i = 0; i < n; ++i)
      hits[i].store(0);
    plumb::rt::parallelFor(0, n, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i)
        hits[i].fetch_add(1);
    });
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(hits[i].load(), 1) << "round " << round << " index " << i;
  }
  plumb_rt_set_threads(1);
}
