#!/usr/bin/python3
"""Fig. 5 / Table 2 of Blondel et al. 2013 from run.json files: per loss and solver, the final
test accuracy and percentage of non-zero rows for each lambda (Fig. 5 as a table, and a PNG when
matplotlib is available), and the training time min / median / max over the lambdas (Table 2).
Usage: /usr/bin/python3 summarize.py RESULTS_DIR [--figure out.png]"""
import json, pathlib, statistics, sys

root = pathlib.Path(sys.argv[1])
rows = {}
curves = {}  # (loss, solver, lambda) -> (time, test_accuracy)
for p in root.rglob("run.json"):
    r = json.loads(p.read_text())
    cfg = r.get("config", {})
    loss = cfg.get("oracle", {}).get("plugin", "?")
    solver = cfg.get("solver", {}).get("name") or r.get("run_id", "?").split("__")[0]
    lam = cfg.get("problem", {}).get("lambda")
    c, s = r["curve"], r["summary"]
    last = lambda k: next((v for v in reversed(c.get(k, [])) if v is not None), None)
    rows.setdefault((loss, solver), []).append(
        (lam, last("test_accuracy"), last("nnz_rows"), s.get("time"), s.get("passes"), r.get("status")))
    curves[(loss, solver, lam)] = (c.get("time", []), c.get("test_accuracy", []))

print(f"{'loss':22s} {'solver':8s} {'lambda':>9s} {'acc%':>6s} {'nnz%':>6s} {'time_s':>8s} {'iters':>5s} status")
for key in sorted(rows):
    for lam, acc, nnz, t, it, st in sorted(rows[key], key=lambda x: -(x[0] or 0)):
        print(f"{key[0]:22s} {key[1]:8s} {lam:9.3g} {100*(acc or 0):6.2f} {nnz or 0:6.2f} {t or 0:8.3f} {it or 0:5.0f} {st}")
print()
print("Table 2: training time (s) over the lambdas")
print(f"{'loss':22s} {'solver':8s} {'min':>8s} {'median':>8s} {'max':>8s}")
for key in sorted(rows):
    ts = [x[3] for x in rows[key] if x[3] is not None]
    if ts:
        print(f"{key[0]:22s} {key[1]:8s} {min(ts):8.3f} {statistics.median(ts):8.3f} {max(ts):8.3f}")


def first_time(curve, target):
    """Solver time of the first checkpoint whose test accuracy is >= target (None: never)."""
    return next((t for t, a in zip(*curve) if t is not None and a is not None and a >= target), None)

# Time to comparable accuracy, squared hinge against logistic, across the lambda grid (each
# loss at its own best lambdas: the losses' scales differ, so equal lambdas are not comparable
# models). Target = the lower of the two losses' best final accuracies; each loss's time = the
# shortest, over its lambdas, solver time to the first checkpoint at or above the target.
hinge = [k for k in rows if k[0] == "multiclass_sq_hinge"]
logi = [k for k in rows if k[0] == "multiclass_logistic"]
if hinge and logi:
    print()
    print("Across lambdas: fastest time to the lower of the two best accuracies")
    print(f"{'sq.hinge':8s} {'logistic':8s} {'best_h%':>7s} {'best_l%':>7s} {'target%':>7s} "
          f"{'t_hinge':>8s} {'lambda_h':>9s} {'t_logistic':>10s} {'lambda_l':>9s} {'ratio':>6s}")
    def fastest(key, target):
        best = None
        for lam, *_ in rows[key]:
            t = first_time(curves[(key[0], key[1], lam)], target)
            if t is not None and (best is None or t < best[0]):
                best = (t, lam)
        return best
    for h in hinge:
        for g in logi:
            bh = max((x[1] for x in rows[h] if x[1] is not None), default=None)
            bg = max((x[1] for x in rows[g] if x[1] is not None), default=None)
            if bh is None or bg is None:
                continue
            target = min(bh, bg)
            fh, fg = fastest(h, target), fastest(g, target)
            ratio = f"{fg[0] / fh[0]:6.1f}" if fh and fg and fh[0] > 0 else "     -"
            fmt = lambda f: (f"{f[0]:8.3f}", f"{f[1]:9.3g}") if f else ("       -", "        -")
            (th, lh), (tg, lg) = fmt(fh), fmt(fg)
            print(f"{h[1]:8s} {g[1]:8s} {100 * bh:7.2f} {100 * bg:7.2f} {100 * target:7.2f} {th} {lh} {tg:>10s} {lg} {ratio}")

if "--figure" in sys.argv:
    out = sys.argv[sys.argv.index("--figure") + 1]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5, 4))
    for key in sorted(rows):
        pts = sorted((x[2], 100 * x[1]) for x in rows[key] if x[1] is not None and x[2] is not None)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{key[0]} ({key[1]})")
    ax.set_xlabel("non-zero rows (%)")
    ax.set_ylabel("test accuracy (%)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out)
    print("figure:", out)
