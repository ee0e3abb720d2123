#!/usr/bin/env python3
"""Move, don't evict, on the DaskHub day (issue 41's goals): per seed, tightpack with protected
workers and moves beside zero-to-jupyterhub's user-scheduler with the operator's evictable
workers, and tightpack's placement share (busy node-hours beyond a first-fit-decreasing repack)
with and without moves. Prints a Markdown table.

    python3 bench/daskhub_moves.py [--day build/release/bench/tightpack_daskhub_day] [--seeds 1-8]
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(day: str, seed: int, *flags: str) -> dict:
    out = subprocess.run([day, "--seed", str(seed), "--output", "json", *flags],
                         check=True, capture_output=True, text=True).stdout
    return {p["profile"]: p for p in json.loads(out)["profiles"]} | {"_": json.loads(out)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--day", default=str(ROOT / "build/release/bench/tightpack_daskhub_day"))
    ap.add_argument("--seeds", default="1-8")
    args = ap.parse_args()
    lo, _, hi = args.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    print("| seed | z2jh, evictable (node-h, evicted) | tightpack, protected (node-h) | tightpack, "
          "protected, moves (node-h, evicted, nodes emptied, workers moved, abandoned) | vs z2jh "
          "| placement share without → with moves | lower bound |")
    print("|---|---|---|---|---|---|---|")
    below5 = above = 0
    for seed in seeds:
        z2jh = run(args.day, seed, "--retire", "upstream")["most-allocated"]
        still = run(args.day, seed, "--retire", "node-aware", "--protect-workers")["tightpack"]
        moved_all = run(args.day, seed, "--retire", "node-aware", "--protect-workers", "--consolidate", "move")
        moved = moved_all["tightpack"]
        delta = (moved["nodeHours"] - z2jh["nodeHours"]) / z2jh["nodeHours"]
        below5 += delta <= -0.05
        above += delta > 0
        share = lambda p: p["busyNodeHours"] - p["repackNodeHours"]  # noqa: E731
        print(f"| {seed} | {z2jh['nodeHours']:.1f}, {z2jh['evicted']} | {still['nodeHours']:.1f} "
              f"| {moved['nodeHours']:.1f}, {moved['evicted']}, {moved['nodesEmptied']}, "
              f"{moved['workersMoved']}, {moved['movesAbandoned']} | {100 * delta:+.1f} % "
              f"| {share(still):.1f} → {share(moved):.1f} | {moved_all['_']['lowerBound']:.1f} |")
    print(f"\nat least 5 % below z2jh on {below5} of {len(seeds)} seeds, above it on {above}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
