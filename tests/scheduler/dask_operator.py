"""The dask-kubernetes operator from PyPI (tests/clients/requirements.txt), run as its image
runs it (`kopf run -m dask_kubernetes.operator.controller --all-namespaces`) against the test
control plane, from the real clients' environment (build/clients-venv, tests/clients/venv.sh).

- install_crds: the CustomResourceDefinitions of the operator's own Helm chart, shipped in
  the package.
- daskcluster: the DaskCluster a user's `KubeCluster(custom_cluster_spec=...)` creates, made by
  dask-kubernetes' own make_cluster_spec in that environment.
- DaskOperator: the controller as a process of the test."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import yaml
from harness import ROOT, ApiError, ControlPlane, SchedulerProcess, wait_for

CLIENTS_PYTHON = ROOT / "build" / "clients-venv" / "bin" / "python"


def _clients(code: str, *args: str) -> str:
    r = subprocess.run([str(CLIENTS_PYTHON), "-c", code, *args], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"build/clients-venv: {r.stderr[-2000:]}")
    return r.stdout


def install_crds(api) -> list:
    """Creates the operator chart's CRDs (once: an existing one is left as it is) and waits until
    each is served; returns their names."""
    package = Path(_clients("import dask_kubernetes, os; print(os.path.dirname(dask_kubernetes.__file__))").strip())
    crds_dir = package / "operator" / "deployment" / "helm" / "dask-kubernetes-operator" / "crds"
    names = []
    for path in sorted(crds_dir.glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        try:
            api.post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
        except ApiError as e:
            if e.status != 409:
                raise
        names.append(crd["metadata"]["name"])
    def established():
        for name in names:
            conditions = (api.get(f"/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}").get(
                "status") or {}).get("conditions") or []
            if not any(c["type"] == "Established" and c["status"] == "True" for c in conditions):
                return False
        return True

    wait_for(established, 30, "the operator's CRDs to be established")
    return names


def daskcluster(name: str, n_workers: int, resources: dict, pod_spec_extra: dict) -> dict:
    """make_cluster_spec(name, n_workers, resources) with `pod_spec_extra` merged into the
    scheduler's and the workers' pod specs, as docs/deploy.md tells a user to add schedulerName."""
    code = (
        "import json, sys\n"
        "from dask_kubernetes.operator import make_cluster_spec\n"
        "a = json.loads(sys.argv[1])\n"
        "spec = make_cluster_spec(name=a['name'], image='ghcr.io/dask/dask:2026.3.0', n_workers=a['n'],\n"
        "                         resources=a['resources'], env={})\n"
        "for part in ('scheduler', 'worker'):\n"
        "    spec['spec'][part]['spec'].update(a['extra'])\n"
        "print(json.dumps(spec))\n")
    return json.loads(_clients(code, json.dumps({"name": name, "n": n_workers, "resources": resources,
                                                 "extra": pod_spec_extra})))


# The operator reaches a Dask scheduler through its Service's cluster DNS name, which nothing
# resolves here: with `addresses`, the operator runs with get_scheduler_address answered from
# that file ({"namespace/service": {"http-dashboard": URL, "tcp-comm": ADDRESS}}), written by
# the test's own Dask scheduler (dask_side.py). A test double of cluster networking only: every
# handler, and what it sends, is the operator's.
ADDRESSES_DOUBLE = """
import importlib, json, sys
import kopf.cli
addresses = sys.argv.pop(1)
controller = importlib.import_module("dask_kubernetes.operator.controller.controller")
async def get_scheduler_address(service_name, namespace, port_name="tcp-comm", **_):
    with open(addresses) as f:
        return json.load(f)[f"{namespace}/{service_name}"][port_name]
controller.get_scheduler_address = get_scheduler_address
sys.argv[0] = "kopf"
kopf.cli.main()
"""


class DaskOperator(SchedulerProcess):
    def __init__(self, cp: ControlPlane, workdir: Path, addresses: Path | None = None):
        workdir.mkdir(parents=True, exist_ok=True)
        tag = f"dask-operator-{os.urandom(2).hex()}"
        start = [CLIENTS_PYTHON, "-m", "kopf"] if addresses is None else \
            [CLIENTS_PYTHON, "-c", ADDRESSES_DOUBLE, str(addresses)]
        argv = [*start, "run", "-m", "dask_kubernetes.operator.controller",
                "--all-namespaces", "--standalone", "--verbose"]
        super().__init__(argv, workdir / f"{tag}.log", "", "dask-kubernetes operator (kopf)")
        self.env = {**os.environ, "KUBECONFIG": cp.kubeconfig}  # kopf and kr8s read it


def delete_all(api, namespace: str):
    """What the operator and the controllers made in `namespace`, so that no controller of a
    later test makes pods from it again."""
    for path in (f"/apis/kubernetes.dask.org/v1/namespaces/{namespace}/daskautoscalers",
                 f"/apis/kubernetes.dask.org/v1/namespaces/{namespace}/daskclusters",
                 f"/apis/kubernetes.dask.org/v1/namespaces/{namespace}/daskworkergroups",
                 f"/apis/apps/v1/namespaces/{namespace}/deployments",
                 f"/apis/apps/v1/namespaces/{namespace}/replicasets"):
        api.delete(path)
