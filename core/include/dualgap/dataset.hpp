// The "dataset" plugin kind: loads or generates train/test data.
#pragma once

#include <cstdint>
#include <string>

#include "dualgap/data.hpp"
#include "dualgap/plugin_object.hpp"

namespace dualgap {

struct DatasetContext {
  std::uint64_t seed = 0;   ///< data seed of this repeat (splits, subsampling, generation)
  std::string cache_dir;    ///< where a parsed-data binary cache may be kept ("" = no cache)
};

class DUALGAP_API DatasetPlugin : public PluginObject {
 public:
  ~DatasetPlugin() override;
  /// Loads the data. Errors: throw std::runtime_error naming the file, the line and what was
  /// expected (e.g. "zip.train.gz:1042: expected 256 features, found 255").
  virtual Data load(const DatasetContext& ctx) = 0;
};

}  // namespace dualgap
