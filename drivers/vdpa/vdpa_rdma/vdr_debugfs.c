// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the state of every QP and CQ of a device, for debugging a
 * connection that stopped moving: /sys/kernel/debug/vdpa_rdma/<dev>/qps
 * and .../cqs; .../xrcds lists the XRC domains and the XRC SRQs.  One
 * line per object; ring indices as the device sees them.
 * .../same_host_segments counts the same-host segments sent (vdr_xport.h),
 * .../same_host_handoffs the receiving QPs run by a sender (vdr_xqp.c),
 * .../wire_handoffs the same for packets that a virtual link delivered in
 * the sender's softirq (vdr_xqp_wire_deliver()); .../wire_batches the
 * UDP GSO packets that carried two or more RoCE packets of one QP's run,
 * .../wire_batched the RoCE packets they carried (vdr_net.c).
 * .../inline_doorbells the notifications processed in the notifier's
 * context (vdr_vq.c).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "vdpa_rdma.h"
#include "vdr_xport.h"

static struct dentry *vdr_debugfs_root;

static u32 vdr_dbg_le(const __le32 *p)
{
	return le32_to_cpu(READ_ONCE(*p));
}

/* The oldest unfinished send WQEs: what a stuck requester waits for. */
static void vdr_dbg_swqes(struct seq_file *s, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;
	struct vdr_swqe *w;
	u32 i;
	int n = 0;

	for (i = qp->sq_cons; i != x->sq_fetched && n < 4; i++, n++) {
		w = &x->swq[i & (qp->sq.depth - 1)];
		seq_printf(s, "\n  wqe %u op %u state %u started %d psn %u-%u len %u read_off %u status %u",
			   i, w->wqe.opcode, w->state, w->started,
			   w->first_psn, w->last_psn, w->len, w->read_off,
			   w->status);
	}
}

static void vdr_dbg_xqp(struct seq_file *s, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	if (!x)
		return;
	seq_printf(s, " fetched %u next %u req_off %u req_psn %u sent_psn %u acked_psn %u cwnd %u retry_left %u rnr_left %u backoff %u srtt_us %llu rttvar_us %llu",
		   x->sq_fetched, x->sq_next, x->req_off, x->req_psn,
		   x->sent_psn, x->acked_psn, x->cwnd, x->retry_left,
		   x->rnr_left, x->tmo_backoff, x->rtt.srtt_ns / NSEC_PER_USEC,
		   x->rtt.rttvar_ns / NSEC_PER_USEC);
	seq_printf(s, " rnr_wait %d gap %d/%u probe %d/%d/%d/%u timer %d rxq %u",
		   x->rnr_wait, x->gap_valid, x->gap_psn, x->probe_armed,
		   x->probed, x->probing, x->probe_psn,
		   hrtimer_active(&x->retrans_timer),
		   skb_queue_len(&x->rxq));
	seq_printf(s, " epsn %u msn %u nak_sent %d ack_pending %d rwqe %d engine %u",
		   x->epsn, x->msn, x->nak_sent, x->ack_pending,
		   x->rwqe_valid, vdr_engine_id(x->engine));
	vdr_dbg_swqes(s, qp);
}

/*
 * The SRQ a QP receives from; for an XRC_TGT QP its domain and the XRC
 * SRQ of its message in progress (0: none).
 */
static void vdr_dbg_srq(struct seq_file *s, struct vdr_qp *qp)
{
	struct vdr_xqp *x = qp->xqp;

	if (qp->srq)
		seq_printf(s, " srq %u", qp->srq->handle);
	if (qp->xrcd)
		seq_printf(s, " xrcd %u msg_srq %u", qp->xrcd->handle,
			   x && x->msg_srq ? x->msg_srq->handle : 0);
}

static int vdr_dbg_qps_show(struct seq_file *s, void *unused)
{
	struct vdr_dev *dev = s->private;
	struct vdr_qp *qp;
	unsigned long i;

	mutex_lock(&dev->lock);
	xa_for_each(&dev->qps, i, qp) {
		/* A consistent picture of each QP: its work is not running. */
		mutex_lock(&qp->lock);
		seq_printf(s, "qp %u type %u state %u", qp->qpn, qp->type,
			   qp->state);
		/* An XRC_TGT QP has no rings, an XRC_INI QP no RQ. */
		if (qp->sq.depth)
			seq_printf(s, " sq prod %u cons %u notify %u",
				   vdr_dbg_le(&qp->sq.ctl->prod), qp->sq_cons,
				   vdr_dbg_le(&qp->sq.ctl->notify));
		if (qp->rq.depth)
			seq_printf(s, " rq prod %u cons %u notify %u",
				   vdr_dbg_le(&qp->rq.ctl->prod), qp->rq_cons,
				   vdr_dbg_le(&qp->rq.ctl->notify));
		vdr_dbg_srq(s, qp);
		vdr_dbg_xqp(s, qp);
		seq_putc(s, '\n');
		mutex_unlock(&qp->lock);
	}
	mutex_unlock(&dev->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vdr_dbg_qps);

static int vdr_dbg_cqs_show(struct seq_file *s, void *unused)
{
	struct vdr_dev *dev = s->private;
	struct vdr_cq *cq;
	unsigned long i;

	mutex_lock(&dev->lock);
	xa_for_each(&dev->cqs, i, cq)
		seq_printf(s, "cq %u eventq %u prod %u cons %u arm 0x%x overflow %d comp_ev_pending %d\n",
			   cq->handle, cq->eventq, cq->prod,
			   vdr_dbg_le(&cq->ring.ctl->cons),
			   vdr_dbg_le(&cq->ring.ctl->notify), cq->overflow,
			   cq->comp_ev.pending);
	mutex_unlock(&dev->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vdr_dbg_cqs);

/* XRC domains and the XRC SRQs and XRC_TGT QPs that use them. */
static int vdr_dbg_xrcds_show(struct seq_file *s, void *unused)
{
	struct vdr_dev *dev = s->private;
	struct vdr_xrcd *xrcd;
	struct vdr_srq *srq;
	unsigned long i;

	mutex_lock(&dev->lock);
	xa_for_each(&dev->xrcds, i, xrcd)
		seq_printf(s, "xrcd %u refs %u\n", xrcd->handle, xrcd->refs);
	xa_for_each(&dev->srqs, i, srq)
		if (srq->xrcd)
			seq_printf(s, "xrc_srq %u xrcd %u cq %u cons %u\n",
				   srq->handle, srq->xrcd->handle,
				   srq->cq->handle, READ_ONCE(srq->cons));
	mutex_unlock(&dev->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vdr_dbg_xrcds);

/*
 * The device's counters, one "index value" line each (indices are the
 * VIRTIO_RDMA_STAT_* ones): what QUERY_STATS answers, readable without a
 * command, so also while the device is suspended.
 */
static int vdr_dbg_stats_show(struct seq_file *s, void *unused)
{
	struct vdr_dev *dev = s->private;
	int i;

	for (i = 0; i < VIRTIO_RDMA_NUM_STATS; i++)
		seq_printf(s, "%d %lld\n", i, atomic64_read(&dev->stats[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vdr_dbg_stats);

/*
 * "suspended": what vhost-vdpa's VHOST_VDPA_SUSPEND and _RESUME do, for a
 * device bound to virtio_vdpa, whose driver has no such request: writing
 * 1 suspends it, 0 resumes it (scenario suspend-resume).
 */
static int vdr_dbg_suspended_get(void *data, u64 *val)
{
	struct vdr_dev *dev = data;

	*val = READ_ONCE(dev->suspended);
	return 0;
}

static int vdr_dbg_suspended_set(void *data, u64 val)
{
	struct vdr_dev *dev = data;

	if (val > 1)
		return -EINVAL;
	return val ? vdr_suspend(&dev->vdpa) : vdr_resume(&dev->vdpa);
}

DEFINE_DEBUGFS_ATTRIBUTE(vdr_dbg_suspended_fops, vdr_dbg_suspended_get,
			 vdr_dbg_suspended_set, "%llu\n");

void vdr_debugfs_add(struct vdr_dev *dev)
{
	if (!vdr_debugfs_root)
		return;
	dev->debugfs = debugfs_create_dir(dev->name, vdr_debugfs_root);
	debugfs_create_file("qps", 0400, dev->debugfs, dev, &vdr_dbg_qps_fops);
	debugfs_create_file("cqs", 0400, dev->debugfs, dev, &vdr_dbg_cqs_fops);
	debugfs_create_file("xrcds", 0400, dev->debugfs, dev,
			    &vdr_dbg_xrcds_fops);
	debugfs_create_file("stats", 0400, dev->debugfs, dev, &vdr_dbg_stats_fops);
	debugfs_create_file_unsafe("suspended", 0600, dev->debugfs, dev,
				   &vdr_dbg_suspended_fops);
	debugfs_create_atomic_t("same_host_segments", 0400, dev->debugfs,
				&dev->same_host_segs);
	debugfs_create_atomic_t("same_host_handoffs", 0400, dev->debugfs,
				&dev->same_host_handoffs);
	debugfs_create_atomic_t("wire_handoffs", 0400, dev->debugfs,
				&dev->wire_handoffs);
	debugfs_create_atomic_t("wire_batches", 0400, dev->debugfs,
				&dev->wire_batches);
	debugfs_create_atomic_t("wire_batched", 0400, dev->debugfs,
				&dev->wire_batched);
	debugfs_create_atomic_t("inline_doorbells", 0400, dev->debugfs,
				&dev->inline_doorbells);
}

void vdr_debugfs_del(struct vdr_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}

void vdr_debugfs_init(void)
{
	vdr_debugfs_root = debugfs_create_dir("vdpa_rdma", NULL);
}

void vdr_debugfs_exit(void)
{
	debugfs_remove_recursive(vdr_debugfs_root);
}
