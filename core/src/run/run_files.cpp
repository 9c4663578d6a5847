// Finding run.json files, and the checked reader (run_files.hpp): a SAX pass that builds the
// document, checks the curve on the fly (kept as columns of doubles, or in the document), then
// the schema's checks of every other key. The first mismatch is the error.
#include "run/run_files.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <stdexcept>

#include <boost/iostreams/device/back_inserter.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <fmt/format.h>

#include "base/files.hpp"
#include "base/json_text.hpp"
#include "base/util.hpp"
#include "data/decompress.hpp"
#include "run/recorder.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace dualgap {

bool is_run_file_name(const fs::path& name) {
  const std::string n = name.filename().string();
  return n == kRunFile || n == kRunFileGz;
}

fs::path run_file_in(const fs::path& run_dir) {
  std::error_code ec;
  if (fs::exists(run_dir / kRunFile, ec)) return run_dir / kRunFile;
  if (fs::exists(run_dir / kRunFileGz, ec)) return run_dir / kRunFileGz;
  return {};
}

std::string read_run_text(const std::string& path) {
  const std::string limit = fmt::format("the {} MB a run record may have", kMaxRunBytes >> 20);
  std::string bytes = read_file(path, kMaxRunBytes, limit);
  if (fs::path(path).extension() != ".gz") return bytes;
  // decompress() takes any stream by its magic bytes: a .gz record must be gzip, not passed on as text.
  if (detect_compression(bytes) != Compression::gzip) throw FileError(path, "not a valid gzip file (no gzip header)");
  return decompress(std::move(bytes), path, kMaxRunBytes, limit);  // a DataError names the file
}

std::vector<fs::path> find_run_files(const std::vector<std::string>& inputs) {
  std::vector<fs::path> files;
  for (const auto& input : inputs) {
    fs::path p(input);
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else if (fs::is_directory(p, ec)) {
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (!it->is_regular_file(ec)) continue;
        // A folder holding both forms counts once: the record run_file_in reads.
        const fs::path& f = it->path();
        if (is_run_file_name(f) && run_file_in(f.parent_path()) == f) files.push_back(f);
      }
    } else {
      throw std::runtime_error(fmt::format("{}: no such file or directory", input));
    }
  }
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

namespace {

const char* kCurveExpected = "an object of columns (arrays of numbers or null, one value per checkpoint)";
const char* kColumnExpected = "an array of numbers or null (one value per checkpoint)";

/// "the string \"x\"", "the number 5", "an object", ... for messages (strings cut, made printable).
std::string describe(const json* v) {
  if (!v) return "nothing (no such key)";
  switch (v->type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return v->get<bool>() ? "true" : "false";
    case json::value_t::string: {
      const std::string& s = v->get_ref<const std::string&>();
      std::string shown = printable(s.size() > 60 ? s.substr(0, 60) : s);
      return fmt::format("the string \"{}{}\"", shown, s.size() > 60 ? "..." : "");
    }
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "the number " + v->dump();
    case json::value_t::array: return v->empty() ? "an empty array" : fmt::format("an array of {} values", v->size());
    case json::value_t::object: return "an object";
    default: return "binary data";
  }
}

/// A key of a key path, as written in messages: dotted when it is a plain name.
std::string key_part(const std::string& key) {
  const bool plain = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '@' || c == '=' || c == ',';
  });
  return plain ? key : "\"" + printable(key) + "\"";
}

std::string join_key(const std::string& parent, const std::string& key) {
  return parent.empty() ? key_part(key) : parent + "." + key_part(key);
}

// SAX pass. Every event goes to the DOM builder except, in CurveMode::columns, those of the
// top-level "curve" value, whose columns go straight into vectors of doubles (a DOM node per
// checkpoint value is the bulk of a run.json: for thousands of runs this halves the time).
// The curve's shape is checked in both modes; the first fault is kept as the message.
class Sax {
 public:
  Sax(json& root, CurveMode mode) : dom_(root), columns_mode_(mode == CurveMode::columns) {}

  std::map<std::string, std::vector<double>> columns;
  std::vector<std::pair<std::string, std::size_t>> lengths;  // per column, in file order
  std::optional<std::string> fault;                          // "curve...: expected ..., found ..."
  bool saw_curve = false;

  bool null() {
    if (scalar(Kind::null, 0, nullptr) && columns_mode_) return true;
    return dom_.null();
  }
  bool boolean(bool v) {
    json j = v;
    if (scalar(Kind::other, 0, &j) && columns_mode_) return true;
    return dom_.boolean(v);
  }
  bool number_integer(json::number_integer_t v) {
    if (scalar(Kind::number, static_cast<double>(v), nullptr) && columns_mode_) return true;
    return dom_.number_integer(v);
  }
  bool number_unsigned(json::number_unsigned_t v) {
    if (scalar(Kind::number, static_cast<double>(v), nullptr) && columns_mode_) return true;
    return dom_.number_unsigned(v);
  }
  bool number_float(json::number_float_t v, const std::string& s) {
    if (scalar(Kind::number, v, nullptr) && columns_mode_) return true;
    return dom_.number_float(v, s);
  }
  bool string(std::string& v) {
    json j = v;
    if (scalar(Kind::other, 0, &j) && columns_mode_) return true;
    return dom_.string(v);
  }
  bool binary(json::binary_t& v) {
    json j = json::binary(v);
    if (scalar(Kind::other, 0, &j) && columns_mode_) return true;
    return dom_.binary(v);
  }
  bool start_object(std::size_t n) {
    const bool curve = open(true);
    ++depth_;
    return curve && columns_mode_ ? true : dom_.start_object(n);
  }
  bool start_array(std::size_t n) {
    const bool curve = open(false);
    ++depth_;
    return curve && columns_mode_ ? true : dom_.start_array(n);
  }
  bool end_object() {
    const bool curve = close();
    --depth_;
    return curve && columns_mode_ ? true : dom_.end_object();
  }
  bool end_array() {
    const bool curve = close();
    --depth_;
    return curve && columns_mode_ ? true : dom_.end_array();
  }
  bool key(std::string& k) {
    if (state_ == State::in_curve && depth_ == curve_depth_) {
      name_ = k;
      state_ = State::column_next;
      if (!seen_.insert(k).second) {  // JSON keeps the last of two; a run.json never has two
        fail(column_path(), "one column of each name", "a second column of that name");
        skip();
      }
      return columns_mode_ ? true : dom_.key(k);
    }
    if (state_ == State::skipping) return columns_mode_ ? true : dom_.key(k);
    if (depth_ == 1 && k == "curve") {
      if (saw_curve) fail("curve", "one curve", "a second \"curve\" key");
      state_ = saw_curve ? State::skip_value : State::curve_next;
      saw_curve = true;
      return columns_mode_ ? true : dom_.key(k);
    }
    return dom_.key(k);
  }
  bool parse_error(std::size_t pos, const std::string& tok, const nlohmann::detail::exception& e) {
    return dom_.parse_error(pos, tok, e);
  }

 private:
  enum class Kind { null, number, other };
  enum class State { outside, curve_next, in_curve, column_next, in_column, skipping, skip_value };

  void fail(const std::string& key_path, const std::string& expected, const std::string& found) {
    if (!fault) fault = fmt::format("{}: expected {}, found {}", key_path, expected, found);
  }
  std::string column_path() const { return join_key("curve", name_); }
  // After a fault the rest of the curve is passed over (to the DOM in document mode).
  void skip() {
    if (curve_depth_ > 0) {
      state_ = State::skipping;
      skip_depth_ = curve_depth_;
    } else {
      state_ = State::outside;
    }
  }

  // A scalar; true when it belongs to the curve.
  bool scalar(Kind kind, double v, const json* value) {
    switch (state_) {
      case State::curve_next:
        fail("curve", kCurveExpected, kind == Kind::null ? "null" : kind == Kind::number ? "a number" : describe(value));
        state_ = State::outside;
        return true;
      case State::skip_value:
        state_ = State::outside;
        return true;
      case State::column_next:
        fail(column_path(), kColumnExpected,
             kind == Kind::null ? "null" : kind == Kind::number ? "a number" : describe(value));
        skip();
        return true;
      case State::in_column:
        if (kind == Kind::other) {
          fail(fmt::format("{}[{}]", column_path(), index_), "a number or null", describe(value));
          skip();
          return true;
        }
        if (columns_mode_) column_->push_back(kind == Kind::null ? std::numeric_limits<double>::quiet_NaN() : v);
        ++index_;
        return true;
      case State::in_curve:  // a value without a key cannot occur in an object
      case State::skipping: return true;
      case State::outside: return false;
    }
    return false;
  }

  // The start of an object or array (depth_ not yet raised); true when it belongs to the curve.
  bool open(bool object) {
    const char* what = object ? "an object" : "an array";
    switch (state_) {
      case State::curve_next:
        if (object) {
          state_ = State::in_curve;
          curve_depth_ = depth_ + 1;
        } else {
          fail("curve", kCurveExpected, what);
          state_ = State::skipping;
          skip_depth_ = depth_ + 1;
        }
        return true;
      case State::skip_value:
        state_ = State::skipping;
        skip_depth_ = depth_ + 1;
        return true;
      case State::column_next:
        if (!object) {
          state_ = State::in_column;
          index_ = 0;
          if (columns_mode_) {
            column_ = &columns[name_];
            column_->clear();
          }
        } else {
          fail(column_path(), kColumnExpected, what);
          skip();
        }
        return true;
      case State::in_column:
        fail(fmt::format("{}[{}]", column_path(), index_), "a number or null", what);
        skip();
        return true;
      case State::in_curve:
      case State::skipping: return true;
      case State::outside: return false;
    }
    return false;
  }

  // The end of an object or array (depth_ not yet lowered); true when it belongs to the curve.
  bool close() {
    switch (state_) {
      case State::in_curve:
        if (depth_ == curve_depth_) {
          state_ = State::outside;
          curve_depth_ = 0;
        }
        return true;
      case State::in_column:
        if (depth_ == curve_depth_ + 1) {
          lengths.emplace_back(name_, index_);
          state_ = State::in_curve;
        }
        return true;
      case State::skipping:
        if (depth_ == skip_depth_) {
          state_ = State::outside;
          curve_depth_ = 0;
        }
        return true;
      default: return false;
    }
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  bool columns_mode_;
  State state_ = State::outside;
  int depth_ = 0, curve_depth_ = 0, skip_depth_ = 0;
  std::string name_;
  std::size_t index_ = 0;
  std::vector<double>* column_ = nullptr;
  std::set<std::string> seen_;
};

// The schema's checks of the document (every key but the curve's columns).
class Checker {
 public:
  Checker(const std::string& path, const json& doc) : path_(path), doc_(doc) {}

  [[noreturn]] void fail(const std::string& key_path, const std::string& expected, const json* found) const {
    run_file_error(path_, key_path, expected, found);
  }

  const json* find(const json& obj, const std::string& key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  void string(const json& obj, const std::string& parent, const std::string& key) const {
    if (const json* v = find(obj, key); v && !v->is_string()) fail(join_key(parent, key), "a string", v);
  }
  // A count or index read into an int: 0 to INT_MAX.
  void whole(const json& obj, const std::string& parent, const std::string& key) const {
    const json* v = find(obj, key);
    if (v && !(v->is_number_unsigned() && v->get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<int>::max())))
      fail(join_key(parent, key), fmt::format("a whole number from 0 to {}", std::numeric_limits<int>::max()), v);
  }
  void number(const json& obj, const std::string& parent, const std::string& key) const {
    if (const json* v = find(obj, key); v && !v->is_number()) fail(join_key(parent, key), "a number", v);
  }
  void boolean(const json& obj, const std::string& parent, const std::string& key) const {
    if (const json* v = find(obj, key); v && !v->is_boolean()) fail(join_key(parent, key), "true or false", v);
  }
  const json* object(const json& obj, const std::string& parent, const std::string& key, bool null_ok = false) const {
    const json* v = find(obj, key);
    if (!v || (null_ok && v->is_null())) return nullptr;
    if (!v->is_object()) fail(join_key(parent, key), null_ok ? "an object or null" : "an object", v);
    return v;
  }

  void check(std::size_t rows) const {
    const json& d = doc_;
    const json* status = find(d, "status");
    const auto& known = run_statuses();
    if (!status || !status->is_string() || std::find(known.begin(), known.end(), status->get<std::string>()) == known.end())
      fail("status", fmt::format("a run status ({})", fmt::join(known, ", ")), status);
    for (const char* k : {"experiment", "run_id", "solver", "label", "message", "problem_key", "group_key", "config_hash",
                          "objective_key", "data_content_hash"})
      string(d, "", k);
    whole(d, "", "repeat");
    whole(d, "", "solver_index");
    boolean(d, "", "approximate");
    for (const char* k : {"objective", "environment", "data_info"}) object(d, "", k);
    if (const json* config = object(d, "", "config")) {
      for (const char* k : {"name", "file", "label"}) string(*config, "config", k);
      whole(*config, "config", "repeat");
      for (const char* k : {"solver", "record", "stop", "seeds"}) object(*config, "config", k);
      object(*config, "config", "data", true);
      if (const json* solver = object(*config, "config", "solver"))
        for (const char* k : {"name", "plugin"}) string(*solver, "config.solver", k);
    }
    if (const json* summary = object(d, "", "summary"))
      for (auto& [k, v] : summary->items())
        if (!v.is_number() && !v.is_null()) fail(join_key("summary", k), "a number or null", &v);
    if (const json* sampling = object(d, "", "sampling", true)) string(*sampling, "sampling", "budget");
    if (const json* ev = find(d, "evaluations")) {
      if (!ev->is_array()) fail("evaluations", "an array", ev);
      for (std::size_t i = 0; i < ev->size(); ++i)
        if (!(*ev)[i].is_object()) fail(fmt::format("evaluations[{}]", i), "an object", &(*ev)[i]);
    }
    if (const json* it = object(d, "", "iterates", true)) check_iterates(*it, rows);
  }

  void check_iterates(const json& it, std::size_t rows) const {
    const json* mode = find(it, "mode");
    if (!mode || (*mode != "final" && *mode != "all")) fail("iterates.mode", "\"final\" or \"all\"", mode);
    const json* model = find(it, "model");
    if (!model || (*model != "w" && *model != "W" && *model != "ensemble" && *model != "scores"))
      fail("iterates.model", "one of \"w\", \"W\", \"ensemble\", \"scores\"", model);
    const json* saved = find(it, "saved");
    if (!saved || !saved->is_array()) fail("iterates.saved", "an array of saved checkpoints", saved);
    for (std::size_t i = 0; i < saved->size(); ++i) {
      const json& e = (*saved)[i];
      const std::string at = fmt::format("iterates.saved[{}]", i);
      if (!e.is_object()) fail(at, "an object {row, passes, files}", &e);
      const json* row = find(e, "row");
      if (!row || !row->is_number_unsigned() || row->get<std::uint64_t>() >= rows)
        fail(at + ".row", fmt::format("a row of the curve (0 to {})", rows == 0 ? std::string("none: the curve is empty") : std::to_string(rows - 1)), row);
      if (const json* p = find(e, "passes"); !p || !p->is_number()) fail(at + ".passes", "a number", p);
      number(e, at, "l_alpha");
      const json* files = find(e, "files");
      if (!files || !files->is_object() || files->empty()) fail(at + ".files", "an object of file names", files);
      for (auto& [name, file] : files->items()) {
        const std::string key = join_key(at + ".files", name);
        if (!file.is_string()) fail(key, "a file name relative to the run folder", &file);
        const std::string f = file.get<std::string>();
        // An iterate is read from the run's own folder, never from a path the file chose.
        bool inside = !f.empty() && f.front() != '/';
        for (std::size_t b = 0; inside && b <= f.size();) {
          const auto e2 = f.find('/', b);
          const std::string part = f.substr(b, e2 == std::string::npos ? std::string::npos : e2 - b);
          if (part == ".." || part.empty() || part.find('\0') != std::string::npos) inside = false;
          if (e2 == std::string::npos) break;
          b = e2 + 1;
        }
        if (!inside) fail(key, "a file name relative to the run folder, without '..'", &file);
      }
    }
  }

 private:
  const std::string& path_;
  const json& doc_;
};

}  // namespace

void run_file_error(const std::string& path, const std::string& key_path, const std::string& expected,
                    const json* found) {
  if (!found) throw RunFileError(fmt::format("{}: {}: missing (expected {})", path, key_path, expected));
  throw RunFileError(fmt::format("{}: {}: expected {}, found {}", path, key_path, expected, describe(found)));
}

const std::vector<std::string>& run_statuses() {
  static const std::vector<std::string> statuses = [] {
    std::vector<std::string> s;
    for (RunStatus r : {RunStatus::done, RunStatus::budget, RunStatus::timeout, RunStatus::diverged, RunStatus::failed,
                        RunStatus::interrupted, RunStatus::running})
      s.emplace_back(to_string(r));
    return s;
  }();
  return statuses;
}

RunFile parse_run_file(const std::string& text, const std::string& path, CurveMode mode) {
  RunFile rf;
  rf.path = path;
  Sax sax(rf.doc, mode);
  try {
    json::sax_parse(text, &sax);
  } catch (const json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 2, ...": the library's tag is noise
    std::string what = e.what();
    if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos) what.erase(0, what.find("] ") + 2);
    throw RunFileError(fmt::format("{}: not valid JSON: {}", path, what));
  }
  if (!rf.doc.is_object())
    throw RunFileError(fmt::format("{}: expected a JSON object (a dualgap run.json), found {}", path, describe(&rf.doc)));
  Checker checker(path, rf.doc);
  // schema before the curve: a foreign file is named as such, whatever its curve
  const json* schema = checker.find(rf.doc, "schema");
  if (!schema || !schema->is_string() || (*schema != "dualgap.run/1" && *schema != "dualgap.run/2"))
    checker.fail("schema", "\"dualgap.run/2\" (or the older \"dualgap.run/1\": is this a dualgap run.json?)", schema);
  if (sax.fault) throw RunFileError(path + ": " + *sax.fault);
  if (!sax.saw_curve) run_file_error(path, "curve", kCurveExpected, nullptr);
  if (!sax.lengths.empty()) {
    // one value per checkpoint: measured against passes (every run records it), else the first column
    auto ref = std::find_if(sax.lengths.begin(), sax.lengths.end(), [](const auto& l) { return l.first == "passes"; });
    if (ref == sax.lengths.end()) ref = sax.lengths.begin();
    for (const auto& [name, n] : sax.lengths)
      if (n != ref->second)
        throw RunFileError(fmt::format("{}: {}: {} values, but {} has {} (expected one value per checkpoint in every "
                                       "column)",
                                       path, join_key("curve", name), n, join_key("curve", ref->first), ref->second));
    rf.rows = ref->second;
  }
  checker.check(rf.rows);
  if (mode == CurveMode::columns) rf.columns = std::move(sax.columns);
  return rf;
}

void check_run_config(const RunFile& run) {
  Checker c(run.path, run.doc);
  const json* config = c.find(run.doc, "config");
  if (!config || !config->is_object())
    c.fail("config", "the run's configuration (an object): the problem is rebuilt from it", config);
  // Every key the rebuild reads is required here, with its type: prepare_run reads the config
  // as a const json, where operator[] of a missing key is undefined behaviour, not an error.
  // A plugin section: {plugin: NAME, params: {...}}.
  auto section = [&](const json& s, const std::string& at) {
    if (!s.is_object()) c.fail(at, "a plugin section {plugin, params}", &s);
    const json* plugin = c.find(s, "plugin");
    if (!plugin || !plugin->is_string()) c.fail(at + ".plugin", "a plugin name", plugin);
    if (!c.object(s, at, "params")) c.fail(at + ".params", "the plugin's parameters (an object)", nullptr);
  };
  const json* data = c.find(*config, "data");
  if (!data) c.fail("config.data", "the data section", nullptr);
  section(*data, "config.data");
  c.number(*data, "config.data", "validation");
  const json* seeds = c.object(*config, "config", "seeds");
  if (!seeds) c.fail("config.seeds", "the run's seeds {data, features, solver}", nullptr);
  for (const char* k : {"data", "features", "solver"})
    if (const json* v = c.find(*seeds, k); !v || !v->is_number_unsigned())
      c.fail(std::string("config.seeds.") + k, "a seed (a whole number >= 0)", v);
  // features may be null (no feature step): its size is 0 there, as for an empty list
  const json* features = c.find(*config, "features");
  if (!features || !(features->is_array() || features->is_null()))
    c.fail("config.features", "a list of plugin sections, or null", features);
  for (std::size_t i = 0; i < features->size(); ++i) section((*features)[i], fmt::format("config.features[{}]", i));
  const json* oracle = c.find(*config, "oracle");
  if (!oracle) c.fail("config.oracle", "a plugin section, or null", nullptr);
  if (!oracle->is_null()) section(*oracle, "config.oracle");
  if (!c.object(*config, "config", "problem")) c.fail("config.problem", "the problem section (an object)", nullptr);
  const json* solver = c.find(*config, "solver");
  if (!solver) c.fail("config.solver", "the solver section", nullptr);
  section(*solver, "config.solver");
  const json* record = c.object(*config, "config", "record");
  if (!record) c.fail("config.record", "the record section", nullptr);
  c.boolean(*record, "config.record", "train_error");
}

std::size_t pack_runs(const std::string& src, const std::string& dst) {
  namespace io = boost::iostreams;
  const fs::path root = fs::is_directory(src) ? fs::path(src) : fs::path(src).parent_path();
  std::vector<std::pair<fs::path, std::string>> packed;
  // Every record is read and checked first: a damaged one stops the pack before any file is
  // written. The files are then written one by one (each atomically): an I/O failure midway
  // leaves some records written and the others absent, and packing again completes them.
  for (const fs::path& file : find_run_files({src})) {
    RunFile rf = read_run_file(file.string(), CurveMode::document);
    rf.doc["iterates"] = nullptr;
    const std::string text = json_text(rf.doc, 1);
    std::string gz;
    {
      io::filtering_ostream out;
      // mtime 0 and no file name in the header: the same record packs to the same bytes.
      out.push(io::gzip_compressor(io::gzip_params(io::gzip::best_compression)));
      out.push(io::back_inserter(gz));
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
    }
    const fs::path rel = file.parent_path().lexically_relative(root);
    packed.emplace_back(fs::path(dst) / rel / kRunFileGz, std::move(gz));
  }
  // DST holds no record this pack does not write: a stale reference run (of a solver or repeat
  // SRC no longer has) would be read beside the new ones by compare, check and reproduce --from.
  std::error_code ec;
  if (fs::exists(dst, ec)) {
    std::set<fs::path> written;
    for (const auto& entry : packed) written.insert(entry.first.lexically_normal());
    for (const fs::path& old : find_run_files({dst}))
      if (!written.count(old.lexically_normal()))
        throw std::runtime_error(fmt::format(
            "{}: holds the run record {}, which this pack does not rewrite: pack into an empty or new folder "
            "(a stale record would be read beside the new ones)",
            dst, old.string()));
  }
  for (const auto& [path, bytes] : packed) {
    fs::create_directories(path.parent_path());
    write_file_atomic(path.string(), bytes);
  }
  return packed.size();
}

RunFile read_run_file(const std::string& path, CurveMode mode) { return parse_run_file(read_run_text(path), path, mode); }

}  // namespace dualgap
