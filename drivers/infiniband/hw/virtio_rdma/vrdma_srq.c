// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma shared receive queues (VIRTIO_RDMA_F_SRQ): a receive ring in
 * the RQ's format that the device hands out to the QPs created with it, or,
 * for an XRC SRQ (VIRTIO_RDMA_F_XRC), to the XRC_TGT QPs of its domain
 * whose packets name it; its receives complete into its own CQ.
 *
 * A tag-matching SRQ (VIRTIO_RDMA_F_TM_SRQ, user space only: kernel verbs
 * have no post_srq_ops) is a basic one whose ring takes the unexpected
 * messages, plus an ops area (ring_ctl, ops ring, release words) that the
 * provider writes; its receives and ops complete into its CQ.  The ops ring
 * is the one SRQ ring with a doorbell, which user space rings with an
 * empty post_srq_recv.
 *
 * The device reads the SRQ when a message arrives and never flushes it, so
 * it keeps the SRQ's notify at VIRTIO_RDMA_NOTIFY_OFF and posting needs no
 * doorbell: post_srq_recv (here for kernel ULPs, in the provider for user
 * space) only writes WQEs and publishes prod.
 */

#include <linux/log2.h>

#include "vrdma.h"

#define VRDMA_RQ_HDR	sizeof(struct virtio_rdma_rq_wqe)
#define VRDMA_TM_OP	sizeof(struct virtio_rdma_tm_op)
#define VRDMA_SGE	sizeof(struct virtio_rdma_sge)

static_assert(VIRTIO_RDMA_SRQT_BASIC == IB_SRQT_BASIC);
static_assert(VIRTIO_RDMA_SRQT_XRC == IB_SRQT_XRC);
static_assert(VIRTIO_RDMA_SRQT_TM == IB_SRQT_TM);
static_assert(VRDMA_TM_OP == 1U << VIRTIO_RDMA_TM_OP_BASE_SHIFT);
static_assert(VIRTIO_RDMA_SRQ_MAX_WR == IB_SRQ_MAX_WR);
static_assert(VIRTIO_RDMA_SRQ_LIMIT == IB_SRQ_LIMIT);

const struct ib_device_ops vrdma_srq_ops = {
	.create_srq = vrdma_create_srq,
	.destroy_srq = vrdma_destroy_srq,
	.modify_srq = vrdma_modify_srq,
	.post_srq_recv = vrdma_post_srq_recv,
	.query_srq = vrdma_query_srq,

	INIT_RDMA_OBJ_SIZE(ib_srq, vrdma_srq, ibsrq),
};

/* Smallest RQ WQE shift whose stride holds @sge SGEs, or -EINVAL. */
static int vrdma_srq_shift(const struct vrdma_caps *c, u32 sge)
{
	u32 shift;

	for (shift = 0; shift <= c->max_rq_wqe_shift; shift++)
		if ((VRDMA_RQ_HDR << shift) >= VRDMA_RQ_HDR + sge * VRDMA_SGE)
			return shift;
	return -EINVAL;
}

/*
 * XRC SRQs for user space only: no kernel ULP uses XRC, and a kernel CQ
 * would have to take completions of QPs it does not know
 * (vrdma_poll_cq()).  Tag matching SRQs for user space only: kernel verbs
 * cannot post their ops.
 */
static bool vrdma_srq_type_ok(struct vrdma_dev *dev, enum ib_srq_type type,
			      struct ib_udata *udata)
{
	if (!dev->srq)
		return false;
	switch (type) {
	case IB_SRQT_BASIC:
		return true;
	case IB_SRQT_XRC:
		return dev->xrc && udata;
	case IB_SRQT_TM:
		return dev->caps.max_tm_tags && udata;
	default:
		return false;
	}
}

/* Smallest ops shift whose stride holds an op with @sge SGEs, or -EINVAL. */
static int vrdma_tm_ops_shift(u32 sge)
{
	u32 shift;

	for (shift = 0; shift <= VRDMA_TM_MAX_OPS_SHIFT; shift++)
		if ((VRDMA_TM_OP << shift) >= VRDMA_TM_OP + sge * VRDMA_SGE)
			return shift;
	return -EINVAL;
}

/*
 * The ops area of a TM-SRQ: @max_ops ops of the stride the device's
 * largest tagged buffer needs, then the release words of its tags.
 */
static int vrdma_tm_alloc(struct vrdma_dev *dev, struct vrdma_srq *srq,
			  const struct ib_srq_init_attr *init, u32 max_ops)
{
	const struct vrdma_caps *c = &dev->caps;
	u32 tags = init->ext.tag_matching.max_num_tags;
	int shift;

	if (!init->ext.cq || !tags || tags > c->max_tm_tags)
		return -EINVAL;
	shift = vrdma_tm_ops_shift(c->max_tm_sge);
	if (shift < 0)
		return shift;
	srq->max_num_tags = tags;
	return vrdma_ring_alloc_tail(dev, &srq->ops, roundup_pow_of_two(max_ops),
				     VIRTIO_RDMA_TM_OP_BASE_SHIFT + shift,
				     tags * sizeof(__le32), true);
}

static void vrdma_srq_req_tm(struct virtio_rdma_create_srq_req *req,
			     const struct vrdma_srq *srq)
{
	req->max_num_tags = cpu_to_le32(srq->max_num_tags);
	req->ops_depth = cpu_to_le32(srq->ops.depth);
	req->ops_addr = cpu_to_le64(srq->ops.dma);
	req->ops_size = cpu_to_le64(srq->ops.size);
	req->ops_shift = srq->ops.shift - VIRTIO_RDMA_TM_OP_BASE_SHIFT;
}

/* Frees what vrdma_create_srq() allocated, or orphans it if @busy. */
static void vrdma_srq_rings_put(struct vrdma_dev *dev, struct vrdma_srq *srq,
				bool busy)
{
	struct vrdma_ring *rings[] = { &srq->ring, &srq->ops };
	struct rdma_user_mmap_entry **umaps[] = { &srq->ring_umap,
						  &srq->ops_umap };
	int i;

	for (i = 0; i < ARRAY_SIZE(rings); i++) {
		if (*umaps[i])
			vrdma_user_ring_release(rings[i], umaps[i], busy);
		else if (busy)
			vrdma_orphan_ring(dev, rings[i]); /* may still be read */
		else
			vrdma_ring_free(dev, rings[i]);
	}
}

int vrdma_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibsrq->device);
	const struct vrdma_caps *c = &dev->caps;
	struct vrdma_srq *srq = to_vsrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct virtio_rdma_create_srq_req req = {};
	struct virtio_rdma_create_srq_resp resp;
	bool xrc = init->srq_type == IB_SRQT_XRC;
	bool tm = init->srq_type == IB_SRQT_TM;
	u32 depth, sge, max_ops = 0;
	int shift, err;

	if (!vrdma_srq_type_ok(dev, init->srq_type, udata))
		return -EOPNOTSUPP;
	if (xrc && (!init->ext.xrc.xrcd || !init->ext.cq))
		return -EINVAL;
	if (attr->max_wr > c->max_srq_wr || attr->max_sge > c->max_srq_sge ||
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;
	/* As rxe: an SRQ holds at least one WQE of at least one SGE. */
	depth = roundup_pow_of_two(max_t(u32, attr->max_wr, 1));
	sge = max_t(u32, attr->max_sge, 1);
	shift = vrdma_srq_shift(c, sge);
	if (shift < 0)
		return shift;
	if (udata) {
		err = vrdma_usrq_check(dev, udata, tm, &max_ops);
		if (err)
			return err;
		srq->user = true;
	}
	if (tm) {
		err = vrdma_tm_alloc(dev, srq, init, max_ops);
		if (err)
			return err;
	}
	/* Report what the stride really holds, within the device's limits. */
	srq->max_sge = min_t(u32, c->max_srq_sge,
			     virtio_rdma_rq_stride_sges(virtio_rdma_rq_stride_log2(shift)));
	spin_lock_init(&srq->lock);
	err = vrdma_ring_alloc(dev, &srq->ring, depth,
			       virtio_rdma_rq_stride_log2(shift), !!udata);
	if (err)
		goto err_ring;
	/* A kernel SRQ's wr_ids stay with the driver (vrdma_wrid.c). */
	if (!udata) {
		err = vrdma_wrids_alloc(&srq->ring, true);
		if (err)
			goto err_ring;
	}

	req.pd_handle = cpu_to_le32(to_vpd(ibsrq->pd)->handle);
	req.depth = cpu_to_le32(depth);
	req.max_sge = cpu_to_le32(srq->max_sge);
	req.srq_limit = cpu_to_le32(attr->srq_limit);
	req.wqe_shift = shift;
	req.srq_type = init->srq_type;
	if (xrc)
		req.xrcd_handle =
			cpu_to_le32(to_vxrcd(init->ext.xrc.xrcd)->handle);
	if (xrc || tm)
		req.cq_handle = cpu_to_le32(to_vcq(init->ext.cq)->handle);
	if (tm)
		vrdma_srq_req_tm(&req, srq);
	req.ring_addr = cpu_to_le64(srq->ring.dma);
	req.ring_size = cpu_to_le64(srq->ring.size);
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_CREATE_SRQ, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err)
		goto err_ring;
	srq->handle = le32_to_cpu(resp.srq_handle);
	vrdma_db_init(&srq->db, srq->handle);

	/* An XRC SRQ's handle is its number on the wire: 24 bits (spec). */
	err = vrdma_check_handle(dev, "SRQ", srq->handle, 1,
				 xrc ? VIRTIO_RDMA_QPN_MASK : U32_MAX);
	if (!err)
		err = xa_insert(&dev->srqs, srq->handle, srq, GFP_KERNEL);
	if (err) {
		struct virtio_rdma_destroy_srq_req dreq = {
			.srq_handle = resp.srq_handle,
		};

		if (vrdma_create_undo(dev, "SRQ", srq->handle, err,
				      VIRTIO_RDMA_CMD_DESTROY_SRQ, &dreq,
				      sizeof(dreq))) {
			vrdma_srq_rings_put(dev, srq, true);
			return -EIO;
		}
		err = -EIO;
		goto err_ring;
	}
	if (udata) {
		err = vrdma_usrq_respond(dev, srq, udata);
		if (err) {
			vrdma_destroy_srq(ibsrq, udata);
			return err;
		}
	}
	/* ib_core reports it to user space as the SRQ number. */
	if (xrc)
		ibsrq->ext.xrc.srq_num = srq->handle;
	attr->max_wr = depth;
	attr->max_sge = srq->max_sge;
	return 0;

err_ring:
	vrdma_srq_rings_put(dev, srq, false);
	return err;
}

int vrdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibsrq->device);
	struct vrdma_srq *srq = to_vsrq(ibsrq);
	struct virtio_rdma_modify_srq_req req = {
		.srq_handle = cpu_to_le32(srq->handle),
	};

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	/* No SRQ resize in the device ABI: F_RESIZE covers CQs only. */
	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->ring.depth)
		return -EINVAL;
	req.attr_mask = cpu_to_le32(VIRTIO_RDMA_SRQ_LIMIT);
	req.srq_limit = cpu_to_le32(attr->srq_limit);
	return vrdma_cmd(dev, VIRTIO_RDMA_CMD_MODIFY_SRQ, &req, sizeof(req),
			 NULL, 0);
}

int vrdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct vrdma_dev *dev = to_vdev(ibsrq->device);
	struct vrdma_srq *srq = to_vsrq(ibsrq);
	struct virtio_rdma_query_srq_req req = {
		.srq_handle = cpu_to_le32(srq->handle),
	};
	struct virtio_rdma_query_srq_resp resp;
	int err;

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_QUERY_SRQ, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err)
		return err;
	/* The ring is ours: its geometry does not come from the device. */
	attr->max_wr = srq->ring.depth;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = min_t(u32, le32_to_cpu(resp.srq_limit),
				srq->ring.depth);
	return 0;
}

int vrdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibsrq->device);
	struct vrdma_srq *srq = to_vsrq(ibsrq);
	struct virtio_rdma_destroy_srq_req req = {
		.srq_handle = cpu_to_le32(srq->handle),
	};
	int err;

	/* ib_core refuses while a QP uses the SRQ; the device would too. */
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_DESTROY_SRQ, &req, sizeof(req),
			NULL, 0);
	if (err && !READ_ONCE(dev->broken))
		return err;

	xa_erase(&dev->srqs, srq->handle);
	vrdma_eventqs_fence(dev);
	/* No doorbellq may keep an owed doorbell of the SRQ once it is freed. */
	vrdma_db_forget(dev, &srq->db);
	vrdma_srq_rings_put(dev, srq, err);
	return 0;
}

int vrdma_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct vrdma_srq *srq = to_vsrq(ibsrq);
	struct vrdma_ring *ring = &srq->ring;
	unsigned long flags;
	u32 old;
	int err;

	/*
	 * User space posts into its mapping of the ring; an empty post on a
	 * TM-SRQ is the doorbell of its ops ring.
	 */
	if (srq->user) {
		if (!wr && ibsrq->srq_type == IB_SRQT_TM)
			return vrdma_db_ring(to_vdev(ibsrq->device), &srq->db,
					     VIRTIO_RDMA_DOORBELL_SRQ_OPS);
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	old = ring->head;
	err = vrdma_ring_put_recvs(ring, &wr, srq->max_sge);
	/* No doorbell: see the top of this file. */
	if (ring->head != old)
		/* WQEs must be visible before the device can see the new prod. */
		virt_store_release(&vrdma_ring_ctl(ring)->prod,
				   cpu_to_le32(ring->head));
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}
