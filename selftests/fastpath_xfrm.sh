#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154,SC2046,SC2317 # dash has local; fp_rand and
# fp_port set variables by name; set -- $(...) splits on purpose; busywait and
# check call functions by name.
# An IPsec policy inserted under an offloaded stream. Mid-stream, the
# router gets an ESP tunnel (cbc(aes), hmac(sha256)) to the server for the
# client->server traffic: "ip xfrm state add" and "ip xfrm policy add ...
# dir out ... mode tunnel" in the router, the same state and a "dir in"
# policy (level use) in the server. From the moment the router's policy is
# in, the stream's packets must leave the router as ESP, never again in
# clear text. The switch between the router and the server counts, in a
# bridge forward chain towards the server's port, ESP packets and clear
# TCP packets of the stream:
#  - ESP packets reach the server after the policy insert;
#  - no clear-text TCP of the connection goes to the server from the
#    moment the policy is in (read in the same shell as the insert, then
#    watched for a second);
#  - the stream completes intact, through the tunnel.
# Skips when the kernel cannot do ESP with these algorithms.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_stale.sh"

fp_init
require_cmd ethtool

# The kernel's IPsec pieces, as modules or built in.
modprobe -a -q xfrm_user esp4 esp6 authenc echainiv 2>/dev/null
ENC_KEY=0x$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
AUTH_KEY=0x$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
probe=st-xfrm-$(ft_rand)
ip netns add "$probe" || ft_skip "cannot make a netns"
if ! out=$(ip -n "$probe" xfrm state add src 192.0.2.1 dst 192.0.2.2 proto esp spi 0x1 \
	mode tunnel enc 'cbc(aes)' "$ENC_KEY" auth 'hmac(sha256)' "$AUTH_KEY" 2>&1) ||
	! out=$(ip -n "$probe" xfrm state add src 2001:db8::1 dst 2001:db8::2 proto esp spi 0x1 \
	mode tunnel enc 'cbc(aes)' "$ENC_KEY" auth 'hmac(sha256)' "$AUTH_KEY" 2>&1); then
	ip netns del "$probe"
	ft_skip "this kernel cannot make an ESP state with cbc(aes) and hmac(sha256): $out"
fi
ip netns del "$probe"

fp_setup_stick
fp_csum_offload off
cdev=$ROUTER_CLIENT_DEV

# wire_count PORT: counters "wire_esp" and "wire_clear" in the switch: ESP
# packets, and TCP packets to PORT, that the bridge forwards to the server.
wire_count() {
	must ip netns exec "$NS_SWITCH" nft -f - <<-EOF
		table bridge st_wire
		delete table bridge st_wire
		table bridge st_wire {
			counter wire_esp { }
			counter wire_clear { }
			chain st_forward {
				type filter hook forward priority 0;
				oifname "swp2222" meta l4proto esp counter name "wire_esp"
				oifname "swp2222" tcp dport $1 counter name "wire_clear"
			}
		}
	EOF
}
wire() { fp_num "$(fp_nft_packets "$NS_SWITCH" "bridge st_wire" "wire_$1")"; }

# sa NS FAMILY ARGS...: "ip xfrm state add" of the router->server SA in NS.
sa() {
	local ns="$1" fam="$2"
	shift 2
	ip -n "$ns" "-$fam" xfrm state add "$@" proto esp spi "0x$((1000 + fam))" reqid "$fam" \
		mode tunnel enc 'cbc(aes)' "$ENC_KEY" auth 'hmac(sha256)' "$AUTH_KEY"
}

for fam in 4 6; do
	if [ "$fam" = 4 ]; then
		cip=$CLIENT_IP4 sip=$SERVER_IP4 rip=$ROUTER_SERVER_IP4 len=32
	else
		cip=$CLIENT_IP6 sip=$SERVER_IP6 rip=$ROUTER_SERVER_IP6 len=128
	fi
	fp_port port
	wire_count "$port"
	stream=$(fp_mkfile "s$fam" 8388608)
	fp_stream_start "s$fam" "$fam" "$stream" "" "" "$port"
	st_offloaded "IPv$fam" "$fam"
	check_ge "IPv$fam: before the policy, the stream goes to the server in clear" "$(wire clear)" 100

	# The server first, so that it decrypts whatever the router encrypts.
	must sa "$NS_SERVER" "$fam" src "$rip" dst "$sip"
	must ip -n "$NS_SERVER" "-$fam" xfrm policy add src "$cip/$len" dst "$sip/$len" dir in \
		tmpl src "$rip" dst "$sip" proto esp reqid "$fam" mode tunnel level use
	must sa "$NS_ROUTER" "$fam" src "$rip" dst "$sip"
	st_act pol sh -c "ip -$fam xfrm policy add src $cip/$len dst $sip/$len dir out \
		tmpl src $rip dst $sip proto esp reqid $fam mode tunnel &&
		ip netns exec $NS_SWITCH nft list table bridge st_wire"
	st_check_act "IPv$fam: ip xfrm policy add ... dir out ... mode tunnel, in the router" pol
	clear0=$(awk '$1 == "counter" && $2 == "wire_clear" { c = 1 } c && $1 == "packets" { print $2; exit }' \
		"$FP_TMP/pol.out")
	clear0=$(fp_num "$clear0")
	esp0=$(wire esp)
	fp_stream_running "IPv$fam policy insert"
	st_check_stays "IPv$fam: no clear-text TCP of the stream after the policy insert (1 s)" \
		1000 "$clear0" wire clear
	st_check_grows "IPv$fam: the stream reaches the server as ESP" 2000 "$esp0" wire esp
	log_info "IPv$fam: after the policy insert: $(($(wire esp) - esp0)) ESP packets, $(($(wire clear) - clear0)) clear"
	st_stream_finish "IPv$fam through the tunnel" "s$fam" "$stream" 30000
	check_eq "IPv$fam: no clear-text TCP of the stream after the policy insert, to the end" \
		"$clear0" "$(wire clear)"
	must ip -n "$NS_ROUTER" xfrm policy flush
	must ip -n "$NS_ROUTER" xfrm state flush
	must ip -n "$NS_SERVER" xfrm policy flush
	must ip -n "$NS_SERVER" xfrm state flush
done

fp_exit
