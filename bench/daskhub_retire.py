#!/usr/bin/env python3
"""The DaskHub day under each retirement rule, seeds 1-8: the table of bench/RESULTS.md
("Which workers leave"). Runs build/release/bench/tightpack_daskhub_day --output json.

    python3 bench/daskhub_retire.py [--seeds 1-8] [--binary PATH]
    python3 bench/daskhub_retire.py --levers SEED   # what else would close the gap
    python3 bench/daskhub_retire.py --pools SEED    # where tightpack's node-hours go, per pool
    python3 bench/daskhub_retire.py --tile 1-8      # workers at the shapes that tile the node

--levers replays one seed's day (protected workers, node-aware retirement) through
`tightpack pack-report` as it is, with cluster-autoscaler's scale-down-unneeded-time at 5 and
2 minutes instead of 10, with every workload at the first shape that tiles its pool's node
(`pack-report --tile`: the engine's `tightpack advise` suggestion), and with both.

--tile runs each seed's day (protected workers, node-aware retirement) as it is and with
`tightpack_daskhub_day --tile`, and splits tightpack's node-hours above the lower bound.
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ("newest", "upstream", "node-aware")


def day(binary: Path, seed: int, retire: str, protect: bool) -> dict:
    args = [str(binary), "--seed", str(seed), "--retire", retire, "--output", "json"]
    if protect:
        args.append("--protect-workers")
    return json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)


def pack_report(tightpack: Path, scenario: dict, *flags: str) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(scenario, f)
        f.flush()
        out = subprocess.run([str(tightpack), "pack-report", *flags, "--output", "json", f.name],
                             check=True, capture_output=True, text=True).stdout
    return {p["profile"]: p for p in json.loads(out)["profiles"]}


def levers(binary: Path, tightpack: Path, seed: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "day.json"
        subprocess.run([str(binary), "--seed", str(seed), "--retire", "node-aware", "--protect-workers",
                        "--scenario", str(path)], check=True, capture_output=True)
        base = json.loads(path.read_text())

    def unneeded(doc: dict, minutes: int) -> dict:
        doc = copy.deepcopy(doc)
        doc["pools"].setdefault("autoscaler", {})["scaleDownUnneededTime"] = f"{minutes}m"
        return doc

    print(f"Seed {seed}, protected workers, node-aware retirement (node-hours)\n")
    print("| variant | z2jh | tightpack | tightpack: idle | placement | shapes | lower bound |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, doc, flags in [("as it is (10 min unneeded)", base, ()),
                              ("5 min unneeded", unneeded(base, 5), ()),
                              ("2 min unneeded", unneeded(base, 2), ()),
                              ("workers tile the node (--tile)", base, ("--tile",)),
                              ("both, 5 min unneeded", unneeded(base, 5), ("--tile",))]:
        r = pack_report(tightpack, doc, *flags)
        t, z = r["tightpack"], r["most-allocated"]
        print(f"| {label} | {z['nodeHours']:.2f} | {t['nodeHours']:.2f} | {t['nodeHours'] - t['busyNodeHours']:.2f} | "
              f"{t['busyNodeHours'] - t['repackNodeHours']:.2f} | {t['repackNodeHours'] - t['lowerBoundNodeHours']:.2f} | "
              f"{t['lowerBoundNodeHours']:.2f} |")


def per_pool(binary: Path, tightpack: Path, seed: int) -> None:
    print(f"Seed {seed}, tightpack, protected workers, node-aware retirement (node-hours)\n")
    print("| pool | node-h | idle | placement | shapes | lower bound |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "day.json"
        subprocess.run([str(binary), "--seed", str(seed), "--retire", "node-aware", "--protect-workers",
                        "--scenario", str(path)], check=True, capture_output=True)
        t = pack_report(tightpack, json.loads(path.read_text()))["tightpack"]
    for p in t["pools"]:
        print(f"| {p['pool']} | {p['nodeHours']:.2f} | {p['nodeHours'] - p['busyNodeHours']:.2f} | "
              f"{p['busyNodeHours'] - p['repackNodeHours']:.2f} | {p['repackNodeHours'] - p['lowerBoundNodeHours']:.2f} | "
              f"{p['lowerBoundNodeHours']:.2f} |")


def tiled_seeds(binary: Path, seeds: range) -> None:
    print("Protected workers, node-aware retirement; tightpack's node-hours, and above the lower bound: "
          "idle, placement, shapes\n")
    print("| seed | workloads tiled | as it is | tiled | lower bound (tiled) | idle | placement | shapes |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for seed in seeds:
        runs = {}
        for tile in (False, True):
            args = [str(binary), "--seed", str(seed), "--retire", "node-aware", "--protect-workers",
                    "--output", "json"] + (["--tile"] if tile else [])
            runs[tile] = json.loads(subprocess.run(args, check=True, capture_output=True,
                                                   text=True).stdout)
        t = {f["profile"]: f for f in runs[True]["profiles"]}["tightpack"]
        base = {f["profile"]: f for f in runs[False]["profiles"]}["tightpack"]
        lb = t["lowerBoundNodeHours"]  # tightpack's own day: which pods run when is its own
        print(f"| {seed} | {runs[True]['tiled']} | {base['nodeHours']:.2f} | {t['nodeHours']:.2f} | {lb:.2f} | "
              f"{t['nodeHours'] - t['busyNodeHours']:.2f} | {t['busyNodeHours'] - t['repackNodeHours']:.2f} | "
              f"{t['repackNodeHours'] - lb:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="1-8")
    parser.add_argument("--binary", type=Path, default=ROOT / "build/release/bench/tightpack_daskhub_day")
    parser.add_argument("--tightpack", type=Path, default=ROOT / "build/release/scheduler/tightpack")
    parser.add_argument("--levers", type=int, metavar="SEED")
    parser.add_argument("--pools", type=int, metavar="SEED")
    parser.add_argument("--tile", metavar="SEEDS")
    a = parser.parse_args()
    if a.tile is not None:
        lo, _, hi = a.tile.partition("-")
        tiled_seeds(a.binary, range(int(lo), int(hi or lo) + 1))
        return
    if a.levers is not None:
        levers(a.binary, a.tightpack, a.levers)
        return
    if a.pools is not None:
        per_pool(a.binary, a.tightpack, a.pools)
        return
    lo, _, hi = a.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)

    print("node-hours / workers evicted; idle, busy − repack, repack − lower bound (node-hours)\n")
    print("| seed | workers | rule | default | z2jh | tightpack | lower bound | tightpack: idle | placement | shapes |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
    goal = []
    for seed in seeds:
        runs = {}
        for protect in (False, True):
            for rule in RULES:
                d = day(a.binary, seed, rule, protect)
                runs[protect, rule] = d
                p = {f["profile"]: f for f in d["profiles"]}
                tp = p["tightpack"]
                print(f"| {seed} | {'protected' if protect else 'evictable'} | {rule} | "
                      f"{p['default']['nodeHours']:.2f} / {p['default']['evicted']} | "
                      f"{p['most-allocated']['nodeHours']:.2f} / {p['most-allocated']['evicted']} | "
                      f"{tp['nodeHours']:.2f} / {tp['evicted']} | {d['lowerBound']:.2f} | "
                      f"{tp['nodeHours'] - tp['busyNodeHours']:.2f} | {tp['busyNodeHours'] - tp['repackNodeHours']:.2f} | "
                      f"{tp['repackNodeHours'] - d['lowerBound']:.2f} |")
        z2jh = {f["profile"]: f for f in runs[False, "upstream"]["profiles"]}["most-allocated"]
        best = {f["profile"]: f for f in runs[True, "node-aware"]["profiles"]}["tightpack"]
        lb = runs[False, "upstream"]["lowerBound"]
        closed = (z2jh["nodeHours"] - best["nodeHours"]) / (z2jh["nodeHours"] - lb)
        goal.append((seed, z2jh["nodeHours"], best["nodeHours"], lb, closed))
    print("\nThe goal: tightpack with node-aware retirement and protected workers against zero-to-jupyterhub's "
          "profile with upstream retirement and evictable workers\n")
    print("| seed | z2jh, upstream | tightpack, node-aware, protected | lower bound | gap closed |")
    print("|---:|---:|---:|---:|---:|")
    for seed, z, b, lb, closed in goal:
        print(f"| {seed} | {z:.2f} | {b:.2f} | {lb:.2f} | {100 * closed:.1f} % |")


if __name__ == "__main__":
    main()
