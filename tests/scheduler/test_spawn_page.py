"""The hub's spawn page, answered (deploy/hub/tightpack_spawn.py, docs/deploy.md): the real
JupyterHub and KubeSpawner (jupyterhub.py) draw /hub/spawn for a logged-in user with, beside
every profile and option choice, what tightpack's daemon (with --pools) answers for the pod
KubeSpawner itself builds for her; and while her spawn waits for a node, the event tightpack
posts on the pod reaches the spawn's progress stream with no change to KubeSpawner.

The cluster: two user nodes (zones a and b, 4 cores each); pools (the NodePools document) for
them, a large-CPU pool, a T4 pool in zone b (provisioning 9 minutes) and an A100 pool in zone a
at its maximum size. alice is a returning user: her home disk was made in zone a on an earlier day (its
claim and volume are written here as the provisioner and PV controller left them: data, not a
double of a part that runs). bob has never spawned; his claim is the one make_pvc would make."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from dask_operator import CLIENTS_PYTHON
from harness import ROOT, TIGHTPACK, wait_for
from test_claims import CLASS, DRIVER, storage, two_zones_of_user_nodes  # noqa: F401
from test_jupyterhub import _serving_certificate
from test_secure_port import service_account_token

POOL = "cloud.google.com/gke-nodepool"
POOLS = """apiVersion: tightpack.io/v1alpha1
kind: NodePools
pools:
  - name: user
    maxSize: 4
  - name: large
    maxSize: 2
    provisioningTime: 3m
    template:
      labels: {cloud.google.com/gke-nodepool: large, topology.kubernetes.io/zone: a, topology.gke.io/zone: a}
      allocatable: {cpu: "16", memory: 64Gi, pods: "110"}
  - name: gpu-t4
    maxSize: 3
    provisioningTime: 9m
    template:
      labels: {cloud.google.com/gke-nodepool: gpu-t4, topology.kubernetes.io/zone: b, topology.gke.io/zone: b}
      allocatable: {cpu: "8", memory: 30Gi, pods: "110", nvidia.com/gpu: "1"}
  - name: gpu-a100
    maxSize: 0
    template:
      labels: {cloud.google.com/gke-nodepool: gpu-a100, topology.kubernetes.io/zone: a, topology.gke.io/zone: a}
      allocatable: {cpu: "12", memory: 85Gi, pods: "110", nvidia.com/gpu: "1"}
"""

SMALL = {"display_name": "Small", "slug": "small", "default": True, "description": "0.5 CPU, 2 GB",
         "kubespawner_override": {"cpu_guarantee": 0.5, "mem_guarantee": "2G"}}
LARGE = {"display_name": "Large", "slug": "large", "description": "6 CPU, 24 GB",
         "kubespawner_override": {"cpu_guarantee": 6, "mem_guarantee": "24G",
                                  "node_selector": {POOL: "large"}}}
GPU = {"display_name": "GPU", "slug": "gpu", "description": "One GPU",
       "kubespawner_override": {"extra_resource_limits": {"nvidia.com/gpu": "1"}},
       "profile_options": {"gpu": {"display_name": "GPU", "choices": {
           "t4": {"display_name": "NVIDIA T4", "default": True,
                  "kubespawner_override": {"node_selector": {POOL: "gpu-t4"}}},
           "a100": {"display_name": "NVIDIA A100",
                    "kubespawner_override": {"node_selector": {POOL: "gpu-a100"}}}}}}}
A100 = {"display_name": "Large GPU", "slug": "a100", "description": "One NVIDIA A100, 12 CPU, 85 GB",
        "kubespawner_override": {"extra_resource_limits": {"nvidia.com/gpu": "1"},
                                 "node_selector": {POOL: "gpu-a100"}}}
PROFILES = [SMALL, LARGE, GPU, A100]

HUB_CONFIG = """
import sys
sys.path.insert(0, {hub_dir!r})
import tightpack_spawn
tightpack_spawn.configure(c, {url!r}, ca_file={ca!r}, token_file={token_file!r}, timeout=10)
"""


def alices_disk_in_zone_a(cluster, storage):  # noqa: F811 - the fixture
    """claim-alice and its volume as KubeSpawner, the provisioner and the PV controller left
    them after her first spawn landed in zone a."""
    api, ns = cluster.api, cluster.ns
    pv = f"pvc-alice-{ns}"
    api.post("/api/v1/persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": pv, "annotations": {"pv.kubernetes.io/provisioned-by": DRIVER}},
        "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": CLASS,
                 "persistentVolumeReclaimPolicy": "Delete",
                 "claimRef": {"namespace": ns, "name": "claim-alice"},
                 "csi": {"driver": DRIVER, "volumeHandle": f"projects/hub/zones/a/disks/{pv}"},
                 "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "topology.gke.io/zone", "operator": "In", "values": ["a"]}]}]}}}})
    storage.append(f"/api/v1/persistentvolumes/{pv}")
    api.post(f"/api/v1/namespaces/{ns}/persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "claim-alice", "annotations": {"hub.jupyter.org/username": "alice"},
                     "labels": {"component": "singleuser-storage"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": CLASS, "volumeName": pv,
                 "resources": {"requests": {"storage": "10Gi"}}}})
    wait_for(lambda: api.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/claim-alice")["status"]
             .get("phase") == "Bound", 30, "claim-alice to be bound by the PV controller")


def the_hubs_service_account(cluster) -> str:
    """The hub's token, with the right zero-to-jupyterhub's hub has: creating pods in its namespace."""
    api, ns = cluster.api, cluster.ns
    token = service_account_token(api, ns, "hub")
    api.post(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "hub"},
        "rules": [{"apiGroups": [""], "resources": ["pods", "persistentvolumeclaims"],
                   "verbs": ["get", "watch", "list", "create", "delete"]}]})
    api.post(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "hub"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "hub"},
        "subjects": [{"kind": "ServiceAccount", "namespace": ns, "name": "hub"}]})
    return token


def outlooks(html: str) -> dict:
    """What the form says beside each profile (the badge after its description) and each option
    choice (after its name), keyed by profile slug and by slug/choice key."""
    out = {}
    for block in html.split('<label for="profile-item-')[1:]:
        slug = block[:block.index('"')]
        badge = re.search(r'class="tightpack-outlook tightpack-outlook-([\w-]+)"[^>]*>([^<]*)<', block)
        out[slug] = (badge.group(1), badge.group(2)) if badge else None
        for key, name in re.findall(r'<option value="([\w-]+)"[^>]*>([^<]*)</option>', block):
            out[f"{slug}/{key}"] = name
    return out


@pytest.fixture
def hub_with_answers(cluster, schedulers, storage, tmp_path):  # noqa: F811 - the fixture
    two_zones_of_user_nodes(cluster, storage, labels={POOL: "user"})
    schedulers.controller_manager()
    alices_disk_in_zone_a(cluster, storage)
    ca, cert, key = _serving_certificate(tmp_path)
    (tmp_path / "pools.yaml").write_text(POOLS)
    tp = schedulers.tightpack(extra_args=["--pools", str(tmp_path / "pools.yaml"), "--tls-cert-file", str(cert),
                                          "--tls-private-key-file", str(key)])
    tp.wait_ready()
    (tmp_path / "hub-token").write_text(the_hubs_service_account(cluster))
    hub = schedulers.jupyterhub(cluster.ns, "tightpack", storage_class=CLASS, profile_list=PROFILES,
                                start_timeout=90, extra_config=HUB_CONFIG.format(
                                    hub_dir=str(ROOT / "deploy" / "hub"), url=tp.base, ca=str(ca),
                                    token_file=str(tmp_path / "hub-token")))
    for user in ("alice", "bob"):
        hub.create_user(user)
    yield cluster, tp, hub, tmp_path
    for user in ("alice", "bob"):
        try:
            hub.stop_server(user)
        except Exception as e:  # noqa: BLE001 - the hub is stopped after the test in any case
            print(f"\nstopping {user}'s server after the test: {e!r}")


def test_the_spawn_page_says_when_each_profile_can_start(hub_with_answers):
    """bob (new): small now, large in about 3 minutes (pool large grows), the T4 in about 9 (its
    provisioning time), the A100, as a choice and as a profile, cannot start (its pool at max size
    0). alice (her disk in zone a): the T4 cannot start either, since pool gpu-t4 adds nodes in
    zone b only; small is ready."""
    cluster, tp, hub, _ = hub_with_answers
    bob = outlooks(hub.page("/hub/spawn", "bob"))
    assert bob["small"] == ("now", "Ready now: a node has room for it."), bob
    assert bob["large"] == ("new-node", "About 3 minutes: cluster-autoscaler adds a node to pool large for it."), bob
    assert bob["gpu"] == ("new-node", "About 9 minutes: cluster-autoscaler adds a node to pool gpu-t4 for it."), bob
    assert bob["gpu/t4"] == "NVIDIA T4", bob  # the default choice: the profile's own answer
    assert bob["gpu/a100"] == "NVIDIA A100 · cannot start now", bob
    assert bob["a100"] == ("cannot", "Cannot start now: pool gpu-a100 is at its maximum size (0 nodes)."), bob

    alice = outlooks(hub.page("/hub/spawn", "alice"))
    assert alice["small"][0] == "now", alice
    assert alice["gpu"] == ("cannot", "Cannot start now: its disk is in another zone than the nodes pool gpu-t4 "
                                      "can add."), alice
    assert alice["a100"] == bob["a100"], alice
    assert 'spawn page: 5 pods for user "alice"' in tp.log_text(), tp.describe(40)


def test_the_page_is_drawn_without_answers_when_the_daemon_is_unreachable(hub_with_answers):
    """The daemon stopped: KubeSpawner's form as it is, and the hub's log says why."""
    cluster, tp, hub, _ = hub_with_answers
    tp.stop()
    html = hub.page("/hub/spawn", "bob")
    assert outlooks(html) == {"small": None, "large": None, "gpu": None, "gpu/t4": "NVIDIA T4",
                              "gpu/a100": "NVIDIA A100", "a100": None}, html
    assert "tightpack: the spawn page for bob has no answers" in hub.log_text(), hub.describe(30)


def test_a_waiting_spawns_progress_says_when_its_node_is_ready(hub_with_answers):
    """bob starts the T4 profile: no node has a GPU, so tightpack's event on his pod says which
    pool grows and when its node is ready, and KubeSpawner streams it to his progress bar. carol
    starts the A100: the event says at once that cluster-autoscaler cannot add one, and why."""
    cluster, tp, hub, _ = hub_with_answers
    hub.spawn("bob", profile="gpu")
    seen = hub.progress("bob", lambda e: "gpu-t4" in e.get("message", ""), timeout=60)
    message = seen[-1]["message"]
    assert re.search(r"\[Normal\] No node has room for this pod now; cluster-autoscaler adds a node to pool "
                     r"gpu-t4, ready in about (9|8) minutes \(tightpack's prediction\)\.$", message), message

    hub.create_user("carol")
    hub.request("POST", "/users/carol/server", {"profile": "gpu", "gpu": "a100"})
    try:
        seen = hub.progress("carol", lambda e: "gpu-a100" in e.get("message", ""), timeout=60)
        assert seen[-1]["message"].endswith(
            "[Warning] No node has room for this pod now, and cluster-autoscaler cannot add one: pool "
            "gpu-a100 is at its maximum size (0 nodes)."), seen[-1]
    finally:
        hub.stop_server("carol")


def test_the_answers_are_tightpack_predicts(hub_with_answers):
    """The same pod and cluster through `tightpack predict --pools`: the same outlook. The pod is
    the one KubeSpawner builds for bob's T4 choice (tightpack_spawn.question_for, run in the
    hub's own environment); the cluster is the daemon's /snapshot with his claim as KubeSpawner
    would make it."""
    cluster, tp, hub, tmp_path = hub_with_answers
    built = subprocess.run([str(CLIENTS_PYTHON), "-c", QUESTION, str(ROOT / "deploy" / "hub"), str(hub.config_path),
                            json.dumps(PROFILES)], capture_output=True, text=True, timeout=120, env=hub.env)
    assert built.returncode == 0, built.stderr[-3000:]
    question = json.loads(built.stdout)
    pod = question["pods"][0]["pod"]
    pod["metadata"]["namespace"] = cluster.ns
    (tmp_path / "pod.json").write_text(json.dumps(pod))
    # The cluster as the sidebar reads it, and bob's claim as the question carries it (made by
    # KubeSpawner just before his pod: the daemon adds it to its cluster the same way).
    snapshot = tp.snapshot()["cluster"]
    for claim in question["claims"]:
        claim["metadata"]["namespace"] = cluster.ns
        snapshot["items"].append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", **claim})
    (tmp_path / "cluster.json").write_text(json.dumps(snapshot))
    r = subprocess.run([str(TIGHTPACK), "predict", "--cluster", str(tmp_path / "cluster.json"), "--pod",
                        str(tmp_path / "pod.json"), "--replicas", "1", "--scheduler-name", "tightpack", "--pools",
                        str(tmp_path / "pools.yaml"), "--output", "json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    predicted = json.loads(r.stdout)["outlook"]
    assert predicted["message"] == "About 9 minutes: cluster-autoscaler adds a node to pool gpu-t4 for it.", predicted
    html = hub.page("/hub/spawn", "bob")
    assert outlooks(html)["gpu"] == (predicted["kind"], predicted["message"])


def test_the_spawn_page_in_chromium(hub_with_answers):
    """alice's spawn page in Chromium at 1440×900, logged in through the hub's form: each of the
    four kinds of answer (ready now; about 3 minutes; cannot, her disk's zone; cannot, a pool at
    its max) is a coloured badge inside the window, and the A100 choice is marked in its list.
    The screenshot is build/screenshots/spawn-page.png (TIGHTPACK_SCREENSHOTS=docs: docs/)."""
    import os
    cluster, tp, hub, _ = hub_with_answers
    shots = ROOT / os.environ.get("TIGHTPACK_SCREENSHOTS", "build/screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["node", str(ROOT / "tests" / "scheduler" / "spawn_page.mjs"), f"http://127.0.0.1:{hub.port}",
                        "alice", str(shots / "spawn-page.png")], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-3000:]
    drawn = json.loads(r.stdout)
    assert [(b["kind"], b["text"].split(":")[0]) for b in drawn["badges"]] == [
        ("now", "Ready now"), ("new-node", "About 3 minutes"), ("cannot", "Cannot start now"),
        ("cannot", "Cannot start now")], drawn
    assert "disk" in drawn["badges"][2]["text"] and "maximum size" in drawn["badges"][3]["text"], drawn
    assert all(b["inWindow"] for b in drawn["badges"]), drawn
    assert len({b["background"] for b in drawn["badges"]}) == 3, drawn  # one colour per kind
    assert "NVIDIA A100 · cannot start now" in drawn["choices"], drawn


# KubeSpawner's question for bob, built in the hub's environment from the hub's configuration.
QUESTION = """
import asyncio, json, sys
sys.path.insert(0, sys.argv[1])
import tightpack_spawn
from traitlets.config import PyFileConfigLoader
from kubespawner import KubeSpawner

class User:
    name, id, url = "bob", 2, "/user/bob/"

async def main():
    config = PyFileConfigLoader(sys.argv[2]).load_config()
    spawner = KubeSpawner(_mock=True, config=config, user=User())  # KubeSpawner's client needs a loop
    profiles = spawner._get_initialized_profile_list(json.loads(sys.argv[3]))
    question, _ = await tightpack_spawn.question_for(spawner, profiles)
    question["pods"] = [p for p in question["pods"] if p["id"] == "p2"]
    print(json.dumps(question))

asyncio.run(main())
"""


def _ask(tp, body: bytes, token=None) -> tuple:
    """POST /spawn/v1/profiles as the hub's module sends it: (status, decoded body or text)."""
    import urllib.error
    import urllib.request

    from harness import UNVERIFIED_TLS
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    req = urllib.request.Request(tp.base + "/spawn/v1/profiles", data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=20, context=UNVERIFIED_TLS) as resp:
            status, text = resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode(errors="replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def test_only_who_may_create_pods_there_is_answered_and_bad_questions_are_named(cluster, schedulers, tmp_path):
    """The route on its own: no token 401, a token whose account may not create pods in the
    namespace 403, the hub's 200; a question that is not JSON, names an unknown field or a pod in
    another namespace gets a 400 that names it; more than 1 MiB a 413; a pod the engine cannot
    read spoils only its own answer; GET is told to POST."""
    api, ns = cluster.api, cluster.ns
    cluster.node("sq-0", cpu="4", memory="16Gi", labels={POOL: "user"})
    (tmp_path / "pools.yaml").write_text("apiVersion: tightpack.io/v1alpha1\nkind: NodePools\npools:\n"
                                         "  - name: user\n    maxSize: 3\n")
    tp = schedulers.tightpack(extra_args=["--pools", str(tmp_path / "pools.yaml")])
    tp.wait_ready()
    hub = the_hubs_service_account(cluster)
    nobody = service_account_token(api, ns, "nobody")
    pod = {"metadata": {"name": "jupyter-x"}, "spec": {"containers": [{"name": "n", "resources": {
        "requests": {"cpu": "1"}}}]}}
    question = {"namespace": ns, "user": "x", "pods": [{"id": "a", "pod": pod}]}
    body = json.dumps(question).encode()

    assert _ask(tp, body)[0] == 401
    status, answer = _ask(tp, body, nobody)
    assert status == 403 and "create" in answer["error"], answer
    status, answer = _ask(tp, body, hub)
    assert status == 200 and answer["answers"][0]["outlook"]["kind"] == "now", answer

    for bad, field in ((b"{not json", "not JSON"), (json.dumps({**question, "extra": 1}).encode(), "$.extra"),
                       (json.dumps({**question, "pods": [{"id": "a", "pod": {
                           "metadata": {"namespace": "kube-system"}}}]}).encode(), "kube-system")):
        status, answer = _ask(tp, bad, hub)
        assert status == 400 and field in answer["error"], (bad[:80], status, answer)
    # Refused on its header, before a byte of the body is read (a client still sending may see
    # the connection close instead of the answer: ask with the header alone).
    from harness import connect
    with connect(tp.port) as s:
        s.sendall(f"POST /spawn/v1/profiles HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {hub}\r\n"
                  f"Content-Length: {(1 << 20) + 1}\r\n\r\n".encode())
        assert s.recv(64).startswith(b"HTTP/1.1 413"), "a body over 1 MiB is refused"

    broken = {**question, "pods": [{"id": "a", "pod": pod}, {"id": "b", "pod": {"spec": {"containers": [
        {"name": "n", "resources": {"requests": {"cpu": "lots"}}}]}}}]}
    status, answer = _ask(tp, json.dumps(broken).encode(), hub)
    assert status == 200 and answer["answers"][0]["outlook"]["kind"] == "now", answer
    assert "lots" in answer["answers"][1]["error"] and "pods[1]" in answer["answers"][1]["error"], answer

    from harness import http_request
    status, _, text = http_request(tp.base + "/spawn/v1/profiles", token=hub)
    assert status == 405 and "POST" in text, (status, text)
