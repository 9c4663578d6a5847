// Downloading a data set: libcurl (HTTP with Range to resume a .part file) and OpenSSL's
// SHA-256; a file is kept only when its checksum matches the registry's.
//
// Both libraries are opened (dlopen) the first time a download or a checksum needs them, not
// linked: every dualgap process, each run included, would otherwise map them and what they
// load (gnutls, nettle, krb5, ldap, ssh2, ...), about 5 MB of resident memory that a run's
// peak counts and that only `dualgap data` uses.
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <ostream>
#include <stdexcept>

#include <curl/curl.h>
#include <fmt/format.h>
#include <openssl/evp.h>

#include "base/files.hpp"
#include "data/fetch/registry.hpp"
#include "dualgap/parse.hpp"

namespace fs = std::filesystem;

namespace dualgap::datafetch {

namespace {

/// The function `name` of the library `soname`, opened once (and kept: libcurl's global state
/// lives as long as the process).
void* library_function(const char* soname, const char* name) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  void* lib = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (!lib) lib = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    throw std::runtime_error(fmt::format("dualgap data needs {} (Debian: libcurl4 and libssl3): {}", soname,
                                         why ? why : "cannot open it"));
  }
  void* f = ::dlsym(lib, name);
  if (!f) throw std::runtime_error(fmt::format("{} has no function {}", soname, name));
  return f;
}

template <class F>
F function(const char* soname, const char* name) {
  return reinterpret_cast<F>(library_function(soname, name));
}

/// What fetch uses of OpenSSL's libcrypto.
struct Crypto {
  decltype(&::EVP_Digest) digest = function<decltype(&::EVP_Digest)>(DUALGAP_LIBCRYPTO_SONAME, "EVP_Digest");
  decltype(&::EVP_sha256) sha256 = function<decltype(&::EVP_sha256)>(DUALGAP_LIBCRYPTO_SONAME, "EVP_sha256");
  decltype(&::EVP_MD_CTX_new) ctx_new = function<decltype(&::EVP_MD_CTX_new)>(DUALGAP_LIBCRYPTO_SONAME, "EVP_MD_CTX_new");
  decltype(&::EVP_MD_CTX_free) ctx_free = function<decltype(&::EVP_MD_CTX_free)>(DUALGAP_LIBCRYPTO_SONAME, "EVP_MD_CTX_free");
  decltype(&::EVP_DigestInit_ex) init = function<decltype(&::EVP_DigestInit_ex)>(DUALGAP_LIBCRYPTO_SONAME, "EVP_DigestInit_ex");
  decltype(&::EVP_DigestUpdate) update = function<decltype(&::EVP_DigestUpdate)>(DUALGAP_LIBCRYPTO_SONAME, "EVP_DigestUpdate");
  decltype(&::EVP_DigestFinal_ex) final = function<decltype(&::EVP_DigestFinal_ex)>(DUALGAP_LIBCRYPTO_SONAME, "EVP_DigestFinal_ex");
};
const Crypto& crypto() {
  static const Crypto c;
  return c;
}

/// What fetch uses of libcurl (the names are those of curl.h, whose type-checking macros wrap
/// curl_easy_setopt and curl_easy_getinfo: taking their address expands no macro).
struct Curl {
  decltype(&::curl_global_init) global_init = function<decltype(&::curl_global_init)>(DUALGAP_LIBCURL_SONAME, "curl_global_init");
  decltype(&::curl_easy_init) easy_init = function<decltype(&::curl_easy_init)>(DUALGAP_LIBCURL_SONAME, "curl_easy_init");
  decltype(&::curl_easy_setopt) setopt = function<decltype(&::curl_easy_setopt)>(DUALGAP_LIBCURL_SONAME, "curl_easy_setopt");
  decltype(&::curl_easy_perform) perform = function<decltype(&::curl_easy_perform)>(DUALGAP_LIBCURL_SONAME, "curl_easy_perform");
  decltype(&::curl_easy_getinfo) getinfo = function<decltype(&::curl_easy_getinfo)>(DUALGAP_LIBCURL_SONAME, "curl_easy_getinfo");
  decltype(&::curl_easy_strerror) strerror = function<decltype(&::curl_easy_strerror)>(DUALGAP_LIBCURL_SONAME, "curl_easy_strerror");
  decltype(&::curl_easy_cleanup) cleanup = function<decltype(&::curl_easy_cleanup)>(DUALGAP_LIBCURL_SONAME, "curl_easy_cleanup");
};
const Curl& curl_api() {
  static const Curl c;
  return c;
}

std::string hex(const unsigned char* d, unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) s += fmt::format("{:02x}", d[i]);
  return s;
}

std::string sha256_bytes(const char* data, std::size_t n) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  const Crypto& c = crypto();
  if (c.digest(data, n, md, &len, c.sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 failed");
  return hex(md, len);
}

}  // namespace

std::string sha256_of_file(const std::string& path) {
  const Fd fd = open_regular_file(path);  // a FIFO or device in the data folder: refused, not waited on
  const Crypto& c = crypto();
  std::unique_ptr<EVP_MD_CTX, decltype(&::EVP_MD_CTX_free)> ctx(c.ctx_new(), c.ctx_free);
  if (!ctx || c.init(ctx.get(), c.sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 init failed");
  std::vector<char> buf(1 << 16);
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FileError(path, "cannot read", errno);
    if (n == 0) break;
    c.update(ctx.get(), buf.data(), static_cast<std::size_t>(n));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  c.final(ctx.get(), md, &len);
  return hex(md, len);
}

std::string sha256_of_content(const std::string& path) {
  const std::string content = read_data_file(path);
  return sha256_bytes(content.data(), content.size());
}

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_api().global_init(CURL_GLOBAL_DEFAULT) != 0) throw std::runtime_error("libcurl initialisation failed");
  });
}

/// Where the bytes of one transfer go, and how many may come: the registry's size of the file
/// (or FetchOptions::max_bytes when it states none) bounds what a server can make us write.
struct Sink {
  FILE* file = nullptr;
  curl_off_t offset = 0;   ///< bytes of the .part before this transfer (a resumed download)
  curl_off_t written = 0;  ///< bytes of this transfer
  curl_off_t cap = 0;      ///< most bytes the whole file may have
  bool over = false;       ///< the server sent more than `cap`: the transfer was ended
  // progress
  std::ostream* log = nullptr;
  std::string name;
  std::chrono::steady_clock::time_point last_report;
};

std::size_t write_to_file(char* data, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const auto bytes = static_cast<curl_off_t>(size * n);
  if (sink->offset + sink->written + bytes > sink->cap) {
    sink->over = true;
    return 0;  // libcurl ends the transfer with CURLE_WRITE_ERROR
  }
  const std::size_t done = std::fwrite(data, size, n, sink->file) * size;
  sink->written += static_cast<curl_off_t>(done);
  return done;
}

std::string human_size(double bytes) {
  if (bytes >= 1 << 20) return fmt::format("{:.1f} MB", bytes / 1048576.0);
  return fmt::format("{:.1f} kB", bytes / 1024.0);
}

/// A progress line every few seconds, flushed: a slow download shows that it moves.
int report_progress(void* user, curl_off_t total, curl_off_t now, curl_off_t, curl_off_t) {
  auto* sink = static_cast<Sink*>(user);
  const auto t = std::chrono::steady_clock::now();
  if (!sink->log || t - sink->last_report < std::chrono::seconds(2)) return 0;
  sink->last_report = t;
  const double got = static_cast<double>(sink->offset + now);
  *sink->log << fmt::format("  {}: {}{}\n", sink->name, human_size(got),
                            total > 0 ? " of " + human_size(static_cast<double>(sink->offset + total)) : std::string())
             << std::flush;
  return 0;
}

struct Attempt {
  CURLcode code = CURLE_OK;
  long http = 0;
  std::string error;
  bool too_large = false;  ///< more bytes than the cap arrived (the .part is to be deleted)
};

/// Appends the bytes of `url` from offset size(part) on (HTTP Range) to `part`, at most `cap`
/// bytes in all, within the time limits of `opt`.
Attempt download(const std::string& url, const fs::path& part, curl_off_t cap, const FetchOptions& opt,
                 const std::string& name, std::ostream& log) {
  global_init();
  std::error_code ec;
  const auto offset = fs::exists(part, ec) ? static_cast<curl_off_t>(fs::file_size(part, ec)) : 0;
  Attempt a;
  if (offset > cap) {  // a .part longer than the file can be: not a prefix of it
    a.code = CURLE_WRITE_ERROR;
    a.too_large = true;
    a.error = fmt::format("{} already holds {} bytes, more than the file's {}", part.string(), offset, cap);
    return a;
  }
  // Appended in place (a download resumes from it), never through a link planted in the data folder.
  FILE* out = fdopen(open_in_place(part.string(), InPlace::append, 0644).release(), "ab");
  if (!out) throw std::runtime_error(part.string() + ": cannot open for writing");
  const Curl& api = curl_api();
  CURL* curl = api.easy_init();
  if (!curl) {
    std::fclose(out);
    throw std::runtime_error("libcurl: cannot create a handle");
  }
  Sink sink;
  sink.file = out;
  sink.offset = offset;
  sink.cap = cap;
  sink.log = &log;
  sink.name = name;
  sink.last_report = std::chrono::steady_clock::now();
  char error[CURL_ERROR_SIZE] = {0};
  api.setopt(curl, CURLOPT_URL, url.c_str());
  // A registry or a mirror names only web sources (no file://, no other scheme), also after a redirect.
  api.setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  api.setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  api.setopt(curl, CURLOPT_WRITEFUNCTION, write_to_file);
  api.setopt(curl, CURLOPT_WRITEDATA, &sink);
  api.setopt(curl, CURLOPT_XFERINFOFUNCTION, report_progress);
  api.setopt(curl, CURLOPT_XFERINFODATA, &sink);
  api.setopt(curl, CURLOPT_NOPROGRESS, 0L);
  api.setopt(curl, CURLOPT_ERRORBUFFER, error);
  api.setopt(curl, CURLOPT_FAILONERROR, 1L);
  api.setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  api.setopt(curl, CURLOPT_MAXREDIRS, 10L);
  api.setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
  // A server announcing more than the file can have is refused before its body arrives.
  api.setopt(curl, CURLOPT_MAXFILESIZE_LARGE, cap - offset);
  // The whole transfer, and a server that drips: under low_speed_bytes per second for
  // low_speed_seconds ends it (the .part is kept, a later fetch resumes it).
  api.setopt(curl, CURLOPT_TIMEOUT, opt.timeout_seconds);
  api.setopt(curl, CURLOPT_LOW_SPEED_LIMIT, opt.low_speed_bytes);
  api.setopt(curl, CURLOPT_LOW_SPEED_TIME, opt.low_speed_seconds);
  api.setopt(curl, CURLOPT_USERAGENT, "dualgap-data-fetch");
  if (offset > 0) api.setopt(curl, CURLOPT_RESUME_FROM_LARGE, offset);
  a.code = api.perform(curl);
  api.getinfo(curl, CURLINFO_RESPONSE_CODE, &a.http);
  a.error = error[0] ? error : api.strerror(a.code);
  api.cleanup(curl);
  if (sink.over || a.code == CURLE_FILESIZE_EXCEEDED) {
    a.too_large = true;
    a.error = fmt::format("the server {} more than the {} bytes this file has", sink.over ? "sent" : "announced", cap);
  } else if (a.code == CURLE_OPERATION_TIMEDOUT) {
    a.error += fmt::format(" (limits: --timeout {} s per file, --low-speed {} bytes/s for {} s)", opt.timeout_seconds,
                           opt.low_speed_bytes, opt.low_speed_seconds);
  }
  const bool synced = std::fflush(out) == 0 && ::fsync(fileno(out)) == 0;
  if ((std::fclose(out) != 0 || !synced) && a.code == CURLE_OK) {
    a.code = CURLE_WRITE_ERROR;
    a.error = part.string() + ": write error";
  }
  return a;
}

enum class Check { ok, ok_content, mismatch };

Check verify(const DataFile& f, const fs::path& file, std::string& got) {
  got = sha256_of_file(file.string());
  if (got == f.sha256) return Check::ok;
  if (!f.sha256_uncompressed.empty()) {
    try {
      if (sha256_of_content(file.string()) == f.sha256_uncompressed) return Check::ok_content;
    } catch (const std::exception&) {
      // not decompressible: a plain mismatch
    }
  }
  return Check::mismatch;
}

std::string human(long long bytes) {
  if (bytes < 0) return "";
  if (bytes >= 1 << 20) return fmt::format(" ({:.1f} MB)", bytes / 1048576.0);
  return fmt::format(" ({:.1f} kB)", bytes / 1024.0);
}

/// Fetches one file; returns true when it is in place and verified.
bool fetch_file(const Dataset& ds, const DataFile& f, const fs::path& dir, const FetchOptions& opt, std::ostream& log) {
  const fs::path target = dir / f.path;
  const fs::path part = fs::path(target.string() + ".part");
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  std::string got;
  if (fs::exists(target, ec)) {
    if (verify(f, target, got) != Check::mismatch) {
      log << fmt::format("  {}: present, checksum ok\n", f.path);
      return true;
    }
    log << fmt::format("  {}: present but its sha256 is {} (expected {}): downloading it again\n", f.path, got, f.sha256);
  }
  std::vector<std::string> urls = f.urls;
  if (!opt.mirror.empty()) {
    std::string m = opt.mirror;
    while (!m.empty() && m.back() == '/') m.pop_back();
    urls = {m + "/" + ds.name + "/" + f.path};
  }
  if (urls.empty()) {
    log << fmt::format("  {}: error: no public source for this file ({}); set DUALGAP_DATA_MIRROR to a copy of the "
                       "data folder served over HTTP\n",
                       f.path, ds.ours);
    return false;
  }
  // The registry's size of the file bounds the download; a file of unstated size, max_bytes.
  const curl_off_t cap = f.bytes >= 0 ? static_cast<curl_off_t>(f.bytes) : static_cast<curl_off_t>(opt.max_bytes);
  for (const auto& url : urls) {
    const auto before = fs::exists(part, ec) ? static_cast<long long>(fs::file_size(part, ec)) : 0LL;
    log << fmt::format("  {}: {} {}{}\n", f.path, before > 0 ? fmt::format("resuming at byte {} from", before) : "from",
                       url, human(f.bytes));
    Attempt a = download(url, part, cap, opt, f.path, log);
    if (a.code == CURLE_RANGE_ERROR || (a.code == CURLE_HTTP_RETURNED_ERROR && a.http == 416)) {
      // The server cannot resume (or the .part is not a prefix of this file): start over.
      log << fmt::format("  {}: the server did not resume ({}); downloading from the start\n", f.path, a.error);
      fs::remove(part, ec);
      a = download(url, part, cap, opt, f.path, log);
    }
    if (a.too_large) {
      // Not a prefix of the file: nothing to resume from.
      fs::remove(part, ec);
      log << fmt::format("  {}: error: {} ({}){}; the partial download was deleted\n", f.path, a.error, url,
                         f.bytes >= 0 ? " as the registry states" : " (the limit for a file of unstated size, --max-bytes)");
      continue;
    }
    if (a.code != CURLE_OK) {
      const auto kept = fs::exists(part, ec) ? static_cast<long long>(fs::file_size(part, ec)) : 0LL;
      log << fmt::format("  {}: error: {} ({}){}\n", f.path, a.error, url,
                         kept > 0 ? fmt::format("; {} bytes kept in {}: fetch again to resume", kept, part.string()) : "");
      if (kept == 0) fs::remove(part, ec);
      continue;
    }
    const Check c = verify(f, part, got);
    if (c == Check::mismatch) {
      fs::remove(part, ec);
      log << fmt::format("  {}: error: checksum mismatch: sha256 {} (expected {}); the download was deleted\n", f.path,
                         got, f.sha256);
      continue;
    }
    try {
      commit_rename(part.string(), target.string());  // the verified bytes take the name, then the folder is synced
    } catch (const std::exception& e) {
      log << fmt::format("  {}: error: {}\n", f.path, e.what());
      return false;
    }
    log << fmt::format("  {}: ok, sha256 {}{}\n", f.path, c == Check::ok ? "verified" : "of the decompressed content verified",
                       c == Check::ok ? "" : " (the file itself was compressed differently)");
    return true;
  }
  return false;
}

}  // namespace

int fetch_dataset(const Dataset& ds, const FetchOptions& options, std::ostream& log) {
  // read_registry checks the names; a Dataset built elsewhere is held to the same rule.
  if (const std::string why = unsafe_component(ds.name); !why.empty())
    throw std::runtime_error(fmt::format("data set name '{}' {}: it must be one folder name", ds.name, why));
  for (const auto& f : ds.files)
    if (const std::string why = unsafe_relative_path(f.path); !why.empty())
      throw std::runtime_error(fmt::format("data set '{}': file path '{}' {}", ds.name, f.path, why));
  const fs::path dir = fs::path(options.to) / ds.name;
  log << fmt::format("{}: {} files into {}\n", ds.name, ds.files.size(), dir.string());
  int failed = 0;
  for (const auto& f : ds.files) {
    if (f.path == ds.manifest_path && !ds.manifest_file.empty() && options.mirror.empty()) {
      // The manifest has no public URL: it is written from the copy kept beside the registry.
      std::error_code ec;
      fs::create_directories(dir, ec);
      const fs::path from = fs::path(find_registry()).parent_path() / ds.manifest_file;
      try {
        write_file_atomic((dir / f.path).string(), read_file(from.string()));
        if (sha256_of_file((dir / f.path).string()) != f.sha256) throw std::runtime_error("checksum mismatch");
      } catch (const std::exception& e) {
        log << fmt::format("  {}: error: cannot write the manifest from {}: {}\n", f.path, from.string(), e.what());
        ++failed;
      }
      continue;
    }
    if (!fetch_file(ds, f, dir, options, log)) ++failed;
  }
  log << fmt::format("{}: {}\n", ds.name, failed ? fmt::format("{} of {} files failed", failed, ds.files.size()) : "complete");
  return failed;
}

}  // namespace dualgap::datafetch
