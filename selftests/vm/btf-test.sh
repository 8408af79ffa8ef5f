#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kmod/btf.py against the kernel's own tools. Debian's 6.12 headers have
# what its 6.1 headers lack (vmlinux, resolve_btfids), so kbuild gives a
# module built against them BTF and a resolved .BTF_ids: btf.py must give
# the same from 6.12's vmlinuz alone.
#
# Two modules, built in throwaway trees: fasttrack.ko, and a probe with
# every kind of BTF id, sets to sort, set8 flags and an unresolved name
# (fasttrack's one kfunc leaves nothing to sort).
#
# usage: btf-test.sh   (fetches the 6.12 kernel first if need be)
set -eu -o pipefail
. "$(dirname "$0")/common.sh"

bash "$VM_DIR/kernels.sh" 6.12
load_kernel 6.12
export FT_TAG=btf
for tool in pahole objcopy readelf make gcc; do
	command -v "$tool" >/dev/null || die "no $tool on the host"
done
[ -f "$KDIR/vmlinux" ] || die "$KDIR has no vmlinux to compare with"

BTF_PY=$REPO/kmod/btf.py
work=$(mktemp -d "${TMPDIR:-/tmp}/ft-btf.XXXXXX")
trap 'rm -rf "$work"' EXIT
base=$work/base.btf
n=0
failed=0

# check DESC FUNC ARG...: one ok/not ok line for FUNC's status. FUNC says
# on stdout, as "# " lines, what differed.
check() {
	local desc=$1 out rc=0
	shift
	out=$("$@" 2>&1) || rc=$?
	n=$((n + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
	fi
	[ -z "$out" ] || echo "# ${out//$'\n'/$'\n'# }"
}

# section FILE NAME: the section's file offset and size, in decimal.
section() {
	local off size
	read -r off size < <(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' |
		awk -v s="$2" '$1 == s { print $4, $5 }') || return 1
	echo "$((16#$off)) $((16#$size))"
}

# dump FILE NAME OUT: a section's bytes (objcopy -O binary skips the
# sections that are not loaded, .BTF among them).
dump() {
	objcopy --dump-section "$2=$3" "$1" "$work/dump.junk"
}

# same_section NAME WANT GOT: WANT's and GOT's sections NAME are the same.
same_section() {
	dump "$2" "$1" "$work/want" && dump "$3" "$1" "$work/got" || return 1
	cmp -s "$work/want" "$work/got" && return 0
	echo "$1 differs: want (${2##*/}), then got (${3##*/}):"
	od -An -tx4 -v "$work/want" | head -20
	echo "--"
	od -An -tx4 -v "$work/got" | head -20
	cmp "$work/want" "$work/got" || true
	return 1
}

# unresolve KO OBJ: put back into KO's .BTF_ids what resolve_btfids found
# there: OBJ's (the module's object before the final link). Zeroes would
# not do: the set8 flags are the compiler's, not resolve_btfids'.
unresolve() {
	local off size
	read -r off size <<<"$(section "$1" .BTF_ids)"
	dump "$2" .BTF_ids "$work/ids.in" || return 1
	[ "$(stat -c %s "$work/ids.in")" = "$size" ] || {
		echo "${2##*/}'s .BTF_ids is not the size of ${1##*/}'s"
		return 1
	}
	dd if="$work/ids.in" of="$1" bs=4096 oflag=seek_bytes seek="$off" \
		conv=notrunc status=none
}

# build DIR: make the module in DIR as kbuild would for 6.12, with
# kbuild's pahole and resolve_btfids. A build timestamp keeps -j off
# pahole (scripts/Makefile.btf): its output is then reproducible.
build() {
	# Not a -s of a make that runs this one: the log must show pahole.
	MAKEFLAGS='' make -C "$KDIR" M="$1" KBUILD_BUILD_TIMESTAMP=2025-01-01 V=1 modules \
		>"$1.log" 2>&1 || { cat "$1.log" >&2; die "cannot build $1"; }
}

# The probe: one id of each kind, from the base and from the module; a set
# and a set8 out of order; a name twice in BTF; a name BTF lacks.
probe_module() {
	mkdir -p "$1"
	echo 'obj-m := btfids_probe.o' >"$1/Kbuild"
	cat >"$1/btfids_probe.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/module.h>
#include <linux/skbuff.h>

struct probe_local { int a; };
union probe_u { int a; long b; };
typedef struct probe_local probe_t;

int probe_zz(probe_t *p);
int probe_aa(union probe_u *u);
int proc_pid_cmdline_read(int x);
noinline int probe_zz(probe_t *p) { return p->a; }
noinline int probe_aa(union probe_u *u) { return u->a; }
/* Named as a static function of vmlinux: the first id wins, vmlinux's. */
noinline int proc_pid_cmdline_read(int x) { return x + 1; }

BTF_ID_LIST(probe_list)
BTF_ID(struct, sk_buff)
BTF_ID(struct, probe_local)
BTF_ID(union, probe_u)
BTF_ID(typedef, probe_t)
BTF_ID(typedef, u32)
BTF_ID(func, probe_zz)
BTF_ID(func, no_such_function)
BTF_ID_UNUSED
BTF_ID(func, consume_skb)
BTF_ID(func, proc_pid_cmdline_read)

BTF_SET_START(probe_set)
BTF_ID(func, probe_zz)
BTF_ID(func, skb_push)
BTF_ID(func, probe_aa)
BTF_ID(func, skb_pull)
BTF_ID(func, consume_skb)
BTF_SET_END(probe_set)

BTF_KFUNCS_START(probe_kfuncs)
BTF_ID_FLAGS(func, probe_zz, KF_TRUSTED_ARGS)
BTF_ID_FLAGS(func, skb_pull, KF_SLEEPABLE)
BTF_ID_FLAGS(func, probe_aa, KF_ACQUIRE | KF_RET_NULL)
BTF_ID_FLAGS(func, consume_skb, KF_RELEASE)
BTF_KFUNCS_END(probe_kfuncs)

MODULE_LICENSE("GPL");
EOF
}

# --- base -------------------------------------------------------------------

base_is_vmlinux() {
	python3 "$BTF_PY" base "$VMLINUZ" "$KVER" "$base" || return 1
	dump "$KDIR/vmlinux" .BTF "$work/vmlinux.btf" || return 1
	cmp "$work/vmlinux.btf" "$base" && return 0
	ls -l "$work/vmlinux.btf" "$base"
	return 1
}

# base_refuses RELEASE: VMLINUZ is not RELEASE's: exit 1, and no OUT.
base_refuses() {
	local rc=0
	python3 "$BTF_PY" base "$VMLINUZ" "$1" "$work/wrong.btf" 2>"$work/err" || rc=$?
	cat "$work/err"
	[ "$rc" = 1 ] || { echo "exit status $rc, not 1"; return 1; }
	grep -q "^btf.py: .* is not $1's image" "$work/err" || return 1
	[ ! -e "$work/wrong.btf" ] || { echo "wrote wrong.btf all the same"; return 1; }
}

check "base: 6.12's vmlinuz gives the .BTF of the headers' vmlinux" base_is_vmlinux
for rel in "${KVER%-*}" 6.1.0-99-amd64; do
	check "base: refuses 6.12's vmlinuz as $rel's" base_refuses "$rel"
done

# --- resolve ----------------------------------------------------------------

# resolved_as_kbuild KO OBJ BASE: btf.py resolve on KO unresolved gives
# KO back, byte for byte: the same .BTF_ids, nothing else touched.
resolved_as_kbuild() {
	local copy=$work/c.ko
	cp "$1" "$copy"
	unresolve "$copy" "$2" || return 1
	if cmp -s "$1" "$copy"; then
		echo "unresolving changed nothing: this check would prove nothing"
		return 1
	fi
	python3 "$BTF_PY" resolve "$3" "$copy" || return 1
	same_section .BTF_ids "$1" "$copy" || return 1
	cmp "$1" "$copy"
}

# pahole_as_kbuild KO OBJ LOG: kbuild's pahole (LOG's command line) with
# btf.py's base, then btf.py resolve, give KO's .BTF and .BTF_ids.
pahole_as_kbuild() {
	local copy=$work/d.ko flags
	flags=$(sed -n 's/.* pahole -J \(.*\) --btf_base vmlinux .*/\1/p' "$3" | head -n 1)
	grep -q ' pahole -J ' "$3" || { echo "no pahole command in ${3##*/}"; return 1; }
	cp "$1" "$copy"
	objcopy --remove-section=.BTF "$copy"
	unresolve "$copy" "$2" || return 1
	if python3 "$BTF_PY" resolve "$base" "$copy" 2>"$work/err"; then
		echo "resolve without .BTF did not fail"
		return 1
	fi
	grep -q '^btf.py: .*no .BTF section' "$work/err" || { cat "$work/err"; return 1; }
	echo "pahole -J $flags"
	# shellcheck disable=SC2086 # kbuild's flags, split as make does
	LLVM_OBJCOPY=objcopy pahole -J $flags --btf_base "$base" "$copy" || return 1
	python3 "$BTF_PY" resolve "$base" "$copy" || return 1
	same_section .BTF "$1" "$copy" && same_section .BTF_ids "$1" "$copy"
}

# set8_count KO: the count of KO's first set8 (the target is little-endian).
set8_count() {
	local off val
	read -r off _ <<<"$(section "$1" .BTF_ids)"
	val=$(readelf -sW "$1" | awk '$8 ~ /^__BTF_ID__set8__/ { print $2; exit }')
	[ -n "$val" ] || return 1
	od -An -tu4 -j "$((off + 16#$val))" -N4 "$1" | tr -d ' '
}

# set8_counted KO OBJ: btf.py resolve gives KO's first set8 a count.
set8_counted() {
	local copy=$work/s.ko cnt
	cp "$1" "$copy"
	unresolve "$copy" "$2" || return 1
	python3 "$BTF_PY" resolve "$base" "$copy" || return 1
	cnt=$(set8_count "$copy") || { echo "no set8 in ${1##*/}"; return 1; }
	echo "cnt $cnt"
	[ "$cnt" -ge 1 ]
}

# warns_as_kbuild KO OBJ LOG: btf.py resolve warns as resolve_btfids did
# in LOG, of the probe's unresolved name and the one BTF has twice.
warns_as_kbuild() {
	local copy=$work/w.ko
	cp "$1" "$copy"
	unresolve "$copy" "$2" || return 1
	python3 "$BTF_PY" resolve "$base" "$copy" 2>"$work/err" || return 1
	grep '^WARN' "$3" | sort >"$work/want"
	sort "$work/err" >"$work/got"
	[ "$(wc -l <"$work/want")" = 2 ] || { echo "kbuild did not warn twice:"; cat "$work/want"; return 1; }
	diff "$work/want" "$work/got"
}

# The sources only: an in-tree build's products must not leak in.
tar -C "$REPO" -c --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='.*.cmd' --exclude=modules.order \
	--exclude=Module.symvers Kbuild dkms.conf kmod uapi |
	(mkdir -p "$work/ft" && tar -C "$work/ft" -x)
probe_module "$work/probe"
log "building fasttrack.ko and the probe for $KVER"
build "$work/ft"
build "$work/probe"

for mod in ft/kmod/fasttrack probe/btfids_probe; do
	ko=$work/$mod.ko obj=$work/$mod.o log=$work/${mod%%/*}.log
	name=${mod##*/}.ko
	for b in "$base" "$KDIR/vmlinux"; do
		check "resolve: $name as kbuild's, base ${b##*/}" resolved_as_kbuild "$ko" "$obj" "$b"
	done
	check "pahole + resolve: $name as kbuild's" pahole_as_kbuild "$ko" "$obj" "$log"
done
check "resolve: fasttrack.ko's kfunc set8 counts its kfunc" \
	set8_counted "$work/ft/kmod/fasttrack.ko" "$work/ft/kmod/fasttrack.o"
check "resolve: warns of the probe's names as resolve_btfids" \
	warns_as_kbuild "$work/probe/btfids_probe.ko" "$work/probe/btfids_probe.o" "$work/probe.log"

echo "# $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
