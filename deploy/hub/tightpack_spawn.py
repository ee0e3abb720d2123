"""tightpack's answers on JupyterHub's spawn page: beside every profile, and every choice of its
options, whether its server can start now, in about how many minutes (cluster-autoscaler adds a
node), or not now and why. One file for the hub's image (zero-to-jupyterhub's hub.extraFiles),
needing only what a KubeSpawner hub has: KubeSpawner, kubernetes_asyncio and tornado.

    import tightpack_spawn
    tightpack_spawn.configure(c, "https://tightpack.tightpack.svc:10259",
                              ca_file="/usr/local/etc/tightpack/ca.crt")

Each time the page is drawn for a user, the pod KubeSpawner would make for each choice is built
by KubeSpawner itself (load_user_options and get_pod_manifest on a spawner of her own, with the
hub's settings and the home claim she has or would get from get_pvc_manifest) and sent to the
tightpack daemon's POST /spawn/v1/profiles with the hub's service-account token; the daemon may
answer only if that account may create pods in the namespace (a SubjectAccessReview), and it
answers per pod with an outlook that names no node, pod or other user (docs/deploy.md). Nothing
of the pods' environment is sent: scheduling reads none of it, and it may hold secrets.

The form is KubeSpawner's own (its template and profile_list); the answers are added to each
profile's description and each choice's name. When tightpack cannot answer in time the page is
drawn as it would be without it, and the hub logs why.
"""

from __future__ import annotations

import asyncio
import copy
import html
import json
import ssl
from typing import Callable, Optional

SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token"
PATH = "/spawn/v1/profiles"
# The daemon answers 64 pods at most in one question (spawn_question.hpp).
MOST_PODS = 64
# The answers' badges, in the colours JupyterHub's Bootstrap theme gives success, info and
# danger, so that the page reads at a glance.
STYLE = """<style>
.tightpack-outlook { display: inline-block; margin-top: 4px; padding: 2px 8px; border-radius: 4px;
  font-size: 90%; border: 1px solid; }
.tightpack-outlook-now { color: #0f5132; background: #d1e7dd; border-color: #badbcc; }
.tightpack-outlook-new-node { color: #055160; background: #cff4fc; border-color: #b6effb; }
.tightpack-outlook-cannot { color: #842029; background: #f8d7da; border-color: #f5c2c7; }
</style>
"""


def configure(c, url: str, *, ca_file: Optional[str] = None, token_file: str = SERVICE_ACCOUNT_TOKEN,
              timeout: float = 3.0) -> None:
    """Draw KubeSpawner's spawn form with tightpack's answers (c: the hub's configuration).
    `url`: the daemon's secure port; `ca_file`: the CA that signed its certificate (the chart's
    ConfigMap <release>-ca); `token_file`: the hub's service-account token; `timeout`: how long
    the page waits for the answers before it is drawn without them."""
    c.KubeSpawner.options_form = spawn_form(url, ca_file=ca_file, token_file=token_file, timeout=timeout)


def spawn_form(url: str, *, ca_file: Optional[str] = None, token_file: str = SERVICE_ACCOUNT_TOKEN,
               timeout: float = 3.0, fetch: Optional[Callable] = None):
    """KubeSpawner's options_form as a callable: its own form of the hub's profile_list, each
    profile and choice answered. `fetch(body: bytes) -> dict` replaces the HTTPS request."""

    async def form(spawner) -> str:
        # As KubeSpawner's load_user_options reads it: a dict's values in key order, or a
        # callable's (sync or async) list.
        profiles = spawner._sorted_dict_values(spawner.profile_list)
        if callable(profiles):
            profiles = profiles(spawner)
            if asyncio.iscoroutine(profiles) or isinstance(profiles, asyncio.Future):
                profiles = await profiles
        if not profiles:
            return ""
        profiles = spawner._get_initialized_profile_list(copy.deepcopy(profiles))
        try:
            question, where = await question_for(spawner, profiles)
            ask = fetch or (lambda body: _post(url, body, ca_file, token_file, timeout))
            answer = await asyncio.wait_for(ask(json.dumps(question).encode()), timeout)
            _annotate(profiles, where, answer)
        except Exception as e:  # noqa: BLE001 - the page is drawn without answers, whatever failed
            spawner.log.warning("tightpack: the spawn page for %s has no answers: %s", spawner.user.name,
                                _describe(e))
        return STYLE + spawner._render_options_form(profiles)

    return form


# --------------------------------------------------------------------------- the question
async def question_for(spawner, profiles: list) -> tuple[dict, dict]:
    """The question for `spawner`'s user: per profile (its default choices) and per other choice
    of its options, KubeSpawner's pod; her home claim. Also where each id's answer goes."""
    from kubernetes_asyncio.client import ApiClient

    pods, where, claims = [], {}, []
    namespace = None
    async with ApiClient() as api:
        for profile in profiles:
            for options, place in _choices(profile):
                if len(pods) == MOST_PODS:
                    break
                pod, claim, namespace = await _manifests(spawner, profiles, options, api)
                pod_id = f"p{len(pods)}"
                pods.append({"id": pod_id, "pod": _without_environment(pod)})
                where[pod_id] = place
                if claim is not None and all(c["metadata"]["name"] != claim["metadata"]["name"] for c in claims):
                    claims.append(claim)
    question = {"namespace": namespace, "user": spawner.user.name, "pods": pods}
    if claims:
        question["claims"] = claims
    return question, where


def _choices(profile: dict):
    """(user_options, where the answer goes) for the profile with its defaults, then for each
    choice of each option that is not its default (the others at theirs)."""
    yield {"profile": profile["slug"]}, (profile["slug"], None, None)
    for option_name, option in (profile.get("profile_options") or {}).items():
        for key, choice in (option.get("choices") or {}).items():
            if not choice.get("default"):
                yield {"profile": profile["slug"], option_name: key}, (profile["slug"], option_name, key)


async def _manifests(spawner, profiles: list, options: dict, api) -> tuple[dict, Optional[dict], str]:
    """KubeSpawner's pod and claim for `options`, from a spawner of the user's own that is never
    started: the hub's configuration, her remembered state (a claim name kept from an earlier
    spawn), the profile's overrides applied by KubeSpawner's load_user_options."""
    scratch = spawner.__class__(config=spawner.config, user=spawner.user, hub=spawner.hub, name=spawner.name)
    scratch.load_state(spawner.get_state())
    scratch.profile_list = profiles
    scratch.user_options = options
    await scratch.load_user_options()
    pod = api.sanitize_for_serialization(await scratch.get_pod_manifest())
    claim = api.sanitize_for_serialization(scratch.get_pvc_manifest()) if scratch.storage_pvc_ensure else None
    return pod, claim, scratch.namespace


def _without_environment(pod: dict) -> dict:
    for key in ("containers", "initContainers"):
        for container in pod.get("spec", {}).get(key) or []:
            container.pop("env", None)
            container.pop("envFrom", None)
    return pod


# --------------------------------------------------------------------------- the answer
def _annotate(profiles: list, where: dict, answer: dict) -> None:
    """Each answer beside what it answers: a badge after a profile's description, a few words
    after a choice's name (an <option> holds text only). Options that cannot start stay."""
    by_profile = {p["slug"]: p for p in profiles}
    for item in answer.get("answers", []):
        place = where.get(item.get("id"))
        outlook = item.get("outlook")
        if place is None or not isinstance(outlook, dict):
            continue
        slug, option_name, key = place
        profile = by_profile[slug]
        kind, message, summary = (_text(outlook.get(k)) for k in ("kind", "message", "summary"))
        if option_name is None:
            badge = (f'<span class="tightpack-outlook tightpack-outlook-{kind}" title="{message}">'
                     f'{message}</span>')
            description = profile.get("description") or ""
            profile["description"] = (description + "<br>" if description else "") + badge
        else:
            choice = profile["profile_options"][option_name]["choices"][key]
            choice["display_name"] = f'{choice.get("display_name", key)} · {summary.lower()}'


def _text(value) -> str:
    """Words from the daemon, made inert twice: as HTML, and for JupyterHub, which renders the
    form once more as a template."""
    return html.escape(str(value or "")).replace("{", "&#123;").replace("}", "&#125;")


async def _post(url: str, body: bytes, ca_file: Optional[str], token_file: str, timeout: float) -> dict:
    from tornado.httpclient import AsyncHTTPClient, HTTPRequest

    with open(token_file) as f:
        token = f.read().strip()
    context = ssl.create_default_context(cafile=ca_file) if url.startswith("https:") else None
    request = HTTPRequest(url.rstrip("/") + PATH, method="POST", body=body, request_timeout=timeout,
                          headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
                          ssl_options=context)
    response = await AsyncHTTPClient().fetch(request, raise_error=False)
    if response.code != 200:
        text = (response.body or b"").decode(errors="replace")[:300]
        raise RuntimeError(f"{url}{PATH} answered {response.code}: {text or response.reason}")
    return json.loads(response.body)


def _describe(e: BaseException) -> str:
    if isinstance(e, asyncio.TimeoutError):
        return "no answer in time"
    return f"{type(e).__name__}: {e}"


__all__ = ["configure", "spawn_form", "question_for"]
