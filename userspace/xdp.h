/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: the XDP tier's program on devices. ftctl attaches it in driver
 * mode as a bpf_link and pins the link under bpffs, at
 * /sys/fs/bpf/fasttrack/net-<netns inode>/xdp-<ifindex>-<ifname>, so that
 * it stays after ftctl exits; unpinning it detaches the program. The pins
 * of a network namespace are therefore the tier's state there.
 */
#ifndef FTCTL_XDP_H
#define FTCTL_XDP_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

/* Whether this ftctl was built with the XDP program (clang, bpftool, libbpf). */
bool ft_xdp_built(void);

/* libbpf's messages on stderr (-v), or none. */
void ft_xdp_verbose(bool on);

/*
 * Attach the program to @dev. Returns FT_OK, FT_NOTHING (it was on
 * already, said unless in a batch) or FT_ERR (said: what to fix).
 */
int ft_xdp_on(struct ftctl *ft, const char *dev);

/* Detach it from @dev. FT_OK, FT_NOTHING (it was off, said) or FT_ERR. */
int ft_xdp_off(struct ftctl *ft, const char *dev);

/*
 * Detach it from every device of this network namespace, printing a line
 * for each. Returns FT_OK or FT_ERR (said).
 */
int ft_xdp_off_all(struct ftctl *ft);

/*
 * Call @fn for each device of this namespace the program is attached to
 * (pinned), in directory order. Returns 0, or -errno when the pins cannot
 * be read (-EACCES: not root).
 */
int ft_xdp_each(void (*fn)(uint32_t ifindex, const char *ifname, void *data),
		void *data);

/*
 * Whether the program carries @ifname's packets: it is attached to
 * @ifname, or to the real device under it if @ifname is a VLAN device.
 * 1 yes, 0 no, -errno when that cannot be told (-EACCES: not root).
 */
int ft_xdp_tier(uint32_t ifindex, const char *ifname);

/* The names of enum fasttrack_xdp_blocked bits, lowest first; NULL ends. */
extern const char *const ft_xdp_blocked_names[];

#endif /* FTCTL_XDP_H */
