"""Test doubles the server extension's tests share: local servers on 127.0.0.1 only."""

from __future__ import annotations

import tornado.web


class FakeGateway(tornado.web.RequestHandler):
    """Test double of a dask-gateway server's cluster options endpoint."""

    def initialize(self, seen):
        self.seen = seen

    def get(self):
        self.seen.append(self.request.headers.get("Authorization"))
        self.finish({"cluster_options": [
            {"field": "worker_cores", "label": "Worker Cores", "default": 2,
             "spec": {"type": "int", "min": 1, "max": 8}},
            {"field": "worker_memory", "label": "Worker Memory (GiB)", "default": 4,
             "spec": {"type": "float", "min": 1, "max": 32}},
            {"field": "image", "label": "Image", "default": "pangeo/pangeo-notebook:2024.12.1",
             "spec": {"type": "string"}},
            {"field": "environment", "label": "Environment", "default": {"A": "1"},
             "spec": {"type": "mapping"}},
        ]})
