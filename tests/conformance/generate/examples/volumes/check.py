#!/usr/bin/env python3
"""The hand-checked volume scenarios of this folder, run through kube-scheduler-reference.

usage: check.py [--reference BIN] [--record] [--compat LIST]

Each NN-*.json is a corpus line: "scenario", "meta" ("what" says what it
shows) and "expected", the reference's (v1.37.2) results, read against
kube-scheduler's sources when recorded (README.md). One reference process
decides every scenario three times: in order, in order again, and in reverse
order. Each scenario must get the same results all three times (nothing a
scenario's Reserve assumed may leak into the next, since the reference reuses
one framework per configuration) and, unless --record, its "expected" ones.
--record writes the first answers into "expected". Exit status 1 on a
difference or when the reference fails.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", "..", ".."))


def first_difference(a, b, path=""):
    if type(a) is not type(b):
        return f"{path}: {json.dumps(a)} != {json.dumps(b)}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: {json.dumps(a.get(k))} != {json.dumps(b.get(k))}"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else f"{path}: {json.dumps(a)} != {json.dumps(b)}"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reference", default=os.path.join(ROOT, "build", "conformance", "kube-scheduler-reference"))
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--compat", default="")
    a = ap.parse_args(argv)
    files = sorted(glob.glob(os.path.join(HERE, "[0-9]*.json")))
    docs = [json.load(open(f)) for f in files]
    order = list(range(len(docs))) * 2 + list(reversed(range(len(docs))))
    lines = "".join(json.dumps({"scenario": docs[i]["scenario"]}) + "\n" for i in order)
    cmd = [a.reference, "--jsonl"] + (["--compat", a.compat] if a.compat else [])
    run = subprocess.run(cmd, input=lines, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        return 1
    answers = {}
    for i, line in zip(order, run.stdout.splitlines()):
        answers.setdefault(i, []).append(json.loads(line))
    bad = 0
    differing = set()
    for i, f in enumerate(files):
        name = os.path.basename(f)
        got = answers.get(i, [])
        if len(got) != 3 or any("error" in g for g in got):
            print(f"{name}: the reference failed: {[g.get('error') for g in got]}")
            bad += 1
            differing.add(i)
            continue
        results = [g.get("results") for g in got]
        for k, label in ((1, "second run"), (2, "reverse-order run")):
            d = first_difference(results[0], results[k], "results")
            if d:
                print(f"{name}: {label} differs from the first: {d}")
                bad += 1
                differing.add(i)
        if a.record:
            docs[i]["expected"] = {"results": results[0]}
            with open(f, "w") as out:
                json.dump(docs[i], out, indent=1)
                out.write("\n")
            continue
        d = first_difference(docs[i].get("expected", {}).get("results"), results[0], "results")
        if d:
            print(f"{name}: expected {d}")
            bad += 1
            differing.add(i)
    verdict = "recorded" if a.record else "agree"
    print(f"volumes: {len(files)} scenarios, each decided 3 times in one process: "
          f"{len(files) - len(differing)} {verdict}, {len(differing)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
