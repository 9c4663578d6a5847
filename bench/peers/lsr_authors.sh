#!/usr/bin/env bash
# The Least Squares Revisited authors' MATLAB code (a co-author's public demos: calibrated
# least squares cls.m, multinomial logistic regression by least squares mls.m, stagewise
# regression stagewisemls.m) under GNU Octave, against our calibrated_ls, gls and stagewise on the
# same MNIST split, features and lambda: test error and time side by side, in one command:
#   DUALGAP_DATA=... bench/peers/lsr_authors.sh CHECKOUT [BUILD_DIR [OUT_DIR]]
# CHECKOUT is the user's own clone of github.com/n17s/secondorderdemos (nothing is vendored or
# downloaded here); Octave from Debian (apt-get install octave). Needs the targets dualgap and
# lsr_export and the plugins idx, pca, random_fourier, gls, calibrated_ls, stagewise in BUILD_DIR
# (default: build; cmake -DDUALGAP_BUILD_BENCH=ON, then cmake --build BUILD_DIR --target lsr_export).
# One process at a time, BLAS on one thread for both sides. Debian's Octave uses the reference
# BLAS unless another is installed; for a fair comparison give it OpenBLAS, e.g. by
# apt-get install libopenblas0-serial, or LD_LIBRARY_PATH=<dir of an OpenBLAS libblas.so.3>.
# lsr_authors.m states the mapping
# (feature scale and lambda); the objectives of the linear and logistic fits are evaluated in Octave
# at both sides' solutions, and the script stops if Octave's value at our solution differs from the
# objective our run recorded (the mapping check).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
checkout="$(cd "${1:?usage: lsr_authors.sh CHECKOUT [BUILD_DIR [OUT_DIR]]}" && pwd)"
build="$(cd "${2:-build}" && pwd)"
: "${DUALGAP_DATA:?set DUALGAP_DATA to the shared data folder}"
for f in cls.m mls.m mlsinner.m stagewisemls.m; do
  [ -f "$checkout/$f" ] || { echo "lsr_authors.sh: $checkout/$f not found (a clone of n17s/secondorderdemos?)" >&2; exit 2; }
done
command -v octave >/dev/null || { echo "lsr_authors.sh: octave not found (apt-get install octave)" >&2; exit 2; }
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
if [ -n "${3:-}" ]; then
  mkdir -p "$3" && tmp="$(cd "$3" && pwd)"   # kept: the exported features, the runs, Octave's output
else
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
fi
py=/usr/bin/python3
lambda=$(sed -n 's/^problem: *{lambda: *\([^}]*\)}.*/\1/p' "$here/lsr_authors_rff.yaml")
load_before=$(cut -d' ' -f1 /proc/loadavg)

echo "== exporting the split and features (lsr_export)" >&2
mkdir -p "$tmp/rff" "$tmp/pca" "$tmp/ours"
"$build/bench/lsr_export" "$here/lsr_authors_rff.yaml" "$tmp/rff" >&2
"$build/bench/lsr_export" "$here/lsr_authors_stagewise.yaml" "$tmp/pca" >&2

echo "== dualgap run" >&2
"$build/bin/dualgap" run "$here/lsr_authors_rff.yaml" --out "$tmp/results" --jobs 1 >&2
"$build/bin/dualgap" run "$here/lsr_authors_stagewise.yaml" --out "$tmp/results" --jobs 1 >&2

# The LIBSVM files as raw float64 for Octave, and our final W of the linear and logistic runs.
"$py" - "$tmp" <<'PY'
import json, pathlib, sys
import numpy as np
tmp = pathlib.Path(sys.argv[1])
for part in ("rff", "pca"):
    rows, labels, d = {}, {}, 0
    for split in ("train", "test"):
        lines = (tmp / part / f"{split}.svm").read_text().splitlines()
        ys, entries = [], []
        for line in lines:
            head, *pairs = line.split()
            ys.append(int(head))
            entries.append([(int(k) - 1, float(v)) for k, v in (p.split(":") for p in pairs)])
            d = max([d] + [k + 1 for k, _ in entries[-1]])
        rows[split], labels[split] = entries, ys
    for split in ("train", "test"):
        X = np.zeros((len(rows[split]), d))
        for i, entries in enumerate(rows[split]):
            for k, v in entries:
                X[i, k] = v
        X.tofile(tmp / part / f"{split}.bin")
        np.savetxt(tmp / part / f"{split}.y", labels[split], fmt="%d")
    K = max(labels["train"]) + 1
    (tmp / part / "shape.txt").write_text(f"{len(rows['train'])} {len(rows['test'])} {d} {K}\n")
for run in (tmp / "results").rglob("run.json"):
    r = json.loads(run.read_text())
    if r["experiment"] != "lsr-authors-rff" or r["solver"] not in ("linear", "logistic"):
        continue
    saved = r["iterates"]["saved"][-1]
    W = np.load(run.parent / saved["files"]["W"])
    np.ascontiguousarray(W).tofile(tmp / "ours" / f"{r['solver']}.bin")
PY

echo "== octave: the authors' cls.m, mls.m, stagewisemls.m" >&2
(cd "$tmp" && octave --no-gui --quiet --path "$checkout" "$here/lsr_authors.m" "$tmp" "$lambda") | tee "$tmp/octave.out" >&2
load_after=$(cut -d' ' -f1 /proc/loadavg)

"$py" - "$tmp" "$load_before" "$load_after" <<'PY'
import json, pathlib, sys
tmp, before, after = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
theirs = {}
for line in (tmp / "octave.out").read_text().splitlines():
    if line.startswith("{"):
        o = json.loads(line)
        theirs[o["method"]] = o
ours = {}
for run in (tmp / "results").rglob("run.json"):
    r = json.loads(run.read_text())
    c = r["curve"]
    last = max(i for i, v in enumerate(c["test_error"]) if v is not None)
    ours[r["solver"]] = {"test_error": c["test_error"][last], "time": c["time"][last], "passes": c["passes"][last],
                         "objective": c["primal"][last]}  # the core's objective of the run
# the mapping check: Octave's objective at our W is the objective our run recorded
for m in ("linear", "logistic"):
    rec, oct_ = ours[m]["objective"], theirs[m]["objective_ours"]
    if abs(rec - oct_) > 1e-6 * abs(rec):
        sys.exit(f"mapping check failed for {m}: our run recorded {rec!r}, Octave's formula at our W gives {oct_!r}")
    print(f"mapping check, {m}: objective at our W, recorded {rec:.10g}, Octave {oct_:.10g}; at theirs {theirs[m]['objective_theirs']:.10g}")
print(f"\nOctave {theirs['info']['octave']}, BLAS: {theirs['info']['blas']}")
print(f"1-minute load {before} before, {after} after; one process at a time, BLAS on one thread\n")
names = {"linear": ("ridge least squares (cls.m's first step)", "gls, identity link"),
         "calibrated": ("cls.m (calibrated least squares)", "calibrated_ls, powers 1-3"),
         "logistic": ("mls.m (logistic, least-squares preconditioner)", "gls, softmax link, L 1/2"),
         "stagewise-logistic": ("stagewisemls.m (20 x 2000 features)", "stagewise, logistic fit, 20 x 2000, 8 updates")}
print("| method | authors' code (Octave) | test error | time s | dualgap | test error | solver time s | time ratio (theirs / ours) |")
print("|---|---|---|---|---|---|---|---|")
for m, (tname, oname) in names.items():
    t, o = theirs[m], ours[m]
    print(f"| {m} | {tname} | {100 * t['test_error']:.2f} % | {t['time']:.3g} | {oname} | "
          f"{100 * o['test_error']:.2f} % | {o['time']:.3g} | {t['time'] / o['time']:.2g}x |")
PY
