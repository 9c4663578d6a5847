// libsvm plugin: format variants, compression, label maps, and every parse error.
#include "helpers.hpp"

using namespace dstest;

TEST_CASE("libsvm: 1-based sparse file with an empty example") {
  test::TempDir dir;
  auto p = write_file(dir, "a.txt", "1 1:0.5 3:2\n2 2:1\n1\n");
  Data d = load("libsvm", {{"train", p}});
  REQUIRE(d.train.X.is_sparse());
  CHECK(d.train.num_examples() == 3);
  CHECK(d.train.num_features() == 3);
  CHECK(d.train.num_classes == 2);
  CHECK(d.train.y == std::vector<int>{0, 1, 0});
  DenseMatrix X = d.train.X.to_dense();
  CHECK(X(0, 0) == 0.5);
  CHECK(X(0, 2) == 2.0);
  CHECK(X(1, 1) == 1.0);
  CHECK(X.row(2).squaredNorm() == 0.0);
  CHECK(d.train.X.nonzeros() == 3);
  CHECK(d.test.num_examples() == 0);
}

TEST_CASE("libsvm: 0-based indices are detected, or refused when index_base is 1") {
  test::TempDir dir;
  auto p = write_file(dir, "z.txt", "0 0:1 2:3\n1 1:2\n");
  Data d = load("libsvm", {{"train", p}});
  CHECK(d.train.num_features() == 3);
  CHECK(d.train.X.to_dense()(0, 0) == 1.0);
  CHECK(d.train.X.to_dense()(1, 1) == 2.0);
  CHECK(source_of(d)["index_base"] == 0);
  auto msg = error_of([&] { load("libsvm", {{"train", p}, {"index_base", "1"}}); });
  CHECK(msg.find("z.txt:1: feature index 0 in a 1-based file") != std::string::npos);
}

TEST_CASE("libsvm: CRLF, trailing spaces, comments, blank lines, '+1' labels") {
  test::TempDir dir;
  auto p = write_file(dir, "c.txt", "# header comment\r\n+1 1:1 3:0.25 \r\n\r\n-1 2:1 # trailing comment\r\n  \r\n");
  Data d = load("libsvm", {{"train", p}});
  CHECK(d.train.num_examples() == 2);
  CHECK(d.train.y == std::vector<int>{1, 0});  // -1 -> 0, +1 -> 1 (sorted)
  CHECK(d.train.num_features() == 3);
  CHECK(d.train.X.to_dense()(0, 2) == 0.25);
  CHECK(source_of(d)["label_map"] == json::array({"-1", "1"}));
}

TEST_CASE("libsvm: gzip and bzip2 files (detected by magic bytes) equal the plain file") {
  test::TempDir dir;
  const std::string text = "3 1:1.5 10:-2\n1 4:7e-3\n2 2:1 3:1\n";
  Data plain = load("libsvm", {{"train", write_file(dir, "p.txt", text)}});
  Data gz = load("libsvm", {{"train", write_file(dir, "p.gz", text, Compression::gzip)}});
  // The name says nothing: a bzip2 file called .txt is still detected.
  Data bz = load("libsvm", {{"train", write_file(dir, "p2.txt", text, Compression::bzip2)}});
  CHECK(same_examples(plain.train, gz.train));
  CHECK(same_examples(plain.train, bz.train));
  CHECK(source_of(bz)["compression"] == "bzip2");
  CHECK(plain.train.num_features() == 10);
}

TEST_CASE("libsvm: corrupt compressed data names the file") {
  test::TempDir dir;
  std::string gz;
  {
    auto p = write_file(dir, "ok.gz", std::string(5000, '1'), Compression::gzip);
    gz = read_raw_file(p);
  }
  gz.resize(gz.size() / 2);  // truncated
  auto p = write_file(dir, "bad.gz", gz);
  auto msg = error_of([&] { load("libsvm", {{"train", p}}); });
  CHECK(msg.find("bad.gz") != std::string::npos);
  CHECK(msg.find("gzip") != std::string::npos);
}

TEST_CASE("libsvm: unsorted indices are sorted; duplicates are an error") {
  test::TempDir dir;
  Data d = load("libsvm", {{"train", write_file(dir, "u.txt", "1 3:3 1:1 2:2\n2 1:1\n")}});
  const auto& S = d.train.X.sparse();
  CHECK(S.innerIndexPtr()[0] == 0);
  CHECK(S.innerIndexPtr()[2] == 2);
  CHECK(S.valuePtr()[2] == 3.0);
  auto msg = error_of([&] { load("libsvm", {{"train", write_file(dir, "dup.txt", "1 1:1\n1 3:3 1:1 3:2\n")}}); });
  CHECK(msg.find("dup.txt:2: feature index 3 appears twice") != std::string::npos);
}

TEST_CASE("libsvm: parse errors name file and line") {
  test::TempDir dir;
  auto err = [&](const std::string& name, const std::string& text) {
    return error_of([&] { load("libsvm", {{"train", write_file(dir, name, text)}}); });
  };
  CHECK(err("e1.txt", "1 1:1\n1 a:1\n").find("e1.txt:2: invalid feature index 'a'") != std::string::npos);
  CHECK(err("e2.txt", "1 1:1\n\n1 2:x\n").find("e2.txt:3: non-numeric value 'x' for feature 2") != std::string::npos);
  CHECK(err("e3.txt", "1:2 3:4\n").find("e3.txt:1: label missing") != std::string::npos);
  CHECK(err("e4.txt", "1 1:1\n2 3\n").find("e4.txt:2: expected index:value, found '3'") != std::string::npos);
  CHECK(err("e5.txt", "1 1:nan\n").find("e5.txt:1: non-finite value 'nan' for feature 1") != std::string::npos);
  CHECK(err("e9.txt", "1 1:1\n2 2:1e400\n").find("e9.txt:2: out-of-range value '1e400' (beyond 1.8e308 in magnitude) for feature 2") !=
        std::string::npos);
  CHECK(err("e10.txt", "1 1:1\n2 2:\n").find("e10.txt:2: empty value for feature 2") != std::string::npos);
  CHECK(err("e6.txt", "1,2 1:1\n").find("e6.txt:1: multi-label") != std::string::npos);
  CHECK(err("e7.txt", "# only a comment\n").find("e7.txt: no examples") != std::string::npos);
  CHECK(err("e8.txt", "1 -3:1\n").find("e8.txt:1: invalid feature index '-3'") != std::string::npos);
}

TEST_CASE("libsvm: labels without any feature are an error; one empty example is a zero row") {
  test::TempDir dir;
  // The whole training file labels only (d would be 0): refused at its first example's line,
  // with num_features given too (all-zero features leave nothing to learn either).
  auto p = write_file(dir, "lab.txt", "# labels only\n1\n2 \n3 # c\n");
  auto msg = error_of([&] { load("libsvm", {{"train", p}}); });
  CHECK(msg.find("lab.txt:2: labels but no features: none of the 3 examples has an index:value pair") != std::string::npos);
  msg = error_of([&] { load("libsvm", {{"train", p}, {"num_features", 4}}); });
  CHECK(msg.find("lab.txt:2: labels but no features") != std::string::npos);
  // A test file of labels only is scored on zero vectors: accepted, d from the training file.
  auto tr = write_file(dir, "tr.txt", "1 2:1\n2\n");
  auto te = write_file(dir, "te.txt", "1\n2\n");
  Data d = load("libsvm", {{"train", tr}, {"test", te}});
  CHECK(d.train.num_features() == 2);
  CHECK(d.test.num_examples() == 2);
  CHECK(d.test.X.nonzeros() == 0);
}

TEST_CASE("libsvm: dense storage, shared label map with the test file, num_features") {
  test::TempDir dir;
  auto tr = write_file(dir, "tr.txt", "2 1:1\n3 2:1\n");
  auto te = write_file(dir, "te.txt", "1 3:1\n3 1:2\n");
  Data d = load("libsvm", {{"train", tr}, {"test", te}, {"dense", true}});
  CHECK(!d.train.X.is_sparse());
  CHECK(d.train.num_classes == 3);
  CHECK(d.test.num_classes == 3);
  CHECK(d.train.y == std::vector<int>{1, 2});
  CHECK(d.test.y == std::vector<int>{0, 2});
  CHECK(d.train.num_features() == 3);  // the test file's largest index counts
  CHECK(d.test.X.dense()(1, 0) == 2.0);
  Data wide = load("libsvm", {{"train", tr}, {"num_features", 10}});
  CHECK(wide.train.num_features() == 10);
  auto msg = error_of([&] { load("libsvm", {{"train", tr}, {"test", te}, {"num_features", 2}}); });
  CHECK(msg.find("te.txt:1: feature index 3 exceeds num_features = 2") != std::string::npos);
}

TEST_CASE("libsvm: a UTF-8 byte order mark is not part of the first label; 1e-400 reads as 0") {
  test::TempDir dir;
  auto p = write_file(dir, "bom.txt", "\xEF\xBB\xBF" "1 1:0.5 2:1e-400\n2 1:1\n1 2:-1e-999\n");
  Data d = load("libsvm", {{"train", p}});
  CHECK(d.train.num_classes == 2);
  CHECK(d.train.y == std::vector<int>{0, 1, 0});
  CHECK(source_of(d)["label_map"] == json::array({"1", "2"}));
  CHECK(d.train.X.to_dense()(0, 1) == 0.0);
  CHECK(d.train.X.to_dense()(0, 0) == 0.5);
}
