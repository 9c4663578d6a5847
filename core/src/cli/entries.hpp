// The options and run functions of each command, one pair per file of cli/; the table that
// names them, with their summaries and help texts, is commands.cpp.
#pragma once

#include "cli/command.hpp"

namespace dualgap::cli {

void run_options(po::options_description& d);
void run_internal_options(po::options_description& d);
int run_main(const Args& a);
void validate_options(po::options_description& d);
int validate_main(const Args& a);
void status_options(po::options_description& d);
int status_main(const Args& a);
void plugins_options(po::options_description& d);
int plugins_main(const Args& a);
void describe_options(po::options_description& d);
int describe_main(const Args& a);
void compare_options(po::options_description& d);
int compare_main(const Args& a);
void evaluate_options(po::options_description& d);
int evaluate_main(const Args& a);
void check_options(po::options_description& d);
int check_main(const Args& a);
void data_options(po::options_description& d);
int data_main(const Args& a);
void reproduce_options(po::options_description& d);
int reproduce_main(const Args& a);
int results_main(const Args& a);
void new_plugin_options(po::options_description& d);
int new_plugin_main(const Args& a);

/// reproduce's README diff (exported for the tests of its output).
DUALGAP_API std::string unified_diff(const std::string& before, const std::string& after, const std::string& name);

}  // namespace dualgap::cli
