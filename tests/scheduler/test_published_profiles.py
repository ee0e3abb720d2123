"""What /snapshot publishes of the operator's profiles (--publish): every user of the hub can
read it, so a profile goes out with what the sidebar turns into a pod and nothing else
(docs/scheduler.md, What /snapshot shows). Checked with the profiles the DaskHub example ships
(deploy/examples/values-daskhub-gke.yaml), given what real hub profiles also carry: credentials
in `environment`, a sidecar with its own env and command, mounted secrets, a free-text option.
The sidebar must build the same pods from the published entries as from the originals with
those keys taken out."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "labextension"))
from jupyterlab_tightpack.profiles import template  # noqa: E402

HOME_ONLY = {  # what a hub's profile carries that is not every user's business
    "environment": {"AWS_SECRET_ACCESS_KEY": "SECRET-env"},
    "extra_containers": [{"name": "vpn", "image": "ghcr.io/example/vpn:1",
                          "env": [{"name": "VPN_PASSWORD", "value": "SECRET-sidecar"}],
                          "command": ["vpn", "--password", "SECRET-command"],
                          "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}],
    "extra_container_config": {"env": [{"name": "TOKEN", "value": "SECRET-container-config"}]},
    "extra_pod_config": {"imagePullSecrets": [{"name": "SECRET-pull"}],
                         "volumes": [{"name": "creds", "secret": {"secretName": "SECRET-volume"}}]},
    "volume_mounts": [{"name": "creds", "mountPath": "/SECRET-mount"}],
    "lifecycle_hooks": {"postStart": {"exec": {"command": ["sh", "-c", "SECRET-hook"]}}},
}


def without_home_only(profile: dict) -> dict:
    """The profile as the sidebar should see it: the keys above taken out, the sidecar's
    name, image and resources kept (they take room on the node)."""
    p = copy.deepcopy(profile)
    override = p.get("kubespawner_override", {})
    for key in ("environment", "extra_container_config", "volume_mounts", "lifecycle_hooks"):
        override.pop(key, None)
    override["extra_pod_config"] = {"volumes": [{"name": "creds"}]}
    override["extra_containers"] = [{k: v for k, v in c.items() if k in ("name", "image", "resources")}
                                    for c in override.get("extra_containers", [])]
    options = p.get("profile_options", {})
    for option in options.values():
        option.pop("unlisted_choice", None)
    return p


def test_profiles_are_published_as_the_sidebar_reads_them(cluster, schedulers, tmp_path):
    values = yaml.safe_load((ROOT / "deploy/examples/values-daskhub-gke.yaml").read_text())
    originals = values["publish"]["profiles"]
    assert len(originals) >= 2
    given = copy.deepcopy(originals)
    for profile in given:
        profile["kubespawner_override"].update(copy.deepcopy(HOME_ONLY))
    given[0]["profile_options"] = {
        "image": {"display_name": "Image", "choices": {
            "pangeo": {"display_name": "Pangeo", "default": True,
                       "kubespawner_override": {"image": "pangeo/pangeo-notebook:2024.12.1",
                                                "environment": {"SECRET-choice": "1"}}}},
        "unlisted_choice": {"enabled": True, "kubespawner_override": {"image": "{value}"},
                            "validation_regex": "SECRET-regex"}}}
    (tmp_path / "publish.json").write_text(json.dumps({"profiles": given}))

    tp = schedulers.tightpack(identity="publish", extra_args=["--publish", str(tmp_path / "publish.json")])
    tp.wait_ready()
    status, body = tp.get("/snapshot")
    assert status == 200, (status, body[:300])
    assert "SECRET" not in body, [line for line in body.split(",") if "SECRET" in line]
    published = json.loads(body)["profiles"]

    assert len(published) == len(given)
    for index, (sent, original) in enumerate(zip(published, given)):
        built, errors = template(sent, index, "daskhub")
        expected, expected_errors = template(without_home_only(original), index, "daskhub")
        assert errors == expected_errors == []
        assert built == expected, index
        # the sidecar still takes its room on the node
        containers = built["pod"]["spec"]["containers"]
        assert [c["name"] for c in containers] == ["notebook", "vpn"]
        assert containers[1]["resources"] == {"requests": {"cpu": "100m", "memory": "64Mi"}}

    # and the operator is told, by path, what stayed home
    log = tp.log_text()
    for path in ("$.profiles[0].kubespawner_override.environment",
                 "$.profiles[0].kubespawner_override.extra_containers[0].env",
                 "$.profiles[0].profile_options.image.unlisted_choice"):
        assert path in log, path
