# SPDX-License-Identifier: GPL-2.0
# fasttrack: top-level entry points. See README.md.

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(CURDIR)/dkms.conf)
KERNELRELEASE_HOST := $(shell uname -r)
KDIR ?= /lib/modules/$(KERNELRELEASE_HOST)/build
PREFIX ?= /usr/local
DESTDIR ?=

# Kernels the VM test suite boots; see selftests/vm/kernels.sh.
KERNELS ?= 5.10 6.1 6.12 7.2
# Of those, the kernels make check also runs the DKMS install flow on, in
# a guest (selftests/vm/dkms-vm.sh; make dkms-test builds with DKMS for
# every kernel on the host). They must hold YNL_KERNELS and DEB_KERNELS.
# Each DKMS build takes about ten minutes under TCG, so CI's make check
# (the matrix) boots one of them a commit, in turn by the first-parent
# count (selftests/vm/rotate.sh), as it does the platforms: two merges in
# a row run both. make check-full and make dkms-vm run them all.
DKMS_KERNELS ?= 5.10 6.12
# Of those, the DKMS guests that also run the YNL CLI test
# (selftests/ynl/ynl_cli.sh); see selftests/vm/dkms-vm.sh.
YNL_KERNELS ?= 5.10 6.12
# Of those, the one whose DKMS boot runs the Debian package test
# (selftests/vm/deb_install.sh) in place of the make dkms-install flow:
# one kernel, as each DKMS build takes minutes under TCG and CI's time is
# short, and one the host root builds for, since the guest uses the host's
# dpkg and dkms. DEB_KERNELS= runs the make dkms-install flow everywhere.
DEB_KERNELS ?= 6.12
T ?=
# make check-arm: the foreign-architecture guests (selftests/vm/README.md)
# and the smoke set they run by default (check.sh --matrix; T= picks
# others). SMP=0 unless given: a 2-vCPU boot doubles the emulation's time.
ARM_KERNELS ?= arm64-6.1 armhf-6.1
# make bench and make demo boot one kernel: 6.12 unless KERNELS is given.
BENCH_KERNELS := $(if $(filter command line environment,$(origin KERNELS)),$(KERNELS),6.12)

.PHONY: all module module-debug ftctl check vm-shell style sparse install \
	install-module install-ftctl uninstall dkms-install dkms-remove clean help \
	fuzz fuzz-short bench bench-cache demo deb

all: module ftctl

help:
	@echo "make                 build fasttrack.ko (KDIR=...) and ftctl"
	@echo "make check           run the selftests in qemu guests (KERNELS=\"$(KERNELS)\" T=name):"
	@echo "                     without KERNELS or T, the core tests on every kernel, each other on one"
	@echo "make check-full      every selftest on every kernel"
	@echo "make check-host      what make check runs on the host alone (ftctl tests, fuzzer, spec, harness, dkms-test)"
	@echo "make check-netfilter the kernel's netfilter selftests with and without fasttrack (KNF_PLAN=1: the rotation)"
	@echo "make check-arm       the smoke set on arm64 and armhf guests (ARM_KERNELS=\"$(ARM_KERNELS)\" T=name)"
	@echo "make vm-shell        boot a guest with everything loaded and get a shell"
	@echo "make check-debug     the selftests on a KASAN/kmemleak/lockdep kernel (prebuilt, or built once)"
	@echo "make check-debug-ci  this commit's share of its lifetime tests (CI; DEBUG_CI_PLAN=1 prints it)"
	@echo "make soak            10 minutes of mixed traffic and toggles (SOAK_SECONDS=)"
	@echo "make demo            see it work: throughput with fasttrack off and on, in a guest"
	@echo "make bench           the performance record: bench/results.{json,md,png}"
	@echo "                     (KERNELS=\"6.12\", BENCH_QUICK=1 for a short run)"
	@echo "make bench-cache     modelled L1d/L2 misses per packet (qemu cache.c's model,"
	@echo "                     bench/prof/cache.sh; KERNELS=6.12, BENCH_CACHE_CHECK=1),"
	@echo "                     and the lines and atomics each packet touches"
	@echo "make fuzz            libFuzzer on the packet parser (FUZZ_SECONDS=600)"
	@echo "make fuzz-short      the same for 60 seconds"
	@echo "make style           checkpatch --strict on the kernel code"
	@echo "make spec-check      the YNL spec against the uapi header and the policies"
	@echo "make harness-test    the VM harness's own failure handling, on the host"
	@echo "make btf-test        kmod/btf.py (the module BTF of 6.1 builds) against kbuild's"
	@echo "make sparse          W=1 + sparse build against KDIR"
	@echo "make install         install the module (depmod) and ftctl"
	@echo "make uninstall       remove what make install installed"
	@echo "make dkms-install    register, build and install with DKMS (DKMS_KERNEL=...)"
	@echo "make dkms-remove     remove this version from DKMS, for every kernel"
	@echo "make deb             fasttrack-dkms and fasttrack-tools .debs in dist/, then lintian"
	@echo "make dkms-test       a dkms add/build/install/remove round trip per kernel (host)"
	@echo "make dkms-vm         the DKMS install flow, modprobe and a transfer, in a guest"
	@echo "                     (the package test of make deb-vm instead on DEB_KERNELS=\"$(DEB_KERNELS)\")"
	@echo "                     (and the YNL CLI test on YNL_KERNELS=\"$(YNL_KERNELS)\")"
	@echo "make deb-vm          the .debs installed, upgraded and purged in a guest"
	@echo "make ynl-vm          the kernel's YNL CLI against the module and ftctl (KERNELS=6.12)"

module:
	@test -d "$(KDIR)" || { echo "error: no kernel headers at $(KDIR)." \
		"Install linux-headers-$(KERNELRELEASE_HOST) or pass KDIR=/path/to/headers." >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules
	sh kmod/btf.sh $(KDIR) kmod/fasttrack.ko

module-debug:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 ccflags-y+=-DDEBUG modules

sparse:
	@command -v sparse >/dev/null || bash selftests/vm/deps.sh sparse
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 C=2 modules

ftctl:
	$(MAKE) -C userspace VERSION=$(VERSION)

# The host packages first (ftctl's unit tests need libmnl-dev), then the
# host-side tests (ftctl's unit tests, a short fuzz of the parser, the YNL
# spec check, the harness's own test), unless one VM test was picked with T=.
# With neither KERNELS nor T given, the guests run the matrix CI runs
# (check.sh --matrix: the core tests on every kernel, every other test on
# one of them); check-full runs every test on every kernel.
# The matrix adds the smoke set on another platform: one of PLATFORMS a
# commit, in turn by its first-parent count (selftests/vm/rotate.sh), to
# keep CI within its hour; PLATFORM_KERNELS="$(PLATFORMS)" runs them all.
PLATFORMS ?= 6.1-rt $(ARM_KERNELS)
PLATFORM_KERNELS ?= $(shell bash selftests/vm/rotate.sh $(PLATFORMS))
CHECK_MATRIX = $(if $(T)$(FULL),,$(if $(filter file,$(origin KERNELS)),--matrix))
CHECK_KERNELS = $(KERNELS)$(if $(CHECK_MATRIX), $(PLATFORM_KERNELS))
# The DKMS guests: in the matrix, one of DKMS_KERNELS in turn.
CHECK_DKMS_KERNELS = $(if $(CHECK_MATRIX),$(shell bash selftests/vm/rotate.sh \
	$(filter $(KERNELS),$(DKMS_KERNELS))),$(filter $(KERNELS),$(DKMS_KERNELS)))
CHECK_GUESTS = bash selftests/vm/check.sh --kernels "$(CHECK_KERNELS)" $(CHECK_MATRIX) $(if $(T),--test "$(T)")
# Without T: the DKMS tests' guests and the host checks run beside the
# matrix and share its guest slots (selftests/vm/together.sh); ftctl is
# built first, since each of them uses it.
check:
	bash selftests/vm/deps.sh
	$(if $(T),$(CHECK_GUESTS),$(MAKE) -C userspace && bash selftests/vm/together.sh \
		'$(CHECK_GUESTS)' \
		'$(if $(CHECK_DKMS_KERNELS),$(MAKE) dkms-vm DKMS_KERNELS="$(CHECK_DKMS_KERNELS)",true)' \
		'$(MAKE) check-host')

# What make check runs on the host alone: ftctl's tests, the fuzzer, the
# spec, the harness, the layers and the DKMS builds against each kernel's
# headers.
.PHONY: check-host
check-host:
	$(MAKE) -C userspace test
	$(MAKE) fuzz-short
	$(MAKE) spec-check
	$(MAKE) harness-test
	$(MAKE) layers-check
	$(MAKE) btf-test
	$(MAKE) dkms-test

.PHONY: check-full
check-full:
	$(MAKE) check FULL=1

# The kernel's own netfilter selftests (linux-source-6.12 and -7.2), each
# on the full stack and again with fasttrack on every device, on the guest
# of their version: all of them (make check runs this commit's share of
# one kernel's; KNF_PLAN=1 prints the rotation; selftests/vm/knf.sh).
KNF_KERNELS ?= 6.12 7.2
.PHONY: check-netfilter
check-netfilter:
	$(if $(filter 1,$(KNF_PLAN)),bash selftests/vm/knf.sh --plan,SMP=0 FT_TIMEOUT=$${FT_TIMEOUT:-21600} bash selftests/vm/check.sh --kernels "$(KNF_KERNELS)" --test kernel_netfilter)

.PHONY: check-arm
check-arm:
	SMP=$(or $(SMP),0) bash selftests/vm/check.sh --kernels "$(ARM_KERNELS)" $(if $(T),--test "$(T)",--matrix)

# The whole suite on a debug kernel (KASAN, kmemleak, lockdep, UBSAN...),
# prebuilt or built once from linux-source-6.1 and cached; see
# selftests/vm/README-debug.md. check-debug-cached skips when the kernel
# would have to be built. check-debug-ci (CI) runs this commit's share of
# the lifetime and concurrency tests on it, and fails when the kernel would
# have to be built (selftests/vm/debug-ci.sh; DEBUG_CI_PLAN=1 only prints
# the rotation).
.PHONY: check-debug check-debug-cached check-debug-ci soak
check-debug:
	bash selftests/vm/debug-kernel.sh check $(if $(T),--test "$(T)")

check-debug-cached:
	bash selftests/vm/debug-kernel.sh check --if-cached $(if $(T),--test "$(T)")

check-debug-ci:
	bash selftests/vm/debug-ci.sh $(if $(filter 1,$(DEBUG_CI_PLAN)),--plan)

# Mixed traffic with random toggles for SOAK_SECONDS (default 600), on 6.1
# unless KERNELS is given; then memory must be back to its baseline.
SOAK_KERNELS := $(if $(filter command line environment,$(origin KERNELS)),$(KERNELS),6.1)
soak:
	$(if $(SOAK_SECONDS),SOAK_SECONDS=$(SOAK_SECONDS)) bash selftests/vm/soak.sh --kernels "$(SOAK_KERNELS)"

fuzz:
	$(MAKE) -C selftests/fuzz fuzz $(if $(FUZZ_SECONDS),FUZZ_SECONDS=$(FUZZ_SECONDS))

fuzz-short:
	$(MAKE) -C selftests/fuzz fuzz FUZZ_SECONDS=60

bench:
	bash selftests/vm/bench.sh --kernels "$(BENCH_KERNELS)" $(if $(filter 1,$(BENCH_QUICK)),--quick)

# Cache misses, lines and atomics per packet: bench/prof/cache.sh (opt-in:
# slow, fetches the qemu source for its plugin header; CACHE_BOOTS=N repeats
# its boots, CACHE_FLOWS=1 CACHE_COUNT=2000 for the line counts alone, more
# settings there). BENCH_CACHE_CHECK=1 checks its model against qemu's own
# cache.c on one short boot.
bench-cache:
	for k in $(BENCH_KERNELS); do \
		bash bench/prof/cache.sh $(if $(filter 1,$(BENCH_CACHE_CHECK)),--check) $$k || exit 1; done

demo:
	bash selftests/vm/demo.sh --kernel "$(firstword $(BENCH_KERNELS))"

vm-shell:
	bash selftests/vm/check.sh --kernels "$(firstword $(KERNELS))" --shell

style:
	bash selftests/vm/checkpatch.sh

# The VM harness on the host, with stubs for the guest: apt.sh's private
# setup against a local archive, and the reports of check.sh, dkms-vm.sh
# and soak.sh when one kernel fails to prepare (selftests/vm/test-harness.sh).
.PHONY: harness-test
harness-test:
	bash selftests/vm/test-harness.sh

# kmod/btf.py, which gives the module BTF where the kernel's headers lack
# vmlinux (6.1), against kbuild's own BTF step on 6.12.
.PHONY: btf-test
btf-test:
	bash selftests/vm/btf-test.sh

# Calls and includes in kmod/ and userspace/ point down their layers
# (selftests/layers.py lists them).
.PHONY: layers-check
layers-check:
	python3 selftests/layers.py

# The YNL spec, the uapi header and the policies agree (selftests/ynl/).
.PHONY: spec-check
spec-check:
	bash selftests/ynl/check-spec.sh

install: install-module install-ftctl

# Where make install puts ftctl's files; make uninstall removes them.
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
USERSPACE_DIRS = PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) SBINDIR=$(SBINDIR) MANDIR=$(MANDIR) \
	COMPLETIONDIR=$(PREFIX)/share/bash-completion/completions \
	ZSHCOMPLETIONDIR=$(PREFIX)/share/zsh/vendor-completions \
	SYSCONFDIR=$(SYSCONFDIR) SYSTEMDUNITDIR=$(SYSTEMDUNITDIR) \
	IFUPDOWNDIR=$(SYSCONFDIR)/network/if-pre-up.d
# The kernel install-module installs for: KDIR's, or the running one.
KERNELRELEASE_KDIR = $(if $(filter-out $(KDIR),/lib/modules/$(KERNELRELEASE_HOST)/build),$(shell \
	$(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null),$(KERNELRELEASE_HOST))

install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(if $(filter-out $(KDIR),/lib/modules/$(KERNELRELEASE_HOST)/build),,$(KERNELRELEASE_HOST))

install-ftctl: ftctl
	$(MAKE) -C userspace install $(USERSPACE_DIRS)

# What make install installed: the module of that kernel (KDIR's, or the
# running one) and ftctl's files, and this version's DKMS registration
# (make dkms-remove) if there is one. The configuration goes only if it
# is still the default one; an edited file is the operator's.
uninstall:
	rm -f $(addprefix $(DESTDIR)/lib/modules/$(KERNELRELEASE_KDIR)/updates/,fasttrack.ko \
		fasttrack.ko.xz fasttrack.ko.zst fasttrack.ko.gz)
	-[ -n "$(DESTDIR)" ] || depmod -a $(KERNELRELEASE_KDIR)
	rm -f $(DESTDIR)$(SBINDIR)/ftctl $(DESTDIR)$(MANDIR)/man8/ftctl.8 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/ftctl \
		$(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_ftctl \
		$(DESTDIR)$(SYSTEMDUNITDIR)/fasttrack.service \
		$(DESTDIR)$(SYSCONFDIR)/network/if-pre-up.d/fasttrack
	if cmp -s userspace/fasttrack.conf $(DESTDIR)$(SYSCONFDIR)/fasttrack.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/fasttrack.conf; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/fasttrack.conf ]; then \
		echo "kept $(DESTDIR)$(SYSCONFDIR)/fasttrack.conf: it was edited"; \
	fi
	if [ -z "$(DESTDIR)" ] && command -v dkms >/dev/null && \
			dkms status -m fasttrack -v $(VERSION) 2>/dev/null | grep -q .; then \
		$(MAKE) dkms-remove; \
	fi

# DKMS, for one kernel (DKMS_KERNEL, default the running one): this
# version's build for that kernel is replaced, from a fresh copy of the
# source; its builds for other kernels stay. Other versions of fasttrack
# are removed (two registered versions would fight over every kernel),
# and this one is installed in their place for each kernel they were
# installed for, where its headers are. make dkms-remove removes this
# version for every kernel.
DKMS_KERNEL ?= $(KERNELRELEASE_HOST)
dkms-install:
	@set -e; \
	status=$$(dkms status -m fasttrack 2>/dev/null); \
	others=$$(echo "$$status" | \
		sed -n 's|^fasttrack/\([^,]*\), \([^,]*\), [^:]*: installed.*|\1 \2|p' | \
		awk '$$1 != "$(VERSION)"'); \
	for v in $$(echo "$$status" | sed -n 's|^fasttrack/\([^,:]*\)[,:].*|\1|p' | \
			grep -vxF "$(VERSION)" | sort -u); do \
		echo "dkms: removing fasttrack $$v (replaced by $(VERSION))"; \
		dkms remove -m fasttrack -v "$$v" --all; \
		rm -rf "/usr/src/fasttrack-$$v"; \
	done; \
	if dkms status -m fasttrack -v $(VERSION) -k $(DKMS_KERNEL) 2>/dev/null | grep -q .; then \
		dkms remove -m fasttrack -v $(VERSION) -k $(DKMS_KERNEL); \
	fi; \
	rm -rf /usr/src/fasttrack-$(VERSION); \
	mkdir -p /usr/src/fasttrack-$(VERSION); \
	cp -r Kbuild dkms.conf kmod uapi /usr/src/fasttrack-$(VERSION)/; \
	dkms status -m fasttrack -v $(VERSION) 2>/dev/null | grep -q . || \
		dkms add -m fasttrack -v $(VERSION); \
	dkms build -m fasttrack -v $(VERSION) -k $(DKMS_KERNEL); \
	dkms install -m fasttrack -v $(VERSION) -k $(DKMS_KERNEL); \
	for k in $$(echo "$$others" | awk 'NF && $$2 != "$(DKMS_KERNEL)" { print $$2 }' | sort -u); do \
		dkms install -m fasttrack -v $(VERSION) -k "$$k" || \
			echo "dkms: fasttrack $(VERSION) not installed for $$k (headers missing?)"; \
	done

dkms-remove:
	dkms remove -m fasttrack -v $(VERSION) --all
	rm -rf /usr/src/fasttrack-$(VERSION)

# The Debian packages, built by dpkg-buildpackage from a clean copy of the
# tree (debian/ is the source package) into DEB_OUT, then lintian. The
# build dependencies of debian/control are installed with apt if missing.
DEB_OUT ?= $(CURDIR)/dist
DEB_BUILD_DEPS = debhelper dh-dkms dpkg-dev fakeroot gcc make libc6-dev libmnl-dev pkg-config lintian \
	clang llvm libbpf-dev bpftool
LINTIAN ?= 1
deb:
	bash selftests/vm/deps.sh $(DEB_BUILD_DEPS)
	rm -rf $(DEB_OUT)/build
	mkdir -p $(DEB_OUT)/build/fasttrack-$(VERSION)
	tar -c --exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='.*.cmd' --exclude='*.a' --exclude=modules.order --exclude=Module.symvers \
		--exclude=userspace/ftctl --exclude=userspace/ftctl-test --exclude=userspace/ftctl-mock.so \
		--exclude=userspace/fasttrack_xdp.skel.h \
		Kbuild Makefile dkms.conf README.md Documentation kmod uapi userspace debian | \
		tar -C $(DEB_OUT)/build/fasttrack-$(VERSION) -x
	cd $(DEB_OUT)/build/fasttrack-$(VERSION) && dpkg-buildpackage -us -uc -b
	mv $(DEB_OUT)/build/*.deb $(DEB_OUT)/build/*.changes $(DEB_OUT)/build/*.buildinfo $(DEB_OUT)/
	rm -rf $(DEB_OUT)/build
	@ls -1 $(DEB_OUT)/*_$(VERSION)_*.deb
	[ "$(LINTIAN)" != 1 ] || lintian --info --display-info --fail-on error,warning \
		$(DEB_OUT)/fasttrack_$(VERSION)_$$(dpkg --print-architecture).changes

# dkms.conf against each kernel's headers, in throwaway trees on the host
# (7.x in the sid chroot); see selftests/vm/dkms-test.sh.
.PHONY: dkms-test dkms-vm
dkms-test:
	bash selftests/vm/dkms-test.sh --kernels "$(KERNELS)"

# make dkms-install, modprobe, ftctl enable, an offloaded transfer and
# make dkms-remove, in a guest per kernel; on DEB_KERNELS, instead, the
# packages of make deb installed, upgraded, used and purged. See
# selftests/vm/dkms-vm.sh. make deb-vm runs only the package test.
.PHONY: deb-vm
dkms-vm:
	FT_DEB_KERNELS="$(DEB_KERNELS)" YNL_KERNELS="$(YNL_KERNELS)" bash selftests/vm/dkms-vm.sh \
		--kernels "$(filter $(KERNELS),$(DKMS_KERNELS))"

deb-vm:
	FT_DEB_KERNELS="$(DEB_KERNELS)" FT_DKMS_TESTS="$${FT_DKMS_TESTS:-deb_install}" \
		bash selftests/vm/dkms-vm.sh \
		--kernels "$(DEB_KERNELS)"

# The kernel's YNL CLI against the module and ftctl (selftests/ynl/), alone,
# in a DKMS-style guest per kernel (KERNELS, default 6.12).
.PHONY: ynl-vm
ynl-vm:
	FT_DKMS_TESTS=ynl_cli bash selftests/vm/dkms-vm.sh --kernels "$(BENCH_KERNELS)"

clean:
	-test -d "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean
