#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make bench: turn the guests' @RESULT lines into bench/results.json,
bench/results.md and bench/results.png (gnuplot), and refresh the record in
Documentation/performance.md and the summary in README.md.

usage: report.py --outdir DIR [--wall SECONDS] [--command CMD]
                 [--record FILE] [--summary FILE] WORD=LOG...
       report.py --outdir DIR --from-json DIR/results.json [--record FILE] [--summary FILE]

--record FILE gets the tables and the chart between its bench:begin and
bench:end markers, --summary FILE one table and the chart between its
bench-summary:begin and bench-summary:end markers. --from-json renders
results.md and those blocks again from a results.json, without guest logs,
the chart and results.json left as they are: the step to run after a
change to the rendering.

Each LOG is the output of bench/guest/bench.sh from one guest (one kernel).
The guest ran under qemu -icount shift=2, so its clock advances 4 ns per
instruction executed: time per packet converts to instructions per packet.

A word of a foreign architecture ("arm64-6.12", selftests/vm/kernels.sh)
counts that architecture's instructions: its section is headed and its rows
labelled with the architecture, and its numbers are compared only with each
other (its own ratios), never with an amd64 kernel's; the chart and the
record's and summary's blocks show amd64 kernels only.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys

import report_churn
import report_devices
import report_l2dev
import report_l3dev
import report_nic

from report_stats import NS_PER_INSN, fmt, med, spread


PATHS = {
    "ceiling": "L2 turnaround (harness ceiling)",
    "fs0": "full stack, conntrack, 0 rules",
    "fs50": "full stack, conntrack, 50 rules",
    "nfft": "nftables flowtable",
    "nfftc": "nftables flowtable + counter",
    "nfftct": "nftables flowtable + counter, on trunk0",
    "fasttrack": "fasttrack",
    "fthooks": "fasttrack + nft netdev ingress/egress counters",
    "ftxdp": "fasttrack, XDP tier on trunk0 (veth copies each frame)",
}
SHORT = {
    "ceiling": "ceiling",
    "fs0": "stack 0 rules",
    "fs50": "stack 50 rules",
    "nfft": "flowtable",
    "nfftc": "flowtable+counter",
    "nfftct": "flowtable+counter (trunk)",
    "fasttrack": "fasttrack",
    "fthooks": "fasttrack+hooks",
    "ftxdp": "fasttrack XDP",
}
ORDER = list(PATHS)
# The front page's summary: fasttrack against the flowtable and the full stack.
SUMMARY_PATHS = ["fs50", "nfftc", "fasttrack"]
# Foreign architectures: the "ARCH-" prefix of a kernel word, and the qemu
# that boots it (selftests/vm/arch.sh).
ARCH_QEMU = {
    "amd64": "qemu-system-x86_64",
    "arm64": "qemu-system-aarch64 -M virt -cpu cortex-a72",
    "armhf": "qemu-system-arm -M virt -cpu cortex-a15",
}



def work_cell(d):
    """A path's router work for one family: "ns (instructions)", or a dash."""
    if "router_work_ns" not in d:
        return "—"
    return "%.0f (%.0f)" % (d["router_work_ns"], d["router_work_insns"])

def word_arch(word):
    """The Debian architecture of a kernel word: amd64 unless "ARCH-..."."""
    head = word.split("-", 1)[0]
    return head if head in ARCH_QEMU and head != "amd64" else "amd64"
METRICS = {"tcp1": "TCP 1 stream", "tcp4": "TCP 4 streams", "udp": "UDP 1400 B"}

# The targets (reported, not gated).
TARGETS = {
    "vs_flowtable": 0.40,   # fasttrack work <= 0.40 x flowtable(counter) work (#37)
    "v6_work_vs_v4": 1.10,  # fasttrack's IPv6 router work <= 1.10 x IPv4's (#37)
    "vs_stack50": 0.10,     # fasttrack work <= 1/10 of full stack, 50 rules
    "v6_vs_v4": 0.95,       # IPv6 >= 0.95 x IPv4 on fasttrack
    "scale_loss": 0.10,     # <= 10 % pps loss from 1 to 1M flows
    "bytes_per_dir": 128,   # <= 128 bytes per cached direction, 1M flows (#13)
}


def parse_log(path):
    rows = []
    done = False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("@DONE"):
                done = True
            if not line.startswith("@RESULT "):
                continue
            row = {}
            for kv in line[len("@RESULT "):].split():
                if "=" in kv:
                    k, v = kv.split("=", 1)
                    row[k] = v
            rows.append(row)
    return rows, done


def num(v):
    try:
        return int(v)
    except ValueError:
        return float(v)


def analyse(rows):
    meta = next((r for r in rows if r.get("sec") == "meta"), {})
    res = {"kernel": meta.get("kernel"), "settings": {
        k: meta[k] for k in meta if k not in ("sec", "kernel")}}

    # 64-byte pps, one flow
    pps = {}
    # The harness's slab slow paths (bench/guest/lib.sh): runs measure()
    # ran again, and kept runs that still took them on a quarter of their
    # frames or more.
    slab = {}
    for r in rows:
        if r.get("sec") != "pps":
            continue
        key = (r["path"], r["fam"])
        pps.setdefault(key, []).append(float(r["pps"]))
        s = slab.setdefault(key, {"reruns": 0, "kept": 0})
        s["reruns"] += int(r.get("slab_runs", 1)) - 1
        if r.get("slab_slow", "-") not in ("-", "") and int(r["slab_slow"]) * 4 >= int(r["rx"]):
            s["kept"] += 1
    out_pps = {}
    for (path, fam), vals in pps.items():
        out_pps.setdefault(path, {})["ipv" + fam] = {
            "pps_median": med(vals), "pps_all": vals, "spread": spread(vals),
            "ns_per_packet": 1e9 / med(vals),
            "insns_per_packet": 1e9 / med(vals) / NS_PER_INSN,
            "slab_reruns": slab[path, fam]["reruns"], "slab_kept": slab[path, fam]["kept"],
        }
    for path, fams in out_pps.items():
        for fam, d in fams.items():
            ceil = out_pps.get("ceiling", {}).get(fam)
            if ceil:
                work = d["ns_per_packet"] - ceil["ns_per_packet"]
                d["router_work_ns"] = work
                d["router_work_insns"] = work / NS_PER_INSN
                d["pct_of_ceiling_pps"] = d["pps_median"] / ceil["pps_median"] * 100
    res["pps"] = out_pps
    res["work_ratios"] = work_ratios(out_pps)
    ft_devs = next((r["devs"] for r in rows if r.get("sec") == "flowtable_devs"), None)
    res["settings"]["flowtable_devices"] = ft_devs

    # iperf3
    tcp = {}
    for r in rows:
        if r.get("sec") != "tcp":
            continue
        d = tcp.setdefault(r["path"], {}).setdefault("ipv" + r["fam"], {}).setdefault(
            r["metric"], {"gbps_all": [], "slow_bytes": [], "bytes": [], "ft_pkts": []})
        d["gbps_all"].append(float(r["gbps"]))
        d["bytes"].append(int(r["bytes"]))
        d["slow_bytes"].append(int(r["slow_bytes"]))
        d["ft_pkts"].append(int(r["ft_pkts"]))
    for path in tcp.values():
        for fam in path.values():
            for d in fam.values():
                d["gbps_median"] = med(d["gbps_all"])
                d["spread"] = spread(d["gbps_all"])
                d["slow_path_share"] = sum(d["slow_bytes"]) / max(1, sum(d["bytes"]))
    res["tcp"] = tcp

    # scaling and memory
    scale = {}
    for r in rows:
        if r.get("sec") != "scale":
            continue
        scale.setdefault(r["path"], {}).setdefault(int(r["flows"]), []).append(float(r["pps"]))
    ceil4 = out_pps.get("ceiling", {}).get("ipv4")
    out_scale = {}
    for path, byflows in scale.items():
        o = out_scale[path] = {}
        for n, vals in sorted(byflows.items()):
            e = o[str(n)] = {"pps_median": med(vals), "pps_all": vals, "spread": spread(vals)}
            if ceil4:
                e["router_work_ns"] = 1e9 / med(vals) - ceil4["ns_per_packet"]
        ns = sorted(byflows)
        if len(ns) > 1:
            lo, hi = med(byflows[ns[0]]), med(byflows[ns[-1]])
            o["loss_%d_to_%d" % (ns[0], ns[-1])] = 1 - hi / lo
    res["scale"] = out_scale

    mem = {}
    for r in rows:
        if r.get("sec") != "mem":
            continue
        b = [int(x) for x in r["before"].split(",")]
        a = [int(x) for x in r["after"].split(",")]
        n = int(r["flows"])
        dirs = int(r["cached"]) if r.get("cached") else 2 * n
        if not dirs:
            continue
        # before/after: MemFree kB, Slab kB, ft_flow slab bytes,
        # radix_tree_node slab bytes, VmallocUsed kB. Slab counts kmalloc's
        # large allocations too; a big rhashtable bucket array is vmalloc.
        e = {
            "flows": n, "directions": dirs, "priming_guest_s": float(r.get("prime_s", 0)),
            "total_bytes_per_dir": ((a[1] - b[1]) + (a[4] - b[4])) * 1024 / dirs,
            "slab_bytes_per_dir": (a[1] - b[1]) * 1024 / dirs,
            "vmalloc_bytes_per_dir": (a[4] - b[4]) * 1024 / dirs,
            "memfree_bytes_per_dir": (b[0] - a[0]) * 1024 / dirs,
        }
        if r["path"] == "fasttrack":
            e["ft_flow_objsize"] = int(r["objsize"]) if r.get("objsize") else None
            e["ft_flow_bytes_per_dir"] = (a[2] - b[2]) / dirs
            e["xarray_bytes_per_dir"] = (a[3] - b[3]) / dirs
            e["other_bytes_per_dir"] = e["total_bytes_per_dir"] - e["ft_flow_bytes_per_dir"] - \
                e["xarray_bytes_per_dir"]
        mem.setdefault(r["path"], {})[str(n)] = e
    res["memory"] = mem

    # fasttrack under one nftables commit per second
    com = {}
    for r in rows:
        if r.get("sec") != "commits":
            continue
        d = com.setdefault(r["mode"], {"pps_all": [], "relearned": [], "secs": []})
        d["flows"] = int(r["flows"])
        d["pps_all"].append(float(r["pps"]))
        d["relearned"].append(int(r["relearned"]))
        d["secs"].append(float(r["secs"]))
    for d in com.values():
        d["pps_median"] = med(d["pps_all"])
        d["relearned_per_s"] = sum(d["relearned"]) / max(1e-9, sum(d["secs"]))
    if "quiet" in com and "commits" in com:
        com["pps_ratio"] = com["commits"]["pps_median"] / com["quiet"]["pps_median"]
    res["commits"] = com
    res.update(report_churn.analyse(rows))
    res.update(report_devices.analyse(rows))
    res.update(report_l2dev.analyse(rows))
    res.update(report_l3dev.analyse(rows))
    res.update(report_nic.analyse(rows))
    res["targets"] = targets(res)
    res["targets"].update(report_churn.targets(res))
    res["targets"].update(report_devices.targets(res))
    res["targets"].update(report_nic.targets(res))
    return res


# The paths whose IPv6/IPv4 work ratio the record states (issue #37), and
# the flowtable fasttrack's work is held against.
RATIO_PATHS = ("fasttrack", "nfftc", "fs0", "fs50")


def work_ratios(p):
    """Router work per packet, IPv6 over IPv4 for each path of RATIO_PATHS,
    and fasttrack's over each other path's, per family."""
    def work(path, fam):
        return p.get(path, {}).get(fam, {}).get("router_work_ns")

    r = {"ipv6_over_ipv4": {}, "fasttrack_over": {}}
    for path in RATIO_PATHS:
        w4, w6 = work(path, "ipv4"), work(path, "ipv6")
        if w4 and w6:
            r["ipv6_over_ipv4"][path] = w6 / w4
        for fam in ("ipv4", "ipv6"):
            ft, w = work("fasttrack", fam), work(path, fam)
            if path != "fasttrack" and ft is not None and w:
                r["fasttrack_over"].setdefault(path, {})[fam] = ft / w
    return r


def targets(res):
    t = {}
    p = res["pps"]

    def work(path, fam):
        return p.get(path, {}).get(fam, {}).get("router_work_ns")

    for fam in ("ipv4", "ipv6"):
        ft, nf, fs = work("fasttrack", fam), work("nfftc", fam), work("fs50", fam)
        if ft is not None and nf:
            r = ft / nf
            t["fasttrack_vs_flowtable_counter_" + fam] = {
                "ratio": r, "target": "<= %.2f" % TARGETS["vs_flowtable"],
                "met": r <= TARGETS["vs_flowtable"]}
        nt = work("nfftct", fam)
        if ft is not None and nt:
            r = ft / nt
            t["fasttrack_vs_flowtable_counter_on_trunk_" + fam] = {
                "ratio": r, "target": "<= %.2f (extra: the flowtable's best setup)" % TARGETS["vs_flowtable"],
                "met": r <= TARGETS["vs_flowtable"]}
        if ft is not None and fs:
            r = ft / fs
            t["fasttrack_vs_stack50_" + fam] = {
                "ratio": r, "target": "<= %.2f" % TARGETS["vs_stack50"],
                "met": r <= TARGETS["vs_stack50"]}
    f4, f6 = p.get("fasttrack", {}).get("ipv4"), p.get("fasttrack", {}).get("ipv6")
    if f4 and f6:
        r = f6["pps_median"] / f4["pps_median"]
        t["fasttrack_ipv6_vs_ipv4_pps"] = {
            "ratio": r, "target": ">= %.2f" % TARGETS["v6_vs_v4"], "met": r >= TARGETS["v6_vs_v4"]}
        if f4.get("router_work_ns") and f6.get("router_work_ns"):
            r = f6["router_work_ns"] / f4["router_work_ns"]
            t["fasttrack_ipv6_vs_ipv4_work"] = {
                "ratio": r, "target": "<= %.2f (IPv6 work / IPv4 work)" % TARGETS["v6_work_vs_v4"],
                "met": r <= TARGETS["v6_work_vs_v4"]}
    nf = res["scale"].get("nfftc", {})
    nloss = [(k, v) for k, v in nf.items() if k.startswith("loss_")]
    if nloss:
        k, v = nloss[0]
        t["flowtable_counter_scaling_" + k] = {
            "ratio": v, "target": "(for comparison)", "met": v <= TARGETS["scale_loss"]}
    sc = res["scale"].get("fasttrack", {})
    loss = [(k, v) for k, v in sc.items() if k.startswith("loss_")]
    if loss:
        k, v = loss[0]
        t["fasttrack_scaling_" + k] = {
            "ratio": v, "target": "<= %.2f" % TARGETS["scale_loss"], "met": v <= TARGETS["scale_loss"],
            "note": "" if k.endswith("_1000000") else "largest flow count reached: " + k.split("_")[-1]}
    mem = res["memory"].get("fasttrack", {})
    if mem:
        n = max(mem, key=int)
        b = mem[n]["total_bytes_per_dir"]
        t["fasttrack_bytes_per_direction"] = {
            "value": b, "at_flows": int(n), "target": "<= %d" % TARGETS["bytes_per_dir"],
            "met": b <= TARGETS["bytes_per_dir"]}
    return t


def markdown(report, arches=None):
    """The report's tables, of the kernels whose architecture is in arches
    (all when None)."""
    lines = []
    for word, res in report["kernels"].items():
        s = res["settings"]
        arch = res.get("arch", "amd64")
        if arches is not None and arch not in arches:
            continue
        foreign = arch != "amd64"
        # A foreign kernel's rows say their architecture.
        tag = ", %s" % arch if foreign else ""
        if foreign:
            lines.append("### %s: kernel %s (`%s`)\n" % (arch, word, res["kernel"]))
            lines.append(
                "One %s guest boot, `%s`, TCG `-icount shift=2,sleep=off`, 1 vCPU, %s MB: guest "
                "time counts %s instructions (4 ns each). Compare these rows with each other "
                "only, not with an amd64 kernel's (another instruction set, and qemu's virt "
                "machine and its devices). Medians of %s pktgen and %s iperf3 repeats.\n" % (
                    arch, res.get("qemu"), s.get("mem_mb"), arch,
                    s.get("ppsreps", s.get("reps")), s.get("reps")))
        else:
            lines.append("### Kernel %s (`%s`)\n" % (word, res["kernel"]))
            lines.append(
                "One guest boot, qemu TCG `-icount shift=2,sleep=off`, 1 vCPU, %s MB: guest time "
                "counts instructions (4 ns each), so the numbers repeat run to run and the ratios "
                "carry over to other hosts; absolute rates do not. Medians of %s pktgen and %s "
                "iperf3 repeats.\n" % (s.get("mem_mb"), s.get("ppsreps", s.get("reps")), s.get("reps")))
        p = res["pps"]
        lines.append("**Router work per 64-byte packet%s** (pktgen, one UDP flow, %s frames per run; "
                     "work = 1/pps − 1/pps of the L2 turnaround ceiling):\n" % (
                         " on " + arch if foreign else "", s.get("count")))
        lines.append("| path | IPv4 kpps | IPv6 kpps | IPv4 work ns (insns) | IPv6 work ns (insns) "
                     "| IPv6/IPv4 work |")
        lines.append("|---|---:|---:|---:|---:|---:|")
        for path in ORDER:
            if path not in p:
                continue
            v4, v6 = p[path].get("ipv4", {}), p[path].get("ipv6", {})

            ratio = "—"
            if path != "ceiling" and v4.get("router_work_ns") and v6.get("router_work_ns"):
                ratio = "%.2f" % (v6["router_work_ns"] / v4["router_work_ns"])
            lines.append("| %s%s | %s | %s | %s | %s | %s |" % (
                PATHS[path], tag, fmt(v4.get("pps_median", 0) / 1e3), fmt(v6.get("pps_median", 0) / 1e3),
                "0 (ceiling)" if path == "ceiling" else work_cell(v4),
                "0 (ceiling)" if path == "ceiling" else work_cell(v6), ratio))
        reruns = ["%s IPv%s %d" % (path, fam[3:], d["slab_reruns"])
                  for path in ORDER for fam, d in sorted(p.get(path, {}).items()) if d.get("slab_reruns")]
        kept = ["%s IPv%s %d" % (path, fam[3:], d["slab_kept"])
                for path in ORDER for fam, d in sorted(p.get(path, {}).items()) if d.get("slab_kept")]
        if reruns or kept:
            lines.append("\nRuns whose frames took the slab allocator's slow paths (the harness's, see "
                         "bench/guest/lib.sh), run again: %s; kept, in the medians: %s." % (
                             ", ".join(reruns) or "none", ", ".join(kept) or "none"))
        lines += ratio_lines(res)
        if s.get("flowtable_devices"):
            lines.append("\nThe flowtable's devices: `%s`." % s["flowtable_devices"])
        t = res["tcp"]
        if t:
            lines.append("\n**iperf3 through the router-on-a-stick, Gbit/s** (client VLAN 22 → server "
                         "VLAN 2222; TCP -n %s, UDP -n %s -l 1400 -b 0; the endpoints run on the same "
                         "CPU and dominate):\n" % (s.get("tcp_bytes"), s.get("udp_bytes")))
            lines.append("| path | " + " | ".join(
                "%s %s" % (fam, METRICS[m]) for m in METRICS for fam in ("IPv4", "IPv6")) + " |")
            lines.append("|---|" + "---:|" * (2 * len(METRICS)))
            for path in ORDER:
                if path not in t:
                    continue
                cells = []
                for m in METRICS:
                    for fam in ("ipv4", "ipv6"):
                        d = t[path].get(fam, {}).get(m)
                        cells.append(fmt(d["gbps_median"], "%.3f") if d else "—")
                lines.append("| %s | %s |" % (PATHS[path], " | ".join(cells)))
        sc = res["scale"]
        if sc:
            ns = sorted({int(n) for v in sc.values() for n in v if not n.startswith("loss")})
            lines.append("\n**Scaling, IPv4, kpps with N concurrent flows** (each frame of a run "
                         "belongs to the next flow; conntrack + the offload, no ruleset):\n")
            lines.append("| path | " + " | ".join("%s flows" % format(n, ",").replace(",", " ") for n in ns)
                         + " | loss, 1 → most |")
            lines.append("|---|" + "---:|" * (len(ns) + 1))
            for path in ORDER:
                if path not in sc:
                    continue
                cells = [fmt(sc[path].get(str(n), {}).get("pps_median", None) and
                             sc[path][str(n)]["pps_median"] / 1e3) for n in ns]
                loss = [(k, v) for k, v in sc[path].items() if k.startswith("loss")]
                lines.append("| %s | %s | %s |" % (
                    PATHS[path], " | ".join(cells),
                    "%.1f %% (to %s)" % (loss[0][1] * 100, loss[0][0].split("_")[-1]) if loss else "—"))
        mem = res["memory"]
        if mem:
            lines.append("\n**Kernel memory per cached flow direction**: growth of slab (with "
                         "kmalloc's large pages) + vmalloc while the flows are offloaded, after "
                         "conntrack created its entries; small counts are noisy (partial slabs):\n")
            lines.append("| path | flows | directions | total B/dir | of which ft_flow objects "
                         "| xarray (ids) | rest (hash buckets) |")
            lines.append("|---|---:|---:|---:|---:|---:|---:|")
            for path in ORDER:
                for n, e in sorted(mem.get(path, {}).items(), key=lambda x: int(x[0])):
                    if int(n) < 1000:
                        continue
                    lines.append("| %s | %s | %d | %.0f | %s | %s | %s |" % (
                        PATHS[path], n, e["directions"], e["total_bytes_per_dir"],
                        fmt(e.get("ft_flow_bytes_per_dir"), "%.0f"),
                        fmt(e.get("xarray_bytes_per_dir"), "%.0f"),
                        fmt(e.get("other_bytes_per_dir"), "%.0f")))
        com = res.get("commits", {})
        if "quiet" in com and "commits" in com:
            q, c = com["quiet"], com["commits"]
            lines.append("\n**Ruleset commits**: fasttrack with %d live IPv4 flows (pktgen, "
                         "each frame the next flow), without and with one nftables commit "
                         "(a set element added) per second; each commit sends every cached "
                         "flow back through the stack once:\n" % q["flows"])
            lines.append("| | kpps | flow directions learned again per second |")
            lines.append("|---|---:|---:|")
            lines.append("| no commits | %s | %.0f |" % (fmt(q["pps_median"] / 1e3), q["relearned_per_s"]))
            lines.append("| 1 commit/s | %s | %.0f |" % (fmt(c["pps_median"] / 1e3), c["relearned_per_s"]))
            lines.append("\nThroughput with commits: %.1f %% of without." % (com["pps_ratio"] * 100))
        lines += report_churn.markdown(res)
        lines += report_devices.markdown(res)
        lines += report_l2dev.markdown(res)
        lines += report_l3dev.markdown(res)
        lines += report_nic.markdown(res)
        tg = res["targets"]
        if tg:
            lines.append("\n**Targets%s** (reported, not gated%s):\n" % (
                " on " + arch if foreign else "",
                "; ratios within this %s guest, the goals were set on amd64" % arch if foreign else ""))
            lines.append("| target | value | goal | met |")
            lines.append("|---|---:|---:|:---:|")
            for k, v in tg.items():
                val = v.get("ratio", v.get("value"))
                lines.append("| %s%s | %s | %s | %s |" % (
                    k.replace("_", " "), tag, "%.3f" % val if val < 10 else "%.0f" % val, v["target"],
                    "yes" if v["met"] else "**no**"))
        lines.append("")
    cpu = ", ".join("%s: %s s" % kv for kv in report["guest_cpu_s"].items())
    lines.append("Generated %s by `%s`: wall time %s s%s." % (
        report["date"], report["command"], report["wall_s"],
        " (guest CPU time %s)" % cpu if cpu else ""))
    return "\n".join(lines) + "\n"


def ratio_lines(res):
    """The record's work ratios (issue #37), under the pps table."""
    r = res.get("work_ratios", {})
    v6, ft = r.get("ipv6_over_ipv4", {}), r.get("fasttrack_over", {})
    if not v6:
        return []
    out = ["\n**Work ratios** (router work per packet as above; goals: fasttrack's IPv6/IPv4 "
           "≤ %.2f, fasttrack / flowtable + counter ≤ %.2f in each family):\n" % (
               TARGETS["v6_work_vs_v4"], TARGETS["vs_flowtable"])]
    out.append("| path | IPv6/IPv4 work | fasttrack / path, IPv4 | fasttrack / path, IPv6 |")
    out.append("|---|---:|---:|---:|")
    for path in RATIO_PATHS:
        if path in v6:
            f = ft.get(path, {})
            out.append("| %s | %.2f | %s | %s |" % (
                PATHS[path], v6[path], fmt(f.get("ipv4"), "%.2f"), fmt(f.get("ipv6"), "%.2f")))
    return out


def chart(report, outdir):
    if not shutil.which("gnuplot"):
        print("report.py: no gnuplot, no chart", file=sys.stderr)
        return
    # Architectures are not drawn side by side: the first amd64 kernel, or
    # without one the first kernel, its architecture in the title.
    ks = list(report["kernels"].items())
    word, res = next(((w, r) for w, r in ks if r.get("arch", "amd64") == "amd64"), ks[0])
    p = res["pps"]
    if not p:
        return  # the pps section was skipped: nothing to draw
    dat = os.path.join(outdir, "out", "chart.dat")
    os.makedirs(os.path.dirname(dat), exist_ok=True)
    with open(dat, "w") as f:
        f.write("# path ipv4_kpps ipv6_kpps ipv4_work_ns ipv6_work_ns\n")
        for path in ORDER:
            if path not in p:
                continue
            v4, v6 = p[path].get("ipv4", {}), p[path].get("ipv6", {})
            f.write('"%s" %.2f %.2f %.1f %.1f\n' % (
                SHORT[path], v4.get("pps_median", 0) / 1e3, v6.get("pps_median", 0) / 1e3,
                v4.get("router_work_ns", 0), v6.get("router_work_ns", 0)))
    png = os.path.join(outdir, "results.png")
    script = """
set terminal pngcairo size 1280,560 font "sans,10"
set output "{png}"
set multiplot layout 1,2 title "fasttrack bench: {arch} kernel {kver}, qemu -icount (1 guest ns = 1/4 instruction), 64-byte UDP, one flow, median of {reps}"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top right
set xtics rotate by -25 scale 0
set title "Router work per packet, ns (log scale, lower is better)"
set logscale y
set yrange [100:*]
set key top right
plot "< tail -n +3 {dat}" using 4:xtic(1) title "IPv4" lc rgb "#3b75af", \\
     "" using 5 title "IPv6" lc rgb "#ef8636", \\
     "" using ($0 - 0.17):4:(sprintf("%.0f", $4)) with labels offset 0,0.7 font ",8" notitle, \\
     "" using ($0 + 0.17):5:(sprintf("%.0f", $5)) with labels offset 0,0.7 font ",8" notitle
unset logscale y
set yrange [0:{ymax}]
set key top center horizontal
set title "Forwarding rate, kpps (higher is better; the ceiling is the harness alone)"
plot "< tail -n +2 {dat}" using 2:xtic(1) title "IPv4" lc rgb "#3b75af", \\
     "" using 3 title "IPv6" lc rgb "#ef8636", \\
     "" using ($0 - 0.17):2:(sprintf("%.1f", $2)) with labels offset 0,0.7 font ",8" notitle, \\
     "" using ($0 + 0.17):3:(sprintf("%.1f", $3)) with labels offset 0,0.7 font ",8" notitle
unset multiplot
""".format(png=png, dat=dat, kver=res["kernel"], arch=res.get("arch", "amd64"), reps=res["settings"].get("ppsreps", res["settings"].get("reps")),
           ymax=1.2 * max(d.get("pps_median", 0) / 1e3 for v in p.values() for d in v.values()))
    subprocess.run(["gnuplot"], input=script.encode(), check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--wall", default=None)
    ap.add_argument("--cpu", default="", help="WORD=SECONDS,...: the guests' CPU time")
    ap.add_argument("--command", default="make bench")
    ap.add_argument("--record", default=None,
                    help="a file whose bench:begin/bench:end block gets the tables and chart")
    ap.add_argument("--summary", default=None,
                    help="a file whose bench-summary:begin/end block gets one table and the chart")
    ap.add_argument("--from-json", default=None,
                    help="render from this results.json instead of guest logs")
    ap.add_argument("logs", nargs="*")
    a = ap.parse_args()
    if a.from_json:
        with open(a.from_json) as f:
            report = json.load(f)
        render(report, a, chart_too=False)
        return
    if not a.logs:
        ap.error("no guest logs (WORD=LOG), and no --from-json")
    report = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": a.command,
        "wall_s": int(a.wall) if a.wall else None,
        "guest_cpu_s": {k: int(v) for k, v in (x.split("=", 1) for x in a.cpu.split(",") if "=" in x)
                        if v.isdigit()},
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(),
                 "qemu": subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                                        text=True).stdout.splitlines()[0]
                 if shutil.which("qemu-system-x86_64") else None},
        "method": {
            "qemu": "-accel tcg -smp 1 -icount shift=2,sleep=off",
            "ns_per_instruction": NS_PER_INSN,
            "router_work": "1/pps - 1/pps(ceiling), per family; ceiling = tc vlan modify + mirred "
                           "redirect on the router's trunk, no IP work",
            "pktgen": "64-byte UDP frames (IPv6: the smallest pktgen builds), VLAN 22 into the "
                      "router's trunk, forwarded back tagged 2222 and dropped at the generator",
            "priming": "one frame per flow forward, one back, one forward again before measuring",
            "conntrack": "nf_conntrack_acct=1, nf_conntrack_checksum=0, conntrack UDP and "
                         "flowtable (nf_flowtable_*_timeout) and fasttrack (udp-timeout) timeouts "
                         "3600 s, 2M max, 256k buckets",
        },
        "targets": dict(TARGETS, **report_churn.TARGETS,
                        **report_devices.TARGETS),
        "kernels": {},
    }
    for arg in a.logs:
        word, path = arg.split("=", 1)
        rows, done = parse_log(path)
        if not done:
            sys.exit("report.py: %s did not finish (no @DONE)" % path)
        res = analyse(rows)
        res["arch"] = word_arch(word)
        res["qemu"] = ARCH_QEMU[res["arch"]]
        report["kernels"][word] = res
    os.makedirs(a.outdir, exist_ok=True)
    with open(os.path.join(a.outdir, "results.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=False)
        f.write("\n")
    render(report, a, chart_too=True)


def render(report, a, chart_too):
    """results.md, the chart and the documents' blocks, from @report."""
    md = markdown(report)
    with open(os.path.join(a.outdir, "results.md"), "w") as f:
        f.write(md)
    if chart_too:
        chart(report, a.outdir)
    # The documents' record is amd64's; a foreign kernel stays in results.md.
    amd64 = any(r.get("arch", "amd64") == "amd64" for r in report["kernels"].values())
    for path, tag, text in ((a.record, "bench", lambda: markdown(report, arches=("amd64",))),
                            (a.summary, "bench-summary", lambda: summary(report))):
        if not path:
            continue
        if amd64:
            update_block(path, tag, text(), os.path.join(a.outdir, "results.png"))
        else:
            print("report.py: no amd64 kernel, %s left as it is" % path, file=sys.stderr)
    print(md)


def summary(report):
    """The front page's table: the first amd64 kernel's router work per
    packet, fasttrack against the flowtable and the full stack."""
    word, res = next((w, r) for w, r in report["kernels"].items()
                     if r.get("arch", "amd64") == "amd64")
    s, p = res["settings"], res["pps"]
    ft = res.get("work_ratios", {}).get("fasttrack_over", {})
    lines = ["Router work per 64-byte packet on kernel %s (`%s`), from the record of `%s` "
             "(%s): one guest boot, qemu TCG `-icount shift=2,sleep=off`, 1 vCPU, guest time "
             "counting instructions (4 ns each); pktgen, one UDP flow, %s frames per run, median "
             "of %s; work = 1/pps − 1/pps of an L2 turnaround on the router's trunk, so it is the "
             "router's own:\n" % (word, res["kernel"], report.get("command"), report.get("date"),
                                    s.get("count"), s.get("ppsreps", s.get("reps")))]
    lines.append("| path | IPv4 kpps | IPv6 kpps | IPv4 work ns (insns) | IPv6 work ns (insns) "
                 "| IPv6/IPv4 work | fasttrack's work / this path's, IPv4 / IPv6 |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for path in SUMMARY_PATHS:
        if path not in p:
            continue
        v4, v6 = p[path].get("ipv4", {}), p[path].get("ipv6", {})

        f = ft.get(path, {})
        ratio = "—" if path == "fasttrack" else "%s / %s" % (
            fmt(f.get("ipv4"), "%.2f"), fmt(f.get("ipv6"), "%.2f"))
        fam = "—"
        if v4.get("router_work_ns") and v6.get("router_work_ns"):
            fam = "%.2f" % (v6["router_work_ns"] / v4["router_work_ns"])
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            PATHS[path], fmt(v4.get("pps_median", 0) / 1e3), fmt(v6.get("pps_median", 0) / 1e3),
            work_cell(v4), work_cell(v6), fam, ratio))
    lines.append("\nThe chart: router work per packet (log scale) and forwarding rate of every path "
                 "of the record, IPv4 beside IPv6.")
    return "\n".join(lines) + "\n"


def update_block(path, tag, md, png):
    """Put @md and the chart @png between the <!-- @tag:begin/end --> markers
    of the file @path, the chart linked relative to it."""
    begin, end = "<!-- %s:begin -->" % tag, "<!-- %s:end -->" % tag
    with open(path) as f:
        text = f.read()
    if begin not in text or end not in text:
        sys.exit("report.py: %s has no %s ... %s block" % (path, begin, end))
    head, rest = text.split(begin, 1)
    tail = rest.split(end, 1)[1]
    img = os.path.relpath(os.path.abspath(png), os.path.dirname(os.path.abspath(path)))
    block = "%s\n%s\n![IPv4 and IPv6 per path](%s)\n%s" % (begin, md.rstrip("\n"), img, end)
    with open(path, "w") as f:
        f.write(head + block + tail)


if __name__ == "__main__":
    main()
