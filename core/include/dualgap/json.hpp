// nlohmann::json, with its preconditions enforced: the one way dualgap (core, plugins, tests,
// benchmarks, and a plugin built with the SDK) includes the JSON library.
//
// Why: nlohmann's checks of its preconditions are `assert`s (JSON_ASSERT), gone in a release
// build. Reading a key a const object lacks (`config["data"]["params"]` on a run.json that has no
// params), or an iterator past the end, is then undefined behaviour: it reads freed or foreign
// memory and may write wrong numbers rather than stop. JSON comes from results folders and
// files someone sent, so every such access throws std::logic_error here, in every build, and the
// command fails with its message instead. Code that reads untrusted JSON still checks its shape
// first and names the file (run/run_files.cpp); this is what holds where a check is missed.
//
// The macro must be defined before nlohmann/json.hpp is first read in a translation unit, so
// this header refuses to compile after it. A layout test (tests/layout/json_include.cmake)
// keeps every other include of <nlohmann/json.hpp> out of the sources.
#pragma once

#if defined(INCLUDE_NLOHMANN_JSON_HPP_) && !defined(DUALGAP_JSON_PRECONDITIONS)
#error "<nlohmann/json.hpp> was included before dualgap/json.hpp: include dualgap/json.hpp (or a dualgap header) first"
#endif
#define DUALGAP_JSON_PRECONDITIONS 1

#include <stdexcept>
#include <string>

namespace dualgap::detail {
/// What JSON_ASSERT does when a precondition of nlohmann::json fails.
[[noreturn]] inline void json_precondition_failed(const char* condition) {
  throw std::logic_error(std::string("a JSON value was read where the document has none (nlohmann::json "
                                     "precondition failed: ") +
                         condition + ")");
}
}  // namespace dualgap::detail

#undef JSON_ASSERT
#define JSON_ASSERT(x) ((x) ? static_cast<void>(0) : ::dualgap::detail::json_precondition_failed(#x))

#include <nlohmann/json.hpp>
