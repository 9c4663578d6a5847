// A plugin built against plugin API 1 (solvers reported their own primal and dual): the loader
// of a later API must refuse it, naming both versions.
#include <boost/dll/alias.hpp>

#include "dualgap/plugin.hpp"

namespace api_v1_detail {
const dualgap::PluginHeader* header() {
  static const dualgap::PluginHeader h{1, 3, "api1_solver", nullptr};
  return &h;
}
BOOST_DLL_ALIAS(api_v1_detail::header, dualgap_plugin)
}  // namespace api_v1_detail
