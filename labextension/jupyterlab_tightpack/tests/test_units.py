"""Admission rules, quantities, the demo data and the package's entry points, without a server."""

from __future__ import annotations

import json
import pathlib

import pytest
import yaml
from conftest import REPO

import jupyterlab_tightpack
from jupyterlab_tightpack.quantity import cpu_quantity, parse_byte_spec
from jupyterlab_tightpack.sources import demo

PACKAGE = pathlib.Path(jupyterlab_tightpack.__file__).parent


def pod(*containers, init=(), tolerations=None):
    spec = {"containers": list(containers)}
    if init:
        spec["initContainers"] = list(init)
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


def container(name="c", requests=None, limits=None):
    resources = {}
    if requests is not None:
        resources["requests"] = requests
    if limits is not None:
        resources["limits"] = limits
    return {"name": name, "resources": resources}


GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


# ---------------------------------------------------------------- quantities

@pytest.mark.parametrize("spec,expected", [
    ("12G", 12 * 1024**3), ("1.5G", int(1.5 * 1024**3)), ("512M", 512 * 1024**2),
    ("4 G", 4 * 1024**3), ("2Gi", 2 * 1024**3), ("1024", 1024), (1000, 1000), (2.5e9, 2500000000),
])
def test_byte_specifications(spec, expected):
    assert parse_byte_spec(spec, "mem") == expected


@pytest.mark.parametrize("spec", ["lots", "12GB", "", True, None])
def test_bad_byte_specifications(spec):
    with pytest.raises(ValueError, match="mem"):
        parse_byte_spec(spec, "mem")


@pytest.mark.parametrize("cores,expected", [(1, "1"), (1.8, "1800m"), (0.5, "500m"),
                                            ("250m", "250m"), ("2", "2"), (0.0005, "0")])
def test_cpu_quantities(cores, expected):
    assert cpu_quantity(cores, "cpu") == expected


# ---------------------------------------------------------------- the demo

def test_demo_data_matches_the_examples():
    """The committed JSON is examples/daskhub-gke (its home-disk/ moment) and
    config/tightpack.yaml: run python -m jupyterlab_tightpack.demo.regenerate after
    changing them."""
    data = PACKAGE / "demo"
    assert json.loads((data / "cluster.json").read_text()) == json.loads(
        (REPO / "examples/daskhub-gke/cluster.json").read_text())
    assert json.loads((data / "pools.json").read_text()) == yaml.safe_load(
        (REPO / "examples/daskhub-gke/home-disk/pools.yaml").read_text())
    assert json.loads((data / "kubespawner-defaults.json").read_text()) == yaml.safe_load(
        (REPO / "examples/daskhub-gke/home-disk/kubespawner-defaults.yaml").read_text())
    assert json.loads((data / "home.json").read_text()) == json.loads(
        (REPO / "examples/daskhub-gke/home-disk/home.json").read_text())
    assert json.loads((data / "scheduler-configuration.json").read_text()) == yaml.safe_load(
        (REPO / "config/tightpack.yaml").read_text())


def test_apportion():
    assert demo.apportion([2, 2, 1], 1000) == [400, 400, 200]
    assert demo.apportion([2, 2, 1], 7) == [3, 3, 1]
    assert demo.apportion([2, 2, 1], 2) == [1, 1, 0]
    assert sum(demo.apportion([3, 5, 7], 1234)) == 1234


def test_scaled_demo_is_deterministic_and_consistent():
    first, _ = demo.load(7)
    second, detail = demo.load(7)
    assert first.cluster == second.cluster and detail.endswith("scaled to 7 nodes")
    items = first.cluster["items"]
    nodes = [i["metadata"]["name"] for i in items if i["kind"] == "Node"]
    assert nodes[2] == "gke-daskhub-core-pool-7f3a-1x2c-1"
    copy_node = next(i for i in items if i["metadata"]["name"] == nodes[2])
    assert copy_node["metadata"]["labels"]["kubernetes.io/hostname"] == nodes[2]
    on_copy = [i["metadata"]["name"] for i in items
               if i["kind"] == "Pod" and i["spec"].get("nodeName") == nodes[2]]
    assert sorted(on_copy) == ["fluentbit-gke-1x2c-1", "hub-6d9f8c7b4-tq2xw-1",
                               "kube-proxy-gke-daskhub-core-pool-7f3a-1x2c-1",
                               "proxy-5f7c9d8b6-kc9d2-1"]
    assert {i["kind"] for i in items} == {"Node", "Pod", "DaemonSet", "StorageClass",
                                          "PersistentVolumeClaim", "PersistentVolume"}
    # the user's claim and volume once, not per copy of a node
    assert [i["metadata"]["name"] for i in items if i["kind"] == "PersistentVolumeClaim"] == [
        "claim-alice"]


def test_demo_above_the_pool_limit_is_capped_with_a_note():
    snapshot, detail = demo.load(10001)
    assert detail.endswith("scaled to 10000 nodes")
    assert snapshot.notes == ["demo_nodes 10001 is above 10000: scaled to 10000"]
    assert all(p.get("maxSize", 0) <= 10000 for p in snapshot.pools["pools"])


# ---------------------------------------------------------------- the package

def test_entry_points_and_server_config():
    assert jupyterlab_tightpack._jupyter_labextension_paths() == [
        {"src": "labextension", "dest": "jupyterlab-tightpack"}]
    assert jupyterlab_tightpack._jupyter_server_extension_points() == [
        {"module": "jupyterlab_tightpack"}]
    config = PACKAGE.parent / "jupyter-config" / "server-config" / "jupyterlab_tightpack.json"
    assert json.loads(config.read_text()) == {
        "ServerApp": {"jpserver_extensions": {"jupyterlab_tightpack": True}}}
