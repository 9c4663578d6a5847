// Exact block steps on several threads (options threads > 1 with block_step exact, which auto
// takes on multi-class data): PASSCoDe, the asynchronous parallel dual coordinate ascent of
// Hsieh, Yu, Dhillon, "PASSCoDe: Parallel ASynchronous Stochastic dual Co-ordinate Descent",
// ICML 2015, on the Crammer-Singer dual that exact_steps.hpp solves one block at a time:
//
//   min_w  lambda/2 ||w||^2 + (1/n) sum_i max_k [o_i(k) + <w_k - w_{y_i}, x_i>],
//   w = (1/(lambda n)) sum_i x_i (x) (e_{y_i} - mbar_i),  mbar_i on the simplex of the K classes.
//
// Their algorithm (a coordinate there is a block i here, its one-variable step the block's
// exact step of simplex_blocks.hpp), as this file runs one pass of ExactSteps::run():
//
//   the pass's block order (BlockOrder, without the blocks Shrinking skips) is cut into chunks;
//   each of the N threads, until no chunk is left:                              run()
//     takes the next chunk (thread t's first: the t-th; then a shared counter)
//     for each block i of the chunk:                                            visit()
//       S_k = <w_k, x_i>, read from the shared w by relaxed atomic loads        shared_scores
//         (copies: from the thread's own copy of w, plain loads)
//       exact oracle call on S (the thread's own oracle object and counters)
//       m* = Proj_simplex(mbar_i + (lambda n / ||x_i||^2)(S + o_i)); mbar_i <- m*  shared_step
//       w_k += (1/(lambda n)) (mbar_ik - m*_k) x_i for the touched classes k, each entry
//         copies: by a plain add to the thread's copy; (i, k, mbar_ik - m*_k) goes to its log
//                 (option async_updates, the default)
//         wild:   by a load and a store (PASSCoDe-Wild)
//         atomic: by one atomic add (PASSCoDe-Atomic, std::atomic_ref::fetch_add)
//       copies: every kDrain visits, the changes the other threads logged      drain()
//         since the last drain are added to the thread's copy
//     copies: at the end, each thread applies the others' logs until all are done  finish()
//   the threads join; then (ExactSteps) shrinking's pass-level state, the stopping rule and any
//   checkpoint, on the joined state
//
// Why the recorded dual stays certified either way: the checkpoint's dual
// F = -lambda/2 ||w||^2 + phi_circ is the dual of the alpha held only at w = w(alpha). With
// atomic adds every applied change reaches w once, so after the join w = w(alpha) up to the
// rounding of the additions. Wild changes are two plain moves instead of a lock cmpxchg loop
// (several times cheaper; a step makes 2-3 classes x the row's nonzeros of them), but a change
// another thread makes to the same entry between the load and the store is lost, and w drifts
// from w(alpha); the paper shows the iterates still converge, to a nearby point. So ExactSteps
// rebuilds w from alpha (rebuild_w below: SimplexBlocks::add_w_of_blocks on all threads, one
// read of the rows) before every checkpoint and before the stopping rule accepts a pass without
// moves: what is scored and certified is
// w(alpha), as with one thread. Reads need no lock either way: a step may read w while another
// thread changes it (their "inconsistent read"; the paper's analysis bounds the delay), each
// value being one that w held. Only the steps' iterates change with the scheduling.
//
// Copies (async_updates: copies, the default), not in the paper: where the threads share w, a step's changes
// are written to lines of w that the other core reads next (at random features; on sector's
// frequent words nearly every step), and the reading core waits for each such line to come back
// from the writing core. With copies no line of w is written by one core and read by another:
// each thread steps on its own copy (thread 0's is the storage's w) and appends each move to a
// log (block, class, change of mbar_ik: 16 bytes a class) that the other threads read in order
// and apply to their copies every kDrain visits (the reads another thread's steps wait on are
// then the logs' lines, read in sequence, and the changed block's row). A step thus sees the
// other threads' moves up to kDrain of its own visits late (the delay of the paper's analysis),
// and every move reaches every copy exactly once: after the join each copy is w(alpha) up to the
// order of the additions, w needs no rebuild, and the cost is a second application of every move
// and (threads - 1) x d x K doubles. A log is a ring: a thread that finds it full applies the
// others' logs while it waits for them to read its own (so two full rings cannot wait on each
// other).
//
// What a thread owns: the chunk's blocks, so a block's own state (mbar_i, its class order and
// active count, cbar_i, its shrinking flag, its gap for gap sampling) is touched by one thread
// per pass and needs no synchronization (the pool's join orders passes). Orders that may hold a
// block twice in one pass (sample: uniform, gap) take a per-block spin lock around a visit.
// phi_circ and the pass-level flags are summed per thread and merged after the join.
//
// Counting stays exact: thread 0 calls the run's oracle, thread t > 0 its own object
// (SolverContext::make_oracle) counted in its own OracleCounters, added to the run's after each
// join (as minibatch.hpp): exact calls + approximate calls (class shrinking's steps on active
// classes) = blocks visited.
//
// Budget: ExactSteps hands the threads a pass that may reach the recorder's budget in segments
// and asks the budget between them (the recorder is not thread-safe); see exact_steps.hpp.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "block_order.hpp"
#include "dual_state.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/solver.hpp"
#include "options.hpp"
#include "shrinking.hpp"
#include "worker_pool.hpp"

namespace dualgap_bcfw {

/// Blocks: a SimplexBlocks<C> (simplex_blocks.hpp).
template <class Blocks>
class AsyncExactSteps {
 public:
  /// What the threads did in one run(): blocks visited, whether any moved, the largest
  /// violation before a step (shrinking's eps rule).
  struct Outcome {
    std::size_t visited = 0;
    bool moved = false;
    double violation = 0;
  };

  /// threads > 1; access: how the steps reach w (Access::atomic, wild or copies); repeats: the
  /// pass orders may hold a block more than once (sample: uniform, gap); ring: copies, the
  /// entries of a thread's log at least (tests make it small so that logs fill).
  AsyncExactSteps(int threads, Access access, dualgap::StructuredOracle& oracle, const Examples& ex, Blocks& st, Shrinking& shrink,
                  BlockOrder& order, bool repeats, dualgap::SolverContext& ctx, std::size_t ring = kRing)
      : ex_(ex), st_(st), shrink_(shrink), order_(order), access_(access), lanes_(static_cast<std::size_t>(threads)) {
    if (access == Access::serial) throw std::logic_error("bcfw: asynchronous exact steps need an access of threads");
    lanes_[0].oracle = &oracle;
    for (std::size_t t = 1; t < lanes_.size(); ++t) {
      auto o = thread_oracle(ctx);
      owned_.push_back(o);
      lanes_[t].oracle = o.get();
      o->attach_counters(&lanes_[t].counters);
    }
    for (auto& lane : lanes_) lane.scratch = st.scratch();
    if (access == Access::copies) {
      if (ex.num_examples() > std::numeric_limits<std::uint32_t>::max())
        throw std::runtime_error("bcfw: async_updates: copies logs block indices in 32 bits: at most 4294967295 examples");
      // A step logs at most K entries; a ring of 4 K at least never waits on one step.
      std::size_t cap = 1;
      while (cap < std::max(ring, 4 * static_cast<std::size_t>(ex.num_classes))) cap *= 2;
      for (std::size_t t = 0; t < lanes_.size(); ++t) {
        Lane& lane = lanes_[t];
        if (t > 0) lane.copy = st.w;
        lane.ring.resize(cap);
        lane.read = std::make_unique<Position[]>(lanes_.size());
        lane.read_local.assign(lanes_.size(), 0);
      }
    }
    if (repeats) locks_ = std::make_unique<std::atomic<std::uint8_t>[]>(ex.num_examples());
    pool_ = std::make_unique<WorkerPool>(threads);
  }
  ~AsyncExactSteps() {
    pool_.reset();  // the threads stop before anything they read goes
    for (std::size_t t = 1; t < lanes_.size(); ++t) lanes_[t].oracle->attach_counters(nullptr);
  }
  AsyncExactSteps(const AsyncExactSteps&) = delete;
  AsyncExactSteps& operator=(const AsyncExactSteps&) = delete;

  int threads() const { return static_cast<int>(lanes_.size()); }
  /// Whether the steps change w wild (changes may be lost: w must be rebuilt before it is read
  /// as w(alpha)).
  bool wild() const { return access_ == Access::wild; }
  /// copies: thread t's copy of w (t > 0; thread 0's is the storage's w), for tests.
  const dualgap::Vector& copy(int t) const { return lanes_[static_cast<std::size_t>(t)].copy; }
  /// copies: how often a thread found its log full and waited for the others to read it.
  std::size_t log_waits() const { return log_waits_.load(std::memory_order_relaxed); }
  /// copies: every thread's copy of w set to w (the storage's, thread 0's), on all threads. After
  /// a checkpoint, so that each copy holds the w that was scored, not only w up to the order of
  /// its additions. No-op for the other updates.
  void copies_from_w() {
    if (access_ != Access::copies) return;
    auto copy = [this](int t) {
      if (t > 0) lanes_[static_cast<std::size_t>(t)].copy = st_.w;
    };
    pool_->run(copy);
  }
  /// Share of the blocks visited so far that threads other than the caller's stepped (0 when the
  /// others never got a chunk: a pass too short for them to wake up, or a loaded machine).
  double others_share() const {
    return visited_ == 0 ? 0.0 : static_cast<double>(visited_by_others_) / static_cast<double>(visited_);
  }

  /// w = w(alpha) rebuilt from the blocks on all threads: thread t adds the blocks of its share of
  /// [0, n) (SimplexBlocks::add_w_of_blocks) into w (t = 0) or into its own d x K buffer
  /// (allocated at the first call, kept: (threads - 1) x d x K doubles), then the threads add
  /// the buffers into w, each over its slice of the entries.
  void rebuild_w() {
    const std::size_t nthreads = lanes_.size(), n = ex_.num_examples(), size = static_cast<std::size_t>(st_.w.size());
    if (partial_.size() != nthreads - 1) partial_.assign(nthreads - 1, dualgap::Vector::Zero(st_.w.size()));
    auto slice = [](std::size_t total, std::size_t t, std::size_t parts) { return total * t / parts; };
    auto add_blocks = [&](int ti) {
      const auto t = static_cast<std::size_t>(ti);
      double* target = t == 0 ? st_.w.data() : partial_[t - 1].data();
      std::fill(target, target + size, 0.0);
      st_.add_w_of_blocks(slice(n, t, nthreads), slice(n, t + 1, nthreads), target);
    };
    pool_->run(add_blocks);
    auto merge = [&](int ti) {
      const auto t = static_cast<std::size_t>(ti);
      double* w = st_.w.data();
      const std::size_t j0 = slice(size, t, nthreads), j1 = slice(size, t + 1, nthreads);
      for (const auto& p : partial_)
        for (std::size_t j = j0; j < j1; ++j) w[j] += p.data()[j];
    };
    pool_->run(merge);
  }

  /// Steps the blocks at positions [begin, end) of `order` on all threads and joins. skipping:
  /// the pass skips shrunk blocks (then a block with dropped classes steps on its active classes,
  /// as in the serial pass). Merges the threads' oracle counters into the run's and their
  /// changes of phi_circ into the state; rethrows the first exception a thread caught.
  Outcome run(const std::vector<BlockIndex>& order, std::size_t begin, std::size_t end, bool skipping) {
    const std::size_t nthreads = lanes_.size();
    // Chunks, not one contiguous share per thread: a thread whose blocks are cheaper (shrunk,
    // fewer nonzeros) or that the scheduler holds back leaves its rest to the others. About 8
    // chunks per thread, at most kChunk blocks (a fetch_add per chunk is then nothing), at least
    // one. Thread t's first chunk is reserved for it (the t-th of the segment): every thread
    // steps blocks in every pass, even when the caller's thread could end a short pass before
    // the others wake up (the pass then waits for their first chunk, as a barrier would), so
    // the steps are asynchronous in every pass, also in the tests' small problems.
    chunk_ = std::clamp<std::size_t>((end - begin) / (8 * nthreads), 1, kChunk);
    begin_ = begin;
    end_ = end;
    skipping_ = skipping;
    order_view_ = &order;
    next_.store(std::min(end, begin + nthreads * chunk_), std::memory_order_relaxed);
    abort_.store(false, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    for (std::size_t t = 0; t < nthreads; ++t) lanes_[t].scratch.w = t == 0 ? st_.w.data() : lanes_[t].copy.data();
    auto section = [this](int t) {
      Lane& lane = lanes_[static_cast<std::size_t>(t)];
      switch (access_) {
        case Access::atomic: work<Access::atomic>(lane, static_cast<std::size_t>(t)); break;
        case Access::copies: work<Access::copies>(lane, static_cast<std::size_t>(t)); break;
        default: work<Access::wild>(lane, static_cast<std::size_t>(t)); break;
      }
    };
    pool_->run(section);

    Outcome out;
    dualgap::OracleCounters* c = lanes_[0].oracle->counters();
    std::exception_ptr failed;
    for (std::size_t t = 0; t < nthreads; ++t) {
      Lane& lane = lanes_[t];
      out.visited += lane.visited;
      if (t > 0) visited_by_others_ += lane.visited;
      out.moved |= lane.moved;
      out.violation = std::max(out.violation, lane.violation);
      st_.phi_circ += lane.scratch.circ;
      lane.visited = 0, lane.moved = false, lane.violation = 0, lane.scratch.circ = 0;
      if (t > 0) {
        if (c) c->add(lane.counters);
        lane.counters = dualgap::OracleCounters{};
      }
      if (lane.failed && !failed) failed = lane.failed;
      lane.failed = nullptr;
    }
    visited_ += out.visited;
    if (failed) std::rethrow_exception(failed);
    return out;
  }

 private:
  /// Largest chunk of the order a thread takes at once.
  static constexpr std::size_t kChunk = 256;
  /// copies: a thread applies the other threads' logs after every kDrain of its visits (and at
  /// the end of each chunk): the most its steps lag behind theirs.
  static constexpr std::size_t kDrain = 32;
  /// copies: entries of a thread's log ring at least (16 bytes each; 4 K at least, see the
  /// constructor). A thread logs about 2-3 entries per moving step and the others read them
  /// every kDrain visits, so the ring is rarely more than a few hundred entries full.
  static constexpr std::size_t kRing = std::size_t{1} << 14;

  /// copies: one logged move, block i's entry in class k changed by dm (mbar_ik before - after).
  struct Change {
    std::uint32_t block;
    std::int32_t k;
    double dm;
  };
  /// A counter written by one thread and read by others, on a cache line of its own.
  struct alignas(64) Position {
    std::atomic<std::size_t> v{0};
  };

  /// One thread's oracle, buffers and tallies (a cache line apart from the next thread's).
  struct alignas(64) Lane {
    dualgap::StructuredOracle* oracle = nullptr;
    dualgap::OracleCounters counters;  ///< threads t > 0: their oracle's (merged after each join)
    dualgap::Labeling lab;
    std::vector<double> scores;
    typename Blocks::Scratch scratch;
    std::size_t visited = 0;
    bool moved = false;
    double violation = 0;
    std::exception_ptr failed;
    // copies only:
    dualgap::Vector copy;                  ///< threads t > 0: the thread's own w (thread 0: st_.w)
    std::vector<Change> ring;              ///< the thread's log, entry p at p mod its size
    std::size_t head_local = 0;            ///< entries logged so far (the thread's own count)
    std::size_t limit = 0;                 ///< logging up to here cannot overwrite an unread entry
    std::vector<std::size_t> read_local;   ///< entries of thread t's log applied to the copy
    std::unique_ptr<Position[]> read;      ///< the same, published for thread t (its free space)
    Position head;                         ///< head_local, published for the readers
  };

  /// Thread t's part of run(): its reserved chunk, then chunks until none is left (or another
  /// thread failed); with copies, every kDrain visits and after each chunk the other threads'
  /// logs, and at the end finish().
  template <Access A>
  void work(Lane& lane, std::size_t t) {
    try {
      const std::vector<BlockIndex>& order = *order_view_;
      std::size_t since_drain = 0;
      for (std::size_t c0 = begin_ + t * chunk_; c0 < end_ && !abort_.load(std::memory_order_relaxed);
           c0 = next_.fetch_add(chunk_, std::memory_order_relaxed)) {
        const std::size_t c1 = std::min(end_, c0 + chunk_);
        for (std::size_t p = c0; p < c1; ++p) {
          visit<A>(lane, t, order[p], p + 1 < c1 ? &order[p + 1] : nullptr);
          if constexpr (A == Access::copies)
            if (++since_drain == kDrain) drain(lane, t), since_drain = 0;
        }
        if constexpr (A == Access::copies) drain(lane, t), since_drain = 0;
      }
    } catch (...) {
      lane.failed = std::current_exception();
      abort_.store(true, std::memory_order_relaxed);
    }
    if constexpr (A == Access::copies) finish(lane, t);
  }

  /// Block i, held by this thread (locked where a pass may hold it twice): skipped if shrunk,
  /// else its step, as the serial pass (exact_steps.hpp) takes it; with copies a move is logged.
  template <Access A>
  void visit(Lane& lane, std::size_t t, std::size_t i, const BlockIndex* next) {
    BlockLock hold(locks_.get(), i);
    if (shrink_.skip(i)) return;
    ++lane.visited;
    if (next) st_.prefetch(*next);
    const bool moved = skipping_ && st_.classes_dropped(i) ? step_on_active_classes<A>(lane, i) : step<A>(lane, i);
    if constexpr (A == Access::copies)
      if (moved) log(lane, t, i);
    lane.moved |= moved;
    lane.violation = std::max(lane.violation, lane.scratch.violation);
    shrink_.mark(i, moved);
    order_.exact_gap(i, lane.scratch.gap);
  }

  /// ExactSteps::step on the thread's w (shared, or its copy): the scores of all K classes read
  /// from it, the exact oracle call on them (counted and timed as max_oracle, on this thread's
  /// oracle), the step.
  template <Access A>
  bool step(Lane& lane, std::size_t i) {
    st_.template shared_scores<A>(lane.scratch, i, lane.scores);
    lane.oracle->max_oracle_scored(ex_, i, lane.scores.data(), nullptr, lane.lab);
    const double offset = lane.lab.loss + lane.lab.constant - st_.truth_constant(i);
    return st_.template shared_step<A>(lane.scratch, i, lane.lab.labels.data(), offset, lane.scores.data());
  }
  /// ExactSteps::step_on_active_classes on the thread's w (an approximate call, counted untimed).
  template <Access A>
  bool step_on_active_classes(Lane& lane, std::size_t i) {
    lane.oracle->count_untimed(dualgap::CallKind::approximate);
    return st_.template shared_step_active<A>(lane.scratch, i);
  }

  /// copies: appends the last step's move of block i (its touched classes) to thread t's log,
  /// after waiting, if the ring is full, for the others to read it (applying their logs
  /// meanwhile, so two full rings cannot wait on each other).
  void log(Lane& lane, std::size_t t, std::size_t i) {
    const auto& touched = lane.scratch.touched;
    const std::size_t need = touched.size(), mask = lane.ring.size() - 1;
    for (std::size_t spins = 0; lane.head_local + need > lane.limit; ++spins) {
      std::size_t oldest = lane.head_local;
      for (std::size_t u = 0; u < lanes_.size(); ++u)
        if (u != t) oldest = std::min(oldest, lanes_[u].read[t].v.load(std::memory_order_acquire));
      lane.limit = oldest + lane.ring.size();
      if (lane.head_local + need <= lane.limit) break;
      if (spins == 0) log_waits_.fetch_add(1, std::memory_order_relaxed);
      drain(lane, t), relax(spins);
    }
    for (std::size_t a = 0; a < need; ++a) {
      const int k = touched[a];
      lane.ring[(lane.head_local + a) & mask] = Change{static_cast<std::uint32_t>(i), k, lane.scratch.dm[static_cast<std::size_t>(k)]};
    }
    lane.head_local += need;
    lane.head.v.store(lane.head_local, std::memory_order_release);
  }
  /// copies: adds to thread t's copy the changes the other threads logged since its last drain.
  void drain(Lane& lane, std::size_t t) {
    for (std::size_t u = 0; u < lanes_.size(); ++u) {
      if (u == t) continue;
      const Lane& other = lanes_[u];
      const std::size_t head = other.head.v.load(std::memory_order_acquire), mask = other.ring.size() - 1;
      std::size_t p = lane.read_local[u];
      if (p == head) continue;
      for (; p < head; ++p) {
        const Change& c = other.ring[p & mask];
        st_.template add_change<Access::copies>(lane.scratch.w, c.block, c.k, c.dm);
      }
      lane.read_local[u] = head;
      lane.read[u].v.store(head, std::memory_order_release);
    }
  }
  /// copies: the end of thread t's part of a run(): applies the others' logs until every thread
  /// has ended its steps, then what they logged last. Each copy then holds every move once.
  void finish(Lane& lane, std::size_t t) {
    const std::size_t n = lanes_.size();
    done_.fetch_add(1, std::memory_order_acq_rel);
    for (std::size_t spins = 0; done_.load(std::memory_order_acquire) < n; ++spins) drain(lane, t), relax(spins);
    drain(lane, t);
  }
  /// A wait's turn: a pause, and every 1024th turn the core to the scheduler (a thread the
  /// waiter waits for may be off its core on a loaded machine).
  static void relax(std::size_t spins) {
    if (spins % 1024 == 1023) {
      std::this_thread::yield();
      return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  /// Holds block i's lock while alive (no-op without locks). A thread holds one block at a
  /// time, so two threads cannot wait on each other.
  class BlockLock {
   public:
    BlockLock(std::atomic<std::uint8_t>* locks, std::size_t i) : lock_(locks ? &locks[i] : nullptr) {
      if (!lock_) return;
      while (lock_->exchange(1, std::memory_order_acquire) != 0)
        while (lock_->load(std::memory_order_relaxed) != 0) {
#if defined(__x86_64__) || defined(__i386__)
          __builtin_ia32_pause();
#endif
        }
    }
    ~BlockLock() {
      if (lock_) lock_->store(0, std::memory_order_release);
    }
    BlockLock(const BlockLock&) = delete;
    BlockLock& operator=(const BlockLock&) = delete;

   private:
    std::atomic<std::uint8_t>* lock_;
  };

  const Examples& ex_;
  Blocks& st_;
  Shrinking& shrink_;
  BlockOrder& order_;
  const Access access_;
  std::vector<Lane> lanes_;
  std::vector<std::shared_ptr<dualgap::StructuredOracle>> owned_;  ///< the oracles of threads 1..
  std::vector<dualgap::Vector> partial_;  ///< rebuild_w: the shares of w of threads 1..
  std::unique_ptr<std::atomic<std::uint8_t>[]> locks_;           ///< per block; repeats only
  // The current run(), read by the threads (published by the pool's start of a section).
  const std::vector<BlockIndex>* order_view_ = nullptr;
  std::size_t begin_ = 0, end_ = 0, chunk_ = 1;
  bool skipping_ = false;
  std::atomic<std::size_t> next_{0};  ///< the next position a thread takes a chunk from
  std::atomic<bool> abort_{false};    ///< a thread failed: the others stop at their next chunk
  std::atomic<std::size_t> done_{0};  ///< copies: threads that ended their steps in this run()
  std::atomic<std::size_t> log_waits_{0};  ///< copies: log() calls that waited for a full ring
  std::size_t visited_ = 0, visited_by_others_ = 0;  ///< blocks visited: all, by threads 1..
  std::unique_ptr<WorkerPool> pool_;  ///< created last, destroyed first (the destructor)
};

}  // namespace dualgap_bcfw
