// The least-squares objective (family "least_squares"): written by the least-squares conversion.
#include <stdexcept>

#include "objectives/families.hpp"

namespace dualgap {

std::unique_ptr<Objective> make_least_squares_objective(const Problem&, const ObjectiveSpec&, const ScoreOptions&) {
  throw std::runtime_error("the least_squares objective is not implemented yet");
}

}  // namespace dualgap
