// Every kind of file dualgap writes, on a full disk: the command exits 1 with a message, and the
// file written before (run.json, iterates, data cache, report.html, compare's CSV/JSON/HTML,
// figure, tables on stdout, evaluate's rewrite, a plugin skeleton) is left byte for byte, with
// no temporary beside it. The disk is a small tmpfs filled up (as root); where mounting is not
// permitted, the same failure comes from RLIMIT_FSIZE in the command's process (EFBIG instead of
// ENOSPC). The test says which it used.
#include <sys/mount.h>

#include <cstring>
#include <fstream>
#include <map>

#include "files_support.hpp"

namespace fs = std::filesystem;
using namespace dualgap;
using dualgap::test::bytes_of;
using dualgap::test::contains;
using dualgap::test::put;
using dualgap::test::cli;

namespace {

struct FullDisk {
  fs::path dir;
  bool mounted = false;
  std::string how;
  explicit FullDisk(const fs::path& d) : dir(d) {
    fs::create_directories(dir);
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=32m,mode=0755") == 0) {
      mounted = true;
      how = "a 32 MB tmpfs, filled up (ENOSPC)";
    } else {
      how = std::string("RLIMIT_FSIZE of 16 bytes in the command (EFBIG); mounting a tmpfs: ") + std::strerror(errno);
    }
  }
  ~FullDisk() {
    if (mounted) ::umount2(dir.c_str(), MNT_DETACH);
  }
  /// Fills the tmpfs: from now on no file there can grow.
  void fill() {
    if (!mounted) return;
    const int fd = ::open((dir / "filler").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    std::string chunk(1 << 20, 'f');
    for (std::size_t size : {std::size_t(1) << 20, std::size_t(4096), std::size_t(1)})
      while (::write(fd, chunk.data(), size) == static_cast<ssize_t>(size)) {
      }
    REQUIRE(errno == ENOSPC);
    ::close(fd);
  }
  test::CliOptions options() const {
    test::CliOptions o;
    if (!mounted) o.fsize_limit = 16;
    return o;
  }
  /// The system's reason, as every message of a failed write gives it (strerror).
  const char* reason() const { return mounted ? "No space left on device" : "File too large"; }
};

/// Every regular file under `dir` (but the filler) with its bytes.
/// Every output file under `dir` with its bytes: not the filler, nor the files that belong to one
/// attempt (the lock's PID, a run's stderr.log and partial log, new empty files each run).
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file() && name != "filler" && name != ".lock" && name != "stderr.log" &&
        name != "run.partial.jsonl")
      out[fs::relative(it->path(), dir).string()] = bytes_of(it->path());
  }
  return out;
}

}  // namespace

TEST_CASE("a full disk: every output kind fails with exit 1 and leaves the old file byte for byte") {
  test::TempDir t;
  const fs::path data = test::copy_good_data(t.path / "data");
  FullDisk disk(t.path / "disk");
  MESSAGE("full disk by " << disk.how);
  const fs::path out = disk.dir / "results", tables = disk.dir / "tables";

  // Before: every output written once while there is room.
  auto r = cli(test::run_args(data, out));
  INFO(r.output);
  REQUIRE(r.code == 0);
  const auto runs = test::run_dirs(out);
  REQUIRE(runs.size() == 1);
  const fs::path run = runs.front(), exp = run.parent_path();
  REQUIRE(fs::exists(exp / "report.html"));
  REQUIRE(fs::exists(run / "iterates"));
  r = cli({"evaluate", out.string()});  // run.json with an evaluation
  REQUIRE(r.code == 0);
  fs::create_directories(tables);
  r = cli({"compare", out.string(), "--csv", (tables / "curves.csv").string(), "--json=" + (tables / "tables.json").string(),
           "--html", (tables / "compare.html").string()});
  INFO(r.output);
  REQUIRE(r.code == 0);
  r = cli({"compare", out.string(), "--figure", (tables / "figure.png").string()});
  const bool figures = r.code == 0;
  if (!figures) MESSAGE("no figure case: matplotlib is not usable here: " << r.output);
  r = cli({"new-plugin", "solver", "my_solver", "--dir", (disk.dir / "skeleton").string()});
  REQUIRE(r.code == 0);
  // The data cache: a stale entry (one byte changed) is reloaded and stored again.
  fs::path cache;
  for (auto& e : fs::directory_iterator(out / ".cache")) cache = e.path();
  REQUIRE(!cache.empty());
  {
    std::fstream f(cache, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');
  }

  const auto before = snapshot(disk.dir);
  disk.fill();
  const auto o = disk.options();
  auto fails = [&](const std::vector<std::string>& args, const std::string& names, const std::string& stdout_file = "") {
    auto opts = o;
    opts.stdout_file = stdout_file;
    const auto res = cli(args, opts);
    INFO(args[0] << " " << (args.size() > 1 ? args[1] : "") << ": " << res.output);
    CHECK(res.code == 1);
    CHECK(contains(res.output, names));
    CHECK(contains(res.output, disk.reason()));
  };

  // One command after the other on the same full disk: each must fail alone, whatever the others did.
  // run: run.json, its iterates and the data cache (the stale entry is stored again)
  fails({"run", DUALGAP_TEST_SOURCE_DIR "/tests/catalog/configs/libsvm.yaml", "-o", out.string(), "--set",
         "data.train=" + data.string(), "--set", "record.iterates=final", "--force", "--no-report"},
        (run / "run.json").string());
  // run: report.html (every run finished before: only the report is written)
  fails(test::run_args(data, out), (exp / "report.html").string());
  fails({"compare", out.string(), "--csv", (tables / "curves.csv").string()}, "curves.csv");
  fails({"compare", out.string(), "--json=" + (tables / "tables.json").string()}, "tables.json");
  fails({"compare", out.string(), "--html", (tables / "compare.html").string()}, "compare.html");
  if (figures) fails({"compare", out.string(), "--figure", (tables / "figure.png").string()}, "figure.png");
  // tables on standard output redirected into a file on the full disk (a shell's redirection
  // truncates that file before dualgap starts: the exit status is the guarantee there)
  for (const char* format : {"text", "latex", "markdown", "csv"})
    fails({"compare", out.string(), "--table", "--format", format}, "writing the standard output failed",
          (tables / "stdout.txt").string());
  fs::remove(tables / "stdout.txt");
  fails({"evaluate", out.string(), "--tag", "again"}, (run / "run.json").string());
  fails({"new-plugin", "solver", "my_solver", "--dir", (disk.dir / "skeleton").string(), "--force"}, "skeleton");

  // Whatever failed, every old file is as it was, and no temporary is left.
  const auto after = snapshot(disk.dir);
  // (the files by pair, not structured bindings: clang 14 captures none in INFO's lambda)
  for (const auto& file : before) {
    const std::string& name = file.first;
    const auto& bytes = file.second;
    INFO(name);
    REQUIRE(after.count(name));
    CHECK(after.at(name) == bytes);
  }
  for (const auto& file : after) {
    const std::string& name = file.first;
    const auto& bytes = file.second;
    INFO("a new file on the full disk: " << name << " (" << bytes.size() << " bytes)");
    CHECK(before.count(name));
  }
  CHECK(test::temporaries(disk.dir).empty());
}
