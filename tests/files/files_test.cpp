// core/src/base/files.hpp: the one way the core writes files (AtomicFile), the files it writes
// in place (open_in_place), and reading only regular files (open_regular_file, read_file).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <future>

#include "files_support.hpp"
#include "run/iterates.hpp"
#include "run/lock.hpp"

namespace fs = std::filesystem;
using namespace dualgap;
using dualgap::test::bytes_of;
using dualgap::test::contains;
using dualgap::test::put;
using dualgap::test::temporaries;

namespace {

/// Runs `f` in a child whose files cannot grow past `limit` bytes (RLIMIT_FSIZE, SIGXFSZ
/// ignored: a write past it fails with EFBIG, as on a full disk); returns what `f` returned,
/// or 99 when it threw something other than FileError.
int in_limited_child(long limit, const std::function<int()>& f) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl {static_cast<rlim_t>(limit), static_cast<rlim_t>(limit)};
    setrlimit(RLIMIT_FSIZE, &rl);
    int code = 99;
    try {
      code = f();
    } catch (...) {
    }
    _exit(code);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/// `f` must end (not block) within a few seconds.
template <class F>
void ends_quickly(F f) {
  auto done = std::async(std::launch::async, f);
  REQUIRE_MESSAGE(done.wait_for(std::chrono::seconds(10)) == std::future_status::ready, "blocked on a FIFO");
  done.get();
}

}  // namespace

TEST_CASE("write_file_atomic: the new content whole, no temporary left") {
  test::TempDir t;
  const fs::path p = t.path / "sub" / "out.json";  // the folder is created
  write_file_atomic(p.string(), "first");
  write_file_atomic(p.string(), "second, longer");
  CHECK(bytes_of(p) == "second, longer");
  CHECK(temporaries(t.path).empty());
  // A name of the maximal length still gets a temporary (its name is shortened).
  const fs::path long_name = t.path / std::string(255, 'x');
  write_file_atomic(long_name.string(), "ok");
  CHECK(bytes_of(long_name) == "ok");
}

TEST_CASE("AtomicFile: not committed, the old file is untouched and the temporary removed") {
  test::TempDir t;
  const fs::path p = t.path / "report.html";
  put(p, "old report");
  {
    AtomicFile f(p.string());
    f.write("half a new rep");
    CHECK(fs::exists(f.temp_path()));
    CHECK(fs::path(f.temp_path()).parent_path() == p.parent_path());  // same folder: rename, not copy
    CHECK(bytes_of(p) == "old report");
  }  // an exception between the first write and commit() ends here
  CHECK(bytes_of(p) == "old report");
  CHECK(temporaries(t.path).empty());
}

TEST_CASE("AtomicFile: a write that fails (file size limit) throws naming the file and the errno") {
  test::TempDir t;
  const fs::path p = t.path / "table.csv";
  put(p, "old,table\n");
  const std::string big(1 << 20, 'x');
  // write(): throws at once
  const int code = in_limited_child(64 * 1024, [&] {
    try {
      write_file_atomic(p.string(), big);
    } catch (const FileError& e) {
      const std::string m = e.what();
      return contains(m, p.string()) && contains(m, "EFBIG") && e.error == EFBIG ? 0 : 2;
    }
    return 1;  // no error: wrong
  });
  CHECK(code == 0);
  CHECK(bytes_of(p) == "old,table\n");
  CHECK(temporaries(t.path).empty());
  // stream(): the error is kept and thrown by commit()
  const int code2 = in_limited_child(64 * 1024, [&] {
    AtomicFile f(p.string());
    for (int i = 0; i < 100000; ++i) f.stream() << "row," << i << "\n";
    try {
      f.commit();
    } catch (const FileError& e) {
      return contains(e.what(), p.string()) && e.error == EFBIG ? 0 : 2;
    }
    return 1;
  });
  CHECK(code2 == 0);
  CHECK(bytes_of(p) == "old,table\n");
  CHECK(temporaries(t.path).empty());
}

TEST_CASE("AtomicFile::stream: a large output streamed, whole after commit") {
  test::TempDir t;
  const fs::path p = t.path / "curves.csv";
  std::string expected;
  {
    AtomicFile f(p.string());
    for (int i = 0; i < 200000; ++i) {
      f.stream() << "row," << i << "\n";
      expected += "row," + std::to_string(i) + "\n";
    }
    f.write(std::string(300000, 'z'));  // larger than the buffer: written through
    expected += std::string(300000, 'z');
    f.commit();
  }
  CHECK(bytes_of(p) == expected);
}

TEST_CASE("IfExists::refuse never clobbers a file, even one created after a check") {
  test::TempDir t;
  const fs::path p = t.path / "skeleton.cpp";
  write_file_atomic(p.string(), "mine", IfExists::refuse);
  CHECK(bytes_of(p) == "mine");
  try {
    write_file_atomic(p.string(), "theirs", IfExists::refuse);
    FAIL("no error");
  } catch (const FileError& e) {
    CHECK(contains(e.what(), "already exists"));
  }
  CHECK(bytes_of(p) == "mine");
  CHECK(temporaries(t.path).empty());
}

TEST_CASE("an atomic write onto a symbolic link replaces the link, never writes its target") {
  test::TempDir t;
  const fs::path victim = t.path / "victim.txt", link = t.path / "results" / "run.json";
  put(victim, "precious");
  fs::create_directories(link.parent_path());
  fs::create_symlink(victim, link);
  write_file_atomic(link.string(), "{}");
  CHECK(bytes_of(victim) == "precious");
  CHECK(!fs::is_symlink(link));
  CHECK(bytes_of(link) == "{}");
}

TEST_CASE("an atomic write onto a folder's name fails, the folder untouched") {
  test::TempDir t;
  const fs::path dir = t.path / "out.html";
  put(dir / "inside", "x");
  CHECK_THROWS_WITH_AS(write_file_atomic(dir.string(), "<html>"), doctest::Contains(dir.string().c_str()), FileError);
  CHECK(bytes_of(dir / "inside") == "x");
  CHECK(temporaries(t.path).empty());
}

TEST_CASE("open_in_place: a symbolic link or a hard link is refused, never written through") {
  test::TempDir t;
  const fs::path victim = t.path / "victim.txt";
  put(victim, "precious");
  for (InPlace how : {InPlace::append, InPlace::lock}) {
    const fs::path link = t.path / "link";
    fs::remove(link);
    fs::create_symlink(victim, link);
    CHECK_THROWS_WITH_AS(open_in_place(link.string(), how), doctest::Contains("is a symbolic link"), FileError);
    // a dangling link: not created through either
    const fs::path dangling = t.path / "dangling";
    fs::remove(dangling);
    fs::create_symlink(t.path / "nowhere", dangling);
    CHECK_THROWS_WITH_AS(open_in_place(dangling.string(), how), doctest::Contains("is a symbolic link"), FileError);
    CHECK(!fs::exists(t.path / "nowhere"));
    const fs::path hard = t.path / "hard";
    fs::remove(hard);
    fs::create_hard_link(victim, hard);
    CHECK_THROWS_WITH_AS(open_in_place(hard.string(), how), doctest::Contains("has 2 names"), FileError);
  }
  // fresh: the name is replaced by a new file; the link's target and the other name untouched
  const fs::path log = t.path / "stderr.log";
  fs::create_symlink(victim, log);
  {
    Fd fd = open_in_place(log.string(), InPlace::fresh);
    CHECK(::write(fd.get(), "log", 3) == 3);
  }
  CHECK(!fs::is_symlink(log));
  CHECK(bytes_of(log) == "log");
  fs::remove(log);
  fs::create_hard_link(victim, log);
  { Fd fd = open_in_place(log.string(), InPlace::fresh); }
  CHECK(bytes_of(log).empty());
  CHECK(bytes_of(victim) == "precious");
}

TEST_CASE("reading: a FIFO, a folder or a device is refused by name, without blocking") {
  test::TempDir t;
  const fs::path fifo = t.path / "w_000001.npy";
  REQUIRE(mkfifo(fifo.c_str(), 0644) == 0);
  ends_quickly([&] { CHECK_THROWS_WITH_AS(read_file(fifo.string()), doctest::Contains("not a regular file (a FIFO)"), FileError); });
  ends_quickly([&] { CHECK_THROWS_WITH_AS(open_regular_file(fifo.string()), doctest::Contains(fifo.string().c_str()), FileError); });
  ends_quickly([&] { CHECK_THROWS_WITH_AS(file_hash_hex(fifo.string()), doctest::Contains("a FIFO"), FileError); });
  // a symbolic link to a FIFO is the FIFO
  fs::create_symlink(fifo, t.path / "link.npy");
  ends_quickly([&] { CHECK_THROWS_WITH_AS(read_file((t.path / "link.npy").string()), doctest::Contains("a FIFO"), FileError); });
  CHECK_THROWS_WITH_AS(read_file(t.path.string()), doctest::Contains("not a regular file (a folder)"), FileError);
  CHECK_THROWS_WITH_AS(read_file("/dev/zero"), doctest::Contains("not a regular file (a character device)"), FileError);
  CHECK_THROWS_WITH_AS(read_file((t.path / "missing").string()), doctest::Contains("ENOENT"), FileError);
  // written in place: a FIFO is refused, not opened (which would block or fail with ENXIO)
  ends_quickly([&] { CHECK_THROWS_WITH_AS(open_in_place(fifo.string(), InPlace::lock), doctest::Contains("a FIFO"), FileError); });
  ends_quickly([&] { CHECK_THROWS_WITH_AS(open_in_place(fifo.string(), InPlace::append), doctest::Contains("a FIFO"), FileError); });
}

TEST_CASE("the folder lock: a planted link, hard link or FIFO is refused and its target untouched") {
  test::TempDir t;
  const fs::path dir = t.path / "results" / "exp", victim = t.path / "victim.txt";
  put(victim, "precious");
  fs::create_directories(dir);
  fs::create_symlink(victim, dir / ".lock");
  CHECK_THROWS_WITH(FolderLock(dir.string(), FolderLock::Mode::exclusive, false), doctest::Contains("symbolic link"));
  fs::remove(dir / ".lock");
  fs::create_hard_link(victim, dir / ".lock");
  CHECK_THROWS_WITH(FolderLock(dir.string(), FolderLock::Mode::exclusive, false), doctest::Contains("has 2 names"));
  fs::remove(dir / ".lock");
  REQUIRE(mkfifo((dir / ".lock").c_str(), 0644) == 0);
  ends_quickly([&] {
    CHECK_THROWS_WITH(FolderLock(dir.string(), FolderLock::Mode::exclusive, false), doctest::Contains("a FIFO"));
    CHECK(FolderLock::holder(dir.string()).empty());
  });
  CHECK(bytes_of(victim) == "precious");
  fs::remove(dir / ".lock");
  { FolderLock ok(dir.string(), FolderLock::Mode::exclusive, false, "dualgap evaluate"); 
    CHECK(contains(bytes_of(dir / ".lock"), "dualgap evaluate")); }
}

namespace {

// A version 1.0 .npy of float64 with `shape` (a Python tuple) and `n` values 0..n-1.
std::string npy(const std::string& shape, std::size_t n, bool fortran = false) {
  std::string header = "{'descr': '<f8', 'fortran_order': " + std::string(fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(i);
    out.append(reinterpret_cast<const char*>(&v), 8);
  }
  return out;
}

}  // namespace

TEST_CASE("the iterate reader: the byte count must be what the header declares") {
  test::TempDir t;
  const json entry = {{"row", 0}, {"files", {{"w", "iterates/w.npy"}}}};
  const json entry_W = {{"row", 0}, {"files", {{"W", "iterates/W.npy"}}}};
  put(t.path / "iterates" / "w.npy", npy("(4,)", 4));
  CHECK(load_iterate(t.str(), entry, "w").w.size() == 4);
  // the last 8 bytes missing, or 8 more: refused, naming the file and both sizes
  std::string cut = npy("(4,)", 4);
  cut.resize(cut.size() - 8);
  put(t.path / "iterates" / "w.npy", cut);
  CHECK_THROWS_WITH(load_iterate(t.str(), entry, "w"), doctest::Contains("w.npy: the .npy header declares shape (4,) of float64, 32 bytes of data, but the file holds 24 bytes"));
  put(t.path / "iterates" / "w.npy", npy("(4,)", 5));
  CHECK_THROWS_WITH(load_iterate(t.str(), entry, "w"), doctest::Contains("holds 40 bytes"));
  // a shape whose byte count overflows; a header longer than the file; another element type
  put(t.path / "iterates" / "w.npy", npy("(4611686018427387904, 8)", 0));
  CHECK_THROWS_WITH(load_iterate(t.str(), entry, "w"), doctest::Contains("declares shape"));
  put(t.path / "iterates" / "w.npy", npy("(4,)", 4).substr(0, 30));
  CHECK_THROWS_WITH(load_iterate(t.str(), entry, "w"), doctest::Contains("the header is cut"));
  std::string f4 = npy("(4,)", 4);
  f4.replace(f4.find("<f8"), 3, "<f4");
  put(t.path / "iterates" / "w.npy", f4);
  CHECK_THROWS_WITH(load_iterate(t.str(), entry, "w"), doctest::Contains("expected float64"));
  // Fortran order is read as such: element (i, j) is value j * rows + i
  put(t.path / "iterates" / "W.npy", npy("(2, 3)", 6, true));
  const OwnedIterate W = load_iterate(t.str(), entry_W, "W");
  CHECK(W.W(0, 1) == 2.0);
  CHECK(W.W(1, 0) == 1.0);
  put(t.path / "iterates" / "W.npy", npy("(2, 3)", 6));
  CHECK(load_iterate(t.str(), entry_W, "W").W(0, 1) == 1.0);
  // a FIFO as an iterate: refused at once
  fs::remove(t.path / "iterates" / "w.npy");
  REQUIRE(mkfifo((t.path / "iterates" / "w.npy").c_str(), 0644) == 0);
  ends_quickly([&] { CHECK_THROWS_WITH(load_iterate(t.str(), entry, "w"), doctest::Contains("not a regular file (a FIFO)")); });
}

TEST_CASE("record.iterates final: each checkpoint written at once and uncommitted, only the last committed, no copy kept") {
  test::TempDir t;
  const fs::path dir = t.path / "iterates";
  auto names = [&] {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  };
  auto hidden = [](const std::string& n) { return n[0] == '.' && n.find(".tmp-") != std::string::npos; };
  {
    IterateStore store(t.str(), "final");
    Vector w1(3), w2(3);
    w1 << 1, 2, 3;
    w2 << 4, 5, 6;
    Iterate it;
    it.w = &w1;
    it.ssvm_dual = SsvmDualPoint{nullptr, 0.25};
    store.keep(it, 0, 1.0);
    REQUIRE(names().size() == 1);  // a temporary: nothing under its name yet
    CHECK(hidden(names()[0]));
    CHECK(names()[0].find("w_000000.npy") != std::string::npos);
    it.w = &w2;
    it.ssvm_dual = SsvmDualPoint{nullptr, 0.5};
    store.keep(it, 1, 2.0);
    REQUIRE(names().size() == 1);  // the first checkpoint's temporary removed
    CHECK(names()[0].find("w_000001.npy") != std::string::npos);
    w2.setZero();  // finish() commits what keep() wrote, not w2 as it is now
    const json e = store.finish();
    CHECK(names() == std::vector<std::string>{"w_000001.npy"});
    REQUIRE(e["saved"].size() == 1);
    CHECK(e["saved"][0]["row"] == 1);
    CHECK(e["saved"][0]["l_alpha"] == 0.5);
    const OwnedIterate back = load_iterate(t.str(), e["saved"][0], "w");
    CHECK(back.w(0) == 4.0);
    CHECK(back.w(2) == 6.0);
  }
  // A killed attempt's temporary (the process ended before finish) is removed by the next
  // attempt of the run; other files are left alone.
  put(dir / ".w_000007.npy.tmp-0123456789abcdef", "x");
  put(dir / ".keep", "x");
  IterateStore again(t.str(), "final");
  CHECK(names() == std::vector<std::string>{".keep", "w_000001.npy"});
  CHECK(again.finish().is_null());  // nothing kept by this attempt
}

TEST_CASE("record.iterates final: a checkpoint that cannot be written is reported by finish, as the run ends") {
  test::TempDir t;
  put(t.path / "iterates", "a file where the folder should be");
  IterateStore store(t.str(), "final");
  Vector w(2);
  w << 1, 2;
  Iterate it;
  it.w = &w;
  CHECK_NOTHROW(store.keep(it, 0, 1.0));  // the solver's checkpoint is not interrupted
  CHECK_THROWS(store.finish());
}
