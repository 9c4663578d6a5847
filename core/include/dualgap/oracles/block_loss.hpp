// The "block_loss" oracle interface: smooth multiclass losses with per-block partial gradients,
// for block coordinate descent on  F(W) = L(W) + lambda * sum_j ||W_j:||_2  (Blondel, Seki and
// Uematsu, "Block coordinate descent algorithms for large-scale sparse multiclass
// classification", Machine Learning 2013).
//
// W is d x K (row-major DenseMatrix); block j is the row W_j: (feature j across all classes).
// Every loss has the form
//
//   L(W) = (1/n) sum_i l(s_i, y_i),   s_i = W^T x_i in R^K  (the scores of example i),
//
// and the oracle keeps the n x K score matrix S = X W as its state, so that the partial gradient
// of block j and the effect of changing block j cost O(nnz_j K) through the CSC column j
// (Algorithm 3 of the paper; the margins A_ir = 1 - s_iy + s_ir are formed on the fly).
//
// Contract (cf. dlib's separation_oracle):
//   bind(train)            requires: a multiclass (non-structured) split. Builds CSR/CSC views,
//                          the block constants K_j; sets W = 0 (S = 0). Not counted.
//   block_gradient(j,G,h)  ensures: G[r] = dL/dW_jr, h[r] = generalized second derivative
//                          d^2L/dW_jr^2 (an upper bound where L is not twice differentiable),
//                          at the current state. Counted: one exact call.
//   update_block(j,delta)  S += x_:j delta^T (i.e. W_j: += delta). Returns L(new) - L(old) when
//                          want_change, else 0. Not counted (it is the solver's own step).
//   set_point(W)           S = X W; returns L(W). Counted: d exact calls (a pass over the data).
//   gradient(G)            G = grad L at the current state (d x K). Counted: d exact calls.
//   example_gradient(i,s,g) g = dl(s, y_i)/ds (no 1/n); returns l(s, y_i). Counted: one
//                          exact call (FOBOS: n calls per epoch).
//   value()                L at the current state, O(nK). Not counted.
//   dual_value(theta)      -L^*(theta * grad_S L(S)) at the current state: with
//                          theta <= lambda / max_j ||G_j:||_2 this is a certified lower bound on
//                          min F (Fenchel duality; derivation in plugins/solver/bcd/README.md).
//
// Counting unit: one exact call = one block evaluation (O(nnz_j K) work); an operation on the
// whole data counts d calls, so BCD and full-gradient methods share the oracle-call axis.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "dualgap/data.hpp"
#include "dualgap/oracle.hpp"

namespace dualgap {

class DUALGAP_API BlockLossOracle : public Oracle {
 public:
  /// The interface names describe_oracle puts into the plugin description.
  static std::vector<std::string> interfaces() { return {"block_loss"}; }

  /// Name of the loss ("multiclass_sq_hinge", ...).
  virtual std::string loss_name() const = 0;

  // --- setup (not counted) ---
  void bind(const Examples& train) { do_bind(train); }
  virtual Eigen::Index num_examples() const = 0;
  virtual Eigen::Index num_features() const = 0;
  virtual int num_classes() const = 0;
  /// Row access (CSR) and column access (CSC) of the bound training matrix.
  virtual const SparseMatrix& csr() const = 0;
  virtual const SparseColMatrix& csc() const = 0;
  /// K_j: a Lipschitz constant of the partial gradient of block j (constant-step BCD).
  virtual double block_lipschitz(Eigen::Index j) const = 0;
  /// A Lipschitz constant of the full gradient (constant-step FISTA).
  virtual double global_lipschitz() const = 0;

  // --- block access (BCD) ---
  void block_gradient(Eigen::Index j, double* G, double* h) {
    CallScope scope(*this, CallKind::exact);
    do_block_gradient(j, G, h);
  }
  double update_block(Eigen::Index j, const double* delta, bool want_change = true) {
    return do_update_block(j, delta, want_change);
  }

  // --- whole data (FISTA, SpaRSA, evaluation) ---
  double set_point(const DenseMatrix& W) {
    CallScope scope(*this, CallKind::exact);
    add_calls(num_features() - 1);
    return do_set_point(W);
  }
  void gradient(DenseMatrix& G) {
    CallScope scope(*this, CallKind::exact);
    add_calls(num_features() - 1);
    do_gradient(G);
  }
  double value() const { return do_value(); }

  // --- one example (FOBOS) ---
  double example_gradient(Eigen::Index i, const double* scores, double* g) {
    CallScope scope(*this, CallKind::exact);
    return do_example_gradient(i, scores, g);
  }

  // --- certificates and errors at the current state (not counted) ---
  double dual_value(double theta) const { return do_dual_value(theta); }
  /// Fraction of training examples whose argmax score is not the label.
  virtual double train_error() const = 0;

 protected:
  virtual void do_bind(const Examples& train) = 0;
  virtual void do_block_gradient(Eigen::Index j, double* G, double* h) = 0;
  virtual double do_update_block(Eigen::Index j, const double* delta, bool want_change) = 0;
  virtual double do_set_point(const DenseMatrix& W) = 0;
  virtual void do_gradient(DenseMatrix& G) = 0;
  virtual double do_value() const = 0;
  virtual double do_example_gradient(Eigen::Index i, const double* scores, double* g) = 0;
  virtual double do_dual_value(double theta) const = 0;

 private:
  // A whole-data operation counts as d block evaluations (the CallScope adds the first one).
  void add_calls(Eigen::Index extra) {
    OracleCounters* c = counters();
    if (!c || extra <= 0) return;
    if (c->evaluating)
      c->eval_calls += extra;
    else
      c->exact_calls += extra;
  }
};

}  // namespace dualgap
