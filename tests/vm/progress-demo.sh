#!/bin/bash
# tests/vm/progress-demo.sh [OUTDIR] - issue 14: shows our security erase and sanitize progress
# lines on a real terminal. Boots profile model (tests/vm/run.sh with HDPARM_RS_VM_DEMO=
# guest/progress-demo.sh) in a detached tmux session, whose pane is the guest's console: the
# guest runs `hdparm --security-set-pass abc DEV; hdparm --security-erase abc DEV` (the
# model's ERASE UNIT answering after 15 s), then `--sanitize-block-erase` and `--sanitize-status
# --wait` (a sanitize of 12 status queries), with stderr on the console, a tty. The pane is
# captured (tmux capture-pane -p) every second; the captures that show a progress line and
# the last one are kept in OUTDIR (default tests/vm/out/progress-demo). Not run in CI: it needs
# tmux, and what it proves is read by eye. Exit 0 when both progress lines were seen.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUTDIR=${1:-$HERE/out/progress-demo}
SESSION=hdparm-rs-erase-$$
command -v tmux > /dev/null || { echo "progress-demo: no tmux" >&2; exit 77; }
mkdir -p "$OUTDIR"; rm -f "$OUTDIR"/pane-*.txt
tmux new-session -d -s "$SESSION" -x 132 -y 40 \
	"cd '$REPO' && HDPARM_RS_VM_DEMO='$HERE/guest/progress-demo.sh' tests/vm/run.sh --profile model --out '$OUTDIR/vm' 2> '$OUTDIR/run.log'; echo '@@ run.sh exited'; sleep 600"
trap 'tmux kill-session -t "$SESSION" 2>/dev/null || true' EXIT
seen_erase=0; seen_sanitize=0; i=0
while :; do
	sleep 1; i=$((i + 1))
	pane=$(tmux capture-pane -p -t "$SESSION")
	if grep -q ' security erase: .* elapsed' <<< "$pane"; then
		seen_erase=$((seen_erase + 1)); echo "$pane" > "$OUTDIR/pane-erase-$seen_erase.txt"
	fi
	if grep -q ' sanitize: [0-9]*% done' <<< "$pane"; then
		seen_sanitize=$((seen_sanitize + 1)); echo "$pane" > "$OUTDIR/pane-sanitize-$seen_sanitize.txt"
	fi
	if grep -q '@@ run.sh exited' <<< "$pane" || [ $i -gt 600 ]; then
		echo "$pane" > "$OUTDIR/pane-last.txt"; break
	fi
done
echo "progress-demo: $seen_erase captures with the erase's progress line, $seen_sanitize with the sanitize's; panes in $OUTDIR"
[ $seen_erase -gt 0 ] && [ $seen_sanitize -gt 0 ]
