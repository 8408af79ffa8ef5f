#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs for a fetched kernel: busybox for the small tools,
# dash as /bin/sh, the host's networking tools with their shared libraries,
# the kernel's own modules the selftests need (with their dependencies),
# our fasttrack.ko under updates/, ftctl, the selftests and their helpers
# (selftests/vm/tools.sh builds ftctl and the helpers).
#
# A foreign-architecture kernel (arm64, armhf) gets that architecture's
# binaries and libraries from userland.sh's root instead of the host's, and
# ftctl and the helpers from $OUT/tools-<arch> (tools.sh ARCH).
#
# usage: initramfs.sh WORD          writes $OUT/initramfs/<kver>.cpio.gz
# FT_FTCTL=PATH takes ftctl from elsewhere than userspace/ftctl.
set -eu
. "$(dirname "$0")/common.sh"
. "$VM_DIR/arch.sh"

word=${1:?usage: initramfs.sh WORD}
export FT_TAG=$word
load_kernel "$word"
DEB_ARCH=${DEB_ARCH:-amd64}
arch_info "$DEB_ARCH"
ko=$OUT/build/$KVER/kmod/fasttrack.ko
ftctl=${FT_FTCTL:-$REPO/userspace/ftctl}
tools=$OUT/tools
# U: where a foreign guest's userland comes from (empty: the host).
U=
if is_foreign "$DEB_ARCH"; then
	U=$CACHE/userland/$DEB_ARCH/root
	[ -d "$U" ] || die "no $DEB_ARCH userland at $U (selftests/vm/userland.sh $DEB_ARCH)"
	tools=$OUT/tools-$DEB_ARCH
	ftctl=${FT_FTCTL:-$tools/ftctl}
fi
out=$OUT/initramfs/$KVER.cpio.gz
R=$OUT/initramfs/$KVER.root

# Real binaries from the host. KNF_BINS, on the host's architecture only:
# what the kernel's netfilter selftests need (kernel_netfilter; iptables
# is the nft one, ebtables the legacy one: ebtables-nft has no broute
# table; ping6 is iputils' ping, as on the host, not busybox's). Busybox provides everything else, but never a
# tool that runs other programs (its applets would shadow the real ones).
HOST_BINS="dash kmod ip tc bridge nft conntrack iperf3 jq socat tcpdump ethtool
	ping setpriv setsid nsenter unshare flock taskset timeout env nice nohup
	xargs find sha256sum pppd pppoe-server pppoe wg"
! is_foreign "$DEB_ARCH" || KNF_BINS=
HOST_BINS="$HOST_BINS ${KNF_BINS-bash iptables ip6tables ipvsadm sendip ss readlink date}"
KMOD_LINKS="modprobe insmod rmmod lsmod depmod modinfo"

# Kernel modules the selftests may use: whole directories (all of
# netfilter, tc, the bridge) plus single modules, each with the modules it
# depends on. Builtin or absent ones are simply not there.
MODULE_DIRS="net/netfilter net/ipv4/netfilter net/ipv6/netfilter net/sched net/bridge"
# crc32c_generic: a soft dependency of libcrc32c (modules.dep omits those).
# 9p, overlay: dkms_install.sh mounts a root with DKMS in it (dkms-vm.sh).
# xfrm_user .. jitterentropy_rng: IPsec ESP with cbc(aes) and hmac(sha256)
# (fastpath_xfrm). The IV generator needs the default RNG, drbg, which
# loads jitterentropy_rng by name, and whose self-tests need ctr(aes) and
# hmac(sha512): without them they fail with a WARNING.
# mpls_*: a route with MPLS encap (fastpath_encap).
MODULES="8021q veth tun dummy macvlan ifb ipv6 pktgen crc32c_generic 9pnet_virtio 9p overlay virtio_pci"
MODULES="$MODULES xfrm_user esp4 esp6 authenc echainiv seqiv geniv cbc aes_generic ctr sha512_generic"
MODULES="$MODULES drbg jitterentropy_rng"
MODULES="$MODULES mpls_router mpls_iptunnel"
# nlmon: make bench times route changes by their netlink messages (covering).
MODULES="$MODULES nlmon"
# virtio_net: make bench's NIC path (BENCH_NIC, bench/guest/nic.sh);
# virtio_console: hostgen's control port there.
MODULES="$MODULES virtio_net virtio_console"
# The kernel's netfilter selftests (kernel_netfilter): SCTP, VXLAN, VRF,
# and the string match's algorithms, which it loads by name (xt_string).
MODULES="$MODULES sctp vxlan vrf ts_bm ts_kmp ts_fsm"
# Layer-3 and stacked devices (issue 15): tunnels, ppp, WireGuard, bonds.
# PPPoE (lib_l3dev.sh; ppp_async: the user-space server's sessions),
# WireGuard (its crypto comes with it from modules.dep), GRE and IPIP over
# IPv4 and IPv6, SIT (6in4).
MODULES="$MODULES ip_gre ip6_gre ipip bonding"
MODULES="$MODULES ppp_generic pppox pppoe ppp_async slhc wireguard udp_tunnel ip6_udp_tunnel"
MODULES="$MODULES gre ip_tunnel tunnel4 tunnel6 ip6_tunnel sit"
# The arm "virt" machine's virtio transport (guest-init.sh loads it, and
# virtio_console, which carries the KTAP there).
! is_foreign "$DEB_ARCH" || MODULES="$MODULES virtio_mmio"

# copy_file SRC [DST]: copy into the root, following symlinks.
copy_file() {
	local dst=$R${2:-$1}
	mkdir -p "$(dirname "$dst")"
	cp -L "$1" "$dst"
}

# elf_libs FILE: the paths in $U of the program interpreter and the shared
# libraries FILE needs, recursively (ELF NEEDED entries: a foreign binary
# cannot run here, so ldd cannot list them).
elf_libs() {
	local todo=("$1") seen=' ' f lib d found
	readelf -l "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p'
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[[ $seen == *" $lib "* ]] && continue
			seen+="$lib "
			found=
			for d in /lib/$TRIPLET /usr/lib/$TRIPLET /lib /usr/lib; do
				[ -e "$U$d/$lib" ] || continue
				found=$d/$lib
				break
			done
			[ -n "$found" ] || die "$lib (needed by ${f#"$U"}) is not in $U"
			echo "$found"
			todo+=("$U$found")
		done
	done
}

# copy_bin PATH [DST]: a host binary and every shared library it loads; in a
# foreign guest PATH is in $U.
copy_bin() {
	local lib libs
	if [ -n "$U" ]; then
		copy_file "$1" "${2:-${1#"$U"}}"
		libs=$(elf_libs "$1")
		for lib in $libs; do
			[ -e "$R$lib" ] || copy_file "$U$lib" "$lib"
		done
		return
	fi
	copy_file "$1" "${2:-$1}"
	for lib in $(ldd "$1" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
		[ -e "$R$lib" ] || copy_file "$lib"
	done
}

make_skeleton() {
	rm -rf "$R"
	mkdir -p "$R"/{usr/bin,usr/sbin,usr/lib64,usr/lib,etc,proc,sys,dev,tmp,run,root,selftests}
	ln -s usr/bin "$R/bin"
	ln -s usr/sbin "$R/sbin"
	ln -s usr/lib "$R/lib"
	ln -s usr/lib64 "$R/lib64"
	chmod 1777 "$R/tmp"
	cat >"$R/etc/passwd" <<-EOF
		root:x:0:0:root:/root:/bin/sh
		tcpdump:x:101:101::/nonexistent:/usr/sbin/nologin
		nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
	EOF
	cat >"$R/etc/group" <<-EOF
		root:x:0:
		tcpdump:x:101:
		nogroup:x:65534:
	EOF
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$R/etc/hosts"
	# ebtables' protocol names (bridge_brouter: "-p ipv4" and
	# "--ip-protocol icmp", which it looks up in /etc/protocols) and the
	# directory of its lock file.
	for f in ethertypes protocols; do
		[ ! -f "$U/etc/$f" ] || cp "$U/etc/$f" "$R/etc/"
	done
	mkdir -p "$R/var/lib/ebtables"
	cp -r "$U/etc/iproute2" "$R/etc/"
	if [ -d "$U/usr/lib/$TRIPLET/tc" ]; then
		mkdir -p "$R/usr/lib/$TRIPLET"
		cp -r "$U/usr/lib/$TRIPLET/tc" "$R/usr/lib/$TRIPLET/"
	fi
}

# find_bin NAME: the path of a binary the guest gets.
find_bin() {
	local d
	if [ -z "$U" ]; then
		command -v "$1"
		return
	fi
	for d in /usr/sbin /usr/bin /sbin /bin; do
		[ -x "$U$d/$1" ] && { echo "$U$d/$1"; return 0; }
	done
	return 1
}

install_userland() {
	local b path a
	for b in $HOST_BINS; do
		path=$(find_bin "$b") || die "binary $b is missing (selftests/vm/deps.sh or userland.sh installs it)"
		copy_bin "$path"
	done
	if [ -n "${KNF_BINS-x}" ]; then
		copy_bin "$(command -v ebtables-legacy)" /usr/sbin/ebtables
		ln -s ping "$R$(dirname "$(command -v ping)")/ping6"
	fi
	for a in $KMOD_LINKS; do
		ln -s ../bin/kmod "$R/usr/sbin/$a"
	done
	ln -s dash "$R/usr/bin/sh"
	cp "$U/bin/busybox" "$R/usr/bin/busybox"
	# The host's busybox-static is the same Debian version: its applets.
	for a in $(busybox --list); do
		case $a in init | linuxrc) continue ;; esac
		[ -e "$R/usr/bin/$a" ] || [ -e "$R/usr/sbin/$a" ] || ln -s busybox "$R/usr/bin/$a"
	done
	[ -x "$ftctl" ] || die "no ftctl at $ftctl (make -C userspace)"
	copy_bin "$ftctl" /usr/sbin/ftctl
	# iptables' and ebtables' extensions, which they load by name.
	for b in "$U/usr/lib/$TRIPLET"/xtables/*.so; do
		[ ! -e "$b" ] || copy_bin "$b"
	done
	# pppd's kernel-mode PPPoE plugin (fastpath_pppoe); pppd itself needs no
	# file in /etc/ppp: the test gives it every option.
	for b in "$U"/usr/lib/pppd/*/pppoe.so "$U"/usr/lib/pppd/*/rp-pppoe.so; do
		[ ! -e "$b" ] || copy_bin "$b"
	done
	# The selftests' own C helpers, built by tools.sh.
	for b in "$tools"/*; do
		[ ! -x "$b" ] || copy_bin "$b" "/usr/bin/$(basename "$b")"
	done
}

install_modules() {
	local m dst mods dirs
	local gm=$R/lib/modules/$KVER
	mkdir -p "$gm/updates"
	# modules.dep lists each module with its whole dependency closure.
	dirs=${MODULE_DIRS// /|}
	mods=$(awk -v dirs="^kernel/($dirs)/" -v names=" $MODULES " '{
		sub(/:$/, "", $1)
		name = $1; sub(/.*\//, "", name); sub(/\.ko(\.[a-z]+)?$/, "", name)
		if ($1 ~ dirs || index(names, " " name " "))
			for (i = 1; i <= NF; i++) print $i
	}' "$MODDIR/modules.dep" | sort -u)
	for m in $mods; do
		dst=$gm/${m%.xz}
		mkdir -p "$(dirname "$dst")"
		case $m in
		*.xz) xz -dc "$MODDIR/$m" >"$dst" ;;
		*) cp "$MODDIR/$m" "$dst" ;;
		esac
	done
	cp "$MODDIR"/modules.builtin* "$MODDIR/modules.order" "$gm/"
	[ -f "$ko" ] || die "no module at $ko (selftests/vm/build.sh $word)"
	cp "$ko" "$gm/updates/fasttrack.ko"
	depmod -b "$R" "$KVER"
	modprobe -d "$R" -S "$KVER" --show-depends fasttrack >/dev/null ||
		die "fasttrack.ko's dependencies are not in the initramfs"
}

install_selftests() {
	local f
	for f in "$REPO"/selftests/*; do
		[ "$(basename "$f")" = vm ] || cp -r "$f" "$R/selftests/"
	done
	install -m 0755 "$VM_DIR/guest-init.sh" "$R/init"
	# The kernel's netfilter selftests of this kernel's version, built for
	# this architecture only, for a run of kernel_netfilter (FT_KNF,
	# check.sh): with the rotation, those of the kernel whose turn it is
	# and this run's share of its scripts; else all of them.
	local kv
	kv=$(cut -d. -f1,2 <<<"$KVER")
	if [ -n "${FT_KNF:-}" ] && ! is_foreign "$DEB_ARCH" &&
		[[ " $(bash "$VM_DIR/knf.sh" --kernels) " == *" $kv "* ]] &&
		{ [ -z "${FT_KNF_ROTATE:-}" ] || [ "$(bash "$VM_DIR/knf.sh" --kernel)" = "$kv" ]; }; then
		cp -r "$(FT_KNF_KERNEL=$kv bash "$VM_DIR/knf.sh")" "$R/knf"
		[ -z "${FT_KNF_ROTATE:-}" ] || FT_KNF_KERNEL=$kv bash "$VM_DIR/knf.sh" --plan >&2
		FT_KNF_KERNEL=$kv bash "$VM_DIR/knf.sh" --scripts >"$R/knf/scripts"
	fi
	# make bench and make demo (bench/guest/*.sh, ft.mode=bench|demo).
	if [ -d "$REPO/bench/guest" ]; then
		mkdir -p "$R/bench"
		cp -r "$REPO/bench/guest" "$R/bench/"
	fi
}

make_skeleton
install_userland
install_modules
install_selftests
mkdir -p "$(dirname "$out")"
(cd "$R" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$out.tmp"
mv "$out.tmp" "$out"
log "initramfs $(du -h "$out" | cut -f1): $out"
