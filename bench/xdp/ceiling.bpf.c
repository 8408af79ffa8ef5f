// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, NIC path (bench/guest/nic.sh): the XDP ceiling. On the
 * router's trunk, a frame tagged VLAN 22 goes back out of the trunk tagged
 * 2222 (and 2222 back as 22), its MAC addresses swapped: the router's
 * reply at layer 2 with no IP work, as the tc ceiling (vlan modify +
 * mirred) does it with skbs. Anything else passes to the stack.
 *
 * The tag is in the frame: virtio_net strips none. Loaded by
 * ip link set dev trunk0 xdpdrv obj ceiling.bpf.o sec xdp.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define BN_VID_A	22
#define BN_VID_B	2222
#define BN_VID_MASK	0x0fff

struct bn_vlan_hdr {
	__be16 tci;
	__be16 proto;
};

SEC("xdp")
int bn_xdp_ceiling(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct bn_vlan_hdr *vh = (void *)(eth + 1);
	unsigned char mac[ETH_ALEN];
	__u16 tci, vid;

	if ((void *)(vh + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_8021Q))
		return XDP_PASS;
	tci = bpf_ntohs(vh->tci);
	vid = tci & BN_VID_MASK;
	if (vid == BN_VID_A)
		vid = BN_VID_B;
	else if (vid == BN_VID_B)
		vid = BN_VID_A;
	else
		return XDP_PASS;
	vh->tci = bpf_htons((tci & ~BN_VID_MASK) | vid);
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	return XDP_TX;
}

char _license[] SEC("license") = "GPL";
