"""Reading an image out of an OCI image layout (what `skopeo copy ... oci:DIR:REF` writes):
its manifest, configuration and one layer, every blob checked against its digest, the layer's
members checked before anything is unpacked. sbom.py and deploy/test_image.sh use it."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path


def blob(layout: Path, digest: str) -> bytes:
    algorithm, hexdigest = digest.split(":", 1)
    data = (Path(layout) / "blobs" / algorithm / hexdigest).read_bytes()
    if algorithm != "sha256" or hashlib.sha256(data).hexdigest() != hexdigest:
        raise ValueError(f"blob {digest} does not match its digest")
    return data


def manifest_digest(layout: Path, ref: str) -> str:
    """The digest of the manifest tagged REF (org.opencontainers.image.ref.name) in the layout."""
    index = json.loads((Path(layout) / "index.json").read_text())
    for m in index["manifests"]:
        if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == ref:
            return m["digest"]
    raise ValueError(f"{layout}: no manifest tagged {ref!r}")


def image(layout: Path, digest: str) -> tuple:
    """(manifest, configuration) of the manifest DIGEST."""
    manifest = json.loads(blob(layout, digest))
    return manifest, json.loads(blob(layout, manifest["config"]["digest"]))


def layer(layout: Path, manifest: dict) -> tuple:
    """(uncompressed bytes, tarfile) of the image's one layer."""
    if len(manifest["layers"]) != 1:
        raise ValueError(f"{len(manifest['layers'])} layers; a tightpack image has one")
    descriptor = manifest["layers"][0]
    data = blob(layout, descriptor["digest"])
    raw = gzip.decompress(data) if descriptor["mediaType"].endswith("gzip") else data
    return raw, tarfile.open(fileobj=io.BytesIO(raw))


def unsafe_members(tar: tarfile.TarFile) -> list:
    """Members that would land outside the folder they are unpacked in, or device files."""
    unsafe = []
    for m in tar.getmembers():
        name = m.name.removeprefix("./")
        if name.startswith("/") or ".." in name.split("/") or m.isdev() or \
                (m.issym() and m.linkname.startswith("..")):
            unsafe.append(m.name)
    return unsafe
