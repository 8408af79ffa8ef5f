#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The layers of kmod/ and userspace/: calls and includes point down only.

Each directory's files are listed in layers, lowest first (LAYERS). A file
may call a function defined in another file, or include another file's
header, only if that file is in a lower layer; never one in its own layer
or above. A file that is not listed is an error, so that a new file takes
its place on purpose; EXCLUDE leaves a file out, and says why. Calls
through function pointers (notifier chains, command tables) are how a
lower layer reaches a higher one, and are not edges.

A call is a name followed by "(" outside comments and strings, where the
name is a function defined without "static" in another file of the same
directory. Coarse, but what a reader does when following a call.

usage: selftests/layers.py [--graph] [REPO]   (make layers-check)
  --graph: print every edge, with its layer, and check nothing.
Exit 1 and one line per back edge ("kmod: table.c -> netlink.c
(ft_nl_flow_event): layer 2 calls layer 9") when the layering is broken.
"""
import os
import re
import sys

LAYERS = {
    "kmod": [
        # What everything else uses: counters, the hash, netlink sockets.
        ["stats.c", "flowhash.c", "nl_watch.c"],
        # Generations and the route change log (its writers).
        ["gen.c"],
        # Test hooks, next hops, the watches of routes and rules.
        ["testhooks.c", "nexthop.c", "route_nl.c", "rules.c", "netevent.c"],
        ["route.c"],
        # A flow as an object, then the table of them and its reaper.
        ["flow.c"],
        ["reap.c"],
        ["table.c"],
        # What the ingress hook tells the learn hook of a packet.
        ["rx.c"],
        ["fastpath.c", "xdp.c", "learn.c"],
        # Enabled devices, the rules that enable them, device events.
        ["dev.c"],
        ["dev_rules.c"],
        ["dev_events.c"],
        # The API: policies, what commands share, the commands, the
        # family's table of them; then the module.
        ["nl_policy.c"],
        ["netlink.c"],
        ["nl_dev.c", "nl_stats.c", "nl_flow.c"],
        ["nl_family.c"],
        ["main.c"],
    ],
    "userspace": [
        # What every file uses: JSON, netlink, rtnetlink, messages, rates.
        ["json.c", "link.c", "nl.c", "print.c", "rates.c"],
        # Command-line values; a flow as the module reports it.
        ["parse.c", "flow.c"],
        # A command's run (its connection, usage and request errors); the
        # counters and their names.
        ["session.c", "stats.c"],
        # The XDP tier's program on devices (libbpf) and its pins.
        ["xdp.c"],
        # One command line through the table, which main() hands down.
        ["dispatch.c"],
        # Devices, the rules that enable them, then both together.
        ["dev.c"],
        ["rules.c"],
        ["enabled.c"],
        # What a running batch's commands consult of it.
        ["batch_state.c"],
        # The commands, and -b, which runs them through the table: none
        # calls another.
        ["batch.c", "cmd_config.c", "cmd_dev.c", "cmd_flows.c",
         "cmd_monitor.c", "cmd_rates.c", "cmd_stats.c", "cmd_xdp.c"],
        # Global options and the command table.
        ["ftctl.c"],
        # The unit tests, a program of their own over the lower files.
        ["test.c"],
    ],
}

# Files left out of a directory's graph, and why.
EXCLUDE = {
    "userspace": {
        # The fake kernel behind LD_PRELOAD in the CLI tests: it defines
        # libc's socket(), recvmsg(), fopen(), if_indextoname() ... under
        # their own names, so every file's libc calls would read as calls
        # into it; and it is linked into no program of the directory.
        "test-mock.c",
    },
}

DEF_RE = re.compile(r"^(?!static\b)[A-Za-z_][\w \t\*]*?\b(\w+)\s*\([^;]*?\)\s*\{",
                    re.M | re.S)
INCLUDE_RE = re.compile(r'^#\s*include\s+"([^"]+)"', re.M)


def strip(src):
    """The source without comments, strings and preprocessor lines."""
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    src = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', src)
    return re.sub(r"^\s*#[^\n]*(?:\\\n[^\n]*)*", " ", src, flags=re.M)


def edges(path, exclude=()):
    """(caller, callee, why) for the .c files of path but @exclude."""
    files = sorted(f for f in os.listdir(path)
                   if f.endswith(".c") and f not in exclude)
    text = {f: open(os.path.join(path, f), encoding="utf-8").read()
            for f in files}
    owner, defines = {}, {}
    for f in files:
        defines[f] = set()
        for m in DEF_RE.finditer(strip(text[f])):
            name = m.group(1)
            if name not in ("if", "for", "while", "switch", "return"):
                owner.setdefault(name, f)
                defines[f].add(name)
    out = []
    for f in files:
        body = strip(text[f])
        called = set(re.findall(r"\b(\w+)\s*\(", body))
        by = {}
        for name in called:
            o = owner.get(name)
            # A name the file defines itself (two programs' main()) is its own.
            if o and o != f and name not in defines[f]:
                by.setdefault(o, []).append(name)
        for inc in INCLUDE_RE.findall(text[f]):
            c = inc[:-2] + ".c" if inc.endswith(".h") else None
            if c in text and c != f:
                by.setdefault(c, []).append("#include " + inc)
        for o, names in sorted(by.items()):
            out.append((f, o, " ".join(sorted(names)[:4])))
    return files, out


def main():
    args = sys.argv[1:]
    graph = bool(args) and args[0] == "--graph"
    if graph:
        args = args[1:]
    repo = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
    bad = 0
    for d, layers in LAYERS.items():
        layer = {f: i for i, group in enumerate(layers) for f in group}
        files, es = edges(os.path.join(repo, d), EXCLUDE.get(d, ()))
        for f in files:
            if f not in layer:
                print(f"{d}: {f} is in no layer: add it to LAYERS in {__file__}")
                bad += 1
        for f in layer:
            if f not in files:
                print(f"{d}: {f} is listed in LAYERS but does not exist")
                bad += 1
        for a, b, why in es:
            la, lb = layer.get(a, -1), layer.get(b, -1)
            if graph:
                print(f"{d}: {a} ({la}) -> {b} ({lb}): {why}")
            elif la <= lb and la >= 0:
                print(f"{d}: {a} -> {b} ({why}): layer {la} calls layer {lb}")
                bad += 1
    if not graph:
        print(f"layers: {'%d back edges' % bad if bad else 'calls point down'}"
              f" in {', '.join(LAYERS)}")
    return 1 if bad and not graph else 0


if __name__ == "__main__":
    sys.exit(main())
