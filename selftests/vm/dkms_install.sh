#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154 # dash has local; lib_fastpath sets FPD_*
# The user's install flow, end to end, in the guest (dkms-vm.sh boots it):
# "make dkms-install" from the source tree, "modprobe fasttrack" loads the
# module DKMS installed, "ftctl enable" and a TCP transfer that the fast
# path forwards, then "make dkms-remove" leaves nothing behind.
#
# DKMS, make and gcc come from a Debian root shared read-only over 9p with
# a tmpfs overlay on top (lib_dkmsroot.sh).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_dkmsroot.sh"
# shellcheck source=/dev/null # written by dkms-vm.sh
. "$(dirname "$0")/dkms.env"

require_cmd modprobe rmmod modinfo depmod chroot mount ftctl
fp_init
dkms_root_setup
kver=$KVER
check_fail "no fasttrack module before dkms install" "not found" modinfo fasttrack

# ---------------------------------------------------------------- install --
src=/tmp/fasttrack-src
must cp -r /src/fasttrack "$R$src"
out=$(in_root make -C "$src" dkms-install 2>&1)
rc=$?
check_eq "make dkms-install succeeds" 0 "$rc"
[ "$rc" = 0 ] || { printf '%s\n' "$out"; cat "$R"/var/lib/dkms/fasttrack/*/build/make.log 2>/dev/null; ft_exit; }
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$R$src/dkms.conf")
check "dkms status: fasttrack/$ver installed for $kver" \
	sh -c "chroot $R dkms status fasttrack | grep -q '^fasttrack/$ver, $kver, .*: installed'"
ko=$(modinfo -n fasttrack 2>/dev/null)
check "modinfo finds DKMS's module under $M/updates/dkms" \
	sh -c "case '$ko' in $M/updates/dkms/fasttrack.ko*) ;; *) exit 1 ;; esac"

check "modprobe fasttrack" modprobe fasttrack
check_eq "the loaded module is DKMS's version" "$ver" "$(cat /sys/module/fasttrack/version 2>/dev/null)"

# ------------------------------------------- enable and an offloaded flow --
fp_setup_stick
fp_rand size 4194304 8388608
file=$(fp_mkfile tcp4 "$size")
fp_begin
fp_tcp_transfer "IPv4 TCP upload" 4 "$file"
fp_end
fp_check_offload "IPv4 TCP upload" "$size" "$FPD_C2S" "$(fp_cdelta 4)"

# ----------------------------------------------------------------- remove --
check "rmmod fasttrack" rmmod fasttrack
out=$(in_root make -C "$src" dkms-remove 2>&1)
rc=$?
check_eq "make dkms-remove succeeds" 0 "$rc"
printf '%s\n' "$out" | sed 's/^/make dkms-remove: /'
check_eq "nothing left in /var/lib/dkms/fasttrack, /usr/src/fasttrack-*" "" \
	"$(ls -d "$R"/var/lib/dkms/fasttrack "$R"/usr/src/fasttrack-* 2>/dev/null)"
check_eq "no fasttrack module left under $M" "" "$(find "$M" -name 'fasttrack.ko*')"
check_fail "modprobe fasttrack fails after dkms remove" "not found" modprobe fasttrack

check_dmesg_clean "no kernel warning through install, use and removal"
fp_exit
