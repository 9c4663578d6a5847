#!/usr/bin/python3
"""Publication-ready figures for `dualgap compare --figure` (matplotlib, Agg backend).

usage: /usr/bin/python3 plot_figure.py SPEC.json OUT.{png,pdf,svg}

SPEC and OUT may also be fd:N, a file descriptor opened by the caller: dualgap passes the spec
that way and the figure's temporary in the target folder, which it renames onto the figure's
name only after this script succeeded (the spec's "format" then names the format).

The spec (written by core/src/compare/figure.cpp) holds a flat list of panels laid out in
`columns` columns, one legend entry per series label (colour and marker fixed by the spec, so a
solver looks the same in every figure of an experiment), the band kind, the style and sizes.
This script owns the look of each style; the C++ side owns the data and the choices.
"""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import LogLocator, NullFormatter  # noqa: E402

# Per style: panel size (inches), dpi, font size (pt), line width, marker size.
STYLES = {
    "paper": dict(panel=(2.4, 1.9), dpi=300, font=8, lw=1.1, ms=3.2),
    "slides": dict(panel=(4.6, 3.4), dpi=150, font=14, lw=2.2, ms=6.0),
    "screen": dict(panel=(4.0, 3.0), dpi=100, font=10, lw=1.5, ms=4.5),
}
MARKS_PER_LINE = 7  # markers identify a line in grey-scale print without cluttering it


def arr(values):
    if values is None:
        return None
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def decade_limits(lo, hi):
    """Axis limits with at least two labelled decades: widen to the enclosing powers of ten
    when fewer than two lie inside [lo, hi] (a 2e-3..8e-2 axis becomes 1e-3..1e-1)."""
    a, b = math.ceil(math.log10(lo) - 1e-9), math.floor(math.log10(hi) + 1e-9)
    if b - a >= 1:
        return None
    lo2, hi2 = 10.0 ** math.floor(math.log10(lo) + 1e-9), 10.0 ** math.ceil(math.log10(hi) - 1e-9)
    if hi2 <= lo2 * 10 ** 0.999:
        hi2 = lo2 * 10
    return lo2, hi2


def draw_panel(ax, panel, styles, look, band):
    ax.grid(True, which="major", alpha=0.25, linewidth=0.5)
    drawn, ys, xs = [], [], []
    for s in panel["series"]:
        color, marker = styles[s["label"]]
        x, med, lo, hi = arr(s["x"]), arr(s["median"]), arr(s.get("lo")), arr(s.get("hi"))
        if panel["log_y"]:
            # log axes cannot show values <= 0 (e.g. the run defining the best bound)
            for v in (med, lo, hi):
                if v is not None:
                    v[~(v > 0)] = np.nan
        if panel["log_x"]:
            keep = x > 0
            x, med = x[keep], med[keep]
            lo = lo[keep] if lo is not None else None
            hi = hi[keep] if hi is not None else None
        ok_med = ~np.isnan(med)
        if not ok_med.any():
            continue
        step = "post" if panel.get("steps", True) else None
        if band != "none" and lo is not None and hi is not None:
            ok = ~np.isnan(lo) & ~np.isnan(hi)
            if ok.any():
                ax.fill_between(x, lo, hi, where=ok, color=color, alpha=0.18, linewidth=0, step=step)
                ys.extend(lo[ok])
                ys.extend(hi[ok])
        idx = np.flatnonzero(ok_med)
        every = max(1, len(idx) // MARKS_PER_LINE)
        ax.plot(x, med, color=color, linewidth=look["lw"], drawstyle="steps-post" if step else "default",
                marker=marker, markersize=look["ms"], markevery=list(idx[every // 2::every]))
        drawn.append(s["label"])
        ys.extend(med[ok_med])
        xs.extend(x[ok_med])
    if panel["log_y"]:
        ax.set_yscale("log")
        pos = [v for v in ys if v > 0]
        if pos:
            lim = decade_limits(min(pos), max(pos))
            if lim:
                ax.set_ylim(*lim)
        ax.yaxis.set_minor_formatter(NullFormatter())
    if panel["log_x"]:
        base = panel.get("log_base_x", 10)
        ax.set_xscale("log", base=base)
        if base == 10:
            pos = [v for v in xs if v > 0]
            if pos:
                lim = decade_limits(min(pos), max(pos))
                if lim:
                    ax.set_xlim(*lim)
            ax.xaxis.set_minor_locator(LogLocator(base=10, subs="auto"))
            ax.xaxis.set_minor_formatter(NullFormatter())
    if "ylim" in panel:
        ax.set_ylim(*panel["ylim"])
    ax.set_xlabel(panel["xlabel"])
    ax.set_ylabel(panel["ylabel"])
    if panel.get("title"):
        ax.set_title(panel["title"], fontsize="medium")
    if not drawn:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="0.5")
    return drawn


def open_arg(arg, mode, **kw):
    """A path, or fd:N: a descriptor the caller opened for this script."""
    if arg.startswith("fd:") and arg[3:].isdigit():
        return os.fdopen(int(arg[3:]), mode, **kw)
    return open(arg, mode, **kw)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open_arg(argv[1], "r", encoding="utf-8") as f:
        spec = json.load(f)
    out = argv[2]
    look = dict(STYLES.get(spec.get("style") or "paper", STYLES["paper"]))
    font = spec.get("font_size") or look["font"]
    dpi = spec.get("dpi") or look["dpi"]
    matplotlib.rcParams.update({
        # TrueType (Type 42) fonts in PDF/PS: IEEE and ACM reject Type 3; text stays text in SVG.
        "pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none",
        # Every text of the figure (solver and problem labels, titles, notes) comes from the
        # results as plain text: a label with two '$' must show as written, not be parsed as
        # mathtext (a solver named $\foo$ would abort the figure with a parse error).
        "text.parse_math": False,
        "font.size": font, "axes.labelsize": font, "axes.titlesize": font,
        "xtick.labelsize": font * 0.9, "ytick.labelsize": font * 0.9, "legend.fontsize": font * 0.9,
        "axes.spines.top": False, "axes.spines.right": False,
    })
    panels = spec["panels"]
    n = max(len(panels), 1)
    cols = max(1, min(spec.get("columns") or n, n))
    rows = math.ceil(n / cols)
    legend_rows = 1 if len(spec["series"]) <= 4 * cols else 2
    legend_h = 0.28 * legend_rows * font / 8.0
    width, height = spec.get("width") or 0, spec.get("height") or 0
    if not (width > 0 and height > 0):
        width = look["panel"][0] * cols
        height = look["panel"][1] * rows + legend_h
    fig = plt.figure(figsize=(width, height), dpi=dpi, layout="constrained")
    # the legend gets its own grid row above the panels: one legend per figure
    grid = fig.add_gridspec(rows + 1, cols, height_ratios=[legend_h] + [(height - legend_h) / rows] * rows)
    styles = {s["label"]: (s["color"], s["marker"]) for s in spec["series"]}
    present = set()
    for i, panel in enumerate(panels):
        ax = fig.add_subplot(grid[1 + i // cols, i % cols])
        present.update(draw_panel(ax, panel, styles, look, spec.get("band", "minmax")))
    order = [s["label"] for s in spec["series"] if s["label"] in present]
    if order:
        lax = fig.add_subplot(grid[0, :])
        lax.axis("off")
        handles = [plt.Line2D([], [], color=styles[l][0], marker=styles[l][1], linewidth=look["lw"],
                              markersize=look["ms"])
                   for l in order]
        lax.legend(handles, order, loc="center", ncol=min(len(order), 4 * cols), frameon=False,
                   handlelength=2.2, columnspacing=1.2, borderaxespad=0)
    if spec.get("title"):
        fig.suptitle(spec["title"], fontsize=font * 1.1)
    notes = spec.get("notes") or []
    if notes:
        # supxlabel takes part in the constrained layout: the footnote never overlaps the axes
        fig.supxlabel("\n".join(notes), fontsize=font * 0.8, style="italic", ha="center")
    try:
        with open_arg(out, "wb") as f:
            fig.savefig(f, dpi=dpi, format=spec.get("format") or out.rsplit(".", 1)[-1])
    except OSError as e:  # a full disk: one line, not a traceback
        print(f"plot_figure.py: cannot write the figure: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
