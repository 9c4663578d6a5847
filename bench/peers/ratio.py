#!/usr/bin/env python3
"""Time to a relative primal suboptimality, ours against a peer, from one experiment's results.

Usage: ratio.py RESULTS_DIR OURS PEER [--target 1e-3 | --peer-primal] [--load "0.4 0.5"]

RESULTS_DIR holds <solver>__r<k>/run.json (one `dualgap run`). The optimum of each repeat (its
own data split) is bounded below by D*, the largest certified dual value of any run of that
repeat (ours and the peer's both certify one), so
(P - D*) / D* <= target implies that P is within target of the optimum. A run's time to the
target is the solver time of its first checkpoint that reaches it; for a peer in sampling mode
(one fresh run per tolerance) it is the time of the first restart whose model reaches it, i.e.
LIBLINEAR's own time for the first -e of its list that is precise enough. Prints one line:
median and range over repeats of both, the ratio of the medians (ours / peer; < 1: ours is
faster), each side's peak RSS and the load given. Standard library only.

--gap G / --rel-gap R: the time of each run to its own certified duality gap <= G (<= R x its
primal) instead.
--peer-primal: the target is instead the primal value of the peer's last restart (e.g. dlib at
eps 0.01); the peer's time is that restart's own time, ours the time of our first checkpoint
whose primal is at most that value (the peer's run of the same repeat).
"""
import argparse
import glob
import json
import os
import statistics
import sys


def load(results):
    runs = {}
    for f in sorted(glob.glob(os.path.join(results, "*__r*", "run.json"))):
        r = json.load(open(f))
        runs.setdefault(r["label"] if "label" in r else os.path.basename(os.path.dirname(f)).split("__r")[0], []).append(r)
    return runs


def time_to(run, dstar, target):
    c = run["curve"]
    for p, t in zip(c["primal"], c["time"]):
        if p is not None and (p - dstar) / abs(dstar) <= target:
            return t
    return None


def fmt(ts):
    ok = [t for t in ts if t is not None]
    if len(ok) < len(ts) or not ok:
        return f"not reached ({len(ok)}/{len(ts)})", None
    return f"{statistics.median(ok):.3g} s [{min(ok):.3g}-{max(ok):.3g}]", statistics.median(ok)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("ours")
    ap.add_argument("peer")
    ap.add_argument("--target", type=float, default=1e-3)
    ap.add_argument("--peer-primal", action="store_true")
    ap.add_argument("--gap", type=float, help="instead: time to the run's own duality gap <= GAP")
    ap.add_argument("--rel-gap", type=float, help="instead: time to the run's own gap <= REL_GAP x primal")
    ap.add_argument("--load", default="")
    a = ap.parse_args()
    runs = load(a.results)
    for name in (a.ours, a.peer):
        if name not in runs:
            sys.exit(f"ratio.py: no runs of '{name}' in {a.results} (found: {', '.join(runs)})")
    # Each repeat has its own data (split and subsampling follow the repeat's data seed), hence its
    # own optimum: D*, the targets and the peer's reference primal are taken per repeat.
    def repeat_of(r):
        return r.get("repeat", 0)
    dstar = {}
    for rs in runs.values():
        for r in rs:
            ds = [d for d in r["curve"]["dual"] if d is not None]
            if ds:
                dstar[repeat_of(r)] = max(dstar.get(repeat_of(r), -float("inf")), max(ds))
    if a.gap is not None or a.rel_gap is not None:
        def gap_time(run):
            c = run["curve"]
            for g, p, t in zip(c["gap"], c["primal"], c["time"]):
                if g is not None and (g <= a.gap if a.gap is not None else g <= a.rel_gap * abs(p)):
                    return t
            return None
        what = f"a duality gap of {a.gap:g}" if a.gap is not None else f"a duality gap of {a.rel_gap:g} x primal"
        ours, peer = [gap_time(r) for r in runs[a.ours]], [gap_time(r) for r in runs[a.peer]]
    elif a.peer_primal:
        pfinal = {repeat_of(r): r["curve"]["primal"][-1] for r in runs[a.peer]}
        what = f"the primal of {a.peer}'s last restart (per repeat)"
        peer = [r["curve"]["time"][-1] for r in runs[a.peer]]
        ours = []
        for r in runs[a.ours]:
            k = repeat_of(r)
            target = (pfinal[k] - dstar[k]) / abs(dstar[k]) if k in pfinal and k in dstar else -1
            ours.append(time_to(r, dstar.get(k, 1.0), target * (1 + 1e-12)))
    else:
        what = f"{a.target:g} of the optimum"
        peer = [time_to(r, dstar[repeat_of(r)], a.target) for r in runs[a.peer]]
        ours = [time_to(r, dstar[repeat_of(r)], a.target * (1 + 1e-12)) for r in runs[a.ours]]
    so, mo = fmt(ours)
    sp, mp = fmt(peer)
    ratio = f"{mo / mp:.2f}x" if mo and mp else "-"
    rss = lambda rs: f"{statistics.median(r['summary']['peak_rss_bytes'] for r in rs) / 2**20:.0f} MB"
    name = os.path.basename(os.path.normpath(a.results))
    ds = ", ".join(f"{dstar[k]:.8g}" for k in sorted(dstar))
    print(f"{name}: to {what} (D* per repeat: {ds}): {a.peer} {sp}; {a.ours} {so}; "
          f"ratio {ratio}; peak RSS {a.ours} {rss(runs[a.ours])}, {a.peer} {rss(runs[a.peer])}; load {a.load}")


if __name__ == "__main__":
    main()
