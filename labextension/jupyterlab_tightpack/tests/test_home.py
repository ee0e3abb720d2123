"""The user's own home claims: the scheduler's /home, and the claim volumes of profile pods."""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess

import pytest
import tornado.web
from conftest import example

from jupyterlab_tightpack import home, kubespawner_names

HUB_TOKEN = "hub-token-of-alice-0123456789"
SNAPSHOT_TOKEN = "shared-snapshot-token-0123"
STORAGE_CLASS = {
    "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
    "metadata": {"name": "standard-rwo",
                 "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
    "provisioner": "pd.csi.storage.gke.io", "volumeBindingMode": "WaitForFirstConsumer"}
HOME_VOLUMES = [{"name": "volume-{user_server}",
                 "persistentVolumeClaim": {"claimName": "{pvc_name}"}}]
GPU_PROFILE = {"display_name": "GPU notebook", "slug": "gpu", "kubespawner_override": {
    "cpu_guarantee": 3, "mem_guarantee": "20G", "extra_resource_limits": {"nvidia.com/gpu": "1"},
    "node_selector": {"cloud.google.com/gke-accelerator": "nvidia-tesla-t4"}}}


def defaults(**changes):
    d = {"storage_pvc_ensure": True, "storage_class": None, "storage_capacity": "10Gi",
         "storage_access_modes": ["ReadWriteOnce"], "volumes": copy.deepcopy(HOME_VOLUMES)}
    d.update(changes)
    return d


def alice_home():
    """What /home answers alice: examples/daskhub-gke/home-disk/home.json."""
    return example("daskhub-gke", "home-disk", "home.json")


def snapshot_document(*, with_class=True, kubespawner_defaults=None, extra_items=()):
    cluster = example("daskhub-gke", "cluster.json")
    cluster["items"] = [i for i in cluster["items"] if i["kind"] != "StorageClass"]
    if with_class:
        cluster["items"].append(copy.deepcopy(STORAGE_CLASS))
    cluster["items"] += list(extra_items)
    return {"cluster": cluster, "pools": None, "schedulerConfiguration": None,
            "profiles": [copy.deepcopy(GPU_PROFILE)],
            "kubespawnerDefaults": defaults() if kubespawner_defaults is None
            else kubespawner_defaults}


class Recorder(tornado.web.RequestHandler):
    """/snapshot or /home of the scheduler's test double; records every request's headers."""

    def initialize(self, answer, seen, status=200, delay=0.0, redirect=None, auth=None):
        self.answer, self.seen, self.status = answer, seen, status
        self.delay, self.redirect_to, self.auth = delay, redirect, auth

    async def get(self):
        self.seen.append({"path": self.request.path, **dict(self.request.headers)})
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.redirect_to:
            self.redirect(self.redirect_to)
            return
        if self.auth is not None and self.request.headers.get("Authorization") != self.auth:
            self.set_status(401)
            self.finish(json.dumps({"error": "no or unknown JupyterHub token"}))
            return
        self.set_status(self.status)
        self.finish(json.dumps(self.answer))

    def compute_etag(self):
        return None


@pytest.fixture
def in_a_hub(monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_USER", "alice")
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", HUB_TOKEN)


@pytest.fixture
def scheduler(serve_https, tightpack, test_ca):
    """scheduler(snapshot=..., home=..., **home_options) -> (base URL, requests seen)."""

    def start(snapshot=None, answer=None, **home_options):
        seen: list = []
        home_options.setdefault("auth", f"token {HUB_TOKEN}")
        base = serve_https([
            ("/tightpack/snapshot", Recorder, {"answer": snapshot or snapshot_document(),
                                               "seen": seen,
                                               "auth": f"Bearer {SNAPSHOT_TOKEN}"}),
            ("/home", Recorder, {"answer": alice_home() if answer is None else answer,
                                 "seen": seen, **home_options}),
        ])
        # a path below the origin: /home is at the origin, beside it
        tightpack.snapshot_url = base + "/tightpack/snapshot"
        tightpack.snapshot_token = SNAPSHOT_TOKEN
        # The hub token goes to a verified scheduler only.
        tightpack.snapshot_ca_file = test_ca["ca"]
        return base, seen

    return start


def kinds(cluster, kind):
    return [i for i in cluster["items"] if i.get("kind") == kind]


# ------------------------------------------------------------------------- GET /home

async def test_home_joins_the_snapshot(in_a_hub, scheduler, get):
    base, seen = scheduler()
    status, body = await get("snapshot")
    assert status == 200, body
    assert body["home"] == {"user": "alice", "claims": alice_home()["claims"]}
    assert [c["metadata"]["name"] for c in kinds(body["cluster"], "PersistentVolumeClaim")] == [
        "claim-alice"]
    assert len(kinds(body["cluster"], "PersistentVolume")) == 1
    assert body["notes"] == []
    # the hub token went to /home at the scheduler's origin, and only there
    by_path = {r["path"]: r for r in seen}
    assert by_path["/home"]["Authorization"] == f"token {HUB_TOKEN}"
    assert by_path["/tightpack/snapshot"]["Authorization"] == f"Bearer {SNAPSHOT_TOKEN}"
    assert HUB_TOKEN not in json.dumps(body)


async def test_the_hub_token_goes_to_a_verified_scheduler_only(in_a_hub, scheduler, get, tightpack, tmp_path):
    # No CA file: the certificate cannot be verified, so the token is not sent.
    _, seen = scheduler()
    tightpack.snapshot_ca_file = ""
    status, body = await get("snapshot")
    assert status == 200 and body["home"] is None, body
    assert "/home" not in [r["path"] for r in seen]
    assert any("certificate is not verified" in n for n in body["notes"]), body["notes"]
    # A CA that did not sign the scheduler's certificate: the handshake fails before a
    # request is sent, so the scheduler's impostor never sees the token.
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=another CA", "-keyout", str(other / "ca.key"),
                    "-out", str(other / "ca.crt")], check=True, capture_output=True)
    _, seen = scheduler()
    tightpack.snapshot_ca_file = str(other / "ca.crt")
    status, body = await get("snapshot", refresh="1")
    assert all(r["path"] != "/home" for r in seen), seen
    assert all(HUB_TOKEN not in json.dumps(r) for r in seen)


async def test_without_a_hub_token_home_is_not_asked(monkeypatch, scheduler, get):
    _, seen = scheduler()
    status, body = await get("snapshot")
    assert status == 200 and body["home"] is None and body["notes"] == []
    assert [r["path"] for r in seen] == ["/tightpack/snapshot"]
    # inside a hub without the token: said
    monkeypatch.setenv("JUPYTERHUB_USER", "alice")
    _, body = await get("snapshot", refresh="1")
    assert body["home"] is None
    assert any("JUPYTERHUB_API_TOKEN" in n for n in body["notes"])


@pytest.mark.parametrize("options,words", [
    ({"auth": "token someone-else"}, "answered HTTP 401"),
    ({"status": 503, "auth": None}, "answered HTTP 503"),
    ({"answer": {"user": "bob", "claims": [], "items": []}}, "for user 'bob', not 'alice'"),
    ({"answer": {"claims": []}}, "no user"),
])
async def test_a_home_failure_is_a_note_not_the_snapshots(in_a_hub, scheduler, get, options, words):
    scheduler(**options)
    status, body = await get("snapshot")
    assert status == 200, body
    assert body["home"] is None
    assert kinds(body["cluster"], "PersistentVolume") == []
    (note,) = [n for n in body["notes"] if "home claims" in n]
    assert words in note and "/home" in note
    assert HUB_TOKEN not in json.dumps(body)


@pytest.mark.parametrize("tightpack_settings", [{"request_timeout": 0.5}])
async def test_a_slow_home_is_bounded_by_the_request_timeout(in_a_hub, scheduler, get):
    scheduler(delay=3.0)
    loop = asyncio.get_running_loop()
    started = loop.time()
    status, body = await get("snapshot")
    assert status == 200 and body["home"] is None
    assert loop.time() - started < 2.5
    assert any("home claims are not in the prediction" in n and "unreachable" in n
               for n in body["notes"])


async def test_the_hub_token_never_follows_a_redirect(in_a_hub, serve, scheduler, get):
    stolen: list = []
    elsewhere = serve([("/steal", Recorder, {"answer": alice_home(), "seen": stolen})])
    scheduler(redirect=elsewhere + "/steal")
    status, body = await get("snapshot")
    assert status == 200 and body["home"] is None
    assert stolen == []
    assert any("HTTP 302" in n and "not followed" in n for n in body["notes"])


async def test_only_claims_and_volumes_join_the_cluster(in_a_hub, scheduler, get):
    answer = alice_home()
    answer["items"].append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "sneaky"}})
    scheduler(answer=answer)
    _, body = await get("snapshot")
    assert [n["metadata"]["name"] for n in kinds(body["cluster"], "Node")] == [
        n["metadata"]["name"] for n in kinds(example("daskhub-gke", "cluster.json"), "Node")]


def test_home_is_at_the_snapshot_urls_origin():
    assert home.home_url("https://tightpack.jhub.svc:10259/snapshot") == \
        "https://tightpack.jhub.svc:10259/home"
    assert home.home_url("https://sched:8443/prefix/snapshot?x=1") == "https://sched:8443/home"


# ----------------------------------------------------------- the profiles' home volumes

def profile(body):
    return next(t for t in body["templates"] if t["id"] == "profile:gpu")


async def test_a_returning_users_pod_mounts_her_claim(in_a_hub, scheduler, get):
    scheduler()
    status, body = await get("templates")
    assert status == 200 and body["errors"] == []
    gpu = profile(body)
    assert gpu["pod"]["metadata"]["namespace"] == "daskhub"  # where her claim is
    assert gpu["pod"]["spec"]["volumes"] == [
        {"name": "volume-alice", "persistentVolumeClaim": {"claimName": "claim-alice"}}]
    # whose it is; what it is (its disk's zone) is the engine's answer, which the panel words
    assert gpu["claims"] == [{"name": "claim-alice", "namespace": "daskhub", "own": True,
                              "firstSpawn": False, "homeKnown": True}]


@pytest.mark.parametrize("storage_class", [None, "premium-rwo"])
async def test_a_first_spawn_creates_the_claim_kubespawner_makes(
        in_a_hub, scheduler, get, service_account, storage_class):
    (service_account / "namespace").write_text("jhub")
    published = defaults(storage_class=storage_class)
    scheduler(snapshot=snapshot_document(kubespawner_defaults=published),
              answer={"user": "alice", "claims": [], "items": []})
    status, snap = await get("snapshot")
    assert status == 200 and snap["home"] == {"user": "alice", "claims": []}
    (claim,) = kinds(snap["cluster"], "PersistentVolumeClaim")
    assert claim["metadata"]["name"] == "claim-alice"
    assert claim["metadata"]["namespace"] == "jhub"
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert claim["spec"]["resources"] == {"requests": {"storage": "10Gi"}}
    if storage_class is None:  # no class at all: the engine gives it the default one
        assert "storageClassName" not in claim["spec"]
        assert "volume.beta.kubernetes.io/storage-class" not in claim["metadata"]["annotations"]
    else:
        assert claim["spec"]["storageClassName"] == storage_class
        assert claim["metadata"]["annotations"]["volume.beta.kubernetes.io/storage-class"] == \
            storage_class
    assert any("jhub/claim-alice is the home claim your first spawn creates" in n
               for n in snap["notes"])
    _, body = await get("templates")
    gpu = profile(body)
    assert gpu["pod"]["metadata"]["namespace"] == "jhub"
    assert gpu["pod"]["spec"]["volumes"][0]["persistentVolumeClaim"] == {"claimName": "claim-alice"}
    assert gpu["claims"] == [{"name": "claim-alice", "namespace": "jhub", "own": True,
                              "firstSpawn": True, "homeKnown": True}]


async def test_without_storage_classes_the_new_claim_is_left_out(in_a_hub, scheduler, get):
    scheduler(snapshot=snapshot_document(with_class=False),
              answer={"user": "alice", "claims": [], "items": []})
    _, snap = await get("snapshot")
    assert kinds(snap["cluster"], "PersistentVolumeClaim") == []
    assert any("lists no StorageClass" in n for n in snap["notes"])
    _, body = await get("templates")
    gpu = profile(body)
    assert "volumes" not in gpu["pod"]["spec"] and gpu["claims"] == []
    assert "home claim claim-alice left out of the prediction: the snapshot lists no " \
        "StorageClass, so where its disk would be made is unknown" in gpu["notes"]


async def test_when_home_fails_the_prediction_says_what_it_assumed(in_a_hub, scheduler, get):
    scheduler(auth="token someone-else")
    _, snap = await get("snapshot")
    # her claim is not known: the claim a first spawn would create is predicted
    (claim,) = kinds(snap["cluster"], "PersistentVolumeClaim")
    assert "volumeName" not in claim["spec"]
    assert any("claim-alice is the home claim your first spawn creates (no claim of yours is "
               "known)" in n for n in snap["notes"])
    _, body = await get("templates")
    assert any("your claims were not read from the tightpack scheduler's /home" in n
               for n in profile(body)["notes"])
    assert profile(body)["claims"] == [{"name": "claim-alice", "namespace": "default", "own": True,
                                        "firstSpawn": True, "homeKnown": False}]


async def test_a_shared_claim_is_used_as_it_is(in_a_hub, scheduler, get):
    nfs_claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": "home-nfs", "namespace": "daskhub"},
                 "spec": {"accessModes": ["ReadWriteMany"], "storageClassName": "",
                          "volumeName": "daskhub-home-nfs",
                          "resources": {"requests": {"storage": "1Mi"}}},
                 "status": {"phase": "Bound"}}
    nfs_volume = {"apiVersion": "v1", "kind": "PersistentVolume",
                  "metadata": {"name": "daskhub-home-nfs"},
                  "spec": {"capacity": {"storage": "1Mi"}, "accessModes": ["ReadWriteMany"],
                           "nfs": {"server": "10.0.0.2", "path": "/homes/"},
                           "claimRef": {"namespace": "daskhub", "name": "home-nfs"},
                           "storageClassName": ""},
                  "status": {"phase": "Bound"}}
    static = defaults(storage_pvc_ensure=False, volumes=[
        {"name": "home", "persistentVolumeClaim": {"claimName": "home-nfs"}},
        {"name": "scratch", "persistentVolumeClaim": {"claimName": "scratch-shared"}}])
    scheduler(snapshot=snapshot_document(kubespawner_defaults=static,
                                         extra_items=[nfs_claim, nfs_volume]))
    _, body = await get("templates")
    gpu = profile(body)
    assert gpu["pod"]["spec"]["volumes"] == [
        {"name": "home", "persistentVolumeClaim": {"claimName": "home-nfs"}}]
    assert gpu["claims"] == [{"name": "home-nfs", "namespace": "daskhub", "own": False,
                              "firstSpawn": False, "homeKnown": True}]
    assert "volume claim daskhub/scratch-shared left out of the prediction: the snapshot does " \
        "not have it" in gpu["notes"]


def test_a_profiles_own_volumes_replace_the_hubs():
    ctx = home.HomeContext(user="alice", home=None, namespace="jhub",
                           cluster={"items": [STORAGE_CLASS]})
    from jupyterlab_tightpack import profiles
    entry = {"display_name": "No home", "kubespawner_override": {"volumes": []}}
    found, errors = profiles.template(entry, 0, "jhub", defaults(), ctx)
    assert not errors and "volumes" not in found["pod"]["spec"]


# ------------------------------------------------------------- KubeSpawner's names

# The same names KubeSpawner 7.1.0 gives (tests/clients/test_sidebar_models.py holds them
# against its own expansion).
@pytest.mark.parametrize("user,expected", [
    ("alice", "claim-alice"),
    ("Alice.Smith@example.org", "claim-alice-smith-example-org---323a0b32"),
    ("a--b", "claim-a-b---90827a2e"),
    ("0day", "claim-x-0day---819d812d"),
    ("x" * 60, "claim-xxxxxxxxxxxxxxxxx--x---fb2abac5"),
])
def test_claim_names_follow_kubespawners_safe_scheme(user, expected):
    assert kubespawner_names.expand("claim-{user_server}", user, "jhub") == expected


def test_a_template_field_a_notebook_cannot_know():
    with pytest.raises(ValueError, match="userid"):
        kubespawner_names.expand("claim-{userid}", "alice", "jhub")
