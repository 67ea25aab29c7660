// SPDX-License-Identifier: GPL-2.0
/* vdpa_rdma: protection domains. */
#include <linux/slab.h>

#include "vdpa_rdma.h"

#define VRDMA_PD_HANDLE_MAX	((1U << 24) - 1)

int vrdma_cmd_create_pd(struct vrdma_dev *dev)
{
	struct vrdma_pd *pd;
	u32 handle;
	int ret;

	if (dev->nr_pds >= VRDMA_MAX_PD)
		return VIRTIO_RDMA_STATUS_NOSPC;
	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	if (!pd)
		return VIRTIO_RDMA_STATUS_NOMEM;
	ret = xa_alloc_cyclic(&dev->pds, &handle, pd,
			      XA_LIMIT(1, VRDMA_PD_HANDLE_MAX), &dev->pd_next,
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

struct vrdma_pd *vrdma_pd_get(struct vrdma_dev *dev, u32 handle)
{
	struct vrdma_pd *pd = xa_load(&dev->pds, handle);

	if (pd)
		pd->refs++;
	return pd;
}

void vrdma_pd_put(struct vrdma_pd *pd)
{
	pd->refs--;
}

static void vrdma_pd_free(struct vrdma_dev *dev, struct vrdma_pd *pd)
{
	xa_erase(&dev->pds, pd->handle);
	dev->nr_pds--;
	kfree_rcu(pd, rcu);
}

int vrdma_cmd_destroy_pd(struct vrdma_dev *dev)
{
	struct vrdma_pd *pd;

	pd = xa_load(&dev->pds, le32_to_cpu(dev->req.destroy_pd.pd_handle));
	if (!pd)
		return VIRTIO_RDMA_STATUS_NOENT;
	if (pd->refs)
		return VIRTIO_RDMA_STATUS_BUSY;
	vrdma_pd_free(dev, pd);
	return VIRTIO_RDMA_STATUS_OK;
}

/* Reset: MRs and QPs are gone already. */
void vrdma_pds_destroy(struct vrdma_dev *dev)
{
	struct vrdma_pd *pd;
	unsigned long idx;

	xa_for_each(&dev->pds, idx, pd)
		vrdma_pd_free(dev, pd);
	dev->pd_next = 0;
}
