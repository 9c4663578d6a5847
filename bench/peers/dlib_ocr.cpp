// dlib peer on the OCR chain SSVM: trains dlib's structural_sequence_labeling_trainer (1
// thread) on the same data, features and objective as dualgap's chain_viterbi + bcfw, and
// evaluates OUR primal at dlib's learned w, so both sides are measured on one objective.
//
// Objectives. dualgap: P(w) = lambda/2 ||w||^2 + (1/n) sum_i H_i(w), H_i the structured hinge
// with the Hamming COUNT loss (chain_viterbi loss: count). dlib (structural_svm_problem):
// h(w) = 1/2 ||w||^2 + C (1/n) sum_i H_i(w) with the same H_i (its sequence loss is the count
// of mislabeled positions, per-label loss 1). h = P / lambda, so C = 1/lambda (= n for
// lambda = 1/n) gives the same minimizer and P(w) = lambda * h(w).
// Features: PSI = [ sum_u x_u (x) e_{y_u} ; sum_u e_{y_{u-1}} (x) e_{y_u} ], indices laid out
// exactly like dualgap's w (unary k*d + j, transition K*d + a*K + b), no bias.
//
// Usage: dlib_ocr OCR_LETTERS_TSV_GZ PLUGIN_DIR [eps ...]   (prints one JSON line per eps)
#include <dlib/svm_threaded.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "dualgap/dataset.hpp"
#include "dualgap/oracles/structured.hpp"
#include "loader.hpp"
#include "schema.hpp"

namespace {

using Letter = std::vector<std::pair<unsigned long, double>>;  // sparse pixels (value 1)

struct OcrFeatures {
  typedef std::vector<Letter> sequence_type;
  unsigned long d = 128, K = 26;
  unsigned long num_features() const { return d * K + K * K; }
  unsigned long order() const { return 1; }
  unsigned long num_labels() const { return K; }
  template <typename feature_setter, typename EXP>
  void get_features(feature_setter& set_feature, const sequence_type& x,
                    const dlib::matrix_exp<EXP>& y, unsigned long position) const {
    const unsigned long k = y(0);
    for (const auto& [j, v] : x[position]) set_feature(k * d + j, v);
    if (y.size() > 1) set_feature(d * K + y(1) * K + k);  // y(1) is the previous label
  }
};
void serialize(const OcrFeatures&, std::ostream&) {}
void deserialize(OcrFeatures&, std::istream&) {}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: dlib_ocr OCR_LETTERS_TSV_GZ PLUGIN_DIR [eps ...]\n";
    return 2;
  }
  std::vector<double> eps_list;
  for (int a = 3; a < argc; ++a) eps_list.push_back(std::stod(argv[a]));
  if (eps_list.empty()) eps_list = {0.5, 0.2, 0.1};

  dualgap::PluginRegistry reg;
  reg.scan({argv[2]});
  auto& dp = reg.get(dualgap::Kind::dataset, "ocr_letters");
  auto ds = dualgap::create_object<dualgap::DatasetPlugin>(
      dp, dualgap::make_params(dp.description->params,
                               {{"path", argv[1]}, {"train_folds", {0}}, {"max_test_words", 1}}));
  const dualgap::Data data = ds->load({});
  const dualgap::Examples& ex = data.train;
  auto& op = reg.get(dualgap::Kind::oracle, "chain_viterbi");
  auto oracle = dualgap::create_object<dualgap::StructuredOracle>(
      op, dualgap::make_params(op.description->params, {{"loss", "count"}}));

  const std::size_t n = ex.num_examples();
  const int K = ex.num_classes;
  const auto d = static_cast<unsigned long>(ex.num_features());
  std::vector<OcrFeatures::sequence_type> samples(n);
  std::vector<std::vector<unsigned long>> labels(n);
  for (std::size_t i = 0; i < n; ++i)
    for (auto u = ex.unit_begin(i); u < ex.unit_end(i); ++u) {
      Letter l;
      for (unsigned long j = 0; j < d; ++j)
        if (double v = ex.X.dense()(u, static_cast<Eigen::Index>(j)); v != 0) l.emplace_back(j, v);
      samples[i].push_back(std::move(l));
      labels[i].push_back(static_cast<unsigned long>(ex.y[static_cast<std::size_t>(u)]));
    }
  const double lambda = 1.0 / static_cast<double>(n);

  // Our primal at w: lambda/2 ||w||^2 + (1/n) sum_i [max_y (Delta + <w,phi(y)>) - <w,phi(y_i)>].
  auto primal = [&](const dualgap::Vector& w) {
    double risk = 0;
    dualgap::Labeling out;
    std::vector<double> scores;
    for (std::size_t i = 0; i < n; ++i) {
      oracle->max_oracle(ex, i, w, out, scores);
      dualgap::Vector diff = dualgap::Vector::Zero(w.size());
      oracle->add_joint_features(ex, i, out.labels.data(), 1.0, diff);
      oracle->add_joint_features(ex, i, ex.y.data() + ex.unit_begin(i), -1.0, diff);
      risk += out.loss + w.dot(diff);
    }
    return 0.5 * lambda * w.squaredNorm() + risk / static_cast<double>(n);
  };

  for (double eps : eps_list) {
    OcrFeatures fe;
    fe.d = d;
    fe.K = static_cast<unsigned long>(K);
    dlib::structural_sequence_labeling_trainer<OcrFeatures> trainer(fe);
    trainer.set_num_threads(1);
    trainer.set_c(1.0 / lambda);
    trainer.set_epsilon(eps);
    const auto t0 = std::chrono::steady_clock::now();
    auto labeler = trainer.train(samples, labels);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto& wd = labeler.get_weights();
    dualgap::Vector w(static_cast<Eigen::Index>(wd.size()));
    for (long k = 0; k < wd.size(); ++k) w[k] = wd(k);
    std::printf("{\"side\": \"dlib\", \"eps\": %g, \"C\": %g, \"time_s\": %.3f, \"primal\": %.6f}\n",
                eps, 1.0 / lambda, secs, primal(w));
    std::fflush(stdout);
  }
  return 0;
}
