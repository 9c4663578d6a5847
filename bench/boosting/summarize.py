#!/usr/bin/python3
"""Summaries for the boosting experiments (issue 4), read from run.json files.

  summarize.py fig12 RESULTS_DIR...   mean test error per solver at iterations 10, 50, 100, ..., last
  summarize.py fig6 RESULTS_DIR       fixed-problem mode: time for FCD to reach L-BFGS-B's final
                                      master objective, against L-BFGS-B's total master time
"""
import glob, json, os, statistics, sys
from collections import defaultdict


def runs(dirs):
    for d in dirs:
        for p in glob.glob(os.path.join(d, "**", "run.json"), recursive=True):
            with open(p) as f:
                r = json.load(f)
            name = r["config"].get("solver", {}).get("name") or r["config"].get("solver_name") or "?"
            yield name, r


def solver_name(r):
    c = r["config"]
    for k in ("solver_name", "name"):
        if isinstance(c.get("solver"), dict) and k in c["solver"]:
            return c["solver"][k]
    return c.get("solver_name", "?")


def value_at(curve, col, it):
    best = None
    for p, v in zip(curve["passes"], curve.get(col, [])):
        if p <= it and v is not None:
            best = v
    return best


def fig12(dirs):
    by = defaultdict(list)
    data = None
    for _, r in runs(dirs):
        by[solver_name(r)].append(r["curve"])
        data = r["experiment"]
    last = max(max(c["passes"]) for cs in by.values() for c in cs)
    marks = [m for m in (10, 20, 50, 100, 200, 500) if m <= last] + [last]
    print(f"# {data}: mean (std) test error % over repeats")
    print("| solver | " + " | ".join(f"it {m:g}" for m in marks) + " | final primal | final gap |")
    print("|---" * (len(marks) + 3) + "|")
    for s, cs in sorted(by.items()):
        row = []
        for m in marks:
            v = [value_at(c, "test_error", m) for c in cs]
            v = [x * 100 for x in v if x is not None]
            row.append(f"{statistics.mean(v):.2f} ({statistics.pstdev(v):.2f})" if v else "-")
        pr = [c["primal"][-1] for c in cs if c.get("primal") and c["primal"][-1] is not None]
        gp = [c["gap"][-1] for c in cs if c.get("gap") and c["gap"][-1] is not None]
        row.append(f"{statistics.mean(pr):.4g}" if pr else "-")
        row.append(f"{statistics.mean(gp):.3g}" if gp else "-")
        print(f"| {s} | " + " | ".join(row) + " |")


def fig6(dirs):
    curves = {solver_name(r): r["curve"] for _, r in runs(dirs)}
    lb = curves["LBFGS-B"]
    target = lb["master_objective"][-1]
    t_lb = lb["master_time"][-1]
    print(f"L-BFGS-B: final master objective {target:.10g} after {t_lb:.4f} s, "
          f"{lb['passes'][-1]:g} iterations")
    for s, c in sorted(curves.items()):
        if s == "LBFGS-B":
            continue
        hit = next((t for o, t in zip(c["master_objective"], c["master_time"])
                    if o is not None and o <= target), None)
        fin = c["master_objective"][-1]
        if hit is None:
            print(f"{s}: never reached it (final {fin:.10g} after {c['master_time'][-1]:.4f} s)")
        else:
            print(f"{s}: reached it after {hit:.4f} s = {hit / t_lb:.3f} x L-BFGS-B's time "
                  f"(final {fin:.10g} after {c['master_time'][-1]:.4f} s)")


if __name__ == "__main__":
    {"fig12": fig12, "fig6": fig6}[sys.argv[1]](sys.argv[2:])
