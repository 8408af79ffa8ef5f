#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# fasttrack learns what conntrack tracks and never turns conntrack on: a
# router whose ruleset does not use conntrack tracks nothing, with fasttrack
# enabled as without it. The plain router, IPv4 and IPv6:
#
# 1. A stateless forward ruleset (counters only): TCP transfers arrive
#    intact through the forward chain, conntrack holds no entry, and
#    "ftctl stats" counts the packets as not learned, untracked.
# 2. A table that uses conntrack ("ct state established accept"): the
#    next transfers are tracked and offloaded.
# 3. That table deleted: conntrack stops tracking again although fasttrack
#    is still enabled; a new transfer leaves no conntrack entry and goes
#    through the forward chain.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
fp_require
ft_module_load
setup_plain_router

nft_r() { must ip netns exec "$NS_ROUTER" nft "$@"; }

# Counters the fp_* helpers read, and no conntrack expression.
nft_r -f - <<EOF
table inet ft_fwd {
	counter c2s { }
	counter s2c { }
	chain forward {
		type filter hook forward priority filter; policy accept;
		iifname "$ROUTER_CLIENT_DEV" oifname "$ROUTER_SERVER_DEV" counter name "c2s"
		iifname "$ROUTER_SERVER_DEV" oifname "$ROUTER_CLIENT_DEV" counter name "s2c"
	}
}
EOF
fp_enable "$ROUTER_CLIENT_DEV"
fp_enable "$ROUTER_SERVER_DEV"

# ct_count [CONNTRACK-FILTER...]: the router's conntrack entries (matching).
ct_count() {
	ip netns exec "$NS_ROUTER" conntrack -L "$@" 2>/dev/null | grep -c .
}

# transfer DESC FAMILY: a TCP upload; the fp_* deltas are set around it.
transfer() {
	fp_rand size 262144 524288
	file=$(fp_mkfile "t$2.$size" "$size")
	fp_port port
	fp_begin
	fp_tcp_transfer "$1" "$2" "$file" "" "" "$port"
	fp_end
}

# round WHAT SLOW|OFFLOAD TRACKED: per family, a transfer that
# fp_check_slow or fp_check_offload judges, and that conntrack tracks
# (TRACKED=1) or not (0).
round() {
	local d n
	for fam in 4 6; do
		d="IPv$fam, $1"
		transfer "$d" "$fam"
		"fp_check_$2" "$d" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
		n=$(ct_count -p tcp --dport "$port")
		if [ "$3" = 1 ]; then
			check_ge "$d: conntrack tracks the connection ($n)" "$n" 1
		else
			check_le "$d: conntrack does not track the connection ($n)" "$n" 0
		fi
	done
}

# ---------------------------------------------- no ruleset uses conntrack --
round "stateless ruleset" slow 0
n=$(ct_count)
check_le "conntrack holds no entry at all ($n)" "$n" 0
n=$(fp_num "$(fp_stat not_learned.untracked)")
check_ge "ftctl stats counts the packets as untracked ($n)" "$n" 1

# ------------------------------------ a table uses conntrack: inet ft_ct --
nft_ct_ruleset "$NS_ROUTER"
round "a ruleset that uses conntrack" offload 1

# ------------------------------------------------- that table deleted --
nft_r delete table inet ft_ct

# untracked_probe: a UDP datagram to a new port leaves no conntrack entry
# (the table's conntrack reference goes with its commit's cleanup work).
untracked_probe() {
	local p
	fp_port p
	echo probe | ip netns exec "$NS_CLIENT" timeout 5 \
		socat -u - "UDP4:$SERVER_IP4:$p" 2>/dev/null
	[ "$(ct_count -p udp --dport "$p")" = 0 ]
}
check "conntrack stops tracking once no table uses it" busywait 5000 untracked_probe
round "the table deleted" slow 0

fp_exit
