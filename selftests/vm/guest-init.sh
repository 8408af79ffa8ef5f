#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the test guest (run by dash). Mounts the usual file systems, then
# by the kernel command line:
#   ft.mode=test   run /selftests/run_tests.sh, KTAP on /dev/ttyS1 (default)
#   ft.mode=shell  load fasttrack and give a shell on the console
#   ft.tests=a,b   run only these selftests (or /ft-tests, a name per line)
#   ft.mode=bench  run /bench/guest/bench.sh (make bench), output on /dev/ttyS1
#   ft.mode=demo   run /bench/guest/demo.sh (make demo), output on /dev/ttyS1
#   ft.tty=T       the console is /dev/T (default ttyS0)
#   ft.ktap=T      the second channel is /dev/T (default ttyS1); hvc0 (arm's
#                  virt machine) is a virtio console, whose modules init loads
#   ft.hold_keys   hold the static keys that tests flip on from boot to the
#                  end (boot.sh --mttcg, hold_keys below)
# and powers off.
set -u
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=${TERM:-linux}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# What udev would add: scripts read "/dev/stdin" (nft -f /dev/stdin).
ln -s /proc/self/fd /dev/fd
ln -s fd/0 /dev/stdin
ln -s fd/1 /dev/stdout
ln -s fd/2 /dev/stderr
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
ip link set lo up
hostname ftguest
# A deadlock (say, on rtnl) would stall every later test until the boot
# times out: panic instead, which ends the boot at once with the trace.
sysctl -qw kernel.hung_task_timeout_secs=60 kernel.hung_task_panic=1

# A kernel with kmemleak (make check-debug): forget what boot leaked, so
# that the scan after the tests reports only what they leaked.
kmemleak=/sys/kernel/debug/kmemleak
if [ -w "$kmemleak" ]; then
	echo scan >"$kmemleak"
	echo clear >"$kmemleak"
fi

mode=test tests='' tty=ttyS0 ktap=ttyS1 hold=''
# boot.sh puts the selected tests in /ft-tests (ft.tests= also works).
[ ! -f /ft-tests ] || tests=$(tr '\n' ' ' </ft-tests)
for arg in $(cat /proc/cmdline); do
	case $arg in
	ft.mode=*) mode=${arg#ft.mode=} ;;
	ft.tests=*) tests=$(echo "${arg#ft.tests=}" | tr ',' ' ') ;;
	ft.tty=*) tty=${arg#ft.tty=} ;;
	ft.ktap=*) ktap=${arg#ft.ktap=} ;;
	ft.hold_keys) hold=1 ;;
	esac
done

# hold_keys: enable, for the whole boot, the static keys that the tests'
# setup and ping flip while another vCPU forwards. Multi-threaded TCG let a
# vCPU run a stale int3 after the text patching ended (Oops: int3 in
# __netif_receive_skb_core, netstamp_needed_key, flipped by each ping).
# Held on, a key is only counted, never patched again.
hold_keys() {
	# A timestamping socket: netstamp_needed_key.
	ping -q -i 3600 127.0.0.1 >/dev/null 2>&1 &
	# clsact on lo: ingress_needed_key and egress_needed_key.
	tc qdisc add dev lo clsact
	# A base chain on each hook: nf_hooks_needed of each family and hook.
	nft -f - <<-EOF
		table inet ft_hold {
			chain pre { type filter hook prerouting priority 0; }
			chain in { type filter hook input priority 0; }
			chain fwd { type filter hook forward priority 0; }
			chain out { type filter hook output priority 0; }
			chain post { type filter hook postrouting priority 0; }
		}
		table netdev ft_hold {
			chain in { type filter hook ingress device lo priority 0; }
		}
	EOF
	nft add chain netdev ft_hold eg \
		'{ type filter hook egress device lo priority 0; }' 2>/dev/null || true
	# crng_is_ready, flipped once the crng is seeded (Oops: int3 in
	# crng_make_state, from fork): reading /dev/random waits for that,
	# seeding it from timer jitter.
	head -c 1 /dev/random >/dev/null
}
if [ -n "$hold" ]; then
	hold_keys || echo "init: holding the static keys failed" >&2
	# Booted with maxcpus=1: the boot's own patching is over.
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		echo 1 >"$c"
	done
fi
# console_listed: a virtio console port is up and listed (debugfs).
console_listed() {
	for f in /sys/kernel/debug/virtio-ports/*; do
		grep -qs "^is_console: yes" "$f" &&
			grep -qs "^guest_connected: 1" "$f" && return 0
	done
	return 1
}

case $ktap in
hvc*)
	modprobe virtio_mmio
	modprobe virtio_console
	# Open the console only once virtio_console lists it: the tty opens
	# from hvc_alloc() on, and a poll before the port is listed gets
	# -EPIPE and hangs the tty up, so nothing written to it reaches the
	# host (arm64-6.1, armhf-6.1). debugfs shows the port as a connected
	# console from then on.
	i=0
	until console_listed || [ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ $i -lt 300 ] || echo "init: no virtio console came up for /dev/$ktap" >&2
	;;
esac

case $mode in
shell)
	modprobe fasttrack || echo "init: modprobe fasttrack failed" >&2
	echo "fasttrack guest $(uname -r): selftests in /selftests (./run_tests.sh [NAME...])."
	echo "Leave with 'exit' (or Ctrl-A X)."
	cd /selftests || true
	setsid -c sh -i <"/dev/$tty" >"/dev/$tty" 2>&1
	;;
bench | demo)
	sh "/bench/guest/$mode.sh" >"/dev/$ktap" 2>&1
	echo "init: $mode.sh exited with $?"
	;;
*)
	# shellcheck disable=SC2086 # a list of test names
	/selftests/run_tests.sh $tests >"/dev/$ktap" 2>&1
	echo "init: run_tests.sh exited with $?"
	if [ -w "$kmemleak" ]; then
		# Let grace periods and netns cleanups finish, then scan twice:
		# the report lists only what is still unreferenced in the second
		# scan, not a pointer that was in flight during the first. Any
		# report fails the run (ktap.sh finds "unreferenced object" on
		# the console).
		sleep 5
		echo scan >"$kmemleak"
		sleep 5
		echo scan >"$kmemleak"
		echo "init: kmemleak report:"
		cat "$kmemleak"
		echo "init: kmemleak report ends"
	fi
	;;
esac
sync
poweroff -f
