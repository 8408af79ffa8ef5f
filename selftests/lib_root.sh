# SPDX-License-Identifier: GPL-2.0
# A Debian root for the guest tests that need more than the initramfs
# (python3 for ynl/ynl_cli; lib_dkmsroot.sh does the same for the DKMS
# tests, and more): the host shares
# one read-only over virtio-9p, mount tag "ftroot" (boot.sh --virtfs; the
# host's own root, or the sid chroot for 7.x), and root_mount puts a tmpfs
# overlay on it at $R, with /proc, /sys and /dev bound in. Everything is
# undone when the test exits (defer). Source lib.sh first.
# shellcheck shell=sh disable=SC3043 # dash has "local"

R=/mnt/root

# root_mount: mount the shared root at $R, writable through the overlay.
root_mount() {
	local m d
	for m in virtio_pci 9pnet_virtio 9p overlay; do
		must modprobe "$m"
	done
	# boot.sh --virtfs DIR shares it; dkms-vm.sh boots that way.
	must busywait 10000 sh -c 'grep -qx ftroot /sys/bus/virtio/drivers/9pnet_virtio/virtio*/mount_tag'
	mkdir -p /mnt/lower /mnt/rw "$R"
	must mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 ftroot /mnt/lower
	defer umount /mnt/lower
	must mount -t tmpfs tmpfs /mnt/rw
	defer umount /mnt/rw
	mkdir -p /mnt/rw/upper /mnt/rw/work
	must mount -t overlay overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work "$R"
	defer umount -l "$R"
	# Not /tmp: the headers may live under the host's /tmp (a clone there),
	# and the overlay keeps the root's /tmp writable anyway.
	for d in proc sys dev; do
		must mount -o bind "/$d" "$R/$d"
		defer umount -l "$R/$d"
	done
}

# in_root CMD...: run CMD chrooted into $R, with a clean environment.
in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root LC_ALL=C.UTF-8 "$@"; }
