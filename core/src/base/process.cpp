#include "base/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

#include "base/files.hpp"

extern char** environ;

namespace dualgap {

namespace {

using Clock = std::chrono::steady_clock;

struct PipeEnd {
  int fd = -1;
  ~PipeEnd() {
    if (fd >= 0) ::close(fd);
  }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

struct Actions {
  posix_spawn_file_actions_t a;
  Actions() { posix_spawn_file_actions_init(&a); }
  ~Actions() { posix_spawn_file_actions_destroy(&a); }
};

struct Attr {
  posix_spawnattr_t a;
  Attr() { posix_spawnattr_init(&a); }
  ~Attr() { posix_spawnattr_destroy(&a); }
};

void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(fmt::format("cannot start a program: {}: {}", what, std::strerror(rc)));
}

bool plain_word(const std::string& w) {
  if (w.empty()) return false;
  for (unsigned char c : w)
    if (!(std::isalnum(c) || std::strchr("_./:=,@%+-", c))) return false;
  return true;
}

}  // namespace

std::string ProcessResult::how_ended() const {
  if (timed_out) return "timed out";
  if (signal) return fmt::format("killed by signal {} ({})", signal, strsignal(signal));
  return fmt::format("exit status {}", exit_code);
}

std::string describe_command(const std::vector<std::string>& argv) {
  std::string s;
  for (auto& w : argv) {
    if (!s.empty()) s += ' ';
    if (plain_word(w)) {
      s += w;
      continue;
    }
    s += '\'';
    for (char c : w) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += '\'';
  }
  return s;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& opts) {
  if (argv.empty() || argv[0].empty()) throw std::runtime_error("cannot start a program: no program named");
  using Stream = ProcessOptions::Stream;
  // The pipes are close-on-exec in the parent; dup2 gives the child its ends without the flag.
  PipeEnd out_r, out_w, err_r, err_w;
  auto make_pipe = [](PipeEnd& r, PipeEnd& w) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
    r.fd = p[0];
    w.fd = p[1];
  };
  if (opts.out == Stream::capture) make_pipe(out_r, out_w);
  if (opts.err == Stream::capture) make_pipe(err_r, err_w);
  Fd null;  // base/files: the one way a file is opened for writing
  if (opts.out == Stream::discard || opts.err == Stream::discard) null = open_null_device();

  Actions fa;
  check(posix_spawn_file_actions_addopen(&fa.a, 0, "/dev/null", O_RDONLY, 0), "stdin");
  auto route = [&](Stream s, PipeEnd& w, int target) {
    if (s == Stream::capture) check(posix_spawn_file_actions_adddup2(&fa.a, w.fd, target), "a pipe");
    if (s == Stream::discard) check(posix_spawn_file_actions_adddup2(&fa.a, null.get(), target), "/dev/null");
  };
  route(opts.out, out_w, 1);
  route(opts.err, err_w, 2);
  // pass_fds become 3, 4, ...: first each to a number above every source (so that no dup2
  // closes another's source), then down to its place.
  const int k = static_cast<int>(opts.pass_fds.size());
  int top = 2;
  for (int fd : opts.pass_fds) {
    if (fd < 3) throw std::runtime_error("cannot start a program: a passed descriptor must be >= 3");
    top = std::max(top, fd);
  }
  for (int i = 0; i < k; ++i) check(posix_spawn_file_actions_adddup2(&fa.a, opts.pass_fds[i], top + 1 + i), "a descriptor");
  for (int i = 0; i < k; ++i) check(posix_spawn_file_actions_adddup2(&fa.a, top + 1 + i, 3 + i), "a descriptor");
  // Nothing else of ours (a folder lock, a results file) reaches the child.
  check(posix_spawn_file_actions_addclosefrom_np(&fa.a, 3 + k), "closefrom");
  if (!opts.cwd.empty()) check(posix_spawn_file_actions_addchdir_np(&fa.a, opts.cwd.c_str()), "chdir");

  // Signals we ignore or block (SIGPIPE, the runner's masks) are the defaults again in the child.
  Attr at;
  sigset_t all, none;
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  sigemptyset(&none);
  check(posix_spawnattr_setsigdefault(&at.a, &all), "signals");
  check(posix_spawnattr_setsigmask(&at.a, &none), "signals");
  check(posix_spawnattr_setflags(&at.a, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK), "signals");

  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  if (const int rc = posix_spawnp(&pid, argv[0].c_str(), &fa.a, &at.a, args.data(), environ); rc != 0)
    throw std::runtime_error(fmt::format("cannot run {}{}: {}", argv[0],
                                         opts.cwd.empty() ? "" : " in " + opts.cwd, std::strerror(rc)));
  out_w.reset();
  err_w.reset();

  ProcessResult r;
  const auto start = Clock::now();
  bool term_sent = false;
  Clock::time_point kill_at{};
  auto drain = [&](PipeEnd& fd, std::string& into) {
    char buf[65536];
    const ssize_t n = ::read(fd.fd, buf, sizeof buf);
    if (n > 0) {
      const std::size_t keep = std::min<std::size_t>(static_cast<std::size_t>(n), opts.max_capture - std::min(opts.max_capture, into.size()));
      into.append(buf, keep);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
      fd.reset();
    }
  };
  int status = 0;
  bool reaped = false;
  for (;;) {
    // With no pipe left open, only the exit (or the timeout) is waited for.
    if (out_r.fd < 0 && err_r.fd < 0) {
      const pid_t w = ::waitpid(pid, &status, opts.timeout_s > 0 ? WNOHANG : 0);
      if (w == pid) {
        reaped = true;
        break;
      }
      if (w < 0 && errno != EINTR) throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
    }
    int wait_ms = -1;
    if (opts.timeout_s > 0) {
      const double left = opts.timeout_s - std::chrono::duration<double>(Clock::now() - start).count();
      if (left <= 0 && !term_sent) {
        ::kill(pid, SIGTERM);
        term_sent = true;
        r.timed_out = true;
        kill_at = Clock::now() + std::chrono::seconds(2);
      }
      if (term_sent && Clock::now() >= kill_at) {
        ::kill(pid, SIGKILL);
        // A grandchild may still hold the pipes open: stop reading them.
        if (Clock::now() >= kill_at + std::chrono::seconds(1)) {
          out_r.reset();
          err_r.reset();
        }
      }
      wait_ms = term_sent ? 100 : static_cast<int>(std::min(left * 1000.0 + 1, 100.0));
    }
    if (out_r.fd < 0 && err_r.fd < 0) {
      if (wait_ms < 0) continue;  // waitpid above blocked; EINTR: again
      ::poll(nullptr, 0, wait_ms);
      continue;
    }
    pollfd p[2];
    nfds_t n = 0;
    if (out_r.fd >= 0) p[n++] = {out_r.fd, POLLIN, 0};
    if (err_r.fd >= 0) p[n++] = {err_r.fd, POLLIN, 0};
    const int rc = ::poll(p, n, wait_ms);
    if (rc < 0 && errno != EINTR) throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
    if (rc <= 0) continue;
    for (nfds_t i = 0; i < n; ++i) {
      if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (p[i].fd == out_r.fd) drain(out_r, r.out);
      else drain(err_r, r.err);
    }
  }
  if (!reaped)
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  return r;
}

}  // namespace dualgap
