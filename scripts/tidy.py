#!/usr/bin/env python3
"""clang-tidy-14 with .clang-tidy's checks over the product's C++ units.

    scripts/tidy.py [-j N] [--build DIR] [FILE ...]

Checks the translation units of core/src and scheduler/src in DIR's
compile_commands.json (default build/release), or the FILEs given, and fails
on any finding. A unit found clean is remembered under DIR/tidy-clean by a key
over .clang-tidy, its compile command and the bytes of its source and of every
header of this repository it includes (ninja's dependency log), so a warm run
checks only what changed; a cold one costs about 5 s of processor per unit.
"""

import argparse
import hashlib
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("core/src/", "scheduler/src/")


def header_deps(build: Path) -> dict:
    """Object file -> the repository files it was compiled from (ninja -t deps)."""
    out = subprocess.run(
        ["ninja", "-C", str(build), "-t", "deps"], capture_output=True, text=True, check=True
    ).stdout
    deps, current = {}, None
    for line in out.splitlines():
        if line and not line.startswith(" "):
            current = line.split(":", 1)[0]
            deps[current] = []
        elif current and line.strip():
            path = (build / line.strip()).resolve()
            if path.is_relative_to(ROOT) and not path.is_relative_to(build.resolve()):
                deps[current].append(path)
    return deps


def unit_key(entry: dict, deps: list, config: bytes) -> str:
    h = hashlib.sha256(config)
    h.update(entry["command"].encode())
    for path in sorted({Path(entry["file"]).resolve(), *deps}):
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(path.read_bytes() if path.exists() else b"(gone)")
    return h.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-j", type=int, default=1, help="units checked at once")
    parser.add_argument("--build", default=str(ROOT / "build/release"))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    build = Path(args.build)
    commands = json.loads((build / "compile_commands.json").read_text())
    wanted = {str(Path(f).resolve()) for f in args.files}
    units = [
        e
        for e in commands
        if (
            str(Path(e["file"]).resolve()) in wanted
            if wanted
            else str(Path(e["file"]).resolve().relative_to(ROOT)).startswith(PRODUCT)
        )
    ]
    if wanted and len(units) != len(wanted):
        found = {str(Path(e["file"]).resolve()) for e in units}
        print("tidy: not in compile_commands.json:", *sorted(wanted - found), file=sys.stderr)
        return 2
    deps = header_deps(build)
    config = (ROOT / ".clang-tidy").read_bytes()
    clean_dir = build / "tidy-clean"
    clean_dir.mkdir(exist_ok=True)

    def check(entry: dict):
        words = entry["command"].split()
        obj = words[words.index("-o") + 1] if "-o" in words else ""
        key = unit_key(entry, deps.get(obj, []), config)
        if (clean_dir / key).exists():
            return entry["file"], None
        r = subprocess.run(
            ["clang-tidy-14", "-p", str(build), "--quiet", entry["file"]],
            capture_output=True,
            text=True,
        )
        findings = [line for line in r.stdout.splitlines() if ": warning: " in line or ": error: " in line]
        if r.returncode == 0 and not findings:
            (clean_dir / key).touch()
            return entry["file"], None
        return entry["file"], r.stdout.strip() or r.stderr.strip()

    failed = 0
    with ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        for _file, problem in pool.map(check, units):
            if problem:
                failed += 1
                print(problem)
    status = "clean" if not failed else f"{failed} with findings"
    print(f"tidy: {len(units)} units of {', '.join(PRODUCT)}: {status}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
