#!/usr/bin/python3
"""Layout check of the figures plot_figure.py draws (tests/compare/compare_layout_test.cpp).

usage: /usr/bin/python3 layout_check.py PLOT_FIGURE.py SPEC.json...

Each spec is drawn by plot_figure.py's own code (fitted_figure, what the plotter writes), then every text matplotlib drew
(tick labels, axis labels, titles, legend entries, notes) is measured with the renderer's
get_window_extent: none may leave the canvas and no two may overlap. Prints one line per
problem and exits 1 when there is any. The check is independent of the plotter's own fitting:
it records what Text.draw actually drew.
"""
import importlib.util
import itertools
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.text  # noqa: E402

DRAWN = []
_draw = matplotlib.text.Text.draw


def recording_draw(self, renderer):
    _draw(self, renderer)
    if self.get_visible() and self.get_text().strip():
        DRAWN.append(self)


matplotlib.text.Text.draw = recording_draw


def load_plotter(path):
    spec = importlib.util.spec_from_file_location("plot_figure", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def problems_of(fig):
    DRAWN.clear()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    canvas = fig.bbox
    boxes = [(t, t.get_window_extent(renderer)) for t in DRAWN]
    out = []
    tol = 0.5  # pixels: anti-aliasing, rounding
    for t, b in boxes:
        if b.x0 < canvas.x0 - tol or b.y0 < canvas.y0 - tol or b.x1 > canvas.x1 + tol or b.y1 > canvas.y1 + tol:
            out.append(f"leaves the canvas {canvas.width:.0f}x{canvas.height:.0f}: {t.get_text()!r} at "
                       f"[{b.x0:.0f}, {b.x1:.0f}] x [{b.y0:.0f}, {b.y1:.0f}]")
    for (t1, b1), (t2, b2) in itertools.combinations(boxes, 2):
        w = min(b1.x1, b2.x1) - max(b1.x0, b2.x0)
        h = min(b1.y1, b2.y1) - max(b1.y0, b2.y0)
        if w > tol and h > tol:
            out.append(f"overlap: {t1.get_text()!r} and {t2.get_text()!r} ({w:.0f}x{h:.0f} px)")
    return out, len(boxes)


def main(argv):
    plotter = load_plotter(argv[1])
    failed = 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        fig, _ = plotter.fitted_figure(spec)
        problems, n = problems_of(fig)
        matplotlib.pyplot.close(fig)
        name = spec.get("name", path)
        if problems:
            failed += 1
            print(f"{name}: {len(problems)} layout problem(s) among {n} texts")
            for p in problems[:12]:
                print("  " + p)
        elif n < 5:
            failed += 1
            print(f"{name}: only {n} texts drawn (nothing to check?)")
        else:
            print(f"{name}: ok ({n} texts)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
