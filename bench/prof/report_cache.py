#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/prof/cache.sh: modelled cache misses per packet, from the guest's
"@RESULT sec=cache" lines (bench.log) and the plugin's counts of each
window (win.N: l1d_access l1d_miss l1i_access l1i_miss l2_access l2_miss
insns, bench/prof/ftcache.c).

usage: report_cache.py DIR...         the table, of the windows of every
                                      DIR (one per boot)
       report_cache.py --check DIR    ftcache.so's whole-run totals
                                      (win.all) against cache.c's log
"""
import os
import re
import sys

NAMES = ("l1d_access", "l1d_miss", "l1i_access", "l1i_miss", "l2_access", "l2_miss", "insns")
PATHS = {"ceiling": "L2 turnaround (ceiling)", "fasttrack": "fasttrack",
         "nfftc": "flowtable + counter"}


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
    table(sys.argv[1:])


if __name__ == "__main__":
    main()
