"""Fixtures of the live cluster: the test control plane of tests/scheduler with nodes tainted
not-ready until Ready, kube-controller-manager for the session, namespaces as tests/scheduler's
(fixtures.py), kwok managing the nodes the test makes as a cloud's would be, and the schedulers and
controllers a test starts, stopped after it (tests/scheduler/harness.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "scheduler"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from autoscaler import ClusterAutoscaler  # noqa: E402
from fixtures import cluster  # noqa: E402,F401  (tests/scheduler's)
from harness import ControlPlane, TightpackScheduler  # noqa: E402
from kwok import Kwok  # noqa: E402
from live_cluster import start_control_plane  # noqa: E402


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory):
    with start_control_plane(tmp_path_factory.mktemp("live")) as cp:
        yield cp


class Parts:
    """The processes a test starts, stopped (SIGTERM, then SIGKILL) after it, last first."""

    def __init__(self, cp: ControlPlane, workdir: Path):
        self.cp, self.workdir, self.started = cp, workdir, []

    def kwok(self, **kw) -> Kwok:
        proc = Kwok(self.cp, self.workdir, **kw)
        self.started.append(proc)
        return proc.start()

    def autoscaler(self, namespace: str, **kw) -> ClusterAutoscaler:
        proc = ClusterAutoscaler(self.cp, self.workdir, namespace, **kw)
        self.started.append(proc)
        return proc.start()

    def tightpack(self, **kw) -> TightpackScheduler:
        proc = TightpackScheduler(self.cp, self.workdir, **kw)
        self.started.append(proc)
        return proc.start()

    def stop_all(self):
        for proc in reversed(self.started):
            proc.stop(timeout=10)


@pytest.fixture
def parts(control_plane, tmp_path):
    p = Parts(control_plane, tmp_path / "parts")
    (tmp_path / "parts").mkdir()
    yield p
    p.stop_all()
