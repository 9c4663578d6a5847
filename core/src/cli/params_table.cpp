// The Markdown parameter table of a plugin and its place in the plugin's README (params_table.hpp).
#include "cli/params_table.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "base/json_text.hpp"
#include "data/options.hpp"

namespace dualgap {

namespace {

/// A table cell: a '|' would end it and a newline the row.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string code(const std::string& s) { return "`" + s + "`"; }

std::string number(double x) { return fmt::format("{}", x); }

bool is_list(ParamType t) {
  return t == ParamType::real_list || t == ParamType::int_list || t == ParamType::string_list;
}

std::string default_of(const ParamSpec& s) {
  if (s.default_value.is_null()) return s.optional ? "optional" : "required";
  if (s.default_value.is_string()) {
    const std::string v = s.default_value.get<std::string>();
    return code(v.empty() ? "\"\"" : v);
  }
  return code(json_text(s.default_value));
}

std::string range_of(const ParamSpec& s) {
  std::vector<std::string> parts;
  if (!s.choices.empty()) {
    std::vector<std::string> names;
    for (auto& c : s.choices) names.push_back(code(c));
    parts.push_back(fmt::format("{}", fmt::join(names, ", ")));
  }
  std::string bounds;
  if (s.min && s.max) bounds = fmt::format("[{}, {}]", number(*s.min), number(*s.max));
  else if (s.min) bounds = ">= " + number(*s.min);
  else if (s.max) bounds = "<= " + number(*s.max);
  if (!bounds.empty()) parts.push_back(is_list(s.type) ? "each " + bounds : bounds);
  // The names an integer accepts; the numbers they stand for depend on the machine, so they
  // are not printed.
  for (auto& [name, value] : s.named.items()) parts.push_back("or " + code(name));
  return fmt::format("{}", fmt::join(parts, " "));
}

const SectionMarkers kParams = {kParamsBegin, kParamsEnd, "the place of the parameter table"};

/// The 0-based indexes of the marker lines of `lines`.
std::pair<std::size_t, std::size_t> markers(const std::vector<std::string>& lines, const SectionMarkers& m,
                                            const std::string& file) {
  std::vector<std::size_t> begins, ends;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] == m.begin) begins.push_back(i);
    if (lines[i] == m.end) ends.push_back(i);
  }
  if (begins.size() != 1 || ends.size() != 1 || ends[0] < begins[0])
    throw std::runtime_error(fmt::format("{}: expected one line {} and, after it, one line {} ({}); found {} and {}", file,
                                         m.begin, m.end, m.what, begins.size(), ends.size()));
  return {begins[0], ends[0]};
}

}  // namespace

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t b = 0;
  while (b < text.size()) {
    const auto e = text.find('\n', b);
    out.push_back(text.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return out;
}

bool has_section(const std::string& text, const SectionMarkers& m) {
  for (const auto& line : lines_of(text))
    if (line == m.begin || line == m.end) return true;
  return false;
}

std::string with_section(const std::string& text, const SectionMarkers& m, const std::string& body,
                         const std::string& file) {
  const std::vector<std::string> lines = lines_of(text);
  const auto [begin, end] = markers(lines, m, file);
  std::string out;
  for (std::size_t i = 0; i <= begin; ++i) out += lines[i] + "\n";
  out += body;
  if (!body.empty() && body.back() != '\n') out += "\n";
  for (std::size_t i = end; i < lines.size(); ++i)
    out += lines[i] + (i + 1 < lines.size() || text.back() == '\n' ? "\n" : "");
  return out;
}

std::string params_markdown(const PluginDescription& d) {
  std::string out;
  if (d.params.empty()) {
    out += "No parameters.\n";
  } else {
    out += "| name | type | default | range or choices | meaning |\n|---|---|---|---|---|\n";
    for (auto& s : d.params)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", code(s.name), to_string(s.type), cell(default_of(s)),
                         cell(range_of(s)), cell(s.doc));
  }
  if (d.kind == Kind::dataset) {
    std::vector<std::string> core;
    for (auto& c : data_schema(d.params))
      if (std::none_of(d.params.begin(), d.params.end(), [&](const ParamSpec& o) { return o.name == c.name; }))
        core.push_back(code(c.name));
    core.push_back(code("validation"));
    out += fmt::format("\nThe core `data:` keys apply beside these (docs/data.md): {}.\n", fmt::join(core, ", "));
  }
  return out;
}

std::string with_params_table(const std::string& readme, const std::string& table, const std::string& file) {
  return with_section(readme, kParams, table, file);
}

std::optional<TableMismatch> params_table_mismatch(const std::string& readme, const std::string& table,
                                                   const std::string& file) {
  const std::vector<std::string> lines = lines_of(readme);
  const auto [begin, end] = markers(lines, kParams, file);
  const std::vector<std::string> want = lines_of(table);
  const std::size_t have = end - begin - 1;
  for (std::size_t k = 0; k < std::max(have, want.size()); ++k) {
    const std::size_t i = begin + 1 + k;  // the README's line (the end marker once its table has ended)
    const std::string& got = lines[std::min(i, end)];
    const std::string& expected = k < want.size() ? want[k] : std::string(kParamsEnd);
    if (k >= have || k >= want.size() || got != expected) return TableMismatch{std::min(i, end) + 1, got, expected};
  }
  return std::nullopt;
}

}  // namespace dualgap
