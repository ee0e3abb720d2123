"""GET /tightpack/templates: dask-kubernetes, dask-gateway and published profiles."""

from __future__ import annotations

import base64
import json
import textwrap

from .doubles import FakeGateway


def by_id(body):
    return {t["id"]: t for t in body["templates"]}


async def test_without_dask_config_dask_kubernetes_defaults(get):
    status, body = await get("templates")
    assert status == 200
    assert body["errors"] == []
    templates = by_id(body)
    assert list(templates) == ["dask-kubernetes", "profile:cpu-notebook", "profile:gpu-notebook-t4"]
    kube = templates["dask-kubernetes"]
    assert kube["name"] == "KubeCluster worker (defaults)"
    assert kube["source"] == "dask-kubernetes"
    assert kube["workers"] == 0
    assert kube["start"] == {"kind": "kubecluster", "name": "dask-{user}-{uuid}",
                             "namespace": "default", "image": "ghcr.io/dask/dask:latest",
                             "resources": {}, "env": {}, "customClusterSpec": None}
    container = kube["pod"]["spec"]["containers"][0]
    assert container["name"] == "worker" and container["image"] == "ghcr.io/dask/dask:latest"
    assert container["args"] == ["dask-worker", "--name", "$(DASK_WORKER_NAME)", "--dashboard",
                                 "--dashboard-address", "8788"]
    assert kube["pod"]["metadata"]["labels"]["dask.org/component"] == "worker"
    assert any("requests no CPU or memory" in n for n in kube["notes"])


async def test_kubecluster_settings_from_the_dask_config(dask_config, service_account, get,
                                                         monkeypatch):
    (service_account / "namespace").write_text("daskhub")
    dask_config("kubernetes.yaml", """\
        kubernetes:
          name: "dask-{user}-{uuid}"
          image: ghcr.io/dask/dask:2024.12.1
          count:
            start: 4
          worker_command: dask worker
          env:
            EXTRA_PIP_PACKAGES: s3fs
          resources:
            limits: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}
            requests: {cpu: "1500m"}
        """)
    monkeypatch.setenv("DASK_KUBERNETES__IMAGE", "'ghcr.io/dask/dask:2025.1.0'")
    status, body = await get("templates")
    assert status == 200 and body["errors"] == []
    kube = by_id(body)["dask-kubernetes"]
    assert kube["name"] == "KubeCluster worker"
    assert kube["workers"] == 4
    assert kube["start"]["namespace"] == "daskhub"
    assert kube["start"]["image"] == "ghcr.io/dask/dask:2025.1.0"  # the environment wins
    assert kube["start"]["env"] == {"EXTRA_PIP_PACKAGES": "s3fs"}
    pod = kube["pod"]
    assert pod["metadata"]["namespace"] == "daskhub"
    container = pod["spec"]["containers"][0]
    assert container["args"][:2] == ["dask", "worker"]
    assert container["env"] == [{"name": "EXTRA_PIP_PACKAGES", "value": "s3fs"}]
    # as the client sends it: admission (requests from limits, the GPU toleration) is the
    # engine's, applied when the sidebar places the pod
    assert container["resources"]["requests"] == {"cpu": "1500m"}
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert "tolerations" not in pod["spec"]
    assert not any("admission" in n.lower() for n in kube["notes"])


async def test_custom_cluster_spec(dask_config, tmp_path, get):
    spec = tmp_path / "cluster.yaml"
    spec.write_text(textwrap.dedent("""\
        apiVersion: kubernetes.dask.org/v1
        kind: DaskCluster
        metadata:
          name: big-cluster
          namespace: science
        spec:
          worker:
            replicas: 12
            spec:
              tolerations:
                - {key: dask, operator: Equal, value: worker, effect: NoSchedule}
              nodeSelector: {k8s.dask.org/node-purpose: worker}
              containers:
                - name: worker
                  image: ghcr.io/dask/dask:2024.12.1
                  resources:
                    requests: {cpu: 1800m, memory: 12Gi}
          scheduler:
            spec:
              containers: [{name: scheduler, image: ghcr.io/dask/dask:2024.12.1}]
        """))
    dask_config("kubernetes.yaml", f"kubernetes:\n  custom-cluster-spec: {spec}\n")
    status, body = await get("templates")
    assert status == 200 and body["errors"] == []
    kube = by_id(body)["dask-kubernetes"]
    assert kube["workers"] == 12
    assert kube["start"]["customClusterSpec"] == str(spec)
    assert kube["start"]["name"] == "big-cluster"
    pod = kube["pod"]
    assert pod["metadata"]["namespace"] == "science"
    assert pod["metadata"]["labels"]["dask.org/cluster-name"] == "big-cluster"
    assert pod["spec"]["nodeSelector"] == {"k8s.dask.org/node-purpose": "worker"}
    assert pod["spec"]["containers"][0]["resources"]["requests"]["memory"] == "12Gi"


async def test_custom_cluster_spec_missing_or_wrong(dask_config, tmp_path, get):
    dask_config("kubernetes.yaml", f"kubernetes:\n  custom_cluster_spec: {tmp_path}/none.yaml\n")
    status, body = await get("templates")
    assert status == 200
    assert "dask-kubernetes" not in by_id(body)
    assert body["errors"] == [f"custom cluster spec {tmp_path}/none.yaml (Dask config "
                              "kubernetes.custom-cluster-spec): no such file"]
    wrong = tmp_path / "pod.yaml"
    wrong.write_text("kind: Pod\nspec: {containers: []}\n")
    dask_config("kubernetes.yaml", f"kubernetes:\n  custom_cluster_spec: {wrong}\n")
    _, body = await get("templates")
    assert "no spec.worker.spec" in body["errors"][0] and str(wrong) in body["errors"][0]


async def test_bad_yaml_is_an_error_naming_the_file_and_line(dask_config, get):
    dask_config("a-good.yaml", "kubernetes:\n  image: ghcr.io/dask/dask:2024.12.1\n")
    bad = dask_config("b-bad.yaml", "kubernetes:\n  image: [unclosed\n  name: x\n")
    status, body = await get("templates")
    assert status == 200
    assert len(body["errors"]) == 1
    assert body["errors"][0].startswith(f"Dask config file {bad}: invalid YAML at line ")
    kube = by_id(body)["dask-kubernetes"]  # the good file still counts
    assert kube["start"]["image"] == "ghcr.io/dask/dask:2024.12.1"
    assert "profile:cpu-notebook" in by_id(body)


async def test_bad_resources_is_an_error(dask_config, get):
    dask_config("kubernetes.yaml", "kubernetes:\n  resources: {cpu: 2}\n")
    _, body = await get("templates")
    assert "dask-kubernetes" not in by_id(body)
    assert body["errors"] == ["Dask config kubernetes.resources: unknown field 'cpu' "
                              "(KubeCluster accepts limits and requests)"]


async def test_gateway_options(dask_config, serve, monkeypatch, get):
    seen = []
    base = serve([("/services/dask-gateway/api/v1/options", FakeGateway, {"seen": seen})])
    monkeypatch.setenv("GATEWAY_BASE", base)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "hub-token")
    dask_config("gateway.yaml", """\
        gateway:
          address: "{GATEWAY_BASE}/services/dask-gateway/"
          auth:
            type: jupyterhub
          cluster:
            options:
              worker_memory: 6
        """)
    status, body = await get("templates")
    assert status == 200 and body["errors"] == []
    templates = by_id(body)
    assert "dask-kubernetes" not in templates  # a gateway is configured, KubeCluster is not
    gw = templates["dask-gateway"]
    assert seen == ["jupyterhub hub-token"]
    assert gw["source"] == "dask-gateway" and gw["workers"] == 0
    assert gw["start"] == {"kind": "gateway", "address": f"{base}/services/dask-gateway",
                           "options": {"worker_cores": 2, "worker_memory": 6,
                                       "image": "pangeo/pangeo-notebook:2024.12.1",
                                       "environment": {"A": "1"}}}
    container = gw["pod"]["spec"]["containers"][0]
    assert container["image"] == "pangeo/pangeo-notebook:2024.12.1"
    six_gib = str(6 * 1024**3)
    assert container["resources"] == {"requests": {"cpu": "2.000", "memory": six_gib},
                                      "limits": {"cpu": "2.000", "memory": six_gib}}
    assert container["env"] == [{"name": "A", "value": "1"}]
    assert any("not visible" in n for n in gw["notes"])


async def test_gateway_workers_get_the_published_server_settings(tmp_path, tightpack, dask_config,
                                                                 serve, get):
    """The gateway's own worker settings, which no client can see, from the snapshot: merged
    as dask-gateway-server's make_pod merges extraPodConfig (objects by key, lists appended)."""
    from conftest import example
    seen = []
    base = serve([("/api/v1/options", FakeGateway, {"seen": seen})])
    dask_config("gateway.yaml", f"gateway: {{address: '{base}'}}\n")
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps({
        "cluster": example("daskhub-gke", "cluster.json"),
        "daskGateway": {"worker": {
            "extraPodConfig": {
                "tolerations": [{"key": "dask", "operator": "Equal", "value": "worker",
                                 "effect": "NoSchedule"}],
                "nodeSelector": {"k8s.dask.org/node-purpose": "worker"},
                "schedulerName": "tightpack"},
            "extraContainerConfig": {"resources": {"limits": {"memory": "5Gi"}}}}}}))
    tightpack.snapshot_file = str(path)
    status, body = await get("templates")
    assert status == 200 and body["errors"] == []
    gw = by_id(body)["dask-gateway"]
    spec = gw["pod"]["spec"]
    assert spec["nodeSelector"] == {"k8s.dask.org/node-purpose": "worker"}
    assert spec["schedulerName"] == "tightpack"
    assert spec["tolerations"] == [{"key": "dask", "operator": "Equal", "value": "worker",
                                    "effect": "NoSchedule"}]
    resources = spec["containers"][0]["resources"]
    assert resources["limits"] == {"cpu": "2.000", "memory": "5Gi"}  # merged key by key
    assert resources["requests"]["cpu"] == "2.000"
    assert any("published by the tightpack scheduler" in n for n in gw["notes"])
    assert not any("the pod has none" in n for n in gw["notes"])


async def test_gateway_basic_auth_and_failures(dask_config, serve, unused_url, get):
    seen = []
    base = serve([("/api/v1/options", FakeGateway, {"seen": seen})])
    dask_config("gateway.yaml", f"""\
        gateway:
          address: {base}
          auth: {{type: basic, kwargs: {{username: alice, password: pw}}}}
        """)
    _, body = await get("templates")
    assert "dask-gateway" in by_id(body)
    assert seen == ["Basic " + base64.b64encode(b"alice:pw").decode()]

    unreachable = unused_url.rsplit("/", 1)[0]
    dask_config("gateway.yaml", f"gateway:\n  address: {unreachable}\n")
    status, body = await get("templates")
    assert status == 200
    assert "dask-gateway" not in by_id(body)
    assert body["errors"][0].startswith(f"dask-gateway {unreachable}/api/v1/options is "
                                        "unreachable")
    assert "profile:cpu-notebook" in by_id(body)  # the others are still there


async def test_gateway_address_needs_its_environment_variable(dask_config, get):
    dask_config("gateway.yaml", "gateway:\n  address: '{NOT_SET_ANYWHERE}/gateway'\n")
    _, body = await get("templates")
    assert "NOT_SET_ANYWHERE" in body["errors"][0] and "gateway.address" in body["errors"][0]


async def test_profiles_from_the_demo(get):
    _, body = await get("templates")
    cpu = by_id(body)["profile:cpu-notebook"]
    assert cpu["name"] == "CPU notebook" and cpu["source"] == "profile" and cpu["workers"] == 1
    assert cpu["start"] == {"kind": "profile", "slug": "cpu-notebook"}
    twelve_gib = str(12 * 1024**3)
    pod = cpu["pod"]
    assert pod["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "1800m", "memory": twelve_gib},
        "limits": {"cpu": "1800m", "memory": twelve_gib}}
    # the hub's own settings under the profile: zero-to-jupyterhub's user tolerations and
    # its user-scheduler, daskhub-user-scheduler for the release daskhub
    assert [t["key"] for t in pod["spec"]["tolerations"]] == [
        "hub.jupyter.org/dedicated", "hub.jupyter.org_dedicated"]
    assert pod["spec"]["schedulerName"] == "daskhub-user-scheduler"

    gpu = by_id(body)["profile:gpu-notebook-t4"]
    container = gpu["pod"]["spec"]["containers"][0]
    # as KubeSpawner sends it: the GPU a limit only; its request and toleration come from
    # the API server, which the engine models when the sidebar places the pod. The pod's
    # tolerations are the hub's own (zero-to-jupyterhub's user tolerations, published).
    assert container["resources"]["requests"] == {"cpu": "3", "memory": str(20 * 1024**3)}
    assert container["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert [t["key"] for t in gpu["pod"]["spec"]["tolerations"]] == [
        "hub.jupyter.org/dedicated", "hub.jupyter.org_dedicated"]
    # the demo user's home claim, as /home gave it: bound to a disk in us-central1-b
    assert gpu["pod"]["metadata"]["namespace"] == "daskhub"
    assert gpu["pod"]["spec"]["volumes"] == [
        {"name": "volume-alice", "persistentVolumeClaim": {"claimName": "claim-alice"}}]
    assert gpu["claims"] == [{"name": "claim-alice", "namespace": "daskhub", "own": True,
                              "firstSpawn": False, "homeKnown": True}]
    # what the claim is (its disk in us-central1-b) is the engine's: the panel words it
    assert not any("claim-alice" in n for n in gpu["notes"])


async def test_published_profiles_from_a_snapshot_file(tmp_path, tightpack, get):
    from conftest import example
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps({
        "cluster": example("daskhub-gke", "cluster.json"),
        "profiles": [
            {"display_name": "Large (bad)", "kubespawner_override": {"mem_limit": "lots"}},
            {"display_name": "Medium GPU", "kubespawner_override": {
                "cpu_guarantee": 0.5, "mem_guarantee": "1.5G",
                "extra_resource_guarantees": {"nvidia.com/gpu": 1},
                "scheduler_name": "jupyterhub-user-scheduler",
                "node_affinity_required": [{"matchExpressions": [
                    {"key": "pool", "operator": "In", "values": ["gpu"]}]}],
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal",
                                 "value": "present", "effect": "NoSchedule"}]},
             "profile_options": {"image": {"display_name": "Image", "choices": {
                 "old": {"display_name": "Old", "kubespawner_override": {"image": "old:1"}},
                 "new": {"display_name": "New", "default": True,
                         "kubespawner_override": {"image": "new:2"}}}}}},
        ]}))
    tightpack.snapshot_file = str(path)
    status, body = await get("templates")
    assert status == 200
    assert body["errors"] == ["published profile 'large-bad' (profiles[0]): mem_limit: 'lots' "
                              "is not a memory specification (a number of bytes, or a number "
                              "with suffix K, M, G or T)"]
    medium = by_id(body)["profile:medium-gpu"]
    spec = medium["pod"]["spec"]
    assert spec["containers"][0]["image"] == "new:2"
    assert spec["containers"][0]["resources"]["requests"] == {
        "cpu": "500m", "memory": str(int(1.5 * 1024**3)), "nvidia.com/gpu": "1"}
    assert spec["schedulerName"] == "jupyterhub-user-scheduler"
    assert spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"][0]["matchExpressions"][0]["key"] == "pool"
    # the profile's own toleration only: ExtendedResourceToleration's is the engine's to add
    assert spec["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "present",
         "effect": "NoSchedule"}]


async def test_templates_survive_a_failing_snapshot(tmp_path, tightpack, get):
    tightpack.snapshot_file = str(tmp_path / "missing.json")
    status, body = await get("templates")
    assert status == 200
    assert list(by_id(body)) == ["dask-kubernetes"]
    assert body["errors"][0].startswith("snapshot (for published profiles): ")
    assert "missing.json" in body["errors"][0]
