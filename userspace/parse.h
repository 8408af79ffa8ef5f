/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: command-line value parsing. Nothing here talks to the kernel.
 */
#ifndef FTCTL_PARSE_H
#define FTCTL_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* The address families fasttrack knows, with their netlink names. */
struct ft_family {
	const char *name;	/* "ipv4", as typed and printed */
	uint32_t flag;		/* FASTTRACK_F_* */
	uint16_t dev_attr;	/* FASTTRACK_A_DEV_* nest in DEV_GET */
};

#define FT_NFAMILIES	2
extern const struct ft_family ft_families[FT_NFAMILIES];

/* "ipv4" or "ipv6" to its FASTTRACK_F_* bit. Returns 0 or -EINVAL. */
int parse_family(const char *s, uint32_t *flag);

/*
 * A u32 in decimal, or also in hex with a 0x prefix when @hex is set. No
 * sign, no spaces, no trailing characters. Returns 0, -EINVAL (not a
 * number) or -ERANGE (above 4294967295).
 */
int parse_u32(const char *s, uint32_t *val, bool hex);

/*
 * MARK or MARK/MASK, each hex (0x...) or decimal. @has_mask tells whether a
 * mask was given. Returns 0, -EINVAL or -ERANGE.
 */
int parse_mark(const char *s, uint32_t *mark, uint32_t *mask, bool *has_mask);

/*
 * Check a device name before it goes to the kernel. Returns 0, -EINVAL (not
 * a valid name: empty, too long, or with '/', ':' or white space) or
 * -ENODEV (no such device in this network namespace).
 */
int check_ifname(const char *dev);

#endif /* FTCTL_PARSE_H */
