#include "run/run_files.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace dualgap {

std::vector<fs::path> find_run_files(const std::vector<std::string>& inputs) {
  std::vector<fs::path> files;
  for (const auto& input : inputs) {
    fs::path p(input);
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else if (fs::is_directory(p, ec)) {
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec) && it->path().filename() == "run.json") files.push_back(it->path());
      }
    } else {
      throw std::runtime_error(fmt::format("{}: no such file or directory", input));
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

}  // namespace dualgap
