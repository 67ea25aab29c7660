// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: shared receive queues (VIRTIO_RDMA_F_SRQ).
 *
 * An SRQ is a receive ring of the RQ's format that several QPs consume.
 * The QPs' work runs on several CPUs at once, so the consumer index is
 * the SRQ's own, under srq->lock, and a QP takes a WQE out of the ring
 * (copies it and advances cons) when a message starts: from then on the
 * WQE belongs to that QP, which completes it into its own receive CQ, or
 * flushes it when it goes to ERR.  The WQEs still in the ring belong to
 * the SRQ: a QP's ERR does not flush them, and DESTROY_SRQ drops them
 * (IBA 10.2.9.5).
 *
 * The limit event is one-shot: MODIFY_SRQ (or CREATE_SRQ) arms it with a
 * non-zero limit; the take that leaves fewer WQEs than the limit in the
 * ring disarms it (the limit reads 0 again) and raises SRQ_LIMIT_REACHED.
 *
 * An XRC SRQ (VIRTIO_RDMA_F_XRC) has no QPs attached: the XRC_TGT QPs of
 * its domain find it by the SRQ number each request carries, take WQEs
 * as above and complete them into the SRQ's own CQ.  DESTROY_SRQ does not
 * wait for them (spec "XRC"); it makes them forget the SRQ instead (the
 * lifetimes in vdpa_rdma.h).
 *
 * A TM-SRQ (VIRTIO_RDMA_F_TM_SRQ) is a basic SRQ whose QPs first look
 * for a tagged buffer of its list; its ring takes the messages that match
 * none.  Its ops ring and list are vdr_tm.c's.
 */
#include <kunit/visibility.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"

#define VDR_RQ_HDR		sizeof(struct virtio_rdma_rq_wqe)
#define VDR_SGE_SIZE		sizeof(struct virtio_rdma_sge)

/*
 * Take the WQE at cons.  Returns 0 with the WQE and its SGEs copied, or
 * -ENOENT when the SRQ is empty, -EOVERFLOW when prod is garbage (nothing
 * taken), -EINVAL when the WQE is malformed (taken, so that it fails only
 * once).  *limit_hit is set when this take fired the limit.
 */
int vdr_srq_take(struct vdr_srq *srq, struct virtio_rdma_rq_wqe *wqe,
		 struct virtio_rdma_sge *sge, bool *limit_hit)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&srq->lock, flags);
	ret = vdr_srq_take_locked(srq, wqe, sge, limit_hit);
	spin_unlock_irqrestore(&srq->lock, flags);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_srq_take);

/* vdr_srq_take() with srq->lock held (a TM-SRQ's classification). */
int vdr_srq_take_locked(struct vdr_srq *srq, struct virtio_rdma_rq_wqe *wqe,
			struct virtio_rdma_sge *sge, bool *limit_hit)
{
	struct vdr_ring *ring = &srq->ring;
	const struct virtio_rdma_rq_wqe *src;
	u32 prod, n;
	int ret = 0;

	lockdep_assert_held(&srq->lock);
	*limit_hit = false;
	/* Pairs with the producer's release of prod after writing the WQE. */
	prod = le32_to_cpu(smp_load_acquire(&ring->ctl->prod));
	if (prod == srq->cons) {
		ret = -ENOENT;
		goto out;
	}
	if (prod - srq->cons > ring->depth) {
		ret = -EOVERFLOW;
		goto out;
	}
	src = vdr_ring_entry(ring, srq->cons);
	memcpy(wqe, src, sizeof(*wqe));
	n = wqe->num_sge;
	if (n > srq->max_sge || VDR_RQ_HDR + n * VDR_SGE_SIZE > ring->stride)
		ret = -EINVAL;
	else
		memcpy(sge, src + 1, n * VDR_SGE_SIZE);
	srq->cons++;
	/* The WQE was copied out: the producer may reuse its slot. */
	smp_store_release(&ring->ctl->cons, cpu_to_le32(srq->cons));
	if (vdr_srq_limit_hit(srq->limit, prod - srq->cons)) {
		srq->limit = 0;
		*limit_hit = true;
	}
out:
	return ret;
}

/**
 * vdr_srq_xrc_ok - may a request to an XRC_TGT QP go to this SRQ
 * @srq: the SRQ the request's XRCETH names, NULL when there is none
 * @xrcd: the target QP's domain
 * @msg_srq: the SRQ of the QP's message in progress, NULL when none or
 *	     when it was destroyed since
 * @cont: the request is a middle or last packet of that message
 *
 * The domain check of the spec ("XRC", "At the target"): an XRC SRQ of
 * the QP's domain, and inside a message the SRQ its first packet named.
 *
 * Return: false for an invalid request.
 */
bool vdr_srq_xrc_ok(const struct vdr_srq *srq, const struct vdr_xrcd *xrcd,
		    const struct vdr_srq *msg_srq, bool cont)
{
	/* A basic SRQ has no domain. */
	if (!srq || !srq->xrcd || srq->xrcd != xrcd)
		return false;
	return !cont || srq == msg_srq;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_srq_xrc_ok);

static int vdr_check_create_srq(struct vdr_dev *dev,
				const struct virtio_rdma_create_srq_req *req)
{
	u32 depth = le32_to_cpu(req->depth);
	u32 max_sge = le32_to_cpu(req->max_sge);
	u64 addr = le64_to_cpu(req->ring_addr);
	u32 stride;

	if (req->wqe_shift > VDR_MAX_RQ_WQE_SHIFT || !max_sge ||
	    max_sge > VDR_MAX_SRQ_SGE)
		return VIRTIO_RDMA_STATUS_INVAL;
	stride = VDR_RQ_HDR << req->wqe_shift;
	if (VDR_RQ_HDR + max_sge * VDR_SGE_SIZE > stride)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (!depth || depth > VDR_MAX_SRQ_WR || !is_power_of_2(depth))
		return VIRTIO_RDMA_STATUS_INVAL;
	if (le32_to_cpu(req->srq_limit) > depth)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (addr % VIRTIO_RDMA_RING_CTL_SIZE)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (le64_to_cpu(req->ring_size) <
	    VIRTIO_RDMA_RING_CTL_SIZE + (u64)depth * stride)
		return VIRTIO_RDMA_STATUS_INVAL;
	return VIRTIO_RDMA_STATUS_OK;
}

/* The type and the objects it names (spec "CREATE_SRQ"). */
static int vdr_check_srq_type(struct vdr_dev *dev,
			      const struct virtio_rdma_create_srq_req *req)
{
	switch (req->srq_type) {
	case VIRTIO_RDMA_SRQT_BASIC:
		if (req->xrcd_handle || req->cq_handle)
			return VIRTIO_RDMA_STATUS_INVAL;
		return vdr_tm_srq_check(dev, req);
	case VIRTIO_RDMA_SRQT_XRC:
		if (!vdr_has_feature(dev, VIRTIO_RDMA_F_XRC))
			return VIRTIO_RDMA_STATUS_OPNOTSUPP;
		if (!xa_load(&dev->xrcds, le32_to_cpu(req->xrcd_handle)) ||
		    !xa_load(&dev->cqs, le32_to_cpu(req->cq_handle)))
			return VIRTIO_RDMA_STATUS_NOENT;
		return vdr_tm_srq_check(dev, req);
	case VIRTIO_RDMA_SRQT_TM:
		return vdr_tm_srq_check(dev, req);
	default:
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	}
}

/* An XRC SRQ's domain and CQ stay while it exists (DESTROY_* say BUSY). */
static void vdr_srq_xrc_init(struct vdr_dev *dev, struct vdr_srq *srq,
			     const struct virtio_rdma_create_srq_req *req)
{
	if (req->srq_type != VIRTIO_RDMA_SRQT_XRC)
		return;
	srq->xrcd = vdr_xrcd_get(dev, le32_to_cpu(req->xrcd_handle));
	srq->cq = xa_load(&dev->cqs, le32_to_cpu(req->cq_handle));
	srq->cq->nr_srqs++;
}

int vdr_cmd_create_srq(struct vdr_dev *dev)
{
	const struct virtio_rdma_create_srq_req *req = &dev->req.create_srq;
	struct vdr_memcg m;
	struct vdr_srq *srq;
	u32 handle;
	int status, ret;

	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_SRQ))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	status = vdr_check_srq_type(dev, req);
	if (status)
		return status;
	status = vdr_check_create_srq(dev, req);
	if (status)
		return status;
	if (!xa_load(&dev->pds, le32_to_cpu(req->pd_handle)))
		return VIRTIO_RDMA_STATUS_NOENT;
	if (dev->nr_srqs >= VDR_MAX_SRQ)
		return VIRTIO_RDMA_STATUS_NOSPC;

	vdr_memcg_enter(dev, &m, le64_to_cpu(req->ring_addr));
	srq = kzalloc(sizeof(*srq), VDR_GFP_OBJ);
	vdr_memcg_leave(&m);
	if (!srq)
		return VIRTIO_RDMA_STATUS_NOMEM;
	spin_lock_init(&srq->lock);
	ret = vdr_ring_map(dev, &srq->ring, le64_to_cpu(req->ring_addr),
			   le32_to_cpu(req->depth),
			   VDR_RQ_HDR << req->wqe_shift);
	if (ret) {
		kfree(srq);
		return vdr_errno_status(ret);
	}
	srq->type = req->srq_type;
	status = vdr_tm_srq_init(dev, srq, req);
	if (status) {
		vdr_ring_unmap(&srq->ring);
		kfree(srq);
		return status;
	}
	/*
	 * The handle is reserved first and the SRQ published complete: the
	 * data path looks XRC SRQs up by number.  Handles are SRQ numbers
	 * on the wire, below 2^24 (VDR_HANDLE_MAX).
	 */
	ret = xa_alloc_cyclic(&dev->srqs, &handle, NULL,
			      XA_LIMIT(1, VDR_HANDLE_MAX), &dev->srq_next,
			      GFP_KERNEL);
	if (ret < 0) {
		vdr_tm_srq_fini(dev, srq);
		vdr_ring_unmap(&srq->ring);
		kfree(srq);
		return ret == -EBUSY ? VIRTIO_RDMA_STATUS_NOSPC :
				       VIRTIO_RDMA_STATUS_NOMEM;
	}
	srq->handle = handle;
	srq->max_sge = le32_to_cpu(req->max_sge);
	srq->limit = le32_to_cpu(req->srq_limit);
	srq->pd = vdr_pd_get(dev, le32_to_cpu(req->pd_handle));
	vdr_srq_xrc_init(dev, srq, req);
	vdr_event_init(&srq->limit_ev, VIRTIO_RDMA_EVENT_SRQ_LIMIT_REACHED,
		       handle, 0);
	/*
	 * The device reads the SRQ when a message arrives and never flushes
	 * it, so it needs no doorbell (spec "Shared receive queues").
	 */
	WRITE_ONCE(srq->ring.ctl->notify, cpu_to_le32(VIRTIO_RDMA_NOTIFY_OFF));
	/* Into the reserved slot: allocates nothing, cannot fail. */
	xa_store(&dev->srqs, handle, srq, GFP_KERNEL);
	dev->nr_srqs++;
	dev->resp.create_srq.srq_handle = cpu_to_le32(handle);
	return VIRTIO_RDMA_STATUS_OK;
}

static struct vdr_srq *vdr_srq_lookup(struct vdr_dev *dev, __le32 handle)
{
	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_SRQ))
		return NULL;
	return xa_load(&dev->srqs, le32_to_cpu(handle));
}

int vdr_cmd_modify_srq(struct vdr_dev *dev)
{
	const struct virtio_rdma_modify_srq_req *req = &dev->req.modify_srq;
	u32 mask = le32_to_cpu(req->attr_mask);
	u32 limit = le32_to_cpu(req->srq_limit);
	struct vdr_srq *srq;
	unsigned long flags;

	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_SRQ))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	/* No SRQ resize: VIRTIO_RDMA_F_RESIZE covers CQs only (spec). */
	if (mask & ~VIRTIO_RDMA_SRQ_LIMIT)
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	srq = vdr_srq_lookup(dev, req->srq_handle);
	if (!srq)
		return VIRTIO_RDMA_STATUS_NOENT;
	if (!(mask & VIRTIO_RDMA_SRQ_LIMIT))
		return VIRTIO_RDMA_STATUS_OK;
	if (limit > srq->ring.depth)
		return VIRTIO_RDMA_STATUS_INVAL;
	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return VIRTIO_RDMA_STATUS_OK;
}

int vdr_cmd_query_srq(struct vdr_dev *dev)
{
	struct virtio_rdma_query_srq_resp *resp = &dev->resp.query_srq;
	struct vdr_srq *srq;
	unsigned long flags;

	srq = vdr_srq_lookup(dev, dev->req.query_srq.srq_handle);
	if (!srq)
		return vdr_has_feature(dev, VIRTIO_RDMA_F_SRQ) ?
			VIRTIO_RDMA_STATUS_NOENT : VIRTIO_RDMA_STATUS_OPNOTSUPP;
	resp->max_wr = cpu_to_le32(srq->ring.depth);
	resp->max_sge = cpu_to_le32(srq->max_sge);
	spin_lock_irqsave(&srq->lock, flags);
	resp->srq_limit = cpu_to_le32(srq->limit);
	spin_unlock_irqrestore(&srq->lock, flags);
	return VIRTIO_RDMA_STATUS_OK;
}

/*
 * The XRC_TGT QPs of the domain of @srq, which is out of the table, forget
 * it: none can find it again, and each one's run that might use it has
 * ended once its lock was taken here.
 */
static void vdr_srq_xrc_detach(struct vdr_dev *dev, struct vdr_srq *srq)
{
	struct vdr_qp *qp;
	unsigned long idx;

	xa_for_each(&dev->qps, idx, qp) {
		if (qp->type != VIRTIO_RDMA_QPT_XRC_TGT || qp->xrcd != srq->xrcd)
			continue;
		mutex_lock(&qp->lock);
		vdr_resp_srq_gone(qp, srq);
		mutex_unlock(&qp->lock);
	}
	srq->cq->nr_srqs--;
	vdr_xrcd_put(srq->xrcd);
}

static void vdr_srq_free(struct vdr_dev *dev, struct vdr_srq *srq)
{
	xa_erase(&dev->srqs, srq->handle);
	if (srq->xrcd)
		vdr_srq_xrc_detach(dev, srq);
	vdr_tm_srq_fini(dev, srq);
	vdr_event_cancel(dev, &srq->limit_ev);
	vdr_ring_unmap(&srq->ring);
	vdr_pd_put(srq->pd);
	dev->nr_srqs--;
	/*
	 * QPs reach a basic SRQ only through qp->srq, and none is left;
	 * target QPs forgot an XRC one above.
	 */
	kfree_rcu(srq, rcu);
}

int vdr_cmd_destroy_srq(struct vdr_dev *dev)
{
	struct vdr_srq *srq;

	srq = vdr_srq_lookup(dev, dev->req.destroy_srq.srq_handle);
	if (!srq)
		return vdr_has_feature(dev, VIRTIO_RDMA_F_SRQ) ?
			VIRTIO_RDMA_STATUS_NOENT : VIRTIO_RDMA_STATUS_OPNOTSUPP;
	if (srq->nr_qps)
		return VIRTIO_RDMA_STATUS_BUSY;
	/* WQEs still in the ring are dropped without completions. */
	vdr_srq_free(dev, srq);
	return VIRTIO_RDMA_STATUS_OK;
}

/* Reset: the QPs are gone already. */
void vdr_srqs_destroy(struct vdr_dev *dev)
{
	struct vdr_srq *srq;
	unsigned long idx;

	xa_for_each(&dev->srqs, idx, srq)
		vdr_srq_free(dev, srq);
	dev->srq_next = 0;
}
