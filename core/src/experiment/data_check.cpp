#include "experiment/data_check.hpp"
#include "base/json_text.hpp"

#include <fmt/format.h>

#include <set>

#include "data/pipeline.hpp"
#include "dualgap/parse.hpp"
#include "dualgap/dataset.hpp"

namespace dualgap {

void check_run_data(const std::vector<RunSpec>& runs, const PluginRegistry& reg, std::ostream& out) {
  std::set<std::string> seen;
  for (const auto& run : runs) {
    const json& data_cfg = run.config["data"];
    if (!seen.insert(json_text(data_cfg)).second) continue;
    const LoadedPlugin& dp = reg.get(Kind::dataset, data_cfg["plugin"]);
    DatasetContext ctx;
    ctx.seed = run.config["seeds"]["data"].get<std::uint64_t>();
    Data d;
    try {
      d = load_data(dp, data_cfg["params"], ctx);  // no cache folder: nothing written
    } catch (const ParamError& e) {  // parameters that contradict each other: configuration
      throw ConfigError(fmt::format("{}: data (plugin {}): {}", run.config["file"].get<std::string>(),
                                    data_cfg["plugin"].get<std::string>(), e.what()));
    }
    d.train.check(dp.path + " (train split)");
    if (d.test.num_units() > 0) d.test.check(dp.path + " (test split)");
    out << fmt::format("  data {} ({}): train {} examples ({} units), test {} examples, {} features, {} classes\n",
                       d.name, data_cfg["plugin"].get<std::string>(), d.train.num_examples(), d.train.num_units(),
                       d.test.num_examples(), d.train.num_features(), d.train.num_classes);
  }
}

}  // namespace dualgap
