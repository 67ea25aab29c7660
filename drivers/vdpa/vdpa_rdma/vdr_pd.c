// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The virtio-rdma authors */
/* vdpa_rdma: protection domains. */
#include <linux/slab.h>

#include "vdpa_rdma.h"

int vdr_cmd_create_pd(struct vdr_dev *dev)
{
	struct vdr_pd *pd;
	u32 handle;
	int ret;

	if (dev->nr_pds >= VDR_MAX_PD)
		return VIRTIO_RDMA_STATUS_NOSPC;
	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return VIRTIO_RDMA_STATUS_NOMEM;
	ret = xa_alloc_cyclic(&dev->pds, &handle, pd,
			      XA_LIMIT(1, VDR_HANDLE_MAX), &dev->pd_next,
			      GFP_KERNEL);
	if (ret < 0) {
		kfree(pd);
		return ret == -EBUSY ? VIRTIO_RDMA_STATUS_NOSPC :
				       VIRTIO_RDMA_STATUS_NOMEM;
	}
	pd->handle = handle;
	dev->nr_pds++;
	dev->resp.create_pd.pd_handle = cpu_to_le32(handle);
	return VIRTIO_RDMA_STATUS_OK;
}

struct vdr_pd *vdr_pd_get(struct vdr_dev *dev, u32 handle)
{
	struct vdr_pd *pd = xa_load(&dev->pds, handle);

	if (pd)
		pd->refs++;
	return pd;
}

void vdr_pd_put(struct vdr_pd *pd)
{
	pd->refs--;
}

static void vdr_pd_free(struct vdr_dev *dev, struct vdr_pd *pd)
{
	xa_erase(&dev->pds, pd->handle);
	dev->nr_pds--;
	kfree_rcu(pd, rcu);
}

int vdr_cmd_destroy_pd(struct vdr_dev *dev)
{
	struct vdr_pd *pd;

	pd = xa_load(&dev->pds, le32_to_cpu(dev->req.destroy_pd.pd_handle));
	if (!pd)
		return VIRTIO_RDMA_STATUS_NOENT;
	if (pd->refs)
		return VIRTIO_RDMA_STATUS_BUSY;
	vdr_pd_free(dev, pd);
	return VIRTIO_RDMA_STATUS_OK;
}

/* Reset: MRs and QPs are gone already. */
void vdr_pds_destroy(struct vdr_dev *dev)
{
	struct vdr_pd *pd;
	unsigned long idx;

	xa_for_each(&dev->pds, idx, pd)
		vdr_pd_free(dev, pd);
	dev->pd_next = 0;
}
