// libFuzzer: the dense delimited-text parser (plugins/dataset/dense_text) on one training file.
#include "dataset_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::load_dataset({{"train", fuzz::write_input("train.csv", data, size)}});
  return 0;
}
