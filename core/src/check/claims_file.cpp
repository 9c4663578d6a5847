// Reading claims.yaml: every key is checked, and a mistake names the file, the line and what
// was expected (a claim that silently reads nothing would "hold" vacuously).
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "check/claims.hpp"

using nlohmann::json;

namespace dualgap::check {

namespace {

struct ClaimsReader {
  std::string path;

  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    const int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    throw std::runtime_error(fmt::format("{}:{}: {}", path, line, what));
  }
  std::string where(const YAML::Node& node) const {
    return fmt::format("{}:{}", path, node.Mark().line >= 0 ? node.Mark().line + 1 : 0);
  }

  void only_keys(const YAML::Node& map, const std::set<std::string>& allowed, const std::string& what) const {
    if (!map.IsMap()) fail(map, what + ": expected a mapping");
    for (const auto& kv : map) {
      const std::string k = kv.first.as<std::string>();
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(kv.first, fmt::format("{}: unknown key '{}' (valid keys: {})", what, k, list));
      }
    }
  }

  std::string str(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, what + ": expected a string");
    return node.as<std::string>();
  }

  double number(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, what + ": expected a number");
    try {
      return node.as<double>();
    } catch (const YAML::Exception&) {
      fail(node, what + ": expected a number, got '" + node.as<std::string>() + "'");
    }
  }

  json scalar_json(const YAML::Node& node) const {
    if (!node.IsScalar()) fail(node, "where: expected a scalar value");
    const std::string s = node.as<std::string>();
    try {
      std::size_t used = 0;
      double v = std::stod(s, &used);
      if (used == s.size()) return v;
    } catch (const std::exception&) {
    }
    return s;
  }

  Side side(const YAML::Node& node, const std::string& what) const {
    Side s;
    if (node.IsScalar()) {
      s.solver = node.as<std::string>();
      return s;
    }
    only_keys(node, {"solver", "experiment", "where"}, what);
    if (!node["solver"]) fail(node, what + ": 'solver' is required");
    s.solver = str(node["solver"], what + ".solver");
    if (node["experiment"]) s.experiment = str(node["experiment"], what + ".experiment");
    if (node["where"]) {
      if (!node["where"].IsMap()) fail(node["where"], what + ".where: expected a mapping of dotted keys");
      for (const auto& kv : node["where"]) s.where[kv.first.as<std::string>()] = scalar_json(kv.second);
    }
    return s;
  }

  std::vector<Side> sides(const YAML::Node& node, const std::string& what) const {
    std::vector<Side> out;
    if (node.IsSequence()) {
      for (const auto& n : node) out.push_back(side(n, what));
      if (out.empty()) fail(node, what + ": empty list");
    } else {
      out.push_back(side(node, what));
    }
    return out;
  }

  std::vector<double> numbers(const YAML::Node& node, const std::string& what) const {
    std::vector<double> out;
    if (node.IsSequence())
      for (const auto& n : node) out.push_back(number(n, what));
    else
      out.push_back(number(node, what));
    return out;
  }

  void require(const YAML::Node& body, const char* key, const std::string& what) const {
    if (!body[key]) fail(body, fmt::format("{}: '{}' is required", what, key));
  }

  void bounds(const YAML::Node& body, Claim& c, const std::string& what) const {
    if (body["below"]) c.below = number(body["below"], what + ".below");
    if (body["above"]) c.above = number(body["above"], what + ".above");
    if (body["below"].IsDefined() == body["above"].IsDefined())
      fail(body, what + ": exactly one of 'below' and 'above' is required");
  }

  Claim claim(const YAML::Node& node, std::size_t index) const {
    const std::string ctx = fmt::format("claim {}", index + 1);
    static const std::set<std::string> kinds = {"fewer", "faster", "lower_final", "order", "share", "final", "external"};
    only_keys(node, {"id", "ref", "text", "paper", "scale", "fewer", "faster", "lower_final", "order", "share", "final",
                     "external"},
              ctx);
    Claim c;
    c.line = where(node);
    if (!node["id"]) fail(node, ctx + ": 'id' is required");
    c.id = str(node["id"], ctx + ".id");
    const std::string what = "claim '" + c.id + "'";
    if (!node["ref"]) fail(node, what + ": 'ref' (the paper's figure or table) is required");
    c.ref = str(node["ref"], what + ".ref");
    if (node["text"]) c.text = str(node["text"], what + ".text");
    if (node["paper"]) c.paper = str(node["paper"], what + ".paper");
    if (node["scale"]) {
      const std::string s = str(node["scale"], what + ".scale");
      if (s != "full" && s != "ci") fail(node["scale"], what + ".scale: expected 'full' or 'ci', got '" + s + "'");
      c.full_scale_only = s == "full";
    }
    YAML::Node body;
    for (const auto& k : kinds)
      if (node[k]) {
        if (!c.kind.empty()) fail(node[k], what + ": one claim has one kind; found '" + c.kind + "' and '" + k + "'");
        c.kind = k;
        body = node[k];
      }
    if (c.kind.empty()) fail(node, what + ": no kind (one of fewer, faster, lower_final, order, share, final, external)");
    const std::string w = what + " (" + c.kind + ")";
    if (c.kind == "fewer" || c.kind == "faster") {
      only_keys(body, {"a", "b", "x", "to", "rel", "by"}, w);
      require(body, "a", w);
      require(body, "b", w);
      require(body, "to", w);
      c.a = sides(body["a"], w + ".a");
      c.b = sides(body["b"], w + ".b");
      if (c.a.size() != 1 || c.b.size() != 1) fail(body, w + ": a and b name one series each");
      c.x = body["x"] ? str(body["x"], w + ".x") : (c.kind == "fewer" ? "oracle_calls" : "time");
      const YAML::Node to = body["to"];
      if (!to.IsMap() || to.size() != 1) fail(to, w + ".to: expected one {metric: level}, e.g. {gap: 1e-3}");
      for (const auto& kv : to) {
        c.to_metric = kv.first.as<std::string>();
        if (kv.second.IsScalar() && kv.second.as<std::string>() == "b_final") c.to_b_final = true;
        else c.to_value = number(kv.second, w + ".to." + c.to_metric);
      }
      if (body["rel"]) c.rel = number(body["rel"], w + ".rel");
      if (body["by"]) c.by = number(body["by"], w + ".by");
      if (!(c.by > 0)) fail(body["by"], w + ".by: expected a positive ratio");
    } else if (c.kind == "lower_final") {
      only_keys(body, {"metric", "a", "b", "at", "at_x", "by"}, w);
      require(body, "metric", w);
      require(body, "a", w);
      require(body, "b", w);
      if (body["by"]) c.by = number(body["by"], w + ".by");
      if (!(c.by > 0)) fail(body["by"], w + ".by: expected a positive factor");
      c.metric = str(body["metric"], w + ".metric");
      c.a = sides(body["a"], w + ".a");
      if (c.a.size() != 1) fail(body["a"], w + ".a: one series");
      c.b = sides(body["b"], w + ".b");
      if (body["at"]) c.at = numbers(body["at"], w + ".at");
      if (body["at_x"]) c.at_x = str(body["at_x"], w + ".at_x");
    } else if (c.kind == "order") {
      only_keys(body, {"metric", "ascending", "at", "at_x", "strict"}, w);
      require(body, "metric", w);
      require(body, "ascending", w);
      c.metric = str(body["metric"], w + ".metric");
      c.a = sides(body["ascending"], w + ".ascending");
      if (c.a.size() < 2) fail(body["ascending"], w + ".ascending: at least two series");
      if (body["at"]) c.at = numbers(body["at"], w + ".at");
      if (body["at_x"]) c.at_x = str(body["at_x"], w + ".at_x");
      if (body["strict"]) c.strict = body["strict"].as<bool>();
    } else if (c.kind == "share") {
      only_keys(body, {"a", "column", "of", "below", "above"}, w);
      require(body, "a", w);
      c.a = sides(body["a"], w + ".a");
      if (c.a.size() != 1) fail(body["a"], w + ".a: one series");
      c.x = body["column"] ? str(body["column"], w + ".column") : "oracle_time";
      c.metric = body["of"] ? str(body["of"], w + ".of") : "time";
      bounds(body, c, w);
    } else if (c.kind == "final") {
      only_keys(body, {"a", "metric", "below", "above"}, w);
      require(body, "a", w);
      require(body, "metric", w);
      c.a = sides(body["a"], w + ".a");
      if (c.a.size() != 1) fail(body["a"], w + ".a: one series");
      c.metric = str(body["metric"], w + ".metric");
      bounds(body, c, w);
    } else {  // external
      if (body.IsScalar()) c.note = body.as<std::string>();
      else fail(body, w + ": expected a sentence saying where this claim is measured");
    }
    return c;
  }
};

}  // namespace

ClaimsFile read_claims(const std::string& path) {
  ClaimsReader r{path};
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw std::runtime_error(path + ": cannot read the claims file");
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(fmt::format("{}:{}: invalid YAML: {}", path, e.mark.line + 1, e.msg));
  }
  ClaimsFile f;
  f.path = path;
  r.only_keys(root, {"paper", "experiment", "ci", "claims"}, "claims file");
  if (root["paper"]) f.paper = r.str(root["paper"], "paper");
  if (root["experiment"]) f.experiment = r.str(root["experiment"], "experiment");
  if (!root["claims"] || !root["claims"].IsSequence()) r.fail(root, "'claims' (a list) is required");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < root["claims"].size(); ++i) {
    Claim c = r.claim(root["claims"][i], i);
    if (!ids.insert(c.id).second) r.fail(root["claims"][i], "claim id '" + c.id + "' is used twice");
    f.claims.push_back(std::move(c));
  }
  return f;
}

}  // namespace dualgap::check
