"""The built-in demo's data: a DaskHub on GKE, as user alice's notebook server sees it.

``cluster.json`` is examples/daskhub-gke/cluster.json; ``pools.json``,
``kubespawner-defaults.json`` (the hub's published KubeSpawner settings, home storage
included) and ``home.json`` (what the scheduler's /home answers alice) are
examples/daskhub-gke/home-disk/; ``scheduler-configuration.json`` is
config/z2jh-user-scheduler.yaml (zero-to-jupyterhub's user-scheduler, which a DaskHub runs);
all converted to JSON by ``regenerate.py``. ``profiles.json`` holds the demo's published
KubeSpawner profiles. The tests check that the JSON files still match the examples.
"""
