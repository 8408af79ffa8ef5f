# SPDX-License-Identifier: GPL-2.0
"""Module BTF without the kernel's vmlinux and resolve_btfids.

Debian's headers ship neither, so kbuild builds fasttrack.ko without BTF,
and the kfunc cannot register. The build does what kbuild's modfinal would:

  btf.py base VMLINUZ KERNELRELEASE OUT    base BTF from the target's image
  pahole -J ... --btf_base OUT fasttrack.ko
  btf.py resolve OUT fasttrack.ko          fill .BTF_ids, as resolve_btfids

OUT is the raw .BTF section, which pahole (1.24 and later) takes as a base.
"""

import bz2
import lzma
import os
import shutil
import struct
import subprocess
import sys
import zlib


class Fail(Exception):
    pass


# What parsing a malformed file may raise.
BAD_INPUT = (Fail, struct.error, IndexError, ValueError)


# --- ELF --------------------------------------------------------------------

class Elf:
    """Section headers and symbols of an ELF32/ELF64 file, either byte order."""

    def __init__(self, data):
        if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
            raise Fail("not an ELF file")
        self.data = data
        self.is64 = data[4] == 2
        self.bo = "<" if data[5] == 1 else ">"
        if self.is64:
            shoff, = self.unpack("Q", 0x28)
            shentsize, shnum, shstrndx = self.unpack("HHH", 0x3a)
            shfmt = "IIQQQQIIQQ"
        else:
            shoff, = self.unpack("I", 0x20)
            shentsize, shnum, shstrndx = self.unpack("HHH", 0x2e)
            shfmt = "IIIIIIIIII"
        if shoff == 0:
            raise Fail("ELF file without section headers")
        # More than 0xff00 sections: the real numbers are in section 0.
        first = self.unpack(shfmt, shoff)
        shnum = shnum or first[5]
        if shstrndx == 0xffff:
            shstrndx = first[6]
        self.sections = [self.unpack(shfmt, shoff + i * shentsize) for i in range(shnum)]
        names = self.contents(shstrndx)
        self.names = [cstr(names, sh[0]) for sh in self.sections]

    def unpack(self, fmt, off):
        fmt = self.bo + fmt
        if off + struct.calcsize(fmt) > len(self.data):
            raise Fail("truncated ELF file")
        return struct.unpack_from(fmt, self.data, off)

    def index(self, name):
        return self.names.index(name) if name in self.names else None

    def contents(self, idx):
        # Header fields: name, type, flags, addr, offset, size, link, ...
        sh = self.sections[idx]
        if sh[4] + sh[5] > len(self.data):
            raise Fail("truncated ELF file: section %d" % idx)
        return self.data[sh[4]:sh[4] + sh[5]]

    def symbols(self):
        """(name, value, size, shndx) of each .symtab symbol."""
        tab = [i for i, sh in enumerate(self.sections) if sh[1] == 2]  # SHT_SYMTAB
        if not tab:
            return
        syms = self.contents(tab[0])
        strs = self.contents(self.sections[tab[0]][6])
        fmt, size = ("IBBHQQ", 24) if self.is64 else ("IIIBBH", 16)
        for off in range(0, len(syms) - size + 1, size):
            s = struct.unpack_from(self.bo + fmt, syms, off)
            if self.is64:
                yield cstr(strs, s[0]), s[4], s[5], s[3]
            else:
                yield cstr(strs, s[0]), s[1], s[2], s[5]


def cstr(buf, off):
    end = buf.find(b"\0", off)
    return bytes(buf[off:end if end >= 0 else len(buf)]).decode("utf-8", "replace")


# --- BTF --------------------------------------------------------------------

BTF_MAGIC = {b"\x9f\xeb": "<", b"\xeb\x9f": ">"}

# Bytes after each kind's struct btf_type: (fixed, per vlen entry).
KIND_EXTRA = {
    1: (4, 0), 2: (0, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
    7: (0, 0), 8: (0, 0), 9: (0, 0), 10: (0, 0), 11: (0, 0), 12: (0, 0),
    13: (0, 8), 14: (4, 0), 15: (0, 12), 16: (0, 0), 17: (4, 0), 18: (0, 0),
    19: (0, 12),
}
KIND_BY_NAME = {"struct": 4, "union": 5, "typedef": 8, "func": 12}


class Btf:
    """The types (kind, name offset) and strings of one BTF blob."""

    def __init__(self, blob):
        self.bo = BTF_MAGIC.get(bytes(blob[:2]))
        if not self.bo:
            raise Fail("no BTF magic")
        hdr_len, type_off, type_len, str_off, str_len = \
            struct.unpack_from(self.bo + "5I", blob, 4)
        types = blob[hdr_len + type_off:hdr_len + type_off + type_len]
        self.strings = blob[hdr_len + str_off:hdr_len + str_off + str_len]
        if len(types) != type_len or len(self.strings) != str_len:
            raise Fail("truncated BTF")
        self.types = list(self.walk(types))

    def walk(self, types):
        off = 0
        while off < len(types):
            name_off, info = struct.unpack_from(self.bo + "II", types, off)
            kind, vlen = (info >> 24) & 0x1f, info & 0xffff
            if kind not in KIND_EXTRA:
                raise Fail("unknown BTF kind %d at type offset %d" % (kind, off))
            fixed, per = KIND_EXTRA[kind]
            yield kind, name_off
            off += 12 + fixed + per * vlen


def load_base(path):
    """BTF of what 'base' wrote: a raw blob or an ELF file's .BTF."""
    data = read(path)
    if bytes(data[:2]) in BTF_MAGIC:
        return Btf(data)
    elf = Elf(data)
    idx = elf.index(".BTF")
    if idx is None:
        raise Fail("%s: no .BTF section" % path)
    return Btf(elf.contents(idx))


def type_ids(base, mod, wanted):
    """{(kind, name): id}, the first id of each, over base then module BTF.

    Split BTF: module ids follow the base's (id 0 is void), and module
    string offsets follow the base's strings.
    """
    found = {}
    kinds = {k for k, _ in wanted}
    nbase = len(base.types) + 1
    for tid, (kind, name_off) in enumerate(base.types + mod.types, 1):
        if kind not in kinds:
            continue
        if tid < nbase or name_off < len(base.strings):
            name = cstr(base.strings, name_off)
        else:
            name = cstr(mod.strings, name_off - len(base.strings))
        if (kind, name) not in wanted:
            continue
        if (kind, name) in found:
            # A module function named as one in vmlinux, say: the first wins.
            print("WARN: multiple IDs found for '%s': %d, %d - using %d"
                  % (name, found[kind, name], tid, found[kind, name]), file=sys.stderr)
        else:
            found[kind, name] = tid
    return found


# --- resolve ----------------------------------------------------------------

def btf_id_symbols(elf, idx):
    """The __BTF_ID__ symbols over section idx, as (what, name, offset, size)."""
    addr = elf.sections[idx][3]
    for sym, value, size, shndx in elf.symbols():
        if shndx != idx or not sym.startswith("__BTF_ID__"):
            continue
        what, _, name = sym[len("__BTF_ID__"):].partition("__")
        if what in KIND_BY_NAME:
            # __BTF_ID__func__NAME__N: N only makes the symbol unique.
            name, sep, n = name.rpartition("__")
            if not sep or not n.isdigit():
                raise Fail("cannot parse symbol name %s" % sym)
        elif what not in SET_LAYOUT:
            raise Fail("unsupported prefix %s" % sym)
        yield what, name, value - addr, size


# A set's header and entry sizes: a count then ids, or a count and flags
# then (id, flags) pairs. The symbol's size covers the header too.
SET_LAYOUT = {"set": (4, 4), "set8": (8, 8)}


def set_entries(what, off, size):
    """(first entry's offset, entry size, count) of a set's symbol."""
    hdr, step = SET_LAYOUT[what]
    return off + hdr, step, size // step - 1


def patch_ids(ids, bo, syms, found):
    """Write each type's id, and each set's count, at its symbol."""
    warned = set()
    for what, name, off, size in syms:
        if what in SET_LAYOUT:
            val = set_entries(what, off, size)[2]
        else:
            val = found.get((KIND_BY_NAME[what], name), 0)
            if not val and name not in warned:
                warned.add(name)
                print("WARN: resolve_btfids: unresolved symbol %s" % name, file=sys.stderr)
        if off < 0 or off + 4 > len(ids):
            raise Fail("%s is outside .BTF_ids" % name)
        struct.pack_into(bo + "I", ids, off, val)


def sort_sets(ids, bo, syms):
    """Sort each set's ids; a set8's flags move with their id.

    The kernel looks ids up in a set by binary search.
    """
    for what, name, off, size in syms:
        if what not in SET_LAYOUT:
            continue
        start, step, cnt = set_entries(what, off, size)
        if start + cnt * step > len(ids):
            raise Fail("set %s runs past .BTF_ids" % name)
        entries = [bytes(ids[start + i * step:start + (i + 1) * step]) for i in range(cnt)]
        entries.sort(key=lambda e: struct.unpack_from(bo + "I", e)[0])
        ids[start:start + cnt * step] = b"".join(entries)


def resolve(base_path, ko):
    base = load_base(base_path)
    elf = Elf(read(ko))
    btf_idx, ids_idx = elf.index(".BTF"), elf.index(".BTF_ids")
    if btf_idx is None:
        raise Fail("%s has no .BTF section (run pahole -J first)" % ko)
    if ids_idx is None:
        return
    mod = Btf(elf.contents(btf_idx))
    syms = list(btf_id_symbols(elf, ids_idx))
    wanted = {(KIND_BY_NAME[w], n) for w, n, _, _ in syms if w in KIND_BY_NAME}
    found = type_ids(base, mod, wanted)
    ids = bytearray(elf.contents(ids_idx))
    patch_ids(ids, elf.bo, syms, found)
    sort_sets(ids, elf.bo, syms)
    with open(ko, "r+b") as f:
        f.seek(elf.sections[ids_idx][4])
        f.write(ids)


# --- base -------------------------------------------------------------------

def inflate(data, dec):
    # Decompressor objects stop at the stream's end: trailing bytes are fine.
    try:
        return dec.decompress(data)
    except (zlib.error, lzma.LZMAError, OSError, EOFError, ValueError):
        return None


def pipe(cmd, data):
    if not shutil.which(cmd[0]):
        return None
    # Exit status ignored as extract-vmlinux does: trailing garbage makes
    # it non-zero, and the ELF check below judges the output.
    return subprocess.run(cmd, input=data, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL).stdout


# scripts/extract-vmlinux's formats, in its order.
FORMATS = [
    (b"\x1f\x8b\x08", lambda d: inflate(d, zlib.decompressobj(16 + zlib.MAX_WBITS))),
    (b"\xfd7zXZ\x00", lambda d: inflate(d, lzma.LZMADecompressor(lzma.FORMAT_XZ))),
    (b"BZh", lambda d: inflate(d, bz2.BZ2Decompressor())),
    (b"\x5d\x00\x00", lambda d: inflate(d, lzma.LZMADecompressor(lzma.FORMAT_ALONE))),
    (b"\x02\x21\x4c\x18", lambda d: pipe(["lz4", "-dc"], d)),
    (b"\x28\xb5\x2f\xfd", lambda d: pipe(["zstd", "-dc"], d)),
]


def payloads(img):
    """The image itself, then what each candidate offset decompresses to."""
    yield img
    for magic, decompress in FORMATS:
        off = img.find(magic)
        while off >= 0:
            out = decompress(img[off:])
            if out:
                yield out
            off = img.find(magic, off + 1)


def find_vmlinux(img):
    for data in payloads(img):
        try:
            elf = Elf(data)
            idx = elf.index(".BTF")
            if idx is not None:
                return data, elf.contents(idx)
        except BAD_INPUT:
            pass
    raise Fail("no ELF image with a .BTF section in it")


def base(vmlinuz, release, out):
    data, btf = find_vmlinux(read(vmlinuz))
    # The running kernel's is no use: the BTF must be the target's.
    if b"Linux version " + release.encode() + b" " not in data:
        at = data.find(b"Linux version ")
        other = "it is %s's" % cstr(data, at + 14).split(" ")[0] if at >= 0 else "no banner"
        raise Fail("%s is not %s's image (%s)" % (vmlinuz, release, other))
    Btf(btf)  # parses, or fails here rather than in pahole
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(btf)
    os.replace(tmp, out)


def read(path):
    with open(path, "rb") as f:
        return f.read()


USAGE = """usage: btf.py base VMLINUZ KERNELRELEASE OUT
       btf.py resolve BASE MODULE.ko"""


def main(argv):
    try:
        if len(argv) == 5 and argv[1] == "base":
            base(*argv[2:])
        elif len(argv) == 4 and argv[1] == "resolve":
            resolve(*argv[2:])
        else:
            print(USAGE, file=sys.stderr)
            return 1
    except BAD_INPUT + (OSError,) as e:
        print("btf.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
