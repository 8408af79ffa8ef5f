// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, NIC path (bench/guest/nic.sh): the generator's sink. On gen0
 * every frame that comes back is dropped in the driver, before an skb is
 * built: the harness then charges each frame the least a receive can
 * cost, as the veth harness does with a tc drop on a frame veth hands
 * over as an skb. virtio_net counts the frame in gen0's rx_packets first.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int bn_xdp_sink(struct xdp_md *ctx)
{
	return XDP_DROP;
}

char _license[] SEC("license") = "GPL";
