#!/usr/bin/env bash
# tests/vm/fixtures.sh - turn the IDENTIFY data the VM bench captured into golden fixtures.
#
# usage: tests/vm/fixtures.sh [RESULTS_DIR]      (default tests/vm/out/main)
# For each ATA drive kind (ide-hd ide-cd ahci-hd ahci-cd) it takes the real hdparm's
# `--Istdout DEV` output from the main profile's run (scenario "Istdout") and writes
#   tests/fixtures/identify/<kind>.hex         the 256 IDENTIFY words, 8 a line, as hdparm prints
#   tests/fixtures/identify/<kind>.hdparm.txt  the host's hdparm --Istdin decode of that file
# so the identify golden test covers QEMU's drives without booting a VM.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RES=${1:-$HERE/out/main}
DST=$HERE/../fixtures/identify
REF=$(command -v hdparm || echo /sbin/hdparm)
mkdir -p "$DST"
for kind in ide-hd ide-cd ahci-hd ahci-cd; do
	# hdparm 9.65 reads zeros from the CD-ROMs under Linux 6.1 (DIFFERENCES.md vm:*:I), so their
	# IDENTIFY PACKET words come from our own --Istdout; the decode is still the real hdparm's.
	tool=hdparm
	case $kind in *-cd) tool=hdparm-rs ;; esac
	src=$RES/$kind/Istdout/$tool.1.stdout
	[ -s "$src" ] || { echo "fixtures.sh: no $src (run tests/vm/run.sh first)" >&2; exit 1; }
	# only the word lines: the "/dev/sdX:" header names whatever node this boot gave the drive
	grep -E '^[0-9a-f]{4}( [0-9a-f]{4}){7}$' "$src" > "$DST/$kind.hex"
	[ "$(wc -l < "$DST/$kind.hex")" = 32 ] || { echo "fixtures.sh: $src: not 32 lines of words" >&2; exit 1; }
	"$REF" --Istdin < "$DST/$kind.hex" > "$DST/$kind.hdparm.txt"
	echo "fixtures.sh: $kind: $(head -c 60 "$DST/$kind.hex" | head -1) ..." >&2
done
