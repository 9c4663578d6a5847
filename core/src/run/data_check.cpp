#include "run/data_check.hpp"
#include "base/json_text.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "base/util.hpp"
#include "data/pipeline.hpp"
#include "dualgap/dataset.hpp"
#include "dualgap/parse.hpp"
#include "experiment/data_rules.hpp"
#include "run/prepare.hpp"

namespace dualgap {

namespace {

/// The classes as the data names them, in class order (what a per-class parameter lists).
std::string class_list(const DataShape& s) {
  constexpr std::size_t kShown = 20;
  std::string out;
  for (std::size_t k = 0; k < s.class_names.size() && k < kShown; ++k)
    out += (k ? " " : "") + printable(s.class_names[k]);
  if (s.class_names.size() > kShown) out += " ...";
  return out;
}

}  // namespace

void check_run_data(const std::vector<RunSpec>& runs, const PluginRegistry& reg, std::ostream& out) {
  // The runs by data section and feature chain, in the order they come.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const RunSpec*>> groups;
  for (const auto& run : runs) {
    const std::string key = json_text(run.config["data"]) + "\n" + json_text(run.config["features"]);
    auto& members = groups[key];
    if (members.empty()) order.push_back(key);
    members.push_back(&run);
  }
  std::set<std::string> printed, checked;
  for (const auto& key : order) {
    const std::vector<const RunSpec*>& members = groups.at(key);
    const RunSpec& first = *members.front();
    const json& cfg = first.config;
    const Locate locate = [&first](const std::string& p) { return first.locate(p); };
    const json& data_cfg = cfg["data"];
    const LoadedPlugin& dp = reg.get(Kind::dataset, data_cfg["plugin"]);
    DatasetContext ctx;
    ctx.seed = cfg["seeds"]["data"].get<std::uint64_t>();
    const double validation = data_cfg.contains("validation") ? data_cfg["validation"].get<double>() : 0.0;
    Data d;
    try {
      d = load_data(dp, data_cfg["params"], ctx, validation);  // no cache folder: nothing written
    } catch (const ParamError& e) {  // parameters that contradict each other: configuration
      throw ConfigError(fmt::format("{}: data (plugin {}): {}", cfg["file"].get<std::string>(),
                                    data_cfg["plugin"].get<std::string>(), e.what()));
    }
    d.train.check(dp.path + " (train split)");
    if (d.test.num_units() > 0) d.test.check(dp.path + " (test split)");
    const DataShape loaded = data_shape(d.train, d.source);
    if (printed.insert(json_text(data_cfg)).second)
      out << fmt::format("  data {} ({}): train {} examples ({} units), test {} examples, {} features, {} classes: {}\n",
                         d.name, data_cfg["plugin"].get<std::string>(), d.train.num_examples(), d.train.num_units(),
                         d.test.num_examples(), d.train.num_features(), d.train.num_classes, class_list(loaded));
    // How far the feature chain must run: to its end when an oracle or a solver has rules
    // against the data, else up to the last features plugin that has some.
    bool downstream = false;
    for (const RunSpec* r : members)
      downstream = downstream || has_data_rules(r->config, "/oracle", reg) || has_data_rules(r->config, "/solver", reg);
    const std::size_t steps = cfg["features"].size();
    std::size_t needed = downstream ? steps : 0;
    for (std::size_t f = 0; f < steps && !downstream; ++f)
      if (has_data_rules(cfg, "/features/" + std::to_string(f), reg)) needed = f + 1;
    for (std::size_t f = 0; f < needed; ++f) {
      if (f + 1 < needed || downstream) apply_features_step(cfg, f, reg, d, locate);
      else check_data_rules(cfg, "/features/" + std::to_string(f), data_shape(d.train, d.source), reg, locate);
    }
    if (!downstream) continue;
    if (steps > 0)
      out << fmt::format("    after the feature chain: {} features\n", d.train.num_features());
    const DataShape shape = data_shape(d.train, d.source);
    for (const RunSpec* r : members)
      for (const char* pointer : {"/oracle", "/solver"}) {
        const json::json_pointer at(pointer);
        if (!r->config.contains(at) || r->config[at].is_null()) continue;
        if (!checked.insert(key + pointer + json_text(r->config[at])).second) continue;
        check_data_rules(r->config, pointer, shape, reg, [r](const std::string& p) { return r->locate(p); });
      }
  }
}

}  // namespace dualgap
