/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * fasttrack: the XDP tier's interface between the module and its BPF
 * program.
 *
 * The module registers one kfunc for XDP programs (where the kernel and the
 * module have BTF):
 *
 *   int bpf_fasttrack_xdp(struct xdp_md *ctx,
 *                         struct fasttrack_xdp_out *out, __u32 out_len);
 *
 * It parses the frame (at most one VLAN tag), looks its flow up in the
 * cache of the skb tier, checks it as that tier does and, if every check
 * holds, rewrites the frame in place and counts it. The program then acts
 * on the verdict and nothing else: it holds no logic of its own and reads
 * no structure of the module.
 *
 *   FASTTRACK_XDP_PASS      return XDP_PASS: the skb tier or the stack
 *                           handles the frame, which is untouched.
 *   FASTTRACK_XDP_TX        call bpf_xdp_adjust_head(ctx, out->head_adjust)
 *                           if it is not 0, then return XDP_TX.
 *   FASTTRACK_XDP_REDIRECT  as TX, then return bpf_redirect(out->ifindex, 0).
 *
 * head_adjust is -4 when a VLAN tag was pushed and 4 when one was popped:
 * the module has written the frame where it will start, and has checked
 * that the move is within the frame's headroom, so the call cannot fail.
 * out_len must be sizeof(struct fasttrack_xdp_out); any other value gives
 * FASTTRACK_XDP_PASS.
 */
#ifndef _UAPI_LINUX_FASTTRACK_XDP_H
#define _UAPI_LINUX_FASTTRACK_XDP_H

#include <linux/types.h>

#define FASTTRACK_XDP_KFUNC	"bpf_fasttrack_xdp"

enum fasttrack_xdp_verdict {
	FASTTRACK_XDP_PASS,
	FASTTRACK_XDP_TX,
	FASTTRACK_XDP_REDIRECT,
};

struct fasttrack_xdp_out {
	__s32 head_adjust;
	__u32 ifindex;
};

#endif /* _UAPI_LINUX_FASTTRACK_XDP_H */
