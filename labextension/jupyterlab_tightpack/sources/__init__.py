"""The snapshot sources, tried in order: scheduler, kubernetes, file, demo."""
