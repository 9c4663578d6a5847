// A small persistent pool of threads for the parallel sections of mini-batch passes
// (minibatch.hpp) and of asynchronous exact passes (async_exact_steps.hpp): run(f) calls f(t)
// for t = 0 .. size-1, f(0) on the calling thread, and returns when every call has returned.
// Threads are created once per solve, never per batch or pass.
//
// Why not OpenMP: a section of an OCR batch holds a few microseconds of work, so a waiting thread
// must answer within microseconds (it spins), but on a loaded machine a spinning thread takes the
// core from the thread it waits for. libgomp's waiting policy can only be set through the
// environment before the library loads; with its default (spin for a long while), 2 threads ran
// 10-20x slower than 1 on the loaded 2-core machine (horse, 20 training images, load 5). Here a
// waiting thread spins for at most kSpin, then blocks (std::atomic::wait, a futex): on idle cores
// the next batch arrives within the spin (a futex wake-up would cost more than an OCR batch), on
// busy ones the waiter gives its core back after kSpin.
#pragma once

#include <atomic>
#include <memory>
#include <stdexcept>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/solver.hpp"

namespace dualgap_bcfw {

class WorkerPool {
 public:
  /// size threads in all, the caller's included (size - 1 are started).
  explicit WorkerPool(int size) : size_(size < 1 ? 1 : size) {
    for (int t = 1; t < size_; ++t) threads_.emplace_back([this, t] { work(t); });
  }
  ~WorkerPool() {
    stop_.store(true, std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_release);
    epoch_.notify_all();
    for (auto& th : threads_) th.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return size_; }

  /// Calls f(t) on thread t for every t < size() and waits for all. f must not throw.
  template <class F>
  void run(F& f) {
    if (size_ == 1) {
      f(0);
      return;
    }
    fn_ = [](void* c, int t) { (*static_cast<F*>(c))(t); };
    ctx_ = &f;
    pending_.store(size_ - 1, std::memory_order_relaxed);
    epoch_.fetch_add(1, std::memory_order_release);  // publishes fn_, ctx_, pending_
    epoch_.notify_all();
    f(0);
    wait_until([this] { return pending_.load(std::memory_order_acquire) == 0; });
    int left;
    while ((left = pending_.load(std::memory_order_acquire)) != 0) pending_.wait(left, std::memory_order_acquire);
  }

 private:
  /// Longest spin of a waiting thread: several OCR batches, a few percent of a horse batch.
  static constexpr std::chrono::microseconds kSpin{50};

  /// Spins until pred() or kSpin has passed; returns pred().
  template <class Pred>
  static bool wait_until(Pred pred) {
    const auto end = std::chrono::steady_clock::now() + kSpin;
    for (int k = 0;; ++k) {
      if (pred()) return true;
      if ((k & 63) == 63 && std::chrono::steady_clock::now() > end) return pred();
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
  }

  void work(int t) {
    std::uint32_t seen = 0;
    for (;;) {
      if (!wait_until([&] { return epoch_.load(std::memory_order_acquire) != seen; })) {
        std::uint32_t e;
        while ((e = epoch_.load(std::memory_order_acquire)) == seen) epoch_.wait(e, std::memory_order_acquire);
      }
      seen = epoch_.load(std::memory_order_acquire);
      if (stop_.load(std::memory_order_relaxed)) return;
      fn_(ctx_, t);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
    }
  }

  int size_;
  std::vector<std::thread> threads_;
  void (*fn_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
  std::atomic<std::uint32_t> epoch_{0};  /// one more per run(); 32 bits: a plain futex
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

/// The oracle of a worker thread t > 0: a fresh object of the run's oracle (its buffers are its
/// own), made by the caller's factory (SolverContext::make_oracle); the threaded passes of
/// minibatch.hpp and async_exact_steps.hpp take theirs here.
inline std::shared_ptr<dualgap::StructuredOracle> thread_oracle(dualgap::SolverContext& ctx) {
  if (!ctx.make_oracle)
    throw std::runtime_error("bcfw: threads > 1 needs a fresh oracle per thread, and the caller gave no "
                             "oracle factory (SolverContext::make_oracle)");
  auto o = std::dynamic_pointer_cast<dualgap::StructuredOracle>(ctx.make_oracle());
  if (!o) throw std::runtime_error("bcfw: the oracle factory made no structured oracle");
  return o;
}

}  // namespace dualgap_bcfw
