#include "runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <fmt/format.h>
#include <iostream>
#include <thread>

#include "dualgap/data_utils.hpp"
#include "recorder.hpp"
#include "signals.hpp"
#include "util.hpp"

namespace dualgap {
namespace fs = std::filesystem;

namespace {

void collect_files(const json& j, std::vector<std::string>& out) {
  if (j.is_string()) {
    std::error_code ec;
    const std::string s = j;
    if (!s.empty() && s.size() < 4096 && fs::is_regular_file(s, ec)) out.push_back(s);
  } else if (j.is_object() || j.is_array()) {
    for (auto& v : j) collect_files(v, out);
  }
}

// The git revision of the source tree, read once per process (before the runner forks).
const std::string& source_revision() {
  static const std::string rev = [] {
    std::string git;
    if (FILE* p = popen("git -C \"" DUALGAP_SOURCE_DIR "\" rev-parse --short HEAD 2>/dev/null", "r")) {
      char buf[64] = {};
      if (fgets(buf, sizeof buf, p)) git = buf;
      pclose(p);
      while (!git.empty() && (git.back() == '\n' || git.back() == '\r')) git.pop_back();
    }
    return git;
  }();
  return rev;
}

json environment_json() {
  json e;
  e["version"] = kVersion;
  e["api_version"] = kApiVersion;
  e["compiler"] = std::string("g++ ") + __VERSION__;
  e["started"] = iso_time_now();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  e["host"] = host;
  const std::string& git = source_revision();
  e["git"] = git.empty() ? json(nullptr) : json(git);
  e["hardware_concurrency"] = std::thread::hardware_concurrency();
  return e;
}

json base_json(const RunSpec& run, const std::string& hash) {
  return json{{"schema", "dualgap.run/1"},
              {"experiment", run.experiment},
              {"run_id", run.run_id},
              {"solver", run.solver_name},
              {"repeat", run.repeat},
              {"status", "running"},
              {"message", ""},
              {"problem_key", run.problem_key},
              {"group_key", run.group_key},
              {"approximate", false},
              {"config", run.config},
              {"config_hash", hash}};
}

double vars_count(const Examples& ex, const char* what) {
  if (std::string(what) == "n") return static_cast<double>(ex.num_examples());
  if (std::string(what) == "N") return static_cast<double>(ex.num_units());
  if (std::string(what) == "d") return static_cast<double>(ex.num_features());
  return static_cast<double>(ex.num_classes);
}

}  // namespace

std::string config_hash(const RunSpec& run, const PluginRegistry& reg) {
  Fnv64 h;
  json cfg = run.config;
  cfg.erase("sets");
  h.add(cfg.dump());
  auto plugin_hash = [&](Kind k, const json& section) {
    if (section.is_null()) return;
    if (auto* p = reg.find(k, section["plugin"])) h.add(file_hash_hex(p->path));
  };
  plugin_hash(Kind::dataset, run.config["data"]);
  for (auto& f : run.config["features"]) plugin_hash(Kind::features, f);
  plugin_hash(Kind::oracle, run.config["oracle"]);
  plugin_hash(Kind::solver, run.config["solver"]);
  std::vector<std::string> files;
  collect_files(run.config["data"], files);
  for (auto& f : files) h.add(file_hash_hex(f));
  return h.hex();
}

bool finished_before(const std::string& dir, const std::string& hash) {
  try {
    auto j = json::parse(read_file((fs::path(dir) / "run.json").string()));
    const std::string st = j.value("status", "");
    return j.value("config_hash", "") == hash && (st == "done" || st == "budget");
  } catch (...) {
    return false;
  }
}

void execute_run(const RunSpec& run, const std::string& run_dir, const std::string& hash, const PluginRegistry& reg,
                 const std::string& cache_dir) {
  using Clock = std::chrono::steady_clock;
  const auto wall_start = Clock::now();
  fs::create_directories(run_dir);
  const std::string final_path = (fs::path(run_dir) / "run.json").string();
  const std::string partial_path = (fs::path(run_dir) / "run.partial.jsonl").string();
  json out = base_json(run, hash);
  out["environment"] = environment_json();

  OracleCounters counters;
  const json& cfg = run.config;
  RunRecorder rec(StopCriteria::from_json(cfg["stop"]), Schedule::from_json(cfg["record"]), &counters);
  json info = json::object();
  auto snapshot = [&](const char* status) {
    json j = out;
    j["status"] = status;
    j["approximate"] = rec.approximate();
    j["curve"] = rec.curve_json();
    json s = rec.summary_json();
    s["wall_time"] = std::chrono::duration<double>(Clock::now() - wall_start).count();
    s["peak_rss_bytes"] = peak_rss_bytes();
    j["summary"] = s;
    j["data_info"] = info;
    return j;
  };
  // The partial log (what the parent keeps of a killed or crashed run): a header line, then
  // one appended line per checkpoint, so that recording stays cheap for short runs.
  std::unique_ptr<FILE, int (*)(FILE*)> partial(std::fopen(partial_path.c_str(), "w"), &std::fclose);
  if (partial) {
    json header = out;
    header["data_info"] = json::object();
    std::fputs((header.dump() + "\n").c_str(), partial.get());
    std::fflush(partial.get());
  }
  rec.on_row = [&] {
    if (!partial) return;
    json row = rec.row_json(rec.rows() - 1);
    row["approximate"] = rec.approximate();
    row["wall_time"] = std::chrono::duration<double>(Clock::now() - wall_start).count();
    std::fputs((row.dump() + "\n").c_str(), partial.get());
    std::fflush(partial.get());
  };

  try {
    // data
    auto t0 = Clock::now();
    const LoadedPlugin& dp = reg.get(Kind::dataset, cfg["data"]["plugin"]);
    auto ds = create_object<DatasetPlugin>(dp, Params(cfg["data"]["params"]));
    DatasetContext dctx;
    dctx.seed = cfg["seeds"]["data"].get<std::uint64_t>();
    dctx.cache_dir = cache_dir;
    Data data = ds->load(dctx);
    data.train.check(dp.path + " (train split)");
    if (data.test.num_units() > 0) data.test.check(dp.path + " (test split)");
    if (cfg["data"].contains("validation")) {
      // Hold out a stratified part of train as the evaluation set; the test set is never seen.
      const double frac = cfg["data"]["validation"].get<double>();
      auto [tr, va] = split_indices(data.train, frac, derive_seed(dctx.seed, "validation", 0), true, false);
      if (tr.empty() || va.empty())
        throw DataError(fmt::format("data.validation = {}: the training set of {} examples leaves an empty {} side",
                                    frac, data.train.num_examples(), tr.empty() ? "training" : "validation"));
      info["validation"] = {{"fraction", frac}, {"train_examples", tr.size()}, {"validation_examples", va.size()},
                            {"test_examples_dropped", data.test.num_examples()}};
      data.test = data.train.select(va);
      data.train = data.train.select(tr);
    }
    info["load_time"] = std::chrono::duration<double>(Clock::now() - t0).count();
    // feature chain, fitted on train only
    t0 = Clock::now();
    std::uint64_t fseed = cfg["seeds"]["features"].get<std::uint64_t>();
    std::size_t fidx = 0;
    for (auto& f : cfg["features"]) {
      const LoadedPlugin& fp = reg.get(Kind::features, f["plugin"]);
      json vars = {{"n", vars_count(data.train, "n")}, {"N", vars_count(data.train, "N")},
                   {"d", vars_count(data.train, "d")}, {"K", vars_count(data.train, "K")}};
      auto fg = create_object<FeatureGenerator>(fp, Params(resolve_expressions(fp.description->params, f["params"], vars)));
      fg->fit(data.train, derive_seed(fseed, "features", fidx++));
      data.train.X = fg->transform(data.train.X);
      if (data.test.num_units() > 0) data.test.X = fg->transform(data.test.X);
    }
    info["features_time"] = std::chrono::duration<double>(Clock::now() - t0).count();
    const json vars = {{"n", vars_count(data.train, "n")}, {"N", vars_count(data.train, "N")},
                       {"d", vars_count(data.train, "d")}, {"K", vars_count(data.train, "K")}};
    info["train"] = {{"examples", data.train.num_examples()}, {"units", data.train.num_units()},
                     {"features", data.train.num_features()}, {"classes", data.train.num_classes},
                     {"nonzeros", data.train.X.nonzeros()}, {"sparse", data.train.X.is_sparse()}};
    info["test"] = {{"examples", data.test.num_examples()}, {"units", data.test.num_units()}};
    info["name"] = data.name;
    info["source"] = data.source;

    // problem
    Problem pb;
    pb.data = &data;
    const json problem = resolve_expressions(
        {{"lambda", ParamType::real, json("1/n"), 0.0, {}, {}, ""}}, cfg["problem"], vars);
    pb.lambda = problem["lambda"].get<double>();
    pb.params = problem;
    out["config"]["problem_resolved"] = problem;

    std::shared_ptr<Oracle> oracle;
    if (!cfg["oracle"].is_null()) {
      const LoadedPlugin& op = reg.get(Kind::oracle, cfg["oracle"]["plugin"]);
      json params = resolve_expressions(op.description->params, cfg["oracle"]["params"], vars);
      oracle = create_object<Oracle>(op, Params(params));
      oracle->attach_counters(&counters);
      pb.oracle = oracle.get();
    }
    const LoadedPlugin& sp = reg.get(Kind::solver, cfg["solver"]["plugin"]);
    json sparams = resolve_expressions(sp.description->params, cfg["solver"]["params"], vars);
    out["config"]["solver"]["params_resolved"] = sparams;
    auto solver = create_object<Solver>(sp, Params(sparams));

    SolverContext ctx;
    ctx.recorder = &rec;
    ctx.seed = cfg["seeds"]["solver"].get<std::uint64_t>();
    ctx.make_features = [&reg, vars](const std::string& plugin, const json& params) {
      const LoadedPlugin& fp = reg.get(Kind::features, plugin);
      json given = params.is_null() ? json::object() : params;
      json v = apply_schema(fp.description->params, given, "features plugin " + plugin, nullptr, &vars);
      return create_object<FeatureGenerator>(fp, Params(v));
    };
    rec.start();
    solver->solve(pb, ctx);
    rec.finish();
    if (rec.status() == RunStatus::running) rec.set_status(RunStatus::done, "the solver stopped by its own criterion");
    if (rec.rows() == 0) rec.set_status(RunStatus::failed, "the solver recorded no checkpoint");
  } catch (const std::exception& e) {
    rec.finish();
    rec.set_status(RunStatus::failed, e.what());
  } catch (...) {
    rec.finish();
    rec.set_status(RunStatus::failed, "unknown exception");
  }
  out["message"] = rec.message();
  json final_json = snapshot(to_string(rec.status()));
  final_json["message"] = rec.message();
  write_file_atomic(final_path, final_json.dump(1));
  partial.reset();
  std::error_code ec;
  fs::remove(partial_path, ec);
}

namespace {

using SteadyClock = std::chrono::steady_clock;

struct Child {
  pid_t pid = 0;
  std::size_t index = 0;
  std::string dir;
  std::string hash;
  SteadyClock::time_point started;
  double deadline_s = 0;
  bool killed = false;
};

double run_deadline(const RunSpec& run, const RunnerOptions& opts) {
  if (opts.deadline_s > 0) return opts.deadline_s;
  const json& stop = run.config["stop"];
  if (stop.contains("deadline") && !stop["deadline"].is_null()) return stop["deadline"].get<double>();
  if (stop.contains("max_time") && !stop["max_time"].is_null()) return 3 * stop["max_time"].get<double>() + 120;
  return 3600;
}


// After a child died without writing run.json: rebuild its partial curve from the append-only
// log (header line + one line per checkpoint), mark it timeout / failed.
void salvage(const RunSpec& run, const Child& c, const std::string& status, const std::string& message) {
  const auto partial = fs::path(c.dir) / "run.partial.jsonl";
  json j = base_json(run, c.hash);
  std::vector<json> rows;
  if (std::ifstream in(partial); in) {
    std::string line;
    bool first = true;
    while (std::getline(in, line)) {
      json v;
      try {
        v = json::parse(line);
      } catch (...) {
        break;  // a line cut by the kill
      }
      if (first) j = v;
      else rows.push_back(std::move(v));
      first = false;
    }
  }
  json curve = json::object();
  std::vector<std::string> names;
  for (auto& r : rows)
    for (auto& [k, v] : r.items())
      if (k != "approximate" && k != "wall_time" && !curve.contains(k)) {
        curve[k] = json::array();
        names.push_back(k);
      }
  for (auto& r : rows)
    for (auto& k : names) curve[k].push_back(r.contains(k) ? r[k] : json(nullptr));
  json summary = json::object();
  if (!rows.empty()) {
    for (auto& k : names) summary[k] = rows.back().value(k, json(nullptr));
    j["approximate"] = rows.back().value("approximate", false);
  }
  summary["rows"] = rows.size();
  summary["wall_time"] = std::chrono::duration<double>(SteadyClock::now() - c.started).count();
  j["curve"] = curve;
  j["summary"] = summary;
  j["status"] = status;
  j["message"] = message;
  write_file_atomic((fs::path(c.dir) / "run.json").string(), j.dump(1));
  std::error_code ec;
  fs::remove(partial, ec);
}

std::string describe_row(const std::string& dir) {
  try {
    auto j = json::parse(read_file((fs::path(dir) / "run.json").string()));
    const auto& s = j["summary"];
    auto num = [&](const char* k) -> std::string {
      return s.contains(k) && s[k].is_number() ? fmt::format("{:.6g}", s[k].get<double>()) : "-";
    };
    std::string msg = j.value("message", "");
    std::string st = j.value("status", "?");
    std::string line = fmt::format("{:<8} primal {} gap {} passes {} time {}s", st, num("primal"), num("gap"),
                                   num("passes"), num("time"));
    if (st == "failed" || st == "timeout" || st == "diverged" || st == "interrupted") line += ": " + msg;
    return line;
  } catch (const std::exception& e) {
    return std::string("unreadable run.json: ") + e.what();
  }
}

}  // namespace

RunnerSummary run_all(const std::vector<RunSpec>& runs, const RunnerOptions& opts, const PluginRegistry& reg) {
  RunnerSummary sum;
  sum.total = static_cast<int>(runs.size());
  const std::string cache_dir = (fs::path(opts.out_dir) / ".cache").string();
  source_revision();  // once, before forking
  std::deque<std::size_t> queue;
  std::vector<std::string> hashes(runs.size()), dirs(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    dirs[i] = (fs::path(opts.out_dir) / runs[i].experiment / runs[i].run_id).string();
    hashes[i] = config_hash(runs[i], reg);
    sum.run_dirs.push_back(dirs[i]);
    if (!opts.force && finished_before(dirs[i], hashes[i])) {
      ++sum.skipped;
      if (!opts.quiet) std::cout << fmt::format("[skip] {} (finished before; --force to rerun)\n", runs[i].run_id);
      continue;
    }
    queue.push_back(i);
  }
  std::cout.flush();
  const StopSignals stop_signals;  // SIGTERM/SIGINT/SIGHUP: stop the children, keep their curves
  const pid_t parent = ::getpid();
  std::vector<Child> running;
  int finished = 0;
  const int to_run = static_cast<int>(queue.size());
  double total_time = 0;
  auto progress = [&]() {
    if (!opts.progress_tty || opts.quiet) return;
    double eta = finished ? total_time / finished * (to_run - finished) / std::max(1, opts.jobs) : 0;
    std::cout << fmt::format("\r[{}/{} done, {} running, {} failed] ETA {:.0f}s   ", finished, to_run, running.size(),
                             sum.failed + sum.timeout, eta)
              << std::flush;
  };
  auto account = [&](const std::string& dir) {
    try {
      auto j = json::parse(read_file((fs::path(dir) / "run.json").string()));
      const std::string st = j.value("status", "failed");
      if (st == "done") ++sum.done;
      else if (st == "budget") ++sum.budget;
      else if (st == "timeout") ++sum.timeout;
      else if (st == "diverged") ++sum.diverged;
      else if (st == "interrupted") ++sum.interrupted;
      else ++sum.failed;
    } catch (...) {
      ++sum.failed;
    }
  };

  while (!queue.empty() || !running.empty()) {
    if (const int sig = StopSignals::received(); sig != 0 && sum.stop_signal == 0) {
      sum.stop_signal = sig;
      queue.clear();  // not started: left for the resume
      for (auto& c : running) kill(c.pid, SIGTERM);
    }
    while (!queue.empty() && static_cast<int>(running.size()) < std::max(1, opts.jobs)) {
      const std::size_t i = queue.front();
      queue.pop_front();
      fs::create_directories(dirs[i]);
      std::cout.flush();
      std::cerr.flush();
      pid_t pid = fork();
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) {
        child_after_fork(parent);
        // child: its stderr goes to the run folder
        int fd = ::open((fs::path(dirs[i]) / "stderr.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
          dup2(fd, 2);
          close(fd);
        }
        execute_run(runs[i], dirs[i], hashes[i], reg, cache_dir);
        std::fflush(nullptr);
        _exit(0);
      }
      Child c;
      c.pid = pid;
      c.index = i;
      c.dir = dirs[i];
      c.hash = hashes[i];
      c.started = SteadyClock::now();
      c.deadline_s = run_deadline(runs[i], opts);
      running.push_back(c);
      progress();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (std::size_t k = 0; k < running.size();) {
      Child& c = running[k];
      int status = 0;
      pid_t r = waitpid(c.pid, &status, WNOHANG);
      const double elapsed = std::chrono::duration<double>(SteadyClock::now() - c.started).count();
      if (r == 0) {
        if (!c.killed && elapsed > c.deadline_s) {
          kill(c.pid, SIGKILL);
          c.killed = true;
        }
        ++k;
        continue;
      }
      const RunSpec& run = runs[c.index];
      const bool wrote = fs::exists(fs::path(c.dir) / "run.json") && !fs::exists(fs::path(c.dir) / "run.partial.jsonl");
      const bool stopped = WIFSIGNALED(status) && (sum.stop_signal != 0 || WTERMSIG(status) == SIGTERM ||
                                                    WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGHUP);
      if (c.killed) {
        salvage(run, c, "timeout", fmt::format("killed by the watchdog after {:.1f} s (deadline {:.0f} s)", elapsed, c.deadline_s));
      } else if (stopped) {
        // Told to stop (the parent's signal, or Slurm/Ctrl-C signalling the whole group): keep
        // the partial curve, the resume reruns it; a run.json the child finished is kept as it is.
        if (!wrote)
          salvage(run, c, "interrupted", fmt::format("interrupted by signal {} ({}) after {:.1f} s", WTERMSIG(status),
                                                    strsignal(WTERMSIG(status)), elapsed));
      } else if (WIFSIGNALED(status)) {
        salvage(run, c, "failed", fmt::format("the run crashed: signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status))));
      } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
        salvage(run, c, "failed", fmt::format("the run exited with status {}", WEXITSTATUS(status)));
      } else if (!wrote) {
        salvage(run, c, "failed", "the run ended without writing run.json");
      }
      account(c.dir);
      ++finished;
      total_time += elapsed;
      if (!opts.quiet) {
        if (opts.progress_tty) std::cout << "\r\033[K";
        std::cout << fmt::format("[{}/{}] {:<40} {}\n", finished, to_run, run.run_id, describe_row(c.dir));
      }
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      progress();
    }
  }
  if (opts.progress_tty && !opts.quiet) std::cout << "\r\033[K" << std::flush;
  return sum;
}

}  // namespace dualgap
