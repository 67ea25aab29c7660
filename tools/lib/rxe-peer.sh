# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
# shellcheck shell=bash
# Sourced by scenarios: rdma_rxe (rxe0) on the veth end vr in the INITIAL network
# namespace, 192.0.2.11, and a virtio_rdma device on the peer end vv in the network
# namespace $V, 192.0.2.12.  rxe 6.12 opens its UDP 4791 socket in the initial
# namespace only, so rxe must sit there; the virtio_rdma device finds its netdev by
# MAC in whatever namespace.  Sets ib_v and gi_r, gi_v (the sysfs index of
# each device's IPv4 RoCE v2 GID).  The addresses differ from vrdma-pair.sh's so that
# both setups can live in one guest.  The caller defines fail().
V=vrdma-rxe-v
RXE_IP=192.0.2.11
VRDMA_IP=192.0.2.12

# shellcheck source-path=SCRIPTDIR source=vrdma-pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/vrdma-pair.sh"

# The sysfs index of a RoCE v2 GID: rxe also lists every GID as RoCE v1, under
# another index, and virtio_rdma speaks v2 only.
rxe_gid_v2_index() { # ibdev gid
	local f i t
	for ((t = 0; t < 100; t++)); do
		for f in "/sys/class/infiniband/$1"/ports/1/gids/*; do
			[ "$(cat "$f" 2>/dev/null)" = "$2" ] || continue
			i=$(basename "$f")
			[ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" \
				2>/dev/null)" = "RoCE v2" ] && { echo "$i"; return 0; }
		done
		sleep 0.1
	done
	return 1
}

# The IPv4-mapped GID of a dotted quad.
rxe_gid_of() { # a.b.c.d
	local a b c d
	IFS=. read -r a b c d <<< "$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
}

rxe_peer_setup() {
	local m mac
	for m in veth rdma_rxe vdpa vdpa_rdma virtio_vdpa virtio_rdma; do
		modprobe $m || fail "modprobe $m"
	done
	ip link set lo up
	ip netns add $V || fail "ip netns add $V"
	ip -n $V link set lo up
	ip link add vr type veth peer name vv netns $V || fail "veth"
	ip addr add $RXE_IP/24 dev vr
	ip -n $V addr add $VRDMA_IP/24 dev vv
	ip link set vr up
	ip -n $V link set vv up
	rdma link add rxe0 type rxe netdev vr || fail "rdma link add rxe0"
	mac=$(ip -n $V -br link show dev vv | awk '{ print $3 }')
	ib_v=$(pair_vdpa_add vrdma-rxe "$mac") || fail "device on vv"
	gi_r=$(rxe_gid_v2_index rxe0 "$(rxe_gid_of $RXE_IP)") ||
		fail "rxe0 has no RoCE v2 GID for $RXE_IP"
	gi_v=$(rxe_gid_v2_index "$ib_v" "$(rxe_gid_of $VRDMA_IP)") ||
		fail "$ib_v has no RoCE v2 GID for $VRDMA_IP"
	echo "devices: rxe0 (gid $gi_r) on vr in the initial namespace," \
		"$ib_v (gid $gi_v) on vv in $V"
}

rxe_peer_teardown() {
	rdma link delete rxe0
	vdpa dev del vrdma-rxe
	ip link del vr 2>/dev/null
	ip netns del $V
}
