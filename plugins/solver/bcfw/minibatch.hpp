// Mini-batch exact passes with the oracle calls of a batch on several threads (options batch,
// threads, batch_step): AP-BCFW of Wang, Wang, Pang, Jiang, Lacoste-Julien, "Parallel and
// distributed block-coordinate Frank-Wolfe algorithms", ICML 2016, with the exact line search
// that the quadratic SSVM dual allows.
//
// Why: an exact pass of BCFW (Algorithm 2 of Shah et al., line 5 of their Algorithm 3) is a chain
// of block steps, each needing the max-oracle at the w left by the previous one, so its oracle
// calls cannot overlap. Taking the pass's block order in consecutive mini-batches S of tau blocks
// lets the tau calls run at the same w in parallel; the blocks then step in one of two ways:
//
//   for each batch S of the order:                         (tau = option batch)
//     in parallel, i in S: yhat_i = exact max-oracle at w; Delta_i = phi^i_star - phihat^i_star,
//                          b_i = <Delta_i, w> - (offset(yhat_i) - n phi^i_circ)   (= -n gap_i)
//     batch_step common (default; Wang et al.'s synchronous mini-batch):
//       D = sum_{i in S} Delta_i;  gamma = clip(-lambda n sum_i b_i / ||D||^2, 0, 1)
//       phi^i <- (1 - gamma) phi^i + gamma phihat^i for i in S;  w += gamma/(lambda n) D
//     batch_step sequential: for i in S, in the order of S:
//       b_i' = b_i + <Delta_i, w_now - w>         the bracket at the w the earlier steps left
//       gamma_i = clip(-lambda n b_i' / ||Delta_i||^2, 0, 1)    BCFW's exact line search
//       phi^i <- (1 - gamma_i) phi^i + gamma_i phihat^i;  w_now += gamma_i/(lambda n) Delta_i
//
// Sequential steps are BCFW's steps towards corners that the oracle found up to tau - 1 steps
// earlier (the bounded delay of AP-BCFW's asynchronous updates, here in a fixed order): each is
// a Frank-Wolfe step on its block with exact line search at the current w, so the dual never
// falls, and a block whose stale corner no longer improves it does not move (gamma = 0). A
// common step moves every block of the batch by the one gamma that suits their sum. Which makes
// more progress per oracle call depends on the problem (measured in the README, "Threads and
// mini-batches": on horse common steps of 2 match BCFW per pass and stale corners cost passes;
// on OCR the reverse at batch 2). Each phi^i stays a convex combination of its planes, so F stays
// certified; with tau = 1 both are BCFW's step (the loop then keeps its own block-by-block pass,
// mp_bcfw.hpp, bit for bit). A batch ends before a block it already holds (uniform or gap
// sampling may repeat a block), so every block of a batch moves from its own current point.
//
// Threads and numbers (threads: worker_pool.hpp, created once per solve): the parallel part
// (oracle call, the block's change and its bracket) reads the state only and writes the batch
// slot it computes; the threads take the slots in turn from a shared counter (a long call does
// not hold up the slots behind it), and everything after the parallel part (the steps) is serial
// in slot order. So a run's numbers depend on batch and batch_step, never on the thread count or
// the scheduling: threads 1 and threads 2 with the same batch and seed give the same records and
// the same counts. Oracles keep buffers, so thread t > 0 calls its own oracle
// object (SolverContext::make_oracle) counted in its own OracleCounters, added to the run's
// counters after each parallel section: exact_calls stays n per pass and oracle time is the sum
// over threads, while the recorder's clock stays the solver's wall clock. Approximate passes of
// MP-BCFW and the checkpoints' evaluation stay serial on the run's oracle.
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <stdexcept>
#include <vector>

#include "block_order.hpp"
#include "dual_state.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/solver.hpp"
#include "worker_pool.hpp"

namespace dualgap_bcfw {

template <class Storage>
class MiniBatches {
 public:
  /// One block of a batch: the oracle's answer and the block's change (Storage::Direction).
  struct Slot {
    std::size_t i = 0;
    dualgap::Labeling lab;
    std::vector<double> scores;  ///< unary score table of example i at w
    double offset = 0;           ///< Delta(y_i, yhat) + c(yhat) - c(y_i)
    typename Storage::Direction change;
    double bracket = 0;  ///< b_i at the w the block stepped from (-n times its gap there)
  };

  /// batch blocks per step, computed on `threads` threads (thread 0 uses the run's oracle).
  MiniBatches(int batch, bool sequential, int threads, dualgap::StructuredOracle& oracle, const Examples& ex,
              dualgap::SolverContext& ctx)
      : batch_(batch),
        sequential_(sequential),
        threads_(std::max(1, std::min(threads, batch))),
        ex_(ex),
        slots_(static_cast<std::size_t>(std::max(batch, 1))),
        in_batch_(ex.num_examples(), 0),
        pool_(threads_) {
    oracles_.push_back(&oracle);
    for (int t = 1; t < threads_; ++t) {
      auto o = thread_oracle(ctx);
      owned_.push_back(o);
      oracles_.push_back(o.get());
    }
    counters_.resize(static_cast<std::size_t>(threads_));
    for (std::size_t t = 1; t < oracles_.size(); ++t) oracles_[t]->attach_counters(&counters_[t]);
  }
  ~MiniBatches() {
    for (std::size_t t = 1; t < oracles_.size(); ++t) oracles_[t]->attach_counters(nullptr);
  }
  MiniBatches(const MiniBatches&) = delete;
  MiniBatches& operator=(const MiniBatches&) = delete;

  bool enabled() const { return batch_ > 1; }

  /// One exact pass over `order` in mini-batches. after_block(slot, gamma) runs for each block
  /// of a batch after its step (working sets, gap sampling), after_step(*this) once per step: per
  /// block with sequential steps, per batch with a common one (the averages replay the change
  /// through add_last_change). Returns whether any block moved.
  template <class AfterBlock, class AfterStep>
  bool pass(const std::vector<BlockIndex>& order, Storage& st, AfterBlock&& after_block, AfterStep&& after_step) {
    bool moved = false;
    for (std::size_t t = 0; t < order.size();) {
      std::size_t b = 0;
      while (b < slots_.size() && t < order.size() && !in_batch_[order[t]]) {
        in_batch_[order[t]] = 1;
        slots_[b++].i = order[t++];
      }
      for (std::size_t s = 0; s < b; ++s) in_batch_[slots_[s].i] = 0;
      oracle_calls(st, b);
      if (sequential_) {
        begin_sequential(st);
        for (std::size_t s = 0; s < b; ++s) {
          const double gamma = sequential_step(st, slots_[s]);
          moved |= gamma > 0;
          after_step(*this);
          after_block(slots_[s], gamma);
        }
      } else {
        const double gamma = common_step(st, b);
        moved |= gamma > 0;
        after_step(*this);
        for (std::size_t s = 0; s < b; ++s) after_block(slots_[s], gamma);
      }
    }
    return moved;
  }

  /// target += coef * (w after the last step - w before it) (the averages, averages.hpp).
  void add_last_change(double* target, double coef) const {
    const double s = coef * scale_;
    if (s == 0.0) return;
    for (int sg : *last_segs_) {
      const auto b = static_cast<Eigen::Index>(seg_begin_[sg]), m = static_cast<Eigen::Index>(seg_size_[sg]);
      Eigen::Map<Vector>(target + b, m) += s * last_->segment(b, m);
    }
  }

 private:
  /// The parallel section: the exact oracle calls of the batch's b blocks at the same w and each
  /// block's change. Slot s is computed by one thread with that thread's oracle; no thread writes
  /// anything but its slots and its oracle's counters.
  void oracle_calls(const Storage& st, std::size_t b) {
    // Each thread takes the next slot not yet taken; an exception must not escape a worker: kept
    // per slot, rethrown after the section.
    std::vector<std::exception_ptr>& failed = failed_;
    failed.assign(b, nullptr);
    next_slot_.store(0, std::memory_order_relaxed);
    auto section = [&](int t) {
      for (std::size_t s; (s = next_slot_.fetch_add(1, std::memory_order_relaxed)) < b;) {
        Slot& sl = slots_[s];
        try {
          oracles_[static_cast<std::size_t>(t)]->max_oracle(ex_, sl.i, st.w, sl.lab, sl.scores);
          sl.offset = sl.lab.loss + sl.lab.constant - st.truth_constant(sl.i);
          st.direction(sl.i, sl.lab.labels.data(), sl.offset, sl.scores.data(), sl.change);
          sl.bracket = sl.change.bracket();
        } catch (...) {
          failed[s] = std::current_exception();
        }
      }
    };
    pool_.run(section);
    if (dualgap::OracleCounters* c = oracles_[0]->counters())
      for (std::size_t t = 1; t < counters_.size(); ++t) c->add(counters_[t]), counters_[t] = dualgap::OracleCounters{};
    for (const auto& e : failed)
      if (e) std::rethrow_exception(e);
  }

  /// Sizes D_ and the segment tables on first use.
  void init_segments(const Storage& st) {
    if (D_.size() == st.w.size()) return;
    D_ = Vector::Zero(st.w.size());
    seg_mark_.assign(static_cast<std::size_t>(st.num_segments()), 0);
    for (int sg = 0; sg < st.num_segments(); ++sg)
      seg_begin_.push_back(st.segment_begin(sg)), seg_size_.push_back(st.segment_size(sg));
  }
  Eigen::Ref<Vector> seg(Vector& v, int sg) const {
    return v.segment(static_cast<Eigen::Index>(seg_begin_[sg]), static_cast<Eigen::Index>(seg_size_[sg]));
  }
  Eigen::Ref<const Vector> seg(const Vector& v, int sg) const {
    return v.segment(static_cast<Eigen::Index>(seg_begin_[sg]), static_cast<Eigen::Index>(seg_size_[sg]));
  }
  /// D_ := 0 on the segments the last batch touched.
  void clear_D() {
    for (int sg : segs_) seg(D_, sg).setZero(), seg_mark_[sg] = 0;
    segs_.clear();
  }

  /// Sequential steps, before the first block of a batch: D_ (here w_now - w, the change of w
  /// since the batch's oracle calls) starts at zero.
  void begin_sequential(const Storage& st) {
    init_segments(st);
    clear_D();
  }
  /// The serial part of a sequential step on one block of the batch: its bracket at the current
  /// w, BCFW's exact line search, the block's move and w += gamma/(lambda n) Delta_i. Returns
  /// gamma.
  double sequential_step(Storage& st, Slot& sl) {
    const auto& c = sl.change;
    double lin = c.lin, norm2 = 0;
    for (int sg : c.segs) {
      const auto d = seg(c.delta, sg);
      if (seg_mark_[sg]) lin += d.dot(seg(D_, sg));
      norm2 += d.squaredNorm();
    }
    sl.bracket = lin - c.doff;
    const double gamma = st.batch_gamma(sl.bracket, norm2);
    scale_ = 0;
    if (gamma <= 0) return 0.0;
    st.move_block(sl.i, gamma, c);
    scale_ = gamma / (st.lambda() * static_cast<double>(st.n()));
    last_ = &c.delta, last_segs_ = &c.segs;
    add_last_change(st.w.data(), 1.0);
    for (int sg : c.segs) {
      if (!seg_mark_[sg]) seg_mark_[sg] = 1, segs_.push_back(sg);
      seg(D_, sg) += scale_ * seg(c.delta, sg);
    }
    return gamma;
  }

  /// The serial part of a common step: D = sum of the changes in slot order, the common exact
  /// line search, the blocks' moves and w += gamma/(lambda n) D. Returns gamma.
  double common_step(Storage& st, std::size_t b) {
    init_segments(st);
    clear_D();
    double bracket = 0;
    for (std::size_t s = 0; s < b; ++s) {
      const auto& c = slots_[s].change;
      bracket += c.bracket();
      for (int sg : c.segs) {
        if (!seg_mark_[sg]) seg_mark_[sg] = 1, segs_.push_back(sg);
        seg(D_, sg) += seg(c.delta, sg);
      }
    }
    double norm2 = 0;
    for (int sg : segs_) norm2 += seg(D_, sg).squaredNorm();
    const double gamma = st.batch_gamma(bracket, norm2);
    scale_ = 0;
    if (gamma <= 0) return 0.0;
    for (std::size_t s = 0; s < b; ++s) st.move_block(slots_[s].i, gamma, slots_[s].change);
    scale_ = gamma / (st.lambda() * static_cast<double>(st.n()));
    last_ = &D_, last_segs_ = &segs_;
    add_last_change(st.w.data(), 1.0);
    return gamma;
  }

  int batch_;
  bool sequential_;  ///< batch_step: sequential (else common)
  int threads_;
  const Examples& ex_;
  std::vector<Slot> slots_;
  std::vector<std::exception_ptr> failed_;
  std::vector<unsigned char> in_batch_;            ///< blocks of the batch being formed
  std::vector<dualgap::StructuredOracle*> oracles_;  ///< one per thread; [0] is the run's
  std::vector<std::shared_ptr<dualgap::StructuredOracle>> owned_;
  std::vector<dualgap::OracleCounters> counters_;  ///< of threads 1.. (merged after each section)
  std::atomic<std::size_t> next_slot_{0};          ///< the next slot a thread takes
  Vector D_;  ///< common: the last batch's summed change; sequential: w_now - w; zero outside segs_
  std::vector<int> segs_;                          ///< segments of w D_ touches
  std::vector<unsigned char> seg_mark_;            ///< of segs_
  std::vector<std::size_t> seg_begin_, seg_size_;
  const Vector* last_ = &D_;                       ///< the last step moved w by scale_ * *last_ ...
  const std::vector<int>* last_segs_ = &segs_;     ///< ... on these segments
  double scale_ = 0;
  WorkerPool pool_;   ///< last member: its threads stop before anything they read goes
};

}  // namespace dualgap_bcfw
