# shellcheck shell=bash
# Sourced by tools/bench/guest: the benchmark's devices, three veth pairs of one MTU,
# so that virtio_rdma, rdma_rxe and siw can all be measured in one guest.
#
#   virtio_rdma  va/vb in netns vrdma-pair-a/b (tools/lib/vrdma-pair.sh's names and
#                helpers), 192.0.2.1/.2, vDPA devices vrdma-pa/vrdma-pb
#   rxe          ra/rb, both in the initial netns (rxe 6.12 receives on a UDP socket
#                there only), 192.0.2.21/.22 as /32 addresses.  Two addresses of one
#                namespace would reach each other through lo, where rxe drops what it
#                receives (no rxe device on lo); policy routing sends what leaves
#                through ra (rb) to the peer over the veth, and accept_local lets the
#                peer take a packet whose source is one of its own namespace's
#                addresses.  Policy routing needs CONFIG_IP_MULTIPLE_TABLES; without
#                it BENCH_RXE_WIRE is 0 and rxe is measured on its loopback only.
#   siw          sa/sb in netns bench-siw-a/b, 192.0.2.41/.42
#
# bench_use NAME sets the variables tools/bench/guest's pt() runs perftest with:
# SRV_PRE/CLI_PRE (command prefixes: the namespace), SRV_DEV/CLI_DEV (ib devices),
# SRV_ADDR/CLI_ADDR (perftest's GID index or -R), SRV_IP (the server's address) and
# CM (non-empty when perftest connects through rdma_cm).  The caller defines fail().
# shellcheck disable=SC2034 # the variables are the interface to the caller

# shellcheck source-path=SCRIPTDIR source=../lib/vrdma-pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/vrdma-pair.sh"

SIW_A=bench-siw-a
SIW_B=bench-siw-b
BENCH_RXE_A=192.0.2.21
BENCH_RXE_B=192.0.2.22

# A veth pair with one end in each of two namespaces ("" = the initial one).
bench_veth() { # nsA devA ipA/len nsB devB ipB/len mtu
	local nsa=$1 deva=$2 ipa=$3 nsb=$4 devb=$5 ipb=$6 mtu=$7
	ip link add "$deva" ${nsa:+netns "$nsa"} type veth \
		peer name "$devb" ${nsb:+netns "$nsb"} || return 1
	ip ${nsa:+-n "$nsa"} link set "$deva" mtu "$mtu" up &&
		ip ${nsb:+-n "$nsb"} link set "$devb" mtu "$mtu" up &&
		ip ${nsa:+-n "$nsa"} addr add "$ipa" dev "$deva" &&
		ip ${nsb:+-n "$nsb"} addr add "$ipb" dev "$devb"
}

bench_mac() { # ns dev
	ip ${1:+-n "$1"} -br link show dev "$2" | awk '{ print $3 }'
}

# What leaves through ra goes to rb over the veth and back: table 100 (101) for
# packets routed out of ra (rb), looked up before the local table, which moves
# from preference 0 to 1000.  Received packets have no output interface and still
# find their address in the local table.  Static neighbours spare ARP.
bench_rxe_routes() { # mac_a mac_b
	ip route add $BENCH_RXE_B dev ra src $BENCH_RXE_A table 100 || return 1
	ip route add $BENCH_RXE_A dev rb src $BENCH_RXE_B table 101 || return 1
	ip rule add pref 100 oif ra lookup 100 || return 1
	ip rule add pref 101 oif rb lookup 101 || return 1
	ip rule add pref 1000 lookup local || return 1
	ip rule del pref 0 lookup local || return 1
	ip neigh replace $BENCH_RXE_B lladdr "$2" dev ra nud permanent || return 1
	ip neigh replace $BENCH_RXE_A lladdr "$1" dev rb nud permanent
}

bench_rxe_unroute() {
	ip rule del pref 100 2>/dev/null
	ip rule del pref 101 2>/dev/null
	ip rule show pref 0 2>/dev/null | grep -q . ||
		ip rule add pref 0 lookup local 2>/dev/null
	ip rule del pref 1000 2>/dev/null
	return 0
}

bench_net_setup() { # devices mtu
	local devs=" $1 " mtu=$2 m ns mac_a mac_b mods="veth rdma_ucm"
	[[ $devs == *" virtio_rdma "* ]] && mods+=" vdpa vdpa_rdma virtio_vdpa virtio_rdma"
	[[ $devs == *" rxe "* ]] && mods+=" rdma_rxe"
	[[ $devs == *" siw "* ]] && mods+=" siw"
	for m in $mods; do
		modprobe "$m" || fail "modprobe $m"
	done
	ip link set lo up

	if [[ $devs == *" virtio_rdma "* ]]; then
		ip netns add "$A" || fail "ip netns add $A"
		ip netns add "$B" || fail "ip netns add $B"
		for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
		bench_veth "$A" va 192.0.2.1/24 "$B" vb 192.0.2.2/24 "$mtu" ||
			fail "veth va/vb"
		ib_a=$(vdpa_add_ibdev vrdma-pa "$(bench_mac "$A" va)") || fail "device on va"
		ib_b=$(vdpa_add_ibdev vrdma-pb "$(bench_mac "$B" vb)") || fail "device on vb"
		gi_a=$(wait_gid "$ib_a" "$(ipv4_gid 192.0.2.1)") ||
			fail "$ib_a has no GID for 192.0.2.1"
		gi_b=$(wait_gid "$ib_b" "$(ipv4_gid 192.0.2.2)") ||
			fail "$ib_b has no GID for 192.0.2.2"
		echo "virtio_rdma: $ib_a (gid $gi_a) in $A, $ib_b (gid $gi_b) in $B"
	fi

	if [[ $devs == *" rxe "* ]]; then
		bench_veth "" ra $BENCH_RXE_A/32 "" rb $BENCH_RXE_B/32 "$mtu" ||
			fail "veth ra/rb"
		mac_a=$(bench_mac "" ra)
		mac_b=$(bench_mac "" rb)
		BENCH_RXE_WIRE=1
		if ! bench_rxe_routes "$mac_a" "$mac_b" 2>/dev/null; then
			# Without CONFIG_IP_MULTIPLE_TABLES (ip rule: "Operation not
			# supported") the two ends cannot reach each other over the veth.
			BENCH_RXE_WIRE=0
			bench_rxe_unroute
			echo "rxe: no policy routing in this kernel: rxe only on its loopback"
		fi
		for m in all ra rb; do
			sysctl -qw "net.ipv4.conf.$m.accept_local=1" \
				"net.ipv4.conf.$m.rp_filter=0" || fail "sysctl $m"
		done
		rdma link add rxe_a type rxe netdev ra || fail "rdma link add rxe_a"
		rdma link add rxe_b type rxe netdev rb || fail "rdma link add rxe_b"
		gi_ra=$(wait_gid rxe_a "$(ipv4_gid $BENCH_RXE_A)" "RoCE v2") ||
			fail "rxe_a has no RoCE v2 GID for $BENCH_RXE_A"
		gi_rb=$(wait_gid rxe_b "$(ipv4_gid $BENCH_RXE_B)" "RoCE v2") ||
			fail "rxe_b has no RoCE v2 GID for $BENCH_RXE_B"
		echo "rxe: rxe_a (gid $gi_ra) on ra, rxe_b (gid $gi_rb) on rb, initial netns"
	fi

	if [[ $devs == *" siw "* ]]; then
		ip netns add $SIW_A || fail "ip netns add $SIW_A"
		ip netns add $SIW_B || fail "ip netns add $SIW_B"
		for ns in $SIW_A $SIW_B; do ip -n "$ns" link set lo up; done
		bench_veth $SIW_A sa 192.0.2.41/24 $SIW_B sb 192.0.2.42/24 "$mtu" ||
			fail "veth sa/sb"
		ip netns exec $SIW_A rdma link add siw_a type siw netdev sa ||
			fail "rdma link add siw_a"
		ip netns exec $SIW_B rdma link add siw_b type siw netdev sb ||
			fail "rdma link add siw_b"
		echo "siw: siw_a on sa in $SIW_A, siw_b on sb in $SIW_B"
	fi
}

bench_use() { # virtio_rdma | rxe | rxe-loop | siw
	CM=""
	case $1 in
	virtio_rdma)
		SRV_PRE="ip netns exec $A" CLI_PRE="ip netns exec $B"
		SRV_DEV=$ib_a CLI_DEV=$ib_b SRV_ADDR="-x $gi_a" CLI_ADDR="-x $gi_b"
		SRV_IP=192.0.2.1 ;;
	rxe)
		SRV_PRE="" CLI_PRE=""
		SRV_DEV=rxe_a CLI_DEV=rxe_b SRV_ADDR="-x $gi_ra" CLI_ADDR="-x $gi_rb"
		SRV_IP=$BENCH_RXE_A ;;
	rxe-loop)
		SRV_PRE="" CLI_PRE=""
		SRV_DEV=rxe_a CLI_DEV=rxe_a SRV_ADDR="-x $gi_ra" CLI_ADDR="-x $gi_ra"
		SRV_IP=$BENCH_RXE_A ;;
	siw)
		SRV_PRE="ip netns exec $SIW_A" CLI_PRE="ip netns exec $SIW_B"
		# A wildcard rdma_cm listen listens on every iWARP device, siw_b's too,
		# from this namespace, and fails ("rdma_listen failed"): bind both ends.
		SRV_DEV=siw_a CLI_DEV=siw_b CM=1
		SRV_ADDR="-R --source_ip 192.0.2.41" CLI_ADDR="-R --source_ip 192.0.2.42"
		SRV_IP=192.0.2.41 ;;
	esac
}

bench_net_teardown() {
	local d
	for d in vrdma-pa vrdma-pb; do
		[ -e "/sys/bus/vdpa/devices/$d" ] && vdpa dev del $d
	done
	for d in rxe_a rxe_b; do
		[ -e "/sys/class/infiniband/$d" ] && rdma link delete $d
	done
	ip netns exec $SIW_A rdma link delete siw_a 2>/dev/null
	ip netns exec $SIW_B rdma link delete siw_b 2>/dev/null
	ip link del ra 2>/dev/null
	bench_rxe_unroute
	for d in "$A" "$B" $SIW_A $SIW_B; do
		ip netns del "$d" 2>/dev/null
	done
	# rdma_rxe holds UDP 4791 of the initial namespace while it is loaded, where the
	# NVMe runs put a virtio_rdma device next.
	modprobe -r rdma_rxe 2>/dev/null
	return 0
}
