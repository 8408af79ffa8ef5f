/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: devices over rtnetlink (RTM_GETLINK): a name's index, and the
 * netdev counters "ip -s link" shows (IFLA_STATS64), one consistent
 * snapshot of the device's 64-bit counters per request.
 */
#ifndef FTCTL_LINK_H
#define FTCTL_LINK_H

#include <stdint.h>

struct mnl_socket;

struct ft_link {
	struct mnl_socket *sk;
	uint32_t portid, seq;
	char *buf;
};

struct ft_link_stats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
};

/* Open an rtnetlink socket in this network namespace. 0 or -errno. */
int ft_link_open(struct ft_link *l);
void ft_link_close(struct ft_link *l);

/*
 * The index of the device named @name in this network namespace, in
 * @ifindex unless NULL: 0, -ENODEV, or another -errno. Unlike
 * if_nametoindex(), whose ioctl makes the kernel try to load a module
 * named after a device that does not exist, it has no side effect.
 */
int ft_link_index(const char *name, uint32_t *ifindex);

/* The counters of device @ifindex. 0, -ENODEV, or another -errno. */
int ft_link_stats(struct ft_link *l, uint32_t ifindex,
		  struct ft_link_stats *st);

#endif /* FTCTL_LINK_H */
