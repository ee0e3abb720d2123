"""Paths of the binaries under test, and a kubeconfig for KubeSpawner: it loads one when it is
made, even when it only builds manifests (it never connects here)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(ROOT / "tests" / "conformance"))
sys.path.insert(0, str(ROOT / "labextension"))  # the sidebar's server extension

import z2jh  # noqa: E402  (tests/clients, on the path above)

TIGHTPACK = Path(os.environ.get("TIGHTPACK", ROOT / "build/release/scheduler/tightpack"))
REFERENCE = Path(os.environ.get("REFERENCE", ROOT / "build/conformance/kube-scheduler-reference"))
CA_REFERENCE = Path(os.environ.get("CA_REFERENCE", ROOT / "build/conformance/cluster-autoscaler-reference"))
# zero-to-jupyterhub's released charts run their user-scheduler on v1.30.14.
REFERENCE_V130 = Path(os.environ.get("REFERENCE_V130", ROOT / "build/conformance/kube-scheduler-reference-v1.30.14"))



@pytest.fixture(scope="session", autouse=True)
def kubeconfig(tmp_path_factory):
    path = tmp_path_factory.mktemp("kube") / "config"
    path.write_text(z2jh.NOWHERE_KUBECONFIG)
    os.environ["KUBECONFIG"] = str(path)
    yield path


@pytest.fixture(scope="session")
def binaries():
    for what, path, how in ((
            "tightpack", TIGHTPACK, "cmake --preset release && cmake --build --preset release"),
            ("kube-scheduler-reference", REFERENCE, "tests/conformance/reference/build.sh"),
            ("kube-scheduler-reference-v1.30.14", REFERENCE_V130,
             "tests/conformance/reference/build.sh --release v1.30.14")):
        if not path.exists():
            pytest.fail(f"{what} is not built at {path}: {how}", pytrace=False)
    return TIGHTPACK, {"v1.37": REFERENCE, "v1.30": REFERENCE_V130}


@pytest.fixture(scope="session")
def ca_reference():
    """cluster-autoscaler's own loop (tests/conformance/autoscaler-reference)."""
    if not CA_REFERENCE.exists():
        pytest.fail(f"cluster-autoscaler-reference is not built at {CA_REFERENCE}: "
                    "tests/conformance/autoscaler-reference/build.sh", pytrace=False)
    return CA_REFERENCE
