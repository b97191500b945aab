#include "algorithms/thread_pool.hpp"

#include <chrono>

namespace abdyn::internal {

namespace {

// How long a thread spins on a condition before it sleeps: a few batched calls' worth, short against the
// cost of keeping a core busy for nothing.
constexpr std::chrono::microseconds kSpin{200};

void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until done() or kSpin has passed, yielding the core after the first few tries so that spinning
// threads do not starve working ones when there are more threads than cores. Returns done().
template <class Done>
bool spinUntil(const Done& done) {
  const auto start = std::chrono::steady_clock::now();
  for (int tries = 0;; ++tries) {
    if (done()) return true;
    if (tries < 64) {
      relax();
    } else {
      std::this_thread::yield();
      if (std::chrono::steady_clock::now() - start > kSpin) return done();
    }
  }
}

}  // namespace

ThreadPool::ThreadPool(int workers) {
  threads_.reserve(static_cast<std::size_t>(workers));
  for (int w = 0; w < workers; ++w) threads_.emplace_back([this, w] { work(w); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_relaxed);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    state_.store((generationOf(state_.load(std::memory_order_relaxed)) + 1) * kGeneration, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::runErased(int count, Function function, const void* task) {
  if (threads_.empty() || count <= 1) {  // nothing for the workers: they sleep on
    for (int b = 0; b < count; ++b) function(task, b);
    return;
  }
  count_ = count;
  function_ = function;
  task_ = task;
  {
    // Under the mutex, so that a worker between its check and its wait cannot miss the new generation.
    const std::lock_guard<std::mutex> lock(mutex_);
    state_.store((generationOf(state_.load(std::memory_order_relaxed)) + 1) * kGeneration, std::memory_order_release);
  }
  wake_.notify_all();
  function(task, 0);
  // Close the run: workers that have not entered it yet skip it; wait for those inside. Afterwards none
  // reads count_, function_ or task_ until the next run publishes them.
  state_.fetch_or(kClosed, std::memory_order_acq_rel);
  const auto done = [this] { return (state_.load(std::memory_order_acquire) & kInsideMask) == 0; };
  if (!spinUntil(done)) {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, done);
  }
}

void ThreadPool::work(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    const auto fresh = [this, &seen] { return generationOf(state_.load(std::memory_order_acquire)) != seen; };
    if (!spinUntil(fresh)) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, fresh);
    }
    std::uint64_t state = state_.load(std::memory_order_acquire);
    seen = generationOf(state);
    if (stop_.load(std::memory_order_relaxed)) return;
    // Enter the run unless it is closed (or already followed by another).
    bool entered = false;
    while (!entered && generationOf(state) == seen && !(state & kClosed)) {
      entered = state_.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel, std::memory_order_acquire);
    }
    if (!entered) continue;
    if (index + 1 < count_) function_(task_, index + 1);
    if ((state_.fetch_sub(1, std::memory_order_acq_rel) & kInsideMask) == 1) {
      // Under the mutex, so that the caller between its check and its wait cannot miss the notification.
      const std::lock_guard<std::mutex> lock(mutex_);
      finished_.notify_one();
    }
  }
}

}  // namespace abdyn::internal
