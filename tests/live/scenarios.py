"""The workloads of the live runs, as packing scenarios (`tightpack pack-report`'s format,
docs/packing.md), so that the model replays exactly what the live cluster is given:

- `day(seed)`: a day of a DaskHub on GKE, as bench/daskhub_day.cpp generates it (its pools,
  core node and hub pod, users' notebooks and Dask clusters, adapt() shrinks);
- `seed()`: the seed scenario (tests/scheduler/test_seed.py) on those pools: 100 users × 10
  one-cpu Dask workers (the operator's, ReplicaSet-owned) arrive one user a wave and leave at
  random until eight remain, then everyone leaves and two users start ten each.

Every pool states its provisioningTime: the engine's default for a pool without one
(core/include/tightpack/pools/pools.hpp, 3 min) is written out, because the live cluster boots
its nodes for exactly that long (build.sh's stages) and must not guess it."""

from __future__ import annotations

import json
import random
import subprocess
import tempfile
from pathlib import Path

from harness import ROOT

DAY_BENCH = ROOT / "build" / "release" / "bench" / "tightpack_daskhub_day"
DEFAULT_PROVISIONING = "3m"  # kDefaultProvisioningSeconds, made explicit

SEED = 20260611  # test_seed.py's
USERS, WORKERS, KEEP = 100, 10, 8
WAVE_EVERY, LEAVE_AFTER = 360, 300  # seconds: a wave's scale-up (a loop, a 3-min boot) is done before anyone leaves


def day(seed: int = 1, users: int = 60, protect: bool = False) -> dict:
    """bench/daskhub_day.cpp's day for `seed`: the one `tightpack_daskhub_day --seed` prints
    (with `protect`, its --protect-workers: workers annotated safe-to-evict "false")."""
    if not DAY_BENCH.exists():
        raise FileNotFoundError(f"{DAY_BENCH} is not built: cmake --build --preset release --target tightpack_daskhub_day")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "day.json"
        subprocess.run([str(DAY_BENCH), "--seed", str(seed), "--users", str(users), "--scenario", str(out),
                        *(["--protect-workers"] if protect else [])],
                       check=True, capture_output=True, timeout=120)
        doc = json.loads(out.read_text())
    for pool in doc["pools"]["pools"]:
        pool.setdefault("provisioningTime", DEFAULT_PROVISIONING)
    return doc


def worker_template(user: str) -> dict:
    """A Dask worker of the seed, as the operator's (owned by its Deployment's ReplicaSet:
    movable): one cpu, 1 GiB, on the preemptible dask-workers pool."""
    return {"metadata": {"name": "worker", "namespace": "jhub",
                         "labels": {"dask.org/cluster-name": user, "dask.org/component": "worker"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                              "name": f"{user}-default-worker-5d8f9c7b6", "controller": True}]},
            "spec": {"containers": [{"name": "worker", "image": "ghcr.io/dask/dask:2024.1.0",
                                     "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
                     "tolerations": [{"key": "dask", "operator": "Equal", "value": "worker", "effect": "NoSchedule"}],
                     "nodeSelector": {"cloud.google.com/gke-nodepool": "dask-workers"}}}


def seed(users: int = USERS) -> dict:
    """The seed on the DaskHub pools, one user a wave: user i starts ten workers at i × 6 min;
    5 minutes later (its scale-up, a loop and a 3-minute boot, is done) users picked at random
    with the seed leave until eight remain, so departures leave holes all over the pool. After
    the last user, a quiet half hour (scale-down at work); then everyone left leaves (shuffled, a minute apart), then two users start ten
    workers each; the day ends an hour later, time for cluster-autoscaler to remove what is
    unneeded."""
    base = day()
    rng = random.Random(SEED)
    events: list = []
    active: list = []
    t = 0
    for i in range(users):
        t = i * WAVE_EVERY
        user = f"user-{i:03d}"
        events.append({"at": f"{t}s", "start": user, "replicas": WORKERS, "pod": worker_template(user)})
        active.append(user)
        while len(active) > KEEP:
            gone = active.pop(rng.randrange(len(active)))
            events.append({"at": f"{t + LEAVE_AFTER}s", "stop": gone})
    # a quiet half hour: cluster-autoscaler removes what the departures left unneeded
    t += WAVE_EVERY + 30 * 60
    rng.shuffle(active)
    for user in active:
        events.append({"at": f"{t}s", "stop": user})
        t += 60
    t += 4 * 60
    for user in ("alice", "bob"):
        events.append({"at": f"{t}s", "start": user, "replicas": WORKERS, "pod": worker_template(user)})
        t += WAVE_EVERY
    return {"cluster": base["cluster"], "pools": base["pools"], "events": events, "end": f"{t + 3600}s"}


def move_case() -> dict:
    """Two users' protected workers on the day's pools, so that one move empties a node: alice's
    4 workers fill half a dask-workers node, bob's 6 then fill the rest of it and half another;
    alice leaves; bob's workers on two half-empty nodes keep both (protected, unreplicated to
    cluster-autoscaler's drain) until one move puts them on one. bob leaves at 60 minutes."""
    base = day(protect=True)

    def protected(user: str) -> dict:
        t = worker_template(user)
        t["metadata"]["annotations"] = {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}
        return t

    events = [{"at": "0s", "start": "alice", "replicas": 4, "pod": protected("alice")},
              {"at": "600s", "start": "bob", "replicas": 6, "pod": protected("bob")},
              {"at": "1200s", "stop": "alice"},
              {"at": "3600s", "stop": "bob"}]
    return {"cluster": base["cluster"], "pools": base["pools"], "events": events, "end": "5400s",
            "consolidate": "move"}


def parse_duration(text: str) -> float:
    """Seconds of a Go-style duration as pack-report scenarios write them ("90s", "10m", "24h",
    "1h30m")."""
    import re

    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    unit = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * unit[u] for n, u in parts)
