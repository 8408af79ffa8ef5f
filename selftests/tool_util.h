/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the selftests' C helpers (udpflood, connflood, linerate, ftinject)
 * and bench/hostgen.c share:
 * option numbers checked against their range, and the pieces of building
 * raw headers. Included by each; tools.sh builds every helper on its own.
 * Callers define _GNU_SOURCE first (program_invocation_short_name).
 */
#ifndef FT_TOOL_UTIL_H
#define FT_TOOL_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* @s as a number from @min to @max, or exit 2 saying why. */
static inline unsigned long number(const char *s, unsigned long min,
				   unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: '%s' is not a number from %lu to %lu\n",
			program_invocation_short_name, s, min, max);
		exit(2);
	}
	return v;
}

/* One's complement sum of @len bytes at @p, added to @sum. */
static inline uint32_t csum_add(uint32_t sum, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(b[i] << 8 | b[i + 1]);
	if (len & 1)
		sum += (uint32_t)(b[len - 1] << 8);
	return sum;
}

static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

#endif
