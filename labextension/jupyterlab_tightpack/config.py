"""The server extension's settings: ``c.TightpackConfig.<name>`` in jupyter_server_config."""

from __future__ import annotations

import os

from traitlets import Bool, Float, Int, List, TraitError, Unicode, Union, default, validate
from traitlets.config import Configurable

SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"


def _env_int(name: str) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return 0
    try:
        return max(0, int(text))
    except ValueError:
        return 0


class TightpackConfig(Configurable):
    """Where the tightpack sidebar's cluster snapshot comes from."""

    snapshot_url = Unicode(
        help="""URL of the in-cluster tightpack scheduler's snapshot endpoint. The first
        source tried when set. Default: $TIGHTPACK_SNAPSHOT_URL.""",
    ).tag(config=True)

    @default("snapshot_url")
    def _default_snapshot_url(self) -> str:
        return os.environ.get("TIGHTPACK_SNAPSHOT_URL", "")

    snapshot_token = Unicode(
        help="""The bearer token sent to snapshot_url: the scheduler's shared snapshot token
        (the chart's Secret, handed to notebook servers as an environment variable).
        Default: $TIGHTPACK_SNAPSHOT_TOKEN.""",
    ).tag(config=True)

    @default("snapshot_token")
    def _default_snapshot_token(self) -> str:
        return os.environ.get("TIGHTPACK_SNAPSHOT_TOKEN", "")

    snapshot_ca_file = Unicode(
        help="""A CA bundle to verify snapshot_url's certificate with. Empty: the certificate
        is not verified (the scheduler's own is self-signed unless the operator gave it one).
        Default: $TIGHTPACK_SNAPSHOT_CA_FILE.""",
    ).tag(config=True)

    @default("snapshot_ca_file")
    def _default_snapshot_ca_file(self) -> str:
        return os.environ.get("TIGHTPACK_SNAPSHOT_CA_FILE", "")

    snapshot_file = Unicode(
        help="""A snapshot file (JSON or YAML: a v1 List of Nodes and Pods, or the snapshot
        envelope). Used when neither the scheduler nor the Kubernetes API is.
        Default: $TIGHTPACK_SNAPSHOT_FILE.""",
    ).tag(config=True)

    @default("snapshot_file")
    def _default_snapshot_file(self) -> str:
        return os.environ.get("TIGHTPACK_SNAPSHOT_FILE", "")

    use_kubernetes = Bool(
        True,
        help="""Read the cluster from the Kubernetes API with the notebook pod's service
        account when its token file exists.""",
    ).tag(config=True)

    kubernetes_in_hub_users = List(
        Unicode(),
        help="""JupyterHub users whose servers may read the cluster from the Kubernetes API.
        Inside a hub ($JUPYTERHUB_USER set) the Kubernetes source is off for everyone else:
        a service account that may list pods across the cluster lets every user read every
        other user's pod environment, JUPYTERHUB_API_TOKEN included. The scheduler's
        /snapshot (snapshot_url) is the source for a multi-user hub.""",
    ).tag(config=True)

    kubernetes_host = Unicode(
        help="""Base URL of the Kubernetes API. Default: https://$KUBERNETES_SERVICE_HOST:
        $KUBERNETES_SERVICE_PORT (set in every pod), empty outside a cluster.""",
    ).tag(config=True)

    @default("kubernetes_host")
    def _default_kubernetes_host(self) -> str:
        host = os.environ.get("KUBERNETES_SERVICE_HOST", "").strip()
        if not host:
            return ""
        port = os.environ.get("KUBERNETES_SERVICE_PORT", "443").strip() or "443"
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"  # IPv6
        return f"https://{host}:{port}"

    kubernetes_token_file = Unicode(
        f"{SERVICE_ACCOUNT_DIR}/token",
        help="The service-account token; read again on every request, since it rotates.",
    ).tag(config=True)

    kubernetes_ca_file = Unicode(
        f"{SERVICE_ACCOUNT_DIR}/ca.crt",
        help="CA bundle that signs the API server's certificate.",
    ).tag(config=True)

    kubernetes_namespace_file = Unicode(
        f"{SERVICE_ACCOUNT_DIR}/namespace",
        help="The notebook pod's namespace, the default namespace of worker templates.",
    ).tag(config=True)

    demo_nodes = Int(
        help="""Scale the built-in demo to this many nodes (0: the demo as shipped, 5 nodes),
        to benchmark the front end. Default: $TIGHTPACK_DEMO_NODES.""",
    ).tag(config=True)

    @default("demo_nodes")
    def _default_demo_nodes(self) -> int:
        return _env_int("TIGHTPACK_DEMO_NODES")

    request_timeout = Float(
        10.0, help="Seconds to wait for the scheduler, the Kubernetes API or dask-gateway."
    ).tag(config=True)

    cache_seconds = Float(
        30.0, help="How long a snapshot is served from memory; ?refresh=1 bypasses it."
    ).tag(config=True)

    min_refresh_seconds = Float(
        5.0,
        help="""The least time between two fetches from the source, whatever the sidebar asks:
        within it, ?refresh=1 gets the last answer. Every user's server polls the same
        scheduler, so a client that refreshes in a loop must not become load on it.""",
    ).tag(config=True)

    extended_resource_toleration = Union(
        [Bool(), Unicode()],
        default_value="auto",
        help="""Whether the API server runs the ExtendedResourceToleration admission plugin,
        which gives a pod that requests an extended resource (nvidia.com/gpu) a toleration
        for the taint of that name. "auto": when the nodes look like GKE, which enables it.""",
    ).tag(config=True)

    @validate("extended_resource_toleration")
    def _check_ert(self, proposal):  # type: ignore[no-untyped-def]
        value = proposal["value"]
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("auto", ""):
            return "auto"
        if text in ("true", "1", "yes"):
            return True
        if text in ("false", "0", "no"):
            return False
        raise TraitError(
            f'extended_resource_toleration must be "auto", true or false, not {value!r}'
        )
