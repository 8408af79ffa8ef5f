#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per packet by function and by fast-path stage, from the
windows of bench/prof/profile.sh: OUTDIR (bench.log, win.N) and the
fasttrack.ko the guest ran (its debug info names inlined functions).

A window is one pktgen run. Under -icount shift=2,sleep=off the guest clock
advances 4 ns per instruction, and jumps to the next timer when the vCPU
halts: pktgen's run time over 4 ns, less the window's instructions, is the
time the vCPU sat idle in the run, less what the window holds outside the
run (pktgen's start and end: about 300 000 instructions). Router work is a
path's instructions per packet less the ceiling's, as make bench derives it
from pps."""
import bisect
import collections
import re
import subprocess
import sys

outdir, ko = sys.argv[1], sys.argv[2]
log = open(outdir + "/bench.log", errors="replace").read().splitlines()
try:
    log += open(outdir + "/ksyms").read().splitlines()
except OSError:
    pass

syms = []
wins = {}
text = None
for line in log:
    if line.startswith("@KSYM "):
        f = line.split()
        syms.append((int(f[1], 16), f[2], f[3] if len(f) > 3 else ""))
    elif line.startswith("@RESULT sec=profsyms"):
        text = int(re.search(r"text=(0x[0-9a-f]+)", line).group(1), 16)
    elif line.startswith("@RESULT sec=profile"):
        kv = dict(x.split("=", 1) for x in line.split()[1:])
        wins[int(kv["window"])] = kv
syms = sorted(set(syms))
NS_PER_INSN = 4
addrs = [s[0] for s in syms]


def sym(pc):
    i = bisect.bisect_right(addrs, pc) - 1
    return syms[i][1] + (" " + syms[i][2] if syms[i][2] else "") if i >= 0 else "?"


# Stage of a fasttrack.ko instruction: the innermost inlined function that
# names one, else the hook's own code.
STAGE = [
    ("parse", "ft_parse ft_parse_ipv4 ft_parse_ipv6 ft_parse_l4 ft_parse_skb"),
    ("hash", "ft_key_hash"),
    ("compare", "ft_key_match ft_key_equal"),
    ("lookup", "ft_flow_lookup ft_hbucket"),
    ("valid:dst", "ft_flow_dst_ok"),
    ("valid:route", "ft_route_recheck"),
    ("valid:neigh", "ft_neigh_usable"),
    ("valid:fwd-sysctl", "ft_forwarding"),
    ("valid:xfrm", "ft_xfrm_active"),
    ("valid:other", "ft_flow_valid"),
    ("rewrite", "ft_rewrite_ipv4 ft_rewrite_ipv6 skb_forward_csum ft_nat"),
    ("count", "ft_count ft_flow_acct_add ft_stat_add ft_stat_inc"),
    ("xmit", "ft_xmit ft_xmit_vlan_direct ft_dev_xmit_hooked"),
]
stage_of = {fn: st for st, fns in STAGE for fn in fns.split()}
# Kernel functions the hook calls, by stage (inclusive of their callees
# only as far as listed here).
KSTAGE = {
    "ip6_dst_check": "valid:dst", "rt6_check": "valid:dst",
    "rt6_dst_from_check": "valid:dst", "fib6_check": "valid:dst",
    "fib6_get_cookie_safe": "valid:dst", "rt6_check_expired": "valid:dst",
    "ipv4_dst_check": "valid:dst",
    "__rcu_read_lock": "rcu (any)", "__rcu_read_unlock": "rcu (any)",
    "ft_stat_add": "count",
    "dev_nit_active": "xmit", "dev_nit_active_rcu": "xmit",
    "__pskb_pull_tail": "parse", "pskb_expand_head": "cow",
}
# Of these, the stage has only the calls from fasttrack.ko: the harness
# calls them too (skb_vlan_untag() copies the header of pktgen's shared
# frame, on every path; the kernel's transmit asks for taps).
KCALLED = {"__pskb_pull_tail", "pskb_expand_head", "dev_nit_active", "dev_nit_active_rcu"}


def ko_calls():
    """.text offset of each direct call in fasttrack.ko to a KCALLED
    function -> its name"""
    res = {}
    out = subprocess.run(["objdump", "-dr", "--no-show-raw-insn", "-j", ".text", ko],
                         capture_output=True, text=True).stdout.splitlines()
    for line in out:
        m = re.match(r"\s*([0-9a-f]+):\s+R_X86_64_PLT32\s+(\S+)-0x4$", line)
        if m and m.group(2) in KCALLED:
            # the relocation sits one byte into its call instruction
            res[int(m.group(1), 16) - 1] = m.group(2)
    return res


def addr2line(offs):
    """offset -> (inline chain innermost first, file:line of the innermost)"""
    res = {}
    offs = sorted(offs)
    for i in range(0, len(offs), 500):
        chunk = offs[i:i + 500]
        out = subprocess.run(["addr2line", "-e", ko, "-j", ".text", "-i", "-f", "-a"]
                             + ["0x%x" % o for o in chunk], capture_output=True,
                             text=True).stdout.splitlines()
        j = 0
        for o in chunk:
            # "0x..." then (function, file:line) pairs up to the next address
            assert re.fullmatch(r"0x[0-9a-f]+", out[j]), out[j]
            j += 1
            chain, loc = [], None
            while j < len(out) and not re.fullmatch(r"0x[0-9a-f]+", out[j]):
                chain.append(out[j])
                if loc is None:
                    loc = out[j + 1].split("/")[-1].split(" ")[0]
                j += 2
            res[o] = (chain, loc)
    return res


calls = ko_calls()
entry = {}
for a, n, _ in syms:
    if n in KCALLED:
        entry[a] = n
tables = {}
for w, kv in sorted(wins.items()):
    rx = int(kv["rx"])
    per_fn = collections.Counter()
    per_stage = collections.Counter()
    ko_pcs = collections.Counter()
    ncalls = collections.Counter()  # KCALLED function -> calls: all, from ko
    total = 0
    for line in open("%s/win.%d" % (outdir, w)):
        pc, n = line.split()
        pc, n = int(pc, 16), int(n)
        total += n
        name = sym(pc)
        per_fn[name] += n
        if pc in entry:
            ncalls[entry[pc], "all"] += n
        if name.endswith("[fasttrack]"):
            ko_pcs[pc] += n
            if text is not None and pc - text in calls:
                ncalls[calls[pc - text], "ko"] += n
        elif name.split()[0] in KSTAGE and name.split()[0] not in KCALLED:
            per_stage[KSTAGE[name.split()[0]]] += n
    for fn in KCALLED:
        if ncalls[fn, "all"]:
            per_stage[KSTAGE[fn]] += per_fn[fn] * ncalls[fn, "ko"] / ncalls[fn, "all"]
    lines = collections.Counter()
    if text is not None and ko_pcs:
        info = addr2line([pc - text for pc in ko_pcs if pc >= text])
        for pc, n in ko_pcs.items():
            chain, loc = info.get(pc - text, ([], None))
            st = next((stage_of[f] for f in chain if f in stage_of), None)
            if st is None:
                st = "hook:" + (chain[-1] if chain else sym(pc).split()[0])
            per_stage[st] += n
            lines["%s %s" % (chain[0] if chain else sym(pc), loc)] += n
    tables[w] = dict(kv=kv, rx=rx, total=total, fn=per_fn, stage=per_stage, lines=lines,
                     calls=ncalls)

def pp(x, rx):
    return x / rx

by = collections.defaultdict(dict)
for w, t in tables.items():
    by[t["kv"]["path"]][t["kv"]["fam"]] = t


def time_insns(t):
    """pktgen's run time per packet, in instructions' worth of guest time"""
    return int(t["kv"]["usec"]) * 1000 / NS_PER_INSN / t["rx"]


print("== per packet: instructions in the window, and pktgen's run time in instructions' worth")
print("   (4 ns each); time - insns: the vCPU idle in the run; sched out: pktgen's idle_usec")
print("  %-10s %4s %9s %9s %9s %10s" % ("path", "fam", "insns", "time", "time-ins", "sched out"))
for w, t in sorted(tables.items()):
    kv = t["kv"]
    idle = kv.get("idle_usec", "")
    idle = "%.1f" % (int(idle) * 1000 / NS_PER_INSN / t["rx"]) if idle else "?"
    print("  %-10s %4s %9.1f %9.1f %+9.1f %10s" % (kv["path"], "IPv" + kv["fam"], t["total"] / t["rx"],
                                                  time_insns(t), time_insns(t) - t["total"] / t["rx"], idle))
if "ceiling" in by:
    print("\n== router work per packet (path - ceiling), from instructions and from pktgen's time")
    print("  %-10s %4s %9s %9s" % ("path", "fam", "insns", "time"))
    for path, fams in by.items():
        for fam, t in sorted(fams.items()):
            c = by["ceiling"].get(fam)
            if path == "ceiling" or c is None:
                continue
            print("  %-10s %4s %9.1f %9.1f" % (path, "IPv" + fam, t["total"] / t["rx"] - c["total"] / c["rx"],
                                              time_insns(t) - time_insns(c)))
    print()
for path, fams in by.items():
    print("== %s: instructions per packet (window total / frames delivered)" % path)
    for fam, t in sorted(fams.items()):
        print("  IPv%s: %.1f per packet over the window (%d frames)" % (fam, t["total"] / t["rx"], t["rx"]))
        for fn in sorted(KCALLED):
            if t["calls"][fn, "all"]:
                print("    %s: %.2f calls per packet, %.2f of them from fasttrack.ko" % (
                    fn, t["calls"][fn, "all"] / t["rx"], t["calls"][fn, "ko"] / t["rx"]))
    if path == "fasttrack":
        print("\n  fast-path stages (fasttrack.ko code by inlined function; kernel callees listed in KSTAGE)")
        print("  %-24s %8s %8s %8s" % ("stage", "IPv4", "IPv6", "diff"))
        keys = sorted(set().union(*[t["stage"] for t in fams.values()]))
        s4 = s6 = 0
        for k in keys:
            a = fams.get("4", {}).get("stage", {}).get(k, 0) / fams["4"]["rx"] if "4" in fams else 0
            b = fams.get("6", {}).get("stage", {}).get(k, 0) / fams["6"]["rx"] if "6" in fams else 0
            s4 += a
            s6 += b
            if a >= 0.5 or b >= 0.5:
                print("  %-24s %8.1f %8.1f %+8.1f" % (k, a, b, b - a))
        print("  %-24s %8.1f %8.1f %+8.1f" % ("sum", s4, s6, s6 - s4))
    print("\n  functions, per packet (>= 1 in either family), by IPv6 - IPv4")
    names = set().union(*[t["fn"] for t in fams.values()])
    rows = []
    for n in names:
        a = fams["4"]["fn"].get(n, 0) / fams["4"]["rx"] if "4" in fams else 0
        b = fams["6"]["fn"].get(n, 0) / fams["6"]["rx"] if "6" in fams else 0
        if a >= 1 or b >= 1:
            rows.append((b - a, n, a, b))
    rows.sort(key=lambda r: (-abs(r[0]), r[1]))
    print("  %-44s %8s %8s %8s" % ("function", "IPv4", "IPv6", "diff"))
    for d, n, a, b in rows[:70]:
        print("  %-44s %8.1f %8.1f %+8.1f" % (n, a, b, d))
    if path == "fasttrack":
        print("\n  fasttrack.ko by source line (innermost function), per packet")
        keys = set().union(*[t["lines"] for t in fams.values()])
        rows = []
        for k in keys:
            a = fams["4"]["lines"].get(k, 0) / fams["4"]["rx"]
            b = fams["6"]["lines"].get(k, 0) / fams["6"]["rx"]
            if a >= 0.5 or b >= 0.5:
                rows.append((k, a, b))
        rows.sort()
        for k, a, b in rows:
            print("  %-56s %7.1f %7.1f %+7.1f" % (k, a, b, b - a))
    print()
# Where each path's router work goes: its functions less the ceiling's.
for path, fams in by.items():
    if path == "ceiling" or "ceiling" not in by:
        continue
    for fam, t in sorted(fams.items()):
        c = by["ceiling"].get(fam)
        if c is None:
            continue
        print("== %s IPv%s less the ceiling, per packet (functions differing by >= 1)" % (path, fam))
        rows = []
        for n in set(t["fn"]) | set(c["fn"]):
            a, b = c["fn"].get(n, 0) / c["rx"], t["fn"].get(n, 0) / t["rx"]
            if abs(b - a) >= 1:
                rows.append((b - a, n, a, b))
        rows.sort(key=lambda r: (-abs(r[0]), r[1]))
        print("  %-44s %8s %8s %8s" % ("function", "ceiling", path, "diff"))
        for d, n, a, b in rows:
            print("  %-44s %8.1f %8.1f %+8.1f" % (n, a, b, d))
        print("  %-44s %8.1f %8.1f %+8.1f\n" % ("total", c["total"] / c["rx"], t["total"] / t["rx"],
                                               t["total"] / t["rx"] - c["total"] / c["rx"]))
