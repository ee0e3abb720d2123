"""KubeSpawner's names for a user's default server: its template fields and slug scheme.

KubeSpawner (jupyterhub/kubespawner 7, slugs.py and spawner.py ``_expand_user_properties``)
expands ``pvc_name_template`` ("claim-{user_server}"), ``pod_name_template``
("jupyter-{user_server}") and every string of ``volumes`` with the user's names, escaped by
its "safe" slug scheme (the default since 7.0). This is that expansion for the default server
(servername ""), which is the server a profile starts; tests/clients/test_sidebar_models.py
holds it against KubeSpawner's own.
"""

from __future__ import annotations

import hashlib
import re
import string
from typing import Optional

DEFAULT_PVC_NAME_TEMPLATE = "claim-{user_server}"
DEFAULT_POD_NAME_TEMPLATE = "jupyter-{user_server}"

_ALPHANUM = tuple(string.ascii_letters + string.digits)
_ALPHA_LOWER = tuple(string.ascii_lowercase)
_ALPHANUM_LOWER = tuple(string.ascii_lowercase + string.digits)
_OBJECT_PATTERN = re.compile(r"^[a-z0-9\-]+$")
_LABEL_PATTERN = re.compile(r"^[a-z0-9\.\-_]+$", flags=re.IGNORECASE)
_NON_ALPHANUM = re.compile(r"[^a-z0-9]+")
_HASH_LENGTH = 8
_SLUG_MAX_LENGTH = 48
_ESCAPE_SAFE = set(string.ascii_lowercase + string.digits)


def is_valid_object_name(s: str) -> bool:
    return (0 < len(s) <= 63 and s.startswith(_ALPHA_LOWER) and s.endswith(_ALPHANUM_LOWER)
            and bool(_OBJECT_PATTERN.match(s)))


def is_valid_label(s: str) -> bool:
    if not s:
        return True
    return (len(s) <= 63 and s.startswith(_ALPHANUM) and s.endswith(_ALPHANUM)
            and bool(_LABEL_PATTERN.match(s)))


def _extract_safe_name(name: str, max_length: int) -> str:
    safe = _NON_ALPHANUM.sub("-", name.lower())
    safe = safe.lstrip("-")[:max_length].rstrip("-")
    if safe and not safe.startswith(_ALPHA_LOWER):
        safe = "x-" + safe[: max_length - 2]
    return safe or "x"


def _strip_and_hash(name: str, max_length: int = 32) -> str:
    name_length = max_length - (_HASH_LENGTH + 3)
    digest = hashlib.sha256(name.encode("utf8")).hexdigest()[:_HASH_LENGTH]
    return f"{_extract_safe_name(name, name_length)}---{digest}"


def safe_slug(name: str, is_valid=is_valid_object_name, max_length=None) -> str:
    if "--" in name:
        return _strip_and_hash(name, max_length=max_length or 32)
    if is_valid(name) and (max_length is None or len(name) <= max_length):
        return name
    return _strip_and_hash(name, max_length=max_length or 32)


def multi_slug(names: list, max_length: int = 48) -> str:
    hasher = hashlib.sha256()
    hasher.update(names[0].encode("utf8"))
    for name in names[1:]:
        hasher.update(b"\xff")
        hasher.update(name.encode("utf8"))
    digest = hasher.hexdigest()[:_HASH_LENGTH]
    per_name = (max_length - (_HASH_LENGTH + 1)) // len(names)
    slugs = [_extract_safe_name(n, per_name - 2) for n in names]
    return f"{'--'.join(slugs)}---{digest}"


def escape_slug(name: str) -> str:
    """The legacy "escape" scheme (escapism.escape with '-' as the escape character)."""
    out = []
    for c in name:
        if c in _ESCAPE_SAFE:
            out.append(c)
        else:
            out.extend(f"-{byte:X}" for byte in c.encode("utf8"))
    return "".join(out).lower()


def fields(user: str, namespace: str, pvc_name: str = "") -> dict:
    """The template fields of ``user``'s default server (KubeSpawner's "safe" scheme).
    ``userid`` and ``hubnamespace`` are not known to a notebook: templates using them
    cannot be expanded here (KeyError)."""
    safe_username = safe_slug(user, max_length=_SLUG_MAX_LENGTH)
    if len(safe_username) + 2 > _SLUG_MAX_LENGTH:
        safe_user_server = multi_slug([user, ""], max_length=_SLUG_MAX_LENGTH)
    else:
        safe_user_server = safe_username
    escaped_username = escape_slug(user)
    ns = {
        "unescaped_username": user,
        "unescaped_servername": "",
        "username": safe_username,
        "servername": "",
        "user_server": safe_user_server,
        "safe_username": safe_username,
        "safe_servername": "",
        "safe_user_server": safe_user_server,
        "escaped_username": escaped_username,
        "escaped_servername": "",
        "escaped_user_server": f"{escaped_username}--",
        "namespace": namespace,
    }
    ns["pod_name"] = _render(DEFAULT_POD_NAME_TEMPLATE, ns)
    ns["pvc_name"] = pvc_name
    return ns


def _render(template: str, ns: dict) -> str:
    rendered = template.format(**ns)
    # KubeSpawner strips the '-' an empty servername leaves, unless the template ends in one.
    return rendered if template.endswith("-") else rendered.rstrip("-")


def expand(template: str, user: str, namespace: str, pvc_name: str = "") -> str:
    """``template`` expanded for ``user``'s default server; ValueError names a field this
    cannot know."""
    try:
        return _render(template, fields(user, namespace, pvc_name))
    except KeyError as exc:
        raise ValueError(f"{template!r}: the field {exc.args[0]!r} is not known to the "
                         "notebook") from None
    except (IndexError, AttributeError, ValueError) as exc:
        raise ValueError(f"{template!r}: not a KubeSpawner template ({exc})") from None


# KubeSpawner's default common_labels; zero-to-jupyterhub replaces them with its chart's.
DEFAULT_COMMON_LABELS = {
    "app.kubernetes.io/name": "jupyterhub",
    "app.kubernetes.io/managed-by": "kubespawner",
    "app": "jupyterhub",
    "heritage": "jupyterhub",
}


def claim_labels(user: str, common_labels: Optional[dict] = None) -> dict:
    """The labels of the claim KubeSpawner's get_pvc_manifest makes: the user's, the hub's
    common_labels (KubeSpawner's defaults when none are published), the component's."""
    labels = {"hub.jupyter.org/username": safe_slug(user, is_valid=is_valid_label)}
    labels.update({str(k): str(v) for k, v in (common_labels if isinstance(common_labels, dict)
                                               else DEFAULT_COMMON_LABELS).items()})
    labels.update({"app.kubernetes.io/component": "singleuser-server",
                   "component": "singleuser-storage"})
    return labels
