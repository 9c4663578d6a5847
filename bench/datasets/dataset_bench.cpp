// Prints the dataset layer's speed on sector (LIBSVM, bzip2) and USPS (dense text, gzip):
//   decompression MB/s (of decompressed output), parse MB/s of the uncompressed text (plugin
//   load from an uncompressed temp copy, no cache), full load from the compressed file, and the
//   binary cache: load MB/s of the cache file (hit path, including the source checksum) and
//   in-memory deserialization MB/s. Best of R repetitions (R = 5, or argv[1]).
// Usage: dataset_bench [repeats]   (needs DUALGAP_DATA)
//        dataset_bench --parse PLUGIN REPEATS FILE...
//   the second form: the plugin's load() of each plain-text FILE (cache off), REPEATS times, one
//   line per file with the text's MB, the examples and features read, and the median [min, max]
//   wall and thread-CPU seconds and MB/s (bench/scale/parse.sh sets it beside LIBLINEAR's
//   read_problem on the same files).
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "data/cache.hpp"
#include "data/options.hpp"
#include "data/pipeline.hpp"
#include "dualgap/parse.hpp"
#include "dualgap/plugin.hpp"
#include "plugins/loader.hpp"
#include "experiment/schema.hpp"

using namespace dualgap;
namespace fs = std::filesystem;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double cpu_s() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Best wall time and best thread CPU time over the repetitions. On a loaded machine the CPU
/// time is the steadier figure (it excludes time spent waiting for a core).
struct Timing {
  double wall = 1e300, cpu = 1e300;
};

template <class F>
Timing best_of(int reps, F&& f) {
  Timing best;
  for (int r = 0; r < reps; ++r) {
    const double t0 = now_s(), c0 = cpu_s();
    f();
    best.wall = std::min(best.wall, now_s() - t0);
    best.cpu = std::min(best.cpu, cpu_s() - c0);
  }
  return best;
}

void row(const char* what, const Timing& t, double mb, const char* of) {
  std::printf("  %-24s wall %7.3f s %8.1f MB/s | cpu %7.3f s %8.1f MB/s  (MB of %s)\n", what, t.wall, mb / t.wall,
              t.cpu, mb / t.cpu, of);
}

struct Bench {
  PluginRegistry reg;
  fs::path tmp;
  int reps;

  Data load(const std::string& plugin, const json& params, const std::string& cache_dir) {
    const LoadedPlugin& p = reg.get(Kind::dataset, plugin);
    DatasetContext ctx;
    ctx.cache_dir = cache_dir;
    return load_data(p, make_params(data_schema(p.description->params), params).raw(), ctx);
  }

  void run(const std::string& label, const std::string& plugin, const std::string& file, json extra) {
    const std::string raw = read_raw_file(file);
    std::string text;
    const Timing t_dec = best_of(reps, [&] { text = decompress(raw, file); });
    const double mb = static_cast<double>(text.size()) / 1e6;
    const fs::path plain = tmp / (label + ".txt");
    std::ofstream(plain, std::ios::binary).write(text.data(), static_cast<std::streamsize>(text.size()));
    json p = extra;
    p["train"] = plain.string();
    p["cache"] = false;
    Data d;
    const Timing t_parse = best_of(reps, [&] { d = load(plugin, p, ""); });
    json pc = extra;
    pc["train"] = file;
    pc["cache"] = false;
    const Timing t_full = best_of(reps, [&] { d = load(plugin, pc, ""); });
    const fs::path cache = tmp / ("cache-" + label);
    pc["cache"] = true;
    load(plugin, pc, cache.string());  // store
    std::uintmax_t cache_bytes = 0;
    std::string cache_file;
    for (auto& e : fs::directory_iterator(cache)) {
      cache_bytes = fs::file_size(e.path());
      cache_file = e.path().string();
    }
    const Timing t_hit = best_of(reps, [&] { d = load(plugin, pc, cache.string()); });
    const std::string cached = read_raw_file(cache_file);
    std::uint64_t key;
    std::memcpy(&key, cached.data() + 16, 8);  // header: magic 8, version 4, reserved 4, key 8
    Data back;
    const Timing t_des = best_of(reps, [&] {
      if (!deserialize_data(cached, key, back)) std::abort();
    });
    const double cmb = static_cast<double>(cache_bytes) / 1e6;
    std::printf("%s: %s, %zu examples x %lld features, %lld stored values\n", label.c_str(), file.c_str(),
                d.train.num_examples(), static_cast<long long>(d.train.num_features()),
                static_cast<long long>(d.train.X.nonzeros()));
    std::printf("  compressed %.2f MB (%s), uncompressed text %.2f MB, cache file %.2f MB\n",
                static_cast<double>(raw.size()) / 1e6, to_string(detect_compression(raw)), mb, cmb);
    row("decompress", t_dec, mb, "text");
    row("parse (plain file)", t_parse, mb, "text");
    row("full load (compressed)", t_full, mb, "text");
    row("cache hit load", t_hit, cmb, "cache file");
    row("cache deserialize (mem)", t_des, cmb, "cache file");
    std::printf("  cache hit vs full load: %.1fx faster (cpu), %.1fx (wall)\n", t_full.cpu / t_hit.cpu, t_full.wall / t_hit.wall);
  }
};

/// Median, min and max of a sample (3 repeats: the middle one and the range).
struct Spread {
  double median, min, max;
};

Spread spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

/// dataset_bench --parse PLUGIN REPEATS FILE...
int parse_only(Bench& b, const std::string& plugin, int reps, const std::vector<std::string>& files) {
  std::printf("file\tMB\texamples\tfeatures\twall_median\twall_min\twall_max\tcpu_median\tcpu_min\tcpu_max\n");
  for (const std::string& file : files) {
    const double mb = static_cast<double>(fs::file_size(file)) / 1e6;
    json p = json::object();
    p["train"] = file;
    p["cache"] = false;
    std::vector<double> wall, cpu;
    Data d;
    for (int r = 0; r < reps; ++r) {
      d = Data{};  // the previous copy freed before the clock starts
      const double t0 = now_s(), c0 = cpu_s();
      d = b.load(plugin, p, "");
      wall.push_back(now_s() - t0);
      cpu.push_back(cpu_s() - c0);
    }
    const Spread w = spread(wall), c = spread(cpu);
    std::printf("%s\t%.1f\t%zu\t%lld\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", file.c_str(), mb, d.train.num_examples(),
                static_cast<long long>(d.train.num_features()), w.median, w.min, w.max, c.median, c.min, c.max);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--parse") {
    if (argc < 5) {
      std::fprintf(stderr, "usage: dataset_bench --parse PLUGIN REPEATS FILE...\n");
      return 2;
    }
    Bench b;
    b.reg.scan({DUALGAP_PLUGIN_DIR});
    try {
      return parse_only(b, argv[2], std::max(1, std::atoi(argv[3])), std::vector<std::string>(argv + 4, argv + argc));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dataset_bench: %s\n", e.what());
      return 1;
    }
  }
  const char* root = std::getenv("DUALGAP_DATA");
  if (!root || !*root) {
    std::fprintf(stderr, "dataset_bench: set DUALGAP_DATA to the shared data folder (shared/data)\n");
    return 2;
  }
  Bench b;
  b.reps = argc > 1 ? std::atoi(argv[1]) : 5;
  b.reg.scan({DUALGAP_PLUGIN_DIR});
  std::random_device rd;
  b.tmp = fs::temp_directory_path() / ("dualgap-dataset-bench-" + std::to_string(rd()));
  fs::create_directories(b.tmp);
  std::printf("dataset_bench: best of %d; timings share the machine with other processes\n", b.reps);
  try {
    b.run("sector", "libsvm", std::string(root) + "/sector/sector.scale.bz2", json::object());
    b.run("usps", "dense_text", std::string(root) + "/usps/zip.train.gz", json::object());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dataset_bench: %s\n", e.what());
    fs::remove_all(b.tmp);
    return 1;
  }
  fs::remove_all(b.tmp);
  return 0;
}
