#!/usr/bin/env python3
"""Quantities at and beyond int64's ends, through k8s.io/apimachinery and tightpack.

kube-apiserver accepts a request or capacity of 1e30, 9Ei or 20 digits, and kube-scheduler
counts it as resource.Quantity's Value() / MilliValue() say: 0 for 1e30 bytes (an
int64Amount whose scaling overflows), 2^63 - 1 for 9Ei (BinarySI is capped), the low 64
bits of an inf.Dec otherwise. tightpack must count the same. This property test spells
quantities from a seeded generator (the spellings users write, and the extreme ones: long
digit strings, int64's edges, exponents that wrap in int32) and holds tightpack's Quantity
(quantity_values) to resource.ParseQuantity's own answers (kube-scheduler-reference
--quantities), spelling by spelling, parse errors included.

    quantities.py [--count N] [--seed S] [--reference BIN] [--tightpack-values BIN]

Two seeds run, a fixed one and the UTC date, as differential.sh does; every disagreement
is printed with both answers. Exit 0 when all agree, 1 otherwise.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUFFIXES = ["", "m", "k", "M", "G", "T", "P", "E", "n", "u", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
EDGES = [
    "1e30", "9Ei", "8Ei", "7Ei", "10E", "1e19", "1e2147483647", "1e2147483645", "1e2147483644",
    "1.5e-2147483648", "9223372036854775807", "9223372036854775807.1", "9223372036854775808",
    "9223372036854776", "1e-10", "0.0000000001", "1e4294967296", "12345678901234567890123Ki", "1Pi",
    "1.5Pi", "15Ei", "0.5", "1.", ".", "-", "m", "e-33", "+e-14", "99999999999999999999", "1e18", "9e18",
    "9.3e18", "1e-9", "1e-30", "5e18", "1.5Ei", "123456789012345678Ki", "1234567890123456Ki",
    "100000000000000000Mi", "3e2147483647", "1e2147483646", "1e99999999999999999999",
]


def int32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def spelling(r: random.Random) -> str:
    def digits(n):
        return "".join(r.choice("0123456789") for _ in range(n))

    sign = r.choice(["", "", "", "+", "-"]) if r.random() < 0.2 else ""
    num = r.choice([digits(r.randint(0, 3)), digits(r.randint(1, 19)), digits(r.randint(15, 40)),
                    "9223372036854775807", "9223372036854775808", "18446744073709551615", "1",
                    "0" * r.randint(1, 5) + digits(3)])
    frac = ""
    if r.random() < 0.35:
        frac = "." + r.choice([digits(r.randint(0, 3)), digits(r.randint(1, 12)),
                               "0" * r.randint(8, 30) + "1", digits(25)])
    if r.random() < 0.45:
        return sign + num + frac + r.choice(SUFFIXES)
    e = r.choice([r.randint(-40, 40), r.randint(-12, 30), r.choice([
        2147483647, 2147483646, 2147483645, 2147483644, 2147483648, 2147483649, -2147483647, -2147483648,
        4294967296, 4294967297, 4294967295, -4294967296, 2**40 + 3, 18, 19, 20, 21, -9, -10, -11, 9, 10,
        308, 309, -308])])
    # On ParseQuantity's inf.Dec path (more than 18 digits, or below nano units) an exponent
    # far from zero makes Go build 10^|exponent| whole: minutes of kube-apiserver's time for
    # one field, so no cluster holds such an object. Those are left out.
    many_digits = len(num.lstrip("0") or "0") + max(len(frac) - 1, 0) > 18
    if abs(int32(e)) > 400 and (int32(e) < 0 or many_digits):
        e = r.randint(-40, 40)
    return sign + num + frac + r.choice("eE") + ("+" if e >= 0 and r.random() < 0.2 else "") + str(e)


RESOURCES = ["cpu", "cpu", "memory", "memory", "ephemeral-storage", "example.com/gpu", "hugepages-2Mi"]
# Amounts pods are summed from: the spellings users write, fractions of a unit, and ones near or
# beyond int64's range (whose sums overflow into an inf.Dec).
POD_AMOUNTS = ["1", "100m", "1.5m", "0.5", "0.0005", "1500m", "4Gi", "1e-10", "1e-9", "1.5", "250m", "9Ei",
               "5e18", "4611686018427387904", "9223372036854775807", "1e19", "1e30", "1e40", "1e20",
               "123456789012345678901234567890", "0.333333333", "0.3333333333", "7Ei", "1Pi", "1.5Ki", "2"]


def amount(r: random.Random) -> str:
    """A non-negative amount (API validation refuses negative requests). Exponents stay within
    ±400: adding amounts of different scales, Go turns the sum into an inf.Dec and builds
    10^(the scales' difference) whole, so a request of 1e2147483647 beside one of 1m keeps
    kube-scheduler's NodeInfo busy for minutes (the reference, kube-scheduler's own code, was seen
    to); tightpack's sparse decimals answer at once, but the comparison needs Go's answer."""
    if r.random() < 0.5:
        return r.choice(POD_AMOUNTS)
    while True:
        text = spelling(r)
        exponent = re.search(r"[eE]([+-]?\d+)$", text)
        if exponent and abs(int32(int(exponent.group(1)))) > 400:
            continue
        if not text.startswith("-") and any(c.isdigit() for c in text):
            return text


def pod(r: random.Random, n: int) -> dict:
    """A pod of several containers, sidecars, init containers, overhead and pod-level requests,
    with requests already defaulted from limits as the API server does (the reference decodes
    without defaulting)."""
    def resources():
        names = r.sample(RESOURCES, r.randint(0, 3))
        requests = {name: amount(r) for name in names if r.random() < 0.8}
        limits = {name: amount(r) for name in names if r.random() < 0.3}
        for name, value in limits.items():
            requests.setdefault(name, value)
        out = {}
        if requests:
            out["requests"] = requests
        if limits:
            out["limits"] = limits
        return out

    def container(i, prefix, sidecar=False):
        c = {"name": f"{prefix}{i}", "resources": resources()}
        if sidecar:
            c["restartPolicy"] = "Always"
        return c

    spec = {"containers": [container(i, "c") for i in range(r.randint(1, 4))]}
    if r.random() < 0.4:
        spec["initContainers"] = [container(i, "i", r.random() < 0.5) for i in range(r.randint(1, 3))]
    if r.random() < 0.2:
        spec["overhead"] = {name: amount(r) for name in r.sample(["cpu", "memory"], r.randint(1, 2))}
    if r.random() < 0.15:
        # Beside an overhead, pod-level amounts are spellings Go keeps as int64Amounts: with an
        # inf.Dec, applyPodLevelResources puts the pod's own Quantity in the sum without a copy
        # and Add then changes the pod's inf.Dec in place, so kube-scheduler counts a different
        # amount each time it computes the pod's requests (twice in one NodeInfo when a
        # non-zero default applies). No engine without that history can reproduce it.
        plain = "overhead" in spec
        spec["resources"] = {"requests": {name: r.choice(["1", "100m", "4Gi", "1500m", "2"]) if plain else amount(r)
                                          for name in r.sample(["cpu", "memory"], r.randint(1, 2))}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{n}", "namespace": "default"}, "spec": spec}


def answers(cmd: list, lines: str) -> list:
    out = subprocess.run(cmd, input=lines, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"quantities: {' '.join(cmd)} exited {out.returncode}: {out.stderr[-2000:]}")
    return [json.loads(line) for line in out.stdout.splitlines()]


def compare(items: list, reference: list, tightpack: list, show) -> tuple:
    """(how many the reference refuses, how many answers differ), the first 20 printed. An
    error must meet an error; its wording may differ."""
    lines = "".join(json.dumps(item) + "\n" for item in items)
    ref, ours = answers(reference, lines), answers(tightpack, lines)
    if len(ref) != len(items) or len(ours) != len(items):
        sys.exit(f"quantities: {len(items)} inputs, {len(ref)} answers from the reference, "
                 f"{len(ours)} from tightpack")
    disagree = 0
    for item, a, b in zip(items, ref, ours):
        if ("error" in a) != ("error" in b) or ("error" not in a and a != b):
            disagree += 1
            if disagree <= 20:
                print(f"  {show(item)}:\n    kube {json.dumps(a)[:300]}\n    tightpack {json.dumps(b)[:300]}")
    return sum("error" in a for a in ref), disagree


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=20000, help="spellings per seed (default 20000)")
    ap.add_argument("--seed", action="append", help="a seed (repeatable; default: tightpack-1 and the UTC date)")
    ap.add_argument("--pods", type=int, default=5000, help="pods per seed (default 5000)")
    ap.add_argument("--reference", default=str(ROOT / "build/conformance/kube-scheduler-reference"))
    ap.add_argument("--tightpack-values", default=str(ROOT / "build/release/tests/quantity_values"))
    args = ap.parse_args()
    seeds = args.seed or ["tightpack-1", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")]
    texts = list(EDGES)
    for seed in seeds:
        r = random.Random(seed)
        texts += [spelling(r) for _ in range(args.count)]
    errors, disagree = compare(texts, [args.reference, "--quantities"], [args.tightpack_values],
                               lambda t: json.dumps(t)[:120])
    print(f"quantities: {len(texts)} spellings (seeds {', '.join(seeds)}; {errors} invalid): "
          f"{len(texts) - disagree} agree, {disagree} disagree")

    # Pods: their amounts summed as PodRequests sums Quantities, then converted once.
    pods = []
    for seed in seeds:
        r = random.Random(f"pods-{seed}")
        pods += [pod(r, i) for i in range(args.pods)]
    pod_errors, pod_disagree = compare(pods, [args.reference, "--pod-requests"],
                                       [args.tightpack_values, "--pods"],
                                       lambda p: json.dumps(p["spec"])[:400])
    print(f"quantities: {len(pods)} pods of several containers (NodeInfo's requested and non-zero "
          f"requested; {pod_errors} invalid): {len(pods) - pod_disagree} agree, {pod_disagree} disagree")
    return 1 if disagree or pod_disagree else 0


if __name__ == "__main__":
    sys.exit(main())
