// The two dlib structural SVM problems dlib_ssvm trains, behind one interface so that dlib's
// headers stay in sequence_peer.cpp and graph_peer.cpp.
#pragma once

#include <memory>
#include <vector>

#include "dualgap/data.hpp"

namespace dlib_ssvm {

/// One finished dlib training.
struct Trained {
  dualgap::Vector w;        ///< the model in the oracle's joint feature layout (structured.hpp)
  double objective = 0;     ///< what dlib's oca returns: its objective at w, in dlib's units
  double risk_evals = 0;    ///< oca iterations: risk evaluations, each a pass over the n samples (partly from dlib's cache)
};

class Peer {
 public:
  virtual ~Peer() = default;
  /// Trains from scratch to dlib's risk-gap tolerance eps (structural_svm_problem::set_epsilon).
  virtual Trained train(double eps) = 0;
};

/// Chain (chain_viterbi with loss count): structural_svm_sequence_labeling_problem, C = 1/lambda.
std::unique_ptr<Peer> make_sequence_peer(const dualgap::Examples& ex, double C, unsigned long threads);

/// Binary graph cut (graph_cut): structural_svm_graph_labeling_problem with the Potts weight
/// pinned to beta, C = 2/lambda; node_loss[i] is the loss of one wrong node of example i.
std::unique_ptr<Peer> make_graph_peer(const dualgap::Examples& ex, const std::vector<double>& node_loss, double beta,
                                      double C, unsigned long threads);

}  // namespace dlib_ssvm
