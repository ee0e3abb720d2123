"""A test double of what a CSI provisioner and the PV controller do for claims that wait for
their first consumer, on the test control plane (no kube-controller-manager and no external
provisioner run there yet; the live cluster of tests/live will have the real ones).

For each claim of the namespace with `volume.kubernetes.io/selected-node` and no volume, after
`delay` seconds: `provision` makes a PV in the selected node's zone (the driver's topology
key) with the claim as its claimRef, and binds the claim to it (volumeName, bind-completed,
phase Bound), as external-provisioner plus the PV controller leave them; `refuse` removes the
selected node (leaving the PV controller's storage-provisioner annotation), as
external-provisioner does when it cannot provision on that node (the scheduler must try
again). For each PV the scheduler bound to a claim (its claimRef set, the
claim not yet bound), the PV controller's part: the claim gets the volume."""

from __future__ import annotations

import threading
import time

from harness import ApiError

SELECTED = "volume.kubernetes.io/selected-node"
ZONE_KEY = "topology.gke.io/zone"


class Provisioner:
    def __init__(self, api, namespace: str, driver: str, mode: str = "provision", delay: float = 0.0):
        self.api, self.ns, self.driver, self.mode, self.delay = api, namespace, driver, mode, delay
        self.seen: dict = {}  # claim name -> monotonic time its selected node was first seen
        self.provisioned: dict = {}  # claim name -> (node, zone, monotonic time)
        self.refused: list = []
        self.made: list = []  # PV names, for cleanup
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=10)
        for pv in self.made:
            self.api.delete(f"/api/v1/persistentvolumes/{pv}")

    def _run(self):
        while not self._stop.wait(0.2):
            try:
                self._step()
            except ApiError:
                pass  # a conflict with the scheduler's own write: next round

    def _step(self):
        claims = self.api.list(f"/api/v1/namespaces/{self.ns}/persistentvolumeclaims")
        for claim in claims:
            name = claim["metadata"]["name"]
            annotations = claim["metadata"].get("annotations") or {}
            if claim["spec"].get("volumeName") and annotations.get("pv.kubernetes.io/bind-completed"):
                continue
            node = annotations.get(SELECTED)
            if node and not claim["spec"].get("volumeName"):
                first = self.seen.setdefault(name, time.monotonic())
                if time.monotonic() - first < self.delay:
                    continue
                if self.mode == "refuse":
                    # The PV controller marked the claim for the driver; the provisioner
                    # then gives up on that node and removes the selected node only.
                    claim["metadata"]["annotations"]["volume.kubernetes.io/storage-provisioner"] = self.driver
                    del claim["metadata"]["annotations"][SELECTED]
                    self.api.put(f"/api/v1/namespaces/{self.ns}/persistentvolumeclaims/{name}", claim)
                    self.refused.append(name)
                    self.seen.pop(name, None)
                    continue
                zone = self.api.get(f"/api/v1/nodes/{node}")["metadata"]["labels"][ZONE_KEY]
                pv_name = f"pvc-{claim['metadata']['uid']}"
                self._make_pv(pv_name, claim, zone)
                self._bind_claim(claim, pv_name)
                self.provisioned[name] = (node, zone, time.monotonic())
        # The PV controller: a volume the scheduler bound to a claim binds the claim.
        for pv in self.api.list("/api/v1/persistentvolumes"):
            ref = pv["spec"].get("claimRef") or {}
            if ref.get("namespace") != self.ns or (pv.get("status") or {}).get("phase") == "Bound":
                continue
            claim = next((c for c in claims if c["metadata"]["name"] == ref.get("name")), None)
            if claim is None or claim["spec"].get("volumeName"):
                continue
            pv["status"] = {"phase": "Bound"}
            self.api.put(f"/api/v1/persistentvolumes/{pv['metadata']['name']}/status", pv)
            self._bind_claim(claim, pv["metadata"]["name"])

    def _make_pv(self, pv_name: str, claim: dict, zone: str):
        spec = claim["spec"]
        pv = self.api.post("/api/v1/persistentvolumes", {
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": pv_name, "annotations": {"pv.kubernetes.io/provisioned-by": self.driver}},
            "spec": {"capacity": {"storage": spec["resources"]["requests"]["storage"]},
                     "accessModes": spec["accessModes"], "persistentVolumeReclaimPolicy": "Delete",
                     "storageClassName": spec.get("storageClassName", ""),
                     "csi": {"driver": self.driver, "volumeHandle": f"disks/{pv_name}", "fsType": "ext4"},
                     "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": self.ns,
                                  "name": claim["metadata"]["name"], "uid": claim["metadata"]["uid"]},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": ZONE_KEY, "operator": "In", "values": [zone]}]}]}}}})
        self.made.append(pv_name)
        pv["status"] = {"phase": "Bound"}
        self.api.put(f"/api/v1/persistentvolumes/{pv_name}/status", pv)

    def _bind_claim(self, claim: dict, pv_name: str):
        name = claim["metadata"]["name"]
        claim["spec"]["volumeName"] = pv_name
        claim["metadata"].setdefault("annotations", {}).update({
            "pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes"})
        updated = self.api.put(f"/api/v1/namespaces/{self.ns}/persistentvolumeclaims/{name}", claim)
        updated["status"] = {"phase": "Bound", "accessModes": claim["spec"]["accessModes"],
                             "capacity": {"storage": claim["spec"]["resources"]["requests"]["storage"]}}
        self.api.put(f"/api/v1/namespaces/{self.ns}/persistentvolumeclaims/{name}/status", updated)
