// libFuzzer: the IDX parser (plugins/dataset/idx). The first byte splits the input into the
// images file and the labels file.
#include "dataset_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t cut = 1 + std::min<std::size_t>(data[0] * 4u, size - 1);
  fuzz::load_dataset({{"train", fuzz::write_input("images.idx", data + 1, cut - 1)},
                      {"train_labels", fuzz::write_input("labels.idx", data + cut, size - cut)}});
  return 0;
}
