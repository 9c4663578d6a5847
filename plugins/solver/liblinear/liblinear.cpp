// LIBLINEAR (Fan, Chang, Hsieh, Wang, Lin, "LIBLINEAR: A library for large linear
// classification", JMLR 9, 2008; Debian's liblinear-dev, linked as a library) as a solver.
// LIBLINEAR trains to its own stopping tolerance and returns, with no callback, so it runs in
// sampling mode (dualgap/sampling.hpp): once from scratch per tolerance eps = eps_first,
// eps_first * eps_factor, ..., each final model one checkpoint scored by the core.
//
// Which LIBLINEAR solver is chosen by the oracle (README.md: the mappings and their checks);
// C = 1 / (lambda n), no bias (-B -1):
//   structured `multiclass` oracle, the SSVM with the 0-1 loss: -s 4 (Crammer and Singer),
//       min_w 1/2 ||w||^2 + C sum_i max_m (1 - [m = y_i] + <w_m - w_{y_i}, x_i>)
//     = (1/lambda) (lambda/2 ||w||^2 + (1/n) sum_i H_i(w)), the core's ssvm objective;
//     its dual objective (which LIBLINEAR prints) is a certified dual point of ours.
//   block_loss `multitask_sq_hinge` oracle: -s 5 (L1-regularized L2-loss SVC), one-vs-rest,
//       per class r: min ||w_r||_1 + C sum_i max(0, 1 - Y_ir <w_r, x_i>)^2,  Y_ir = +-1,
//     summed over r = (1/lambda) ((1/n) sum_{i,r} max(0, 1 - Y_ir <w_r, x_i>)^2 + lambda sum |W_jr|):
//     the sparse family with the elementwise l1 penalty (not the l1/l2 one of bcd).
#include <linear.h>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "dualgap/oracles/block_loss.hpp"
#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"
#include "dualgap/sampling.hpp"

namespace {

using dualgap::Examples;

/// What LIBLINEAR prints during one train() (its print function is process-global).
std::string g_output;
void capture(const char* s) { g_output += s; }

struct Options {
  dualgap::EpsSchedule eps{1.0, 0.5, 12, {}};  ///< -e of each restart
  static void bind(dualgap::Binder<Options>& b) {
    dualgap::EpsSchedule::bind(b, &Options::eps, "LIBLINEAR's tolerance (-e)");
  }
  bool validate(std::string* error) const { return eps.validate(error); }
};

/// A split in LIBLINEAR's format: per row, 1-based (index, value) pairs ending with index -1.
struct LiblinearData {
  std::vector<feature_node> nodes;
  std::vector<feature_node*> rows;
  std::vector<double> y;
  problem prob{};

  explicit LiblinearData(const Examples& ex) {
    const auto n = static_cast<Eigen::Index>(ex.num_units());
    std::vector<std::size_t> start;
    for (Eigen::Index i = 0; i < n; ++i) {
      start.push_back(nodes.size());
      if (ex.X.is_sparse()) {
        for (dualgap::SparseMatrix::InnerIterator it(ex.X.sparse(), i); it; ++it)
          if (it.value() != 0) nodes.push_back({static_cast<int>(it.col()) + 1, it.value()});
      } else {
        const auto& X = ex.X.dense();
        for (Eigen::Index j = 0; j < X.cols(); ++j)
          if (X(i, j) != 0) nodes.push_back({static_cast<int>(j) + 1, X(i, j)});
      }
      nodes.push_back({-1, 0.0});
      y.push_back(ex.y[static_cast<std::size_t>(i)]);
    }
    for (std::size_t s : start) rows.push_back(nodes.data() + s);
    prob.l = static_cast<int>(n);
    prob.n = static_cast<int>(ex.num_features());
    prob.y = y.data();
    prob.x = rows.data();
    prob.bias = -1;
  }
};

/// Sum of the numbers LIBLINEAR printed after `key` (one per one-vs-rest problem), and their count.
std::pair<double, int> sum_printed(const std::string& text, const std::string& key) {
  const std::regex re(key + R"( = (-?[0-9.eE+-]+))");
  double sum = 0;
  int count = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it, ++count)
    sum += std::stod((*it)[1].str());
  return {sum, count};
}

class Liblinear final : public dualgap::Solver {
 public:
  using Options = ::Options;
  explicit Liblinear(const Options& o) : opt_(o) {}

  dualgap::ObjectiveSpec objective(const dualgap::Problem& pb) const override {
    if (dynamic_cast<dualgap::BlockLossOracle*>(pb.oracle))
      return {"sparse_multiclass", "multitask_sq_hinge", {{"penalty", "l1"}}};
    return {};
  }

  void solve(const dualgap::Problem& pb, dualgap::SolverContext& ctx) override {
    const Examples& ex = pb.data->train;
    const auto n = static_cast<double>(ex.num_examples());
    const int K = ex.num_classes;
    const auto d = static_cast<Eigen::Index>(ex.num_features());
    if (pb.lambda <= 0) throw std::runtime_error("liblinear: needs lambda > 0 (C = 1/(lambda n))");
    const bool cs = check_oracle(pb);

    LiblinearData data(ex);
    parameter param{};
    param.solver_type = cs ? MCSVM_CS : L1R_L2LOSS_SVC;
    param.C = 1.0 / (pb.lambda * n);
    const dualgap::SamplingSchedule schedule = opt_.eps.schedule();
    param.eps = schedule.values.front();  // checked by check_parameter below
    if (const char* err = check_parameter(&data.prob, &param))
      throw std::runtime_error(std::string("liblinear: ") + err);
    set_print_string_function(&capture);

    dualgap::Vector w;       // -s 4: the multiclass oracle's joint layout, w[k*d + j]
    dualgap::DenseMatrix W;  // -s 5: d x K
    double printed = 0;      // LIBLINEAR's objective: the dual's (-s 4) or the sum of the primals (-s 5)
    auto train_once = [&](double eps) {
      param.eps = eps;
      g_output.clear();
      std::srand(1);  // LIBLINEAR shuffles with rand(): every restart as `liblinear-train` would
      model* m = train(&data.prob, &param);
      if (m->nr_class != K) {
        free_and_destroy_model(&m);
        throw std::runtime_error("liblinear: a class has no training example (LIBLINEAR drops it; the core's "
                                 "objective keeps it)");
      }
      const int nr_w = (K == 2 && !cs) ? 1 : K;  // LIBLINEAR keeps one vector for two classes (-s 5)
      if (cs) {
        w.setZero(static_cast<Eigen::Index>(K) * d);
        for (int c = 0; c < K; ++c)
          for (Eigen::Index j = 0; j < d; ++j) w[m->label[c] * d + j] = m->w[j * nr_w + c];
      } else {
        W.setZero(d, K);
        for (int c = 0; c < nr_w; ++c)
          for (Eigen::Index j = 0; j < d; ++j) W(j, m->label[c]) = m->w[j * nr_w + c];
        // Two classes: class label[1]'s one-vs-rest problem is class label[0]'s with the signs
        // flipped, so its solution is -w.
        if (nr_w == 1)
          for (Eigen::Index j = 0; j < d; ++j) W(j, m->label[1]) = -W(j, m->label[0]);
      }
      free_and_destroy_model(&m);
      const auto [objective, problems] = sum_printed(g_output, "Objective value");
      const auto [iterations, runs] = sum_printed(g_output, "#iter");
      printed = (nr_w == 1 && !cs) ? 2 * objective : objective;
      if (problems != (cs ? 1 : nr_w) || runs != problems)
        throw std::runtime_error("liblinear: unexpected output of train(): " + g_output);
      // -s 4: one iteration visits every (unshrunk) example once; -s 5: one iteration of a
      // one-vs-rest problem is one pass over the features for one column of W.
      return cs ? iterations : iterations / nr_w;
    };
    const double lambda = pb.lambda;
    auto fill = [&](dualgap::Iterate& it) {
      if (cs) {
        it.w = &w;
        // LIBLINEAR's dual objective v = 1/2 ||w||^2 + sum_i sum_{m != y_i} alpha_i^m (minimized)
        // is, times -lambda, our dual value at w_alpha = w: D = -lambda/2 ||w||^2 + l_alpha with
        // l_alpha = lambda (1/2 ||w||^2 - v) (README). v is printed with 6 decimals: subtract
        // the rounding so the certificate stays a lower bound.
        it.ssvm_dual = dualgap::SsvmDualPoint{nullptr, lambda * (0.5 * w.squaredNorm() - printed - 5e-7)};
        it.set("liblinear_dual", -lambda * printed);
      } else {
        it.W = &W;
        it.set("liblinear_objective", lambda * printed);
      }
    };
    dualgap::run_sampled(ctx, schedule, train_once, fill);
    set_print_string_function(nullptr);
  }

 private:
  /// True for -s 4 (structured multiclass oracle), false for -s 5 (multitask squared hinge).
  static bool check_oracle(const dualgap::Problem& pb) {
    const Examples& ex = pb.data->train;
    if (auto* bl = dynamic_cast<dualgap::BlockLossOracle*>(pb.oracle)) {
      if (bl->loss_name() != "multitask_sq_hinge")
        throw std::runtime_error("liblinear: the block_loss oracle '" + bl->loss_name() +
                                 "' has no LIBLINEAR solver with the same objective (only multitask_sq_hinge: -s 5)");
      return false;
    }
    auto* so = dynamic_cast<dualgap::StructuredOracle*>(pb.oracle);
    if (!so) throw std::runtime_error("liblinear: needs the structured multiclass oracle or multitask_sq_hinge");
    // The Crammer-Singer objective is the SSVM of the `multiclass` oracle: one unit per example,
    // w = K blocks of d, the 0-1 loss, no constant score.
    const int K = ex.num_classes;
    bool ok = !ex.structured() && !so->uses_transitions() &&
              so->dim(static_cast<std::size_t>(ex.num_features()), K) == static_cast<std::size_t>(K) * static_cast<std::size_t>(ex.num_features());
    for (std::size_t i = 0; ok && i < std::min<std::size_t>(ex.num_examples(), 3); ++i)
      for (int k = 0; ok && k < K; ++k)
        ok = so->loss(ex, i, &k) == (k == ex.y[i] ? 0.0 : 1.0) && so->constant(ex, i, &k) == 0.0;
    if (!ok)
      throw std::runtime_error("liblinear: -s 4 (Crammer-Singer) solves the multiclass SSVM with the 0-1 loss "
                               "(oracle multiclass); this structured oracle defines another objective");
    return true;
  }

  Options opt_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_solver<Liblinear>(
      "liblinear", "1.0.0",
      "LIBLINEAR (Fan et al., JMLR 2008) in sampling mode: -s 4 Crammer-Singer for the multiclass SSVM, "
      "-s 5 L1-regularized L2-loss SVC for multitask_sq_hinge with the l1 penalty; C = 1/(lambda n)",
      {"structured", "block_loss"});
}

}  // namespace

DUALGAP_PLUGIN(describe)
