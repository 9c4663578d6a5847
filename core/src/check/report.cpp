// Formatting the verdicts: text (one block per claim), Markdown (the results table of an
// experiment README and of experiments/README.md), JSON (for scripts and the HTML report).
#include <fmt/format.h>

#include "check/claims.hpp"

using nlohmann::json;

namespace dualgap::check {

namespace {

std::string md_escape(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n') out += ' ';
    else out += ch;
  }
  return out;
}

std::string measured_of(const Outcome& o) {
  if (o.verdict == Verdict::skipped) return "(checked by the full run only)";
  if (o.measured.empty()) return o.reason;
  return o.reason.empty() || o.verdict != Verdict::not_measurable ? o.measured : o.measured + " — " + o.reason;
}

}  // namespace

std::string format_outcomes(const ClaimsFile& file, const std::vector<Outcome>& outcomes, const std::string& format,
                            const std::string& row_prefix, bool header) {
  std::string out;
  if (format == "markdown") {
    if (header) out += "| claim | paper | paper's result | measured | verdict |\n|---|---|---|---|---|\n";
    for (const auto& o : outcomes) {
      const Claim& c = *o.claim;
      std::string verdict = o.verdict == Verdict::holds || o.verdict == Verdict::fails
                                ? fmt::format("**{}**", to_string(o.verdict))
                                : c.kind == "external" ? "measured elsewhere" : to_string(o.verdict);
      verdict += scale_note(o);
      out += fmt::format("| {}{}: {} | {} | {} | {} | {} |\n", row_prefix, c.id, md_escape(c.text), md_escape(c.ref), md_escape(c.paper),
                         md_escape(measured_of(o)), md_escape(verdict));
    }
    return out;
  }
  out += fmt::format("{}{}\n", file.path, file.paper.empty() ? "" : " (" + file.paper + ")");
  for (const auto& o : outcomes) {
    const Claim& c = *o.claim;
    out += fmt::format("  [{}] {} ({}){}\n", verdict_text(o), c.id, c.ref, c.text.empty() ? "" : ": " + c.text);
    if (!c.paper.empty()) out += "      paper:    " + c.paper + "\n";
    const std::string m = measured_of(o);
    if (!m.empty()) out += "      measured: " + m + "\n";
    if (!o.reason.empty() && o.verdict == Verdict::fails) out += "      why:      " + o.reason + "\n";
  }
  return out;
}

json outcomes_json(const ClaimsFile& file, const std::vector<Outcome>& outcomes) {
  json claims = json::array();
  for (const auto& o : outcomes)
    claims.push_back({{"id", o.claim->id},
                      {"kind", o.claim->kind},
                      {"ref", o.claim->ref},
                      {"text", o.claim->text},
                      {"paper", o.claim->paper},
                      {"scale", o.claim->full_scale_only ? "full" : "ci"},
                      {"verdict", to_string(o.verdict)},
                      {"scale_differences", o.scale},
                      {"verdict_text", verdict_text(o)},
                      {"measured", o.measured},
                      {"reason", o.reason}});
  return {{"claims_file", file.path}, {"paper", file.paper}, {"claims", claims}};
}

}  // namespace dualgap::check
