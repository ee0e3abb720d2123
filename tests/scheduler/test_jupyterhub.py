"""A real JupyterHub (6.1.1) with the real KubeSpawner (7.1.0, configured as zero-to-jupyterhub
4.4.0 configures it) spawning into the test control plane, tightpack or the real kube-scheduler
with zero-to-jupyterhub's profile as the user scheduler (jupyterhub.py; its one test double is
the proxy). With the real PV controller and the zonal
provisioner beside them, the hub's first spawn of a user goes as on a GKE hub: KubeSpawner makes
the home claim (WaitForFirstConsumer) and the pod, tightpack picks a node, the disk is provisioned
in that node's zone and bound, and the pod is bound. No kubelet runs, so the spawn stays pending
in the hub until the test stops it."""

from __future__ import annotations

import json

import pytest

from harness import FLAVOURS, node_of, parse_quantity, wait_for
from jupyterhub import HubError
from test_claims import CLASS, DRIVER, SELECTED, ZONE_KEY, storage, two_zones_of_user_nodes, zonal  # noqa: F401

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
