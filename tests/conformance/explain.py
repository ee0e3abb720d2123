#!/usr/bin/env python3
"""Replay one scenario through tightpack and kube-scheduler-reference and show where they differ.

usage: explain.py FILE [--tightpack BIN] [--reference BIN]

FILE: a scenario, a corpus line, or a disagreement file of differential.sh.
Prints the first difference against the plain reference (kube-scheduler
v1.37.2) and against the reference with the 1.26 behaviours put back
(--compat all), with the switches that changed something.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from differential import compare  # noqa: E402

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--tightpack", default=os.path.join(root, "build/release/scheduler/tightpack"))
    ap.add_argument("--reference", default=os.path.join(root, "build/conformance/kube-scheduler-reference"))
    a = ap.parse_args(argv)

    def run(*cmd):
        return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)

    tp = run(a.tightpack, "replay", a.file)
    ref = run(a.reference, a.file)
    comp = run(a.reference, "--compat", "all", a.file)
    print("against kube-scheduler v1.37.2:      ", compare(tp, ref) or "agree")
    print("with the 1.26 behaviours put back:   ", compare(tp, comp) or "agree",
          "(switches:", ", ".join(comp.get("compat") or []) or "none", ")")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
