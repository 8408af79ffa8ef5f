// SPDX-License-Identifier: GPL-2.0
/*
 * fasttrack's XDP program: a stub over the module's kfunc. It holds no
 * logic and reads no structure of the module (a program that reads a
 * module's structs through CO-RE breaks when their layout changes): it
 * sends IPv4 and IPv6 frames, untagged or under one VLAN tag, to
 * bpf_fasttrack_xdp() and does what the verdict says, as
 * uapi/linux/fasttrack_xdp.h defines it. Everything else goes up.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/fasttrack_xdp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

struct vlan_hdr {
	__be16 tci;
	__be16 proto;
};

extern int bpf_fasttrack_xdp(struct xdp_md *ctx, struct fasttrack_xdp_out *out,
			     __u32 out_len) __ksym;

SEC("xdp")
int fasttrack_xdp(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct fasttrack_xdp_out out = { 0 };
	struct ethhdr *eth = data;
	struct vlan_hdr *vh;
	__be16 proto;
	int verdict;

	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	proto = eth->h_proto;
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
		vh = (void *)(eth + 1);
		if ((void *)(vh + 1) > data_end)
			return XDP_PASS;
		proto = vh->proto;
	}
	if (proto != bpf_htons(ETH_P_IP) && proto != bpf_htons(ETH_P_IPV6))
		return XDP_PASS;

	verdict = bpf_fasttrack_xdp(ctx, &out, sizeof(out));
	if (verdict != FASTTRACK_XDP_TX && verdict != FASTTRACK_XDP_REDIRECT)
		return XDP_PASS;
	/* The module checked the headroom: a failure here cannot happen. */
	if (out.head_adjust && bpf_xdp_adjust_head(ctx, out.head_adjust))
		return XDP_ABORTED;
	if (verdict == FASTTRACK_XDP_TX)
		return XDP_TX;
	return bpf_redirect(out.ifindex, 0);
}

char _license[] SEC("license") = "GPL";
