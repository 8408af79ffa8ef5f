# SPDX-License-Identifier: GPL-2.0
"""make bench: the "devices", "memchurn" and "connrate" sections
(bench/guest/devices.sh), for bench/report.py: analyse() their @RESULT
rows, targets() and markdown() their tables.
"""
from report_stats import fmt, med, opt_int

# The targets (reported, not gated).
TARGETS = {
    "devices_walks_per_device": 1.0,     # deleting a device costs less than one table walk
    "memchurn_bytes_per_dir": 128,       # <= 128 B per long-lived direction after the churn
    "connrate_vs_stack50": 1.0,          # learning pays for itself: conn/s >= the full stack's
}
NAMES = {
    "fs0": "conntrack only, no offload",
    "fs50": "full stack, conntrack, 50 rules",
    "nfftc": "nftables flowtable + counter",
    "fasttrack": "fasttrack",
}
ORDER = ["fs0", "fs50", "nfftc", "fasttrack"]




def _snap(s):
    # MemFree kB, Slab kB, ft_flow slab bytes, radix_tree_node slab bytes,
    # VmallocUsed kB, nf_conntrack slab bytes (memchurn's mc_memsnap)
    return [int(x) if x else 0 for x in s.split(",")]


def _mem(b, a, dirs):
    total = ((a[1] - b[1]) + (a[4] - b[4])) * 1024 / dirs
    e = {"total_bytes_per_dir": total,
         "slab_bytes_per_dir": (a[1] - b[1]) * 1024 / dirs,
         "vmalloc_bytes_per_dir": (a[4] - b[4]) * 1024 / dirs,
         "ft_flow_bytes_per_dir": (a[2] - b[2]) / dirs,
         "xarray_bytes_per_dir": (a[3] - b[3]) / dirs}
    if len(a) > 5 and len(b) > 5:
        e["conntrack_slab_bytes_per_dir"] = (a[5] - b[5]) / dirs
    return e


def analyse(rows):
    """{"devices": ..., "memchurn": ..., "connrate": ...} from one guest's rows."""
    out = {}
    dev = {}
    for r in rows:
        if r.get("sec") != "devices":
            continue
        n = int(r["devs"])
        e = dev[r["path"]] = {
            "devices": n, "mode": r["mode"], "flows_kept_side": int(r["flows"]),
            "flows_deleted_side": int(r["loaded"]),
            "create_s": float(r["create_s"]), "enable_s": float(r["enable_s"]),
            "delete_s": float(r["del_s"]), "delete_ms_per_device": float(r["del_s"]) * 1000 / n,
            "walk_ms": float(r["walk_ms"]) if r.get("walk_ms") else None,
            "ftctl_flush_ms": float(r["flush_ms"]) if r.get("flush_ms") else None,
            "ftctl_flush_empty_table_ms": float(r["flush_empty_ms"]) if r.get("flush_empty_ms") else None,
            "empty_devices": int(r["empty_devs"]),
            "empty_ms_per_device": float(r["empty_del_s"]) * 1000 / int(r["empty_devs"]),
            "kept_before": int(r["kept_before"]), "kept_after": int(r["kept_after"]),
            "left_before": int(r["left_before"]), "left_after": int(r["left_after"]),
            "conntrack_before": int(r["ct_before"]), "conntrack_after": int(r["ct_after"]),
            "units": "flow directions" if r["path"] == "fasttrack" else
                     "offloaded connections" if r["path"] == "nfftc" else None,
        }
        e["kept_share"] = e["kept_after"] / e["kept_before"] if e["kept_before"] else None
        # What the cached flows add to deleting a device, and in walks.
        e["table_ms_per_device"] = e["delete_ms_per_device"] - e["empty_ms_per_device"]
        if e.get("walk_ms"):
            e["walks_per_device"] = e["table_ms_per_device"] / e["walk_ms"]
    if dev:
        out["devices"] = dev

    mc = {}
    for r in rows:
        if r.get("sec") != "memchurn":
            continue
        dirs = 2 * int(r["flows"])
        b, m, a = _snap(r["before"]), _snap(r["mid"]), _snap(r["after"])
        usec = int(r["usec"]) or 1
        mc[r["path"]] = {
            "flows": int(r["flows"]), "directions": dirs, "target_rate": int(r["rate"]),
            "churn_s": usec / 1e6, "seconds_asked": int(r["secs"]), "open_at_once": int(r["open"]),
            "connections": int(r["conns"]), "conn_per_s": int(r["conns"]) * 1e6 / usec,
            "frames_sent": int(r["sent"]), "frames_back": int(r["back"]),
            "learned": int(r["learned"]), "torn_down": int(r["torn_down"]), "expired": int(r["expired"]),
            "cached_before": opt_int(r.get("cached_before")), "cached_after": opt_int(r.get("cached_after")),
            "before_churn": _mem(b, m, dirs), "after_churn": _mem(b, a, dirs),
        }
    if mc:
        out["memchurn"] = mc

    cr = {}
    for r in rows:
        if r.get("sec") != "connrate":
            continue
        d = cr.setdefault(r["path"], {}).setdefault(r["rounds"], {
            "cps_all": [], "conns": 0, "usec": 0, "sent": 0, "back": 0, "slow_pkts": 0,
            "learned": 0, "torn_down": 0, "expired": 0})
        d["cps_all"].append(float(r["cps"]))
        for k in ("conns", "usec", "sent", "back", "slow_pkts", "learned", "torn_down", "expired"):
            d[k] += int(r[k])
    for path in cr.values():
        for rounds, d in path.items():
            secs = max(1e-9, d["usec"] / 1e6)
            d["cps_median"] = med(d["cps_all"])
            d["us_per_conn"] = 1e6 / d["cps_median"] if d["cps_median"] else None
            d["frames_per_conn"] = d["sent"] / max(1, d["conns"])
            d["slow_share"] = d["slow_pkts"] / max(1, d["sent"])
            d["learned_per_s"] = d["learned"] / secs
            d["torn_down_per_s"] = d["torn_down"] / secs
            d["expired_per_s"] = d["expired"] / secs
    if cr:
        out["connrate"] = cr
    return out


def targets(res):
    t = {}
    ft = res.get("devices", {}).get("fasttrack")
    if ft and ft.get("walks_per_device") is not None:
        v = ft["walks_per_device"]
        t["fasttrack_device_delete_table_walks_per_device"] = {
            "value": v, "target": "< %.0f (%d devices, %d flows kept)" % (
                TARGETS["devices_walks_per_device"], ft["devices"], ft["flows_kept_side"]),
            "met": v < TARGETS["devices_walks_per_device"]}
    if ft:
        ok = ft["kept_after"] == ft["kept_before"] and ft["left_after"] == 0
        t["fasttrack_device_delete_keeps_other_flows"] = {
            "value": ft["kept_share"] or 0, "target": "1 (all kept), 0 left on deleted devices",
            "met": ok}
    mc = res.get("memchurn", {}).get("fasttrack")
    if mc:
        v = mc["after_churn"]["total_bytes_per_dir"]
        t["fasttrack_bytes_per_direction_after_churn"] = {
            "value": v, "at_flows": mc["flows"], "target": "<= %d" % TARGETS["memchurn_bytes_per_dir"],
            "met": v <= TARGETS["memchurn_bytes_per_dir"]}
    cr = res.get("connrate", {})
    for rounds, d in sorted(cr.get("fasttrack", {}).items(), key=lambda x: int(x[0])):
        fs = cr.get("fs50", {}).get(rounds)
        if fs and fs["cps_median"] and d["cps_median"]:
            r = d["cps_median"] / fs["cps_median"]
            t["fasttrack_connrate_vs_stack50_%s_exchanges" % rounds] = {
                "ratio": r, "target": ">= %.2f (learning pays for itself)" % TARGETS["connrate_vs_stack50"],
                "met": r >= TARGETS["connrate_vs_stack50"]}
    return t



def markdown(res):
    lines = []
    dev = res.get("devices")
    if dev:
        any_ = next(iter(dev.values()))
        lines.append("\n**Device events**: deleting %d VLAN devices of the router's trunk (%s) "
                     "while %s flows are cached between vlan22 and vlan2222, which stay, and %s "
                     "more through 4 of the deleted VLANs; the offload is set up over every "
                     "device; guest time:\n" % (
                         any_["devices"],
                         "`ip -batch`, one `link del` each" if any_["mode"] == "batch"
                         else "`ip link del group`, one request", format(any_["flows_kept_side"], ","),
                         format(any_["flows_deleted_side"], ",")))
        lines.append("| path | delete s | ms per device | ms per device, no flow cached "
                     "| what the flows add, ms/device | one table walk, ms | walks per device "
                     "| kept of the others | left on deleted | create s | enable s |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for path in ORDER:
            e = dev.get(path)
            if not e:
                continue
            kept = "—" if e["units"] is None else "%d of %d %s" % (
                e["kept_after"], e["kept_before"], e["units"])
            lines.append("| %s | %.2f | %.1f | %.1f (%d devices) | %.1f | %s | %s | %s | %s | %.1f | %.1f |" % (
                NAMES[path], e["delete_s"], e["delete_ms_per_device"], e["empty_ms_per_device"],
                e["empty_devices"], e["table_ms_per_device"], fmt(e.get("walk_ms")),
                fmt(e.get("walks_per_device"), "%.2f"), kept,
                "—" if e["units"] is None else "%d (of %d)" % (e["left_after"], e["left_before"]),
                e["create_s"], e["enable_s"]))
    mc = res.get("memchurn")
    if mc:
        any_ = next(iter(mc.values()))
        lines.append("\n**Memory under connection churn**: %s long-lived UDP flows (pktgen), then "
                     "%d s of new TCP connections at up to %d/s (%d open at once; handshake, one "
                     "exchange, FIN: learned, then torn down), their TIME_WAIT entries deleted "
                     "after; slab + vmalloc growth per long-lived direction since conntrack "
                     "created the entries, as in the memory table:\n" % (
                         format(any_["flows"], ","), any_["seconds_asked"], any_["target_rate"],
                         any_["open_at_once"]))
        lines.append("| path | connections/s reached | learned | torn down | B/dir before churn "
                     "| B/dir after | of which ft_flow | xarray | conntrack slab | cached before → after |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for path in ORDER:
            e = mc.get(path)
            if not e:
                continue
            ft = path == "fasttrack"
            lines.append("| %s | %.0f (%d in %.1f s) | %s | %s | %.0f | %.0f | %s | %s | %s | %s → %s |" % (
                NAMES[path], e["conn_per_s"], e["connections"], e["churn_s"],
                e["learned"] if ft else "—", e["torn_down"] if ft else "—",
                e["before_churn"]["total_bytes_per_dir"], e["after_churn"]["total_bytes_per_dir"],
                fmt(e["after_churn"]["ft_flow_bytes_per_dir"], "%.0f") if ft else "—",
                fmt(e["after_churn"]["xarray_bytes_per_dir"], "%.0f") if ft else "—",
                fmt(e["after_churn"].get("conntrack_slab_bytes_per_dir"), "%.0f"),
                e["cached_before"], e["cached_after"]))
        lines.append("\nCached: fasttrack's flow directions; for the flowtable, connections tracked.")
    cr = res.get("connrate")
    if cr:
        rounds = sorted({r for p in cr.values() for r in p}, key=int)
        lines.append("\n**Connection rate**: short TCP connections through the router, each a "
                     "new 5-tuple (selftests/connflood.c: handshake, N data exchanges of 64 "
                     "bytes, FIN close; generator and sink on the same CPU), connections per "
                     "second of guest time, median; fasttrack's learned and torn-down flow "
                     "directions per second:\n")
        lines.append("| path | " + " | ".join(
            "%s exch. conn/s | µs/conn | forward chain share" % r for r in rounds) + " |")
        lines.append("|---|" + "---:|" * (3 * len(rounds)))
        for path in ORDER:
            if path not in cr:
                continue
            cells = []
            for r in rounds:
                d = cr[path].get(r)
                cells += ["—"] * 3 if not d else [
                    "%.0f" % d["cps_median"], "%.0f" % d["us_per_conn"],
                    "—" if path == "fs0" else "%.0f %%" % (d["slow_share"] * 100)]
            lines.append("| %s | %s |" % (NAMES[path], " | ".join(cells)))
        ft = cr.get("fasttrack")
        if ft:
            lines.append("\nfasttrack: " + "; ".join(
                "%s exchanges: %.0f learned/s, %.0f torn down/s, %.0f expired/s" % (
                    r, ft[r]["learned_per_s"], ft[r]["torn_down_per_s"], ft[r]["expired_per_s"])
                for r in rounds if r in ft) + ".")
    return lines
