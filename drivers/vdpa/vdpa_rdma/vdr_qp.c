// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: queue pairs: creation, the state machine's side effects
 * (flush on ERR and DESTROY, discard on RESET) and QUERY_QP.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "vdr_qp_state.h"
#include "vdpa_rdma.h"
#include "vdr_xport.h"

#define VDR_SQ_HDR		64	/* struct virtio_rdma_sq_wqe */
#define VDR_RQ_HDR		16	/* struct virtio_rdma_rq_wqe */
#define VDR_SGE_SIZE		sizeof(struct virtio_rdma_sge)
/* A driver rewriting prod during a flush cannot keep the worker forever. */

#define VDR_QP_MASK_SUPPORTED						\
	(VIRTIO_RDMA_QP_STATE | VIRTIO_RDMA_QP_CUR_STATE |		\
	 VIRTIO_RDMA_QP_EN_SQD_ASYNC_NOTIFY | VIRTIO_RDMA_QP_ACCESS_FLAGS | \
	 VIRTIO_RDMA_QP_PKEY_INDEX | VIRTIO_RDMA_QP_PORT |		\
	 VIRTIO_RDMA_QP_QKEY | VIRTIO_RDMA_QP_AV |			\
	 VIRTIO_RDMA_QP_PATH_MTU | VIRTIO_RDMA_QP_TIMEOUT |		\
	 VIRTIO_RDMA_QP_RETRY_CNT | VIRTIO_RDMA_QP_RNR_RETRY |		\
	 VIRTIO_RDMA_QP_RQ_PSN | VIRTIO_RDMA_QP_MAX_QP_RD_ATOMIC |	\
	 VIRTIO_RDMA_QP_MIN_RNR_TIMER | VIRTIO_RDMA_QP_SQ_PSN |		\
	 VIRTIO_RDMA_QP_MAX_DEST_RD_ATOMIC | VIRTIO_RDMA_QP_DEST_QPN)

#define VDR_24BIT_MAX		0xffffffU
#define VDR_QKEY_CONTROLLED	0x80000000U

static const u32 vdr_qp_ev_type[VDR_QP_NR_EV] = {
	[VDR_QP_EV_FATAL] = VIRTIO_RDMA_EVENT_QP_FATAL,
	[VDR_QP_EV_REQ_ERR] = VIRTIO_RDMA_EVENT_QP_REQ_ERR,
	[VDR_QP_EV_ACCESS_ERR] = VIRTIO_RDMA_EVENT_QP_ACCESS_ERR,
	[VDR_QP_EV_SQ_DRAINED] = VIRTIO_RDMA_EVENT_SQ_DRAINED,
	[VDR_QP_EV_COMM_EST] = VIRTIO_RDMA_EVENT_COMM_EST,
	[VDR_QP_EV_LAST_WQE] = VIRTIO_RDMA_EVENT_QP_LAST_WQE_REACHED,
};

/* The completion opcode of a send WQE, for the flush and the transport. */
u8 vdr_wc_opcode(u8 wr_opcode)
{
	switch (wr_opcode) {
	case VIRTIO_RDMA_WR_RDMA_WRITE:
	case VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM:
		return VIRTIO_RDMA_WC_OP_RDMA_WRITE;
	case VIRTIO_RDMA_WR_RDMA_READ:
		return VIRTIO_RDMA_WC_OP_RDMA_READ;
	case VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP:
		return VIRTIO_RDMA_WC_OP_COMP_SWAP;
	case VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD:
		return VIRTIO_RDMA_WC_OP_FETCH_ADD;
	case VIRTIO_RDMA_WR_LOCAL_INV:
		return VIRTIO_RDMA_WC_OP_LOCAL_INV;
	case VIRTIO_RDMA_WR_REG_MR:
		return VIRTIO_RDMA_WC_OP_REG_MR;
	case VIRTIO_RDMA_WR_BIND_MW:
		return VIRTIO_RDMA_WC_OP_BIND_MW;
	case VIRTIO_RDMA_WR_MKEY_CONFIGURE:
		return VIRTIO_RDMA_WC_OP_MKEY_CONFIGURE;
	default:
		return VIRTIO_RDMA_WC_OP_SEND;
	}
}

static u8 vdr_sq_opcode(const void *wqe)
{
	return READ_ONCE(((const struct virtio_rdma_sq_wqe *)wqe)->opcode);
}

/* Geometry of one work queue as CREATE_QP describes it. */
static int vdr_check_wq(u32 depth, u32 stride, u64 addr, u64 size)
{
	if (!depth || depth > VDR_MAX_QP_WR || !is_power_of_2(depth))
		return VIRTIO_RDMA_STATUS_INVAL;
	if (addr % VIRTIO_RDMA_RING_CTL_SIZE)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (size < VIRTIO_RDMA_RING_CTL_SIZE + (u64)depth * stride)
		return VIRTIO_RDMA_STATUS_INVAL;
	return VIRTIO_RDMA_STATUS_OK;
}

/*
 * The fields an XRC QP leaves 0 (spec "XRC"): an XRC_INI QP has no
 * receive side, an XRC_TGT QP nothing but its domain.  Every other type
 * has no domain.
 */
static int vdr_check_xrc_fields(const struct virtio_rdma_create_qp_req *req)
{
	struct virtio_rdma_create_qp_req z;

	switch (req->qp_type) {
	case VIRTIO_RDMA_QPT_XRC_INI:
		if (req->recv_cq || req->rq_depth || req->max_recv_sge ||
		    req->rq_wqe_shift || req->rq_ring_addr ||
		    req->rq_ring_size || req->srq_handle || req->xrcd_handle)
			return VIRTIO_RDMA_STATUS_INVAL;
		return VIRTIO_RDMA_STATUS_OK;
	case VIRTIO_RDMA_QPT_XRC_TGT:
		z = *req;
		z.qp_type = 0;
		z.xrcd_handle = 0;
		z.reserved = 0;
		return memchr_inv(&z, 0, sizeof(z)) ? VIRTIO_RDMA_STATUS_INVAL :
						      VIRTIO_RDMA_STATUS_OK;
	default:
		return req->xrcd_handle ? VIRTIO_RDMA_STATUS_INVAL :
					  VIRTIO_RDMA_STATUS_OK;
	}
}

/* Under dev->lock: the TM-SRQ the new QP would receive from, if any. */
static struct vdr_srq *vdr_qp_tm_srq(struct vdr_dev *dev,
				     const struct virtio_rdma_create_qp_req *req)
{
	struct vdr_srq *srq = NULL;

	if (req->srq_handle)
		srq = xa_load(&dev->srqs, le32_to_cpu(req->srq_handle));
	return vdr_srq_is_tm(srq) ? srq : NULL;
}

/*
 * A QP on a TM-SRQ is RC, and its send queue belongs to the SRQ: the
 * driver gives none (sq_depth 0), the device makes an internal one for
 * the rendezvous READs and FINs (spec "Tag matching").  The other send
 * fields are the internal queue's, so the driver's are ignored.
 */
static int vdr_check_tm_qp(const struct virtio_rdma_create_qp_req *req)
{
	if (req->qp_type != VIRTIO_RDMA_QPT_RC || req->sq_depth)
		return VIRTIO_RDMA_STATUS_INVAL;
	return VIRTIO_RDMA_STATUS_OK;
}

static int vdr_check_create_qp(struct vdr_dev *dev,
			       const struct virtio_rdma_create_qp_req *req)
{
	u32 send_sge = le32_to_cpu(req->max_send_sge);
	u32 recv_sge = le32_to_cpu(req->max_recv_sge);
	u32 inline_data = le32_to_cpu(req->max_inline_data);
	u32 rq_depth = le32_to_cpu(req->rq_depth);
	u32 stride;
	int status;

	/* A QP that receives from an SRQ has no RQ (spec "CREATE_QP"). */
	if (req->srq_handle && rq_depth)
		return VIRTIO_RDMA_STATUS_INVAL;

	switch (req->qp_type) {
	case VIRTIO_RDMA_QPT_GSI:
	case VIRTIO_RDMA_QPT_RC:
	case VIRTIO_RDMA_QPT_UC:
	case VIRTIO_RDMA_QPT_UD:
		break;
	case VIRTIO_RDMA_QPT_XRC_INI:
	case VIRTIO_RDMA_QPT_XRC_TGT:
		if (!vdr_has_feature(dev, VIRTIO_RDMA_F_XRC))
			return VIRTIO_RDMA_STATUS_OPNOTSUPP;
		break;
	default:
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	}
	status = vdr_check_xrc_fields(req);
	if (status || req->qp_type == VIRTIO_RDMA_QPT_XRC_TGT)
		return status;
	if (vdr_qp_tm_srq(dev, req))
		return vdr_check_tm_qp(req);

	if (req->sq_wqe_shift > VDR_MAX_SQ_WQE_SHIFT ||
	    send_sge > VDR_MAX_SGE || inline_data > VDR_MAX_INLINE)
		return VIRTIO_RDMA_STATUS_INVAL;
	stride = VDR_SQ_HDR << req->sq_wqe_shift;
	if (VDR_SQ_HDR + send_sge * VDR_SGE_SIZE > stride ||
	    VDR_SQ_HDR + inline_data > stride)
		return VIRTIO_RDMA_STATUS_INVAL;
	status = vdr_check_wq(le32_to_cpu(req->sq_depth), stride,
			      le64_to_cpu(req->sq_ring_addr),
			      le64_to_cpu(req->sq_ring_size));
	if (status)
		return status;

	/* Without a receive queue the rq_* fields are ignored. */
	if (!rq_depth)
		return VIRTIO_RDMA_STATUS_OK;
	if (req->rq_wqe_shift > VDR_MAX_RQ_WQE_SHIFT ||
	    recv_sge > VDR_MAX_SGE)
		return VIRTIO_RDMA_STATUS_INVAL;
	stride = VDR_RQ_HDR << req->rq_wqe_shift;
	if (VDR_RQ_HDR + recv_sge * VDR_SGE_SIZE > stride)
		return VIRTIO_RDMA_STATUS_INVAL;
	return vdr_check_wq(rq_depth, stride, le64_to_cpu(req->rq_ring_addr),
			    le64_to_cpu(req->rq_ring_size));
}

/*
 * The QP leaves the table first, so that no packet or doorbell finds it
 * any more, then its work stops for good (vdr_xqp_kill()), then it goes.
 */
static void vdr_qp_free(struct vdr_dev *dev, struct vdr_qp *qp)
{
	int i;

	xa_erase(&dev->qps, qp->qpn);
	vdr_xqp_kill(qp);
	vdr_xqp_destroy(dev, qp);
	for (i = 0; i < VDR_QP_NR_EV; i++)
		vdr_event_cancel(dev, &qp->ev[i]);
	dev->nr_qps--;
	mutex_destroy(&qp->lock);
	vdr_tm_qp_free(qp);
	vdr_ring_unmap(&qp->sq);
	vdr_ring_unmap(&qp->rq);
	/* XRC QPs lack some of these (spec "XRC"). */
	if (qp->srq)
		qp->srq->nr_qps--;
	if (qp->scq)
		qp->scq->nr_qps--;
	if (qp->rcq)
		qp->rcq->nr_qps--;
	if (qp->pd)
		vdr_pd_put(qp->pd);
	if (qp->xrcd)
		vdr_xrcd_put(qp->xrcd);
	kfree_rcu(qp, rcu);
}

/*
 * The PD, CQs and SRQ a new QP names, looked up.  An XRC_INI QP has no
 * receive CQ; an XRC_TGT QP names only its domain.
 */
static int vdr_create_qp_objs(struct vdr_dev *dev,
			      const struct virtio_rdma_create_qp_req *req,
			      struct vdr_srq **srq, struct vdr_cq **scq,
			      struct vdr_cq **rcq)
{
	if (req->qp_type == VIRTIO_RDMA_QPT_XRC_TGT)
		return xa_load(&dev->xrcds, le32_to_cpu(req->xrcd_handle)) ?
		       VIRTIO_RDMA_STATUS_OK : VIRTIO_RDMA_STATUS_NOENT;
	if (!xa_load(&dev->pds, le32_to_cpu(req->pd_handle)))
		return VIRTIO_RDMA_STATUS_NOENT;
	if (req->srq_handle) {
		/* The GSI QP keeps its own RQ: ib_core's MADs need one. */
		if (req->qp_type == VIRTIO_RDMA_QPT_GSI)
			return VIRTIO_RDMA_STATUS_INVAL;
		*srq = xa_load(&dev->srqs, le32_to_cpu(req->srq_handle));
		if (!*srq)
			return VIRTIO_RDMA_STATUS_NOENT;
		/* An XRC SRQ serves XRC_TGT QPs only, by its number. */
		if ((*srq)->xrcd)
			return VIRTIO_RDMA_STATUS_INVAL;
	}
	*scq = xa_load(&dev->cqs, le32_to_cpu(req->send_cq));
	if (!*scq)
		return VIRTIO_RDMA_STATUS_NOENT;
	if (req->qp_type == VIRTIO_RDMA_QPT_XRC_INI)
		return VIRTIO_RDMA_STATUS_OK;
	*rcq = xa_load(&dev->cqs, le32_to_cpu(req->recv_cq));
	return *rcq ? VIRTIO_RDMA_STATUS_OK : VIRTIO_RDMA_STATUS_NOENT;
}

/* Takes the uses of what vdr_create_qp_objs() found. */
static void vdr_qp_set_objs(struct vdr_dev *dev, struct vdr_qp *qp,
			    const struct virtio_rdma_create_qp_req *req,
			    struct vdr_srq *srq, struct vdr_cq *scq,
			    struct vdr_cq *rcq)
{
	qp->srq = srq;
	if (srq)
		srq->nr_qps++;
	qp->scq = scq;
	if (scq)
		scq->nr_qps++;
	qp->rcq = rcq;
	if (rcq)
		rcq->nr_qps++;
	if (qp->type == VIRTIO_RDMA_QPT_XRC_TGT)
		qp->xrcd = vdr_xrcd_get(dev, le32_to_cpu(req->xrcd_handle));
	else
		qp->pd = vdr_pd_get(dev, le32_to_cpu(req->pd_handle));
}

static int vdr_create_qp(struct vdr_dev *dev)
{
	const struct virtio_rdma_create_qp_req *req = &dev->req.create_qp;
	u32 sq_depth = le32_to_cpu(req->sq_depth);
	u32 rq_depth = le32_to_cpu(req->rq_depth);
	struct vdr_cq *scq = NULL, *rcq = NULL;
	struct vdr_srq *srq = NULL;
	struct vdr_qp *qp;
	u32 qpn;
	int status, ret = 0, i;

	if (req->srq_handle && !vdr_has_feature(dev, VIRTIO_RDMA_F_SRQ))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	status = vdr_check_create_qp(dev, req);
	if (status)
		return status;
	status = vdr_create_qp_objs(dev, req, &srq, &scq, &rcq);
	if (status)
		return status;
	if (req->qp_type == VIRTIO_RDMA_QPT_GSI &&
	    xa_load(&dev->qps, VIRTIO_RDMA_GSI_QPN))
		return VIRTIO_RDMA_STATUS_BUSY;
	if (dev->nr_qps >= VDR_MAX_QP)
		return VIRTIO_RDMA_STATUS_NOSPC;

	qp = kzalloc(sizeof(*qp), VDR_GFP_OBJ);
	if (!qp)
		return VIRTIO_RDMA_STATUS_NOMEM;
	mutex_init(&qp->lock);
	qp->type = req->qp_type;
	qp->state = VIRTIO_RDMA_QPS_RESET;
	/* An XRC_TGT QP has no rings: sq.depth and rq.depth stay 0. */
	if (vdr_srq_is_tm(srq))
		ret = vdr_tm_qp_create(qp);
	else if (sq_depth)
		ret = vdr_ring_map(dev, &qp->sq, le64_to_cpu(req->sq_ring_addr),
				   sq_depth, VDR_SQ_HDR << req->sq_wqe_shift);
	if (!ret && rq_depth)
		ret = vdr_ring_map(dev, &qp->rq,
				   le64_to_cpu(req->rq_ring_addr), rq_depth,
				   VDR_RQ_HDR << req->rq_wqe_shift);
	if (ret) {
		status = vdr_errno_status(ret);
		goto err_rings;
	}

	if (req->qp_type == VIRTIO_RDMA_QPT_GSI) {
		qpn = VIRTIO_RDMA_GSI_QPN;
		ret = xa_insert(&dev->qps, qpn, qp, GFP_KERNEL);
	} else {
		ret = xa_alloc_cyclic(&dev->qps, &qpn, qp,
				      XA_LIMIT(2, VDR_HANDLE_MAX), &dev->qp_next,
				      GFP_KERNEL);
	}
	if (ret < 0) {
		status = ret == -EBUSY ? VIRTIO_RDMA_STATUS_NOSPC :
					 VIRTIO_RDMA_STATUS_NOMEM;
		goto err_rings;
	}
	if (vdr_xqp_create(dev, qp)) {
		xa_erase(&dev->qps, qpn);
		status = VIRTIO_RDMA_STATUS_NOMEM;
		goto err_rings;
	}

	qp->qpn = qpn;
	qp->serial = ++dev->qp_serial;
	qp->sq_sig_all = req->sq_sig_all;
	qp->max_send_sge = le32_to_cpu(req->max_send_sge);
	qp->max_recv_sge = rq_depth ? le32_to_cpu(req->max_recv_sge) : 0;
	qp->max_inline_data = le32_to_cpu(req->max_inline_data);
	if (qp->tm) {
		qp->max_send_sge = VDR_TM_SQ_SGE;
		qp->max_inline_data = VDR_TM_SQ_INLINE;
	}
	vdr_qp_set_objs(dev, qp, req, srq, scq, rcq);
	for (i = 0; i < VDR_QP_NR_EV; i++)
		vdr_event_init(&qp->ev[i], vdr_qp_ev_type[i], qpn, 0);
	dev->nr_qps++;

	/* The first SQ post rings; RQ posts need no doorbell until ERR. */
	if (sq_depth)
		WRITE_ONCE(qp->sq.ctl->notify, cpu_to_le32(0));
	if (rq_depth)
		WRITE_ONCE(qp->rq.ctl->notify, cpu_to_le32(VIRTIO_RDMA_NOTIFY_OFF));

	dev->resp.create_qp.qp_handle = cpu_to_le32(qpn);
	return VIRTIO_RDMA_STATUS_OK;

err_rings:
	vdr_tm_qp_free(qp);
	vdr_ring_unmap(&qp->sq);
	vdr_ring_unmap(&qp->rq);
	mutex_destroy(&qp->lock);
	/* Packets may have found it in the table: free after RCU readers. */
	kfree_rcu(qp, rcu);
	return status;
}

/* A user QP's state is charged to its rings' cgroup (vdr_memcg.c). */
int vdr_cmd_create_qp(struct vdr_dev *dev)
{
	struct vdr_srq *tm_srq = vdr_qp_tm_srq(dev, &dev->req.create_qp);
	struct vdr_memcg m = { };
	int status;

	/*
	 * An XRC_TGT QP has no ring to find a cgroup by; one on a TM-SRQ
	 * is charged as its SRQ is.
	 */
	if (tm_srq)
		vdr_memcg_enter_ring(&m, &tm_srq->ring);
	else if (dev->req.create_qp.qp_type != VIRTIO_RDMA_QPT_XRC_TGT)
		vdr_memcg_enter(dev, &m,
				le64_to_cpu(dev->req.create_qp.sq_ring_addr));
	status = vdr_create_qp(dev);
	vdr_memcg_leave(&m);
	return status;
}

static int vdr_check_av(struct vdr_dev *dev,
			const struct virtio_rdma_av *av)
{
	const struct vdr_gid *sgid;

	if (av->sgid_index >= VDR_GID_TBL_LEN)
		return VIRTIO_RDMA_STATUS_INVAL;
	sgid = &dev->gids[av->sgid_index];
	if (!sgid->valid || !vdr_net_av_valid(av, sgid->gid))
		return VIRTIO_RDMA_STATUS_INVAL;
	return VIRTIO_RDMA_STATUS_OK;
}

/* Values of the attributes @mask selects; the transition is checked. */
static int vdr_check_qp_attr(struct vdr_dev *dev, struct vdr_qp *qp,
			     u32 mask, const struct virtio_rdma_qp_attr *a)
{
	int status;

	if ((mask & VIRTIO_RDMA_QP_PKEY_INDEX) && le16_to_cpu(a->pkey_index))
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_PORT) && a->port_num != 1)
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_PATH_MTU) &&
	    (a->path_mtu < VIRTIO_RDMA_MTU_256 ||
	     a->path_mtu > vdr_active_mtu(dev)))
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_TIMEOUT) && a->timeout > 31)
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_RETRY_CNT) && a->retry_cnt > 7)
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_RNR_RETRY) && a->rnr_retry > 7)
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_RQ_PSN) &&
	    le32_to_cpu(a->rq_psn) > VDR_24BIT_MAX)
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_SQ_PSN) &&
	    le32_to_cpu(a->sq_psn) > VDR_24BIT_MAX)
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_DEST_QPN) &&
	    le32_to_cpu(a->dest_qp_num) > VDR_24BIT_MAX)
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > VDR_MAX_RD_ATOM)
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > VDR_MAX_RD_ATOM)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (mask & VIRTIO_RDMA_QP_AV) {
		status = vdr_check_av(dev, &a->av);
		if (status)
			return status;
	}
	if (mask & VIRTIO_RDMA_QP_ACCESS_FLAGS) {
		status = vdr_check_access(dev,
					  le32_to_cpu(a->qp_access_flags),
					  false);
		if (status)
			return status;
	}
	/* Only the GSI QP may use a controlled QKEY (IBA 10.2.4). */
	if ((mask & VIRTIO_RDMA_QP_QKEY) &&
	    (le32_to_cpu(a->qkey) & VDR_QKEY_CONTROLLED) &&
	    qp->type != VIRTIO_RDMA_QPT_GSI)
		return VIRTIO_RDMA_STATUS_PERM;
	return VIRTIO_RDMA_STATUS_OK;
}

static void vdr_qp_apply_attr(struct vdr_qp *qp, u32 mask,
			      const struct virtio_rdma_qp_attr *a)
{
	struct virtio_rdma_qp_attr *q = &qp->attr;

	if (mask & VIRTIO_RDMA_QP_EN_SQD_ASYNC_NOTIFY)
		q->en_sqd_async_notify = !!a->en_sqd_async_notify;
	if (mask & VIRTIO_RDMA_QP_ACCESS_FLAGS)
		q->qp_access_flags = a->qp_access_flags;
	if (mask & VIRTIO_RDMA_QP_PKEY_INDEX)
		q->pkey_index = a->pkey_index;
	if (mask & VIRTIO_RDMA_QP_PORT)
		q->port_num = a->port_num;
	if (mask & VIRTIO_RDMA_QP_QKEY)
		q->qkey = a->qkey;
	if (mask & VIRTIO_RDMA_QP_AV) {
		q->av = a->av;
		q->av.reserved = 0;
	}
	if (mask & VIRTIO_RDMA_QP_PATH_MTU)
		q->path_mtu = a->path_mtu;
	if (mask & VIRTIO_RDMA_QP_TIMEOUT)
		q->timeout = a->timeout;
	if (mask & VIRTIO_RDMA_QP_RETRY_CNT)
		q->retry_cnt = a->retry_cnt;
	if (mask & VIRTIO_RDMA_QP_RNR_RETRY)
		q->rnr_retry = a->rnr_retry;
	if (mask & VIRTIO_RDMA_QP_RQ_PSN)
		q->rq_psn = a->rq_psn;
	if (mask & VIRTIO_RDMA_QP_MAX_QP_RD_ATOMIC)
		q->max_rd_atomic = a->max_rd_atomic;
	if (mask & VIRTIO_RDMA_QP_MIN_RNR_TIMER)
		q->min_rnr_timer = a->min_rnr_timer;
	if (mask & VIRTIO_RDMA_QP_SQ_PSN)
		q->sq_psn = a->sq_psn;
	if (mask & VIRTIO_RDMA_QP_MAX_DEST_RD_ATOMIC)
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & VIRTIO_RDMA_QP_DEST_QPN)
		q->dest_qp_num = a->dest_qp_num;
}

/*
 * Completes the outstanding WQEs of one queue with WR_FLUSH_ERR, at most a
 * ring's worth, then sets notify so that each later post rings a doorbell
 * and is flushed too.  Returns true when WQEs were posted meanwhile: the
 * QP's work flushes them on its next run (bounded work per run).
 */
static bool vdr_flush_wq(struct vdr_dev *dev, struct vdr_qp *qp,
			 bool sq)
{
	struct vdr_ring *ring = sq ? &qp->sq : &qp->rq;
	struct virtio_rdma_ring_ctl *ctl = ring->ctl;
	struct vdr_cq *cq = sq ? qp->scq : qp->rcq;
	u32 *cons = sq ? &qp->sq_cons : &qp->rq_cons;
	struct virtio_rdma_cqe cqe;
	u32 prod, n;
	void *wqe;

	if (!ring->depth)
		return false;
	/* The internal SQ of a QP on a TM-SRQ: no CQEs on the send CQ. */
	if (sq && qp->tm) {
		vdr_tm_sq_flush(dev, qp);
		return false;
	}

	/*
	 * Acquire: WQEs below prod are written.  A prod beyond depth is
	 * garbage: flush at most one ring's worth.
	 */
	prod = le32_to_cpu(smp_load_acquire(&ctl->prod));
	n = min(prod - *cons, ring->depth);
	while (n--) {
		wqe = vdr_ring_entry(ring, *cons);
		memset(&cqe, 0, sizeof(cqe));
		/* wr_id is the first field of both WQE formats. */
		cqe.wr_id = READ_ONCE(*(__le64 *)wqe);
		cqe.opcode = VIRTIO_RDMA_WC_OP_RECV;
		if (sq)
			cqe.opcode = vdr_wc_opcode(vdr_sq_opcode(wqe));
		cqe.status = VIRTIO_RDMA_WC_WR_FLUSH_ERR;
		cqe.qp_handle = cpu_to_le32(qp->qpn);
		(*cons)++;
		/* Read, so the slot is free: before its CQE, as in vdr_comp.c. */
		smp_store_release(&ctl->cons, cpu_to_le32(*cons));
		if (vdr_cq_post(dev, cq, &cqe, false))
			return false;	/* CQ overflowed: nothing more to say */
	}
	WRITE_ONCE(ctl->notify, cpu_to_le32(prod));
	/* Pairs with the driver's barrier between prod and notify. */
	smp_mb();
	return le32_to_cpu(READ_ONCE(ctl->prod)) != prod;
}

/* Returns true when more WQEs wait to be flushed (see vdr_flush_wq()). */
bool vdr_qp_flush(struct vdr_dev *dev, struct vdr_qp *qp)
{
	bool more = vdr_flush_wq(dev, qp, true);

	return vdr_flush_wq(dev, qp, false) || more;
}

static void vdr_ring_set_flags(struct vdr_ring *ring, u32 flags)
{
	if (ring->depth)
		WRITE_ONCE(ring->ctl->flags, cpu_to_le32(flags));
}

/* Outstanding WQEs are dropped without completions (spec: to RESET). */
static void vdr_wq_discard(struct vdr_ring *ring, u32 *cons, u32 notify)
{
	if (!ring->depth)
		return;
	*cons = le32_to_cpu(READ_ONCE(ring->ctl->prod));
	WRITE_ONCE(ring->ctl->cons, cpu_to_le32(*cons));
	WRITE_ONCE(ring->ctl->notify, cpu_to_le32(*cons + notify));
	WRITE_ONCE(ring->ctl->flags, 0);
}

static void vdr_qp_enter(struct vdr_dev *dev, struct vdr_qp *qp,
			 u8 next)
{
	u8 cur = qp->state;

	/*
	 * A TM-SRQ's tagged buffers, which a QP holds while it places them,
	 * complete on RESET too: they are the SRQ's, and their indexes are
	 * released only by their last completion.
	 */
	if (next == VIRTIO_RDMA_QPS_ERR ||
	    (next == VIRTIO_RDMA_QPS_RESET && qp->tm))
		vdr_resp_srq_flush(dev, qp);
	vdr_xqp_state(dev, qp, next);
	qp->state = next;
	qp->attr.qp_state = next;
	qp->attr.cur_qp_state = next;

	switch (next) {
	case VIRTIO_RDMA_QPS_RESET:
		if (qp->tm)
			vdr_tm_sq_flush(dev, qp);
		else
			vdr_wq_discard(&qp->sq, &qp->sq_cons, 0);
		vdr_wq_discard(&qp->rq, &qp->rq_cons, VIRTIO_RDMA_NOTIFY_OFF);
		break;
	case VIRTIO_RDMA_QPS_ERR:
		vdr_ring_set_flags(&qp->sq, VIRTIO_RDMA_RING_F_ERROR);
		vdr_ring_set_flags(&qp->rq, VIRTIO_RDMA_RING_F_ERROR);
		if (vdr_qp_flush(dev, qp))
			vdr_qp_doorbell(dev, qp, VIRTIO_RDMA_DOORBELL_SQ);
		/* It takes no more WQEs from its SRQ (IBA 11.6.3.1). */
		if (qp->srq)
			vdr_event_raise(dev, &qp->ev[VDR_QP_EV_LAST_WQE], 0);
		break;
	case VIRTIO_RDMA_QPS_SQD:
		/*
		 * Nothing is in flight while the device executes a command,
		 * so the SQ is drained as soon as it enters SQD.
		 */
		if (cur != VIRTIO_RDMA_QPS_SQD && qp->attr.en_sqd_async_notify)
			vdr_event_raise(dev, &qp->ev[VDR_QP_EV_SQ_DRAINED],
					0);
		break;
	}
}

int vdr_cmd_modify_qp(struct vdr_dev *dev)
{
	const struct virtio_rdma_modify_qp_req *req = &dev->req.modify_qp;
	const struct virtio_rdma_qp_attr *a = &req->attr;
	u32 mask = le32_to_cpu(req->attr_mask);
	struct vdr_memcg m;
	struct vdr_qp *qp;
	u8 cur, next;
	int status, ret;

	if (mask & ~VDR_QP_MASK_SUPPORTED)
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	qp = xa_load(&dev->qps, le32_to_cpu(req->qp_handle));
	if (!qp)
		return VIRTIO_RDMA_STATUS_NOENT;

	mutex_lock(&qp->lock);
	/*
	 * The device never moves a QP behind the driver's back except to
	 * ERR, so a CUR_STATE that is not the real state is a driver error.
	 */
	cur = qp->state;
	status = VIRTIO_RDMA_STATUS_INVAL;
	if ((mask & VIRTIO_RDMA_QP_CUR_STATE) && a->cur_qp_state != cur)
		goto out;
	next = (mask & VIRTIO_RDMA_QP_STATE) ? a->qp_state : cur;
	if (!vdr_qp_transition_ok(cur, next, qp->type, mask))
		goto out;
	status = vdr_check_qp_attr(dev, qp, mask, a);
	if (status)
		goto out;

	vdr_memcg_enter_ring(&m, &qp->sq);
	ret = vdr_xqp_prepare(qp, next, (mask & VIRTIO_RDMA_QP_MAX_DEST_RD_ATOMIC) ?
			      a->max_dest_rd_atomic :
			      qp->attr.max_dest_rd_atomic);
	vdr_memcg_leave(&m);
	if (ret) {
		status = VIRTIO_RDMA_STATUS_NOMEM;
		goto out;
	}
	vdr_qp_apply_attr(qp, mask, a);
	if (mask & VIRTIO_RDMA_QP_STATE)
		vdr_qp_enter(dev, qp, next);
out:
	mutex_unlock(&qp->lock);
	return status;
}

int vdr_cmd_query_qp(struct vdr_dev *dev)
{
	struct vdr_qp *qp;

	qp = xa_load(&dev->qps, le32_to_cpu(dev->req.query_qp.qp_handle));
	if (!qp)
		return VIRTIO_RDMA_STATUS_NOENT;
	mutex_lock(&qp->lock);
	dev->resp.query_qp.attr = qp->attr;
	dev->resp.query_qp.attr.qp_state = qp->state;
	dev->resp.query_qp.attr.cur_qp_state = qp->state;
	dev->resp.query_qp.attr.sq_draining = 0;
	mutex_unlock(&qp->lock);
	return VIRTIO_RDMA_STATUS_OK;
}

int vdr_cmd_destroy_qp(struct vdr_dev *dev)
{
	struct vdr_qp *qp;

	qp = xa_load(&dev->qps, le32_to_cpu(dev->req.destroy_qp.qp_handle));
	if (!qp)
		return VIRTIO_RDMA_STATUS_NOENT;
	/* What was posted by now: the driver destroys, it posts no more. */
	mutex_lock(&qp->lock);
	if (qp->state != VIRTIO_RDMA_QPS_RESET) {
		vdr_resp_srq_flush(dev, qp);
		/*
		 * ERR before the flush, quietly (no event: the QP is going).
		 * In RTS and SQD the transport walks the SQ from sq_cons to
		 * sq_fetched, and the flush moves sq_cons past WQEs it never
		 * fetched: a run of the QP's work until vdr_qp_free() stops
		 * it (a packet, an ACK, a timer) would walk 2^32 slots.
		 */
		vdr_xqp_state(dev, qp, VIRTIO_RDMA_QPS_ERR);
		qp->state = VIRTIO_RDMA_QPS_ERR;
		vdr_qp_flush(dev, qp);
	}
	mutex_unlock(&qp->lock);
	vdr_fault_destroy_qp_delay(dev, qp);
	vdr_qp_free(dev, qp);
	return VIRTIO_RDMA_STATUS_OK;
}

/*
 * A doorbell only schedules the QP's work, which executes the new WQEs or,
 * in ERR, flushes them.  Any context but hard interrupts, under RCU.
 */
void vdr_qp_doorbell(struct vdr_dev *dev, struct vdr_qp *qp, u32 type)
{
	/* Pairs with the release in vdr_xqp_create(). */
	struct vdr_xqp *x = smp_load_acquire(&qp->xqp);

	if (!x)
		return;
	vdr_xqp_note_doorbell(x, type);
	vdr_xqp_schedule(x);
}

/* The data path's asynchronous move to ERR (the caller sends the event). */
void vdr_qp_set_err(struct vdr_dev *dev, struct vdr_qp *qp)
{
	if (qp->state != VIRTIO_RDMA_QPS_ERR)
		vdr_qp_enter(dev, qp, VIRTIO_RDMA_QPS_ERR);
}

/* Reset: no completions are written. */
void vdr_qps_destroy(struct vdr_dev *dev)
{
	struct vdr_qp *qp;
	unsigned long idx;

	xa_for_each(&dev->qps, idx, qp)
		vdr_qp_free(dev, qp);
	dev->qp_next = 0;
}
