#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ftctl loads the module on demand. fasttrack.ko declares its generic
# netlink family as a module alias (MODULE_ALIAS_GENL_FAMILY), so when
# ftctl's CTRL_CMD_GETFAMILY finds no "fasttrack" family, the kernel runs
# modprobe for net-pf-16-proto-16-family-fasttrack, which depmod maps to
# the installed module. With no module installed, ftctl says to modprobe it.
. "$(dirname "$0")/lib.sh"

require_cmd modprobe rmmod modinfo depmod ftctl
ft_module_loaded && must rmmod fasttrack
dmesg_mark

kver=$(uname -r)
alias=net-pf-16-proto-16-family-fasttrack
ko=$(modinfo -n fasttrack 2>/dev/null)
# shellcheck disable=SC2016 # expanded by the inner sh
check "fasttrack.ko is installed under /lib/modules/$kver" \
	sh -c 'case $1 in "/lib/modules/$2/"*) ;; *) exit 1 ;; esac' - "$ko" "$kver"
check_output "the module declares its genl family alias" "$alias" \
	sh -c "modinfo -F alias fasttrack | grep -x '$alias'"
check "modprobe maps the alias to the installed module" \
	sh -c "modprobe -n -v $alias | grep -qF '$ko'"

check "ftctl show works with the module unloaded" ftctl show
check "ftctl show loaded fasttrack" test -d /sys/module/fasttrack
check "rmmod fasttrack after autoload" rmmod fasttrack

# Not installed: the family cannot be found and ftctl says what to do.
must mv "$ko" /tmp/fasttrack.ko.away
defer depmod -a
defer mv /tmp/fasttrack.ko.away "$ko"
must depmod -a
check_fail "without the module, ftctl says to modprobe it" \
	"modprobe fasttrack" ftctl show
check "and fasttrack is still not loaded" test ! -d /sys/module/fasttrack

check_dmesg_clean "no kernel warning while autoloading"
ft_exit
