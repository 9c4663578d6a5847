// The bounded YAML reader (yaml.hpp): the file checked, the document measured over the
// parser's events, then built by yaml-cpp.
#include "base/yaml.hpp"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include "base/files.hpp"

namespace dualgap::yaml {

namespace {

std::string position(const std::string& origin, const YAML::Mark& mark) {
  if (mark.line < 0) return origin;
  return fmt::format("{}:{}:{}", origin, mark.line + 1, mark.column + 1);
}

/// Counts the nodes and the nesting of a document with its aliases expanded, from the parser's
/// events: an anchored node's expanded size and height are kept when it ends, and an alias adds
/// them where it is used. Throws Error at the event that crosses a limit.
class Measure final : public YAML::EventHandler {
 public:
  explicit Measure(const std::string& origin) : origin_(origin) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_name_ = name; }
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string&) override {
    leaf(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapEnd() override { close(); }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const auto it = done_.find(anchor);
    const std::string name = names_.count(anchor) ? "*" + names_[anchor] : "an alias";
    if (it == done_.end())  // yaml-cpp registers an anchor before its node ends: &a [*a]
      throw Error(origin_, mark, fmt::format("{} refers to the node that contains it (a cycle)", name));
    add(mark, it->second, name);
  }

 private:
  struct Size {
    std::size_t nodes = 0;   ///< with aliases expanded, at most kMaxNodes + 1
    std::size_t height = 0;  ///< collections nested in it, itself included
  };
  struct Open {
    YAML::anchor_t anchor;
    YAML::Mark mark;
    Size size;
  };

  void name_anchor(YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor && !pending_name_.empty()) names_[anchor] = pending_name_;
    pending_name_.clear();
  }

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    name_anchor(anchor);
    const Size one{1, 0};
    if (anchor != YAML::NullAnchor) done_[anchor] = one;
    add(mark, one, "");
  }

  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    name_anchor(anchor);
    if (stack_.size() + 1 > kMaxDepth)
      throw Error(origin_, mark, fmt::format("YAML nested more than {} levels deep", kMaxDepth));
    // The collection itself counts now, so that a long flat list stops at the budget too.
    count(mark, 1, "");
    stack_.push_back({anchor, mark, {1, 1}});
  }

  void close() {
    const Open o = stack_.back();
    stack_.pop_back();
    if (o.anchor != YAML::NullAnchor) done_[o.anchor] = o.size;
    if (!stack_.empty()) {
      Size& parent = stack_.back().size;
      parent.nodes += o.size.nodes;
      parent.height = std::max(parent.height, o.size.height + 1);
    }
  }

  /// A finished node of `s` (a leaf, or an alias standing for a finished node) at `mark`.
  void add(const YAML::Mark& mark, const Size& s, const std::string& alias) {
    if (stack_.size() + s.height > kMaxDepth)
      throw Error(origin_, mark,
                  fmt::format("{} nests the document more than {} levels deep once aliases are expanded", alias, kMaxDepth));
    count(mark, s.nodes, alias);
    if (!stack_.empty()) {
      Size& parent = stack_.back().size;
      parent.nodes += s.nodes;
      parent.height = std::max(parent.height, s.height + 1);
    }
  }

  void count(const YAML::Mark& mark, std::size_t nodes, const std::string& alias) {
    total_ += nodes;
    if (total_ <= kMaxNodes) return;
    throw Error(origin_, mark,
                alias.empty()
                    ? fmt::format("the YAML document has more than {} nodes (the limit of any YAML dualgap reads)", kMaxNodes)
                    : fmt::format("{} stands for {} nodes, which takes the document past {} nodes once aliases are "
                                  "expanded (the limit of any YAML dualgap reads; aliases of aliases multiply)",
                                  alias, nodes, kMaxNodes));
  }

  const std::string& origin_;
  std::vector<Open> stack_;
  std::unordered_map<YAML::anchor_t, Size> done_;
  std::unordered_map<YAML::anchor_t, std::string> names_;
  std::string pending_name_;
  std::size_t total_ = 0;
};

}  // namespace

Error::Error(std::string origin, YAML::Mark mark, std::string problem)
    : std::runtime_error(position(origin, mark) + ": " + problem),
      origin_(std::move(origin)),
      mark_(mark),
      problem_(std::move(problem)) {}

std::string read_text(const std::string& path) {
  // base/files: only a regular file (a FIFO is refused, never waited on), at most kMaxBytes.
  try {
    return read_file(path, kMaxBytes, fmt::format("the {} MB a YAML file dualgap reads may have", kMaxBytes >> 20));
  } catch (const FileError& e) {
    std::string problem = e.what();
    if (problem.rfind(path + ": ", 0) == 0) problem.erase(0, path.size() + 2);
    throw Error(path, YAML::Mark::null_mark(), problem);
  }
}

YAML::Node load(const std::string& text, const std::string& origin) {
  try {
    {
      std::istringstream in(text);
      YAML::Parser parser(in);
      Measure measure(origin);
      parser.HandleNextDocument(measure);
    }
    return YAML::Load(text);
  } catch (const Error&) {
    throw;
  } catch (const YAML::Exception& e) {
    throw Error(origin, e.mark, "YAML syntax error: " + e.msg);
  }
}

YAML::Node load_file(const std::string& path) { return load(read_text(path), path); }

}  // namespace dualgap::yaml
