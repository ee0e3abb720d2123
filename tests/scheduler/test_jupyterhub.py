"""A real JupyterHub (6.1.1) with the real KubeSpawner (7.1.0, configured as zero-to-jupyterhub
4.4.0 configures it) spawning into the test control plane, tightpack or the real kube-scheduler
with zero-to-jupyterhub's profile as the user scheduler (jupyterhub.py; its one test double is
the proxy). With the real PV controller and the zonal
provisioner beside them, the hub's first spawn of a user goes as on a GKE hub: KubeSpawner makes
the home claim (WaitForFirstConsumer) and the pod, tightpack picks a node, the disk is provisioned
in that node's zone and bound, and the pod is bound. No kubelet runs, so the spawn stays pending
in the hub until the test stops it."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
import sys

import pytest
from harness import FLAVOURS, ROOT, TIGHTPACK, node_of, parse_quantity, wait_for
from jupyterhub import HubError
from test_claims import CLASS, DRIVER, SELECTED, ZONE_KEY, storage, two_zones_of_user_nodes, zonal  # noqa: F401

sys.path.insert(0, str(ROOT / "labextension"))  # the sidebar's server extension, as a notebook runs it

SMALL = {"display_name": "Small", "slug": "small", "default": True,
         "kubespawner_override": {"cpu_guarantee": 0.5, "mem_guarantee": "2G"}}
LARGE = {"display_name": "Large", "slug": "large",
         "kubespawner_override": {"cpu_guarantee": 2, "mem_guarantee": "8G"}}


@pytest.mark.parametrize("flavour", ["tightpack", "kube-z2jh"])
def test_a_real_hub_spawns_a_user_that_the_scheduler_places(cluster, schedulers, storage, flavour):
    """The same spawn into tightpack and into the real kube-scheduler with zero-to-jupyterhub's
    profile: both place KubeSpawner's pod and have its first claim provisioned where they put it."""
    api, ns = cluster.api, cluster.ns
    scheduler_name = FLAVOURS[flavour]["scheduler_name"]
    two_zones_of_user_nodes(cluster, storage)
    schedulers.controller_manager()
    schedulers.provisioner(DRIVER, ZONE_KEY, delay=1.0)
    schedulers.flavour(flavour)
    hub = schedulers.jupyterhub(ns, scheduler_name, storage_class=CLASS, profile_list=[SMALL, LARGE])
    try:
        hub.create_user("alice")
        token = hub.user_token("alice")
        me = hub.whoami(token)
        assert me["name"] == "alice" and me["kind"] == "user", me
        with pytest.raises(HubError) as refused:
            hub.whoami("garbage-" + token[:8])
        assert refused.value.status in (401, 403), refused.value

        hub.spawn("alice", profile="large")
        pod = cluster.wait_bound(["jupyter-alice"], timeout=30)[0]
        node = node_of(pod)
        zone = {"user-a": "a", "user-b": "b"}[node]

        # KubeSpawner's pod: the scheduler under test, the profile's guarantees, the home claim.
        assert pod["spec"]["schedulerName"] == scheduler_name
        assert pod["metadata"]["labels"]["component"] == "singleuser-server"
        assert pod["metadata"]["annotations"]["hub.jupyter.org/username"] == "alice"
        # JupyterHub's ByteSpecification reads "8G" as 8 GiB (its K, M, G are powers of 1024).
        requests = pod["spec"]["containers"][0]["resources"]["requests"]
        assert (parse_quantity(requests["cpu"]), parse_quantity(requests["memory"])) == (2, 8 * 2**30), requests
        claims = [v["persistentVolumeClaim"]["claimName"] for v in pod["spec"]["volumes"]
                  if "persistentVolumeClaim" in v]
        assert claims == ["claim-alice"], pod["spec"]["volumes"]

        # KubeSpawner's claim, provisioned in the bound node's zone before the pod was bound.
        claim = api.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/claim-alice")
        assert claim["metadata"]["annotations"]["hub.jupyter.org/username"] == "alice"
        assert claim["metadata"]["labels"]["component"] == "singleuser-storage"
        assert claim["spec"]["storageClassName"] == CLASS
        assert claim["metadata"]["annotations"][SELECTED] == node
        assert claim["status"]["phase"] == "Bound", claim["status"]
        pv = api.get(f"/api/v1/persistentvolumes/{claim['spec']['volumeName']}")
        storage.append(f"/api/v1/persistentvolumes/{pv['metadata']['name']}")
        assert pv["metadata"]["annotations"]["pv.kubernetes.io/provisioned-by"] == DRIVER
        assert pv["spec"]["nodeAffinity"] == zonal(zone), (node, pv["spec"]["nodeAffinity"])

        # The hub still waits for the server (no kubelet runs the pod).
        server = hub.server("alice")
        assert server is not None and server["pending"] == "spawn" and not server["ready"], server

        # Stopping the spawn: KubeSpawner deletes the pod (grace 0), the claim stays.
        hub.stop_server("alice")
        wait_for(lambda: not [p for p in cluster.pods() if p["metadata"]["name"] == "jupyter-alice"],
                 20, "KubeSpawner to delete jupyter-alice", diagnostics=cluster.describe_pods)
        assert api.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/claim-alice")
    finally:
        try:
            hub.stop_server("alice")
        except Exception as e:  # noqa: BLE001 - the hub is stopped after the test in any case
            print(f"\nstopping alice's server after the test: {e!r}")


def _home(tp, token):
    """GET /home as the sidebar's server extension asks it: the hub token in JupyterHub's scheme."""
    from harness import http_request
    headers = {"Authorization": f"token {token}"} if token is not None else {}
    status, _, body = http_request(tp.base + "/home", 10, None, headers=headers)
    return status, (json.loads(body) if body.startswith("{") else body)


def test_home_gives_each_hub_user_her_own_claims_and_nobody_elses(cluster, schedulers, storage):
    """/home on the real hub's word: alice, spawned once, gets her claim and its disk's zone; bob,
    never spawned, gets nothing of hers; no token, a garbage one and a service's are refused; the
    shared /snapshot carries the classes and no claim. A hub that stops answering makes /home
    say so (503) without touching the cache of a token it already vouched for."""
    api, ns = cluster.api, cluster.ns
    two_zones_of_user_nodes(cluster, storage)
    schedulers.controller_manager()
    schedulers.provisioner(DRIVER, ZONE_KEY, delay=0.5)
    hub = schedulers.jupyterhub(ns, "tightpack", storage_class=CLASS)
    tp = schedulers.tightpack(extra_args=["--hub-api-url", hub.api_url, "--hub-namespace", ns])
    try:
        for user in ("alice", "bob"):
            hub.create_user(user)
        alice, bob = hub.user_token("alice"), hub.user_token("bob")
        hub.spawn("alice")
        node = node_of(cluster.wait_bound(["jupyter-alice"], timeout=30)[0])
        zone = {"user-a": "a", "user-b": "b"}[node]
        wait_for(lambda: api.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/claim-alice")["status"]
                 .get("phase") == "Bound", 20, "claim-alice to be bound")

        last = []

        def alice_home():
            status, body = last[:] = _home(tp, alice)
            return body if status == 200 and len(body["items"]) == 2 else None

        body = wait_for(alice_home, 20, "/home to list alice's bound claim and its volume",
                        diagnostics=lambda: f"last answer: {last}")
        assert body["user"] == "alice"
        [claim] = body["claims"]
        assert (claim["namespace"], claim["name"], claim["server"]) == (ns, "claim-alice", ""), claim
        kinds = [i["kind"] for i in body["items"]]
        assert kinds == ["PersistentVolumeClaim", "PersistentVolume"], kinds
        pv = body["items"][1]
        assert claim["volume"] == pv["metadata"]["name"]
        assert pv["spec"]["nodeAffinity"] == zonal(zone), pv["spec"]
        assert "csi" in pv["spec"] and "volumeAttributes" not in pv["spec"]["csi"]
        # What the engine reads of them: `tightpack predict` accepts them beside the nodes.
        assert body["items"][0]["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes"

        status, mine = _home(tp, bob)
        assert status == 200 and mine == {"user": "bob", "claims": [], "items": []}, mine
        assert "claim-alice" not in json.dumps(mine)
        # Earlier tests' alices (other namespaces, as other hubs) are not this hub's alice.
        assert {c["namespace"] for c in body["claims"]} == {ns}

        for token in (None, "", "garbage-" + alice[:6], "two words"):
            status, refused = _home(tp, token)
            assert status == 401, (token, status, refused)
            assert alice not in json.dumps(refused)

        snap = tp.snapshot()
        kinds = {i["kind"] for i in snap["cluster"]["items"]}
        assert "StorageClass" in kinds and not kinds & {"PersistentVolumeClaim", "PersistentVolume"}, kinds
        assert "claim-alice" not in json.dumps(snap) and "alice" not in json.dumps(snap)
    finally:
        try:
            hub.stop_server("alice")
        except Exception as e:  # noqa: BLE001 - the hub is stopped after the test in any case
            print(f"\nstopping alice's server after the test: {e!r}")

    # The hub gone: alice's answer is cached for a minute; an unknown token gets 503, not 401.
    hub.stop()
    status, body = _home(tp, alice)
    assert status == 200 and body["user"] == "alice", (status, body)
    status, body = _home(tp, bob + "x")
    assert status == 503 and "cannot ask the hub" in body["error"], (status, body)


def _serving_certificate(directory):
    """A CA and a certificate it signed for 127.0.0.1, as the chart makes them (tls.generate)."""
    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=directory)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=tightpack-ca",
        "-keyout", "ca.key", "-out", "ca.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=tightpack", "-keyout", "tls.key", "-out", "tls.csr")
    (directory / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
        "-extfile", "san.ext", "-out", "tls.crt")
    return directory / "ca.crt", directory / "tls.crt", directory / "tls.key"


def _predicted_node(tmp_path, cluster_list, pod):
    (tmp_path / "cluster.json").write_text(json.dumps(cluster_list))
    (tmp_path / "pod.json").write_text(json.dumps(pod))
    r = subprocess.run([str(TIGHTPACK), "predict", "--cluster", str(tmp_path / "cluster.json"), "--pod",
                        str(tmp_path / "pod.json"), "--replicas", "1", "--scheduler-name", "tightpack",
                        "--output", "json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout)["placements"][0]["node"]


def test_the_sidebar_predicts_a_returning_users_profile_where_her_disk_is(cluster, schedulers, storage, tmp_path,
                                                                          monkeypatch):
    """The whole chain, real parts throughout but the browser: the hub spawns alice once (her
    disk is made in the zone tightpack chose) and stops her; another pod fills the other zone's
    node, so packing alone would now pick that node. The sidebar's server extension, as alice's
    notebook server runs it (her hub token, the scheduler's CA), reads /snapshot and /home and
    builds the large profile's pod with her home claim: the engine predicts her disk's node, not
    the fuller one (and the fuller one without the claim). Then the hub spawns her again and
    tightpack binds her where the sidebar said."""
    from jupyterlab_tightpack.config import TightpackConfig
    from jupyterlab_tightpack.snapshot import SnapshotService
    from jupyterlab_tightpack.templates import list_templates

    api, ns = cluster.api, cluster.ns
    two_zones_of_user_nodes(cluster, storage)
    schedulers.controller_manager()
    schedulers.provisioner(DRIVER, ZONE_KEY, delay=0.5)
    hub = schedulers.jupyterhub(ns, "tightpack", storage_class=CLASS, profile_list=[SMALL, LARGE])
    ca, cert, key = _serving_certificate(tmp_path)
    (tmp_path / "snapshot-token").write_text("a-shared-snapshot-token-for-the-test")
    (tmp_path / "publish.json").write_text(json.dumps({
        "profiles": [SMALL, LARGE],
        # what zero-to-jupyterhub's singleuser.storage (type dynamic) makes of KubeSpawner
        "kubespawnerDefaults": {
            "scheduler_name": "tightpack", "storage_pvc_ensure": True, "storage_class": CLASS,
            "storage_capacity": "10Gi", "storage_access_modes": ["ReadWriteOnce"],
            "volumes": [{"name": "volume-{user_server}", "persistentVolumeClaim": {"claimName": "{pvc_name}"}}]}}))
    tp = schedulers.tightpack(extra_args=[
        "--hub-api-url", hub.api_url, "--hub-namespace", ns, "--tls-cert-file", str(cert),
        "--tls-private-key-file", str(key), "--snapshot-token-file", str(tmp_path / "snapshot-token"),
        "--publish", str(tmp_path / "publish.json")])
    try:
        hub.create_user("alice")
        token = hub.user_token("alice")
        hub.spawn("alice", profile="small")
        first = node_of(cluster.wait_bound(["jupyter-alice"], timeout=30)[0])
        wait_for(lambda: api.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/claim-alice")["status"]
                 .get("phase") == "Bound", 20, "claim-alice to be bound")
        hub.stop_server("alice")
        wait_for(lambda: not [p for p in cluster.pods() if p["metadata"]["name"] == "jupyter-alice"],
                 20, "KubeSpawner to delete jupyter-alice")
        other = {"user-a": "user-b", "user-b": "user-a"}[first]
        api.post(f"/api/v1/namespaces/{ns}/pods", {
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "filler"},
            "spec": {"nodeName": other, "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                                        "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}})

        # alice's notebook server: her hub token, the scheduler's CA, /snapshot's shared token.
        monkeypatch.setenv("JUPYTERHUB_USER", "alice")
        monkeypatch.setenv("JUPYTERHUB_API_TOKEN", token)
        config = TightpackConfig(snapshot_url=tp.base + "/snapshot", snapshot_ca_file=str(ca),
                                 snapshot_token="a-shared-snapshot-token-for-the-test",
                                 kubernetes_namespace_file=str(tmp_path / "no-such-file"))

        async def sidebar():
            snapshots = SnapshotService(config)
            return (await snapshots.get()).value, await list_templates(config, snapshots)

        def sidebar_sees_her_disk():
            envelope, templates = asyncio.run(sidebar())
            home = envelope.get("home") or {}
            return (envelope, templates) if home.get("claims") and any(
                c["volume"] for c in home["claims"]) else None

        envelope, templates = wait_for(sidebar_sees_her_disk, 20, "the sidebar to read alice's bound claim")
        assert [c["name"] for c in envelope["home"]["claims"]] == ["claim-alice"]
        large = next(t for t in templates["templates"] if t["id"] == "profile:large")
        claims = [v["persistentVolumeClaim"]["claimName"] for v in large["pod"]["spec"].get("volumes", [])
                  if "persistentVolumeClaim" in v]
        assert claims == ["claim-alice"], large["pod"]["spec"]
        assert _predicted_node(tmp_path, envelope["cluster"], large["pod"]) == first
        without_disk = copy.deepcopy(large["pod"])
        without_disk["spec"].pop("volumes")
        assert _predicted_node(tmp_path, envelope["cluster"], without_disk) == other, \
            "packing alone would pick the fuller node: the disk is what decides"

        hub.spawn("alice", profile="large")
        assert node_of(cluster.wait_bound(["jupyter-alice"], timeout=30)[0]) == first
    finally:
        try:
            hub.stop_server("alice")
        except Exception as e:  # noqa: BLE001 - the hub is stopped after the test in any case
            print(f"\nstopping alice's server after the test: {e!r}")
