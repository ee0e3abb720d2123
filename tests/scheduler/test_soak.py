"""A short run of the soak (tests/scheduler/soak.py; the long one is bench/soak.sh): two
replicas, pods created and deleted, nodes added and removed, the leader killed and the API
server restarted, hostile clients on the ports and hostile pods in the cluster; then no pod bound twice, none left pending
that fits, none failed without an event, every fault survived, memory flat.

TIGHTPACK_SOAK_SECONDS sets the length (60 s here by default; scripts/test.sh gives the
sanitizer build's run 45 s); TIGHTPACK_SOAK_OUT names a file for the figures as JSON."""

from __future__ import annotations

import json
import os

from soak import Soak


def test_soak(cluster, schedulers):
    seconds = float(os.environ.get("TIGHTPACK_SOAK_SECONDS", "60"))
    long_run = seconds > 300
    # A fault and the restart it brings take 10-40 s beside the interval drawn (0.6-1.4 times
    # fault_every), so the run goes on past its length until it has met both kinds.
    min_faults = int(seconds / 180) if long_run else 2
    soak = Soak(cluster, schedulers, seconds=seconds, seed=int(os.environ.get("TIGHTPACK_SOAK_SEED", "1")),
                fault_every=60 if long_run else max(10.0, seconds / 3),
                node_every=20 if long_run else max(5.0, seconds / 9), min_faults=min_faults)
    figures = soak.run()
    print("\nsoak:", json.dumps(figures))
    if out := os.environ.get("TIGHTPACK_SOAK_OUT"):
        with open(out, "w") as f:
            json.dump(figures, f, indent=2)
    assert sum(figures["faults"].values()) >= min_faults
    assert long_run or set(figures["faults"]) == {"leader killed", "API server restarted"}
    assert figures["nodes"]["added"] and figures["nodes"]["removed"]
    assert figures["hostile_pods"] >= 6, figures["hostile_pods"]
    # Without a credential: refused at once (0: a replica restarting), never paced or served.
    assert set(figures["anonymous_metrics"]) <= {0, 401}, figures["anonymous_metrics"]
