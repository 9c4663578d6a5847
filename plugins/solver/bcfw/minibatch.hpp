// Mini-batch exact passes with the oracle calls of a batch on several threads (options batch,
// threads): the synchronous mini-batch case (no delay) of AP-BCFW, Wang, Wang, Pang, Jiang,
// Lacoste-Julien, "Parallel and distributed block-coordinate Frank-Wolfe algorithms", ICML 2016,
// with the exact line search that the quadratic SSVM dual allows.
//
// Why: an exact pass of BCFW (Algorithm 2 of Shah et al., line 5 of their Algorithm 3) is a chain
// of block steps, each needing the max-oracle at the w left by the previous one, so its oracle
// calls cannot overlap. Taking the pass's block order in consecutive mini-batches S of tau blocks
// and stepping all blocks of S together lets the tau calls run at the same w in parallel:
//
//   for each batch S of the order:                         (tau = option batch)
//     in parallel, i in S: yhat_i = exact max-oracle at w; Delta_i = phi^i_star - phihat^i_star,
//                          b_i = <Delta_i, w> - (offset(yhat_i) - n phi^i_circ)   (= -n gap_i)
//     D = sum_{i in S} Delta_i          (fixed order: the order of S, whatever the threads)
//     gamma = clip(-lambda n sum_i b_i / ||D||^2, 0, 1)     exact line search of F along the
//                                                           summed direction (dual_state.hpp)
//     phi^i <- (1 - gamma) phi^i + gamma phihat^i for i in S;  w += gamma/(lambda n) D
//
// Each phi^i stays a convex combination of its planes, so F stays certified; with tau = 1 this
// is BCFW's step (the loop then keeps its own block-by-block pass, mp_bcfw.hpp, bit for bit).
// A batch ends before a block it already holds (uniform or gap sampling may repeat a block), so
// every block of a batch moves from its own current point.
//
// Threads and numbers (threads: worker_pool.hpp, created once per solve): the parallel part (oracle call, the block's change and its bracket)
// reads the state only and writes the batch slot it owns; everything after it (the sum, the line
// search, the moves) is serial in slot order. So a run's numbers depend on batch, never on the
// thread count or the scheduling: threads 1 and threads 2 with the same batch and seed give the
// same records and the same counts. Oracles keep buffers, so thread t > 0 calls its own oracle
// object (SolverContext::make_oracle) counted in its own OracleCounters, added to the run's
// counters after each parallel section: exact_calls stays n per pass and oracle time is the sum
// over threads, while the recorder's clock stays the solver's wall clock. Approximate passes of
// MP-BCFW and the checkpoints' evaluation stay serial on the run's oracle.
#pragma once

#include <algorithm>
#include <exception>
#include <memory>
#include <stdexcept>
#include <vector>

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
  };

  /// batch blocks per step, computed on `threads` threads (thread 0 uses the run's oracle).
  MiniBatches(int batch, int threads, dualgap::StructuredOracle& oracle, const Examples& ex,
              dualgap::SolverContext& ctx)
      : batch_(batch),
        threads_(std::max(1, std::min(threads, batch))),
        ex_(ex),
        slots_(static_cast<std::size_t>(std::max(batch, 1))),
        in_batch_(ex.num_examples(), 0),
        pool_(threads_) {
    oracles_.push_back(&oracle);
    for (int t = 1; t < threads_; ++t) {
      if (!ctx.make_oracle)
        throw std::runtime_error("bcfw: threads > 1 needs a fresh oracle per thread, and the caller gave no "
                                 "oracle factory (SolverContext::make_oracle)");
      auto o = std::dynamic_pointer_cast<dualgap::StructuredOracle>(ctx.make_oracle());
      if (!o) throw std::runtime_error("bcfw: the oracle factory made no structured oracle");
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
  /// of a batch after its step (working sets, gap sampling), after_step(*this) once per batch
  /// step (the averages replay the change through add_last_change). Returns whether any batch
  /// moved.
  template <class AfterBlock, class AfterStep>
  bool pass(const std::vector<std::size_t>& order, Storage& st, AfterBlock&& after_block, AfterStep&& after_step) {
    bool moved = false;
    for (std::size_t t = 0; t < order.size();) {
      std::size_t b = 0;
      while (b < slots_.size() && t < order.size() && !in_batch_[order[t]]) {
        in_batch_[order[t]] = 1;
        slots_[b++].i = order[t++];
      }
      for (std::size_t s = 0; s < b; ++s) in_batch_[slots_[s].i] = 0;
      oracle_calls(st, b);
      const double gamma = step(st, b);
      moved |= gamma > 0;
      after_step(*this);
      for (std::size_t s = 0; s < b; ++s) after_block(slots_[s], gamma);
    }
    return moved;
  }

  /// target += coef * (w after the last batch step - w before it) (the averages, averages.hpp).
  void add_last_change(double* target, double coef) const {
    const double s = coef * scale_;
    if (s == 0.0) return;
    for (int sg : segs_) {
      const auto b = static_cast<Eigen::Index>(seg_begin_[sg]), m = static_cast<Eigen::Index>(seg_size_[sg]);
      Eigen::Map<Vector>(target + b, m) += s * D_.segment(b, m);
    }
  }

 private:
  /// The parallel section: the exact oracle calls of the batch's b blocks at the same w and each
  /// block's change. Slot s is computed by one thread with that thread's oracle; no thread writes
  /// anything but its slots and its oracle's counters.
  void oracle_calls(const Storage& st, std::size_t b) {
    // Thread t takes slots t, t + threads, ...; an exception must not escape a worker: kept
    // per slot, rethrown after the section.
    std::vector<std::exception_ptr>& failed = failed_;
    failed.assign(b, nullptr);
    auto section = [&](int t) {
      for (std::size_t s = static_cast<std::size_t>(t); s < b; s += static_cast<std::size_t>(threads_)) {
        Slot& sl = slots_[s];
        try {
          oracles_[static_cast<std::size_t>(t)]->max_oracle(ex_, sl.i, st.w, sl.lab, sl.scores);
          sl.offset = sl.lab.loss + sl.lab.constant - st.truth_constant(sl.i);
          st.direction(sl.i, sl.lab.labels.data(), sl.offset, sl.scores.data(), sl.change);
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

  /// The serial part: D = sum of the changes in slot order, the common exact line search, the
  /// blocks' moves and w += gamma/(lambda n) D. Returns gamma.
  double step(Storage& st, std::size_t b) {
    if (D_.size() != st.w.size()) {
      D_ = Vector::Zero(st.w.size());
      seg_mark_.assign(static_cast<std::size_t>(st.num_segments()), 0);
      for (int sg = 0; sg < st.num_segments(); ++sg)
        seg_begin_.push_back(st.segment_begin(sg)), seg_size_.push_back(st.segment_size(sg));
    }
    for (int sg : segs_) D_.segment(static_cast<Eigen::Index>(seg_begin_[sg]), static_cast<Eigen::Index>(seg_size_[sg])).setZero();
    segs_.clear();
    double bracket = 0;
    for (std::size_t s = 0; s < b; ++s) {
      const auto& c = slots_[s].change;
      bracket += c.bracket();
      for (int sg : c.segs) {
        if (!seg_mark_[sg]) seg_mark_[sg] = 1, segs_.push_back(sg);
        const auto o = static_cast<Eigen::Index>(seg_begin_[sg]), m = static_cast<Eigen::Index>(seg_size_[sg]);
        D_.segment(o, m) += c.delta.segment(o, m);
      }
    }
    double norm2 = 0;
    for (int sg : segs_) {
      seg_mark_[sg] = 0;
      norm2 += D_.segment(static_cast<Eigen::Index>(seg_begin_[sg]), static_cast<Eigen::Index>(seg_size_[sg])).squaredNorm();
    }
    const double gamma = st.batch_gamma(bracket, norm2);
    scale_ = 0;
    if (gamma <= 0) return 0.0;
    for (std::size_t s = 0; s < b; ++s) st.move_block(slots_[s].i, gamma, slots_[s].change);
    scale_ = gamma / (st.lambda() * static_cast<double>(st.n()));
    add_last_change(st.w.data(), 1.0);
    return gamma;
  }

  int batch_, threads_;
  const Examples& ex_;
  std::vector<Slot> slots_;
  std::vector<std::exception_ptr> failed_;
  std::vector<unsigned char> in_batch_;            ///< blocks of the batch being formed
  std::vector<dualgap::StructuredOracle*> oracles_;  ///< one per thread; [0] is the run's
  std::vector<std::shared_ptr<dualgap::StructuredOracle>> owned_;
  std::vector<dualgap::OracleCounters> counters_;  ///< of threads 1.. (merged after each section)
  Vector D_;                                       ///< the last batch's summed change, zero outside segs_
  std::vector<int> segs_;                          ///< segments of w D_ touches
  std::vector<unsigned char> seg_mark_;
  std::vector<std::size_t> seg_begin_, seg_size_;
  double scale_ = 0;  ///< w moved by scale_ * D_ in the last batch step
  WorkerPool pool_;   ///< last member: its threads stop before anything they read goes
};

}  // namespace dualgap_bcfw
