// The "dataset" plugin kind: loads or generates train/test data.
#pragma once

#include <cstdint>
#include <string>

#include "dualgap/data.hpp"
#include "dualgap/plugin_object.hpp"

namespace dualgap {

struct DatasetContext {
  std::uint64_t seed = 0;   ///< data seed of this repeat (splits, subsampling, generation)
  /// The core key `data.seed_offset`: another independent draw for the same seed (0: the
  /// repeat's own). A generator that offers it derives its stream from both, as the core's
  /// splits do; the core's cache then keys a seeded plugin's data by both.
  std::uint64_t seed_offset = 0;
  std::string cache_dir;    ///< where a parsed-data binary cache may be kept ("" = no cache)
};

class DUALGAP_API DatasetPlugin : public PluginObject {
 public:
  ~DatasetPlugin() override;
  /// Loads the data. Errors: throw std::runtime_error naming the file, the line and what was
  /// expected (e.g. "zip.train.gz:1042: expected 256 features, found 255").
  /// Returns the data as read (or generated): train, and test when the format has a test
  /// file. The core then applies the common `data:` options (split, subsampling, scaling,
  /// validation hold-out, cache) to every dataset alike: a plugin does not.
  virtual Data load(const DatasetContext& ctx) = 0;
  /// Whether load()'s result depends on ctx.seed (the core's cache then keys it by the seed).
  /// A parser whose data are a function of its files and parameters returns false.
  virtual bool depends_on_seed() const { return true; }
};

}  // namespace dualgap
