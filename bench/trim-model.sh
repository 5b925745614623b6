#!/usr/bin/env bash
# --trim-sector-ranges-stdin as the work grows, on the drive model (issue 21, section 4): our
# shipped binary in the VM bench's guest (tests/vm/run.sh, profile model: tools/drive-model
# behind the kernel's SCSI target), fed N ranges `(i mod 2000000):1` from awk through a pipe
# (one-sector ranges side by side, wrapping round the model's 1 GiB: the model merges ranges
# that touch, so its state stays small however many come). For each N it prints the exit
# status, the wall time in the guest (generator included), our process's CPU time (utime +
# stime of /proc/PID/stat) and its peak memory as the kernel counts it (VmHWM of
# /proc/PID/status), both sampled every 0.2 s until the process is gone (the last sample
# stands), and the number of DATA SET MANAGEMENT commands the model received (its log).
#
# Under TCG (no KVM here) the guest runs many times slower than the host: the times show the
# growth, not the speed. Needs what tests/vm/run.sh needs (root, QEMU; it installs them).
#
# Settings (environment): COUNTS="1000000 4000000 10000000", OUT=/tmp/hdparm-rs-trim-model,
# CMD_TIMEOUT=1800 (seconds for one N in the guest).
set -euo pipefail

COUNTS=${COUNTS:-"1000000 4000000 10000000"}
OUT=${OUT:-/tmp/hdparm-rs-trim-model}
CMD_TIMEOUT=${CMD_TIMEOUT:-1800}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
ours=$(scripts/build-release --quiet)
cargo build --quiet --release -p drive-model

rm -rf "$OUT"
mkdir -p "$OUT"
scenarios=$OUT/trim.tsv
{
	echo "# bench/trim-model.sh: one scenario a count, our pass only (option once)"
	for n in $COUNTS; do
		# One shell step: the generator and ours in a pipe, ours' VmHWM sampled while it runs.
		# DEV is the model's node; the model's log and end state follow as step @end.
		step="!n=$n; t0=\$(cut -d' ' -f1 /proc/uptime); awk -v n=\$n 'BEGIN { for (i = 0; i < n; i++) printf \"%d:1\\n\", i % 2000000 }' | /opt/hdparm-rs/hdparm --please-destroy-my-drive --trim-sector-ranges-stdin DEV > /dev/null & p=\$!; h=; c=; while s=\$(grep VmHWM /proc/\$p/status 2>/dev/null); do h=\$s; t=\$(cut -d' ' -f14,15 /proc/\$p/stat 2>/dev/null) && c=\$t; sleep 0.2; done; wait \$p; rc=\$?; t1=\$(cut -d' ' -f1 /proc/uptime); echo \"ranges=\$n exit=\$rc t0=\$t0 t1=\$t1 ticks=\${c% *}+\${c#* } \$h\""
		printf 'trim-%s\tmodel\t%s\tonce\n' "$n" "$step"
	done
} > "$scenarios"

# One N at a time must fit CMD_TIMEOUT; the whole run, every N and the boot.
total=$(( CMD_TIMEOUT * $(echo "$COUNTS" | wc -w) + 600 ))
tests/vm/run.sh --profile model --bin "$ours" --scenarios "$scenarios" \
	--cmd-timeout "$CMD_TIMEOUT" --timeout "$total" --out "$OUT/run" >&2

printf '%-10s  %-4s  %10s  %10s  %10s  %s\n' ranges exit "guest s" "CPU s" "VmHWM KiB" "DSM commands"
for n in $COUNTS; do
	dir=$OUT/run/model/trim-$n
	line=$(cat "$dir"/hdparm-rs.1.stdout 2>/dev/null || true)
	[ -n "$line" ] || { echo "trim-model.sh: no result for $n ranges (see $dir)" >&2; continue; }
	# the model's log: one JSON line per ATA command; DATA SET MANAGEMENT is 0x06
	dsm=$(grep -c '"command":"0x06"' "$dir"/hdparm-rs.2.stdout 2>/dev/null || true)
	echo "$line" | awk -v dsm="${dsm:-?}" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		hwm = "?"; for (i = 1; i <= NF; i++) if ($i == "VmHWM:") hwm = $(i + 1)
		split(v["ticks"], tk, "+")
		printf "%-10s  %-4s  %10.1f  %10.2f  %10s  %s\n", v["ranges"], v["exit"], v["t1"] - v["t0"], (tk[1] + tk[2]) / 100, hwm, dsm
	}'
done
