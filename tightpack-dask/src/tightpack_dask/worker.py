"""The worker preload: tells the scheduler the worker's node as it registers.

    dask worker --preload tightpack_dask.worker ...
    # or dask config:  distributed.worker.preload: [tightpack_dask.worker]

It reads `K8S_NODE_NAME` (set it from the downward API's `spec.nodeName`); the value
reaches the scheduler as the worker's startup information, so the scheduler knows the node
before the worker can be retired. Without this preload the scheduler asks each worker for
the same variable once, just after it registers.
"""

from __future__ import annotations

import os

from tightpack_dask.scheduler import NODE_ENV, NODE_KEY


def dask_setup(worker) -> None:
    worker.startup_information[NODE_KEY] = lambda _worker: os.environ.get(NODE_ENV)
