// `dualgap status RESULTS...`: what is done, running and left of each experiment.
#include <iostream>

#include "base/json_text.hpp"
#include "base/util.hpp"
#include "cli/entries.hpp"
#include "run/status.hpp"

namespace dualgap::cli {

void status_options(po::options_description& d) { d.add_options()("json", "machine-readable output"); }

int status_main(const Args& a) {
  std::vector<std::string> errors;
  const auto experiments = status_of(a.list("results"), errors);
  if (a.has("json")) std::cout << json_text(experiments, 1) << "\n";
  else print_status(experiments);
  std::cout.flush();
  for (auto& e : errors) std::cerr << "error: " << printable(e) << "\n";
  return errors.empty() ? 0 : 1;
}

}  // namespace dualgap::cli
