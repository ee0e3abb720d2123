"""core/tests/data/client_pods.json is what the pinned clients make today (record_pods.py):
core's test of what scheduling reads runs on it without Python."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT


def test_the_recorded_pods_are_what_the_clients_make():
    made = subprocess.run(
        [sys.executable, str(ROOT / "tests/clients/record_pods.py")], capture_output=True,
        text=True, check=True, timeout=300, cwd=ROOT / "tests/clients",
        env={**os.environ, "PYTHONHASHSEED": "0"}).stdout
    recorded = (ROOT / "core/tests/data/client_pods.json").read_text()
    assert made == recorded, (
        "the clients make other pods than core/tests/data/client_pods.json: record them again "
        "(tests/clients/record_pods.py says how) and run core_tests")
