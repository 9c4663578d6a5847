#!/usr/bin/env bash
# LIBLINEAR (-s 0..5) against our least-squares solvers on the same MNIST split and features,
# test error and time side by side, in one command:
#   DUALGAP_DATA=... bench/peers/liblinear_lsr.sh [BUILD_DIR] [extra --set for both YAMLs...]
# Needs the targets dualgap, lsr_export and the plugins idx, pca, random_fourier, random_subset,
# gls, calibrated_ls, stagewise built in BUILD_DIR (default: build).
# LIBLINEAR times are wall times of liblinear-train, which include parsing the LIBSVM file; the
# column "train_s" subtracts the time of a run that stops after its first iteration (-s 1 -e 1e9)
# as an estimate of that loading time. Our times are solver times from run.json (evaluation
# and data loading excluded) and the time of the first checkpoint reaching LIBLINEAR's best
# test error.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:-build}" && pwd)"
shift || true
: "${DUALGAP_DATA:?set DUALGAP_DATA to the shared data folder}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3

echo "== exporting the split and features of liblinear_lsr_mnist.yaml" >&2
"$build/bench/lsr_export" "$here/liblinear_lsr_mnist.yaml" "$tmp" >"$tmp/export.json"
cat "$tmp/export.json" >&2

TIMEFORMAT=%R
: >"$tmp/liblinear.tsv"
{ time liblinear-train -s 1 -e 1e9 -B 1 -q "$tmp/train.svm" "$tmp/model.load" >/dev/null; } 2>"$tmp/load.t"
for s in 0 1 2 3 4 5; do
  echo "== liblinear-train -s $s" >&2
  { time liblinear-train -s "$s" -B 1 -q "$tmp/train.svm" "$tmp/model.$s" >/dev/null; } 2>"$tmp/train.$s.t"
  acc=$(liblinear-predict "$tmp/test.svm" "$tmp/model.$s" "$tmp/pred.$s" | sed -n 's/Accuracy = \([0-9.]*\)%.*/\1/p')
  printf '%s\t%s\t%s\n' "$s" "$(tail -1 "$tmp/train.$s.t")" "$acc" >>"$tmp/liblinear.tsv"
done

echo "== dualgap run (same features, and stagewise RFF from PCA-50)" >&2
"$build/bin/dualgap" run "$here/liblinear_lsr_mnist.yaml" --out "$tmp/results" --force "$@" >&2 ||
  "$build/dualgap" run "$here/liblinear_lsr_mnist.yaml" --out "$tmp/results" --force "$@" >&2
"$build/bin/dualgap" run "$here/liblinear_lsr_stagewise.yaml" --out "$tmp/results" --force "$@" >&2 ||
  "$build/dualgap" run "$here/liblinear_lsr_stagewise.yaml" --out "$tmp/results" --force "$@" >&2

"$py" - "$tmp" <<'PY'
import json, pathlib, sys
tmp = pathlib.Path(sys.argv[1])
names = {0: "L2R logistic (primal)", 1: "L2R L2-loss SVC (dual)", 2: "L2R L2-loss SVC (primal)",
         3: "L2R L1-loss SVC (dual)", 4: "multiclass SVM (Crammer-Singer)", 5: "L1R L2-loss SVC"}
load = float((tmp / "load.t").read_text().split()[-1])
exp = json.loads((tmp / "export.json").read_text())
rows = []
for line in (tmp / "liblinear.tsv").read_text().splitlines():
    s, t, acc = line.split("\t")
    rows.append((int(s), float(t), 1 - float(acc) / 100))
best = min(r[2] for r in rows)
best_train = min(max(r[1] - load, 1e-3) for r in rows if r[2] == best)
print(f"MNIST 70/30 re-split: {exp['train']} train / {exp['test']} test, {exp['features']} features "
      f"(PCA-50 + random Fourier) for LIBLINEAR and the 'same features' rows")
print(f"LIBLINEAR file-loading estimate (-s 1 -e 1e9, one pass): {load:.2f} s; LIBLINEAR runs with C = 1, -B 1\n")
print(f"{'method':44s} {'test err %':>10s} {'wall_s':>8s} {'train_s':>8s} {'t_to_best_s':>11s}")
for s, t, err in rows:
    print(f"{'liblinear -s %d %s' % (s, names[s]):44s} {100*err:10.2f} {t:8.2f} {max(t-load,0):8.2f} {'':>11s}")
for run in sorted((tmp / "results").rglob("run.json")):
    j = json.loads(run.read_text())
    c = j["curve"]
    name = j["config"]["solver"].get("name", run.parent.name)
    te = [x for x in c["test_error"] if x is not None]
    reach = next((t for t, e in zip(c["time"], c["test_error"]) if e is not None and e <= best), None)
    label = f"dualgap {j['experiment'].replace('lsr-peer-mnist-','')}/{name}"
    print(f"{label:44s} {100*te[-1]:10.2f} {'':>8s} {j['summary']['time']:8.2f} "
          f"{('%.2f' % reach) if reach is not None else 'never':>11s}   peak RSS {j['summary']['peak_rss_bytes']/1e6:.0f} MB")
print(f"\nLIBLINEAR best test error {100*best:.2f}% in {best_train:.2f} s (load-corrected).")
print("Times: ours = solver time (data loading, feature chain and checkpoint evaluation excluded);")
print("LIBLINEAR = wall time of liblinear-train minus the loading estimate. Shared machine: noisy.")
PY
