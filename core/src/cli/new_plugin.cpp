// `dualgap new-plugin KIND NAME [--dir DIR] [--force]`: writes a working plugin skeleton
// (scaffold/) and says how to build, test and use it.
#include <filesystem>
#include <iostream>

#include "cli/entries.hpp"
#include "scaffold/new_plugin.hpp"

namespace fs = std::filesystem;

namespace dualgap::cli {

void new_plugin_options(po::options_description& d) {
  d.add_options()("dir", output_path(), "output folder (default ./NAME)")("force", "overwrite existing files");
}

int new_plugin_main(const Args& a) {
  const std::string name = a.text("name");
  scaffold::write_skeleton(a.text("kind"), name, a.text("dir"), a.has("force"), std::cout);
  const fs::path out = a.has("dir") ? fs::path(a.text("dir")) : fs::path(name);
  const std::string o = out.string();
  std::cout << "\nnext steps:\n"
            << "  cmake -S " << o << " -B " << o << "/build -DCMAKE_PREFIX_PATH=<dualgap prefix>\n"
            << "  cmake --build " << o << "/build\n"
            << "  ctest --test-dir " << o << "/build --output-on-failure\n"
            << "  export DUALGAP_PLUGIN_PATH=" << fs::absolute(out).lexically_normal().string() << "/build/plugins\n"
            << "  dualgap describe " << name << "\n"
            << "  dualgap run " << o << "/experiment.yaml\n";
  return 0;
}

}  // namespace dualgap::cli
