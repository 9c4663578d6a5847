#!/usr/bin/python3
"""Why BCD-CST lags BCD-LS on objective (2) (README, "Why BCD-CST lags"): the block step sizes.
On MNIST (t10k, a stratified 70 % sample, pixels / 255, as mnist.yaml; the sample is this
script's own, not the runs' split) it prints, over the non-empty columns j:
  * K_j / exact: K_j = 4(K-1)/n sum_i x_ij^2 (the paper's Appendix A and lightning's constant)
    against the exact block Lipschitz constant lambda_max(H_j), H_j the block Hessian with every
    margin active;
  * K_j / ||h_j||_inf: against the line-search variant's L_j, at W = 0 and at the iterates of a
    cyclic BCD-LS (over its non-zero rows);
and the objective per pass of BCD-LS, BCD-CST with K_j and BCD-CST with the exact constant
(lambda = 1e-3; the same Algorithms 1-3, written out in numpy apart from the C++ plugin).
With --sector, the W = 0 ratios on sector's training file instead.
Usage: DUALGAP_DATA=... /usr/bin/python3 cst_steps.py [PASSES=100] [--sector]   (numpy; minutes)"""
import bz2, gzip, os, sys
import numpy as np

data = os.environ.get("DUALGAP_DATA")
if not data:
    sys.exit("cst_steps.py: set DUALGAP_DATA to the data folder (docs/data.md)")
args = [a for a in sys.argv[1:] if not a.startswith("--")]
passes = int(args[0]) if args else 100
lam = 1e-3


def q(a):
    return "median %.3g [p10 %.3g, p90 %.3g], min %.3g, max %.3g" % (
        np.median(a), *np.percentile(a, [10, 90]), a.min(), a.max())


def constants(m, n):
    """m[j, c] = sum_{i: y_i = c} x_ij^2. Returns K_j, ||h_j(0)||_inf and the exact constant."""
    d, K = m.shape
    tot = m.sum(1)
    Kj = 4 * (K - 1) / n * tot
    h0 = 2 / n * ((K - 1) * m + (tot[:, None] - m)).max(1)
    exact = np.zeros(d)
    for j in np.nonzero(tot)[0]:
        # H_j = (2/n) sum_c m_c sum_{r != c} (e_c - e_r)(e_c - e_r)^T: a complete graph's
        # Laplacian with edge weights m_c + m_r.
        w = m[j][:, None] + m[j][None, :]
        np.fill_diagonal(w, 0)
        exact[j] = 2 / n * np.linalg.eigvalsh(np.diag(w.sum(1)) - w)[-1]
    return Kj, h0, exact


if "--sector" in sys.argv:
    ys, feats = [], []
    with bz2.open(f"{data}/sector/sector.scale.bz2", "rt") as f:
        for line in f:
            p = line.split()
            ys.append(int(p[0]))
            feats.append([(int(a) - 1, float(b)) for a, b in (t.split(":") for t in p[1:])])
    labels = {l: k for k, l in enumerate(sorted(set(ys)))}
    n, K = len(ys), len(labels)
    m = np.zeros((1 + max(j for fs in feats for j, _ in fs), K))
    for yv, fs in zip(ys, feats):
        for j, v in fs:
            m[j, labels[yv]] += v * v
    Kj, h0, exact = constants(m, n)
    nz = Kj > 0
    print(f"sector: n {n}, d {m.shape[0]}, K {K}, non-empty columns {nz.sum()}")
    print("K_j / exact constant           ", q(Kj[nz] / exact[nz]))
    print("K_j / ||h_j(0)||_inf           ", q(Kj[nz] / h0[nz]))
    print("classes with mass per column   ", q((m[nz] > 0).sum(1).astype(float)))
    sys.exit(0)

rng = np.random.default_rng(0)
with gzip.open(f"{data}/mnist/t10k-images-idx3-ubyte.gz") as f:
    X = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784).astype(float) / 255
with gzip.open(f"{data}/mnist/t10k-labels-idx1-ubyte.gz") as f:
    y = np.frombuffer(f.read(), np.uint8, offset=8).astype(int)
keep = np.concatenate([rng.permutation(np.nonzero(y == c)[0])[:round(0.7 * (y == c).sum())] for c in range(10)])
X, y = X[keep], y[keep]
(n, d), K = X.shape, 10
Kj, h0, exact = constants((X ** 2).T @ np.eye(K)[y], n)
nz = Kj > 0
print(f"MNIST sample: n {n}, d {d}, K {K}, non-empty columns {nz.sum()}")
print("K_j / exact constant           ", q(Kj[nz] / exact[nz]))
print("K_j / ||h_j(0)||_inf           ", q(Kj[nz] / h0[nz]))

cols = [(np.nonzero(X[:, j])[0], X[np.nonzero(X[:, j])[0], j]) for j in range(d)]


def row_loss(s, yi):
    A = 1 - s[np.arange(len(yi)), yi][:, None] + s
    A[np.arange(len(yi)), yi] = 0
    return (np.maximum(A, 0) ** 2).sum() / n


def block(S, j):
    """Algorithm 3: G_j and h_j of eq. (5), (6)."""
    i, x = cols[j]
    s, yi = S[i], y[i]
    A = 1 - s[np.arange(len(i)), yi][:, None] + s
    A[np.arange(len(i)), yi] = 0
    P, act = np.maximum(A, 0), (A > 0).astype(float)
    G = x @ P
    np.add.at(G, yi, -x * P.sum(1))
    h = (x ** 2) @ act
    np.add.at(h, yi, x ** 2 * act.sum(1))
    return 2 / n * G, 2 / n * h, i, x


def run(line_search, const=None, report=False):
    """Algorithm 1 with Algorithm 2; returns F after each pass."""
    rs = np.random.default_rng(1)
    W, S, out = np.zeros((d, K)), np.zeros((n, K)), []
    for p in range(passes):
        ratios = []
        for t in range(d):
            j = t if line_search else rs.integers(d)
            if not nz[j]:
                continue
            G, h, i, x = block(S, j)
            if report and W[j].any():
                ratios.append(Kj[j] / max(h.max(), 1e-12))
            L = max(h.max(), 1e-12) if line_search else const[j]
            V = W[j] - G / L
            nv = np.linalg.norm(V)
            delta = (max(1 - lam / L / nv, 0) * V if nv > 0 else V) - W[j]
            if not delta.any():
                continue
            a = 1.0
            if line_search:  # Armijo rule (7), sigma 0.01, omega 0.5
                s0, wn = S[i], np.linalg.norm(W[j])
                l0 = row_loss(s0, y[i])
                dec = G @ delta + lam * (np.linalg.norm(W[j] + delta) - wn)
                while a > 1e-9 and row_loss(s0 + a * np.outer(x, delta), y[i]) - l0 + lam * (
                        np.linalg.norm(W[j] + a * delta) - wn) > 0.01 * a * dec:
                    a *= 0.5
            S[i] += a * np.outer(x, delta)
            W[j] += a * delta
        A = 1 - S[np.arange(n), y][:, None] + S
        A[np.arange(n), y] = 0
        out.append((np.maximum(A, 0) ** 2).sum() / n + lam * np.linalg.norm(W, axis=1).sum())
        if report and ratios and (p + 1) in (1, 2, 5, 10, 20, 50, 100, 200, 500):
            print(f"BCD-LS pass {p + 1}: K_j / ||h_j||_inf over non-zero rows:", q(np.array(ratios)), flush=True)
    return out


ls = run(True, report=True)
cst = run(False, Kj)
cst_exact = run(False, exact)
print("pass   F: BCD-LS   BCD-CST (K_j)   BCD-CST (exact constant)")
for p in (1, 2, 5, 10, 20, 50, 100, 200, 500):
    if p <= passes:
        print(f"{p:4d}   {ls[p - 1]:.5f}   {cst[p - 1]:.5f}         {cst_exact[p - 1]:.5f}")
