#!/bin/bash
# tests/clients/wiper.sh - runs the three places where hdparm's own wiper.sh (Debian's hdparm
# package, contrib/wiper/wiper.sh.gz, unpacked) reads hdparm's output, cut from the script as
# it is (by their first lines) and run with bash, as the script runs, against one recording:
#   1. the version check: `$HDPARM -V | $GAWK ...`, at least 9.25 or "version >= 9.25 is
#      required, aborting";
#   2. the TRIM check on the raw device: `$HDPARM -I $rawdev | $GREP -i '... TRIM supported'`,
#      in a dry run and with --commit (which aborts without TRIM);
#   3. the file system's offset: `$HDPARM -g "$fsdev" | $GAWK 'END {print $NF}'`.
# hdparm is tests/clients/stub/hdparm on PATH; the device is CLIENTS_DEV.
set -u
SRC=$CLIENTS_PKG/hdparm/usr/share/doc/hdparm/wiper/wiper.sh.gz
# the block that starts at the first line matching $1 and ends at the "fi" indented as that
# line is (or at that line itself when $2 is "line")
block() {
	zcat "$SRC" | awk -v re="$1" -v one="${2:-}" '
		!on && $0 ~ re {on = 1; ind = $0; sub(/[^ \t].*$/, "", ind); print; if (one == "line") exit; next}
		on {print; if ($0 == ind "fi") exit}'
}
HDPARM=hdparm GAWK=gawk GREP=grep
export HDPARM GAWK GREP
rawdev=$CLIENTS_DEV fsdev=$CLIENTS_DEV
run() {
	local what=$1 code=$2
	[ -n "$code" ] || { echo "wiper.sh: no block for $what in $SRC" >&2; exit 1; }
	out=$( (eval "$code"; [ -z "${fsoffset+x}" ] || echo "fsoffset=$fsoffset") 2>&1); rc=$?
	echo "$what: exit $rc"
	printf '%s\n' "$out" | sed "s/^/$what: /"
}
run version "$(block '^HDPVER=')"
commit=no run trim-dry-run "$(block 'Data Set Management TRIM supported')"
commit=yes run trim-commit "$(block 'Data Set Management TRIM supported')"
run offset "$(block '^fsoffset=' line)"
