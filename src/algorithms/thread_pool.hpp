#pragma once
// A fixed team of worker threads for the batched calls (batch.cpp, rollout_batch.cpp), started once and
// kept between calls, so that a call costs a wake-up instead of a thread start. A worker that has just
// finished a task spins briefly before it sleeps: calls that follow each other closely (a control loop, a
// benchmark) find it awake. The calling thread never waits for a worker that has not started its task:
// once the caller has finished its own task it closes the run, and a worker that arrives later (the
// system had not scheduled it yet, a common case on a loaded machine) skips the run. So tasks must share
// their work dynamically (the batched calls take chunks from a counter). run() allocates nothing.

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

  /// task(0) on the calling thread, and task(b) for b in [1, count) (count <= workers() + 1) on worker
  /// b - 1 if that worker starts before task(0) has returned; returns when every task started has
  /// returned. The task must not throw. One run at a time per pool.
  template <class Task>
  void run(int count, const Task& task) {
    runErased(count, [](const void* t, int b) { (*static_cast<const Task*>(t))(b); }, &task);
  }

 private:
  using Function = void (*)(const void* task, int block);
  void runErased(int count, Function function, const void* task);
  void work(int index);

  // The run's state in one word, so that a worker's entry and the caller's closing cannot cross: the
  // workers inside the task (low bits), whether the run is closed to late workers, and the run's
  // generation (high bits), which a new run or the destructor advances.
  static constexpr std::uint64_t kInsideMask = 0xffff, kClosed = 0x10000, kGeneration = 0x20000;
  static std::uint64_t generationOf(std::uint64_t state) { return state / kGeneration; }

  std::mutex mutex_;
  std::condition_variable wake_;      // workers: a new generation
  std::condition_variable finished_;  // the caller: the last worker inside left a closed run
  alignas(64) std::atomic<std::uint64_t> state_{0};
  std::atomic<bool> stop_{false};
  // The current run, written by the caller before it publishes a generation (release) and read by the
  // workers after they enter it (acquire).
  int count_ = 0;
  Function function_ = nullptr;
  const void* task_ = nullptr;
  std::vector<std::thread> threads_;
};

}  // namespace abdyn::internal
