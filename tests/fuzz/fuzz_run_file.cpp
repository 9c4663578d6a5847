// libFuzzer: the checked run.json reader (run/run_files.hpp) as evaluate and status use it: the
// document mode (evaluate, which writes the document back) and the columns mode (compare,
// check, status) must accept and refuse the same inputs, and agree on every curve value;
// check_run_config (what evaluate reads of a config before rebuilding the problem) refuses
// with a RunFileError. Anything else that escapes, or a sanitizer report, is a finding.
#include <cmath>

#include "run/run_files.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dualgap;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string refused_columns, refused_document;
  RunFile columns, document;
  try {
    columns = parse_run_file(text, "fuzz/run.json", CurveMode::columns);
  } catch (const RunFileError& e) {
    refused_columns = e.what();
  }
  try {
    document = parse_run_file(text, "fuzz/run.json", CurveMode::document);
  } catch (const RunFileError& e) {
    refused_document = e.what();
  }
  // the same verdict and the same message in both modes, naming the file
  if (refused_columns != refused_document) __builtin_trap();
  if (!refused_columns.empty()) {
    if (refused_columns.rfind("fuzz/run.json: ", 0) != 0) __builtin_trap();
    return 0;
  }
  if (columns.rows != document.rows || !document.doc.contains("curve") || columns.doc.contains("curve")) __builtin_trap();
  const auto& curve = document.doc["curve"];
  if (curve.size() != columns.columns.size()) __builtin_trap();
  for (const auto& [name, values] : columns.columns) {
    if (!curve.contains(name) || curve[name].size() != values.size() || values.size() != columns.rows) __builtin_trap();
    for (std::size_t i = 0; i < values.size(); ++i) {
      const auto& v = curve[name][i];
      if (v.is_null() ? !std::isnan(values[i]) : !(v.is_number() && v.get<double>() == values[i])) __builtin_trap();
    }
  }
  try {
    check_run_config(document);
  } catch (const RunFileError& e) {
    if (std::string(e.what()).rfind("fuzz/run.json: config", 0) != 0) __builtin_trap();
  }
  return 0;
}
