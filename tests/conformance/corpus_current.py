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
  corpus_current.py record CORPUS REFERENCE COMPAT_ALL
      prints the patch: REFERENCE is kube-scheduler-reference's output on CORPUS
      with the engine's documented defect corrections (--compat of known/defects),
      COMPAT_ALL its output with every 1.26 behaviour put back (--compat all),
      which must reproduce CORPUS: that is what ties each change to a switch
  corpus_current.py check CORPUS PATCH REFERENCE COMPAT_ALL
      the recorded patch must equal a fresh `record` (exit 1 otherwise)
"""
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


def apply(corpus_path, patch_path, out_path):
    patch = {p["id"]: p for p in read_lines(patch_path)}
    seen = set()
    tmp = out_path + ".tmp"
    with open(tmp, "w") as out:
        for line in read_lines(corpus_path):
            p = patch.get(line["meta"]["id"])
            if p:
                seen.add(p["id"])
                results = line["expected"]["results"]
                for change in p["results"]:
                    merge(results[change["index"]], {k: v for k, v in change.items() if k != "index"})
                line["meta"]["changedSince126"] = p["classes"]
            out.write(json.dumps(line) + "\n")
    missing = set(patch) - seen
    if missing:
        os.unlink(tmp)
        raise SystemExit(f"corpus_current: {patch_path}: scenarios not in {corpus_path}: {', '.join(sorted(missing)[:10])}")
    os.replace(tmp, out_path)  # nothing half-written


def dump(patch):
    return "".join(json.dumps(p, sort_keys=True) + "\n" for p in patch)


def main(argv):
    if len(argv) == 4 and argv[0] == "apply":
        apply(*argv[1:])
        return 0
    if len(argv) == 4 and argv[0] == "record":
        sys.stdout.write(dump(record(*argv[1:])))
        return 0
    if len(argv) == 5 and argv[0] == "check":
        fresh = dump(record(argv[1], argv[3], argv[4]))
        with open(argv[2]) as f:
            recorded = f.read()
        if fresh != recorded:
            fresh_ids = {json.loads(l)["id"]: l for l in fresh.splitlines()}
            old_ids = {json.loads(l)["id"]: l for l in recorded.splitlines()}
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
