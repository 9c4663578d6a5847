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

FolderLock::FolderLock(const std::string& dir, Mode mode, bool wait, const std::string& command) {
  fs::create_directories(dir);
  const std::string path = lock_path(dir);
  // The lock file is truncated and written below: a symbolic link or a second hard link planted
  // in a shared folder would make that a write into another file. open_in_place refuses both.
  fd_ = open_in_place(path, InPlace::lock, 0644).release();
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
      throw LockBusy(fmt::format("{} is in use by another dualgap process ({}); wait for it, or pass --wait-lock "
                                 "to start when it ends",
                                 dir, who));
    }
    std::fprintf(stderr, "%s: %s is in use by %s; waiting (--wait-lock)\n", command.c_str(), dir.c_str(), who.c_str());
    while (flock(fd_, op) != 0 && errno == EINTR) {
    }
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string me = fmt::format("PID {} on host {} ({}, since {})\n", ::getpid(), host,
                                     mode == Mode::exclusive ? command : "a task of a Slurm array", iso_time_now());
  if (ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] auto n = pwrite(fd_, me.data(), me.size(), 0);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

std::string FolderLock::holder(const std::string& dir) {
  int fd = -1;
  try {
    fd = open_regular_file(lock_path(dir)).release();  // no FIFO waited on
  } catch (const std::exception&) {
    return "";
  }
  std::string who;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) who = read_holder(fd);
  ::close(fd);
  return who;
}

}  // namespace dualgap
