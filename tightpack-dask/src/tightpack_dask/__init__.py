"""tightpack-dask: retire Dask workers so that whole Kubernetes nodes empty.

Preloads: `tightpack_dask.scheduler` (the choice) and `tightpack_dask.worker` (each
worker's node). README.md says how to enable them under the dask-kubernetes operator and
dask-gateway.
"""

__version__ = "0.1.0"
