// dualgap: the commands of the table in commands.cpp (see 'dualgap help').
// Exit status: 0 success, 1 a run, the data or the tool failed, 2 bad usage or invalid configuration.
#include <cerrno>
#include <iostream>
#include <string>
#include <vector>

#include "base/files.hpp"
#include "cli/command.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  int code = dualgap::cli::main_command(args);
  // What a command prints is its output too (tables, --json=-, a list redirected to a file): a
  // failed write there (a full disk) fails the command instead of exiting 0 on a cut file.
  std::cout.flush();
  if (!std::cout && code == 0) {
    const int err = errno;
    std::cerr << "dualgap " << (args.empty() ? std::string() : args.front())
              << ": writing the standard output failed" << (err ? ": " + dualgap::system_reason(err) : std::string())
              << "\n";
    code = 1;
  }
  return code;
}
