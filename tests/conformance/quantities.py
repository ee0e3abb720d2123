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


def answers(cmd: list, lines: str) -> list:
    out = subprocess.run(cmd, input=lines, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        sys.exit(f"quantities: {' '.join(cmd)} exited {out.returncode}: {out.stderr[-2000:]}")
    return [json.loads(line) for line in out.stdout.splitlines()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=20000, help="spellings per seed (default 20000)")
    ap.add_argument("--seed", action="append", help="a seed (repeatable; default: tightpack-1 and the UTC date)")
    ap.add_argument("--reference", default=str(ROOT / "build/conformance/kube-scheduler-reference"))
    ap.add_argument("--tightpack-values", default=str(ROOT / "build/release/tests/quantity_values"))
    args = ap.parse_args()
    seeds = args.seed or ["tightpack-1", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")]
    texts = list(EDGES)
    for seed in seeds:
        r = random.Random(seed)
        texts += [spelling(r) for _ in range(args.count)]
    lines = "".join(json.dumps(t) + "\n" for t in texts)
    ref = answers([args.reference, "--quantities"], lines)
    ours = answers([args.tightpack_values], lines)
    if len(ref) != len(texts) or len(ours) != len(texts):
        print(f"quantities: {len(texts)} spellings, {len(ref)} answers from the reference, {len(ours)} from tightpack")
        return 1
    disagree = 0
    for text, a, b in zip(texts, ref, ours):
        same = ("error" in a) == ("error" in b) and ("error" in a or a == b)
        if not same:
            disagree += 1
            if disagree <= 20:
                print(f"  {json.dumps(text)[:120]}: kube {json.dumps(a)[:200]}, tightpack {json.dumps(b)[:200]}")
    errors = sum("error" in a for a in ref)
    print(f"quantities: {len(texts)} spellings (seeds {', '.join(seeds)}; {errors} invalid): "
          f"{len(texts) - disagree} agree, {disagree} disagree")
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
