#include "run/lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <stdexcept>

#include "base/util.hpp"

namespace dualgap {
namespace fs = std::filesystem;

namespace {
std::string lock_path(const std::string& dir) { return (fs::path(dir) / ".lock").string(); }

std::string read_holder(int fd) {
  char buf[512] = {};
  ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  std::string s = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s.empty() ? "an unknown process" : s;
}
}  // namespace

FolderLock::FolderLock(const std::string& dir, Mode mode, bool wait) {
  fs::create_directories(dir);
  const std::string path = lock_path(dir);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(fmt::format("{}: cannot open the lock file: {}", path, std::strerror(errno)));
  const int op = mode == Mode::exclusive ? LOCK_EX : LOCK_SH;
  if (flock(fd_, op | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) {
      ::close(fd_);
      throw std::runtime_error(fmt::format("{}: cannot lock: {}", path, std::strerror(errno)));
    }
    const std::string who = read_holder(fd_);
    if (!wait) {
      ::close(fd_);
      fd_ = -1;
      throw LockBusy(fmt::format("{} is in use by another dualgap run ({}); wait for it, or pass --wait-lock to "
                                 "start when it ends",
                                 dir, who));
    }
    std::fprintf(stderr, "dualgap run: %s is in use by %s; waiting (--wait-lock)\n", dir.c_str(), who.c_str());
    while (flock(fd_, op) != 0 && errno == EINTR) {
    }
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string me = fmt::format("PID {} on host {} ({}, since {})\n", ::getpid(), host,
                                     mode == Mode::exclusive ? "dualgap run" : "a task of a Slurm array", iso_time_now());
  if (ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] auto n = pwrite(fd_, me.data(), me.size(), 0);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

std::string FolderLock::holder(const std::string& dir) {
  int fd = ::open(lock_path(dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string who;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) who = read_holder(fd);
  ::close(fd);
  return who;
}

}  // namespace dualgap
