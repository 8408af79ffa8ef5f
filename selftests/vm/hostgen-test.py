#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hostgen-test.py HOSTGEN: make harness-test's check of bench/hostgen.c.

Plays qemu: connects to hostgen's two sockets as qemu's stream netdev and
chardev would, echoes the frames it gets (or not), and prints one line a
finding, "ok NAME" or "FAIL NAME: why"; exits 1 on any FAIL.
"""
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

MACS = "52:54:00:f7:00:02 52:54:00:f7:00:01"
V4 = "4 22 " + MACS + " 198.18.22.2 198.18.222.2 10000 3 20000 2"
V6 = "6 2222 " + MACS + " 2001:db8:2222::2 2001:db8:22::2 20000 1 10000 1"
failed = 0


def result(name, ok, why=""):
    global failed
    print("ok\t%s" % name if ok else "FAIL\t%s\t%s" % (name, why))
    failed += not ok


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def valid(fr):
    """Why FR is not a well-formed tagged UDP frame, or ""."""
    if struct.unpack("!H", fr[12:14])[0] != 0x8100:
        return "no VLAN tag"
    etype = struct.unpack("!H", fr[16:18])[0]
    if etype == 0x0800:
        ip, udp = fr[18:38], fr[38:]
        if csum(ip) != 0xFFFF:
            return "IPv4 header checksum"
        pseudo = ip[12:20] + b"\0\x11" + udp[4:6]
        want = 64
    elif etype == 0x86DD:
        ip, udp = fr[18:58], fr[58:]
        pseudo = ip[8:40] + struct.pack("!I3xB", len(udp), 17)
        want = 82
    else:
        return "ethertype %#x" % etype
    if struct.unpack("!H", udp[4:6])[0] != len(udp):
        return "UDP length"
    if csum(pseudo + udp) != 0xFFFF:
        return "UDP checksum"
    if len(fr) != want:
        return "%d bytes, not %d" % (len(fr), want)
    return ""


class Qemu:
    def __init__(self, d):
        self.net = socket.socket(socket.AF_UNIX)
        self.net.connect(os.path.join(d, "net"))
        ctl = socket.socket(socket.AF_UNIX)
        ctl.connect(os.path.join(d, "ctl"))
        self.ctl = ctl.makefile("rw")
        self.frames, self.echo = [], True
        threading.Thread(target=self.loop, daemon=True).start()

    def loop(self):
        buf = b""
        while True:
            d = self.net.recv(65536)
            if not d:
                return
            buf += d
            while len(buf) >= 4:
                n = struct.unpack("!I", buf[:4])[0]
                if len(buf) < 4 + n:
                    break
                fr, buf = buf[4:4 + n], buf[4 + n:]
                self.frames.append(fr)
                if self.echo:
                    # Noise first: a frame of no flow is not counted.
                    self.net.sendall(struct.pack("!I", 60) + b"\x33" * 60)
                    self.net.sendall(struct.pack("!I", n) + fr)

    def cmd(self, line):
        self.ctl.write(line + "\n")
        self.ctl.flush()
        return self.ctl.readline().strip()


def main():
    d = tempfile.mkdtemp()
    gen = subprocess.Popen([sys.argv[1], d], stderr=subprocess.DEVNULL)
    for _ in range(100):
        if os.path.exists(os.path.join(d, "ctl")):
            break
        time.sleep(0.05)
    q = Qemu(d)

    r = q.cmd("send %s 12" % V4)
    result("send: frames sent and the flow's frames back", r == "12 12", r)
    why = [valid(f) for f in q.frames if valid(f)]
    result("IPv4 frames: 64 bytes, checksums right", len(q.frames) == 12 and not why,
           "%d frames: %s" % (len(q.frames), why[:1]))
    ports = sorted({struct.unpack("!HH", f[38:42]) for f in q.frames})
    result("ports step as pktgen's: NSPORT x NDPORT flows", ports == [
        (s, t) for s in (10000, 10001, 10002) for t in (20000, 20001)], str(ports))

    q.frames.clear()
    r = q.cmd("send %s 2" % V6)
    why = [valid(f) for f in q.frames if valid(f)]
    result("IPv6 frames: 82 bytes, checksums right", r == "2 2" and len(q.frames) == 2 and
           not why, "%s, %s" % (r, why[:1]))

    r = q.cmd("start %s" % V4)
    time.sleep(0.3)
    busy = q.cmd("send %s 1" % V4)
    r2 = q.cmd("stop")
    sent, back = (int(x) for x in r2.split()) if r2[:1].isdigit() else (0, 0)
    result("start, stop: frames stream until stop", r == "ok" and sent > 100 and
           back <= sent, "%s, %s" % (r, r2))
    result("... and nothing else runs meanwhile", busy.startswith("error:"), busy)

    q.echo = False
    q.frames.clear()
    r = q.cmd("start %s" % V4)
    time.sleep(0.01)
    n = len(q.frames)
    q.cmd("stop")
    result("no more than 512 frames on their way", r == "ok" and 0 < n <= 512, "%d" % n)

    t = time.monotonic()
    r = q.cmd("send %s 3" % V4)
    t = time.monotonic() - t
    result("send: none back ends after 500 ms of silence", r == "3 0" and 0.4 < t < 3,
           "%s after %.2f s" % (r, t))

    r = q.cmd("send 5 22 %s 1.2.3.4 5.6.7.8 1 1 1 1 1" % MACS)
    result("a bad command: its error says what to fix", r == "error: FAM is 4 or 6", r)

    q.ctl.close()
    q.net.close()
    try:
        gen.wait(5)
        result("exits when qemu is gone", gen.returncode == 0, "exit %s" % gen.returncode)
    except subprocess.TimeoutExpired:
        gen.kill()
        result("exits when qemu is gone", False, "still running")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
