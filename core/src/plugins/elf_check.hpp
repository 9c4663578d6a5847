// Cheap structural checks of a shared library before dlopen. A truncated .so (a copy cut short,
// a half-finished build) has segments that reach past the end of the file, and the dynamic
// loader maps them anyway, so touching them kills the process with SIGBUS. A library whose
// `dualgap_plugin` symbol is not the data object DUALGAP_PLUGIN defines (a function of that
// name, an object of another size) would be called through as if it held a function pointer,
// and jump into whatever its bytes say. Both are read from the file, never from running it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dualgap {

/// "" when `path` is a complete 64-bit little-endian ELF shared object as far as its headers
/// tell; otherwise what is wrong ("the file is truncated: ...").
std::string elf_problem(const std::string& path);

/// What the file's ELF tables say about a plugin's entry symbol.
struct ElfSymbolInfo {
  /// "" when the dynamic symbol table defines `symbol` as a global data object of the expected
  /// size; otherwise what is wrong, in a sentence ("'dualgap_plugin' is a function, ...").
  std::string problem;
  /// Whether the symbol is there at all (problem then says why it is unusable).
  bool found = false;
  /// The library's executable segments as [begin, end) addresses relative to its load base
  /// (PT_LOAD with PF_X): the pointer the symbol holds must point into one of them.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> code;
};

/// Reads the dynamic symbol table (.dynsym, located by the section headers) of a file that
/// passed elf_problem() and checks `symbol`: defined, global or weak, of type STT_OBJECT and
/// `object_size` bytes.
ElfSymbolInfo elf_data_symbol(const std::string& path, const std::string& symbol, std::uint64_t object_size);

}  // namespace dualgap
