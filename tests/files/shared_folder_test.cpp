// A results or data folder is shared: names in it may be links, FIFOs or files changed since the
// run. The real CLI on such folders: nothing is written through a planted link, `evaluate`
// holds the folder lock, refuses changed data and cut iterates, and records what it was
// allowed to do.
#include <sys/stat.h>

#include <fstream>

#include "files_support.hpp"
#include "run/lock.hpp"

namespace fs = std::filesystem;
using namespace dualgap;
using dualgap::test::bytes_of;
using dualgap::test::contains;
using dualgap::test::put;
using dualgap::test::cli;

namespace {

/// A finished run with a saved final iterate, on a copy of the catalog's good.svm.
struct RunFolder {
  test::TempDir t;
  fs::path data, out, run;
  RunFolder() {
    data = test::copy_good_data(t.path / "data");
    out = t.path / "results";
    const auto r = cli(test::run_args(data, out));
    INFO(r.output);
    REQUIRE(r.code == 0);
    const auto dirs = test::run_dirs(out);
    REQUIRE(dirs.size() == 1);
    run = dirs.front();
  }
  json record() const { return json::parse(bytes_of(run / "run.json")); }
  fs::path iterate() const {
    for (auto& e : fs::directory_iterator(run / "iterates"))
      if (e.path().extension() == ".npy") return e.path();
    FAIL("no saved iterate");
    return {};
  }
};

}  // namespace

TEST_CASE("a run records the content hash of each data file it names") {
  RunFolder f;
  const json h = f.record().at("data_hashes");
  REQUIRE(h.contains("params.train"));
  CHECK(h["params.train"]["path"] == fs::canonical(f.data).string());
  CHECK(h["params.train"]["xxh3"] == file_hash_hex(f.data.string()));
}

TEST_CASE("evaluate: the data changed since the run: exit 2 naming the file and both hashes") {
  RunFolder f;
  const std::string before = bytes_of(f.run / "run.json");
  const std::string recorded = file_hash_hex(f.data.string());
  std::ofstream(f.data, std::ios::app) << "1 1:0.7\n";  // one more example
  test::TempDir other;  // a fresh process: the hash of the edited file
  const auto r = cli({"evaluate", f.out.string()});
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK(contains(r.output, "the data changed since the run"));
  CHECK(contains(r.output, fs::canonical(f.data).string()));
  CHECK(contains(r.output, "recorded by the run " + recorded));
  CHECK(contains(r.output, "--allow-changed-data"));
  CHECK(bytes_of(f.run / "run.json") == before);  // nothing written

  const auto allowed = cli({"evaluate", f.out.string(), "--allow-changed-data"});
  INFO(allowed.output);
  CHECK(allowed.code == 0);
  const json e = f.record()["evaluations"].back();
  CHECK(e["allow_changed_data"] == true);
  REQUIRE(e["changed_data"].size() == 1);
  CHECK(e["changed_data"][0]["key"] == "params.train");
  CHECK(e["changed_data"][0]["recorded"] == recorded);
  CHECK(e["changed_data"][0]["now"] != recorded);
}

TEST_CASE("evaluate: a key overridden by --data is not compared; the others are") {
  RunFolder f;
  const fs::path test_file = f.t.path / "data" / "test.svm";
  put(test_file, "1 1:0.5 2:1\n2 1:1 3:0.2\n3 2:0.3\n");
  auto r = cli({"evaluate", f.out.string(), "--data", "test=" + test_file.string()});
  INFO(r.output);
  CHECK(r.code == 0);
  // the train file changed: an override of test does not excuse it
  std::ofstream(f.data, std::ios::app) << "1 1:0.7\n";
  r = cli({"evaluate", f.out.string(), "--data", "test=" + test_file.string(), "--tag", "again"});
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK(contains(r.output, "data.params.train"));
}

TEST_CASE("evaluate: a run.json without data hashes is checked as changed data") {
  RunFolder f;
  json j = f.record();
  j.erase("data_hashes");
  write_file_atomic((f.run / "run.json").string(), j.dump(1));
  auto r = cli({"evaluate", f.out.string()});
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK(contains(r.output, "run.json records no data hashes"));
  r = cli({"evaluate", f.out.string(), "--allow-changed-data"});
  CHECK(r.code == 0);
}

TEST_CASE("evaluate: a cut iterate is refused with its expected and actual sizes, run.json untouched") {
  RunFolder f;
  const std::string before = bytes_of(f.run / "run.json");
  const fs::path it = f.iterate();
  const auto size = fs::file_size(it);
  fs::resize_file(it, size - 8);
  const auto r = cli({"evaluate", f.out.string()});
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(contains(r.output, it.filename().string()));
  CHECK(contains(r.output, "the file holds"));
  CHECK(contains(r.output, "cut short or padded"));
  CHECK(bytes_of(f.run / "run.json") == before);
}

TEST_CASE("evaluate: an iterate that is a FIFO is refused at once") {
  RunFolder f;
  const fs::path it = f.iterate();
  fs::remove(it);
  REQUIRE(mkfifo(it.c_str(), 0644) == 0);
  const auto r = cli({"evaluate", f.out.string()});  // ctest's timeout would catch a hang
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(contains(r.output, it.string() + ": not a regular file (a FIFO)"));
}

TEST_CASE("evaluate holds the results folder's lock: not while a run writes there") {
  RunFolder f;
  const std::string before = bytes_of(f.run / "run.json");
  {
    FolderLock held(f.run.parent_path().string(), FolderLock::Mode::exclusive, false);
    const auto r = cli({"evaluate", f.out.string()});
    INFO(r.output);
    CHECK(r.code == 2);
    CHECK(contains(r.output, "is in use by another dualgap process"));
    CHECK(bytes_of(f.run / "run.json") == before);
  }
  const auto r = cli({"evaluate", f.out.string()});
  CHECK(r.code == 0);
  // and a run cannot start while evaluate holds it: the holder is named
  FolderLock held(f.run.parent_path().string(), FolderLock::Mode::exclusive, false, "dualgap evaluate");
  const auto run = cli(test::run_args(f.data, f.out));
  CHECK(run.code == 2);
  CHECK(contains(run.output, "dualgap evaluate"));
}

TEST_CASE("run: links planted in a results folder are never written through") {
  RunFolder f;
  const fs::path victim = f.t.path / "victim.txt";
  put(victim, "precious");
  const fs::path exp = f.run.parent_path();
  // stderr.log and the partial log are new files each run: the link is replaced, not followed
  fs::remove(f.run / "stderr.log");
  fs::create_symlink(victim, f.run / "stderr.log");
  fs::create_symlink(victim, f.run / "run.partial.jsonl");
  auto args = test::run_args(f.data, f.out);
  args.push_back("--force");
  auto r = cli(args);
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(!fs::is_symlink(f.run / "stderr.log"));
  CHECK(bytes_of(victim) == "precious");
  // the lock is written in place: a link there is refused, naming it
  fs::remove(exp / ".lock");
  fs::create_symlink(victim, exp / ".lock");
  r = cli(args);
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(contains(r.output, (exp / ".lock").string() + ": is a symbolic link"));
  CHECK(bytes_of(victim) == "precious");
  fs::remove(exp / ".lock");
  fs::create_hard_link(victim, exp / ".lock");
  r = cli(args);
  CHECK(r.code == 1);
  CHECK(contains(r.output, "has 2 names"));
  CHECK(bytes_of(victim) == "precious");
}

TEST_CASE("data fetch: a link planted as the .part file is refused, its target untouched") {
  test::TempDir t;
  const fs::path victim = t.path / "victim.txt", dir = t.path / "data" / "iris";
  put(victim, "precious");
  fs::create_directories(dir);
  fs::create_symlink(victim, dir / "iris.data.part");
  // nothing listens on port 9: the .part is opened before any connection
  const auto r = cli({"data", "fetch", "iris", "--to", (t.path / "data").string()},
                     {.env = {"DUALGAP_DATA_MIRROR=http://127.0.0.1:9", "DUALGAP_DATA="}});
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK(contains(r.output, "iris.data.part: is a symbolic link"));
  CHECK(bytes_of(victim) == "precious");
}

TEST_CASE("new-plugin never clobbers a file without --force") {
  test::TempDir t;
  const fs::path dir = t.path / "skel";
  put(dir / "README.md", "my notes");
  auto r = cli({"new-plugin", "solver", "my_solver", "--dir", dir.string()});
  CHECK(r.code == 1);
  CHECK(contains(r.output, "already exists"));
  CHECK(bytes_of(dir / "README.md") == "my notes");
  r = cli({"new-plugin", "solver", "my_solver", "--dir", dir.string(), "--force"});
  CHECK(r.code == 0);
  CHECK(bytes_of(dir / "README.md") != "my notes");
  CHECK(test::temporaries(t.path).empty());
}
