# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
# shellcheck shell=bash
# Sourced by the users-* scenarios (after tools/lib/common.sh): the memory lock limit
# of unprivileged users and the lookups their checks share.  Bash builtins wherever
# they do: these run in a debug-kernel guest under TCG, where each exec costs most of
# a second.
#
# Users A and B and their limits are common.sh's (asA, asB, user_limits).
user_limits

# A line starting with PREFIX in FILE (for polls every 0.1 s).
has_line() { # prefix file
	local l
	while read -r l; do [[ $l == "$1"* ]] && return 0; done < "$2"
	return 1
}

# The objects a device has now, from rdma resource ("0: DEV: pd 1 cq 1 qp 1 cm_id 0
# mr 0 ctx 0 srq 0"), as "qp N cq N mr N pd N".
usage() { # ibdev
	local w i
	declare -A cnt
	while read -r -a w; do
		[ "${w[1]}" = "$1:" ] || continue
		for ((i = 2; i + 1 < ${#w[@]}; i += 2)); do cnt[${w[i]}]=${w[i + 1]}; done
	done < <(rdma resource show)
	echo "qp ${cnt[qp]:-} cq ${cnt[cq]:-} mr ${cnt[mr]:-} pd ${cnt[pd]:-}"
}
in_use() { # ibdev kind
	local w
	read -r -a w <<< "$(usage "$1")"
	case $2 in qp) echo "${w[1]}";; cq) echo "${w[3]}";; mr) echo "${w[5]}";; pd) echo "${w[7]}";; esac
}

# The kernel's own PDs on a device (ib_core's for the GSI QP, ...): the device has no
# local DMA lkey, so ib_alloc_pd gives each a DMA MR, which takes an entry of the
# device's MR table but is not in rdma resource's list.  User PDs list a pid.
kernel_pds() { # ibdev
	local l c=0
	while read -r l; do [[ $l == *" pid "* ]] || c=$((c + 1)); done \
		< <(rdma resource show pd dev "$1")
	echo $c
}

# A device limit as ibv_devinfo -v prints it (QUERY_DEVICE): "max_qp: 1024".
dev_limit() { # ibdev name
	local k v
	while read -r k v _; do
		[ "$k" = "$2:" ] && { echo "$v"; return 0; }
	done < <(ibv_devinfo -v -d "$1")
	return 1
}

# From users_verbs fill's "fill KIND: N created in T ms, stopped by ERRNO (...)":
# N, and ERRNO (nothing when it stopped at the maximum asked).
filled() { # file kind
	local l
	while read -r l; do
		[[ $l =~ ^fill\ $2:\ ([0-9]+)\ created ]] && { echo "${BASH_REMATCH[1]}"; return; }
	done < "$1"
}
stopped_by() { # file kind
	local l
	while read -r l; do
		[[ $l =~ ^fill\ $2:.*stopped\ by\ ([A-Z0-9]+) ]] && { echo "${BASH_REMATCH[1]}"; return; }
	done < "$1"
}
