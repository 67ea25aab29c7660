// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: tag matching (VIRTIO_RDMA_F_TM_SRQ).
 *
 * A TM-SRQ is an SRQ (its ring takes unexpected messages) with a list of
 * tagged buffers that the driver changes through an ops ring.  The list
 * and its two counters (unexpected messages delivered, hw_cnt, and seen
 * by software, sw_cnt) live under srq->lock, which the QPs of the SRQ
 * already take to consume its ring: the SRQ is the serialisation point
 * of all its QPs, which run on different CPUs.  CQEs are written outside
 * that spinlock (vdr_cq_post() may deliver an event, which sleeps).
 *
 * The ops run in a work item of the SRQ on vdr_wq, a budget per run: an
 * op writes a CQE, so it may sleep, and the doorbell path (db_work or
 * the notifier's context, under the doorbellq's lock) must not wait for
 * a flood of ops while other QPs' doorbells queue behind it; a work item
 * also takes turns with the QPs.  dev->lock is never taken.
 *
 * Release words: when the device lets go of a tagged buffer (its last
 * completion, a successful DEL, a refused ADD) it writes the buffer's
 * handle into release[index] after that CQE, so that the driver reuses an
 * index only once the device is done with it.
 */
#include <kunit/visibility.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"
#include "vdr_tm.h"
#include "vdr_xport.h"

#define VDR_TM_OPS_BUDGET	64
#define VDR_SGE_SIZE		sizeof(struct virtio_rdma_sge)

/* ---- the tag list: pure functions of plain structs (KUnit) ---- */

int vdr_tm_init(struct vdr_tm *tm, u32 max_tags, u32 max_sge, gfp_t gfp)
{
	memset(tm, 0, sizeof(*tm));
	INIT_LIST_HEAD(&tm->list);
	tm->e = kvcalloc(max_tags, sizeof(*tm->e), gfp);
	if (!tm->e)
		return -ENOMEM;
	tm->max_tags = max_tags;
	tm->max_sge = max_sge;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_init);

void vdr_tm_fini(struct vdr_tm *tm)
{
	kvfree(tm->e);
	tm->e = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_fini);

/* SGEs after an op's header in a slot of stride 64 << @ops_shift. */
u32 vdr_tm_ops_max_sge(u8 ops_shift)
{
	u32 stride = VDR_TM_OP_HDR << ops_shift;

	return min_t(u32, VDR_TM_MAX_SGE, (stride - VDR_TM_OP_HDR) / VDR_SGE_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_ops_max_sge);

static bool vdr_tm_add(struct vdr_tm *tm, const struct virtio_rdma_tm_op *op,
		       const struct virtio_rdma_sge *sge)
{
	u32 handle = le32_to_cpu(op->handle);
	struct vdr_tm_entry *e;

	if (vdr_tm_index(handle) >= tm->max_tags || !(handle >> 16) ||
	    op->num_sge > tm->max_sge)
		return false;
	e = &tm->e[vdr_tm_index(handle)];
	if (e->handle)
		return false;
	e->handle = handle;
	e->posted = true;
	e->active = tm->sw_cnt == tm->hw_cnt;
	e->recv_wr_id = le64_to_cpu(op->recv_wr_id);
	e->tag = le64_to_cpu(op->tag);
	e->mask = le64_to_cpu(op->mask);
	e->num_sge = op->num_sge;
	memcpy(e->sge, sge, op->num_sge * VDR_SGE_SIZE);
	list_add_tail(&e->node, &tm->list);
	return true;
}

/* The entry @handle names, when it is posted with exactly that handle. */
static struct vdr_tm_entry *vdr_tm_posted(struct vdr_tm *tm, u32 handle)
{
	struct vdr_tm_entry *e;

	if (vdr_tm_index(handle) >= tm->max_tags)
		return NULL;
	e = &tm->e[vdr_tm_index(handle)];
	return e->posted && e->handle == handle ? e : NULL;
}

/**
 * vdr_tm_op - apply one op of the ops ring to the tag list
 * @tm: the list, under the SRQ's lock
 * @op: the op, copied out of the ring
 * @sge: its SGEs (ADD), op->num_sge of them or fewer when it has too many
 *	 (then the ADD is refused without reading them)
 * @res: what to write: the CQE and the release word
 *
 * Return: 0, or -EINVAL for an unknown opcode (a ring validation error).
 */
int vdr_tm_op(struct vdr_tm *tm, const struct virtio_rdma_tm_op *op,
	      const struct virtio_rdma_sge *sge, struct vdr_tm_op_res *res)
{
	u32 handle = le32_to_cpu(op->handle);
	bool signaled = op->flags & VIRTIO_RDMA_TM_OP_F_SIGNALED;
	struct vdr_tm_entry *e;
	bool ok = true;

	memset(res, 0, sizeof(*res));
	switch (op->opcode) {
	case VIRTIO_RDMA_TM_OP_ADD:
		res->wc_opcode = VIRTIO_RDMA_WC_OP_TM_ADD;
		break;
	case VIRTIO_RDMA_TM_OP_DEL:
		res->wc_opcode = VIRTIO_RDMA_WC_OP_TM_DEL;
		break;
	case VIRTIO_RDMA_TM_OP_SYNC:
		res->wc_opcode = VIRTIO_RDMA_WC_OP_TM_SYNC;
		break;
	default:
		return -EINVAL;
	}
	/* Before the op's own effect: an ADD with it may be active at once. */
	if (op->flags & VIRTIO_RDMA_TM_OP_F_SYNC)
		tm->sw_cnt = le32_to_cpu(op->unexpected_cnt);

	switch (op->opcode) {
	case VIRTIO_RDMA_TM_OP_ADD:
		ok = vdr_tm_add(tm, op, sge);
		/* A refused ADD gives its handle back at once. */
		if (!ok && vdr_tm_index(handle) < tm->max_tags) {
			res->release = true;
			res->rel_index = vdr_tm_index(handle);
			res->rel_handle = handle;
		}
		break;
	case VIRTIO_RDMA_TM_OP_DEL:
		e = vdr_tm_posted(tm, handle);
		ok = e;
		if (!e)
			break;
		list_del(&e->node);
		e->posted = false;
		e->handle = 0;
		res->release = true;
		res->rel_index = vdr_tm_index(handle);
		res->rel_handle = handle;
		break;
	}
	if (tm->sw_cnt == tm->hw_cnt)
		list_for_each_entry(e, &tm->list, node)
			e->active = true;
	else
		res->tm_flags = VIRTIO_RDMA_TM_F_SYNC_REQ;
	res->status = ok ? VIRTIO_RDMA_WC_SUCCESS : VIRTIO_RDMA_WC_TM_ERR;
	/* Errors are reported whether or not the op was signaled. */
	res->cqe = signaled || !ok;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_op);

/* The first active posted entry, in list order, whose masked tag matches. */
struct vdr_tm_entry *vdr_tm_match(struct vdr_tm *tm, u64 tag)
{
	struct vdr_tm_entry *e;

	list_for_each_entry(e, &tm->list, node)
		if (e->active && !((tag ^ e->tag) & e->mask))
			return e;
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_match);

/* A matched entry leaves the list; its index stays used until released. */
void vdr_tm_consume(struct vdr_tm *tm, struct vdr_tm_entry *e)
{
	list_del(&e->node);
	e->posted = false;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_consume);

/* The consumed entry @handle is done: its index is free. */
bool vdr_tm_release(struct vdr_tm *tm, u32 handle)
{
	struct vdr_tm_entry *e;

	if (vdr_tm_index(handle) >= tm->max_tags)
		return false;
	e = &tm->e[vdr_tm_index(handle)];
	if (e->posted || e->handle != handle)
		return false;
	e->handle = 0;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_release);

/*
 * Cut an SGE list to its first @len bytes (a rendezvous READ of fewer
 * bytes than the tagged buffer holds).  Returns the SGEs left.
 */
u32 vdr_tm_sge_trim(struct virtio_rdma_sge *sge, u32 num, u64 len)
{
	u32 i, l;

	for (i = 0; i < num && len; i++) {
		l = le32_to_cpu(sge[i].length);
		if (l >= len) {
			sge[i].length = cpu_to_le32(len);
			return i + 1;
		}
		len -= l;
	}
	return i;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_sge_trim);

/* ---- the TM-SRQ: CREATE_SRQ, DESTROY_SRQ, the ops ring ---- */

static bool vdr_tm_fields_zero(const struct virtio_rdma_create_srq_req *req)
{
	return !req->max_num_tags && !req->ops_depth && !req->ops_addr &&
	       !req->ops_size && !req->ops_shift;
}

/* The ops area: a ring_ctl, the ops, then a release word per tag. */
static u64 vdr_tm_ops_bytes(u32 depth, u8 shift, u32 tags)
{
	return VIRTIO_RDMA_RING_CTL_SIZE + ((u64)depth << shift) * VDR_TM_OP_HDR +
	       (u64)tags * sizeof(__le32);
}

/**
 * vdr_tm_srq_check - the TM part of CREATE_SRQ (spec "Tag matching")
 * @dev: the device
 * @req: the request; any type (the TM fields are 0 but for TM)
 *
 * Return: a VIRTIO_RDMA_STATUS_*.
 */
int vdr_tm_srq_check(struct vdr_dev *dev,
		     const struct virtio_rdma_create_srq_req *req)
{
	u32 tags = le32_to_cpu(req->max_num_tags);
	u32 depth = le32_to_cpu(req->ops_depth);
	u64 addr = le64_to_cpu(req->ops_addr);
	u64 size = le64_to_cpu(req->ops_size);

	if (req->srq_type != VIRTIO_RDMA_SRQT_TM)
		return vdr_tm_fields_zero(req) ? VIRTIO_RDMA_STATUS_OK :
						 VIRTIO_RDMA_STATUS_INVAL;
	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_TM_SRQ))
		return VIRTIO_RDMA_STATUS_OPNOTSUPP;
	if (req->xrcd_handle || !tags || tags > VDR_TM_MAX_TAGS ||
	    !depth || depth > VDR_TM_MAX_OPS || !is_power_of_2(depth) ||
	    req->ops_shift > VDR_TM_MAX_OPS_SHIFT)
		return VIRTIO_RDMA_STATUS_INVAL;
	/* A page list (VIRTIO_RDMA_F_RING_PAGES) is aligned as a ring is. */
	if (addr % VIRTIO_RDMA_RING_CTL_SIZE || !PAGE_ALIGNED(size) ||
	    (!vdr_has_feature(dev, VIRTIO_RDMA_F_RING_PAGES) &&
	     !PAGE_ALIGNED(addr)))
		return VIRTIO_RDMA_STATUS_INVAL;
	if (size < vdr_tm_ops_bytes(depth, req->ops_shift, tags))
		return VIRTIO_RDMA_STATUS_INVAL;
	if (!xa_load(&dev->cqs, le32_to_cpu(req->cq_handle)))
		return VIRTIO_RDMA_STATUS_NOENT;
	return VIRTIO_RDMA_STATUS_OK;
}

static void vdr_tm_ops_work(struct work_struct *work);

/**
 * vdr_tm_srq_init - the TM part of a new SRQ
 * @dev: the device, under dev->lock
 * @srq: the SRQ, not yet published
 * @req: a request vdr_tm_srq_check() passed
 *
 * Maps the ops area, allocates the tag list and takes the CQ.
 *
 * Return: a VIRTIO_RDMA_STATUS_*.
 */
int vdr_tm_srq_init(struct vdr_dev *dev, struct vdr_srq *srq,
		    const struct virtio_rdma_create_srq_req *req)
{
	struct vdr_srq_tm *t = &srq->tm;
	u32 tags = le32_to_cpu(req->max_num_tags);
	u32 depth = le32_to_cpu(req->ops_depth);
	u32 stride = VDR_TM_OP_HDR << req->ops_shift;
	struct vdr_memcg m;
	int ret;

	if (req->srq_type != VIRTIO_RDMA_SRQT_TM)
		return VIRTIO_RDMA_STATUS_OK;
	vdr_memcg_enter(dev, &m, le64_to_cpu(req->ops_addr));
	ret = vdr_tm_init(&t->tm, tags, vdr_tm_ops_max_sge(req->ops_shift),
			  VDR_GFP_OBJ);
	vdr_memcg_leave(&m);
	if (ret)
		return VIRTIO_RDMA_STATUS_NOMEM;
	ret = vdr_ring_map_extra(dev, &t->ops, le64_to_cpu(req->ops_addr),
				 depth, stride, tags * sizeof(__le32));
	if (ret) {
		vdr_tm_fini(&t->tm);
		return vdr_errno_status(ret);
	}
	t->release = t->ops.entries + (size_t)depth * stride;
	t->dev = dev;
	INIT_WORK(&t->work, vdr_tm_ops_work);
	srq->cq = xa_load(&dev->cqs, le32_to_cpu(req->cq_handle));
	srq->cq->nr_srqs++;
	/* The first op rings, as an SQ's first WQE does. */
	WRITE_ONCE(t->ops.ctl->notify, cpu_to_le32(0));
	return VIRTIO_RDMA_STATUS_OK;
}

/* DESTROY_SRQ or reset, with the SRQ out of dev->srqs and no QP on it. */
void vdr_tm_srq_fini(struct vdr_dev *dev, struct vdr_srq *srq)
{
	struct vdr_srq_tm *t = &srq->tm;
	unsigned long flags;

	if (!vdr_srq_is_tm(srq))
		return;
	spin_lock_irqsave(&srq->lock, flags);
	t->dead = true;
	spin_unlock_irqrestore(&srq->lock, flags);
	cancel_work_sync(&t->work);
	vdr_ring_unmap(&t->ops);
	vdr_tm_fini(&t->tm);
	srq->cq->nr_srqs--;
}

static void vdr_tm_schedule(struct vdr_srq *srq)
{
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	if (!srq->tm.dead)
		queue_work(vdr_wq, &srq->tm.work);
	spin_unlock_irqrestore(&srq->lock, flags);
}

/* VIRTIO_RDMA_DOORBELL_SRQ_OPS; the caller holds RCU, which keeps @srq. */
void vdr_tm_srq_doorbell(struct vdr_srq *srq)
{
	if (vdr_srq_is_tm(srq))
		vdr_tm_schedule(srq);
}

/* Suspend: no ops run after this; dev->running is already false. */
void vdr_tm_srqs_stop(struct vdr_dev *dev)
{
	struct vdr_srq *srq;
	unsigned long idx;

	lockdep_assert_held(&dev->lock);
	xa_for_each(&dev->srqs, idx, srq)
		if (vdr_srq_is_tm(srq))
			flush_work(&srq->tm.work);
}

/* Resume: ops posted meanwhile are taken up, as if their doorbell rang. */
void vdr_tm_srqs_resume(struct vdr_dev *dev)
{
	struct vdr_srq *srq;
	unsigned long idx;

	lockdep_assert_held(&dev->lock);
	xa_for_each(&dev->srqs, idx, srq)
		if (vdr_srq_is_tm(srq))
			vdr_tm_schedule(srq);
}

static void vdr_tm_write_release(struct vdr_srq_tm *t, u32 index, u32 handle)
{
	/* After the CQE that finished the entry: the driver polled it. */
	smp_store_release(&t->release[index], cpu_to_le32(handle));
}

/**
 * vdr_tm_srq_release - let go of a consumed tagged buffer
 * @srq: its TM-SRQ
 * @handle: its handle
 *
 * Called after the buffer's last CQE: frees its index and tells the
 * driver so through the release word.
 */
void vdr_tm_srq_release(struct vdr_srq *srq, u32 handle)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&srq->lock, flags);
	ok = vdr_tm_release(&srq->tm.tm, handle);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (ok)
		vdr_tm_write_release(&srq->tm, vdr_tm_index(handle), handle);
}

/* An impossible prod: the ring is broken, the SRQ takes no more ops. */
static void vdr_tm_ops_error(struct vdr_dev *dev, struct vdr_srq_tm *t)
{
	t->error = true;
	vdr_stat_inc(dev, VIRTIO_RDMA_STAT_BAD_WQE);
	WRITE_ONCE(t->ops.ctl->flags, cpu_to_le32(VIRTIO_RDMA_RING_F_ERROR));
}

/*
 * Whether an op waits at cons; asks for a doorbell (and looks again) when
 * none does, as the requester does for an SQ.
 */
static bool vdr_tm_ops_pending(struct vdr_srq_tm *t, u32 *prod)
{
	struct virtio_rdma_ring_ctl *ctl = t->ops.ctl;

	/* Pairs with the driver's release of prod after writing the op. */
	*prod = le32_to_cpu(smp_load_acquire(&ctl->prod));
	if (*prod != t->cons)
		return true;
	WRITE_ONCE(ctl->notify, cpu_to_le32(*prod));
	/* Order the notify store before re-reading prod (spec). */
	smp_mb();
	/* Pairs with the driver's release of prod, as above. */
	*prod = le32_to_cpu(smp_load_acquire(&ctl->prod));
	return *prod != t->cons;
}

/* Take and apply the op at cons, write its CQE and release word. */
static void vdr_tm_ops_one(struct vdr_dev *dev, struct vdr_srq *srq)
{
	struct vdr_srq_tm *t = &srq->tm;
	struct virtio_rdma_sge sge[VDR_TM_MAX_SGE];
	struct virtio_rdma_cqe cqe = { };
	struct virtio_rdma_tm_op op;
	struct vdr_tm_op_res res;
	const void *src;
	unsigned long flags;
	int ret;

	src = vdr_ring_entry(&t->ops, t->cons);
	memcpy(&op, src, sizeof(op));
	/* Too many SGEs: the ADD is refused without them. */
	if (op.num_sge <= t->tm.max_sge)
		memcpy(sge, src + VDR_TM_OP_HDR, op.num_sge * VDR_SGE_SIZE);
	t->cons++;
	/* The op was copied out: the driver may reuse its slot. */
	smp_store_release(&t->ops.ctl->cons, cpu_to_le32(t->cons));

	spin_lock_irqsave(&srq->lock, flags);
	ret = vdr_tm_op(&t->tm, &op, sge, &res);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (ret) {
		vdr_tm_ops_error(dev, t);
		return;
	}
	/* A DEL that lost the race with a match is no driver error. */
	if (res.status && op.opcode == VIRTIO_RDMA_TM_OP_ADD)
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_BAD_WQE);
	if (res.cqe) {
		cqe.wr_id = op.wr_id;
		cqe.status = res.status;
		cqe.opcode = res.wc_opcode;
		cqe.tm_flags = res.tm_flags;
		vdr_cq_post(dev, srq->cq, &cqe, false);
	}
	if (res.release)
		vdr_tm_write_release(t, res.rel_index, res.rel_handle);
}

static void vdr_tm_ops_work(struct work_struct *work)
{
	struct vdr_srq_tm *t = container_of(work, struct vdr_srq_tm, work);
	struct vdr_srq *srq = container_of(t, struct vdr_srq, tm);
	struct vdr_dev *dev = t->dev;
	u32 prod, i;

	/* Suspended or reset: resume schedules this again. */
	if (!READ_ONCE(dev->running) || t->error)
		return;
	for (i = 0; i < VDR_TM_OPS_BUDGET; i++) {
		if (!vdr_tm_ops_pending(t, &prod))
			return;
		if (prod - t->cons > t->ops.depth) {
			vdr_tm_ops_error(dev, t);
			return;
		}
		vdr_tm_ops_one(dev, srq);
		if (t->error)
			return;
	}
	/* Budget used up: behind the other work items. */
	vdr_tm_schedule(srq);
}

/* ---- the receive side: classification (pure) ---- */

/**
 * vdr_tm_msg_kind - how a SEND's first packet asks to be received
 * @payload: its payload, which starts with the TMH if it has one
 * @len: bytes of @payload
 * @only: the message is this one packet
 *
 * Before the tag list is looked at: a short payload or a TMH that is
 * neither NO_TAG, EAGER nor RNDV (a FIN, garbage) is an ordinary receive,
 * a malformed rendezvous request an unexpected message.
 *
 * Return: a VDR_TM_MSG_*.
 */
u8 vdr_tm_msg_kind(const void *payload, u32 len, bool only)
{
	const struct virtio_rdma_tmh *tmh = payload;

	if (len < VDR_TMH_SIZE)
		return VDR_TM_MSG_RECV;
	switch (tmh->opcode) {
	case VIRTIO_RDMA_TMH_NO_TAG:
		return VDR_TM_MSG_NO_TAG;
	case VIRTIO_RDMA_TMH_EAGER:
		return VDR_TM_MSG_EAGER;
	case VIRTIO_RDMA_TMH_RNDV:
		if (only && len >= VDR_TM_RNDV_MIN && len <= VDR_TM_MAX_RNDV_HDR)
			return VDR_TM_MSG_RNDV;
		return VDR_TM_MSG_UNEXP;
	default:
		return VDR_TM_MSG_RECV;
	}
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_msg_kind);

/* The completion opcode of a receive of that kind. */
u8 vdr_tm_msg_wc_opcode(u8 kind)
{
	switch (kind) {
	case VDR_TM_MSG_NO_TAG:
		return VIRTIO_RDMA_WC_OP_TM_NO_TAG;
	case VDR_TM_MSG_RECV:
		return VIRTIO_RDMA_WC_OP_RECV;
	default:
		return VIRTIO_RDMA_WC_OP_TM_RECV;
	}
}
EXPORT_SYMBOL_IF_KUNIT(vdr_tm_msg_wc_opcode);

/* ---- a QP's internal send queue: rendezvous READs and FINs ---- */

#define VDR_TM_SQ_STRIDE	(sizeof(struct virtio_rdma_sq_wqe) << VDR_TM_SQ_SHIFT)

/* CREATE_QP on a TM-SRQ: qp->sq is a ring of the device's own. */
int vdr_tm_qp_create(struct vdr_qp *qp)
{
	struct vdr_tm_qp *t;

	t = kzalloc(sizeof(*t), VDR_GFP_OBJ);
	if (!t)
		return -ENOMEM;
	t->ring_mem = kvzalloc(VIRTIO_RDMA_RING_CTL_SIZE +
			       VDR_TM_SQ_DEPTH * VDR_TM_SQ_STRIDE, VDR_GFP_OBJ);
	if (!t->ring_mem) {
		kfree(t);
		return -ENOMEM;
	}
	qp->sq.ctl = t->ring_mem;
	qp->sq.entries = t->ring_mem + VIRTIO_RDMA_RING_CTL_SIZE;
	qp->sq.depth = VDR_TM_SQ_DEPTH;
	qp->sq.stride = VDR_TM_SQ_STRIDE;
	qp->tm = t;
	return 0;
}

/* Before vdr_ring_unmap(&qp->sq), which then has nothing to unmap. */
void vdr_tm_qp_free(struct vdr_qp *qp)
{
	if (!qp->tm)
		return;
	kvfree(qp->tm->ring_mem);
	kfree(qp->tm);
	qp->tm = NULL;
	memset(&qp->sq, 0, sizeof(qp->sq));
}

/* Room for a READ and the FIN it will need (both reserved at match). */
bool vdr_tm_sq_room(const struct vdr_qp *qp)
{
	u32 prod = le32_to_cpu(qp->sq.ctl->prod);

	return prod - qp->sq_cons + qp->tm->fin_reserved + 2 <= qp->sq.depth;
}

static void vdr_tm_sq_post(struct vdr_qp *qp, struct virtio_rdma_sq_wqe *w,
			   const void *tail, u32 len)
{
	u32 prod = le32_to_cpu(qp->sq.ctl->prod);
	void *slot = vdr_ring_entry(&qp->sq, prod);

	/* The slot says which rendezvous a WQE belongs to. */
	w->wr_id = cpu_to_le64(prod);
	memcpy(slot, w, sizeof(*w));
	memcpy(slot + sizeof(*w), tail, len);
	/* As a driver publishes a WQE (vdr_req_fetch() reads it so). */
	smp_store_release(&qp->sq.ctl->prod, cpu_to_le32(prod + 1));
}

/**
 * vdr_tm_rndv_start - post the READ of a matched rendezvous request
 * @qp: the QP, under qp->lock, with vdr_tm_sq_room()
 * @e: the consumed entry (stable: only its release changes it)
 * @payload: the request: TMH, then RVH
 *
 * The READ fetches rvh.len bytes into the tagged buffer; its completion
 * (vdr_tm_sq_done()) finishes the buffer and posts the FIN.
 */
void vdr_tm_rndv_start(struct vdr_qp *qp, const struct vdr_tm_entry *e,
		       const u8 *payload)
{
	const struct virtio_rdma_tmh *tmh = (const void *)payload;
	const struct virtio_rdma_rvh *rvh = (const void *)(tmh + 1);
	u32 prod = le32_to_cpu(qp->sq.ctl->prod);
	struct vdr_tm_rndv *r = &qp->tm->rndv[prod & (qp->sq.depth - 1)];
	struct virtio_rdma_sge sge[VDR_TM_MAX_SGE];
	struct virtio_rdma_sq_wqe w = { };
	u32 n;

	r->recv_wr_id = e->recv_wr_id;
	r->handle = e->handle;
	r->len = be32_to_cpu(rvh->len);
	memcpy(r->fin, payload, sizeof(r->fin));
	((struct virtio_rdma_tmh *)r->fin)->opcode = VIRTIO_RDMA_TMH_FIN;
	memcpy(sge, e->sge, e->num_sge * VDR_SGE_SIZE);
	n = vdr_tm_sge_trim(sge, e->num_sge, r->len);
	w.opcode = VIRTIO_RDMA_WR_RDMA_READ;
	w.num_sge = n;
	w.wr.rdma.remote_addr = cpu_to_le64(be64_to_cpu(rvh->va));
	w.wr.rdma.rkey = cpu_to_le32(be32_to_cpu(rvh->rkey));
	qp->tm->fin_reserved++;
	vdr_tm_sq_post(qp, &w, sge, n * VDR_SGE_SIZE);
}

/* The last CQE of a rendezvous' tagged buffer, then its release. */
static int vdr_tm_rndv_finish(struct vdr_dev *dev, struct vdr_qp *qp,
			      const struct vdr_tm_rndv *r, u8 status)
{
	struct virtio_rdma_cqe cqe = { };
	int ret;

	cqe.wr_id = cpu_to_le64(r->recv_wr_id);
	cqe.status = status;
	cqe.opcode = VIRTIO_RDMA_WC_OP_TM_RECV;
	cqe.qp_handle = cpu_to_le32(qp->qpn);
	if (status == VIRTIO_RDMA_WC_SUCCESS) {
		cqe.tm_flags = VIRTIO_RDMA_TM_F_DATA_VALID;
		/* The MATCH CQE gave the TMH (vdr_resp_tm_cqe()). */
		cqe.byte_len = cpu_to_le32(r->len);
	}
	qp->tm->fin_reserved--;
	ret = vdr_cq_post(dev, qp->srq->cq, &cqe, false);
	vdr_tm_srq_release(qp->srq, r->handle);
	return ret;
}

/**
 * vdr_tm_sq_done - an internal WQE retires (vdr_comp_run())
 * @dev: the device
 * @qp: the QP, under qp->lock
 * @w: the WQE; a FIN completes silently
 *
 * A READ finishes its tagged buffer (DATA_VALID, or its error) and, when
 * it succeeded, sends the FIN in the slot reserved for it.
 *
 * Return: 0, or -ENOSPC when the SRQ's CQ overflowed.
 */
int vdr_tm_sq_done(struct vdr_dev *dev, struct vdr_qp *qp,
		   const struct vdr_swqe *w)
{
	const struct vdr_tm_rndv *r;
	struct virtio_rdma_sq_wqe fin = { };
	int ret;

	if (w->wqe.opcode != VIRTIO_RDMA_WR_RDMA_READ)
		return 0;
	r = &qp->tm->rndv[le64_to_cpu(w->wqe.wr_id) & (qp->sq.depth - 1)];
	ret = vdr_tm_rndv_finish(dev, qp, r, w->status);
	if (w->status != VIRTIO_RDMA_WC_SUCCESS)
		return ret;
	fin.opcode = VIRTIO_RDMA_WR_SEND;
	fin.flags = VIRTIO_RDMA_WQE_F_INLINE;
	fin.length = cpu_to_le32(sizeof(r->fin));
	vdr_tm_sq_post(qp, &fin, r->fin, sizeof(r->fin));
	/* Retired after this run's requester, maybe: run again. */
	vdr_xqp_kick(dev, qp);
	return ret;
}

/*
 * ERR, RESET or DESTROY_QP: every internal WQE not retired goes; the
 * tagged buffers of its READs complete with WR_FLUSH_ERR and are released
 * (they are the SRQ's, which outlives the QP).
 */
void vdr_tm_sq_flush(struct vdr_dev *dev, struct vdr_qp *qp)
{
	u32 prod = le32_to_cpu(qp->sq.ctl->prod);
	const struct virtio_rdma_sq_wqe *w;

	for (; qp->sq_cons != prod; qp->sq_cons++) {
		w = vdr_ring_entry(&qp->sq, qp->sq_cons);
		if (w->opcode == VIRTIO_RDMA_WR_RDMA_READ)
			vdr_tm_rndv_finish(dev, qp,
					   &qp->tm->rndv[qp->sq_cons &
							 (qp->sq.depth - 1)],
					   VIRTIO_RDMA_WC_WR_FLUSH_ERR);
	}
	WRITE_ONCE(qp->sq.ctl->cons, cpu_to_le32(qp->sq_cons));
}
