#pragma once
// A fixed team of worker threads for the batched calls (batch.cpp), started once and kept between calls,
// so that a call costs a wake-up instead of a thread start. A worker that has just finished a task spins
// briefly before it sleeps: calls that follow each other closely (a control loop, a benchmark) find it
// awake. run() allocates nothing.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace abdyn::internal {

class ThreadPool {
 public:
  /// Starts `workers` threads (0: none; run() then works on the calling thread alone).
  explicit ThreadPool(int workers);
  /// Stops and joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int workers() const { return static_cast<int>(threads_.size()); }

  /// task(b) for b in [0, count), count <= workers() + 1: b = 0 on the calling thread, b on worker b - 1;
  /// returns when every task has returned. The task must not throw. One run at a time per pool.
  template <class Task>
  void run(int count, const Task& task) {
    runErased(count, [](const void* t, int b) { (*static_cast<const Task*>(t))(b); }, &task);
  }

 private:
  using Function = void (*)(const void* task, int block);
  void runErased(int count, Function function, const void* task);
  void work(int index);

  std::mutex mutex_;
  std::condition_variable wake_;      // workers: a new generation
  std::condition_variable finished_;  // the caller: pending_ reached 0
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> pending_{0};  // workers that have not yet finished the current generation
  std::atomic<bool> stop_{false};
  // The current run, written by the caller before it publishes a generation (release) and read by the
  // workers after they see it (acquire).
  int count_ = 0;
  Function function_ = nullptr;
  const void* task_ = nullptr;
  std::vector<std::thread> threads_;
};

}  // namespace abdyn::internal
