// Column generation (Algorithm 1 of Lin et al., ACCV 2012) shared by multiboost_cw (K class-wise
// weak learners per iteration, eq. 4) and multiboost (one shared weak learner per iteration,
// eq. 6, Shen & Hao, CVPR 2011); the master problem (2) is solved by FCD or L-BFGS-B.
//
// One recorder "pass" = one boosting (column-generation) iteration. The checkpoint of iteration
// t hands the core the model after t master solves as a stump ensemble (one row per weak
// learner: per (stump, class) column for MultiBoost-CW, per shared stump with K weights for
// MultiBoost); the core's boosting objective (loss "exp", core/src/objectives/boosting.cpp)
// computes primal, certified dual and errors from it.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "dualgap/solver.hpp"
#include "dualgap/random.hpp"
#include "boosting/master_problem.hpp"

namespace dualgap::boosting {

struct CgOptions {
  bool shared = false;          ///< MultiBoost (eq. 6) instead of MultiBoost-CW (eq. 4)
  std::string master = "fcd";   ///< fcd | lbfgsb
  FcdOptions fcd;
  LbfgsbOptions lbfgsb;
  double rel_tol = 0;           ///< stop when |P_t - P_{t-1}| <= rel_tol P_t (Algorithm 1, step 7); 0: off
  long max_iterations = 0;      ///< >0: stop after this many boosting iterations (own rule)
  int master_only = 0;          ///< >0: Fig. 6 mode, solve one fixed restricted problem (see README)
};

class ColumnGeneration {
 public:
  ColumnGeneration(const Problem& pb, SolverContext& ctx, const CgOptions& o)
      : pb_(pb), ctx_(ctx), o_(o), rng_(ctx.seed) {
    if (!pb.data) throw std::invalid_argument("boosting: no data");
    oracle_ = dynamic_cast<WeakLearnerOracle*>(pb.oracle);
    if (!oracle_) throw std::invalid_argument("boosting: needs an oracle with the weak_learner interface");
    if (!(pb.lambda > 0)) throw std::invalid_argument("boosting: problem.lambda = 1/C must be > 0");
    const Examples& tr = pb.data->train;
    if (tr.structured()) throw std::invalid_argument("boosting: multi-class (unstructured) data only");
    oracle_->prepare(tr);
    mp_ = std::make_unique<MasterProblem>(tr.y, tr.num_classes, 1.0 / pb.lambda);
  }

  void run() {
    if (o_.master_only > 0) return run_master_only();
    Recorder& rec = *ctx_.recorder;
    generate();
    if (rec.checkpoint(0, [&](Iterate& it) { fill(it); }) == Action::stop) return;
    double prev = mp_->objective();
    for (long t = 1;; ++t) {
      const auto ws = add_generated();
      solve_master(ws);
      generate();
      const double obj = mp_->objective();
      const bool converged = max_edge_ <= 1.0 || (o_.max_iterations > 0 && t >= o_.max_iterations) ||
                             (o_.rel_tol > 0 && std::abs(prev - obj) <= o_.rel_tol * std::abs(obj));
      prev = obj;
      if (converged) {
        rec.checkpoint(static_cast<double>(t), [&](Iterate& it) { fill(it); });
        return;
      }
      if (rec.due(static_cast<double>(t)) &&
          rec.checkpoint(static_cast<double>(t), [&](Iterate& it) { fill(it); }) == Action::stop)
        return;
    }
  }

 private:
  // Oracle call at lambda(w): fills generated_ and max_edge_.
  void generate() {
    mp_->refresh();
    mp_->edge_weights(W_);
    if (o_.shared) {
      const Stump s = oracle_->best_shared(W_);
      generated_.assign(1, s);
      max_edge_ = s.edge;
    } else {
      oracle_->best_per_class(W_, generated_);
      max_edge_ = 0;
      for (const auto& s : generated_) max_edge_ = std::max(max_edge_, s.edge);
    }
  }

  Column make_column(const Stump& s, int cls) {
    Column c;
    c.stump = s;
    c.cls = cls;
    oracle_->predict(s, pb_.data->train.X, c.h);
    return c;
  }

  // Adds the generated weak learners (K columns for a shared one) and their ensemble rows;
  // returns the working set.
  std::vector<std::size_t> add_generated() {
    std::vector<std::size_t> ws;
    const int K = mp_->K();
    for (const Stump& s : generated_) {
      ++weak_learners_;
      long row = -1;  // the ensemble row of this weak learner's new columns
      for (int c = 0; c < K; ++c) {
        if (!o_.shared && c != s.cls) continue;
        const long j = mp_->find(s, c);
        if (j >= 0) {
          ws.push_back(static_cast<std::size_t>(j));
          continue;
        }
        ws.push_back(mp_->add(make_column(s, c)));
        if (row < 0 || !o_.shared) {
          row = static_cast<long>(ensemble_.stumps.size());
          Stump h = s;
          h.cls = o_.shared ? -1 : c;
          ensemble_.stumps.push_back(h);
        }
        row_of_column_.push_back(static_cast<Eigen::Index>(row));
      }
    }
    return ws;
  }

  void solve_master(const std::vector<std::size_t>& ws) {
    const auto t0 = std::chrono::steady_clock::now();
    if (o_.master == "lbfgsb") {
      lbfgsb(*mp_, o_.lbfgsb);
    } else {
      const auto st = fcd(*mp_, ws, o_.fcd, rng_);
      fcd_updates_ += st.updates;
      fcd_violations_ += st.violation_evaluations;
    }
    master_time_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // The checkpoint: the ensemble of the current w and the solver's own columns.
  void fill(Iterate& m) {
    ensemble_.alpha.setZero(static_cast<Eigen::Index>(ensemble_.stumps.size()), mp_->K());
    for (std::size_t j = 0; j < mp_->size(); ++j)
      ensemble_.alpha(row_of_column_[j], mp_->column(j).cls) += mp_->w()[j];
    m.ensemble = &ensemble_;
    m.set("weak_learners", static_cast<double>(weak_learners_));
    std::size_t nnz = 0;
    for (double v : mp_->w()) nnz += v > 0;
    m.set("columns", static_cast<double>(mp_->size()));
    m.set("nonzero_weights", static_cast<double>(nnz));
    m.set("master_time", master_time_s_);
    m.set("master_objective", mp_->objective());
    m.set("max_edge", max_edge_);
    if (o_.master == "fcd") {
      m.set("fcd_updates", static_cast<double>(fcd_updates_ + fcd_call_updates_));
      m.set("fcd_violations", static_cast<double>(fcd_violations_ + fcd_call_violations_));
    }
  }

  // Fig. 6 mode: build a fixed restricted problem with `master_only` iterations of stage-wise
  // class-wise generation (CW-1 with update (12), deterministic), reset w = 0, then solve it
  // with the chosen master solver. One pass = one master iteration (an FCD working-set
  // iteration or an L-BFGS-B iteration). The core's dual is that of the full problem (all
  // stumps); the column restricted_dual is the fixed problem's own certified dual (edges over
  // its columns only), which closes its gap.
  void run_master_only() {
    Recorder& rec = *ctx_.recorder;
    FcdOptions stagewise;
    stagewise.tau_max = 1;
    stagewise.eps = o_.fcd.eps;
    SplitMix64 gen_rng(0);
    for (int t = 0; t < o_.master_only; ++t) {
      generate();
      fcd(*mp_, add_generated(), stagewise, gen_rng);
    }
    std::fill(mp_->w_mut().begin(), mp_->w_mut().end(), 0.0);
    mp_->recompute_F();
    auto eval = [&](Iterate& m) {
      fill(m);
      m.set("restricted_dual", mp_->dual(mp_->max_column_edge()));
    };
    if (rec.checkpoint(0, eval) == Action::stop) return;
    master_time_s_ = 0;
    auto t0 = std::chrono::steady_clock::now();
    bool stop = false;
    auto on_iter = [&](double it) {
      master_time_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (rec.due(it)) stop = rec.checkpoint(it, eval) == Action::stop;
      t0 = std::chrono::steady_clock::now();
      return !stop;
    };
    if (o_.master == "lbfgsb") {
      const auto st = lbfgsb(*mp_, o_.lbfgsb, [&](int it) { return on_iter(it); });
      if (!stop) rec.checkpoint(st.iterations + 1, eval);  // final point (converged)
    } else {
      // FCD with the given tau_max, called repeatedly as column generation would call it on a
      // problem with no new columns: each call sweeps its start set in order, then at most
      // tau_max - 1 further working-set iterations; the next call starts from the working set
      // the last one left. tau_max <= 0: one call until (18). Passes count working-set iterations.
      std::vector<std::size_t> S(mp_->size());
      for (std::size_t j = 0; j < S.size(); ++j) S[j] = j;
      int done = 0;
      FcdStats st;
      for (;;) {
        st = fcd(*mp_, S, o_.fcd, rng_, [&](const FcdStats& s) {
          fcd_call_updates_ = s.updates;
          fcd_call_violations_ = s.violation_evaluations;
          return on_iter(done + s.working_set_iterations);
        });
        done += st.working_set_iterations;
        fcd_updates_ += st.updates;
        fcd_violations_ += st.violation_evaluations;
        fcd_call_updates_ = fcd_call_violations_ = 0;
        if (stop || st.converged) break;
        S = std::move(st.working_set);
      }
      if (!stop) rec.checkpoint(done + 1, eval);
    }
  }

  const Problem& pb_;
  SolverContext& ctx_;
  CgOptions o_;
  SplitMix64 rng_;
  WeakLearnerOracle* oracle_ = nullptr;
  std::unique_ptr<MasterProblem> mp_;
  DenseMatrix W_;
  std::vector<Stump> generated_;
  double max_edge_ = 0;
  long weak_learners_ = 0;
  double master_time_s_ = 0;
  long fcd_updates_ = 0, fcd_violations_ = 0;             ///< cumulative over finished FCD calls
  long fcd_call_updates_ = 0, fcd_call_violations_ = 0;   ///< within the running call (fixed mode)
  Ensemble ensemble_;                         ///< the stumps; alpha is filled at checkpoints
  std::vector<Eigen::Index> row_of_column_;   ///< master column j -> its ensemble row
};

}  // namespace dualgap::boosting
