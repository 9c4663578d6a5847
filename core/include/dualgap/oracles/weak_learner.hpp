// The "weak_learner" oracle interface: the column-generation sub-problem of boosting.
//
// A weak learner is a binary function h(x) in {-1, +1}. Given a weight table W (n x K,
// row-major, one row per training example, one column per class), the *edge* of h for class c is
//
//   edge_c(h) = sum_i W(i, c) h(x_i).
//
// MultiBoost-CW (Lin et al., ACCV 2012, eq. 4) sets W(i, c) = sum_{y != y_i} lambda_(i,y) when
// y_i = c and -lambda_(i,c) otherwise, and asks for the best h of every class; MultiBoost (Shen &
// Hao, CVPR 2011, eq. 6) asks for the single best (h, c); AdaBoost.MH with vote-vector
// ("Hamming") weak learners h(x, c) = v_c phi(x) asks for the phi maximizing sum_c |edge_c(phi)|
// with W(i, c) = D(i, c) Y(i, c).
//
// Contract (cf. dlib's separation_oracle):
//   prepare(train)            once per training set (pre-sorting); not counted.
//   best_per_class(W, out)    requires W.rows() == n, W.cols() == K of the prepared data;
//                             ensures out[c] maximizes edge_c over the oracle's hypothesis
//                             class (ties: any maximizer), out[c].cls == c, out[c].edge = edge.
//                             One exact oracle call.
//   best_shared(W)            the (h, c) maximizing edge_c(h) over h and c. One exact call.
//   best_vote(W, out, votes)  phi maximizing sum_c |edge_c(phi)|, votes[c] = sign(edge_c(phi))
//                             (+1 on ties), out.edge = sum_c |edge_c(phi)|. One exact call.
//   predict(h, X, out)        out[r] = h(row r of X) for any split (train or test); not counted.
// The hypothesis class is closed under negation (h in it implies -h in it), so max edge >= 0.
#pragma once

#include <string>
#include <vector>

#include "dualgap/data.hpp"
#include "dualgap/iterate.hpp"
#include "dualgap/oracle.hpp"

namespace dualgap {

class DUALGAP_API WeakLearnerOracle : public Oracle {
 public:
  /// The interface names describe_oracle puts into the plugin description.
  static std::vector<std::string> interfaces() { return {"weak_learner"}; }

  /// Pre-computation over the training split (e.g. sorting each feature). Not counted.
  void prepare(const Examples& train) { do_prepare(train); }

  /// Best weak learner of each class (MultiBoost-CW, eq. 4). One exact oracle call.
  void best_per_class(const DenseMatrix& weights, std::vector<Stump>& out) {
    CallScope scope(*this, CallKind::exact);
    do_best_per_class(weights, out);
  }
  /// Best (weak learner, class) pair (MultiBoost, eq. 6). One exact oracle call.
  Stump best_shared(const DenseMatrix& weights) {
    CallScope scope(*this, CallKind::exact);
    do_best_per_class(weights, scratch_);
    std::size_t best = 0;
    for (std::size_t c = 1; c < scratch_.size(); ++c)
      if (scratch_[c].edge > scratch_[best].edge) best = c;
    return scratch_.at(best);
  }
  /// Best vote stump sum_c |edge_c| (AdaBoost.MH, discrete). One exact oracle call.
  void best_vote(const DenseMatrix& weights, Stump& out, std::vector<int>& votes) {
    CallScope scope(*this, CallKind::exact);
    do_best_vote(weights, out, votes);
  }

  /// out[r] = h(row r of X), in {-1, +1}. Not counted (prediction, not search).
  virtual void predict(const Stump& h, const FeatureMatrix& X, std::vector<signed char>& out) const = 0;

 protected:
  virtual void do_prepare(const Examples& train) = 0;
  virtual void do_best_per_class(const DenseMatrix& weights, std::vector<Stump>& out) = 0;
  virtual void do_best_vote(const DenseMatrix& weights, Stump& out, std::vector<int>& votes) = 0;

 private:
  std::vector<Stump> scratch_;
};

}  // namespace dualgap
