// The plugin skeletons `dualgap new-plugin KIND NAME` writes.
//
// The skeleton of each kind (dataset, features, oracle, solver) is a folder of template files
// (core/share/templates/<kind>/ plus core/share/templates/common/, installed to
// <prefix>/share/dualgap/templates/): the plugin source with the interface's contract in
// comments, a CMakeLists.txt that builds both inside the dualgap tree and against an installed
// dualgap (find_package(dualgap)), a README with the sections a plugin README needs, an
// experiment YAML that uses the plugin, and a doctest file with the conformance checks (and,
// for an oracle, the brute-force check). Placeholders: @NAME@ (plugin name), @CLASS@ (the
// plugin's class, class_name()), @KIND@, @VERSION@ (dualgap version), @API_VERSION@.
//
// The class name is the one identifier of the generated code made from NAME (elsewhere NAME is
// in strings, file and CMake target names), and it always ends in the kind's word: no other
// identifier of a kind's templates has that form (the SDK test checks the templates), so no
// NAME can make the skeleton meet a name of its own, the SDK's, the standard library's or a
// keyword.
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "dualgap/api.hpp"

namespace dualgap::scaffold {

/// Writes the skeleton of `kind` named `name` into `dir` ("": ./NAME), a line "wrote FILE" on
/// `log` per file. Without `force` an existing file is refused (std::runtime_error naming it)
/// before anything is written; templates not found and a failed write throw too.
DUALGAP_API void write_skeleton(const std::string& kind, const std::string& name, const std::string& dir,
                                bool force, std::ostream& log);

/// Folders searched for templates, in order: $DUALGAP_TEMPLATE_DIR, <exe>/../share/dualgap/
/// templates, the source tree's core/share/templates.
DUALGAP_API std::vector<std::string> template_search_path();

/// The files of a skeleton (relative output path -> content), placeholders substituted.
/// Throws std::runtime_error when the kind's templates are not found or the name is invalid.
DUALGAP_API std::map<std::string, std::string> render_skeleton(const std::string& kind,
                                                                const std::string& name);

/// "my_oracle" -> "MyOracle".
DUALGAP_API std::string camel_case(const std::string& name);
/// The class of a skeleton: camel_case(name) ending in the kind's word, added unless it is
/// there ("my_chain", oracle -> "MyChainOracle"; "my_oracle", oracle -> "MyOracle").
DUALGAP_API std::string class_name(const std::string& kind, const std::string& name);
/// Plugin names: [a-z][a-z0-9_]*, at most 64 characters.
DUALGAP_API bool valid_plugin_name(const std::string& name);
/// The rule of valid_plugin_name(), for messages.
inline constexpr const char* kPluginNameRule =
    "lower case letters, digits and '_', starting with a letter, at most 64 characters";

}  // namespace dualgap::scaffold
