#!/usr/bin/env python3
"""Judge `tightpack autoscale` against cluster-autoscaler-reference, scenario by scenario.

usage: autoscale_judge.py SCENARIOS.jsonl TIGHTPACK.out REFERENCE.out --ref BINARY
                          --out DIR --counts FILE

Compares what the shared corpus' compare.py compares (its rules, reimplemented:
per scale-up loop loop, nodeGroup, delta, estimated and the set of pods; the
unhelped set; scale-down unneeded and removable sets and each node's blocked
reason). A scenario where the two differ is re-run through the reference:
  random   the reference gives different answers on repeated runs
           (--repeat 6: cluster-autoscaler walks Go maps) and tightpack's is one of them;
  node-order  the reference gives tightpack's answer once its node list has the
           scenario's order (--compat ordered): CA's round-robin placement
           walks a list in Go-map order, so its answer depends on an order its
           runs did not happen to take; tightpack models that order;
  unexplained  neither: an engine bug or a harness problem, to look at. One the
           reference explains with cluster-autoscaler 1.26's behaviours put back
           (--compat all) says so: the engine follows master, so that is a regression.
Each unexplained scenario is written to DIR/<id>.json, and five of every other
class to DIR/<class>/<id>.json: a corpus line ({"scenario", "expected": the
reference's plain answer, "meta": {..., "class", "difference"}}) that both
programs and compare.py accept. Counts go to FILE as JSON.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_current  # noqa: E402
import differential  # noqa: E402  (one way to name a difference, for both judges)

# What the autoscaler corpus' compare.py judges: one definition, corpus_current's.
view = corpus_current.autoscale_view


def first_difference(exp, act, path="$"):
    return differential.first_difference(act, exp, path, names=("tightpack", "cluster-autoscaler"))


def run_ref(binary, lines, *flags):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for l in lines:
            f.write(l if l.endswith("\n") else l + "\n")
        name = f.name
    try:
        out = subprocess.run([binary, "--jsonl", *flags, name], capture_output=True, text=True)
        return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]
    finally:
        os.unlink(name)


SWITCHES = ["estimate-beyond-max", "independent-scale-down", "system-pods-always-block", "threshold-inclusive"]


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("scenarios")
    ap.add_argument("tightpack")
    ap.add_argument("reference")
    ap.add_argument("--ref", required=True, help="the reference binary, for re-runs")
    ap.add_argument("--out", required=True)
    ap.add_argument("--counts", required=True)
    a = ap.parse_args(argv)
    lines = [l for l in open(a.scenarios) if l.strip()]
    tp = [json.loads(l) for l in open(a.tightpack) if l.strip()]
    ref = [json.loads(l) for l in open(a.reference) if l.strip()]
    counts = {"scenarios": len(lines), "agree": 0, "failed": 0, "random": 0, "node_order": 0, "known": {},
              "as_1_26": {}, "unexplained": 0}
    written = {}
    os.makedirs(a.out, exist_ok=True)

    def write(i, cls, diff, expected):
        line = json.loads(lines[i])
        meta = dict(line.get("meta") or {})
        ident = meta.get("id") or f"line-{i + 1}"
        meta.update({"class": cls, "difference": diff})
        d = a.out if cls == "unexplained" else os.path.join(a.out, cls.replace("/", "_"))
        written[cls] = written.get(cls, 0) + 1
        if cls != "unexplained" and written[cls] > 5:
            return
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, ident + ".json"), "w") as f:
            json.dump({"scenario": line["scenario"], "expected": expected, "meta": meta}, f, separators=(",", ":"))
            f.write("\n")

    differ = []
    for i in range(len(lines)):
        t = tp[i] if i < len(tp) else {"error": "no output line"}
        r = ref[i] if i < len(ref) else {"error": "no output line"}
        if "error" in t or "error" in r:
            counts["failed"] += 1
            write(i, "unexplained", f"error: tightpack {t.get('error')!r}, reference {r.get('error')!r}", r)
            continue
        d = first_difference(view(r), view(t))
        if d is None:
            counts["agree"] += 1
        else:
            differ.append((i, d))
    if differ:
        idx = [i for i, _ in differ]
        rep = run_ref(a.ref, [lines[i] for i in idx], "--repeat", "6")
        ordered = run_ref(a.ref, [lines[i] for i in idx], "--compat", "ordered", "--repeat", "6")
        compat = run_ref(a.ref, [lines[i] for i in idx], "--compat", "all", "--repeat", "6")
        known = []
        for k, (i, d) in enumerate(differ):
            tv = view(tp[i])
            rr = rep[k] if k < len(rep) else {}
            if rr.get("unstable"):
                variants = [view(rr)] + [view(v) for v in rr.get("variants", [])]
                if tv in variants:
                    counts["random"] += 1
                    write(i, "random", d, ref[i])
                    continue
            o = ordered[k] if k < len(ordered) else {}
            if "error" not in o and tv in [view(o)] + [view(v) for v in o.get("variants", [])]:
                counts["node_order"] += 1
                write(i, "node-order", d, ref[i])
                continue
            c = compat[k] if k < len(compat) else {}
            if "error" not in c and tv in [view(c)] + [view(v) for v in c.get("variants", [])]:
                # The engine follows cluster-autoscaler master; agreeing only
                # with 1.26's behaviours is a regression, named by its switch.
                known.append((i, d))
                continue
            counts["unexplained"] += 1
            write(i, "unexplained", d, ref[i])
        if known:
            single = {s: run_ref(a.ref, [lines[i] for i, _ in known], "--compat", s, "--repeat", "2") for s in SWITCHES}

            def explains(res, tv):
                return "error" not in res and tv in [view(res)] + [view(v) for v in res.get("variants", [])]
            for k, (i, d) in enumerate(known):
                tv = view(tp[i])
                label = next((s for s in SWITCHES if k < len(single[s]) and explains(single[s][k], tv)), "combined")
                counts["unexplained"] += 1
                counts["as_1_26"][label] = counts["as_1_26"].get(label, 0) + 1
                write(i, "unexplained", f"answers as cluster-autoscaler 1.26 ({label}): {d}", ref[i])
    with open(a.counts, "w") as f:
        json.dump(counts, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
