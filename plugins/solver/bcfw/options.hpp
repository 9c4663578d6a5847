// Options of the bcfw solver, read from the plugin parameters (schema: describe() in bcfw.cpp).
#pragma once

#include <string>

#include "dualgap/params.hpp"

namespace dualgap_bcfw {

enum class Sampling { permutation, uniform, cyclic, gap };
enum class Inner { pairwise, fw };
enum class Blocks { automatic, marginals, dense };

struct Options {
  bool multiplane = false;
  bool averaging = false;
  int N = 1000;  ///< max planes per working set
  int M = 1000;  ///< max approximate passes per outer iteration
  int T = 10;    ///< drop planes inactive for T outer iterations
  bool auto_rule = true;
  Sampling sample = Sampling::permutation;
  int gram_max_units = 64;
  int gap_refresh = 10;  ///< sample: gap -- every gap_refresh-th exact pass is a full permutation
  int inner_steps = 0;  ///< block-local steps over W_i after every block step
  Inner inner = Inner::pairwise;
  Blocks blocks = Blocks::automatic;
  bool support_scores = true;  ///< approximate calls compute only the scores a step reads

  explicit Options(const dualgap::Params& p)
      : multiplane(p.get<bool>("multiplane")),
        averaging(p.get<bool>("averaging")),
        N(p.get<int>("N")),
        M(p.get<int>("M")),
        T(p.get<int>("T")),
        auto_rule(p.get<bool>("auto_rule")),
        gram_max_units(p.get<int>("gram_max_units")),
        gap_refresh(p.get<int>("gap_refresh")),
        inner_steps(p.get<int>("inner_steps")) {
    const auto s = p.get<std::string>("sample");
    if (s == "permutation") sample = Sampling::permutation;
    else if (s == "uniform") sample = Sampling::uniform;
    else if (s == "cyclic") sample = Sampling::cyclic;
    else if (s == "gap") sample = Sampling::gap;
    else throw dualgap::ParamError("bcfw: sample must be permutation, uniform, cyclic or gap, got '" + s + "'");
    if (gap_refresh < 1) throw dualgap::ParamError("bcfw: need gap_refresh >= 1");
    if (N < 0 || M < 0 || T < 1) throw dualgap::ParamError("bcfw: need N >= 0, M >= 0, T >= 1");
    const auto in = p.get<std::string>("inner");
    if (in == "pairwise") inner = Inner::pairwise;
    else if (in == "fw") inner = Inner::fw;
    else throw dualgap::ParamError("bcfw: inner must be pairwise or fw, got '" + in + "'");
    if (inner_steps < 0) throw dualgap::ParamError("bcfw: need inner_steps >= 0");
    const auto bl = p.get<std::string>("blocks");
    if (bl == "auto") blocks = Blocks::automatic;
    else if (bl == "marginals") blocks = Blocks::marginals;
    else if (bl == "dense") blocks = Blocks::dense;
    else throw dualgap::ParamError("bcfw: blocks must be auto, marginals or dense, got '" + bl + "'");
    const auto sc = p.get<std::string>("approx_scores");
    if (sc == "support") support_scores = true;
    else if (sc == "full") support_scores = false;
    else throw dualgap::ParamError("bcfw: approx_scores must be support or full, got '" + sc + "'");
    if (blocks == Blocks::dense && inner_steps > 0)
      throw dualgap::ParamError("bcfw: inner_steps needs blocks: marginals (or auto)");
    if (inner_steps > 0 && !working_sets())
      throw dualgap::ParamError("bcfw: inner_steps > 0 needs working sets (multiplane: true, N > 0)");
  }
  bool working_sets() const { return multiplane && N > 0; }
  bool approximate_passes() const { return working_sets() && M > 0; }
};

}  // namespace dualgap_bcfw
