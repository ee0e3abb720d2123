"""jupyterlab-tightpack: the tightpack sidebar for JupyterLab 4 and its server extension.

The server extension serves the sidebar its cluster snapshot (/tightpack/snapshot) and the
worker templates the user may start (/tightpack/templates); see docs/sidebar-server.md.
In a notebook, ``preview(target, n)`` draws where n workers of target would land, and
``%load_ext jupyterlab_tightpack`` adds ``%tightpack target n`` (docs/notebook.md).
"""

from __future__ import annotations

from .notebook import Preview, preview

__all__ = ["Preview", "preview"]

try:
    from ._version import __version__
except ImportError:  # not built yet: the lead's pyproject writes _version.py
    __version__ = "0.0.0.dev0"


def load_ipython_extension(ipython) -> None:  # type: ignore[no-untyped-def]
    """``%load_ext jupyterlab_tightpack``: the ``%tightpack TARGET N`` magic (magic.py)."""
    from .magic import register

    register(ipython)


def _jupyter_labextension_paths() -> list:
    return [{"src": "labextension", "dest": "jupyterlab-tightpack"}]


def _jupyter_server_extension_points() -> list:
    return [{"module": "jupyterlab_tightpack"}]


def _load_jupyter_server_extension(server_app) -> None:  # type: ignore[no-untyped-def]
    """Register the handlers; configuration is ``c.TightpackConfig.<name>``."""
    from .config import TightpackConfig
    from .handlers import setup_handlers

    config = TightpackConfig(parent=server_app)
    snapshots = setup_handlers(server_app.web_app, config)
    snapshots.log = server_app.log
    server_app.log.info(
        "jupyterlab_tightpack: /tightpack/snapshot and /tightpack/templates registered")
