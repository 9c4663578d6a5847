// Command-line options that name a file or folder dualgap writes (run --out, compare --html,
// --csv, --json=FILE, --figure, new-plugin --dir, data fetch --to): an empty value would write
// into the current folder, or silently nowhere, so it is refused while the command line is read
// (a program_options error: exit 2, naming the option).
#pragma once

#include <string>

#include <boost/program_options.hpp>

namespace dualgap {

/// The error for an empty output path given to `option` (e.g. "--out").
inline std::string empty_output_message(const std::string& option) {
  return option + " '': expected a file or folder name, not an empty string";
}

/// po::value<std::string>(target) that refuses an empty value.
inline boost::program_options::typed_value<std::string>* output_path(std::string* target, const std::string& option) {
  return boost::program_options::value<std::string>(target)->notifier([option](const std::string& v) {
    if (v.empty()) throw boost::program_options::error(empty_output_message(option));
  });
}

}  // namespace dualgap
