# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC3043,SC2034 # dash has local; R, M, UPPER are for the tests
# The Debian root with DKMS in it, for the DKMS tests in the guest
# (dkms_install.sh, deb_install.sh; dkms-vm.sh boots them). Source lib.sh,
# then this, then call dkms_root_setup.
#
# The root is the host's own (or the sid chroot for 7.x), shared
# read-only over 9p, with a tmpfs overlay on top: everything the tests do
# in it (dkms, make, dpkg) lands in the tmpfs, UPPER, and never reaches
# the host; what is in UPPER afterwards is exactly what they left behind.
# /lib/modules/<kver> is the guest's own, bind-mounted, so what DKMS
# installs there is what modprobe and the kernel's request_module see.
# /selftests/dkms.env (written by dkms-vm.sh) says where in that root the
# kernel's headers are (KDIR).

# dkms_root_setup: mount the root at R (the overlay at /mnt/root; the
# lower layer at LOWER, the tmpfs' upper layer at UPPER), link M/build to
# the headers, and remove the harness's own fasttrack.ko so that only
# DKMS's may load. Sets R, M, LOWER, UPPER, KVER; defines in_root.
dkms_root_setup() {
	local m d cc
	KVER=$(uname -r)
	M=/lib/modules/$KVER
	R=/mnt/root LOWER=/mnt/lower UPPER=/mnt/rw/upper
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		must modprobe "$m"
	done
	must busywait 10000 sh -c 'grep -qx ftroot /sys/bus/virtio/drivers/9pnet_virtio/virtio*/mount_tag'
	mkdir -p "$LOWER" /mnt/rw "$R"
	# cache=loose: the guest keeps what it read. A DKMS build reads the
	# same headers for every file; uncached, each read is a 9p round trip
	# under TCG, and dkms_install took twice as long (745 s against 380).
	# The root is read-only here, and what the tests read of it (headers,
	# tools, packages) does not change while they run.
	must mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose ftroot "$LOWER"
	defer umount "$LOWER"
	must mount -t tmpfs tmpfs /mnt/rw
	defer umount /mnt/rw
	mkdir -p "$UPPER" /mnt/rw/work
	must mount -t overlay overlay -o "lowerdir=$LOWER,upperdir=$UPPER,workdir=/mnt/rw/work" "$R"
	defer umount -l "$R"
	# Not /tmp: the headers may live under the host's /tmp (a clone there),
	# and the overlay keeps the root's /tmp writable anyway.
	for d in proc sys dev; do
		must mount -o bind "/$d" "$R/$d"
		defer umount -l "$R/$d"
	done
	mkdir -p "$R$M"
	must mount -o bind "$M" "$R$M"
	defer umount -l "$R$M"
	# bash's <(...), which dkms uses (remove --all reads its own status that
	# way, and quietly does nothing without it), needs /dev/fd; udev makes it
	# on a real system, the guest's bare devtmpfs lacks it.
	[ -e /dev/fd ] || must ln -s /proc/self/fd /dev/fd
	ln -sfn "$KDIR" "$M/build"
	# 5.10's headers ask for gcc-10, which the bookworm root lacks (a bullseye
	# machine has it); gcc-12 stands in for it.
	cc=$(sed -n 's/^CC = .*(CROSS_COMPILE)\(gcc-[0-9]*\).*/\1/p' "$R$KDIR/.kernelvariables" 2>/dev/null)
	if [ -n "$cc" ] && ! in_root sh -c "command -v $cc" >/dev/null; then
		log_info "$cc is not in the root: gcc-12 stands in for it"
		must ln -s /usr/bin/gcc-12 "$R/usr/local/bin/$cc"
	fi

	# The harness put its own build under updates/: only DKMS's may load.
	! ft_module_loaded || must rmmod fasttrack
	must rm -f "$M/updates/fasttrack.ko"
	must depmod -a
}

in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root "$@"; }
