#!/usr/bin/env bash
# LIBLINEAR's Crammer-Singer multi-class SVM (-s 4) against dualgap's bcfw on USPS, one command.
#
# Same problem: LIBLINEAR minimizes 1/2||w||^2 + C sum_i max_y [1 - [y = y_i] + <w_y - w_{y_i}, x_i>],
# dualgap (SSVM, 0-1 loss) lambda/2||w||^2 + (1/n) sum_i max_y [...]: with C = 1/(lambda n),
# ours = lambda * theirs. LIBLINEAR reports no objective for -s 4, so we read its model file and
# evaluate OUR primal at its w (no bias: -B -1), which also checks the equivalence numerically.
#
# Usage: DUALGAP_DATA=... bench/peers/liblinear_usps.sh [BUILD_DIR] [LAMBDA_TIMES_N]
#   BUILD_DIR defaults to ./build, LAMBDA_TIMES_N (lambda * n) to 1, i.e. lambda = 1/n, C = 1.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
lamn="${2:-1}"
: "${DUALGAP_DATA:?set DUALGAP_DATA to the shared data folder}"
PY=/usr/bin/python3
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# 1. USPS -> LIBSVM format (labels 0..9 kept; features 1-based)
"$PY" - "$DUALGAP_DATA/usps/zip.train.gz" "$tmp/usps.train" <<'PYEOF'
import gzip, sys
with gzip.open(sys.argv[1], 'rt') as f, open(sys.argv[2], 'w') as o:
    for line in f:
        v = line.split()
        if not v: continue
        o.write(str(int(float(v[0]))) + ' ' + ' '.join(f'{j+1}:{x}' for j, x in enumerate(v[1:]) if float(x) != 0) + '\n')
PYEOF
n=$(wc -l < "$tmp/usps.train")
C=$("$PY" -c "print(1.0/$lamn)")
echo "USPS train: n=$n, lambda = $lamn/n, C = 1/(lambda n) = $C"

# 2. LIBLINEAR at its default tolerance (-e 0.1) and at a tight one
for eps in 0.1 0.001; do
  /usr/bin/time -f "%e %M" -o "$tmp/time.$eps" liblinear-train -q -s 4 -c "$C" -e "$eps" "$tmp/usps.train" "$tmp/model.$eps" > /dev/null
done

# 3. dualgap: BCFW, BCFW-avg and BCFW-PW-gap to a gap of 1e-3 x primal
"$build/bin/dualgap" run "$root/experiments/usps-ssvm/experiment.yaml" --set repeats=1 \
  --set "problem.lambda=$lamn/n" --out "$tmp/results" --force > "$tmp/dualgap.log" 2>&1 || { cat "$tmp/dualgap.log"; exit 1; }

# 4. our primal at LIBLINEAR's models, and the side-by-side table
"$PY" - "$DUALGAP_DATA/usps/zip.train.gz" "$tmp" "$lamn" <<'PYEOF'
import gzip, sys, json, glob, os
import numpy as np
train, tmp, lamn = sys.argv[1], sys.argv[2], float(sys.argv[3])
rows = [l.split() for l in gzip.open(train, 'rt') if l.strip()]
y = np.array([int(float(r[0])) for r in rows]); X = np.array([[float(v) for v in r[1:]] for r in rows])
n = len(y); lam = lamn / n
def primal(W):  # W: K x d, rows in label order 0..K-1
    S = X @ W.T
    aug = S + (np.arange(W.shape[0])[None, :] != y[:, None])
    return 0.5 * lam * (W * W).sum() + (aug.max(1) - S[np.arange(n), y]).mean()
def read_model(path):
    lines = open(path).read().split('\n'); labels = None; i = 0
    while not lines[i].startswith('w'):
        if lines[i].startswith('label'): labels = [int(v) for v in lines[i].split()[1:]]
        i += 1
    W = np.array([[float(v) for v in l.split()] for l in lines[i+1:] if l.strip()])  # d x K
    out = np.zeros((max(labels) + 1, W.shape[0])); out[labels, :] = W.T
    return out
print(f"{'method':<26}{'time_s':>9}{'primal (ours, lambda-scaled)':>32}{'peak_rss_MB':>13}")
best = []
for eps in ['0.1', '0.001']:
    t, rss = open(f'{tmp}/time.{eps}').read().split()
    p = primal(read_model(f'{tmp}/model.{eps}')); best.append(p)
    print(f"{'liblinear -s 4 -e ' + eps:<26}{float(t):>9.2f}{p:>32.6f}{int(rss)/1024:>13.1f}")
runs = [(os.path.basename(os.path.dirname(f)), json.load(open(f)))
        for f in sorted(glob.glob(f'{tmp}/results/*/*/run.json'))]
for name, r in runs:
    c = r['curve']; s = r['summary']
    print(f"{'dualgap ' + name:<26}{s['time']:>9.2f}{s['primal']:>32.6f}{s.get('peak_rss_bytes', 0)/2**20:>13.1f}"
          f"   passes {s['passes']:.0f}, gap/primal {s['gap']/s['primal']:.2e}, dual {s['dual']:.6f}, status {r['status']}")
    best += [p for p in c['primal'] if p is not None]
pbest = min(best)
print(f"best primal seen (LIBLINEAR or dualgap): {pbest:.6f}")
print("first checkpoint with primal <= 1.001 x best primal, and with gap <= 1e-3 x primal (solver time, no evaluation):")
for name, r in runs:
    c = r['curve']
    def first(ok):
        for j in range(len(c['passes'])):
            if ok(j): return f"{c['time'][j]:.2f} s / {c['passes'][j]:.0f} passes"
        return "not reached"
    p1 = first(lambda j: c['primal'][j] is not None and c['primal'][j] <= 1.001 * pbest)
    g1 = first(lambda j: c['gap'][j] is not None and c['gap'][j] <= 1e-3 * c['primal'][j])
    print(f"  {name:<16} primal within 0.1 %: {p1:<26} rel. gap 1e-3: {g1}")
print(f"data: X is {n} x {X.shape[1]} doubles = {X.nbytes/2**20:.1f} MB")
PYEOF
