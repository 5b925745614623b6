#!/usr/bin/env bash
# tests/vm/run.sh - boot a Debian kernel in QEMU with emulated IDE, AHCI, ATAPI, NVMe,
# virtio-scsi and virtio-blk drives; run a scenario list against every drive with Debian's
# hdparm and with ours; leave the framed results on the host.
#
# usage: tests/vm/run.sh [options]
#   --bin PATH        our binary (default: $HDPARM_RS_BIN, else $CARGO_TARGET_DIR/release/hdparm,
#                     else target/release/hdparm)
#   --profile P       main (default: every drive kind) | faults (blkdebug read errors at LBA
#                     2048 on an IDE and an AHCI disk) | unplug (AHCI, NVMe and virtio-blk
#                     drives that scenarios remove with `!host device_del ...`) | demo (IDE
#                     and AHCI disks, the IDE ATAPI CD-ROM, NVMe: the drives scripts/demo shows)
#                     | nvme (the NVMe drive, with nvme-cli and tools/nvme-model: tests/vm_nvme.rs)
#                     | model (tools/drive-model behind the kernel's SCSI target: TCMU + tcm_loop)
#   --model-bin PATH  the drive model for profile model (default: $HDPARM_RS_MODEL_BIN, else
#                     $CARGO_TARGET_DIR/release/drive-model, else target/release/drive-model)
#                     | clients (main's drives and the model: the command lines of the programs
#                     that run hdparm, recorded for tests/clients.rs by tests/clients/record.sh)
#                     | tune (IDE, AHCI and virtio disks: --experiment, --advise, --surface over
#                     a dm table: tests/vm_tune.rs) | hotplug (AHCI disk, IDE CD-ROM and a SCSI
#                     disk hot-plugged mid-run: --apply from mdev, the resume hook: tests/vm_tune.rs)
#                     | scsi (SCSI disks: virtio-scsi, an LSI SAS 1068 HBA (mptsas), scsi_debug;
#                     sg3_utils and sdparm in the guest as the oracle: tests/vm_scsi.rs)
#   --scenarios FILE  scenario list (default tests/vm/scenarios/<profile>.tsv)
#   --out DIR         results (default tests/vm/out/<profile>); emptied first
#   --accel A         auto (default) | tcg | kvm; auto takes KVM only when /dev/kvm is usable
#                     and is not the kvm_pvm paravirtual backend (unmodified kernels crawl there)
#   --timeout S       wall-clock limit for the whole VM (default 900)
#   --cmd-timeout S   limit per command inside the guest (default 60)
#   --smp N           guest CPUs (default 1: under TCG a second vCPU slows the fork-heavy
#                     guest script down)
#   --keep            keep the scratch dir (initramfs, disk images)
# Output in DIR: results.log (framed, see guest/init), console.log (kernel console),
# timing.txt, expected-kinds, scenarios.tsv (the list used), qemu-cmdline.txt, monitor.log,
# and the results split for reading: DIR/<kind>/<scenario>/<tool>.<step>.{cmd,stdout,...}.
# exit: 0 the guest ran to the end, 77 a component is unavailable, 1 anything else.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PROFILE=main
BIN=${HDPARM_RS_BIN:-}
SCEN=
OUT=
ACCEL=auto
TIMEOUT=900
CMD_TMO=60
SMP=${HDPARM_RS_VM_SMP:-1}
KEEP=0
MODEL_BIN=${HDPARM_RS_MODEL_BIN:-}
while [ $# -gt 0 ]; do
	case $1 in
	--bin) BIN=$2; shift 2;;
	--profile) PROFILE=$2; shift 2;;
	--scenarios) SCEN=$2; shift 2;;
	--out) OUT=$2; shift 2;;
	--accel) ACCEL=$2; shift 2;;
	--timeout) TIMEOUT=$2; shift 2;;
	--cmd-timeout) CMD_TMO=$2; shift 2;;
	--smp) SMP=$2; shift 2;;
	--keep) KEEP=1; shift;;
	--model-bin) MODEL_BIN=$2; shift 2;;
	-h|--help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print} /^set -euo/ {exit}' "$0"; exit 0;;
	*) echo "run.sh: unknown option $1" >&2; exit 1;;
	esac
done
if [ -z "$BIN" ]; then
	BIN=${CARGO_TARGET_DIR:-$REPO/target}/release/hdparm
fi
SCEN=${SCEN:-$HERE/scenarios/$PROFILE.tsv}
OUT=${OUT:-$HERE/out/$PROFILE}
T0=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}'; }
log() { echo "[vm $(since "$T0")s] $*" >&2; }

[ -x "$BIN" ] || { echo "run.sh: our binary $BIN does not exist (cargo build --release?)" >&2; exit 1; }
[ -r "$SCEN" ] || { echo "run.sh: no scenario list $SCEN" >&2; exit 1; }
rc=0; KDIR=$("$HERE/setup.sh") || rc=$?
[ $rc = 0 ] || exit $rc
REF=$(command -v hdparm || true)
for p in /sbin/hdparm /usr/sbin/hdparm; do [ -z "$REF" ] && [ -x $p ] && REF=$p; done
[ -n "$REF" ] || { echo "run.sh: UNAVAILABLE: no hdparm on the host" >&2; exit 77; }
# the differences in DIFFERENCES.md were judged against 9.65: another version is an error
REFV=$("$REF" -V 2>&1 || true)
[ "$REFV" = "hdparm v9.65" ] || { echo "run.sh: $REF -V prints '$REFV', not 'hdparm v9.65'" >&2; exit 1; }
KREL=$(cat "$KDIR/release")

# ------------------------------------------------------------------ initramfs ----
WORK=$(mktemp -d /tmp/hdparm-rs-vm.XXXXXX)
cleanup() {
	[ -n "${QPID:-}" ] && kill "$QPID" 2>/dev/null
	if [ "$KEEP" = 1 ]; then echo "scratch kept in $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
R=$WORK/root
mkdir -p "$R"/{bin,sbin,etc/bench,lib/modules,proc,sys,dev,tmp,run}
# an executable and the shared libraries ldd names, at the same paths in the guest
put_exe() {
	local src=$1 dst=$2 lib
	mkdir -p "$R/$(dirname "$dst")"
	cp -L "$src" "$R$dst"; chmod 755 "$R$dst"
	# ldd lines: "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)", "/lib64/ld-linux-x86-64.so.2 (0x...)"
	for lib in $(ldd "$src" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
		[ -e "$R$lib" ] && continue
		mkdir -p "$R$(dirname "$lib")"; cp -L "$lib" "$R$lib"
	done
}
cp -L "$(command -v busybox)" "$R/bin/busybox"
cp "$HERE/guest/init" "$R/init"; chmod 755 "$R/init"
put_exe "$REF" /sbin/hdparm
# same basename as the reference: both tools print it in usage and -V
put_exe "$BIN" /opt/hdparm-rs/hdparm
cp "$KDIR"/modules/*.ko "$R/lib/modules/"
cp "$KDIR/modules.load" "$R/etc/bench/modules.load"
# ---- drive model (profile model): its binary, a real drive's IDENTIFY words, and the SCSI
# target's modules; the other profiles do not load those modules
MODEL_MODS='^(configfs|target_core_mod|uio|target_core_user|tcm_loop)\.ko$'
# (profile clients, issue 19: the model beside main's drives)
# (profile scsi, issue 22: the model's SAS disk, `drive-model new --scsi-only`)
if [ "$PROFILE" = model ] || [ "$PROFILE" = clients ] || [ "$PROFILE" = scsi ]; then
	MODEL_BIN=${MODEL_BIN:-${CARGO_TARGET_DIR:-$REPO/target}/release/drive-model}
	[ -x "$MODEL_BIN" ] || { echo "run.sh: no drive model $MODEL_BIN (cargo build --release -p drive-model)" >&2; exit 1; }
	grep -Eq "$MODEL_MODS" "$R/etc/bench/modules.load" ||
		{ echo "run.sh: the kernel cache has no target_core_user/tcm_loop (tests/vm/setup.sh --refresh?)" >&2; exit 1; }
	put_exe "$MODEL_BIN" /opt/drive-model/drive-model
	mkdir -p "$R/etc/model"
	cp "$REPO/tools/drive-model/identify/"*.hex "$R/etc/model/"
fi
if [ "$PROFILE" = model ]; then
	# ---- issue 12 oracle: Debian's hdparm.conf scripts (from the host's hdparm package),
	# what they need that busybox lacks, the configs, and guest/oracle.sh
	for f in /lib/udev/hdparm /lib/hdparm/hdparm-functions /usr/lib/pm-utils/power.d/95hdparm-apm; do
		[ -r "$f" ] || { echo "run.sh: no $f (the hdparm package's scripts)" >&2; exit 77; }
		mkdir -p "$R$(dirname "$f")"; cp "$f" "$R$f"; chmod 755 "$R$f"
	done
	put_exe /usr/bin/perl /usr/bin/perl
	# Debian's /bin/sh, dash: the scripts run as on Debian, and find coreutils' readlink in
	# PATH (busybox sh would run its own applet, which has no `readlink -m`); busybox
	# --install in the guest keeps both
	put_exe /bin/dash /bin/sh
	put_exe "$(command -v readlink)" /bin/readlink
	mkdir -p "$R/etc/bench/conf"
	cp "$HERE/conf/"*.conf "$R/etc/bench/conf/"
	cp "$HERE/guest/oracle.sh" "$R/etc/bench/oracle.sh"
	# ---- end issue 12 oracle
elif [ "$PROFILE" != clients ] && [ "$PROFILE" != scsi ]; then
	grep -Ev "$MODEL_MODS" "$KDIR/modules.load" > "$R/etc/bench/modules.load" || true
fi
# ---- end drive model
cp "$SCEN" "$R/etc/bench/scenarios.tsv"
# ---- progress demo (issue 14): HDPARM_RS_VM_DEMO=FILE runs FILE in the guest on its console,
# which is then this terminal, instead of the scenarios (tests/vm/progress-demo.sh)
DEMO_APPEND=; CONSOLE="file:$OUT/console.log"
if [ -n "${HDPARM_RS_VM_DEMO:-}" ]; then
	cp "$HDPARM_RS_VM_DEMO" "$R/etc/bench/demo.sh"; chmod 755 "$R/etc/bench/demo.sh"
	DEMO_APPEND=" bench.demo=1 quiet loglevel=1"; CONSOLE="file:${HDPARM_RS_VM_DEMO_TTY:-$(tty)}"
fi
# ---- end progress demo
# ---- NVMe (issue 10), profile nvme only: Debian's nvme-cli (the oracle, at /usr/sbin/nvme
# with its libraries) and the NVMe controller model's interposer (tools/nvme-model), which
# tests/vm/scenarios/nvme.tsv preloads into both tools. ----
if [ "$PROFILE" = nvme ]; then
	# type -P: this script defines a function named nvme (the drive)
	NVME_CLI=$(type -P nvme || true)
	if [ -z "$NVME_CLI" ] && [ "$(id -u)" = 0 ]; then
		env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y install nvme-cli >&2 || true
		NVME_CLI=$(type -P nvme || true)
	fi
	[ -n "$NVME_CLI" ] || { echo "run.sh: UNAVAILABLE: no nvme-cli on the host (Debian: nvme-cli)" >&2; exit 77; }
	MODEL=${HDPARM_RS_NVME_MODEL:-$(dirname "$BIN")/libnvme_model.so}
	[ -r "$MODEL" ] || { echo "run.sh: no NVMe model $MODEL (cargo build --release -p nvme-model)" >&2; exit 1; }
	put_exe "$NVME_CLI" /usr/sbin/nvme
	put_exe "$MODEL" /opt/nvme-model/libnvme_model.so
	mkdir -p "$R/etc/nvme"
fi
# ---- tune and hotplug profiles (issues 11, 12; tests/vm_tune.rs) ----
# tune: Debian's dmsetup with its libraries, for the device-mapper table of the surface scan.
# hotplug: the files of guest/hotplug/ (hdparm.conf, mdev.conf, the helper mdev runs), our udev
# rule (the helper runs its RUN command) and our system-sleep hook, where the package puts them.
if [ "$PROFILE" = tune ]; then
	DMSETUP=$(command -v dmsetup || true)
	for p in /sbin/dmsetup /usr/sbin/dmsetup; do [ -z "$DMSETUP" ] && [ -x $p ] && DMSETUP=$p; done
	[ -n "$DMSETUP" ] || { echo "run.sh: UNAVAILABLE: no dmsetup on the host (Debian: dmsetup)" >&2; exit 77; }
	put_exe "$DMSETUP" /sbin/dmsetup
fi
if [ "$PROFILE" = hotplug ]; then
	cp -R "$HERE/guest/hotplug/." "$R/"
	mkdir -p "$R/etc/udev/rules.d" "$R/lib/systemd/system-sleep"
	cp "$REPO/contrib/udev/85-hdparm-rs.rules" "$R/etc/udev/rules.d/"
	cp "$REPO/contrib/systemd/hdparm-rs.sleep" "$R/lib/systemd/system-sleep/hdparm-rs"
	chmod 755 "$R/lib/systemd/system-sleep/hdparm-rs" "$R/lib/mdev/hdparm-rs-rule"
fi
# ---- end tune and hotplug ----
# ---- profile scsi (issue 22; tests/vm_scsi.rs): sg3_utils and sdparm (the oracle: every
# ELF sg_* program, sdparm, libsgutils2 through ldd), the mptsas modules from the kernel
# cache's scsi/ set (loaded in order after the storage list), scsi_debug (loaded by
# guest/scsi.sh with its parameters), guest/scsi.sh, strace with guest/sgio (the wire) and
# guest/bench-scsi (the scenarios' helpers) ----
if [ "$PROFILE" = scsi ]; then
	if ! command -v sg_inq > /dev/null || ! command -v sdparm > /dev/null; then
		[ "$(id -u)" = 0 ] && env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y \
			install sg3-utils sdparm >&2 || true
	fi
	command -v sg_inq > /dev/null && command -v sdparm > /dev/null ||
		{ echo "run.sh: UNAVAILABLE: no sg3_utils or sdparm on the host (Debian: sg3-utils, sdparm)" >&2; exit 77; }
	for f in $(dirname "$(command -v sg_inq)")/sg_* "$(command -v sdparm)"; do
		head -c 4 "$f" | grep -q ELF && put_exe "$f" "/usr/bin/${f##*/}"
	done
	[ -f "$KDIR/scsi/ready" ] || { echo "run.sh: the kernel cache has no scsi/ module set (tests/vm/setup.sh)" >&2; exit 1; }
	cp "$KDIR"/scsi/modules/*.ko "$R/lib/modules/"
	grep -v '^scsi_debug\.ko$' "$KDIR/scsi/modules.load" >> "$R/etc/bench/modules.load"
	cp "$HERE/guest/scsi.sh" "$R/etc/bench/scsi.sh"
	# strace: guest/sgio logs every SG_IO a program makes (the CDB, the data out, the answer)
	STRACE=$(command -v strace || true)
	[ -n "$STRACE" ] || { echo "run.sh: UNAVAILABLE: no strace on the host (Debian: strace)" >&2; exit 77; }
	put_exe "$STRACE" /usr/bin/strace
	for f in sgio bench-scsi; do cp "$HERE/guest/$f" "$R/usr/bin/$f"; chmod 755 "$R/usr/bin/$f"; done
fi
# ---- end profile scsi ----
INITRD=$WORK/initrd.gz
(cd "$R" && find . | LC_ALL=C sort | busybox cpio -o -H newc 2>/dev/null | gzip -1 > "$INITRD")
log "initramfs: $(($(stat -c %s "$INITRD") / 1024)) KiB (ours: $BIN, reference: $REF)"

# ----------------------------------------------------------------------- disks ----
IMG=$WORK/img; mkdir -p "$IMG"
# sparse raw image whose sector 0 is recognisable: a text tag, then the bytes 0..255
mkimg() {
	truncate -s "$2" "$IMG/$1.raw"
	perl -e '$t = "HDPARM-RS-VM $ARGV[0] SECTOR 0 "; print substr($t x 20, 0, 256), map { chr } 0 .. 255' "$1" |
		dd of="$IMG/$1.raw" conv=notrunc status=none
}
# blkdebug: every read touching sector 2048 (byte 1 MiB) fails with EIO; QEMU's IDE/AHCI
# device then reports an ATA error for the command (rerror=report is the default)
cat > "$IMG/blkdebug.cfg" <<-'CFG'
	[inject-error]
	event = "read_aio"
	errno = "5"
	sector = "2048"
	once = "off"
CFG

Q=(qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot -m 512 -smp "$SMP" -machine pc)
if [ "$ACCEL" = auto ]; then
	if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then ACCEL=kvm; else ACCEL=tcg; fi
fi
case $ACCEL in
kvm) Q+=(-accel kvm -cpu host);;
tcg) Q+=(-accel tcg);;
*) echo "run.sh: --accel auto|tcg|kvm" >&2; exit 1;;
esac
# qboot + the uncompressed vmlinux (PVH entry) boots about 5 s faster than SeaBIOS + bzImage
if [ -f "$KDIR/vmlinux" ] && [ -f /usr/share/qemu/qboot.rom ]; then
	Q+=(-bios /usr/share/qemu/qboot.rom -kernel "$KDIR/vmlinux"); BOOT="qboot+vmlinux"
else
	Q+=(-kernel "$KDIR/vmlinuz"); BOOT="seabios+bzImage"
fi
EXPECT=()
# drive SOURCE: the -drive file= for image NAME, through blkdebug when FAULT=1
src() { if [ "${FAULT:-0}" = 1 ]; then echo "blkdebug:$IMG/blkdebug.cfg:$IMG/$1.raw"; else echo "$IMG/$1.raw"; fi; }
ide_hd() { mkimg ide-hd 1G; EXPECT+=(ide-hd)
	Q+=(-drive "if=none,id=idehd,format=raw,file=$(src ide-hd)"
	    -device "ide-hd,drive=idehd,bus=ide.0,unit=0,model=HDPARM-RS IDE DISK,serial=HRS-IDE-0001,ver=1.0,wwn=0x5000c500a1b2c3d4,rotation_rate=1"); }
ide_cd() { mkimg ide-cd 64M; EXPECT+=(ide-cd)
	Q+=(-drive "if=none,id=idecd,format=raw,media=cdrom,readonly=on,file=$IMG/ide-cd.raw"
	    -device "ide-cd,drive=idecd,bus=ide.1,unit=0,serial=HRS-IDECD-01"); }
ahci() { Q+=(-device ich9-ahci,id=ahci); }
ahci_hd() { mkimg ahci-hd 1G; EXPECT+=(ahci-hd)
	Q+=(-drive "if=none,id=ahcihd,format=raw,file=$(src ahci-hd)"
	    -device "ide-hd,drive=ahcihd,bus=ahci.0,serial=HRS-AHCI-0001,rotation_rate=7200"); }
ahci_cd() { mkimg ahci-cd 64M; EXPECT+=(ahci-cd)
	Q+=(-drive "if=none,id=ahcicd,format=raw,media=cdrom,readonly=on,file=$IMG/ahci-cd.raw"
	    -device "ide-cd,drive=ahcicd,bus=ahci.1,serial=HRS-AHCICD-01"); }
nvme() { mkimg nvme 1G; EXPECT+=(nvme)
	Q+=(-drive "if=none,id=nvme0,format=raw,file=$IMG/nvme.raw" -device "nvme,id=nvme,drive=nvme0,serial=HRSNVME0001"); }
# NVMe (issue 10): the same drive, with discards passed to the image (discard=unmap), so that a
# deallocated range reads back as zeros
nvme_unmap() { mkimg nvme 1G; EXPECT+=(nvme)
	Q+=(-drive "if=none,id=nvme0,format=raw,discard=unmap,file=$IMG/nvme.raw" -device "nvme,id=nvme,drive=nvme0,serial=HRSNVME0001"); }
virtio_scsi() { mkimg virtio-scsi 1G; EXPECT+=(virtio-scsi)
	Q+=(-device virtio-scsi-pci,id=vscsi -drive "if=none,id=vscsihd,format=raw,file=$IMG/virtio-scsi.raw"
	    -device "scsi-hd,drive=vscsihd,bus=vscsi.0,serial=HRS-VSCSI-0001"); }
virtio_blk() { mkimg virtio-blk 1G; EXPECT+=(virtio-blk)
	Q+=(-drive "if=none,id=vblk0,format=raw,file=$IMG/virtio-blk.raw" -device "virtio-blk-pci,id=vblk,drive=vblk0,serial=HRS-VBLK-0001"); }
# hotplug (issue 12): a virtio-scsi controller with no disk, and the image of the disk the
# scenario plugs into it (`!ours-host device_add scsi-hd,drive=hot0,...`)
hot_spare() { mkimg hot 256M
	Q+=(-device virtio-scsi-pci,id=vscsi -drive "if=none,id=hot0,format=raw,file=$IMG/hot.raw"); }
# ---- profile scsi (issue 22): two disks on QEMU's scsi-hd, each with the identity a real
# disk reports (vendor, product, serial, WWN for VPD 83h, rotation rate for B1h): one on
# virtio-scsi with 4096-byte physical blocks and discards passed to the image (UNMAP punches
# holes: the blocks read back as zeros, though LBPRZ does not promise it); one on an LSI SAS
# 1068 HBA, which Linux drives with its real mptsas driver and the SAS transport class,
# discards ignored (UNMAP is accepted and the data stays). Kinds: virtio-scsi, sas-hd; the
# guest adds scsi-debug (the kernel's scsi_debug, guest/scsi.sh).
scsi_disks() { mkimg virtio-scsi 1G; mkimg sas-hd 1G; EXPECT+=(virtio-scsi sas-hd scsi-debug)
	Q+=(-device virtio-scsi-pci,id=vscsi
	    -drive "if=none,id=vscsihd,format=raw,discard=unmap,file=$IMG/virtio-scsi.raw"
	    -device "scsi-hd,drive=vscsihd,bus=vscsi.0,vendor=HDPARMRS,product=VSCSI DISK,ver=1.0,serial=HRS-VSCSI-0001,wwn=0x5000c500a1b2c3e5,rotation_rate=7200,physical_block_size=4096"
	    -device mptsas1068,id=sas,sas_address=0x5000c500a1b2c300
	    -drive "if=none,id=sashd,format=raw,file=$IMG/sas-hd.raw"
	    -device "scsi-hd,drive=sashd,bus=sas.0,scsi-id=0,vendor=HDPARMRS,product=SAS DISK,ver=1.0,serial=HRS-SAS-0001,wwn=0x5000c500a1b2c3f6,rotation_rate=15000"); }
case $PROFILE in
main) ide_hd; ide_cd; ahci; ahci_hd; ahci_cd; nvme; virtio_scsi; virtio_blk;;
# libata retries a failed read and lowers the link speed for the rest of the boot, so the
# fault scenarios get a boot (and drives) of their own
faults) FAULT=1; ide_hd; ahci; ahci_hd;;
# drives the guest asks the host to remove mid-run (`!host device_del ...` steps): each
# on a PCI function of its own, which the pc machine's ACPI hotplug can take away
unplug) ahci; ahci_hd; nvme; virtio_blk;;
# scripts/demo: the drive kinds a newcomer has (SATA and PATA disks, an optical drive, NVMe).
# Under TCG on a busy host QEMU's NVMe device can take longer than the driver's 30 s to answer
# a read, and the driver then aborts it and resets the controller: give it 120 s
demo) ide_hd; ide_cd; ahci; ahci_hd; nvme
	APPEND_PROFILE=" nvme_core.io_timeout=120";;
# NVMe (issue 10): the NVMe drive alone, with nvme-cli and the controller model in the guest
nvme) nvme_unmap;;
# ---- drive model: no QEMU drive; the guest makes the model's SCSI disk (guest/init)
model) EXPECT+=(model); APPEND_MODEL=" bench.model=1";;
# ---- issue 19 (tests/clients/): every drive kind and the model, to record both tools' answers
# to the command lines of the programs that run hdparm (scenarios/clients.tsv)
clients) ide_hd; ide_cd; ahci; ahci_hd; ahci_cd; nvme; virtio_scsi; virtio_blk
	EXPECT+=(model); APPEND_MODEL=" bench.model=1";;
# ---- tune (issue 11): --experiment and --advise on the IDE and AHCI disks, --surface over a
# device-mapper table on the virtio disk; hotplug (issue 12): hdparm.conf applied on hotplug
# and resume, and by a CD-ROM that rejects a setting ----
tune) ide_hd; ahci; ahci_hd; virtio_blk;;
hotplug) ide_cd; ahci; ahci_hd; hot_spare;;
# ---- issue 22: SCSI disks with sg3_utils and sdparm as the oracle (tests/vm_scsi.rs)
# the model's SAS disk beside them (kind scsi-model): what QEMU's and scsi_debug's disks lack
scsi) scsi_disks; EXPECT+=(scsi-model); APPEND_MODEL=" bench.model=scsi";;
*) echo "run.sh: unknown profile $PROFILE" >&2; exit 1;;
esac
KINDS=$(IFS=,; echo "${EXPECT[*]}")

# emptied first, but only if it is empty or holds an earlier run: --out / must not hurt
if [ -d "$OUT" ] && [ -n "$(ls -A "$OUT")" ] && [ ! -e "$OUT/results.log" ]; then
	echo "run.sh: $OUT is not empty and holds no earlier results; not emptying it" >&2; exit 1
fi
rm -rf "$OUT"; mkdir -p "$OUT"
echo "$KINDS" | tr , '\n' > "$OUT/expected-kinds"
# the comparison reads the list the guest ran, not whatever the repo holds later
cp "$SCEN" "$OUT/scenarios.tsv"
: > "$OUT/results.log"
# no_timer_check: under TCG on a loaded host the kernel's check of the IO-APIC timer can see
# too few ticks and panic ("IO-APIC + timer doesn't work!", seen with six VMs and builds on two
# cores); the emulated timer is fine, only slow, so the check is skipped.
Q+=(-initrd "$INITRD"
    -append "console=ttyS0,115200 panic=-1 no_timer_check rdinit=/init bench.expect=$KINDS bench.timeout=$CMD_TMO${APPEND_MODEL:-}${APPEND_PROFILE:-}$DEMO_APPEND"
    -serial "$CONSOLE" -serial "file:$OUT/results.log")
# QEMU's human monitor on a pair of FIFOs (QEMU opens DIR/mon.in and DIR/mon.out): the
# guest's `!host CMD` steps are relayed there, with nothing but bash on the host side
mkfifo "$WORK/mon.in" "$WORK/mon.out"
Q+=(-chardev "pipe,id=mon,path=$WORK/mon" -mon chardev=mon,mode=readline)
printf '%q ' "${Q[@]}" | sed "s#$WORK#\$WORK#g" > "$OUT/qemu-cmdline.txt"; echo >> "$OUT/qemu-cmdline.txt"

# ----------------------------------------------------------------------- boot -----
log "booting profile $PROFILE ($ACCEL, $BOOT): $KINDS"
TQ=$(date +%s.%N)
timeout "$TIMEOUT" "${Q[@]}" > "$OUT/qemu.out" 2>&1 &
QPID=$!
# the monitor's answers, drained so QEMU never blocks on a full pipe
cat "$WORK/mon.out" > "$OUT/monitor.log" &
MPID=$!
declare -A AT=()
# the host-side clock for the guest's progress: when each marker first appears
while kill -0 "$QPID" 2>/dev/null; do
	for m in HELLO DEVICES R; do
		[ -z "${AT[$m]:-}" ] && grep -qa "^@@$([ $m = R ] && echo R || echo "M $m")" "$OUT/results.log" &&
			AT[$m]=$(since "$TQ")
	done
	[ -n "${AT[R]:-}" ] && break
	sleep 0.05
done
# relay the guest's "@@M HOST <n> <monitor command>" requests, if its scenarios make any
# ("!ours-host CMD": the same, asked in our pass only; the hotplug profile)
if grep -q -e $'\t!host ' -e ' ;; !host ' -e '!ours-host ' "$SCEN"; then
	done_host=0
	while kill -0 "$QPID" 2>/dev/null; do
		n=0
		while IFS= read -r req; do
			n=$((n + 1)); [ $n -le $done_host ] || {
				log "monitor: ${req#* }"
				echo "${req#* }" > "$WORK/mon.in"; done_host=$n; }
		done < <(grep -a '^@@M HOST ' "$OUT/results.log" | cut -d' ' -f3-)
		sleep 0.1
	done
fi
QRC=0; wait "$QPID" || QRC=$?
QPID=
wait "$MPID" 2>/dev/null || true
TOTAL=$(since "$TQ")
log "qemu exited (status $QRC) after ${TOTAL}s"
{
	echo "profile: $PROFILE   accel: $ACCEL   boot: $BOOT   kernel: $KREL ($(cat "$KDIR/version"))"
	echo "qemu: $(qemu-system-x86_64 --version | head -1)   host cpus: $(nproc)"
	echo "qemu start -> guest init runs:       ${AT[HELLO]:-never}s"
	echo "qemu start -> drives ready:          ${AT[DEVICES]:-never}s"
	echo "qemu start -> first result:          ${AT[R]:-never}s"
	echo "qemu start -> guest powered off:     ${TOTAL}s (qemu status $QRC)"
	echo "run.sh start -> end:                 $(since "$T0")s"
	grep -a '^@@M ' "$OUT/results.log" | sed 's/^@@M /guest: /'
} > "$OUT/timing.txt"
cat "$OUT/timing.txt" >&2

# ------------------------------------------------------------ split for reading ----
perl -e '
	my ($out) = @ARGV; local $/; open my $f, "<", "$out/results.log" or die; binmode $f; my $s = <$f>;
	my $n = 0;
	while ($s =~ /^\@\@R (\S+) (\S+) (\S+) (\d+) (\d+) (\S+) (\d+) (\d+) (\d+) (\d+)\n/mg) {
		my ($k, $id, $tool, $step, $rc, $sec, @len) = ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);
		my $pos = pos($s); my @blob;
		for my $l (@len) { push @blob, substr($s, $pos, $l); $pos += $l }
		pos($s) = $pos;
		my $d = "$out/$k/$id"; system("mkdir", "-p", $d);
		my %f = (cmd => $blob[0], stdout => $blob[1], stderr => $blob[2], dmesg => $blob[3], exit => "$rc\n");
		for (keys %f) { open my $o, ">", "$d/$tool.$step.$_" or die; binmode $o; print $o $f{$_} }
		$n++;
	}
	print STDERR "split: $n records\n";
' "$OUT"
grep -qa '^@@M DONE' "$OUT/results.log" || { echo "run.sh: the guest did not finish (see $OUT/console.log)" >&2; exit 1; }
