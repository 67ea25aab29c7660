# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
# Included by the Makefiles of the test programs in tools/*/: where they are built,
# their flags, and the helpers they share (tools/lib/vt.c: compile VT_SRC with the
# program, depend on VT_DEPS).
TOP ?= $(abspath ../..)
OUT ?= $(TOP)/build/bin
LIB := $(TOP)/build/lib
CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -I$(TOP)/tools/lib
VT_SRC := $(TOP)/tools/lib/vt.c
VT_DEPS := $(VT_SRC) $(TOP)/tools/lib/vt.h
