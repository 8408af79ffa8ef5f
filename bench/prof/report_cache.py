#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/prof/cache.sh: modelled cache misses per packet, from the guest's
"@RESULT sec=cache" lines (bench.log) and the plugin's counts of each
window (win.N: l1d_access l1d_miss l1i_access l1i_miss l2_access l2_miss
insns, bench/prof/ftcache.c).

With win.N.pkt (ftcache.c's pkt=), a second table per path and family:
per packet (pktgen frame), distinct data lines, code lines, atomic
instructions and instructions, for the whole guest and for the module
area, and their split by module; each the median over the window's full
packets, the mean beside it, per boot.

usage: report_cache.py DIR...         the tables, of the windows of every
                                      DIR (one per boot)
       report_cache.py --check DIR    ftcache.so's whole-run totals
                                      (win.all) against cache.c's log
       report_cache.py --lines DIR [--ksyms FILE] [--ko fasttrack.ko]
                       [--only MOD,...]
                                      the data lines module code touched
                                      in the dumped packet of each window
                                      (win.N.lines: CACHE_DUMP), named
"""
import bisect
import os
import re
import subprocess
import sys

NAMES = ("l1d_access", "l1d_miss", "l1i_access", "l1i_miss", "l2_access", "l2_miss", "insns")
PATHS = {"ceiling": "L2 turnaround (ceiling)", "fasttrack": "fasttrack",
         "ftxdp": "fasttrack, XDP tier", "nfftc": "flowtable + counter"}


def counts(path):
    with open(path) as f:
        return dict(zip(NAMES, (int(x) for x in f.read().split())))


def windows(d):
    rows = []
    with open(os.path.join(d, "bench.log"), errors="replace") as f:
        for line in f:
            if not line.startswith("@RESULT sec=cache "):
                continue
            r = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
            if r.get("kind") == "warm":
                continue
            w = os.path.join(d, "win." + r["window"])
            if not os.path.exists(w):
                sys.exit("report_cache.py: no %s" % w)
            r.update(counts(w))
            rows.append(r)
    return rows


def med(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def table(dirs):
    """Per path, family and flows: the median over the windows of every
    boot given (each boot places the harness's buffers anew), and the
    range of L1d misses when there are several."""
    rows = [r for d in dirs for r in windows(d)]
    wins = {}
    for r in rows:
        sent = int(r["sent"])
        wins.setdefault((r["path"], r["fam"], r["flows"]), []).append(
            {k: r[k] / sent for k in NAMES})
    per = {k: {n: med([w[n] for w in v]) for n in NAMES} | {
        "n": len(v), "lo": min(w["l1d_miss"] for w in v), "hi": max(w["l1d_miss"] for w in v)}
        for k, v in wins.items()}
    print("Modelled caches (qemu cache.c's model: L1d 32 KB 8-way, L2 1 MB 16-way, "
          "64 B lines, LRU), whole guest, per packet sent in a window (medians over "
          "the windows of %d boot(s)); \"adds\": over the L2 turnaround of the same "
          "family and flows.\n" % len(dirs))
    print("| path | family | flows | windows | insns/pkt | L1d accesses/pkt "
          "| L1d misses/pkt (range) | L2 misses/pkt | adds L1d | adds L2 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    flows = sorted({k[2] for k in per}, key=int)
    for n in flows:
        for path in PATHS:
            for fam in ("4", "6"):
                p = per.get((path, fam, n))
                if not p:
                    continue
                c = per.get(("ceiling", fam, n))
                adds = ("—", "—") if path == "ceiling" or not c else (
                    "%.2f" % (p["l1d_miss"] - c["l1d_miss"]), "%.2f" % (p["l2_miss"] - c["l2_miss"]))
                rng = " (%.2f–%.2f)" % (p["lo"], p["hi"]) if p["n"] > 1 else ""
                print("| %s | IPv%s | %s | %d | %.0f | %.1f | %.2f%s | %.2f | %s | %s |" % (
                    PATHS[path], fam, format(int(n), ",").replace(",", " "), p["n"],
                    p["insns"], p["l1d_access"], p["l1d_miss"], rng, p["l2_miss"], *adds))


# The module code that is the path's own (the rest of the module area:
# 8021q, veth, pktgen, conntrack... is the harness's or shared).
OWN = {"fasttrack": ("fasttrack",), "ftxdp": ("fasttrack",),
       "nfftc": ("nf_flow_table", "nf_flow_table_inet", "nft_flow_offload")}


def pkt_rows(path):
    """The full packets of a window: the header's names, then one dict per
    packet (the first and last rows, partial, left out)."""
    with open(path) as f:
        names = f.readline().split()
        rows = [dict(zip(names, map(int, line.split()))) for line in f]
    return names, rows[1:-1]


def median(v):
    v = sorted(v)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2 if v else 0.0


def pkt_stats(d, r):
    """Per-packet medians and means of one window, with its own module
    code summed ("d:own", "a:own") and the starts per frame."""
    names, rows = pkt_rows(os.path.join(d, "win.%s.pkt" % r["window"]))
    own = OWN.get(r["path"], ())
    for row in rows:
        for k in "dau":
            row[k + ":own"] = sum(row.get("%s:%s" % (k, m), 0) for m in own)
    keys = [n for n in names] + ["d:own", "a:own", "u:own"]
    st = {"pkts": len(rows), "starts": (len(rows) + 1) / int(r["sent"])}
    for k in keys:
        v = [row[k] for row in rows]
        st[k] = median(v)
        st["mean " + k] = sum(v) / len(v) if v else 0.0
    st["mods"] = [n[2:] for n in names if n.startswith("d:") and n[2:] not in ("all", "mod")]
    return st


PKT_COLS = (("d:all", "data lines"), ("d:mod", "data lines, modules"),
            ("d:own", "data lines, path's module"), ("i:all", "code lines"),
            ("i:mod", "code lines, modules"), ("a:all", "atomics"),
            ("a:mod", "atomics, modules"), ("a:own", "atomics, path's module"),
            ("n:all", "insns"), ("n:mod", "insns, modules"),
            ("m:l1d", "L1d misses"), ("m:l2", "L2 misses"))
ADDS = ("d:all", "d:mod", "a:all", "a:mod", "n:all", "m:l1d", "m:l2")


def pkt_table(dirs):
    """Per boot (a boot's windows hold every path and family of one
    flow), path and family: medians per packet (means in brackets), and
    adds over the ceiling of the same boot and family."""
    per = {}
    for b, d in enumerate(dirs):
        for r in windows(d):
            if os.path.exists(os.path.join(d, "win.%s.pkt" % r["window"])):
                per[(b, r["path"], r["fam"], r["flows"])] = pkt_stats(d, r)
    if not per:
        return
    # Windows from before the plugin counted misses per packet have no m:.
    cols = [c for c in PKT_COLS if all(c[0] in st for st in per.values())]
    adds = [a for a in ADDS if all(a in st for st in per.values())]
    print("\nPer packet, no cache model: what a packet touches, counted from the "
          "start of one pktgen frame (mod_cur_headers()) to the next; median over "
          "the window's packets (mean). Data lines: distinct 64-byte lines read or "
          "written (physical); code lines: distinct lines fetched; atomics: LOCK "
          "instructions, xchg with memory, and LOCK_PREFIX sites patched to DS on "
          "one CPU; modules: instructions in the module area; path's module: "
          "fasttrack.ko (both tiers), or nf_flow_table, nf_flow_table_inet and "
          "nft_flow_offload; L1d and L2 misses: the cache model's, which with many "
          "flows tell a packet's own (median) from background work's (mean).\n")
    print("| boot | path | family | flows | packets | starts/frame | "
          + " | ".join(c[1] for c in cols) + " |")
    print("|---:|---|---|---:|---:|---:|" + "---:|" * len(cols))
    for k in sorted(per, key=lambda k: (k[0], int(k[3]), list(PATHS).index(k[1]), k[2])):
        st = per[k]
        cells = ["%g (%.2f)" % (st[c], st["mean " + c]) for c, _ in cols]
        print("| %d | %s | IPv%s | %s | %d | %.4f | %s |" % (
            k[0] + 1, PATHS[k[1]], k[2], k[3], st["pkts"], st["starts"], " | ".join(cells)))
    print("\nAdds over the L2 turnaround of the same boot and family (medians; means "
          "in brackets):\n")
    print("| boot | path | family | flows | " + " | ".join(adds) + " |")
    print("|---:|---|---|---:|" + "---:|" * len(adds))
    for k in sorted(per, key=lambda k: (k[0], int(k[3]), list(PATHS).index(k[1]), k[2])):
        c = per.get((k[0], "ceiling", k[2], k[3]))
        if k[1] == "ceiling" or not c:
            continue
        st = per[k]
        cells = ["%+g (%+.2f)" % (st[a] - c[a], st["mean " + a] - c["mean " + a]) for a in adds]
        print("| %d | %s | IPv%s | %s | %s |" % (k[0] + 1, PATHS[k[1]], k[2], k[3], " | ".join(cells)))
    print("\nModule area by module (medians per packet: data lines / atomics, "
          "of which on a DS-patched LOCK site; modules with neither left out):\n")
    for k in sorted(per, key=lambda k: (k[0], int(k[3]), list(PATHS).index(k[1]), k[2])):
        st = per[k]
        parts = ["%s %g/%g(%g)" % (m, st["d:" + m], st["a:" + m], st["u:" + m])
                 for m in st["mods"] if st["d:" + m] or st["a:" + m]]
        print("- boot %d, %s, IPv%s, %s flow(s): %s" % (
            k[0] + 1, PATHS[k[1]], k[2], k[3], ", ".join(parts)))


class Syms:
    """Names of guest addresses: the kernel's symbols as the syms boot's
    /proc/kallsyms had them (KSYMS: "addr type name"; nokaslr: they repeat),
    the modules' the guest printed ("@CACHESYM addr type name [module]"),
    and, with KO (fasttrack.ko built from the same tree), fasttrack's
    inlined function and source line (addr2line)."""

    def __init__(self, d, ksyms, ko):
        syms = []
        if ksyms:
            with open(ksyms) as f:
                for line in f:
                    w = line.split()
                    if len(w) >= 3:
                        syms.append((int(w[0], 16), w[2], w[1].lower()))
        with open(os.path.join(d, "bench.log"), errors="replace") as f:
            for line in f:
                if line.startswith("@CACHESYM "):
                    _, a, t, n, m = line.split()[:5]
                    syms.append((int(a, 16), "%s%s" % (n, m), t.lower()))
        syms.sort()
        self.addr = [x[0] for x in syms]
        self.syms = syms
        self.ko, self.base, self.lines = ko, None, {}
        if ko:
            out = subprocess.run(["nm", ko], capture_output=True, text=True).stdout
            nm = {w[2]: int(w[0], 16) for w in (x.split() for x in out.splitlines())
                  if len(w) == 3 and w[1] in "tT"}
            for a, n, t in syms:
                if n.endswith("[fasttrack]") and n[:-11] in nm:
                    self.base = a - nm[n[:-11]]
                    break

    def name(self, a, text=True):
        i = bisect.bisect_right(self.addr, a) - 1
        while i >= 0 and (self.syms[i][2] in "tw") != text:
            i -= 1
        if i < 0 or a - self.addr[i] > (1 << 20):
            return "?"
        return "%s+0x%x" % (self.syms[i][1], a - self.addr[i])

    def func(self, a):
        """The function of a code address; in fasttrack, the innermost
        inlined one and its source line."""
        n = self.name(a).split("+")[0]
        if self.base is None or not n.endswith("[fasttrack]"):
            return n
        if a not in self.lines:
            out = subprocess.run(["addr2line", "-e", self.ko, "-j", ".text", "-i", "-f",
                                  "%x" % (a - self.base)], capture_output=True, text=True)
            w = out.stdout.split()
            self.lines[a] = "%s %s" % (w[0], os.path.basename(w[1])) if len(w) >= 2 else n
        return self.lines[a]


def va_kind(va, syms):
    """Where a data address is (x86-64, 4-level paging, nokaslr)."""
    if 0xffff888000000000 <= va < 0xffffc88000000000:
        return "direct map"
    if 0xffffe8ff00000000 <= va < 0xffffe90000000000:
        return "per-CPU chunk (vmalloc)"
    if 0xffffc90000000000 <= va < 0xffffe90000000000:
        return "vmalloc (stacks...)"
    if va >= 0xffffffff80000000:
        return syms.name(va, text=False)
    return "user"


def lines(d, ksyms, ko, only):
    """The data lines of the dumped packet of each window of DIR
    (win.N.lines, ftcache.c's dump=): per path and family, those that
    module code touched (only the modules ONLY names, if given), by the
    first module instruction that touched each, with where the line is and
    what touched it first in the packet if that was kernel code."""
    syms = Syms(d, ksyms, ko)
    for r in windows(d):
        path = os.path.join(d, "win.%s.lines" % r["window"])
        if not os.path.exists(path):
            continue
        with open(path) as f:
            ls = [x.split() for x in f]
        rows = []
        for phys, pc, va, rw, n, mpc in ls:
            if not int(mpc, 16):
                continue
            fn = syms.func(int(mpc, 16))
            m = re.search(r"\[([^\]]+)\]", syms.name(int(mpc, 16)))
            mod = m.group(1) if m else "?"
            if only and mod not in only:
                continue
            first = "" if pc == mpc else "after %s" % syms.name(int(pc, 16)).split("+")[0]
            rows.append((mod, fn, va_kind(int(va, 16), syms), va, rw, int(n), first))
        print("\n%s, IPv%s: %d data lines in the packet, %d touched by %s:" % (
            PATHS[r["path"]], r["fam"], len(ls), len(rows), ",".join(only) or "module code"))
        rows.sort(key=lambda x: (x[0], x[2], x[3]))
        for mod, fn, kind, va, rw, n, first in rows:
            print("  %-12s %-44s %-26s %s %-2s %3d %s" % (mod, fn, kind, va, rw, n, first))


def check(d):
    mine = counts(os.path.join(d, "win.all"))
    with open(os.path.join(d, "cache.c.log")) as f:
        text = f.read()
    m = re.search(r"^0\s+(\d+)\s+(\d+)\s+\S+%\s+(\d+)\s+(\d+)\s+\S+%\s+(\d+)\s+(\d+)", text, re.M)
    if not m:
        sys.exit("report_cache.py: no core 0 line in cache.c.log")
    theirs = dict(zip(NAMES, (int(x) for x in m.groups())))
    ok = True
    print("%-11s %16s %16s %9s" % ("", "ftcache.so", "cache.c", "diff %"))
    for k in NAMES[:6]:
        diff = (mine[k] - theirs[k]) / max(1, theirs[k]) * 100
        ok &= abs(diff) < 0.5
        print("%-11s %16d %16d %9.4f" % (k, mine[k], theirs[k], diff))
    print("agree within 0.5 %%: %s" % ("yes" if ok else "NO"))
    return ok


def main():
    if sys.argv[1] == "--check":
        sys.exit(0 if check(sys.argv[2]) else 1)
    if sys.argv[1] == "--lines":
        opt = dict(zip(sys.argv[3::2], sys.argv[4::2]))
        lines(sys.argv[2], opt.get("--ksyms"), opt.get("--ko"),
              [m for m in opt.get("--only", "").split(",") if m])
        return
    table(sys.argv[1:])
    pkt_table(sys.argv[1:])


if __name__ == "__main__":
    main()
