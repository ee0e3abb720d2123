"""Source 3: a snapshot file, JSON or YAML, a bare v1 List or the snapshot envelope."""

from __future__ import annotations

import asyncio

from ..envelope import Snapshot, from_document
from ..errors import SourceError
from ..parsing import DocumentError, load_document


def _read(path: str) -> Snapshot:
    name = f"snapshot file {path}"
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise SourceError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise SourceError(f"{name}: is a directory") from None
    except UnicodeDecodeError as exc:
        raise SourceError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise SourceError(f"{name}: {exc.strerror or exc}") from None
    try:
        document = load_document(text, name)
    except DocumentError as exc:
        raise SourceError(str(exc)) from None
    return from_document(document, name)


async def fetch(path: str) -> Snapshot:
    # Parsing a large YAML file takes a while: keep the server's event loop free.
    return await asyncio.get_running_loop().run_in_executor(None, _read, path)
