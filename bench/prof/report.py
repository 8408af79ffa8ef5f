#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per packet by function and by fast-path stage, from the
windows of bench/prof/profile.sh: OUTDIR (bench.log, win.N) and the
fasttrack.ko the guest ran (its debug info names inlined functions)."""
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
# The plugin writes win.N at the Nth host name change since boot; the
# guest's own come first, so count the windows from the last file.
import glob
last = max(int(f.rsplit(".", 1)[1]) for f in glob.glob(outdir + "/win.*"))
nwin = len(wins)
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
    "__pskb_pull_tail": "parse", "pskb_expand_head": "cow",
}


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


tables = {}
for w, kv in sorted(wins.items()):
    rx = int(kv["rx"])
    per_fn = collections.Counter()
    per_stage = collections.Counter()
    ko_pcs = collections.Counter()
    total = 0
    for line in open("%s/win.%d" % (outdir, last - 2 * (nwin - 1 - w))):
        pc, n = line.split()
        pc, n = int(pc, 16), int(n)
        total += n
        name = sym(pc)
        per_fn[name] += n
        if name.endswith("[fasttrack]"):
            ko_pcs[pc] += n
        elif name.split()[0] in KSTAGE:
            per_stage[KSTAGE[name.split()[0]]] += n
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
    tables[w] = dict(kv=kv, rx=rx, total=total, fn=per_fn, stage=per_stage, lines=lines)

def pp(x, rx):
    return x / rx

by = collections.defaultdict(dict)
for w, t in tables.items():
    by[t["kv"]["path"]][t["kv"]["fam"]] = t
for path, fams in by.items():
    print("== %s: instructions per packet (window total / frames delivered)" % path)
    for fam, t in sorted(fams.items()):
        print("  IPv%s: %.1f per packet over the window (%d frames)" % (fam, t["total"] / t["rx"], t["rx"]))
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
