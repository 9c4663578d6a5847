// The boosting objective (family "boosting"): written by the boosting conversion.
#include <stdexcept>

#include "objectives/families.hpp"

namespace dualgap {

std::unique_ptr<Objective> make_boosting_objective(const Problem&, const ObjectiveSpec&, const ScoreOptions&) {
  throw std::runtime_error("the boosting objective is not implemented yet");
}

}  // namespace dualgap
