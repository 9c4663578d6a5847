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

namespace {

bool elf_read_at(std::ifstream& in, std::uint64_t off, void* out, std::uint64_t len) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(off));
  return static_cast<bool>(in.read(static_cast<char*>(out), static_cast<std::streamsize>(len)));
}

const char* elf_symbol_type_name(unsigned type) {
  switch (type) {
    case STT_NOTYPE: return "NOTYPE";
    case STT_OBJECT: return "OBJECT";
    case STT_FUNC: return "FUNC";
    case STT_SECTION: return "SECTION";
    case STT_FILE: return "FILE";
    case STT_COMMON: return "COMMON";
    case STT_TLS: return "TLS";
    case STT_GNU_IFUNC: return "GNU_IFUNC";
  }
  return "unknown";
}

}  // namespace

ElfSymbolInfo elf_data_symbol(const std::string& path, const std::string& symbol, std::uint64_t object_size) {
  ElfSymbolInfo info;
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return {"cannot read the file size: " + ec.message()};
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!elf_read_at(in, 0, &eh, sizeof eh)) return {"cannot read the ELF header"};
  auto past_end = [&](std::uint64_t off, std::uint64_t len) { return off > size || len > size - off; };
  const char* corrupt = "the file is corrupt: ";

  // Executable segments, from the program headers (elf_problem checked that they fit).
  if (eh.e_phentsize == sizeof(Elf64_Phdr) && !past_end(eh.e_phoff, std::uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr))) {
    std::vector<Elf64_Phdr> ph(eh.e_phnum);
    if (!elf_read_at(in, eh.e_phoff, ph.data(), ph.size() * sizeof(Elf64_Phdr))) return {"cannot read the program headers"};
    for (const auto& p : ph)
      if (p.p_type == PT_LOAD && (p.p_flags & PF_X) && p.p_memsz > 0 && p.p_vaddr <= UINT64_MAX - p.p_memsz)
        info.code.emplace_back(p.p_vaddr, p.p_vaddr + p.p_memsz);
  }

  // The section headers locate .dynsym and its string table. Every linker writes them; a
  // library stripped of them (sstrip) cannot be checked and is refused rather than trusted.
  if (eh.e_shoff == 0) return {"the file has no section headers, so its dynamic symbol table cannot be checked"};
  if (eh.e_shentsize != sizeof(Elf64_Shdr))
    return {fmt::format("{}section header entries of {} bytes, expected {}", corrupt, eh.e_shentsize, sizeof(Elf64_Shdr))};
  std::uint64_t shnum = eh.e_shnum;
  if (shnum == 0) {  // extended numbering: the count is in the first header's sh_size
    Elf64_Shdr first{};
    if (past_end(eh.e_shoff, sizeof first) || !elf_read_at(in, eh.e_shoff, &first, sizeof first))
      return {fmt::format("{}the section headers do not fit in its {} bytes", corrupt, size)};
    shnum = first.sh_size;
  }
  if (shnum == 0 || shnum > size / sizeof(Elf64_Shdr) || past_end(eh.e_shoff, shnum * sizeof(Elf64_Shdr)))
    return {fmt::format("{}{} section headers at byte {} do not fit in its {} bytes", corrupt, shnum, eh.e_shoff, size)};
  std::vector<Elf64_Shdr> sh(shnum);
  if (!elf_read_at(in, eh.e_shoff, sh.data(), shnum * sizeof(Elf64_Shdr))) return {"cannot read the section headers"};

  bool have_dynsym = false, undefined_reference = false;
  for (const auto& s : sh) {
    if (s.sh_type != SHT_DYNSYM) continue;
    have_dynsym = true;
    if (s.sh_entsize != sizeof(Elf64_Sym) || s.sh_size % sizeof(Elf64_Sym) != 0 || past_end(s.sh_offset, s.sh_size))
      return {fmt::format("{}its dynamic symbol table (.dynsym: {} bytes at byte {}, entries of {}) does not fit", corrupt,
                          s.sh_size, s.sh_offset, s.sh_entsize)};
    if (s.sh_link == 0 || s.sh_link >= shnum || sh[s.sh_link].sh_type != SHT_STRTAB ||
        past_end(sh[s.sh_link].sh_offset, sh[s.sh_link].sh_size))
      return {fmt::format("{}the string table of .dynsym (section {}) is missing or does not fit", corrupt, s.sh_link)};
    const auto& strtab = sh[s.sh_link];
    std::string names(strtab.sh_size, '\0');
    std::vector<Elf64_Sym> syms(s.sh_size / sizeof(Elf64_Sym));
    if (!elf_read_at(in, strtab.sh_offset, names.data(), names.size()) ||
        !elf_read_at(in, s.sh_offset, syms.data(), syms.size() * sizeof(Elf64_Sym)))
      return {"cannot read the dynamic symbol table"};
    for (const auto& sym : syms) {
      if (sym.st_name >= names.size()) continue;
      const char* name = names.c_str() + sym.st_name;  // names.c_str() ends in a NUL: bounded
      if (symbol != name) continue;
      if (sym.st_shndx == SHN_UNDEF) {
        undefined_reference = true;
        continue;
      }
      info.found = true;
      const unsigned bind = ELF64_ST_BIND(sym.st_info), type = ELF64_ST_TYPE(sym.st_info);
      const std::string fix = "define the plugin with DUALGAP_PLUGIN(describe) (dualgap/plugin.hpp), which exports '" +
                              symbol + "' as a pointer to the function that returns the plugin header";
      if (bind != STB_GLOBAL && bind != STB_WEAK)
        info.problem = fmt::format("'{}' is not a global symbol (ELF binding {}): {}", symbol, bind, fix);
      else if (type == STT_FUNC || type == STT_GNU_IFUNC)
        info.problem = fmt::format("'{}' is a function (ELF symbol type {}), not the data object the loader reads: {}",
                                   symbol, elf_symbol_type_name(type), fix);
      else if (type != STT_OBJECT)
        info.problem = fmt::format("'{}' is of ELF symbol type {}, expected a data object (OBJECT): {}", symbol,
                                   elf_symbol_type_name(type), fix);
      else if (sym.st_size != object_size)
        info.problem = fmt::format("'{}' is a data object of {} bytes, expected {} (a pointer): {}", symbol,
                                   sym.st_size, object_size, fix);
      return info;
    }
  }
  if (!have_dynsym) return {"the file has no dynamic symbol table (.dynsym), so it exports nothing"};
  info.problem = undefined_reference
                     ? "the library refers to a '" + symbol + "' symbol but does not define it"
                     : "the library exports no '" + symbol + "' symbol";
  return info;
}

}  // namespace dualgap
