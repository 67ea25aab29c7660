// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: controlq command dispatch, QUERY_DEVICE and QUERY_PORT.
 *
 * Commands are untrusted: the chain's shape is checked against the
 * command's request and response sizes before anything is read, and
 * nothing is written past the device-writable part.
 */
#include <linux/etherdevice.h>

#include "vdpa_rdma.h"

#define VDR_CTRL_BUDGET	32

typedef int (*vdr_cmd_fn)(struct vdr_dev *dev);

struct vdr_cmd_desc {
	u16 req_size;
	u16 resp_size;
	vdr_cmd_fn fn;
};

static int vdr_cmd_query_device(struct vdr_dev *dev)
{
	struct virtio_rdma_query_device_resp *r = &dev->resp.query_device;
	const u8 *mac = dev->mac;

	/* Modified EUI-64 of the MAC. */
	r->node_guid[0] = mac[0] ^ 0x02;
	r->node_guid[1] = mac[1];
	r->node_guid[2] = mac[2];
	r->node_guid[3] = 0xff;
	r->node_guid[4] = 0xfe;
	r->node_guid[5] = mac[3];
	r->node_guid[6] = mac[4];
	r->node_guid[7] = mac[5];
	memcpy(r->sys_image_guid, r->node_guid, sizeof(r->node_guid));

	r->fw_ver = cpu_to_le64(VDR_FW_VER);
	r->max_mr_size = cpu_to_le64(VDR_MAX_MR_SIZE);
	r->page_size_cap = cpu_to_le64(VDR_PAGE_SIZE_CAP);
	r->vendor_id = cpu_to_le32(VDR_VENDOR_ID);
	r->vendor_part_id = cpu_to_le32(VDR_VENDOR_PART_ID);
	r->hw_ver = cpu_to_le32(VDR_HW_VER);
	r->max_qp = cpu_to_le32(VDR_MAX_QP);
	r->max_qp_wr = cpu_to_le32(VDR_MAX_QP_WR);
	r->max_send_sge = cpu_to_le32(VDR_MAX_SGE);
	r->max_recv_sge = cpu_to_le32(VDR_MAX_SGE);
	r->max_sge_rd = cpu_to_le32(VDR_MAX_SGE_RD);
	r->max_cq = cpu_to_le32(VDR_MAX_CQ);
	r->max_cqe = cpu_to_le32(VDR_MAX_CQE);
	r->max_mr = cpu_to_le32(VDR_MAX_MR);
	r->max_pd = cpu_to_le32(VDR_MAX_PD);
	r->max_qp_rd_atom = cpu_to_le32(VDR_MAX_RD_ATOM);
	r->max_qp_init_rd_atom = cpu_to_le32(VDR_MAX_RD_ATOM);
	r->max_ah = cpu_to_le32(VDR_MAX_AH);
	r->max_fast_reg_page_list_len = cpu_to_le32(VDR_MAX_FRPL_LEN);
	r->max_inline_data = cpu_to_le32(VDR_MAX_INLINE);
	r->max_pkeys = cpu_to_le16(1);
	r->local_ca_ack_delay = VDR_LOCAL_CA_ACK_DELAY;
	r->atomic_cap = vdr_has_feature(dev, VIRTIO_RDMA_F_ATOMIC) ?
			VIRTIO_RDMA_ATOMIC_HCA : VIRTIO_RDMA_ATOMIC_NONE;
	r->device_cap_flags =
		cpu_to_le64(VIRTIO_RDMA_DEVICE_CAP_MEM_MGT_EXTENSIONS |
			    VIRTIO_RDMA_DEVICE_CAP_RC_RNR_NAK_GEN |
			    VIRTIO_RDMA_DEVICE_CAP_PORT_ACTIVE_EVENT |
			    VIRTIO_RDMA_DEVICE_CAP_SYS_IMAGE_GUID |
			    VIRTIO_RDMA_DEVICE_CAP_CURR_QP_STATE_MOD);
	r->max_msg_sz = cpu_to_le32(VDR_MAX_MSG_SZ);
	r->max_sq_wqe_shift = VDR_MAX_SQ_WQE_SHIFT;
	r->max_rq_wqe_shift = VDR_MAX_RQ_WQE_SHIFT;
	if (vdr_has_feature(dev, VIRTIO_RDMA_F_SRQ)) {
		r->max_srq = cpu_to_le32(VDR_MAX_SRQ);
		r->max_srq_wr = cpu_to_le32(VDR_MAX_SRQ_WR);
		r->max_srq_sge = cpu_to_le32(VDR_MAX_SRQ_SGE);
	}
	if (vdr_has_feature(dev, VIRTIO_RDMA_F_MW))
		r->max_mw = cpu_to_le32(VDR_MAX_MW);
	if (vdr_has_feature(dev, VIRTIO_RDMA_F_INDIRECT_MKEY))
		r->max_mkey_entries = cpu_to_le32(VDR_MAX_MKEY_ENTRIES);
	if (vdr_has_feature(dev, VIRTIO_RDMA_F_TM_SRQ)) {
		r->max_tm_tags = cpu_to_le32(VDR_TM_MAX_TAGS);
		r->max_tm_ops = cpu_to_le32(VDR_TM_MAX_OPS);
		r->max_tm_sge = cpu_to_le32(VDR_TM_MAX_SGE);
		r->max_rndv_hdr_size = cpu_to_le32(VDR_TM_MAX_RNDV_HDR);
	}
	return VIRTIO_RDMA_STATUS_OK;
}

static int vdr_cmd_query_port(struct vdr_dev *dev)
{
	if (le32_to_cpu(dev->req.query_port.port) != 1)
		return VIRTIO_RDMA_STATUS_INVAL;
	vdr_netdev_port_attr(dev, &dev->resp.query_port);
	return VIRTIO_RDMA_STATUS_OK;
}

static int vdr_cmd_stats(struct vdr_dev *dev)
{
	vdr_cmd_query_stats(dev);
	return VIRTIO_RDMA_STATUS_OK;
}

#define VDR_CMD(name, req, resp, handler)				\
	[VIRTIO_RDMA_CMD_##name] = { .req_size = (req),		\
				     .resp_size = (resp), .fn = (handler) }

static const struct vdr_cmd_desc vdr_cmds[] = {
	VDR_CMD(QUERY_DEVICE, 0,
		sizeof(struct virtio_rdma_query_device_resp),
		vdr_cmd_query_device),
	VDR_CMD(QUERY_PORT, sizeof(struct virtio_rdma_query_port_req),
		sizeof(struct virtio_rdma_query_port_resp),
		vdr_cmd_query_port),
	VDR_CMD(CREATE_PD, 0, sizeof(struct virtio_rdma_create_pd_resp),
		vdr_cmd_create_pd),
	VDR_CMD(DESTROY_PD, sizeof(struct virtio_rdma_destroy_pd_req), 0,
		vdr_cmd_destroy_pd),
	VDR_CMD(GET_DMA_MR, sizeof(struct virtio_rdma_get_dma_mr_req),
		sizeof(struct virtio_rdma_mr_resp), vdr_cmd_get_dma_mr),
	VDR_CMD(CREATE_MR, sizeof(struct virtio_rdma_create_mr_req),
		sizeof(struct virtio_rdma_mr_resp), vdr_cmd_create_mr),
	VDR_CMD(ALLOC_MR, sizeof(struct virtio_rdma_alloc_mr_req),
		sizeof(struct virtio_rdma_mr_resp), vdr_cmd_alloc_mr),
	VDR_CMD(DEREG_MR, sizeof(struct virtio_rdma_dereg_mr_req), 0,
		vdr_cmd_dereg_mr),
	VDR_CMD(CREATE_CQ, sizeof(struct virtio_rdma_create_cq_req),
		sizeof(struct virtio_rdma_create_cq_resp),
		vdr_cmd_create_cq),
	VDR_CMD(DESTROY_CQ, sizeof(struct virtio_rdma_destroy_cq_req), 0,
		vdr_cmd_destroy_cq),
	VDR_CMD(CREATE_QP, sizeof(struct virtio_rdma_create_qp_req),
		sizeof(struct virtio_rdma_create_qp_resp),
		vdr_cmd_create_qp),
	VDR_CMD(MODIFY_QP, sizeof(struct virtio_rdma_modify_qp_req), 0,
		vdr_cmd_modify_qp),
	VDR_CMD(QUERY_QP, sizeof(struct virtio_rdma_query_qp_req),
		sizeof(struct virtio_rdma_query_qp_resp),
		vdr_cmd_query_qp),
	VDR_CMD(DESTROY_QP, sizeof(struct virtio_rdma_destroy_qp_req), 0,
		vdr_cmd_destroy_qp),
	VDR_CMD(ADD_GID, sizeof(struct virtio_rdma_add_gid_req), 0,
		vdr_cmd_add_gid),
	VDR_CMD(DEL_GID, sizeof(struct virtio_rdma_del_gid_req), 0,
		vdr_cmd_del_gid),
	VDR_CMD(QUERY_STATS, 0, sizeof(struct virtio_rdma_query_stats_resp),
		vdr_cmd_stats),
	VDR_CMD(CREATE_SRQ, sizeof(struct virtio_rdma_create_srq_req),
		sizeof(struct virtio_rdma_create_srq_resp),
		vdr_cmd_create_srq),
	VDR_CMD(MODIFY_SRQ, sizeof(struct virtio_rdma_modify_srq_req), 0,
		vdr_cmd_modify_srq),
	VDR_CMD(QUERY_SRQ, sizeof(struct virtio_rdma_query_srq_req),
		sizeof(struct virtio_rdma_query_srq_resp),
		vdr_cmd_query_srq),
	VDR_CMD(DESTROY_SRQ, sizeof(struct virtio_rdma_destroy_srq_req), 0,
		vdr_cmd_destroy_srq),
	VDR_CMD(RESIZE_CQ, sizeof(struct virtio_rdma_resize_cq_req), 0,
		vdr_cmd_resize_cq),
	VDR_CMD(ALLOC_MW, sizeof(struct virtio_rdma_alloc_mw_req),
		sizeof(struct virtio_rdma_alloc_mw_resp), vdr_cmd_alloc_mw),
	VDR_CMD(DEALLOC_MW, sizeof(struct virtio_rdma_dealloc_mw_req), 0,
		vdr_cmd_dealloc_mw),
	VDR_CMD(CREATE_MKEY, sizeof(struct virtio_rdma_create_mkey_req),
		sizeof(struct virtio_rdma_mr_resp), vdr_cmd_create_mkey),
	VDR_CMD(CREATE_XRCD, 0, sizeof(struct virtio_rdma_create_xrcd_resp),
		vdr_cmd_create_xrcd),
	VDR_CMD(DESTROY_XRCD, sizeof(struct virtio_rdma_destroy_xrcd_req), 0,
		vdr_cmd_destroy_xrcd),
};

/*
 * Whether the device can write @len bytes of the chain's writable part,
 * from where it is: checked before a command runs, so that a command whose
 * answer cannot be written (an IOVA the driver did not map, or mapped
 * read-only) has no effect either; a CREATE_* would otherwise make an
 * object whose handle its driver never learns.  A driver that changes its
 * IOTLB between this check and the answer only harms itself.
 */
static bool vdr_ctrl_can_answer(struct vdr_dev *dev,
				const struct vringh_kiov *wiov, size_t len)
{
	unsigned int i, offset;
	size_t n, chunk;
	bool ok = true;
	u64 addr;

	spin_lock(&dev->iotlb_lock);
	for (i = wiov->i; ok && len && i < wiov->used; i++) {
		/* vringh_*_iotlb keep IOVAs in the iov and advance them. */
		addr = (uintptr_t)wiov->iov[i].iov_base;
		n = min(len, wiov->iov[i].iov_len);
		len -= n;
		while (ok && n) {
			chunk = n;
			ok = vdr_translate(dev, addr, VHOST_MAP_WO, &chunk,
					   &offset) != NULL;
			addr += chunk;
			n -= chunk;
		}
	}
	spin_unlock(&dev->iotlb_lock);
	return ok && !len;
}

static void vdr_ctrl_one(struct vdr_dev *dev, struct vdr_vq *vq)
{
	size_t rlen = vringh_kiov_length(&vq->riov);
	size_t wlen = vringh_kiov_length(&vq->wiov);
	struct virtio_rdma_cmd_resp_hdr rhdr = {};
	const struct vdr_cmd_desc *desc;
	struct virtio_rdma_cmd_hdr hdr;
	u32 status, used = 0, cmd;
	ssize_t ret;

	BUILD_BUG_ON(sizeof(dev->req) > U16_MAX || sizeof(dev->resp) > U16_MAX);

	/* Without room for a status the only answer is a zero used length. */
	if (wlen < sizeof(rhdr)) {
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_CMD_ERRORS);
		vdr_vq_complete(vq, 0);
		return;
	}

	status = VIRTIO_RDMA_STATUS_MALFORMED;
	if (rlen < sizeof(hdr))
		goto reply;
	ret = vringh_iov_pull_iotlb(&vq->vring, &vq->riov, &hdr, sizeof(hdr));
	if (ret != sizeof(hdr))
		goto reply;

	cmd = le32_to_cpu(hdr.cmd);
	status = VIRTIO_RDMA_STATUS_OPNOTSUPP;
	if (cmd >= ARRAY_SIZE(vdr_cmds) || !vdr_cmds[cmd].fn)
		goto reply;
	desc = &vdr_cmds[cmd];

	status = VIRTIO_RDMA_STATUS_MALFORMED;
	if (rlen != sizeof(hdr) + desc->req_size ||
	    wlen < sizeof(rhdr) + desc->resp_size)
		goto reply;
	if (desc->req_size) {
		ret = vringh_iov_pull_iotlb(&vq->vring, &vq->riov, &dev->req,
					    desc->req_size);
		if (ret != desc->req_size)
			goto reply;
	}

	/* Not executed when the answer could not be written (spec). */
	if (!vdr_ctrl_can_answer(dev, &vq->wiov, sizeof(rhdr) + desc->resp_size)) {
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_CMD_ERRORS);
		vdr_vq_complete(vq, 0);
		return;
	}
	memset(&dev->resp, 0, desc->resp_size);
	vdr_fault_ctrl_delay(dev);
	status = desc->fn(dev);
	if (status == VIRTIO_RDMA_STATUS_OK)
		vdr_fault_resp(dev, cmd);
	/*
	 * Events the command raised (COMP after a flush, SQ_DRAINED) reach
	 * the eventqs before the command completes, buffers permitting.
	 */
	vdr_events_deliver_all(dev);
	if (status == VIRTIO_RDMA_STATUS_OK && desc->resp_size) {
		rhdr.status = cpu_to_le32(status);
		ret = vringh_iov_push_iotlb(&vq->vring, &vq->wiov, &rhdr,
					    sizeof(rhdr));
		if (ret == sizeof(rhdr))
			ret = vringh_iov_push_iotlb(&vq->vring, &vq->wiov,
						    &dev->resp,
						    desc->resp_size);
		if (ret == desc->resp_size)
			used = sizeof(rhdr) + desc->resp_size;
		vdr_vq_complete(vq, used);
		return;
	}

reply:
	if (status != VIRTIO_RDMA_STATUS_OK)
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_CMD_ERRORS);
	rhdr.status = cpu_to_le32(status);
	ret = vringh_iov_push_iotlb(&vq->vring, &vq->wiov, &rhdr, sizeof(rhdr));
	if (ret == sizeof(rhdr))
		used = sizeof(rhdr);
	vdr_vq_complete(vq, used);
}

bool vdr_ctrl_process(struct vdr_dev *dev)
{
	struct vdr_vq *vq = &dev->vqs[VIRTIO_RDMA_CTRLQ];
	int i, ret;

	for (i = 0; i < VDR_CTRL_BUDGET; i++) {
		ret = vringh_getdesc_iotlb(&vq->vring, &vq->riov, &vq->wiov,
					   &vq->head, GFP_KERNEL);
		if (ret < 0) {
			dev_err_ratelimited(&dev->vdpa.dev,
					    "controlq: bad descriptor chain (%d)\n",
					    ret);
			return false;
		}
		if (!ret) {
			if (vdr_vq_idle(vq))
				return false;
			continue;
		}
		vdr_ctrl_one(dev, vq);
	}
	return true;
}
