// Evaluating one claim on recorded runs. Medians over repeats; a run that never reaches a
// target is censored at its budget exactly as in `dualgap compare` (censored_stats), and a
// ratio decided by censored values is reported as a bound ("> 3.1x"), never as a number.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "check/claims.hpp"

using nlohmann::json;
using namespace dualgap::compare;

namespace dualgap::check {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::holds: return "holds";
    case Verdict::fails: return "fails";
    case Verdict::not_measurable: return "not measurable";
    case Verdict::skipped: return "full scale only";
  }
  return "?";
}

namespace {

/// The value at a dotted key of the run's data/features/oracle/problem configuration.
const json* config_value(const Run& run, const std::string& dotted) {
  const json* node = &run.problem_config;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const auto dot = dotted.find('.', start);
    const std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (node->is_object()) {
      auto it = node->find(key);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else if (node->is_array()) {
      std::size_t i = 0;
      try {
        i = std::stoul(key);
      } catch (const std::exception&) {
        return nullptr;
      }
      if (i >= node->size()) return nullptr;
      node = &(*node)[i];
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

bool same_value(const json& have, const json& want) {
  if (have.is_number() && want.is_number()) {
    const double a = have.get<double>(), b = want.get<double>();
    return a == b || std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
  }
  if (have.is_string() && want.is_number()) {  // e.g. lambda written "1e-3" in the YAML
    try {
      return same_value(json(std::stod(have.get<std::string>())), want);
    } catch (const std::exception&) {
      return false;
    }
  }
  if (have.is_string() && want.is_string()) return have == want;
  return json_text(have) == json_text(want);
}

}  // namespace

bool side_matches(const Run& run, const Side& side, const std::string& default_experiment) {
  if (run.solver != side.solver) return false;
  const std::string& experiment = side.experiment.empty() ? default_experiment : side.experiment;
  if (!experiment.empty() && run.experiment != experiment) return false;
  for (const auto& [key, want] : side.where) {
    const json* have = config_value(run, key);
    if (!have || !same_value(*have, want)) return false;
  }
  return true;
}

namespace {

std::vector<const Run*> select(const RunSet& set, const ClaimsFile& file, const Side& side) {
  std::vector<const Run*> out;
  for (const Run& run : set.runs)
    if (side_matches(run, side, file.experiment)) out.push_back(&run);
  return out;
}

std::string side_name(const Side& s) {
  std::string n = s.solver;
  std::string extra;
  if (!s.experiment.empty()) extra += s.experiment;
  for (const auto& [k, v] : s.where)
    extra += (extra.empty() ? "" : ", ") + k + " " + (v.is_string() ? v.get<std::string>() : json_text(v));
  return extra.empty() ? n : n + " (" + extra + ")";
}

/// A column of a run (derived as compare derives it), or a summary value as a one-point series.
std::vector<double> column(const RunSet& set, const Run& run, const std::string& name) {
  auto s = series(set, run, name);
  if (s.empty()) {
    auto it = run.summary.find(name);
    if (it != run.summary.end()) s.push_back(it->second);
  }
  return s;
}

}  // namespace

double final_value(const RunSet& set, const Run& run, const std::string& name) { return last_finite(column(set, run, name)); }

namespace {

/// The run's value of `metric` at x = at (last checkpoint with x <= at), or its final value when
/// `at` is NaN. Beyond its last checkpoint a run that finished by itself (status done: converged,
/// e.g. boosting whose best edge is <= 1) keeps its final value; one stopped by a budget has none.
double value_at(const RunSet& set, const Run& run, const std::string& metric, const std::string& at_x, double at) {
  const auto y = column(set, run, metric);
  if (!std::isfinite(at)) return last_finite(y);
  const auto x = column(set, run, at_x);
  const double v = resample_step(x, y, {at})[0];
  if (std::isnan(v) && run.status == "done" && last_finite(x) < at) return last_finite(y);
  return v;
}

struct Medians {
  double median = kNaN;
  int n = 0, total = 0;
};

Medians median_over(const std::vector<double>& values) {
  Medians m;
  m.total = static_cast<int>(values.size());
  for (double v : values) m.n += std::isfinite(v) ? 1 : 0;
  m.median = median_of(values);
  return m;
}

std::string cell(const CensoredStats& s) {
  if (s.total == 0) return "no runs";
  std::string med = s.median_censored ? "> " + format_number(s.median) : format_number(s.median);
  std::string range;
  if (s.reached > 1 || s.total > 1)
    range = fmt::format(" [{}, {}{}]", std::isfinite(s.min) ? format_number(s.min) : "-",
                        s.max_censored ? "> " : "", format_number(s.max));
  return fmt::format("{}{} {}/{}", med, range, s.reached, s.total);
}

std::string ratio_text(double r) { return r >= 10 ? fmt::format("{:.0f}x", r) : fmt::format("{:.2g}x", r); }

Outcome ratio_claim(const RunSet& set, const ClaimsFile& file, const Claim& c) {
  Outcome o;
  const auto a_runs = select(set, file, c.a[0]);
  const auto b_runs = select(set, file, c.b[0]);
  const std::string an = side_name(c.a[0]), bn = side_name(c.b[0]);
  if (a_runs.empty() || b_runs.empty()) {
    o.reason = fmt::format("no runs of {}", a_runs.empty() ? an : bn);
    return o;
  }
  std::vector<Hit> a_hits, b_hits;
  if (c.to_b_final) {
    // Per data split: a's first reach of b's final value, against b's whole budget.
    for (const Run* b : b_runs) b_hits.push_back({true, last_finite(column(set, *b, c.x))});
    for (const Run* a : a_runs)
      for (const Run* b : b_runs) {
        if (b->bound_key != a->bound_key) continue;
        const double target = last_finite(column(set, *b, c.to_metric));
        if (!std::isfinite(target)) continue;
        a_hits.push_back(first_reach(column(set, *a, c.x), column(set, *a, c.to_metric), target + std::abs(target) * c.rel));
        break;
      }
  } else {
    for (const Run* r : a_runs) a_hits.push_back(first_reach(column(set, *r, c.x), column(set, *r, c.to_metric), c.to_value));
    for (const Run* r : b_runs) b_hits.push_back(first_reach(column(set, *r, c.x), column(set, *r, c.to_metric), c.to_value));
  }
  const CensoredStats sa = censored_stats(a_hits), sb = censored_stats(b_hits);
  o.measured = fmt::format("{} to {} {}: {} {}; {} {}", c.x, c.to_metric,
                           c.to_b_final ? fmt::format("{}'s final", bn) : format_number(c.to_value), an, cell(sa), bn,
                           c.to_b_final ? format_number(sb.median) + " (its budget)" : cell(sb));
  if (sa.total == 0 || sb.total == 0) {
    o.reason = "no run had the columns " + c.x + " and " + c.to_metric;
    return o;
  }
  const std::string need = fmt::format("need >= {}x", format_number(c.by));
  if (!std::isfinite(sa.median) || !std::isfinite(sb.median)) {
    o.reason = "no value recorded";
    return o;
  }
  if (!sa.median_censored && !sb.median_censored) {
    if (!(sa.median > 0)) {
      o.measured += "; " + an + " at once";
      o.verdict = sb.median > 0 ? Verdict::holds : Verdict::not_measurable;
      return o;
    }
    const double r = sb.median / sa.median;
    o.measured += fmt::format("; ratio {} ({})", ratio_text(r), need);
    o.verdict = r >= c.by ? Verdict::holds : Verdict::fails;
  } else if (!sa.median_censored && sb.median_censored) {
    const double r = sa.median > 0 ? sb.median / sa.median : INFINITY;
    o.measured += fmt::format("; ratio > {} ({})", ratio_text(r), need);
    if (r >= c.by) o.verdict = Verdict::holds;
    else o.reason = fmt::format("{} did not reach the target on most runs and its budget is too short to show {}x",
                                bn, format_number(c.by));
  } else if (sa.median_censored && !sb.median_censored) {
    const double r = sb.median / sa.median;
    o.measured += fmt::format("; ratio < {} ({})", ratio_text(r), need);
    if (r < c.by) o.verdict = Verdict::fails;
    else o.reason = an + " did not reach the target on most runs";
  } else {
    o.reason = "neither reached the target on most runs";
  }
  return o;
}

std::vector<double> at_points(const Claim& c) { return c.at.empty() ? std::vector<double>{kNaN} : c.at; }

std::string at_label(const Claim& c, double at) {
  return std::isfinite(at) ? fmt::format("at {} {}", c.at_x, format_number(at)) : std::string("final");
}

Medians side_medians(const RunSet& set, const ClaimsFile& file, const Claim& c, const Side& s, double at) {
  std::vector<double> v;
  for (const Run* r : select(set, file, s)) v.push_back(value_at(set, *r, c.metric, c.at_x, at));
  return median_over(v);
}

std::string med_text(const Medians& m) {
  return m.total == 0 ? "no runs" : fmt::format("{} ({}/{})", format_number(m.median), m.n, m.total);
}

Outcome lower_final(const RunSet& set, const ClaimsFile& file, const Claim& c) {
  Outcome o;
  bool all_measurable = true, all_hold = true;
  std::vector<std::string> parts;
  for (double at : at_points(c)) {
    const Medians ma = side_medians(set, file, c, c.a[0], at);
    std::string part = fmt::format("{}: {} {}", at_label(c, at), side_name(c.a[0]), med_text(ma));
    for (const Side& s : c.b) {
      const Medians mb = side_medians(set, file, c, s, at);
      part += fmt::format(", {} {}", side_name(s), med_text(mb));
      if (!std::isfinite(ma.median) || !std::isfinite(mb.median)) all_measurable = false;
      else if (!(ma.median * c.by < mb.median || (c.by != 1 && ma.median * c.by == mb.median))) all_hold = false;
      else if (c.by != 1 && ma.median > 0) part += fmt::format(" ({} lower)", ratio_text(mb.median / ma.median));
    }
    parts.push_back(part);
  }
  o.measured = c.metric + " median " + fmt::format("{}", fmt::join(parts, "; "));
  if (c.by != 1) o.measured += fmt::format(" (need {}x lower)", format_number(c.by));
  if (!all_hold) o.verdict = Verdict::fails;
  else if (all_measurable) o.verdict = Verdict::holds;
  else o.reason = "a series has no value there";
  return o;
}

Outcome order(const RunSet& set, const ClaimsFile& file, const Claim& c) {
  Outcome o;
  bool all_measurable = true, all_hold = true;
  std::vector<std::string> parts;
  for (double at : at_points(c)) {
    std::vector<std::string> items;
    double prev = kNaN;
    for (const Side& s : c.a) {
      const Medians m = side_medians(set, file, c, s, at);
      items.push_back(side_name(s) + " " + med_text(m));
      if (!std::isfinite(m.median)) all_measurable = false;
      else if (std::isfinite(prev) && (c.strict ? !(prev < m.median) : !(prev <= m.median))) all_hold = false;
      if (std::isfinite(m.median)) prev = m.median;
    }
    parts.push_back(at_label(c, at) + ": " + fmt::format("{}", fmt::join(items, c.strict ? " < " : " <= ")));
  }
  o.measured = c.metric + " median " + fmt::format("{}", fmt::join(parts, "; "));
  if (!all_hold) o.verdict = Verdict::fails;
  else if (all_measurable) o.verdict = Verdict::holds;
  else o.reason = "a series has no value";
  return o;
}

Outcome threshold(const Claim& c, const std::vector<double>& values, const std::string& what) {
  Outcome o;
  const Medians m = median_over(values);
  const bool below = std::isfinite(c.below);
  o.measured = fmt::format("{} median {} [{}/{} runs] ({} {})", what, format_number(m.median), m.n, m.total,
                           below ? "need <" : "need >", format_number(below ? c.below : c.above));
  if (m.n > 1) {
    double mn = INFINITY, mx = -INFINITY;
    for (double v : values)
      if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
    o.measured += fmt::format(", range [{}, {}]", format_number(mn), format_number(mx));
  }
  if (!std::isfinite(m.median)) {
    o.reason = m.total == 0 ? "no runs" : "no value recorded";
    return o;
  }
  o.verdict = (below ? m.median < c.below : m.median > c.above) ? Verdict::holds : Verdict::fails;
  return o;
}

}  // namespace

void Tally::add(const Outcome& o) {
  off_scale += !o.scale.empty();
  holds += o.verdict == Verdict::holds;
  fails += o.verdict == Verdict::fails;
  // An external claim is measured by another tool (a peer's script): never a failure here.
  external += o.claim->kind == "external";
  unmeasured += o.verdict == Verdict::not_measurable && o.claim->kind != "external";
  skipped += o.verdict == Verdict::skipped;
}

std::string Tally::line() const {
  return fmt::format("{} claims: {} hold, {} fail, {} not measurable{}{}{}\n", holds + fails + unmeasured + skipped + external,
                     holds, fails, unmeasured, skipped ? fmt::format(", {} full scale only", skipped) : "",
                     external ? fmt::format(", {} measured elsewhere", external) : "",
                     off_scale ? fmt::format(" ({} on runs not at the claims' scale: see each verdict)", off_scale) : "");
}

Outcome evaluate(const RunSet& set, const ClaimsFile& file, const Claim& c, bool ci_scale) {
  Outcome o;
  if (ci_scale && c.full_scale_only) {
    o.verdict = Verdict::skipped;
    o.claim = &c;
    return o;
  }
  if (c.kind == "fewer" || c.kind == "faster") {
    o = ratio_claim(set, file, c);
  } else if (c.kind == "lower_final") {
    o = lower_final(set, file, c);
  } else if (c.kind == "order") {
    o = order(set, file, c);
  } else if (c.kind == "share") {
    std::vector<double> v;
    for (const Run* r : select(set, file, c.a[0])) {
      const double part = last_finite(column(set, *r, c.x)), whole = last_finite(column(set, *r, c.metric));
      v.push_back(whole > 0 ? part / whole : kNaN);
    }
    o = threshold(c, v, fmt::format("{} {}/{}", side_name(c.a[0]), c.x, c.metric));
  } else if (c.kind == "final") {
    std::vector<double> v;
    for (const Run* r : select(set, file, c.a[0])) v.push_back(value_at(set, *r, c.metric, c.at_x, kNaN));
    o = threshold(c, v, fmt::format("{} final {}", side_name(c.a[0]), c.metric));
  } else {
    o.reason = c.note;
  }
  o.claim = &c;
  if (c.kind != "external") {
    std::vector<const Run*> read;
    for (const auto* sides : {&c.a, &c.b})
      for (const Side& s : *sides)
        for (const Run* r : select(set, file, s))
          if (std::find(read.begin(), read.end(), r) == read.end()) read.push_back(r);
    o.scale = scale_differences(file, read, ci_scale);
  }
  return o;
}

}  // namespace dualgap::check
