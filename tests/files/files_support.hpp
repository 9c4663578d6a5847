// The CLI started without a shell (fork + execv), for the tests of how dualgap writes files:
// its standard output can go to a file (a full disk), its file size can be limited.
#pragma once
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "base/util.hpp"  // read_file, write_file_atomic, file_hash_hex

namespace dualgap::test {

struct Cli {
  int code = -1;
  std::string output;  ///< stdout and stderr (stderr only when stdout goes to a file)
};

struct CliOptions {
  std::string stdout_file;          ///< stdout into this file instead of the captured output
  std::vector<std::string> env;     ///< NAME=VALUE set in the child
  long fsize_limit = -1;            ///< RLIMIT_FSIZE in bytes (SIGXFSZ ignored: writes fail with EFBIG)
  std::filesystem::path cwd;        ///< working folder of the child
};

inline Cli cli(const std::vector<std::string>& args, const CliOptions& o = {}) {
  int pipefd[2];
  REQUIRE(pipe(pipefd) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(pipefd[0]);
    if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) _exit(126);
    int out = pipefd[1];
    if (!o.stdout_file.empty()) {
      out = ::open(o.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (out < 0) _exit(125);
    }
    dup2(out, 1);
    dup2(pipefd[1], 2);
    setenv("CATALOG_DATA", DUALGAP_TEST_SOURCE_DIR "/tests/catalog/data", 1);  // the catalog's configs use it
    for (const auto& e : o.env) putenv(const_cast<char*>(e.c_str()));
    if (o.fsize_limit >= 0) {
      signal(SIGXFSZ, SIG_IGN);  // inherited across exec: a write past the limit fails with EFBIG
      struct rlimit rl {static_cast<rlim_t>(o.fsize_limit), static_cast<rlim_t>(o.fsize_limit)};
      setrlimit(RLIMIT_FSIZE, &rl);
    }
    std::vector<std::string> a = {DUALGAP_TEST_CLI};
    a.insert(a.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : a) argv.push_back(s.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(pipefd[1]);
  Cli r;
  char buf[4096];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    r.output.append(buf, static_cast<std::size_t>(n));
  }
  close(pipefd[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return r;
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

inline void put(const std::filesystem::path& p, const std::string& s) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

/// The bytes of a file ("" when missing).
inline std::string bytes_of(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) ? read_file(p.string()) : std::string();
}

/// Leftover temporaries of AtomicFile (".NAME.tmp-XXXX") under a folder.
inline std::vector<std::string> temporaries(const std::filesystem::path& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->path().filename().string().find(".tmp-") != std::string::npos) out.push_back(it->path().string());
  return out;
}

/// A copy of the catalog's good LIBSVM file, and the arguments of a small run on it with saved
/// iterates (record.iterates: final): the experiment "libsvm" of tests/catalog/configs.
inline std::vector<std::string> run_args(const std::filesystem::path& data, const std::filesystem::path& out) {
  return {"run",   DUALGAP_TEST_SOURCE_DIR "/tests/catalog/configs/libsvm.yaml",
          "-o",    out.string(),
          "--set", "data.train=" + data.string(),
          "--set", "record.iterates=final"};
}

inline std::filesystem::path copy_good_data(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto to = dir / "train.svm";
  std::filesystem::copy_file(DUALGAP_TEST_SOURCE_DIR "/tests/catalog/data/good.svm", to,
                             std::filesystem::copy_options::overwrite_existing);
  return to;
}

/// The run folders (holding run.json) under a results folder.
inline std::vector<std::filesystem::path> run_dirs(const std::filesystem::path& out) {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(out, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->path().filename() == "run.json") dirs.push_back(it->path().parent_path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace dualgap::test
