#!/bin/sh
# tests/clients/laptop-mode-tools.sh - runs laptop-mode-tools' hdparm module (Debian's
# laptop-mode-tools package, unpacked, never installed: its service would retune the machine)
# against one recording, as laptop_mode runs it (sourced, with laptop_mode's settings in the
# environment and its log function), three times: on AC with laptop mode active (-B 254,
# -S 4: 20 s), on battery (-B 1, -S 4), on AC with laptop mode off (-B 254, -S 244: 2 h).
#
# The drive is CLIENTS_DEV, a file outside /dev that udev has no record of (the udevadm stub
# with CLIENTS_UDEV=unknown) and whose name is neither hd*, sd* nor sr*, as a /dev/disk/by-id
# name is: the module's is_capable then asks `hdparm -I DEV | grep -q CD-ROM` whether it is
# an optical drive (those it leaves alone), its one use of hdparm's output. hdparm is
# tests/clients/stub/hdparm on PATH.
MODULE=$CLIENTS_PKG/laptop-mode-tools/usr/share/laptop-mode-tools/modules/hdparm
log () { echo "log $1 $2"; }
HD=$CLIENTS_DEV
CONTROL_HD_POWERMGMT=1
CONTROL_HD_IDLE_TIMEOUT=1
CONTROL_HD_WRITECACHE=0
ASSUME_SCSI_IS_SATA=1
LM_AC_HD_POWERMGMT=254
NOLM_AC_HD_POWERMGMT=254
BATT_HD_POWERMGMT=1
LM_AC_HD_IDLE_TIMEOUT=4
LM_AC_HD_IDLE_TIMEOUT_SECONDS=20
LM_BATT_HD_IDLE_TIMEOUT=4
LM_BATT_HD_IDLE_TIMEOUT_SECONDS=20
NOLM_HD_IDLE_TIMEOUT=244
NOLM_HD_IDLE_TIMEOUT_SECONDS=7200
export CLIENTS_UDEV=unknown
for pass in "1 1" "0 1" "1 0"; do
	set -- $pass
	ON_AC=$1 ACTIVATE=$2 ACTIVATE_WITH_POSSIBLE_DATA_LOSS=$2
	echo "pass ON_AC=$ON_AC ACTIVATE=$ACTIVATE"
	. "$MODULE"
done
exit 0
