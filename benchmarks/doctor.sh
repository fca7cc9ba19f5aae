#!/usr/bin/env bash
# Benchmark: `richpush doctor --json` on a generated 5 MB project.pbxproj with 20 targets (issue 20),
# against PyPI pbxproj (`XcodeProject.load`) and openstep-parser (`OpenStepDecoder.ParseFromFile`)
# loading the same file in the same run. Each is run ROUNDS times, alternating; the figures are
# the median wall time, the median CPU time (user + system: what the work costs when the machine
# is shared, as wall time then mostly measures waiting for a core), the largest peak RSS
# (/usr/bin/time -v, "Maximum resident set size"), and the Python tools' medians as multiples of
# richpush's. The doctor does more than parse: it resolves every target's Release settings, reads
# the Info.plist and entitlements files and runs every check. The load average is printed too.
#
# Usage: bash benchmarks/doctor.sh [--rounds 3] [--bytes 5000000] [--targets 20]
#        RICHPUSH_BIN=path (default: builds the release richpush)
# Needs: python3 with openstep-parser and pbxproj (scripts/install-deps.sh), /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=3; BYTES=5000000; TARGETS=20
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) ROUNDS=$2; shift 2;;
    --bytes) BYTES=$2; shift 2;;
    --targets) TARGETS=$2; shift 2;;
    *) echo "unknown option $1" >&2; exit 64;;
  esac
done
BIN="${RICHPUSH_BIN:-}"
if [ -z "$BIN" ]; then
  swift build -c release --product richpush 2>&1 | tail -n 1
  BIN="$(swift build -c release --show-bin-path)/richpush"
fi
python3 -c "import openstep_parser, pbxproj" 2>/dev/null || { echo "doctor.sh: pip install openstep-parser pbxproj (scripts/install-deps.sh)" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/richpush-doctor-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
python3 Tests/Fixtures/xcode/make_fixtures.py --large "$work/project" --targets "$TARGETS" --bytes "$BYTES"
proj="$work/project/Large.xcodeproj"

# measure NAME COMMAND...: appends "NAME seconds kilobytes" to $work/runs
measure() {
  local name=$1; shift
  /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" || {
    local status=$?
    # richpush doctor exits 1 for the 17 apps without an extension: that is its answer, not a failure.
    if [ "$name" != "richpush-doctor" ] || [ "$status" -ne 1 ]; then cat "$work/err.txt" >&2; exit 1; fi
  }
  local wall kb cpu
  cpu=$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { print s }' "$work/time.txt")
  wall=$(sed -n 's/^\s*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
  kb=$(sed -n 's/^\s*Maximum resident set size (kbytes): //p' "$work/time.txt")
  echo "$name $wall $kb $cpu" >> "$work/runs"
}

for _ in $(seq 1 "$ROUNDS"); do
  measure richpush-doctor "$BIN" doctor --json "$proj"
  python3 -c "import json; d = json.load(open('$work/out.txt')); assert len(d['targets']) == $TARGETS, len(d['targets'])"
  measure pbxproj-load python3 -c "from pbxproj import XcodeProject; p = XcodeProject.load('$proj/project.pbxproj'); print(len(p.objects.get_keys()))"
  measure openstep-parser python3 -c "from openstep_parser import OpenStepDecoder; d = OpenStepDecoder.ParseFromFile(open('$proj/project.pbxproj')); print(len(d['objects']))"
done

python3 - "$work/runs" "$proj/project.pbxproj" "$TARGETS" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import os, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, wall, kb, cpu = line.split()
    runs.setdefault(name, []).append((float(wall), int(kb), float(cpu)))
size = os.path.getsize(sys.argv[2])
print(f"project.pbxproj: {size} bytes, {sys.argv[3]} targets; {len(runs['richpush-doctor'])} rounds; load average {sys.argv[4]}")
base_wall = statistics.median(r[0] for r in runs["richpush-doctor"])
base_cpu = statistics.median(r[2] for r in runs["richpush-doctor"])
print(f"{'tool':<18}{'wall s':>8}{'CPU s':>8}{'peak RSS MB':>13}{'wall ×':>8}{'CPU ×':>8}")
for name in ("richpush-doctor", "pbxproj-load", "openstep-parser"):
    wall = statistics.median(r[0] for r in runs[name])
    cpu = statistics.median(r[2] for r in runs[name])
    peak = max(r[1] for r in runs[name]) / 1024
    print(f"{name:<18}{wall:>8.2f}{cpu:>8.2f}{peak:>13.1f}{wall / base_wall:>8.1f}{cpu / base_cpu:>8.1f}")
PY
