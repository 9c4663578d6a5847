// A plugin's parameters as one Markdown table: what `dualgap describe PLUGIN --markdown` prints
// and what every plugin README holds between the lines <!-- params:begin --> and
// <!-- params:end -->. The table is written from the plugin's description, never by hand:
// `describe --readme FILE` writes it into the README, `describe --readme FILE --check` compares
// (the CTest readme_params runs the check on every plugin README, tests/readme/params_tables.cmake).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "dualgap/plugin.hpp"

namespace dualgap {

inline constexpr const char* kParamsBegin = "<!-- params:begin -->";
inline constexpr const char* kParamsEnd = "<!-- params:end -->";

/// The parameter table of `d`: one row per parameter (name, type, default, range or choices,
/// meaning), in the order the plugin declares them; for a dataset, then a line naming the core
/// `data:` keys that apply beside them. Ends with a newline.
DUALGAP_API std::string params_markdown(const PluginDescription& d);

/// A section of a Markdown file kept between two marker lines (a whole line each), written by a
/// command: the parameter table of a plugin README, reproduce's section and figure index.
struct SectionMarkers {
  const char* begin;
  const char* end;
  const char* what;  ///< what the section holds, for the error ("the place of the parameter table")
};

/// The lines of `text` (without their '\n'; a last line without one is a line).
DUALGAP_API std::vector<std::string> lines_of(const std::string& text);

/// True when a line of `text` is one of the two markers.
DUALGAP_API bool has_section(const std::string& text, const SectionMarkers& markers);

/// `text` with the lines between its marker lines replaced by `body` (the markers kept). Throws
/// std::runtime_error naming `file` unless `text` has exactly one begin line and, after it, one
/// end line.
DUALGAP_API std::string with_section(const std::string& text, const SectionMarkers& markers, const std::string& body,
                                     const std::string& file);

/// `readme` with the lines between its marker lines replaced by `table`. Throws
/// std::runtime_error naming `file` when the README has no marker pair (or more than one).
DUALGAP_API std::string with_params_table(const std::string& readme, const std::string& table, const std::string& file);

/// The first line where the table between the markers of `readme` differs from `table`.
struct TableMismatch {
  std::size_t line = 0;  ///< 1-based line of the README
  std::string readme;    ///< that line of the README ("" past its end)
  std::string expected;  ///< the line `table` has there (the end marker when the table has ended)
};

/// std::nullopt when the README holds `table` between its markers; throws as with_params_table.
DUALGAP_API std::optional<TableMismatch> params_table_mismatch(const std::string& readme, const std::string& table,
                                                                const std::string& file);

}  // namespace dualgap
