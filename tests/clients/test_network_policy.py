"""Who can reach the scheduler: the chart's NetworkPolicy and the DaskHub example's wiring,
judged by cyclonus (github.com/mattfenwick/cyclonus, deploy/helm/netpol), a simulator of
NetworkPolicy semantics, for pods the real clients make.

No network plugin enforces NetworkPolicies on the test control plane, so the rendered
policies go to cyclonus' matcher instead of to a kernel. The peers are the pods KubeSpawner,
the dask-kubernetes operator and dask-gateway-server build (clients.py) and the chart's own
Deployment; zero-to-jupyterhub's singleuser and hub NetworkPolicies are a test double
(z2jh_policies below follows its templates, jupyterhub/templates/{singleuser,hub}/netpol.yaml
and _helpers-netpol.tpl), because its chart cannot be downloaded here.
"""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
from pathlib import Path

import clients
import pytest
import yaml
import z2jh

ROOT = Path(__file__).resolve().parents[2]
CHART = ROOT / "deploy" / "helm" / "tightpack"
EXAMPLES = ROOT / "deploy" / "examples"
HELM = ROOT / "build" / "helm" / "helm"
JUDGE = ROOT / "build" / "helm" / "netpol-judge"
HUB_NAMESPACE = "daskhub"  # values-daskhub-gke.yaml's hub.namespace
RELEASE, NAMESPACE = "tightpack", "tightpack"  # as daskhub-values.yaml's URLs name it


@pytest.fixture(scope="module", autouse=True)
def tools():
    subprocess.run([ROOT / "deploy" / "helm" / "build_helm.sh"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([ROOT / "deploy" / "helm" / "build_netpol_judge.sh"], check=True, stdout=subprocess.DEVNULL)


def render(*args: str) -> list:
    r = subprocess.run([HELM, "template", RELEASE, CHART, "--namespace", NAMESPACE, *args],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [d for d in yaml.safe_load_all(r.stdout) if d]


def policies_of(docs: list) -> list:
    return [d for d in docs if d["kind"] == "NetworkPolicy"]


def scheduler_pod(docs: list) -> dict:
    """The chart's scheduler pod as the Deployment's template makes it."""
    dep = next(d for d in docs if d["kind"] == "Deployment")
    return {"metadata": {"namespace": NAMESPACE, "labels": dep["spec"]["template"]["metadata"]["labels"]},
            "spec": dep["spec"]["template"]["spec"]}


def port(pod: dict, name: str) -> tuple:
    container = pod["spec"]["containers"][0]
    return next((p["containerPort"], p["name"]) for p in container["ports"] if p["name"] == name)


def peer(pod: dict) -> dict:
    """A pod as cyclonus sees it: its namespace's labels (the API server's name label), its
    labels, and an address in the cluster's pod range (private: ipBlock rules see it)."""
    ns = pod["metadata"]["namespace"]
    digest = hashlib.sha256(json.dumps(pod["metadata"], sort_keys=True).encode()).digest()
    return {"Internal": {"PodLabels": pod["metadata"].get("labels") or {},
                         "NamespaceLabels": {"kubernetes.io/metadata.name": ns}, "Namespace": ns},
            "IP": f"10.{digest[0] % 64 + 64}.{digest[1]}.{digest[2] % 254 + 1}"}


def judge(policies: list, traffic: list) -> list:
    """cyclonus' verdict for each (source pod, destination pod, (port, port name))."""
    cases = [{"Source": peer(src), "Destination": peer(dst), "ResolvedPort": number,
              "ResolvedPortName": name, "Protocol": "TCP"} for src, dst, (number, name) in traffic]
    r = subprocess.run([JUDGE], input=json.dumps({"policies": policies, "traffic": cases}),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# ------------------------------------------------------------------------- the hub's pods
def notebook(namespace: str = HUB_NAMESPACE) -> dict:
    pod, _ = clients.notebook("alice", z2jh.kubespawner_config(namespace=namespace))
    return pod


def operator_pods(namespace: str = HUB_NAMESPACE) -> tuple:
    """(scheduler pod, worker pod) of a KubeCluster: the operator's Deployments' pods."""
    made = clients.operator_cluster("alice-cluster", namespace, 1)
    _, scheduler = clients.replicaset_and_pod(made["scheduler"])
    _, worker = clients.replicaset_and_pod(made["workers"][0])
    return scheduler, worker


def gateway_pods(namespace: str = HUB_NAMESPACE) -> tuple:
    made = clients.gateway_cluster(clients.gateway_config(namespace=namespace), "alice", {}, 1,
                                   namespace=namespace)
    return made["scheduler"], made["workers"][0]


def plain_pod(namespace: str, labels: dict) -> dict:
    return {"metadata": {"namespace": namespace, "labels": labels}, "spec": {}}


def hub_pod() -> dict:
    """zero-to-jupyterhub's hub (its Deployment's labels and port, templates/hub/deployment.yaml)."""
    return {"metadata": {"namespace": HUB_NAMESPACE,
                         "labels": {"component": "hub", "app": "jupyterhub", "release": z2jh.RELEASE,
                                    "hub.jupyter.org/network-access-proxy-api": "true"}},
            "spec": {"containers": [{"ports": [{"name": "http", "containerPort": 8081}]}]}}


def z2jh_policies(values: dict) -> list:
    """Test double: the singleuser and hub NetworkPolicies zero-to-jupyterhub renders with its
    default networkPolicy values (egressAllowRules: DNS, non-private IPs and, for the hub,
    private IPs and the metadata server; interNamespaceAccessLabels: ignore) and `values`'
    singleuser.networkPolicy.egress and hub.networkPolicy.ingress, which it appends verbatim."""
    jh = values.get("jupyterhub", {})
    match = {"app": "jupyterhub", "release": z2jh.RELEASE}
    private = [{"ipBlock": {"cidr": c}} for c in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16")]
    dns = {"ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}],
           "to": [{"ipBlock": {"cidr": "169.254.169.254/32"}},
                  {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}},
                  *private]}
    public = {"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": [
        "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.169.254/32"]}}]}
    singleuser = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                  "metadata": {"name": "singleuser", "namespace": HUB_NAMESPACE},
                  "spec": {"podSelector": {"matchLabels": dict(match, component="singleuser-server")},
                           "policyTypes": ["Ingress", "Egress"],
                           "ingress": [{"ports": [{"port": "notebook-port"}], "from": [{"podSelector": {
                               "matchLabels": {"hub.jupyter.org/network-access-singleuser": "true"}}}]}],
                           "egress": [
                               {"to": [{"podSelector": {"matchLabels": dict(match, component="hub")}}],
                                "ports": [{"port": 8081}]},
                               {"to": [{"podSelector": {"matchLabels": dict(match, component="proxy")}}],
                                "ports": [{"port": 8000}]},
                               {"to": [{"podSelector": {"matchLabels": dict(match, component="autohttps")}}],
                                "ports": [{"port": 8080}, {"port": 8443}]},
                               dns, public,
                               *copy.deepcopy(jh.get("singleuser", {}).get("networkPolicy", {}).get("egress", []))]}}
    hub = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
           "metadata": {"name": "hub", "namespace": HUB_NAMESPACE},
           "spec": {"podSelector": {"matchLabels": dict(match, component="hub")},
                    "policyTypes": ["Ingress", "Egress"],
                    "ingress": [{"ports": [{"port": "http"}], "from": [{"podSelector": {
                        "matchLabels": {"hub.jupyter.org/network-access-hub": "true"}}}]},
                                *copy.deepcopy(jh.get("hub", {}).get("networkPolicy", {}).get("ingress", []))],
                    "egress": [{"to": [{"podSelector": {"matchLabels": dict(match, component="proxy")}}],
                                "ports": [{"port": 8001}]},
                               {"to": [{"podSelector": {"matchLabels": dict(match, component="singleuser-server")}}],
                                "ports": [{"port": 8888}]},
                               dns, public, {"to": private},
                               {"to": [{"ipBlock": {"cidr": "169.254.169.254/32"}}]}]}}
    return [singleuser, hub]


# ----------------------------------------------------------------------------- the tests
def test_secure_port_admits_the_hubs_pods_in_its_namespace_only():
    """values-daskhub-gke.yaml: notebook servers, the hub and Dask schedulers of the hub's
    namespace reach /snapshot, /home, /spawn/v1/profiles and /dask/v1/nodes; Dask workers, other
    pods there, and the same labels in another namespace (any user can set a label on her own
    pod) do not."""
    docs = render("-f", str(EXAMPLES / "values-daskhub-gke.yaml"))
    tp = scheduler_pod(docs)
    https = port(tp, "https")
    op_scheduler, op_worker = operator_pods()
    gw_scheduler, gw_worker = gateway_pods()
    admitted = {"notebook": notebook(), "hub": hub_pod(), "operator scheduler": op_scheduler,
                "gateway scheduler": gw_scheduler}
    refused = {"operator worker": op_worker, "gateway worker": gw_worker,
               "unlabelled pod in the hub's namespace": plain_pod(HUB_NAMESPACE, {"run": "x"}),
               "notebook in another namespace": notebook("elsewhere"),
               "operator scheduler in another namespace": operator_pods("elsewhere")[0],
               "a pod labelled as a notebook in kube-system": plain_pod("kube-system",
                                                                        {"component": "singleuser-server"})}
    cases = {**admitted, **refused}
    verdicts = judge(policies_of(docs), [(src, tp, https) for src in cases.values()])
    got = {name: v["ingress"] for name, v in zip(cases, verdicts)}
    assert got == {name: name in admitted for name in cases}


def test_probe_port_admits_no_pod():
    """No pod reaches the probe port, whatever it is; the kubelet's probes come from the node,
    which NetworkPolicy always allows."""
    for args in ([], ["-f", str(EXAMPLES / "values-daskhub-gke.yaml")],
                 ["-f", str(EXAMPLES / "values-z2jh-dropin.yaml")],
                 ["--set-json", 'networkPolicy.extraFrom=[{"namespaceSelector":{}}]']):
        docs = render(*args)
        tp = scheduler_pod(docs)
        probes = port(tp, "probes")
        op_scheduler, _ = operator_pods()
        sources = [notebook(), op_scheduler, gateway_pods()[0], plain_pod("kube-system", {"k8s-app": "kube-dns"}),
                   plain_pod(NAMESPACE, {}), plain_pod("monitoring", {"app.kubernetes.io/name": "prometheus"})]
        verdicts = judge(policies_of(docs), [(src, tp, probes) for src in sources])
        assert [v["ingress"] for v in verdicts] == [False] * len(sources), args


def test_default_values_admit_the_labels_in_any_namespace_and_extra_peers():
    """Without a hub namespace the labels alone admit (documented as a convenience, not a
    boundary); extraFrom adds Prometheus; with no peer at all nothing is admitted (an empty
    `from` would admit everyone)."""
    prometheus = plain_pod("monitoring", {"app.kubernetes.io/name": "prometheus"})
    sources = [notebook("anywhere"), prometheus, plain_pod("anywhere", {"run": "x"})]
    for args, expected in [
        ([], [True, False, False]),
        (["--set-json", 'networkPolicy.extraFrom=[{"namespaceSelector":{"matchLabels":'
                        '{"kubernetes.io/metadata.name":"monitoring"}}}]'], [True, True, False]),
        (["--set-json", "networkPolicy.podLabels=[]"], [False, False, False]),
        (["--set-json", 'networkPolicy.namespaces=["daskhub"]'], [False, False, False]),
    ]:
        docs = render(*args)
        tp = scheduler_pod(docs)
        verdicts = judge(policies_of(docs), [(src, tp, port(tp, "https")) for src in sources])
        assert [v["ingress"] for v in verdicts] == expected, args


def test_daskhub_example_lets_the_sidebar_and_home_through_zero_to_jupyterhubs_policies():
    """With zero-to-jupyterhub's own policies in place, daskhub-values.yaml's additions are what
    lets a notebook reach the scheduler (its egress) and the scheduler reach the hub for /home
    (the hub's ingress); without them both are refused. The hub reaches the scheduler for the
    spawn page either way."""
    docs = render("-f", str(EXAMPLES / "values-daskhub-gke.yaml"))
    tp = scheduler_pod(docs)
    hub = hub_pod()
    daskhub = yaml.safe_load((EXAMPLES / "daskhub-values.yaml").read_text())
    traffic = [(notebook(), tp, port(tp, "https")), (tp, hub, port(hub, "http")), (hub, tp, port(tp, "https"))]
    with_example = judge(policies_of(docs) + z2jh_policies(daskhub), traffic)
    assert [v["allowed"] for v in with_example] == [True, True, True]
    # The hub's question for the spawn page needs nothing added: z2jh's hub may reach private addresses.
    without = judge(policies_of(docs) + z2jh_policies({}), traffic)
    assert [(v["egress"], v["ingress"]) for v in without] == [(False, True), (True, False), (True, True)]


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML as Helm reads values: a key given twice is an error, not the later one."""

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(k, deep=deep) for k, _ in node.value]
        dupes = {k for k in keys if keys.count(k) > 1}
        assert not dupes, f"keys given twice: {sorted(dupes)}"
        return super().construct_mapping(node, deep=deep)


def notes_values(*args: str) -> dict:
    """The hub values NOTES.txt prints after `helm install` (its step 2), as YAML."""
    r = subprocess.run([HELM, "install", RELEASE, CHART, "--namespace", NAMESPACE, "--dry-run=client", *args],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    notes = r.stdout.split("NOTES:", 1)[1]
    block = notes.split("values:\n", 1)[1].split("\n3. ", 1)[0]
    return yaml.load(block, Loader=_UniqueKeyLoader)


def test_install_notes_give_the_wiring_the_example_judged_above_has():
    """What NOTES.txt tells an administrator to add to the hub's values is what
    daskhub-values.yaml adds (judged by cyclonus above): the egress to the scheduler, the hub's
    ingress for /home, the CA, in one YAML document without a key given twice."""
    daskhub = yaml.safe_load((EXAMPLES / "daskhub-values.yaml").read_text())["jupyterhub"]
    gke = notes_values("-f", str(EXAMPLES / "values-daskhub-gke.yaml"))["jupyterhub"]
    assert gke["singleuser"]["networkPolicy"] == daskhub["singleuser"]["networkPolicy"]
    assert gke["hub"]["networkPolicy"] == daskhub["hub"]["networkPolicy"]
    assert gke["singleuser"]["storage"] == daskhub["singleuser"]["storage"]
    assert gke["singleuser"]["extraEnv"]["TIGHTPACK_SNAPSHOT_CA_FILE"] == \
        daskhub["singleuser"]["extraEnv"]["TIGHTPACK_SNAPSHOT_CA_FILE"]
    # Without hub.apiUrl there is no /home, so no hub ingress; the drop-in keeps z2jh's scheduler.
    default = notes_values()["jupyterhub"]
    assert "networkPolicy" not in default["hub"] and default["singleuser"]["networkPolicy"]
    dropin = notes_values("-f", str(EXAMPLES / "values-z2jh-dropin.yaml"))["jupyterhub"]
    assert dropin["scheduling"]["userScheduler"]["replicas"] == 0 and "hub" not in dropin
