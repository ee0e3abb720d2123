"""kwok (sigs.k8s.io/kwok, built by build.sh) out of cluster, as the live cluster's kubelets:
it manages the nodes annotated kwok.x-k8s.io/node=fake (what cluster-autoscaler's kwok cloud
provider writes on the nodes it creates) with kwok's own stages (build/live/stages.yaml): a
node becomes Ready and keeps its heartbeat, a bound pod becomes Running, a deleted one goes."""

from __future__ import annotations

import os
from pathlib import Path

from harness import ROOT, ControlPlane, SchedulerProcess

LIVE = ROOT / "build" / "live"
FAKE = {"kwok.x-k8s.io/node": "fake"}  # the annotation kwok manages nodes by


class Kwok(SchedulerProcess):
    def __init__(self, cp: ControlPlane, workdir: Path, stages: Path = LIVE / "stages.yaml"):
        workdir.mkdir(parents=True, exist_ok=True)
        tag = f"kwok-{os.urandom(2).hex()}"
        kubeconfig = cp.write_kubeconfig(workdir / f"{tag}.kubeconfig")
        argv = [LIVE / "kwok", "--kubeconfig", kubeconfig, "--config", stages,
                "--manage-nodes-with-annotation-selector", "kwok.x-k8s.io/node=fake"]
        super().__init__(argv, workdir / f"{tag}.log", "", "kwok")

    def start(self, **_):
        return self.start_alive(0.5)
