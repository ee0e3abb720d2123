"""The runs of the live cluster (issue 21): a scenario (the seed, or a DaskHub day) replayed
under each scheduler on the same live cluster, one after another, and the same scenario
through `tightpack pack-report`, the model, beside it.

    build/venv/bin/python tests/live/runs.py [--scenario seed|day] [--day-seed N] [--users N]
        [--scheduler tightpack|z2jh|default|all] [--factor F] [--moves] [--out DIR]

For each scheduler: a fresh namespace and no nodes but the scenario's; kwok; the real
cluster-autoscaler with pack-report's timings condensed by F; the scheduler, its queue's
backoff one second (kube-scheduler's default of 1 s to 10 s would be minutes of the
condensed clock); and a tightpack daemon for the sidebar's /snapshot (the scheduler itself
when it is tightpack; otherwise an observer no pod names). Before each `start` that finds the
cluster settled, the sidebar's question (`tightpack predict --pools`, the profile of the
scheduler under test) is asked on /snapshot and held against what cluster-autoscaler and the
scheduler then did. Writes DIR/results.json and prints the table bench/RESULTS.md holds.

With --moves (a day: its protected workers), tightpack runs with --move-dask-workers and the
model with `consolidate: move`; each Dask cluster's side is played by moves.py, and every node
a move emptied is held against what cluster-autoscaler then did."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "tests" / "scheduler"))
sys.path.insert(0, str(HERE))

import scenarios  # noqa: E402
from autoscaler import ClusterAutoscaler  # noqa: E402
from harness import FLAVOURS, TIGHTPACK, Cluster, KubeScheduler, TightpackScheduler, Watch, node_of, wait_for  # noqa: E402
from kwok import Kwok  # noqa: E402
from live_cluster import start_control_plane  # noqa: E402
from moves import DaskSides  # noqa: E402
from replay import LiveReplay, Timing, autoscaler_args, ca_metrics, figures  # noqa: E402
from test_dask_nodes import allow_listing_pods  # noqa: E402
from test_secure_port import service_account_token  # noqa: E402

SCHEDULERS = {"default": "kube-default", "z2jh": "kube-z2jh", "tightpack": "tightpack"}
PROFILE_OF = {"default": "default", "z2jh": "most-allocated", "tightpack": "tightpack"}  # pack-report's
BACKOFF = {"podInitialBackoffSeconds": 1, "podMaxBackoffSeconds": 1}


def pools_args(scenario: dict, workdir: Path) -> list:
    """The scenario's pools for tightpack, in model time: a pod waiting for a node hears
    "ready in about N minutes" as the model counts them (wait_events)."""
    pools = workdir / "pools.json"
    pools.write_text(json.dumps(scenario["pools"]))
    return ["--pools", str(pools)]


def move_args(timing: Timing) -> list:
    """tightpack's moves on the condensed clock: the model's minute between plans, the daemon's
    timeouts and a cluster's rest in model time."""
    return ["--move-dask-workers", f"--move-interval={timing.flag(60)}",
            f"--move-make-timeout={timing.flag(300)}", f"--move-drain-timeout={timing.flag(720)}",
            f"--move-rest={timing.flag(600)}"]


WAIT_NOTE = re.compile(r"ready in (?:about (\d+) minutes?|(under a minute))")


def wait_events(api, ns: str, pods, factor: float) -> list:
    """What tightpack told each pod that waited for a node (the first ScaleUpPredicted or
    NoScaleUpPredicted event on it, as KubeSpawner streams it to a spawn's progress bar), beside
    how long the pod then waited from its creation to its binding, in model minutes (None: never
    bound while it lived)."""
    first: dict = {}
    for e in api.list(f"/apis/events.k8s.io/v1/namespaces/{ns}/events"):
        if e.get("reason") not in ("ScaleUpPredicted", "NoScaleUpPredicted"):
            continue
        uid = e["regarding"].get("uid", "")
        if uid not in first or e["eventTime"] < first[uid]["eventTime"]:
            first[uid] = e
    created: dict = {}
    bound: dict = {}
    for t, _, p in pods.snapshot():
        uid = p["metadata"]["uid"]
        created.setdefault(uid, (t, p))
        if node_of(p):
            bound.setdefault(uid, t)
    out = []
    for uid, e in first.items():
        if uid not in created:
            continue
        t0, p = created[uid]
        m = WAIT_NOTE.search(e["note"])
        said = (float(m.group(1)) if m.group(1) else 0.5) if m else None
        waited = round((bound[uid] - t0) * factor / 60, 1) if uid in bound else None
        out.append({"pod": p["metadata"]["name"], "reason": e["reason"], "note": e["note"],
                    "saidMinutes": said, "waitedMinutes": waited})
    return sorted(out, key=lambda w: w["pod"])


def run_one(cp, scenario: dict, which: str, timing: Timing, workdir: Path, moves: bool = False) -> dict:
    flavour = FLAVOURS[SCHEDULERS[which]]
    moves = moves and flavour["kind"] == "tightpack"
    cluster = Cluster(cp, f"live-{which}")
    cluster.setup()
    api, ns = cluster.api, cluster.ns
    started: list = []
    watches: list = []
    try:
        def start(proc):
            started.append(proc)
            return proc.start()

        replay_dir = workdir / which
        replay_dir.mkdir(parents=True, exist_ok=True)
        if flavour["kind"] == "tightpack":
            sched = start(TightpackScheduler(cp, replay_dir, config=flavour["config"], qps=500, burst=1000,
                                             config_extra=BACKOFF,
                                             extra_args=[*pools_args(scenario, replay_dir),
                                                         *(move_args(timing) if moves else ())]))
            observer = sched
        else:
            start(KubeScheduler(cp, replay_dir, config=flavour["config"], scheduler_name=flavour["scheduler_name"],
                                qps=500, burst=1000, config_extra=BACKOFF))
            observer = start(TightpackScheduler(cp, replay_dir, qps=100, burst=200))
        replay = LiveReplay(api, ns, scenario, timing, flavour["scheduler_name"], snapshot=observer.snapshot,
                            workdir=replay_dir, config=flavour["config"], moves=moves)
        if moves:
            token = service_account_token(api, ns, "dask-side")
            allow_listing_pods(api, ns, "dask-side")
            # a question every 15 model seconds, as the preload's, but at most 4 a live second
            replay.dask_sides = DaskSides(replay, lambda path, t: sched.get(path, token=t), token,
                                          interval=max(0.25, timing.live(15)))
        replay.install(ns)
        start(Kwok(cp, replay_dir))
        ca = start(ClusterAutoscaler(cp, replay_dir, ns, extra_args=autoscaler_args(
            timing, scenario["pools"].get("expander", "least-waste"))))
        observer.wait_ready(timeout=60)
        nodes = Watch(api, "/api/v1/nodes")
        pods = Watch(api, f"/api/v1/namespaces/{ns}/pods")
        watches += [nodes, pods]
        began = time.monotonic()
        replay.run(nodes, pods, tail=3600)
        result = figures(replay, nodes, pods, ca_metrics(ca.port),
                         {n["metadata"]["name"] for n in scenario["cluster"].get("nodes", [])})
        result["liveSeconds"] = round(time.monotonic() - began, 1)
        result["predictions"] = [vars(w) | {"agrees": w.agrees} for w in replay.predictions]
        result["forecasts"] = [vars(f) | {"agrees": f.agrees} for f in replay.forecasts]
        result["waitEvents"] = wait_events(api, ns, pods, timing.factor)
        if moves:
            m = sched.metrics()
            sides = replay.dask_sides
            result["moves"] = {
                "started": int(m.value("tightpack_moves_started_total") or 0),
                "done": int(m.value("tightpack_moves_ended_total", result="done") or 0),
                "abandoned": int(m.value("tightpack_moves_ended_total", result="abandoned") or 0),
                "raises": sides.raises, "loweredBack": sides.lowered_back, "refusals": sides.refusals,
                "daskSideErrors": sides.errors, "daskSideLongestRound": round(sides.longest_round, 2),
                **sides.judge(nodes, pods)}
        for proc in started:
            if not proc.alive():
                raise RuntimeError(f"{proc.label} exited during the run:{proc.describe(40)}")
        return result
    finally:
        for w in watches:
            w.stop()
        for proc in reversed(started):
            proc.stop(timeout=10)
        api.delete(f"/apis/apps/v1/namespaces/{ns}/deployments", params={"propagationPolicy": "Background"})
        wait_for(lambda: not api.list(f"/apis/apps/v1/namespaces/{ns}/replicasets"), 60,
                 "the run's ReplicaSets to be collected")
        cluster.reset()


def pack_report(scenario: dict, workdir: Path) -> dict:
    path = workdir / "scenario.json"
    path.write_text(json.dumps(scenario))
    r = subprocess.run([str(TIGHTPACK), "pack-report", "--output", "json", str(path)], capture_output=True,
                       text=True, timeout=600)
    if r.returncode != 0:
        raise RuntimeError(f"tightpack pack-report failed: {r.stderr[-2000:]}")
    return {p["profile"]: p for p in json.loads(r.stdout)["profiles"]}


def agreement(predictions: list) -> str:
    judged = [w for w in predictions if w["complete"]]
    agree = sum(1 for w in judged if w["agrees"])
    return f"{agree}/{len(judged)}"


def ready_times(predictions: list) -> list:
    """(pool, predicted, live) in model minutes, for each pool a judged wave grew whose new nodes
    were all Ready before the next event: "about N minutes" beside when they were."""
    return [(pool, seconds / 60, w["actual_ready"][pool] / 60)
            for w in predictions if w["complete"]
            for pool, seconds in w["predicted_ready"].items()
            if w["actual_ready"].get(pool) is not None]


def error_summary(errors: list) -> str:
    if not errors:
        return "-"
    errors = sorted(errors)
    return f"{len(errors)}: median {errors[len(errors) // 2]:+.1f}, range {errors[0]:+.1f} to {errors[-1]:+.1f} min"


def ready_summary(predictions: list) -> str:
    return error_summary([live - predicted for _, predicted, live in ready_times(predictions)])


def wait_summary(waits: list) -> str:
    """The waiting pods' events: "about N minutes" against the wait, and "cannot" pods that ran."""
    said = [w["waitedMinutes"] - w["saidMinutes"] for w in waits
            if w["reason"] == "ScaleUpPredicted" and w["waitedMinutes"] is not None and w["saidMinutes"] is not None]
    cannot = [w for w in waits if w["reason"] == "NoScaleUpPredicted"]
    ran = sum(1 for w in cannot if w["waitedMinutes"] is not None)
    return error_summary(said) + (f"; cannot {len(cannot)}, of which ran {ran}" if cannot else "")


def table(results: dict, model: dict) -> str:
    pools = sorted({p for r in results.values() for p in r["pools"]})
    head = ("| scheduler | node-h live | node-h model | " + " | ".join(f"{p} live/model" for p in pools)
            + " | peak live/model | added/removed live | evicted live/model | waited (max min) | predictions agree"
            + " | ready live − predicted | waited − event said | forecasts agree |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for which, r in results.items():
        m = model[PROFILE_OF[which]]
        mp = {p["pool"]: p["nodeHours"] for p in m["pools"]}
        cells = [which, f"{r['nodeHours']:.1f}", f"{m['nodeHours']:.1f}"]
        cells += [f"{r['pools'].get(p, 0):.1f} / {mp.get(p, 0):.1f}" for p in pools]
        cells += [f"{r['peakNodes']} / {m['peakBusyNodes']}", f"{r['nodesAdded']}/{r['nodesRemoved']}",
                  f"{r['podsEvicted']} / {m['podsEvicted']}", f"{r['podsWaited']} ({r['maxWaitMinutes']})",
                  agreement(r["predictions"]), ready_summary(r["predictions"]),
                  wait_summary(r.get("waitEvents", [])),
                  f"{sum(1 for f in r['forecasts'] if f['agrees'])}/{len(r['forecasts'])}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenario", choices=("seed", "day"), default="seed")
    ap.add_argument("--day-seed", type=int, default=1)
    ap.add_argument("--users", type=int, default=0, help="users (default: the seed's 100, a day's 60)")
    ap.add_argument("--scheduler", choices=("default", "z2jh", "tightpack", "all"), default="all")
    ap.add_argument("--factor", type=float, default=60.0, help="model seconds per live second (default 60)")
    ap.add_argument("--moves", action="store_true",
                    help="a day with protected workers, tightpack moving them (and the model, consolidate: move)")
    ap.add_argument("--out", type=Path, default=HERE.parents[1] / "build" / "live-runs")
    args = ap.parse_args(argv)

    if args.moves and args.scenario != "day":
        ap.error("--moves replays a day")
    scenario = (scenarios.seed(args.users or scenarios.USERS) if args.scenario == "seed"
                else scenarios.day(args.day_seed, args.users or 60, protect=args.moves))
    if args.moves:
        scenario["consolidate"] = "move"
    out = args.out / (args.scenario if args.scenario == "seed" else
                      f"day-{args.day_seed}" + ("-moves" if args.moves else ""))
    if args.users:
        out = out.with_name(f"{out.name}-{args.users}-users")
    out.mkdir(parents=True, exist_ok=True)
    model = pack_report(scenario, out)
    timing = Timing(args.factor)
    which = list(SCHEDULERS) if args.scheduler == "all" else [args.scheduler]
    results: dict = {}
    with start_control_plane(out / "cluster") as cp:
        for w in which:
            t = time.monotonic()
            results[w] = run_one(cp, scenario, w, timing, out / "runs", moves=args.moves)
            print(f"== {w}: {time.monotonic() - t:.0f} s live, {results[w]['nodeHours']} node-h", flush=True)
            doc = {"scenario": args.scenario, "daySeed": args.day_seed, "users": args.users,
                   "factor": args.factor, "results": results, "model": model}
            (out / "results.json").write_text(json.dumps(doc, indent=1))  # after each: a long run
    print(table(results, model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
