#!/usr/bin/env bash
# The Debian package in a real Debian 12 root (issue 19, section 1): install, install over
# Debian's hdparm with an edited /etc/hdparm.conf, upgrade, removal, Debian's hdparm back, and
# purge, each with dpkg in a chroot and no terminal, so that a conffile prompt fails the step.
#
#   tests/package/run.sh --previous OLD.deb --current NEW.deb
#
# OLD.deb must have a lower version than NEW.deb (scripts/build-deb --version). After each
# step: `dpkg --audit` says nothing; /sbin/hdparm is the expected package's file (dpkg -S, and
# the bytes of the .deb) and runs; every udev rule, udev helper, unit and sleep hook in the
# root that names an hdparm program names one that exists and that an installed package owns;
# /etc/hdparm.conf holds the expected bytes; the boot unit is enabled or disabled as expected.
# After each purge, the root holds exactly the paths it held before our package came.
#
# The root is Debian 12 from Debian's registry (mmdebstrap, variant apt, with systemd, udev and
# Debian's hdparm .deb in /root/debs), built once and cached as a tarball in
# $HDPARM_RS_PACKAGE_CACHE (default tests/package/cache); a change to the recipe below makes a
# new one. $HDPARM_RS_DEBIAN_MIRROR overrides http://deb.debian.org/debian (and
# $HDPARM_RS_DEBIAN_SECURITY its security archive). Needs root, mmdebstrap, chroot, dpkg-deb.
# Exits 0 when every step passed, 1 when one failed, 77 when the root cannot be built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
previous=""
current=""
while [ $# -gt 0 ]; do
  case "$1" in
    --previous) previous=$(realpath "$2"); shift 2 ;;
    --current) current=$(realpath "$2"); shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 22 ;;
  esac
done
[ -f "$previous" ] && [ -f "$current" ] || { echo "run.sh: --previous and --current are needed" >&2; exit 22; }
[ "$(id -u)" -eq 0 ] || { echo "run.sh: needs root (chroot, dpkg in the root)" >&2; exit 1; }
for tool in mmdebstrap chroot dpkg-deb flock; do
  command -v "$tool" > /dev/null || { echo "run.sh: $tool is missing" >&2; exit 1; }
done

# ---- the root
suite=bookworm
mirror=${HDPARM_RS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${HDPARM_RS_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}
hdparm_version=9.65+ds-1
recipe=(--variant=apt --include=systemd,udev,lsb-base
  "--customize-hook=chroot \"\$1\" sh -c 'mkdir -p /root/debs && cd /root/debs && apt-get download hdparm=$hdparm_version'"
  "$suite" - "deb $mirror $suite main" "deb $mirror $suite-updates main"
  "deb $security $suite-security main")
cache=${HDPARM_RS_PACKAGE_CACHE:-$here/cache}
mkdir -p "$cache"
key=$(printf '%s\n' "${recipe[@]}" | sha256sum | cut -c1-12)
tarball="$cache/$suite-$key.tar.gz"
(
  flock 9
  if [ ! -s "$tarball" ]; then
    echo "== building the Debian 12 root (mmdebstrap; cached as $tarball)"
    if ! mmdebstrap "${recipe[@]}" 2> "$cache/mmdebstrap.log" | gzip -1 > "$tarball.tmp"; then
      tail -20 "$cache/mmdebstrap.log" >&2
      rm -f "$tarball.tmp"
      echo "run.sh: cannot build the Debian 12 root (is $mirror reachable?)" >&2
      exit 77
    fi
    mv "$tarball.tmp" "$tarball"
  fi
) 9> "$cache/.lock" || exit $?

work=$(mktemp -d /tmp/hdparm-rs-package.XXXXXX)
root="$work/root"
trap 'rm -rf "$work"' EXIT
debian_hdparm=/root/debs/hdparm_${hdparm_version}_$(dpkg --print-architecture).deb

fail() {
  echo "FAIL ($step): $*" >&2
  exit 1
}

fresh_root() {
  rm -rf "$root"
  mkdir -p "$root"
  tar -xzf "$tarball" -C "$root"
  cp "$previous" "$root/tmp/previous.deb"
  cp "$current" "$root/tmp/current.deb"
  [ -L "$root/sbin" ] || fail "the root is not merged-/usr (/sbin is no link)"
}

# dpkg in the root, with no terminal and nothing on stdin: a question fails the step.
dpkg_in() {
  echo "\$ dpkg $*"
  if ! chroot "$root" dpkg "$@" < /dev/null > "$work/dpkg.log" 2>&1; then
    sed 's/^/  /' "$work/dpkg.log"
    fail "dpkg $* failed"
  fi
  sed 's/^/  /' "$work/dpkg.log"
  if grep -q "Configuration file '" "$work/dpkg.log"; then
    fail "dpkg $* asked about a configuration file"
  fi
}

# Every path of the root, with its type, but dpkg's database and logs and the packages in
# /tmp: what piuparts compares before an installation and after the purge.
snapshot() {
  chroot "$root" find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /tmp \
    -o -path /var/lib/dpkg -o -path /var/log -o -path /var/cache \) -prune -o -printf '%p %y\n' \
    | LC_ALL=C sort > "$work/$1.paths"
}

# same_paths BEFORE: the root holds exactly the paths it held at `snapshot BEFORE`.
same_paths() {
  snapshot after
  if ! diff -u "$work/$1.paths" "$work/after.paths" > "$work/paths.diff"; then
    sed 's/^/  /' "$work/paths.diff"
    fail "the root's files differ from before the installation (- gone, + left behind)"
  fi
  echo "ok ($step): the root holds the paths it held before"
}

# The hook check, run inside the root (absolute links resolve there): every file in these
# directories that names a program of hdparm (/sbin/hdparm, /lib/udev/hdparm, pm-utils'
# 95hdparm-apm ...) outside a comment, that program, whether it exists, and who owns both.
# Prints "HOOK HOOK_OWNER PROGRAM PROGRAM_OWNER STATE" lines; dpkg -S knows each file by the
# path its package ships, so the other spelling (/lib or /usr/lib) is asked too.
hooks_in_root='
owner() {
  for p in "$1" "${1#/usr}" "/usr$1"; do
    o=$(dpkg-query -S "$p" 2>/dev/null | sed -n "s|: $p\$||p" | head -1)
    [ -n "$o" ] && { echo "$o"; return; }
  done
  echo -
}
seen=" "
for d in /usr/lib/udev/rules.d /etc/udev/rules.d /usr/lib/udev /usr/lib/systemd/system \
  /etc/systemd/system /usr/lib/systemd/system-sleep /usr/lib/pm-utils/power.d \
  /usr/lib/pm-utils/sleep.d; do
  [ -d "$d" ] || continue
  for f in "$d"/*; do
    [ -f "$f" ] || continue
    real=$(readlink -f "$f")
    case "$seen" in *" $real "*) continue ;; esac
    seen="$seen$real "
    for prog in $(grep -Iv "^[[:space:]]*#" "$f" \
      | grep -oE "(^|[[:space:]=:\"'"'"'-])(/usr)?/(s?bin|lib)/[^[:space:]\"'"'"'}]*hdparm[^[:space:]\"'"'"'}/]*" \
      | sed "s|^[^/]*||" | sort -u); do
      if [ -e "$prog" ]; then state=exists; else state=MISSING; fi
      echo "$f $(owner "$f") $prog $(owner "$prog") $state"
    done
  done
done
'

# check OWNER CONF UNIT: /sbin/hdparm belongs to OWNER (hdparm-rs, hdparm or none);
# /etc/hdparm.conf has the md5sum CONF (or is absent); the boot unit is UNIT (enabled,
# disabled, or absent: no unit file and no link to it).
check() {
  local want_owner=$1 want_conf=$2 want_unit=$3
  local audit
  audit=$(chroot "$root" dpkg --audit 2>&1) || fail "dpkg --audit failed: $audit"
  [ -z "$audit" ] || fail "dpkg --audit: $audit"

  local owner
  owner=$(chroot "$root" dpkg-query -S /sbin/hdparm 2>/dev/null | sed -n 's|: /sbin/hdparm$||p' || true)
  case "$want_owner" in
    none)
      [ -z "$owner" ] || fail "/sbin/hdparm still belongs to $owner"
      [ ! -e "$root/usr/sbin/hdparm" ] || fail "/sbin/hdparm is left behind"
      ;;
    *)
      [ "$owner" = "$want_owner" ] || fail "dpkg -S /sbin/hdparm says '$owner', not $want_owner"
      [ -x "$root/usr/sbin/hdparm" ] || fail "/sbin/hdparm ($owner's) is not there"
      chroot "$root" /sbin/hdparm -V > /dev/null || fail "/sbin/hdparm -V does not run"
      ;;
  esac
  if [ "$want_owner" = hdparm-rs ]; then
    local deb shipped=""
    deb=$(chroot "$root" dpkg-query -W -f='${Version}' hdparm-rs)
    for candidate in "$previous" "$current"; do
      [ "$(dpkg-deb -f "$candidate" Version)" = "$deb" ] && shipped=$candidate
    done
    dpkg-deb --fsys-tarfile "$shipped" | tar -xO ./sbin/hdparm | cmp -s - "$root/usr/sbin/hdparm" \
      || fail "/sbin/hdparm is not the file hdparm-rs $deb ships"
  fi

  local hooks
  hooks=$(chroot "$root" sh -c "$hooks_in_root") || fail "the hook check did not run"
  echo "$hooks" | sed '/^$/d; s/^/  hook: /'
  if echo "$hooks" | grep -q " MISSING$"; then
    fail "a hook names a program that is not there: $(echo "$hooks" | grep " MISSING$")"
  fi
  local hook_owner prog_owner
  while read -r _ hook_owner _ prog_owner _; do
    for o in "$hook_owner" "$prog_owner"; do
      [ -z "$o" ] || [ "$o" = - ] && continue
      [ "$(chroot "$root" dpkg-query -W -f='${db:Status-Abbrev}' "$o")" = "ii " ] \
        || fail "a hook or the program it names belongs to $o, which is not installed"
    done
  done <<< "$hooks"
  local ours
  ours=$(echo "$hooks" | awk '$2 == "hdparm-rs" && $3 == "/sbin/hdparm"' | wc -l)
  if [ "$want_owner" = hdparm-rs ]; then
    [ "$ours" -eq 4 ] || fail "$ours of hdparm-rs's rule, units and sleep hook name /sbin/hdparm, not 4"
  else
    [ "$ours" -eq 0 ] || fail "hdparm-rs's hooks are left behind"
  fi
  if [ "$want_owner" = hdparm ]; then
    echo "$hooks" | grep -q "^/usr/lib/udev/hdparm hdparm /sbin/hdparm hdparm exists$" \
      || fail "Debian's /lib/udev/hdparm does not run its /sbin/hdparm"
  fi

  case "$want_conf" in
    absent) [ ! -e "$root/etc/hdparm.conf" ] || fail "/etc/hdparm.conf is left behind" ;;
    *)
      local sum
      sum=$(md5sum < "$root/etc/hdparm.conf" | cut -d' ' -f1)
      [ "$sum" = "$want_conf" ] || fail "/etc/hdparm.conf is not the expected file (md5 $sum, not $want_conf)"
      ;;
  esac

  local link="$root/etc/systemd/system/multi-user.target.wants/hdparm-rs-apply.service"
  case "$want_unit" in
    absent)
      [ ! -e "$root/usr/lib/systemd/system/hdparm-rs-apply.service" ] || fail "the unit is left behind"
      [ ! -L "$link" ] || fail "the unit's link in multi-user.target.wants is left behind"
      ;;
    *)
      local state
      state=$(chroot "$root" systemctl is-enabled hdparm-rs-apply.service 2>&1 || true)
      [ "$state" = "$want_unit" ] || fail "the boot unit is '$state', not $want_unit"
      ;;
  esac
  echo "ok ($step): /sbin/hdparm: $want_owner; /etc/hdparm.conf: $want_conf; unit: $want_unit"
}

debian_conf=$(tar -xzOf "$tarball" ".$debian_hdparm" | dpkg-deb --fsys-tarfile /dev/stdin \
  | tar -xO ./etc/hdparm.conf | md5sum | cut -d' ' -f1)
ours_conf=$(dpkg-deb --fsys-tarfile "$current" | tar -xO ./etc/hdparm.conf | md5sum | cut -d' ' -f1)
[ "$ours_conf" = "$debian_conf" ] \
  || { step=conffile; fail "the package's /etc/hdparm.conf is not Debian's hdparm $hdparm_version's, byte for byte"; }

step="1 fresh install"
echo "== $step"
fresh_root
snapshot bare
dpkg_in -i /tmp/current.deb
check hdparm-rs "$debian_conf" enabled

step="2 purge"
echo "== $step"
dpkg_in --purge hdparm-rs
check none absent absent
for left in /var/lib/systemd/deb-systemd-helper-enabled/hdparm-rs-apply.service.dsh-also /run/hdparm; do
  [ ! -e "$root$left" ] || fail "$left is left behind"
done
same_paths bare

step="3 install over Debian's hdparm, with an edited /etc/hdparm.conf"
echo "== $step"
fresh_root
dpkg_in -i "$debian_hdparm"
check hdparm "$debian_conf" absent
snapshot debian
printf '/dev/disk/by-id/ata-EXAMPLE_DISK_1234 {\n\tspindown_time = 241\n}\n' >> "$root/etc/hdparm.conf"
edited=$(md5sum < "$root/etc/hdparm.conf" | cut -d' ' -f1)
dpkg_in -i /tmp/previous.deb
[ "$(chroot "$root" dpkg-query -W -f='${db:Status-Abbrev}' hdparm)" != "ii " ] \
  || fail "Debian's hdparm is still installed beside hdparm-rs"
check hdparm-rs "$edited" enabled

step="4 upgrade, after the administrator disabled the boot unit"
echo "== $step"
chroot "$root" systemctl disable hdparm-rs-apply.service 2>&1 | sed 's/^/  /'
check hdparm-rs "$edited" disabled
dpkg_in -i /tmp/current.deb
[ "$(chroot "$root" dpkg-query -W -f='${Version}' hdparm-rs)" = "$(dpkg-deb -f "$current" Version)" ] \
  || fail "the upgrade did not install the current version"
check hdparm-rs "$edited" disabled

step="5 removal"
echo "== $step"
dpkg_in --remove hdparm-rs
check none "$edited" absent

step="6 Debian's hdparm back"
echo "== $step"
dpkg_in -i "$debian_hdparm"
check hdparm "$edited" absent

step="7 purge of hdparm-rs, with Debian's hdparm installed"
echo "== $step"
dpkg_in --purge hdparm-rs
[ -z "$(chroot "$root" dpkg-query -W -f='${db:Status-Abbrev}' hdparm-rs 2>/dev/null)" ] \
  || fail "hdparm-rs is still known to dpkg"
check hdparm "$edited" absent
same_paths debian

echo "== all steps passed"
