#!/usr/bin/env python3
"""The README's table of bcfw-threads, computed from one full run's records.

Usage: /usr/bin/python3 experiments/bcfw-threads/table.py results/bcfw-threads

Reads every run.json or run.json.gz under the folder (bcfw-threads-horse and bcfw-threads-ocr),
and prints the rows of the README's table as markdown, each cell the median [min-max] over the
repeats. The levels are the claims': on horse a dual suboptimality of 10 (P_best - D, P_best the
lowest primal of any run of the experiment: all runs solve one problem), on OCR a duality gap of
1e-2 x the optimum (0.0155); MP-BCFW to a gap of 1e-2 x its own primal; MP-BCFW against dlib to
the primal of dlib's run of the same repeat. A time to a level is the solver time of the first
checkpoint that reaches it. Standard library only.
"""
import gzip
import json
import pathlib
import statistics
import sys
from collections import defaultdict


def load(root):
    runs = defaultdict(lambda: defaultdict(list))  # experiment -> label -> [run]
    for p in sorted(pathlib.Path(root).rglob("run.json*")):
        opener = gzip.open if p.suffix == ".gz" else open
        with opener(p, "rt") as f:
            r = json.load(f)
        runs[r["experiment"]][r["label"]].append(r)
    for labels in runs.values():
        for rs in labels.values():
            rs.sort(key=lambda r: r["repeat"])
    return runs


def first(run, test, column="time"):
    """The `column` value at the first checkpoint where test(curve, i, problem_key) holds; None
    if none does."""
    c = run["curve"]
    for i in range(len(c["time"])):
        if test(c, i, run["problem_key"]):
            return c[column][i]
    return None


def cell(values, unit="", digits=3, budget=None):
    """'median [min-max]' over the repeats, a run that never reached the level counted as
    beyond its budget (as `dualgap check` counts it): '> T' where the median or the maximum is
    such a run; None when no run reached it."""
    got = [v for v in values if v is not None]
    if not got:
        return None
    fmt = lambda v: f"{v:.{digits}g}"
    beyond = f"> {budget:g} s" if budget is not None else "not reached"
    ordered = sorted(got) + [float("inf")] * (len(values) - len(got))
    if len(ordered) == 1:
        return fmt(ordered[0]) + unit
    m = statistics.median(ordered)
    show_ = lambda v: beyond if v == float("inf") else fmt(v) + unit
    s = f"{show_(m)} [{fmt(ordered[0])}-{show_(ordered[-1])}]"
    if len(got) < len(values):
        s += f" ({len(got)}/{len(values)} reached)"
    return s


def med(values):
    ordered = sorted(v if v is not None else float("inf") for v in values)
    m = statistics.median(ordered) if ordered else None
    return None if m is None or m == float("inf") else m


def show(values, unit, budget, digits=3):
    return cell(values, unit, digits, budget) or f"not reached in {budget:g} s"


def main(root):
    runs = load(root)
    horse, ocr = runs["bcfw-threads-horse"], runs["bcfw-threads-ocr"]
    budget = {"horse": 30, "ocr": 20}
    # P_best of each exact problem (a repeat draws its own train/test split): the lowest primal
    # of the runs that share its problem_key, as compare bounds it.
    p_best = defaultdict(lambda: float("inf"))
    for rs in horse.values():
        for r in rs:
            values = [x for x in r["curve"]["primal"] if x is not None] + [r["summary"].get("primal", float("inf"))]
            p_best[r["problem_key"]] = min(p_best[r["problem_key"]], min(values))

    def pass_rate(rs):
        return [r["summary"]["passes"] / r["summary"]["time"] for r in rs]

    def share(rs):
        return [r["summary"]["oracle_time"] / r["summary"]["time"] for r in rs]

    horse_level = lambda c, i, key: c["dual"][i] is not None and p_best[key] - c["dual"][i] <= 10
    ocr_level = lambda c, i, _: c["gap"][i] is not None and c["gap"][i] <= 0.0155
    rel_gap = lambda c, i, _: c["gap"][i] is not None and c["gap"][i] <= 1e-2 * c["primal"][i]

    rows = []
    rows.append(("exact-oracle share of plain BCFW on 1 thread",
                 cell(share(horse["BCFW-1t"]), digits=2), cell(share(ocr["BCFW-1t"]), digits=2)))
    h = [med(pass_rate(horse[k])) for k in ("BCFW-1t", "BCFW-b2-1t", "BCFW-b2-2t", "BCFW-b8s-2t")]
    o = [med(pass_rate(ocr[k])) for k in ("BCFW-1t", "BCFW-b2-1t", "BCFW-b2-2t")]
    rows.append(("exact passes per second: BCFW 1 thread; batch 2 on 1 -> 2 threads; sequential batch 8 on 2 threads",
                 f"{cell(pass_rate(horse['BCFW-1t']))}; {h[1]:.3g} -> {cell(pass_rate(horse['BCFW-b2-2t']))} "
                 f"(**{h[2] / h[1]:.2f}x**); {cell(pass_rate(horse['BCFW-b8s-2t']))} (**{h[3] / h[1]:.2f}x**)",
                 f"{cell(pass_rate(ocr['BCFW-1t']))}; {o[1]:.3g} -> {o[2]:.3g} (**{o[2] / o[1]:.2f}x**)"))
    passes = lambda rs, level: [first(r, level, "passes") for r in rs]
    times = lambda rs, level: [first(r, level) for r in rs]
    rows.append(("passes to dual suboptimality 10 (horse) / to gap 1e-2 x primal (OCR): BCFW; batch 2; sequential batch 8",
                 "; ".join(show(passes(horse[k], horse_level), "", budget["horse"], 4)
                           for k in ("BCFW-1t", "BCFW-b2-2t", "BCFW-b8s-2t")),
                 "; ".join(show(passes(ocr[k], ocr_level), "", budget["ocr"], 4) for k in ("BCFW-1t", "BCFW-b2-2t"))))
    t1, t2, t8 = (times(horse[k], horse_level) for k in ("BCFW-1t", "BCFW-b2-2t", "BCFW-b8s-2t"))
    speed = lambda a, b: f"**{med(a) / med(b):.2f}x**" if med(a) and med(b) else "n/a"
    rows.append(("time to it: BCFW 1 thread / batch 2 on 2 threads / sequential batch 8 on 2 threads",
                 f"{show(t1, ' s', budget['horse'])} / {show(t2, ' s', budget['horse'])} ({speed(t1, t2)} sooner) / {show(t8, ' s', budget['horse'])} ({speed(t1, t8)})",
                 f"{show(times(ocr['BCFW-1t'], ocr_level), ' s', budget['ocr'])} / {show(times(ocr['BCFW-b2-2t'], ocr_level), ' s', budget['ocr'])}"))
    mp = lambda runs_, k: times(runs_[k], rel_gap)
    rows.append(("MP-BCFW, 1 thread -> 2 threads, to gap 1e-2 x primal",
                 f"{show(mp(horse, 'MP-BCFW-1t'), ' s', budget['horse'])} -> {show(mp(horse, 'MP-BCFW-b2-2t'), ' s', budget['horse'])}",
                 f"{show(mp(ocr, 'MP-BCFW-1t'), ' s', budget['ocr'])} -> {show(mp(ocr, 'MP-BCFW-b2-2t'), ' s', budget['ocr'])}"))

    def against_dlib(runs_, ours, peer):
        # Each repeat: our time to the primal of dlib's run of the same repeat (within 1e-9).
        target = {r["repeat"]: r["summary"]["primal"] for r in runs_[peer]}
        a = [first(r, lambda c, i, _, t=target[r["repeat"]]: c["primal"][i] is not None and c["primal"][i] <= t * (1 + 1e-9))
             for r in runs_[ours]]
        # dlib's time: its first checkpoint at its own final primal (its run is one training).
        b = [first(r, lambda c, i, _, t=target[r["repeat"]]: c["primal"][i] is not None and c["primal"][i] <= t * (1 + 1e-9))
             for r in runs_[peer]]
        ratio = f"**{med(a) / med(b):.2f}x**" if med(a) else "n/a"
        return f"{show(a, ' s', 0)} vs {cell(b, ' s')}: {ratio}"

    rows.append(("MP-BCFW vs dlib, 1 thread each, to dlib's eps 0.01 primal",
                 against_dlib(horse, "MP-BCFW-1t", "dlib-1t"), against_dlib(ocr, "MP-BCFW-1t", "dlib-1t")))
    rows.append(("MP-BCFW vs dlib, 2 threads each",
                 against_dlib(horse, "MP-BCFW-b2-2t", "dlib-2t"), against_dlib(ocr, "MP-BCFW-b2-2t", "dlib-2t")))

    print("| | horse (graph cut, 100 training images) | OCR (chain, fold 0) |")
    print("|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {a} | {b} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
