#!/usr/bin/env bash
# Compares our read timings with the reference tools on a loop device, in one go:
#   our -T            vs  hdparm -T
#   our -t            vs  hdparm -t
#   our --direct -t   vs  hdparm --direct -t
#   our --bench (one trial, depth 32, 2 MiB blocks, sequential)
#                     vs  fio --ioengine=io_uring --direct=1 --bs=2M --iodepth=32 --rw=read --time_based
# The two tools alternate (and swap which goes first every round) for ROUNDS rounds. The runs
# go to a results file (case, tool, MiB/s, bytes, CPU seconds, round) that tools/bench-report
# reads with hdparm-rs's own statistics (src/stats, as --experiment uses them): per case each
# tool's mean ± σ with the 95% interval of its mean, median, min … max and CPU seconds per GiB
# (user + system of the whole process, from bash's `time`), outlier runs flagged with their
# round, and the ratio ours / theirs with its 95% bootstrap interval, judged against the
# target (-T, -t, --direct: 0.95–1.05 of hdparm; --bench QD32: at least 0.97 of fio).
#
# "Ours" is the shipped binary, target/release/hdparm (built here with cargo build --release).
#
# Needs root (run it from a root shell: it never calls sudo), losetup, hdparm, fio, python3.
# Never touches any device but the loop device it
# creates over a file in $WORKDIR (default /tmp), which it detaches and deletes at the end.
#
# Settings (environment): ROUNDS=4 (kept even: on this machine the first and the second run of a
# round differ by up to 30% whichever tool it is, so each tool must go first equally often), SIZE_MIB=1024, SECONDS_PER_RUN=3 (fio runtime and our
# trial length), WORKDIR=/tmp, CASES="T t dt depth", KEEP_RESULTS=FILE (keep the raw runs).
set -euo pipefail

ROUNDS=${ROUNDS:-4}
if [ $((ROUNDS % 2)) -ne 0 ]; then
  ROUNDS=$((ROUNDS + 1))
  echo "ROUNDS made even ($ROUNDS): each tool goes first equally often" >&2
fi
SIZE_MIB=${SIZE_MIB:-1024}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
WORKDIR=${WORKDIR:-/tmp}
CASES=${CASES:-"T t dt depth"}

here=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "compare.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (loop devices)"
for tool in losetup hdparm fio python3; do command -v "$tool" >/dev/null || die "$tool is not installed"; done

target_dir=${CARGO_TARGET_DIR:-$here/target}
(cd "$here" && cargo build --release --quiet --bin hdparm)
ours_bin="$target_dir/release/hdparm"
theirs_hdparm=$(command -v hdparm)
echo "ours:   $ours_bin"
echo "theirs: $theirs_hdparm ($("$theirs_hdparm" -V)), $(fio --version)"

scratch=$(mktemp -d "$WORKDIR/hdparm-rs-compare.XXXXXX")
loopdev=""
cleanup() {
  [ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT INT TERM

# Real data, not a sparse file: reading holes would measure nothing.
dd if=/dev/urandom of="$scratch/backing.img" bs=1M count="$SIZE_MIB" status=none
loopdev=$(losetup -f --show --direct-io=on "$scratch/backing.img")
echo "device: $loopdev over $SIZE_MIB MiB file (direct-io=$(cat /sys/block/"$(basename "$loopdev")"/loop/dio))"
echo "rounds: $ROUNDS, $SECONDS_PER_RUN s per fio/bench run"
# One direct pass over the device first, so the first tool of round 1 does not pay alone for
# whatever caches sit below the loop device.
dd if="$loopdev" of=/dev/null bs=2M iflag=direct status=none
echo

results="$scratch/results.txt"
: >"$results"

# run CASE TOOL COMMAND...: runs it, records "case tool mib_per_s bytes cpu_seconds round".
run() {
  local case=$1 tool=$2; shift 2
  local out="$scratch/out" err="$scratch/err" tf="$scratch/time"
  local TIMEFORMAT='%U %S'
  { time "$@" >"$out" 2>"$err"; } 2>"$tf" || { echo "FAILED: $*" >&2; cat "$err" >&2; return 1; }
  python3 - "$case" "$tool" "$out" "$tf" "$round" >>"$results" <<'PY'
import json, re, sys
case, tool, out, tf, round_ = sys.argv[1:6]
text = open(out).read()
user, system = (float(x) for x in open(tf).read().split())
if tool == "fio":
    job = json.loads(text[text.index("{"):])["jobs"][0]["read"]
    nbytes = job["io_bytes"]
    rate = job["bw_bytes"] / 2**20
elif case == "depth":
    # The --json envelope: the bench report is the device's timing entry.
    rep = json.loads(text[text.index("{"):])["devices"][0]["timing"][0]
    nbytes = sum(t["bytes"] for t in rep["trials"])
    rate = rep["mean_mib_per_second"]
else:
    m = re.search(r"(\d+) MB in +([\d.]+) seconds = +([\d.]+) (MB|kB)/sec", text)
    if not m:
        sys.exit("no result line in: " + text)
    nbytes = int(m.group(1)) << 20
    rate = float(m.group(3)) / (1024 if m.group(4) == "kB" else 1)
print(case, tool, rate, nbytes, user + system, round_)
PY
}

ours_case() {
  case "$1" in
    T) run T ours "$ours_bin" -T "$loopdev" ;;
    t) run t ours "$ours_bin" -t "$loopdev" ;;
    dt) run dt ours "$ours_bin" --direct -t "$loopdev" ;;
    depth) run depth ours "$ours_bin" --bench --bench-trials 1 --bench-seconds "$SECONDS_PER_RUN" \
             --bench-depth 32 --bench-bs 2M --json "$loopdev" ;;
  esac
}
theirs_case() {
  case "$1" in
    T) run T hdparm "$theirs_hdparm" -T "$loopdev" ;;
    t) run t hdparm "$theirs_hdparm" -t "$loopdev" ;;
    dt) run dt hdparm "$theirs_hdparm" --direct -t "$loopdev" ;;
    depth) run depth fio fio --name=x --filename="$loopdev" --ioengine=io_uring --direct=1 --bs=2M \
             --iodepth=32 --rw=read --runtime="$SECONDS_PER_RUN" --time_based --output-format=json ;;
  esac
}

for round in $(seq 1 "$ROUNDS"); do
  for c in $CASES; do
    if [ $((round % 2)) = 1 ]; then ours_case "$c"; theirs_case "$c"; else theirs_case "$c"; ours_case "$c"; fi
    echo "round $round: $c done"
  done
done

echo
# The analysis: hdparm-rs's own statistics (src/stats), the ones --experiment reports with.
(cd "$here" && cargo run --release --quiet -p bench-report -- "$results")
if [ -n "${KEEP_RESULTS:-}" ]; then cp "$results" "$KEEP_RESULTS"; echo "runs kept in $KEEP_RESULTS"; fi
