#!/usr/bin/env bash
# tests/clients/record.sh - record what Debian's hdparm and ours answer to the command lines
# of the programs that run hdparm (tlp, tuned, laptop-mode-tools, wiper.sh, FusionInventory),
# on every drive kind of the VM bench and on the drive model, for tests/clients.rs.
#
# usage: tests/clients/record.sh [--results DIR] [--out DIR] [--bin PATH] [--model-bin PATH]
#   --results DIR    results of an earlier `tests/vm/run.sh --profile clients --out DIR`: no
#                    VM is booted (default: boot one, results in tests/vm/out/clients)
#   --out DIR        where the recordings go (default tests/fixtures/clients, the committed
#                    fixtures; emptied first)
#   --bin, --model-bin   as tests/vm/run.sh's (default target/release/hdparm, .../drive-model)
# A recording is DIR/<kind>/<state>.<tool>.txt (tool hdparm or hdparm-rs, state the scenario
# id of tests/vm/scenarios/clients.tsv), one block per command line:
#   === -C DEV            the arguments, the drive's node as DEV
#   exit 0
#   stdout                then its lines, each after a "|" ("\" alone: no newline at the end)
#   | drive state is:  active/idle
#   stderr
# Output names the drive's node as @DEV@. The first block is `-V`, from the guest's boot.
# tests/clients/stub/hdparm replays a recording.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
RESULTS=; OUT=$REPO/tests/fixtures/clients; RUNARGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--results) RESULTS=$2; shift 2;;
	--out) OUT=$2; shift 2;;
	--bin|--model-bin) RUNARGS+=("$1" "$2"); shift 2;;
	-h|--help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print} /^set -euo/ {exit}' "$0"; exit 0;;
	*) echo "record.sh: unknown option $1" >&2; exit 1;;
	esac
done
if [ -z "$RESULTS" ]; then
	RESULTS=$REPO/tests/vm/out/clients
	"$REPO/tests/vm/run.sh" --profile clients --out "$RESULTS" "${RUNARGS[@]}"
fi
[ -r "$RESULTS/_boot/devmap/sh.1.stdout" ] || { echo "record.sh: no VM results in $RESULTS" >&2; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT"
perl - "$RESULTS" "$OUT" <<-'PERL'
	use strict; use warnings;
	my ($res, $out) = @ARGV;
	sub slurp { my ($f) = @_; open my $h, '<', $f or return undef; local $/; my $s = <$h>; $s }
	my %node = map { (split ' ')[0, 1] } split /\n/, slurp("$res/_boot/devmap/sh.1.stdout");
	# the text of one stream: "|" lines, "\" when it does not end with a newline
	sub stream {
		my ($name, $text, $node) = @_;
		$text =~ s/\Q$node\E(?![0-9A-Za-z])/\@DEV\@/g if $node;
		my $s = "$name\n";
		return $s if $text eq '';
		my $newline = $text =~ s/\n\z//;
		my @lines = split /\n/, $text, -1;
		@lines = ('') unless @lines;
		$s .= "|$_\n" for @lines;
		$s .= "\\\n" unless $newline;
		$s;
	}
	my %version = (hdparm => 'hdparm-V', 'hdparm-rs' => 'hdparm-rs-V');
	my $n = 0;
	for my $kind (sort keys %node) {
		opendir my $kd, "$res/$kind" or next;
		for my $state (sort grep { !/^\./ } readdir $kd) {
			for my $tool (qw(hdparm hdparm-rs)) {
				my $rec = "# $kind, state $state, $tool: tests/clients/record.sh from the VM (profile clients)\n";
				my $v = "$res/_boot/$version{$tool}/sh.1";
				$rec .= "=== -V\nexit " . slurp("$v.exit") . stream('stdout', slurp("$v.stdout"))
					. stream('stderr', slurp("$v.stderr"));
				for (my $i = 1; -e "$res/$kind/$state/$tool.$i.cmd"; $i++) {
					my $p = "$res/$kind/$state/$tool.$i";
					my $cmd = slurp("$p.cmd");
					# setup steps: model control (@...) and guest shell (!...) commands
					next if $cmd =~ /^[@!]/;
					$rec .= "=== $cmd\nexit " . slurp("$p.exit")
						. stream('stdout', slurp("$p.stdout"), $node{$kind})
						. stream('stderr', slurp("$p.stderr"), $node{$kind});
				}
				mkdir "$out/$kind";
				open my $o, '>', "$out/$kind/$state.$tool.txt" or die "$out/$kind: $!";
				print $o $rec; close $o; $n++;
			}
		}
	}
	die "record.sh: no recordings in $res\n" unless $n;
	print STDERR "record.sh: $n recordings in $out\n";
PERL
