"""The built-in demo's data: a DaskHub on GKE.

``cluster.json`` and ``pools.json`` are examples/daskhub-gke/cluster.json and pools.yaml,
``scheduler-configuration.json`` is config/z2jh-user-scheduler.yaml (zero-to-jupyterhub's
user-scheduler, which a DaskHub runs), all converted to JSON by ``regenerate.py``;
``profiles.json`` holds the demo's published KubeSpawner profiles. The tests check that
the JSON files still match the examples.
"""
