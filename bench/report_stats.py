# SPDX-License-Identifier: GPL-2.0
"""The few numbers every bench report section computes the same way."""
import statistics


def med(vals):
    """The median, or None for no measurement."""
    return statistics.median(vals) if vals else None


def spread(vals):
    """(max - min) / median, the repeatability of a measurement."""
    if not vals or len(vals) < 2:
        return 0.0
    m = statistics.median(vals)
    return (max(vals) - min(vals)) / m if m else 0.0


def opt_int(v):
    """A guest's integer field, or None where it printed nothing."""
    return int(v) if v not in (None, "", "none") else None


def fmt(v, f="%.1f"):
    """A table cell: the number, or a dash for none."""
    return "—" if v is None else f % v

# The guests run under qemu -icount shift=2: 4 ns of guest time per
# instruction executed.
NS_PER_INSN = 4.0
