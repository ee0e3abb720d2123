#!/usr/bin/env python3
"""One version of each Go module across the Go builds that share a build cache.

A test run builds several Go programs from their own modules: the test control plane (Kubernetes
v1.37.2 and etcd), its provisioner, kube-scheduler v1.37.2's framework for conformance, Helm, cyclonus' NetworkPolicy
matcher, kwok and the image's registry. Go compiles a package once per distinct input, and a package's input
includes its dependencies' compiled output: if two modules resolve golang.org/x/text or
k8s.io/api to different versions, everything above them compiles twice. On a fresh machine that
was most of Helm's and kwok's builds (k8s.io/api alone is 13 MB of Go).

    scripts/go_versions.py          checks: every module these builds share resolves to one
                                    version; names each that does not, with the version per build
    scripts/go_versions.py --align  raises each build's requirement to the newest version any of
                                    them needs (go mod edit -require, go mod tidy), until they agree

Left apart on purpose: cluster-autoscaler (its own Kubernetes release, v0.35, as its master pins),
kube-scheduler v1.30.14 (zero-to-jupyterhub's) and the tools that build nothing shared.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Each build's module folder and the packages its script builds (the script named beside it).
SHARED = {
    "tests/controlplane": ("./cmd/etcd", "k8s.io/kubernetes/cmd/kube-apiserver", "k8s.io/kubernetes/cmd/kube-scheduler",
                           "k8s.io/kubernetes/cmd/kube-controller-manager"),  # tests/controlplane/build.sh
    "tests/controlplane/provisioner": (".",),  # tests/controlplane/build.sh
    "tests/conformance/reference": (".",),  # tests/conformance/reference/build.sh
    "deploy/helm/tools": ("helm.sh/helm/v4/cmd/helm",),  # deploy/helm/build_helm.sh
    "deploy/helm/netpol": (".",),  # deploy/helm/build_netpol_judge.sh
    "tests/live/kwok": ("sigs.k8s.io/kwok/cmd/kwok",),  # tests/live/build.sh
    "deploy/image-tools": ("./registry",),  # deploy/image-tools/build_registry.sh
}


def go(directory: Path, *args: str) -> str:
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOWORK": "off"}
    r = subprocess.run(["go", *args], cwd=directory, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"go_versions: `go {' '.join(args)}` in {directory.relative_to(ROOT)} failed:\n{r.stderr[-2000:]}")
    return r.stdout


def build_list(directory: Path, packages: tuple[str, ...]) -> dict[str, str]:
    """The version of each module whose packages the build compiles (a replacement's, where one is)."""
    out = go(directory, "list", "-deps", "-f",
             "{{with .Module}}{{if not .Main}}{{.Path}} {{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}"
             "{{end}}{{end}}", *packages)
    return dict(line.split(" ", 1) for line in sorted(set(out.splitlines())) if " " in line)


def semver_key(v: str) -> tuple:
    """Go's semantic version order (golang.org/x/mod/semver.Compare) for the forms modules use."""
    core, _, pre = v.lstrip("v").partition("+")[0].partition("-")
    nums = tuple(int(x) for x in core.split("."))
    # a release sorts after its pre-releases; pseudo-versions are pre-releases
    pre_key = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")) if pre else ((2, 0, ""),)
    return nums, pre_key


def disagreements(lists: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    modules: dict[str, dict[str, str]] = {}
    for where, versions in lists.items():
        for path, version in versions.items():
            modules.setdefault(path, {})[where] = version
    return {path: per for path, per in sorted(modules.items()) if len(set(per.values())) > 1}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--align", action="store_true", help="raise requirements until the builds agree")
    args = parser.parse_args()
    for _ in range(10 if args.align else 1):
        lists = {where: build_list(ROOT / where, packages) for where, packages in SHARED.items()}
        differ = disagreements(lists)
        if not differ:
            print(f"go_versions: {len(SHARED)} Go builds agree on every module they share")
            return 0
        if not args.align:
            for path, per in differ.items():
                print(f"go_versions: {path}: " + ", ".join(f"{v} in {w}" for w, v in sorted(per.items())),
                      file=sys.stderr)
            print(f"go_versions: {len(differ)} modules resolve to different versions; "
                  "scripts/go_versions.py --align raises them to the newest", file=sys.stderr)
            return 1
        for where in SHARED:
            edits = []
            replaced = set(go(ROOT / where, "list", "-m", "-f", "{{if .Replace}}{{.Path}}{{end}}", "all").split())
            for path, per in differ.items():
                target = max(per.values(), key=semver_key)
                if where in per and per[where] != target:
                    # a replaced module (Kubernetes' staging repositories) is raised in its replace
                    edits.append(f"-replace={path}={path}@{target}" if path in replaced
                                 else f"-require={path}@{target}")
            if edits:
                go(ROOT / where, "mod", "edit", *edits)
                go(ROOT / where, "mod", "tidy")
    print("go_versions: still differing after 10 rounds", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
