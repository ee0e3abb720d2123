"""The user's Dask configuration, read file by file so that one bad file is an error
entry naming it and its line, and the other files still count.

The files and their order are dask's (dask/config.py, _get_paths and collect_yaml):
$DASK_ROOT_CONFIG (default /etc/dask), {sys.prefix}/etc/dask, {site prefix}/etc/dask,
~/.config/dask, then $DASK_CONFIG; in each directory its *.yaml, *.yml and *.json files
in name order; later files win, then DASK_* environment variables
(DASK_KUBERNETES__NAMESPACE=x is kubernetes.namespace). With dask importable, its own
environment parsing (dask.config.collect_env) and merge (dask.config.update) are used.
Read at every request, so a change of DASK_CONFIG or of a file shows at once.
"""

from __future__ import annotations

import ast
import os
import site
import sys
from typing import Any, Optional

from .parsing import DocumentError, load_yaml

try:
    import dask.config as _dask_config
except Exception:  # pragma: no cover - dask is optional
    _dask_config = None


def search_path() -> list:
    paths = [
        os.getenv("DASK_ROOT_CONFIG", "/etc/dask"),
        os.path.join(sys.prefix, "etc", "dask"),
        *[os.path.join(prefix, "etc", "dask") for prefix in getattr(site, "PREFIXES", [])],
        os.path.join(os.path.expanduser("~"), ".config", "dask"),
    ]
    if "DASK_CONFIG" in os.environ:
        paths.append(os.environ["DASK_CONFIG"])
    # dask removes duplicates keeping the last occurrence
    return list(reversed(list(dict.fromkeys(reversed(paths)))))


def config_files(paths: list) -> list:
    files = []
    for path in paths:
        if not os.path.exists(path):
            continue
        if os.path.isdir(path):
            try:
                files.extend(sorted(
                    os.path.join(path, p) for p in os.listdir(path)
                    if os.path.splitext(p)[1].lower() in (".json", ".yaml", ".yml")))
            except OSError:
                pass
        else:
            files.append(path)
    return files


def _update(old: dict, new: dict) -> dict:
    if _dask_config is not None:
        return _dask_config.update(old, new)
    for key, value in new.items():
        alt = key.replace("_", "-") if "_" in key else key.replace("-", "_")
        key = alt if key not in old and alt in old else key
        if isinstance(value, dict) and isinstance(old.get(key), dict):
            _update(old[key], value)
        else:
            old[key] = value
    return old


def _collect_env(env: Any) -> dict:
    if _dask_config is not None:
        return _dask_config.collect_env(env)
    result: dict = {}
    for name, value in env.items():
        if not name.startswith("DASK_") or name == "DASK_CONFIG" or name == "DASK_ROOT_CONFIG":
            continue
        try:
            parsed: Any = ast.literal_eval(value)
        except (SyntaxError, ValueError):
            parsed = value
        node = result
        parts = name[5:].lower().split("__")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        else:
            node[parts[-1]] = parsed
    return result


class DaskConfig:
    """The merged configuration, the files it came from and the errors met."""

    def __init__(self, values: dict, files: list, errors: list):
        self.values = values
        self.files = files
        self.errors = errors

    def get(self, dotted: str, default: Any = None) -> Any:
        """A value by dotted key; "-" and "_" are the same, as in dask."""
        node: Any = self.values
        for part in dotted.split("."):
            if not isinstance(node, dict):
                return default
            for key in (part, part.replace("-", "_"), part.replace("_", "-")):
                if key in node:
                    node = node[key]
                    break
            else:
                return default
        return node

    def has(self, dotted: str) -> bool:
        marker = object()
        return self.get(dotted, marker) is not marker


def read(env: Optional[Any] = None) -> DaskConfig:
    env = os.environ if env is None else env
    values: dict = {}
    errors: list = []
    files = config_files(search_path())
    used = []
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue  # dask ignores unreadable files too
        except UnicodeDecodeError as exc:
            errors.append(f"Dask config file {path}: not UTF-8 text ({exc.reason})")
            continue
        try:
            data = load_yaml(text, f"Dask config file {path}")
        except DocumentError as exc:
            errors.append(str(exc))
            continue
        if data is None:
            continue
        if not isinstance(data, dict):
            errors.append(f"Dask config file {path}: the top level is a "
                          f"{type(data).__name__}, not a mapping")
            continue
        _update(values, data)
        used.append(path)
    try:
        _update(values, _collect_env(env))
    except Exception as exc:  # e.g. DASK_INTERNAL_INHERIT_CONFIG that does not decode
        errors.append(f"Dask configuration from DASK_* environment variables: {exc}")
    return DaskConfig(values, used, errors)
