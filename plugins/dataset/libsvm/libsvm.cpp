// LIBSVM / SVMlight sparse text format: one example per line, "label index:value index:value ...".
// Output: sparse CSR (or dense with dense: true), labels remapped to 0..K-1 in sorted order.
// Reads plain, gzip or bzip2 files (detected by magic bytes), 1- or 0-based indices, CRLF line
// endings, trailing spaces, '#' comment lines and trailing "# ..." comments.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unistd.h>

#include "dualgap/parse.hpp"
#include "dualgap/plugin.hpp"

namespace {

using namespace dualgap;

/// One parsed file, before labels are remapped and indices shifted.
struct ParsedFile {
  std::string path;
  std::vector<int> label_id;          // provisional id (LabelCollector) per example
  std::vector<std::size_t> line_of;   // source line per example (for later errors)
  std::vector<int> outer{0};
  std::vector<std::int64_t> index;    // raw indices as written
  std::vector<double> value;
  LabelCollector labels;
  std::int64_t max_index = -1;
  std::size_t first_zero_line = 0;    // first line using index 0 (0 = none)
};

/// Parses LIBSVM text. Hot loop: pointer scanning and std::from_chars, no streams.
ParsedFile parse_libsvm(std::string_view text, const std::string& path) {
  ParsedFile f;
  f.path = path;
  // Rough reservation: one value per ~10 bytes.
  f.index.reserve(text.size() / 10);
  f.value.reserve(text.size() / 10);
  LineScanner lines(text);
  std::string_view line;
  std::vector<std::pair<std::int64_t, double>> sortbuf;
  while (lines.next(line)) {
    const char* p = line.data();
    const char* e = p + line.size();
    while (p < e && is_space(*p)) ++p;
    if (p == e || *p == '#') continue;  // blank or comment line
    const std::size_t ln = lines.line_number();
    const char* t = p;
    while (p < e && !is_space(*p)) ++p;
    std::string_view label(t, static_cast<std::size_t>(p - t));
    if (label.find(':') != std::string_view::npos)
      throw data_error(path, ln, "label missing: the line starts with the feature " + quote_token(label));
    if (label.find(',') != std::string_view::npos)
      throw data_error(path, ln, "multi-label example " + quote_token(label) + " is not supported (one class per example)");
    // A LIBSVM label is a class id written as a number: "1", "1.0" and "+1" are one class, and a
    // word, nan or 1e20 is a malformed line rather than a class of its own.
    double label_value;
    if (!parse_double(label, label_value))
      throw data_error(path, ln, "label " + quote_token(label) + " is not a number (LIBSVM labels are class ids such as 1, -1, 3)");
    if (label_value != std::floor(label_value) || std::fabs(label_value) > 2147483647.0)
      throw data_error(path, ln, "label " + quote_token(label) + " is not an integer class id in [-2^31, 2^31)");
    f.label_id.push_back(f.labels.add(label));
    f.line_of.push_back(ln);
    const std::size_t row_begin = f.index.size();
    std::int64_t prev = -1;
    bool sorted = true;
    for (;;) {
      while (p < e && is_space(*p)) ++p;
      if (p == e || *p == '#') break;
      t = p;
      while (p < e && !is_space(*p)) ++p;
      std::string_view tok(t, static_cast<std::size_t>(p - t));
      const auto colon = tok.find(':');
      if (colon == std::string_view::npos)
        throw data_error(path, ln, "expected index:value, found " + quote_token(tok));
      std::int64_t idx;
      if (!parse_index(tok.substr(0, colon), idx)) {
        if (tok.substr(0, colon) == "qid")
          throw data_error(path, ln, "SVMlight 'qid:' (ranking) tokens are not supported");
        throw data_error(path, ln, "invalid feature index " + quote_token(tok.substr(0, colon)) + " in " + quote_token(tok));
      }
      if (idx > 2147483646) throw data_error(path, ln, "feature index " + std::to_string(idx) + " is too large");
      double v;
      if (const NumberStatus st = read_double(tok.substr(colon + 1), v); st != NumberStatus::ok)
        throw data_error(path, ln, number_problem(tok.substr(colon + 1), st) + " for feature " + std::to_string(idx));
      if (idx == 0 && f.first_zero_line == 0) f.first_zero_line = ln;
      if (idx <= prev) sorted = false;
      prev = idx;
      if (idx > f.max_index) f.max_index = idx;
      f.index.push_back(idx);
      f.value.push_back(v);
    }
    if (!sorted) {
      // Rare: indices out of order. Sort the row; duplicates are an error.
      sortbuf.clear();
      for (std::size_t k = row_begin; k < f.index.size(); ++k) sortbuf.emplace_back(f.index[k], f.value[k]);
      std::sort(sortbuf.begin(), sortbuf.end(), [](auto& a, auto& b) { return a.first < b.first; });
      for (std::size_t k = 0; k < sortbuf.size(); ++k) {
        if (k > 0 && sortbuf[k].first == sortbuf[k - 1].first)
          throw data_error(path, ln, "feature index " + std::to_string(sortbuf[k].first) + " appears twice");
        f.index[row_begin + k] = sortbuf[k].first;
        f.value[row_begin + k] = sortbuf[k].second;
      }
    }
    if (f.index.size() > 2147483647u) throw data_error(path, ln, "more than 2^31 nonzeros");
    f.outer.push_back(static_cast<int>(f.index.size()));
  }
  return f;
}

Examples to_examples(ParsedFile& f, const LabelMap& map, std::int64_t base, std::int64_t num_features, bool dense) {
  Examples ex;
  ex.num_classes = map.num_classes();
  std::vector<int> remap(f.labels.tokens().size());
  for (std::size_t k = 0; k < remap.size(); ++k) remap[k] = map.index(f.labels.tokens()[k]);
  ex.y.resize(f.label_id.size());
  for (std::size_t i = 0; i < ex.y.size(); ++i) ex.y[i] = remap[static_cast<std::size_t>(f.label_id[i])];
  const auto rows = static_cast<Eigen::Index>(f.label_id.size());
  const auto nnz = static_cast<Eigen::Index>(f.index.size());
  SparseMatrix S(rows, num_features);
  S.resizeNonZeros(nnz);
  // std::copy, not memcpy: with no non-zeros (labels without features) the storage is null, and
  // memcpy from or to null is undefined even for 0 bytes (found by fuzz_libsvm under UBSan).
  std::copy(f.outer.begin(), f.outer.end(), S.outerIndexPtr());
  int* inner = S.innerIndexPtr();
  for (Eigen::Index k = 0; k < nnz; ++k) inner[k] = static_cast<int>(f.index[static_cast<std::size_t>(k)] - base);
  std::copy(f.value.begin(), f.value.end(), S.valuePtr());
  // Release the parse buffers early (sector: ~25 MB).
  f.index = {};
  f.value = {};
  if (dense) {
    // Refuse before allocating: with memory overcommit a too-large matrix is not a bad_alloc
    // but an OOM kill while it is zero-filled.
    const double bytes = static_cast<double>(rows) * static_cast<double>(num_features) * 8.0;
    const double phys = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (phys > 0 && bytes > 0.5 * phys)
      throw data_error(f.path, 0, "dense: true needs " + std::to_string(bytes * 1e-9) + " GB for " + std::to_string(rows) +
                                      " x " + std::to_string(num_features) + " values, more than half of the " +
                                      std::to_string(phys * 1e-9) + " GB of memory; keep the data sparse (dense: false)");
    ex.X = FeatureMatrix(DenseMatrix(S));
  } else {
    ex.X = FeatureMatrix(std::move(S));
  }
  return ex;
}

enum class IndexBase { automatic, one, zero };

class LibsvmDataset final : public DatasetPlugin {
 public:
  struct Options {
    std::string train;
    std::string name;
    bool dense = false;
    IndexBase index_base = IndexBase::automatic;
    std::int64_t num_features = 0;
    std::optional<std::string> test;

    static void bind(Binder<Options>& b) {
      b.field(&Options::train, "train", "training file in LIBSVM format (plain, .gz or .bz2)").path().required();
      b.field(&Options::name, "name", "data set name in the results (default: the train file name)");
      b.field(&Options::dense, "dense", "store the features as a dense matrix instead of sparse CSR");
      b.choice(&Options::index_base, "index_base",
               {{"auto", IndexBase::automatic}, {"1", IndexBase::one}, {"0", IndexBase::zero}},
               "feature index of the first column: 1 (LIBSVM), 0, or auto (0 when index 0 occurs)");
      b.field(&Options::num_features, "num_features",
              "number of features (0 = largest index seen in train and test; an index beyond it is an error)")
          .min(0);
      test_file_field(b, &Options::test);
    }
  };

  explicit LibsvmDataset(const Options& o)
      : test_(o.test.value_or("")),
        train_(o.train),
        name_(o.name),
        dense_(o.dense),
        index_base_(o.index_base),
        num_features_(o.num_features) {}

  Data load(const DatasetContext&) override {
    const RawFiles f = read_files({{train_, "train"}, {test_, "test"}});
    return parse(f.paths[0], f.bytes[0], f.paths.size() > 1 ? f.paths[1] : "", f.paths.size() > 1 ? f.bytes[1] : "");
  }
  bool depends_on_seed() const override { return false; }

 private:
  Data parse(const std::string& train_path, const std::string& raw_train, const std::string& test_path,
             const std::string& raw_test) const {
    ParsedFile tr = parse_libsvm(decompress(raw_train, train_path), train_path);
    ParsedFile te;
    const bool has_test = !test_path.empty();
    if (has_test) te = parse_libsvm(decompress(raw_test, test_path), test_path);
    if (tr.label_id.empty()) throw data_error(train_path, 0, "no examples in the file");
    // One example without features is a zero vector (allowed); a training file where no example
    // has one gives d = 0: nothing to learn, and usually a file in another format or cut short.
    if (tr.index.empty())
      throw data_error(train_path, tr.line_of[0],
                       "labels but no features: " +
                           (tr.label_id.size() == 1 ? std::string("the one example has")
                                                    : "none of the " + std::to_string(tr.label_id.size()) + " examples has") +
                           " an index:value pair (a LIBSVM line is '<label> <index>:<value> ...')");
    // Index base: LIBSVM files are 1-based; "auto" switches to 0-based when index 0 occurs.
    std::int64_t base = 1;
    if (index_base_ == IndexBase::zero) base = 0;
    else if (index_base_ == IndexBase::automatic && (tr.first_zero_line || te.first_zero_line)) base = 0;
    if (base == 1) {
      for (const ParsedFile* f : {&tr, &te})
        if (f->first_zero_line)
          throw data_error(f->path, f->first_zero_line, "feature index 0 in a 1-based file (set index_base: \"0\" or \"auto\")");
    }
    const std::int64_t max_index = std::max(tr.max_index, te.max_index);
    std::int64_t nf = std::max<std::int64_t>(max_index + 1 - base, 0);
    if (num_features_ > 0) {
      if (nf > num_features_) {
        const ParsedFile& f = tr.max_index >= te.max_index ? tr : te;
        std::size_t ln = 0;
        for (std::size_t i = 0; i < f.label_id.size() && !ln; ++i)
          for (int k = f.outer[i]; k < f.outer[i + 1]; ++k)
            if (f.index[static_cast<std::size_t>(k)] - base >= num_features_) { ln = f.line_of[i]; break; }
        throw data_error(f.path, ln, "feature index " + std::to_string(f.max_index) + " exceeds num_features = " +
                                         std::to_string(num_features_));
      }
      nf = num_features_;
    }
    std::vector<std::string> tokens = tr.labels.tokens();
    tokens.insert(tokens.end(), te.labels.tokens().begin(), te.labels.tokens().end());
    const LabelMap map = LabelMap::build(tokens);
    check_model_size(tr, te, nf, map.num_classes(), num_features_);
    Data d;
    d.name = name_.empty() ? file_name(train_path) : name_;
    d.train = to_examples(tr, map, base, nf, dense_);
    if (has_test) d.test = to_examples(te, map, base, nf, dense_);
    json src{{"plugin", "libsvm"}, {"train", train_path}, {"index_base", base},
             {"compression", to_string(detect_compression(raw_train))},
             {"label_map", map.names()}, {"storage", dense_ ? "dense" : "sparse"},
             {"train_nonzeros", d.train.X.nonzeros()}};
    if (has_test) {
      src["test"] = test_path;
      src["test_nonzeros"] = d.test.X.nonzeros();
    }
    d.source = src;
    return d;
  }

  /// One stray huge feature index makes every solver allocate d x K weights (index 200000000
  /// with 4 classes: 6.4 GB) before it can look at max_time: refuse it here, naming the line.
  static void check_model_size(const ParsedFile& tr, const ParsedFile& te, std::int64_t nf, int classes,
                               std::int64_t explicit_features) {
    // Refused: more than a quarter of the memory, or (when num_features is not given) a
    // dimension far beyond what the nonzeros can use, a sign of one stray index.
    const double bytes = static_cast<double>(nf) * std::max(classes, 2) * 8.0;
    const double phys = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    const double nnz = static_cast<double>(tr.index.size() + te.index.size());
    const bool too_big = phys > 0 && bytes > 0.25 * phys;
    const bool stray = explicit_features == 0 && static_cast<double>(nf) > 1e6 + 16.0 * nnz;
    if (!too_big && !stray) return;
    const ParsedFile& f = tr.max_index >= te.max_index ? tr : te;
    std::size_t ln = 0;
    for (std::size_t i = 0; i < f.label_id.size() && !ln; ++i)
      for (int k = f.outer[i]; k < f.outer[i + 1]; ++k)
        if (f.index[static_cast<std::size_t>(k)] == f.max_index) { ln = f.line_of[i]; break; }
    throw data_error(f.path, ln, "feature index " + std::to_string(f.max_index) + " makes d = " + std::to_string(nf) +
                                     " features: a model of d x K = " + std::to_string(nf) + " x " + std::to_string(classes) +
                                     " weights needs " + std::to_string(bytes * 1e-9) + " GB" +
                                     (too_big ? ", more than a quarter of the " + std::to_string(phys * 1e-9) + " GB of memory"
                                              : ", for " + std::to_string(static_cast<long long>(nnz)) + " nonzeros in all") +
                                     " (a stray index? set num_features if the dimension is meant)");
  }

  std::string test_;
  std::string train_, name_;
  bool dense_;
  IndexBase index_base_;
  std::int64_t num_features_;
};

PluginDescription describe() {
  return describe_dataset<LibsvmDataset>("libsvm", "1.0.0",
                                         "LIBSVM/SVMlight sparse text files (Chang & Lin, LIBSVM, ACM TIST 2011)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
