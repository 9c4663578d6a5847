#include "base/util.hpp"
#include "dualgap/parse.hpp"  // valid_utf8

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

namespace dualgap {

std::uint64_t file_hash64(const std::string& path) {
  const Fd fd = open_regular_file(path);  // a FIFO or device: refused, never waited on
  Hash64 h;
  std::vector<char> buf(1 << 20);
  while (const std::size_t n = read_fully(fd.get(), buf.data(), buf.size(), path, "cannot read for its checksum"))
    h.add(buf.data(), n);
  return h.value();
}

std::string file_hash_hex(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::string> memo;
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = memo.find(path); it != memo.end()) return it->second;
  }
  std::string out = hex64(file_hash64(path));
  std::lock_guard<std::mutex> lock(mu);
  memo[path] = out;
  return out;
}

std::string expand_env_vars(std::string_view s, const std::function<void(const std::string& name)>& unset) {
  auto name_char = [](char c, bool first) {
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
  };
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '$' && i + 1 < s.size() && (s[i + 1] == '{' || s[i + 1] == '(')) {
      const char close = s[i + 1] == '{' ? '}' : ')';
      std::size_t e = i + 2;
      while (e < s.size() && name_char(s[e], e == i + 2)) ++e;
      if (e > i + 2 && e < s.size() && s[e] == close) {
        const std::string name(s.substr(i + 2, e - i - 2));
        const char* v = std::getenv(name.c_str());
        if (!v || !*v) {
          unset(name);
          throw std::runtime_error("environment variable " + name + " is not set");
        }
        out += v;
        i = e + 1;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

std::string iso_time_now() {
  auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::int64_t peak_rss_bytes() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<std::int64_t>(ru.ru_maxrss) * 1024;
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  const auto n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) len = 1, cp = c;
    else if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07;
    else return false;
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    // overlong forms, surrogates, beyond U+10FFFF
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    i += len;
  }
  return true;
}

std::string printable(std::string_view s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    // the longest valid UTF-8 sequence starting here (1..4 bytes)
    std::size_t len = 0;
    for (std::size_t l = 1; l <= 4 && i + l <= s.size(); ++l)
      if (valid_utf8(s.substr(i, l))) {
        len = l;
        break;
      }
    const auto c = static_cast<unsigned char>(s[i]);
    if (len == 0 || (len == 1 && (c < 0x20 || c == 0x7f) && c != '\t')) {
      out += fmt::format("\\x{:02X}", c);
      ++i;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

}  // namespace dualgap
