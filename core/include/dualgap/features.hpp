// The "features" plugin kind: a transform fitted on the training split and applied to both
// splits, and optionally a generator of feature blocks for stagewise solvers.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "dualgap/data.hpp"
#include "dualgap/plugin_object.hpp"

namespace dualgap {

class DUALGAP_API FeatureGenerator : public PluginObject {
 public:
  ~FeatureGenerator() override;
  /// Fits on the training split only. `seed` is the repeat's feature seed: every solver of a
  /// repeat sees the same draws (common random numbers).
  virtual void fit(const Examples& train, std::uint64_t seed) = 0;
  /// Applies the fitted transform to rows of X (train or test, identically).
  virtual FeatureMatrix transform(const FeatureMatrix& X) const = 0;

  /// Block generation for stagewise solvers: block b (0, 1, 2, ...) of `p` new features for
  /// the rows of X, a deterministic function of (fit, seed, b, p), so that train and test rows
  /// get the same features. Only one block needs to exist in memory at a time.
  virtual bool supports_blocks() const { return false; }
  virtual FeatureMatrix block(std::size_t b, std::size_t p, const FeatureMatrix& X) const {
    (void)b, (void)p, (void)X;
    throw std::logic_error("this feature generator does not generate blocks");
  }

  /// Stagewise solvers call this before drawing block `next_block` (of `p` features) with the
  /// current residual Y - Yhat of the training units (units x K). Generators that order
  /// features by the residual gradient X^T R (e.g. gradient_ordered) use it; blocks already
  /// drawn must keep their columns, so that test rows get the same features. Default: no-op.
  virtual void observe_residual(std::size_t next_block, std::size_t p, const DenseMatrix& residual) {
    (void)next_block, (void)p, (void)residual;
  }
};

}  // namespace dualgap
