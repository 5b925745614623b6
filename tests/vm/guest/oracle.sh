# tests/vm/guest/oracle.sh - issue 12: Debian's hdparm.conf scripts as the oracle of --apply,
# in profile model. Sourced by guest/init (busybox ash); run.sh puts it, Debian's
# /lib/udev/hdparm, /lib/hdparm/hdparm-functions and /usr/lib/pm-utils/power.d/95hdparm-apm,
# perl and coreutils' readlink (the scripts use `readlink -m`, which busybox lacks) into the
# initramfs, and the configs of tests/vm/conf/ into /etc/bench/conf/.
#
# The guest has no udev and no pm-utils, so oracle_setup gives both tools the same facts:
# - /dev/disk/by-id/ata-<model>_<serial> -> the model disk (udev's ata_id naming, from IDENTIFY),
#   so a config can name the disk by id;
# - /run/udev/data/b<major>:<minor> with the properties udev's ata_id would give the disk
#   (ID_ATA_FEATURE_SET_APM=1 when IDENTIFY word 83 says APM): ours reads that file
#   (src/device/system.rs udev_property), and a /bin/udevadm stub prints it for Debian's
#   `udevadm info -n DEV -q property`;
# - /usr/bin/on_ac_power (Debian's hdparm_is_on_battery: exit 1 = battery) and a tmpfs over
#   /sys/class/power_supply (ours: a discharging Battery and no Mains = battery), both set by
#   `bench-power battery|ac` (a "!" step); AC when no step said otherwise.

# oracle_setup DEV: once, at boot, before the first scenario (its IDENTIFY is not in any log)
oracle_setup() {
	_dev=$1
	/sbin/hdparm -I "$_dev" > /tmp/oracle.I 2>&1
	_model=$(sed -n 's/^[[:space:]]*Model Number:[[:space:]]*//p' /tmp/oracle.I | sed 's/[[:space:]]*$//')
	_serial=$(sed -n 's/^[[:space:]]*Serial Number:[[:space:]]*//p' /tmp/oracle.I | sed 's/[[:space:]]*$//')
	_apm=0
	grep -q 'Advanced Power Management feature set' /tmp/oracle.I && _apm=1
	# ata_id: ID_SERIAL is model_serial with blanks as underscores
	_id=$(echo "${_model}_${_serial}" | tr ' ' _)
	mkdir -p /dev/disk/by-id /run/udev/data /usr/bin
	ln -sf "../../${_dev#/dev/}" "/dev/disk/by-id/ata-$_id"
	_mm=$(stat -c '%t %T' "$_dev")
	_maj=$((0x${_mm% *})); _min=$((0x${_mm#* }))
	{
		echo "E:DEVNAME=$_dev"
		echo "E:ID_ATA=1"
		echo "E:ID_BUS=ata"
		echo "E:ID_TYPE=disk"
		echo "E:ID_MODEL=$(echo "$_model" | tr ' ' _)"
		echo "E:ID_SERIAL=$_id"
		echo "E:ID_SERIAL_SHORT=$_serial"
		echo "E:ID_ATA_FEATURE_SET_APM=$_apm"
	} > "/run/udev/data/b$_maj:$_min"
	cat > /bin/udevadm <<'EOF'
#!/bin/sh
# stub of `udevadm info -n DEV -q property`: the guest's /run/udev/data file, without "E:"
[ "$1" = info ] || exit 1
dev=
while [ $# -gt 0 ]; do case $1 in -n) dev=$2; shift;; esac; shift; done
mm=$(stat -L -c '%t %T' "$dev") || exit 1
f=/run/udev/data/b$((0x${mm% *})):$((0x${mm#* }))
[ -r "$f" ] || exit 1
sed -n 's/^E://p' "$f"
EOF
	cat > /usr/bin/on_ac_power <<'EOF'
#!/bin/sh
# pm-utils' on_ac_power: 0 on AC, 1 on battery
[ -e /run/bench-battery ] && exit 1
exit 0
EOF
	cat > /bin/bench-power <<'EOF'
#!/bin/sh
# bench-power battery|ac: the power source both tools see
ps=/sys/class/power_supply
grep -q " $ps tmpfs" /proc/mounts || mount -t tmpfs tmpfs $ps || exit 1
rm -rf $ps/* /run/bench-battery
case $1 in
battery) mkdir $ps/BAT0; echo Battery > $ps/BAT0/type; echo Discharging > $ps/BAT0/status
	: > /run/bench-battery;;
ac) mkdir $ps/AC; echo Mains > $ps/AC/type; echo 1 > $ps/AC/online;;
*) echo "usage: bench-power battery|ac" >&2; exit 2;;
esac
EOF
	chmod 755 /bin/udevadm /usr/bin/on_ac_power /bin/bench-power
	echo "by-id: /dev/disk/by-id/ata-$_id -> $_dev; APM in IDENTIFY: $_apm"
}

# oracle_apply TOOL DEV CONF: the step "debian-apply CONF [OPTION...]". CONF (a name under
# /etc/bench/conf/) becomes /etc/hdparm.conf; hdparm's pass runs what udev runs when the disk
# appears (DEVNAME=DEV /lib/udev/hdparm, which runs 95hdparm-apm and /sbin/hdparm), ours runs
# `hdparm --apply`. stdout/stderr/exit are the step's; the model's log says what was sent.
# CONF may be followed by options for ours only (issue 18: `debian-apply faults.conf --json`).
oracle_apply() {
	_tool=$1 _dev=$2
	# shellcheck disable=SC2086 # CONF and ours' options, split on purpose
	set -- $3
	cp "/etc/bench/conf/$1" /etc/hdparm.conf || return 2
	shift
	if [ "$_tool" = hdparm ] || [ "${SELFCHECK:-0}" = 1 ]; then
		DEVNAME=$_dev timeout "$TMO" /lib/udev/hdparm
	else
		timeout "$TMO" /opt/hdparm-rs/hdparm --apply "$@" --config /etc/hdparm.conf "$_dev"
	fi
}
