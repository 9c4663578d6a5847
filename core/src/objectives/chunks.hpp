// Scoring a checkpoint on several threads with results that do not depend on the thread count.
//
// The examples are cut into chunks of a fixed size (kScoreChunk, whatever the thread count); each
// chunk's sums are kept on their own and the caller adds them in chunk order afterwards. Floating
// point addition is not associative, so this fixed order is what makes a primal scored on 1, 2
// or 3 threads the same bit for bit; which thread computed a chunk does not enter the numbers.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace dualgap {

/// Examples per chunk. Large enough that a chunk's work (hundreds of oracle calls) hides the
/// shared counter it is taken from; small enough that two threads end within a chunk of each
/// other on the scaling table's 20 000 rows (40 chunks).
inline constexpr std::size_t kScoreChunk = 512;

/// Number of chunks of `n` examples.
inline std::size_t score_chunks(std::size_t n) { return (n + kScoreChunk - 1) / kScoreChunk; }

/// Calls work(t, c) for every chunk c < chunks, on `threads` threads (t = 0 the caller, no thread
/// started when threads <= 1 or there is one chunk); threads take the next chunk from a shared
/// counter, so a slow chunk does not hold up the others. The first exception thrown by a call
/// stops the remaining chunks and is rethrown here after every thread has joined.
template <class Work>
void for_each_chunk(std::size_t chunks, int threads, Work&& work) {
  const int T = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), chunks));
  if (T <= 1) {
    for (std::size_t c = 0; c < chunks; ++c) work(0, c);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(T));
  auto run = [&](int t) {
    try {
      for (std::size_t c; !failed.load(std::memory_order_relaxed) && (c = next.fetch_add(1)) < chunks;) work(t, c);
    } catch (...) {
      errors[static_cast<std::size_t>(t)] = std::current_exception();
      failed.store(true, std::memory_order_relaxed);
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(T - 1));
  // A thread the system refuses leaves its chunks to the others (they take chunks until none is left).
  try {
    for (int t = 1; t < T; ++t) pool.emplace_back(run, t);
  } catch (const std::system_error&) {
  }
  run(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace dualgap
