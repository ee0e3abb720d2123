#!/usr/bin/env python3
"""kube-scheduler-reference-v1.30.14 against the corpus' 1.26 answers or another release's reference.

usage: compare.py FILE... [--against expected|RELEASE] [--compat LIST] [--against-compat LIST] [--show N]

FILE: corpus lines or generated scenarios (generate.py). Each scenario's
profile gets "release": "v1.30" (and the other release's, for it), as
differential.sh writes it. --against expected (the default) judges the
v1.30.14 answers against the file's own "expected" (the shared corpus: 1.26);
--against v1.36.3 runs build/conformance/kube-scheduler-reference-v1.36.3 on
the same scenarios. --compat and --against-compat are passed to the two
references. Per file: how many scenarios differ, the kinds of difference on
the first differing pod of each (with up to N examples, "index:id:podJ"), and
how many scenarios show each kind on any pod. A pod placed elsewhere makes the
later pods of its scenario differ too: their kinds are counted apart ("after a
different placement").
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".."))
BIN = os.path.join(ROOT, "build", "conformance", "kube-scheduler-reference-")


def with_release(lines, release):
    out = []
    for line in lines:
        d = json.loads(line)
        s = d.get("scenario", d)
        p = s.get("profile", "default")
        s["profile"] = dict(p, release=release) if isinstance(p, dict) else {"name": p, "release": release}
        out.append(json.dumps(d) + "\n")
    return out


def run(binary, lines, compat):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as f:
        f.writelines(lines)
        f.flush()
        cmd = [binary, "--jsonl"] + (["--compat", compat] if compat else []) + [f.name]
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return [json.loads(l) for l in r.stdout.splitlines() if l.strip()]


def hist(m, part):
    """reason -> count in the message's filter part (0) or preemption part (1)."""
    parts = m.split(" preemption: ")
    if part >= len(parts):
        return {}
    out = {}
    for e in re.sub(r"^0/\d+ nodes are available: ", "", parts[part]).split(", "):
        e = e.strip().rstrip(".")
        mm = re.match(r"^(\d+) (.*)$", e)
        key = re.sub(r"\{[^}]*\}", "{…}", mm.group(2) if mm else e)
        out[key] = out.get(key, 0) + (int(mm.group(1)) if mm else 1)
    return out


def message_kinds(a, b):
    a, b = a or "", b or ""
    if a == b:
        return []
    kinds = []
    if a.endswith("..") != b.endswith(".."):
        kinds.append("second period")
    for name, text in (("taint named vs untolerated taint(s)", "untolerated taint {"),
                       ("DynamicResources 'no new claims to deallocate'", "no new claims to deallocate"),
                       ("DynamicResources PostFilter error 'not found'", ". not found"),
                       ("nodes a PreFilter left out counted (didn't satisfy plugin(s))", "didn't satisfy plugin"),
                       ("preemption success text", "found a potential placement")):
        if (text in a) != (text in b):
            kinds.append(name)
    if hist(a, 1) != hist(b, 1) and ". not found" not in a + b:
        changed = {k for k in set(hist(a, 1)) | set(hist(b, 1)) if hist(a, 1).get(k) != hist(b, 1).get(k)}
        if changed & {"No preemption victims found for incoming pod", "Preemption is not helpful for scheduling"}:
            kinds.append("preemption part: which nodes preemption tries")
        elif not kinds:
            kinds.append("preemption part: " + ", ".join(sorted(changed))[:100])
    if not kinds:
        kinds.append("filter part: " + ", ".join(sorted(set(hist(a, 0)) ^ set(hist(b, 0))))[:100])
    return kinds


def nonzero(scores):
    return {n: {k: v for k, v in s.items() if v != 0 and k != "total"} for n, s in (scores or {}).items()}


def pod_kinds(a, b):
    if ("error" in a) != ("error" in b):
        return ["pod error"]
    kinds = []
    fa, fb = a.get("filter") or {}, b.get("filter") or {}
    texts = set()
    for n in set(fa) | set(fb):
        x, y = fa.get(n), fb.get(n)
        if x == y or (isinstance(x, list) and isinstance(y, list) and sorted(x) == sorted(y)):
            continue  # several insufficient extended resources come in Go map order
        if not isinstance(x, list) or not isinstance(y, list):
            kinds.append("filter verdict")
            continue
        old, new = sorted(set(x) - set(y)), sorted(set(y) - set(x))
        texts.add(re.sub(r"\{[^}]*\}", "{…}", f"{' | '.join(old) or '-'} -> {' | '.join(new) or '-'}"))
    kinds = sorted(set(kinds)) + [f"filter reasons: {t}" for t in sorted(texts)]
    if a.get("feasible") != b.get("feasible"):
        kinds.append("feasible")
    kinds += ["message: " + k for k in message_kinds(a.get("message"), b.get("message"))]
    sa, sb = nonzero(a.get("scores")), nonzero(b.get("scores"))
    plugins = {k for n in set(sa) & set(sb) for k in set(sa[n]) | set(sb[n]) if sa[n].get(k, 0) != sb[n].get(k, 0)}
    kinds += ["score: " + p for p in sorted(plugins)]
    if sorted(a.get("top") or []) != sorted(b.get("top") or []):
        kinds.append("top (tie set)")
    if a.get("chosen") != b.get("chosen"):
        kinds.append("chosen")
    return kinds


def report(name, scenarios, A, B, show):
    first, anywhere, examples = collections.Counter(), collections.Counter(), collections.defaultdict(list)
    differ = 0
    for i, (s, a, b) in enumerate(zip(scenarios, A, B)):
        ra, rb = a.get("results", []), b.get("results", [])
        if "error" in a or "error" in b or len(ra) != len(rb):
            first["scenario error or result count"] += 1
            differ += 1
            continue
        seen, diverged = set(), False
        for j, (x, y) in enumerate(zip(ra, rb)):
            kinds = pod_kinds(x, y)
            if diverged:
                kinds = ["after a different placement: " + k for k in kinds]
            if not kinds:
                continue
            if not seen:
                differ += 1
                key = " + ".join(kinds)
                first[key] += 1
                if len(examples[key]) < show:
                    examples[key].append(f"{i}:{s.get('meta', {}).get('id', i)}:pod{j}")
            seen |= set(kinds)
            diverged = diverged or "chosen" in kinds
        anywhere.update(seen)
    print(f"== {name}: {len(scenarios)} scenarios, {differ} differ")
    print("-- the first differing pod of each scenario:")
    for k, c in first.most_common():
        print(f"{c:6d}  {k}" + (f"\n        e.g. {', '.join(examples[k])}" if examples[k] else ""))
    print("-- scenarios with each kind on any pod:")
    for k, c in anywhere.most_common():
        print(f"{c:6d}  {k}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--against", default="expected")
    ap.add_argument("--compat", default="")
    ap.add_argument("--against-compat", default="")
    ap.add_argument("--show", type=int, default=3)
    a = ap.parse_args(argv)
    for path in a.files:
        lines = [l for l in open(path) if l.strip()]
        scenarios = [json.loads(l) for l in lines]
        A = run(BIN + "v1.30.14", with_release(lines, "v1.30"), a.compat)
        if a.against == "expected":
            B = [s.get("expected", {}) for s in scenarios]
        else:
            B = run(BIN + a.against, with_release(lines, a.against.rsplit(".", 1)[0]), a.against_compat)
        report(f"{os.path.basename(path)}: v1.30.14 against {a.against}", scenarios, A, B, a.show)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
