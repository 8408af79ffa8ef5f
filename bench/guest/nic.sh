# SPDX-License-Identifier: GPL-2.0
# make bench, section "nic" (BENCH_NIC=virtio, ft.nic=virtio): the pps
# section's measurement (64-byte UDP frames of one flow from pktgen,
# bench/guest/bench.sh's prime and measure) through a real driver with
# native XDP instead of a veth pair:
#
#   [gen] gen0 =virtio-net= qemu hub =virtio-net= trunk0 [router] vlan22 / vlan2222
#
# or, with BENCH_NIC=hostgen (ft.nic=hostgen), the generator on the host
# (see "hostgen" below):
#
#   [host] bench/hostgen.c =unix socket= trunk0 [router] vlan22 / vlan2222
#
# The guest has two virtio-net NICs on one qemu hub (selftests/vm/boot.sh
# --nic virtio): what one sends, the other receives. The generator's NIC
# (MAC 52:54:00:f7:00:01) becomes gen0 in the generator's netns, the other
# (52:54:00:f7:00:02) the router's trunk0; the rest is lib.sh's pktgen
# topology and paths. gen0 is promiscuous: qemu's virtio-net filters on
# MAC and VLAN id in the device otherwise, and the tc ceiling sends the
# frames back to the router's MAC. pktgen's frames are real skbs of the
# driver's transmit path, the router receives them into its own receive
# buffers (native XDP runs there, on the driver's page), and gen0 counts
# what comes back and drops it in XDP (bench/xdp/sink.bpf.c), before an
# skb is built: a receive there would cost the harness more than veth's
# (GRO, an skb from the driver's page), diluting what the router saves.
#
# Why not veth: pktgen's skbs sent into a veth are copied into a page
# before the peer's XDP program runs, which charges the XDP tier a copy a
# NIC never makes. (The other way out, BPF_PROG_RUN of the XDP program on
# a frame in a loop, measures the program alone: no driver receive, no
# XDP_TX, no comparison with the skb paths.)
#
# virtio_net and XDP on 6.12: it refuses a native program while the host
# may hand it coalesced packets or partial checksums (GUEST_TSO4/6, ECN,
# UFO, CSUM, USO4/6) unless it can turn them off itself
# (CTRL_GUEST_OFFLOADS). A qemu hub port has no vnet header, so qemu offers
# none of them; boot.sh turns them off on the device as well. XDP_TX wants
# a transmit queue per CPU of its own next to the stack's; a hub port has
# one queue pair only, so the driver takes its shared-queue fallback (a
# one-time "XDP request 2 queues but max is 1 ... locked tx mode" warning):
# with one vCPU that is one uncontended lock per batch.
#
# The qemu side (the hub, virtio's rings) runs in qemu's main thread, not
# on the guest's instruction clock: when it falls behind, pktgen waits,
# which costs guest time like any other work. Results: sec=nic rows, as
# sec=pps; sec=nic_skip for a path that cannot run here, with why.
#
# Paths (ft.nicpaths=P,..., lib.sh's names): ceiling (tc), xdpceil
# (bench/xdp/ceiling.bpf.c), fs50, nfftc, nfftct (the flowtable on
# trunk0: on 7.2 one on the VLAN devices alone offloads nothing; each
# flowtable path reports what it offloaded, sec=nic_offload), fasttrack,
# ftxdp and their masquerading variants (fs50m...), and nfxdp, the
# flowtable's own XDP path (the kernel's bpf_xdp_flow_lookup kfunc,
# 6.11+), which cannot run on this topology: the flowtable's key holds the
# VLAN id of a flow that arrives tagged (its tuple's encap), and the kfunc
# builds its lookup key from the IP header and the ingress device only,
# never filling it, so it finds no VLAN flow.
# Sourced by bench/guest/bench.sh after /selftests/lib.sh and
# /bench/guest/lib.sh; skipped with ft.skip=nic.
# shellcheck shell=sh disable=SC3043,SC2154,SC2034 # dash has "local";
# bench.sh and lib.sh set the variables and use those set here

NIC_PATHS="ceiling xdpceil fs50 nfftc nfftct fasttrack ftxdp fs50m nfftcm fasttrackm ftxdpm nfxdp"
NIC_GEN_MAC=52:54:00:f7:00:01 NIC_TRUNK_MAC=52:54:00:f7:00:02

# nic_dev MAC: the name of the init netns's device with MAC.
nic_dev() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { basename "$d"; return 0; }
	done
	return 1
}

nic_devs_up() {
	nic_dev "$NIC_TRUNK_MAC" >/dev/null &&
		{ [ "$BN_NIC" = hostgen ] || nic_dev "$NIC_GEN_MAC" >/dev/null; }
}

# bn_nic_links: lib.sh's bn_setup_pktgen with BN_NIC set: the two NICs
# become gen0 (NS_GEN) and trunk0 (NS_ROUTER); with hostgen, the one NIC
# becomes trunk0.
bn_nic_links() {
	local g t
	modprobe virtio_pci 2>/dev/null
	modprobe virtio_net || bn_die "modprobe virtio_net"
	busywait 10000 nic_devs_up || bn_die "no virtio-net NICs with MACs $NIC_GEN_MAC, $NIC_TRUNK_MAC (boot.sh --nic $BN_NIC)"
	if [ "$BN_NIC" = hostgen ]; then
		hg_open
		t=$(nic_dev "$NIC_TRUNK_MAC")
		must ip link set dev "$t" netns "$NS_ROUTER"
		must ip -n "$NS_ROUTER" link set dev "$t" name trunk0
		GEN_MAC=$NIC_GEN_MAC
		return
	fi
	g=$(nic_dev "$NIC_GEN_MAC") t=$(nic_dev "$NIC_TRUNK_MAC")
	must ip link set dev "$g" netns "$NS_GEN"
	must ip -n "$NS_GEN" link set dev "$g" name gen0
	must ip link set dev "$t" netns "$NS_ROUTER"
	must ip -n "$NS_ROUTER" link set dev "$t" name trunk0
	must ip -n "$NS_GEN" link set gen0 promisc on
	must ip -n "$NS_GEN" link set dev gen0 xdpdrv obj /bench/xdp/sink.bpf.o sec xdp
}

# ------------------------------------------------------------ hostgen ----
#
# ft.nic=hostgen (BENCH_NIC=hostgen, boot.sh --nic hostgen): the router's
# trunk0 is the guest's only NIC, and its wire a unix socket to
# bench/hostgen.c on the host, which sends the frames asked for on the
# virtio-serial port "ftgen" and counts those that come back. No generator
# runs in the guest, so its instruction clock counts the router's work
# alone: pktgen here costs about 9 000 instructions a frame even at the
# XDP ceiling, more than the router's own work on the fast paths, which it
# dilutes. hostgen keeps up to 512 frames on their way (bench/hostgen.c),
# twice the NIC's receive ring. A measured run (BN_MEASURE) is a window of
# about HG_SECONDS of guest time in that stream; it counts what trunk0
# sent and received in it, over the time the router was busy: when qemu's
# main thread falls behind on a loaded host the router idles, and an idle
# guest's clock jumps to its next timer under -icount sleep=off. A router
# that idles between frames also loses NAPI's batching, so an idle window
# reads low, never high.

HG_SECONDS=${HG_SECONDS:-1}

# hg_open: fd 9, the control port.
hg_open() {
	local d
	modprobe virtio_console 2>/dev/null
	busywait 10000 hg_port >/dev/null || bn_die "no virtio-serial port ftgen (boot.sh --nic hostgen)"
	d=$(hg_port)
	exec 9<>"/dev/$d" || bn_die "cannot open /dev/$d"
}

hg_port() {
	local p
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = ftgen ] && [ -e "/dev/${p##*/}" ] &&
			{ echo "${p##*/}"; return 0; }
	done
	return 1
}

# hg_cmd WORD...: HG_REPLY, hostgen's answer; dies on an error.
hg_cmd() {
	echo "$*" >&9
	read -r HG_REPLY <&9 || bn_die "hostgen: no answer to $1"
	case $HG_REPLY in error*) bn_die "hostgen: $*: $HG_REPLY" ;; esac
}

# hg_snap: "NS TX RX IDLE" of the router: guest time (ns, timer_list's
# monotonic clock), trunk0's frames sent and received, idle time
# (USER_HZ), read by one shell.
hg_snap() {
	ip netns exec "$NS_ROUTER" sh -c 'head -n 3 /proc/timer_list | grep "^now at";
		cat /sys/class/net/trunk0/statistics/tx_packets /sys/class/net/trunk0/statistics/rx_packets;
		head -n 1 /proc/stat' | awk 'NR == 1 { v[1] = $3 } NR == 2 || NR == 3 { v[NR] = $1 }
			NR == 4 { print v[1], v[2], v[3], $5 }'
}

# hg_pktgen FAM COUNT: bn_pktgen's frames (bn_flow) from hostgen. Priming
# sends COUNT frames; a measured run (BN_MEASURE) is a window, in which
# BN_RX counts what trunk0 sent (forwarded, or sent back by a ceiling)
# and BN_SENT what it received.
hg_pktgen() {
	local a b
	BN_SLOW=- BN_IDLE_USEC=
	if [ -z "${BN_MEASURE:-}" ]; then
		# shellcheck disable=SC2086,SC2153 # BN_FLOW (bn_flow): six words
		hg_cmd send "$1" "$BN_VLAN" "$TRUNK_MAC" "$GEN_MAC" $BN_FLOW "$2"
		# shellcheck disable=SC2086 # two numbers
		set -- $HG_REPLY
		BN_SENT=$1 BN_RX=$2 BN_USEC=0
		return
	fi
	# shellcheck disable=SC2086
	hg_cmd start "$1" "$BN_VLAN" "$TRUNK_MAC" "$GEN_MAC" $BN_FLOW
	# The rings fill first.
	sleep 0.2
	a=$(hg_snap)
	sleep "$HG_SECONDS"
	b=$(hg_snap)
	hg_cmd stop
	# shellcheck disable=SC2086 # four numbers each
	set -- $a $b
	# The router's busy time: an idle moment (qemu's main thread late
	# with frames, on a busy host) would be a jump of the clock to its
	# next timer under -icount sleep=off.
	BN_IDLE_USEC=$((($8 - $4) * 10000))
	BN_USEC=$((($5 - $1) / 1000 - BN_IDLE_USEC)) BN_RX=$(($6 - $2)) BN_SENT=$(($7 - $3))
}

section_nic() {
	local path slab ct off
	BN_NIC=$NIC
	bn_result sec=nic_harness nic="$NIC" window_s="$HG_SECONDS"
	if [ "$NIC" = hostgen ]; then
		section "64-byte frames, one flow, from hostgen on the host through a virtio-net NIC with native XDP"
	else
		section "64-byte pktgen frames, one flow, through virtio-net NICs with native XDP"
	fi
	# The slab re-runs (lib.sh, "the harness's slab") answer a veth
	# harness's allocation pattern; the driver's receive buffers take the
	# slow paths as a matter of course, and each counted hit costs hundreds
	# of instructions: neither counted nor re-run here.
	slab=$SLAB_PROBES
	SLAB_PROBES=0
	bn_setup_pktgen
	[ "$NIC" = hostgen ] || say "  gen0: $(ip netns exec "$NS_GEN" ethtool -i gen0 | awk '/^driver/ { print $2 }'),"
	say "  trunk0 offloads: $(ip netns exec "$NS_ROUTER" ethtool -k trunk0 |
			awk '/^(rx-checksumming|generic-receive-offload|rx-gro-hw|large-receive-offload):/ { printf "%s%s %s", s, $1, $2; s = ", " }')"
	for path in $NIC_PATHS; do
		if [ "$path" = nfxdp ]; then
			if ! { modprobe -q nf_flow_table 2>/dev/null;
				grep -qw bpf_xdp_flow_lookup /proc/kallsyms; }; then
				say "  nfxdp: not measured: this kernel has no bpf_xdp_flow_lookup (6.11 on)"
				bn_result sec=nic_skip path=nfxdp why=kernel_has_no_flow_lookup
			else
				say "  nfxdp: not measured: bpf_xdp_flow_lookup builds its key from the IP header" \
					"and the ingress device, and the flowtable's key of a tagged flow holds its VLAN id:" \
					"no VLAN flow is ever found"
				bn_result sec=nic_skip path=nfxdp why=kfunc_lookup_has_no_vlan_id
			fi
			continue
		fi
		bn_path_on "$NS_ROUTER" "$path"
		measure_one nic "$path"
		case $path in
		fasttrack* | ftxdp*)
			ip netns exec "$NS_ROUTER" ftctl -j stats | jq -cM .
			;;
		nfft*)
			# Whether the flowtable took the flow at all: 7.2 offloads
			# nothing from a flowtable on the VLAN devices alone.
			ct=$(ip netns exec "$NS_ROUTER" conntrack -L -p udp 2>/dev/null)
			off=$(printf '%s\n' "$ct" | grep -c OFFLOAD)
			say "  $path: $off of $(printf '%s\n' "$ct" | grep -c .) UDP connections" \
				"offloaded by the flowtable on $BN_FT_DEVS"
			bn_result sec=nic_offload path="$path" offloaded="$off" \
				devs="$(echo "$BN_FT_DEVS" | tr -d ' ')"
			;;
		esac
		case $path in
		*xdp*)
			say "  trunk0: $(ip netns exec "$NS_ROUTER" ethtool -S trunk0 |
				awk '$2 != 0 && /xdp/ { printf "%s%s %s", s, $1, $2; s = " " }')"
			;;
		esac
		bn_path_off "$NS_ROUTER"
	done
	dmesg | grep -i 'xdp' | grep -i virtio | tail -3
	BN_NIC=
	SLAB_PROBES=$slab
	ft_cleanup
}
