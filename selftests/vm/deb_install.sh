#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck disable=SC3043,SC2154 # dash has local; lib_fastpath sets FPD_*
# The Debian packages, end to end, in the guest (dkms-vm.sh builds them
# with make deb and boots this): the real dpkg and dkms of a Debian root
# (lib_dkmsroot.sh: the host's root, read-only, under a tmpfs overlay)
# install the previous version of fasttrack-dkms and fasttrack-tools, the
# operator edits /etc/fasttrack.conf, the current version is installed
# over it; then:
#   - the edit survived the upgrade, and DKMS has the new version built
#     and installed for the running kernel, and no trace of the old one;
#   - fasttrack.service's commands, read from the installed unit file,
#     load the module and apply the configuration (the guest has no
#     systemd: its ExecStart= lines run in order, as systemd would run
#     them, then its ExecReload= lines), and "ftctl show" has the devices
#     of the file enabled;
#   - a TCP transfer through those devices goes by the fast path;
#   - where the DKMS build has the XDP tier, its program attached makes
#     rmmod fail, and the purge's prerm detaches it;
#   - apt-get purge of both packages leaves nothing behind: no file of the
#     packages, no DKMS tree, no module under /lib/modules/*/updates, no
#     conffile, nothing at all in the overlay's upper layer but the
#     bookkeeping of dpkg and apt.
# /debs/old and /debs/new hold the packages; /selftests/dkms.env names
# their versions (DEB_OLD, DEB_NEW) and the headers (KDIR).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_fastpath.sh"
. "$(dirname "$0")/lib_dkmsroot.sh"
# shellcheck source=/dev/null # written by dkms-vm.sh
. "$(dirname "$0")/dkms.env"

require_cmd modprobe rmmod modinfo depmod chroot mount ftctl find sort awk cmp
fp_init
dkms_root_setup
[ -n "${DEB_OLD:-}" ] && [ -n "${DEB_NEW:-}" ] || ft_skip "no packages in dkms.env (dkms-vm.sh builds them)"
export DEBIAN_FRONTEND=noninteractive

# No systemd in the guest, nor the host's /run in the root: the packages'
# scripts see a system that is not running systemd, as in a chroot.
must mount -t tmpfs tmpfs "$R/run"
defer umount -l "$R/run"
# man-db's trigger rebuilds its whole index, minutes under TCG.
rm -f "$R/var/lib/man-db/auto-update"

must mkdir -p "$R/tmp/debs"
must cp -r /debs/old /debs/new "$R/tmp/debs/"
# What the root holds now; what the packages leave is measured against it.
# (awk, not comm: the guest's busybox has no comm.)
upper_list() { (cd "$UPPER" && find . | sort) >"$1" && test -s "$1"; }
must upper_list /tmp/upper.before

# pkg_step DESC CMD...: dpkg (or apt-get) in the root, which must succeed;
# its output goes to the log either way.
pkg_step() {
	local desc=$1 out rc
	shift
	out=$(in_root DEBIAN_FRONTEND=noninteractive "$@" </dev/null 2>&1)
	rc=$?
	printf '%s\n' "$out" | sed "s|^|$1: |"
	check_eq "$desc" 0 "$rc"
	if [ "$rc" != 0 ]; then
		cat "$R"/var/lib/dkms/fasttrack/*/build/make.log 2>/dev/null
		ft_exit
	fi
}

# took WHAT: say how long the test has run, at the end of a stage.
T0=$(now_ms)
took() { log_info "$1: $((($(now_ms) - T0) / 1000)) s into the test"; }

# dkms_state VERSION: the dkms status of fasttrack VERSION for this kernel.
dkms_state() {
	in_root dkms status -m fasttrack -v "$1" -k "$KVER" 2>/dev/null | sed -n 's/.*: //p'
}

# ------------------------------------------------ install the old version --
# One DKMS build costs minutes under TCG, so the old version's is skipped:
# it is installed with DKMS's autoinstall off (/etc/dkms/no-autoinstall,
# which dkms's common.postinst honours, as a machine without headers
# would) and then registered by hand ("dkms add", which builds nothing).
# The upgrade then runs the old prerm (its "dkms remove") and the new
# postinst, which builds and installs the new version: the one build.
must touch "$R/etc/dkms/no-autoinstall"
# debs VERSION: the two packages of VERSION, as paths in the root.
debs() {
	local d
	d=$(cd "$R/tmp/debs" && ls -d ./*/"fasttrack-dkms_$1_all.deb" ./*/"fasttrack-tools_$1_"*.deb)
	echo "$d" | sed 's|^\./|/tmp/debs/|'
}
# shellcheck disable=SC2046 # two paths
pkg_step "dpkg -i the $DEB_OLD packages" dpkg -i $(debs "$DEB_OLD")
must rm "$R/etc/dkms/no-autoinstall"
must in_root dkms add -m fasttrack -v "$DEB_OLD"
check "dkms: fasttrack $DEB_OLD registered" sh -c "chroot $R dkms status -m fasttrack -v '$DEB_OLD' | grep -q ': added'"
check "/etc/fasttrack.conf is a conffile of fasttrack-tools" \
	sh -c "chroot $R dpkg-query -W -f='\${Conffiles}\n' fasttrack-tools | grep -q '^ /etc/fasttrack.conf '"
check_eq "the default configuration enables nothing" "" \
	"$(grep -v '^[[:space:]]*#' "$R/etc/fasttrack.conf" | grep -v '^[[:space:]]*$')"

took "the old version installed"

# The operator's configuration: the router's two VLAN devices.
{
	echo "# added by the operator"
	echo "enable vlan22"
	echo "enable vlan2222"
} >>"$R/etc/fasttrack.conf"
must cp "$R/etc/fasttrack.conf" /tmp/fasttrack.conf.edited

# ----------------------------------------------- upgrade to the current one --
# shellcheck disable=SC2046 # two paths
pkg_step "dpkg -i the $DEB_NEW packages over $DEB_OLD" dpkg -i $(debs "$DEB_NEW")
check "the upgrade kept the edited /etc/fasttrack.conf" cmp /tmp/fasttrack.conf.edited "$R/etc/fasttrack.conf"
check_eq "dpkg: fasttrack-dkms and fasttrack-tools at $DEB_NEW" "$DEB_NEW $DEB_NEW" \
	"$(in_root dpkg-query -W -f='${Version} ' fasttrack-dkms fasttrack-tools | sed 's/ $//')"
check_eq "dkms: fasttrack $DEB_NEW installed for $KVER" installed "$(dkms_state "$DEB_NEW")"
check_eq "dkms: nothing left of $DEB_OLD" "" \
	"$(in_root dkms status -m fasttrack -v "$DEB_OLD"; ls -d "$R/var/lib/dkms/fasttrack/$DEB_OLD" "$R/usr/src/fasttrack-$DEB_OLD" 2>/dev/null)"
ko=$(modinfo -n fasttrack 2>/dev/null)
check "modinfo finds DKMS's module under $M/updates/dkms" \
	sh -c "case '$ko' in $M/updates/dkms/fasttrack.ko*) ;; *) exit 1 ;; esac"
check_eq "the module's version is $DEB_NEW" "$DEB_NEW" "$(modinfo -F version fasttrack 2>/dev/null)"
took "the upgrade (and its DKMS build)"

# --------------------------------------------------- the service's commands --
unit=$R/lib/systemd/system/fasttrack.service
check "fasttrack-tools installed fasttrack.service" test -f "$unit"
# unit_lines KEY: the values of KEY= in the unit's [Service] section.
unit_lines() {
	sed -n "/^\[Service\]/,/^\[/s/^$1=//p" "$unit"
}
cond=$(sed -n 's/^ConditionPathExists=//p' "$unit")
check_eq "the unit's condition is the configuration file" /etc/fasttrack.conf "$cond"

fp_require
setup_router_on_a_stick
nft_forward_ruleset "$NS_ROUTER"
check "the module is not loaded before the service starts" sh -c '! test -d /sys/module/fasttrack'
defer ft_module_unload

# run_unit_lines KEY: run the unit's KEY= command lines in order, in the
# root and the router's namespace (where this test's devices are), each
# a check. A line with systemd's "-" prefix may fail.
run_unit_lines() {
	local key=$1 line cmd out rc
	unit_lines "$key" >/tmp/unit.lines
	check "fasttrack.service has $key= lines" test -s /tmp/unit.lines
	while IFS= read -r line; do
		cmd=${line#-}
		# shellcheck disable=SC2086 # a command line, split as systemd would
		out=$(ip netns exec "$NS_ROUTER" chroot "$R" /usr/bin/env -i \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin $cmd 2>&1 </dev/null)
		rc=$?
		[ "$cmd" = "$line" ] || rc=0
		[ -z "$out" ] || printf '%s\n' "$out" | sed "s|^|$key: |"
		check_eq "$key=$line" 0 "$rc"
	done </tmp/unit.lines
}

# The service's own lines, as systemd would run them.
run_unit_lines ExecStart
check_eq "the loaded module is $DEB_NEW" "$DEB_NEW" "$(cat /sys/module/fasttrack/version 2>/dev/null)"
check_eq "ftctl show: the service enabled vlan22" "ipv4=true ipv6=true" "$(fp_state vlan22)"
check_eq "ftctl show: the service enabled vlan2222" "ipv4=true ipv6=true" "$(fp_state vlan2222)"
run_unit_lines ExecReload
check_eq "ftctl show: vlan22 still enabled after the reload" "ipv4=true ipv6=true" "$(fp_state vlan22)"
in_root /usr/sbin/ftctl -V 2>&1 | sed 's/^/ftctl -V: /'

# ------------------------------------------------ an offloaded transfer --
fp_rand size 4194304 8388608
file=$(fp_mkfile tcp4 "$size")
fp_begin
fp_tcp_transfer "IPv4 TCP upload" 4 "$file"
fp_end
fp_check_offload "IPv4 TCP upload" "$size" "$FPD_C2S" "$(fp_cdelta 4)"

took "the service and the transfer"

# --------------------------------------------- the XDP tier holds the module --
# Where the DKMS build has the tier (the module's BTF has its kfunc): the
# program, attached in the initial namespace, makes rmmod fail; the
# packages' prerm detaches it ("fasttrack: xdp off ftv0" in the log).
xdp_dev=
if grep -q bpf_fasttrack_xdp /sys/kernel/btf/fasttrack 2>/dev/null; then
	must ip link add ftv0 type veth peer name ftv1
	defer ip link del ftv0
	must ip link set ftv0 up
	must ip link set ftv1 up
	check "ftctl xdp on ftv0, in the initial namespace" in_root ftctl xdp on ftv0
	check_fail "rmmod fasttrack fails while the XDP program is attached" "" rmmod fasttrack
	xdp_dev=ftv0
else
	log_info "the DKMS-built module has no XDP tier on $KVER: the prerm's detach is not exercised"
fi

# ------------------------------------------------------------------ purge --
in_root dpkg -L fasttrack-dkms fasttrack-tools 2>/dev/null | sort -u >/tmp/pkg.files
must grep -qx /usr/sbin/ftctl /tmp/pkg.files
[ -n "$xdp_dev" ] || check "rmmod fasttrack" rmmod fasttrack
pkg_step "apt-get purge fasttrack-tools fasttrack-dkms" apt-get purge -y -q fasttrack-tools fasttrack-dkms
if [ -n "$xdp_dev" ]; then
	check_output "the prerm detached the XDP program" "" sh -c \
		"ip link show dev $xdp_dev | grep -o 'xdp[a-z]*' | head -n1"
	check "rmmod fasttrack, after the purge" rmmod fasttrack
fi
check_eq "dpkg knows neither package any more" "" \
	"$(in_root dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' fasttrack-dkms fasttrack-tools 2>/dev/null | grep -v '^un')"
left=
while IFS= read -r f; do
	# Directories the packages share with others stay (the upper layer
	# below tells about the ones they made).
	[ -d "$R$f" ] && continue
	if [ -e "$R$f" ] || [ -L "$R$f" ]; then left="$left $f"; fi
done </tmp/pkg.files
check_eq "no file of the packages is left" "" "$left"
check_eq "no DKMS tree or source left" "" \
	"$(ls -d "$R"/var/lib/dkms/fasttrack "$R"/usr/src/fasttrack-* 2>/dev/null)"
check_eq "no fasttrack module under /lib/modules/*/updates" "" \
	"$(find "$R"/lib/modules/*/updates "$M/updates" -name 'fasttrack*' 2>/dev/null)"
check_eq "the conffiles are gone" "" \
	"$(ls -d "$R/etc/fasttrack.conf" "$R/etc/network/if-pre-up.d/fasttrack" 2>/dev/null)"
check_fail "modprobe fasttrack fails after the purge" "not found" modprobe fasttrack

# Everything else the root gained since before the install: a file, link
# or whiteout (a deleted file of the root) in the upper layer that is not
# dpkg's, apt's or the logs' own bookkeeping; directories that the root
# has anyway do not count.
rm -rf "$R/tmp/debs"
must upper_list /tmp/upper.after
leftovers=$(awk 'NR == FNR { seen[$0] = 1; next } !seen[$0]' /tmp/upper.before /tmp/upper.after |
	while IFS= read -r p; do
		p=${p#.}
		case $p in
		/var/lib/dpkg/* | /var/log/* | /var/cache/debconf/* | /var/cache/apt/* | /var/lib/apt/*) continue ;;
		# DKMS's own module signing key, made by the first build on a
		# machine and shared by every DKMS module (and enrolled as a MOK
		# for Secure Boot): dkms's, not ours, and it must stay.
		/var/lib/dkms/mok.key | /var/lib/dkms/mok.pub) continue ;;
		esac
		[ -d "$UPPER$p" ] && [ -d "$LOWER$p" ] && continue
		echo "$p"
	done)
check_eq "nothing else left in the root (the overlay's upper layer)" "" "$leftovers"

took "the purge and its checks"
check_dmesg_clean "no kernel warning through install, upgrade, use and purge"
fp_exit
