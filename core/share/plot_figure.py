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
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import matplotlib.text  # noqa: E402
from matplotlib.font_manager import FontProperties  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

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
        log_y_axis(ax, ys)
    if panel["log_x"]:
        base = panel.get("log_base_x", 10)
        ax.set_xscale("log", base=base)
        ax.xaxis.set_major_formatter(power_formatter(base))
        ax.xaxis.set_minor_formatter(NullFormatter())
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
    return finish_panel(ax, panel, drawn)


def finish_panel(ax, panel, drawn):
    """The panel's title, and "no data" across a panel where nothing was drawn; returns drawn."""
    if panel.get("title"):
        ax.set_title(panel["title"], fontsize="medium")
    if not drawn:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="0.5")
    return drawn


def log_y_axis(ax, ys):
    """A log y axis labelled 10\u207b\u00b3, with at least two labelled decades around `ys`."""
    ax.set_yscale("log")
    pos = [v for v in ys if v > 0]
    if pos:
        lim = decade_limits(min(pos), max(pos))
        if lim:
            ax.set_ylim(*lim)
    ax.yaxis.set_major_formatter(power_formatter(10))
    ax.yaxis.set_minor_formatter(NullFormatter())


def draw_strip(ax, panel, styles, look):
    """A strip plot: one point per run at the spec's x (series position + offset), a bar at the
    median; the series named on the x axis."""
    ax.grid(True, axis="y", which="major", alpha=0.25, linewidth=0.5)
    cats = panel["categories"]
    drawn, ys = [], []
    for s in panel["series"]:
        color, marker = styles[s["label"]]
        x, y = arr(s["x"]), arr(s["values"])
        floor = panel.get("floor")
        if floor is not None:  # values <= 0 on a log axis: drawn at its floor (the notes say so)
            y[y <= 0] = floor
        ok = ~np.isnan(y)
        if panel["log_y"]:
            ok &= y > 0
        if not ok.any():
            continue
        ax.scatter(x[ok], y[ok], s=look["ms"] ** 2, color=color, marker=marker, alpha=0.75, linewidths=0, zorder=2)
        m = s.get("median")
        if m is not None and floor is not None and m <= 0:
            m = floor
        if m is not None and (m > 0 or not panel["log_y"]):
            c = s["position"]
            half = panel["median_half_width"]
            ax.hlines(m, c - half, c + half, color=color,
                      linewidth=look["lw"] * 1.6, zorder=3)
        drawn.append(s["label"])
        ys.extend(y[ok])
    ax.set_xlim(-0.6, len(cats) - 0.4)
    ax.set_xticks(range(len(cats)))
    ax.set_xticklabels(cats)
    ax.tick_params(axis="x", length=0)
    if panel["log_y"]:
        log_y_axis(ax, ys)
    ax.set_ylabel(panel["ylabel"])
    if panel.get("xlabel"):
        ax.set_xlabel(panel["xlabel"])
    return finish_panel(ax, panel, drawn)


def fit_categories(ax, renderer, font, em):
    """The x tick labels of a strip panel side by side when each fits its slot, else turned
    upright and wrapped to 40 % of the panel's grid cell (the cell, not the axes: the axes shrink
    as the labels grow, and a room measured on them would cut the labels smaller each round).
    Returns True when it changed them."""
    labels = [t.get_text() for t in ax.get_xticklabels()]
    if not any(labels):
        return False
    box = ax.get_window_extent(renderer)
    size = ax.get_xticklabels()[0].get_fontsize()
    slot = box.width / len(labels)
    upright = ax.get_xticklabels()[0].get_rotation() == 90
    widest = max(text_width(renderer, line, size) for label in labels for line in label.split("\n"))
    if upright:
        cell = ax.get_subplotspec().get_position(ax.figure)
        room = max(0.4 * cell.height * ax.figure.bbox.height, 4 * em)
        if widest <= room:
            return False
        fitted = [wrap(renderer, label.replace("\n", " "), room, size) for label in labels]
        if fitted == labels:
            return False
        ax.set_xticks(range(len(labels)), fitted)
        return True
    if widest <= 0.92 * slot:
        return False
    ax.tick_params(axis="x", labelrotation=90)  # kept by every later draw, unlike a Text's own
    return True


def open_arg(arg, mode, **kw):
    """A path, or fd:N: a descriptor the caller opened for this script."""
    if arg.startswith("fd:") and arg[3:].isdigit():
        return os.fdopen(int(arg[3:]), mode, **kw)
    return open(arg, mode, **kw)


SUPERSCRIPTS = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")


def power_formatter(base):
    """Tick labels of a log axis as plain text, 10\u207b\u00b3 (mathtext is off: every text of the
    figure is drawn as written); ticks between the powers get no label."""
    def label(v, _pos):
        if not (v > 0):
            return ""
        e = math.log(v, base)
        k = round(e)
        return f"{base:g}{str(k).translate(SUPERSCRIPTS)}" if abs(e - k) < 1e-6 else ""
    return FuncFormatter(label)


def text_width(renderer, text, size, **font):
    return renderer.get_text_width_height_descent(text, FontProperties(size=size, **font), ismath=False)[0]


def wrap(renderer, text, max_px, size, **font):
    """Greedy word wrap of `text` into lines at most `max_px` wide, measured with the renderer
    (a word wider than a line is cut, after its last hyphen that fits when it has one, so that
    "MP-BCFW-avg" breaks as "MP-BCFW-" / "avg"); existing line breaks are kept."""
    out = []
    for para in str(text).split("\n"):
        line = ""
        for word in para.split(" "):
            while text_width(renderer, word, size, **font) > max_px and len(word) > 1:
                cut = len(word) - 1
                while cut > 1 and text_width(renderer, word[:cut], size, **font) > max_px:
                    cut -= 1
                hyphen = word.rfind("-", 1, cut)
                if hyphen > 0:
                    cut = hyphen + 1
                if line:
                    out.append(line)
                    line = ""
                out.append(word[:cut])
                word = word[cut:]
            candidate = word if not line else line + " " + word
            if not line or text_width(renderer, candidate, size, **font) <= max_px:
                line = candidate
            else:
                out.append(line)
                line = word
        out.append(line)
    return "\n".join(out)


class recorded_texts:
    """The texts a draw of the figure actually drew (tick labels outside the view are not)."""
    def __enter__(self):
        self.texts, self._draw = [], matplotlib.text.Text.draw
        texts, draw = self.texts, self._draw

        def recording(text, renderer):
            draw(text, renderer)
            if text.get_visible() and text.get_text().strip():
                texts.append(text)
        matplotlib.text.Text.draw = recording
        return self

    def __exit__(self, *exc):
        matplotlib.text.Text.draw = self._draw


def layout_problems(fig):
    """Texts that leave the canvas or overlap another text, after a full draw."""
    with recorded_texts() as rec:
        fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [(t, t.get_window_extent(renderer)) for t in rec.texts]
    c, tol, out = fig.bbox, 0.5, []
    for t, b in boxes:
        if b.x0 < c.x0 - tol or b.y0 < c.y0 - tol or b.x1 > c.x1 + tol or b.y1 > c.y1 + tol:
            out.append(t.get_text())
    for i, (t1, b1) in enumerate(boxes):
        for t2, b2 in boxes[i + 1:]:
            if min(b1.x1, b2.x1) - max(b1.x0, b2.x0) > tol and min(b1.y1, b2.y1) - max(b1.y0, b2.y0) > tol:
                out.append(t1.get_text() + " / " + t2.get_text())
    return out


def build_figure(spec, scale=1.0):
    """The figure of `spec`, its texts fitted to the canvas: axis labels and titles wrapped to their
    panel, the notes and the title to the figure, the legend in as many rows as its width needs.
    `scale` multiplies the font size (main() shrinks it when a text still does not fit)."""
    look = dict(STYLES.get(spec.get("style") or "paper", STYLES["paper"]))
    font = (spec.get("font_size") or look["font"]) * scale
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
        # a little more room between the tick labels and the axes than matplotlib's 3.5 pt: the
        # first x label of a log axis and the "0" of a linear y axis meet at the corner
        "xtick.major.pad": font * 0.55, "ytick.major.pad": font * 0.55,
    })
    panels = spec["panels"]
    n = max(len(panels), 1)
    cols = max(1, min(spec.get("columns") or n, n))
    rows = math.ceil(n / cols)
    given_w, given_h = spec.get("width") or 0, spec.get("height") or 0
    sized = given_w > 0 and given_h > 0
    width = given_w if sized else look["panel"][0] * cols
    fig = plt.figure(figsize=(width, given_h if sized else 1.0), dpi=dpi, layout="constrained")
    renderer = fig.canvas.get_renderer()
    line_in = font * 1.25 / 72  # one line of text, in inches

    styles = {s["label"]: (s["color"], s["marker"]) for s in spec["series"]}
    # The legend: as many columns as the figure's width holds, measured on the labels.
    # Strip plots name their series on the x axis and have no legend (spec "legend": false).
    drawable = [s["label"] for s in spec["series"]
                if spec.get("legend", True)
                and any(any(v is not None for v in (p.get("median") or [])) for panel in panels
                        for p in panel["series"] if p["label"] == s["label"])]
    em = font * 0.9 * dpi / 72
    entry = max([text_width(renderer, l, font * 0.9) for l in drawable] or [0]) + (2.2 + 0.8) * em
    ncol = max(1, min(len(drawable), int((width * dpi * 0.96 + 1.2 * em) // (entry + 1.2 * em)))) if drawable else 1
    legend_rows = math.ceil(len(drawable) / ncol) if drawable else 0
    legend_h = legend_rows * font * 0.9 * 1.7 / 72 + (0.04 if drawable else 0)

    title = wrap(renderer, spec["title"], width * dpi * 0.96, font * 1.1) if spec.get("title") else ""
    notes = wrap(renderer, "\n".join(spec.get("notes") or []), width * dpi * 0.96, font * 0.8, style="italic")
    notes = notes if (spec.get("notes") or []) else ""
    extra_h = (title.count("\n") + 1) * line_in * 1.1 * bool(title) + (notes.count("\n") + 1) * line_in * 0.8 * bool(notes)
    # panel titles (a problem's label) take lines of their own above each row of panels
    for r in range(rows):
        lines = [wrap(renderer, p["title"], width / cols * dpi * 0.8, font).count("\n") + 1
                 for p in panels[r * cols:(r + 1) * cols] if p.get("title")]
        extra_h += max(lines or [0]) * line_in
    height = given_h if sized else look["panel"][1] * rows + legend_h + extra_h
    fig.set_size_inches(width, height)
    panel_h = max((height - legend_h - extra_h) / rows, 0.1)
    # the legend gets its own grid row above the panels: one legend per figure
    grid = fig.add_gridspec(rows + 1, cols, height_ratios=[max(legend_h, 1e-3)] + [panel_h] * rows)
    present, axes = set(), []
    for i, panel in enumerate(panels):
        ax = fig.add_subplot(grid[1 + i // cols, i % cols])
        if panel.get("kind") == "strip":
            present.update(draw_strip(ax, panel, styles, look))
        else:
            present.update(draw_panel(ax, panel, styles, look, spec.get("band", "minmax")))
        axes.append((ax, panel))
    order = [s["label"] for s in spec["series"] if s["label"] in present and spec.get("legend", True)]
    lax = None
    if order:
        lax = fig.add_subplot(grid[0, :])
        lax.axis("off")
        handles = [plt.Line2D([], [], color=styles[l][0], marker=styles[l][1], linewidth=look["lw"],
                              markersize=look["ms"])
                   for l in order]
        lax.legend(handles, order, loc="center", ncol=min(len(order), ncol), frameon=False,
                   handlelength=2.2, columnspacing=1.2, borderaxespad=0)
    if title:
        fig.suptitle(title, fontsize=font * 1.1)
    if notes:
        # supxlabel takes part in the constrained layout: the footnote never overlaps the axes
        fig.supxlabel(notes, fontsize=font * 0.8, style="italic", ha="center")
    # Axis labels and panel titles are wrapped to their panel's size as laid out. The layout
    # changes with them, so a few rounds until it settles; a text is only ever wrapped further
    # (to 95 % of the room it has), so the rounds cannot go back and forth.
    for _ in range(8):
        fig.canvas.draw()
        changed = False
        for ax, panel in axes:
            box = ax.get_window_extent(renderer)
            for text, length in ((ax.yaxis.label, box.height), (ax.xaxis.label, box.width), (ax.title, box.width)):
                current = text.get_text()
                if not current:
                    continue
                widest = max(text_width(renderer, line, font) for line in current.split("\n"))
                if widest > length:
                    fitted = wrap(renderer, current.replace("\n", " "), max(0.95 * length, 4 * em), font)
                    if fitted != current:
                        text.set_text(fitted)
                        changed = True
            if panel.get("kind") == "strip" and fit_categories(ax, renderer, font, em):
                changed = True
        if lax is not None:
            need, have = lax.get_legend().get_window_extent(renderer).height, lax.get_window_extent(renderer).height
            if need > have * 1.02:
                ratios = grid.get_height_ratios()
                grid.set_height_ratios([ratios[0] * need / max(have, 1.0) * 1.05] + list(ratios[1:]))
                changed = True
        if not changed:
            break
    return fig


def fitted_figure(spec):
    """build_figure, drawn again with smaller fonts (down to 60 % of the style's) while some text
    still overlaps another or leaves the canvas (a small --size, many panels). Returns the figure
    and what still does not fit."""
    scale = 1.0
    while True:
        with warnings.catch_warnings():
            # "constrained_layout not applied": a round of the fitting; the result is checked below
            warnings.simplefilter("ignore", UserWarning)
            fig = build_figure(spec, scale)
            problems = layout_problems(fig)
        if not problems or scale < 0.65:
            return fig, problems
        plt.close(fig)
        scale *= 0.9


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open_arg(argv[1], "r", encoding="utf-8") as f:
        spec = json.load(f)
    out = argv[2]
    fig, problems = fitted_figure(spec)
    if problems:  # written as it is: a figure, and a warning saying what to change
        print(f"plot_figure.py: warning: {len(problems)} text(s) overlap or leave the canvas at "
              f"{fig.get_figwidth():g} x {fig.get_figheight():g} in; a larger --size fits them", file=sys.stderr)
    dpi = fig.dpi
    try:
        with open_arg(out, "wb") as f:
            fig.savefig(f, dpi=dpi, format=spec.get("format") or out.rsplit(".", 1)[-1])
    except OSError as e:  # a full disk: one line, not a traceback
        print(f"plot_figure.py: cannot write the figure: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
