// The constructors of the four families' objectives (one file each in this folder).
#pragma once

#include <memory>

#include "dualgap/objective.hpp"

namespace dualgap {

std::unique_ptr<Objective> make_ssvm_objective(const Problem& pb, const ObjectiveSpec& spec, const ScoreOptions& opt);
std::unique_ptr<Objective> make_sparse_multiclass_objective(const Problem& pb, const ObjectiveSpec& spec,
                                                            const ScoreOptions& opt);
std::unique_ptr<Objective> make_boosting_objective(const Problem& pb, const ObjectiveSpec& spec, const ScoreOptions& opt);
std::unique_ptr<Objective> make_least_squares_objective(const Problem& pb, const ObjectiveSpec& spec,
                                                        const ScoreOptions& opt);

}  // namespace dualgap
