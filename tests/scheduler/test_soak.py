"""A short run of the soak (tests/scheduler/soak.py; the long one is bench/soak.sh): two
replicas, pods created and deleted, nodes added and removed, the leader killed and the API
server restarted, hostile clients on the ports; then no pod bound twice, none left pending
that fits, none failed without an event, every fault survived, memory flat.

TIGHTPACK_SOAK_SECONDS sets the length (90 s here by default); TIGHTPACK_SOAK_OUT names a
file for the figures as JSON."""

from __future__ import annotations

import json
import os

from soak import Soak


def test_soak(cluster, schedulers):
    seconds = float(os.environ.get("TIGHTPACK_SOAK_SECONDS", "90"))
    long_run = seconds > 300
    soak = Soak(cluster, schedulers, seconds=seconds, seed=int(os.environ.get("TIGHTPACK_SOAK_SEED", "1")),
                fault_every=60 if long_run else 25, node_every=20 if long_run else 10)
    figures = soak.run()
    print("\nsoak:", json.dumps(figures))
    if out := os.environ.get("TIGHTPACK_SOAK_OUT"):
        with open(out, "w") as f:
            json.dump(figures, f, indent=2)
    assert sum(figures["faults"].values()) >= (2 if not long_run else seconds / 120)
    assert figures["nodes"]["added"] and figures["nodes"]["removed"]
