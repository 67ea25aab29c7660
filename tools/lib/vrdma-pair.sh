# SPDX-License-Identifier: GPL-2.0
# Copyright (c) 2026 The virtio-rdma authors
# shellcheck shell=bash
# Sourced by scenarios: two virtio_rdma devices whose netdevs (va, vb) sit in
# the network namespaces $A and $B, joined by a veth pair, with 192.0.2.1 and
# 192.0.2.2.  Sets ib_a, ib_b (ib_devices) and gi_a, gi_b (the sysfs index of
# their IPv4 RoCE v2 GIDs).  The caller defines fail().
A=vrdma-pair-a
B=vrdma-pair-b

# The sysfs index of a GID, if present.
pair_gid_index() { # ibdev gid
	local f
	for f in "/sys/class/infiniband/$1"/ports/1/gids/*; do
		[ "$(cat "$f" 2>/dev/null)" = "$2" ] && { basename "$f"; return 0; }
	done
	return 1
}
pair_wait_gid() { # ibdev gid
	local t
	for ((t = 0; t < 100; t++)); do
		pair_gid_index "$1" "$2" && return 0
		sleep 0.1
	done
	return 1
}
# The vdpa netlink family lives in the initial namespace only: devices are
# created from there, by MAC; each finds its netdev in whatever namespace.
pair_vdpa_add() { # vdpa-name mac -> ib_device
	local d t
	vdpa dev add mgmtdev vdpa_rdma name "$1" mac "$2" || return 1
	for ((t = 0; t < 200; t++)); do
		for d in /sys/bus/vdpa/devices/$1/virtio*/infiniband/*; do
			[ -e "$d" ] && { basename "$d"; return 0; }
		done
		sleep 0.1
	done
	return 1
}
pair_setup() {
	local m mac_a mac_b ns
	for m in veth vdpa vdpa_rdma virtio_vdpa virtio_rdma; do
		modprobe $m || fail "modprobe $m"
	done
	ip netns add $A && ip netns add $B || fail "ip netns add"
	ip link add va netns $A type veth peer name vb netns $B || fail "veth"
	for ns in $A $B; do ip -n $ns link set lo up; done
	ip -n $A link set va up
	ip -n $B link set vb up
	ip -n $A addr add 192.0.2.1/24 dev va
	ip -n $B addr add 192.0.2.2/24 dev vb
	mac_a=$(ip -n $A -br link show dev va | awk '{ print $3 }')
	mac_b=$(ip -n $B -br link show dev vb | awk '{ print $3 }')
	ib_a=$(pair_vdpa_add vrdma-pa "$mac_a") || fail "device on va"
	ib_b=$(pair_vdpa_add vrdma-pb "$mac_b") || fail "device on vb"
	gi_a=$(pair_wait_gid "$ib_a" 0000:0000:0000:0000:0000:ffff:c000:0201) ||
		fail "$ib_a has no GID for 192.0.2.1"
	gi_b=$(pair_wait_gid "$ib_b" 0000:0000:0000:0000:0000:ffff:c000:0202) ||
		fail "$ib_b has no GID for 192.0.2.2"
	echo "devices: $ib_a (gid $gi_a) in $A, $ib_b (gid $gi_b) in $B"
	ibv_devices | grep -q "$ib_a" || fail "libibverbs does not list $ib_a"
}
pair_teardown() {
	vdpa dev del vrdma-pa
	vdpa dev del vrdma-pb
	ip netns del $A
	ip netns del $B
}
# A hardware counter of an ib_device's port.
pair_counter() { # ibdev name
	rdma statistic show link "$1/1" | tr ' ' '\n' | grep -A1 -x "$2" | tail -n 1
}
# Wait until a TCP port listens: a pingpong or perftest client that finds no
# listener gives up at once, and a server can take seconds to start under TCG.
pair_wait_listen() { # port [command prefix, e.g. ip netns exec NS]
	local port=$1 t
	shift
	for ((t = 0; t < 300; t++)); do
		"$@" ss -Hltn "sport = :$port" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}
