#!/usr/bin/env python3
"""Move, don't evict, on the DaskHub day (issue 41's goals): per seed, tightpack with protected
workers and moves beside zero-to-jupyterhub's user-scheduler with the operator's evictable
workers, and tightpack's placement share (busy node-hours beyond a first-fit-decreasing repack)
with and without moves; then the second goal: moves with the sizes that tile the node and
cluster-autoscaler's unneeded time at 5 minutes, against the lower bound; and moves with the
operator's evictable workers. Prints three Markdown tables.

    python3 bench/daskhub_moves.py [--day build/release/bench/tightpack_daskhub_day] [--seeds 1-8]
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTECTED = ("--retire", "node-aware", "--protect-workers")
LEVERS = ("--tile", "--unneeded-time", "5m")


def run(day: str, seed: int, *flags: str) -> dict:
    out = json.loads(subprocess.run([day, "--seed", str(seed), "--output", "json", *flags],
                                    check=True, capture_output=True, text=True).stdout)
    return {p["profile"]: p for p in out["profiles"]}


def idle(p: dict) -> float:
    return p["nodeHours"] - p["busyNodeHours"]


def placement(p: dict) -> float:
    return p["busyNodeHours"] - p["repackNodeHours"]


def first_goal(day: str, seeds: range) -> None:
    print("| seed | z2jh, evictable (node-h, evicted) | tightpack, protected (node-h) | tightpack, "
          "protected, moves (node-h, evicted, moves, nodes emptied, taken back, workers moved, "
          "abandoned, tasks interrupted) | vs z2jh | idle without → with moves | placement without → with moves "
          "| pod-h waiting without → with moves |")
    print("|---|---|---|---|---|---|---|---|")
    below5 = above = 0
    for seed in seeds:
        z2jh = run(day, seed, "--retire", "upstream")["most-allocated"]
        still = run(day, seed, *PROTECTED)["tightpack"]
        moved = run(day, seed, *PROTECTED, "--consolidate", "move")["tightpack"]
        delta = (moved["nodeHours"] - z2jh["nodeHours"]) / z2jh["nodeHours"]
        below5 += delta <= -0.05
        above += delta > 0
        print(f"| {seed} | {z2jh['nodeHours']:.1f}, {z2jh['evicted']} | {still['nodeHours']:.1f} "
              f"| {moved['nodeHours']:.1f}, {moved['evicted']}, {moved['moves']}, {moved['nodesEmptied']}, "
              f"{moved['emptiedTakenBack']}, {moved['workersMoved']}, {moved['movesAbandoned']}, "
              f"{moved['tasksInterrupted']} "
              f"| {100 * delta:+.1f} % | {idle(still):.1f} → {idle(moved):.1f} "
              f"| {placement(still):.1f} → {placement(moved):.1f} "
              f"| {still['podHoursWaiting']:.1f} → {moved['podHoursWaiting']:.1f} |")
    print(f"\nat least 5 % below z2jh on {below5} of {len(seeds)} seeds, above it on {above}\n")


def second_goal(day: str, seeds: range) -> None:
    print("| seed | tiled, 5m (node-h / × lower bound) | tiled, 5m, moves (node-h / × lower bound) "
          "| idle | placement | shapes | lower bound |")
    print("|---|---|---|---|---|---|---|")
    within = 0
    for seed in seeds:
        still = run(day, seed, *PROTECTED, *LEVERS)["tightpack"]
        moved = run(day, seed, *PROTECTED, *LEVERS, "--consolidate", "move")["tightpack"]
        ratio = moved["nodeHours"] / moved["lowerBoundNodeHours"]
        within += ratio <= 1.2
        shapes = moved["repackNodeHours"] - moved["lowerBoundNodeHours"]
        print(f"| {seed} | {still['nodeHours']:.1f} / {still['nodeHours'] / still['lowerBoundNodeHours']:.3f} "
              f"| {moved['nodeHours']:.1f} / {ratio:.3f} | {idle(moved):.1f} "
              f"| {placement(moved):.1f} | {shapes:.1f} | {moved['lowerBoundNodeHours']:.1f} |")
    print(f"\nwithin 1.2× the lower bound on {within} of {len(seeds)} seeds")


def evictable(day: str, seeds: range) -> None:
    print("| seed | z2jh, evictable (node-h, evicted) | tightpack, evictable (node-h, evicted) "
          "| tightpack, evictable, moves (node-h, evicted, moves) | vs z2jh |")
    print("|---|---|---|---|---|")
    for seed in seeds:
        z2jh = run(day, seed, "--retire", "upstream")["most-allocated"]
        still = run(day, seed, "--retire", "node-aware")["tightpack"]
        moved = run(day, seed, "--retire", "node-aware", "--consolidate", "move")["tightpack"]
        delta = (moved["nodeHours"] - z2jh["nodeHours"]) / z2jh["nodeHours"]
        print(f"| {seed} | {z2jh['nodeHours']:.1f}, {z2jh['evicted']} | {still['nodeHours']:.1f}, "
              f"{still['evicted']} | {moved['nodeHours']:.1f}, {moved['evicted']}, {moved['moves']} "
              f"| {100 * delta:+.1f} % |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--day", default=str(ROOT / "build/release/bench/tightpack_daskhub_day"))
    ap.add_argument("--seeds", default="1-8")
    args = ap.parse_args()
    lo, _, hi = args.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    first_goal(args.day, seeds)
    second_goal(args.day, seeds)
    print()
    evictable(args.day, seeds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
