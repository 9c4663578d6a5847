// LIBSVM / SVMlight sparse text format: one example per line, "label index:value index:value ...".
// Output: sparse CSR (or dense with dense: true), labels remapped to 0..K-1 in sorted order.
// Reads plain, gzip or bzip2 files (detected by magic bytes), 1- or 0-based indices, CRLF line
// endings, trailing spaces, '#' comment lines and trailing "# ..." comments.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unistd.h>
#include <sys/mman.h>
#include <cstdint>

#include "dualgap/parse.hpp"
#include "dualgap/plugin.hpp"

namespace {

using namespace dualgap;

/// One parsed file, before labels are remapped and indices shifted: the CSR arrays of its rows as
/// read, in blocks (BlockArray: the text is read in pieces and never held whole, and growing the
/// arrays never copies them), 12 bytes per nonzero (4 index, 8 value) and 8 per example. What later errors name is kept as it is read (the line of the largest index, the
/// first line beyond num_features), not as a line number per example.
struct ParsedFile {
  std::string path;
  Compression compression = Compression::none;
  BlockArray<int> label_id;           // provisional id (LabelCollector) per example
  BlockArray<int> outer;              // end of each row in index/value
  BlockArray<std::int32_t> index;     // raw indices as written (at most 2^31 - 2)
  BlockArray<double> value;
  LabelCollector labels;
  std::int64_t max_index = -1;
  std::size_t max_index_line = 0;     // first line holding max_index
  std::size_t first_line = 0;         // line of the first example
  std::size_t first_zero_line = 0;    // first line using index 0 (0 = none)
  std::size_t beyond_line[2] = {0, 0};  // first line with an index - base >= num_features, base 0 and 1
  std::size_t examples() const { return label_id.size(); }
  std::size_t nonzeros() const { return index.size(); }
};

/// Parses LIBSVM text as it is read. Hot loop: pointer scanning and std::from_chars, no streams.
/// num_features > 0: the lines beyond it are noted (beyond_line) for the error the caller gives.
ParsedFile parse_libsvm(const std::string& path, std::int64_t num_features) {
  ParsedFile f;
  f.path = path;
  TextReader lines(path);
  f.compression = lines.compression();
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
    if (f.label_id.empty()) f.first_line = ln;
    f.label_id.push_back(f.labels.add(label));
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
      if (idx > f.max_index) f.max_index = idx, f.max_index_line = ln;
      if (num_features > 0)
        for (int base = 0; base < 2; ++base)
          if (f.beyond_line[base] == 0 && idx - base >= num_features) f.beyond_line[base] = ln;
      f.index.push_back(static_cast<std::int32_t>(idx));
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
        f.index[row_begin + k] = static_cast<std::int32_t>(sortbuf[k].first);
        f.value[row_begin + k] = sortbuf[k].second;
      }
    }
    if (f.index.size() > 2147483647u) throw data_error(path, ln, "more than 2^31 nonzeros");
    f.outer.push_back(static_cast<int>(f.index.size()));
  }
  return f;
}

/// Asks for transparent huge pages on the 2 MB-aligned inside of [p, p + bytes), before the first
/// write. The matrix's arrays are fresh pages written once, in order; on a virtual machine a 4 KB
/// page fault costs more than the bytes it maps (perf: the fault path was a quarter of a load of
/// the 320 000-row file; with this advice the faults halve; docs/data.md, "Parse speed").
/// Advice only: where THP is off (or `never`) nothing changes.
void advise_huge_pages(void* p, std::size_t bytes) {
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

/// The examples of a parsed file; its blocks are freed as they are copied, so that the file is
/// held once (as its blocks, then as the CSR matrix) plus one block.
Examples to_examples(ParsedFile& f, const LabelMap& map, std::int64_t base, std::int64_t num_features, bool dense) {
  Examples ex;
  ex.num_classes = map.num_classes();
  std::vector<int> remap(f.labels.tokens().size());
  for (std::size_t k = 0; k < remap.size(); ++k) remap[k] = map.index(f.labels.tokens()[k]);
  const auto rows = static_cast<Eigen::Index>(f.examples());
  const auto nnz = static_cast<Eigen::Index>(f.nonzeros());
  ex.y.resize(f.examples());
  f.label_id.drain(ex.y.data(), [&](int id) { return remap[static_cast<std::size_t>(id)]; });
  if (dense) {
    // Refuse before allocating: with memory overcommit a too-large matrix is not a bad_alloc
    // but an OOM kill while it is zero-filled.
    const double bytes = static_cast<double>(rows) * static_cast<double>(num_features) * 8.0;
    const double phys = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (phys > 0 && bytes > 0.5 * phys)
      throw data_error(f.path, 0, "dense: true needs " + std::to_string(bytes * 1e-9) + " GB for " + std::to_string(rows) +
                                      " x " + std::to_string(num_features) + " values, more than half of the " +
                                      std::to_string(phys * 1e-9) + " GB of memory; keep the data sparse (dense: false)");
  }
  SparseMatrix S(rows, num_features);
  S.resizeNonZeros(nnz);  // exactly nnz entries: the matrix is the file's one copy
  advise_huge_pages(S.innerIndexPtr(), static_cast<std::size_t>(nnz) * sizeof(int));
  advise_huge_pages(S.valuePtr(), static_cast<std::size_t>(nnz) * sizeof(double));
  S.outerIndexPtr()[0] = 0;
  f.outer.drain(S.outerIndexPtr() + 1);
  f.index.drain(S.innerIndexPtr(), [base](std::int32_t j) { return static_cast<int>(j - base); });
  f.value.drain(S.valuePtr());
  if (dense) ex.X = FeatureMatrix(DenseMatrix(S));
  else ex.X = FeatureMatrix(std::move(S));
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
    const std::string train_path = resolve_data_path(train_, "train");
    const std::string test_path = test_.empty() ? "" : resolve_data_path(test_, "test");
    return parse(train_path, test_path);
  }
  bool depends_on_seed() const override { return false; }

 private:
  Data parse(const std::string& train_path, const std::string& test_path) const {
    ParsedFile tr = parse_libsvm(train_path, num_features_);
    ParsedFile te;
    const bool has_test = !test_path.empty();
    if (has_test) te = parse_libsvm(test_path, num_features_);
    if (tr.label_id.empty()) throw data_error(train_path, 0, "no examples in the file");
    // One example without features is a zero vector (allowed); a training file where no example
    // has one gives d = 0: nothing to learn, and usually a file in another format or cut short.
    if (tr.nonzeros() == 0)
      throw data_error(train_path, tr.first_line,
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
        throw data_error(f.path, f.beyond_line[base], "feature index " + std::to_string(f.max_index) + " exceeds num_features = " +
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
             {"compression", to_string(tr.compression)},
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
    const double nnz = static_cast<double>(tr.nonzeros() + te.nonzeros());
    const bool too_big = phys > 0 && bytes > 0.25 * phys;
    const bool stray = explicit_features == 0 && static_cast<double>(nf) > 1e6 + 16.0 * nnz;
    if (!too_big && !stray) return;
    const ParsedFile& f = tr.max_index >= te.max_index ? tr : te;
    throw data_error(f.path, f.max_index_line, "feature index " + std::to_string(f.max_index) + " makes d = " + std::to_string(nf) +
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
