#!/usr/bin/env bash
# tests/clients/fetch.sh - downloads the Debian packages whose code tests/clients.rs runs
# (tlp, tuned, laptop-mode-tools, hdparm for its wiper.sh, fusioninventory-agent,
# ocsinventory-agent) with `apt-get download` and unpacks each with `dpkg-deb -x` into
# DIR/<package>/ (default target/clients). Nothing is installed: tlp's, tuned's and
# laptop-mode-tools' services would retune this machine. The Perl modules the inventory
# agents load (File::Which, UNIVERSAL::require, Net::IP, XML::Simple) and gawk (wiper.sh's awk)
# are installed by scripts/test-all. Idempotent: a package already unpacked is kept.
#
# usage: tests/clients/fetch.sh [DIR]
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DIR=${1:-${CARGO_TARGET_DIR:-$REPO/target}/clients}
PKGS=(tlp tuned laptop-mode-tools hdparm fusioninventory-agent ocsinventory-agent)
mkdir -p "$DIR/debs"
for p in "${PKGS[@]}"; do
	[ -e "$DIR/$p/.unpacked" ] && continue
	rm -rf "$DIR/$p" "$DIR/debs/$p"_*.deb
	# apt-get download writes into the current folder; as root it warns that _apt cannot
	# read it, and downloads anyway
	(cd "$DIR/debs" && apt-get download "$p" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2) || true
	deb=$(ls "$DIR/debs/$p"_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || { echo "fetch.sh: could not download $p (apt-get update first?)" >&2; exit 1; }
	mkdir -p "$DIR/$p"
	dpkg-deb -x "$deb" "$DIR/$p"
	echo "$(basename "$deb")" > "$DIR/$p/.unpacked"
done
echo "$DIR"
