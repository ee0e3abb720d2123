"""Write the demo's JSON files from the repository's examples.

    python -m jupyterlab_tightpack.demo.regenerate      # from labextension/, PyYAML installed

profiles.json is written by hand and left alone.
"""

from __future__ import annotations

import json
import pathlib

import yaml

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]

EXAMPLE = REPO / "examples" / "daskhub-gke"
SOURCES = {
    "cluster.json": EXAMPLE / "cluster.json",
    # The demo's moment (examples/daskhub-gke/home-disk/README.md): the T4 pool at its max
    # size, a second T4 pool in another zone, and the user's home disk.
    "pools.json": EXAMPLE / "home-disk" / "pools.yaml",
    "kubespawner-defaults.json": EXAMPLE / "home-disk" / "kubespawner-defaults.yaml",
    "home.json": EXAMPLE / "home-disk" / "home.json",
    # What the tightpack scheduler publishes: its own configuration (the chart's default).
    "scheduler-configuration.json": REPO / "config" / "tightpack.yaml",
}


def converted(source: pathlib.Path) -> object:
    text = source.read_text(encoding="utf-8")
    return json.loads(text) if source.suffix == ".json" else yaml.safe_load(text)


def main() -> None:
    for name, source in SOURCES.items():
        target = HERE / name
        target.write_text(json.dumps(converted(source), indent=1) + "\n", encoding="utf-8")
        print(f"{source.relative_to(REPO)} -> {target.relative_to(REPO)}")


if __name__ == "__main__":
    main()
