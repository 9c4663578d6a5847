// Raw label tokens to classes 0..K-1 (dualgap/parse.hpp).
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "dualgap/parse.hpp"

namespace dualgap {

namespace {
std::string number_name(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the short form when it round-trips (6 instead of 6.0000 or 6.0000000000000000).
  char s[64];
  std::snprintf(s, sizeof s, "%g", v);
  return std::strtod(s, nullptr) == v ? std::string(s) : std::string(buf);
}
}  // namespace

LabelMap LabelMap::build(const std::vector<std::string>& tokens) {
  LabelMap m;
  std::vector<double> vals;
  vals.reserve(tokens.size());
  for (auto& t : tokens) {
    double v;
    if (!parse_double(t, v)) {
      m.numeric_ = false;
      break;
    }
    vals.push_back(v);
  }
  if (m.numeric_) {
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    m.values_ = vals;
    for (double v : vals) m.names_.push_back(number_name(v));
  } else {
    m.names_ = tokens;
    std::sort(m.names_.begin(), m.names_.end());
    m.names_.erase(std::unique(m.names_.begin(), m.names_.end()), m.names_.end());
  }
  return m;
}

int LabelMap::index(std::string_view token) const {
  if (numeric_) {
    double v;
    if (!parse_double(token, v)) return -1;
    auto it = std::lower_bound(values_.begin(), values_.end(), v);
    return (it != values_.end() && *it == v) ? static_cast<int>(it - values_.begin()) : -1;
  }
  auto it = std::lower_bound(names_.begin(), names_.end(), token,
                             [](const std::string& a, std::string_view b) { return std::string_view(a) < b; });
  return (it != names_.end() && *it == token) ? static_cast<int>(it - names_.begin()) : -1;
}

int LabelCollector::add(std::string_view token) {
  if (last_id_ >= 0 && token == last_) return last_id_;
  int id = -1;
  for (std::size_t k = 0; k < tokens_.size(); ++k)
    if (tokens_[k] == token) {
      id = static_cast<int>(k);
      break;
    }
  if (id < 0) {
    tokens_.emplace_back(token);
    id = static_cast<int>(tokens_.size()) - 1;
  }
  last_.assign(token);
  last_id_ = id;
  return id;
}

std::vector<std::int64_t> class_counts(const Examples& ex) {
  std::vector<std::int64_t> c(static_cast<std::size_t>(std::max(ex.num_classes, 0)), 0);
  for (int y : ex.y)
    if (y >= 0 && y < ex.num_classes) ++c[static_cast<std::size_t>(y)];
  return c;
}

}  // namespace dualgap
