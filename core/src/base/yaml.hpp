// The one YAML reader of the core. Every YAML text dualgap reads goes through it: experiment
// files and --set values (experiment/config.cpp), the Slurm executor section (through
// load_yaml), claims files (check/), the data registry (data/fetch/), and the experiment file a
// results folder names (compare/). None of them is trusted, so a document is measured before a
// tree is built from it:
//  - the file must be a regular file of at most kMaxBytes (a FIFO or a device named by a
//    results folder would block or never end);
//  - its first document may hold at most kMaxNodes nodes and nest at most kMaxDepth
//    collections deep, counted with every alias expanded where it is used. yaml-cpp shares an
//    aliased node, but every reader walks the document as a tree (the YAML->JSON conversion
//    copies it), so nine levels of ten aliases in a 1 KB file ("billion laughs") would be 10^9
//    nodes. The count runs over the parser's events, before any node exists, in time linear
//    in the file.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <yaml-cpp/yaml.h>

#include "dualgap/api.hpp"

namespace dualgap::yaml {

/// Largest YAML file read (bytes).
inline constexpr std::size_t kMaxBytes = 16u << 20;
/// Most nodes (scalars, nulls, sequences, mappings, keys included) of a document once its
/// aliases are expanded: the largest experiment or claims file here has 264, the data registry
/// 431. An experiment of 20000 nodes raises the peak memory of `validate --no-data` by 13 MB.
inline constexpr std::size_t kMaxNodes = 20000;
/// Deepest nesting of sequences and mappings, aliases expanded.
inline constexpr std::size_t kMaxDepth = 100;

/// A YAML text that cannot be read: `what()` is "origin:line:column: problem" (line and column
/// 1-based; "origin: problem" without a position).
class Error : public std::runtime_error {
 public:
  Error(std::string origin, YAML::Mark mark, std::string problem);
  const std::string& origin() const { return origin_; }
  /// yaml-cpp's position, 0-based; line < 0 when there is none.
  const YAML::Mark& mark() const { return mark_; }
  /// The message without the position.
  const std::string& problem() const { return problem_; }

 private:
  std::string origin_;
  YAML::Mark mark_;
  std::string problem_;
};

/// The text of a YAML file: a regular file of at most kMaxBytes. Throws Error naming the file.
DUALGAP_API std::string read_text(const std::string& path);

/// Parses the first document of `text`, measured first (see above). `origin` names the text in
/// messages (a file name). Throws Error: a syntax error, or a document over the budget.
DUALGAP_API YAML::Node load(const std::string& text, const std::string& origin);

/// read_text + load.
DUALGAP_API YAML::Node load_file(const std::string& path);

}  // namespace dualgap::yaml
