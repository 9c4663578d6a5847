// `dualgap data list|fetch` without the internet: the files of $DUALGAP_DATA are served from a
// Range-capable HTTP server on 127.0.0.1 (range_server.py) through DUALGAP_DATA_MIRROR.
// Skipped locally when DUALGAP_DATA is unset; failures in CI. The hostile-server cases (endless,
// dripping, lying about the size) use a registry of their own and always run.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include <yaml-cpp/yaml.h>

#include "core/cli_support.hpp"
#include "data/fetch/registry.hpp"

namespace fs = std::filesystem;
using namespace dualgap;
using dualgap::test::run_cli;

namespace {

/// range_server.py serving `root` on 127.0.0.1; stopped (by its pid) when the object goes.
struct Server {
  pid_t pid = -1;
  int port = 0;
  fs::path log;
  /// `extra`: more arguments of range_server.py (--endless PATH, --drip PATH:N, --claim PATH:BYTES).
  Server(const fs::path& root, const fs::path& dir, const std::vector<std::string>& drops = {},
         const std::vector<std::string>& extra = {}) {
    const fs::path portfile = dir / "port";
    log = dir / "requests.log";
    std::vector<std::string> args = {"/usr/bin/python3", DUALGAP_TEST_SOURCE_DIR "/tests/fetch/range_server.py",
                                     root.string(), portfile.string(), log.string()};
    for (const auto& d : drops) {
      args.push_back("--drop");
      args.push_back(d);
    }
    args.insert(args.end(), extra.begin(), extra.end());
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    for (int i = 0; i < 200 && !fs::exists(portfile); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE_MESSAGE(fs::exists(portfile), "the test HTTP server did not start");
    std::ifstream(portfile) >> port;
    REQUIRE(port > 0);
  }
  ~Server() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
  }
  std::string env() const {
    return "DUALGAP_DATA_MIRROR=http://127.0.0.1:" + std::to_string(port) + " DUALGAP_DATA= ";
  }
  std::string requests() const {
    std::ifstream in(log);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

/// A mirror folder with the given files of $DUALGAP_DATA (same <name>/<file> layout).
bool make_mirror(const fs::path& mirror, const std::vector<std::string>& files) {
  for (const auto& f : files) {
    const std::string src = test::real_data(f);
    if (src.empty()) return false;
    fs::create_directories((mirror / f).parent_path());
    fs::copy_file(src, mirror / f);
  }
  return true;
}

/// A registry of one data set `tiny` with one file `a.bin` (of `bytes` bytes when >= 0), for the
/// tests of hostile servers: no real data needed.
fs::path tiny_registry(const fs::path& dir, long long bytes) {
  const fs::path reg = dir / "registry.yaml";
  test::write_text(reg, "datasets:\n  - name: tiny\n    title: t\n    format: f\n    licence: l\n    paper: p\n"
                        "    ours: o\n    source: s\n    files:\n      - {path: a.bin, " +
                            (bytes >= 0 ? "bytes: " + std::to_string(bytes) + ", " : std::string()) +
                            "sha256: " + std::string(64, '0') + ", urls: [http://127.0.0.1:9/a.bin]}\n");
  return reg;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("fetch: a good download is verified and kept" * dualgap::test::needs_real_data()) {
  test::TempDir dir;
  const fs::path mirror = dir.path / "mirror", out = dir.path / "out";
  REQUIRE(make_mirror(mirror, {"iris/iris.data"}));
  Server server(mirror, dir.path);
  auto r = run_cli("data fetch iris --to " + out.string(), server.env());
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("iris.data: ok, sha256 verified") != std::string::npos);
  REQUIRE(fs::exists(out / "iris" / "iris.data"));
  CHECK(datafetch::sha256_of_file((out / "iris" / "iris.data").string()) ==
        "0cdeeb6ebaa401dd44c7c3f2891bae12bc30fa065399c3b09f21b0786082dd7e");
  CHECK(!fs::exists(out / "iris" / "iris.data.part"));
  // A second fetch finds the verified file and downloads nothing.
  auto again = run_cli("data fetch iris --to " + out.string(), server.env());
  CHECK(again.code == 0);
  CHECK(again.output.find("present, checksum ok") != std::string::npos);
  CHECK(server.requests().find("GET /iris/iris.data") != std::string::npos);
}

TEST_CASE("fetch: a corrupted download fails its checksum and is not kept" * dualgap::test::needs_real_data()) {
  test::TempDir dir;
  const fs::path mirror = dir.path / "mirror", out = dir.path / "out";
  REQUIRE(make_mirror(mirror, {"iris/iris.data"}));
  {
    std::fstream f(mirror / "iris" / "iris.data", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    f.put('#');  // one byte changed
  }
  Server server(mirror, dir.path);
  auto r = run_cli("data fetch iris --to " + out.string(), server.env());
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(r.output.find("checksum mismatch") != std::string::npos);
  CHECK(r.output.find("expected 0cdeeb6ebaa401dd44c7c3f2891bae12bc30fa065399c3b09f21b0786082dd7e") != std::string::npos);
  CHECK(!fs::exists(out / "iris" / "iris.data"));
  CHECK(!fs::exists(out / "iris" / "iris.data.part"));
}

TEST_CASE("fetch: an interrupted download is resumed with a Range request" * dualgap::test::needs_real_data()) {
  test::TempDir dir;
  const fs::path mirror = dir.path / "mirror", out = dir.path / "out";
  REQUIRE(make_mirror(mirror, {"vowel/vowel.train", "vowel/vowel.test", "vowel/vowel.info.txt"}));
  Server server(mirror, dir.path, {"vowel/vowel.train:10000"});
  auto first = run_cli("data fetch vowel --to " + out.string(), server.env());
  INFO(first.output);
  CHECK(first.code == 1);
  const fs::path part = out / "vowel" / "vowel.train.part";
  REQUIRE(fs::exists(part));
  CHECK(fs::file_size(part) == 10000);
  CHECK(!fs::exists(out / "vowel" / "vowel.train"));
  CHECK(fs::exists(out / "vowel" / "vowel.test"));  // the other files went through

  auto second = run_cli("data fetch vowel --to " + out.string(), server.env());
  INFO(second.output);
  CHECK(second.code == 0);
  CHECK(second.output.find("resuming at byte 10000") != std::string::npos);
  CHECK(server.requests().find("GET /vowel/vowel.train bytes=10000-") != std::string::npos);
  REQUIRE(fs::exists(out / "vowel" / "vowel.train"));
  CHECK(file_text(out / "vowel" / "vowel.train") == file_text(mirror / "vowel" / "vowel.train"));
  CHECK(!fs::exists(part));
}

TEST_CASE("fetch: a missing data file's error names the fetch command") {
  test::TempDir dir;
  fs::create_directories(dir.path / "data");
  const fs::path yaml = dir.path / "exp.yaml";
  test::write_text(yaml,
                   "name: e\n"
                   "data: {plugin: dense_text, train: \"${DUALGAP_DATA}/usps/zip.train.gz\"}\n"
                   "oracle: {plugin: multiclass}\n"
                   "solvers: [{name: BCFW, plugin: bcfw}]\n"
                   "stop: {max_passes: 1}\n");
  auto r = run_cli("validate " + yaml.string(), "DUALGAP_PLUGIN_PATH=" DUALGAP_TEST_PLUGIN_DIR " DUALGAP_DATA=" +
                                                    (dir.path / "data").string());
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK(r.output.find("fetch it with: dualgap data fetch usps") != std::string::npos);
}

TEST_CASE("registry: every data file an experiment reads is registered with a checksum") {
  const auto reg = datafetch::read_registry(DUALGAP_TEST_SOURCE_DIR "/data/registry.yaml");
  std::set<std::string> registered;
  for (const auto& d : reg.datasets)
    for (const auto& f : d.files) {
      registered.insert(d.name + "/" + f.path);
      CHECK(f.sha256.size() == 64);
    }
  const std::regex ref(R"(\$\{DUALGAP_DATA\}/([A-Za-z0-9_.\-/]+))");
  int seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator(DUALGAP_TEST_SOURCE_DIR "/experiments")) {
    if (entry.path().extension() != ".yaml" || entry.path().filename() == "claims.yaml") continue;
    const std::string text = file_text(entry.path());
    for (std::sregex_iterator it(text.begin(), text.end(), ref), end; it != end; ++it) {
      std::string path = (*it)[1];
      ++seen;
      // A folder (segmentation reads weizmann_horse/) counts when some file lies in it.
      bool found = registered.count(path) > 0;
      for (const auto& r : registered)
        if (r.rfind(path + (path.back() == '/' ? "" : "/"), 0) == 0) found = true;
      CHECK_MESSAGE(found, entry.path().string() << " reads " << path << ", which data/registry.yaml does not list");
    }
  }
  CHECK(seen > 20);
}

TEST_CASE("registry: the checksums are those of the data folder the experiments ran on" * test::needs_real_data()) {
  const auto reg = datafetch::read_registry(DUALGAP_TEST_SOURCE_DIR "/data/registry.yaml");
  for (const auto& d : reg.datasets)
    for (const auto& f : d.files) {
      const std::string p = test::real_data(d.name + "/" + f.path);
      CHECK_MESSAGE(datafetch::sha256_of_file(p) == f.sha256, d.name << "/" << f.path);
    }
}

// Hostile servers: each transfer ends within seconds, with the reason, and leaves no file that
// is not the registry's.

TEST_CASE("fetch: a server that sends without end is cut at the registry's size and the partial deleted") {
  test::TempDir dir;
  const fs::path mirror = dir.path / "mirror", out = dir.path / "out";
  fs::create_directories(mirror / "tiny");
  const fs::path reg = tiny_registry(dir.path, 1000);
  Server server(mirror, dir.path, {}, {"--endless", "tiny/a.bin"});
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli("data fetch tiny --to " + out.string(), server.env() + " DUALGAP_DATA_REGISTRY=" + reg.string());
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(seconds_since(t0) < 20);
  CHECK(r.output.find("a.bin: error: the server sent more than the 1000 bytes this file has") != std::string::npos);
  CHECK(r.output.find("the partial download was deleted") != std::string::npos);
  CHECK(!fs::exists(out / "tiny" / "a.bin.part"));
  CHECK(!fs::exists(out / "tiny" / "a.bin"));
}

TEST_CASE("fetch: a file of unstated size is cut at --max-bytes") {
  test::TempDir dir;
  const fs::path mirror = dir.path / "mirror", out = dir.path / "out";
  fs::create_directories(mirror / "tiny");
  const fs::path reg = tiny_registry(dir.path, -1);
  Server server(mirror, dir.path, {}, {"--endless", "tiny/a.bin"});
  auto r = run_cli("data fetch tiny --max-bytes 5000 --to " + out.string(),
                   server.env() + " DUALGAP_DATA_REGISTRY=" + reg.string());
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(r.output.find("the server sent more than the 5000 bytes this file has") != std::string::npos);
  CHECK(r.output.find("--max-bytes") != std::string::npos);
  CHECK(!fs::exists(out / "tiny" / "a.bin.part"));
}

TEST_CASE("fetch: a Content-Length beyond the registry's size is refused before the body") {
  test::TempDir dir;
  const fs::path mirror = dir.path / "mirror", out = dir.path / "out";
  test::write_text(mirror / "tiny" / "a.bin", std::string(2000, 'x'));
  const fs::path reg = tiny_registry(dir.path, 100);
  Server server(mirror, dir.path);
  auto r = run_cli("data fetch tiny --to " + out.string(), server.env() + " DUALGAP_DATA_REGISTRY=" + reg.string());
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(r.output.find("the server announced more than the 100 bytes this file has") != std::string::npos);
  CHECK(!fs::exists(out / "tiny" / "a.bin.part"));
}

TEST_CASE("fetch: a server dripping 2 bytes/s ends at the low-speed limit, the part kept for a resume") {
  test::TempDir dir;
  const fs::path mirror = dir.path / "mirror", out = dir.path / "out";
  fs::create_directories(mirror / "tiny");
  const fs::path reg = tiny_registry(dir.path, 1 << 20);
  Server server(mirror, dir.path, {}, {"--drip", "tiny/a.bin:2"});
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli("data fetch tiny --low-speed-time 2 --to " + out.string(),
                   server.env() + " DUALGAP_DATA_REGISTRY=" + reg.string());
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(seconds_since(t0) < 20);
  CHECK(r.output.find("too slow") != std::string::npos);
  CHECK(r.output.find("--low-speed 1024 bytes/s for 2 s") != std::string::npos);
}

TEST_CASE("fetch: the total timeout ends a transfer that is fast enough but too long") {
  test::TempDir dir;
  const fs::path mirror = dir.path / "mirror", out = dir.path / "out";
  fs::create_directories(mirror / "tiny");
  const fs::path reg = tiny_registry(dir.path, 1 << 20);
  // 4000 bytes/s is above the low-speed limit; the 1 MB body would take over four minutes.
  Server server(mirror, dir.path, {}, {"--drip", "tiny/a.bin:4000"});
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli("data fetch tiny --timeout 3 --to " + out.string(),
                   server.env() + " DUALGAP_DATA_REGISTRY=" + reg.string());
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(seconds_since(t0) < 20);
  CHECK(r.output.find("timed out") != std::string::npos);
  CHECK(r.output.find("--timeout 3 s per file") != std::string::npos);
}

TEST_CASE("fetch: progress is printed and flushed while a download runs") {
  test::TempDir dir;
  const fs::path mirror = dir.path / "mirror", out = dir.path / "out";
  fs::create_directories(mirror / "tiny");
  const fs::path reg = tiny_registry(dir.path, 1 << 20);
  Server server(mirror, dir.path, {}, {"--drip", "tiny/a.bin:4000"});
  // The CLI's stdout is a pipe (block-buffered unless flushed): a progress line must arrive
  // while the process still runs.
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    setenv("DUALGAP_DATA_MIRROR", ("http://127.0.0.1:" + std::to_string(server.port)).c_str(), 1);
    setenv("DUALGAP_DATA_REGISTRY", reg.c_str(), 1);
    execl(DUALGAP_TEST_CLI, DUALGAP_TEST_CLI, "data", "fetch", "tiny", "--timeout", "8", "--to", out.c_str(), nullptr);
    _exit(127);
  }
  close(fds[1]);
  std::string seen;
  bool running_when_seen = false;
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) {
    seen.append(buf, static_cast<std::size_t>(n));
    if (seen.find("a.bin: ") != std::string::npos && seen.find(" kB of 1.0 MB") != std::string::npos) {
      running_when_seen = waitpid(pid, nullptr, WNOHANG) == 0;
      break;
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  close(fds[0]);
  INFO(seen);
  CHECK(running_when_seen);
}
