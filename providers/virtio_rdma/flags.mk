# Compiler flags of the standalone provider build, shared by this
# directory's Makefile and tools/provider-unit (which compiles datapath.c).
# compat/ stands in for the rdma-core private headers Debian does not ship;
# a build inside an rdma-core tree (CMakeLists.txt) does not use it.
VRU_DIR := $(TOP)/providers/virtio_rdma
VRU_HDRS := $(wildcard $(VRU_DIR)/compat/*/*.h) $(VRU_DIR)/vru.h \
	$(TOP)/include/uapi/linux/virtio_rdma.h \
	$(TOP)/include/uapi/rdma/virtio_rdma-abi.h
CC ?= gcc
CFLAGS ?= -O2 -g
VRU_CFLAGS := $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror \
	-I$(VRU_DIR) -I$(VRU_DIR)/compat -I$(TOP)/include/uapi
