// `dualgap new-plugin KIND NAME` for any valid NAME: the one identifier of the generated code
// made from NAME is the plugin's class, camel_case(NAME) ending in the kind's word
// (scaffold::class_name). The templates hold no other identifier of that form, so no NAME can
// make the skeleton meet a name of its own; no name the SDK's public headers declare or call,
// no keyword and no common standard-library name is one the headers declare globally; and
// whole skeletons of a representative set of such names compile (syntax only, one translation
// unit per kind). The build, test and run of whole skeletons is in sdk_test.cpp, with names that
// broke the skeletons before.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "scaffold/new_plugin.hpp"
#include "sdk_support.hpp"

namespace fs = std::filesystem;
using namespace dualgap::sdk_test;

namespace {

const char* const kKinds[] = {"dataset", "features", "oracle", "solver"};

/// `src` with comments, string and character literals and preprocessor lines blanked (kept as
/// spaces, so that what is left is the code a name can collide in).
std::string code_only(const std::string& src) {
  std::string out = src;
  enum { code, line_comment, block_comment, string, character, directive } st = code;
  bool line_start = true;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const char c = out[i], n = i + 1 < out.size() ? out[i + 1] : '\0';
    switch (st) {
      case code:
        if (c == '/' && n == '/') st = line_comment;
        else if (c == '/' && n == '*') st = block_comment;
        else if (c == '"') st = string;
        else if (c == '\'') st = character;
        else if (c == '#' && line_start) st = directive;
        break;
      case line_comment:
      case directive:
        if (c == '\n') st = code;
        break;
      case block_comment:
        if (c == '*' && n == '/') out[i + 1] = ' ', ++i, st = code;
        break;
      case string:
      case character:
        if (c == '\\') out[i + 1] = ' ', ++i;
        else if (c == (st == string ? '"' : '\'')) st = code, out[i] = ' ';
        break;
    }
    if (c == '\n') line_start = true;
    else if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
    if (st != code && out[i] != '\n') out[i] = ' ';
  }
  return out;
}

/// "StructuredOracle" -> "structured_oracle", "kApiVersion" -> "k_api_version"; "" when the
/// result is not a valid plugin name.
std::string plugin_name_of(const std::string& id) {
  std::string out;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const auto c = static_cast<unsigned char>(id[i]);
    if (std::isupper(c)) {
      const bool boundary = i > 0 && (std::islower(static_cast<unsigned char>(id[i - 1])) ||
                                      std::isdigit(static_cast<unsigned char>(id[i - 1])) ||
                                      (i + 1 < id.size() && std::islower(static_cast<unsigned char>(id[i + 1]))));
      if (boundary && !out.empty() && out.back() != '_') out += '_';
      out += static_cast<char>(std::tolower(c));
    } else {
      out += static_cast<char>(c);
    }
  }
  while (!out.empty() && !std::islower(static_cast<unsigned char>(out.front()))) out.erase(0, 1);
  return dualgap::scaffold::valid_plugin_name(out) ? out : "";
}

/// Every name the public headers declare (class, struct, enum, namespace, using, concept,
/// #define) or call or declare as a function.
std::set<std::string> sdk_names() {
  std::set<std::string> ids;
  const std::regex decl(R"(\b(?:class|struct|enum|union|namespace|using|concept|typename)\s+(?:class\s+|struct\s+)?([A-Za-z_]\w*))");
  const std::regex call(R"(\b([A-Za-z_]\w*)\s*\()");
  const std::regex define(R"(#\s*define\s+([A-Za-z_]\w*))");
  for (const auto& e : fs::recursive_directory_iterator(fs::path(DUALGAP_TEST_SOURCE_DIR) / "core" / "include" / "dualgap")) {
    if (!e.is_regular_file()) continue;
    const std::string raw = dualgap::read_file(e.path().string()), code = code_only(raw);
    for (const auto* re : {&decl, &call})
      for (std::sregex_iterator it(code.begin(), code.end(), *re), end; it != end; ++it) ids.insert((*it)[1]);
    for (std::sregex_iterator it(raw.begin(), raw.end(), define), end; it != end; ++it) ids.insert((*it)[1]);
  }
  return ids;
}

const char* const kKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
    "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short", "signed",
    "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "wchar_t", "while", "xor", "xor_eq", "final", "override", "import", "module"};

const char* const kOtherNames[] = {
    // the standard library and C library
    "std", "vector", "string", "map", "set", "function", "move", "forward", "size_t", "abs", "min", "max", "sort",
    "swap", "exit", "abort", "main", "printf", "errno", "assert", "null", "optional", "variant", "any", "array",
    "tuple", "pair", "unique_ptr", "shared_ptr", "runtime_error", "exception", "invalid_argument", "thread", "mutex",
    "cout", "cerr", "endl", "begin", "end", "size", "data", "isnan", "sqrt", "exp", "log", "pow", "infinity", "nan",
    "uint64_t", "int64_t", "random_device", "mt19937_64", "normal_distribution", "numeric_limits", "stdin", "stdout",
    "eof", "linux", "unix",
    // the libraries the headers use, and the names the templates use
    "dualgap", "dualgap_plugin", "dualgap_plugin_detail", "eigen", "boost", "doctest", "fmt", "nlohmann", "json",
    "describe", "options", "sampling", "uniform", "cyclic", "conformance", "multiclass", "multiclass_oracle",
    "test_recorder", "tiny_multiclass", "header", "plugin", "plugin_object", "solver", "oracle", "dataset",
    "features", "structured_oracle", "feature_generator", "dataset_plugin", "dense_matrix", "feature_matrix",
    "split_mix64", "k", "x", "y", "n", "d", "t", "w", "i"};

}  // namespace

TEST_CASE("new-plugin: no identifier of a kind's templates has the form of its class") {
  const std::string name = "zz_probe";
  for (const std::string kind : kKinds) {
    const auto files = dualgap::scaffold::render_skeleton(kind, name);
    const std::string cls = dualgap::scaffold::class_name(kind, name), word = dualgap::scaffold::camel_case(kind);
    CHECK(cls == "ZzProbe" + word);
    const std::regex form("[A-Z][A-Za-z0-9]*" + word);
    const std::regex ident(R"((::|\.|->)?\s*\b([A-Za-z_]\w*))");
    for (const auto& [rel, text] : files) {
      if (fs::path(rel).extension() != ".cpp" && fs::path(rel).extension() != ".inc") continue;
      const std::string& file = rel;  // (clang 14 captures no structured binding in INFO)
      INFO(kind << ": " << file);
      const std::string code = code_only(text);
      for (std::sregex_iterator it(code.begin(), code.end(), ident), end; it != end; ++it) {
        const bool qualified = (*it)[1].matched;
        const std::string id = (*it)[2];
        if (!qualified && id != cls && std::regex_match(id, form)) FAIL_CHECK("an identifier of the class's form: " << id);
      }
      CHECK(code.find(name) == std::string::npos);  // NAME itself only in strings and comments
      if (rel != name + ".cpp") CHECK(text.find(cls) == std::string::npos);  // the class only in the plugin
    }
  }
  CHECK(dualgap::scaffold::class_name("oracle", "my_chain") == "MyChainOracle");
  CHECK(dualgap::scaffold::class_name("oracle", "my_oracle") == "MyOracle");  // not MyOracleOracle
  CHECK(dualgap::scaffold::class_name("features", "options") == "OptionsFeatures");
  CHECK(dualgap::scaffold::class_name("solver", "sampling") == "SamplingSolver");
}

TEST_CASE("sdk: skeletons of the four kinds compile under every SDK name, keyword and std name") {
  // Where a skeleton's class C could meet another name: an identifier of the template (the case
  // above rules out every one of C's form), or a name the headers declare at global scope
  // (a function, a type, a macro). The second is checked for every name below, cheaply: each C
  // declared at global scope and used there, which is ambiguous if a header declares it too,
  // and not a macro. Whole skeletons compile for a representative subset.
  std::set<std::string> names;
  for (const auto& id : sdk_names())
    if (const std::string n = plugin_name_of(id); !n.empty()) names.insert(n);
  const std::size_t from_sdk = names.size();
  for (const char* k : kKeywords) names.insert(k);
  for (const char* k : kOtherNames) names.insert(k);
  MESSAGE(names.size() << " names (" << from_sdk << " from the SDK's headers)");
  CHECK(from_sdk > 150);  // the enumeration found the headers
  for (const char* n : {"structured_oracle", "plugin_description", "binder", "options", "recorder", "solver_context"})
    CHECK(names.count(n) == 1);
  const std::vector<std::string> whole = {"options",   "sampling", "describe", "class",  "true",       "std",
                                          "dualgap",   "vector",   "main",     "header", "conformance", "multiclass",
                                          "test_recorder", "x",    "structured_oracle", "solver", "oracle", "dataset",
                                          "features",  "dualgap_plugin_detail"};

  dualgap::test::TempDir t;
  for (const std::string kind : kKinds) {
    std::string includes, body, globals;
    std::set<std::string> classes;
    for (const auto& n : names) {
      const std::string cls = dualgap::scaffold::class_name(kind, n);
      if (classes.insert(cls).second)
        globals += "#ifdef " + cls + "\n#error \"a macro: " + cls + "\"\n#endif\nnamespace { struct " + cls +
                   "; }\nstatic_assert(sizeof(" + cls + "*) > 0);\n";
    }
    // The whole skeletons, each in a namespace of its own (DUALGAP_PLUGIN, which exports one C
    // symbol, reduced to a use of the describe function).
    for (std::size_t i = 0; i < whole.size(); ++i) {
      const std::string src = dualgap::scaffold::render_skeleton(kind, whole[i]).at(whole[i] + ".cpp");
      std::istringstream in(src);
      body += "namespace batch_" + std::to_string(i) + " {  // " + whole[i] + "\n";
      for (std::string line; std::getline(in, line);) {
        if (line.rfind("#include", 0) == 0) {
          if (i == 0) includes += line + "\n";
          continue;
        }
        body += line + "\n";
      }
      body += "}\n";
    }
    const fs::path tu = t.path / (kind + "_names.cpp");
    std::ofstream(tu) << includes << "#undef DUALGAP_PLUGIN\n#define DUALGAP_PLUGIN(F) static_assert(sizeof(&F) > 0);\n"
                      << body << globals;
    const auto r = sh(std::string(DUALGAP_TEST_CXX) + " -std=c++20 -fsyntax-only -I" +
                      q(fs::path(DUALGAP_TEST_SOURCE_DIR) / "core" / "include") + " -isystem " +
                      q(DUALGAP_TEST_EIGEN_INCLUDE) + " " + q(tu));
    INFO(kind << ": " << classes.size() << " class names, " << whole.size() << " whole skeletons\n"
              << r.output.substr(0, 4000));
    CHECK(r.status == 0);
  }
}
