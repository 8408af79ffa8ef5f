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
# a guest (selftests/vm/dkms-vm.sh).
DKMS_KERNELS ?= 5.10 6.1 6.12 7.2
# Of those, the DKMS guests that also run the YNL CLI test
# (selftests/ynl/ynl_cli.sh); see selftests/vm/dkms-vm.sh.
YNL_KERNELS ?= 5.10 6.12
T ?=
# make bench and make demo boot one kernel: 6.12 unless KERNELS is given.
BENCH_KERNELS := $(if $(filter command line environment,$(origin KERNELS)),$(KERNELS),6.12)

.PHONY: all module module-debug ftctl check vm-shell style sparse install \
	install-module install-ftctl dkms-install dkms-remove clean help \
	fuzz fuzz-short bench demo

all: module ftctl

help:
	@echo "make                 build fasttrack.ko (KDIR=...) and ftctl"
	@echo "make check           run the selftests in qemu guests (KERNELS=\"$(KERNELS)\" T=name)"
	@echo "make vm-shell        boot a guest with everything loaded and get a shell"
	@echo "make check-debug     the selftests on a KASAN/kmemleak/lockdep kernel (built once, long)"
	@echo "make soak            10 minutes of mixed traffic and toggles (SOAK_SECONDS=)"
	@echo "make demo            see it work: throughput with fasttrack off and on, in a guest"
	@echo "make bench           the performance record: bench/results.{json,md,png}"
	@echo "                     (KERNELS=\"6.12\", BENCH_QUICK=1 for a short run)"
	@echo "make fuzz            libFuzzer on the packet parser (FUZZ_SECONDS=600)"
	@echo "make fuzz-short      the same for 60 seconds"
	@echo "make style           checkpatch --strict on the kernel code"
	@echo "make spec-check      the YNL spec against the uapi header and the policies"
	@echo "make sparse          W=1 + sparse build against KDIR"
	@echo "make install         install the module (depmod) and ftctl"
	@echo "make dkms-install    register, build and install with DKMS"
	@echo "make dkms-test       a dkms add/build/install/remove round trip per kernel (host)"
	@echo "make dkms-vm         the DKMS install flow, modprobe and a transfer, in a guest"
	@echo "                     (and the YNL CLI test on YNL_KERNELS=\"$(YNL_KERNELS)\")"
	@echo "make ynl-vm          the kernel's YNL CLI against the module and ftctl (KERNELS=6.12)"

module:
	@test -d "$(KDIR)" || { echo "error: no kernel headers at $(KDIR)." \
		"Install linux-headers-$(KERNELRELEASE_HOST) or pass KDIR=/path/to/headers." >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

module-debug:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 ccflags-y+=-DDEBUG modules

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 C=2 modules

ftctl:
	$(MAKE) -C userspace VERSION=$(VERSION)

# The host-side tests first (ftctl's unit tests, a short fuzz of the
# parser, the YNL spec check), unless one VM test was picked with T=.
check:
	$(if $(T),,$(MAKE) -C userspace test && $(MAKE) fuzz-short && $(MAKE) spec-check)
	bash selftests/vm/check.sh --kernels "$(KERNELS)" $(if $(T),--test "$(T)")
	$(if $(T),,$(MAKE) dkms-test $(if $(filter $(KERNELS),$(DKMS_KERNELS)),dkms-vm))

# The whole suite on a debug kernel (KASAN, kmemleak, lockdep, UBSAN...),
# built once from linux-source-6.1 and cached; see selftests/vm/README-debug.md.
# check-debug-cached (CI) skips when the kernel is not cached yet.
.PHONY: check-debug check-debug-cached soak
check-debug:
	bash selftests/vm/debug-kernel.sh check $(if $(T),--test "$(T)")

check-debug-cached:
	bash selftests/vm/debug-kernel.sh check --if-cached $(if $(T),--test "$(T)")

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

demo:
	bash selftests/vm/demo.sh --kernel "$(firstword $(BENCH_KERNELS))"

vm-shell:
	bash selftests/vm/check.sh --kernels "$(firstword $(KERNELS))" --shell

style:
	bash selftests/vm/checkpatch.sh

# The YNL spec, the uapi header and the policies agree (selftests/ynl/).
.PHONY: spec-check
spec-check:
	bash selftests/ynl/check-spec.sh

install: install-module install-ftctl

install-module: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(if $(filter-out $(KDIR),/lib/modules/$(KERNELRELEASE_HOST)/build),,$(KERNELRELEASE_HOST))

install-ftctl: ftctl
	$(MAKE) -C userspace install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

dkms-install:
	dkms remove -m fasttrack -v $(VERSION) --all >/dev/null 2>&1 || true
	rm -rf /usr/src/fasttrack-$(VERSION)
	mkdir -p /usr/src/fasttrack-$(VERSION)
	cp -r Kbuild dkms.conf kmod uapi /usr/src/fasttrack-$(VERSION)/
	dkms add -m fasttrack -v $(VERSION)
	dkms build -m fasttrack -v $(VERSION)
	dkms install -m fasttrack -v $(VERSION)

dkms-remove:
	dkms remove -m fasttrack -v $(VERSION) --all
	rm -rf /usr/src/fasttrack-$(VERSION)

# dkms.conf against each kernel's headers, in throwaway trees on the host
# (7.x in the sid chroot); see selftests/vm/dkms-test.sh.
.PHONY: dkms-test dkms-vm
dkms-test:
	bash selftests/vm/dkms-test.sh --kernels "$(KERNELS)"

# make dkms-install, modprobe, ftctl enable, an offloaded transfer and
# make dkms-remove, in a guest per kernel; see selftests/vm/dkms-vm.sh.
dkms-vm:
	YNL_KERNELS="$(YNL_KERNELS)" bash selftests/vm/dkms-vm.sh --kernels "$(filter $(KERNELS),$(DKMS_KERNELS))"

# The kernel's YNL CLI against the module and ftctl (selftests/ynl/), alone,
# in a DKMS-style guest per kernel (KERNELS, default 6.12).
.PHONY: ynl-vm
ynl-vm:
	DKMS_VM_TESTS=ynl_cli bash selftests/vm/dkms-vm.sh --kernels "$(BENCH_KERNELS)"

clean:
	-test -d "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean
