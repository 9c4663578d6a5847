// Helpers of the dataset tests: write (compressed) files, load a dataset plugin, catch messages.
#pragma once

#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <fstream>

#include "data/cache.hpp"
#include "data/pipeline.hpp"
#include "data/scale.hpp"
#include "data/split.hpp"
#include "dualgap/parse.hpp"
#include "dualgap/plugin.hpp"
#include "test_support.hpp"

namespace dstest {

using namespace dualgap;

inline std::string write_file(const test::TempDir& dir, const std::string& name, const std::string& content,
                              Compression c = Compression::none) {
  namespace io = boost::iostreams;
  const std::string path = (dir.path / name).string();
  std::ofstream f(path, std::ios::binary);
  io::filtering_ostream out;
  if (c == Compression::gzip) out.push(io::gzip_compressor());
  if (c == Compression::bzip2) out.push(io::bzip2_compressor());
  out.push(f);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.reset();
  return path;
}

/// Loads through the core's data pipeline, as a run does (plugin, then the common options).
inline Data load(const std::string& plugin, const json& params, std::uint64_t seed = 0,
                 const std::string& cache_dir = "") {
  const LoadedPlugin& p = test::plugins().get(Kind::dataset, plugin);
  DatasetContext ctx;
  ctx.seed = seed;
  ctx.cache_dir = cache_dir;
  return load_data(p, make_params(data_schema(p.description->params), params).raw(), ctx);
}

/// The message of the exception thrown by f ("" when none is thrown).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

inline json source_of(const Data& d) { return d.source; }

inline bool same_examples(const Examples& a, const Examples& b) {
  if (a.y != b.y || a.num_classes != b.num_classes || a.X.is_sparse() != b.X.is_sparse()) return false;
  if (a.X.rows() != b.X.rows() || a.X.cols() != b.X.cols()) return false;
  return (a.X.to_dense() - b.X.to_dense()).cwiseAbs().maxCoeff() == 0.0 || a.X.rows() == 0;
}

}  // namespace dstest
