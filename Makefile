# virtio-rdma: see README.md.
#   make            kernel modules (against the test kernel) and user-space parts
#   make kernel     the project kernel (KERNEL=test|perf)
#   make demo       build, boot a guest, create devices and show them working
#   make check      everything, then every KUnit suite and guest scenario
#   make bench      virtio_rdma vs rxe vs siw on the perf kernel (BENCH=quick|full)
KERNEL ?= test
TOP := $(CURDIR)
B := $(TOP)/build
KSRC := $(B)/linux-source-6.12
KDIR := $(B)/kernel-$(KERNEL)
OBJ := $(B)/obj-$(KERNEL)
KSRCS := Kbuild include drivers kunit

.PHONY: all kernel modules modules-locked user install demo check bench sparse compat61 checkpatch clean

all: modules user

kernel:
	@tools/kernel $(KERNEL)

# Kbuild writes objects next to the sources: build from a mirror so that the
# test and perf kernels each keep their own objects and the tree stays clean.
modules: kernel
	@mkdir -p $(OBJ)
	@flock $(B)/.modules.lock $(MAKE) --no-print-directory modules-locked

modules-locked:
	@rsync -a --delete --prune-empty-dirs --include='*/' --include='Kbuild' \
		--include='*.[ch]' --exclude='*' $(wildcard $(KSRCS)) $(OBJ)/
	$(MAKE) -C $(KDIR) M=$(OBJ) W=1 $(if $(DIRS),VRDMA_DIRS="$(DIRS)") modules
	$(MAKE) -s -C $(KDIR) M=$(OBJ) INSTALL_MOD_PATH=$(KDIR)/stage \
		INSTALL_MOD_DIR=updates $(if $(DIRS),VRDMA_DIRS="$(DIRS)") modules_install

user:
	@$(MAKE) --no-print-directory -C providers/virtio_rdma TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/hostile TOP=$(TOP)
	@$(MAKE) --no-print-directory -C tools/provider-unit TOP=$(TOP)

install: user
	@$(MAKE) --no-print-directory -C providers/virtio_rdma TOP=$(TOP) install

demo:
	@tools/demo

check: all
	@tools/check

# Never part of check: one perf-kernel guest, ~5 min (BENCH=quick) or 20-30 min (full).
# Writes build/bench/report.md and chart.png; BENCH_PUBLISH=1 also updates README.md.
BENCH ?= full
bench: user
	@$(MAKE) --no-print-directory modules KERNEL=perf
	@BENCH=$(BENCH) tools/bench/run

sparse: modules
	@flock $(B)/.modules.lock $(MAKE) -s -C $(KDIR) M=$(OBJ) C=2 CF=-D__CHECK_ENDIAN__ modules

# Guests run distro kernels: the guest driver must also build against Debian 12's 6.1.
K61 := $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1*-amd64)))
compat61:
	@[ -n "$(K61)" ] || { echo "compat61: install linux-headers-amd64"; exit 1; }
	@mkdir -p $(B)/obj-61
	@rsync -aR --delete --prune-empty-dirs --include='*/' --include='Kbuild' \
		--include='*.[ch]' --exclude='*' Kbuild include \
		drivers/infiniband/hw/virtio_rdma $(B)/obj-61/
	$(MAKE) -C $(K61) M=$(B)/obj-61 VRDMA_DIRS=drivers/infiniband/hw/virtio_rdma/ modules

# LINUX_VERSION_CODE tests are how the guest driver keeps building on 6.1 (see compat61).
checkpatch:
	@files=$$(git ls-files --cached --others --exclude-standard 'drivers/*.[ch]' 'include/*.h' 'kunit/*.[ch]'); \
	[ -z "$$files" ] || perl $(KSRC)/scripts/checkpatch.pl --no-tree --strict --terse \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f $$files

clean:
	rm -rf $(B)/obj-* $(B)/vm $(B)/check
