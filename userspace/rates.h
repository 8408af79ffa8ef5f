/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: rates from counter deltas, for "ftctl top" (show -r). Pure
 * functions, unit-tested in test.c.
 */
#ifndef FTCTL_RATES_H
#define FTCTL_RATES_H

#include <stddef.h>
#include <stdint.h>

/* @delta per second over @ns nanoseconds; 0 when @ns is 0. */
double ft_rate(uint64_t delta, uint64_t ns);

/*
 * "950", "12.3k", "1.50M", "2.00G": @v with an SI prefix, three
 * significant digits, and @unit after a space ("12.3 kpps").
 */
const char *ft_si(double v, const char *unit, char *buf, size_t size);

/*
 * "SECONDS" of "top": a decimal with an optional fraction, 0.01 to 86400.
 * Returns 0 and the interval in ns, or -EINVAL.
 */
int ft_parse_interval(const char *s, uint64_t *ns);

#endif /* FTCTL_RATES_H */
