#include "plugins/probe.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <iostream>
#include <optional>

#include "base/util.hpp"  // printable

namespace dualgap {
namespace {

// The child's state, for its exit handler (the child has one thread: fork copies only the caller).
int g_probe_progress_fd = -1;
std::size_t g_probe_current = 0;

void probe_write_all(int fd, const char* s, std::size_t n) {
  while (n > 0) {
    const ssize_t k = ::write(fd, s, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      return;
    }
    s += k;
    n -= static_cast<std::size_t>(k);
  }
}

/// One line of the child's protocol: "S i" started file i, "E i ANSWER" came back from it with
/// what `load` returned (made printable), "X i" file i called exit(), "T i WHAT" loading file i
/// threw (WHAT: the exception's what()), "D 0" done with every file.
void probe_report(char what, std::size_t i) {
  char buf[40];
  const int n = std::snprintf(buf, sizeof buf, "%c %zu\n", what, i);
  if (n > 0) probe_write_all(g_probe_progress_fd, buf, static_cast<std::size_t>(n));
}

/// Registered in the child after fork, so it runs before every handler the parent registered
/// (their objects are the parent's, not the child's to destroy) and ends the child at once.
void probe_child_exit_handler() {
  std::fflush(nullptr);  // what the library printed before exit()
  probe_report('X', g_probe_current);
  ::_exit(0);
}

[[noreturn]] void probe_child_main(const std::vector<std::string>& files, std::size_t start,
                             const ProbeLoad& load, int progress_fd, int output_fd) {
  ::dup2(output_fd, STDOUT_FILENO);
  ::dup2(output_fd, STDERR_FILENO);
  if (output_fd != STDOUT_FILENO && output_fd != STDERR_FILENO) ::close(output_fd);
  // A crash shows as its signal in every build: the sanitizers' handlers would turn it into a
  // report and exit status 1, and a parent's handler into whatever it does.
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS}) std::signal(s, SIG_DFL);
  g_probe_progress_fd = progress_fd;
  std::atexit(probe_child_exit_handler);
  for (std::size_t i = start; i < files.size(); ++i) {
    g_probe_current = i;
    probe_report('S', i);
    std::optional<std::string> thrown;
    std::string answer;
    try {
      answer = load(files[i]);
    } catch (const std::exception& e) {
      thrown = e.what();
    } catch (...) {
      thrown = "threw an exception that is not a std::exception";
    }
    std::fflush(nullptr);
    if (thrown) {
      // A fault of the library's own code (an exception out of its initialization may have
      // unwound through the dynamic loader): this process is not trusted with another file.
      const std::string line = "T " + std::to_string(i) + " " + printable(*thrown) + "\n";
      probe_write_all(g_probe_progress_fd, line.data(), line.size());
      ::_exit(0);
    }
    const std::string line = "E " + std::to_string(i) + " " + printable(answer) + "\n";
    probe_write_all(g_probe_progress_fd, line.data(), line.size());
  }
  probe_report('D', 0);
  ::_exit(0);
}

/// Reads what is there without blocking; false at end of file.
bool probe_drain(int fd, std::string& to) {
  char buf[4096];
  for (;;) {
    const ssize_t k = ::read(fd, buf, sizeof buf);
    if (k > 0) {
      to.append(buf, static_cast<std::size_t>(k));
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    return k < 0;  // 0: end of file; -1 (EAGAIN): open, nothing yet
  }
}

/// The last lines of what a failing file printed, on one line.
std::string probe_output_tail(const std::string& output) {
  std::string s = output;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  if (s.empty()) return "";
  std::size_t from = s.size(), lines = 0;
  while (from > 0 && lines < 4) {
    from = s.rfind('\n', from - 1);
    if (from == std::string::npos) {
      from = 0;
      break;
    }
    ++lines;
  }
  std::string tail = s.substr(from);
  if (tail.size() > 600) tail = "..." + tail.substr(tail.size() - 600);
  std::string one;
  for (std::size_t b = 0; b <= tail.size();) {
    auto e = tail.find('\n', b);
    if (e == std::string::npos) e = tail.size();
    std::string line = tail.substr(b, e - b);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) one += (one.empty() ? "" : " | ") + line;
    b = e + 1;
  }
  return printable(one);
}

struct ProbeChildRun {
  bool started = false;      ///< the child could be started
  std::string why_not;       ///< when not
  bool done = false;         ///< the child came back from every file
  std::vector<std::string> answers;  ///< per file it came back from: what `load` returned
  long culprit = -1;         ///< the file it had started and not come back from
  long last_ended = -1;      ///< the last file it came back from
  std::string what;          ///< what the child did ("crashed (signal 11, ...)"), and its last output
};

ProbeChildRun run_probe_child(const std::vector<std::string>& files, std::size_t start,
                   const ProbeLoad& load, const ProbeOptions& opt) {
  ProbeChildRun run;
  run.answers.assign(files.size(), "");
  int prog[2], out[2];
  if (::pipe2(prog, O_CLOEXEC) != 0) {
    run.why_not = std::string("cannot create a pipe: ") + std::strerror(errno);
    return run;
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    run.why_not = std::string("cannot create a pipe: ") + std::strerror(errno);
    ::close(prog[0]);
    ::close(prog[1]);
    return run;
  }
  // Nothing buffered may be inherited: the child would print it again.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(prog[0]);
    ::close(out[0]);
    probe_child_main(files, start, load, prog[1], out[1]);
  }
  ::close(prog[1]);
  ::close(out[1]);
  if (pid < 0) {
    run.why_not = std::string("cannot start a process: ") + std::strerror(errno);
    ::close(prog[0]);
    ::close(out[0]);
    return run;
  }
  run.started = true;
  for (int fd : {prog[0], out[0]}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);

  using clock = std::chrono::steady_clock;
  auto last = clock::now();
  std::string lines, output;
  std::size_t mark = 0;  // where the output of the file being loaded starts
  long current = -1, exited_in = -1, thrown_in = -1;
  std::string thrown;
  auto parse = [&] {
    for (std::size_t nl; (nl = lines.find('\n')) != std::string::npos;) {
      char what = 0;
      std::size_t i = 0;
      const std::string line = lines.substr(0, nl);
      const bool ok = std::sscanf(line.c_str(), "%c %zu", &what, &i) == 2 && i < files.size();
      lines.erase(0, nl + 1);
      if (!ok) continue;
      if (what == 'S') current = static_cast<long>(i), mark = output.size(), last = clock::now();
      if (what == 'E') {
        current = -1, run.last_ended = static_cast<long>(i), last = clock::now();
        const auto sp = line.find(' ', 2);
        run.answers[i] = sp == std::string::npos ? "" : line.substr(sp + 1);
      }
      if (what == 'X') exited_in = static_cast<long>(i);
      if (what == 'T') {
        thrown_in = static_cast<long>(i);
        const auto sp = line.find(' ', 2);
        thrown = sp == std::string::npos ? "" : line.substr(sp + 1);
      }
      if (what == 'D') run.done = true;
    }
  };
  auto keep_bounded = [&] {  // a library that prints without end must not fill the memory
    constexpr std::size_t kKeep = 1 << 16;
    if (output.size() > 2 * kKeep) {
      const std::size_t cut = output.size() - kKeep;
      output.erase(0, cut);
      mark = mark > cut ? mark - cut : 0;
    }
  };
  pollfd fds[2] = {{prog[0], POLLIN, 0}, {out[0], POLLIN, 0}};
  int status = 0;
  bool reaped = false, killed = false;
  for (;;) {
    // Both pipes at their end: the child is ending (or closed them): look again soon.
    ::poll(fds, 2, fds[0].fd < 0 && fds[1].fd < 0 ? 1 : 100);
    if (fds[0].fd >= 0 && !probe_drain(prog[0], lines)) fds[0].fd = -1;  // at end of file: poll no more
    parse();
    if (fds[1].fd >= 0 && !probe_drain(out[0], output)) fds[1].fd = -1;
    keep_bounded();
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) {
      reaped = w == pid;
      break;
    }
    const double idle = std::chrono::duration<double>(clock::now() - last).count();
    if (!run.done && idle > opt.timeout_s) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      killed = true;
      break;
    }
  }
  probe_drain(prog[0], lines);  // what the child wrote before it ended
  parse();
  probe_drain(out[0], output);
  ::close(prog[0]);
  ::close(out[0]);
  if (run.done) return run;

  run.culprit = thrown_in >= 0 ? thrown_in : exited_in >= 0 ? exited_in : current;
  if (thrown_in >= 0)
    run.what = thrown;
  else if (killed)
    run.what = fmt::format("did not finish within {} s", opt.timeout_s);
  else if (exited_in >= 0)
    run.what = "called exit()";
  else if (reaped && WIFSIGNALED(status))
    run.what = fmt::format("crashed (signal {}, {})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (reaped && WIFEXITED(status))
    run.what = fmt::format("ended the process (exit status {})", WEXITSTATUS(status));
  else
    run.what = "ended the process";
  if (const std::string tail = probe_output_tail(output.substr(std::min(mark, output.size()))); !tail.empty())
    run.what += "; its last output: " + tail;
  return run;
}

}  // namespace

ProbeReport probe_in_child(const std::vector<std::string>& files, const ProbeLoad& load, const ProbeOptions& options) {
  ProbeReport rep;
  rep.problems.assign(files.size(), "");
  rep.answers.assign(files.size(), "");
  std::size_t start = 0;
  while (start < files.size()) {
    const ProbeChildRun run = run_probe_child(files, start, load, options);
    if (!run.started) {
      rep.not_probed = run.why_not;
      return rep;
    }
    for (std::size_t i = start; i < files.size(); ++i)
      if (!run.answers[i].empty()) rep.answers[i] = run.answers[i];
    if (run.done) break;
    if (run.culprit >= static_cast<long>(start)) {
      rep.problems[static_cast<std::size_t>(run.culprit)] = "loading it " + run.what;
      start = static_cast<std::size_t>(run.culprit) + 1;
    } else if (run.last_ended >= static_cast<long>(start)) {
      start = static_cast<std::size_t>(run.last_ended) + 1;  // ended between two files: go on after the last one
    } else {
      // ended before starting any file: nothing can be blamed on a file, and nothing vetted
      for (std::size_t i = start; i < files.size(); ++i)
        rep.problems[i] = "not checked: the discovery process stopped before loading any file (it " + run.what + ")";
      break;
    }
  }
  return rep;
}

}  // namespace dualgap
