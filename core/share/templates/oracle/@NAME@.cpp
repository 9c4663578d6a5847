// @NAME@: a loss-augmented max-oracle for structural SVMs (interface "structured").
//
// What it computes (the skeleton; replace it with your model): every unit u of an example is
// labelled independently, the score of a labelling y is  sum_u <w_{y_u}, x_u>  and the loss is
// the Hamming loss  Delta(y_i, y) = s * sum_u [y_u != y_iu], s = 1/units (normalized) or 1.
// Both decompose over units, so the exact loss-augmented argmax is a per-unit argmax of
// unary[u][k] + s [k != y_iu]. On multi-class data (one unit per example) this is the
// multi-class SVM of Crammer and Singer (JMLR 2001) with the 0-1 loss.
//
// The contract (dualgap/oracles/structured.hpp; cf. dlib's separation_oracle):
//   argmax(ex, i, unary, transition, loss_augmented, out)
//     requires: unary is a units_of(i) x K row-major table, unary[u*K + k] = <w_k, x_u>;
//               transition is the K x K row-major block of w, or nullptr when
//               uses_transitions() is false (here: always nullptr).
//     ensures:  out.labels (already sized units_of(i)) maximizes
//                 sum_u unary[u][y_u] + sum_pairs transition[y_a][y_b] + constant(y)
//                 + (loss_augmented ? loss(y_i, y) : 0)
//               exactly when exact() is true.
//   loss(ex, i, y) = Delta(y_i, y) >= 0, and 0 at y = y_i.
// The core calls argmax through the public, counted entry points max_oracle() and decode(),
// which compute the unary table, time and count the call, and fill out.loss / out.constant:
// do not count or time anything here. Keep argmax allocation-free (it runs n times a pass).
#include <cstddef>

#include "dualgap/oracles/structured.hpp"
#include "dualgap/plugin.hpp"

namespace {

class @CLASS@ final : public dualgap::StructuredOracle {
 public:
  struct Options {  // parameters: defaults here, one bind() line each (dualgap/options.hpp)
    bool normalize = true;
    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::normalize, "normalize", "divide the Hamming loss by the number of units of the example");
    }
    // Rules against the prepared data (n, N, d, K, class names, sequences or graphs:
    // dualgap::DataShape), checked by `dualgap validate` and before every run. To refuse, set
    // *issue = {"param", "what was expected"} and return false: dualgap reports it at the
    // parameter's line in the experiment (param "" : at the plugin's section). E.g. a list with
    // one value per class checks its size against data.K here. This model fits any data.
    bool validate_data(const dualgap::DataShape& /*data*/, dualgap::ParamIssue* /*issue*/) const { return true; }
  };
  explicit @CLASS@(const Options& o) : o_(o) {}

  // uses_transitions() is false: w holds K*d unary weights only. A chain model returns true
  // and reads the K x K `transition` table in argmax.

  double loss(const dualgap::Examples& ex, std::size_t i, const int* y) const override {
    const auto b = ex.unit_begin(i);
    const int units = ex.units_of(i);
    int wrong = 0;
    for (int u = 0; u < units; ++u) wrong += y[u] != ex.y[b + u];
    return o_.normalize ? static_cast<double>(wrong) / units : wrong;
  }

 protected:
  void argmax(const dualgap::Examples& ex, std::size_t i, const double* unary,
              const double* /*transition*/, bool loss_augmented, dualgap::Labeling& out) override {
    const int K = ex.num_classes;
    const auto b = ex.unit_begin(i);
    const int units = ex.units_of(i);
    const double s = loss_augmented ? (o_.normalize ? 1.0 / units : 1.0) : 0.0;
    for (int u = 0; u < units; ++u) {
      const double* row = unary + static_cast<std::size_t>(u) * K;
      const int truth = ex.y[b + u];
      int best = 0;
      double best_score = row[0] + (truth != 0 ? s : 0.0);
      for (int k = 1; k < K; ++k) {
        const double score = row[k] + (truth != k ? s : 0.0);
        if (score > best_score) best_score = score, best = k;
      }
      out.labels[u] = best;
    }
  }

 private:
  Options o_;
};

dualgap::PluginDescription describe() {
  // The interfaces ("structured") come from the interface class (StructuredOracle).
  return dualgap::describe_oracle<@CLASS@>(
      "@NAME@", "0.1.0",
      "Independent per-unit max-oracle with Hamming loss (Crammer & Singer, JMLR 2001, on "
      "multi-class data) [dualgap new-plugin skeleton]");
}

}  // namespace

DUALGAP_PLUGIN(describe)
