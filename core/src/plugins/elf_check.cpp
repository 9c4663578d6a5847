#include "plugins/elf_check.hpp"

#include <elf.h>

#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <vector>

namespace dualgap {

std::string elf_problem(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return "cannot read the file size: " + ec.message();
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh{};
  if (size < sizeof eh || !in.read(reinterpret_cast<char*>(&eh), sizeof eh))
    return fmt::format("the file is truncated: {} bytes, less than an ELF header", size);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return "no ELF header";
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return "not a 64-bit little-endian ELF file";
  if (eh.e_type != ET_DYN) return "not a shared library (ELF type " + std::to_string(eh.e_type) + ")";
  if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64)
    return "built for another machine (ELF machine " + std::to_string(eh.e_machine) + ")";
  auto past_end = [&](std::uint64_t off, std::uint64_t len) { return off > size || len > size - off; };
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 ||
      past_end(eh.e_phoff, std::uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr)))
    return fmt::format("the file is truncated or corrupt: {} bytes, the program headers do not fit", size);
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  in.seekg(static_cast<std::streamoff>(eh.e_phoff));
  if (!in.read(reinterpret_cast<char*>(ph.data()), static_cast<std::streamsize>(ph.size() * sizeof(Elf64_Phdr))))
    return "cannot read the program headers";
  for (const auto& p : ph)
    if (p.p_type == PT_LOAD && past_end(p.p_offset, p.p_filesz))
      return fmt::format("the file is truncated: {} bytes, but a loadable segment ends at byte {}", size,
                         p.p_offset + p.p_filesz);
  if (eh.e_shnum > 0 && past_end(eh.e_shoff, std::uint64_t{eh.e_shnum} * eh.e_shentsize))
    return fmt::format("the file is truncated: {} bytes, but its section headers end at byte {}", size,
                       eh.e_shoff + std::uint64_t{eh.e_shnum} * eh.e_shentsize);
  return "";
}

}  // namespace dualgap
