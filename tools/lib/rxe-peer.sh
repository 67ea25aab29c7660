# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
# shellcheck shell=bash
# Sourced by scenarios: rdma_rxe (rxe0) on the veth end vr in the INITIAL network
# namespace, 192.0.2.11, and a virtio_rdma device on the peer end vv in the network
# namespace $V, 192.0.2.12.  rxe 6.12 opens its UDP 4791 socket in the initial
# namespace only, so rxe must sit there; the virtio_rdma device finds its netdev by
# MAC in whatever namespace.  Sets ib_v and gi_r, gi_v (the sysfs index of
# each device's IPv4 RoCE v2 GID).  The addresses differ from vrdma-pair.sh's so that
# both setups can live in one guest.
V=vrdma-rxe-v
RXE_IP=192.0.2.11
VRDMA_IP=192.0.2.12
# vv's MAC, chosen rather than read back from $V (two execs), as vrdma-pair.sh's.
RXE_PEER_MAC_V=02:00:c0:00:02:0c

# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

rxe_peer_setup() {
	# One exec for all modules: each costs most of a second in a debug guest.
	modprobe -a veth rdma_rxe vdpa vdpa_rdma virtio_vdpa virtio_rdma || fail "modprobe"
	ip netns add $V || fail "ip netns add $V"
	ip link add vr type veth peer name vv address $RXE_PEER_MAC_V netns $V || fail "veth"
	ip_batch "" "link set lo up" "addr add $RXE_IP/24 dev vr" "link set vr up" ||
		fail "vr"
	ip_batch $V "link set lo up" "addr add $VRDMA_IP/24 dev vv" "link set vv up" ||
		fail "vv in $V"
	rdma link add rxe0 type rxe netdev vr || fail "rdma link add rxe0"
	ib_v=$(vdpa_add_ibdev vrdma-rxe $RXE_PEER_MAC_V) || fail "device on vv"
	# rxe lists every IP GID twice, as RoCE v1 and v2; virtio_rdma speaks v2 only.
	gi_r=$(wait_gid rxe0 "$(ipv4_gid $RXE_IP)" "RoCE v2") ||
		fail "rxe0 has no RoCE v2 GID for $RXE_IP"
	gi_v=$(wait_gid "$ib_v" "$(ipv4_gid $VRDMA_IP)" "RoCE v2") ||
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

# Ends a scenario (passed) before its part against rxe in the wire variant:
# rdma_rxe is no vdpa_rdma device, so the packets between the two take the wire
# whatever same_host says, and the variant would repeat that part exactly.
rxe_peer_only_same_host() { # scenario-name
	same_host_off || return 0
	echo "$1: passed (its rxe part runs with same_host on only)"
	exit 0
}
