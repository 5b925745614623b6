#!/bin/sh
# tests/clients/tlp.sh - runs tlp's disk code (Debian's tlp package, unpacked, never installed:
# its service would retune the machine) against one recording: `tlp-stat -d`'s disk report
# (show_disk_data: hdparm -C, -I for model, firmware, APM level, SSD and TRIM, and -y to put a
# drive back to sleep), then what `tlp ac` and `tlp bat` do to the disk (set_disk_apm_level with
# the default levels 254 on AC and 128 on battery, set_disk_spindown_timeout 0), with tlp's
# debug log on.
#
# tlp's own functions run unchanged, sourced from the package as tlp-stat sources them; the
# surroundings are stand-ins: get_disk_dev (which asks udev what bus the disk is on, whether it
# says APM) answers with the udev facts of the drive kind (CLIENTS_KIND), since the drive is in
# the VM; hdparm, logger (tlp's debug log, printed as "debug ...") and udevadm are the stubs of
# tests/clients/stub/ on PATH. The device is /dev/hrs-<kind>, a name no host device has (so
# nothing on this machine is read: /sys/block/hrs-* does not exist).
# the stub logger writes tlp's debug messages here (tlp sends its stdout to /dev/null)
exec 3>&1
TLP=$CLIENTS_PKG/tlp/usr/share/tlp
. "$TLP/tlp-func-base"
. "$TLP/func.d/05-tlp-func-pm"
. "$TLP/func.d/15-tlp-func-disk"
. "$TLP/func.d/tlp-func-stat"
# the defaults tlp reads its configuration over
. "$TLP/defaults.conf"

NAME=${CLIENTS_DEV#/dev/}
get_disk_dev () {
    # udev's answers for the drive kind: the bus (ID_PATH/ID_BUS) and ata_id's
    # ID_ATA_FEATURE_SET_PM_ENABLED; no scheduler or runtime PM to show
    _disk_dev=$NAME
    _disk_id=""
    case "$CLIENTS_KIND:$CLIENTS_STATE" in
        ide-*) _disk_type=ata ;;
        model:bridge*) _disk_type=usb ;;
        ahci-*|model:*) _disk_type=sata ;;
        nvme) _disk_type=nvme ;;
        *) _disk_type=unknown ;;
    esac
    case "$_disk_type" in ata|sata) _disk_apm=1 ;; *) _disk_apm=0 ;; esac
    _disk_mq=1
    _disk_runpm=3
    [ -z "$2" ] || [ "$2" = "$_disk_dev" ]
}

TLP_DEBUG=disk
show_disk_data "$NAME"
DISK_DEVICES=$NAME
DISK_APM_LEVEL_ON_AC="254 254"
DISK_APM_LEVEL_ON_BAT="128 128"
DISK_SPINDOWN_TIMEOUT_ON_AC="0 0"
DISK_SPINDOWN_TIMEOUT_ON_BAT="0 0"
set_disk_apm_level 0
set_disk_apm_level 1
set_disk_spindown_timeout 0
exit 0
