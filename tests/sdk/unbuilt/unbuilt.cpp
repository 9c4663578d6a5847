// A plugin of the test tree that no default build builds (target dualgap_sdk_unbuilt,
// EXCLUDE_FROM_ALL): the tree then always holds a plugin that was not built, as after the
// README's quickstart, and the SDK test's `cmake --install` of it checks that the install skips
// what was not built. Built on purpose it is a valid features plugin (the identity).
#include "dualgap/plugin.hpp"

namespace {

class UnbuiltFeatures final : public dualgap::FeatureGenerator {
 public:
  void fit(const dualgap::Examples&, std::uint64_t) override {}
  dualgap::FeatureMatrix transform(const dualgap::FeatureMatrix& X) const override { return X; }
};

dualgap::PluginDescription describe() {
  return dualgap::describe_features<UnbuiltFeatures>("sdk_unbuilt", "0.1.0",
                                                     "The identity (a test plugin that is never built by default)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
