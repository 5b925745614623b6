#!/usr/bin/perl
# tests/clients/inventory.pl - runs the hdparm code of two inventory agents (Debian's
# fusioninventory-agent and ocsinventory-agent, unpacked, never installed) against one
# recording:
#   - FusionInventory's Linux storage inventory: _getHdparmInfo, which checks `hdparm -V`
#     (at least 9.15) and then reads the drive's fields from `hdparm -I DEV`
#     (getHdparmInfo); "saves FIELD=VALUE" for each field it would send to the server;
#   - OCS Inventory's correctHdparmAvailable (`hdparm -V` at least 9.15).
# Both run as the agents run them; hdparm is tests/clients/stub/hdparm on PATH, the device
# CLIENTS_DEV. The agents' logger is not needed: these functions log nothing.
use strict;
use warnings;
my $pkg = $ENV{CLIENTS_PKG};
use lib "$ENV{CLIENTS_PKG}/fusioninventory-agent/usr/share/fusioninventory/lib";
use lib "$ENV{CLIENTS_PKG}/ocsinventory-agent/usr/share/perl5";
require FusionInventory::Agent::Task::Inventory::Linux::Storages;
require Ocsinventory::Agent::Backend::OS::Linux::Storages;

my $dev = $ENV{CLIENTS_DEV};
my $fusion_ok = FusionInventory::Agent::Task::Inventory::Linux::Storages::_correctHdparmAvailable();
print "shows fusioninventory: hdparm usable: ", ($fusion_ok ? "yes" : "no"), "\n";
my $info = FusionInventory::Agent::Task::Inventory::Linux::Storages::_getHdparmInfo(device => $dev);
if ($info) {
    print "saves fusioninventory $_=$info->{$_}\n" for sort keys %$info;
} else {
    print "saves fusioninventory: nothing from hdparm\n";
}
my $ocs_ok = Ocsinventory::Agent::Backend::OS::Linux::Storages::correctHdparmAvailable();
print "shows ocsinventory: hdparm usable: ", ($ocs_ok ? "yes" : "no"), "\n";
