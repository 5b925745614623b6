#!/usr/bin/env bash
# A smoke run of bench/compare.sh for scripts/test-all: tiny sizes and 2 rounds, asserting only
# that the harness runs every case and prints a well-formed report (a paired ratio with its
# intervals and a verdict for each case). It asserts nothing about timing: the figures of a
# 64 MiB device on a CI machine mean nothing. The real benchmark stays outside CI
# (bench/README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp /tmp/hdparm-rs-bench-smoke.XXXXXX)
trap 'rm -f "$log"' EXIT
ROUNDS=2 SIZE_MIB=64 SECONDS_PER_RUN=0.2 STARTUP_RUNS=2 bash "$here/compare.sh" >"$log" 2>&1 \
  || { cat "$log"; echo "bench smoke: compare.sh failed" >&2; exit 1; }
fail=0
for name in "-T (cached)" "-t (buffered)" "--direct -t" "--bench QD32 2M seq" "--bench-random 4K QD32" \
  "latency QD1 4K p50" "latency QD1 4K p99" "--surface vs fio" "start-up -V" "start-up --Istdin" \
  "start-up -C loop"; do
  # ours / TOOL: G [L, H] (t), [L, H] (bootstrap) over 2 rounds; target ...: VERDICT
  pattern="^$(printf '%s' "$name" | sed 's/[][().*^$]/\\&/g').* ours / [a-z]+: [0-9.]+ \[[0-9.]+, [0-9.]+\] \(t\), \[[0-9.]+, [0-9.]+\] \(bootstrap\) over 2 rounds; target [^:]+: (meets|MISSES|straddles the target: ± [0-9.]+ is the smallest difference this run resolves)$"
  if ! grep -Eq -- "$pattern" "$log"; then
    echo "bench smoke: no well-formed verdict for '$name'" >&2
    fail=1
  fi
done
if [ "$fail" != 0 ]; then cat "$log"; exit 1; fi
echo "bench smoke: every case has a paired ratio, its intervals and a verdict"
