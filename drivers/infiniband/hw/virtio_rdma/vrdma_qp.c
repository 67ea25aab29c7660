// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma queue pairs: creation with driver-allocated SQ/RQ rings,
 * state transitions, query and destruction.
 */

#include <linux/log2.h>

#include "vrdma.h"

#define VRDMA_SQ_HDR	sizeof(struct virtio_rdma_sq_wqe)
#define VRDMA_RQ_HDR	sizeof(struct virtio_rdma_rq_wqe)
#define VRDMA_SGE	sizeof(struct virtio_rdma_sge)

#define VRDMA_QP_MASK_SUPPORTED						\
	(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY |	\
	 IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY |	\
	 IB_QP_AV | IB_QP_PATH_MTU | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |	\
	 IB_QP_RNR_RETRY | IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC |		\
	 IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |	\
	 IB_QP_DEST_QPN)

#define VRDMA_QP_ACCESS_ALL						\
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |		\
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

/* The mask bits and values below have the numbering of the verbs enums. */
static_assert(VIRTIO_RDMA_QP_DEST_QPN == IB_QP_DEST_QPN);
static_assert(VIRTIO_RDMA_QP_MAX_DEST_RD_ATOMIC == IB_QP_MAX_DEST_RD_ATOMIC);
static_assert(VIRTIO_RDMA_QPS_ERR == IB_QPS_ERR);
static_assert(VIRTIO_RDMA_MTU_4096 == IB_MTU_4096);

/* Smallest shift whose stride (base << shift) holds @need bytes. */
static int vrdma_stride_shift(u32 base, u32 need, u32 max_shift)
{
	u32 shift;

	for (shift = 0; shift <= max_shift; shift++)
		if ((base << shift) >= need)
			return shift;
	return -EINVAL;
}

/* The device ABI's QP type, 0 for a type the device does not have. */
u8 vrdma_qp_type(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_GSI:
		return VIRTIO_RDMA_QPT_GSI;
	case IB_QPT_RC:
		return VIRTIO_RDMA_QPT_RC;
	case IB_QPT_UC:
		return VIRTIO_RDMA_QPT_UC;
	case IB_QPT_UD:
		return VIRTIO_RDMA_QPT_UD;
	case IB_QPT_XRC_INI:
		return VIRTIO_RDMA_QPT_XRC_INI;
	case IB_QPT_XRC_TGT:
		return VIRTIO_RDMA_QPT_XRC_TGT;
	default:
		return 0;
	}
}

/*
 * The QP's handle in the device's table and in its CQs' (a CQE may name
 * only a QP of its own CQ: vrdma_poll_cq()).  Undone on failure.  An
 * XRC_INI QP has no receive CQ; an XRC_TGT QP has no CQ and enters the
 * device's table only when it leaves RESET (vrdma_modify_qp()).
 */
static int vrdma_qp_publish(struct vrdma_dev *dev, struct vrdma_qp *qp)
{
	struct ib_cq *scq = qp->ibqp.send_cq, *rcq = qp->ibqp.recv_cq;
	int err;

	err = xa_insert(&dev->qps, qp->handle, qp, GFP_KERNEL);
	if (err)
		return err;
	err = xa_insert(&to_vcq(scq)->qps, qp->handle, qp, GFP_KERNEL);
	if (err)
		goto err_dev;
	if (rcq && rcq != scq) {
		err = xa_insert(&to_vcq(rcq)->qps, qp->handle, qp, GFP_KERNEL);
		if (err)
			goto err_scq;
	}
	return 0;

err_scq:
	xa_erase(&to_vcq(scq)->qps, qp->handle);
err_dev:
	xa_erase(&dev->qps, qp->handle);
	return err;
}

/*
 * An XRC_TGT QP: a handle in an XRC domain, nothing else.  ib_core creates
 * it without udata even for uverbs (the device QP is shared by every
 * process that opens it), without PD and CQs, and destroys it when the
 * last opener closes it.  A kernel one would be no different, so both are
 * served.
 */
static int vrdma_create_tgt_qp(struct vrdma_dev *dev, struct vrdma_qp *qp,
			       struct ib_qp_init_attr *init)
{
	struct virtio_rdma_create_qp_req req = {};
	struct virtio_rdma_create_qp_resp resp;
	int err;

	if (!init->xrcd)
		return -EINVAL;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->modify_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);

	/* Every other field stays 0 (spec "XRC"); an SRQ is named per packet. */
	req.qp_type = VIRTIO_RDMA_QPT_XRC_TGT;
	req.xrcd_handle = cpu_to_le32(to_vxrcd(init->xrcd)->handle);
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_CREATE_QP, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err)
		goto err_mutex;
	qp->handle = le32_to_cpu(resp.qp_handle);
	qp->ibqp.qp_num = qp->handle;
	vrdma_db_init(&qp->db, qp->handle);
	err = vrdma_check_handle(dev, "QP", qp->handle, 2,
				 VIRTIO_RDMA_QPN_MASK);
	if (err) {
		struct virtio_rdma_destroy_qp_req dreq = {
			.qp_handle = resp.qp_handle,
		};

		/* No rings: nothing to keep if this fails too. */
		vrdma_create_undo(dev, "QP", qp->handle, err,
				  VIRTIO_RDMA_CMD_DESTROY_QP, &dreq,
				  sizeof(dreq));
		err = -EIO;
		goto err_mutex;
	}
	memset(&init->cap, 0, sizeof(init->cap));
	return 0;

err_mutex:
	mutex_destroy(&qp->modify_lock);
	return err;
}

/*
 * A QP that takes its receives from an SRQ.  XRC SRQs serve XRC_TGT QPs
 * only (ib_core checks it too).  A TM-SRQ serves RC QPs and owns their
 * send queue (spec "Tag matching"): the device sends the rendezvous reads
 * and FINs itself, and the QP gets no SQ of its own.
 */
static int vrdma_qp_srq_check(struct vrdma_dev *dev,
			      const struct ib_qp_init_attr *init, u8 type)
{
	/* ib_core's MADs need the GSI QP's own RQ. */
	if (!dev->srq || type == VIRTIO_RDMA_QPT_GSI)
		return -EOPNOTSUPP;
	switch (init->srq->srq_type) {
	case IB_SRQT_BASIC:
		return 0;
	case IB_SRQT_TM:
		if (type != VIRTIO_RDMA_QPT_RC || init->cap.max_send_wr)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

int vrdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibqp->device);
	const struct vrdma_caps *c = &dev->caps;
	struct vrdma_qp *qp = to_vqp(ibqp);
	struct ib_qp_cap *cap = &init->cap;
	struct virtio_rdma_create_qp_req req = {};
	struct virtio_rdma_create_qp_resp resp;
	u32 sq_depth, rq_depth, sq_log2, rq_log2;
	int sq_shift, rq_shift, err;
	bool xrc_ini, tm = false;
	u8 type;

	if (init->create_flags)
		return -EOPNOTSUPP;
	type = vrdma_qp_type(init->qp_type);
	if (!type)
		return -EOPNOTSUPP;
	xrc_ini = type == VIRTIO_RDMA_QPT_XRC_INI;
	if ((xrc_ini || type == VIRTIO_RDMA_QPT_XRC_TGT) && !dev->xrc)
		return -EOPNOTSUPP;
	if (type == VIRTIO_RDMA_QPT_XRC_TGT)
		return vrdma_create_tgt_qp(dev, qp, init);
	if (xrc_ini) {
		/*
		 * User space only: no kernel ULP uses XRC, and kernel QPs
		 * would need the XRC SRQ number in struct ib_send_wr, which
		 * has none.  The QP has no receive side.
		 */
		if (!udata)
			return -EOPNOTSUPP;
		if (init->srq || init->recv_cq)
			return -EINVAL;
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	if (init->srq) {
		err = vrdma_qp_srq_check(dev, init, type);
		if (err)
			return err;
		tm = init->srq->srq_type == IB_SRQT_TM;
		/* The QP has no RQ: receives come from the SRQ. */
		cap->max_recv_wr = 0;
		cap->max_recv_sge = 0;
	}
	if (!init->send_cq || (!init->recv_cq && !xrc_ini))
		return -EINVAL;
	if (cap->max_send_wr > c->max_qp_wr || cap->max_recv_wr > c->max_qp_wr ||
	    cap->max_send_sge > c->max_send_sge ||
	    cap->max_recv_sge > c->max_recv_sge ||
	    cap->max_inline_data > c->max_inline_data)
		return -EINVAL;

	sq_shift = vrdma_stride_shift(VRDMA_SQ_HDR,
				      max_t(u32, VRDMA_SQ_HDR + cap->max_send_sge * VRDMA_SGE,
					    VRDMA_SQ_HDR + cap->max_inline_data),
				      c->max_sq_wqe_shift);
	rq_shift = vrdma_stride_shift(VRDMA_RQ_HDR,
				      VRDMA_RQ_HDR + cap->max_recv_sge * VRDMA_SGE,
				      c->max_rq_wqe_shift);
	if (sq_shift < 0 || rq_shift < 0)
		return -EINVAL;
	if (udata) {
		err = vrdma_uqp_check(dev, udata, &sq_shift, &rq_shift);
		if (err)
			return err;
		qp->user = true;
	}
	/* No RQ, no RQ stride (spec "XRC"). */
	if (xrc_ini)
		rq_shift = 0;
	sq_log2 = virtio_rdma_sq_stride_log2(sq_shift);
	rq_log2 = virtio_rdma_rq_stride_log2(rq_shift);

	/* Report what the stride really holds, within the device's limits. */
	sq_depth = tm ? 0 : roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1));
	rq_depth = cap->max_recv_wr ? roundup_pow_of_two(cap->max_recv_wr) : 0;
	qp->max_send_sge = tm ? 0 : min_t(u32, c->max_send_sge,
					  virtio_rdma_sq_stride_sges(sq_log2));
	qp->max_inline = tm ? 0 : min_t(u32, c->max_inline_data,
					virtio_rdma_sq_stride_inline(sq_log2));
	qp->max_recv_sge = xrc_ini ? 0 :
			   min_t(u32, c->max_recv_sge,
				 virtio_rdma_rq_stride_sges(rq_log2));
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->state = IB_QPS_RESET;
	mutex_init(&qp->modify_lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);

	if (sq_depth) {
		err = vrdma_ring_alloc(dev, &qp->sq, sq_depth, sq_log2, !!udata);
		if (err)
			return err;
	}
	if (rq_depth) {
		err = vrdma_ring_alloc(dev, &qp->rq, rq_depth, rq_log2, !!udata);
		if (err)
			goto err_sq;
	}
	/* A kernel QP's wr_ids stay with the driver (vrdma_wrid.c). */
	if (!udata) {
		err = vrdma_wrids_alloc(&qp->sq, false);
		if (!err && rq_depth)
			err = vrdma_wrids_alloc(&qp->rq, false);
		if (err)
			goto err_rq;
	}

	req.pd_handle = cpu_to_le32(to_vpd(ibqp->pd)->handle);
	req.qp_type = type;
	req.sq_sig_all = qp->sq_sig_all;
	req.sq_wqe_shift = sq_shift;
	req.rq_wqe_shift = rq_shift;
	req.send_cq = cpu_to_le32(to_vcq(init->send_cq)->handle);
	if (init->recv_cq)
		req.recv_cq = cpu_to_le32(to_vcq(init->recv_cq)->handle);
	req.sq_depth = cpu_to_le32(sq_depth);
	req.rq_depth = cpu_to_le32(rq_depth);
	req.max_send_sge = cpu_to_le32(qp->max_send_sge);
	req.max_recv_sge = cpu_to_le32(qp->max_recv_sge);
	req.max_inline_data = cpu_to_le32(qp->max_inline);
	if (init->srq)
		req.srq_handle = cpu_to_le32(to_vsrq(init->srq)->handle);
	if (sq_depth) {
		req.sq_ring_addr = cpu_to_le64(qp->sq.dma);
		req.sq_ring_size = cpu_to_le64(qp->sq.size);
	}
	if (rq_depth) {
		req.rq_ring_addr = cpu_to_le64(qp->rq.dma);
		req.rq_ring_size = cpu_to_le64(qp->rq.size);
	}
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_CREATE_QP, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err)
		goto err_rq;
	qp->handle = le32_to_cpu(resp.qp_handle);
	ibqp->qp_num = qp->handle;
	vrdma_db_init(&qp->db, qp->handle);

	/* The GSI QP is QPN 1, every other QP's is 2 or more (spec). */
	err = vrdma_check_handle(dev, "QP", qp->handle,
				 init->qp_type == IB_QPT_GSI ? 1 : 2,
				 init->qp_type == IB_QPT_GSI ? 1 :
				 VIRTIO_RDMA_QPN_MASK);
	if (!err)
		err = vrdma_qp_publish(dev, qp);
	if (err) {
		struct virtio_rdma_destroy_qp_req dreq = {
			.qp_handle = resp.qp_handle,
		};

		if (vrdma_create_undo(dev, "QP", qp->handle, err,
				      VIRTIO_RDMA_CMD_DESTROY_QP, &dreq,
				      sizeof(dreq))) {
			vrdma_orphan_ring(dev, &qp->sq);
			vrdma_orphan_ring(dev, &qp->rq);
			return -EIO;
		}
		err = -EIO;
		goto err_rq;
	}
	if (udata) {
		err = vrdma_uqp_respond(dev, qp, udata);
		if (err) {
			vrdma_destroy_qp(ibqp, udata);
			return err;
		}
	}

	cap->max_send_wr = sq_depth;
	cap->max_recv_wr = rq_depth;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_recv_sge = qp->max_recv_sge;
	cap->max_inline_data = qp->max_inline;
	return 0;

err_rq:
	vrdma_ring_free(dev, &qp->rq);
err_sq:
	vrdma_ring_free(dev, &qp->sq);
	return err;
}

static int vrdma_check_qp_attr(struct vrdma_dev *dev, struct vrdma_qp *qp,
			       const struct ib_qp_attr *attr, int mask)
{
	const struct vrdma_caps *c = &dev->caps;

	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > dev->max_mtu))
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > c->max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > c->max_qp_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != VRDMA_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > 0xffffff)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~VRDMA_QP_ACCESS_ALL))
		return -EINVAL;
	return 0;
}

int vrdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibqp->device);
	struct vrdma_qp *qp = to_vqp(ibqp);
	struct virtio_rdma_modify_qp_req req = {};
	struct virtio_rdma_qp_attr *a = &req.attr;
	enum ib_qp_state cur, next;
	u32 access;
	int err;

	if (mask & ~VRDMA_QP_MASK_SUPPORTED)
		return -EOPNOTSUPP;

	mutex_lock(&qp->modify_lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : READ_ONCE(qp->state);
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (cur > IB_QPS_ERR || next > IB_QPS_ERR ||
	    !ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto out;
	}
	err = vrdma_check_qp_attr(dev, qp, attr, mask);
	if (err)
		goto out;
	/*
	 * An XRC_TGT QP's events go to ib_core's handler for shared QPs,
	 * which ib_core installs only after create_qp returned: the QP is
	 * published for them once it is past that, at its first modify.
	 * Before, it has no state to report.
	 */
	if (ibqp->qp_type == IB_QPT_XRC_TGT) {
		err = xa_insert(&dev->qps, qp->handle, qp, GFP_KERNEL);
		if (err && err != -EBUSY)
			goto out;
	}

	if (mask & IB_QP_AV) {
		/* ib_core resolved the sgid attribute and dmac (RoCE). */
		err = vrdma_av_from_attr(dev, &a->av, &attr->ah_attr);
		if (err)
			goto out;
	}
	req.qp_handle = cpu_to_le32(qp->handle);
	req.attr_mask = cpu_to_le32(mask);
	if (mask & IB_QP_STATE)
		a->qp_state = attr->qp_state;
	if (mask & IB_QP_CUR_STATE)
		a->cur_qp_state = attr->cur_qp_state;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = !!attr->en_sqd_async_notify;
	if (mask & IB_QP_ACCESS_FLAGS) {
		access = attr->qp_access_flags;
		/*
		 * ib_cm grants remote atomics with any responder resources;
		 * without the feature the device can't honour them anyway.
		 */
		if (!dev->atomic)
			access &= ~IB_ACCESS_REMOTE_ATOMIC;
		a->qp_access_flags = cpu_to_le32(access);
	}
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = cpu_to_le16(attr->pkey_index);
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = cpu_to_le32(attr->qkey);
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = cpu_to_le32(attr->rq_psn & 0xffffff);
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = cpu_to_le32(attr->sq_psn & 0xffffff);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = cpu_to_le32(attr->dest_qp_num);

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_MODIFY_QP, &req, sizeof(req),
			NULL, 0);
	if (!err && (mask & IB_QP_STATE))
		WRITE_ONCE(qp->state, next);
out:
	mutex_unlock(&qp->modify_lock);
	return err;
}

int vrdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct vrdma_dev *dev = to_vdev(ibqp->device);
	struct vrdma_qp *qp = to_vqp(ibqp);
	struct virtio_rdma_query_qp_req req = {
		.qp_handle = cpu_to_le32(qp->handle),
		.attr_mask = cpu_to_le32(mask),
	};
	struct virtio_rdma_query_qp_resp resp;
	const struct virtio_rdma_qp_attr *a = &resp.attr;
	int err;

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_QUERY_QP, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err)
		return err;

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = min_t(u8, a->qp_state, IB_QPS_ERR);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = clamp_t(u8, a->path_mtu, IB_MTU_256, IB_MTU_4096);
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = le32_to_cpu(a->qkey);
	attr->rq_psn = le32_to_cpu(a->rq_psn);
	attr->sq_psn = le32_to_cpu(a->sq_psn);
	attr->dest_qp_num = le32_to_cpu(a->dest_qp_num);
	attr->qp_access_flags = le32_to_cpu(a->qp_access_flags);
	attr->pkey_index = le16_to_cpu(a->pkey_index);
	attr->en_sqd_async_notify = a->en_sqd_async_notify;
	attr->sq_draining = a->sq_draining;
	attr->max_rd_atomic = a->max_rd_atomic;
	attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
	attr->min_rnr_timer = a->min_rnr_timer;
	attr->port_num = VRDMA_PORT;
	attr->timeout = a->timeout;
	attr->retry_cnt = a->retry_cnt;
	attr->rnr_retry = a->rnr_retry;
	attr->cap.max_send_wr = qp->sq.depth;
	attr->cap.max_recv_wr = qp->rq.buf ? qp->rq.depth : 0;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_recv_sge = qp->max_recv_sge;
	attr->cap.max_inline_data = qp->max_inline;

	if (ibqp->qp_type != IB_QPT_UD && ibqp->qp_type != IB_QPT_GSI &&
	    a->av.network_type) {
		struct rdma_ah_attr *ah = &attr->ah_attr;

		ah->type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(ah, VRDMA_PORT);
		rdma_ah_set_grh(ah, NULL, le32_to_cpu(a->av.flow_label),
				a->av.sgid_index, a->av.hop_limit,
				a->av.traffic_class);
		rdma_ah_set_dgid_raw(ah, (void *)a->av.dgid);
		memcpy(ah->roce.dmac, a->av.dmac, ETH_ALEN);
	}

	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->xrcd = ibqp->xrcd;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;

	/* Catch up with transitions the device made on its own (to ERR). */
	mutex_lock(&qp->modify_lock);
	WRITE_ONCE(qp->state, attr->qp_state);
	mutex_unlock(&qp->modify_lock);
	return 0;
}

/*
 * After this no poll_cq and no event handler can hand out the QP: each
 * looks it up under a lock taken here once it left the tables
 * (vrdma_poll_cq() under its CQ's, which only finds its own QPs, and
 * vrdma_eventq_done() under its eventq's).
 */
static void vrdma_qp_unpublish(struct vrdma_dev *dev, struct vrdma_qp *qp)
{
	struct ib_cq *scq = qp->ibqp.send_cq, *rcq = qp->ibqp.recv_cq;
	unsigned long flags;

	/* XRC_INI: no receive CQ; XRC_TGT: no CQ, maybe never published. */
	xa_erase(&dev->qps, qp->handle);
	if (scq) {
		xa_erase(&to_vcq(scq)->qps, qp->handle);
		spin_lock_irqsave(&to_vcq(scq)->lock, flags);
		spin_unlock_irqrestore(&to_vcq(scq)->lock, flags);
	}
	if (rcq) {
		xa_erase(&to_vcq(rcq)->qps, qp->handle);
		spin_lock_irqsave(&to_vcq(rcq)->lock, flags);
		if (qp->ibqp.srq && !qp->user)
			vrdma_cq_srq_forget(to_vcq(rcq), qp);
		spin_unlock_irqrestore(&to_vcq(rcq)->lock, flags);
	}
	vrdma_eventqs_fence(dev);
}

int vrdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct vrdma_dev *dev = to_vdev(ibqp->device);
	struct vrdma_qp *qp = to_vqp(ibqp);
	struct virtio_rdma_destroy_qp_req req = {
		.qp_handle = cpu_to_le32(qp->handle),
	};
	int err;

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_DESTROY_QP, &req, sizeof(req),
			NULL, 0);
	if (err && !READ_ONCE(dev->broken))
		return err;

	vrdma_qp_unpublish(dev, qp);
	/* No doorbellq may keep an owed doorbell of the QP once it is freed. */
	vrdma_doorbells_forget(qp);
	vrdma_user_ring_release(&qp->sq, &qp->sq_umap, err);
	vrdma_user_ring_release(&qp->rq, &qp->rq_umap, err);
	if (err) {
		vrdma_orphan_ring(dev, &qp->sq);
		vrdma_orphan_ring(dev, &qp->rq);
	} else {
		vrdma_ring_free(dev, &qp->sq);
		vrdma_ring_free(dev, &qp->rq);
	}
	mutex_destroy(&qp->modify_lock);
	return 0;
}
