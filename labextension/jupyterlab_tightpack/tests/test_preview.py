"""preview() on the real clients' objects, and POST /tightpack/preview making their pods.

The objects are dask-kubernetes' and dask-gateway's own (PyPI, pinned in
requirements-test.txt). A KubeCluster or GatewayCluster made with asynchronous=True inside a
running loop is not started until awaited: no cluster and no gateway is needed to make one.
"""

from __future__ import annotations

import json
import warnings

import pytest
from dask_gateway import GatewayCluster
from dask_gateway.client import ClusterReport, ClusterStatus
from dask_gateway.options import Float, Mapping, Options, String
from dask_kubernetes.operator import KubeCluster, make_cluster_spec

from jupyterlab_tightpack import notebook, preview
from jupyterlab_tightpack.notebook import MIME_TYPE

from .doubles import FakeGateway

RESOURCES = {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"memory": "8Gi"}}


@pytest.fixture
def post(jp_fetch):
    """POST /tightpack/preview: (status, JSON body), error statuses included."""

    async def fetch(body):
        raw = body if isinstance(body, (bytes, str)) else json.dumps(body)
        response = await jp_fetch("tightpack", "preview", method="POST", body=raw,
                                  raise_error=False)
        return response.code, json.loads(response.body)

    return fetch


def unstarted(cls, **kwargs):
    """A client object made as a notebook makes it, not started (its start is a coroutine
    nobody awaits)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        made = cls(asynchronous=True, **kwargs)
    # Nothing to close at exit: the clients' reapers would try.
    getattr(cls, "_instances", set()).discard(made)
    return made


def gateway_options():
    """Options as Gateway.cluster_options() builds them from a DaskHub gateway's spec."""
    options = Options(Float("worker_cores", 1, min=1, max=8, label="Worker Cores"),
                      Float("worker_memory", 4, min=1, max=32, label="Worker Memory (GiB)"),
                      String("image", "pangeo/pangeo-notebook:2024.12.1", label="Image"),
                      Mapping("environment", {}, label="Environment"))
    options.worker_cores = 4
    options.worker_memory = 16
    return options


# ---------------------------------------------------------------- the kernel's half


async def test_a_kube_cluster_is_its_make_cluster_spec():
    cluster = unstarted(KubeCluster, name="alice", namespace="daskhub", resources=RESOURCES,
                        image="ghcr.io/dask/dask:2026.8.0")
    shown = preview(cluster, 20)
    # As KubeCluster._create_cluster makes it, with the settings the Dask config completed.
    expected = make_cluster_spec(name="alice", image="ghcr.io/dask/dask:2026.8.0",
                                 resources=RESOURCES, env=cluster.env,
                                 n_workers=cluster.n_workers, idle_timeout=cluster.idle_timeout)
    expected["metadata"]["namespace"] = "daskhub"
    assert shown.question == {"version": 1, "workers": 20, "profile": None,
                              "label": "KubeCluster alice",
                              "target": {"kind": "dask-kubernetes", "manifest": expected}}
    bundle = shown._repr_mimebundle_()
    assert set(bundle) == {MIME_TYPE, "text/plain"}
    assert json.loads(json.dumps(bundle[MIME_TYPE])) == shown.question
    assert "20 workers of KubeCluster alice" in bundle["text/plain"]
    assert "jupyterlab-tightpack" in bundle["text/plain"]


async def test_a_custom_cluster_spec_is_used_as_it_is():
    spec = make_cluster_spec(name="custom", resources=RESOURCES)
    spec["spec"]["worker"]["spec"]["nodeSelector"] = {"pool": "dask"}
    cluster = unstarted(KubeCluster, custom_cluster_spec=spec)
    target = preview(cluster, 3, profile="most-allocated").question
    assert target["target"]["manifest"]["spec"]["worker"]["spec"]["nodeSelector"] == {
        "pool": "dask"}
    assert target["profile"] == "most-allocated"


def test_manifests_and_pods():
    spec = make_cluster_spec(name="bob", resources=RESOURCES)
    assert preview(spec, 5).question["target"] == {"kind": "dask-kubernetes", "manifest": spec}
    group = {"apiVersion": "kubernetes.dask.org/v1", "kind": "DaskWorkerGroup",
             "metadata": {"name": "bob-highmem"},
             "spec": {"cluster": "bob", "worker": spec["spec"]["worker"]}}
    assert preview(group, 2).question["label"] == "DaskWorkerGroup bob-highmem"
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
           "spec": {"containers": [{"name": "c"}]}}
    assert preview(pod, 1).question["target"] == {"kind": "pod", "pod": pod}
    # A pod's spec without apiVersion/kind, as people paste them.
    assert preview({"spec": {"containers": []}}, 1).question["target"]["kind"] == "pod"


def test_gateway_options_are_complete():
    target = preview(gateway_options(), 4).question["target"]
    assert target == {"kind": "dask-gateway", "complete": True, "address": None,
                      "options": {"worker_cores": 4.0, "worker_memory": 16.0,
                                  "image": "pangeo/pangeo-notebook:2024.12.1",
                                  "environment": {}}}


async def test_a_gateway_cluster_carries_what_it_was_created_with():
    with_options = unstarted(GatewayCluster, address="http://gateway.invalid",
                             cluster_options=gateway_options(), worker_cores=2)
    target = preview(with_options, 4).question["target"]
    assert target["complete"] is True and target["address"] == "http://gateway.invalid"
    assert target["options"]["worker_cores"] == 2  # the keyword wins, as in Gateway._submit
    # Without Options: only the keywords; the server's defaults are fetched server-side.
    bare = unstarted(GatewayCluster, address="http://gateway.invalid", worker_memory=8)
    assert preview(bare, 4).question["target"] == {
        "kind": "dask-gateway", "options": {"worker_memory": 8}, "complete": False,
        "address": "http://gateway.invalid"}


def test_a_gateway_clusters_report_gives_its_options_only():
    """gateway.get_cluster(name) for a cluster reattached by name: its submitted options,
    never the rest of the report (a TLS key among it)."""
    report = ClusterReport("dask-1", {"worker_cores": 3, "image": "pangeo/x:1"},
                           ClusterStatus.RUNNING, "gateway://x:80/dask-1", "http://x/d",
                           None, None, tls_cert="CERT", tls_key="SECRET-KEY")
    question = preview(report, 6).question
    assert question["target"] == {"kind": "dask-gateway", "complete": False, "address": None,
                                  "options": {"worker_cores": 3, "image": "pangeo/x:1"}}
    assert question["label"] == "dask-gateway cluster dask-1"
    assert set(question) == {"version", "target", "workers", "profile", "label"}


def test_a_profile_by_name():
    assert preview("GPU notebook (T4)", 1).question["target"] == {
        "kind": "profile", "name": "GPU notebook (T4)"}


def test_what_it_does_not_take_is_a_type_error_naming_what_it_does():
    with pytest.raises(TypeError) as raised:
        preview(42.5, 3)
    assert "builtins.float" in str(raised.value)
    for kind in ("KubeCluster", "make_cluster_spec", "cluster_options", "GatewayCluster",
                 "profile", "Pod"):
        assert kind in str(raised.value)
    assert notebook.ACCEPTS in str(raised.value)


@pytest.mark.parametrize("n", [0, -1, 10001, 2.5, "20", True, None])
def test_n_must_be_a_count_of_workers(n):
    with pytest.raises(ValueError, match=r"n=.*from 1 to 10000"):
        preview("CPU notebook", n)


def test_bad_manifests_and_profiles_name_the_value():
    with pytest.raises(ValueError, match="'Deployment'"):
        preview({"kind": "Deployment", "spec": {}}, 1)
    with pytest.raises(ValueError, match="profile="):
        preview("CPU notebook", 1, profile="")
    with pytest.raises(ValueError, match="empty profile name"):
        preview("  ", 1)
    with pytest.raises(ValueError, match="cannot be written as JSON"):
        preview({"kind": "Pod", "spec": {"containers": [{"name": object()}]}}, 1)


# ---------------------------------------------------------------- the server's half


async def test_the_server_makes_the_worker_pod_of_a_spec(post, service_account):
    (service_account / "namespace").write_text("daskhub")
    question = preview(make_cluster_spec(name="bob", resources=RESOURCES), 20).question
    status, template = await post({"target": question["target"]})
    assert status == 200, template
    assert template["source"] == "dask-kubernetes" and template["id"] == "dask-kubernetes:bob-default"
    pod = template["pod"]
    assert pod["metadata"]["namespace"] == "daskhub"
    assert pod["metadata"]["labels"] == {"dask.org/cluster-name": "bob",
                                         "dask.org/workergroup-name": "bob-default",
                                         "dask.org/component": "worker"}
    assert pod["spec"] == make_cluster_spec(name="bob", resources=RESOURCES)["spec"]["worker"][
        "spec"]


async def test_the_server_makes_a_worker_group_pod(post):
    spec = make_cluster_spec(name="bob")["spec"]["worker"]
    group = {"kind": "DaskWorkerGroup", "metadata": {"name": "bob-gpu", "namespace": "ns"},
             "spec": {"cluster": "bob", "worker": spec}}
    status, template = await post({"target": preview(group, 2).question["target"]})
    assert status == 200
    assert template["pod"]["metadata"]["namespace"] == "ns"
    assert template["pod"]["metadata"]["labels"]["dask.org/workergroup-name"] == "bob-gpu"
    assert template["pod"]["metadata"]["labels"]["dask.org/cluster-name"] == "bob"


async def test_a_profile_by_display_name_or_slug_as_the_sidebar_has_it(post, get):
    _, templates = await get("templates")
    sidebar = {t["id"]: t for t in templates["templates"]}["profile:gpu-notebook-t4"]
    for name in ("GPU notebook (T4)", "gpu-notebook-t4"):
        status, template = await post({"target": preview(name, 1).question["target"]})
        assert status == 200
        assert template == sidebar


async def test_an_unknown_profile_names_the_ones_offered(post):
    status, body = await post({"target": {"kind": "profile", "name": "TPU"}})
    assert status == 400
    assert body["error"] == ("profile 'TPU': the hub offers no profile of that display name or "
                             "slug (it offers 'CPU notebook', 'GPU notebook (T4)')")


async def test_gateway_options_make_the_worker_pod(post):
    question = preview(gateway_options(), 4).question
    status, template = await post({"target": question["target"]})
    assert status == 200
    container = template["pod"]["spec"]["containers"][0]
    sixteen_gib = str(16 * 1024**3)
    assert container["resources"]["requests"] == {"cpu": "4.000", "memory": sixteen_gib}
    assert template["start"]["options"]["worker_cores"] == 4.0


async def test_a_bare_gateway_cluster_gets_the_gateways_defaults(post, serve, dask_config,
                                                                 monkeypatch):
    seen = []
    base = serve([("/api/v1/options", FakeGateway, {"seen": seen})])
    dask_config("gateway.yaml", f"gateway:\n  address: {base}\n  cluster:\n    options:\n"
                "      worker_cores: 3\n")
    target = {"kind": "dask-gateway", "options": {"worker_memory": 8}, "complete": False,
              "address": base}
    status, template = await post({"target": target})
    assert status == 200, template
    assert len(seen) == 1
    # The gateway's defaults, then the Dask config's options, then the cluster's own.
    assert template["start"]["options"] == {"worker_cores": 3, "worker_memory": 8,
                                            "image": "pangeo/pangeo-notebook:2024.12.1",
                                            "environment": {"A": "1"}}
    requests = template["pod"]["spec"]["containers"][0]["resources"]["requests"]
    assert requests == {"cpu": "3.000", "memory": str(8 * 1024**3)}


async def test_a_pod_gets_the_notebooks_namespace(post, service_account):
    (service_account / "namespace").write_text("jhub")
    pod = {"kind": "Pod", "metadata": {"name": "solo"}, "spec": {"containers": [{"name": "c"}]}}
    status, template = await post({"target": {"kind": "pod", "pod": pod}})
    assert status == 200
    assert template["pod"]["metadata"] == {"name": "solo", "namespace": "jhub"}
    assert template["source"] == "pod" and template["start"] == {"kind": "pod"}


async def test_a_gateways_defaults_are_asked_only_of_the_configured_one(post, serve,
                                                                          dask_config):
    """A question in a notebook's output is anyone's: it must not make this server send the
    user's gateway credentials to an address it names."""
    seen = []
    elsewhere = serve([("/api/v1/options", FakeGateway, {"seen": seen})])
    dask_config("gateway.yaml", "gateway:\n  address: http://gateway.invalid\n"
                "  auth:\n    type: basic\n    kwargs: {username: alice, password: secret}\n")
    target = {"kind": "dask-gateway", "options": {}, "complete": False, "address": elsewhere}
    status, body = await post({"target": target})
    assert status == 400
    assert body["error"] == (f"target.address {elsewhere!r}: not the gateway of your Dask "
                             "config (http://gateway.invalid), the only one whose defaults "
                             "are asked for")
    assert seen == []


@pytest.mark.parametrize("body, error", [
    ("{", "the request body is not JSON"),
    ("[1]", 'expected {"target": {...}}'),
    ({"target": {"kind": "helm"}}, "target.kind: 'helm': expected one of"),
    ({"target": {"kind": "profile", "name": 7}}, "target.name: 7 is not a str"),
    ({"target": {"kind": "dask-kubernetes", "manifest": {"kind": "DaskCluster"}}},
     "no spec.worker.spec"),
    ({"target": {"kind": "dask-gateway", "options": {"worker_cores": "many"},
                 "complete": True}}, "worker_cores: 'many' is not a number of cores"),
    ({"target": {"kind": "dask-gateway", "options": {}, "complete": False}},
     "no gateway address"),
])
async def test_bad_targets_are_400_naming_the_field(post, body, error):
    status, answer = await post(body)
    assert status == 400
    assert error in answer["error"]


# ---------------------------------------------------------------- the magic


@pytest.fixture
def shell():
    """IPython's own shell with the extension loaded, as %load_ext loads it."""
    from IPython.core.interactiveshell import InteractiveShell

    made = InteractiveShell.instance()
    made.run_line_magic("load_ext", "jupyterlab_tightpack")
    yield made
    InteractiveShell.clear_instance()


def test_the_magic_is_preview_on_the_notebooks_names(shell, monkeypatch):
    import IPython.display

    displayed = []
    monkeypatch.setattr(IPython.display, "display", displayed.append)
    spec = make_cluster_spec(name="bob", resources=RESOURCES)
    shell.user_ns.update(spec=spec, count=12, make_cluster_spec=make_cluster_spec)
    # Each line displays its preview (a cell of several draws each) and returns nothing.
    assert shell.run_line_magic("tightpack", "spec count") is None
    shell.run_line_magic("tightpack", '"GPU notebook (T4)" 1 --profile most-allocated')
    shell.run_line_magic("tightpack", "make_cluster_spec(name='x') 2 --profile=rtc")
    assert [d.question for d in displayed[:2]] == [
        preview(spec, 12).question, preview("GPU notebook (T4)", 1, "most-allocated").question]
    assert displayed[2].question["target"]["manifest"]["metadata"]["name"] == "x"
    assert displayed[2].question["profile"] == "rtc"


@pytest.mark.parametrize("line, error", [
    ("", "expected %tightpack TARGET N"),
    ("spec", "expected %tightpack TARGET N"),
    ("spec) 20", "expected %tightpack TARGET N"),
])
def test_the_magics_usage_errors_say_what_it_takes(shell, line, error):
    from IPython.core.error import UsageError

    shell.user_ns["spec"] = make_cluster_spec(name="bob")
    with pytest.raises(UsageError, match=error):
        shell.run_line_magic("tightpack", line)


def test_the_magic_passes_previews_errors_on(shell):
    shell.user_ns["spec"] = make_cluster_spec(name="bob")
    with pytest.raises(ValueError, match="n=0"):
        shell.run_line_magic("tightpack", "spec 0")
    with pytest.raises(TypeError, match="it takes"):
        shell.run_line_magic("tightpack", "3.5 2")
