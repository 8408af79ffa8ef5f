# SPDX-License-Identifier: GPL-2.0
# Helpers for make bench and make demo, in the guest (POSIX sh, dash). Source
# /selftests/lib.sh first: the topologies and the forward ruleset are the
# selftests' own.
#
# Two topologies:
#   - the selftests' router-on-a-stick (setup_router_on_a_stick), for TCP and
#     UDP between real endpoints with iperf3;
#   - a packet generator wired straight to the router's trunk, for pktgen:
#
#       [gen] gen0 ==veth== trunk0 [router] vlan22 / vlan2222
#
#     pktgen sends VLAN-22-tagged UDP from the client's address to the
#     server's; the router forwards it out of the same trunk tagged 2222 (the
#     server's address resolves to gen0's MAC), and gen0 counts what comes
#     back and drops it in tc ingress. Everything runs on the guest's one CPU,
#     so packets per second measure generator + router + sink.
#
# Router paths (bn_path_on NAME, bn_path_off undoes it):
#   ceiling      no IP work: tc on trunk0 rewrites the tag 22 -> 2222 and
#                redirects the frame back out of trunk0 (pktgen only)
#   fs0          full stack: forwarding with conntrack, empty forward chain
#   fs50         full stack with the selftests' ~50-rule forward ruleset
#   nfft         fs50 + an nftables flowtable on vlan22, vlan2222
#   nfftc        the same flowtable with its counter flag
#   nfftct       the flowtable with counter on trunk0 instead (pktgen only):
#                it then sends straight to trunk0 with the tag, as fasttrack
#                does, instead of through the VLAN device
#   fasttrack    fs50 + "ftctl enable" on vlan22 and vlan2222
#   fthooks      fasttrack with operator hooks on the path: an nft netdev
#                ingress chain with a counter on vlan22 and, from 6.1, an
#                egress one on vlan2222 (which takes the VLAN device's
#                transmit path instead of the direct one) (pktgen only)
#   ftxdp        fasttrack with its XDP tier on trunk0 ("ftctl xdp on"), and
#                the same program on gen0, which veth needs to receive
#                XDP_TX frames (it passes them up, to the sink). veth copies
#                each pktgen skb into a page before XDP runs: a veth
#                harness charges the XDP tier that copy (pktgen only); on
#                the NIC path (BN_NIC, bench/guest/nic.sh) trunk0 only
#   xdpceil      no IP work, in XDP: bench/xdp/ceiling.bpf.c on trunk0 swaps
#                the tag 22 <-> 2222 and the MACs and sends the frame back
#                with XDP_TX (NIC path only: veth would need a program on
#                gen0 too)
#   fs50m, nfftcm, fasttrackm, ftxdpm
#                fs50, nfftc, fasttrack, ftxdp with the router masquerading
#                UDP out of vlan2222 (the replies go to its own address)
# shellcheck shell=sh disable=SC3043 # dash has "local"

BN_PATHS="ceiling fs0 fs50 nfft nfftc nfftct fasttrack fthooks ftxdp"

# ------------------------------------------------------------- output ----

# say TEXT: narration for people.
say() { printf '%s\n' "$*"; }

# bn_result KEY=VALUE...: one machine-readable line for the host.
bn_result() { printf '@RESULT %s\n' "$*"; }

# bn_die TEXT: a broken step: say so loudly and end the run.
bn_die() {
	printf '\n!!! FAILED: %s\n' "$*"
	exit 1
}

# xrun NS CMD...: run CMD in netns NS, showing it as "(ns) cmd"; the output is
# indented; a failure ends the run with the command and its output.
xrun() {
	local ns=$1 out rc
	shift
	printf '  %s# %s\n' "$(bn_nsname "$ns")" "$(quote "$@")"
	out=$(ip netns exec "$ns" "$@" 2>&1)
	rc=$?
	[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/    /'
	[ "$rc" = 0 ] || bn_die "exit $rc: $(quote "$@")"
}

bn_nsname() {
	case $1 in
	"$NS_ROUTER") echo router ;;
	"${NS_CLIENT:-}") echo client ;;
	"${NS_SERVER:-}") echo server ;;
	"${NS_GEN:-}") echo gen ;;
	*) echo "$1" ;;
	esac
}

# bn_median V...: the median of numbers (the lower middle for an even count).
bn_median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# ------------------------------------------------------- router paths ----

# bn_ct_settings NS: conntrack sized for a million flows, timeouts (also
# the flowtable's) that outlast a slow priming pass (time runs at
# instruction speed), accounting
# on (the flowtable's counter flag feeds it), no software checksum check
# (as with a NIC that checks checksums).
bn_ct_settings() {
	# Global (init netns only): the table size and the hash buckets.
	# 256k buckets: conntrack's own ratio for a 1M table (max = 4 x buckets).
	# Its GC worker walks every bucket now and then, which shows up as an
	# occasional slow run: medians absorb it.
	modprobe nf_conntrack || bn_die "modprobe nf_conntrack"
	sysctl -qw net.netfilter.nf_conntrack_max=2097152 || bn_die "nf_conntrack_max"
	echo 262144 >/sys/module/nf_conntrack/parameters/hashsize || bn_die "conntrack hashsize"
	# Frames that wait for softirq processing are queued, not dropped.
	sysctl -qw net.core.netdev_max_backlog=100000 || bn_die "netdev_max_backlog"
	# The flowtable's own idle timeout (30 s for UDP) would expire flows
	# while a million of them are primed at the guest's pace.
	ip netns exec "$1" sysctl -qw net.netfilter.nf_flowtable_udp_timeout=3600 \
		net.netfilter.nf_flowtable_tcp_timeout=3600 2>/dev/null ||
		say "  (no nf_flowtable_*_timeout sysctls: the flowtable keeps its 30 s UDP timeout)"
	ip netns exec "$1" sysctl -qw net.netfilter.nf_conntrack_acct=1 \
		net.netfilter.nf_conntrack_checksum=0 \
		net.netfilter.nf_conntrack_udp_timeout=3600 \
		net.netfilter.nf_conntrack_udp_timeout_stream=3600 ||
		bn_die "conntrack sysctls"
}

# bn_ct_on NS: conntrack on in NS without a rule in the forward path: a ct
# expression in an output chain, which forwarded packets never traverse.
bn_ct_on() {
	ip netns exec "$1" nft -f - <<-EOF || bn_die "nft: conntrack table"
		table inet bn_ct {
			chain output {
				type filter hook output priority filter; policy accept;
				ct state invalid counter
			}
		}
	EOF
}

# bn_flowtable NS COUNTER(0|1) DEVS: an nftables flowtable in table ft_fwd
# (the forward ruleset's), fed by a chain after the ruleset's forward chain,
# so only what the ruleset accepts is offloaded.
bn_flowtable() {
	local ns=$1 counter= devs=$3
	[ "$2" = 0 ] || counter="counter;"
	ip netns exec "$ns" nft -f - <<-EOF || return 1
		table inet ft_fwd {
			flowtable f {
				hook ingress priority 0; devices = { $devs }; $counter
			}
			chain bn_offload {
				type filter hook forward priority filter + 10; policy accept;
				meta l4proto { tcp, udp } flow add @f
			}
		}
	EOF
}

# bn_path_on NS NAME: set the router in NS up for one path (see the top).
bn_path_on() {
	local ns=$1
	BN_FT_DEVS="vlan22, vlan2222"
	case $2 in
	ceiling)
		ip netns exec "$ns" tc qdisc add dev trunk0 clsact &&
			ip netns exec "$ns" tc filter add dev trunk0 ingress pref 1 protocol all \
				matchall action vlan modify id 2222 pipe \
				action mirred egress redirect dev trunk0 ||
			bn_die "tc turnaround on trunk0"
		;;
	fs0) bn_ct_on "$ns" ;;
	fs50) nft_forward_ruleset "$ns" vlan22 vlan2222 ;;
	nfft | nfftc)
		nft_forward_ruleset "$ns" vlan22 vlan2222
		c=0
		[ "$2" = nfft ] || c=1
		if ! bn_flowtable "$ns" "$c" "vlan22, vlan2222"; then
			# Not every kernel takes VLAN devices in a flowtable.
			say "  (the flowtable does not take vlan22/vlan2222 here: using trunk0)"
			BN_FT_DEVS=trunk0
			bn_flowtable "$ns" "$c" trunk0 || bn_die "nft: flowtable"
		fi
		;;
	nfftct)
		nft_forward_ruleset "$ns" vlan22 vlan2222
		BN_FT_DEVS=trunk0
		bn_flowtable "$ns" 1 trunk0 || bn_die "nft: flowtable on trunk0"
		;;
	fasttrack)
		nft_forward_ruleset "$ns" vlan22 vlan2222
		ip netns exec "$ns" ftctl enable vlan22 >/dev/null &&
			ip netns exec "$ns" ftctl enable vlan2222 >/dev/null ||
			bn_die "ftctl enable"
		;;
	fthooks)
		bn_path_on "$ns" fasttrack
		ip netns exec "$ns" nft -f - <<-EOF || bn_die "nft: netdev ingress chain"
			table netdev bn_hooks {
				chain in22 {
					type filter hook ingress device vlan22 priority 0;
					counter
				}
			}
		EOF
		ip netns exec "$ns" nft add chain netdev bn_hooks out2222 \
			'{ type filter hook egress device vlan2222 priority 0; }' 2>/dev/null &&
			ip netns exec "$ns" nft add rule netdev bn_hooks out2222 counter ||
			say "  (no netdev egress hook on this kernel: ingress chain only)"
		;;
	ftxdp)
		bn_path_on "$ns" fasttrack
		grep -q ' /sys/fs/bpf bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf ||
			bn_die "mount bpffs"
		ip netns exec "$ns" ftctl xdp on trunk0 >/dev/null || bn_die "ftctl xdp on trunk0"
		# A NIC (BN_NIC) delivers XDP_TX frames without one on gen0.
		[ -n "${BN_NIC:-}" ] || ip netns exec "$NS_GEN" ftctl xdp on gen0 >/dev/null ||
			bn_die "ftctl xdp on gen0"
		;;
	xdpceil)
		ip -n "$ns" link set dev trunk0 xdpdrv obj /bench/xdp/ceiling.bpf.o sec xdp ||
			bn_die "XDP ceiling on trunk0"
		;;
	fs50m | nfftcm | fasttrackm | ftxdpm)
		bn_path_on "$ns" "${2%m}"
		ip netns exec "$ns" nft -f - <<-EOF || bn_die "nft: masquerade"
			table inet bn_nat {
				chain postrouting {
					type nat hook postrouting priority srcnat; policy accept;
					oifname "vlan2222" meta l4proto udp masquerade
				}
			}
		EOF
		BN_MASQ=1
		;;
	*) bn_die "unknown path $2" ;;
	esac
}

# bn_path_off NS: back to a plain router, with no connection tracked.
bn_path_off() {
	local ns=$1
	ip netns exec "$ns" ftctl xdp off trunk0 >/dev/null 2>&1
	ip -n "$ns" link set dev trunk0 xdpdrv off >/dev/null 2>&1
	BN_MASQ=
	[ -z "${NS_GEN:-}" ] || ip netns exec "$NS_GEN" ftctl xdp off gen0 >/dev/null 2>&1
	ip netns exec "$ns" ftctl disable vlan22 >/dev/null 2>&1
	ip netns exec "$ns" ftctl disable vlan2222 >/dev/null 2>&1
	ip netns exec "$ns" tc qdisc del dev trunk0 clsact >/dev/null 2>&1
	ip netns exec "$ns" nft flush ruleset || bn_die "nft flush ruleset"
	ip netns exec "$ns" conntrack -F >/dev/null 2>&1
	# Flowtable entries and fasttrack entries go away with their
	# connections; wait for the tables to empty.
	busywait 20000 bn_ct_empty "$ns" || say "  (conntrack table not empty after flush)"
}

bn_ct_count() { ip netns exec "$1" cat /proc/sys/net/netfilter/nf_conntrack_count; }
bn_ct_empty() {
	[ "$(bn_ct_count "$1")" -eq 0 ] && return 0
	ip netns exec "$1" conntrack -F >/dev/null 2>&1
	return 1
}

# ------------------------------------------------- pktgen topology ----

GEN_V4=198.18.22.2 GEN_V6=2001:db8:22::2		# "client", VLAN 22
SINK_V4=198.18.222.2 SINK_V6=2001:db8:2222::2	# "server", VLAN 2222

# bn_setup_pktgen: the generator and the router (see the top).
bn_setup_pktgen() {
	local ip
	setup_ns NS_GEN NS_ROUTER
	# gen0 sends nothing of its own (no IPv6 autoconfiguration).
	must ip netns exec "$NS_GEN" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	must ip netns exec "$NS_GEN" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	if [ -n "${BN_NIC:-}" ]; then
		bn_nic_links
	else
		must ip -n "$NS_GEN" link add gen0 type veth peer name trunk0 netns "$NS_ROUTER"
	fi
	# hostgen (nic.sh) is the generator and the sink, outside the guest.
	[ "${BN_NIC:-}" = hostgen ] || must ip -n "$NS_GEN" link set gen0 up
	router_forwarding "$NS_ROUTER"
	bn_ct_settings "$NS_ROUTER"
	must ip -n "$NS_ROUTER" link set trunk0 up
	must ip -n "$NS_ROUTER" link add link trunk0 name vlan22 type vlan id 22
	must ip -n "$NS_ROUTER" link add link trunk0 name vlan2222 type vlan id 2222
	addr "$NS_ROUTER" vlan22 198.18.22.1/24 2001:db8:22::1/64
	addr "$NS_ROUTER" vlan2222 198.18.222.1/24 2001:db8:2222::1/64

	[ "${BN_NIC:-}" = hostgen ] || GEN_MAC=$(ip netns exec "$NS_GEN" cat /sys/class/net/gen0/address)
	TRUNK_MAC=$(ip netns exec "$NS_ROUTER" cat /sys/class/net/trunk0/address)
	for ip in $GEN_V4 $GEN_V6; do
		must ip -n "$NS_ROUTER" neigh replace "$ip" lladdr "$GEN_MAC" dev vlan22 nud permanent
	done
	for ip in $SINK_V4 $SINK_V6; do
		must ip -n "$NS_ROUTER" neigh replace "$ip" lladdr "$GEN_MAC" dev vlan2222 nud permanent
	done
	[ "${BN_NIC:-}" != hostgen ] || return 0
	# The sink: count (gen0's rx counter) and drop.
	must ip netns exec "$NS_GEN" tc qdisc add dev gen0 clsact
	must ip netns exec "$NS_GEN" tc filter add dev gen0 ingress pref 1 protocol all matchall action drop
	modprobe pktgen || bn_die "modprobe pktgen"
}

bn_gen_rx() { ip netns exec "$NS_GEN" cat /sys/class/net/gen0/statistics/rx_packets; }

# bn_pktgen FAM DIR COUNT NSRC NDST: send COUNT 64-byte UDP frames from gen0.
#   DIR fwd: tagged 22, client -> server, source ports 10000.., destination
#            ports 20000.. (NSRC and NDST of them, each stepping by one per
#            packet: coprime counts give NSRC*NDST distinct flows);
#   DIR rev: tagged 2222, server -> client, the same flows' replies.
# Sets BN_USEC (pktgen's run time), BN_SENT, BN_RX (frames back at gen0),
# BN_IDLE_USEC (the part of BN_USEC pktgen's thread was scheduled out) and
# BN_SLOW (slab slow paths in the run, with BN_PKTGEN_SLOW=1; see
# bn_slab_probes). With BN_NIC=hostgen, hostgen sends them (hg_pktgen).
bn_pktgen() {
	local count=$3 rx0 out
	bn_flow "$1" "$2" "$4" "$5"
	if [ "${BN_NIC:-}" = hostgen ]; then
		hg_pktgen "$1" "$count"
		return
	fi
	rx0=$(bn_gen_rx)
	# shellcheck disable=SC2086 # BN_FLOW: six words
	out=$(ip netns exec "$NS_GEN" sh /bench/guest/pktgen.sh gen0 "$TRUNK_MAC" "$BN_VLAN" \
		"$1" $BN_FLOW "$count") ||
		bn_die "pktgen: $out"
	set -- $out
	BN_USEC=$1 BN_SENT=$2 BN_IDLE_USEC=${3:-} BN_SLOW=${4:--}
	# Through NICs (BN_NIC), frames pktgen has handed over may still be
	# on their way back when it stops: wait for them (the run time stays
	# pktgen's; lost ones never come).
	[ -z "${BN_NIC:-}" ] || busywait 2000 bn_gen_rx_reached $((rx0 + BN_SENT)) || true
	BN_RX=$(($(bn_gen_rx) - rx0))
}

bn_gen_rx_reached() { [ "$(bn_gen_rx)" -ge "$1" ]; }

# bn_flow FAM DIR NSRC NDST: bn_pktgen's frames: BN_VLAN and BN_FLOW, "SRC
# DST SPORT NSPORT DPORT NDPORT" (pktgen.sh's and hostgen's order).
bn_flow() {
	local vlan=22 src dst sp=10000 dp=20000 nsp=$3 ndp=$4
	if [ "$1" = 4 ]; then src=$GEN_V4 dst=$SINK_V4; else src=$GEN_V6 dst=$SINK_V6; fi
	if [ "$2" = rev ]; then
		vlan=2222 sp=20000 dp=10000 nsp=$4 ndp=$3
		if [ "$1" = 4 ]; then src=$SINK_V4 dst=$GEN_V4; else src=$SINK_V6 dst=$GEN_V6; fi
		# Masqueraded (BN_MASQ): the replies go to the router's address.
		if [ -n "${BN_MASQ:-}" ]; then
			if [ "$1" = 4 ]; then dst=198.18.222.1; else dst=2001:db8:2222::1; fi
		fi
	fi
	BN_VLAN=$vlan BN_FLOW="$src $dst $sp $nsp $dp $ndp"
}

# ------------------------------------------------ the harness's slab ----
#
# Every frame costs the harness two objects of one slab cache at once:
# pktgen holds its frame (clone_skb 0: until it builds the next), and the
# router's skb_vlan_untag() copies the head of that shared frame
# (skb_share_check(), then skb_cow() in skb_reorder_vlan_header()) into an
# object of the same size (kmalloc-1k on 6.1). The copy is freed at the
# sink, pktgen's frame one frame later. When SLUB's CPU slab has a single
# free object left as a run starts, and the next slab too, the two
# ping-pong between two slabs with one free slot each: every frame takes
# ___slab_alloc() and __slab_free(), about 300 instructions, for the whole
# run, on any path. Which runs start so depends on the cache's layout,
# that is on what ran before: the ceiling's runs and a path's need not
# agree, and the difference lands in the path's router work (6.1:
# fasttrack's 690 instructions instead of 400). measure() counts the slow
# paths in each run and, when the harness took them, moves the allocator
# on and runs again.

# bn_slab_probes: kprobes on SLUB's slow paths, whose hits pktgen.sh
# counts (BN_PKTGEN_SLOW=1) in kprobe_profile, in a tracefs at
# /tmp/bn_tracefs (ip netns exec mounts a sysfs of its own over /sys);
# tracing stays off: nothing is recorded. Off until bn_slab_count on.
# Fails where there are none.
bn_slab_probes() {
	local t=/tmp/bn_tracefs
	mkdir -p $t
	[ -e $t/kprobe_profile ] || mount -t tracefs nodev $t 2>/dev/null || return 1
	grep -q bn_slab_alloc $t/kprobe_events 2>/dev/null && return 0
	echo 0 >$t/tracing_on &&
		echo 'p:bn/bn_slab_alloc ___slab_alloc' >>$t/kprobe_events &&
		echo 'p:bn/bn_slab_free __slab_free' >>$t/kprobe_events
}

# bn_slab_count on|off: arm the probes (measure() only: a hit costs a few
# hundred instructions, which would weigh on the sections that allocate).
bn_slab_count() {
	local v=0
	[ "$1" = off ] || v=1
	[ -e /tmp/bn_tracefs/events/bn/enable ] && echo $v >/tmp/bn_tracefs/events/bn/enable
}

# bn_slab_clean: the last bn_pktgen run took the slow paths on less than a
# quarter of its frames, or was not counted.
bn_slab_clean() {
	[ "$BN_SLOW" = - ] || [ $((BN_SLOW * 4)) -lt "$BN_RX" ]
}

# bn_hold FAM N: the heads of N frames like the measured ones (untagged,
# four bytes shorter: objects of the same cache) held until bn_unhold, so
# that the next run starts the allocator elsewhere. pktgen sends them
# through hold0 (a dummy device of the generator's netns), whose tc egress
# mirrors each to hold1, whose plug qdisc keeps the clone and so the head;
# pktgen's own frame is freed, as pktgen waits for it to be.
bn_hold() {
	local src=$GEN_V4 dst=$SINK_V4 out ns="$NS_GEN"
	[ "$1" = 4 ] || { src=$GEN_V6 dst=$SINK_V6; }
	if ! ip -n "$ns" link show hold1 >/dev/null 2>&1; then
		if ! { ip -n "$ns" link add hold0 type dummy && ip -n "$ns" link set hold0 up &&
			ip -n "$ns" link add hold1 type dummy && ip -n "$ns" link set hold1 up &&
			ip netns exec "$ns" tc qdisc add dev hold0 clsact &&
			ip netns exec "$ns" tc filter add dev hold0 egress matchall \
				action mirred egress mirror dev hold1; }; then
			bn_die "hold0, hold1"
		fi
	fi
	ip netns exec "$ns" tc qdisc replace dev hold1 root plug limit 100000000 ||
		bn_die "plug qdisc on hold1"
	out=$(BN_PKTGEN_QUEUE=1 ip netns exec "$ns" sh /bench/guest/pktgen.sh hold0 \
		"$TRUNK_MAC" - "$1" "$src" "$dst" 10000 1 20000 1 "$2") || bn_die "pktgen on hold0: $out"
}

bn_unhold() {
	ip netns exec "$NS_GEN" tc qdisc del dev hold1 root 2>/dev/null || true
}
