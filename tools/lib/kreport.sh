# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
# shellcheck shell=bash
# Sourced on the host by tools/vm and tools/check: the kernel reports that fail a
# guest run whatever its exit status.

KREPORT_RE='Oops|BUG:|WARNING:|KASAN|kernel BUG|Kernel panic|general protection fault'
KREPORT_RE+='|possible circular locking|possible recursive locking|inconsistent lock state'
KREPORT_RE+='|suspicious RCU usage|blocked for more than|unreferenced object|UBSAN'

# Print the first report in a kernel log with what follows it; status 1 if none.
kernel_report() { # log
	local n
	n=$(grep -E -m1 -n "$KREPORT_RE" "$1" 2>/dev/null | cut -d: -f1)
	[ -n "$n" ] || return 1
	sed -n "$n,$((n + 45))p" "$1"
}
