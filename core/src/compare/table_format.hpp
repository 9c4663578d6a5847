// Plain tables rendered as aligned text, Markdown, LaTeX (booktabs) or CSV: the one place
// that knows these formats, so every table of `dualgap compare` is built once as cells.
#pragma once

#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap::compare {

enum class TableFormat { text, markdown, latex, csv };

/// "text", "markdown", "latex" or "csv"; throws std::invalid_argument otherwise.
DUALGAP_API TableFormat parse_table_format(const std::string& name);

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

/// The table in `format`; text columns are as wide as their widest cell, each line prefixed
/// with `indent`. Rows shorter than the header are padded with empty cells.
DUALGAP_API std::string render_table(const Table& table, TableFormat format, const std::string& indent = "");

/// One CSV field (RFC 4180): quoted when it holds a comma, quote or line break.
DUALGAP_API std::string csv_field(const std::string& s);

/// A line of prose between tables: as is (text), a paragraph (markdown), a LaTeX comment-free
/// paragraph (latex), or a "# " line that pandas skips with comment='#' (csv).
DUALGAP_API std::string render_line(const std::string& text, TableFormat format, const std::string& indent = "");

/// A heading: underlined in text, "###" in Markdown, \paragraph in LaTeX, "# " in CSV.
DUALGAP_API std::string render_heading(const std::string& text, TableFormat format, const std::string& indent = "");

}  // namespace dualgap::compare
