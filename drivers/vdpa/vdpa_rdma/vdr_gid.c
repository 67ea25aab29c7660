// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The virtio-rdma authors */
/* vdpa_rdma: the port's GID table. */
#include "vdpa_rdma.h"

int vdr_cmd_add_gid(struct vdr_dev *dev)
{
	const struct virtio_rdma_add_gid_req *req = &dev->req.add_gid;
	u32 index = le32_to_cpu(req->index);
	u32 type = le32_to_cpu(req->gid_type);
	struct vdr_gid *gid;

	if (index >= VDR_GID_TBL_LEN)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (type == VIRTIO_RDMA_GID_TYPE_ROCE_V1)
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	if (type != VIRTIO_RDMA_GID_TYPE_ROCE_V2)
		return VIRTIO_RDMA_STATUS_INVAL;

	gid = &dev->gids[index];
	spin_lock(&dev->gid_lock);
	memcpy(gid->gid, req->gid, sizeof(gid->gid));
	WRITE_ONCE(gid->valid, true);
	spin_unlock(&dev->gid_lock);
	return VIRTIO_RDMA_STATUS_OK;
}

int vdr_cmd_del_gid(struct vdr_dev *dev)
{
	u32 index = le32_to_cpu(dev->req.del_gid.index);

	if (index >= VDR_GID_TBL_LEN)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (!dev->gids[index].valid)
		return VIRTIO_RDMA_STATUS_NOENT;
	spin_lock(&dev->gid_lock);
	memset(&dev->gids[index], 0, sizeof(dev->gids[index]));
	spin_unlock(&dev->gid_lock);
	return VIRTIO_RDMA_STATUS_OK;
}

void vdr_gids_clear(struct vdr_dev *dev)
{
	spin_lock(&dev->gid_lock);
	memset(dev->gids, 0, sizeof(dev->gids));
	spin_unlock(&dev->gid_lock);
}
