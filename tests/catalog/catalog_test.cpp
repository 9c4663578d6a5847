// The bad-input and fault catalog, as data: every line of cases.tsv is one hostile
// input run through the real CLI, with the exit status it must give (2 configuration, 1 data
// or a failed run, 0 documented behaviour with a warning) and a fragment the output must
// contain (usually the file:line:col or --set 'ARG' of the culprit). A new case is one line,
// plus its input file under configs/ or data/ when it needs one.
//
// Placeholders in a command: {cfg} configs/, {data} data/, {tmp} a fresh folder per case,
// {gen} the folder of inputs generated at test time (generate() below: truncated plugins, a
// shadowing copy of a plugin, libraries that fail while they load, a copy of data/runs; results
// folders damaged one way each, one folder per case that writes; links, FIFOs and devices planted
// where dualgap reads or writes). Leading NAME=VALUE words are environment variables. A command
// that starts with @installed runs a copy of the CLI outside the build tree ({gen}/prefix/bin):
// like an installed dualgap whose prefix holds no plugin, it sees DUALGAP_PLUGIN_PATH only.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>

#include "test_support.hpp"
#include "base/util.hpp"
#include "run/run_files.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kCatalog = fs::path(DUALGAP_TEST_SOURCE_DIR) / "tests" / "catalog";

struct Case {
  std::size_t line = 0;
  std::string id;
  int exit = 0;
  std::string fragment;
  std::string command;
};

struct Outcome {
  int code = -1;
  std::string output;
};

std::vector<std::string> split_tabs(const std::string& s) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (;;) {
    const auto e = s.find('\t', b);
    out.push_back(s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

std::vector<Case> read_cases() {
  std::ifstream in(kCatalog / "cases.tsv");
  REQUIRE(in);
  std::vector<Case> cases;
  std::string line;
  std::size_t ln = 0;
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty() || line[0] == '#') continue;
    const auto f = split_tabs(line);
    INFO("cases.tsv:" << ln << ": " << line);
    REQUIRE(f.size() == 4);
    cases.push_back({ln, f[0], std::stoi(f[1]), f[2], f[3]});
  }
  return cases;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

/// The CLI with an argument vector, output discarded; its exit status.
int cli_quiet(const std::vector<std::string>& args) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    setenv("CATALOG_DATA", (kCatalog / "data").c_str(), 1);
    std::vector<std::string> a = {DUALGAP_TEST_CLI};
    a.insert(a.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& x : a) argv.push_back(x.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/// Results folders with a saved iterate, damaged one way each (one folder per case: `evaluate`
/// rewrites run.json), planted links, FIFOs and devices where dualgap reads or writes.
void generate_results(const fs::path& gen) {
  const fs::path good = kCatalog / "data" / "good.svm";
  auto results = [&](const std::string& name, const fs::path& data) {
    fs::create_directories(data.parent_path());
    fs::copy_file(good, data, fs::copy_options::overwrite_existing);
    REQUIRE(cli_quiet({"run", (kCatalog / "configs" / "libsvm.yaml").string(), "-o", (gen / name).string(), "--set",
                       "data.train=" + data.string(), "--set", "record.iterates=final", "--no-report"}) == 0);
  };
  results("evalbase", gen / "evaldata" / "train.svm");
  results("evalchanged", gen / "evaldata_changed" / "train.svm");
  std::ofstream(gen / "evaldata_changed" / "train.svm", std::ios::app) << "2 1:0.9\n";
  auto run_dir = [](const fs::path& root) {
    for (auto& e : fs::recursive_directory_iterator(root))
      if (e.path().filename() == "run.json") return e.path().parent_path();
    FAIL("no run.json under " << root);
    return fs::path();
  };
  auto copy = [&](const std::string& from, const std::string& to) {
    fs::copy(gen / from, gen / to, fs::copy_options::recursive);
    return run_dir(gen / to);
  };
  auto iterate = [&](const fs::path& run) {
    for (auto& e : fs::directory_iterator(run / "iterates"))
      if (e.path().extension() == ".npy") return e.path();
    FAIL("no iterate in " << run);
    return fs::path();
  };
  auto edit_iterate = [&](const std::string& to, const std::function<void(std::string&)>& f) {
    const fs::path it = iterate(copy("evalbase", to));
    std::string bytes = dualgap::read_file(it.string());
    f(bytes);
    std::ofstream(it, std::ios::binary | std::ios::trunc) << bytes;
  };
  auto edit_run = [&](const std::string& to, const std::function<void(dualgap::json&)>& f) {
    const fs::path run = copy("evalbase", to);
    auto j = dualgap::json::parse(dualgap::read_file((run / "run.json").string()));
    f(j);
    std::ofstream(run / "run.json", std::ios::trunc) << j.dump(1);
  };
  auto replace_iterate = [&](const std::string& to, const std::function<void(const fs::path&)>& f) {
    const fs::path it = iterate(copy("evalbase", to));
    fs::remove(it);
    f(it);
  };
  edit_iterate("ev_cut", [](std::string& b) { b.resize(b.size() - 8); });
  edit_iterate("ev_padded", [](std::string& b) { b += std::string(8, '\0'); });
  edit_iterate("ev_header_cut", [](std::string& b) { b.resize(20); });
  edit_iterate("ev_empty", [](std::string& b) { b.clear(); });
  edit_iterate("ev_f4", [](std::string& b) { b.replace(b.find("<f8"), 3, "<f4"); });
  edit_iterate("ev_big_endian", [](std::string& b) { b.replace(b.find("<f8"), 3, ">f8"); });
  edit_iterate("ev_shape_huge", [](std::string& b) {
    const auto open = b.find("'shape': (") + 10;
    b.replace(open, b.find(')', open) - open, "4611686018427387904, 8");
  });
  replace_iterate("ev_fifo", [](const fs::path& p) { REQUIRE(mkfifo(p.c_str(), 0644) == 0); });
  replace_iterate("ev_folder", [](const fs::path& p) { fs::create_directories(p); });
  replace_iterate("ev_device", [](const fs::path& p) { fs::create_symlink("/dev/zero", p); });
  edit_run("ev_no_hashes", [](dualgap::json& j) { j.erase("data_hashes"); });
  copy("evalchanged", "ev_changed");
  copy("evalchanged", "ev_changed_allowed");
  // evaluate and run with the folder's lock file replaced by something else
  fs::create_directories(gen / "victims");
  std::ofstream(gen / "victims" / "victim.txt") << "precious\n";
  auto lock = [&](const std::string& to, const std::function<void(const fs::path&)>& f) {
    const fs::path lock = run_dir(gen / to).parent_path() / ".lock";
    fs::remove(lock);
    f(lock);
  };
  copy("evalbase", "lock_symlink");
  lock("lock_symlink", [&](const fs::path& p) { fs::create_symlink(gen / "victims" / "victim.txt", p); });
  copy("evalbase", "lock_hardlink");
  lock("lock_hardlink", [&](const fs::path& p) { fs::create_hard_link(gen / "victims" / "victim.txt", p); });
  copy("evalbase", "lock_fifo");
  lock("lock_fifo", [](const fs::path& p) { REQUIRE(mkfifo(p.c_str(), 0644) == 0); });
  copy("evalbase", "lock_folder");
  lock("lock_folder", [](const fs::path& p) { fs::create_directories(p); });
  copy("evalbase", "lock_dangling");
  lock("lock_dangling", [&](const fs::path& p) { fs::create_symlink(gen / "victims" / "created-through-link", p); });
  // config.file (compare reads the experiment's solver order from it) naming a FIFO
  REQUIRE(mkfifo((gen / "fifo.yaml").c_str(), 0644) == 0);
  edit_run("cfgfile_fifo", [&](dualgap::json& j) { j["config"]["file"] = (gen / "fifo.yaml").string(); });
  REQUIRE(mkfifo((gen / "fifo.svm").c_str(), 0644) == 0);
  // data fetch: a planted .part link, and a FIFO where the downloaded file goes
  fs::create_directories(gen / "fetch_part" / "iris");
  fs::create_symlink(gen / "victims" / "victim.txt", gen / "fetch_part" / "iris" / "iris.data.part");
  fs::create_directories(gen / "fetch_fifo" / "iris");
  REQUIRE(mkfifo((gen / "fetch_fifo" / "iris" / "iris.data").c_str(), 0644) == 0);
}

/// Inputs that cannot be committed as files: cut copies of a real plugin (a SIGBUS before the
/// ELF check) and a second copy of a built-in plugin (shadowing).
void generate(const fs::path& gen) {
  const fs::path real = fs::path(DUALGAP_TEST_PLUGIN_DIR) / "dualgap_libsvm.so";
  REQUIRE(fs::exists(real));
  const std::string bytes = dualgap::read_file(real.string());
  auto cut = [&](const std::string& folder, std::size_t n) {
    fs::create_directories(gen / folder);
    std::ofstream(gen / folder / "dualgap_cut.so", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(std::min(n, bytes.size())));
  };
  for (std::size_t n : {0, 3, 16, 63, 64, 200, 1000, 4096, 8192, 65536}) cut("cut" + std::to_string(n), n);
  cut("cuthalf", bytes.size() / 2);
  cut("cutlast", bytes.size() - 1);
  fs::create_directories(gen / "shadow");
  fs::copy_file(real, gen / "shadow" / "dualgap_libsvm_copy.so");
  // Results folders (data/runs) for the evaluate and status cases, as a copy: evaluate writes into
  // a run it re-scores and takes its folder's lock, and the source tree stays as committed.
  fs::copy(kCatalog / "data" / "runs", gen / "runs", fs::copy_options::recursive);
  // Packed records (run.json.gz): a gzip stream that inflates 1 MB past the run record limit
  // (from a few hundred KB), and a .gz that is not gzip.
  {
    namespace io = boost::iostreams;
    fs::create_directories(gen / "gzbomb" / "e" / "x");
    std::ofstream file(gen / "gzbomb" / "e" / "x" / "run.json.gz", std::ios::binary);
    io::filtering_ostream out;
    out.push(io::gzip_compressor(io::gzip_params(io::gzip::best_speed)));
    out.push(file);
    const std::string block(1 << 20, ' ');
    out << "{\"schema\": \"dualgap.run/1\"";
    for (std::uintmax_t i = 0; i <= (dualgap::kMaxRunBytes >> 20); ++i) out << block;
  }
  fs::create_directories(gen / "gznot" / "e" / "x");
  std::ofstream(gen / "gznot" / "e" / "x" / "run.json.gz") << "{\"schema\": \"dualgap.run/1\"}";
  // The CLI outside the build tree (@installed): it links the build tree's core library by its
  // absolute RUNPATH, and finds no built-in plugin.
  fs::create_directories(gen / "prefix" / "bin");
  fs::copy_file(DUALGAP_TEST_CLI, gen / "prefix" / "bin" / "dualgap");
  fs::create_directories(gen / "notelf");
  std::ofstream(gen / "notelf" / "dualgap_text.so") << "this is not a shared library\n";
  // YAML the bounded reader refuses by its size alone: a flat list past the node budget, a file
  // past the byte limit (sparse); fifo.yaml, a FIFO, is made by generate_results.
  {
    std::ofstream y(gen / "long_list.yaml");
    y << "name: long\ndescription: [";
    for (int i = 0; i < 100001; ++i) y << (i ? ",1" : "1");
    y << "]\n";
  }
  {
    std::ofstream(gen / "huge.yaml") << "name: huge\n";
    fs::resize_file(gen / "huge.yaml", (std::uintmax_t{17} << 20));
  }
  // Libraries that crash, exit or throw while they load, or export the entry symbol as something
  // else than DUALGAP_PLUGIN's data object (tests/core/plugins/load_fault.cpp): each in a folder
  // of its own (fault_<name>), and all of them together (faults).
  fs::create_directories(gen / "faults");
  for (const char* f : {"crash", "abort", "exit", "throw", "function_symbol", "small_object", "null_pointer",
                        "data_pointer", "crash_no_symbol"}) {
    const fs::path so = fs::path(DUALGAP_TEST_FAULTY_PLUGIN_DIR) / (std::string("dualgap_fault_") + f + ".so");
    REQUIRE(fs::exists(so));
    fs::create_directories(gen / ("fault_" + std::string(f)));
    fs::copy_file(so, gen / ("fault_" + std::string(f)) / so.filename());
    fs::copy_file(so, gen / "faults" / so.filename());
  }
  generate_results(gen);
}

Outcome run(const Case& c, const fs::path& gen, const fs::path& tmp) {
  std::string cmd = c.command;
  cmd = replace_all(cmd, "{cfg}", (kCatalog / "configs").string());
  cmd = replace_all(cmd, "{data}", (kCatalog / "data").string());
  cmd = replace_all(cmd, "{gen}", gen.string());
  cmd = replace_all(cmd, "{tmp}", tmp.string());
  // leading NAME=VALUE words: environment
  std::string env;
  while (true) {
    const auto sp = cmd.find(' ');
    const std::string word = cmd.substr(0, sp);
    const auto eq = word.find('=');
    if (sp == std::string::npos || eq == std::string::npos || eq == 0 || word.find('-') == 0) break;
    env += word + " ";
    cmd = cmd.substr(sp + 1);
  }
  std::string cli = DUALGAP_TEST_CLI;
  if (cmd.rfind("@installed ", 0) == 0) {
    cli = (gen / "prefix" / "bin" / "dualgap").string();
    cmd = cmd.substr(std::string("@installed ").size());
  }
  fs::create_directories(tmp);
  const std::string shell = "cd '" + tmp.string() + "' && CATALOG_DATA='" + (kCatalog / "data").string() + "' " + env +
                            "timeout -s KILL 120 '" + cli + "' " + cmd + " 2>&1";
  Outcome o;
  FILE* p = popen(shell.c_str(), "r");
  if (!p) return o;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) o.output.append(buf, n);
  const int st = pclose(p);
  o.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return o;
}

}  // namespace

TEST_CASE("catalog: every bad input gives its exit status and a message naming the culprit") {
  const auto cases = read_cases();
  std::vector<std::string> ids;
  for (const auto& c : cases) ids.push_back(c.id);
  std::sort(ids.begin(), ids.end());
  CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());  // ids are unique

  dualgap::test::TempDir t;
  generate(t.path / "gen");
  // A few cases at a time: most of the time is process start-up and plugin loading.
  std::vector<Outcome> outcomes(cases.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i; (i = next++) < cases.size();)
      outcomes[i] = run(cases[i], t.path / "gen", t.path / "cases" / cases[i].id);
  };
  std::vector<std::future<void>> pool;
  for (int k = 0; k < 3; ++k) pool.push_back(std::async(std::launch::async, worker));
  for (auto& f : pool) f.get();

  std::size_t passed = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const auto& o = outcomes[i];
    const bool ok = o.code == c.exit && o.output.find(c.fragment) != std::string::npos &&
                    o.output.find("json.exception") == std::string::npos &&
                    o.output.find("Traceback") == std::string::npos;
    if (!ok) {
      INFO("cases.tsv:" << c.line << " " << c.id << ": " << c.command << "\nexpected exit " << c.exit << " and '"
                        << c.fragment << "'\ngot exit " << o.code << ":\n" << o.output);
      CHECK(ok);
    }
    passed += ok;
  }
  MESSAGE("catalog: " << passed << " of " << cases.size() << " cases pass");
  CHECK(cases.size() >= 300);
}
