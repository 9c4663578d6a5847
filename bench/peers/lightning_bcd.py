#!/usr/bin/python3
"""lightning's CDClassifier (the BCD paper's reference implementation) against dualgap's BCD-LS on
sector: time to relative objective 1e-1, 1e-2, 1e-3 side by side, on the same data, objective and
lambda, one process at a time.

    /usr/bin/python3 bench/peers/lightning_bcd.py LIGHTNING_CHECKOUT [--dualgap build/bin/dualgap]
        [--lambda 1e-3] [--budget 120] [--repeats 3] [--out DIR]

LIGHTNING_CHECKOUT is the user's own clone of scikit-learn-contrib/lightning, built in place
(Debian: apt-get install python3-sklearn cython3 python3-numpy python3-scipy; then in the clone
`python3 setup.py build_ext -i`). Nothing is downloaded or vendored here. DUALGAP_DATA must hold
sector/ (`dualgap data fetch sector`).

The objective. Ours (plugins/oracle/multiclass_sq_hinge, l1/l2 penalty):
    F(W) = (1/n) sum_i sum_{r != y_i} max(0, 1 - (W_:y_i - W_:r) . x_i)^2 + lambda sum_j ||W_j:||_2
lightning's: C sum_i sum_{r != y_i} max(0, ...)^2 + alpha sum_j ||W_j:||_2, which is s F(W) with
C = s / n, alpha = s lambda. s = n (C = 1): lightning clamps a block's curvature from below at
1e-2, so with C = 1/n (s = 1) its steps are too short and it stalls. tol stays positive: with
tol = 0 its shrinking never restores the shrunk features and it stops short of the optimum.
The mapping is checked before anything is timed: our formula, written out here in numpy, gives
dualgap's recorded final primal at dualgap's saved final W, and lightning's formula gives n times
it at the same W; the script stops if either differs by more than 1e-9 relative.

Timing. Ours: solver time of each checkpoint (evaluation excluded), from run.json. lightning's:
its fit() is timed from its first coordinate step (the data's conversion to its column format
excluded, as our CSC copy is), with the objective evaluated in its callback once per outer
iteration and the callback's own time subtracted. F* is the lowest objective any run of either
reached; a level is reached at the first point with (F - F*) / F* <= eps.
"""
import argparse
import json
import math
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp


def our_objective(X, y, W, lam):
    """F(W) with W of shape (d, K), y in 0..K-1, X csr (n, d): lightning's objective with C = 1/n,
    alpha = lambda (one hinge formula for both)."""
    return lightning_objective(X, y, W.T, 1.0 / X.shape[0], lam)


def lightning_objective(X, y, coef, C, alpha):
    """lightning's C L + alpha R, coef of shape (K, d) as CDClassifier holds it."""
    S = np.asarray(X @ coef.T)
    n = X.shape[0]
    A = 1.0 - S[np.arange(n), y][:, None] + S
    A[np.arange(n), y] = 0.0
    return float(C * (np.maximum(A, 0.0) ** 2).sum() + alpha * np.linalg.norm(coef, axis=0).sum())


def first_reach(times, values, fstar, eps):
    for t, v in zip(times, values):
        if (v - fstar) / fstar <= eps:
            return t
    return math.inf


def median_range(xs):
    finite = [x for x in xs if math.isfinite(x)]
    reached = f"{len(finite)}/{len(xs)}"
    if len(finite) * 2 <= len(xs):
        return f"not reached ({reached})", math.inf
    med = statistics.median(xs)
    lo, hi = min(xs), max(xs)
    fmt = lambda v: f"{v:.3g}" if math.isfinite(v) else "inf"
    return f"{fmt(med)} [{fmt(lo)}, {fmt(hi)}] {reached}", med


def run_ours(args, out):
    yaml = out / "bcd-sector.yaml"
    yaml.write_text(
        "name: lightning-peer-bcd\n"
        "data:     {plugin: libsvm, train: ${DUALGAP_DATA}/sector/sector.scale.bz2}\n"
        "oracle:   {plugin: multiclass_sq_hinge}\n"
        f"problem:  {{lambda: {args.lam!r}}}\n"
        "solvers:\n"
        "  - {name: BCD-LS, plugin: bcd, params: {variant: line_search, tau: 0, max_outer: 0}}\n"
        f"stop:     {{max_passes: 1000000, max_time: {args.budget}}}\n"
        "record:   {geometric: 1.2, every_time: 2, iterates: final}\n"
        f"repeats:  {args.repeats}\n"
        "seed:     0\n")
    subprocess.run([args.dualgap, "run", str(yaml), "--out", str(out / "runs"), "--jobs", "1"], check=True,
                   stdout=sys.stderr)
    runs = []
    for path in sorted((out / "runs").rglob("run.json")):
        r = json.loads(path.read_text())
        runs.append((path.parent, r))
    return runs


def load_sector(info):
    """sector's training file as dualgap read it: its number of features, and the labels mapped
    to the class indices of dualgap's label_map (the columns of its W)."""
    from sklearn.datasets import load_svmlight_file
    X, labels = load_svmlight_file(os.path.join(os.environ["DUALGAP_DATA"], "sector", "sector.scale.bz2"),
                                   n_features=info["train"]["features"], zero_based=False)
    index = {name: k for k, name in enumerate(info["source"]["label_map"])}
    y = np.array([index[f"{l:g}"] for l in labels], dtype=np.int64)
    return sp.csr_matrix(X), y, len(index)


def check_mapping(X, y, runs, lam):
    folder, r = runs[0]
    saved = r["iterates"]["saved"][-1]
    W = np.load(folder / saved["files"]["W"])
    row = saved["row"]
    recorded = r["curve"]["primal"][row]
    ours = our_objective(X, y, W, lam)
    n = X.shape[0]
    theirs = lightning_objective(X, y, W.T, 1.0, n * lam)
    print(f"mapping check at dualgap's final W (row {row}): recorded primal {recorded:.12g}, "
          f"our formula {ours:.12g}, lightning's formula / n {theirs / n:.12g}", file=sys.stderr)
    for name, v in (("our formula", ours), ("lightning's formula / n", theirs / n)):
        if abs(v - recorded) > 1e-9 * abs(recorded):
            sys.exit(f"mapping check failed: {name} {v!r} against dualgap's recorded primal {recorded!r}")


def run_lightning(X, y, lam, budget, seed):
    from lightning.classification import CDClassifier
    n = X.shape[0]
    Xc = sp.csc_matrix(X)
    trace = {"t": [], "f": []}
    clock = {"start": None, "excluded": 0.0}

    class Budget(Exception):
        pass

    def callback(clf):
        entered = time.perf_counter()
        if clock["start"] is None:
            clock["start"] = entered
        elapsed = entered - clock["start"] - clock["excluded"]
        trace["t"].append(elapsed)
        trace["f"].append(lightning_objective(X, y, clf.coef_, 1.0, n * lam) / n)
        clock["excluded"] += time.perf_counter() - entered
        return True if elapsed > budget else None

    clf = CDClassifier(penalty="l1/l2", loss="squared_hinge", multiclass=True, C=1.0, alpha=n * lam,
                       max_iter=100000, tol=1e-6, n_calls=10 ** 9, callback=callback, random_state=seed)
    started = time.perf_counter()
    clf.fit(Xc, y)
    end = time.perf_counter()
    # the point at the end of fit, after the last outer iteration
    trace["t"].append(end - clock["start"] - clock["excluded"])
    trace["f"].append(lightning_objective(X, y, clf.coef_, 1.0, n * lam) / n)
    return trace, end - started - clock["excluded"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lightning", help="a built checkout of scikit-learn-contrib/lightning")
    ap.add_argument("--dualgap", default="build/bin/dualgap")
    ap.add_argument("--lambda", dest="lam", type=float, default=1e-3)
    ap.add_argument("--budget", type=float, default=120.0, help="seconds per run, both sides")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", help="keep the runs here (default: a temporary folder)")
    args = ap.parse_args()
    if "DUALGAP_DATA" not in os.environ:
        sys.exit("set DUALGAP_DATA to the data folder (dualgap data fetch sector)")
    sys.path.insert(0, os.path.abspath(args.lightning))
    try:
        import lightning.classification  # noqa: F401
    except ImportError as e:
        sys.exit(f"cannot import lightning from {args.lightning}: {e}\n"
                 "build it in place first: apt-get install python3-sklearn cython3 python3-numpy python3-scipy; "
                 f"cd {args.lightning} && python3 setup.py build_ext -i")
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="lightning-peer-"))
    out.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]

    runs = run_ours(args, out)
    X, y, K = load_sector(runs[0][1]["data_info"])
    check_mapping(X, y, runs, args.lam)

    theirs = []
    for r in range(args.repeats):
        print(f"lightning CDClassifier, repeat {r}", file=sys.stderr)
        theirs.append(run_lightning(X, y, args.lam, args.budget, r))
    load_after = os.getloadavg()[0]
    (out / "lightning_traces.json").write_text(json.dumps([t for t, _ in theirs]))

    ours = [(r["curve"]["time"], r["curve"]["primal"]) for _, r in runs]
    fstar = min(min(v for v in f if v is not None) for _, f in ours)
    fstar = min(fstar, min(min(t["f"]) for t, _ in theirs))
    print(f"sector: n {X.shape[0]}, d {X.shape[1]}, K {K}, lambda {args.lam:g}; F* = {fstar:.10g} "
          f"(the lowest objective of any run); budget {args.budget:g} s per run, {args.repeats} repeats each, "
          f"one process at a time; 1-minute load {load:.2f} before, {load_after:.2f} after")
    print("lightning: CDClassifier(penalty='l1/l2', loss='squared_hinge', multiclass=True, C=1, "
          f"alpha=n lambda={X.shape[0] * args.lam:g}, tol=1e-6); ours: bcd variant line_search\n")
    print("| relative objective | BCD-LS (dualgap) s | lightning CDClassifier s | lightning / ours |")
    print("|---|---|---|---|")
    for eps in (1e-1, 1e-2, 1e-3):
        a_text, a = median_range([first_reach(t, f, fstar, eps) for t, f in ours])
        b_text, b = median_range([first_reach(t["t"], t["f"], fstar, eps) for t, _ in theirs])
        ratio = f"{b / a:.2g}x" if math.isfinite(a) and math.isfinite(b) and a > 0 else "-"
        print(f"| {eps:g} | {a_text} | {b_text} | {ratio} |")
    print()
    for r, (t, fit_time) in enumerate(theirs):
        why = "its budget" if t["t"][-2] > args.budget else "its own rule (tol)"
        print(f"lightning repeat {r}: fit ended at {t['t'][-1]:.3g} s (stopped by {why}), relative objective "
              f"{(t['f'][-1] - fstar) / fstar:.3g}")


if __name__ == "__main__":
    main()
