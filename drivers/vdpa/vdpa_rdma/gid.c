// SPDX-License-Identifier: GPL-2.0
/* vdpa_rdma: the port's GID table. */
#include "vdpa_rdma.h"

int vrdma_cmd_add_gid(struct vrdma_dev *dev)
{
	const struct virtio_rdma_add_gid_req *req = &dev->req.add_gid;
	u32 index = le32_to_cpu(req->index);
	u32 type = le32_to_cpu(req->gid_type);
	struct vrdma_gid *gid;

	if (index >= VRDMA_GID_TBL_LEN)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (type == VIRTIO_RDMA_GID_TYPE_ROCE_V1)
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	if (type != VIRTIO_RDMA_GID_TYPE_ROCE_V2)
		return VIRTIO_RDMA_STATUS_INVAL;

	gid = &dev->gids[index];
	memcpy(gid->gid, req->gid, sizeof(gid->gid));
	gid->type = type;
	gid->valid = true;
	return VIRTIO_RDMA_STATUS_OK;
}

int vrdma_cmd_del_gid(struct vrdma_dev *dev)
{
	u32 index = le32_to_cpu(dev->req.del_gid.index);

	if (index >= VRDMA_GID_TBL_LEN)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (!dev->gids[index].valid)
		return VIRTIO_RDMA_STATUS_NOENT;
	memset(&dev->gids[index], 0, sizeof(dev->gids[index]));
	return VIRTIO_RDMA_STATUS_OK;
}

void vrdma_gids_clear(struct vrdma_dev *dev)
{
	memset(dev->gids, 0, sizeof(dev->gids));
}
