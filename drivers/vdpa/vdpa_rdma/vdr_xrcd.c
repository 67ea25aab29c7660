// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: XRC domains (VIRTIO_RDMA_F_XRC).
 *
 * A domain is only a name that XRC SRQs and XRC_TGT QPs share: a target
 * QP delivers to the SRQs of its own domain.  The device keeps no state
 * in it but the count of those objects, which keeps it from going while
 * they exist (spec "CREATE_XRCD / DESTROY_XRCD").
 */
#include <linux/slab.h>

#include "vdpa_rdma.h"

int vdr_cmd_create_xrcd(struct vdr_dev *dev)
{
	struct vdr_xrcd *xrcd;
	u32 handle;
	int ret;

	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_XRC))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	if (dev->nr_xrcds >= VDR_MAX_XRCD)
		return VIRTIO_RDMA_STATUS_NOSPC;
	xrcd = kzalloc(sizeof(*xrcd), VDR_GFP_OBJ);
	if (!xrcd)
		return VIRTIO_RDMA_STATUS_NOMEM;
	ret = xa_alloc_cyclic(&dev->xrcds, &handle, xrcd,
			      XA_LIMIT(1, VDR_HANDLE_MAX), &dev->xrcd_next,
			      GFP_KERNEL);
	if (ret < 0) {
		kfree(xrcd);
		return ret == -EBUSY ? VIRTIO_RDMA_STATUS_NOSPC :
				       VIRTIO_RDMA_STATUS_NOMEM;
	}
	xrcd->handle = handle;
	dev->nr_xrcds++;
	dev->resp.create_xrcd.xrcd_handle = cpu_to_le32(handle);
	return VIRTIO_RDMA_STATUS_OK;
}

/* A use of the domain @handle by a new object; NULL when there is none. */
struct vdr_xrcd *vdr_xrcd_get(struct vdr_dev *dev, u32 handle)
{
	struct vdr_xrcd *xrcd = xa_load(&dev->xrcds, handle);

	if (xrcd)
		xrcd->refs++;
	return xrcd;
}

void vdr_xrcd_put(struct vdr_xrcd *xrcd)
{
	xrcd->refs--;
}

static void vdr_xrcd_free(struct vdr_dev *dev, struct vdr_xrcd *xrcd)
{
	xa_erase(&dev->xrcds, xrcd->handle);
	dev->nr_xrcds--;
	/*
	 * Nothing refers to it any more; the data path only ever compared
	 * the pointers its SRQs and target QPs held.
	 */
	kfree_rcu(xrcd, rcu);
}

int vdr_cmd_destroy_xrcd(struct vdr_dev *dev)
{
	u32 handle = le32_to_cpu(dev->req.destroy_xrcd.xrcd_handle);
	struct vdr_xrcd *xrcd;

	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_XRC))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	xrcd = xa_load(&dev->xrcds, handle);
	if (!xrcd)
		return VIRTIO_RDMA_STATUS_NOENT;
	if (xrcd->refs)
		return VIRTIO_RDMA_STATUS_BUSY;
	vdr_xrcd_free(dev, xrcd);
	return VIRTIO_RDMA_STATUS_OK;
}

/* Reset: the SRQs and QPs are gone already. */
void vdr_xrcds_destroy(struct vdr_dev *dev)
{
	struct vdr_xrcd *xrcd;
	unsigned long idx;

	xa_for_each(&dev->xrcds, idx, xrcd)
		vdr_xrcd_free(dev, xrcd);
	dev->xrcd_next = 0;
}
