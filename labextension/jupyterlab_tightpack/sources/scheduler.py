"""Source 1: the in-cluster tightpack scheduler's snapshot endpoint.

The endpoint (the scheduler daemon, not built yet) answers the snapshot envelope without
``source`` and ``fetchedAt``; a bare v1 List is accepted too.
"""

from __future__ import annotations

from ..envelope import Snapshot, from_document
from ..fetch import get_json


async def fetch(url: str, timeout: float) -> Snapshot:
    document = await get_json(url, what="tightpack scheduler", timeout=timeout)
    return from_document(document, f"tightpack scheduler {url}")
