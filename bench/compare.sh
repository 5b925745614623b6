#!/usr/bin/env bash
# Compares hdparm-rs with the tools people would pick instead, on a loop device, in paired
# rounds: each round runs both tools of a case back to back, the first of the pair swapped
# every round (on a busy machine the first and the second run of a round differ by up to 30%
# whichever tool it is), so a round's two figures share the machine's state and their ratio is
# the observation. The cases (tools/bench-report/src/cases.rs holds their targets):
#
#   T        our -T                      vs  hdparm -T                         within 0.95–1.05
#   t        our -t                      vs  hdparm -t                         within 0.95–1.05
#   dt       our --direct -t             vs  hdparm --direct -t                within 0.95–1.05
#   seq      our --bench, QD32, 2 MiB    vs  fio read, io_uring, QD32, 2 MiB   at least 0.97
#   rand     our --bench --bench-random, 4 KiB, QD32
#                                        vs  fio randread, io_uring, QD32      at least 0.97 IOPS,
#                                                                              no more CPU per read
#   lat      our --bench --bench-random, 4 KiB, QD1: p50 and p99 (lat50, lat99)
#                                        vs  fio randread QD1, lat_percentiles=1 (total latency,
#                                            submission included)              at most 1/0.97
#   surface  our --surface (1 MiB reads, the whole device)
#                                        vs  fio read, psync, 1 MiB, O_DIRECT, the whole device
#                                            (MiB/s of the reads: fio's bw, and ours the zones'
#                                            sequential reads without the access-time samples;
#                                            fio's own start-up, about 0.3 s, would otherwise
#                                            count against it)                 at least 0.95
#   V, Istdin, C   start-up: -V, --Istdin < a real drive's IDENTIFY dump, -C on the loop device,
#            each spawned directly STARTUP_RUNS times in a row by bench-report's harness
#                                        vs  hdparm the same                   no slower than
#                                            (wall time and CPU time per run)
#
# The runs go to a runs file (case tool round value cpu_seconds work) that tools/bench-report
# reads: per case each tool's own summary, then the ratio of each round, their geometric mean
# with 95% intervals (t on the log ratios, and a bootstrap over rounds), and the verdict of the
# t interval against the target; where an interval straddles its target, its half-width (the
# smallest difference the run could resolve). CPU time is the whole process's user + system
# (bash's `time`, or getrusage of the children in the start-up harness).
#
# "Ours" is the shipped binary (built here with scripts/build-release: a static PIE on glibc),
# or OURS=PATH (another build: the figures before a change, say).
#
# Needs root (run it from a root shell: it never calls sudo), losetup, hdparm, fio, python3.
# Never touches any device but the loop device it creates over a file in $WORKDIR, which it
# detaches and deletes at the end.
#
# Settings (environment):
#   ROUNDS=10          rounds (made even: each tool goes first equally often)
#   SIZE_MIB=1024      the loop device's size
#   SECONDS_PER_RUN=3  fio runtime and our --bench trial length
#   STARTUP_RUNS=50    spawns per tool per round in the start-up cases
#   WORKDIR=/dev/shm   where the backing file lives: memory (tmpfs) by default, which takes the
#                      virtual disk under /tmp out of the noise; WORKDIR=/tmp to read through it
#   PIN="taskset -c 1" a prefix for every timed command (CPU placement), empty by default
#   CASES="T t dt seq rand lat surface V Istdin C"
#   IDENTIFY=FILE      the dump for --Istdin (default: the first of ../shared/identify/*.hex,
#                      else of tests/fixtures/identify/*.hex)
#   KEEP_RESULTS=FILE  keep the runs file
#   OURS=PATH          the hdparm-rs binary to time (default: scripts/build-release's)
set -euo pipefail

ROUNDS=${ROUNDS:-10}
if [ $((ROUNDS % 2)) -ne 0 ]; then
  ROUNDS=$((ROUNDS + 1))
  echo "ROUNDS made even ($ROUNDS): each tool goes first equally often" >&2
fi
SIZE_MIB=${SIZE_MIB:-1024}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
STARTUP_RUNS=${STARTUP_RUNS:-50}
WORKDIR=${WORKDIR:-/dev/shm}
CASES=${CASES:-"T t dt seq rand lat surface V Istdin C"}
read -r -a pin <<<"${PIN:-}"

here=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "compare.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (loop devices)"
for tool in losetup hdparm fio python3; do command -v "$tool" >/dev/null || die "$tool is not installed"; done
# A real drive's dump from the shared corpus, else one of QEMU's drives kept in the repository.
IDENTIFY=${IDENTIFY:-$(ls "$here"/../shared/identify/*.hex "$here"/tests/fixtures/identify/*.hex 2>/dev/null | head -1 || true)}

target_dir=${CARGO_TARGET_DIR:-$here/target}
(cd "$here" && cargo build --release --quiet -p bench-report)
ours_bin=${OURS:-$(cd "$here" && scripts/build-release --quiet)}
report_bin="$target_dir/release/bench-report"
theirs_hdparm=$(command -v hdparm)
echo "ours:   $ours_bin ($(stat -c %s "$ours_bin") bytes)"
echo "theirs: $theirs_hdparm ($("$theirs_hdparm" -V)), $(fio --version)"
echo "kernel: $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

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
size_bytes=$((SIZE_MIB << 20))
echo "device: $loopdev over a $SIZE_MIB MiB file in $WORKDIR (direct-io=$(cat /sys/block/"$(basename "$loopdev")"/loop/dio))"
echo "rounds: $ROUNDS, $SECONDS_PER_RUN s per fio/--bench run, $STARTUP_RUNS spawns per start-up batch${PIN:+, pinned: $PIN}"
# One direct pass over the device first, so the first tool of round 1 does not pay alone for
# whatever caches sit below the loop device.
dd if="$loopdev" of=/dev/null bs=2M iflag=direct status=none
echo

results="$scratch/results.txt"
: >"$results"

# run CASE TOOL COMMAND...: runs it under `time`, and turns its output into runs-file lines.
run() {
  local case=$1 tool=$2; shift 2
  local out="$scratch/out" err="$scratch/err" tf="$scratch/time"
  local TIMEFORMAT='%R %U %S'
  { time "${pin[@]}" "$@" >"$out" 2>"$err"; } 2>"$tf" || { echo "FAILED: $*" >&2; cat "$err" >&2; return 1; }
  python3 - "$case" "$tool" "$out" "$tf" "$round" "$size_bytes" >>"$results" <<'PY'
import json, re, sys
case, tool, out, tf, round_, size = sys.argv[1:7]
text = open(out).read()
_wall, user, system = (float(x) for x in open(tf).read().split())
cpu = user + system
def doc():
    return json.loads(text[text.index("{"):])
def line(case, value, work):
    print(case, tool, round_, value, cpu, work)
if case == "surface" and tool == "fio":
    job = doc()["jobs"][0]["read"]
    line(case, job["bw_bytes"] / 2**20, job["io_bytes"])
elif case == "surface":
    # The sequential reads of the zones (the access-time samples between them are left out,
    # as fio has none): all their bytes over all their time.
    zones = doc()["surface"]["zones"]
    nbytes = sum(z["bytes_read"] for z in zones)
    seconds = sum(z["bytes_read"] / (z["read_mb_per_s"] * 1e6) for z in zones if z["read_mb_per_s"])
    line(case, nbytes / 2**20 / seconds, nbytes)
elif tool == "fio":
    job = doc()["jobs"][0]["read"]
    if case == "seq":
        line(case, job["bw_bytes"] / 2**20, job["io_bytes"])
    elif case == "rand":
        line(case, job["iops"], job["total_ios"])
    elif case == "lat":
        pct = job["lat_ns"]["percentile"]
        line("lat50", pct["50.000000"] / 1e3, 1)
        line("lat99", pct["99.000000"] / 1e3, 1)
elif case in ("seq", "rand", "lat"):
    # The --json envelope: the bench report is the device's timing entry.
    rep = doc()["devices"][0]["timing"][0]
    if case == "seq":
        line(case, rep["mean_mib_per_second"], sum(t["bytes"] for t in rep["trials"]))
    elif case == "rand":
        line(case, rep["mean_iops"], sum(t["reads"] for t in rep["trials"]))
    else:
        line("lat50", rep["latency"]["p50_seconds"] * 1e6, 1)
        line("lat99", rep["latency"]["p99_seconds"] * 1e6, 1)
else:
    m = re.search(r"(\d+) MB in +([\d.]+) seconds = +([\d.]+) (MB|kB)/sec", text)
    if not m:
        sys.exit("no result line in: " + text)
    rate = float(m.group(3)) / (1024 if m.group(4) == "kB" else 1)
    line(case, rate, int(m.group(1)) << 20)
PY
}

# startup CASE TOOL STDIN COMMAND...: a batch of spawns by bench-report's harness.
startup() {
  local case=$1 tool=$2 stdin=$3; shift 3
  "${pin[@]}" "$report_bin" spawn "$case" "$tool" "$round" "$STARTUP_RUNS" "$stdin" "$@" >>"$results"
}

bench_args=(--bench --bench-trials 1 --bench-seconds "$SECONDS_PER_RUN" --json)
runtime_ms=$(awk -v s="$SECONDS_PER_RUN" 'BEGIN { printf "%d", s * 1000 }')
fio_args=(--name=x --filename="$loopdev" --ioengine=io_uring --direct=1 --runtime="${runtime_ms}ms"
  --time_based --output-format=json)

case_of() {
  local tool=$1 bin=$2
  case "$3" in
    T) run T "$tool" "$bin" -T "$loopdev" ;;
    t) run t "$tool" "$bin" -t "$loopdev" ;;
    dt) run dt "$tool" "$bin" --direct -t "$loopdev" ;;
    V) startup V "$tool" - "$bin" -V ;;
    Istdin) startup Istdin "$tool" "$IDENTIFY" "$bin" --Istdin ;;
    C) startup C "$tool" - "$bin" -C "$loopdev" ;;
  esac
}
ours_case() {
  case "$1" in
    seq) run seq ours "$ours_bin" "${bench_args[@]}" --bench-depth 32 --bench-bs 2M "$loopdev" ;;
    rand) run rand ours "$ours_bin" "${bench_args[@]}" --bench-random --bench-depth 32 --bench-bs 4K "$loopdev" ;;
    lat) run lat ours "$ours_bin" "${bench_args[@]}" --bench-random --bench-depth 1 --bench-bs 4K "$loopdev" ;;
    surface) run surface ours "$ours_bin" --surface --json "$loopdev" ;;
    *) case_of ours "$ours_bin" "$1" ;;
  esac
}
theirs_case() {
  case "$1" in
    seq) run seq fio fio "${fio_args[@]}" --rw=read --bs=2M --iodepth=32 ;;
    rand) run rand fio fio "${fio_args[@]}" --rw=randread --bs=4k --iodepth=32 ;;
    lat) run lat fio fio "${fio_args[@]}" --rw=randread --bs=4k --iodepth=1 --lat_percentiles=1 \
           --percentile_list=50:99 ;;
    surface) run surface fio fio --name=x --filename="$loopdev" --ioengine=psync --direct=1 --bs=1M \
               --rw=read --size="$size_bytes" --output-format=json ;;
    *) case_of hdparm "$theirs_hdparm" "$1" ;;
  esac
}

for c in $CASES; do
  case "$c" in
    Istdin) [ -r "$IDENTIFY" ] || die "no IDENTIFY dump for --Istdin (set IDENTIFY=FILE)" ;;
    T | t | dt | seq | rand | lat | surface | V | C) ;;
    *) die "unknown case $c" ;;
  esac
done

for round in $(seq 1 "$ROUNDS"); do
  for c in $CASES; do
    if [ $((round % 2)) = 1 ]; then ours_case "$c"; theirs_case "$c"; else theirs_case "$c"; ours_case "$c"; fi
  done
  echo "round $round of $ROUNDS done"
done

echo
"$report_bin" "$results"
if [ -n "${KEEP_RESULTS:-}" ]; then cp "$results" "$KEEP_RESULTS"; echo "runs kept in $KEEP_RESULTS"; fi
