// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma memory windows (VIRTIO_RDMA_F_MW), types 1 and 2B.
 *
 * The device owns a window's state: ALLOC_MW gives it an rkey, BIND_MW work
 * requests (posted by the provider for ibv_bind_mw and IBV_WR_BIND_MW)
 * bind and unbind it, LOCAL_INV and SEND_WITH_INV free a type 2 window.
 * Kernel verbs have no bind work request, so only user space binds; the
 * kernel allocates and frees windows for uverbs.
 */

#include "vrdma.h"

static_assert(VIRTIO_RDMA_MW_TYPE_1 == IB_MW_TYPE_1);
static_assert(VIRTIO_RDMA_MW_TYPE_2 == IB_MW_TYPE_2);
static_assert(VIRTIO_RDMA_ACCESS_MW_BIND == IB_ACCESS_MW_BIND);
static_assert(VIRTIO_RDMA_ACCESS_ZERO_BASED == IB_ZERO_BASED);

const struct ib_device_ops vrdma_mw_ops = {
	.alloc_mw = vrdma_alloc_mw,
	.dealloc_mw = vrdma_dealloc_mw,

	INIT_RDMA_OBJ_SIZE(ib_mw, vrdma_mw, ibmw),
};

int vrdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibmw->device);
	struct virtio_rdma_alloc_mw_req req = {};
	struct virtio_rdma_alloc_mw_resp resp;
	struct vrdma_mw *mw = to_vmw(ibmw);
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	req.pd_handle = cpu_to_le32(to_vpd(ibmw->pd)->handle);
	req.type = ibmw->type;
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_ALLOC_MW, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err)
		return err;
	mw->handle = le32_to_cpu(resp.mw_handle);
	ibmw->rkey = le32_to_cpu(resp.rkey);
	/* The key format ties handle and rkey; anything else is a bad device. */
	if (ibmw->rkey >> VIRTIO_RDMA_KEY_INDEX_SHIFT != mw->handle) {
		vrdma_dealloc_mw(ibmw);
		return -EIO;
	}
	return 0;
}

int vrdma_dealloc_mw(struct ib_mw *ibmw)
{
	struct virtio_rdma_dealloc_mw_req req = {};
	struct vrdma_dev *dev = to_vdev(ibmw->device);
	int err;

	req.mw_handle = cpu_to_le32(to_vmw(ibmw)->handle);
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_DEALLOC_MW, &req, sizeof(req),
			NULL, 0);
	/* A window holds no memory of ours: a broken device is reset anyway. */
	return READ_ONCE(dev->broken) ? 0 : err;
}
