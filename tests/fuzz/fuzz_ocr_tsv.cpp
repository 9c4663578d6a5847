// libFuzzer: the OCR letters TSV parser (plugins/dataset/ocr_letters).
#include "dataset_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::load_dataset({{"path", fuzz::write_input("letters.tsv", data, size)}, {"train_folds", {0, 1, 2, 3, 4}}});
  return 0;
}
