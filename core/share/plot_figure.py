#!/usr/bin/python3
"""Paper-style figures for `dualgap compare --figure` (matplotlib, Agg backend).

usage: /usr/bin/python3 plot_figure.py SPEC.json OUT.{png,pdf,svg}

The spec (written by core/src/compare/figure.cpp) holds one row per problem and one panel per
measure; each series is a solver's median on a common grid with its min-max band over repeats.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def arr(values):
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def draw_panel(ax, panel, xlabel):
    ax.set_title(panel["ylabel"], fontsize=9)
    ax.set_xlabel(xlabel, fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, which="major", alpha=0.3)
    drawn = 0
    for s in panel["series"]:
        x, med, lo, hi = arr(s["x"]), arr(s["median"]), arr(s["lo"]), arr(s["hi"])
        if panel["log_y"]:
            # log axes cannot show values <= 0 (e.g. the run defining the best bound)
            for v in (med, lo, hi):
                v[~(v > 0)] = np.nan
        if panel["log_x"]:
            keep = x > 0
            x, med, lo, hi = x[keep], med[keep], lo[keep], hi[keep]
        ok = ~np.isnan(lo) & ~np.isnan(hi)
        if ok.any():
            ax.fill_between(x, lo, hi, where=ok, color=s["color"], alpha=0.18, linewidth=0, step="post")
        if (~np.isnan(med)).any():
            ax.plot(x, med, color=s["color"], label=s["label"], linewidth=1.4, drawstyle="steps-post")
            drawn += 1
    if panel["log_y"]:
        ax.set_yscale("log")
    if panel["log_x"]:
        ax.set_xscale("log")
    if drawn == 0:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="0.5")
    return drawn


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        spec = json.load(f)
    out = argv[2]
    rows = spec["rows"]
    ncols = max([len(r["panels"]) for r in rows] + [1])
    nrows = max(len(rows), 1)
    width, height, dpi = spec.get("panel_width", 4.0), spec.get("panel_height", 3.2), spec.get("dpi", 100)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), dpi=dpi,
                             squeeze=False, layout="constrained")
    handles, labels = {}, []
    for i, row in enumerate(rows):
        for j in range(ncols):
            ax = axes[i][j]
            if j >= len(row["panels"]):
                ax.axis("off")
                continue
            draw_panel(ax, row["panels"][j], spec["xlabel"])
            if len(rows) > 1:  # several problems: name the problem above each panel
                ax.set_title(row["title"] + "\n" + row["panels"][j]["ylabel"], fontsize=7)
            for h, l in zip(*ax.get_legend_handles_labels()):
                if l not in handles:
                    handles[l] = h
                    labels.append(l)
    if handles:
        axes[0][0].legend([handles[l] for l in labels], labels, fontsize=7, loc="best", framealpha=0.8)
    title = spec.get("title") or (rows[0]["title"] if len(rows) == 1 else "")
    note = spec.get("note", "")
    if title:
        fig.suptitle(title, fontsize=10)
    if note:
        # supxlabel takes part in the constrained layout, so the note never overlaps the axes
        fig.supxlabel(note, fontsize=7, style="italic")
    fig.savefig(out, dpi=dpi)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
