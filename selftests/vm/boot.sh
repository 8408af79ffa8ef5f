#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a fetched kernel with its initramfs in qemu (TCG, no network).
#
# usage: boot.sh WORD OUTDIR [--tests a,b] [--smp|--mttcg] [--shell]
#   test mode: the console goes to OUTDIR/console.log and the guest's KTAP
#              (/dev/ttyS1) to OUTDIR/ktap.log; exit 124 on timeout.
#   --shell:   the console is on stdio (Ctrl-A X quits qemu).
#   --smp:     two vCPUs, single-threaded TCG: one vCPU runs at a time,
#              switched between translation blocks, so no two CPUs race
#              within a few instructions.
#   --mttcg:   two vCPUs, multi-threaded TCG: one host thread each, in
#              parallel, so a read-modify-write that is not atomic can
#              lose an update. A static key patched while the other vCPU
#              runs that code crashes the guest (qemu 7.2): the guest holds
#              the keys the tests flip enabled (ft.hold_keys).
#   --mode M:  ft.mode=M (guest-init.sh: bench, demo); the console goes to
#              OUTDIR/console.log, the guest's /dev/ttyS1 to stdout.
#   --icount:  -icount shift=2,sleep=off: guest time follows instructions
#              executed, so timings repeat run to run (benchmarks).
#   --mem MB:  guest RAM (default 1536).
#   --append S: more kernel command line.
#   --initrd-extra F: a second cpio archive appended to the initramfs.
#   --virtfs DIR: share DIR read-only over virtio-9p, mount tag "ftroot".
#   --nic virtio: two virtio-net NICs joined by a qemu hub, for make bench's
#              NIC-driver path (bench/guest/nic.sh): MAC 52:54:00:f7:00:01
#              (the generator's) and 52:54:00:f7:00:02 (the router's trunk).
#              A hub port has no vnet header, so qemu offers the guest no
#              receive offload; the device says so too (guest_* off):
#              virtio_net refuses native XDP while the host may coalesce
#              or leave checksums to the guest, unless it can turn them
#              off itself (VIRTIO_NET_F_CTRL_GUEST_OFFLOADS).
#   --nic hostgen: the router's NIC alone (52:54:00:f7:00:02, the same
#              device), its wire a unix socket to bench/hostgen.c on the
#              host (FT_HOSTGEN: its binary), which sends the frames a
#              virtio-serial port named ftgen asks for: the generator's
#              work stays off the guest's instruction clock.
# FT_QEMU_ARGS: more qemu options, split at blanks (bench/prof/profile.sh
# adds its plugin).
# FT_TIMEOUT: seconds before a test boot is killed (default 3600, times
# FT_SLOWDOWN on a foreign architecture: the whole suite takes about an
# hour on arm).
# FT_BOOT_SILENCE: seconds a test boot's console may stay silent before
# the kernel runs /init (default 300, times FT_SLOWDOWN on a foreign
# architecture); then the boot is killed and started again, once.
# A foreign-architecture kernel (arch.sh) boots on qemu's "virt" machine:
# its console is ttyAMA0, and the guest's second channel (KTAP, bench
# output) is a virtio console, /dev/hvc0 (ft.tty, ft.ktap for guest-init.sh);
# its tests' timeouts are scaled by FT_SLOWDOWN (arch.sh's SLOWDOWN unless
# set).
set -eu
. "$(dirname "$0")/common.sh"
. "$VM_DIR/arch.sh"

word=${1:?usage: boot.sh WORD OUTDIR [--tests a,b] [--smp|--mttcg] [--shell]}
outdir=${2:?usage: boot.sh WORD OUTDIR [--tests a,b] [--smp|--mttcg] [--shell]}
shift 2
tests= smp=1 accel=tcg mode=test icount=
extra='' virtfs='' hold='' nic=''
# FT_MEM, FT_APPEND: the defaults of --mem and --append (debug-kernel.sh, soak.sh).
mem=${FT_MEM:-1536} append=${FT_APPEND:-}
while [ $# -gt 0 ]; do
	case $1 in
	--tests) tests=$2; shift ;;
	--smp) smp=2 accel=tcg,thread=single ;;
	--mttcg) smp=2 accel=tcg,thread=multi hold=" maxcpus=1 ft.hold_keys" ;;
	--shell) mode=shell ;;
	--mode) mode=$2; shift ;;
	--icount) icount=1 ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	--initrd-extra) extra=$2; shift ;;
	--virtfs) virtfs=$2; shift ;;
	--nic) nic=$2; shift ;;
	*) die "boot.sh: unknown option $1" ;;
	esac
	shift
done
export FT_TAG=$word
load_kernel "$word"
DEB_ARCH=${DEB_ARCH:-amd64}
arch_info "$DEB_ARCH"
mkdir -p "$outdir"

# slab_nomerge: fasttrack's flow caches keep their own lines in
# /proc/slabinfo, which the leak checks of the tests read.
cmdline="console=$CONSOLE panic=-1 log_buf_len=8M mitigations=off no_timer_check slab_nomerge ft.mode=$mode$hold"
limit=${FT_TIMEOUT:-3600} silence=${FT_BOOT_SILENCE:-300} slow=1
if is_foreign "$DEB_ARCH"; then
	slow=${FT_SLOWDOWN:-$SLOWDOWN}
	cmdline+=" ft.tty=$CONSOLE ft.ktap=$KTAP_TTY FT_SLOWDOWN=$slow KSFT_TIMEOUT=$((600 * slow))"
	limit=${FT_TIMEOUT:-$((3600 * slow))}
	silence=${FT_BOOT_SILENCE:-$((300 * slow))}
fi
[ -z "$append" ] || cmdline+=" $append"
initrd=$OUT/initramfs/$KVER.cpio.gz
if [ -n "$tests" ]; then
	# The list goes in an archive of its own, /ft-tests: the command line
	# holds 1 KiB on armhf, less than the names of the whole suite.
	mkdir -p "$outdir/tests.d"
	tr ',' '\n' <<<"$tests" >"$outdir/tests.d/ft-tests"
	(cd "$outdir/tests.d" && echo ft-tests | cpio -o -H newc --quiet) |
		gzip >"$outdir/tests.cpio.gz"
	extra="$extra $outdir/tests.cpio.gz"
fi
if [ -n "$extra" ]; then
	# The kernel unpacks concatenated archives one after the other.
	# shellcheck disable=SC2086 # a list of paths without blanks
	cat "$initrd" $extra >"$outdir/initrd.cpio.gz"
	initrd=$outdir/initrd.cpio.gz
fi
qemu=("${QEMU[@]}" -nodefaults -no-user-config -accel "$accel" -smp "$smp"
	-m "$mem" -nic none -display none -no-reboot
	-kernel "$VMLINUZ" -initrd "$initrd" -append "$cmdline")
[ -z "$virtfs" ] ||
	qemu+=(-virtfs "local,path=$virtfs,mount_tag=ftroot,security_model=none,readonly=on,multidevs=remap")

nicdev=virtio-net-pci,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off,guest_csum=off
case $nic in
"") ;;
virtio)
	for i in 1 2; do
		qemu+=(-netdev "hubport,id=ftnic$i,hubid=0" -device "$nicdev,netdev=ftnic$i,mac=52:54:00:f7:00:0$i")
	done
	;;
hostgen)
	[ -x "${FT_HOSTGEN:-}" ] || die "boot.sh: --nic hostgen needs FT_HOSTGEN, bench/hostgen.c built"
	# It listens first; qemu connects as it starts, and hostgen ends with it.
	hg=$outdir/hostgen
	rm -rf "$hg"
	mkdir -p "$hg"
	"$FT_HOSTGEN" "$hg" 2>"$outdir/hostgen.log" </dev/null &
	for _ in $(seq 100); do
		[ -S "$hg/net" ] && [ -S "$hg/ctl" ] && break
		kill -0 $! 2>/dev/null || die "hostgen failed: $(cat "$outdir/hostgen.log")"
		sleep 0.1
	done
	[ -S "$hg/ctl" ] || die "hostgen made no sockets in $hg within 10 s"
	serial=virtio-serial-pci
	[ "$KTAP_TTY" != hvc0 ] || serial=virtio-serial-device
	qemu+=(-netdev "stream,id=ftnic2,server=off,addr.type=unix,addr.path=$hg/net"
		-device "$nicdev,netdev=ftnic2,mac=52:54:00:f7:00:02"
		-chardev "socket,id=ftgen,path=$hg/ctl"
		-device "$serial,id=ftgenbus" -device "virtserialport,bus=ftgenbus.0,chardev=ftgen,name=ftgen")
	;;
*) die "boot.sh: --nic virtio or hostgen" ;;
esac
[ -z "$icount" ] || qemu+=(-icount shift=2,sleep=off)
# together.sh runs host work at nice 10; its guests get back its niceness.
if [ -n "${FT_GUEST_NICE:-}" ] && [ "$(nice)" -gt "$FT_GUEST_NICE" ]; then
	qemu=(nice -n "$((FT_GUEST_NICE - $(nice)))" "${qemu[@]}")
fi
# shellcheck disable=SC2206 # options without blanks
[ -z "${FT_QEMU_ARGS:-}" ] || qemu+=($FT_QEMU_ARGS)

# second BACKEND: qemu options for the guest's second channel: a second
# UART (ttyS1) on x86, a virtio console on arm's virt.
second() {
	if [ "$KTAP_TTY" = hvc0 ]; then
		case $1 in
		stdio) echo "-chardev stdio,id=ktap" ;;
		*) echo "-chardev file,id=ktap,path=${1#file:}" ;;
		esac
		echo "-device virtio-serial-device -device virtconsole,chardev=ktap"
	else
		echo "-serial $1"
	fi
}

if [ "$mode" = shell ]; then
	# shellcheck disable=SC2046 # options without blanks
	exec "${qemu[@]}" -serial mon:stdio $(second "file:$outdir/ktap.log")
fi
# Held by qemu, which inherits the lock, until it exits. FT_GUEST_SCALE:
# how much slower than a release kernel this one runs tests (the debug
# kernel's), for the queue's order.
[ -z "${FT_GUEST_SLOTS:-}" ] ||
	guest_slot "$(boot_estimate "$tests" "$((slow * ${FT_GUEST_SCALE:-1}))")"
# When the guest started, for check.sh's wall times.
date +%s >"$outdir/started"

if [ "$mode" != test ]; then
	rm -f "$outdir/console.log"
	# shellcheck disable=SC2046 # options without blanks
	exec timeout -k 10 "$limit" "${qemu[@]}" \
		-serial "file:$outdir/console.log" $(second stdio)
fi
# boot_watched: the test boot, watched until the kernel runs /init. A
# console silent for FT_BOOT_SILENCE seconds (300, times FT_SLOWDOWN on a
# foreign architecture) before that is a hung boot: qemu is killed and
# the boot starts again, once. A debug kernel hung so under TCG next to
# busy host builds ("Running RCU-tasks wait API self tests", idle until
# the boot's limit). Exit status: qemu's, 124 on timeout or a second hang
# (check.sh's "timed out").
boot_watched() {
	local try pid size last quiet
	for try in 1 2; do
		rm -f "$outdir/console.log" "$outdir/ktap.log"
		# shellcheck disable=SC2046 # options without blanks
		timeout -k 10 "$limit" "${qemu[@]}" \
			-serial "file:$outdir/console.log" $(second "file:$outdir/ktap.log") &
		pid=$! last=-1 quiet=0
		while ! grep -qs "Run /init as init process" "$outdir/console.log"; do
			kill -0 "$pid" 2>/dev/null || break
			size=$(stat -c %s "$outdir/console.log" 2>/dev/null || echo 0)
			[ "$size" = "$last" ] || quiet=0 last=$size
			if [ "$quiet" -ge "$silence" ]; then
				log "boot $try: no console output for $silence s before init, after: $(tail -n 1 "$outdir/console.log" 2>/dev/null)"
				kill "$pid" 2>/dev/null || true
				wait "$pid" || true
				mv "$outdir/console.log" "$outdir/console-hung$try.log" 2>/dev/null || true
				continue 2
			fi
			sleep 2
			quiet=$((quiet + 2))
		done
		wait "$pid"
		return
	done
	log "the guest hung before init twice: console-hung1.log, console-hung2.log"
	return 124
}

# One line: bash must not read on in this file after a long boot (it may
# have been edited meanwhile).
rc=0; boot_watched || rc=$?; exit "$rc"
