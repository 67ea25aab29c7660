# shellcheck shell=bash
# Sourced by every guest scenario (tools/scenarios/*), by the other tools/lib/*.sh,
# tools/bench and tools/vrdma: reporting (fail, check), bounded waits on a real
# condition (poll, wait_for and the listener, GID and device waits built on it) and
# the sysfs/netlink lookups the scenarios share.  Waits poll every 0.1 s: under TCG
# with KASAN a guest can take seconds to do what a host does at once, and a fixed
# sleep is either too short there or wasted everywhere else.
#
# Sourcing it twice is harmless (the libraries source it themselves).
[ -n "${VRDMA_COMMON_SH:-}" ] && return 0
VRDMA_COMMON_SH=1

SYSFS_IB=/sys/class/infiniband
SYSFS_VDPA=/sys/bus/vdpa/devices

# How much of the kernel log a failure shows; a scenario may raise it.
FAIL_DMESG_LINES=${FAIL_DMESG_LINES:-40}
# A function fail() runs before exiting (undoing what a long scenario set up),
# once: a failure inside it does not call it again.
FAIL_CLEANUP=${FAIL_CLEANUP:-}

# Report a failure with the end of the kernel log and exit 1.  On stderr, so
# that a fail() inside a function whose stdout is captured still shows.
fail() {
	local cleanup=$FAIL_CLEANUP
	echo "FAIL: $*" >&2
	dmesg | tail -n "$FAIL_DMESG_LINES" >&2
	FAIL_CLEANUP=
	[ -z "$cleanup" ] || "$cleanup"
	exit 1
}

# An exact comparison, reported either way.
check() { # what expected actual
	if [ "$2" = "$3" ]; then
		echo "ok: $1: '$3'"
	else
		fail "$1: expected '$2', got '$3'"
	fi
}

# sleep(1) without an exec for a number of seconds: an exec costs a debug guest
# under TCG a good part of a second of CPU, which every poll below would take from
# the processes and removals it waits for (tools/scenarios/teardown-traffic's
# removals took seconds longer).  A read that times out on a pipe that nothing
# writes to and that never ends (opened for writing too).
exec {VRDMA_NAP_FD}<> <(:)
sleep() {
	if [[ $# -eq 1 && $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
		read -rt "$1" -u "$VRDMA_NAP_FD"
		return 0
	fi
	command sleep "$@"
}

# The debug kernel (KASAN, lockdep, and kmemleak unless booted without it), where
# scenarios move less data than on the perf kernel.  By lockdep's file: kmemleak's
# is absent from a boot with kmemleak=off (tools/check, '# kmemleak: off').
debug_kernel() { [ -e /proc/lockdep ]; }

# A module is loaded (or built in with parameters): a test without an exec.
module_loaded() { [ -d "/sys/module/$1" ]; }

# vdpa_rdma's same_host switch is off for new devices: a '/wire' variant
# (tools/check) runs, once the module is loaded.
same_host_off() {
	[ "$(sysfs_read /sys/module/vdpa_rdma/parameters/same_host 2>/dev/null)" = N ]
}

# Run CMD every 0.1 s until it succeeds (0) or SECONDS have passed (1).
poll() { # seconds cmd...
	local n=$(($1 * 10)) t
	shift
	for ((t = 0; t < n; t++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# poll(), and fail() when the time is up.
wait_for() { # seconds what cmd...
	local s=$1 what=$2
	shift 2
	poll "$s" "$@" || fail "$what (waited $s s)"
	echo "ok: $what"
}

# --- listeners -------------------------------------------------------------------
# A pingpong or perftest client that finds no listener gives up at once, and a
# server can take seconds to start under TCG: wait (30 s) for its TCP port.
# PREFIX runs the lookup elsewhere, e.g. "ip netns exec NS".
# Read from /proc without an exec where it can (the poll runs three of them a time
# otherwise): /proc/PID/net/ is the view of PID's network namespace, so a process in
# namespace NS shows NS's sockets.
tcp_listening() { # port [prefix...]
	local port=$1 hex p dir=/proc/self/net f laddr st
	shift
	if [ $# -eq 4 ] && [ "$1 $2 $3" = "ip netns exec" ]; then
		dir=""
		for p in /proc/[0-9]*; do
			[ "$p/ns/net" -ef "/run/netns/$4" ] && { dir=$p/net; break; }
		done
		[ -n "$dir" ] || return 1	# nothing runs there yet, so nothing listens
	elif [ $# -gt 0 ]; then
		"$@" ss -Hltn "sport = :$port" | grep -q .
		return
	fi
	printf -v hex '%04X' "$port"
	for f in "$dir/tcp" "$dir/tcp6"; do
		[ -r "$f" ] || continue
		# sl local_address rem_address st ...; st 0A is LISTEN
		while read -r _ laddr _ st _; do
			[ "$st" = 0A ] && [ "${laddr##*:}" = "$hex" ] && return 0
		done < "$f"
	done
	return 1
}
wait_tcp_listen() { # port [prefix...]
	poll 30 tcp_listening "$@"
}

# The same for an rdma_cm listener (rping and other rdma_cm servers).
cm_listening() { # port [prefix...]
	local port=$1
	shift
	"$@" rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN.*:$port\b"
}
wait_cm_listen() { # port [prefix...]
	poll 30 cm_listening "$@"
}

# --- users -------------------------------------------------------------------------
# User-space tests run as users run them: as an unprivileged uid (one no distribution
# ships; setpriv needs no passwd entry) with Debian's default RLIMIT_MEMLOCK, 8 MiB.
# asA and asB prefix a command to run it as user A or B: uid, gid and groups, and
# setresuid away from 0 clears every capability.  Arrays, so that timeout(1) and
# ip netns exec can run them.  user_limits sets the memory lock limit, soft and hard,
# of the calling shell and all it starts (the guest's init makes it unlimited; the
# users cannot raise it back, and root's CAP_IPC_LOCK ignores it).  ib_uverbs and
# rdma_ucm create their nodes 0666 themselves, as distributions rely on.
UID_A=60001 UID_B=60002
MEMLOCK=$((8 << 20))
# shellcheck disable=SC2034
asA=(setpriv "--reuid=$UID_A" "--regid=$UID_A" --clear-groups --)
# shellcheck disable=SC2034
asB=(setpriv "--reuid=$UID_B" "--regid=$UID_B" --clear-groups --)
user_limits() {
	ulimit -l $((MEMLOCK >> 10)) || fail "ulimit -l"
}

# --- addresses and GIDs ----------------------------------------------------------
# Run ip commands (one per argument, e.g. "link set lo up") in network namespace NS
# ("" for the initial one) with a single exec: each costs most of a second in a
# debug-kernel guest.
ip_batch() { # ns command...
	local ns=$1
	shift
	printf '%s\n' "$@" | ip ${ns:+-n "$ns"} -batch -
}

# A netdev's MAC ("ip -br link" prints NAME STATE MAC FLAGS), optionally in NS.
mac_of() { # netdev [netns]
	ip ${2:+-n "$2"} -br link show dev "$1" 2>/dev/null | awk '{ print $3 }'
}

# The modified EUI-64 of a MAC, as sysfs prints node_guid and the interface
# identifier of a GID: the universal/local bit flipped, ff:fe in the middle.
eui64() { # mac
	local IFS=: b
	read -ra b <<< "$1"
	printf '%02x%s:%s%s:%s%s:%s%s\n' $((0x${b[0]} ^ 2)) "${b[1]}" "${b[2]}" ff fe \
		"${b[3]}" "${b[4]}" "${b[5]}"
}

# The IPv6 link-local address of a MAC (GID 0 of a RoCE port), as sysfs prints a GID.
ll_gid() { # mac
	echo "fe80:0000:0000:0000:$(eui64 "$1")"
}

# The IPv4-mapped GID of a dotted quad, as sysfs prints a GID.
ipv4_gid() { # a.b.c.d
	local a b c d
	IFS=. read -r a b c d <<< "$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
}

# One line of a sysfs file, read without an exec (each costs most of a second
# in a KASAN guest under TCG, and the waits below read sysfs every 0.1 s).
sysfs_read() { # file
	local v
	IFS= read -r v < "$1" || [ -n "$v" ] || return 1
	echo "$v"
}

# An attribute of an ib_device's port 1 (state, phys_state, gids/N, ...).
port_attr() { # ibdev attr
	sysfs_read "$SYSFS_IB/$1/ports/1/$2"
}
port_state_is() { # ibdev state, as sysfs prints it ("4: ACTIVE")
	[ "$(port_attr "$1" state)" = "$2" ]
}

# The sysfs index of a GID on port 1, if present; with TYPE ("RoCE v2") only an
# entry of that type (rxe lists every IP GID twice, as RoCE v1 and v2).
gid_index() { # ibdev gid [type]
	local f i
	for f in "$SYSFS_IB/$1"/ports/1/gids/*; do
		[ "$(sysfs_read "$f" 2>/dev/null)" = "$2" ] || continue
		i=${f##*/}
		if [ -n "${3:-}" ]; then
			[ "$(port_attr "$1" "gid_attrs/types/$i" 2>/dev/null)" = "$3" ] || continue
		fi
		echo "$i"
		return 0
	done
	return 1
}
has_gid() { # ibdev gid [type]
	gid_index "$@" > /dev/null
}
# gid_index once the GID table has the entry (10 s).
wait_gid() { # ibdev gid [type]
	poll 10 has_gid "$@" && gid_index "$@"
}

# A hardware counter of an ib_device's port 1; status 1 (and no output) if the
# port has no such counter.  From sysfs where the device lists it there (no exec),
# else from rdma statistic.
ib_counter() { # ibdev name
	sysfs_read "$SYSFS_IB/$1/ports/1/hw_counters/$2" 2>/dev/null && return 0
	rdma statistic show link "$1/1" 2>/dev/null | awk -v k="$2" '
		{ for (i = 1; i <= NF; i++) { if (at) { print $i; f = 1; exit } at = $i == k } }
		END { exit !f }'
}

# --- devices -----------------------------------------------------------------------
# The ib_device registered on top of vDPA device NAME, if any.
vdpa_ibdev() { # vdpa-name
	local d
	for d in "$SYSFS_VDPA/$1"/virtio*/infiniband/*; do
		[ -e "$d" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

# Create a vdpa_rdma device for the netdev with MAC and print its ib_device once
# the driver registered it (20 s).  The vdpa netlink family lives in the initial
# namespace only: devices are created from there, by MAC; each finds its netdev
# in whatever namespace.
vdpa_add_ibdev() { # vdpa-name mac
	vdpa dev add mgmtdev vdpa_rdma name "$1" mac "$2" || return 1
	poll 20 vdpa_ibdev "$1" > /dev/null && vdpa_ibdev "$1"
}
