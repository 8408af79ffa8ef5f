#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# NFQUEUE ahead of the learn hook. A postrouting rule queues the router's
# forwarded TCP to nfqaccept, which accepts each packet: the verdict
# reinjects it through nf_reinject(), which runs the rest of the chain,
# fasttrack's learn hook among them, in process context with BH enabled.
# Through the queue, transfers of both families arrive intact, the learn
# hook handles the reinjected packets, conntrack sees the close and no flow
# is left. With the rule gone, a new connection is offloaded. The kernel
# log stays clean: on the debug kernel (make check-debug) DEBUG_PREEMPT and
# lockdep catch per-CPU state or softirq locks used with BH enabled.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"

fp_init
require_cmd nfqaccept
dmesg_mark
fp_setup_plain
# Built in, or loaded on demand; on Debian's kernels, modules.
modprobe -q nfnetlink_queue 2>/dev/null
modprobe -q nft_queue 2>/dev/null

# Any priority below fasttrack's learn hook, NF_IP_PRI_CONNTRACK_CONFIRM - 1.
queue_on() {
	must ip netns exec "$NS_ROUTER" nft -f - <<-EOF
		table inet ft_queue {
			counter queued { }
			chain post {
				type filter hook postrouting priority filter; policy accept;
				meta l4proto tcp counter name "queued" queue num 0
			}
		}
	EOF
}

queued() { fp_num "$(fp_nft_packets "$NS_ROUTER" "inet ft_queue" queued)"; }

ip netns exec "$NS_ROUTER" nfqaccept 0 >"$FP_TMP/nfq.out" 2>&1 &
nfq=$!
defer fp_kill "$nfq"
must busywait 5000 grep -qx ready "$FP_TMP/nfq.out"
queue_on

# Through the queue: every reinjected packet runs the learn hook.
for fam in 4 6; do
	fp_rand size 262144 524288
	file=$(fp_mkfile "q$fam" "$size")
	set -- $(fp_stat learned not_learned.raced)
	learned0=$(fp_num "$1") raced0=$(fp_num "$2")
	q0=$(queued)
	fp_port port
	fp_tcp_transfer "IPv$fam queued" "$fam" "$file" "" "" "$port"
	set -- $(fp_stat learned not_learned.raced)
	learned=$(($(fp_num "$1") - learned0)) raced=$(($(fp_num "$2") - raced0))
	log_info "IPv$fam queued: $(($(queued) - q0)) packets queued; learned $learned, not learned (raced) $raced"
	# The handshake at least: it is never learned.
	check_ge "IPv$fam queued: the queue saw the connection" $(($(queued) - q0)) 3
	# An established packet is learned, or is not for want of its state
	# from the ingress hook, which a later packet took over.
	check_ge "IPv$fam queued: the learn hook saw reinjected packets" \
		$((learned + raced)) 1
	if busywait 2000 fp_stat_eq flows 0; then
		pass "IPv$fam queued: no flow is left after the close"
	else
		fail "IPv$fam queued: no flow is left after the close" "ftctl -j stats: $(fp_stats)"
	fi
	state=$(fp_ct_state tcp "$port")
	case $state in
	TIME_WAIT | CLOSE | gone) pass "IPv$fam queued: conntrack saw the close ($state)" ;;
	*) fail "IPv$fam queued: conntrack saw the close" "conntrack state: $state" \
		"$(ip netns exec "$NS_ROUTER" conntrack -L -p tcp --dport "$port" 2>&1)" ;;
	esac
done

total=$(queued)
must ip netns exec "$NS_ROUTER" nft delete table inet ft_queue
kill "$nfq"
wait "$nfq"
verdicts=$(sed -n 's/^verdicts //p' "$FP_TMP/nfq.out")
check_ge "nfqaccept gave a verdict for every queued packet" "$(fp_num "$verdicts")" "$total"

# Without the queue, a new connection is offloaded as usual.
for fam in 4 6; do
	fp_rand size 2097152 4194304
	file=$(fp_mkfile "fast$fam" "$size")
	fp_begin
	fp_tcp_transfer "IPv$fam unqueued" "$fam" "$file"
	fp_end
	fp_check_offload "IPv$fam unqueued" "$size" "$FPD_C2S" "$(fp_cdelta "$fam")"
done

check_dmesg_clean "no kernel splat"
fp_exit
