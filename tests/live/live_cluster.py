"""The live cluster's control plane: tests/scheduler's, with what a cluster with kubelets has
and the shared test control plane does not. Nodes are tainted node.kubernetes.io/not-ready
until Ready (TaintNodesByCondition, and the node lifecycle controller, which kwok's leases and
heartbeats keep content); the pods of deleted nodes are collected; Deployments, ReplicaSets
and the garbage collector give workers real owners. Used by conftest.py and runs.py."""

from __future__ import annotations

import contextlib
from pathlib import Path

from harness import ControllerManager, ControlPlane

# A node may boot for minutes (a GPU pool), longer than the lifecycle controller's default
# startup grace of 60 s, after which it would call the node Unknown. Client rates well above
# the controllers' default of 20/s: a Dask cluster of 32 workers is 32 Deployments, and the
# live clock is condensed.
LIFECYCLE = ("node-lifecycle-controller", "pod-garbage-collector-controller")
CONTROLLER_ARGS = ("--node-startup-grace-period=10m", "--kube-api-qps=300", "--kube-api-burst=600",
                   "--concurrent-deployment-syncs=10", "--concurrent-replicaset-syncs=10")


@contextlib.contextmanager
def start_control_plane(directory: Path):
    directory.mkdir(parents=True, exist_ok=True)
    cp = ControlPlane(directory / "controlplane", node_conditions=True).start()
    controllers = None
    try:
        controllers = ControllerManager(cp, directory / "controllers",
                                        controllers=ControllerManager.DEFAULT + LIFECYCLE,
                                        extra_args=CONTROLLER_ARGS).start()
        yield cp
    finally:
        if controllers is not None:
            controllers.stop(timeout=10)
        cp.stop()
