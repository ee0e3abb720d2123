#!/usr/bin/env python3
"""Judge `tightpack replay` against kube-scheduler-reference, scenario by scenario.

usage: differential.py SCENARIOS TIGHTPACK REFERENCE REFERENCE_COMPAT [--out DIR] [--keep-known N]

Line i of each output file is the result for line i of SCENARIOS. Per incoming
pod these must agree: the pod, every node's filter verdict and reasons (in
order) and the rejecting plugin, the number of feasible nodes, every non-zero
per-plugin score and the total, the set of tied best nodes (kube-scheduler
picks one of them at random, so tightpack's chosen node must be in it), the
FailedScheduling message (present exactly when no node fits), and whether the
scheduler failed on the pod (an error).

A scenario on which tightpack disagrees with the reference (kube-scheduler
v1.37.2) but agrees with it once the upstream defects the engine does not copy
are corrected (REFERENCE_COMPAT: kube-scheduler-reference --compat with the
switches of tests/conformance/known/defects) is a *known* difference, named by
the switches that changed something in it (tests/conformance/known/README.md).
Any other disagreement is *unexplained*.
Each disagreeing scenario is written to DIR/<id>.json (known ones to
DIR/known/<switches>/<id>.json, at most N per class), a corpus line with the
reference's decision as "expected": `tightpack replay DIR/<id>.json` replays
it and `compare.py` judges it.

Prints the unexplained disagreements, a table of known classes and a last
line: `differential: S scenarios (P pods): A agree, K known, U unexplained`.
Exit status: 0 when all agree, 1 on an unexplained disagreement, 3 when the
only disagreements are known ones.
"""
import argparse
import json
import os
import sys
from collections import Counter


def nonzero(scores):
    return {n: {k: v for k, v in s.items() if v != 0 or k == "total"} for n, s in (scores or {}).items()}


def first_difference(a, b, path, names=("tightpack", "kube-scheduler")):
    """The first place where a (the engine's answer) and b (the reference's) differ, or None."""
    left, right = names
    if type(a) is not type(b):
        return f"{path}: {left} {json.dumps(a)[:300]}, {right} {json.dumps(b)[:300]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                return f"{path}.{k}: {left} has none, {right} {json.dumps(b[k])[:300]}"
            if k not in b:
                return f"{path}.{k}: {left} {json.dumps(a[k])[:300]}, {right} has none"
            d = first_difference(a[k], b[k], f"{path}.{k}", names)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {left} {json.dumps(a)[:300]}, {right} {json.dumps(b)[:300]}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]", names)
            if d:
                return d
        return None
    return None if a == b else f"{path}: {left} {json.dumps(a)[:300]}, {right} {json.dumps(b)[:300]}"


FIXED_RESOURCES = {"cpu", "memory", "ephemeral-storage"}


def reasons_view(reasons):
    """NodeResourcesFit lists insufficient extended resources in Go map order
    (random): compare that run of reasons as a set, sorted."""
    if not isinstance(reasons, list):
        return reasons
    scalar = [r for r in reasons if r.startswith("Insufficient ") and r[len("Insufficient "):] not in FIXED_RESOURCES]
    if len(scalar) < 2:
        return reasons
    out, it = [], iter(sorted(scalar))
    for r in reasons:
        out.append(next(it) if r in scalar else r)
    return out


def view(r):
    return {
        "pod": r.get("pod"),
        "filter": {n: reasons_view(v) for n, v in (r.get("filter") or {}).items()},
        "filterPlugin": r.get("filterPlugin") or {},
        "feasible": r.get("feasible"),
        "scores": nonzero(r.get("scores")),
        "top": sorted(r.get("top") or []),
        "message": r.get("message"),
    }


def compare(tp, ref):
    """First difference between tightpack's and the reference's result, or None."""
    if "error" in ref or "error" in tp:
        if "error" in ref and "error" in tp:
            return None
        if "error" in ref:
            return f"$: kube-scheduler-reference failed on the scenario: {ref['error'][:300]}"
        return f"$: tightpack failed on the scenario: {tp['error'][:300]}"
    a, b = tp.get("results") or [], ref.get("results") or []
    if len(a) != len(b):
        return f"$.results: tightpack decided {len(a)} pods, kube-scheduler {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        p = f"$.results[{i}]"
        if "error" in x or "error" in y:
            if ("error" in x) != ("error" in y):
                who = "tightpack" if "error" in x else "kube-scheduler"
                return f"{p}: only {who} failed on the pod: {(x.get('error') or y.get('error'))[:300]}"
            continue
        d = first_difference(view(x), view(y), p)
        if d:
            return d
        chosen, top = x.get("chosen"), y.get("top") or []
        if (chosen is None) != (y.get("chosen") is None) or (chosen is not None and chosen not in top):
            return f"{p}.chosen: tightpack {json.dumps(chosen)}, kube-scheduler's best nodes {json.dumps(top)}"
    return None


def summary(argv):
    """differential.py summary COUNTS.json...: add up the chunks' counts and print the table and last line."""
    total = Counter()
    classes = Counter()
    for path in argv:
        with open(path) as f:
            c = json.load(f)
        for k in ("agree", "known", "unexplained", "pods"):
            total[k] += c.get(k, 0)
        classes.update(c.get("classes", {}))
    return report(total, classes)


def report(counts, classes):
    if counts["known"]:
        print("known differences (tests/conformance/known/README.md), scenarios per switch:")
        for s, c in sorted(classes.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {c:7d}  {s}")
    n = counts["agree"] + counts["known"] + counts["unexplained"]
    print(f"differential: {n} scenarios ({counts['pods']} pods): {counts['agree']} agree, {counts['known']} known, "
          f"{counts['unexplained']} unexplained")
    if counts["unexplained"]:
        return 1
    return 3 if counts["known"] else 0


def main(argv):
    if argv and argv[0] == "summary":
        return summary(argv[1:])
    ap = argparse.ArgumentParser()
    ap.add_argument("scenarios")
    ap.add_argument("tightpack")
    ap.add_argument("reference")
    ap.add_argument("compat")
    ap.add_argument("--out", default="build/conformance/disagreements")
    ap.add_argument("--keep-known", type=int, default=5, help="scenario files kept per known class")
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--counts", help="write the counts here (JSON) instead of printing the summary")
    a = ap.parse_args(argv)

    os.makedirs(a.out, exist_ok=True)
    counts = Counter()
    classes = Counter()
    pods = 0
    shown = 0
    kept = Counter()
    files = [open(a.scenarios), open(a.tightpack), open(a.reference), open(a.compat)]
    for n, lines in enumerate(zip(*files)):
        scen, tp, ref, comp = (json.loads(x) for x in lines)
        meta = scen.get("meta", {})
        ident = meta.get("id", f"line-{n + 1}")
        pods += len(ref.get("results") or [])
        diff = compare(tp, ref)
        if diff is None:
            counts["agree"] += 1
            continue
        if compare(tp, comp) is None:
            switches = comp.get("compat") or []
            cls = "+".join(switches) or "unattributed"
            counts["known"] += 1
            for s in switches:
                classes[s] += 1
            if kept[cls] < a.keep_known:
                kept[cls] += 1
                folder = os.path.join(a.out, "known", cls)
                os.makedirs(folder, exist_ok=True)
                write(folder, ident, scen, ref, "known", diff, switches)
            continue
        counts["unexplained"] += 1
        # the difference that remains with the known ones put back
        diff = compare(tp, comp) or diff
        if shown < a.show:
            print(f"UNEXPLAINED {ident} [{meta.get('profile')}; {', '.join(meta.get('features', []))}]: {diff}")
            shown += 1
        write(a.out, ident, scen, ref, "unexplained", diff, comp.get("compat") or [])
    if counts["unexplained"] > a.show:
        print(f"... {counts['unexplained'] - a.show} more unexplained, all in {a.out}/")
    counts["pods"] = pods
    if a.counts:
        with open(a.counts, "w") as f:
            json.dump({"agree": counts["agree"], "known": counts["known"], "unexplained": counts["unexplained"],
                       "pods": pods, "classes": dict(classes)}, f)
        return 1 if counts["unexplained"] else 0
    return report(counts, classes)


def write(folder, ident, scen, ref, verdict, diff, switches):
    doc = {"scenario": scen.get("scenario", scen), "expected": ref,
           "meta": dict(scen.get("meta", {}), verdict=verdict, difference=diff, compat=switches,
                        replay="tightpack replay THIS_FILE; kube-scheduler-reference THIS_FILE")}
    with open(os.path.join(folder, ident + ".json"), "w") as f:
        f.write(json.dumps(doc, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
