"""Enabling it as the README says: the env list through dask-kubernetes' own
make_cluster_spec, and the operator's scheduler command run for real with that environment
(dask-scheduler from PyPI, two dask-worker processes on fake nodes): the configured preload
is installed and learns each worker's node."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from dask_kubernetes.operator import make_cluster_spec
from distributed import Client

from tightpack_dask.kubernetes import (
    GATEWAY_SCHEDULER_CMD,
    IDENTITY_ENV,
    NODE_NAME_ENV,
    SCHEDULER_PRELOAD_ENV,
    operator_env,
)

BIN = Path(sys.executable).parent


def container_env(entries: list[dict], node: str) -> dict:
    """A container's environment as the kubelet makes it, spec.nodeName being `node`."""
    env = {}
    for e in entries:
        if "value" in e:
            env[e["name"]] = e["value"]
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName":
            env[e["name"]] = node
    return env


def test_make_cluster_spec_carries_the_env():
    spec = make_cluster_spec(name="alice", image="ghcr.io/dask/dask:2026.8.0", env=operator_env({"A": "1"}))
    scheduler = spec["spec"]["scheduler"]["spec"]["containers"][0]
    worker = spec["spec"]["worker"]["spec"]["containers"][0]
    for c in (scheduler, worker):
        assert SCHEDULER_PRELOAD_ENV in c["env"] and NODE_NAME_ENV in c["env"]
        assert all(e in c["env"] for e in IDENTITY_ENV)
        assert {"name": "A", "value": "1"} in c["env"]
    assert "--preload" not in scheduler["args"]  # so the configured preload applies
    assert GATEWAY_SCHEDULER_CMD[1:] == ["--preload", "tightpack_dask.scheduler"]


def test_the_operators_scheduler_command_installs_it(tmp_path):
    spec = make_cluster_spec(name="alice", image="ghcr.io/dask/dask:2026.8.0", env=operator_env())
    scheduler = spec["spec"]["scheduler"]["spec"]["containers"][0]
    base = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    scheduler_file = tmp_path / "scheduler.json"
    # The container's args, on loopback ports of its own (the pod's are 8786/8787).
    # distributed no longer installs the dask-scheduler script; `dask scheduler` is its
    # replacement, with the same options.
    assert scheduler["args"][0] == "dask-scheduler"
    args = [str(BIN / "dask"), "scheduler", *scheduler["args"][1:]]
    args = [a if a != "0.0.0.0" else "127.0.0.1" for a in args]
    procs = [subprocess.Popen(args + ["--port", "0", "--dashboard-address", ":0", "--scheduler-file", str(scheduler_file)],
                              env={**base, **container_env(scheduler["env"], "node-core")})]
    try:
        for _ in range(300):
            if scheduler_file.exists() and scheduler_file.stat().st_size:
                break
            time.sleep(0.1)
        worker = spec["spec"]["worker"]["spec"]["containers"][0]
        for i, node in enumerate(["node-a", "node-b"]):
            procs.append(subprocess.Popen(
                [str(BIN / "dask"), "worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1",
                 "--name", f"w{i}", "--no-dashboard"],
                env={**base, **container_env(worker["env"], node)}))
        with Client(scheduler_file=str(scheduler_file), timeout=30) as client:
            client.wait_for_workers(2, timeout=60)

            def learnt(dask_scheduler):
                plugin = dask_scheduler.plugins.get("tightpack-retirement")
                if plugin is None:
                    return None
                return sorted(plugin.node_of(ws) or "" for ws in dask_scheduler.workers.values())

            for _ in range(100):
                nodes = client.run_on_scheduler(learnt)
                if nodes == ["node-a", "node-b"]:
                    break
                time.sleep(0.1)
            assert nodes == ["node-a", "node-b"]
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            p.wait(timeout=30)
