"""/dask/v1/nodes (docs/scheduler.md): what tightpack-dask's scheduler preload asks, answered
from the daemon's cache. Per node where one Dask cluster's workers run: how many, and whether
anything else keeps the node; to a caller the API server says may list pods in that
namespace (a real ServiceAccount token and Role), nothing about anyone else's pods but that
bit, and a clear 4xx for everything else."""

from __future__ import annotations

import json
import os

from harness import create_pod, pod_manifest, wait_for
from test_secure_port import service_account_token


def bound_pod(cluster, name: str, node: str, labels: dict):
    m = pod_manifest(name, cpu="100m", memory="64Mi", labels=labels)
    m["spec"]["nodeName"] = node  # placed as a kubelet would find it; no scheduler involved
    create_pod(cluster.api, cluster.ns, m)


def worker(cluster_name: str) -> dict:
    return {"dask.org/cluster-name": cluster_name, "dask.org/component": "worker"}


def allow_listing_pods(api, ns: str, sa: str):
    api.post(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "list-pods"},
        "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}]})
    api.post(f"/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings", {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "list-pods"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "list-pods"},
        "subjects": [{"kind": "ServiceAccount", "namespace": ns, "name": sa}]})


def test_dask_nodes_tells_a_dask_scheduler_what_keeps_its_nodes(cluster, schedulers):
    api, ns = cluster.api, cluster.ns
    for n in ("dn-a", "dn-b", "dn-c"):
        cluster.node(n, cpu="8", memory="32Gi")
    bound_pod(cluster, "alice-w0", "dn-a", worker("alice"))
    bound_pod(cluster, "alice-w1", "dn-a", worker("alice"))
    bound_pod(cluster, "alice-w2", "dn-b", worker("alice"))
    bound_pod(cluster, "bob-w0", "dn-b", worker("bob"))  # bob keeps dn-b
    bound_pod(cluster, "alice-scheduler", "dn-c", {"dask.org/cluster-name": "alice", "dask.org/component": "scheduler"})
    tp = schedulers.tightpack(identity="dask-nodes")
    tp.wait_ready()
    scheduler_token = service_account_token(api, ns, "alice-scheduler")
    allow_listing_pods(api, ns, "alice-scheduler")
    nobody = service_account_token(api, ns, "nobody")
    path = f"/dask/v1/nodes?namespace={ns}&cluster=alice"

    expected = {"nodes": [{"name": "dn-a", "workers": 2, "kept": False},
                          {"name": "dn-b", "workers": 1, "kept": True}]}
    wait_for(lambda: tp.get(path, token=scheduler_token) == (200, json.dumps(expected, separators=(",", ":"))),
             15, f"{path} to answer {expected} (last: {tp.get(path, token=scheduler_token)})")

    # Who may not ask: no token, an unknown one, one that may not list pods there.
    status, body = tp.get(path, token=None)
    assert status == 401 and "bearer token" in body, (status, body)
    status, body = tp.get(path, token="not-a-token-" + os.urandom(3).hex())
    assert status == 401 and "does not know the token" in body, (status, body)
    status, body = tp.get(path, token=nobody)
    assert status == 403, (status, body)
    assert json.loads(body)["error"] == (f'Forbidden: user "system:serviceaccount:{ns}:nobody" cannot list resource '
                                         f'"pods" in API group "" in the namespace "{ns}"')
    # ... nor another namespace with the same token.
    assert tp.get("/dask/v1/nodes?namespace=kube-system&cluster=alice", token=scheduler_token)[0] == 403

    # Bad questions name the field and the value, before anyone is asked about the token (a token
    # nobody knows, then; with no credential at all the port refuses the request first: 401).
    for query, message in [
        ("namespace=Not_A_Namespace&cluster=alice", 'query: namespace "Not_A_Namespace" is not a namespace'),
        (f"namespace={ns}&cluster=-alice", 'query: cluster "-alice" is not a Dask cluster'),
        (f"namespace={ns}", 'query: cluster "" is not a Dask cluster'),
        (f"namespace={ns}&cluster=alice&pods=all", 'query: unknown parameter "pods"'),
        (f"namespace={ns}&namespace=x&cluster=alice", 'query: parameter "namespace" given twice'),
        (f"namespace={ns}&cluster=al%zzice", "query: bad percent-encoding"),
        (f"namespace={ns}&cluster=alice&drained=dn-a,Not_A_Node", 'query: drained: "Not_A_Node" is not a node'),
        (f"namespace={ns}&cluster=alice&drained=" + ",".join(f"n{i}" for i in range(65)),
         "query: drained: names more than 64 nodes"),
        (f"namespace={ns}&cluster=alice&raised=a%20b", 'query: raised: "a b" is not a node'),
        (f"namespace={ns}&cluster=alice&refused=-x", 'query: refused: "-x" is not a node'),
        (f"namespace={ns}&cluster=alice&adaptive=yes", 'query: adaptive "yes" is not true or false'),
    ]:
        status, body = tp.get(f"/dask/v1/nodes?{query}", token="not-a-token-" + os.urandom(3).hex())
        assert status == 400 and json.loads(body)["error"].startswith(message), (query, status, body)

    # A preload that drained nodes says so; nothing is emptying here, so nothing changes.
    assert tp.get(path + "&drained=dn-a", token=scheduler_token)[1] == json.dumps(expected, separators=(",", ":"))
    # A cluster with no workers, percent-encoded.
    assert tp.get(f"/dask/v1/nodes?namespace={ns}&cluster=car%6Fl", token=scheduler_token) == (200, '{"nodes":[]}')
