"""Enabling it as the README says: the env list through dask-kubernetes' own
make_cluster_spec, and the operator's scheduler command run for real with that environment
(dask-scheduler from PyPI, two dask-worker processes on fake nodes): the configured preload
is installed and learns each worker's node."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from dask_kubernetes.operator import make_cluster_spec
from distributed import Client
from tightpack_dask.kubernetes import (
    GATEWAY_SCHEDULER_CMD,
    IDENTITY_ENV,
    MOVE_LABEL,
    NODE_NAME_ENV,
    PROTECTED,
    SCHEDULER_PRELOAD_ENV,
    allow_moves,
    gateway_allow_moves,
    operator_env,
)

BIN = Path(sys.executable).parent


def container_env(entries: list[dict], node: str) -> dict:
    """A container's environment as the kubelet makes it, spec.nodeName being `node`."""
    env = {}
    for e in entries:
        if "value" in e:
            env[e["name"]] = e["value"]
        elif e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName":
            env[e["name"]] = node
    return env


def test_make_cluster_spec_carries_the_env():
    spec = make_cluster_spec(name="alice", image="ghcr.io/dask/dask:2026.8.0", env=operator_env({"A": "1"}))
    scheduler = spec["spec"]["scheduler"]["spec"]["containers"][0]
    worker = spec["spec"]["worker"]["spec"]["containers"][0]
    for c in (scheduler, worker):
        assert SCHEDULER_PRELOAD_ENV in c["env"] and NODE_NAME_ENV in c["env"]
        assert all(e in c["env"] for e in IDENTITY_ENV)
        assert {"name": "A", "value": "1"} in c["env"]
    assert "--preload" not in scheduler["args"]  # so the configured preload applies
    assert GATEWAY_SCHEDULER_CMD[1:] == ["--preload", "tightpack_dask.scheduler"]


class _Meta(dict):
    """kopf.Meta as the operator's helpers read it."""

    def __init__(self, meta: dict):
        super().__init__(meta)
        self.labels = dict(meta.get("labels") or {})
        self.annotations = dict(meta.get("annotations") or {})


def test_allow_moves_reaches_every_worker_pod_through_the_operator():
    """The operator's own controller functions, called as its DaskCluster and DaskWorkerGroup
    handlers call them: the label goes DaskCluster -> worker group -> worker pods, the
    annotation worker spec -> worker pods; the scheduler pod gets the label but no annotation."""
    from dask_kubernetes.operator.controller import controller

    spec = allow_moves(
        make_cluster_spec(name="alice", image="ghcr.io/dask/dask:2026.8.0", n_workers=2, env=operator_env())
    )
    labels = controller._get_labels(_Meta(spec["metadata"]))
    annotations = controller._get_annotations(_Meta(spec["metadata"]))
    group = controller.build_default_worker_group_spec("alice", spec["spec"]["worker"], annotations, labels)
    worker_spec = group["spec"]["worker"]
    w_labels = controller._get_labels(_Meta(group["metadata"]))
    w_annotations = controller._get_annotations(_Meta(group["metadata"]))
    w_annotations.update(worker_spec["metadata"]["annotations"])
    deployment = controller.build_worker_deployment_spec(
        worker_group_name=group["metadata"]["name"], namespace="jhub", cluster_name="alice",
        uuid="0123456789", pod_spec=worker_spec["spec"], annotations=w_annotations, labels=w_labels)
    pod = deployment["spec"]["template"]["metadata"]
    assert pod["labels"][MOVE_LABEL] == "true" and pod["labels"]["dask.org/component"] == "worker"
    assert PROTECTED.items() <= pod["annotations"].items()
    scheduler = controller.build_scheduler_deployment_spec(
        "alice", spec["spec"]["scheduler"]["spec"], annotations, labels)
    assert scheduler["spec"]["template"]["metadata"]["labels"][MOVE_LABEL] == "true"
    assert "cluster-autoscaler.kubernetes.io/safe-to-evict" not in (
        scheduler["spec"]["template"]["metadata"].get("annotations") or {})
    unprotected = allow_moves(make_cluster_spec(name="bob", image="ghcr.io/dask/dask:2026.8.0", env={}), protect=False)
    assert "metadata" not in unprotected["spec"]["worker"] or not unprotected["spec"]["worker"]["metadata"].get(
        "annotations")


def test_a_gateway_cluster_option_opts_its_workers_in_to_moves():
    """The gateway's own Options (as a DaskHub's values declare cluster options), its Kubernetes
    cluster configuration and controller: a user who ticks the option gets the label on every
    worker pod, not on the scheduler's; one who does not, none."""
    from dask_gateway_server.backends.kubernetes.backend import KubeClusterConfig
    from dask_gateway_server.backends.kubernetes.controller import KubeController
    from dask_gateway_server.models import User
    from dask_gateway_server.options import Bool, Integer, Options
    from dask_gateway_server.utils import FrozenAttrDict
    from traitlets.config import Config

    def options_handler(options):  # as the README shows it
        return gateway_allow_moves({"worker_cores": options.worker_cores}, options.allow_moves)

    options = Options(Integer("worker_cores", 1, min=1, max=16, label="Worker Cores"),
                      Bool("allow_moves", default=False, label="Let tightpack move my workers"),
                      handler=options_handler)
    c = Config()
    c.KubeClusterConfig.namespace = "jhub"
    c.KubeBackend.gateway_instance = c.KubeController.gateway_instance = "dask-gateway"
    controller = KubeController(config=c)
    alice = User(name="alice", groups=[], admin=False)
    for allow in (True, False):
        overrides = options.get_configuration(options.parse_options({"allow_moves": allow}), alice)
        config = FrozenAttrDict(KubeClusterConfig(config=c, **overrides).to_dict())
        worker = controller.make_pod("jhub", "abc", config, is_worker=True)
        scheduler = controller.make_pod("jhub", "abc", config)
        assert (worker["metadata"]["labels"].get(MOVE_LABEL) == "true") == allow
        assert MOVE_LABEL not in scheduler["metadata"]["labels"]
        assert "annotations" not in worker["metadata"] or PROTECTED.keys().isdisjoint(worker["metadata"]["annotations"])


def test_the_operators_scheduler_command_installs_it(tmp_path):
    spec = make_cluster_spec(name="alice", image="ghcr.io/dask/dask:2026.8.0", env=operator_env())
    scheduler = spec["spec"]["scheduler"]["spec"]["containers"][0]
    base = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    scheduler_file = tmp_path / "scheduler.json"
    # The container's args, on loopback ports of its own (the pod's are 8786/8787).
    # distributed no longer installs the dask-scheduler script; `dask scheduler` is its
    # replacement, with the same options.
    assert scheduler["args"][0] == "dask-scheduler"
    args = [str(BIN / "dask"), "scheduler", *scheduler["args"][1:]]
    args = [a if a != "0.0.0.0" else "127.0.0.1" for a in args]
    procs = [subprocess.Popen(args + ["--port", "0", "--dashboard-address", ":0", "--scheduler-file", str(scheduler_file)],
                              env={**base, **container_env(scheduler["env"], "node-core")})]
    try:
        for _ in range(300):
            if scheduler_file.exists() and scheduler_file.stat().st_size:
                break
            time.sleep(0.1)
        worker = spec["spec"]["worker"]["spec"]["containers"][0]
        for i, node in enumerate(["node-a", "node-b"]):
            procs.append(subprocess.Popen(
                [str(BIN / "dask"), "worker", "--scheduler-file", str(scheduler_file), "--nthreads", "1",
                 "--name", f"w{i}", "--no-dashboard"],
                env={**base, **container_env(worker["env"], node)}))
        with Client(scheduler_file=str(scheduler_file), timeout=30) as client:
            client.wait_for_workers(2, timeout=60)

            def learnt(dask_scheduler):
                plugin = dask_scheduler.plugins.get("tightpack-retirement")
                if plugin is None:
                    return None
                return sorted(plugin.node_of(ws) or "" for ws in dask_scheduler.workers.values())

            for _ in range(100):
                nodes = client.run_on_scheduler(learnt)
                if nodes == ["node-a", "node-b"]:
                    break
                time.sleep(0.1)
            assert nodes == ["node-a", "node-b"]
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            p.wait(timeout=30)


def test_dask_gateways_scheduler_command_installs_it_beside_its_own(tmp_path):
    """dask-gateway-server's own Kubernetes controller makes the scheduler pod from
    c.KubeClusterConfig.scheduler_cmd = GATEWAY_SCHEDULER_CMD; its command, run with the pod's
    environment (TLS credentials from distributed's temporary certificates where the pod
    mounts its Secret; loopback ports where the pod has 8786-8788), loads both preloads: the
    gateway's (click-based) and ours (plain)."""
    import socket

    from dask_gateway_server.backends.kubernetes.backend import KubeClusterConfig
    from dask_gateway_server.backends.kubernetes.controller import KubeController
    from dask_gateway_server.utils import FrozenAttrDict
    from distributed.security import Security
    from traitlets.config import Config

    c = Config()
    c.KubeBackend.gateway_instance = c.KubeController.gateway_instance = "dask-gateway"
    c.KubeController.api_url = "http://127.0.0.1:9/api"  # the gateway's API; not asked within the test
    c.KubeClusterConfig.scheduler_cmd = GATEWAY_SCHEDULER_CMD
    c.KubeClusterConfig.worker_extra_container_config = {"env": [NODE_NAME_ENV]}
    config = FrozenAttrDict(KubeClusterConfig(config=c).to_dict())
    pod = KubeController(config=c).make_pod("jhub", "0f3c9a", config)
    container = pod["spec"]["containers"][0]
    assert container["args"][:3] == GATEWAY_SCHEDULER_CMD
    assert "dask_gateway.scheduler_preload" in container["args"]
    worker = KubeController(config=c).make_pod("jhub", "0f3c9a", config, is_worker=True)["spec"]["containers"][0]
    assert NODE_NAME_ENV in worker["env"]  # beside the gateway's own variables
    assert any(e["name"] == "DASK_GATEWAY_WORKER_NAME" for e in worker["env"])

    temporary = Security.temporary()
    (tmp_path / "dask.crt").write_text(temporary.tls_ca_file)
    (tmp_path / "dask.pem").write_text(temporary.tls_scheduler_key)
    (tmp_path / "api-token").write_text("test-token")
    (tmp_path / "cert-only.crt").write_text(temporary.tls_scheduler_cert)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    for e in container["env"]:
        env[e["name"]] = e["value"].replace("/etc/dask-credentials/", f"{tmp_path}/")
    env["DASK_DISTRIBUTED__COMM__TLS__SCHEDULER__CERT"] = str(tmp_path / "cert-only.crt")

    def free_port() -> str:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return str(s.getsockname()[1])

    port = free_port()
    ports = {"8786": port, ":8787": ":" + free_port(), ":8788": ":" + free_port()}
    args = [ports.get(a, a) for a in container["args"]]
    args = [str(BIN / "dask"), "scheduler", *args[1:]]
    args[args.index("--host") + 1] = "127.0.0.1"
    scheduler = subprocess.Popen(args, env=env)
    try:
        security = Security(tls_ca_file=temporary.tls_ca_file, tls_client_cert=temporary.tls_client_cert,
                            tls_client_key=temporary.tls_client_key, require_encryption=True)
        deadline = time.monotonic() + 60
        while True:
            assert scheduler.poll() is None, "the gateway's scheduler command exited"
            assert time.monotonic() < deadline, "the gateway's scheduler command did not start"
            try:
                with Client(f"tls://127.0.0.1:{port}", security=security, timeout=5) as client:

                    def installed(dask_scheduler):
                        ours = dask_scheduler.plugins.get("tightpack-retirement")
                        return (ours is not None and dask_scheduler.workers_to_close == ours.workers_to_close,
                                sorted(type(p).__name__ for p in dask_scheduler.plugins.values()))

                    ok, plugins = client.run_on_scheduler(installed)
                    break
            except OSError:
                time.sleep(0.2)
        assert ok, plugins
        assert "GatewayPlugin" in plugins and "NodeAwareRetirement" in plugins
    finally:
        scheduler.terminate()
        scheduler.wait(timeout=30)
