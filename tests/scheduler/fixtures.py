"""The fixtures every suite on the test control plane shares (tests/scheduler, tests/live):
one control plane per session, and per test a fresh namespace with no nodes or pods left from
other tests. Each conftest imports them."""

from __future__ import annotations

import pytest
from harness import Cluster, ControlPlane


@pytest.fixture(scope="session")
def control_plane(tmp_path_factory):
    cp = ControlPlane(tmp_path_factory.mktemp("controlplane")).start()
    yield cp
    cp.stop()


@pytest.fixture
def cluster(control_plane, request):
    c = Cluster(control_plane, request.node.name)
    c.setup()
    yield c
    c.reset()
