// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma event queues (device -> driver) and doorbell queues
 * (driver -> device).
 */

#include <linux/ktime.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "vrdma.h"

static unsigned int vrdma_vq_pair(struct virtqueue *vq)
{
	return (vq->index - 1) / 2;
}

static int vrdma_eventq_post(struct vrdma_eventq *evq,
			     struct virtio_rdma_event *ev)
{
	struct scatterlist sg;

	sg_init_one(&sg, ev, sizeof(*ev));
	return virtqueue_add_inbuf(evq->vq, &sg, 1, ev, GFP_ATOMIC);
}

int vrdma_eventqs_init(struct vrdma_dev *dev)
{
	unsigned int i, j;
	int err;

	for (i = 0; i < dev->npairs; i++) {
		struct vrdma_eventq *evq = &dev->evqs[i];

		evq->nbufs = virtqueue_get_vring_size(evq->vq);
		evq->bufs = kcalloc(evq->nbufs, sizeof(*evq->bufs), GFP_KERNEL);
		if (!evq->bufs)
			return -ENOMEM;
		for (j = 0; j < evq->nbufs; j++) {
			err = vrdma_eventq_post(evq, &evq->bufs[j]);
			if (err)
				return err;
		}
		virtqueue_kick(evq->vq);
	}
	return 0;
}

/* After the device reset and del_vqs. */
void vrdma_eventqs_free(struct vrdma_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->npairs; i++)
		kfree(dev->evqs[i].bufs);
}

static void vrdma_qp_event(struct vrdma_dev *dev, u32 handle,
			   enum ib_event_type type)
{
	struct vrdma_qp *qp = xa_load(&dev->qps, handle);
	struct ib_event ev = {};

	if (!qp)
		return;
	if (type == IB_EVENT_QP_FATAL || type == IB_EVENT_QP_REQ_ERR ||
	    type == IB_EVENT_QP_ACCESS_ERR)
		WRITE_ONCE(qp->state, IB_QPS_ERR);
	if (!qp->ibqp.event_handler)
		return;
	ev.device = &dev->ib;
	ev.element.qp = &qp->ibqp;
	ev.event = type;
	qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

static void vrdma_handle_event(struct vrdma_dev *dev,
			       const struct virtio_rdma_event *e)
{
	u32 type = le32_to_cpu(e->type);
	u32 handle = le32_to_cpu(e->handle);
	struct ib_event ev = {};
	struct vrdma_cq *cq;

	switch (type) {
	case VIRTIO_RDMA_EVENT_COMP:
		cq = xa_load(&dev->cqs, handle);
		if (cq && cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
		break;
	case VIRTIO_RDMA_EVENT_CQ_ERR:
		cq = xa_load(&dev->cqs, handle);
		ibdev_warn_ratelimited(&dev->ib, "CQ %u error, flags %#x\n",
				       handle, le32_to_cpu(e->data));
		if (cq && cq->ibcq.event_handler) {
			ev.device = &dev->ib;
			ev.element.cq = &cq->ibcq;
			ev.event = IB_EVENT_CQ_ERR;
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		break;
	case VIRTIO_RDMA_EVENT_QP_FATAL:
		vrdma_qp_event(dev, handle, IB_EVENT_QP_FATAL);
		break;
	case VIRTIO_RDMA_EVENT_QP_REQ_ERR:
		vrdma_qp_event(dev, handle, IB_EVENT_QP_REQ_ERR);
		break;
	case VIRTIO_RDMA_EVENT_QP_ACCESS_ERR:
		vrdma_qp_event(dev, handle, IB_EVENT_QP_ACCESS_ERR);
		break;
	case VIRTIO_RDMA_EVENT_QP_LAST_WQE_REACHED:
		vrdma_qp_event(dev, handle, IB_EVENT_QP_LAST_WQE_REACHED);
		break;
	case VIRTIO_RDMA_EVENT_SQ_DRAINED:
		vrdma_qp_event(dev, handle, IB_EVENT_SQ_DRAINED);
		break;
	case VIRTIO_RDMA_EVENT_COMM_EST:
		vrdma_qp_event(dev, handle, IB_EVENT_COMM_EST);
		break;
	case VIRTIO_RDMA_EVENT_PORT_ACTIVE:
		vrdma_port_event(dev, IB_PORT_ACTIVE);
		break;
	case VIRTIO_RDMA_EVENT_PORT_ERR:
		vrdma_port_event(dev, IB_PORT_DOWN);
		break;
	case VIRTIO_RDMA_EVENT_DEVICE_FATAL:
		vrdma_mark_broken(dev, "device reported a fatal error");
		if (READ_ONCE(dev->registered)) {
			ev.device = &dev->ib;
			ev.element.port_num = VRDMA_PORT;
			ev.event = IB_EVENT_DEVICE_FATAL;
			ib_dispatch_event(&ev);
		}
		break;
	default:
		dev_warn_ratelimited(&dev->vdev->dev,
				     "unknown event type %u\n", type);
		break;
	}
}

void vrdma_eventq_done(struct virtqueue *vq)
{
	struct vrdma_dev *dev = vq->vdev->priv;
	struct virtio_rdma_event *ev;
	struct vrdma_eventq *evq;
	unsigned long flags;
	unsigned int len;
	bool kick = false;

	if (!dev)
		return;
	evq = &dev->evqs[vrdma_vq_pair(vq)];
	spin_lock_irqsave(&evq->lock, flags);
	do {
		virtqueue_disable_cb(vq);
		while ((ev = virtqueue_get_buf(vq, &len))) {
			if (len >= sizeof(*ev))
				vrdma_handle_event(dev, ev);
			/* Give the buffer straight back: the device must not run dry. */
			memset(ev, 0, sizeof(*ev));
			if (vrdma_eventq_post(evq, ev))
				dev_warn_ratelimited(&dev->vdev->dev,
						     "cannot repost event buffer\n");
			kick = true;
		}
	} while (!virtqueue_enable_cb(vq));
	if (kick)
		virtqueue_kick(vq);
	spin_unlock_irqrestore(&evq->lock, flags);
}

/*
 * Called after a destroy command completed and the object left the lookup
 * tables: once the handler of eventq @idx is not running, no handler can
 * still use the object (the device made all its events visible before
 * completing the command; later ones find nothing in the tables).
 */
void vrdma_eventq_fence(struct vrdma_dev *dev, unsigned int idx)
{
	struct vrdma_eventq *evq = &dev->evqs[idx];
	unsigned long flags;

	spin_lock_irqsave(&evq->lock, flags);
	spin_unlock_irqrestore(&evq->lock, flags);
}

int vrdma_dbqs_init(struct vrdma_dev *dev)
{
	unsigned int i, j;

	for (i = 0; i < dev->npairs; i++) {
		struct vrdma_dbq *dbq = &dev->dbqs[i];

		dbq->nrecs = virtqueue_get_vring_size(dbq->vq);
		dbq->recs = kcalloc(dbq->nrecs, sizeof(*dbq->recs), GFP_KERNEL);
		dbq->free = kcalloc(dbq->nrecs, sizeof(*dbq->free), GFP_KERNEL);
		if (!dbq->recs || !dbq->free)
			return -ENOMEM;
		for (j = 0; j < dbq->nrecs; j++)
			dbq->free[j] = j;
		dbq->nfree = dbq->nrecs;
	}
	return 0;
}

void vrdma_dbqs_free(struct vrdma_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->npairs; i++) {
		kfree(dev->dbqs[i].recs);
		kfree(dev->dbqs[i].free);
	}
}

/* Caller holds dbq->lock. */
static void vrdma_dbq_reclaim(struct vrdma_dbq *dbq)
{
	struct virtio_rdma_doorbell *rec;
	unsigned int len;

	while ((rec = virtqueue_get_buf(dbq->vq, &len)))
		dbq->free[dbq->nfree++] = rec - dbq->recs;
}

/* Doorbells are idempotent and carry no index: any doorbellq will do. */
int vrdma_ring_doorbell(struct vrdma_dev *dev, u32 type, u32 handle)
{
	struct vrdma_dbq *dbq = &dev->dbqs[raw_smp_processor_id() % dev->npairs];
	struct virtio_rdma_doorbell *rec;
	struct scatterlist sg;
	unsigned long flags;
	ktime_t deadline = 0;
	int err;

	spin_lock_irqsave(&dbq->lock, flags);
	vrdma_dbq_reclaim(dbq);
	while (!dbq->nfree) {
		/* Every record is in flight; the device consumes them quickly. */
		if (!deadline)
			deadline = ktime_add_ms(ktime_get(), 1000);
		if (ktime_after(ktime_get(), deadline)) {
			spin_unlock_irqrestore(&dbq->lock, flags);
			ibdev_warn_ratelimited(&dev->ib,
					       "doorbell queue stays full\n");
			return -EBUSY;
		}
		cpu_relax();
		vrdma_dbq_reclaim(dbq);
	}
	rec = &dbq->recs[dbq->free[--dbq->nfree]];
	rec->type = cpu_to_le32(type);
	rec->handle = cpu_to_le32(handle);
	sg_init_one(&sg, rec, sizeof(*rec));
	err = virtqueue_add_outbuf(dbq->vq, &sg, 1, rec, GFP_ATOMIC);
	if (err)
		dbq->free[dbq->nfree++] = rec - dbq->recs;
	else
		virtqueue_kick(dbq->vq);
	spin_unlock_irqrestore(&dbq->lock, flags);
	return err;
}
