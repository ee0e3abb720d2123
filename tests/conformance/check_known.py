#!/usr/bin/env python3
"""Check that each scenario of tests/conformance/known/ still shows its class.

usage: check_known.py KNOWN.jsonl TIGHTPACK REFERENCE REFERENCE_COMPAT [--reference BIN]

For each scenario (meta.class names a --compat switch of kube-scheduler-reference,
one of the upstream defects in known/defects that the engine does not copy):
tightpack must disagree with the plain reference, agree with the reference with
every defect corrected (REFERENCE_COMPAT), and (with --reference) disagree again
when that one correction is off: the class is what separates the engine from
kube-scheduler there. A scenario on which tightpack now agrees with the plain
reference means the engine copies the behaviour now, or upstream fixed it: its
file and its paragraph in known/README.md and docs/conformance.md can go.
Exit status 1 when a scenario fits none of these.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from differential import compare  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "known", "defects")) as f:
    SWITCHES = f.read().strip().split(",")


def main(argv):
    ref_bin = None
    if "--reference" in argv:
        i = argv.index("--reference")
        ref_bin = argv[i + 1]
        del argv[i:i + 2]
    files = [open(f) for f in argv[:4]]
    bad = resolved = 0
    for line, tp, ref, comp in zip(*files):
        scen = json.loads(line)
        tp, ref, comp = json.loads(tp), json.loads(ref), json.loads(comp)
        cls = scen["meta"]["class"]
        if compare(tp, ref) is None:
            print(f"known {cls}: RESOLVED: tightpack now decides as kube-scheduler does")
            resolved += 1
            continue
        diff = compare(tp, comp)
        if diff is not None:
            print(f"known {cls}: tightpack differs from kube-scheduler with its defects corrected: {diff}")
            bad += 1
            continue
        if ref_bin:
            others = ",".join(s for s in SWITCHES if s != cls)
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                f.write(line)
            try:
                out = subprocess.run([ref_bin, "--compat", others, f.name], capture_output=True, text=True, check=True).stdout
            finally:
                os.unlink(f.name)
            if compare(tp, json.loads(out)) is None:
                print(f"known {cls}: the scenario no longer needs its switch")
                bad += 1
                continue
        print(f"known {cls}: still differs, as documented ({compare(tp, ref)[:160]})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
