"""``%tightpack TARGET N [--profile NAME]``: preview() as an IPython line magic.

After ``%load_ext jupyterlab_tightpack``, ``%tightpack cluster 20`` displays
``preview(cluster, 20)``: TARGET and N are Python expressions in the notebook's namespace
(a variable, ``make_cluster_spec(...)``, a quoted profile name), so the magic adds no
syntax of its own beside ``--profile``.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from .notebook import preview

USAGE = ("%tightpack TARGET N [--profile NAME]: TARGET and N are Python expressions "
         "(cluster, spec, \"GPU notebook (T4)\"; 20), NAME a scheduler profile")

# The last word is N unless --profile follows it; TARGET is everything before.
_LINE = re.compile(r"^\s*(?P<target>.+?)\s+(?P<n>\S+)"
                   r"(?:\s+--profile(?:=|\s+)(?P<profile>\S+))?\s*$")


def register(ipython: Any) -> None:
    from IPython.core.error import UsageError

    def tightpack(line: str) -> None:
        found = _LINE.match(line)
        if not found:
            raise UsageError(f"%tightpack {line.strip()!r}: expected {USAGE}")
        try:
            target = ipython.ev(found["target"])
            n = ipython.ev(found["n"])
        except SyntaxError as exc:
            raise UsageError(f"%tightpack {line.strip()!r}: {exc.msg} in "
                             f"{exc.text!r}; expected {USAGE}") from None
        shown = preview(target, n, found["profile"])
        if inspect.isawaitable(shown):
            # A magic's result is not awaited (IPython's autoawait is for cells).
            shown.close()
            raise UsageError(f"%tightpack {line.strip()!r}: the cluster is asynchronous; "
                             f"write `await preview({found['target']}, {found['n']})`")
        # Shown where the line is, as a command's answer: a cell of several magics
        # draws each, not only the last line's value.
        from IPython.display import display

        display(shown)

    tightpack.__doc__ = USAGE
    ipython.register_magic_function(tightpack, "line", "tightpack")
