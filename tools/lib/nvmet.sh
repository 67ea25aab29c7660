# shellcheck shell=bash
# Sourced by tools/scenarios/nvme-rdma and tools/bench/nvme-rdma: an nvmet subsystem
# NQN exporting /dev/nullb0 (null_blk, loaded by the caller) as namespace 1 on an
# rdma port (port 1, ADDR:4420), and the host side's block device for it.
NVMET_CFS=/sys/kernel/config/nvmet

# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

nvmet_export() { # nqn addr
	local sub=$NVMET_CFS/subsystems/$1 port=$NVMET_CFS/ports/1
	mkdir "$sub" || fail "nvmet subsystem"
	echo 1 > "$sub/attr_allow_any_host"
	mkdir "$sub/namespaces/1"
	echo /dev/nullb0 > "$sub/namespaces/1/device_path"
	echo 1 > "$sub/namespaces/1/enable" || fail "namespace enable"
	mkdir "$port"
	echo rdma > "$port/addr_trtype"
	echo ipv4 > "$port/addr_adrfam"
	echo "$2" > "$port/addr_traddr"
	echo 4420 > "$port/addr_trsvcid"
	ln -s "$sub" "$port/subsystems/$1" || fail "nvmet-rdma port"
}

# Undo nvmet_export, as far as it got.
nvmet_unexport() { # nqn
	rm -f "$NVMET_CFS/ports/1/subsystems/$1" 2>/dev/null
	rmdir "$NVMET_CFS/ports/1" 2>/dev/null
	rmdir "$NVMET_CFS/subsystems/$1/namespaces/1" 2>/dev/null
	rmdir "$NVMET_CFS/subsystems/$1" 2>/dev/null
}

# The block device (nvmeXnY) of namespace 1 of the connected subsystem NQN, once
# it exists.
nvme_ns_dev() { # nqn
	local d n
	for d in /sys/class/nvme/nvme*; do
		[ "$(sysfs_read "$d/subsysnqn" 2>/dev/null)" = "$1" ] || continue
		# nvmeXnY, not a multipath controller's hidden path nvmeXcZnY
		for n in "$d"/nvme*n1; do
			n=${n##*/}
			[[ $n =~ ^nvme[0-9]+n1$ ]] && [ -b "/dev/$n" ] && { echo "$n"; return 0; }
		done
	done
	return 1
}
