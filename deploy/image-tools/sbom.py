#!/usr/bin/env python3
"""An SPDX 2.3 JSON document for a tightpack image, from the image itself.

    python3 deploy/image-tools/sbom.py --image REGISTRY/tightpack@sha256:... [-o sbom.spdx.json]
        [--cert-dir DIR] [--creds USER:PASSWORD]
    python3 deploy/image-tools/sbom.py --rootfs DIR --config CONFIG.json --digest sha256:... \\
        --repository REGISTRY/tightpack [-o sbom.spdx.json]

--image pulls the image by digest with skopeo (its usual credentials and certificates,
or --cert-dir and --creds) and reads it; the second form reads an image already
unpacked: DIR its one layer, CONFIG its OCI image configuration (`skopeo inspect
--config`), the digest its manifest's. The document says: the
image contains the `tightpack` binary (its SHA-256, version and commit from the
image's OCI labels), the binary statically links the Debian packages of
/var/lib/dpkg/status.d that are development packages (libc6-dev,
libstdc++-12-dev, libssl-dev, ...: deploy/image/linked_packages.sh found them
from the link map and the headers compiled), and the image contains the others
(ca-certificates' bundle). Each Debian package has its purl, so that a
vulnerability database can match it. deploy/test_image.sh writes it with --image
for the image it pushed and validates it with spdx-tools.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import oci_layout  # noqa: E402

BINARY = "usr/local/bin/tightpack"
STATUS_DIR = "var/lib/dpkg/status.d"


def parse_status(text: str, where: str) -> dict:
    """One dpkg status stanza: Field: value lines (continuation lines joined)."""
    fields, last = {}, None
    for line in text.splitlines():
        if line.startswith((" ", "\t")) and last:
            fields[last] += "\n" + line.strip()
        elif ":" in line:
            last, value = line.split(":", 1)
            fields[last] = value.strip()
        elif line.strip():
            raise ValueError(f"{where}: not a dpkg status line: {line!r}")
    for required in ("Package", "Version", "Architecture"):
        if not fields.get(required):
            raise ValueError(f"{where}: no {required} field")
    return fields


def spdx_id(name: str) -> str:
    return "SPDXRef-" + re.sub(r"[^A-Za-z0-9.-]", "-", name)


def sbom(rootfs: Path, config: dict, digest: str, repository: str) -> dict:
    labels = (config.get("config") or {}).get("Labels") or {}
    version = labels.get("org.opencontainers.image.version", "NOASSERTION")
    revision = labels.get("org.opencontainers.image.revision", "NOASSERTION")
    source = labels.get("org.opencontainers.image.source", "NOASSERTION")
    binary = rootfs / BINARY
    if not binary.is_file():
        raise ValueError(f"{binary}: the image has no /{BINARY}")
    statuses = sorted((rootfs / STATUS_DIR).glob("*"))
    if not statuses:
        raise ValueError(f"{rootfs / STATUS_DIR}: no package status entries")
    name = repository.rsplit("/", 1)[-1]
    image = {
        "SPDXID": "SPDXRef-Image",
        "name": name,
        "versionInfo": version,
        "primaryPackagePurpose": "CONTAINER",
        "downloadLocation": "NOASSERTION",
        "filesAnalyzed": False,
        "licenseConcluded": "NOASSERTION",
        "licenseDeclared": labels.get("org.opencontainers.image.licenses", "NOASSERTION"),
        "copyrightText": "NOASSERTION",
        "checksums": [{"algorithm": "SHA256", "checksumValue": digest.removeprefix("sha256:")}],
        "externalRefs": [{
            "referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
            "referenceLocator": f"pkg:oci/{name}@{urllib.parse.quote(digest)}?"
                                f"repository_url={urllib.parse.quote(repository, safe='')}"}],
    }
    tightpack = {
        "SPDXID": "SPDXRef-Binary-tightpack",
        "name": "tightpack",
        "versionInfo": version,
        "primaryPackagePurpose": "APPLICATION",
        "downloadLocation": f"git+{source}@{revision}" if source.startswith("https://") else "NOASSERTION",
        "sourceInfo": f"built from commit {revision} of {source} by deploy/Dockerfile",
        "filesAnalyzed": False,
        "licenseConcluded": "NOASSERTION",
        "licenseDeclared": labels.get("org.opencontainers.image.licenses", "NOASSERTION"),
        "copyrightText": "NOASSERTION",
        "checksums": [{"algorithm": "SHA256", "checksumValue": hashlib.sha256(binary.read_bytes()).hexdigest()}],
    }
    packages, relationships = [image, tightpack], [
        {"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": "SPDXRef-Image"},
        {"spdxElementId": "SPDXRef-Image", "relationshipType": "CONTAINS",
         "relatedSpdxElement": "SPDXRef-Binary-tightpack"},
    ]
    for path in statuses:
        fields = parse_status(path.read_text(), str(path))
        pkg, ver, arch = fields["Package"], fields["Version"], fields["Architecture"]
        source_pkg = fields.get("Source", pkg).split(" ")[0]
        ident = spdx_id(f"deb-{pkg}")
        packages.append({
            "SPDXID": ident,
            "name": pkg,
            "versionInfo": ver,
            "supplier": f"Organization: {fields['Maintainer']}" if fields.get("Maintainer") else "NOASSERTION",
            "downloadLocation": "NOASSERTION",
            "sourceInfo": f"Debian source package {source_pkg}",
            "filesAnalyzed": False,
            "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION",
            "copyrightText": "NOASSERTION",
            "externalRefs": [{
                "referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                "referenceLocator": f"pkg:deb/debian/{pkg}@{urllib.parse.quote(ver, safe='')}?arch={arch}"
                                    f"&distro=debian-12" + (f"&upstream={source_pkg}" if source_pkg != pkg else "")}],
        })
        # A development package's code reaches the image only through the static link.
        linked = fields.get("Section") == "libdevel"
        relationships.append({"spdxElementId": "SPDXRef-Binary-tightpack" if linked else "SPDXRef-Image",
                              "relationshipType": "STATIC_LINK" if linked else "CONTAINS",
                              "relatedSpdxElement": ident})
    created = config.get("created", "1970-01-01T00:00:00Z")
    return {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"{repository}@{digest}",
        "documentNamespace": f"{source}/spdx/{digest.replace(':', '-')}",
        "creationInfo": {
            # The image's own creation time (the commit's with --timestamp): the same
            # image gives the same document.
            "created": re.sub(r"(\.\d+)?(Z|[+-]\d\d:\d\d)$", "Z", created) if created else created,
            "creators": ["Tool: tightpack-deploy-image-sbom.py", "Organization: tightpack"],
        },
        "packages": packages,
        "relationships": relationships,
    }


def pulled(image: str, workdir: Path, cert_dir: str | None, creds: str | None) -> tuple:
    """skopeo copy of REPOSITORY@DIGEST into an OCI layout; its one layer unpacked (members
    checked first); (rootfs, config, digest, repository)."""
    repository, _, digest = image.partition("@")
    if not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
        raise ValueError(f"--image {image!r} is not REPOSITORY@sha256:<64 hex digits> (an SBOM names one image)")
    layout = workdir / "oci"
    options = ["--src-cert-dir", cert_dir] * bool(cert_dir) + ["--src-creds", creds] * bool(creds)
    r = subprocess.run(["skopeo", "copy", "--quiet", *options, f"docker://{image}", f"oci:{layout}:image"],
                       capture_output=True, text=True)
    if r.returncode:
        raise ValueError(f"skopeo copy docker://{image}: {r.stderr.strip()}")
    manifest, config = oci_layout.image(layout, digest)
    try:
        _, tar = oci_layout.layer(layout, manifest)
    except ValueError as e:
        raise ValueError(f"{image}: {e}") from None
    with tar:
        if unsafe := oci_layout.unsafe_members(tar):
            raise ValueError(f"{image}: layer members unsafe to unpack: {unsafe}")
        rootfs = workdir / "rootfs"
        tar.extractall(rootfs, filter="fully_trusted")
    return rootfs, config, digest, repository


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--image", help="REPOSITORY@sha256:DIGEST, pulled with skopeo")
    p.add_argument("--cert-dir", help="with --image: skopeo's --src-cert-dir")
    p.add_argument("--creds", help="with --image: skopeo's --src-creds")
    p.add_argument("--rootfs", type=Path)
    p.add_argument("--config", type=Path)
    p.add_argument("--digest")
    p.add_argument("--repository")
    p.add_argument("-o", "--output", type=Path)
    a = p.parse_args()
    unpacked = (a.rootfs, a.config, a.digest, a.repository)
    if bool(a.image) == any(unpacked) or (not a.image and not all(unpacked)):
        p.error("give --image, or all of --rootfs, --config, --digest and --repository")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            if a.image:
                rootfs, config, digest, repository = pulled(a.image, Path(tmp), a.cert_dir, a.creds)
            else:
                if not re.fullmatch(r"sha256:[0-9a-f]{64}", a.digest):
                    raise ValueError(f"--digest {a.digest!r} is not sha256:<64 hex digits>")
                rootfs, config, digest, repository = a.rootfs, json.loads(a.config.read_text()), a.digest, a.repository
            doc = sbom(rootfs, config, digest, repository)
    except (OSError, ValueError, KeyError) as e:
        print(f"sbom: {e}", file=sys.stderr)
        return 1
    text = json.dumps(doc, indent=1) + "\n"
    if a.output:
        tmp = a.output.with_suffix(a.output.suffix + ".tmp")
        tmp.write_text(text)
        tmp.replace(a.output)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
