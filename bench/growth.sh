#!/usr/bin/env bash
# How the cost of our jobs grows with the work (issue 21, section 4). Prints one table per job:
#
#   --prometheus and --apply over 1, 8, 32 and 64 loop devices: wall time (median of REPEAT
#       runs), the peak RSS (VmHWM, the largest of REPEAT runs under GNU time), and the
#       threads the process made (clone calls, from strace -f);
#   --surface-quick on sparse loop devices of 64 GiB to 2 TiB: peak RSS and wall time;
#   --bench at depth 32 (2 MiB blocks) and at depth 1: peak RSS.
#
# The devices are loop devices over sparse files in $WORKDIR (holes read as zeros, so the
# quick scans cost no disk), all detached and deleted at the end. Needs root, losetup, strace,
# GNU time (/usr/bin/time: the peak RSS).
# "Ours" is the shipped binary (built here with scripts/build-release).
#
# Settings (environment): WORKDIR=/tmp, REPEAT=5, COUNTS="1 8 32 64",
# SIZES_GIB="64 256 1024 2048".
set -euo pipefail

WORKDIR=${WORKDIR:-/tmp}
REPEAT=${REPEAT:-5}
COUNTS=${COUNTS:-"1 8 32 64"}
SIZES_GIB=${SIZES_GIB:-"64 256 1024 2048"}
here=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "growth.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (loop devices)"
for tool in losetup strace python3 /usr/bin/time; do command -v "$tool" >/dev/null || die "$tool is not installed"; done
ours=$(cd "$here" && scripts/build-release --quiet)

scratch=$(mktemp -d "$WORKDIR/hdparm-rs-growth.XXXXXX")
loops=()
cleanup() {
  for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
  for l in "${loops[@]}"; do rm -f "/run/hdparm/$(basename "$l").json"; done
  rm -rf "$scratch"
}
trap cleanup EXIT INT TERM

attach() { # attach SIZE: a loop device over a new sparse file of SIZE (truncate's units)
  local f
  f=$(mktemp "$scratch/img.XXXXXX")
  truncate -s "$1" "$f"
  loops+=("$(losetup -f --show --direct-io=on "$f")")
}

# measure LABEL COMMAND...: median wall seconds of REPEAT runs, the largest peak RSS, and
# the clone calls of one more run under strace -f.
measure() {
  local label=$1; shift
  python3 - "$REPEAT" "$scratch/strace" "$label" "$@" <<'PY'
import os, resource, statistics, subprocess, sys, time
repeat, trace, label, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
walls, rss = [], 0
for _ in range(repeat):
    start = time.monotonic()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    walls.append(time.monotonic() - start)
# The peak RSS from GNU time, a small C program: the rusage of a child that python forks
# would count python's own pages, shared until the exec.
for _ in range(repeat):
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", trace + ".rss"] + argv,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rss = max(rss, int(open(trace + ".rss").read().split()[-1]))
subprocess.run(["strace", "-f", "-qq", "-e", "trace=clone,clone3", "-o", trace] + argv,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
clones = sum(1 for line in open(trace) if "clone" in line and "resumed" not in line)
print(f"{label:<34} {statistics.median(walls) * 1e3:>10.1f} ms {rss / 1024:>9.1f} MiB {clones:>8}")
PY
}

header() { printf '\n%-34s %13s %13s %8s\n' "$1" "wall (median)" "peak RSS" "threads"; }

header "--prometheus, loop devices"
for n in $COUNTS; do
  while [ "${#loops[@]}" -lt "$n" ]; do attach 64M; done
  measure "$n devices" "$ours" --prometheus "${loops[@]:0:$n}"
done

header "--apply, loop devices"
for n in $COUNTS; do
  conf="$scratch/hdparm.conf"
  : >"$conf"
  for l in "${loops[@]:0:$n}"; do printf '%s {\n\tread_ahead_sect = 256\n}\n' "$l" >>"$conf"; done
  measure "$n devices" "$ours" --apply --config "$conf" "${loops[@]:0:$n}"
done
for l in "${loops[@]}"; do losetup -d "$l"; done
loops=()

header "--surface-quick, one sparse device"
for g in $SIZES_GIB; do
  attach "${g}G"
  measure "$g GiB" "$ours" --surface-quick "${loops[-1]}"
  losetup -d "${loops[-1]}"
  unset 'loops[-1]'
done

header "--bench (2 s trial), one 1 GiB device"
attach 1G
measure "depth 32, 2 MiB blocks" "$ours" --bench --bench-trials 1 --bench-seconds 2 --bench-depth 32 "${loops[-1]}"
measure "depth 1, 2 MiB blocks" "$ours" --bench --bench-trials 1 --bench-seconds 2 --bench-depth 1 "${loops[-1]}"
measure "depth 32, 4 KiB random" "$ours" --bench --bench-trials 1 --bench-seconds 2 --bench-depth 32 --bench-bs 4K --bench-random "${loops[-1]}"
