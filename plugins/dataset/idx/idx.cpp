// IDX files (LeCun's MNIST format): an images file (magic 0x0000 type ndim, big-endian sizes,
// then the values) and a labels file (1-d, integer type). Each image is flattened row-major
// into one dense feature row and multiplied by pixel_scale (default 1/255: pixels in [0, 1]).
// Labels are remapped to 0..K-1 in sorted order. Files may be gzip'd or bzip2'd.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "dualgap/parse.hpp"
#include "dualgap/plugin.hpp"

namespace {

using namespace dualgap;

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

/// A parsed IDX header and the bytes of its values (a view into the decompressed file), decoded
/// by value(): the images go straight into the feature matrix, never through an array of their
/// own (MNIST's 10k images are 63 MB as doubles).
struct IdxArray {
  std::vector<std::int64_t> dims;
  int type = 0;
  std::size_t width = 1;
  std::size_t count = 0;
  const unsigned char* body = nullptr;
  std::string path;

  /// Value i, checked finite.
  double value(std::size_t i) const {
    const unsigned char* p = body + i * width;
    double v;
    switch (type) {
      case 0x08: v = p[0]; break;
      case 0x09: v = static_cast<std::int8_t>(p[0]); break;
      case 0x0B: v = static_cast<std::int16_t>((p[0] << 8) | p[1]); break;
      case 0x0C: v = static_cast<std::int32_t>(be32(p)); break;
      case 0x0D: { std::uint32_t w = be32(p); float f; std::memcpy(&f, &w, 4); v = f; break; }
      default: {
        std::uint64_t w = (std::uint64_t{be32(p)} << 32) | be32(p + 4);
        std::memcpy(&v, &w, 8);
      }
    }
    if (!std::isfinite(v)) throw data_error(path, 0, "value " + std::to_string(i) + " (after the header) is not a finite number");
    return v;
  }
};

/// The header of the IDX file `b` (which must outlive the result) and a view of its values.
IdxArray parse_idx(std::string_view b, const std::string& path) {
  if (b.size() < 4 || b[0] != 0 || b[1] != 0)
    throw data_error(path, 0, "not an IDX file (the first two bytes must be 0; MNIST files start 00 00 08 03 or 00 00 08 01)");
  const auto* u = reinterpret_cast<const unsigned char*>(b.data());
  const int type = u[2];
  const int ndim = u[3];
  std::size_t width;
  switch (type) {
    case 0x08: case 0x09: width = 1; break;
    case 0x0B: width = 2; break;
    case 0x0C: case 0x0D: width = 4; break;
    case 0x0E: width = 8; break;
    default: throw data_error(path, 0, "unknown IDX element type 0x" + [&] { char s[8]; std::snprintf(s, sizeof s, "%02x", type); return std::string(s); }());
  }
  if (ndim < 1) throw data_error(path, 0, "IDX file with no dimensions");
  if (b.size() < 4 + 4 * static_cast<std::size_t>(ndim)) throw data_error(path, 0, "IDX header is truncated");
  IdxArray a;
  // The product of the dimensions is checked for overflow (dims 65536 x 65536 x 65536 x 65536
  // would wrap to 0 and pass the size check), and a 0 dimension is an empty file, not a data set.
  std::size_t count = 1;
  bool overflow = false;
  for (int k = 0; k < ndim; ++k) {
    a.dims.push_back(be32(u + 4 + 4 * k));
    if (a.dims.back() == 0)
      throw data_error(path, 0, "IDX dimension " + std::to_string(k + 1) + " of " + std::to_string(ndim) +
                                    " is 0: the file holds no " + (k == 0 ? "examples" : "values per example"));
    overflow = overflow || __builtin_mul_overflow(count, static_cast<std::size_t>(a.dims.back()), &count);
  }
  std::size_t bytes = 0;
  overflow = overflow || __builtin_mul_overflow(count, width, &bytes);
  const std::size_t header = 4 + 4 * static_cast<std::size_t>(ndim);
  if (overflow || b.size() - header != bytes) {
    std::string shape;
    for (auto d : a.dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    throw data_error(path, 0, "header says " + shape + " values of " + std::to_string(width) + " byte(s) = " +
                                  (overflow ? std::string("more than 2^64") : std::to_string(bytes)) +
                                  " bytes, but the file holds " + std::to_string(b.size() - header) + " after the header");
  }
  a.type = type;
  a.width = width;
  a.count = count;
  a.body = u + header;
  a.path = path;
  return a;
}

class IdxDataset final : public DatasetPlugin {
 public:
  struct Options {
    std::string train;
    std::string train_labels;
    std::optional<std::string> test_labels;
    std::string name;
    double pixel_scale = 1.0 / 255.0;
    bool sparse = false;
    std::optional<std::string> test;

    static void bind(Binder<Options>& b) {
      b.field(&Options::train, "train", "IDX images file (e.g. t10k-images-idx3-ubyte.gz)").path().required();
      b.field(&Options::train_labels, "train_labels", "IDX labels file of the training images").path().required();
      b.field(&Options::test_labels, "test_labels", "IDX labels file of the test images (given with test: both or neither)").path();
      b.field(&Options::name, "name", "data set name in the results (default: the images file name)");
      b.field(&Options::pixel_scale, "pixel_scale", "factor applied to every value (1/255 maps MNIST pixels to [0, 1])");
      b.field(&Options::sparse, "sparse",
              "store the images as sparse CSR rows without their zero values (MNIST: 19 % nonzero, 18 MB instead of 63 MB)");
      test_file_field(b, &Options::test);
    }
    bool validate(std::string* error) const {
      const bool images = !test.value_or("").empty(), labels = !test_labels.value_or("").empty();
      if (images && !labels) *error = "'test' (images) is given but 'test_labels' is not";
      if (!images && labels) *error = "'test_labels' is given but 'test' (images) is not";
      return error->empty();
    }
  };

  explicit IdxDataset(const Options& o)
      : test_(o.test.value_or("")),
        train_(o.train),
        train_labels_(o.train_labels),
        test_labels_(o.test_labels.value_or("")),
        name_(o.name),
        pixel_scale_(o.pixel_scale),
        sparse_(o.sparse) {}

  Data load(const DatasetContext&) override {
    const bool has_test = !test_.empty();
    RawFiles f = read_files({{train_, "train"}, {train_labels_, "train_labels"}, {has_test ? test_ : "", "test"},
                             {has_test ? test_labels_ : "", "test_labels"}});
    return parse(f.paths, std::move(f.bytes));
  }
  bool depends_on_seed() const override { return false; }

 private:
  struct Split {
    std::string ibytes, lbytes;  // the decompressed files, which images and labels view
    IdxArray images, labels;
    std::string ipath, lpath;
    std::vector<double> label_values;
  };

  /// `raw` is taken by value: each file's bytes are handed to decompress (a plain file is then
  /// held once, not as read and as decompressed).
  Data parse(const std::vector<std::string>& paths, std::vector<std::string> raw) const {
    std::vector<Split> splits;
    splits.reserve(paths.size() / 2);  // never moved: images and labels view the bytes a split holds
    std::map<double, int> classes;
    for (std::size_t s = 0; s + 1 < paths.size(); s += 2) {
      Split& sp = splits.emplace_back();
      sp.ipath = paths[s];
      sp.lpath = paths[s + 1];
      sp.ibytes = decompress(std::move(raw[s]), paths[s]);
      sp.images = parse_idx(sp.ibytes, paths[s]);
      for (std::size_t i = 0; i < sp.images.count; ++i) (void)sp.images.value(i);  // every value finite
      sp.lbytes = decompress(std::move(raw[s + 1]), paths[s + 1]);
      sp.labels = parse_idx(sp.lbytes, paths[s + 1]);
      if (sp.labels.dims.size() != 1)
        throw data_error(sp.lpath, 0, "a labels file must be 1-dimensional, found " + std::to_string(sp.labels.dims.size()) + " dimensions");
      if (sp.images.dims[0] != sp.labels.dims[0])
        throw data_error(sp.ipath, 0, "holds " + std::to_string(sp.images.dims[0]) + " images but " + sp.lpath +
                                          " holds " + std::to_string(sp.labels.dims[0]) + " labels");
      for (std::size_t i = 0; i < sp.labels.count; ++i) sp.label_values.push_back(sp.labels.value(i));
      for (double v : sp.label_values) {
        if (v != std::floor(v)) throw data_error(sp.lpath, 0, "non-integer label " + std::to_string(v));
        classes[v] = 0;
      }
    }
    const std::int64_t d = [&] {
      std::int64_t f = 1;
      for (std::size_t k = 1; k < splits[0].images.dims.size(); ++k) f *= splits[0].images.dims[k];
      return f;
    }();
    if (splits.size() > 1) {
      std::int64_t f = 1;
      for (std::size_t k = 1; k < splits[1].images.dims.size(); ++k) f *= splits[1].images.dims[k];
      if (f != d) throw data_error(splits[1].ipath, 0, "images have " + std::to_string(f) + " values, the training images " + std::to_string(d));
    }
    int k = 0;
    json names = json::array();
    for (auto& [v, idx] : classes) {
      idx = k++;
      names.push_back(static_cast<std::int64_t>(v));
    }
    auto to_examples = [&](Split& sp) {
      Examples ex;
      ex.num_classes = static_cast<int>(classes.size());
      const std::int64_t n = sp.images.dims[0];
      if (sparse_) {
        // the nonzeros counted first: the CSR arrays are allocated once, exactly
        std::size_t nnz = 0;
        for (std::size_t i = 0; i < sp.images.count; ++i) nnz += sp.images.value(i) * pixel_scale_ != 0.0;
        if (nnz > 2147483647u || d > 2147483647)
          throw data_error(sp.ipath, 0, "more than 2^31 nonzero values or values per image (use sparse: false)");
        SparseMatrix S(n, d);
        S.resizeNonZeros(static_cast<Eigen::Index>(nnz));
        int at = 0;
        S.outerIndexPtr()[0] = 0;
        for (std::int64_t r = 0; r < n; ++r) {
          for (std::int64_t j = 0; j < d; ++j) {
            const double v = sp.images.value(static_cast<std::size_t>(r * d + j)) * pixel_scale_;
            if (v == 0.0) continue;
            S.innerIndexPtr()[at] = static_cast<int>(j);
            S.valuePtr()[at++] = v;
          }
          S.outerIndexPtr()[r + 1] = at;
        }
        ex.X = FeatureMatrix(std::move(S));
      } else {
        DenseMatrix X(n, d);
        double* x = X.data();
        for (std::size_t i = 0; i < sp.images.count; ++i) x[i] = sp.images.value(i) * pixel_scale_;
        ex.X = FeatureMatrix(std::move(X));
      }
      for (double v : sp.label_values) ex.y.push_back(classes[v]);
      std::string().swap(sp.ibytes);
      return ex;
    };
    Data data;
    data.name = name_.empty() ? file_name(paths[0]) : name_;
    data.train = to_examples(splits[0]);
    if (splits.size() > 1) data.test = to_examples(splits[1]);
    std::vector<std::int64_t> shape(splits[0].images.dims.begin() + 1, splits[0].images.dims.end());
    json src{{"plugin", "idx"}, {"train", paths[0]}, {"train_labels", paths[1]}, {"image_shape", shape},
             {"pixel_scale", pixel_scale_}, {"label_map", names}};
    if (sparse_) src["storage"] = "sparse";
    if (splits.size() > 1) {
      src["test"] = paths[2];
      src["test_labels"] = paths[3];
    }
    data.source = src;
    return data;
  }

  std::string test_;
  std::string train_, train_labels_, test_labels_, name_;
  double pixel_scale_;
  bool sparse_;
};

PluginDescription describe() {
  return describe_dataset<IdxDataset>("idx", "1.0.0", "IDX image/label files (LeCun et al., MNIST database)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
