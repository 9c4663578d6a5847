// A cheap structural check of a shared library before dlopen: a truncated .so (a copy cut
// short, a half-finished build) has segments that reach past the end of the file, and the
// dynamic loader maps them anyway, so touching them kills the process with SIGBUS.
#pragma once

#include <string>

namespace dualgap {

/// "" when `path` is a complete 64-bit little-endian ELF shared object as far as its headers
/// tell; otherwise what is wrong ("the file is truncated: ...").
std::string elf_problem(const std::string& path);

}  // namespace dualgap
