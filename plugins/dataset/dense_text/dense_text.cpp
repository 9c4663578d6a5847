// Dense delimited text: one example per line, a label column and feature columns, separated by
// whitespace, commas, tabs or semicolons. Covers the ESL USPS files ("6.0000 -1 -1 ..."), the
// ESL vowel CSV (header "row.names,y,x.1,..." and a row-id column to drop), UCI optdigits
// (label last, '#' comment line) and iris (string labels). Output: dense row-major features,
// labels remapped to 0..K-1 in sorted order (numeric order when every label is a number).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "dualgap/parse.hpp"
#include "dualgap/plugin.hpp"

namespace {

using namespace dualgap;

enum class Sep { whitespace, comma, tab, semicolon };

struct Layout {
  Sep sep = Sep::whitespace;
  std::size_t columns = 0;       // columns per line
  std::size_t label = 0;         // label column
  std::vector<char> is_feature;  // per column
  std::size_t features = 0;
};

/// Splits a line into fields. Whitespace: runs of spaces/tabs separate; other separators: one
/// character separates and spaces around a field are trimmed.
void split_fields(std::string_view line, Sep sep, std::vector<std::string_view>& out) {
  out.clear();
  const char* p = line.data();
  const char* e = p + line.size();
  if (sep == Sep::whitespace) {
    for (;;) {
      while (p < e && is_space(*p)) ++p;
      if (p == e) return;
      const char* t = p;
      while (p < e && !is_space(*p)) ++p;
      out.emplace_back(t, static_cast<std::size_t>(p - t));
    }
  }
  const char c = sep == Sep::comma ? ',' : sep == Sep::tab ? '\t' : ';';
  for (;;) {
    const char* t = p;
    while (p < e && *p != c) ++p;
    const char* b = t;
    const char* f = p;
    while (b < f && is_space(*b)) ++b;
    while (f > b && is_space(f[-1])) --f;
    out.emplace_back(b, static_cast<std::size_t>(f - b));
    if (p == e) return;
    ++p;
  }
}

std::string_view unquote(std::string_view s) {
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\'')))
    return s.substr(1, s.size() - 2);
  return s;
}

bool blank_or_comment(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && is_space(line[i])) ++i;
  return i == line.size() || line[i] == '#';
}

class DenseTextDataset final : public DatasetPlugin {
 public:
  enum class Header { automatic, yes, no };

  struct Options {
    std::string train;
    std::string name;
    std::string label_column = "first";
    std::vector<std::int64_t> drop_columns;
    Header header = Header::automatic;
    std::optional<Sep> separator;  ///< none: auto
    std::optional<std::string> test;

    static void bind(Binder<Options>& b) {
      b.field(&Options::train, "train", "training file (plain, .gz or .bz2)").path().required();
      b.field(&Options::name, "name", "data set name in the results (default: the train file name)");
      b.field(&Options::label_column, "label_column",
              "column of the label: first, last, a 0-based column number written as a string (\"1\"), or a header name");
      b.field(&Options::drop_columns, "drop_columns", "0-based columns to ignore (e.g. a row id: [0])").min(0);
      b.choice(&Options::header, "header", {{"auto", Header::automatic}, {"yes", Header::yes}, {"no", Header::no}},
               "first data line is a header: auto = unless its label and at least half of its feature fields are "
               "numbers (nan and inf count; with string labels, at least half of its feature fields); a first line "
               "taken as a header is named in a warning, one taken as data is checked like any other line");
      b.choice(&Options::separator, "separator",
               {{"auto", std::nullopt}, {"whitespace", Sep::whitespace}, {"comma", Sep::comma}, {"tab", Sep::tab},
                {"semicolon", Sep::semicolon}},
               "field separator; auto = comma if the first line has one, else semicolon, else whitespace");
      test_file_field(b, &Options::test);
    }
    /// Whether label_column names a header column (not first, last or a number).
    bool label_by_name() const {
      std::int64_t c;
      return label_column != "first" && label_column != "last" && !parse_index(label_column, c);
    }
    bool validate(std::string* error) const {
      if (label_column.empty()) *error = "label_column is empty (first, last, a 0-based number or a header name)";
      else if (label_by_name() && header == Header::no)
        *error = "label_column '" + label_column + "' names a header column, but header is 'no'";
      return error->empty();
    }
  };

  explicit DenseTextDataset(const Options& o)
      : test_(o.test.value_or("")),
        train_(o.train),
        name_(o.name),
        label_column_(o.label_column),
        drop_columns_(o.drop_columns),
        header_(o.header),
        separator_(o.separator),
        label_by_name_(o.label_by_name()) {}

  Data load(const DatasetContext&) override {
    const std::string train_path = resolve_data_path(train_, "train");
    const std::string test_path = test_.empty() ? "" : resolve_data_path(test_, "test");
    return parse(train_path, test_path);
  }
  bool depends_on_seed() const override { return false; }

 private:
  /// One parsed file, read in pieces (TextReader) into blocks (BlockArray): never the whole text,
  /// and the values once (8 bytes each) plus one block.
  struct Parsed {
    BlockArray<double> values;  // row-major
    BlockArray<int> label_id;
    Compression compression = Compression::none;
    LabelCollector labels;
    bool had_header = false;
  };

  Sep pick_separator(std::string_view first_line) const {
    if (separator_) return *separator_;
    if (first_line.find(',') != std::string_view::npos) return Sep::comma;
    if (first_line.find(';') != std::string_view::npos) return Sep::semicolon;
    return Sep::whitespace;
  }

  /// The layout of the first file. `columns` is the field count of the data lines (taken from
  /// the lines after the first: a first line with a field too many or too few, a trailing
  /// separator say, is then reported at its own line, not at the next); `header` holds the
  /// first line's fields, which name the columns when label_column is a header name.
  Layout make_layout(Sep sep, std::size_t columns, const std::vector<std::string_view>& header, const std::string& path,
                     std::size_t ln) const {
    Layout L;
    L.sep = sep;
    L.columns = columns;
    if (label_column_ == "first") L.label = 0;
    else if (label_column_ == "last") L.label = columns - 1;
    else if (label_by_name_) {
      // A header name: the first line must be the header holding it.
      std::string names;
      L.label = columns;
      for (std::size_t c = 0; c < header.size(); ++c) {
        if (unquote(header[c]) == label_column_) L.label = c;
        names += (names.empty() ? "" : ", ") + std::string(unquote(header[c]));
      }
      if (L.label == columns)
        throw data_error(path, ln, "label_column '" + label_column_ + "' is not a column of the header line (" +
                                       names.substr(0, 200) + ")");
    } else {
      L.label = static_cast<std::size_t>(std::stoll(label_column_));
    }
    if (L.label >= columns)
      throw data_error(path, ln, "label_column " + label_column_ + " is outside the " + std::to_string(columns) +
                                     " columns of the line");
    L.is_feature.assign(columns, 1);
    L.is_feature[L.label] = 0;
    for (auto c : drop_columns_) {
      if (static_cast<std::size_t>(c) >= columns)
        throw data_error(path, ln, "drop_columns names column " + std::to_string(c) + " but the line has " +
                                       std::to_string(columns) + " columns (0-based)");
      if (static_cast<std::size_t>(c) == L.label)
        throw data_error(path, ln, "drop_columns names the label column " + std::to_string(c));
      L.is_feature[static_cast<std::size_t>(c)] = 0;
    }
    L.features = static_cast<std::size_t>(std::count(L.is_feature.begin(), L.is_feature.end(), 1));
    return L;
  }

  /// A field that reads as a number for the header rule: a finite number, or nan, inf or an
  /// out-of-range value (data that is wrong, not a column name).
  static bool number_like(std::string_view field) {
    double v;
    const NumberStatus st = read_double(unquote(field), v);
    return st == NumberStatus::ok || st == NumberStatus::not_finite || st == NumberStatus::too_large;
  }

  /// header: auto. The first line is data when its label and at least half of its feature
  /// fields read as numbers, or (string labels: the next line's label is not a number either)
  /// when at least half of its feature fields do; otherwise it is the header. A value that is
  /// empty, nan or mistyped thus leaves a data line data, to be reported as on any other line.
  /// `next` is the next data line's fields (empty when there is none).
  bool is_header(const std::vector<std::string_view>& f, const Layout& L, const std::vector<std::string_view>& next) const {
    if (header_ == Header::yes || label_by_name_) return true;
    if (header_ == Header::no) return false;
    std::size_t features = 0, numbers = 0;
    // A line may have more or fewer fields than the layout (the caller then reports the count).
    for (std::size_t c = 0; c < std::min(f.size(), L.columns); ++c)
      if (L.is_feature[c]) {
        ++features;
        numbers += number_like(f[c]) ? 1 : 0;
      }
    features = std::max(features, L.features);
    const bool most = 2 * numbers >= features;
    const bool label_number = L.label < f.size() && number_like(f[L.label]);
    const bool next_label_number = L.label < next.size() && number_like(next[L.label]);
    return !(most && (label_number || !next_label_number));
  }

  static std::string first_fields(const std::vector<std::string_view>& f) {
    std::string out;
    for (std::size_t c = 0; c < f.size() && c < 4; ++c) out += (c ? ", " : "") + quote_token(f[c]);
    if (f.size() > 4) out += ", ...";
    return out;
  }

  /// Parses one file as it is read. `layout` is fixed by the first file; the test file must match it.
  Parsed parse_file(const std::string& path, Layout& L, bool first_file) const {
    Parsed out;
    TextReader reader(path);
    out.compression = reader.compression();
    // The first data lines, read ahead (and kept): the column count (first file) and the header
    // rule look past the first line.
    std::vector<std::pair<std::size_t, std::string>> head;
    std::string_view line;
    while (head.size() < 6 && reader.next(line))
      if (!blank_or_comment(line)) head.emplace_back(reader.line_number(), std::string(line));
    if (head.empty()) throw data_error(path, 0, "no examples in the file");
    std::vector<std::string_view> f, next;
    if (first_file) {
      const Sep sep = pick_separator(head[0].second);
      // The field count most of the first lines have (ties: the earlier line's), so that a
      // first line with a field too many or too few is the one reported.
      std::vector<std::size_t> counts;
      for (const auto& [n, text_line] : head) {
        split_fields(text_line, sep, f);
        counts.push_back(f.size());
      }
      std::size_t columns = counts[0], ln = head[0].first, best = 0;
      for (std::size_t i = 0; i < counts.size(); ++i) {
        const auto n = static_cast<std::size_t>(std::count(counts.begin(), counts.end(), counts[i]));
        if (n > best) {
          best = n;
          columns = counts[i];
          ln = head[i].first;
        }
      }
      split_fields(head[0].second, sep, f);
      L = make_layout(sep, columns, f, path, ln);
    }
    split_fields(head[0].second, L.sep, f);
    if (head.size() > 1) split_fields(head[1].second, L.sep, next);
    const bool header = is_header(f, L, next);
    if (header) {
      if (f.size() != L.columns)
        throw data_error(path, head[0].first, "header has " + std::to_string(f.size()) + " columns, expected " +
                                                  std::to_string(L.columns));
      out.had_header = true;
      if (header_ == Header::automatic && !label_by_name_)
        std::fprintf(stderr, "warning: %s:%zu: the first line is taken as a header (header: auto; fields %s): set "
                             "header: no if it is data\n",
                     path.c_str(), head[0].first, first_fields(f).c_str());
    }
    auto take = [&](std::string_view text_line, std::size_t ln) {
      split_fields(text_line, L.sep, f);
      // A CSV line ending in its separator has an empty last field: said where it is the cause.
      const bool trailing = L.sep != Sep::whitespace && f.size() > 1 && f.back().empty();
      const std::string hint = trailing ? " (the line ends with a separator)" : "";
      if (f.size() != L.columns) {
        if ((f.size() < L.columns && L.label < f.size()) || f.size() > L.columns) {
          const std::size_t found = f.size() > L.columns ? L.features + (f.size() - L.columns)
                                                         : L.features - (L.columns - f.size());
          throw data_error(path, ln, "expected " + std::to_string(L.features) + " features, found " +
                                         std::to_string(found) + " (" + std::to_string(L.columns) + " columns with the label, found " +
                                         std::to_string(f.size()) + ")" + hint);
        }
        throw data_error(path, ln, "label missing: expected " + std::to_string(L.columns) + " columns, found " +
                                       std::to_string(f.size()));
      }
      const std::string_view label = unquote(f[L.label]);
      if (label.empty())
        throw data_error(path, ln, "label missing (empty label column " + std::to_string(L.label) + ")" +
                                       (L.label + 1 == f.size() ? hint : ""));
      // Labels become class names in run.json, which must be UTF-8 (a Latin-1 file: re-encode it).
      if (!valid_utf8(label))
        throw data_error(path, ln, "label " + quote_token(label) + " is not valid UTF-8 (convert the file, e.g. iconv -f latin1 -t utf-8)");
      out.label_id.push_back(out.labels.add(label));
      for (std::size_t c = 0; c < L.columns; ++c) {
        if (!L.is_feature[c]) continue;
        double v;
        if (const NumberStatus st = read_double(f[c], v); st != NumberStatus::ok)
          throw data_error(path, ln, number_problem(f[c], st) + " in column " + std::to_string(c) +
                                         (st != NumberStatus::empty ? ""
                                          : c + 1 == f.size() && trailing ? hint
                                                                          : " (missing values are not supported)"));
        out.values.push_back(v);
      }
    };
    for (std::size_t h = header ? 1 : 0; h < head.size(); ++h) take(head[h].second, head[h].first);
    head = {};
    while (reader.next(line))
      if (!blank_or_comment(line)) take(line, reader.line_number());
    return out;
  }

  static Examples to_examples(Parsed& p, const LabelMap& map, std::size_t d) {
    Examples ex;
    ex.num_classes = map.num_classes();
    std::vector<int> remap(p.labels.tokens().size());
    for (std::size_t k = 0; k < remap.size(); ++k) remap[k] = map.index(p.labels.tokens()[k]);
    ex.y.resize(p.label_id.size());
    p.label_id.drain(ex.y.data(), [&](int id) { return remap[static_cast<std::size_t>(id)]; });
    const auto n = static_cast<Eigen::Index>(ex.y.size());
    DenseMatrix X(n, static_cast<Eigen::Index>(d));
    p.values.drain(X.data());
    ex.X = FeatureMatrix(std::move(X));
    return ex;
  }

  Data parse(const std::string& train_path, const std::string& test_path) const {
    Layout L;
    Parsed tr = parse_file(train_path, L, true);
    if (tr.label_id.empty()) throw data_error(train_path, 0, "no examples in the file (only a header)");
    Parsed te;
    const bool has_test = !test_path.empty();
    if (has_test) te = parse_file(test_path, L, false);
    std::vector<std::string> tokens = tr.labels.tokens();
    tokens.insert(tokens.end(), te.labels.tokens().begin(), te.labels.tokens().end());
    const LabelMap map = LabelMap::build(tokens);
    Data d;
    d.name = name_.empty() ? file_name(train_path) : name_;
    d.train = to_examples(tr, map, L.features);
    if (has_test) d.test = to_examples(te, map, L.features);
    const char* sep = L.sep == Sep::comma ? "comma" : L.sep == Sep::tab ? "tab" : L.sep == Sep::semicolon ? "semicolon" : "whitespace";
    json src{{"plugin", "dense_text"}, {"train", train_path}, {"separator", sep}, {"columns", L.columns},
             {"label_column", L.label}, {"drop_columns", drop_columns_}, {"header", tr.had_header},
             {"compression", to_string(tr.compression)}, {"label_map", map.names()}};
    if (has_test) src["test"] = test_path;
    d.source = src;
    return d;
  }

  std::string test_;
  std::string train_, name_, label_column_;
  std::vector<std::int64_t> drop_columns_;
  Header header_;
  std::optional<Sep> separator_;
  bool label_by_name_;
};

PluginDescription describe() {
  return describe_dataset<DenseTextDataset>(
      "dense_text", "1.0.0", "Dense delimited text files, label + features per line (ESL USPS/vowel, UCI CSV)");
}

}  // namespace

DUALGAP_PLUGIN(describe)
