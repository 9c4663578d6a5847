// The tables a claims file declares (claims.hpp: TableDecl), computed from recorded runs: a
// paper's table reproduced as a table, the paper's number beside ours in every cell, never as a
// curve plot.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "check/claims.hpp"
#include "compare/table_format.hpp"

namespace dualgap::check {

namespace {

// Three significant digits, as the claims table prints its figures.
std::string number_text(double v) { return std::isfinite(v) ? fmt::format("{:.3g}", v) : std::string("n/a"); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One cell's figure from the final values of its runs (at least one).
std::string summarise(std::vector<double> v, TableDecl::Stat stat) {
  std::sort(v.begin(), v.end());
  switch (stat) {
    case TableDecl::Stat::min: return number_text(v.front());
    case TableDecl::Stat::max: return number_text(v.back());
    case TableDecl::Stat::mean_std: {
      const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
      double ss = 0;
      for (double x : v) ss += (x - mean) * (x - mean);
      // The sample standard deviation, as the MultiBoost legends give it over their repeats.
      const double sd = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
      return fmt::format("{} ± {}", number_text(mean), number_text(sd));
    }
    case TableDecl::Stat::median: return number_text(median(v));
    case TableDecl::Stat::median_range:
      if (v.size() == 1) return number_text(v.front());
      return fmt::format("{} [{}, {}]", number_text(median(v)), number_text(v.front()), number_text(v.back()));
  }
  return "?";
}

const char* stat_words(TableDecl::Stat stat) {
  switch (stat) {
    case TableDecl::Stat::median_range: return "median [min, max]";
    case TableDecl::Stat::median: return "median";
    case TableDecl::Stat::mean_std: return "mean ± standard deviation";
    case TableDecl::Stat::min: return "minimum";
    case TableDecl::Stat::max: return "maximum";
  }
  return "?";
}

}  // namespace

std::string table_markdown(const compare::RunSet& set, const ClaimsFile& file, const TableDecl& table) {
  compare::Table out;
  out.header.push_back("");
  for (const auto& c : table.columns) {
    out.header.push_back(c + ": paper");
    out.header.push_back(c + ": ours");
  }
  std::vector<TableDecl::Stat> stats_used;
  for (const auto& row : table.rows) {
    std::vector<std::string> cells = {row.name};
    for (std::size_t c = 0; c < row.cells.size(); ++c) {
      const TableDecl::Cell& cell = row.cells[c];
      std::vector<double> values;
      std::size_t selected = 0;
      for (const compare::Run& run : set.runs)
        if (side_matches(run, cell.side, file.experiment)) {
          ++selected;
          const double v = final_value(set, run, table.y);
          if (std::isfinite(v)) values.push_back(v * table.scale);
        }
      if (selected == 0)
        throw std::runtime_error(fmt::format("{}: table '{}', row '{}', column '{}': no run of solver '{}'{}", table.line,
                                             table.ref, row.name, table.columns[c], cell.side.solver,
                                             cell.side.experiment.empty() ? "" : " in experiment '" + cell.side.experiment + "'"));
      cells.push_back(std::isfinite(cell.paper) ? number_text(cell.paper) : "—");
      cells.push_back(values.empty() ? fmt::format("n/a (no {} in {} runs)", table.y, selected) : summarise(values, cell.stat));
      if (std::find(stats_used.begin(), stats_used.end(), cell.stat) == stats_used.end()) stats_used.push_back(cell.stat);
    }
    out.rows.push_back(std::move(cells));
  }
  std::string words;
  for (std::size_t i = 0; i < stats_used.size(); ++i)
    words += (i == 0 ? "" : i + 1 == stats_used.size() ? " or " : ", ") + std::string(stat_words(stats_used[i]));
  std::string s = fmt::format("*{}*: {}. Ours: {}{} at each run's end, the {} over the cell's runs; — where the paper gives no "
                              "number.\n\n",
                              table.ref, table.caption, table.y, table.scale != 1 ? fmt::format(" x {:g}", table.scale) : "",
                              words);
  s += compare::render_table(out, compare::TableFormat::markdown);
  if (!table.note.empty()) s += "\n" + table.note + "\n";
  return s;
}

}  // namespace dualgap::check
