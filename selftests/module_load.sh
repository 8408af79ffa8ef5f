#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Load and unload fasttrack a few times; the kernel log stays clean.
. "$(dirname "$0")/lib.sh"

require_cmd modprobe rmmod lsmod
ft_module_loaded && must rmmod fasttrack
dmesg_mark

i=1
while [ "$i" -le 5 ]; do
	check "load #$i: modprobe fasttrack" modprobe fasttrack
	check "load #$i: /sys/module/fasttrack exists" test -d /sys/module/fasttrack
	check "load #$i: lsmod lists fasttrack" sh -c 'lsmod | grep -q "^fasttrack "'
	check "load #$i: rmmod fasttrack" rmmod fasttrack
	check "load #$i: fasttrack is gone" test ! -e /sys/module/fasttrack
	i=$((i + 1))
done

check_dmesg_clean "no kernel warning while loading and unloading"
ft_exit
