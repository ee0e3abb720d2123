#!/usr/bin/env python3
"""The shared corpus with kube-scheduler v1.37.2's answers where they differ.

The shared corpus (../shared/corpus) was recorded with kube-scheduler 1.26. The
engine follows the current release, so the test suite judges it against the
corpus with the reference's current answers patched in. A patch file
(tests/conformance/corpus-v1.37/*.patch.jsonl) holds, per scenario that
changed, the changed fields of each changed pod result (objects such as `filter` and
`scores` diffed key by key, a removed key written as {"$deleted": true}) and
the upstream changes (kube-scheduler-reference --compat switches) that
explain them.

usage:
  corpus_current.py apply CORPUS PATCH OUT
      writes CORPUS with the patch applied (what `run_corpus.sh` judges against)
  corpus_current.py record CORPUS REFERENCE COMPAT_ALL [PREVIOUS]
      prints the patch: REFERENCE is kube-scheduler-reference's output on CORPUS
      with the engine's documented defect corrections (--compat of known/defects),
      COMPAT_ALL its output with every 1.26 behaviour put back (--compat all),
      which must reproduce CORPUS: that is what ties each change to a switch
  corpus_current.py check CORPUS PATCH REFERENCE COMPAT_ALL
      the recorded patch must equal a fresh `record` (exit 1 otherwise)

The autoscaler corpus (../shared/autoscaler, cluster-autoscaler 1.26.5) works
the same way with cluster-autoscaler-reference's outputs: its lines have no
id, so a patch line names the corpus line (`line`, from 1) and holds the
changed fields of what the corpus' compare.py judges (`scaleUp` and
`unhelped` whole, `scaleDown` key by key); `classes` are the --compat switches
that each alone bring the 1.26 answer back (REFERENCE.SWITCH files next to
REFERENCE, written by record_corpus.sh), else "combined".
"""
import glob
import json
import os
import sys

FIELDS = ("pod", "filter", "filterPlugin", "feasible", "top", "chosen", "message")


def nonzero_scores(scores):
    return {node: {k: v for k, v in s.items() if v != 0 or k == "total"} for node, s in (scores or {}).items()}


def view(result):
    v = {k: result.get(k) for k in FIELDS}
    v["scores"] = nonzero_scores(result.get("scores"))
    return v


DELETED = {"$deleted": True}


def delta(old, new):
    """What turns old into new: objects key by key, anything else whole."""
    if isinstance(old, dict) and isinstance(new, dict):
        out = {}
        for k in sorted(set(old) | set(new)):
            if k not in new:
                out[k] = DELETED
            elif k not in old:
                out[k] = new[k]
            elif old[k] != new[k]:
                out[k] = delta(old[k], new[k])
        return out
    return new


def merge(target, change):
    for k, v in change.items():
        if v == DELETED:
            target.pop(k, None)
        elif isinstance(v, dict) and isinstance(target.get(k), dict) and v:
            merge(target[k], v)
        else:
            target[k] = v


def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def record(corpus_path, ref_path, compat_path):
    corpus, ref, compat = read_lines(corpus_path), read_lines(ref_path), read_lines(compat_path)
    if not len(corpus) == len(ref) == len(compat):
        raise SystemExit(f"corpus_current: {corpus_path}: {len(corpus)} scenarios, {len(ref)} and {len(compat)} results")
    patch, failures = [], []
    for line, r, c in zip(corpus, ref, compat):
        ident = line["meta"]["id"]
        expected = line["expected"]["results"]
        if [view(x) for x in c.get("results", [])] != [view(x) for x in expected]:
            failures.append(ident)
            continue
        changed = []
        for i, (old, new) in enumerate(zip(expected, r.get("results", []))):
            a, b = view(old), view(new)
            diff = {k: delta(a[k], b[k]) for k in b if a[k] != b[k]}
            if diff:
                changed.append(dict(index=i, **diff))
        if len(r.get("results", [])) != len(expected):
            raise SystemExit(f"corpus_current: {ident}: {len(expected)} pods in the corpus, {len(r.get('results', []))} in the reference")
        if changed:
            patch.append({"id": ident, "classes": sorted(set(c.get("compat") or []) | set(r.get("compat") or [])),
                          "results": changed})
    if failures:
        raise SystemExit(f"corpus_current: with --compat all the reference no longer reproduces the corpus: "
                         f"{', '.join(failures[:10])}")
    return patch


AUTOSCALER_SWITCHES = ("estimate-beyond-max", "independent-scale-down", "system-pods-always-block",
                      "threshold-inclusive")


def autoscale_view(e):
    """What the autoscaler corpus' compare.py judges, in its order."""
    v = {"scaleUp": [{"loop": s.get("loop"), "nodeGroup": s.get("nodeGroup"), "delta": s.get("delta"),
                      "estimated": s.get("estimated"), "pods": sorted(s.get("pods") or [])}
                     for s in e.get("scaleUp") or []],
         "unhelped": sorted(e.get("unhelped") or [])}
    if "scaleDown" in e:
        sd = e["scaleDown"] or {}
        v["scaleDown"] = {"unneeded": sorted(sd.get("unneeded") or []),
                          "removable": sorted(sd.get("removable") or []),
                          "blocked": dict(sorted((sd.get("blocked") or {}).items()))}
    return v


def record_autoscale(corpus_path, ref_path, compat_path, previous=None, checking=False):
    """REFERENCE is a glob's stem: REFERENCE.1, .2, ... are runs in separate
    processes (cluster-autoscaler walks Go maps, whose order is per process);
    a line whose answers differ between them is random in cluster-autoscaler,
    and its patch line keeps every answer seen (`variants`)."""
    corpus, compat = read_lines(corpus_path), read_lines(compat_path)
    runs = [read_lines(f) for f in sorted(glob.glob(ref_path + ".[0-9]*"))]
    singles = {s: read_lines(f"{ref_path}.{s}") for s in AUTOSCALER_SWITCHES}
    if not runs or any(len(r) != len(corpus) for r in runs) or len(compat) != len(corpus) or \
            any(len(v) != len(corpus) for v in singles.values()):
        raise SystemExit(f"corpus_current: {corpus_path}: {len(corpus)} scenarios, results of other lengths")
    patch, failures = [], []
    for n, (line, c) in enumerate(zip(corpus, compat), start=1):
        old = autoscale_view(line["expected"])
        answers = [r[n - 1] for r in runs]
        if any("error" in r for r in answers) or "error" in c or autoscale_view(c) != old:
            failures.append(f"line {n}")
            continue
        seen = []
        for r in answers:
            if autoscale_view(r) not in seen:
                seen.append(autoscale_view(r))
        seen.sort(key=lambda v: json.dumps(v, sort_keys=True))
        if previous is not None:
            # Ten processes need not meet every answer of a random line: the
            # answers recorded before stay while this run met one of them
            # (answers disjoint from them mean a change), and recording adds
            # the new ones; checking only reports them.
            p = previous.get(n)
            recorded = (p.get("variants") or [merged_view(old, p["expected"])]) if p else [old]
            if any(v in recorded for v in seen):
                extra = [v for v in seen if v not in recorded]
                if extra and checking:
                    print(f"corpus_current: line {n} is random in cluster-autoscaler and this run met an answer "
                          f"the patch lacks; record_corpus.sh adds it", file=sys.stderr)
                    extra = []
                seen = sorted(recorded + extra, key=lambda v: json.dumps(v, sort_keys=True))
        new = seen[0]
        diff = {k: (delta(old[k], new[k]) if k == "scaleDown" else new[k]) for k in new if old.get(k) != new[k]}
        if diff or len(seen) > 1:
            classes = [s for s in AUTOSCALER_SWITCHES if autoscale_view(singles[s][n - 1]) == old] or ["combined"]
            if previous is not None and previous.get(n) and len(seen) > 1:
                classes = previous[n]["classes"]  # a single run's switch answers are random too
            p = {"line": n, "classes": classes, "expected": diff}
            if len(seen) > 1:
                p["variants"] = seen
            patch.append(p)
    if failures:
        raise SystemExit(f"corpus_current: with --compat all the reference no longer reproduces the corpus: "
                         f"{', '.join(failures[:10])}")
    return patch


def merged_view(old, change):
    v = json.loads(json.dumps(old))
    merge(v, change)
    return v


def apply(corpus_path, patch_path, out_path, actual_path=None):
    """With ACTUAL (the engine's output on CORPUS), a line where
    cluster-autoscaler's answer is random expects the engine's answer when it
    is one of cluster-autoscaler's, else the first."""
    patch = read_lines(patch_path)
    actual = read_lines(actual_path) if actual_path else []
    by_id = {p["id"]: p for p in patch if "id" in p}
    by_line = {p["line"]: p for p in patch if "line" in p}
    seen = set()
    tmp = out_path + ".tmp"
    with open(tmp, "w") as out:
        for n, line in enumerate(read_lines(corpus_path), start=1):
            p = by_line.get(n)
            if p:
                seen.add(("line", n))
                merge(line["expected"], p["expected"])
                line["meta"]["changedSince126"] = p["classes"]
                mine = autoscale_view(actual[n - 1]) if n <= len(actual) else None
                if mine is not None and mine in p.get("variants", []):
                    line["expected"].update(mine)
                    line["meta"]["randomInClusterAutoscaler"] = True
            p = by_id.get((line.get("meta") or {}).get("id"))
            if p:
                seen.add(p["id"])
                results = line["expected"]["results"]
                for change in p["results"]:
                    merge(results[change["index"]], {k: v for k, v in change.items() if k != "index"})
                line["meta"]["changedSince126"] = p["classes"]
            out.write(json.dumps(line) + "\n")
    missing = (set(by_id) | {("line", n) for n in by_line}) - seen
    if missing:
        os.unlink(tmp)
        raise SystemExit(f"corpus_current: {patch_path}: scenarios not in {corpus_path}: "
                         f"{', '.join(sorted(str(m) for m in missing)[:10])}")
    os.replace(tmp, out_path)  # nothing half-written


def dump(patch):
    return "".join(json.dumps(p, sort_keys=True) + "\n" for p in patch)


def record_any(corpus_path, ref_path, compat_path, previous_path=None, checking=False):
    with open(corpus_path) as f:
        first = json.loads(next(l for l in f if l.strip()))
    if "results" in first["expected"]:
        return record(corpus_path, ref_path, compat_path)
    previous = None
    if previous_path and os.path.exists(previous_path):
        previous = {p["line"]: p for p in read_lines(previous_path)}
    return record_autoscale(corpus_path, ref_path, compat_path, previous, checking)


def key(line):
    p = json.loads(line)
    return p.get("id") or f"line {p.get('line')}"


def main(argv):
    if len(argv) in (4, 5) and argv[0] == "apply":
        apply(*argv[1:])
        return 0
    if len(argv) in (4, 5) and argv[0] == "record":
        sys.stdout.write(dump(record_any(*argv[1:])))
        return 0
    if len(argv) == 5 and argv[0] == "check":
        fresh = dump(record_any(argv[1], argv[3], argv[4], argv[2], checking=True))
        with open(argv[2]) as f:
            recorded = f.read()
        if fresh != recorded:
            fresh_ids = {key(l): l for l in fresh.splitlines()}
            old_ids = {key(l): l for l in recorded.splitlines()}
            differing = sorted(k for k in set(fresh_ids) | set(old_ids) if fresh_ids.get(k) != old_ids.get(k))
            print(f"corpus_current: {argv[2]} is out of date for {len(differing)} scenarios "
                  f"({', '.join(differing[:5])}); rerun tests/conformance/record_corpus.sh")
            return 1
        changed = sum(1 for line in fresh.splitlines() if line.strip())
        print(f"corpus_current: {argv[2]} matches the reference ({changed} scenarios changed since 1.26)")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
