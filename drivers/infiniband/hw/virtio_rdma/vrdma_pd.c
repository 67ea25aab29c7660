// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Copyright (c) 2026 The virtio-rdma authors */
/* virtio-rdma protection domains. */

#include "vrdma.h"

int vrdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibpd->device);
	struct virtio_rdma_create_pd_resp resp;
	int err;

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_CREATE_PD, NULL, 0, &resp,
			sizeof(resp));
	if (err)
		return err;
	to_vpd(ibpd)->handle = le32_to_cpu(resp.pd_handle);
	err = vrdma_check_handle(dev, "PD", to_vpd(ibpd)->handle, 1, U32_MAX);
	if (err) {
		struct virtio_rdma_destroy_pd_req dreq = {
			.pd_handle = resp.pd_handle,
		};

		/* A PD has no rings: nothing to keep if this fails too. */
		vrdma_create_undo(dev, "PD", to_vpd(ibpd)->handle, err,
				  VIRTIO_RDMA_CMD_DESTROY_PD, &dreq,
				  sizeof(dreq));
		return -EIO;
	}
	return 0;
}

int vrdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibpd->device);
	struct virtio_rdma_destroy_pd_req req = {
		.pd_handle = cpu_to_le32(to_vpd(ibpd)->handle),
	};
	int err;

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_DESTROY_PD, &req, sizeof(req),
			NULL, 0);
	/* A broken device holds no state worth keeping: let teardown go on. */
	if (err && READ_ONCE(dev->broken))
		return 0;
	return err;
}
