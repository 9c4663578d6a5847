// libFuzzer: the LIBSVM parser (plugins/dataset/libsvm) on one training file.
#include "dataset_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::load_dataset({{"train", fuzz::write_input("train.svm", data, size)}});
  return 0;
}
