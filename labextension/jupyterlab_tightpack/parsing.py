"""JSON and YAML documents, with errors that name the document and the line."""

from __future__ import annotations

import json
from typing import Any

import yaml

try:  # libyaml is much faster on a 50,000-pod snapshot
    _YamlLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _YamlLoader = yaml.SafeLoader


class DocumentError(ValueError):
    """A document that is not valid JSON/YAML; the message names it and the line."""


def _yaml_error(name: str, exc: yaml.YAMLError) -> DocumentError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    cause = f"{context}, {problem}" if context else problem
    if mark is not None:
        return DocumentError(
            f"{name}: invalid YAML at line {mark.line + 1}, column {mark.column + 1}: {cause}"
        )
    return DocumentError(f"{name}: invalid YAML: {cause}")


def load_yaml(text: str, name: str) -> Any:
    """One YAML document (JSON is YAML too); DocumentError names ``name`` and the line."""
    try:
        documents = [d for d in yaml.load_all(text, Loader=_YamlLoader)]
    except yaml.YAMLError as exc:
        raise _yaml_error(name, exc) from None
    documents = [d for d in documents if d is not None]
    if len(documents) > 1:
        raise DocumentError(f"{name}: {len(documents)} YAML documents, expected one")
    return documents[0] if documents else None


def load_json(text: str, name: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(
            f"{name}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None


def load_document(text: str, name: str, *, json_only: bool = False) -> Any:
    """JSON when the name ends in .json (or ``json_only``), else YAML; JSON is tried
    first for text that starts like JSON, since the YAML parser is far slower."""
    if json_only or name.lower().endswith(".json"):
        return load_json(text, name)
    if text.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass  # YAML flow style, or an error YAML will locate
    return load_yaml(text, name)
