"""The Kubernetes API source, against a local test double of the API server."""

from __future__ import annotations

import json

import pytest
import tornado.web
from conftest import example

TOKEN = "first-token"


def full_pod():
    """A pod as the API lists it, with much that scheduling does not read."""
    return {
        "metadata": {
            "name": "dask-worker-0", "namespace": "daskhub", "uid": "u-1",
            "labels": {"app": "dask"},
            "annotations": {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false",
                            "kubectl.kubernetes.io/last-applied-configuration": "{...}"},
            "ownerReferences": [{"kind": "ReplicaSet", "name": "rs", "uid": "u-rs",
                                 "controller": True}],
            "creationTimestamp": "2025-01-01T00:00:00Z",
            "resourceVersion": "123",
            "managedFields": [{"manager": "kubectl"}],
        },
        "spec": {
            "nodeName": "node-a", "schedulerName": "default-scheduler", "priority": 0,
            "preemptionPolicy": "PreemptLowerPriority",
            "serviceAccountName": "default", "dnsPolicy": "ClusterFirst",
            "containers": [{
                "name": "worker", "image": "ghcr.io/dask/dask:latest",
                "command": ["dask-worker"], "env": [{"name": "A", "value": "1"}],
                "resources": {"requests": {"cpu": "1", "memory": "4Gi"}},
                "ports": [{"containerPort": 8788, "hostPort": 8788}],
                "livenessProbe": {"httpGet": {"port": 8788}},
                "volumeMounts": [{"name": "scratch", "mountPath": "/tmp"}],
            }],
            "initContainers": [{"name": "sidecar", "image": "proxy", "restartPolicy": "Always",
                                "resources": {"requests": {"cpu": "100m"}}, "args": ["x"]}],
            "overhead": {"cpu": "10m"},
            "nodeSelector": {"pool": "workers"},
            "affinity": {"nodeAffinity": {}},
            "tolerations": [{"key": "dask", "operator": "Exists"}],
            "topologySpreadConstraints": [],
            "volumes": [{"name": "scratch", "emptyDir": {}},
                        {"name": "host", "hostPath": {"path": "/data"}},
                        {"name": "home", "persistentVolumeClaim": {"claimName": "home"}},
                        {"name": "config", "configMap": {"name": "c"}},
                        {"name": "token", "projected": {"sources": []}}],
        },
        "status": {"phase": "Running", "nominatedNodeName": "", "podIP": "10.0.0.1",
                   "containerStatuses": [{"name": "worker", "ready": True}],
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


def nodes():
    listed = [dict(n) for n in example("daskhub-gke", "cluster.json")["items"]
              if n["kind"] == "Node"]
    for node in listed:  # the API lists items without kind and apiVersion
        node.pop("kind"), node.pop("apiVersion")
        node["metadata"] = dict(node["metadata"], managedFields=[{"manager": "kubelet"}])
    return listed


class FakeAPI(tornado.web.RequestHandler):
    """Test double of the Kubernetes API server: lists, pages of 2, RBAC answers."""

    def initialize(self, state, kind):
        self.state, self.kind = state, kind

    def get(self):
        self.state["requests"].append((self.request.path, dict(
            (k, self.get_query_argument(k)) for k in self.request.query_arguments)))
        if self.request.headers.get("Authorization") != f"Bearer {self.state['token']}":
            self.set_status(401)
            self.finish({"kind": "Status", "message": "Unauthorized"})
            return
        status = self.state["status"].get(self.request.path)
        if status:
            self.set_status(status)
            self.finish({"kind": "Status", "code": status,
                         "message": f'{self.kind} is forbidden: User "system:serviceaccount:'
                                    f'daskhub:default" cannot list resource'})
            return
        start = int(self.get_query_argument("continue", "0"))
        limit = 2
        items = self.state["items"][self.request.path]
        page = items[start:start + limit]
        more = start + limit < len(items)
        self.finish({"kind": f"{self.kind}List", "apiVersion": "v1",
                     "metadata": {"continue": str(start + limit) if more else ""},
                     "items": page})


@pytest.fixture
def fake_api(serve, service_account, tightpack):
    """The test double started, the service account's token written, the config pointed at it."""
    state = {"token": TOKEN, "status": {}, "requests": []}
    pdb = {"metadata": {"name": "hub", "namespace": "daskhub", "managedFields": [{}]},
           "spec": {"minAvailable": 1}, "status": {"disruptionsAllowed": 0}}
    ds = {"metadata": {"name": "fluentbit", "namespace": "kube-system", "uid": "u-ds"},
          "spec": {"selector": {"matchLabels": {"k8s-app": "fluentbit"}},
                   "template": {"metadata": {"labels": {"k8s-app": "fluentbit"}},
                                "spec": full_pod()["spec"]}},
          "status": {"numberReady": 5}}
    routes = [("/api/v1/nodes", "Node", nodes()),
              ("/api/v1/pods", "Pod", [full_pod()] * 3),
              ("/apis/apps/v1/daemonsets", "DaemonSet", [ds]),
              ("/apis/policy/v1/poddisruptionbudgets", "PodDisruptionBudget", [pdb])]
    state["items"] = {path: items for path, _, items in routes}
    url = serve([(path, FakeAPI, {"state": state, "kind": kind}) for path, kind, _ in routes])
    (service_account / "token").write_text(TOKEN + "\n")
    tightpack.kubernetes_host = url
    state["url"] = url
    return state


async def test_kubernetes_source(fake_api, get):
    status, body = await get("snapshot")
    assert status == 200, body
    assert body["source"] == {"kind": "kubernetes", "detail": fake_api["url"]}
    items = body["cluster"]["items"]
    assert [i["kind"] for i in items] == ["Node"] * 5 + ["Pod"] * 3 + [
        "DaemonSet", "PodDisruptionBudget"]
    assert all("managedFields" not in i["metadata"] for i in items)
    assert items[0]["apiVersion"] == "v1" and items[0]["status"]["allocatable"]["cpu"] == "3920m"
    assert body["pools"] is None and body["profiles"] == [] and body["notes"] == []
    # the source does not say: the engine infers it from the nodes (GKE's here)
    assert body["admission"] == {"extendedResourceToleration": None}
    # pages of 2 followed; finished pods left out by a field selector
    pod_requests = [q for path, q in fake_api["requests"] if path == "/api/v1/pods"]
    assert len(pod_requests) == 2 and pod_requests[1]["continue"] == "2"
    assert pod_requests[0]["fieldSelector"] == "status.phase!=Succeeded,status.phase!=Failed"


async def test_pods_are_stripped_to_what_scheduling_reads(fake_api, get):
    """What is kept is what the engine reads (test_scheduling_fields.py); here, that the
    source cuts what it lists, and what goes."""
    _, body = await get("snapshot")
    pod = next(i for i in body["cluster"]["items"] if i["kind"] == "Pod")
    assert pod["metadata"] == {
        "name": "dask-worker-0", "namespace": "daskhub", "uid": "u-1",
        "labels": {"app": "dask"},
        "annotations": {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"},
        "ownerReferences": [{"kind": "ReplicaSet", "name": "rs", "uid": "u-rs",
                             "controller": True}],
        "creationTimestamp": "2025-01-01T00:00:00Z"}
    spec = pod["spec"]
    assert set(spec) == {"nodeName", "schedulerName", "priority", "preemptionPolicy",
                         "containers", "initContainers", "overhead", "nodeSelector", "affinity",
                         "tolerations", "topologySpreadConstraints", "volumes"}
    assert spec["containers"] == [{"name": "worker", "image": "ghcr.io/dask/dask:latest",
                                   "resources": {"requests": {"cpu": "1", "memory": "4Gi"}},
                                   "ports": [{"containerPort": 8788, "hostPort": 8788}]}]
    assert spec["initContainers"][0] == {"name": "sidecar", "image": "proxy",
                                         "restartPolicy": "Always",
                                         "resources": {"requests": {"cpu": "100m"}}}
    # sources no scheduling plugin reads go, the volume's name stays
    assert spec["volumes"][2:] == [
        {"name": "home", "persistentVolumeClaim": {"claimName": "home"}},
        {"name": "config"}, {"name": "token"}]
    assert pod["status"] == {"phase": "Running", "nominatedNodeName": ""}
    ds = next(i for i in body["cluster"]["items"] if i["kind"] == "DaemonSet")
    assert "env" not in ds["spec"]["template"]["spec"]["containers"][0]
    assert "status" not in ds
    pdb = body["cluster"]["items"][-1]
    assert pdb["status"] == {"disruptionsAllowed": 0} and "managedFields" not in pdb["metadata"]


async def test_the_token_is_read_again_on_every_request(fake_api, service_account, get):
    status, _ = await get("snapshot")
    assert status == 200
    fake_api["token"] = "rotated-token"
    (service_account / "token").write_text("rotated-token")
    status, body = await get("snapshot", refresh="1")
    assert status == 200 and body["source"]["kind"] == "kubernetes"


@pytest.mark.parametrize("path", ["/api/v1/nodes", "/api/v1/pods"])
async def test_forbidden_falls_through_to_the_demo_with_a_note(fake_api, get, path):
    fake_api["status"][path] = 403
    status, body = await get("snapshot")
    assert status == 200
    assert body["source"]["kind"] == "demo"
    what = path.rsplit("/", 1)[1]
    assert len(body["notes"]) == 1
    note = body["notes"][0]
    assert f"Kubernetes API {fake_api['url']}: listing {what} is forbidden" in note
    assert "HTTP 403" in note and "next source" in note


async def test_unauthenticated_falls_through_to_the_file(fake_api, tmp_path, tightpack, get):
    fake_api["token"] = "another-token"  # the API no longer accepts ours: 401
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(example("daskhub-gke", "cluster.json")))
    tightpack.snapshot_file = str(path)
    status, body = await get("snapshot")
    assert status == 200
    assert body["source"] == {"kind": "file", "detail": str(path)}
    assert "listing nodes is not authenticated" in body["notes"][0]


async def test_optional_lists_may_be_forbidden(fake_api, get):
    fake_api["status"]["/apis/apps/v1/daemonsets"] = 403
    fake_api["status"]["/apis/policy/v1/poddisruptionbudgets"] = 404
    status, body = await get("snapshot")
    assert status == 200 and body["source"]["kind"] == "kubernetes"
    assert {i["kind"] for i in body["cluster"]["items"]} == {"Node", "Pod"}
    assert "listing daemonsets is forbidden" in body["notes"][0]
    assert "listing poddisruptionbudgets is not served" in body["notes"][1]


async def test_api_server_error_is_a_502(fake_api, get):
    fake_api["status"]["/api/v1/pods"] = 500
    status, body = await get("snapshot")
    assert status == 502
    assert body["source"] == {"kind": "kubernetes", "detail": fake_api["url"]}
    assert f"{fake_api['url']}/api/v1/pods?" in body["error"] and "HTTP 500" in body["error"]


async def test_unreachable_api_is_a_502(fake_api, unused_url, tightpack, get):
    tightpack.kubernetes_host = unused_url.rsplit("/", 1)[0]
    status, body = await get("snapshot")
    assert status == 502 and "unreachable" in body["error"]
    assert tightpack.kubernetes_host in body["error"]


async def test_inside_a_hub_only_named_users_read_the_api(fake_api, tightpack, get, monkeypatch):
    # Every user's server has the notebook service account: with it, any
    # user could list every pod's environment and read the others' tokens.
    monkeypatch.setenv("JUPYTERHUB_USER", "alice")
    status, body = await get("snapshot", refresh="1")
    assert status == 200 and body["source"]["kind"] == "demo"
    assert fake_api["requests"] == []
    assert any("JUPYTERHUB_API_TOKEN" in note and "'alice'" in note
               and "kubernetes_in_hub_users" in note for note in body["notes"])
    tightpack.kubernetes_in_hub_users = ["bob"]
    status, body = await get("snapshot", refresh="1")
    assert body["source"]["kind"] == "demo" and fake_api["requests"] == []
    tightpack.kubernetes_in_hub_users = ["alice"]  # the operator opts in for this server
    status, body = await get("snapshot", refresh="1")
    assert status == 200 and body["source"]["kind"] == "kubernetes"


async def test_use_kubernetes_false_skips_it(fake_api, tightpack, get):
    tightpack.use_kubernetes = False
    status, body = await get("snapshot")
    assert status == 200 and body["source"]["kind"] == "demo"
    assert fake_api["requests"] == []


@pytest.mark.parametrize("setting,expected", [("auto", None), (True, True), ("false", False)])
async def test_extended_resource_toleration_setting(fake_api, tightpack, get, setting, expected):
    for node in fake_api["items"]["/api/v1/nodes"]:  # not GKE: no gke-nodepool label
        node["metadata"]["labels"].pop("cloud.google.com/gke-nodepool")
    tightpack.extended_resource_toleration = setting
    status, body = await get("snapshot")
    assert status == 200
    assert body["admission"] == {"extendedResourceToleration": expected}
