// The structural SVM objective (family "ssvm": any structured oracle).
//
//   P(w) = lambda/2 ||w||^2 + (1/n) sum_i H_i(w),
//   H_i(w) = max_y [ Delta(y_i, y) + c(y) - c(y_i) + <w, phi(x_i, y) - phi(x_i, y_i)> ]
//
// (Shah, Kolmogorov, Lampert, CVPR 2015, eqs. (1)-(2); c is the w-independent score of a fixed
// Potts term, 0 otherwise). H_i needs one loss-augmented max-oracle call per example: the n calls
// of a primal count as evaluation. Since y = y_i is a candidate, H_i >= Delta(y_i, y_i) = 0; the
// max keeps that true for approximate oracles too.
//
// Dual certificate (SsvmDualPoint): a feasible alpha gives w_alpha = A alpha, l_alpha = b^T alpha
// and the dual value D(alpha) = -lambda/2 ||w_alpha||^2 + l_alpha <= min P (eq. (5)). The core
// cannot see alpha, so it checks what weak duality implies, D <= P(w) for every w; a certificate
// that breaks it fails the run. With an approximate oracle (alpha-expansion) P is only an
// estimate and the check is skipped.
//
// Errors: the decoded labeling (no loss term) against the truth, per unit (Hamming), on the
// training split (record.train_error, n more oracle calls) and the test split. Beside them the
// task loss, the columns train_loss / test_loss: the mean over examples of the oracle's own
// Delta(y_i, y_hat) at that prediction (a weighted, hierarchical or unnormalized loss is what
// the model is trained for; the errors stay 0-1 / Hamming whatever it is).
//
// Threads (ScoreOptions::threads): the examples of both splits are scored in chunks of a fixed
// size (chunks.hpp), each chunk's hinge, errors and task loss kept apart and added in chunk order,
// so primal, errors and losses are the same bit for bit on any number of threads, and so are the
// counts (one call per example and purpose, whoever makes it). Thread t > 0 calls its own oracle
// object from the run's factory (oracles keep buffers) counted in its own OracleCounters, added to
// the run's after the section: eval_oracle_calls are exact, eval oracle time is the sum over
// threads. An approximate oracle (alpha-expansion may depend on its object's history) or a run
// without a factory is scored on one thread.
#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "dualgap/oracles/structured.hpp"
#include "objectives/chunks.hpp"
#include "objectives/families.hpp"

namespace dualgap {
namespace {

class SsvmObjective final : public Objective {
 public:
  SsvmObjective(const Problem& pb, StructuredOracle& oracle, ScoreOptions opt)
      : data_(*pb.data), oracle_(oracle), lambda_(pb.lambda), opt_(opt) {
    const Examples& ex = data_.train;
    dim_ = oracle_.dim(static_cast<std::size_t>(ex.num_features()), ex.num_classes);
    truth_constant_.resize(ex.num_examples());
    bool constants = false;
    for (std::size_t i = 0; i < ex.num_examples(); ++i) {
      truth_constant_[i] = oracle_.constant(ex, i, ex.y.data() + ex.unit_begin(i));
      constants = constants || truth_constant_[i] != 0.0;
    }
    // An oracle without a constant term keeps no table (n doubles less during the whole run).
    if (!constants) truth_constant_ = std::vector<double>();
  }

  json describe() const override {
    return {{"family", "ssvm"}, {"loss", "structured_hinge"}, {"lambda", lambda_}, {"exact_oracle", oracle_.exact()}};
  }
  const char* model_kind() const override { return "w"; }

  void score(const Iterate& it, Scores& out) override {
    if (!it.w) throw std::runtime_error("the ssvm objective scores a joint weight vector w; the checkpoint set another model");
    const Vector& w = *it.w;
    check_dim(w, "w");
    const Examples& ex = data_.train;
    const Examples& test = data_.test;
    const std::size_t n = ex.num_examples(), n_test = test.num_examples();
    const std::size_t train_chunks = score_chunks(n), chunks = train_chunks + score_chunks(n_test);
    partial_.assign(chunks, Partial{});
    const int threads = threads_for(chunks);
    for_each_chunk(chunks, threads, [&](int t, std::size_t c) {
      Worker& wk = workers_[static_cast<std::size_t>(t)];
      Partial& p = partial_[c];
      if (c < train_chunks) {
        const std::size_t end = std::min(n, (c + 1) * kScoreChunk);
        for (std::size_t i = c * kScoreChunk; i < end; ++i) {
          p.hinge += hinge(wk, ex, i, w);
          if (opt_.train_error) p.wrong += decode_errors(wk, ex, i, w, p.loss);
        }
      } else {
        const std::size_t b = (c - train_chunks) * kScoreChunk, end = std::min(n_test, b + kScoreChunk);
        for (std::size_t i = b; i < end; ++i) p.wrong += decode_errors(wk, test, i, w, p.loss);
      }
    });
    merge_counters(threads);
    double hinge_sum = 0, task_loss = 0, tloss = 0;  // in chunk order: the same for any thread count
    std::size_t wrong = 0, twrong = 0;
    for (std::size_t c = 0; c < train_chunks; ++c) {
      hinge_sum += partial_[c].hinge;
      task_loss += partial_[c].loss;
      wrong += partial_[c].wrong;
    }
    for (std::size_t c = train_chunks; c < chunks; ++c) {
      tloss += partial_[c].loss;
      twrong += partial_[c].wrong;
    }
    out.primal = 0.5 * lambda_ * w.squaredNorm() + hinge_sum / static_cast<double>(n);
    out.approximate = !oracle_.exact();
    if (opt_.train_error) {
      out.train_error = static_cast<double>(wrong) / static_cast<double>(ex.num_units());
      out.set("train_loss", task_loss / static_cast<double>(n));
    }
    if (n_test > 0) {
      out.test_error = static_cast<double>(twrong) / static_cast<double>(test.num_units());
      out.set("test_loss", tloss / static_cast<double>(n_test));
    }
    if (it.ssvm_dual) {
      const Vector& wa = it.ssvm_dual->w_alpha ? *it.ssvm_dual->w_alpha : w;
      check_dim(wa, "the dual point's w_alpha");
      const double dual = -0.5 * lambda_ * wa.squaredNorm() + it.ssvm_dual->l_alpha;
      if (oracle_.exact() && std::isfinite(dual) && std::isfinite(*out.primal) &&
          dual > *out.primal + 1e-9 * std::max(1.0, std::abs(*out.primal)))
        throw std::runtime_error(fmt::format(
            "the solver's dual certificate is not valid: its dual value {:.17g} exceeds the primal {:.17g} of its "
            "iterate (weak duality)",
            dual, *out.primal));
      out.dual = dual;
    }
  }

 private:
  void check_dim(const Vector& w, const char* what) const {
    if (static_cast<std::size_t>(w.size()) != dim_)
      throw std::runtime_error(fmt::format("{} has {} entries; the oracle's joint feature map has {}", what, w.size(), dim_));
  }
  /// One scoring thread's oracle and scratch; worker 0 calls the run's oracle.
  struct Worker {
    StructuredOracle* oracle = nullptr;
    std::shared_ptr<Oracle> owned;  ///< from the run's factory (threads t > 0)
    OracleCounters counters;        ///< its calls, added to the run's after each section
    Labeling lab;
    std::vector<double> scores;
  };
  /// A chunk's sums.
  struct Partial {
    double hinge = 0, loss = 0;
    std::size_t wrong = 0;
  };

  /// Threads for `chunks` chunks (at most one per chunk), with worker t ready for each thread t.
  int threads_for(std::size_t chunks) {
    int threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(opt_.threads, 1)), chunks));
    if (!oracle_.exact() || !opt_.make_oracle) threads = 1;
    if (workers_.empty()) workers_.emplace_back().oracle = &oracle_;
    OracleCounters* run = oracle_.counters();
    while (workers_.size() < static_cast<std::size_t>(threads)) {
      auto made = std::dynamic_pointer_cast<StructuredOracle>(opt_.make_oracle());
      if (!made) throw std::runtime_error("the ssvm objective: the oracle factory made no structured oracle");
      Worker& wk = workers_.emplace_back();
      wk.owned = made;
      wk.oracle = made.get();
    }
    // The workers count where the run's oracle counts: as evaluation inside a checkpoint, and
    // not at all when the run's oracle has no counters (a test scoring by hand).
    for (std::size_t t = 1; t < static_cast<std::size_t>(threads); ++t) {
      workers_[t].counters = OracleCounters{};
      workers_[t].counters.evaluating = run && run->evaluating;
      workers_[t].oracle->attach_counters(run ? &workers_[t].counters : nullptr);
    }
    return threads;
  }
  /// Adds the calls of workers 1 .. threads-1 to the run's counters.
  void merge_counters(int threads) {
    OracleCounters* run = oracle_.counters();
    if (!run) return;
    for (std::size_t t = 1; t < static_cast<std::size_t>(threads); ++t) run->add(workers_[t].counters);
  }

  /// H_i(w): one loss-augmented oracle call.
  double hinge(Worker& wk, const Examples& ex, std::size_t i, const Vector& w) const {
    const int* yi = ex.y.data() + ex.unit_begin(i);
    StructuredOracle& o = *wk.oracle;
    o.max_oracle(ex, i, w, wk.lab, wk.scores);
    const double v = wk.lab.loss + wk.lab.constant - (truth_constant_.empty() ? 0.0 : truth_constant_[i]) +
                     o.joint_score(ex, i, wk.lab.labels.data(), wk.scores.data(), w) -
                     o.joint_score(ex, i, yi, wk.scores.data(), w);
    return std::max(v, o.loss(ex, i, yi));
  }
  // Decodes example i: returns its wrong units and adds the oracle's loss of the prediction
  // (decode fills Labeling::loss = Delta(y_i, y_hat)) to `task_loss`.
  static std::size_t decode_errors(Worker& wk, const Examples& ex, std::size_t i, const Vector& w, double& task_loss) {
    wk.oracle->decode(ex, i, w, wk.lab, wk.scores);
    task_loss += wk.lab.loss;
    const int* yi = ex.y.data() + ex.unit_begin(i);
    std::size_t wrong = 0;
    for (int u = 0; u < ex.units_of(i); ++u) wrong += wk.lab.labels[static_cast<std::size_t>(u)] != yi[u];
    return wrong;
  }

  const Data& data_;
  StructuredOracle& oracle_;
  double lambda_;
  ScoreOptions opt_;
  std::size_t dim_ = 0;
  std::vector<double> truth_constant_;  ///< c(y_i); empty when every c(y_i) is 0
  std::deque<Worker> workers_;  ///< kept between checkpoints (scratch, factory objects); a deque: stable addresses
  std::vector<Partial> partial_;
};

}  // namespace

std::unique_ptr<Objective> make_ssvm_objective(const Problem& pb, const ObjectiveSpec& spec, const ScoreOptions& opt) {
  auto* oracle = dynamic_cast<StructuredOracle*>(pb.oracle);
  if (!oracle) throw std::runtime_error("the ssvm objective needs a structured oracle");
  if (!spec.loss.empty() && spec.loss != "structured_hinge")
    throw std::runtime_error("the ssvm objective has one loss, structured_hinge; the solver asked for '" + spec.loss + "'");
  return std::make_unique<SsvmObjective>(pb, *oracle, opt);
}

}  // namespace dualgap
