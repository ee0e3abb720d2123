"""The Dask side of a Dask operator cluster, where no kubelet runs: distributed's real Scheduler,
with tightpack-dask's scheduler preload and the HTTP API the operator calls, and real Workers,
one per worker pod the test says runs, named as the operator names them (the Deployment's name,
DASK_WORKER_NAME) and on the pod's node (what K8S_NODE_NAME would say). Run by
tests/scheduler/test_moves.py with the clients' Python (distributed as the operator's image has
it) and tightpack-dask from the source tree:

    python dask_side.py DIR

DIR holds what the test writes: config.json (the namespace and cluster, the daemon's URL, CA and
token file), workers.json ({name: node}: the pods running; a name gone is a pod deleted, its
Worker closed), compute.json ({key: worker name}: a megabyte computed on that worker and held);
and what this writes: addresses.json (the scheduler Service's addresses, for the operator's
networking double) and state.json every 0.3 s (workers, where each key is held, how many times
each was computed, the drain's paused workers).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import dask
from distributed import Client, Scheduler, Worker


def block(i: int) -> bytes:
    return bytes([i % 256]) * 1_000_000


def read(path: Path, default):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return default


def write(path: Path, value) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value))
    tmp.replace(path)


async def main(directory: Path) -> None:
    config = json.loads((directory / "config.json").read_text())
    dask.config.set({
        "distributed.scheduler.http.routes": ["distributed.http.scheduler.api", "distributed.http.health"],
        "tightpack.retire.hints-url": config["hintsUrl"],
        "tightpack.retire.hints-token-file": config["tokenFile"],
        "tightpack.retire.hints-ca-file": config["caFile"],
        "tightpack.retire.hints-interval": "1s",
        "tightpack.retire.hints-max-age": "20s",
        "tightpack.moves.check-interval": "500ms",
        "tightpack.moves.drain-timeout": "60s",
    })
    async with Scheduler(host="127.0.0.1", port=0, dashboard_address="127.0.0.1:0",
                         preload=["tightpack_dask.scheduler"]) as s:
        service = f"{config['namespace']}/{config['cluster']}-scheduler"
        write(directory / "addresses.json", {service: {
            "http-dashboard": f"http://127.0.0.1:{s.http_server.port}", "tcp-comm": s.address}})
        async with Client(s.address, asynchronous=True) as client:
            workers: dict[str, Worker] = {}
            held = {}
            while True:
                wanted = read(directory / "workers.json", {})
                for name, node in wanted.items():
                    if name not in workers:
                        w = Worker(s.address, name=name, nthreads=1, host="127.0.0.1")
                        w.startup_information["k8s-node"] = lambda _w, node=node: node
                        workers[name] = await w
                for name in [n for n in workers if n not in wanted]:
                    await workers.pop(name).close()
                by_name = {ws.name: ws.address for ws in s.workers.values()}
                for key, name in read(directory / "compute.json", {}).items():
                    if key not in held and name in by_name:
                        held[key] = client.submit(block, len(held), key=key, workers=[by_name[name]],
                                                  allow_other_workers=False, pure=False)
                names = {ws.address: ws.name for ws in s.workers.values()}
                write(directory / "state.json", {
                    "workers": {ws.name: {"status": ws.status.name, "processing": len(ws.processing)}
                                for ws in s.workers.values()},
                    "keys": {key: sorted(names.get(w.address, w.address) for w in (s.tasks[key].who_has or ()))
                             for key in held if key in s.tasks},
                    "states": {key: s.tasks[key].state for key in held if key in s.tasks},
                    "computed": {key: sum(1 for t in s.story(key) if t[0] == key and t[2] == "processing")
                                 for key in held},
                })
                await asyncio.sleep(0.3)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
