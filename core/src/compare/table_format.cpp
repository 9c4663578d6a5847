// Rendering of plain tables (see table_format.hpp).
#include "compare/table_format.hpp"

#include <algorithm>
#include <stdexcept>

namespace dualgap::compare {

namespace {

// Display width in columns: UTF-8 continuation bytes take no column.
std::size_t width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string latex_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '\\': o += "\\textbackslash{}"; break;
      case '&': case '%': case '$': case '#': case '_': case '{': case '}': o += '\\'; o += c; break;
      case '~': o += "\\textasciitilde{}"; break;
      case '^': o += "\\textasciicircum{}"; break;
      case '<': o += "$<$"; break;
      case '>': o += "$>$"; break;
      default: o += c;
    }
  }
  return o;
}

std::string markdown_cell(const std::string& s) {
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
  return o;
}

}  // namespace

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

TableFormat parse_table_format(const std::string& name) {
  if (name == "text") return TableFormat::text;
  if (name == "markdown") return TableFormat::markdown;
  if (name == "latex") return TableFormat::latex;
  if (name == "csv") return TableFormat::csv;
  throw std::invalid_argument("--format must be text, markdown, latex or csv, not '" + name + "'");
}

std::string render_table(const Table& table, TableFormat format, const std::string& indent) {
  const std::size_t ncol = table.header.size();
  auto cell = [&](const std::vector<std::string>& row, std::size_t j) { return j < row.size() ? row[j] : std::string(); };
  std::string out;
  switch (format) {
    case TableFormat::text: {
      std::vector<std::size_t> w(ncol, 0);
      for (std::size_t j = 0; j < ncol; ++j) {
        w[j] = width(table.header[j]);
        for (const auto& row : table.rows) w[j] = std::max(w[j], width(cell(row, j)));
      }
      auto line = [&](const std::vector<std::string>& row) {
        std::string l = indent;
        for (std::size_t j = 0; j < ncol; ++j) {
          const std::string c = cell(row, j);
          l += c;
          if (j + 1 < ncol) l += std::string(w[j] - width(c) + 2, ' ');
        }
        return l + "\n";
      };
      out += line(table.header);
      std::vector<std::string> rule;
      for (std::size_t j = 0; j < ncol; ++j) rule.push_back(std::string(w[j], '-'));
      out += line(rule);
      for (const auto& row : table.rows) out += line(row);
      break;
    }
    case TableFormat::markdown: {
      auto line = [&](const std::vector<std::string>& row) {
        std::string l = "|";
        for (std::size_t j = 0; j < ncol; ++j) l += " " + markdown_cell(cell(row, j)) + " |";
        return l + "\n";
      };
      out += line(table.header);
      out += "|";
      for (std::size_t j = 0; j < ncol; ++j) out += "---|";
      out += "\n";
      for (const auto& row : table.rows) out += line(row);
      out += "\n";  // a Markdown table ends at a blank line
      break;
    }
    case TableFormat::latex: {
      out += "\\begin{tabular}{" + std::string(ncol, 'l') + "}\n\\toprule\n";
      auto line = [&](const std::vector<std::string>& row) {
        std::string l;
        for (std::size_t j = 0; j < ncol; ++j) l += (j ? " & " : "") + latex_escape(cell(row, j));
        return l + " \\\\\n";
      };
      out += line(table.header) + "\\midrule\n";
      for (const auto& row : table.rows) out += line(row);
      out += "\\bottomrule\n\\end{tabular}\n";
      break;
    }
    case TableFormat::csv: {
      auto line = [&](const std::vector<std::string>& row) {
        std::string l;
        for (std::size_t j = 0; j < ncol; ++j) l += (j ? "," : "") + csv_field(cell(row, j));
        return l + "\n";
      };
      out += line(table.header);
      for (const auto& row : table.rows) out += line(row);
      break;
    }
  }
  return out;
}

std::string render_line(const std::string& text, TableFormat format, const std::string& indent) {
  switch (format) {
    case TableFormat::text: return indent + text + "\n";
    case TableFormat::markdown: return text + "\n\n";
    case TableFormat::latex: return latex_escape(text) + "\n\n";
    case TableFormat::csv: return "# " + text + "\n";
  }
  return text + "\n";
}

std::string render_heading(const std::string& text, TableFormat format, const std::string& indent) {
  switch (format) {
    case TableFormat::text: return indent + text + "\n";
    case TableFormat::markdown: return "### " + text + "\n\n";
    case TableFormat::latex: return "\\paragraph{" + latex_escape(text) + "}\n";
    case TableFormat::csv: return "# " + text + "\n";
  }
  return text + "\n";
}

}  // namespace dualgap::compare
