#!/usr/bin/env bash
# Times cluster-autoscaler's own loop (cluster-autoscaler-reference) against
# `tightpack autoscale` on the same pool scenarios: the shared autoscaler
# corpus (180) and N generated ones (generate/generate_autoscale.py, default 1000).
#
#   tests/conformance/speed_autoscale.sh [--count N] [--seed S] [--corpus FILE]
#
# Per set of scenarios, one process per program for all lines (no start-up in
# the per-scenario figures):
#   reference, loops      StaticAutoscaler.RunOnce for every simulated loop of
#                         the scenario (--timings, measured inside the process)
#   reference, scenario   the whole line inside the process: decoding, wiring
#                         a fresh autoscaler (processors, test cloud provider,
#                         listers), the loops, the result
#   tightpack, scenario   the whole line in `tightpack autoscale --jsonl`:
#                         decoding, the decision, the result. tightpack prints
#                         no per-line times and answers a pipe only at the end,
#                         so a line's time is t(line twice) - t(line once),
#                         each the best of 3 process runs: start-up cancels out
#   total wall            each program once over the whole file (one process,
#                         start-up included once)
# Environment: TIGHTPACK (default build/release/scheduler/tightpack),
# REFERENCE (default build/conformance/cluster-autoscaler-reference).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tp=${TIGHTPACK:-$root/build/release/scheduler/tightpack}
ref=${REFERENCE:-$root/build/conformance/cluster-autoscaler-reference}
count=1000 seed=speed-1 corpus=$root/../shared/autoscaler/dev.jsonl
while [[ $# -gt 0 ]]; do
  case $1 in
    --count) count=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "speed_autoscale.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -x $tp ]] || { echo "speed_autoscale.sh: no tightpack at $tp" >&2; exit 1; }
[[ -x $ref ]] || "$here/autoscaler-reference/build.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/tightpack-speed-autoscale.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$corpus" "$work/corpus.jsonl"
python3 "$here/generate/generate_autoscale.py" --seed "$seed" --count "$count" -o "$work/generated.jsonl"
echo "speed-autoscale: $("$ref" --version); corpus $(wc -l <"$work/corpus.jsonl") scenarios, generated $count (seed $seed)"
python3 - "$work" "$tp" "$ref" <<'EOF'
import os, statistics, subprocess, sys, time
work, tp, ref = sys.argv[1:4]

def wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t

def tp_line(line):
    one, two = os.path.join(work, "one.jsonl"), os.path.join(work, "two.jsonl")
    open(one, "w").write(line)
    open(two, "w").write(line + line)
    t1 = min(wall([tp, "autoscale", "--jsonl", one]) for _ in range(3))
    t2 = min(wall([tp, "autoscale", "--jsonl", two]) for _ in range(3))
    return max(t2 - t1, 0.0)

def fmt(s):
    return f"{s * 1e3:.2f} ms" if s >= 1e-3 else f"{s * 1e6:.0f} µs"

rows = []
for name in ("corpus", "generated"):
    path = os.path.join(work, name + ".jsonl")
    lines = [l for l in open(path) if l.strip()]
    timings = os.path.join(work, name + ".timings")
    ref_wall = wall([ref, "--jsonl", "--timings", timings, path])
    tp_wall = wall([tp, "autoscale", "--jsonl", path])
    loops, whole = [], []
    for l in open(timings):
        f = l.split()
        loops.append(int(f[2]) / 1e9)
        whole.append(int(f[3]) / 1e9)
    tpl = [tp_line(l) for l in lines]
    rows.append((name, len(lines), statistics.median(loops), sum(loops), statistics.median(whole), sum(whole),
                 statistics.median(tpl), sum(tpl), ref_wall, tp_wall))

print()
print("| scenarios | n | reference loops, median / sum | reference whole line, median / sum | tightpack whole line, median / sum | median ratio (reference whole / tightpack) | total wall, reference / tightpack |")
print("|---|---|---|---|---|---|---|")
for (name, n, lm, ls, wm, ws, tm, ts, rw, tw) in rows:
    ratio = f"{wm / tm:.0f}x" if tm > 0 else "n/a"
    print(f"| {name} | {n} | {fmt(lm)} / {ls:.2f} s | {fmt(wm)} / {ws:.2f} s | {fmt(tm)} / {ts:.2f} s | {ratio} | {rw:.2f} s / {tw:.2f} s |")
EOF
