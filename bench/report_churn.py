# SPDX-License-Identifier: GPL-2.0
"""make bench: the "churn" and "covering" sections (bench/guest/churn.sh,
bench/guest/covering.sh), for bench/report.py: analyse() their @RESULT
rows, targets() and markdown() their tables.
"""
from report_stats import med, opt_int

# The targets (reported, not gated), at the highest churn rate.
TARGETS = {
    "churn_fast_share": 0.99,   # >= 99 % of packets on fasttrack's fast path
    "churn_teardowns": 0,       # no flow torn down by an unrelated change
    "churn_pps_ratio": 0.95,    # pps within 5 % of the no-churn figure
    "covering_old_after": 0,    # no frame the old way after the change
    "covering_nth": 1,          # the next frame takes the new way
}
NAMES = {"fasttrack": "fasttrack", "nfftc": "flowtable + counter", "nfft": "flowtable",
         "fs50": "full stack, 50 rules"}
HOWS = {
    "more": "more specific route via G2",
    "replace": "`ip route replace` via G2",
    "nexthop": "`ip nexthop replace` via G2",
}




def analyse(rows):
    """{"churn": ..., "covering": ...} from the rows of one guest."""
    out = {}
    table = next((r for r in rows if r.get("sec") == "churn_table"), None)
    runs = {}
    for r in rows:
        if r.get("sec") != "churn":
            continue
        d = runs.setdefault((r["path"], r["fam"], int(r["rate"])), {
            "pps_all": [], "achieved_all": [], "sent": 0, "rx": 0, "usec": 0,
            "ft_fwd": 0, "c2s": 0, "route_changed": 0, "teardowns": [], "flows": int(r["flows"])})
        d["pps_all"].append(float(r["pps"]))
        d["achieved_all"].append(float(r["achieved"]))
        for k in ("sent", "rx", "usec", "ft_fwd", "c2s", "route_changed"):
            d[k] += int(r[k])
        if r.get("teardowns") not in (None, ""):
            d["teardowns"].append(int(r["teardowns"]))
    if runs:
        churn = {"table": {k: table[k] for k in ("routes4", "routes6", "load_s")} if table else {},
                 "cpu": {}, "runs": {}}
        for r in rows:
            if r.get("sec") == "churn_cpu":
                churn["cpu"][r["rate"]] = {"achieved": float(r["achieved"]), "busy": float(r["busy"])}
        for (path, fam, rate), d in sorted(runs.items()):
            e = {
                "flows": d["flows"], "pps_median": med(d["pps_all"]), "pps_all": d["pps_all"],
                "achieved_median": med(d["achieved_all"]), "sent": d["sent"], "rx": d["rx"],
                "seconds": d["usec"] / 1e6,
                # the forward chain saw it: the slow path (both paths)
                "slow_share_fwd_chain": d["c2s"] / max(1, d["sent"]),
            }
            if path == "fasttrack":
                e["fast_share"] = d["ft_fwd"] / max(1, d["rx"])
                e["fast_share_from"] = "ftctl forwarded packets / frames received"
                e["torn_down"] = d["route_changed"]
                e["torn_down_unit"] = "flow directions (ftctl route_changed)"
            else:
                e["fast_share"] = 1 - e["slow_share_fwd_chain"]
                e["fast_share_from"] = "1 - forward chain c2s packets / frames sent"
                e["torn_down"] = sum(d["teardowns"]) if d["teardowns"] else None
                e["torn_down_unit"] = "flows (flow_offload_teardown() calls, kprobe)"
            if e["torn_down"] is not None:
                e["torn_down_per_s"] = e["torn_down"] / max(1e-9, e["seconds"])
            churn["runs"].setdefault(path, {}).setdefault("ipv" + fam, {})[str(rate)] = e
        for fams in churn["runs"].values():
            for rates in fams.values():
                base = rates.get("0")
                for e in rates.values():
                    if base and base["pps_median"]:
                        e["pps_vs_no_churn"] = e["pps_median"] / base["pps_median"]
        out["churn"] = churn

    cov = {}
    for r in rows:
        if r.get("sec") != "covering":
            continue
        cov.setdefault(r["path"], {}).setdefault("ipv" + r["fam"], {})[r["how"]] = {
            "frames": int(r["frames"]), "before": int(r["before"]), "after": int(r["after"]),
            "in_change_window": int(r["window"]), "change_window_us": float(r["window_us"]),
            "old_way_in_window": opt_int(r.get("old_window")),
            "old_way_after_change": int(r["old_after"]),
            "first_new_way_us_after_ack": opt_int(r["first_new_us"]),
            # 1: the first frame after the ACK
            "first_new_way_nth_frame": opt_int(r["nth"]),
            "fast_share_before": float(r["fast_before"]), "fast_share_after": float(r["fast_after"]),
            "lost": int(r["lost"]),
            # frames of the flow to neither gateway; frames tcpdump missed
            "other_mac": int(r.get("other", 0)), "capture_drops": int(r.get("capture_drops", 0)),
        }
    if cov:
        out["covering"] = cov
    return out


def targets(res):
    t = {}
    runs = res.get("churn", {}).get("runs", {}).get("fasttrack", {})
    for fam, rates in runs.items():
        top = max(rates, key=int)
        if top == "0":
            continue
        e = rates[top]
        t["fasttrack_churn_%s_%s_per_s_fast_share" % (fam, top)] = {
            "ratio": e["fast_share"], "target": ">= %.2f" % TARGETS["churn_fast_share"],
            "met": e["fast_share"] >= TARGETS["churn_fast_share"]}
        t["fasttrack_churn_%s_%s_per_s_teardowns" % (fam, top)] = {
            "value": e["torn_down"], "target": "%d" % TARGETS["churn_teardowns"],
            "met": e["torn_down"] <= TARGETS["churn_teardowns"]}
        if "pps_vs_no_churn" in e:
            t["fasttrack_churn_%s_%s_per_s_pps_vs_none" % (fam, top)] = {
                "ratio": e["pps_vs_no_churn"], "target": ">= %.2f" % TARGETS["churn_pps_ratio"],
                "met": e["pps_vs_no_churn"] >= TARGETS["churn_pps_ratio"]}
    for fam, hows in res.get("covering", {}).get("fasttrack", {}).items():
        old = sum(e["old_way_after_change"] for e in hows.values())
        nth = [e["first_new_way_nth_frame"] for e in hows.values()]
        t["fasttrack_covering_%s_old_way_after_change" % fam] = {
            "value": old, "target": "%d (all changes)" % TARGETS["covering_old_after"],
            "met": old <= TARGETS["covering_old_after"]}
        worst = None if None in nth else max(nth)
        t["fasttrack_covering_%s_first_new_way_frame" % fam] = {
            "value": worst if worst is not None else float("nan"),
            "target": "%d (the next frame after the ACK; worst change)" % TARGETS["covering_nth"],
            "met": worst is not None and worst <= TARGETS["covering_nth"]}
    return t


def _pct(v):
    return "—" if v is None else "%.1f %%" % (v * 100)


def markdown(res):
    lines = []
    ch = res.get("churn")
    if ch:
        tb = ch.get("table", {})
        lines.append(
            "\n**Route churn**: 1 000 live flows (pktgen, each frame the next flow, 50-rule "
            "ruleset) while a loop replaces, deletes and adds back routes of a %s IPv4 + %s "
            "IPv6 route table (prefixes no flow uses; loaded in %s s of guest time), paced in "
            "guest time into one `ip -batch`. Fast path: fasttrack's forwarded packets over "
            "frames received; for the flowtable, 1 − forward-chain packets over frames sent. "
            "Torn down: fasttrack's `route_changed` (flow directions), the flowtable's "
            "`flow_offload_teardown()` calls (flows, kprobe), per second:\n" % (
                tb.get("routes4", "?"), tb.get("routes6", "?"), tb.get("load_s", "?")))
        lines.append("| path | family | updates/s (reached) | kpps | vs 0/s | fast path "
                     "| torn down/s |")
        lines.append("|---|---|---:|---:|---:|---:|---:|")
        for path in sorted(ch["runs"], key=lambda p: list(NAMES).index(p) if p in NAMES else 99):
            for fam, rates in sorted(ch["runs"][path].items()):
                for rate, e in sorted(rates.items(), key=lambda x: int(x[0])):
                    lines.append("| %s | %s | %s (%.0f) | %.1f | %s | %s | %s |" % (
                        NAMES.get(path, path), fam.replace("ipv", "IPv"), rate,
                        e["achieved_median"], e["pps_median"] / 1e3,
                        "%.3f" % e["pps_vs_no_churn"] if "pps_vs_no_churn" in e else "—",
                        _pct(e["fast_share"]),
                        "—" if e.get("torn_down_per_s") is None else "%.0f" % e["torn_down_per_s"]))
        cpu = ch.get("cpu", {})
        if cpu:
            lines.append("\nThe churn alone, without traffic, keeps the one CPU busy " + ", ".join(
                "%s at %s/s (%.0f reached)" % (_pct(c["busy"]), r, c["achieved"])
                for r, c in sorted(cpu.items(), key=lambda x: int(x[0]))) +
                ". With one CPU, what the churn takes the packets lose, whatever the path: a "
                "path that loses no flow to the churn still loses pps.")
        lines.append("\nTargets for fasttrack at the highest rate (not gated): ≥ %.0f %% on the "
                     "fast path, %d flows torn down, pps ≥ %.0f %% of 0/s." % (
                         TARGETS["churn_fast_share"] * 100, TARGETS["churn_teardowns"],
                         TARGETS["churn_pps_ratio"] * 100))
    cov = res.get("covering")
    if cov:
        lines.append(
            "\n**Route changes that cover a cached flow**: one UDP flow at 1 000 frames/s "
            "through gateway G1, moved to G2 by one change in mid-stream; the generator tells "
            "the gateway from each frame's MAC, the change's moment is its netlink request and "
            "ACK (nlmon); the change takes effect at some moment between the two. Targets: "
            "no frame via G1 after the ACK, the first frame after the ACK via G2:\n")
        lines.append("| path | family | change | via G1 after the ACK | first via G2 after "
                     "the ACK: frame (µs after ACK) | request to ACK: µs, frames (via G1) "
                     "| fast path before / after | lost |")
        lines.append("|---|---|---|---:|---:|---:|---:|---:|")
        for path in ("fasttrack", "nfftc"):
            for fam, hows in sorted(cov.get(path, {}).items()):
                for how in HOWS:
                    e = hows.get(how)
                    if not e:
                        continue
                    first = "never" if e["first_new_way_nth_frame"] is None else "%d (%d)" % (
                        e["first_new_way_nth_frame"], e["first_new_way_us_after_ack"])
                    win = "%d, %d (%s)" % (
                        e["change_window_us"], e["in_change_window"],
                        "?" if e.get("old_way_in_window") is None else e["old_way_in_window"])
                    lines.append("| %s | %s | %s | %d | %s | %s | %s / %s | %d |" % (
                        NAMES.get(path, path), fam.replace("ipv", "IPv"), HOWS[how],
                        e["old_way_after_change"], first, win, _pct(e["fast_share_before"]),
                        _pct(e["fast_share_after"]), e["lost"]))
    return lines
