# tests/vm/guest/scsi.sh - profile scsi (issue 22): sourced by guest/init (busybox ash) when
# run.sh put it in the initramfs; runs nothing on the host.
#
# scsi_modules: loads the kernel's scsi_debug, a SCSI disk emulated inside the kernel, which
# answers LOG SENSE (temperature 0Dh, informational exceptions 2Fh), START STOP UNIT, REQUEST
# SENSE of a stopped unit, WRITE BUFFER, GET LBA STATUS and UNMAP with LBPRZ: some of what
# QEMU's scsi-hd lacks (tests/vm/README.md, profile scsi). One disk of 64 MiB held in guest
# memory; 4096-byte physical blocks over 512-byte logical ones; UNMAP (lbpu) with unmapped
# blocks promised to read as zeros (lbprz); no delay, so a step costs what the tool costs.
#
# scsi_logging: the kernel logs every command the SCSI midlayer sends (the ML QUEUE level 2 of
# scsi_logging_level: "Send: scmd ..." and a "CDB: <name> <hex>" line each), whoever sends it:
# sg3_utils, sdparm, hdparm, ours, and the sd driver itself (a cache_type write, a rescan).
# guest/init keeps each step's kernel messages with the step (its .dmesg file), so the CDBs of
# a step are on record beside its output. The console is kept quiet (dmesg -n 1), since a
# serial console at 115200 Bd would slow every command down.
scsi_modules() {
	insmod /lib/modules/scsi_debug.ko dev_size_mb=64 sector_size=512 physblk_exp=3 \
		lbpu=1 lbprz=1 delay=0 inq_vendor=HDPARMRS inq_product=SCSI_DEBUG 2>> /tmp/insmod.err
}
scsi_logging() {
	dmesg -n 1
	# ML QUEUE (bits 9-11) at level 2
	echo $((2 << 9)) > /proc/sys/dev/scsi/logging_level
}
