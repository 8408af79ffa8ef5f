# SPDX-License-Identifier: GPL-2.0
"""make bench: the "nic" section (bench/guest/nic.sh, BENCH_NIC=virtio or
hostgen), for bench/report.py: analyse() its @RESULT rows, markdown() its
table.

The frames reach the router through a virtio-net NIC, so the XDP paths run
native XDP in the driver (no veth copy). Each path's work is held against
the ceiling of its own kind: the skb paths against the tc turnaround
(ceiling), the XDP paths against the minimal XDP_TX program (xdpceil).
With virtio, pktgen sends from a second NIC of the same guest, on a qemu
hub; with hostgen, bench/hostgen.c sends from the host, so a path's pps is
the router's alone: 1/pps is all the guest's work for a frame (its
instructions per frame: 1/pps / NS_PER_INSN).
"""
from report_stats import NS_PER_INSN, fmt, med, spread

NAMES = {
    "ceiling": "L2 turnaround, tc vlan + mirred (skb ceiling)",
    "xdpceil": "L2 turnaround, XDP: VLAN id + MAC swap, XDP_TX (XDP ceiling)",
    "fs50": "full stack, conntrack, 50 rules",
    "nfftc": "nftables flowtable + counter",
    "nfftct": "nftables flowtable + counter, on trunk0",
    "fasttrack": "fasttrack, skb tier",
    "ftxdp": "fasttrack, XDP tier on trunk0",
    "fs50m": "full stack, 50 rules, masquerade",
    "nfftcm": "nftables flowtable + counter, masquerade",
    "fasttrackm": "fasttrack, skb tier, masquerade",
    "ftxdpm": "fasttrack, XDP tier, masquerade",
    "nfxdp": "nftables flowtable's XDP path (bpf_xdp_flow_lookup)",
}
ORDER = list(NAMES)
XDP_PATHS = ("xdpceil", "ftxdp", "ftxdpm")
WHY = {
    "kfunc_lookup_has_no_vlan_id": "not possible here: the flowtable's key of a tagged flow holds "
    "its VLAN id, and bpf_xdp_flow_lookup builds its key from the IP header and the ingress "
    "device only, so it finds no VLAN flow",
    "kernel_has_no_flow_lookup": "not possible here: this kernel has no bpf_xdp_flow_lookup "
    "(Linux 6.11 on)",
}
# The goals (reported, not gated).
TARGETS = {"xdp_over_skb": 1.5, "v6_vs_v4": 0.95}


def ceiling_of(path):
    return "xdpceil" if path in XDP_PATHS else "ceiling"


def analyse(rows):
    """{"nic": {"paths": {PATH: {"ipv4": ..., "ipv6": ...}}, "skipped": ..., "ratios": ...}}."""
    pps = {}
    for r in rows:
        if r.get("sec") == "nic":
            d = pps.setdefault((r["path"], r["fam"]), {"pps": [], "rx": 0, "sent": 0})
            d["pps"].append(float(r["pps"]))
            d["rx"] += int(r["rx"])
            d["sent"] += int(r["sent"])
    skipped = {r["path"]: r.get("why") for r in rows if r.get("sec") == "nic_skip"}
    # What each flowtable path offloaded (nic.sh, after its windows).
    offload = {r["path"]: {"offloaded": int(r["offloaded"]), "devs": r.get("devs", "")}
               for r in rows if r.get("sec") == "nic_offload"}
    if not pps and not skipped:
        return {}
    harness = next((r.get("nic") for r in rows if r.get("sec") == "nic_harness"), "virtio")
    idle = {}
    for r in rows:
        if harness == "hostgen" and r.get("sec") == "nic" and r.get("idle_usec"):
            # hostgen's usec is the router's busy time, idle_usec the rest.
            i = int(r["idle_usec"])
            idle.setdefault(r["path"], []).append(i / max(1, int(r["usec"]) + i))
    paths = {}
    for (path, fam), d in pps.items():
        m = med(d["pps"])
        paths.setdefault(path, {})["ipv" + fam] = {
            "pps_median": m, "pps_all": d["pps"], "spread": spread(d["pps"]),
            "ns_per_packet": 1e9 / m, "delivered": d["rx"] / max(1, d["sent"]),
            "insns_per_packet": 1e9 / m / NS_PER_INSN,
        }
    for path, fams in paths.items():
        for fam, d in fams.items():
            ceil = paths.get(ceiling_of(path), {}).get(fam)
            if ceil and path != ceiling_of(path):
                work = d["ns_per_packet"] - ceil["ns_per_packet"]
                d["work_vs"] = ceiling_of(path)
                d["router_work_ns"] = work
                d["router_work_insns"] = work / NS_PER_INSN

    def p(path, fam):
        return paths.get(path, {}).get(fam, {}).get("pps_median")

    ratios = {}

    def ratio(name, a, b):
        if a and b:
            ratios[name] = a / b
    for fam in ("ipv4", "ipv6"):
        for sfx in ("", "m"):
            ratio("xdp_over_skb%s_%s" % ("_masq" if sfx else "", fam),
                  p("ftxdp" + sfx, fam), p("fasttrack" + sfx, fam))
        ratio("xdp_over_xdp_ceiling_" + fam, p("ftxdp", fam), p("xdpceil", fam))
        ratio("skb_over_skb_ceiling_" + fam, p("fasttrack", fam), p("ceiling", fam))
        ratio("xdp_ceiling_over_skb_ceiling_" + fam, p("xdpceil", fam), p("ceiling", fam))
    for path in ORDER:
        ratio("ipv6_over_ipv4_" + path, p(path, "ipv6"), p(path, "ipv4"))
    if harness == "hostgen":
        # The guest's whole work per frame, the XDP tier's over the skb
        # tier's; and the router's work, above the cheapest turnaround of
        # a frame this NIC allows (the XDP ceiling: the driver's receive
        # and XDP_TX, which any forwarder pays), the same way.
        for fam in ("ipv4", "ipv6"):
            c = p("xdpceil", fam)
            for sfx in ("", "m"):
                name = "%s_%s" % ("_masq" if sfx else "", fam)
                x, k = p("ftxdp" + sfx, fam), p("fasttrack" + sfx, fam)
                ratio("work_xdp_over_skb" + name, k, x)
                if c and x and k:
                    ratio("router_work_xdp_over_skb" + name, 1 / x - 1 / c, 1 / k - 1 / c)
    return {"nic": {"paths": paths, "skipped": skipped, "ratios": ratios, "harness": harness,
                    "offload": offload,
                    "idle_max": max((max(v) for v in idle.values()), default=None)}}


def targets(res):
    """The goals of issue #32 on the NIC path."""
    r = res.get("nic", {}).get("ratios", {})
    t = {}
    for fam in ("ipv4", "ipv6"):
        v = r.get("xdp_over_skb_" + fam)
        if v is not None:
            t["nic_xdp_tier_over_skb_tier_pps_" + fam] = {
                "ratio": v, "target": ">= %.2f" % TARGETS["xdp_over_skb"],
                "met": v >= TARGETS["xdp_over_skb"]}
    for fam in ("ipv4", "ipv6"):
        v = r.get("router_work_xdp_over_skb_" + fam)
        if v is not None:
            t["nic_hostgen_xdp_tier_router_work_over_skb_tier_" + fam] = {
                "ratio": v, "target": "<= 0.33", "met": v <= 1 / 3}
    for path in ("fasttrack", "ftxdp"):
        v = r.get("ipv6_over_ipv4_" + path)
        if v is not None:
            t["nic_%s_ipv6_vs_ipv4_pps" % path] = {
                "ratio": v, "target": ">= %.2f" % TARGETS["v6_vs_v4"],
                "met": v >= TARGETS["v6_vs_v4"]}
    return t


def markdown(res):
    n = res.get("nic")
    if not n:
        return []
    hostgen = n.get("harness") == "hostgen"
    if hostgen:
        lines = ["\n**Through a virtio-net NIC with native XDP, frames from the host** "
                 "(`BENCH_NIC=hostgen`: bench/hostgen.c on the host is the wire's other end of "
                 "the router's trunk, a qemu stream socket; no generator in the guest, so "
                 "1/pps is the router's whole work per frame, driver included; work = 1/pps − "
                 "1/pps of the ceiling of the path's kind: the tc turnaround for the skb paths, "
                 "the minimal XDP_TX program for the XDP ones):\n",
                 "| path | IPv4 kpps | IPv6 kpps | IPv4 insns/frame | IPv6 insns/frame "
                 "| IPv4 work ns (insns) | IPv6 work ns (insns) |",
                 "|---|---:|---:|---:|---:|---:|---:|"]
    else:
        lines = ["\n**Through virtio-net NICs with native XDP** (`BENCH_NIC=virtio`: pktgen on "
                 "one virtio-net NIC, the router's trunk on another, joined by a qemu hub; work = "
                 "1/pps − 1/pps of the ceiling of the path's kind: the tc turnaround for the skb "
                 "paths, the minimal XDP_TX program for the XDP ones):\n",
                 "| path | IPv4 kpps | IPv6 kpps | IPv4 work ns (insns) | IPv6 work ns (insns) |",
                 "|---|---:|---:|---:|---:|"]

    def cell(path, d):
        if path == ceiling_of(path):
            return "0 (ceiling)"
        if "router_work_ns" not in d:
            return "—"
        return "%.0f (%.0f)" % (d["router_work_ns"], d["router_work_insns"])
    unoffloaded = [p for p in ORDER if n.get("offload", {}).get(p, {}).get("offloaded") == 0]
    for path in ORDER:
        if path in n["skipped"]:
            lines.append("| %s | — | — | %s |%s" % (
                NAMES[path], WHY.get(n["skipped"][path], n["skipped"][path]),
                " | | |" if hostgen else " |"))
            continue
        if path not in n["paths"]:
            continue
        v4, v6 = n["paths"][path].get("ipv4", {}), n["paths"][path].get("ipv6", {})
        insns = ""
        if hostgen:
            insns = " %s | %s |" % (fmt(v4.get("insns_per_packet"), "%.0f"),
                                    fmt(v6.get("insns_per_packet"), "%.0f"))
        name = NAMES[path] + (" (nothing offloaded)" if path in unoffloaded else "")
        lines.append("| %s | %s | %s |%s %s | %s |" % (
            name, fmt(v4.get("pps_median") and v4["pps_median"] / 1e3),
            fmt(v6.get("pps_median") and v6["pps_median"] / 1e3), insns,
            cell(path, v4), cell(path, v6)))
    r = n["ratios"]
    rows = [
        ("XDP tier / skb tier (pps; goal ≥ %.1f)" % TARGETS["xdp_over_skb"], "xdp_over_skb"),
        ("XDP tier / skb tier, masquerade (pps)", "xdp_over_skb_masq"),
        ("XDP tier / XDP ceiling (pps)", "xdp_over_xdp_ceiling"),
        ("skb tier / skb ceiling (pps)", "skb_over_skb_ceiling"),
        ("XDP ceiling / skb ceiling (pps)", "xdp_ceiling_over_skb_ceiling"),
        ("XDP tier's insns/frame / skb tier's", "work_xdp_over_skb"),
        ("the same, masquerade", "work_xdp_over_skb_masq"),
        ("router work above the XDP ceiling, XDP tier / skb tier (goal ≤ 0.33)",
         "router_work_xdp_over_skb"),
        ("the same, masquerade", "router_work_xdp_over_skb_masq"),
    ]
    shown = [(label, key) for label, key in rows
             if key + "_ipv4" in r or key + "_ipv6" in r]
    if shown:
        lines += ["", "| ratio | IPv4 | IPv6 |", "|---|---:|---:|"]
        for label, key in shown:
            lines.append("| %s | %s | %s |" % (
                label, fmt(r.get(key + "_ipv4"), "%.2f"), fmt(r.get(key + "_ipv6"), "%.2f")))
    if unoffloaded:
        lines.append("\nNothing offloaded: the flowtable of %s took none of its connections "
                     "(on %s; 7.2 offloads nothing from a flowtable on the VLAN devices alone, "
                     "as its forward path's ingress device, trunk0, is not one of them), so "
                     "the row is the full stack's rate." % (
                         ", ".join(NAMES[p] for p in unoffloaded),
                         "; ".join(n["offload"][p]["devs"] for p in unoffloaded)))
    if n.get("idle_max") is not None:
        lines.append("\nThe router's idle time in a measured window: at most %.1f %%; "
                     "the rates are over its busy time." % (100 * n["idle_max"]))
    v6 = [(path, r["ipv6_over_ipv4_" + path]) for path in ORDER if "ipv6_over_ipv4_" + path in r]
    if v6:
        lines.append("\nIPv6 / IPv4 pps (goal ≥ %.2f on fasttrack): %s." % (
            TARGETS["v6_vs_v4"], ", ".join("%s %.3f" % (path, v) for path, v in v6)))
    return lines
