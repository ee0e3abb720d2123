"""Shared helpers: nodes for in-process workers, and reading where workers run."""

from __future__ import annotations

import pytest
from tightpack_dask.scheduler import NodeAwareRetirement, install


def place(plugin: NodeAwareRetirement, layout: dict[str, list[str]]) -> None:
    """Puts in-process workers on fake nodes, as the `run` RPC would learn them (in-process
    workers share one environment, so K8S_NODE_NAME cannot differ between them)."""
    for node, addresses in layout.items():
        for a in addresses:
            plugin.nodes[a] = node


def nodes_emptied(layout: dict[str, list[str]], retired: list[str]) -> set[str]:
    gone = set(retired)
    return {node for node, addresses in layout.items() if all(a in gone for a in addresses)}


def spread_against_upstream(addresses: list[str]) -> dict[str, list[str]]:
    """Six workers on three nodes so that upstream's n=3 (the three greatest addresses)
    takes one worker from each node and empties only node-c, while node-b (2 workers)
    and node-c (1) could both empty."""
    a = sorted(addresses)
    assert len(a) == 6
    return {"node-a": [a[5], a[1], a[0]], "node-b": [a[4], a[2]], "node-c": [a[3]]}


@pytest.fixture
def installed():
    """Installs the preload's override on a scheduler (hints off)."""

    def _install(scheduler) -> NodeAwareRetirement:
        return install(scheduler, hints=None)

    return _install
