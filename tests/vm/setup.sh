#!/usr/bin/env bash
# tests/vm/setup.sh - prepare what the VM bench needs on the host; safe to run again.
#
# 1. Debian packages: qemu-system-x86, qemu-system-data (qboot.rom), busybox-static,
#    hdparm (the reference), xz-utils, gzip, perl-base. Missing ones are installed with
#    apt-get when we are root (it never calls sudo: run it from a root shell); otherwise
#    setup fails.
# 2. The kernel: the package linux-image-amd64 currently depends on is fetched with
#    `apt-get download` (nothing is installed), unpacked with dpkg-deb -x, given a
#    modules.dep by `busybox depmod`; the uncompressed vmlinux (PVH boot, faster) and the
#    storage modules in load order are kept in the cache, the rest is thrown away.
#
# usage: setup.sh [--no-install] [--refresh]     prints the kernel directory on stdout
# env:   HDPARM_RS_VM_CACHE   cache dir (default tests/vm/cache)
#        HDPARM_RS_VM_KPKG    kernel package (default: what linux-image-amd64 depends on)
# exit:  0 ready, 77 a component is unavailable (no root for apt, no network, ...), 1 bug
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${HDPARM_RS_VM_CACHE:-$HERE/cache}
INSTALL=1
REFRESH=0
while [ $# -gt 0 ]; do
	case $1 in
	--no-install) INSTALL=0; shift;;
	--refresh) REFRESH=1; shift;;
	*) echo "setup.sh: unknown option $1" >&2; exit 1;;
	esac
done
say() { echo "setup: $*" >&2; }
unavailable() { say "UNAVAILABLE: $*"; exit 77; }

# The storage stack the guest needs; their dependencies are found through modules.dep.
# Expected result (24, kernel 6.1): scsi_common scsi_mod libata ata_piix libahci ahci
# crct10dif_common crc-t10dif crc64 crc64-rocksoft t10-pi sd_mod cdrom sr_mod sg nvme-core
# nvme virtio_pci_modern_dev virtio_pci_legacy_dev virtio_ring virtio virtio_pci virtio_blk
# virtio_scsi
ROOT_MODULES="ata_piix ahci sd_mod sr_mod sg nvme virtio_pci virtio_blk virtio_scsi"
# ---- drive model (profile "model", tools/drive-model): the kernel's SCSI target with its
# userspace backstore (TCMU, on uio) and the loopback fabric that turns a LUN into a local
# SCSI disk. Loaded by the guest only for that profile (see guest/init).
MODEL_MODULES="target_core_mod target_core_user tcm_loop"
ROOT_MODULES="$ROOT_MODULES $MODEL_MODULES"
# ---- end drive model
# ---- tune profile (issue 11): device-mapper, for the surface scan over a dm table with a
# slowed (dm-delay) and a failing (dm-error, built into dm_mod) region. A separate list, so
# the storage list above stays as it was; a cache made without them is made again (roots).
DM_MODULES="dm_mod dm_delay"
ROOT_MODULES="$ROOT_MODULES $DM_MODULES"
# ---- end tune profile ----

# ------------------------------------------------------------ packages ------
# package:file-that-proves-it-is-there
NEEDS="qemu-system-x86:/usr/bin/qemu-system-x86_64 qemu-system-data:/usr/share/qemu/qboot.rom
busybox-static:/bin/busybox hdparm:/sbin/hdparm xz-utils:/usr/bin/xz gzip:/bin/gzip perl-base:/usr/bin/perl"
missing=()
for n in $NEEDS; do
	pkg=${n%%:*}; file=${n#*:}
	# /sbin and /bin may be merged into /usr; accept either spelling
	[ -e "$file" ] || [ -e "/usr$file" ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$INSTALL" = 1 ] || unavailable "missing packages: ${missing[*]} (run tests/vm/setup.sh to install)"
	[ "$(id -u)" = 0 ] || unavailable "missing packages ${missing[*]} and no root to install them"
	say "installing ${missing[*]}"
	# another apt may be running (image provisioning): wait for its lock rather than fail
	env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y \
		install --no-install-recommends "${missing[@]}" >&2 ||
		unavailable "apt-get install ${missing[*]} failed"
fi
for t in apt-get apt-cache dpkg-deb; do
	command -v $t >/dev/null || unavailable "no $t: the kernel comes from Debian's archive"
done

# -------------------------------------------------------------- kernel ------
mkdir -p "$CACHE"
# One setup at a time: the bench boots several VMs at once, and each run.sh calls this script;
# the first one fetches and unpacks the kernel, the others wait and then find it cached.
exec 9>"$CACHE/.lock"
flock 9
# Which kernel: remembered from the last run unless asked to refresh, so a changed apt
# index does not trigger a download in the middle of a test run.
if [ -n "${HDPARM_RS_VM_KPKG:-}" ]; then
	KPKG=$HDPARM_RS_VM_KPKG
elif [ "$REFRESH" = 0 ] && [ -s "$CACHE/kernel-package" ]; then
	KPKG=$(cat "$CACHE/kernel-package")
else
	KPKG=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ {print $2; exit}')
	[ -n "$KPKG" ] || unavailable "apt-cache does not know linux-image-amd64 (apt-get update?)"
	echo "$KPKG" > "$CACHE/kernel-package"
fi
KDIR=$CACHE/$KPKG
# a cache kept for another module list (an older setup.sh) is made again
if [ -f "$KDIR/ready" ] && [ "$(cat "$KDIR/roots" 2>/dev/null)" != "$ROOT_MODULES" ]; then
	say "the cached kernel has other modules than ROOT_MODULES: making it again"
	rm -f "$KDIR/ready"
fi
# fetch_kernel DIR: the kernel package, unpacked into DIR/root with a modules.dep; sets KREL
fetch_kernel() {
	say "fetching $KPKG"
	mkdir -p "$1/deb"
	(cd "$1/deb" && apt-get download "$KPKG" >&2 2>"$1/apt.err") || {
		cat "$1/apt.err" >&2; unavailable "apt-get download $KPKG failed"; }
	dpkg-deb -x "$1"/deb/*.deb "$1/root"
	KREL=$(ls "$1/root/lib/modules")
	# The .deb has no modules.dep (its postinst runs depmod); busybox makes one. Its lines:
	# "kernel/drivers/ata/ahci.ko: kernel/drivers/ata/libahci.ko kernel/drivers/ata/libata.ko ..."
	busybox depmod -b "$1/root" "$KREL"
}
# keep_modules MODDIR ROOTS OUTDIR [HAVE]: the modules ROOTS need, in load order, copied into
# OUTDIR/modules with their names in OUTDIR/modules.load; those listed in the file HAVE (a
# modules.load kept before) are left out
keep_modules() {
	local moddir=$1 roots=$2 out=$3 have=${4:-/dev/null} m
	mkdir -p "$out/modules"
	# Depth-first over modules.dep from the roots: every module after all it depends on.
	awk -v roots="$roots" '
		function base(p,  n) { n = p; sub(/^.*\//, "", n); sub(/\.ko.*$/, "", n); gsub(/-/, "_", n); return n }
		function visit(n,  k, i, d) {
			if (n in done) return
			done[n] = 1
			if (!(n in file)) { print "setup: module " n " not in modules.dep" > "/dev/stderr"; bad = 1; return }
			k = split(deps[n], d, " ")
			for (i = 1; i <= k; i++) visit(base(d[i]))
			print file[n]
		}
		FILENAME == ARGV[1] { done[base($1)] = 1; next }
		{ f = $1; sub(/:$/, "", f); n = base(f); file[n] = f; $1 = ""; deps[n] = $0 }
		END { k = split(roots, r, " "); for (i = 1; i <= k; i++) visit(r[i]); exit bad }
	' "$have" "$moddir/modules.dep" > "$out/modules.order"
	: >> "$out/modules.load"
	while read -r m; do
		case $m in *.ko) ;; *) unavailable "module $m is compressed; busybox insmod cannot load it";; esac
		cp "$moddir/$m" "$out/modules/"
		basename "$m" >> "$out/modules.load"
	done < "$out/modules.order"
	rm -f "$out/modules.order"
}
# ---- profile scsi (issue 22): the LSI SAS HBA's driver (mptsas, with mptscsih, mptbase and
# the SAS transport class) and scsi_debug, kept apart in KDIR/scsi/ (modules, modules.load,
# roots, ready) so that the storage list above, which every profile loads and other branches
# check, stays as it was and a cache made before gains the directory without being made again
SCSI_MODULES="mptsas scsi_debug"
scsi_extra() {
	local kdir=$1 moddir=$2
	rm -rf "$kdir/scsi"
	keep_modules "$moddir" "$SCSI_MODULES" "$kdir/scsi" "$kdir/modules.load"
	echo "$SCSI_MODULES" > "$kdir/scsi/roots"
	touch "$kdir/scsi/ready"
}
if [ -f "$KDIR/ready" ]; then
	if [ ! -f "$KDIR/scsi/ready" ] || [ "$(cat "$KDIR/scsi/roots")" != "$SCSI_MODULES" ]; then
		rm -rf "$KDIR.scsi.tmp"; mkdir -p "$KDIR.scsi.tmp"
		fetch_kernel "$KDIR.scsi.tmp"
		# modules of another build of the package would not load into the cached kernel
		if [ "$(dpkg-deb -f "$KDIR.scsi.tmp"/deb/*.deb Version)" = "$(cat "$KDIR/version")" ]; then
			scsi_extra "$KDIR" "$KDIR.scsi.tmp/root/lib/modules/$KREL"
			say "kernel $KREL: $(wc -l < "$KDIR/scsi/modules.load") modules of profile scsi added to $KDIR/scsi"
		else
			say "$KPKG is now another build than the cached kernel: making the cache again"
			rm -f "$KDIR/ready"
		fi
		rm -rf "$KDIR.scsi.tmp"
	fi
	if [ -f "$KDIR/ready" ]; then
		echo "$KDIR"
		exit 0
	fi
fi
# ---- end profile scsi

rm -rf "$KDIR" "$KDIR.tmp"
mkdir -p "$KDIR.tmp"
fetch_kernel "$KDIR.tmp"
MODDIR=$KDIR.tmp/root/lib/modules/$KREL
keep_modules "$MODDIR" "$ROOT_MODULES" "$KDIR.tmp"
scsi_extra "$KDIR.tmp" "$MODDIR"

# vmlinuz is a bzImage whose payload is one xz stream; the ELF inside boots through PVH
# with qboot, skipping real-mode setup and decompression (about 5 s under TCG).
VMLINUZ=$KDIR.tmp/root/boot/vmlinuz-$KREL
cp "$VMLINUZ" "$KDIR.tmp/vmlinuz"
off=$(grep -abo $'\xfd7zXZ\x00' "$VMLINUZ" | head -1 | cut -d: -f1 || true)
if [ -n "$off" ]; then
	tail -c +$((off + 1)) "$VMLINUZ" | xz -dc > "$KDIR.tmp/vmlinux" 2>/dev/null || true
fi
if ! head -c 4 "$KDIR.tmp/vmlinux" 2>/dev/null | grep -q ELF; then
	say "no vmlinux could be extracted; the bench will boot the bzImage (slower)"
	rm -f "$KDIR.tmp/vmlinux"
fi
echo "$KREL" > "$KDIR.tmp/release"
dpkg-deb -f "$KDIR.tmp"/deb/*.deb Version > "$KDIR.tmp/version"
rm -rf "$KDIR.tmp/root" "$KDIR.tmp/deb" "$KDIR.tmp/apt.err"
echo "$ROOT_MODULES" > "$KDIR.tmp/roots"
touch "$KDIR.tmp/ready"
mv "$KDIR.tmp" "$KDIR"
say "kernel $KREL ($(wc -l < "$KDIR/modules.load") modules) cached in $KDIR"
echo "$KDIR"
