// run_process (core/src/base/process.hpp): the one way the core starts a program. Arguments are
// passed as they are (no shell), output is captured, the end is reported, a timeout ends it.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "base/process.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using dualgap::ProcessOptions;
using dualgap::run_process;

TEST_CASE("run_process: arguments reach the program as they are, never through a shell") {
  dualgap::test::TempDir t;
  const std::vector<std::string> hostile = {"$(touch pwned)", "`touch pwned`", "a;touch pwned", "it's \"q\" #x",
                                            "line\nbreak", "*", ""};
  ProcessOptions po;
  po.cwd = t.path.string();
  std::vector<std::string> argv = {"printf", "[%s]"};
  argv.insert(argv.end(), hostile.begin(), hostile.end());
  const auto r = run_process(argv, po);
  CHECK(r.ok());
  std::string want;
  for (auto& h : hostile) want += "[" + h + "]";
  CHECK(r.out == want);
  CHECK_FALSE(fs::exists(t.path / "pwned"));
}

TEST_CASE("run_process: stdout and stderr apart, exit status, signal, working folder") {
  dualgap::test::TempDir t;
  auto r = run_process({"sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
  CHECK(r.exit_code == 3);
  CHECK_FALSE(r.ok());
  CHECK(r.how_ended() == "exit status 3");

  r = run_process({"sh", "-c", "kill -9 $$"});
  CHECK(r.signal == 9);
  CHECK(r.exit_code == -1);
  CHECK(r.how_ended().find("killed by signal 9") == 0);

  ProcessOptions po;
  po.cwd = t.path.string();
  r = run_process({"pwd", "-P"}, po);
  CHECK(r.out == fs::canonical(t.path).string() + "\n");

  po.cwd = (t.path / "missing").string();
  CHECK_THROWS_WITH_AS(run_process({"pwd"}, po), doctest::Contains("missing"), std::runtime_error);
  CHECK_THROWS_WITH_AS(run_process({"dualgap-no-such-program"}), doctest::Contains("cannot run dualgap-no-such-program"),
                       std::runtime_error);
  CHECK_THROWS_AS(run_process({}), std::runtime_error);
}

TEST_CASE("run_process: a timeout ends the program, output beyond the cap is dropped") {
  ProcessOptions po;
  po.timeout_s = 0.3;
  const auto r = run_process({"sleep", "30"}, po);
  CHECK(r.timed_out);
  CHECK_FALSE(r.ok());
  CHECK(r.signal == SIGTERM);

  po.timeout_s = 0;
  po.max_capture = 1000;
  const auto big = run_process({"head", "-c", "100000", "/dev/zero"}, po);
  CHECK(big.ok());  // read to the end (no SIGPIPE), kept up to the cap
  CHECK(big.out.size() == 1000);

  po.out = ProcessOptions::Stream::discard;
  CHECK(run_process({"echo", "x"}, po).out.empty());
}

TEST_CASE("run_process: the child gets none of our file descriptors and default signal handling") {
  dualgap::test::TempDir t;
  const int opened = ::open((t.path / "held").c_str(), O_CREAT | O_WRONLY, 0644);  // not close-on-exec
  REQUIRE(opened >= 0);
  const int fd = ::dup2(opened, 57);  // above the descriptors ls opens for itself
  REQUIRE(fd == 57);
  const auto r = run_process({"ls", "/proc/self/fd"});
  ::close(fd);
  ::close(opened);
  CHECK(r.ok());
  CHECK(r.out.find("\n57\n") == std::string::npos);
  CHECK(r.out.find("\n2\n") != std::string::npos);

  // A signal we ignore (SIGPIPE, as many programs do) is not ignored by the child.
  signal(SIGPIPE, SIG_IGN);
  const auto p = run_process({"grep", "^SigIgn:", "/proc/self/status"});
  signal(SIGPIPE, SIG_DFL);
  CHECK(p.ok());
  REQUIRE(p.out.rfind("SigIgn:\t", 0) == 0);
  const unsigned long long ignored = std::stoull(p.out.substr(8), nullptr, 16);
  CHECK((ignored & (1ULL << (SIGPIPE - 1))) == 0);
}

TEST_CASE("describe_command quotes what a reader could misread") {
  CHECK(dualgap::describe_command({"sbatch", "--parsable", "/a b/it's.sbatch"}) ==
        "sbatch --parsable '/a b/it'\\''s.sbatch'");
  CHECK(dualgap::describe_command({"squeue", "-o", "%i %T", ""}) == "squeue -o '%i %T' ''");
}
