// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma GID table.  ib_core builds the table from the bound netdev's
 * addresses (ib_device_set_netdev) and mirrors each entry to the device,
 * which uses it for source addresses and to accept incoming packets.
 */

#include "vrdma.h"

int vrdma_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct vrdma_dev *dev = to_vdev(attr->device);
	struct virtio_rdma_add_gid_req req = {
		.index = cpu_to_le32(attr->index),
	};

	switch (attr->gid_type) {
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
		req.gid_type = cpu_to_le32(VIRTIO_RDMA_GID_TYPE_ROCE_V2);
		break;
	case IB_GID_TYPE_ROCE:
		req.gid_type = cpu_to_le32(VIRTIO_RDMA_GID_TYPE_ROCE_V1);
		break;
	default:
		return -EOPNOTSUPP;
	}
	memcpy(req.gid, attr->gid.raw, sizeof(req.gid));
	return vrdma_cmd(dev, VIRTIO_RDMA_CMD_ADD_GID, &req, sizeof(req),
			 NULL, 0);
}

int vrdma_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct vrdma_dev *dev = to_vdev(attr->device);
	struct virtio_rdma_del_gid_req req = {
		.index = cpu_to_le32(attr->index),
	};
	int err;

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_DEL_GID, &req, sizeof(req),
			NULL, 0);
	return err && READ_ONCE(dev->broken) ? 0 : err;
}
