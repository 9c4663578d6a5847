"""Recomputes the recorded primal of every saved iterate of a run from its .npy files and the
LIBSVM data file, with numpy alone (independently of dualgap's C++ code), and prints the largest
relative difference. Used by tests/core/objective_test.cpp.

usage: python3 recompute_primal.py RUN_DIR TRAIN_FILE [TEST_FILE]
With TEST_FILE (ssvm multiclass only) it also prints the test error of the last saved w there.
Families: ssvm with the multiclass oracle (0-1 loss), sparse_multiclass with the multiclass
squared hinge, least_squares square loss (W and intercept, ridge), boosting exp loss.
"""
import json
import sys

import numpy as np


def read_libsvm(path, d):
    ys, rows = [], []
    for line in open(path):
        parts = line.split()
        if not parts:
            continue
        ys.append(int(float(parts[0])))
        x = np.zeros(d)
        for p in parts[1:]:
            j, v = p.split(":")
            x[int(j) - 1] = float(v)
        rows.append(x)
    return np.array(rows), np.array(ys)


def primal(obj, files, run_dir, X, y, K):
    n = X.shape[0]
    fam, loss = obj["family"], obj["loss"]
    if fam == "ssvm":
        lam = obj["lambda"]
        w = np.load(f"{run_dir}/{files['w']}")
        W = w.reshape(K, -1)                        # w[k*d + j]
        S = X @ W.T                                 # n x K scores
        aug = S + (np.arange(K)[None, :] != y[:, None])   # + Delta (0-1 loss)
        hinge = aug.max(axis=1) - S[np.arange(n), y]
        return 0.5 * lam * w @ w + hinge.mean()
    if fam == "sparse_multiclass":
        assert loss == "multiclass_sq_hinge", loss
        lam = obj["lambda"]
        W = np.load(f"{run_dir}/{files['W']}")      # d x K
        S = X @ W
        margins = 1 - (S[np.arange(n), y][:, None] - S)
        margins[np.arange(n), y] = 0
        return (np.maximum(margins, 0) ** 2).sum() / n + lam * np.linalg.norm(W, axis=1).sum()
    if fam == "least_squares":
        assert loss == "square", loss
        W = np.load(f"{run_dir}/{files['W']}")
        b = np.load(f"{run_dir}/{files['intercept']}") if "intercept" in files else np.zeros(K)
        S = X @ W + b
        Y = np.eye(K)[y]
        return 0.5 * ((S - Y) ** 2).sum() / n + 0.5 * obj["ridge"] * ((W ** 2).sum() + (b ** 2).sum())
    if fam == "boosting":
        assert loss == "exp", loss
        alpha = np.load(f"{run_dir}/{files['alpha']}")   # T x K
        stumps = json.load(open(f"{run_dir}/{files['stumps']}"))
        F = np.zeros((n, K))
        for t, s in enumerate(stumps):
            h = s["sign"] * np.where(X[:, s["feature"]] > s["threshold"], 1.0, -1.0)
            F += h[:, None] * alpha[t][None, :]
        p = n * (K - 1)
        E = np.exp(F - F[np.arange(n), y][:, None])
        E[np.arange(n), y] = 0
        return np.abs(alpha).sum() + obj["C"] / p * E.sum()
    raise SystemExit(f"unknown family {fam}")


def main():
    run_dir, train = sys.argv[1], sys.argv[2]
    run = json.load(open(f"{run_dir}/run.json"))
    info = run["data_info"]["train"]
    X, y = read_libsvm(train, info["features"])
    K = info["classes"]
    worst, count = 0.0, 0
    for entry in run["iterates"]["saved"]:
        files = entry["files"]
        recorded = run["curve"]["primal"][entry["row"]]
        mine = primal(run["objective"], files, run_dir, X, y, K)
        worst = max(worst, abs(mine - recorded) / max(abs(recorded), 1e-300))
        count += 1
    line = f"{count} {worst:.3e}"
    if len(sys.argv) > 3:
        Xt, yt = read_libsvm(sys.argv[3], info["features"])
        w = np.load(f"{run_dir}/{run['iterates']['saved'][-1]['files']['w']}")
        pred = (Xt @ w.reshape(K, -1).T).argmax(axis=1)
        line += f" {np.mean(pred != yt):.17g}"
    print(line)


if __name__ == "__main__":
    main()
