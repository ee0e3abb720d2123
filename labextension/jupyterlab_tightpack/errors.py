"""The two ways a snapshot source can fail."""

from __future__ import annotations


class SourceError(Exception):
    """The chosen source failed: the message names what failed (URL, path, line) and why.

    The snapshot endpoint answers 502 with this message.
    """


class SourceUnusable(Exception):
    """The source exists but may not be used (the Kubernetes API answered 401 or 403).

    The snapshot endpoint moves to the next source and keeps this message as a note.
    """
