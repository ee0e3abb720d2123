"""Fixtures of the scheduler suite: one control plane for the session, a fresh namespace
(and no nodes, no pods) per test, and the schedulers a test starts, stopped after it."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fixtures import cluster, control_plane  # noqa: E402,F401  (shared with tests/live)
from harness import (  # noqa: E402
    ControllerManager,
    KubeScheduler,
    TightpackScheduler,
    ZonalProvisioner,
    start_flavour,
)


def pytest_collection_modifyitems(config, items):
    """With TIGHTPACK_SKIP_KUBE_ONLY=1, only tightpack's side runs: a test that runs the real
    kube-scheduler alone checks nothing of a second tightpack build (a pass against another
    build after a full one). scripts/test.sh runs the suite once, against the AddressSanitizer
    build, with every item."""
    if os.environ.get("TIGHTPACK_SKIP_KUBE_ONLY") != "1":
        return
    kept, dropped = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        flavour = callspec.params.get("flavour") if callspec else None
        kube_only = (isinstance(flavour, str) and flavour.startswith("kube")) or \
            item.name.startswith("test_seed_kube_scheduler")
        (dropped if kube_only else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


class Schedulers:
    """Starts schedulers (and the controllers some tests need beside them) for one test; all are
    stopped (SIGTERM, then SIGKILL) after it."""

    def __init__(self, cp, workdir: Path):
        self.cp, self.workdir, self.started = cp, workdir, []

    def _track(self, proc):
        self.started.append(proc)
        return proc

    def flavour(self, flavour: str, **kw):
        """tightpack, kube-z2jh or kube-default (harness.FLAVOURS), started."""
        proc = start_flavour(flavour, self.cp, self.workdir, **kw)
        return self._track(proc)

    def tightpack(self, start=True, **kw) -> TightpackScheduler:
        proc = TightpackScheduler(self.cp, self.workdir, **kw)
        self._track(proc)
        return proc.start() if start else proc

    def kube(self, **kw) -> KubeScheduler:
        return self._track(KubeScheduler(self.cp, self.workdir, **kw).start())

    def controller_manager(self, **kw) -> ControllerManager:
        return self._track(ControllerManager(self.cp, self.workdir, **kw).start())

    def provisioner(self, name: str, topology_key: str, **kw) -> ZonalProvisioner:
        return self._track(ZonalProvisioner(self.cp, self.workdir, name, topology_key, **kw).start())

    def dask_operator(self, addresses=None):
        from dask_operator import DaskOperator
        return self._track(DaskOperator(self.cp, self.workdir, addresses).start())

    def jupyterhub(self, namespace: str, scheduler_name: str, **kw):
        """A real JupyterHub with KubeSpawner spawning into `namespace` (jupyterhub.py), started."""
        from jupyterhub import JupyterHub
        # tracked before it starts: a hub that does not come up is stopped after the test too
        return self._track(JupyterHub(self.cp, self.workdir, namespace, scheduler_name, **kw)).start()

    def stop_all(self):
        for proc in reversed(self.started):
            proc.stop(timeout=10)

    def logs(self, lines=60) -> str:
        return "".join(p.describe(lines) for p in self.started)


@pytest.fixture
def schedulers(cluster, tmp_path):
    s = Schedulers(cluster.cp, tmp_path / "schedulers")
    yield s
    s.stop_all()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.when == "call":
        s = getattr(item, "funcargs", {}).get("schedulers")
        if s is not None and s.started:
            report.sections.append(("scheduler logs", s.logs()))
