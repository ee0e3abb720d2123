"""The server extension's tests: pytest on a real jupyter_server, with the fixtures of
../../conftest.py. They read the repository's examples/ and config/, so they run from a
clone (docs/sidebar-server.md), and the wheel leaves them out."""
