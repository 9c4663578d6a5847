// dense_text plugin: USPS-like, vowel-like, optdigits-like and iris-like files, and its errors.
#include "helpers.hpp"

using namespace dstest;

TEST_CASE("dense_text: whitespace separated, float labels '6.0000' equal integer labels '6'") {
  test::TempDir dir;
  auto tr = write_file(dir, "zip.train.gz", "6.0000 -1.0000 0.5000 \n9.0000 1 1\n6.0000 0 0\n", Compression::gzip);
  auto te = write_file(dir, "zip.test.gz", "9 0.25 -1\n6 1 1\n", Compression::gzip);
  Data d = load("dense_text", {{"train", tr}, {"test", te}});
  REQUIRE(!d.train.X.is_sparse());
  CHECK(d.train.num_examples() == 3);
  CHECK(d.train.num_features() == 2);
  CHECK(d.train.y == std::vector<int>{0, 1, 0});
  CHECK(d.test.y == std::vector<int>{1, 0});
  CHECK(d.train.X.dense()(0, 1) == 0.5);
  CHECK(d.test.X.dense()(0, 0) == 0.25);
  CHECK(source_of(d)["label_map"] == json::array({"6", "9"}));
}

TEST_CASE("dense_text: CSV with header, row-id column dropped, label in column 1 (vowel)") {
  test::TempDir dir;
  auto p = write_file(dir, "vowel.train",
                      "row.names,y,x.1,x.2\r\n1,1,-3.639,0.418\r\n2,11,-3.327,0.496\r\n3,2, 1.5 ,2\r\n");
  Data d = load("dense_text", {{"train", p}, {"label_column", "1"}, {"drop_columns", {0}}});
  CHECK(d.train.num_examples() == 3);
  CHECK(d.train.num_features() == 2);
  CHECK(d.train.num_classes == 3);
  CHECK(d.train.y == std::vector<int>{0, 2, 1});  // numeric order: 1 < 2 < 11
  CHECK(d.train.X.dense()(0, 0) == -3.639);
  CHECK(d.train.X.dense()(2, 0) == 1.5);
  CHECK(source_of(d)["header"] == true);
  // Without drop_columns the row id would be a feature.
  Data keep = load("dense_text", {{"train", p}, {"label_column", "1"}});
  CHECK(keep.train.num_features() == 3);
}

TEST_CASE("dense_text: label last, '#' comment line, no header (optdigits)") {
  test::TempDir dir;
  auto p = write_file(dir, "optdigits.tra", "# the last digit is the class code\n0,1,6,3\n0,0,10,7\n");
  Data d = load("dense_text", {{"train", p}, {"label_column", "last"}});
  CHECK(d.train.num_features() == 3);
  CHECK(d.train.y == std::vector<int>{0, 1});
  CHECK(source_of(d)["header"] == false);
  CHECK(d.train.X.dense()(1, 2) == 10.0);  // row "0,0,10,7": label 7, features 0 0 10
}

TEST_CASE("dense_text: string labels (iris), trailing empty line") {
  test::TempDir dir;
  auto p = write_file(dir, "iris.data",
                      "5.1,3.5,1.4,0.2,Iris-setosa\n7.0,3.2,4.7,1.4,Iris-versicolor\n6.3,3.3,6.0,2.5,Iris-virginica\n\n");
  Data d = load("dense_text", {{"train", p}, {"label_column", "last"}});
  CHECK(d.train.num_examples() == 3);
  CHECK(d.train.y == std::vector<int>{0, 1, 2});
  CHECK(source_of(d)["label_map"][2] == "Iris-virginica");
}

TEST_CASE("dense_text: errors name file and line") {
  test::TempDir dir;
  auto err = [&](const std::string& name, const std::string& text, json extra = json::object()) {
    json p = {{"train", write_file(dir, name, text)}};
    p.update(extra);
    return error_of([&] { load("dense_text", p); });
  };
  CHECK(err("x.txt", "1 1 2\n2 3 4\n3 5\n").find("x.txt:3: expected 2 features, found 1") != std::string::npos);
  CHECK(err("y.txt", "1 1 2\n2 3 4 5\n").find("y.txt:2: expected 2 features, found 3") != std::string::npos);
  CHECK(err("n.txt", "1 1 2\n2 3 abc\n", {{"header", "no"}}).find("n.txt:2: non-numeric value 'abc' in column 2") !=
        std::string::npos);
  CHECK(err("m.csv", "1,1,2\n,3,4\n").find("m.csv:2: label missing") != std::string::npos);
  CHECK(err("e.csv", "1,1,2\n2,,4\n").find("e.csv:2: empty value in column 1") != std::string::npos);
  CHECK(err("l.txt", "1 2 3\n", {{"label_column", "5"}}).find("l.txt:1: label_column 5 is outside") != std::string::npos);
  CHECK(err("d.txt", "1 2 3\n", {{"drop_columns", {7}}}).find("d.txt:1: drop_columns names column 7") != std::string::npos);
  CHECK(err("h.txt", "a b c\n").find("h.txt: no examples") != std::string::npos);
  CHECK(err("v.csv", "id,y,a\n1,2,3\n", {{"label_column", "yy"}}).find("v.csv:1: label_column 'yy' is not a column of the header line (id, y, a)") !=
        std::string::npos);
  CHECK(error_of([&] { load("dense_text", {{"train", "x"}, {"label_column", "y"}, {"header", "no"}}); }).find("header is 'no'") !=
        std::string::npos);
}

TEST_CASE("dense_text: label column by header name, tabs, quoted labels, no final newline") {
  test::TempDir dir;
  auto p = write_file(dir, "v.csv", "row.names,y,x.1\n1,3,0.5\n2,1,0.25");  // no final newline
  Data d = load("dense_text", {{"train", p}, {"label_column", "y"}, {"drop_columns", {0}}});
  CHECK(d.train.num_examples() == 2);
  CHECK(d.train.num_features() == 1);
  CHECK(d.train.y == std::vector<int>{1, 0});
  CHECK(d.train.X.dense()(1, 0) == 0.25);
  auto t = write_file(dir, "t.tsv", "1.5\t2\t\"b\"\n3\t4\t\"a\"\n");
  Data q = load("dense_text", {{"train", t}, {"label_column", "last"}, {"separator", "tab"}});
  CHECK(q.train.y == std::vector<int>{1, 0});
  CHECK(q.train.X.dense()(0, 0) == 1.5);
  CHECK(source_of(q)["label_map"] == json::array({"a", "b"}));
}

TEST_CASE("dense_text: the test file must have the train file's columns") {
  test::TempDir dir;
  auto tr = write_file(dir, "tr.txt", "1 1 2\n2 3 4\n");
  auto te = write_file(dir, "te.txt", "1 1 2 3\n");
  auto msg = error_of([&] { load("dense_text", {{"train", tr}, {"test", te}}); });
  CHECK(msg.find("te.txt:1: expected 2 features, found 3") != std::string::npos);
}

TEST_CASE("dense_text header: auto: a first line of numbers with one bad value is data, reported at line 1") {
  test::TempDir dir;
  auto err = [&](const std::string& name, const std::string& text, json extra = json::object()) {
    json p = {{"train", write_file(dir, name, text)}};
    p.update(extra);
    return error_of([&] { load("dense_text", p); });
  };
  const std::string rest = "2,1,2,3\n1,2,0,1\n2,0,1,1\n";
  // The same bad row gives the same message on line 1 as on line 2.
  // (a pair, not a structured binding: clang 14 refuses one in CHECK_MESSAGE's lambda)
  for (const auto& bad : std::vector<std::pair<std::string, std::string>>{
           {"1,nan,2,3", "non-finite value 'nan' in column 1"},
           {"1,,2,3", "empty value in column 1 (missing values are not supported)"},
           {"1,0.5,O.3,2", "non-numeric value 'O.3' in column 2"},
           {"1,inf,2,3", "non-finite value 'inf' in column 1"},
           {"1,1e400,2,3", "out-of-range value '1e400'"},
           {"1,2,3", "expected 3 features, found 2"},
           {"1,2,3,4,5", "expected 3 features, found 4"},
           {"1,2,3,4,", "expected 3 features, found 4 (4 columns with the label, found 5) (the line ends with a separator)"}}) {
    const std::string &row = bad.first, &message = bad.second;
    CHECK_MESSAGE(err("first.csv", row + "\n" + rest).find("first.csv:1: " + message) != std::string::npos, row);
    CHECK_MESSAGE(err("second.csv", "2,1,2,3\n" + row + "\n" + rest).find("second.csv:2: " + message) != std::string::npos, row);
  }
  // String labels (iris): the first line is data when most of its features are numbers.
  CHECK(err("iris.csv", "5.1,3.5,x,0.2,a\n1,2,3,4,b\n1,2,3,4,a\n", {{"label_column", "last"}})
            .find("iris.csv:1: non-numeric value 'x' in column 2") != std::string::npos);
  // Every line ending in a separator: the empty last column is named as such.
  CHECK(err("trail.csv", "1,2,3,\n2,3,4,\n").find("trail.csv:1: empty value in column 3 (the line ends with a separator)") !=
        std::string::npos);
  // A test file follows the same rule.
  auto tr = write_file(dir, "tr.txt", "1 1 2\n2 3 4\n");
  auto te = write_file(dir, "te.txt", "1 nan 2\n2 3 4\n");
  CHECK(error_of([&] { load("dense_text", {{"train", tr}, {"test", te}}); }).find("te.txt:1: non-finite value 'nan'") !=
        std::string::npos);
}

TEST_CASE("dense_text header: auto: words, or a word label above numeric labels, make a header") {
  test::TempDir dir;
  auto words = write_file(dir, "w.csv", "label,x1,x2\n1,1,2\n2,3,4\n");
  Data a = load("dense_text", {{"train", words}});
  CHECK(a.train.num_examples() == 2);
  CHECK(source_of(a)["header"] == true);
  // Column names that are numbers: the label 'y' above numeric labels marks the header.
  auto numbered = write_file(dir, "n.csv", "y,1,2\n1,1,2\n2,3,4\n");
  Data b = load("dense_text", {{"train", numbered}});
  CHECK(b.train.num_examples() == 2);
  CHECK(source_of(b)["label_map"] == json::array({"1", "2"}));
  // A first line that is data stays data: 3 examples, 3 classes.
  auto data = write_file(dir, "d.csv", "3,1,2\n1,1,2\n2,3,4\n");
  Data c = load("dense_text", {{"train", data}});
  CHECK(c.train.num_examples() == 3);
  CHECK(c.train.num_classes == 3);
  CHECK(source_of(c)["header"] == false);
  // A UTF-8 byte order mark is not part of the first label.
  auto bom = write_file(dir, "b.csv", "\xEF\xBB\xBF" "1,1,2\n2,3,4\n");
  Data e = load("dense_text", {{"train", bom}});
  CHECK(e.train.num_examples() == 2);
  CHECK(source_of(e)["label_map"] == json::array({"1", "2"}));
}
