# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
# virtio-rdma: see README.md.
#   make            kernel modules (against the test kernel) and user-space parts
#   make kernel     the project kernel (KERNEL=test|perf)
#   make demo       build, boot a guest, create devices and show them working
#   make check      everything, then every KUnit suite and guest scenario
#   make fuzz       the RoCEv2 packet fuzzer for minutes (FUZZ_SECONDS, FUZZ_COUNT, FUZZ_SEED)
#   make bench      virtio_rdma vs rxe vs siw on the perf kernel (BENCH=quick|full)
#   make soak       10 minutes of mixed traffic on the perf kernel (SOAK_SECONDS)
KERNEL ?= test
TOP := $(CURDIR)
B := $(TOP)/build
KSRC := $(B)/linux-source-6.12
KDIR := $(B)/kernel-$(KERNEL)
OBJ := $(B)/obj-$(KERNEL)
KSRCS := Kbuild include drivers tools/testmod
# What drivers/*/*/Kconfig would set in tree: the guest driver with the debugfs
# raw_cmd interface that scenarios use (ctrl-invalid, ibv-devinfo), the device
# with its fault injection (buggy-device), and the KUnit suites of both.
VRDMA_CONFIG_DRIVER := CONFIG_INFINIBAND_VIRTIO_RDMA=m CONFIG_INFINIBAND_VIRTIO_RDMA_RAW_CMD=y
VRDMA_CONFIG := $(VRDMA_CONFIG_DRIVER) CONFIG_VDPA_RDMA=m CONFIG_VDPA_RDMA_FAULTS=y \
	CONFIG_INFINIBAND_VIRTIO_RDMA_KUNIT_TEST=m CONFIG_VDPA_RDMA_KUNIT_TEST=m

.PHONY: all kernel modules modules-locked user install demo check fuzz bench soak sparse compat61 dkms-src dkms checkpatch clean

all: modules user

kernel:
	@tools/kernel $(KERNEL)

# Kbuild writes objects next to the sources: build from a mirror so that the
# test and perf kernels each keep their own objects and the tree stays clean.
modules: kernel
	@mkdir -p $(OBJ)
	@flock $(B)/.modules.lock $(MAKE) --no-print-directory modules-locked

modules-locked:
	@rsync -aR --delete --prune-empty-dirs --include='*/' --include='Kbuild' \
		--include='*.[ch]' --exclude='*' $(wildcard $(KSRCS)) $(OBJ)/
	$(MAKE) -C $(KDIR) M=$(OBJ) W=1 $(VRDMA_CONFIG) $(if $(DIRS),VRDMA_DIRS="$(DIRS)") modules
	@# A module that moved to another directory must not stay installed under
	@# its old path too: depmod would see two modules of one name.
	@for m in $$(sed 's|.*/||; s|\.o$$|.ko|' $(OBJ)/modules.order); do \
		find $(KDIR)/stage/lib/modules -path '*/updates/*' -name "$$m" -delete; \
	done
	$(MAKE) -s -C $(KDIR) M=$(OBJ) INSTALL_MOD_PATH=$(KDIR)/stage $(VRDMA_CONFIG) \
		INSTALL_MOD_DIR=updates $(if $(DIRS),VRDMA_DIRS="$(DIRS)") modules_install

user:
	@$(MAKE) --no-print-directory -C providers/virtio_rdma TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/hostile TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/provider-unit TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/srq-check TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/xrc-check TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/tm-check TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/mkey-check TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/mw-check TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/cq-resize TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/fuzz TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/users TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/faults TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/scale TOP=$(TOP)

install: user
	@$(MAKE) --no-print-directory -C providers/virtio_rdma TOP=$(TOP) install

demo:
	@tools/demo

check: all
	@tools/check

# Never part of check: the fuzzing scenarios for longer (tools/fuzz/run): packets on
# both paths, rings and commands, FUZZ_SECONDS each (default 120: ~35 min), a new seed
# each time unless FUZZ_SEED.
fuzz: all
	@tools/fuzz/run

# Never part of check: one perf-kernel guest, ~5 min (BENCH=quick) or 20-30 min (full).
# Writes build/bench/report.md and chart.png; BENCH_PUBLISH=1 also updates README.md.
BENCH ?= full
bench: user
	@$(MAKE) --no-print-directory modules KERNEL=perf
	@BENCH=$(BENCH) tools/bench/run

# Never part of check: SOAK_SECONDS (default 600) of mixed traffic in one perf-kernel
# guest; fails on a failed run, error counters, memory growth, latency drift or a
# kernel report.  Writes build/soak/summary.txt.
soak: user
	@$(MAKE) --no-print-directory modules KERNEL=perf
	@tools/soak/run

sparse: modules
	@flock $(B)/.modules.lock $(MAKE) -s -C $(KDIR) M=$(OBJ) C=2 CF=-D__CHECK_ENDIAN__ \
		$(VRDMA_CONFIG) modules

# Guests run distro kernels: the guest driver must also build against Debian 12's 6.1.
K61 := $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1*-amd64)))
compat61:
	@[ -n "$(K61)" ] || { echo "compat61: install linux-headers-amd64"; exit 1; }
	@mkdir -p $(B)/obj-61
	@rsync -aR --delete --prune-empty-dirs --include='*/' --include='Kbuild' \
		--include='*.[ch]' --exclude='*' Kbuild include \
		drivers/infiniband/hw/virtio_rdma $(B)/obj-61/
	$(MAKE) -C $(K61) M=$(B)/obj-61 VRDMA_DIRS=drivers/infiniband/hw/virtio_rdma/ \
		$(VRDMA_CONFIG_DRIVER) modules

# DKMS: the guest driver's sources and tools/dkms/dkms.conf as DKMS wants them
# (without the KUnit suites); 'make dkms' (as root) installs them under /usr/src
# and has DKMS build and install the module for the running kernel and every
# kernel installed later.  tools/dkms/check builds it in trees of its own.
DKMS_NAME := virtio-rdma
DKMS_VERSION := 1.0
DKMS_SRC := $(B)/dkms/$(DKMS_NAME)-$(DKMS_VERSION)

dkms-src:
	@rm -rf $(DKMS_SRC) && mkdir -p $(DKMS_SRC)
	@rsync -aR --prune-empty-dirs --include='*/' --include='Kbuild' \
		--exclude='*_test.c' --include='*.[ch]' --exclude='*' Kbuild \
		include/uapi drivers/infiniband/hw/virtio_rdma $(DKMS_SRC)/
	@sed 's/@VERSION@/$(DKMS_VERSION)/' tools/dkms/dkms.conf > $(DKMS_SRC)/dkms.conf
	@echo $(DKMS_SRC)

dkms: dkms-src
	rm -rf /usr/src/$(DKMS_NAME)-$(DKMS_VERSION)
	cp -r $(DKMS_SRC) /usr/src/
	dkms remove $(DKMS_NAME)/$(DKMS_VERSION) --all > /dev/null 2>&1 || true
	dkms add -m $(DKMS_NAME) -v $(DKMS_VERSION)
	dkms install -m $(DKMS_NAME) -v $(DKMS_VERSION)

# Only the compat header, which keeps the guest driver building on 6.1 (see
# compat61), may test LINUX_VERSION_CODE.
COMPAT_H := drivers/infiniband/hw/virtio_rdma/vrdma_compat.h
CHECKPATCH := perl $(KSRC)/scripts/checkpatch.pl --no-tree --strict --terse
checkpatch:
	@files=$$(git ls-files --cached --others --exclude-standard 'drivers/*.[ch]' 'include/*.h' \
		'tools/testmod/*.[ch]' \
		| grep -vx '$(COMPAT_H)'); \
	[ -z "$$files" ] || $(CHECKPATCH) -f $$files
	@$(CHECKPATCH) --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f $(COMPAT_H)

clean:
	rm -rf $(B)/obj-* $(B)/vm $(B)/check
