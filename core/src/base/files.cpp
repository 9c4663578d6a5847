// How the core opens files (files.hpp).
#include "base/files.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <streambuf>
#include <vector>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace dualgap {

namespace {

const char* kind_of(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISDIR(m)) return "a folder";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a file";
}

void require_regular(const std::string& path, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) throw FileError(path, fmt::format("not a regular file ({})", kind_of(st.st_mode)));
}

void clear_nonblock(const std::string& path, int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) throw FileError(path, "cannot open", errno);
}

// The temporary's name: hidden, beside the file, unique (random), short enough for NAME_MAX
// whatever the length of the file's own name.
std::string temp_name(const std::string& name) {
  unsigned char r[8] = {};
  if (getrandom(r, sizeof r, 0) != sizeof r) {
    // no entropy source: the PID and a counter are still unique among our own temporaries,
    // and O_EXCL makes any collision a retry, never a shared file
    static unsigned counter = 0;
    const unsigned long v = (static_cast<unsigned long>(::getpid()) << 20) ^ ++counter;
    std::memcpy(r, &v, std::min(sizeof v, sizeof r));
  }
  std::string hex;
  for (unsigned char c : r) hex += fmt::format("{:02x}", c);
  return "." + name.substr(0, 180) + ".tmp-" + hex;
}

// fsync of a folder, after a rename into it: without it a crash can lose the new name. File
// systems that cannot sync a folder (EINVAL) have nothing to lose there.
void sync_folder(const std::string& dir, const std::string& for_path) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw FileError(for_path, "written, but its folder cannot be opened to sync it", errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL && err != ENOTSUP && err != EROFS)
    throw FileError(for_path, "written, but its folder could not be synced", err);
}

bool write_all(int fd, const char* p, std::size_t n, int& err) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : ENOSPC;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

std::string folder_of(const fs::path& p) {
  const fs::path d = p.parent_path();
  return d.empty() ? std::string(".") : d.string();
}

}  // namespace

bool is_temporary_name(const std::string& name) {
  // temp_name's form: "." NAME ".tmp-" and 16 hex digits
  const auto tmp = name.rfind(".tmp-");
  return name.size() > 1 && name[0] == '.' && tmp != std::string::npos && name.size() - tmp == 5 + 16 &&
         name.find_first_not_of("0123456789abcdef", tmp + 5) == std::string::npos;
}

std::string system_reason(int err) {
  const char* name = strerrorname_np(err);
  return fmt::format("{} (errno {})", std::strerror(err), name ? std::string(name) : std::to_string(err));
}

FileError::FileError(const std::string& path, const std::string& what, int err)
    : std::runtime_error(path + ": " + what + ": " + system_reason(err)), error(err) {}

FileError::FileError(const std::string& path, const std::string& what) : std::runtime_error(path + ": " + what) {}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd open_regular_file(const std::string& path) {
  struct stat st {};
  // stat first: a device is never opened (opening one can have effects), a FIFO never waited on
  if (::stat(path.c_str(), &st) != 0) throw FileError(path, "cannot open", errno);
  require_regular(path, st);
  Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd) throw FileError(path, "cannot open", errno);
  // the name may have been replaced in between: the descriptor is what counts
  if (::fstat(fd.get(), &st) != 0) throw FileError(path, "cannot open", errno);
  require_regular(path, st);
  clear_nonblock(path, fd.get());
  return fd;
}

std::string read_file(const std::string& path, std::uintmax_t max_bytes, std::string_view limit) {
  Fd fd = open_regular_file(path);
  struct stat st {};
  std::string out;
  if (::fstat(fd.get(), &st) == 0 && st.st_size > 0) {
    if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
      throw FileError(path, std::to_string(st.st_size) + " bytes: larger than " + std::string(limit));
    out.reserve(static_cast<std::size_t>(st.st_size));
  }
  char buf[1 << 16];
  while (const std::size_t n = read_fully(fd.get(), buf, sizeof buf, path)) {
    out.append(buf, n);
    if (out.size() > max_bytes)  // grew while being read
      throw FileError(path, std::to_string(out.size()) + " bytes: larger than " + std::string(limit));
  }
  return out;
}

std::string read_file(const std::string& path) { return read_file(path, UINTMAX_MAX, ""); }

std::size_t read_fully(int fd, void* dst, std::size_t n, const std::string& path, const std::string& what) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, static_cast<char*>(dst) + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw FileError(path, what, errno);
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

Fd open_null_device() {
  Fd fd(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  if (!fd) throw FileError("/dev/null", "cannot open", errno);
  return fd;
}

struct AtomicFile::Impl : std::streambuf {
  std::string path, temp, dir;
  IfExists if_exists = IfExists::replace;
  int fd = -1;
  int err = 0;  // the first failed write's errno: everything after it is dropped
  bool committed = false;
  std::vector<char> buf = std::vector<char>(1 << 16);
  std::ostream os{this};

  Impl() { setp(buf.data(), buf.data() + buf.size()); }

  bool flush_buffer() {
    const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
    setp(buf.data(), buf.data() + buf.size());
    if (err) return false;
    return n == 0 || write_all(fd, buf.data(), n, err);
  }
  int_type overflow(int_type c) override {
    if (!flush_buffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    // An empty write (an empty array's data may be a null pointer) copies nothing: memcpy's
    // arguments must not be null even for 0 bytes.
    if (err || n <= 0) return 0;
    if (n <= epptr() - pptr()) {
      std::memcpy(pptr(), s, static_cast<std::size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }
    if (!flush_buffer() || !write_all(fd, s, static_cast<std::size_t>(n), err)) return 0;
    return n;
  }
  int sync() override { return flush_buffer() ? 0 : -1; }

  [[noreturn]] void fail(const std::string& what, int e) {
    discard();
    throw FileError(path, what, e);
  }
  void discard() {
    if (fd >= 0) ::close(fd);
    fd = -1;
    if (!committed && !temp.empty()) ::unlink(temp.c_str());
    temp.clear();
  }
};

AtomicFile::AtomicFile(const std::string& path, IfExists if_exists, mode_t mode) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  m.if_exists = if_exists;
  const fs::path p(path);
  const std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..") throw FileError(path, "not a file name");
  m.dir = folder_of(p);
  std::error_code ec;
  fs::create_directories(m.dir, ec);
  if (ec) throw FileError(path, "cannot create its folder " + m.dir, ec.value());
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string temp = (fs::path(m.dir) / temp_name(name)).string();
    m.fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (m.fd >= 0) {
      m.temp = temp;
      return;
    }
    if (errno != EEXIST) throw FileError(path, "cannot create a temporary file in " + m.dir, errno);
  }
  throw FileError(path, "cannot create a temporary file in " + m.dir + " (100 names taken)");
}

AtomicFile::~AtomicFile() { impl_->discard(); }

void AtomicFile::write(std::string_view bytes) {
  Impl& m = *impl_;
  if (m.fd < 0) throw FileError(m.path, "written after commit");
  if (m.xsputn(bytes.data(), static_cast<std::streamsize>(bytes.size())) != static_cast<std::streamsize>(bytes.size()))
    m.fail("cannot write", m.err ? m.err : EIO);
}

std::ostream& AtomicFile::stream() { return impl_->os; }

int AtomicFile::fd() {
  Impl& m = *impl_;
  if (m.fd < 0) throw FileError(m.path, "written after commit");
  if (!m.flush_buffer()) m.fail("cannot write", m.err ? m.err : EIO);
  return m.fd;
}

void AtomicFile::commit() {
  Impl& m = *impl_;
  if (m.fd < 0) throw FileError(m.path, "committed twice");
  if (!m.flush_buffer() || m.err) m.fail("cannot write", m.err ? m.err : EIO);
  // fsync before the rename: a crash in between must not leave the name on an empty file
  // (a rename can reach a cluster file system's server before the data)
  if (::fsync(m.fd) != 0) m.fail("cannot write (fsync)", errno);
  const int fd = m.fd;
  m.fd = -1;
  if (::close(fd) != 0) m.fail("cannot write (close)", errno);
  if (m.if_exists == IfExists::replace) {
    if (::rename(m.temp.c_str(), m.path.c_str()) != 0) m.fail("cannot rename " + m.temp + " onto it", errno);
  } else {
    // renameat2(NOREPLACE) where the file system has it, else link(): both fail on an existing
    // name instead of replacing it, with no moment at which the check and the write differ
    int rc = ::renameat2(AT_FDCWD, m.temp.c_str(), AT_FDCWD, m.path.c_str(), RENAME_NOREPLACE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP)) {
      rc = ::link(m.temp.c_str(), m.path.c_str());
      if (rc == 0) ::unlink(m.temp.c_str());
    }
    if (rc != 0) {
      if (errno == EEXIST) {
        m.discard();
        throw FileError(m.path, "already exists (not overwritten)");
      }
      m.fail("cannot create it from " + m.temp, errno);
    }
  }
  m.committed = true;
  m.temp.clear();
  sync_folder(m.dir, m.path);
}

const std::string& AtomicFile::path() const { return impl_->path; }
const std::string& AtomicFile::temp_path() const { return impl_->temp; }

void write_file_atomic(const std::string& path, std::string_view content, IfExists if_exists) {
  AtomicFile f(path, if_exists);
  f.write(content);
  f.commit();
}

Fd open_in_place(const std::string& path, InPlace how, mode_t mode) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (how == InPlace::fresh) {
      // a fresh file replaces the name only: what a link pointed to, or shared an inode with,
      // is untouched
      if (S_ISDIR(st.st_mode)) require_regular(path, st);
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw FileError(path, "cannot replace", errno);
    } else {
      if (S_ISLNK(st.st_mode))
        throw FileError(path, "is a symbolic link: dualgap never writes through one (remove the link)");
      require_regular(path, st);
    }
  }
  int flags = O_NOFOLLOW | O_CLOEXEC | O_CREAT;
  if (how == InPlace::fresh) flags |= O_WRONLY | O_EXCL;
  else if (how == InPlace::append) flags |= O_WRONLY | O_APPEND | O_NONBLOCK;
  else flags |= O_RDWR | O_NONBLOCK;
  Fd fd(::open(path.c_str(), flags, mode));
  if (!fd) {
    const int err = errno;
    if (err == ELOOP) throw FileError(path, "is a symbolic link: dualgap never writes through one (remove the link)");
    throw FileError(path, how == InPlace::fresh ? "cannot create" : "cannot open for writing", err);
  }
  if (::fstat(fd.get(), &st) != 0) throw FileError(path, "cannot open for writing", errno);
  require_regular(path, st);
  if (st.st_nlink > 1)
    throw FileError(path, fmt::format("has {} names (hard links): dualgap never writes into a file shared with "
                                      "another name (remove this one)",
                                      st.st_nlink));
  if (flags & O_NONBLOCK) clear_nonblock(path, fd.get());
  return fd;
}

void commit_rename(const std::string& from, const std::string& to) {
  {
    Fd fd(::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) throw FileError(from, "cannot open to sync it", errno);
    if (::fsync(fd.get()) != 0) throw FileError(from, "cannot write (fsync)", errno);
  }
  if (::rename(from.c_str(), to.c_str()) != 0) throw FileError(to, "cannot rename " + from + " onto it", errno);
  sync_folder(folder_of(fs::path(to)), to);
}

}  // namespace dualgap
