// A plugin that claims another API version: the loader must refuse it by name.
#include <boost/dll/alias.hpp>

#include "dualgap/plugin.hpp"

namespace bad_api_detail {
const dualgap::PluginHeader* header() {
  static const dualgap::PluginHeader h{dualgap::kApiVersion + 998, 3, "future_solver", nullptr};
  return &h;
}
BOOST_DLL_ALIAS(bad_api_detail::header, dualgap_plugin)
}  // namespace bad_api_detail
