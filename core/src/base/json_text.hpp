// JSON as text for messages, keys and hashes. nlohmann::json throws on a string that is not
// valid UTF-8 (a Latin-1 byte in an experiment file); the core writes such a byte as U+FFFD
// instead, so that the file is reported where it is wrong, not by an exception from the library.
#pragma once

#include <string>

#include "dualgap/params.hpp"

namespace dualgap {

/// `v` serialized, invalid UTF-8 replaced by U+FFFD (lossy): compact, or indented by `indent`.
inline std::string json_text(const json& v, int indent = -1) {
  return v.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace dualgap
