// SPDX-License-Identifier: GPL-2.0
/*
 * ftctl: rates from counter deltas. See rates.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rates.h"

#define NSEC_PER_SEC	1000000000ULL

double ft_rate(uint64_t delta, uint64_t ns)
{
	if (!ns)
		return 0;
	return (double)delta * (double)NSEC_PER_SEC / (double)ns;
}

const char *ft_si(double v, const char *unit, char *buf, size_t size)
{
	static const char prefix[] = " kMGTPE";
	unsigned int p = 0;

	while (v >= 999.5 && p < sizeof(prefix) - 2) {
		v /= 1000;
		p++;
	}
	if (!p)
		snprintf(buf, size, "%.0f %s", v, unit);
	else
		snprintf(buf, size, "%.*f %c%s", v < 9.995 ? 2 : v < 99.95 ? 1 : 0,
			 v, prefix[p], unit);
	return buf;
}

int ft_parse_interval(const char *s, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = NSEC_PER_SEC;
	const char *c = s;

	if (!isdigit((unsigned char)*c))
		return -EINVAL;
	for (; isdigit((unsigned char)*c); c++) {
		whole = whole * 10 + (uint64_t)(*c - '0');
		if (whole > 86400)
			return -EINVAL;
	}
	if (*c == '.') {
		for (c++; isdigit((unsigned char)*c); c++) {
			if (scale == 1)
				return -EINVAL;	/* below a nanosecond */
			scale /= 10;
			frac += (uint64_t)(*c - '0') * scale;
		}
	}
	if (*c)
		return -EINVAL;
	*ns = whole * NSEC_PER_SEC + frac;
	if (*ns < NSEC_PER_SEC / 100 || *ns > 86400 * NSEC_PER_SEC)
		return -EINVAL;
	return 0;
}
