/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftctl: what is enabled, rules and devices taken together: disable all
 * of it, and print it as "enable" lines for "ftctl save".
 */
#ifndef FTCTL_ENABLED_H
#define FTCTL_ENABLED_H

#include <stdint.h>

#include "dev.h"
#include "state.h"

/*
 * Disable @families of every rule and enabled device, but for the
 * families @keep(d, @data) returns (@keep may be NULL; a rule is passed
 * as a device of its pattern's name). A device that went away meanwhile
 * counts as disabled. Returns FT_OK or FT_ERR (said).
 */
int ft_disable_all(struct ftctl *ft, uint32_t families,
		   uint32_t (*keep)(const struct ft_dev *d, void *data),
		   void *data);

/* The "enable" lines of "ftctl save". Returns FT_OK or FT_ERR. */
int ft_save_enables(struct ftctl *ft);

#endif /* FTCTL_ENABLED_H */
