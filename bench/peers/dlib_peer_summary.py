#!/usr/bin/env python3
"""Side-by-side summary of a dlib peer script (dlib_ocr.sh, dlib_horse.sh): for every dlib
training (one JSON line per eps in OUT/dlib.jsonl: eps, primal = OUR primal at dlib's w, time_s)
and every dualgap run under OUT/res, the solver time (evaluation excluded) at which the run
first reaches dlib's primal, and the ratio to dlib's time.
Usage: dlib_peer_summary.py OUT"""
import glob, json, os, sys

out = sys.argv[1]
dlib = [json.loads(l) for l in open(os.path.join(out, "dlib.jsonl")) if l.strip()]
print("\n%-10s %-10s %12s %14s %10s" % ("dlib eps", "primal", "dlib time s", "dualgap solver", "time s"))
for run in sorted(glob.glob(os.path.join(out, "res", "*", "*", "run.json"))):
    r = json.load(open(run)); c = r["curve"]; name = os.path.basename(os.path.dirname(run))
    for d in dlib:
        t = next((c["time"][k] for k in range(len(c["time"]))
                  if c["primal"][k] is not None and c["primal"][k] <= d["primal"]), None)
        ratio = "" if t is None else "  (%.3fx dlib)" % (t / d["time_s"])
        print("%-10g %-10.4f %12.2f %14s %10s%s" % (d["eps"], d["primal"], d["time_s"], name,
              "not reached" if t is None else "%.2f" % t, ratio))
    tr = r.get("data_info", {}).get("train", {})
    if tr:
        print("  %s: data %s examples, %s units, %s features" %
              (name, tr.get("examples"), tr.get("units"), tr.get("features")))
    s = r["summary"]
    dual = s.get("dual")
    print("  %s: status %s, final primal %.4f, dual %s after %.1f s, %d exact oracle calls" %
          (name, r["status"], s["primal"], "-" if dual is None else "%.4f" % dual, s["time"], s["oracle_calls"]))
