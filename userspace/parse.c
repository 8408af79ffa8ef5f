// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: command-line value parsing. See parse.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/fasttrack.h>

#include "link.h"
#include "parse.h"

const struct ft_family ft_families[FT_NFAMILIES] = {
	{ "ipv4", FASTTRACK_F_IPV4, FASTTRACK_A_DEV_IPV4 },
	{ "ipv6", FASTTRACK_F_IPV6, FASTTRACK_A_DEV_IPV6 },
};

int parse_family(const char *s, uint32_t *flag)
{
	unsigned int i;

	for (i = 0; i < FT_NFAMILIES; i++) {
		if (!strcmp(s, ft_families[i].name)) {
			*flag = ft_families[i].flag;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_u32(const char *s, uint32_t *val, bool hex)
{
	int (*is_digit)(int c) = isdigit;
	unsigned long long v;
	const char *c;
	int base = 10;

	if (hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
		is_digit = isxdigit;
	}
	/*
	 * Check the digits first: strtoull() alone would take leading
	 * spaces, a sign ("-1" is ULLONG_MAX) and a second "0x".
	 */
	if (!*s)
		return -EINVAL;
	for (c = s; *c; c++)
		if (!is_digit((unsigned char)*c))
			return -EINVAL;

	errno = 0;
	v = strtoull(s, NULL, base);
	if (errno == ERANGE || v > UINT32_MAX)
		return -ERANGE;
	*val = (uint32_t)v;
	return 0;
}

int parse_mark(const char *s, uint32_t *mark, uint32_t *mask, bool *has_mask)
{
	const char *slash = strchr(s, '/');
	char buf[32];
	size_t len;
	int ret;

	*has_mask = false;
	if (!slash)
		return parse_u32(s, mark, true);

	len = (size_t)(slash - s);
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';

	ret = parse_u32(buf, mark, true);
	if (ret)
		return ret;
	ret = parse_u32(slash + 1, mask, true);
	if (ret)
		return ret;
	*has_mask = true;
	return 0;
}

int check_ifname(const char *dev)
{
	const char *c;

	/* The kernel's dev_valid_name(). */
	if (!*dev || strlen(dev) >= IFNAMSIZ ||
	    !strcmp(dev, ".") || !strcmp(dev, ".."))
		return -EINVAL;
	for (c = dev; *c; c++)
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c))
			return -EINVAL;

	/* Only a definite "no such device" counts; the kernel has the last word. */
	return ft_link_index(dev, NULL) == -ENODEV ? -ENODEV : 0;
}
