# SPDX-License-Identifier: GPL-2.0
"""make bench: the "bridge" section (bench/guest/l2dev.sh), for
bench/report.py: analyse() its @RESULT rows, markdown() its table.
"""
from report_stats import NS_PER_INSN, med

NAMES = {
    "ceiling": "L2 turnaround on the bridge port (harness ceiling)",
    "fs50": "full stack, conntrack, 50 rules",
    "nfftc": "nftables flowtable + counter",
    "fasttrack": "fasttrack",
}
ORDER = list(NAMES)


def analyse(rows):
    """{"bridge": {PATH: {"ipv4": ..., "ipv6": ...}, "skipped": ..., "flowtable": ...}}."""
    pps = {}
    for r in rows:
        if r.get("sec") == "bridge":
            pps.setdefault((r["path"], r["fam"]), []).append(float(r["pps"]))
    if not pps and not any(r.get("sec") == "bridge_skip" for r in rows):
        return {}
    paths = {}
    for (path, fam), vals in pps.items():
        m = med(vals)
        paths.setdefault(path, {})["ipv" + fam] = {
            "pps_median": m, "pps_all": vals, "ns_per_packet": 1e9 / m,
        }
    for path, fams in paths.items():
        for fam, d in fams.items():
            ceil = paths.get("ceiling", {}).get(fam)
            if ceil:
                work = d["ns_per_packet"] - ceil["ns_per_packet"]
                d["router_work_ns"] = work
                d["router_work_insns"] = work / NS_PER_INSN
    out = {"paths": paths,
           "skipped": {r["path"]: r.get("why") for r in rows if r.get("sec") == "bridge_skip"}}
    ft = next((r for r in rows if r.get("sec") == "bridge_ft"), None)
    if ft:
        out["flowtable"] = {"devices": ft.get("devs"), "offloaded_connections": int(ft["offloaded"])}
    return {"bridge": out}


def markdown(res):
    b = res.get("bridge")
    if not b:
        return []
    lines = ["\n**Through the router's VLAN-aware bridge** (pktgen as above, into a "
             "vlan_filtering br0 port; the router's devices are br0.22 and br0.2222; work = "
             "1/pps − 1/pps of a tc turnaround on the bridge port, so it includes the bridge):\n",
             "| path | IPv4 kpps | IPv6 kpps | IPv4 work ns (insns) | IPv6 work ns (insns) |",
             "|---|---:|---:|---:|---:|"]

    def cell(path, d):
        if path == "ceiling":
            return "0 (ceiling)"
        if "router_work_ns" not in d:
            return "—"
        return "%.0f (%.0f)" % (d["router_work_ns"], d["router_work_insns"])
    for path in ORDER:
        if path in b["skipped"]:
            lines.append("| %s | — | — | not possible here (%s) | |" % (NAMES[path], b["skipped"][path]))
            continue
        if path not in b["paths"]:
            continue
        v4, v6 = b["paths"][path].get("ipv4", {}), b["paths"][path].get("ipv6", {})
        lines.append("| %s | %.1f | %.1f | %s | %s |" % (
            NAMES[path], v4.get("pps_median", 0) / 1e3, v6.get("pps_median", 0) / 1e3,
            cell(path, v4), cell(path, v6)))
    ft = b.get("flowtable")
    if ft:
        lines.append("\nThe flowtable's devices: `%s`; connections it offloaded: %d." % (
            ft["devices"], ft["offloaded_connections"]))
    return lines
