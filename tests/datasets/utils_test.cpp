// The data pipeline (core/src/data): splits, subsampling, scaling, label maps, checksums, the cache, missing files.
#include <cstdlib>
#include <set>

#include "base/hash.hpp"
#include <cmath>

#include "helpers.hpp"

using namespace dstest;

namespace {

/// n examples, class i % K (with K classes), feature = i, optional groups i / group_size.
Examples toy(std::size_t n, int K, int group_size = 0) {
  Examples ex;
  ex.num_classes = K;
  DenseMatrix X(static_cast<Eigen::Index>(n), 2);
  for (std::size_t i = 0; i < n; ++i) {
    ex.y.push_back(static_cast<int>(i % static_cast<std::size_t>(K)));
    X(static_cast<Eigen::Index>(i), 0) = static_cast<double>(i);
    X(static_cast<Eigen::Index>(i), 1) = static_cast<double>(i % 7) - 3.0;
    if (group_size) ex.group.push_back(static_cast<int>(i) / group_size);
  }
  ex.X = FeatureMatrix(std::move(X));
  return ex;
}

/// Restores an environment variable at scope exit.
struct EnvGuard {
  std::string name, old;
  bool had;
  explicit EnvGuard(std::string n) : name(std::move(n)) {
    const char* v = std::getenv(name.c_str());
    had = v != nullptr;
    if (had) old = v;
  }
  ~EnvGuard() {
    if (had) setenv(name.c_str(), old.c_str(), 1);
    else unsetenv(name.c_str());
  }
};

}  // namespace

TEST_CASE("split: deterministic in the seed, disjoint, covering, stratified") {
  // Unequal classes: 0 gets 40, 1 gets 40, 2 gets 40 ... use K = 3 and n = 101 (34/34/33).
  Examples ex = toy(101, 3);
  auto [tr, te] = split_indices(ex, 0.3, 42, true, false);
  auto [tr2, te2] = split_indices(ex, 0.3, 42, true, false);
  auto [tr3, te3] = split_indices(ex, 0.3, 43, true, false);
  CHECK(tr == tr2);
  CHECK(te == te2);
  CHECK(te != te3);
  std::set<std::size_t> all(tr.begin(), tr.end());
  for (auto i : te) CHECK(all.insert(i).second);
  CHECK(all.size() == 101);
  CHECK(std::is_sorted(te.begin(), te.end()));
  std::vector<int> per(3, 0);
  for (auto i : te) ++per[static_cast<std::size_t>(ex.y[i])];
  CHECK(per == std::vector<int>{10, 10, 10});  // round(0.3 * 34) = 10, round(0.3 * 33) = 10
  auto [tru, teu] = split_indices(ex, 0.3, 42, false, false);
  CHECK(teu.size() == 30);
  CHECK(tru.size() == 71);
}

TEST_CASE("split by group keeps each group on one side") {
  Examples ex = toy(100, 4, 10);  // 10 groups of 10
  auto [tr, te] = split_indices(ex, 0.3, 7, true, true);
  CHECK(te.size() == 30);
  std::set<int> gtr, gte;
  for (auto i : tr) gtr.insert(ex.group[i]);
  for (auto i : te) gte.insert(ex.group[i]);
  for (int g : gte) CHECK(gtr.count(g) == 0);
  Examples nogroup = toy(10, 2);
  CHECK(error_of([&] { split_indices(nogroup, 0.3, 7, true, true); }).find("no group ids") != std::string::npos);
}

TEST_CASE("per-class subsampling keeps min(count, m) per class, deterministically") {
  Examples ex = toy(50, 3);  // 17, 17, 16
  auto keep = per_class_indices(ex, 16, 5);
  CHECK(keep.size() == 48);
  CHECK(keep == per_class_indices(ex, 16, 5));
  CHECK(keep != per_class_indices(ex, 16, 6));
  CHECK(std::is_sorted(keep.begin(), keep.end()));
  std::vector<int> per(3, 0);
  for (auto i : keep) ++per[static_cast<std::size_t>(ex.y[i])];
  CHECK(per == std::vector<int>{16, 16, 16});
  CHECK(per_class_indices(ex, 100, 5).size() == 50);
}

TEST_CASE("scaling is fitted on train and applied to test") {
  Examples tr = toy(10, 2), te = toy(3, 2);
  te.X.dense_mut()(0, 0) = 18.0;  // outside the training range 0..9: not clipped
  apply_scaling(tr, te, Scaling::minmax01);
  CHECK(tr.X.dense().col(0).minCoeff() == 0.0);
  CHECK(tr.X.dense().col(0).maxCoeff() == 1.0);
  CHECK(te.X.dense()(0, 0) == doctest::Approx(2.0));
  CHECK(te.X.dense()(1, 0) == doctest::Approx(1.0 / 9.0));

  Examples a = toy(10, 2), b = toy(3, 2);
  apply_scaling(a, b, Scaling::minmax11);
  CHECK(a.X.dense().col(0).minCoeff() == -1.0);
  CHECK(a.X.dense().col(0).maxCoeff() == doctest::Approx(1.0));

  Examples s = toy(10, 2), e;
  apply_scaling(s, e, Scaling::standardize);
  CHECK(s.X.dense().col(0).mean() == doctest::Approx(0.0).epsilon(1e-12));
  CHECK((s.X.dense().col(0).array().square().mean()) == doctest::Approx(1.0));

  // Constant features map to 0.
  Examples c = toy(5, 2), ce;
  c.X.dense_mut().col(1).setConstant(4.0);
  apply_scaling(c, ce, Scaling::minmax01);
  CHECK(c.X.dense().col(1).cwiseAbs().maxCoeff() == 0.0);

  // Sparse: maxabs keeps the pattern; shifting scalings are refused.
  Examples sp;
  sp.num_classes = 2;
  sp.y = {0, 1};
  DenseMatrix D(2, 3);
  D << 0, -4, 0, 2, 2, 0;
  sp.X = FeatureMatrix(SparseMatrix(D.sparseView()));
  Examples none;
  apply_scaling(sp, none, Scaling::maxabs);
  CHECK(sp.X.nonzeros() == 3);
  CHECK(sp.X.to_dense()(0, 1) == -1.0);
  CHECK(sp.X.to_dense()(1, 0) == 1.0);
  CHECK(error_of([&] { apply_scaling(sp, none, Scaling::standardize); }).find("maxabs") != std::string::npos);
}

TEST_CASE("label maps: numeric order when all numeric, else string order") {
  LabelMap m = LabelMap::build({"10", "2", "2.0", "-1"});
  CHECK(m.numeric());
  CHECK(m.num_classes() == 3);
  CHECK(m.index("-1") == 0);
  CHECK(m.index("2.000") == 1);
  CHECK(m.index("10") == 2);
  CHECK(m.index("3") == -1);
  LabelMap s = LabelMap::build({"b", "a", "1"});
  CHECK(!s.numeric());
  CHECK(s.index("1") == 0);
  CHECK(s.index("a") == 1);
}

TEST_CASE("the content hash is stable and sensitive to every byte") {
  std::string a(1000, 'x');
  const auto h = hash64(a);
  CHECK(h == hash64(a));
  for (std::size_t i : {0u, 7u, 31u, 32u, 500u, 999u}) {
    std::string b = a;
    b[i] = 'y';
    CHECK(hash64(b) != h);
  }
  CHECK(hash64(a.substr(0, 999)) != h);
}

TEST_CASE("cache: round trip, hit, invalidation on file change, corrupt cache") {
  test::TempDir dir, cache;
  const std::string text = "1 1:1 3:2\n2 2:1\n3 1:4\n";
  auto p = write_file(dir, "c.txt", text);
  Data first = load("libsvm", {{"train", p}}, 0, cache.str());
  CHECK(source_of(first)["cache"] == "stored");
  Data second = load("libsvm", {{"train", p}}, 0, cache.str());
  CHECK(source_of(second)["cache"] == "hit");
  CHECK(same_examples(first.train, second.train));
  CHECK(second.train.X.is_sparse());

  // A parse option is part of the key: dense output is not served from the sparse cache.
  Data dense = load("libsvm", {{"train", p}, {"dense", true}}, 0, cache.str());
  CHECK(source_of(dense)["cache"] == "stored");
  CHECK(!dense.train.X.is_sparse());

  // The file changes: the new content is parsed, never the stale cache.
  write_file(dir, "c.txt", "1 1:9\n2 2:1\n");
  Data changed = load("libsvm", {{"train", p}}, 0, cache.str());
  CHECK(source_of(changed)["cache"] == "stored");
  CHECK(changed.train.num_examples() == 2);
  CHECK(changed.train.X.to_dense()(0, 0) == 9.0);

  // Corrupt every cache file (flip one payload byte, or truncate): reparse, correct result.
  for (auto& e : std::filesystem::directory_iterator(cache.path)) {
    std::string bytes = read_raw_file(e.path().string());
    bytes[bytes.size() - 3] ^= 0x55;
    std::ofstream(e.path(), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  Data after = load("libsvm", {{"train", p}}, 0, cache.str());
  CHECK(source_of(after)["cache"] == "stored");
  CHECK(after.train.X.to_dense()(0, 0) == 9.0);
  for (auto& e : std::filesystem::directory_iterator(cache.path)) std::filesystem::resize_file(e.path(), 20);
  Data trunc = load("libsvm", {{"train", p}}, 0, cache.str());
  CHECK(source_of(trunc)["cache"] == "stored");
  CHECK(same_examples(trunc.train, after.train));

  // cache: false ignores the folder.
  Data off = load("libsvm", {{"train", p}, {"cache", false}}, 0, cache.str());
  CHECK(source_of(off)["cache"] == "off");
}

TEST_CASE("cache serialization round-trips structured examples exactly") {
  Data d;
  d.name = "s";
  d.source = "{\"x\":1}";
  d.train.num_classes = 3;
  d.train.y = {0, 1, 2, 1, 0};
  d.train.unit_offset = {0, 2, 5};
  d.train.edge_offset = {0, 1, 3};
  d.train.edges = {{0, 1}, {0, 1}, {1, 2}};
  d.train.group = {4, 7};
  DenseMatrix X = DenseMatrix::Random(5, 3);
  d.train.X = FeatureMatrix(X);
  const std::string bytes = serialize_data(d, 99);
  Data back;
  REQUIRE(deserialize_data(bytes, 99, back));
  CHECK(back.train.unit_offset == d.train.unit_offset);
  CHECK(back.train.edges == d.train.edges);
  CHECK(back.train.group == d.train.group);
  CHECK(back.train.X.dense() == X);
  CHECK(back.source == d.source);
  CHECK(!deserialize_data(bytes, 98, back));  // another key
  for (std::size_t cut : {std::size_t{0}, std::size_t{10}, bytes.size() - 1})
    CHECK(!deserialize_data(std::string_view(bytes).substr(0, cut), 99, back));
}

TEST_CASE("missing files: the message names the file, DUALGAP_DATA and the README") {
  EnvGuard guard("DUALGAP_DATA");
  test::TempDir root;
  setenv("DUALGAP_DATA", root.str().c_str(), 1);
  auto msg = error_of([&] { load("dense_text", {{"train", "${DUALGAP_DATA}/usps/zip.train.gz"}}); });
  CHECK(msg.find(root.str() + "/usps/zip.train.gz: no such file") != std::string::npos);
  CHECK(msg.find("DUALGAP_DATA=" + root.str()) != std::string::npos);
  CHECK(msg.find("'usps' section of shared/data/README.md") != std::string::npos);
  // Under the data folder without ${...} in the config: same hint.
  msg = error_of([&] { load("libsvm", {{"train", root.str() + "/sector/sector.scale.bz2"}}); });
  CHECK(msg.find("'sector' section") != std::string::npos);

  unsetenv("DUALGAP_DATA");
  msg = error_of([&] { load("dense_text", {{"train", "${DUALGAP_DATA}/usps/zip.train.gz"}}); });
  CHECK(msg.find("DUALGAP_DATA is not set") != std::string::npos);
  CHECK(msg.find("'usps' section of shared/data/README.md") != std::string::npos);
  msg = error_of([&] { load("libsvm", {{"train", "/nonexistent/x.svm"}}); });
  CHECK(msg.find("/nonexistent/x.svm: no such file") != std::string::npos);
  CHECK(msg.find("set DUALGAP_DATA") != std::string::npos);
  msg = error_of([&] { load("libsvm", {{"train", root.str()}}); });
  CHECK(msg.find("is a directory") != std::string::npos);
}

TEST_CASE("dataset options: split, per-class, max_examples and scale through a plugin") {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 60; ++i) text += std::to_string(i % 3) + " " + std::to_string(i) + " " + std::to_string(i % 5) + "\n";
  auto p = write_file(dir, "t.txt", text);
  Data a = load("dense_text", {{"train", p}, {"test_fraction", 0.25}}, 3);
  Data b = load("dense_text", {{"train", p}, {"test_fraction", 0.25}}, 3);
  Data c = load("dense_text", {{"train", p}, {"test_fraction", 0.25}}, 4);
  Data c2 = load("dense_text", {{"train", p}, {"test_fraction", 0.25}, {"seed_offset", 1}}, 3);
  CHECK(a.train.num_examples() == 45);
  CHECK(a.test.num_examples() == 15);
  CHECK(class_counts(a.test) == std::vector<std::int64_t>{5, 5, 5});
  CHECK(same_examples(a.test, b.test));
  CHECK(!same_examples(a.test, c.test));
  CHECK(!same_examples(a.test, c2.test));
  Data pc = load("dense_text", {{"train", p}, {"per_class", 4}, {"scale", "minmax01"}});
  CHECK(class_counts(pc.train) == std::vector<std::int64_t>{4, 4, 4});
  CHECK(pc.train.X.dense().maxCoeff() == 1.0);
  Data mx = load("dense_text", {{"train", p}, {"max_examples", 7}});
  CHECK(mx.train.num_examples() == 7);
  CHECK(mx.train.X.dense()(6, 0) == 6.0);
  auto msg = error_of([&] { load("dense_text", {{"train", p}, {"test", p}, {"test_fraction", 0.2}}); });
  CHECK(msg.find("give one or the other") != std::string::npos);
  CHECK(source_of(a)["applied"]["split"]["test_fraction"] == 0.25);
}

TEST_CASE("quote_token cuts between UTF-8 characters and shows non-UTF-8 bytes as \\xNN; valid_utf8") {
  using dualgap::quote_token;
  using dualgap::valid_utf8;
  CHECK(quote_token("abc") == "'abc'");
  CHECK(quote_token(std::string(50, 'x')) == "'" + std::string(40, 'x') + "...'");
  // 39 ASCII bytes then a 2-byte character across the 40-byte cut: the character is left out whole
  const std::string cut = std::string(39, 'a') + "\xC3\xA9" + "zz";
  CHECK(quote_token(cut) == "'" + std::string(39, 'a') + "...'");
  CHECK(valid_utf8(quote_token(cut)));
  CHECK(quote_token("caf\xE9") == "'caf\\xE9'");  // Latin-1
  CHECK(valid_utf8("caf\xC3\xA9"));
  CHECK(!valid_utf8("caf\xE9"));
  CHECK(!valid_utf8("\xC0\xAF"));          // overlong '/'
  CHECK(!valid_utf8("\xED\xA0\x80"));      // surrogate
  CHECK(!valid_utf8("\xF4\x90\x80\x80"));  // beyond U+10FFFF
  CHECK(valid_utf8("\xF0\x9F\x98\x80"));   // U+1F600
}

TEST_CASE("read_double: one number reader; number_problem words what it refused") {
  using dualgap::NumberStatus;
  double v = 42;
  CHECK(dualgap::read_double("+1.5", v) == NumberStatus::ok);
  CHECK(v == 1.5);
  // Below the smallest double: 0 with its sign (what strtod rounds it to), not "non-numeric".
  CHECK(dualgap::read_double("1e-400", v) == NumberStatus::ok);
  CHECK(v == 0.0);
  CHECK(dualgap::read_double("-1e-400", v) == NumberStatus::ok);
  CHECK((v == 0.0 && std::signbit(v)));
  CHECK(dualgap::read_double("0." + std::string(400, '0') + "1", v) == NumberStatus::ok);
  CHECK(v == 0.0);
  CHECK(dualgap::read_double("1e-310", v) == NumberStatus::ok);  // subnormal: kept
  CHECK(v > 0.0);
  CHECK(dualgap::read_double("100e-500", v) == NumberStatus::ok);
  CHECK(dualgap::read_double("1e400", v) == NumberStatus::too_large);
  CHECK(dualgap::read_double("-1e+400", v) == NumberStatus::too_large);
  CHECK(dualgap::read_double("1" + std::string(400, '0'), v) == NumberStatus::too_large);
  CHECK(dualgap::read_double("0.001e99999999999999999999", v) == NumberStatus::too_large);
  CHECK(dualgap::read_double("nan", v) == NumberStatus::not_finite);
  CHECK(dualgap::read_double("-Infinity", v) == NumberStatus::not_finite);
  CHECK(dualgap::read_double("", v) == NumberStatus::empty);
  for (const char* word : {"+", "abc", "1,5", "0x1", "1e", "--1", "1 "})
    CHECK_MESSAGE(dualgap::read_double(word, v) == NumberStatus::not_a_number, word);
  CHECK(dualgap::number_problem("abc", NumberStatus::not_a_number) == "non-numeric value 'abc'");
  CHECK(dualgap::number_problem("nan", NumberStatus::not_finite) == "non-finite value 'nan'");
  CHECK(dualgap::number_problem("1e400", NumberStatus::too_large) == "out-of-range value '1e400' (beyond 1.8e308 in magnitude)");
  CHECK(dualgap::number_problem("", NumberStatus::empty) == "empty value");
}

TEST_CASE("LineScanner: a UTF-8 byte order mark is skipped, CR stripped, every line counted") {
  dualgap::LineScanner lines("\xEF\xBB\xBF" "1 1:1\r\n\n# c\n2 2:1");
  std::string_view line;
  REQUIRE(lines.next(line));
  CHECK(line == "1 1:1");
  CHECK(lines.line_number() == 1);
  REQUIRE(lines.next(line));
  CHECK(line.empty());
  REQUIRE(lines.next(line));
  REQUIRE(lines.next(line));
  CHECK(line == "2 2:1");
  CHECK(lines.line_number() == 4);
  CHECK(!lines.next(line));
  // Only at the start: a BOM inside the text is data (and reported as such by the parser).
  dualgap::LineScanner inner("a\n\xEF\xBB\xBF" "b\n");
  REQUIRE(inner.next(line));
  REQUIRE(inner.next(line));
  CHECK(line == "\xEF\xBB\xBF" "b");
}

TEST_CASE("TextReader: the lines of LineScanner, read in pieces, plain, gzip and bzip2") {
  // Pieces of 64 bytes: lines cross piece boundaries, and a line of 1000 bytes is longer than a
  // piece (the buffer grows to hold it); the last line has no newline.
  std::string text = "\xEF\xBB\xBF" "1 1:1\r\n\n# c\n";
  for (int i = 0; i < 50; ++i) text += std::to_string(i) + " " + std::to_string(i + 1) + ":0.5\n";
  text += std::string(1000, 'x') + "\n2 2:1";
  std::vector<std::pair<std::size_t, std::string>> expected;
  {
    dualgap::LineScanner lines(text);
    std::string_view line;
    while (lines.next(line)) expected.emplace_back(lines.line_number(), std::string(line));
  }
  REQUIRE(expected.size() == 55);
  test::TempDir dir;
  for (Compression c : {Compression::none, Compression::gzip, Compression::bzip2}) {
    const std::string path = write_file(dir, std::string("t.") + to_string(c), text, c);
    for (std::size_t piece : {std::size_t{64}, std::size_t{1} << 22}) {
      dualgap::TextReader reader(path, piece);
      CHECK(reader.compression() == c);
      std::vector<std::pair<std::size_t, std::string>> got;
      std::string_view line;
      while (reader.next(line)) got.emplace_back(reader.line_number(), std::string(line));
      CHECK_MESSAGE(got == expected, to_string(c), " piece ", piece);
      CHECK(reader.bytes_read() == text.size());
    }
  }
  // An empty file has no line; a file of one newline has one empty line.
  dualgap::TextReader empty(write_file(dir, "empty", ""));
  std::string_view line;
  CHECK(!empty.next(line));
  dualgap::TextReader one(write_file(dir, "nl", "\n"));
  REQUIRE(one.next(line));
  CHECK(line.empty());
  CHECK(!one.next(line));
}

TEST_CASE("TextReader: a compressed file cut short or corrupt is an error naming it; a missing file too") {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 20000; ++i) text += std::to_string(i % 3) + " 1:" + std::to_string(i) + "\n";
  for (Compression c : {Compression::gzip, Compression::bzip2}) {
    const std::string whole = write_file(dir, std::string("w.") + to_string(c), text, c);
    const std::string bytes = read_raw_file(whole);
    const std::string cut = write_file(dir, std::string("cut.") + to_string(c), bytes.substr(0, bytes.size() / 2));
    std::string corrupt = bytes;
    for (std::size_t k = corrupt.size() / 3; k < corrupt.size() / 3 + 64; ++k) corrupt[k] = static_cast<char>(corrupt[k] ^ 0x5a);
    const std::string bad = write_file(dir, std::string("bad.") + to_string(c), corrupt);
    for (const std::string& p : {cut, bad}) {
      const std::string msg = error_of([&] {
        dualgap::TextReader reader(p, 4096);
        std::string_view line;
        while (reader.next(line)) {
        }
      });
      CHECK_MESSAGE(msg.find(p + ": corrupt or truncated " + to_string(c) + " data") != std::string::npos, msg);
    }
    // Through the plugin, as a run reads it: a DataError naming the file.
    const std::string msg = error_of([&] { load("libsvm", {{"train", cut}}); });
    CHECK_MESSAGE(msg.find(cut + ": corrupt or truncated") != std::string::npos, msg);
  }
  const std::string msg = error_of([&] { dualgap::TextReader reader((dir.path / "none.svm").string()); });
  CHECK_MESSAGE(msg.find("none.svm: no such file") != std::string::npos, msg);
}

TEST_CASE("BlockArray: values across blocks, changed in place, drained in order into an exact array") {
  dualgap::BlockArray<std::int32_t> a;
  const std::size_t n = 2 * dualgap::BlockArray<std::int32_t>::kBlock + 17;  // three blocks, the last partly used
  for (std::size_t i = 0; i < n; ++i) a.push_back(static_cast<std::int32_t>(i));
  CHECK(a.size() == n);
  a[dualgap::BlockArray<std::int32_t>::kBlock] = -5;  // the first value of the second block
  dualgap::BlockArray<std::int32_t> moved = std::move(a);
  CHECK(a.empty());
  std::vector<long long> out(n);
  moved.drain(out.data(), [](std::int32_t v) { return 2LL * v; });
  CHECK(moved.empty());
  CHECK(out[0] == 0);
  CHECK(out[dualgap::BlockArray<std::int32_t>::kBlock - 1] == 2LL * (dualgap::BlockArray<std::int32_t>::kBlock - 1));
  CHECK(out[dualgap::BlockArray<std::int32_t>::kBlock] == -10);
  CHECK(out[n - 1] == 2LL * static_cast<long long>(n - 1));
}

TEST_CASE("a sparse FeatureMatrix, an Examples and a Data move without copying their values") {
  // Eigen's SparseMatrix has no move: a FeatureMatrix swaps, so the arrays handed over are the
  // ones the parser filled (a copy would hold the data twice for a moment).
  DenseMatrix D = DenseMatrix::Zero(50, 40);
  for (Eigen::Index i = 0; i < 50; ++i) D(i, (i * 7) % 40) = 1.0 + static_cast<double>(i);
  SparseMatrix S = D.sparseView();
  S.makeCompressed();
  const double* values = S.valuePtr();
  FeatureMatrix X(std::move(S));
  CHECK(X.sparse().valuePtr() == values);
  FeatureMatrix Y(std::move(X));
  CHECK(Y.sparse().valuePtr() == values);
  Examples ex;
  ex.X = std::move(Y);
  ex.y.assign(50, 0);
  ex.num_classes = 1;
  CHECK(ex.X.sparse().valuePtr() == values);
  Data d;
  d.train = std::move(ex);
  Data e = std::move(d);
  CHECK(e.train.X.sparse().valuePtr() == values);
  CHECK(e.train.X.to_dense() == D);
  // An lvalue is still copied, and a copy is a copy.
  FeatureMatrix copy = e.train.X;
  CHECK(copy.sparse().valuePtr() != values);
  CHECK(copy.to_dense() == D);
  // select_rows: the rows asked for, in that order
  const FeatureMatrix sel = e.train.X.select_rows({3, 0, 49});
  CHECK(sel.rows() == 3);
  CHECK(sel.to_dense().row(0) == D.row(3));
  CHECK(sel.to_dense().row(1) == D.row(0));
  CHECK(sel.to_dense().row(2) == D.row(49));
  // ... also from an uncompressed matrix (rows with room to spare: innerNonZeros per row)
  SparseMatrix U = D.sparseView();
  U.uncompress();
  U.coeffRef(0, 39) = -2.0;  // an entry inserted into row 0's spare room
  REQUIRE_FALSE(U.isCompressed());
  DenseMatrix DU = D;
  DU(0, 39) = -2.0;
  const FeatureMatrix usel = FeatureMatrix(std::move(U)).select_rows({0, 3, 0});
  CHECK(usel.sparse().isCompressed());
  CHECK(usel.to_dense().row(0) == DU.row(0));
  CHECK(usel.to_dense().row(1) == DU.row(3));
  CHECK(usel.to_dense().row(2) == DU.row(0));
}

TEST_CASE("the core's data options apply to every dataset plugin, generators and structured ones included") {
  // synthetic_chain declares none of them: the core's pipeline applies them all the same.
  const json chain{{"n_train", 12}, {"n_test", 0}, {"K", 3}, {"d", 4}};
  Data all = load("synthetic_chain", chain, 5);
  REQUIRE(all.train.num_examples() == 12);
  json p = chain;
  p["max_examples"] = 10;
  p["test_fraction"] = 0.3;
  p["stratified"] = false;
  Data split = load("synthetic_chain", p, 5);
  CHECK(split.train.num_examples() == 7);  // 10 kept, round(0.3 * 10) = 3 held out
  CHECK(split.test.num_examples() == 3);
  CHECK(split.train.num_units() + split.test.num_units() ==
        static_cast<std::size_t>(all.train.unit_offset[10]));  // whole sequences move
  CHECK(source_of(split)["applied"]["split"]["test_fraction"] == 0.3);
  CHECK(same_examples(split.train, load("synthetic_chain", p, 5).train));  // seeded: reproducible
  // An unknown key is still refused by the schema of the section.
  CHECK(error_of([&] { make_params(data_schema(test::plugins().get(Kind::dataset, "synthetic_chain").description->params),
                                   json{{"per_clas", 3}}); }).find("per_clas") != std::string::npos);
}
