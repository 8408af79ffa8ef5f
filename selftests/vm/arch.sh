# SPDX-License-Identifier: GPL-2.0
# What differs per Debian architecture of a guest: the cross toolchain, the
# qemu machine, the console and the guest's KTAP channel. Source it.
# shellcheck shell=bash

# arch_info DEB_ARCH: set for that architecture
#   TRIPLET     its multiarch triplet (library directories, cross tools)
#   KARCH       the kernel's ARCH=
#   CROSS       CROSS_COMPILE= (empty: the host's own compiler)
#   QEMU        the qemu binary and its machine and CPU options
#   CONSOLE     the guest's console device
#   KTAP_TTY    the guest's second channel (KTAP, bench output)
#   SLOWDOWN    FT_SLOWDOWN for its guests (selftests/lib.sh): emulating
#               another instruction set under TCG is several times slower
# arm's "virt" machine has one UART: the second channel is a virtio
# console (/dev/hvc0) on virtio-mmio, modules on Debian's arm kernels
# (virtio_console is built in from 6.12 on arm64); guest-init.sh loads them.
# shellcheck disable=SC2034 # used by the scripts that source this one
arch_info() {
	case $1 in
	amd64)
		TRIPLET=x86_64-linux-gnu KARCH=x86 CROSS=
		QEMU=(qemu-system-x86_64)
		CONSOLE=ttyS0 KTAP_TTY=ttyS1 SLOWDOWN=1
		;;
	arm64)
		TRIPLET=aarch64-linux-gnu KARCH=arm64 CROSS=aarch64-linux-gnu-
		QEMU=(qemu-system-aarch64 -M virt -cpu cortex-a72)
		CONSOLE=ttyAMA0 KTAP_TTY=hvc0 SLOWDOWN=3
		;;
	armhf)
		TRIPLET=arm-linux-gnueabihf KARCH=arm CROSS=arm-linux-gnueabihf-
		QEMU=(qemu-system-arm -M virt -cpu cortex-a15)
		CONSOLE=ttyAMA0 KTAP_TTY=hvc0 SLOWDOWN=3
		;;
	*) die "unknown architecture '$1'" ;;
	esac
}

# is_foreign DEB_ARCH: true for an architecture other than the host's.
is_foreign() { [ "${1:-amd64}" != amd64 ]; }
