# SPDX-License-Identifier: GPL-2.0
"""make bench: the "l3dev" section (bench/guest/l3dev.sh), for
bench/report.py: analyse() its @RESULT rows, markdown() its table
"Layer-3 WAN devices".
"""
from report_stats import NS_PER_INSN, fmt, med, spread

NAMES = {
    "ceiling": "L2 turnaround ceiling (no IP work)",
    "ppp0tx": "turnaround through ppp0 (no IP work)",
    "fs50": "full stack, conntrack, 50 rules",
    "nfftc": "nftables flowtable + counter",
    "fasttrack": "fasttrack",
}
ORDER = ["ceiling", "ppp0tx", "fs50", "nfftc", "fasttrack"]


def analyse(rows):
    """{"l3dev": {"pppoe": ..., "wireguard": ...}} from one guest's rows."""
    meta = next((r for r in rows if r.get("sec") == "l3dev_meta"), None)
    if meta is None:
        return {}
    out = {"settings": {k: v for k, v in meta.items() if k != "sec"},
           "skipped": [r["dev"] for r in rows if r.get("sec") == "l3dev_skip"]}
    ppp = {}
    wg = {}
    for r in rows:
        if r.get("sec") != "l3dev":
            continue
        fam = "ipv" + r["fam"]
        if r["dev"] == "pppoe":
            d = ppp.setdefault(r["path"], {}).setdefault(fam, {
                "pps_all": [], "sent": 0, "rx": 0, "slow_pkts": 0, "ft_pkts": 0, "ppp_tx": 0})
            d["pps_all"].append(float(r["pps"]))
            for k in ("sent", "rx", "slow_pkts", "ft_pkts", "ppp_tx"):
                d[k] += int(r.get(k, 0))
        elif r["dev"] == "wireguard":
            d = wg.setdefault(r["path"], {}).setdefault(fam, {}).setdefault(r["dir"], {
                "gbps_all": [], "bytes": 0, "slow_bytes": 0, "ft_pkts": 0})
            d["gbps_all"].append(float(r["gbps"]))
            for k in ("bytes", "slow_bytes", "ft_pkts"):
                d[k] += int(r[k])
    for fams in ppp.values():
        for fam, d in fams.items():
            d["pps_median"] = med(d["pps_all"])
            d["spread"] = spread(d["pps_all"])
            d["ns_per_packet"] = 1e9 / d["pps_median"] if d["pps_median"] else None
            d["slow_share"] = d["slow_pkts"] / d["rx"] if d["rx"] else None
    for path, fams in ppp.items():
        for fam, d in fams.items():
            ceil = ppp.get("ceiling", {}).get(fam)
            if ceil and ceil["ns_per_packet"] and d["ns_per_packet"]:
                d["router_work_ns"] = d["ns_per_packet"] - ceil["ns_per_packet"]
                d["router_work_insns"] = d["router_work_ns"] / NS_PER_INSN
    for path, fams in ppp.items():
        for fam, d in fams.items():
            for ref in ("fs50", "nfftc"):
                r = ppp.get(ref, {}).get(fam, {}).get("router_work_ns")
                if r and d.get("router_work_ns") is not None:
                    d["work_vs_" + ref] = d["router_work_ns"] / r
    for fams in wg.values():
        for dirs in fams.values():
            for d in dirs.values():
                d["gbps_median"] = med(d["gbps_all"])
                d["spread"] = spread(d["gbps_all"])
                # guest milliseconds per MiB received
                d["ms_per_mib"] = 8 * 2**20 / (d["gbps_median"] * 1e9) * 1e3 if d["gbps_median"] else None
                d["slow_share"] = d["slow_bytes"] / d["bytes"] if d["bytes"] else None
    for path, fams in wg.items():
        for fam, dirs in fams.items():
            for dr, d in dirs.items():
                ref = wg.get("fs50", {}).get(fam, {}).get(dr)
                if ref and ref["ms_per_mib"] and d["ms_per_mib"]:
                    d["time_vs_fs50"] = d["ms_per_mib"] / ref["ms_per_mib"]
    out["pppoe"] = ppp
    out["wireguard"] = wg
    return {"l3dev": out}


def markdown(res):
    ld = res.get("l3dev")
    if not ld:
        return []
    s = ld["settings"]
    lines = ["\n**Layer-3 WAN devices** (bench/guest/l3dev.sh, the selftests' topologies of "
             "selftests/lib_l3dev.sh: client on VLAN 22 of a switch, the router on its trunk, "
             "the WAN device over VLAN 2222 to the ISP / tunnel peer, the server behind it; "
             "routed, no NAT)%s:\n" % (
                 "; skipped: " + ", ".join(ld["skipped"]) if ld["skipped"] else "")]
    ppp = ld.get("pppoe")
    if ppp:
        lines.append(
            "*PPPoE*: router work per 64-byte UDP packet, LAN → ppp0 (a PPPoE session), one "
            "flow, pktgen on the client's eth0, %s frames per run, median of %s runs. The flow "
            "is primed with a reply from the server through the session; the switch drops what "
            "the router sends (the ISP's user-space PPPoE never sees it). Work = 1/pps − 1/pps "
            "of the ceiling: the same chain, tc on the trunk turning the frames around. "
            "fasttrack transmits through ppp0 (its qdisc and counters); so does the "
            "flowtable (on vlan22 and trunk0: it takes the session's frames straight from "
            "trunk0, but a software flowtable transmits directly only with a bridge in the "
            "path). The ppp0 turnaround (tc on the trunk, tag popped, redirected into ppp0) "
            "measures ppp0's transmit: ppp, pppoe, vlan2222 and ppp0's qdisc. \"via ppp0\": "
            "what ppp0's tx counter counted, per frame delivered.\n" % (s.get("count"), s.get("reps")))
        lines.append("| path | IPv4 kpps | IPv6 kpps | IPv4 work ns (insns) | IPv6 work ns (insns) "
                     "| work vs full stack (IPv4 / IPv6) | delivered | forward chain saw | via ppp0 |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for path in ORDER:
            if path not in ppp:
                continue
            f = ppp[path]
            cells = []
            for fam in ("ipv4", "ipv6"):
                d = f.get(fam, {})
                cells.append(fmt(d["pps_median"] / 1e3) if d.get("pps_median") else "—")
            for fam in ("ipv4", "ipv6"):
                d = f.get(fam, {})
                cells.append("—" if d.get("router_work_ns") is None or path == "ceiling" else
                             "%.0f (%.0f)" % (d["router_work_ns"], d["router_work_insns"]))
            cells.append("—" if path in ("ceiling", "ppp0tx") else " / ".join(
                fmt(f.get(fam, {}).get("work_vs_fs50"), "%.2f") for fam in ("ipv4", "ipv6")))
            sent = sum(d["sent"] for d in f.values())
            rx = sum(d["rx"] for d in f.values())
            cells.append("%.1f %%" % (rx * 100 / sent) if sent else "—")
            slow = sum(d["slow_pkts"] for d in f.values())
            cells.append("—" if path in ("ceiling", "ppp0tx") else "%.1f %%" % (slow * 100 / rx if rx else 0))
            tx = sum(d["ppp_tx"] for d in f.values())
            cells.append("—" if path == "ceiling" else "%.1f %%" % (tx * 100 / rx if rx else 0))
            lines.append("| %s | %s |" % (NAMES[path], " | ".join(cells)))
        ft, tx = ppp.get("fasttrack", {}), ppp.get("ppp0tx", {})
        parts = []
        for fam in ("ipv4", "ipv6"):
            w, t = ft.get(fam, {}).get("router_work_ns"), tx.get(fam, {}).get("router_work_ns")
            v = ft.get(fam, {}).get("work_vs_nfftc")
            if w is not None and t is not None:
                parts.append("%s: fasttrack %.0f ns, of which ppp0's transmit (over a direct "
                             "one on trunk0) %.0f ns (%.0f %%), the rest %.0f ns%s" % (
                                 fam.replace("ipv", "IPv"), w, t, t * 100 / w, w - t,
                                 "; fasttrack / flowtable work %.2f" % v if v is not None else ""))
        if parts:
            lines.append("\nRouter work per packet: " + ". ".join(parts) + ".")
    wg = ld.get("wireguard")
    if wg:
        lines.append(
            "\n*WireGuard*: iperf3 TCP through wg0, %s bytes per run, median of %s runs, "
            "upload (client → server: the router encrypts) and download (-R: the router "
            "forwards what wg0 decrypted); Mbit/s of guest time, and in brackets the time per "
            "byte relative to the full stack. The peer's crypto, both TCP ends and the switch "
            "share the CPU: what the offload saves is the least share of the router's "
            "forwarding in the total. The flowtable is on vlan22 and wg0.\n" % (
                s.get("tcp_bytes"), s.get("tcp_reps")))
        cols = [(fam, dr) for fam in ("ipv4", "ipv6") for dr in ("up", "down")]
        lines.append("| path | " + " | ".join(
            "%s %s" % (fam.replace("ipv", "IPv"), "upload" if dr == "up" else "download")
            for fam, dr in cols) + " | forward chain saw |")
        lines.append("|---|" + "---:|" * (len(cols) + 1))
        for path in ORDER:
            if path not in wg:
                continue
            cells = []
            byt = slow = 0
            for fam, dr in cols:
                d = wg[path].get(fam, {}).get(dr)
                if not d:
                    cells.append("—")
                    continue
                byt += d["bytes"]
                slow += d["slow_bytes"]
                c = "%.1f" % (d["gbps_median"] * 1e3)
                if path != "fs50" and d.get("time_vs_fs50"):
                    c += " (%+.0f %%)" % ((d["time_vs_fs50"] - 1) * 100)
                cells.append(c)
            cells.append("%.1f %%" % (slow * 100 / byt) if byt else "—")
            lines.append("| %s | %s |" % (NAMES[path], " | ".join(cells)))
    return lines
