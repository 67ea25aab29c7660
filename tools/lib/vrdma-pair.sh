# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
# shellcheck shell=bash
# Sourced by scenarios: two virtio_rdma devices whose netdevs (va, vb) sit in
# the network namespaces $A and $B, joined by a veth pair, with 192.0.2.1 and
# 192.0.2.2.  Sets ib_a, ib_b (ib_devices) and gi_a, gi_b (the sysfs index of
# their IPv4 RoCE v2 GIDs).
A=vrdma-pair-a
B=vrdma-pair-b
# The veth ends' MACs, chosen (locally administered) rather than read back from
# the namespaces: a lookup there costs two execs, most of a second each in a
# debug guest.
PAIR_MAC_A=02:00:c0:00:02:01
PAIR_MAC_B=02:00:c0:00:02:02

# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

pair_setup() {
	local mods
	# One exec for the device's modules (each costs most of a second in a debug
	# guest), loading while the namespaces and the veth are made: both are chains
	# of execs that keep one vCPU busy.
	modprobe -a vdpa vdpa_rdma virtio_vdpa virtio_rdma &
	mods=$!
	modprobe veth || fail "modprobe veth"
	ip netns add $A && ip netns add $B || fail "ip netns add"
	ip link add va address $PAIR_MAC_A netns $A type veth \
		peer name vb address $PAIR_MAC_B netns $B || fail "veth"
	ip_batch $A "link set lo up" "link set va up" "addr add 192.0.2.1/24 dev va" ||
		fail "addresses in $A"
	ip_batch $B "link set lo up" "link set vb up" "addr add 192.0.2.2/24 dev vb" ||
		fail "addresses in $B"
	wait $mods || fail "modprobe vdpa vdpa_rdma virtio_vdpa virtio_rdma"
	ib_a=$(vdpa_add_ibdev vrdma-pa $PAIR_MAC_A) || fail "device on va"
	ib_b=$(vdpa_add_ibdev vrdma-pb $PAIR_MAC_B) || fail "device on vb"
	gi_a=$(wait_gid "$ib_a" "$(ipv4_gid 192.0.2.1)") ||
		fail "$ib_a has no GID for 192.0.2.1"
	gi_b=$(wait_gid "$ib_b" "$(ipv4_gid 192.0.2.2)") ||
		fail "$ib_b has no GID for 192.0.2.2"
	echo "devices: $ib_a (gid $gi_a) in $A, $ib_b (gid $gi_b) in $B"
	[[ $(ibv_devices) == *"$ib_a"* ]] || fail "libibverbs does not list $ib_a"
}
# The pair's IPv6 link-local GIDs, once out of DAD (a tentative address neither
# sends nor receives): sets ll_a and ll_b, and their GID indices gi6_a and gi6_b.
pair_ll_ready() { # netns netdev
	! ip -n "$1" -6 addr show dev "$2" scope link | grep -q tentative &&
		ip -n "$1" -6 addr show dev "$2" scope link | grep -q inet6
}
# shellcheck disable=SC2034 # the variables are for the caller
pair_ipv6() {
	ll_a=$(ll_gid "$PAIR_MAC_A")
	ll_b=$(ll_gid "$PAIR_MAC_B")
	poll 20 pair_ll_ready "$A" va && poll 20 pair_ll_ready "$B" vb ||
		fail "no IPv6 link-local address"
	gi6_a=$(wait_gid "$ib_a" "$ll_a") || fail "$ib_a has no GID for $ll_a"
	gi6_b=$(wait_gid "$ib_b" "$ll_b") || fail "$ib_b has no GID for $ll_b"
}
# The path the pair's RoCE packets took: with the same-host path on (the vDPA device's
# sysfs same_host) none crosses the veth; on the wire each one does.  Counted from
# pair_setup, which created both.
pair_check_path() {
	local mode sent veth segs hand inl whand batches batched
	mode=$(sysfs_read "$SYSFS_VDPA/vrdma-pa/same_host") || fail "no same_host switch"
	sent=$(ib_counter "$ib_a" sent_pkts) || fail "no sent_pkts counter"
	veth=$(ip netns exec $A cat /sys/class/net/va/statistics/tx_packets)
	# Messages longer than the path MTU go in segments on the same host only.
	segs=$(cat /sys/kernel/debug/vdpa_rdma/vrdma-pa/same_host_segments) ||
		fail "no same_host_segments in debugfs"
	# Receivers run by their sender's work item: same host only too.
	hand=$(cat /sys/kernel/debug/vdpa_rdma/vrdma-pa/same_host_handoffs) ||
		fail "no same_host_handoffs in debugfs"
	# A user QP's doorbell runs in its system call (the test kernel counts
	# preemption), on either path.
	inl=$(cat /sys/kernel/debug/vdpa_rdma/vrdma-pa/inline_doorbells) ||
		fail "no inline_doorbells in debugfs"
	[ "$sent" -gt 0 ] || fail "$ib_a sent no packet"
	[ "$inl" -gt 0 ] || fail "no doorbell of $ib_a ran in the context that rang it"
	if [ "$mode" = 1 ]; then
		# ARP and IPv6 neighbour discovery still cross it.
		[ "$veth" -lt $((sent / 10 + 20)) ] ||
			fail "same-host path on, yet va sent $veth packets for $sent RoCE packets"
		[ "$segs" -gt 0 ] || fail "same-host path on, yet no segment was sent"
		[ "$hand" -gt 0 ] || fail "same-host path on, yet no receiver ran in its sender's work"
		echo "ok: same-host path: $sent RoCE packets, $segs same-host segments among them, $hand handoffs, $inl doorbells in the caller, $veth on va"
	else
		# A run's packets to one peer cross the veth as one GSO packet.
		batches=$(cat /sys/kernel/debug/vdpa_rdma/vrdma-pa/wire_batches) ||
			fail "no wire_batches in debugfs"
		batched=$(cat /sys/kernel/debug/vdpa_rdma/vrdma-pa/wire_batched) ||
			fail "no wire_batched in debugfs"
		[ $((veth + batched - batches)) -ge "$sent" ] ||
			fail "wire path, yet va sent only $veth packets ($batches of them carrying $batched RoCE packets) for $sent RoCE packets"
		[ "$(cat /sys/module/vdpa_rdma/parameters/wire_batch)" = N ] ||
			[ "$batches" -gt 0 ] ||
			fail "wire path, yet no run's packets left as one GSO packet"
		[ "$segs" -eq 0 ] || fail "wire path, yet $segs same-host segments"
		[ "$hand" -eq 0 ] || fail "wire path, yet $hand same-host handoffs"
		# The veth delivers in the sender's softirq: its receiver runs next.
		whand=$(cat /sys/kernel/debug/vdpa_rdma/vrdma-pa/wire_handoffs) ||
			fail "no wire_handoffs in debugfs"
		[ "$whand" -gt 0 ] || fail "wire path, yet no receiver ran in its sender's work"
		echo "ok: wire path: $sent RoCE packets, $inl doorbells in the caller, $whand handoffs, $veth on va, $batched of them in $batches GSO packets"
	fi
}
pair_teardown() {
	vdpa dev del vrdma-pa
	vdpa dev del vrdma-pb
	ip netns del $A
	ip netns del $B
}
