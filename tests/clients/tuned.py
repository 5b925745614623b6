#!/usr/bin/python3
"""tests/clients/tuned.py - runs tuned's disk plugin (Debian's tuned package, unpacked, never
installed: its daemon would retune the machine) against one recording, as tuned would on a
machine with that drive: the plugin's own code decides, only its surroundings are stand-ins.

- The hardware inventory holds one block device with the udev facts the drive kind has
  (CLIENTS_KIND): type disk, `removable` 0 for disks and 1 for CD-ROMs, the parent's subsystem.
- hdparm is tests/clients/stub/hdparm on PATH (CLIENTS_RECORDING, CLIENTS_DEV, CLIENTS_LOG).
- Profile spindown-disk's [disk] section (apm=128, spindown=6: the one Debian profile with
  hdparm settings) is applied, then rolled back, through the plugin base's own path (which
  reads and saves the current value first); then the dynamic tuning runs on load samples
  as tuned's disk monitor reports them: six idle, one busy, one idle.

Prints what tuned logs (level INFO and up, as the daemon logs), and "saves KEY=VALUE" for what
it kept for the rollback. CLIENTS_PKG is the folder the packages were unpacked into.
"""
import logging
import os
import sys

sys.path.insert(0, os.path.join(os.environ["CLIENTS_PKG"], "tuned/usr/lib/python3/dist-packages"))
import tuned.logs  # noqa: E402
from tuned.plugins.plugin_disk import DiskPlugin  # noqa: E402

KIND = os.environ["CLIENTS_KIND"]
DEVICE = os.path.basename(os.environ["CLIENTS_DEV"])

log = logging.getLogger("tuned")
for h in list(log.handlers):
    log.removeHandler(h)
handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
log.addHandler(handler)
log.setLevel(logging.INFO)
log.propagate = False


class Parent:
    subsystem = {"nvme": "nvme", "virtio-blk": "virtio"}.get(KIND, "scsi")


class Device:
    """What pyudev tells the plugin about the drive."""

    sys_name = DEVICE
    device_type = "disk"
    attributes = {"removable": b"1" if KIND.endswith("-cd") else b"0"}
    parent = Parent()


class Inventory:
    def get_devices(self, subsystem):
        return [Device()] if subsystem == "block" else []

    def get_device(self, subsystem, name):
        return Device()

    def subscribe(self, *args):
        pass


class Storage:
    """tuned's persistent storage (/run/tuned/save.pickle): what a rollback restores."""

    def __init__(self):
        self.data = {}

    def set(self, key, value):
        self.data[key] = value

    def get(self, key, default=None):
        return self.data.get(key, default)

    def unset(self, key):
        self.data.pop(key, None)


class StorageFactory:
    storage = Storage()

    def create(self, name):
        return self.storage


class LoadMonitor:
    """tuned's disk monitor: the cumulative /sys/block/X/stat counters per sample."""

    def __init__(self):
        # six idle samples (level 1: -B225, -S250), then 500 sectors read and written (back to
        # level 0: -B254, -S0), then idle again (a spindown change delayed while the drive
        # slept is made once it spins)
        busy = [0, 500, 0, 0, 0, 500, 0, 0, 0, 0, 0]
        self.samples = [[0] * 11] * 6 + [busy, busy]

    def add_device(self, device):
        pass

    def remove_device(self, device):
        pass

    def get_device_load(self, device):
        return self.samples.pop(0) if self.samples else None


class Monitors:
    def create(self, name, devices):
        return LoadMonitor()

    def delete(self, monitor):
        pass


class Variables:
    def expand(self, value):
        return value


class Instance:
    name = "spindown-disk"
    options = {"apm": "128", "spindown": "6", "dynamic": "1", "elevator": None,
               "readahead": None, "readahead_multiply": None, "scheduler_quantum": None}
    assigned_devices = {DEVICE}


plugin = DiskPlugin(Monitors(), StorageFactory(), Inventory(), None, None, None, None, Variables())
plugin.init_devices()
supported = [d for d in plugin._free_devices]
print("shows hdparm apm devices: %s" % sorted(plugin._hdparm_apm_devices))
print("shows tuned disk devices: %s" % sorted(supported))
if DEVICE in supported:
    instance = Instance()
    plugin._instance_init(instance)
    plugin._execute_all_device_commands(instance, [DEVICE])
    for key, value in sorted(StorageFactory.storage.data.items()):
        print("saves %s=%s" % (key, value))
    plugin._cleanup_all_device_commands(instance, [DEVICE])
    plugin._instance_apply_dynamic(instance, DEVICE)
    for _ in range(8):
        plugin._instance_update_dynamic(instance, DEVICE)
    print("shows dynamic level %s, spindown change delayed: %s" % (
        instance._idle.get(DEVICE, {}).get("level"),
        instance._spindown_change_delayed.get(DEVICE)))
    print("shows error counts: apm %d, spindown %d" % (plugin._apm_errcnt, plugin._spindown_errcnt))
