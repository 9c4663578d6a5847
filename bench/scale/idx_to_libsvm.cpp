// Writes an MNIST idx pair (uncompressed images idx3-ubyte and labels idx1-ubyte) as a LIBSVM
// file, so that dualgap and liblinear-train read the same file:
//
//   idx_to_libsvm IMAGES LABELS OUT
//
// One line per image: the label + 1 (classes 1..10), then the nonzero pixels as index:value with
// index = pixel + 1 (row-major) and value = pixel / 255 (6 significant digits). Written to OUT.tmp
// and renamed.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

std::vector<unsigned char> slurp(const char* path) {
  std::vector<unsigned char> out;
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return out;
  unsigned char buf[1 << 16];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  std::fclose(f);
  return out;
}

std::uint32_t be32(const std::vector<unsigned char>& b, std::size_t at) {
  return static_cast<std::uint32_t>(b[at]) << 24 | static_cast<std::uint32_t>(b[at + 1]) << 16 |
         static_cast<std::uint32_t>(b[at + 2]) << 8 | b[at + 3];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: idx_to_libsvm IMAGES LABELS OUT (uncompressed idx files)\n");
    return 2;
  }
  const auto img = slurp(argv[1]), lab = slurp(argv[2]);
  if (img.size() < 16 || lab.size() < 8 || be32(img, 0) != 0x803 || be32(lab, 0) != 0x801) {
    std::fprintf(stderr, "idx_to_libsvm: %s / %s are not idx3 images / idx1 labels\n", argv[1], argv[2]);
    return 1;
  }
  const std::size_t n = be32(img, 4), pixels = static_cast<std::size_t>(be32(img, 8)) * be32(img, 12);
  if (be32(lab, 4) != n || img.size() != 16 + n * pixels || lab.size() != 8 + n) {
    std::fprintf(stderr, "idx_to_libsvm: the counts of the two files do not match their sizes\n");
    return 1;
  }
  const std::string tmp = std::string(argv[3]) + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    std::perror(tmp.c_str());
    return 1;
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::fprintf(f, "%d", lab[8 + i] + 1);
    const unsigned char* x = img.data() + 16 + i * pixels;
    for (std::size_t j = 0; j < pixels; ++j)
      if (x[j]) std::fprintf(f, " %zu:%.6g", j + 1, x[j] / 255.0);
    std::fputc('\n', f);
  }
  if (std::fclose(f) != 0 || std::rename(tmp.c_str(), argv[3]) != 0) {
    std::perror(argv[3]);
    return 1;
  }
  return 0;
}
