// Taskar OCR handwritten words as chain-labeling data (Taskar, Guestrin & Koller, NIPS 2003),
// the OCR task of Shah, Kolmogorov & Lampert, CVPR 2015 (Appendix A): one example per word,
// one unit per letter with its 16x8 binary pixels as 128 features, 26 labels (a..z), no
// edges (the chain pairs are consecutive letters). Reads DUALGAP_DATA/ocr/ocr_letters.tsv.gz
// (layout in shared/data/README.md); the parsed words are cached; folds select train / test.
#include <algorithm>
#include <set>
#include <string>

#include "dualgap/parse.hpp"
#include "dualgap/plugin.hpp"

namespace {

constexpr int kPixels = 128;

class OcrLetters final : public dualgap::DatasetPlugin {
 public:
  struct Options {
    std::string path = "${DUALGAP_DATA}/ocr/ocr_letters.tsv.gz";
    std::vector<int> train_folds = {0};
    std::vector<int> test_folds;
    int max_train_words = 0;
    int max_test_words = 0;
    bool bias = false;

    static void bind(dualgap::Binder<Options>& b) {
      b.field(&Options::path, "path", "the letters file (shared/data/README.md, section ocr)").path();
      b.field(&Options::train_folds, "train_folds",
              "folds (0..9) used for training (fold 0: 626 words, the paper's \"ocr\" split)")
          .range(0, 9);
      b.field(&Options::test_folds, "test_folds", "folds used for testing; empty: every fold not used for training")
          .range(0, 9);
      b.field(&Options::max_train_words, "max_train_words", "keep only the first words of train (0: all)").min(0);
      b.field(&Options::max_test_words, "max_test_words",
              "keep only the first words of test (0: all; caps the cost of the test error)")
          .min(0);
      b.field(&Options::bias, "bias", "append a constant-1 feature to every letter");
    }
    bool validate(std::string* error) const {
      if (train_folds.empty()) *error = "train_folds is empty";
      return error->empty();
    }
  };

  explicit OcrLetters(const Options& o)
      : path_(o.path), train_folds_(o.train_folds), test_folds_(o.test_folds), max_train_(o.max_train_words),
        max_test_(o.max_test_words), bias_(o.bias) {}

  bool depends_on_seed() const override { return false; }
  dualgap::Data load(const dualgap::DatasetContext&) override {
    const std::string file = dualgap::resolve_data_path(path_, "path");
    dualgap::Data all = parse(file);
    const dualgap::Examples& ex = all.train;

    std::set<int> train(train_folds_.begin(), train_folds_.end());
    std::set<int> test(test_folds_.begin(), test_folds_.end());
    if (test.empty())
      for (int f = 0; f < 10; ++f)
        if (!train.count(f)) test.insert(f);
    std::vector<std::size_t> tr, te;
    for (std::size_t i = 0; i < ex.num_examples(); ++i) {
      if (train.count(ex.group[i])) tr.push_back(i);
      else if (test.count(ex.group[i])) te.push_back(i);
    }
    // Caps keep the first words in file order (deterministic, independent of the seed).
    if (max_train_ > 0 && tr.size() > static_cast<std::size_t>(max_train_)) tr.resize(max_train_);
    if (max_test_ > 0 && te.size() > static_cast<std::size_t>(max_test_)) te.resize(max_test_);

    dualgap::Data data;
    data.name = "ocr";
    data.train = ex.select(tr);
    data.test = ex.select(te);
    if (bias_) {
      add_bias(data.train);
      add_bias(data.test);
    }
    auto folds = [](const std::set<int>& s) {
      std::string r;
      for (int f : s) r += (r.empty() ? "" : ",") + std::to_string(f);
      return r;
    };
    data.source = file + " (train folds " + folds(train) + ": " + std::to_string(tr.size()) +
                  " words; test folds " + folds(test) + ": " + std::to_string(te.size()) + " words)";
    return data;
  }

 private:
  static void add_bias(dualgap::Examples& ex) {
    dualgap::DenseMatrix X(ex.X.rows(), ex.X.cols() + 1);
    X.leftCols(ex.X.cols()) = ex.X.dense();
    X.col(ex.X.cols()).setOnes();
    ex.X = dualgap::FeatureMatrix(std::move(X));
  }

  // All words of the file, in file order, as one Examples with group = fold.
  static dualgap::Data parse(const std::string& file) {
    const std::string text = dualgap::read_data_file(file);
    const std::string name = dualgap::file_name(file);
    dualgap::LineScanner lines(text);
    std::string_view line;
    std::vector<double> pixels;
    dualgap::Examples ex;
    ex.num_classes = 26;
    ex.unit_offset.push_back(0);
    std::int64_t cur_word = -1;
    std::vector<std::string_view> f;
    while (lines.next(line)) {
      if (line.empty()) continue;
      f.clear();
      std::size_t s = 0;
      for (;;) {
        const std::size_t t = line.find('\t', s);
        f.push_back(line.substr(s, t == std::string_view::npos ? std::string_view::npos : t - s));
        if (t == std::string_view::npos) break;
        s = t + 1;
      }
      const std::size_t ln = lines.line_number();
      if (f.size() != 6 + kPixels)
        throw dualgap::data_error(name, ln, "expected 134 TAB-separated fields, found " +
                                                std::to_string(f.size()));
      if (f[1].size() != 1 || f[1][0] < 'a' || f[1][0] > 'z')
        throw dualgap::data_error(name, ln, "expected a letter a..z, found " + dualgap::quote_token(f[1]));
      std::int64_t word = 0, fold = 0;
      if (!dualgap::parse_index(f[3], word))
        throw dualgap::data_error(name, ln, "bad word_id " + dualgap::quote_token(f[3]));
      if (!dualgap::parse_index(f[5], fold) || fold > 9)
        throw dualgap::data_error(name, ln, "bad fold " + dualgap::quote_token(f[5]) + " (expected 0..9)");
      if (word != cur_word) {
        if (cur_word >= 0) ex.unit_offset.push_back(static_cast<std::int64_t>(ex.y.size()));
        cur_word = word;
        ex.group.push_back(static_cast<int>(fold));
      }
      for (int j = 0; j < kPixels; ++j) {
        const auto tok = f[6 + j];
        if (tok.size() != 1 || (tok[0] != '0' && tok[0] != '1'))
          throw dualgap::data_error(name, ln, "pixel " + std::to_string(j) + ": expected 0 or 1, found " +
                                                  dualgap::quote_token(tok));
        pixels.push_back(tok[0] == '1' ? 1.0 : 0.0);
      }
      ex.y.push_back(f[1][0] - 'a');
    }
    if (cur_word < 0) throw dualgap::data_error(name, 0, "no letters found");
    ex.unit_offset.push_back(static_cast<std::int64_t>(ex.y.size()));
    const auto units = static_cast<Eigen::Index>(ex.y.size());
    ex.X = dualgap::FeatureMatrix(dualgap::DenseMatrix(
        Eigen::Map<dualgap::DenseMatrix>(pixels.data(), units, kPixels)));
    ex.check(name);
    dualgap::Data d;
    d.name = "ocr";
    d.train = std::move(ex);
    d.source = file;
    return d;
  }

  std::string path_;
  std::vector<int> train_folds_, test_folds_;
  int max_train_, max_test_;
  bool bias_;
};

dualgap::PluginDescription describe() {
  return dualgap::describe_dataset<OcrLetters>(
      "ocr_letters", "1.0.0",
      "Taskar OCR words as chain-labeling data (Taskar et al., NIPS 2003; Shah et al., CVPR 2015)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
