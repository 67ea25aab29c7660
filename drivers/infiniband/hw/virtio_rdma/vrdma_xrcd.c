// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma XRC domains (VIRTIO_RDMA_F_XRC).
 *
 * One device domain per ib_xrcd.  Processes that open the same domain by a
 * file (ibv_open_xrcd) share the ib_xrcd: uverbs finds it by the file's
 * inode and calls alloc_xrcd only for the first and dealloc_xrcd after the
 * last, so the device sees one domain, as the spec asks ("CREATE_XRCD").
 * Target QPs opened by several processes (ibv_open_qp) are likewise one
 * device QP; ib_core hands its events to every opener.
 */

#include "vrdma.h"

const struct ib_device_ops vrdma_xrcd_ops = {
	.alloc_xrcd = vrdma_alloc_xrcd,
	.dealloc_xrcd = vrdma_dealloc_xrcd,

	INIT_RDMA_OBJ_SIZE(ib_xrcd, vrdma_xrcd, ibxrcd),
};

int vrdma_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibxrcd->device);
	struct vrdma_xrcd *xrcd = to_vxrcd(ibxrcd);
	struct virtio_rdma_create_xrcd_resp resp;
	int err;

	/* No driver data either way: the uverbs ABI has none for domains. */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_CREATE_XRCD, NULL, 0, &resp,
			sizeof(resp));
	if (err)
		return err;
	xrcd->handle = le32_to_cpu(resp.xrcd_handle);
	/* 0 names no domain in CREATE_QP and CREATE_SRQ. */
	err = vrdma_check_handle(dev, "XRCD", xrcd->handle, 1, U32_MAX);
	if (err) {
		struct virtio_rdma_destroy_xrcd_req dreq = {
			.xrcd_handle = resp.xrcd_handle,
		};

		/* A domain has no rings: nothing to keep if this fails too. */
		vrdma_create_undo(dev, "XRCD", xrcd->handle, err,
				  VIRTIO_RDMA_CMD_DESTROY_XRCD, &dreq,
				  sizeof(dreq));
		return -EIO;
	}
	return 0;
}

int vrdma_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibxrcd->device);
	struct virtio_rdma_destroy_xrcd_req req = {
		.xrcd_handle = cpu_to_le32(to_vxrcd(ibxrcd)->handle),
	};
	int err;

	/* ib_core destroys the domain's SRQs and target QPs first. */
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_DESTROY_XRCD, &req, sizeof(req),
			NULL, 0);
	/* A broken device holds no state worth keeping: let teardown go on. */
	if (err && READ_ONCE(dev->broken))
		return 0;
	return err;
}
