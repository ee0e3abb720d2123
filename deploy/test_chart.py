"""The Helm chart against a real kube-apiserver (deploy/test_chart.sh runs this).

    python3 deploy/test_chart.py --helm build/helm/helm --tightpack PATH --cp-dir DIR --out DIR

1. helm lint --strict and helm template over the default values and every
   deploy/examples/values-*.yaml; values the schema must refuse are refused; the
   examples agree with the files they repeat.
2. Every rendered object passes a server-side dry run (dryRun=All, fieldValidation=Strict:
   an unknown field is an error); then `helm install` of each release (the test API server
   is stamped v1.37.2, so Helm checks the chart's kubeVersion), with the image the
   Deployment names set to the pushed image by digest (--image, from deploy/test_image.sh);
   every object `helm template` renders exists; the NOTES.txt Helm prints names what to set
   in the hub.
3. For each release: a token of the chart's ServiceAccount (TokenRequest API), the
   configuration from the chart's ConfigMap and the arguments of the chart's Deployment,
   and `tightpack schedule` with them must bind a pod, record a Scheduled event and hold
   the chart's Lease.
4. With each ClusterRole and Role rule removed in turn: what still works (readiness,
   leadership, binding, events, the Unschedulable condition, preemption), written to
   OUT/rbac.md; the important breaks are asserted. Each row runs as a ServiceAccount of its
   own, bound to a copy of the chart's ClusterRole and Role without that one verb, with a
   scheduler name, a lease namespace and nodes of its own, so that rows go on side by side.
5. `helm upgrade` with the same values rolls nothing and keeps the generated certificate, CA
   and snapshot token (the templates' lookup); with a new value it rolls the Deployment (the
   real deployment and ReplicaSet controllers make a second ReplicaSet); `helm uninstall` of
   every release leaves no object carrying a release's label in any resource the API server
   lists, and no release record.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import testlib  # noqa: E402
from testlib import Api, ApiError, wait_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHART = ROOT / "deploy" / "helm" / "tightpack"
EXAMPLES = ROOT / "deploy" / "examples"

# Each example: (values file or None, release, namespace). Release names differ because
# the ClusterRole and its binding are cluster-wide objects named after the release.
RELEASES = [
    (None, "tightpack", "tightpack"),
    (EXAMPLES / "values-daskhub-gke.yaml", "tightpack-gke", "tightpack-gke"),
    (EXAMPLES / "values-z2jh-dropin.yaml", "tightpack-z2jh", "daskhub"),
]

FAILURES: list = []
PASSED = [0]


def check(ok: bool, what: str):
    print(f"  {'ok' if ok else 'FAILED'}: {what}", flush=True)
    if ok:
        PASSED[0] += 1
    else:
        FAILURES.append(what)


def run(argv: list, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- 1. helm lint/template

def values_args(values) -> list:
    return ["-f", values] if values else []


def lint_and_template(helm: str, out: Path) -> dict:
    print("== helm lint and helm template", flush=True)
    rendered = {}
    for values, release, namespace in RELEASES:
        name = values.name if values else "default values"
        r = run([helm, "lint", "--strict", CHART, *values_args(values)])
        check(r.returncode == 0 and "0 chart(s) failed" in r.stdout,
              f"helm lint --strict ({name})" + ("" if r.returncode == 0 else f": {r.stdout}{r.stderr}"))
        r = run([helm, "template", release, CHART, "--namespace", namespace, *values_args(values)])
        check(r.returncode == 0, f"helm template ({name})" + ("" if r.returncode == 0 else f": {r.stderr}"))
        docs = [d for d in yaml.safe_load_all(r.stdout) if d]
        (out / f"{release}.yaml").write_text(r.stdout)
        rendered[release] = docs
        print(f"    {len(docs)} objects: {', '.join(sorted(d['kind'] for d in docs))}")
    # The optional ServiceMonitor, rendered as Helm does when the cluster serves its API.
    r = run([helm, "template", "tightpack", CHART, "--namespace", "tightpack", "--set", "serviceMonitor.enabled=true",
             "--api-versions", "monitoring.coreos.com/v1"])
    monitors = [d for d in yaml.safe_load_all(r.stdout) if d and d["kind"] == "ServiceMonitor"]
    check(r.returncode == 0 and len(monitors) == 1, "helm template --set serviceMonitor.enabled=true renders a ServiceMonitor")
    rendered["servicemonitor"] = monitors
    # Moves: off by default (no flag, no right on the operator's objects); on, both.
    default_text = (out / "tightpack.yaml").read_text()
    check("--move-dask-workers" not in default_text and "kubernetes.dask.org" not in default_text,
          "the defaults neither move workers nor may touch Dask operator objects")
    r = run([helm, "template", "tightpack", CHART, "--namespace", "tightpack", "--set", "moves.enabled=true",
             "--set", "moves.interval=30s", "--set-json", 'pools={"apiVersion": "tightpack.io/v1alpha1", '
             '"kind": "NodePools", "pools": [{"name": "workers", "minSize": 0}]}'])
    docs = [d for d in yaml.safe_load_all(r.stdout) if d] if r.returncode == 0 else []
    args = next((d["spec"]["template"]["spec"]["containers"][0]["args"] for d in docs if d["kind"] == "Deployment"), [])
    rules = next((d["rules"] for d in docs if d["kind"] == "ClusterRole"), [])
    dask_rules = {(res, tuple(r2["verbs"])) for r2 in rules if "kubernetes.dask.org" in r2["apiGroups"]
                  for res in r2["resources"]}
    check(r.returncode == 0 and "--move-dask-workers" in args and "--move-interval=30s" in args
          and "--move-rest=10m" in args
          and dask_rules == {("daskworkergroups", ("get", "patch")), ("daskclusters", ("get", "list", "patch")),
                             ("daskautoscalers", ("get",))},
          f"moves.enabled=true renders the flags and the rights on Dask operator objects ({args}, {dask_rules})")

    # Values the schema refuses (values.schema.json), and templates that refuse.
    for args, what in [
        (["--set", "unknownKey=1"], "an unknown top-level key"),
        (["--set", "image.pullPolicy=Sometimes"], "image.pullPolicy Sometimes"),
        (["--set", "scheduler.leaderElection.leaseDuration=15"], "leaseDuration 15 (not a duration)"),
        (["--set", "scheduler.bindWorkers=0"], "bindWorkers 0"),
        (["--set", "scheduler.typo=1"], "an unknown key under scheduler"),
        (["--set", "pools.kind=NodePool"], "pools that are not a NodePools document"),
        (["--set", "replicaCount=2", "--set", "scheduler.leaderElection.enabled=false"],
         "two replicas without leader election"),
        (["--set", "service.type=LoadBalancer"], "a LoadBalancer Service (any pod may reach the port, not the world)"),
        (["--set-json", "networkPolicy.podLabels=[{}]"], "a networkPolicy.podLabels entry without labels "
                                                          "(it would admit every pod)"),
        (["--set", "networkPolicy.namespaces[0]=Not_A_Namespace"], "a networkPolicy namespace that is no name"),
        (["--set", "moves.enabled=true"], "moves without pools"),
        (["--set", "moves.interval=soon"], "moves.interval that is no duration"),
    ]:
        r = run([helm, "template", "x", CHART, *args])
        check(r.returncode != 0, f"helm template refuses {what}" + (f": {r.stderr.strip().splitlines()[-1][:160]}"
                                                                   if r.returncode else ""))

    # The examples repeat other files: they must agree.
    gke = yaml.safe_load((EXAMPLES / "values-daskhub-gke.yaml").read_text())
    pools = yaml.safe_load((ROOT / "examples" / "daskhub-gke" / "pools.yaml").read_text())
    check(gke["pools"] == pools, "values-daskhub-gke.yaml's pools equal examples/daskhub-gke/pools.yaml")
    daskhub = yaml.safe_load((EXAMPLES / "daskhub-values.yaml").read_text())
    check(gke["publish"]["daskGateway"]["worker"]["extraPodConfig"]
          == daskhub["dask-gateway"]["gateway"]["backend"]["worker"]["extraPodConfig"],
          "values-daskhub-gke.yaml publishes the gateway worker settings daskhub-values.yaml gives the gateway")
    default_name = yaml.safe_load((CHART / "values.yaml").read_text())["scheduler"]["schedulerName"]
    svc = next(d for d in rendered["tightpack"] if d["kind"] == "Service")
    url = f"https://{svc['metadata']['name']}.{svc['metadata']['namespace']}.svc:{svc['spec']['ports'][0]['port']}/snapshot"
    hub = yaml.safe_load((EXAMPLES / "daskhub-values.yaml").read_text())
    check(hub["jupyterhub"]["singleuser"]["extraEnv"]["TIGHTPACK_SNAPSHOT_URL"] == url,
          f"daskhub-values.yaml's TIGHTPACK_SNAPSHOT_URL is the chart's Service ({url})")
    # The token the notebook servers send: the Secret the chart makes in the hub's namespace.
    # (as the example installs it: release tightpack in namespace tightpack)
    r = run([helm, "template", "tightpack", CHART, "--namespace", "tightpack", "-f",
             EXAMPLES / "values-daskhub-gke.yaml"])
    secrets = [d for d in yaml.safe_load_all(r.stdout) if d and d["kind"] == "Secret"]
    ref = hub["jupyterhub"]["singleuser"]["extraEnv"]["TIGHTPACK_SNAPSHOT_TOKEN"]["valueFrom"]["secretKeyRef"]
    check(any(d["metadata"]["name"] == ref["name"] and d["metadata"]["namespace"] == "daskhub" and
              ref["key"] in d["data"] for d in secrets),
          f"values-daskhub-gke.yaml makes the Secret {ref['name']} that daskhub-values.yaml's token names, "
          f"in the hub's namespace")
    # The CA the notebook servers verify the scheduler with: the ConfigMap the chart makes there.
    singleuser = hub["jupyterhub"]["singleuser"]
    mounted = {v["name"]: v["configMap"]["name"] for v in singleuser["storage"]["extraVolumes"] if "configMap" in v}
    ca_dir = next(m["mountPath"] for m in singleuser["storage"]["extraVolumeMounts"] if m["name"] in mounted)
    ca_name = next(mounted[m["name"]] for m in singleuser["storage"]["extraVolumeMounts"] if m["name"] in mounted)
    config_maps = [d for d in yaml.safe_load_all(r.stdout) if d and d["kind"] == "ConfigMap"]
    check(singleuser["extraEnv"]["TIGHTPACK_SNAPSHOT_CA_FILE"] == f"{ca_dir}/ca.crt" and
          any(d["metadata"]["name"] == ca_name and d["metadata"]["namespace"] == "daskhub" and
              "BEGIN CERTIFICATE" in d["data"]["ca.crt"] for d in config_maps),
          f"values-daskhub-gke.yaml publishes the CA ConfigMap {ca_name} that daskhub-values.yaml mounts "
          f"for TIGHTPACK_SNAPSHOT_CA_FILE, in the hub's namespace")
    # The spawn page's question goes to the same Service, verified with the same CA, mounted in the hub.
    spawn = hub["jupyterhub"]["hub"]
    hub_ca = {v["name"]: v["configMap"]["name"] for v in spawn["extraVolumes"] if "configMap" in v}
    hub_ca_dir = next(m["mountPath"] for m in spawn["extraVolumeMounts"] if m["name"] in hub_ca)
    spawn_config = spawn["extraConfig"]["tightpack-spawn"]
    check(url.removesuffix("/snapshot") in spawn_config and f'ca_file="{hub_ca_dir}/ca.crt"' in spawn_config
          and set(hub_ca.values()) == {ca_name}
          and spawn["extraFiles"]["tightpack-spawn"]["mountPath"].rsplit("/", 1)[0] in spawn_config,
          "daskhub-values.yaml's spawn page asks the chart's Service with its CA, from the mounted file")
    # Who the policies admit is judged by cyclonus, for the real clients' pods
    # (tests/clients/test_network_policy.py); here: the probe port has no rule at all.
    policy = next((d for d in rendered["tightpack"] if d["kind"] == "NetworkPolicy"), None)
    rules = (policy or {}).get("spec", {}).get("ingress", [])
    check(policy is not None and rules and
          all(p.get("port") == "https" for r in rules for p in r.get("ports", [{"port": None}])),
          "the default NetworkPolicy has rules for the secure port only: no pod reaches the probe port")
    check(f'scheduler_name = "{default_name}"' in hub["jupyterhub"]["hub"]["extraConfig"]["tightpack"],
          f"daskhub-values.yaml sets KubeSpawner.scheduler_name to {default_name}")
    check(hub["dask-gateway"]["gateway"]["backend"]["worker"]["extraPodConfig"]["schedulerName"] == default_name,
          f"daskhub-values.yaml sends dask-gateway workers to {default_name}")
    dk = yaml.safe_load((EXAMPLES / "dask-kubernetes" / "dask-config.yaml").read_text())
    check(dk["kubernetes"]["custom-cluster-spec"]["spec"]["worker"]["spec"]["schedulerName"] == default_name,
          f"dask-kubernetes/dask-config.yaml's workers name {default_name}")
    dropin = yaml.safe_load((EXAMPLES / "values-z2jh-dropin.yaml").read_text())
    check(dropin["scheduler"]["leaderElection"]["resourceName"] == "user-scheduler-lock",
          "values-z2jh-dropin.yaml shares zero-to-jupyterhub's Lease user-scheduler-lock")
    return rendered


# --------------------------------------------------------------------------- 2. the API server

def dry_run(api: Api, rendered: dict):
    print("== server-side dry run of every rendered object (dryRun=All, fieldValidation=Strict)", flush=True)
    for _, _release, namespace in RELEASES:
        testlib.ensure_namespace(api, namespace)
    for key, docs in rendered.items():
        for obj in docs:
            what = f"{key}: {obj['kind']} {obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}".replace(" /", " ")
            path = api.object_path(obj, collection=True)
            if path is None:
                print(f"  skipped: {what}: the API server does not serve {obj['apiVersion']} {obj['kind']} "
                      f"(the Prometheus operator's CRD is not installed on the test control plane)")
                continue
            try:
                api.post(path, obj, params={"dryRun": "All", "fieldValidation": "Strict", "fieldManager": "test-chart"})
                check(True, f"dry run: {what}")
            except ApiError as e:
                check(False, f"dry run: {what}: {e}")


def helm_env(kubeconfig: Path) -> dict:
    """Helm's own state (cache, configuration, data) beside the admin kubeconfig."""
    home = kubeconfig.parent / "helm-home"
    return dict(os.environ, KUBECONFIG=str(kubeconfig), HELM_CACHE_HOME=str(home / "cache"),
                HELM_CONFIG_HOME=str(home / "config"), HELM_DATA_HOME=str(home / "data"))


def install(api: Api, helm: str, rendered: dict, out: Path, kubeconfig: Path, image: Optional[tuple]):
    """`helm install` of each release, the chart's image set to the pushed image by digest."""
    version = api.get("/version")["gitVersion"]
    print(f"== helm install (the API server's /version: {version})", flush=True)
    image_args = ["--set", f"image.repository={image[0]}", "--set", f"image.digest={image[1]}"] if image else []
    for values, release, namespace in RELEASES:
        r = run([helm, "install", release, CHART, "--namespace", namespace, "--create-namespace",
                 *values_args(values), *image_args], env=helm_env(kubeconfig))
        check(r.returncode == 0, f"helm install {release}" + ("" if r.returncode == 0 else f": {r.stderr.strip()}"))
        if r.returncode:
            continue
        (out / f"{release}.install.txt").write_text(r.stdout)
        missing = []
        for obj in rendered[release]:
            try:
                api.get(api.object_path(obj))
            except ApiError:
                missing.append(f"{obj['kind']} {obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}")
        check(not missing, f"{release}: the {len(rendered[release])} objects helm template renders exist"
                           + (f"; missing: {missing}" if missing else ""))
        if image:
            dep = next(d for d in rendered[release] if d["kind"] == "Deployment")
            got = api.get(api.object_path(dep))["spec"]["template"]["spec"]["containers"][0]["image"]
            check(got == f"{image[0]}@{image[1]}", f"{release}: the Deployment runs the pushed image by digest ({got})")
        notes = r.stdout.split("NOTES:", 1)[1] if "NOTES:" in r.stdout else ""
        name = yaml.safe_load(((values.read_text() if values else "") or "{}")).get("scheduler", {}).get(
            "schedulerName", "tightpack")
        dropin = name.endswith("-user-scheduler")
        ok = (f'c.KubeSpawner.scheduler_name = "{name}"' in notes) != dropin and \
            (("replicas: 0" in notes) == dropin) and f"schedulerName: {name}" in notes and \
            f"https://{release}.{namespace}.svc:10259/snapshot" in notes
        check(ok, f"helm install {release} prints NOTES.txt telling what to set in the hub for {name}")
        # Its /metrics check uses what the scheduler runs below prove: a system:monitoring
        # token, and the published CA verifying the Service's name.
        host = f"{release}.{namespace}.svc"
        check("--clusterrole=system:monitoring" in notes and f"configmap {release}-ca " in notes and
              f"--cacert tightpack-ca.crt --resolve {host}:10259:127.0.0.1" in notes and
              f"https://{host}:10259/metrics" in notes,
              f"helm install {release}: NOTES.txt checks /metrics with a system:monitoring token over TLS "
              f"verified by the chart's CA for {host}")


def upgrade_and_uninstall(api: Api, helm: str, rendered: dict, out: Path, kubeconfig: Path):
    """helm upgrade: the same values roll nothing and keep the generated certificate and token
    (the templates look them up); a new value rolls the Deployment (the real deployment and
    ReplicaSet controllers); helm uninstall leaves nothing of a release behind."""
    print("== helm upgrade and helm uninstall (kube-controller-manager's deployment, ReplicaSet and "
          "garbage-collector controllers running)", flush=True)
    env = helm_env(kubeconfig)
    log = open(out / "kube-controller-manager.log", "w")
    cm = subprocess.Popen([str(ROOT / "build" / "controlplane" / "kube-controller-manager"),
                           "--kubeconfig", str(kubeconfig), "--controllers",
                           "deployment-controller,replicaset-controller,garbage-collector-controller,"
                           "resourcequota-controller",
                           "--leader-elect=false", "--secure-port=0", "--use-service-account-credentials=false",
                           "-v=2"], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                          start_new_session=True)
    try:
        release, namespace = "tightpack", "tightpack"
        dep_path = f"/apis/apps/v1/namespaces/{namespace}/deployments/{release}"
        tls = next(d for d in rendered[release] if d["kind"] == "Secret" and d.get("type") == "kubernetes.io/tls")
        token = next(d for d in rendered[release] if d["kind"] == "Secret" and d.get("type") == "Opaque"
                     and d["metadata"]["namespace"] == namespace)

        def secrets() -> tuple:
            return api.get(api.object_path(tls))["data"], api.get(api.object_path(token))["data"]

        def replica_sets() -> dict:
            sets = api.list(f"/apis/apps/v1/namespaces/{namespace}/replicasets",
                            labelSelector=f"app.kubernetes.io/instance={release}")
            return {r["metadata"]["labels"]["pod-template-hash"]: r for r in sets}

        first = wait_for(lambda: replica_sets() or None, 30) or {}
        check(len(first) == 1, f"{release}: the deployment controller made one ReplicaSet ({sorted(first)})")
        before_secrets, generation = secrets(), api.get(dep_path)["metadata"]["generation"]

        r = run([helm, "upgrade", release, CHART, "--namespace", namespace, "--reuse-values"], env=env)
        check(r.returncode == 0, "helm upgrade with the same values" + ("" if r.returncode == 0 else f": {r.stderr}"))
        time.sleep(2)
        check(api.get(dep_path)["metadata"]["generation"] == generation and replica_sets().keys() == first.keys()
              and secrets() == before_secrets,
              f"{release}: an upgrade with the same values rolls nothing and keeps the serving certificate, its CA "
              f"and the snapshot token (what notebook servers hold)")

        # A value that only the ConfigMap holds: the pods roll through the template's
        # checksum/config annotation (the scheduler reads its configuration once).
        args = api.get(dep_path)["spec"]["template"]["spec"]["containers"][0]["args"]
        r = run([helm, "upgrade", release, CHART, "--namespace", namespace, "--reuse-values",
                 "--set", "scheduler.podMaxBackoffSeconds=25"], env=env)
        check(r.returncode == 0, "helm upgrade --set scheduler.podMaxBackoffSeconds=25" +
              ("" if r.returncode == 0 else f": {r.stderr}"))
        config = yaml.safe_load(api.get(f"/api/v1/namespaces/{namespace}/configmaps/{release}")["data"]["config.yaml"])
        rolled = wait_for(lambda: len(replica_sets()) == 2 or None, 30)
        check(rolled is True and config["podMaxBackoffSeconds"] == 25 and secrets() == before_secrets and
              api.get(dep_path)["spec"]["template"]["spec"]["containers"][0]["args"] == args,
              f"{release}: a value only the ConfigMap holds reaches it and rolls the Deployment through the "
              f"checksum/config annotation (a second ReplicaSet: {sorted(replica_sets())}); the certificate and "
              f"token stay")
        r = run([helm, "history", release, "--namespace", namespace, "-o", "json"], env=env)
        revisions = [h["revision"] for h in json.loads(r.stdout or "[]")]
        check(revisions == [1, 2, 3], f"helm history {release}: revisions {revisions}")
        critical_pods(api, rendered)

        names = [rel for _, rel, _ in RELEASES]
        # What the check below looks for is found while the releases are installed.
        present = {what.split(" ")[0] for what in leftovers(api, names)}
        check({"deployments", "replicasets", "pods", "clusterroles", "secrets"} <= present,
              f"before helm uninstall the releases' objects are found by label and Helm's records "
              f"({', '.join(sorted(present))})")
        for _, rel, ns in RELEASES:
            r = run([helm, "uninstall", rel, "--namespace", ns, "--wait", "--timeout", "60s"], env=env)
            check(r.returncode == 0, f"helm uninstall {rel}" + ("" if r.returncode == 0 else f": {r.stderr}"))
        wait_for(lambda: not leftovers(api, names), 60, interval=2)
        left = leftovers(api, names)
        check(not left, "helm uninstall leaves nothing behind: no object of any resource the API server lists "
                        "carries a release's app.kubernetes.io/instance label (ReplicaSets and Pods of its "
                        "Deployment included), no Helm release Secret" + (f"; left: {left[:8]}" if left else ""))
    finally:
        cm.terminate()
        cm.wait(timeout=15)
        log.close()


def critical_pods(api: Api, rendered: dict):
    """The API server limits the system-*-critical classes as GKE does (test_chart.sh's
    admission configuration): values-daskhub-gke.yaml's replicas start in their namespace
    through the chart's ResourceQuota, where a pod of that class without one is refused."""
    release, namespace = "tightpack-gke", "tightpack-gke"
    dep = next(d for d in rendered[release] if d["kind"] == "Deployment")
    klass = dep["spec"]["template"]["spec"]["priorityClassName"]

    def pods() -> list:
        return api.list(f"/api/v1/namespaces/{namespace}/pods", labelSelector=f"app.kubernetes.io/instance={release}")

    started = wait_for(lambda: len(pods()) >= dep["spec"]["replicas"] or None, 60)
    check(started is True and all(p["spec"].get("priorityClassName") == klass for p in pods()),
          f"{release}: the ReplicaSet controller creates its {dep['spec']['replicas']} {klass} pods through the "
          f"chart's ResourceQuota ({len(pods())} made)")
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "critical"},
           "spec": {"priorityClassName": klass, "containers": [{"name": "c", "image": "x"}]}}
    # ResourceQuota admission words it as a plain error, which the API server answers with 500.
    body = api.request("POST", "/api/v1/namespaces/tightpack/pods", pod, params={"dryRun": "All"},
                       ok_statuses=(403, 500))
    refused = body.get("kind") == "Status" and "insufficient quota to match these scopes" in body.get("message", "")
    check(refused, f"a {klass} pod in a namespace without that quota is refused, as on GKE "
                   f"({body.get('message') if refused else 'admitted'})")


def leftovers(api: Api, releases: list) -> list:
    """Every object, of every resource the API server lists, that belongs to one of the releases:
    labelled app.kubernetes.io/instance=<release>, or Helm's own release records."""
    found = []
    selector = f"app.kubernetes.io/instance in ({','.join(releases)})"
    for path in listable_resources(api):
        for obj in api.list(path, labelSelector=selector):
            found.append(f"{path.rsplit('/', 1)[1]} {obj['metadata'].get('namespace', '')}/{obj['metadata']['name']}")
    for obj in api.list("/api/v1/secrets", labelSelector="owner=helm"):
        if obj["metadata"]["labels"].get("name") in releases:
            found.append(f"secrets {obj['metadata']['namespace']}/{obj['metadata']['name']}")
    return found


def listable_resources(api: Api) -> list:
    """The collection path of every resource the API server serves with `list` (discovery:
    the core group and each group's preferred version), subresources left out."""
    groups = [("/api/v1", api.get("/api/v1"))]
    for g in api.get("/apis")["groups"]:
        path = f"/apis/{g['preferredVersion']['groupVersion']}"
        groups.append((path, api.get(path)))
    return [f"{path}/{r['name']}" for path, doc in groups for r in doc["resources"]
            if "/" not in r["name"] and "list" in r.get("verbs", [])]


# --------------------------------------------------------------------------- 3./4. tightpack with the chart's identity

class Scheduler:
    """`tightpack schedule` as the chart's Deployment runs it: its args, the ConfigMap's files
    and the ServiceAccount's token (kubeconfig instead of the in-pod files)."""

    def __init__(self, binary: str, api: Api, env: dict, namespace: str, deployment: str, workdir: Path,
                 identity: str, service_account: Optional[tuple] = None, scheduler_name: Optional[str] = None,
                 lease_namespace: Optional[str] = None):
        """service_account (namespace, name) replaces the Deployment's; scheduler_name and
        lease_namespace change the ConfigMap's profiles and leader election (so that runs of
        the RBAC matrix can go on side by side)."""
        self.workdir, self.identity = workdir, identity
        workdir.mkdir(parents=True, exist_ok=True)
        dep = api.get(f"/apis/apps/v1/namespaces/{namespace}/deployments/{deployment}")
        pod = dep["spec"]["template"]["spec"]
        container = pod["containers"][0]
        sa = pod["serviceAccountName"]
        config_map = next(v["configMap"]["name"] for v in pod["volumes"] if "configMap" in v)
        data = api.get(f"/api/v1/namespaces/{namespace}/configmaps/{config_map}")["data"]
        etc = workdir / "etc-tightpack"
        etc.mkdir(exist_ok=True)
        self.config = yaml.safe_load(data["config.yaml"])
        if scheduler_name:
            for profile in self.config["profiles"]:
                profile["schedulerName"] = scheduler_name
        if lease_namespace:
            self.config["leaderElection"]["resourceNamespace"] = lease_namespace
        if scheduler_name or lease_namespace:
            data = dict(data, **{"config.yaml": yaml.safe_dump(self.config)})
        for name, text in data.items():
            (etc / name).write_text(text)
        sa_namespace = namespace
        if service_account:
            sa_namespace, sa = service_account
        token = api.post(f"/api/v1/namespaces/{sa_namespace}/serviceaccounts/{sa}/token",
                         {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                          "spec": {"expirationSeconds": 3600}})["status"]["token"]
        self.kubeconfig = testlib.write_kubeconfig(workdir / "kubeconfig", env["CP_URL"], env["CP_CA"], token)
        self.sa = f"{sa_namespace}/{sa}"
        self.port = free_port()
        self.probe_port = None
        mount = next(m["mountPath"] for m in container["volumeMounts"] if m["name"] == "config")
        # the Secret volumes, as the kubelet mounts them
        self.snapshot_token = None
        self.mounts = {}  # mount path in the pod -> the folder here
        for v in pod["volumes"]:
            if "secret" not in v:
                continue
            path = next(m["mountPath"] for m in container["volumeMounts"] if m["name"] == v["name"])
            local = workdir / path.strip("/").replace("/", "-")
            local.mkdir(exist_ok=True)
            secret = api.get(f"/api/v1/namespaces/{namespace}/secrets/{v['secret']['secretName']}")
            for key, value in (secret.get("data") or {}).items():
                (local / key).write_bytes(base64.b64decode(value))
            if v["name"] == "snapshot-token":
                self.snapshot_token = (local / "token").read_text()
            self.mounts[path] = str(local)
        args = []
        for a in container["args"]:
            a = a.replace(mount + "/", str(etc) + "/").replace("$(POD_NAME)", identity)
            for path, local in self.mounts.items():
                a = a.replace(path + "/", local + "/")
            if a.startswith("--listen="):
                a = f"--listen=127.0.0.1:{self.port}"
            elif a.startswith("--probe-listen="):
                self.probe_port = free_port()
                a = f"--probe-listen=127.0.0.1:{self.probe_port}"
            args.append(a)
        self.argv = [binary, *args, f"--kubeconfig={self.kubeconfig}"]
        self.log_path = workdir / "tightpack.log"
        self.proc = None

    @property
    def base(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self):
        self.log = open(self.log_path, "w")
        self.log.write("$ " + " ".join(map(str, self.argv)) + "\n")
        self.log.flush()
        self.proc = subprocess.Popen([str(a) for a in self.argv], stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


_MONITORING_TOKEN: list = []


def monitoring_token(api: Api) -> str:
    """A token of a ServiceAccount bound to the built-in ClusterRole system:monitoring (get on
    /metrics, /healthz, ...), as a Prometheus' would be."""
    if not _MONITORING_TOKEN:
        ns, name = "chart-test-monitoring", "prometheus"
        testlib.ensure_namespace(api, ns)
        api.request("POST", f"/api/v1/namespaces/{ns}/serviceaccounts",
                    {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name}}, ok_statuses=(409,))
        api.request("POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": "chart-test-prometheus"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "system:monitoring"},
            "subjects": [{"kind": "ServiceAccount", "namespace": ns, "name": name}]}, ok_statuses=(409,))
        _MONITORING_TOKEN.append(api.post(f"/api/v1/namespaces/{ns}/serviceaccounts/{name}/token",
                                          {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                                           "spec": {"expirationSeconds": 3600}})["status"]["token"])
    return _MONITORING_TOKEN[0]


def lease_of(config: dict) -> tuple:
    le = config["leaderElection"]
    return le["resourceNamespace"], le["resourceName"]


def cleanup_cluster(api: Api, namespaces: list, nodes: Optional[list] = None):
    """The namespaces' pods, and the nodes named (all nodes when None)."""
    for ns in namespaces:
        api.request("DELETE", f"/api/v1/namespaces/{ns}/pods", params={"gracePeriodSeconds": "0"}, ok_statuses=(404,))
    for node in (nodes if nodes is not None else [n["metadata"]["name"] for n in api.list("/api/v1/nodes")]):
        api.delete(f"/api/v1/nodes/{node}")


def storage_objects(api: Api, ns: str, tag: str):
    """A WaitForFirstConsumer class with a provisioner and one without (static volumes only),
    a free volume of the latter, and a claim of each, all named after the run."""
    for cls, provisioner in ((f"chart-wffc-{tag}", "pd.csi.storage.gke.io"),
                             (f"chart-static-{tag}", "kubernetes.io/no-provisioner")):
        api.post("/apis/storage.k8s.io/v1/storageclasses", {
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": cls},
            "provisioner": provisioner, "volumeBindingMode": "WaitForFirstConsumer"})
    pv = api.post("/api/v1/persistentvolumes", {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"chart-pv-{tag}"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                 "storageClassName": f"chart-static-{tag}", "persistentVolumeReclaimPolicy": "Retain",
                 "hostPath": {"path": "/tmp/chart"}}})
    pv["status"] = {"phase": "Available"}  # as the PV controller leaves a new volume
    api.put(f"/api/v1/persistentvolumes/chart-pv-{tag}/status", pv)
    for claim, cls in (("home-dyn", f"chart-wffc-{tag}"), ("home-static", f"chart-static-{tag}")):
        api.post(f"/api/v1/namespaces/{ns}/persistentvolumeclaims", {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
            "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                     "resources": {"requests": {"storage": "1Gi"}}}})


def delete_storage_objects(api: Api, tag: str):
    api.delete(f"/api/v1/persistentvolumes/chart-pv-{tag}")
    for cls in (f"chart-wffc-{tag}", f"chart-static-{tag}"):
        api.delete(f"/apis/storage.k8s.io/v1/storageclasses/{cls}")


def run_scenario(binary: str, api: Api, env: dict, namespace: str, deployment: str, workdir: Path, tag: str,
                 wait: float = 12.0, min_seconds: float = 0, **identity) -> dict:
    """Starts the chart's scheduler and checks what it does; returns the observations. Its
    pods go to the run's own nodes (a node selector on `chart-test/run`); `identity` goes to
    Scheduler (another ServiceAccount, scheduler name, lease namespace)."""
    sched = Scheduler(binary, api, env, namespace, deployment, workdir, identity=f"{deployment}-{tag}", **identity)
    name = sched.config["profiles"][0]["schedulerName"]
    lease_ns, lease_name = lease_of(sched.config)
    api.delete(f"/apis/coordination.k8s.io/v1/namespaces/{lease_ns}/leases/{lease_name}")
    ns = f"chart-{tag}"
    testlib.ensure_namespace(api, ns)
    own = {"chart-test/run": tag}
    nodes = [f"node-{tag}", f"late-{tag}"]
    testlib.create_node(api, nodes[0], cpu="4", memory="16Gi", labels=own)
    obs = {"scheduler": name, "identity": sched.identity, "serviceAccount": sched.sa}
    started = time.monotonic()
    sched.start()
    try:
        obs["ready"] = bool(wait_for(lambda: testlib.http_get(sched.base + "/readyz")[0] == 200, 8))
        pods = api.list(f"/api/v1/namespaces/{ns}/pods")
        assert not pods
        for pod in (testlib.pod_manifest("a", name, cpu="1", node_selector=own),
                    testlib.pod_manifest("big", name, cpu="100", node_selector=own),
                    testlib.pod_manifest("low", name, cpu="2", priority_class="chart-test-low", node_selector=own)):
            api.post(f"/api/v1/namespaces/{ns}/pods", pod)

        def pod(n):
            try:
                return api.get(f"/api/v1/namespaces/{ns}/pods/{n}")
            except ApiError as e:
                if e.status == 404:
                    return None
                raise

        def unschedulable():
            c = testlib.pod_condition(pod("big") or {}, "PodScheduled")
            return bool(c and c.get("status") == "False" and c.get("reason") == "Unschedulable")

        def first_stage():
            obs["bound"] = bool(pod("a")["spec"].get("nodeName"))
            obs["scheduledEvent"] = bool(testlib.scheduled_events(api, ns, "a"))
            obs["unschedulableCondition"] = unschedulable()
            obs["lowBound"] = bool(pod("low")["spec"].get("nodeName"))
            obs["leader"] = testlib.lease_holder(api, lease_ns, lease_name) == sched.identity
            return all(obs[k] for k in ("bound", "scheduledEvent", "unschedulableCondition", "lowBound", "leader"))

        wait_for(first_stage, wait if obs["ready"] else 4)
        # A node added while the scheduler runs, and a pod that fits only there.
        obs["newNodeSeen"] = None
        if obs["bound"]:
            testlib.create_node(api, nodes[1], cpu="2", memory="4Gi", labels={"chart-test/late": "yes", **own})
            api.post(f"/api/v1/namespaces/{ns}/pods", testlib.pod_manifest(
                "late", name, cpu="1", node_selector={"chart-test/late": "yes", **own}))
            obs["newNodeSeen"] = bool(wait_for(lambda: (pod("late") or {}).get("spec", {}).get("nodeName"), wait))
        # A notebook's first spawn (its claim waits for its first consumer) and a claim that a
        # free volume can take: VolumeBinding's PreBind writes the chosen node on the first,
        # for its provisioner, and binds the volume to the second. No provisioner or PV
        # controller runs here, so both pods stay unbound; what the scheduler wrote is seen.
        obs["claimNodeSelected"] = obs["volumeClaimed"] = None
        if obs["bound"]:
            storage_objects(api, ns, tag)
            for claim in ("home-dyn", "home-static"):
                m = testlib.pod_manifest(claim, name, cpu="0", memory="0",  # no room: preemption below stays as it was
                                         node_selector=own)
                m["spec"]["volumes"] = [{"name": "home", "persistentVolumeClaim": {"claimName": claim}}]
                api.post(f"/api/v1/namespaces/{ns}/pods", m)

            def claim_node():
                c = api.get(f"/api/v1/namespaces/{ns}/persistentvolumeclaims/home-dyn")
                return (c["metadata"].get("annotations") or {}).get("volume.kubernetes.io/selected-node")

            def volume_claim():
                pv = api.get(f"/api/v1/persistentvolumes/chart-pv-{tag}")
                return (pv["spec"].get("claimRef") or {}).get("name") == "home-static"

            obs["claimNodeSelected"] = bool(wait_for(claim_node, wait))
            obs["volumeClaimed"] = bool(wait_for(volume_claim, wait))
        obs["preempted"] = None  # not tried: the victim was never bound
        if obs["lowBound"]:
            api.post(f"/api/v1/namespaces/{ns}/pods", testlib.pod_manifest("high", name, cpu="3",
                                                                            priority_class="chart-test-high",
                                                                            node_selector=own))

            def preempted():
                high = pod("high")
                return bool(high and high["spec"].get("nodeName") and pod("low") is None)

            obs["preempted"] = bool(wait_for(preempted, wait))
            high = pod("high") or {}
            obs["nominated"] = (high.get("status") or {}).get("nominatedNodeName") or ""
            obs["victimLeft"] = pod("low") is not None
        # Long enough for a leader that cannot renew to give up (renewDeadline 10 s).
        while time.monotonic() - started < min_seconds and sched.proc.poll() is None:
            time.sleep(0.25)
        obs["exitedEarly"] = sched.proc.poll()
        if obs["exitedEarly"] is None:
            obs["readyAtEnd"] = testlib.http_get(sched.base + "/readyz")[0] == 200
            if sched.probe_port:
                # the kubelet's port answers as the main one, and serves nothing else
                probe = f"http://127.0.0.1:{sched.probe_port}"
                obs["probePort"] = (testlib.http_get(probe + "/readyz")[0] == 200) == obs["readyAtEnd"] and \
                    testlib.http_get(probe + "/snapshot")[0] == 404
        # The secure port: /metrics to a caller bound to system:monitoring, not to just anyone;
        # /snapshot to the chart's shared token.
        obs["metricsWithoutToken"] = testlib.http_get(sched.base + "/metrics")[0]
        status, metrics = testlib.http_get(sched.base + "/metrics", token=monitoring_token(api))
        obs["metrics"] = status == 200 and "scheduler_schedule_attempts_total" in metrics
        status, snap = testlib.http_get(sched.base + "/snapshot", token=sched.snapshot_token)
        obs["snapshot"] = json.loads(snap) if status == 200 else None
        obs["verifiedTls"] = verified_tls(api, namespace, deployment, sched.port)
    finally:
        sched.stop()
        cleanup_cluster(api, [ns], nodes)
        delete_storage_objects(api, tag)
    log = sched.log_text()
    forbidden = []
    for line in log.splitlines():
        if "forbidden" in line.lower() or " 403" in line:
            text = re.sub(r"^\S+ \S+ ", "", line)
            text = re.sub(r'"[^"]*system:serviceaccount:[^"]*"', "<sa>", text)
            key = re.sub(r"chart-[\w-]+|node-[\w-]+|[a-z]+-[0-9a-f]{6,}", "*", text)[:90]
            if key not in {k for k, _ in forbidden}:
                forbidden.append((key, text))
    obs["forbidden"] = [t for _, t in forbidden][:4]
    # LIST calls of the watch cache, by resource (one each at start).
    obs["lists_by"] = dict(Counter(re.findall(r" listed \d+ ([a-z]+) in ", log)))
    obs["lists"] = sum(obs["lists_by"].values())
    obs["exit"] = sched.proc.returncode
    return obs


def verified_tls(api: Api, namespace: str, service: str, port: int) -> Optional[bool]:
    """Whether the scheduler's certificate verifies against the CA the chart published
    (ConfigMap <service>-ca) for the Service's name, as a notebook server checks it before
    it sends a user's hub token; None when the chart published none (tls.generate off)."""
    try:
        ca = api.get(f"/api/v1/namespaces/{namespace}/configmaps/{service}-ca")["data"]["ca.crt"]
    except ApiError as e:
        if e.status == 404:
            return None
        raise
    context = ssl.create_default_context(cadata=ca)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with context.wrap_socket(raw, server_hostname=f"{service}.{namespace}.svc") as tls:
                tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return tls.recv(64).startswith(b"HTTP/1.1 200")
    except (ssl.SSLError, OSError):
        return False


def rules_of(api: Api, kind: str, namespace: str, name: str) -> tuple:
    path = (f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}" if kind == "ClusterRole"
            else f"/apis/rbac.authorization.k8s.io/v1/namespaces/{namespace}/roles/{name}")
    return path, api.get(path)


def describe_rule(rule: dict) -> str:
    group = rule["apiGroups"][0] or "core"
    names = f" (resourceNames {', '.join(rule['resourceNames'])})" if rule.get("resourceNames") else ""
    return f"{group} {', '.join(rule['resources'])}: {', '.join(rule['verbs'])}{names}"


def yes(v) -> str:
    return {True: "yes", False: "**no**", None: "n/a"}[v]


def rbac(binary: str, api: Api, env: dict, rendered: dict, out: Path, matrix: bool = True):
    for cls, value in (("chart-test-low", -100), ("chart-test-high", 1000)):
        api.request("POST", "/apis/scheduling.k8s.io/v1/priorityclasses",
                    {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": cls},
                     "value": value, "description": "deploy/test_chart.py"}, ok_statuses=(409,))
    cleanup_cluster(api, [])

    print("== each release's ServiceAccount token, ConfigMap and Deployment arguments: tightpack schedules", flush=True)
    for _values, release, namespace in RELEASES:
        obs = run_scenario(binary, api, env, namespace, release, out / "run" / release, f"{release}-full")
        ok = all(obs.get(k) for k in ("ready", "leader", "bound", "scheduledEvent", "unschedulableCondition",
                                      "newNodeSeen", "claimNodeSelected", "volumeClaimed", "preempted", "metrics",
                                      "probePort")) and obs["exitedEarly"] is None \
            and obs["metricsWithoutToken"] == 401 and obs.get("snapshot") is not None \
            and obs.get("verifiedTls") is True
        check(ok, f"{release}: as {obs['serviceAccount']} ({obs['scheduler']}): ready, leads, binds, Scheduled "
                  f"event, Unschedulable condition, a claim's node selected and a free volume bound to a claim "
                  f"(PreBind), preemption, the probe port, /metrics refused without a token "
                  f"and served to system:monitoring, /snapshot to the chart's token, its certificate "
                  f"verified by the CA the chart published for notebook servers" +
              ("" if ok else f": {obs}"))
        if release == "tightpack-gke":
            snap = obs.get("snapshot") or {}
            check(bool(snap.get("pools")) and len(snap.get("profiles") or []) == 3,
                  "tightpack-gke: /snapshot publishes the pools and the 3 profiles of values-daskhub-gke.yaml")
            gke_values = yaml.safe_load((EXAMPLES / "values-daskhub-gke.yaml").read_text())
            check(snap.get("daskGateway") == gke_values["publish"]["daskGateway"],
                  "tightpack-gke: /snapshot publishes the gateway's worker settings of values-daskhub-gke.yaml")
            check(snap.get("kubespawnerDefaults") == gke_values["publish"]["kubespawnerDefaults"],
                  "tightpack-gke: /snapshot publishes the hub's KubeSpawner settings of values-daskhub-gke.yaml")

    if not matrix:
        return
    print("== the default release with one rule removed at a time (rows side by side)", flush=True)
    cr = next(d for d in rendered["tightpack"] if d["kind"] == "ClusterRole")["metadata"]["name"]
    role = next(d for d in rendered["tightpack"] if d["kind"] == "Role")
    _, cluster_role = rules_of(api, "ClusterRole", None, cr)
    _, lease_role = rules_of(api, "Role", role["metadata"]["namespace"], role["metadata"]["name"])
    originals = {"ClusterRole": cluster_role["rules"], "Role": lease_role["rules"]}
    plans = []  # (kind, removed rule, verb, the row's ClusterRole rules, its Role rules)
    for kind in ("ClusterRole", "Role"):
        # One verb at a time (a rule with one verb: the whole rule).
        for i, rule in enumerate(originals[kind]):
            for verb in rule["verbs"]:
                rules = [dict(r) for r in originals[kind]]
                rules[i]["verbs"] = [v for v in rule["verbs"] if v != verb]
                rules = [r for r in rules if r["verbs"]]
                both = dict(originals, **{kind: rules})
                plans.append((kind, describe_rule(dict(rule, verbs=[verb])), verb, both["ClusterRole"], both["Role"]))
    monitoring_token(api)  # made once, before the rows ask for it at once

    def row(n: int, plan: tuple) -> tuple:
        kind, removed, verb, cluster_rules, role_rules = plan
        tag = f"rm-{n:02d}"
        ns = f"chart-rbac-{tag}"  # the row's ServiceAccount, Role and Lease
        testlib.ensure_namespace(api, ns)
        sa_ref = [{"kind": "ServiceAccount", "name": "tightpack", "namespace": ns}]
        objects = [
            (f"/api/v1/namespaces/{ns}/serviceaccounts", {"apiVersion": "v1", "kind": "ServiceAccount",
                                                          "metadata": {"name": "tightpack"}}),
            ("/apis/rbac.authorization.k8s.io/v1/clusterroles",
             {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
              "metadata": {"name": f"{cr}-{tag}"}, "rules": cluster_rules}),
            ("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
             {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
              "metadata": {"name": f"{cr}-{tag}"}, "subjects": sa_ref,
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": f"{cr}-{tag}"}}),
            (f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
             {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
              "metadata": {"name": role["metadata"]["name"]}, "rules": role_rules}),
            (f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
             {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
              "metadata": {"name": role["metadata"]["name"]}, "subjects": sa_ref,
              "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role["metadata"]["name"]}}),
        ]
        for path, body in objects:
            api.post(path, body)
        time.sleep(1.5)  # the RBAC authorizer's informer
        try:
            # A refused watch is judged by its relists over the run, a refused lease update
            # by the leader giving up after its renew deadline (10 s): those runs last 14 s;
            # the others end when what they check has happened.
            obs = run_scenario(binary, api, env, "tightpack", "tightpack", out / "run" / tag, tag,
                               min_seconds=14 if verb in ("watch", "update") else 0,
                               service_account=(ns, "tightpack"), scheduler_name=f"tightpack-{tag}",
                               lease_namespace=ns)
        finally:
            for path in (f"/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{cr}-{tag}",
                         f"/apis/rbac.authorization.k8s.io/v1/clusterroles/{cr}-{tag}"):
                api.delete(path)
        return kind, removed, obs

    # Four at a time: the rows mostly wait (for a verdict, or for a negative one to be sure).
    with ThreadPoolExecutor(max_workers=4) as pool:
        rows = list(pool.map(lambda args: row(*args), enumerate(plans)))
    for kind, removed, obs in rows:
        print(f"  without {kind} {removed}: ready {yes(obs['ready'])}, leader {yes(obs['leader'])}, "
              f"bound {yes(obs['bound'])}, event {yes(obs['scheduledEvent'])}, unschedulable condition "
              f"{yes(obs['unschedulableCondition'])}, new node {yes(obs['newNodeSeen'])}, "
              f"preemption {yes(obs['preempted'])}"
              + (f", exited {obs['exitedEarly']} on its own" if obs["exitedEarly"] is not None else "")
              + f", {obs['lists']} LISTs",
              flush=True)
        for line in obs["forbidden"][:2]:
            print(f"      log: {line[:200]}")

    by_rule = {r: o for _, r, o in rows}

    def find(prefix):
        return next(o for r, o in by_rule.items() if r.startswith(prefix))

    check(not find("core pods/binding: create")["bound"], "without pods/binding create nothing is bound")
    for prefix in ("coordination.k8s.io leases: create", "coordination.k8s.io leases: get"):
        o = find(prefix)
        check(not o["leader"] and not o["bound"], f"without {prefix} nothing is elected and nothing is bound")
    o = find("coordination.k8s.io leases: update")
    check(o["exitedEarly"] == 1, "without leases update the leader cannot renew and exits 1 (renew deadline)")
    objects = ("core namespaces, services, replicationcontrollers, persistentvolumeclaims, persistentvolumes",
               "apps replicasets, statefulsets",
               "storage.k8s.io storageclasses, csinodes, csidrivers, csistoragecapacities")
    # As kube-scheduler waits for every informer's cache: nothing is scheduled on a
    # partial view (a claim "not found" may only be not listed yet).
    for prefix in ("core nodes: list", "core pods: list", *(f"{o}: list" for o in objects)):
        check(not find(prefix)["bound"], f"without {prefix} nothing is bound")
    for prefix in ("core nodes: watch", "core pods: watch", "policy poddisruptionbudgets: watch",
                   *(f"{o}: watch" for o in objects)):
        o = find(prefix)
        # Relisting after each refused watch, with the backoff kept across
        # cycles (0.8, 1.6, 3.2, 6.4 s): a few LISTs, not one every 0.8 s;
        # and /readyz says the watch is refused.
        resources = prefix.split(" ", 1)[1].split(":")[0].split(", ")
        relists = {r: o["lists_by"].get(r, 0) for r in resources}
        check(all(4 <= n <= 8 for n in relists.values()),
              f"without {prefix} the watch cache relists with a growing backoff ({relists} LISTs in the run)")
        check(o.get("readyAtEnd") is False, f"without {prefix} /readyz ends not ready")
    for verb in ("get", "patch"):
        o = find(f"core persistentvolumeclaims, persistentvolumes: {verb}")
        check(o["claimNodeSelected"] is False and o["volumeClaimed"] is False and o["bound"],
              f"without persistentvolumeclaims, persistentvolumes {verb} no claim gets its node and no volume "
              f"its claim (VolumeBinding's PreBind); pods without such claims are bound")
    check(find("core pods/status: patch")["unschedulableCondition"] is False,
          "without pods/status patch no pod gets PodScheduled=False/Unschedulable")
    check(find("core pods: delete")["preempted"] is False, "without pods delete preemption does not happen")
    ev = find("events.k8s.io events: create")
    check(ev["scheduledEvent"] is False and ev["bound"], "without events create pods are bound but no Scheduled event")
    for prefix in ("authentication.k8s.io tokenreviews: create", "authorization.k8s.io subjectaccessreviews: create"):
        o = find(prefix)
        check(o["metrics"] is False and o["bound"],
              f"without {prefix} /metrics is refused to everyone (no caller can be checked); scheduling goes on")

    lines = ["| removed | /readyz (first 8 s, at the end) | leads | binds | Scheduled event | Unschedulable condition | "
             "new node used | claim's node selected, volume bound to a claim | preemption | /metrics to system:monitoring | "
             "exits by itself | LISTs | first error in the log |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for kind, rule, o in rows:
        first = (o["forbidden"][0] if o["forbidden"] else "").replace("|", "\\|")
        exited = "no" if o["exitedEarly"] is None else f"**exit {o['exitedEarly']}**"
        at_end = "exited" if "readyAtEnd" not in o else yes(o["readyAtEnd"])
        lines.append(f"| {kind}: {rule} | {yes(o['ready'])}, {at_end} | {yes(o['leader'])} | {yes(o['bound'])} | "
                     f"{yes(o['scheduledEvent'])} | {yes(o['unschedulableCondition'])} | {yes(o['newNodeSeen'])} | "
                     f"{yes(o['claimNodeSelected'])}, {yes(o['volumeClaimed'])} | "
                     f"{yes(o['preempted'])} | {yes(o['metrics'])} | {exited} | {o['lists']} | {first[:220]} |")
    (out / "rbac.md").write_text("\n".join(lines) + "\n")
    (out / "rbac.json").write_text(json.dumps([{"kind": k, "rule": r, **{x: y for x, y in o.items() if x != 'snapshot'}}
                                               for k, r, o in rows], indent=1))
    print(f"  table: {out / 'rbac.md'}")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--helm", required=True)
    p.add_argument("--tightpack", required=True)
    p.add_argument("--cp-dir", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--skip-rbac-matrix", action="store_true")
    p.add_argument("--image", help="REPOSITORY@sha256:DIGEST the releases' Deployments name (deploy/test_image.sh's push)")
    a = p.parse_args()
    out = Path(a.out)
    (out / "rendered").mkdir(parents=True, exist_ok=True)
    env = testlib.load_env(a.cp_dir)
    api = Api(env["CP_URL"], env["CP_TOKEN"], env["CP_CA"])
    rendered = lint_and_template(a.helm, out / "rendered")
    dry_run(api, rendered)
    kubeconfig = testlib.write_kubeconfig(out / "admin.kubeconfig", env["CP_URL"], env["CP_CA"], env["CP_TOKEN"])
    image = tuple(a.image.split("@", 1)) if a.image else None
    if not FAILURES:
        install(api, a.helm, rendered, out, kubeconfig, image)
    if not FAILURES:
        rbac(a.tightpack, api, env, rendered, out, matrix=not a.skip_rbac_matrix)
    if not FAILURES:
        upgrade_and_uninstall(api, a.helm, rendered, out, kubeconfig)
    for f in FAILURES:
        print(f"  failed: {f}")
    print(f"test_chart: {PASSED[0]} passed, {len(FAILURES)} failed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
