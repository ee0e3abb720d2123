"""The Kubernetes source cuts pods and DaemonSets as the engine says it reads them:
exactly as `tightpack strip` cuts them (core/include/tightpack/scheduling_fields.hpp), on the
pods the real clients make (core/tests/data/client_pods.json), the repository's examples and
the corpora. The engine's own test holds that a pod so cut decodes to the same pod."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import pytest

from jupyterlab_tightpack.sources.kubernetes import strip_daemonset, strip_pod

REPO = pathlib.Path(__file__).resolve().parents[3]
BINARY = pathlib.Path(os.environ.get("TIGHTPACK", REPO / "build/release/scheduler/tightpack"))


def engine_strip(items: list) -> list:
    if not BINARY.exists():
        pytest.fail(f"tightpack is not built at {BINARY}: scripts/build.sh release", pytrace=False)
    doc = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    out = subprocess.run([str(BINARY), "strip"], input=doc, capture_output=True, text=True,
                         check=True, timeout=120).stdout
    return json.loads(out)["items"]


def collect(value, pods: list, daemonsets: list) -> None:
    """Every pod (an object with spec.containers) and DaemonSet (spec.template) in a document."""
    if isinstance(value, list):
        for item in value:
            collect(item, pods, daemonsets)
        return
    if not isinstance(value, dict):
        return
    spec = value.get("spec")
    if isinstance(spec, dict) and "containers" in spec and value.get("kind", "Pod") == "Pod":
        pods.append({**value, "apiVersion": "v1", "kind": "Pod"})
    if isinstance(spec, dict) and isinstance(spec.get("template"), dict) \
            and value.get("kind", "DaemonSet") == "DaemonSet":
        daemonsets.append({**value, "apiVersion": "apps/v1", "kind": "DaemonSet"})
    for item in value.values():
        collect(item, pods, daemonsets)


# What the API lists that no sample above has: a terminating worker with the start time
# preemption orders victims by, and a gated pending pod with a claim to a device.
LISTED = [
    {"metadata": {"name": "dask-worker-1", "namespace": "u", "labels": {"app": "dask"},
                  "deletionTimestamp": "2026-12-07T10:00:00Z",
                  "creationTimestamp": "2026-12-07T09:00:00Z"},
     "spec": {"nodeName": "n", "terminationGracePeriodSeconds": 30,
              "containers": [{"name": "w", "image": "dask",
                              "resources": {"requests": {"cpu": "1"}}}],
              "volumes": [{"name": "model", "image": {"reference": "ghcr.io/m:1"}},
                          {"name": "disk", "gcePersistentDisk": {"pdName": "d"}},
                          {"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}}]},
     "status": {"phase": "Running", "startTime": "2026-12-07T09:00:01Z",
                "conditions": [{"type": "Ready", "status": "True"}]}},
    {"metadata": {"name": "gpu-job", "namespace": "u"},
     "spec": {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}],
              "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-0"}],
              "containers": [{"name": "j", "image": "cuda"}]},
     "status": {"phase": "Pending"}},
]


def samples() -> tuple[list, list]:
    pods: list = []
    collect(LISTED, pods, [])
    daemonsets: list = []
    documents = [REPO / "core/tests/data/client_pods.json", *sorted(REPO.glob("examples/**/*.json"))]
    for path in documents:
        collect(json.loads(path.read_text()), pods, daemonsets)
    shared = REPO.parent / "shared"
    for name in ("corpus/dev.jsonl", "corpus/edge.jsonl", "autoscaler/dev.jsonl"):
        if (shared / name).exists():
            for line in (shared / name).read_text().splitlines():
                collect(json.loads(line), pods, daemonsets)
    return pods, daemonsets


def test_pods_are_cut_as_the_engine_cuts_them():
    pods, _ = samples()
    assert len(pods) > 100
    cut = engine_strip(pods)
    for pod, ours, engine in zip(pods, (strip_pod(p) for p in pods), cut):
        assert ours == engine, f"{pod['metadata'].get('name')}: {json.dumps(pod)}"


def test_daemonsets_are_cut_as_the_engine_cuts_them():
    _, daemonsets = samples()
    assert daemonsets
    for ds, engine in zip(daemonsets, engine_strip(daemonsets)):
        assert strip_daemonset(ds) == engine, json.dumps(ds)
