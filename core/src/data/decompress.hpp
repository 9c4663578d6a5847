// decompress() (dualgap/parse.hpp) with a bound on what it inflates to, for readers that take
// compressed files from a shared folder (run.json.gz): a small stream that inflates without end
// is stopped at the bound, not held whole. Internal: the public decompress() keeps its signature.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "dualgap/parse.hpp"

namespace dualgap {

/// As decompress(bytes, file), refused once the output passes `max_bytes` (checked per 64 KB
/// block) with the DataError "FILE: more than N bytes once decompressed: larger than LIMIT"
/// (LIMIT as read_file's, e.g. "the 256 MB a run record may have").
DUALGAP_API std::string decompress(std::string bytes, const std::string& file, std::uintmax_t max_bytes,
                                   std::string_view limit);

}  // namespace dualgap
