// Shared by the libFuzzer harnesses: the input goes to a file (the parsers read files, as in a
// run), and an expected rejection (a DataError, ConfigError, ParamError: a clear message) is
// not a finding; anything else that escapes, or a sanitizer report, is.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace fuzz {

/// A file of this process for the current input (rewritten each iteration).
inline std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("dualgap-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  const auto p = dir / name;
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return p.string();
}

}  // namespace fuzz
