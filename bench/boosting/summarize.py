#!/usr/bin/python3
"""Summaries for the boosting experiments (experiments/multiboost-*), read from run.json files
(and the packed run.json.gz of results/, as dualgap reads them).

  summarize.py fig12 [--repeats N] RESULTS_DIR...
                                      mean test error per solver at iterations 10, 50, 100, ..., last
                                      (--repeats N: only repeats 0..N-1, e.g. those every solver ran)
  summarize.py csel RESULTS_DIR...    C selection: mean (std) final held-out error per solver and
                                      C = 1 / problem.lambda over repeats; the lowest per solver
  summarize.py fig6 RESULTS_DIR...    per experiment directory: time for each solver to come within
                                      1e-3..1e-6 (relative) of L-BFGS-B's final master objective
"""
import glob, gzip, json, os, statistics, sys
from collections import defaultdict


def runs(dirs):
    for d in dirs:
        # A folder holding both counts once, by its run.json (as dualgap reads them).
        paths = glob.glob(os.path.join(d, "**", "run.json"), recursive=True)
        paths += [p for p in glob.glob(os.path.join(d, "**", "run.json.gz"), recursive=True) if p[:-3] not in paths]
        for p in sorted(paths):
            with (gzip.open(p, "rt") if p.endswith(".gz") else open(p)) as f:
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
    max_rep = None
    if dirs and dirs[0] == "--repeats":
        max_rep, dirs = int(dirs[1]), dirs[2:]
    by = defaultdict(list)
    data = None
    for _, r in runs(dirs):
        if max_rep is not None and r["config"].get("repeat", 0) >= max_rep:
            continue
        lam = r["config"].get("problem_resolved", {}).get("lambda")
        by[(solver_name(r), lam)].append(r["curve"])
        data = r["experiment"]
    # With a sweep over lambda (each solver at its own selected C), name the rows "solver, C = ..."
    # (solvers whose curves do not depend on C, like AdaBoost, are listed once per C).
    if len({lam for _, lam in by}) > 1:
        by = {f"{s}, C = {1 / lam:.0e}": cs for (s, lam), cs in by.items()}
    else:
        by = {s: cs for (s, _), cs in by.items()}
    last = max(max(c["passes"]) for cs in by.values() for c in cs)
    marks = [m for m in (10, 20, 50, 100, 200, 500) if m < last] + [last]
    print(f"# {data}: mean (std) test error % over repeats"
          + (f" 0..{max_rep - 1}" if max_rep is not None else ""))
    print("| solver | repeats | " + " | ".join(f"it {m:g}" for m in marks) + " | final primal | final gap |")
    print("|---" * (len(marks) + 4) + "|")
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
        print(f"| {s} | {len(cs)} | " + " | ".join(row) + " |")


def csel(dirs):
    # One table per experiment: runs of several data sets given together are not pooled.
    by_exp = defaultdict(lambda: defaultdict(list))
    for _, r in runs(dirs):
        lam = r["config"]["problem_resolved"]["lambda"]
        errs = [v for v in r["curve"].get("test_error", []) if v is not None]
        if errs:
            by_exp[r["experiment"]][(solver_name(r), 1.0 / lam)].append(errs[-1] * 100)
    for data, by in sorted(by_exp.items()):
        solvers = sorted({s for s, _ in by})
        Cs = sorted({c for _, c in by})
        print(f"# {data}: final held-out error % (mean (std) over repeats) by C = 1/lambda")
        print("| C | " + " | ".join(solvers) + " |")
        print("|---" * (len(solvers) + 1) + "|")
        for c in Cs:
            cells = []
            for s in solvers:
                v = by.get((s, c), [])
                cells.append(f"{statistics.mean(v):.2f} ({statistics.pstdev(v):.2f}), n={len(v)}" if v else "-")
            print(f"| {c:.0e} | " + " | ".join(cells) + " |")
        for s in solvers:
            best = min((statistics.mean(v), c) for (t, c), v in by.items() if t == s)
            print(f"lowest for {s}: C = {best[1]:.0e} ({best[0]:.2f} %)")


TOLS = (1e-3, 1e-4, 1e-5, 1e-6)


def time_to(curve, target, tol, tcol):
    for o, t in zip(curve["master_objective"], curve[tcol]):
        if o is not None and o <= target * (1 + tol):
            return t
    return None


def fig6(dirs):
    """Time for every solver to come within tol (relative) of L-BFGS-B's final master objective.

    Works for both views: fixed-problem mode (one run per solver, one pass = one master iteration)
    and column generation (one pass = one boosting iteration; the target is L-BFGS-B's objective
    at its last iteration, reported against cumulative master time and total solver time).
    One table per repeat: each repeat has its own data split, so its own L-BFGS-B target."""
    for d in dirs:
        by_repeat = defaultdict(dict)
        for _, r in runs([d]):
            by_repeat[r.get("repeat", 0)][solver_name(r)] = r["curve"]
        for rep, curves in sorted(by_repeat.items()):
            title = os.path.basename(os.path.normpath(d)) + (f", repeat {rep}" if len(by_repeat) > 1 else "")
            fig6_table(title, curves)


def fig6_table(title, curves):
    if "LBFGS-B" not in curves:
        return
    lb = curves["LBFGS-B"]
    target = lb["master_objective"][-1]
    t_lb = lb["master_time"][-1]
    tt_lb = lb["time"][-1] if "time" in lb else None
    print(f"## {title}")
    print(f"L-BFGS-B final master objective {target:.10g}: {t_lb:.4f} s master time"
          + (f", {tt_lb:.4f} s solver time" if tt_lb is not None else "")
          + f", {lb['passes'][-1]:g} passes")
    cols = [("master_time", "master s")] + ([("time", "solver s")] if tt_lb is not None else [])
    hdr = []
    for tcol, lab in cols:
        hdr += [f"{lab} to {tol:g}" for tol in TOLS]
    print("| solver | " + " | ".join(hdr) + " | final objective | passes | ratio to L-BFGS-B at 1e-6 (master) |")
    print("|---" * (len(hdr) + 4) + "|")
    for s, c in sorted(curves.items(), key=lambda kv: (kv[0] == "LBFGS-B", kv[0])):
        row = []
        for tcol, _ in cols:
            for tol in TOLS:
                t = time_to(c, target, tol, tcol)
                row.append(f"{t:.4f}" if t is not None else "never")
        t6 = time_to(c, target, 1e-6, "master_time")
        ratio = f"{t6 / t_lb:.3f}" if t6 is not None and t_lb > 0 else "-"
        print(f"| {s} | " + " | ".join(row) +
              f" | {c['master_objective'][-1]:.10g} | {c['passes'][-1]:g} | {ratio} |")
    print()


if __name__ == "__main__":
    {"fig12": fig12, "fig6": fig6, "csel": csel}[sys.argv[1]](sys.argv[2:])
