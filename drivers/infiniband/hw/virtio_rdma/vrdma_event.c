// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma event queues (device -> driver) and doorbell queues
 * (driver -> device).
 */

#include <linux/scatterlist.h>
#include <linux/slab.h>

#include <kunit/visibility.h>

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
	struct vrdma_srq *srq;
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
	case VIRTIO_RDMA_EVENT_SRQ_LIMIT_REACHED:
		srq = xa_load(&dev->srqs, handle);
		if (srq && srq->ibsrq.event_handler) {
			ev.device = &dev->ib;
			ev.element.srq = &srq->ibsrq;
			ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
			srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
		}
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
		/* Not even of a later spec: the driver negotiated this one. */
		vrdma_dev_err(dev, "event of unknown type %u (handle %u)\n",
			      type, handle);
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
			else
				vrdma_dev_err(dev, "event of %u bytes\n", len);
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
 * tables: once no eventq handler is running, none can still use the object
 * (the device made all its events visible before completing the command;
 * later ones find nothing in the tables).  Every eventq, not only the one
 * the object's events are expected on: the device chooses, and a wrong
 * choice must not become a use after free.
 */
void vrdma_eventqs_fence(struct vrdma_dev *dev)
{
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < dev->npairs; i++) {
		spin_lock_irqsave(&dev->evqs[i].lock, flags);
		spin_unlock_irqrestore(&dev->evqs[i].lock, flags);
	}
}

/*
 * Doorbell queues
 * ---------------
 * Each doorbellq has one record per descriptor of its ring, on a stack of
 * free slots; a doorbell takes one record and goes out as a buffer of its
 * own.  A QP or a TM-SRQ (struct vrdma_db) rings on the doorbellq of the
 * current CPU (any doorbellq will do: doorbells are idempotent and carry no
 * index).  Records come back as
 * the device marks buffers used, and the driver reclaims them on the next
 * ring: the doorbellq's callback stays disabled, so steady-state traffic
 * takes no interrupt for doorbells.
 *
 * When every record is in flight the doorbell is not waited for, nor lost:
 * it goes to the object's home doorbellq (vrdma_db_home()) and, if that one
 * is full too, the object is owed a doorbell there - a bit per type in
 * db->owed, and db->link on the home dbq's owed list, both under the
 * home dbq->lock, so an object is owed at most once per type and device
 * however often it rings.  While anything is owed the home doorbellq's
 * callback is armed; it fires once the device has used a buffer, reclaims
 * and sends the owed doorbells, oldest first, before any new one.  An owed
 * doorbell goes out after the prod it stands for was published, which is
 * all a doorbell promises.
 *
 * Owed doorbells also take one record per buffer.  Several could share a
 * buffer of N * 8 bytes (the spec allows it), but the records would have to
 * be contiguous, which the free stack does not give, or come from a
 * separate batch buffer with its own in-flight state; when the queue is
 * full the device is the bottleneck, and each buffer it returns pays one
 * owed doorbell, so batching would save descriptors, not time.
 */

/* Where @db's doorbells are owed: fixed for the object's life. */
static struct vrdma_dbq *vrdma_db_home(struct vrdma_dev *dev,
				       struct vrdma_db *db)
{
	return &dev->dbqs[db->handle % dev->npairs];
}

/* Once the object's handle is known, before it can ring. */
void vrdma_db_init(struct vrdma_db *db, u32 handle)
{
	db->handle = handle;
	db->owed = 0;
	INIT_LIST_HEAD(&db->link);
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_db_init);

/* Right after find_vqs, before the device can use the queue. */
void vrdma_dbq_setup(struct vrdma_dbq *dbq, struct virtqueue *vq)
{
	dbq->vq = vq;
	spin_lock_init(&dbq->lock);
	INIT_LIST_HEAD(&dbq->owed);
	/* Armed only while a doorbell is owed (vrdma_dbq_pay()). */
	virtqueue_disable_cb(vq);
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_dbq_setup);

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
EXPORT_SYMBOL_IF_KUNIT(vrdma_dbqs_init);

/*
 * After the device reset and del_vqs.  ib_core destroyed every QP before
 * (ib_unregister_device), and vrdma_destroy_qp() unlinked each.
 */
void vrdma_dbqs_free(struct vrdma_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->npairs; i++) {
		/* No vq: find_vqs failed before vrdma_dbq_setup(). */
		WARN_ON(dev->dbqs[i].vq && !list_empty(&dev->dbqs[i].owed));
		kfree(dev->dbqs[i].recs);
		kfree(dev->dbqs[i].free);
	}
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_dbqs_free);

/* Caller holds dbq->lock. */
static void vrdma_dbq_reclaim(struct vrdma_dbq *dbq)
{
	struct virtio_rdma_doorbell *rec;
	unsigned int len;

	while ((rec = virtqueue_get_buf(dbq->vq, &len)))
		dbq->free[dbq->nfree++] = rec - dbq->recs;
}

/* Caller holds dbq->lock and kicks.  -ENOSPC: every record is in flight. */
static int vrdma_dbq_add(struct vrdma_dbq *dbq, u32 type, u32 handle)
{
	struct virtio_rdma_doorbell *rec;
	struct scatterlist sg;
	int err;

	if (!dbq->nfree)
		return -ENOSPC;
	rec = &dbq->recs[dbq->free[--dbq->nfree]];
	rec->type = cpu_to_le32(type);
	rec->handle = cpu_to_le32(handle);
	sg_init_one(&sg, rec, sizeof(*rec));
	err = virtqueue_add_outbuf(dbq->vq, &sg, 1, rec, GFP_ATOMIC);
	if (err)
		dbq->free[dbq->nfree++] = rec - dbq->recs;
	return err;
}

/*
 * Caller holds dbq->lock.  Reclaims what the device used, sends owed
 * doorbells while records last, and leaves the callback armed exactly
 * while something is still owed.  Returns true if it added buffers (the
 * caller kicks).
 *
 * Armed with every record in flight (nothing was reclaimable after
 * virtqueue_enable_cb()), the device will use a buffer and interrupt, so
 * an owed doorbell cannot be forgotten.  The loop ends: each round either
 * finds buffers the device used, which only those we added can be, or
 * stops.  It reclaims with the callback disabled: virtqueue_get_buf() on
 * an enabled queue moves the used event index along, which would leave a
 * queue disarmed here to interrupt once more.
 */
static bool vrdma_dbq_pay(struct vrdma_dbq *dbq)
{
	struct vrdma_db *db;
	bool added = false;
	u32 type;

	for (;;) {
		virtqueue_disable_cb(dbq->vq);
		vrdma_dbq_reclaim(dbq);
		while ((db = list_first_entry_or_null(&dbq->owed,
						      struct vrdma_db, link))) {
			type = __ffs(db->owed);
			if (vrdma_dbq_add(dbq, type, db->handle))
				break;
			added = true;
			db->owed &= ~BIT(type);
			if (!db->owed)
				list_del_init(&db->link);
		}
		if (list_empty(&dbq->owed))
			return added;
		/* False: buffers were used meanwhile, reclaim them now. */
		if (virtqueue_enable_cb(dbq->vq))
			return added;
	}
}

/* Caller holds dbq->lock.  The doorbell is owed; the callback is armed. */
static bool vrdma_dbq_owe(struct vrdma_dbq *dbq, struct vrdma_db *db,
			  u32 type)
{
	if (!db->owed)
		list_add_tail(&db->link, &dbq->owed);
	db->owed |= BIT(type);
	return vrdma_dbq_pay(dbq);
}

/*
 * Caller holds dbq->lock.  Sends the doorbell on @dbq or, when @dbq is the
 * object's home, owes it there; -ENOSPC when a non-home @dbq is full.  Sets
 * *@notify when the caller must notify the device, after unlocking.
 */
static int vrdma_dbq_ring(struct vrdma_dbq *dbq, struct vrdma_db *db,
			  u32 type, bool home, bool *notify)
{
	bool kick = false;
	int err;

	/* Owed already: that doorbell goes out after this prod too. */
	if (home && (db->owed & BIT(type)))
		return 0;
	/* Owed doorbells first, so that new ones cannot starve them. */
	if (!list_empty(&dbq->owed))
		kick = vrdma_dbq_pay(dbq);
	else
		vrdma_dbq_reclaim(dbq);
	err = vrdma_dbq_add(dbq, type, db->handle);
	if (!err) {
		kick = true;
	} else if (err == -ENOSPC && home) {
		kick |= vrdma_dbq_owe(dbq, db, type);
		err = 0;
	}
	*notify = kick && virtqueue_kick_prepare(dbq->vq);
	return err;
}

/*
 * vrdma_db_ring - tell the device that a producer index of @db advanced
 * @dev: the device
 * @db: a QP's (after vrdma_ring_publish() for a kernel QP) or a TM-SRQ's
 * @type: VIRTIO_RDMA_DOORBELL_SQ, _RQ or _SRQ_OPS
 *
 * Any context; never waits.  Returns 0 when the doorbell was sent or is
 * owed (it will be sent), an error only if the virtqueue refused a buffer
 * for another reason than being full (a broken device).
 *
 * The device is notified outside dbq->lock, in the caller's context: a
 * device may do the work right there when that context can sleep (a user
 * object's doorbell comes from its system call), which vdpa_rdma does to
 * save a worker's wakeup per message.
 */
int vrdma_db_ring(struct vrdma_dev *dev, struct vrdma_db *db, u32 type)
{
	struct vrdma_dbq *dbq = &dev->dbqs[raw_smp_processor_id() % dev->npairs];
	struct vrdma_dbq *home = vrdma_db_home(dev, db);
	unsigned long flags;
	bool notify;
	int err;

	spin_lock_irqsave(&dbq->lock, flags);
	err = vrdma_dbq_ring(dbq, db, type, dbq == home, &notify);
	spin_unlock_irqrestore(&dbq->lock, flags);
	if (err == -ENOSPC) {
		/* Owed doorbells it sent still need their notification. */
		if (notify)
			virtqueue_notify(dbq->vq);
		/* This CPU's doorbellq is full: the home one sends or owes it. */
		dbq = home;
		spin_lock_irqsave(&dbq->lock, flags);
		err = vrdma_dbq_ring(dbq, db, type, true, &notify);
		spin_unlock_irqrestore(&dbq->lock, flags);
	}
	if (notify)
		virtqueue_notify(dbq->vq);
	return err;
}

int vrdma_ring_doorbell(struct vrdma_qp *qp, u32 type)
{
	return vrdma_db_ring(to_vdev(qp->ibqp.device), &qp->db, type);
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_ring_doorbell);

/* Doorbellq callback: armed only while doorbells are owed. */
void vrdma_dbq_done(struct virtqueue *vq)
{
	struct vrdma_dev *dev = vq->vdev->priv;
	struct vrdma_dbq *dbq;
	unsigned long flags;

	if (!dev)
		return;
	dbq = &dev->dbqs[vrdma_vq_pair(vq)];
	spin_lock_irqsave(&dbq->lock, flags);
	if (vrdma_dbq_pay(dbq))
		virtqueue_kick(vq);
	spin_unlock_irqrestore(&dbq->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_dbq_done);

/*
 * On destroy, once the object can ring no more: afterwards no doorbellq
 * holds it.  A doorbell already sent for it is harmless (the device
 * ignores unknown handles; an object that got the handle since just looks
 * again).
 */
void vrdma_db_forget(struct vrdma_dev *dev, struct vrdma_db *db)
{
	struct vrdma_dbq *home = vrdma_db_home(dev, db);
	unsigned long flags;

	spin_lock_irqsave(&home->lock, flags);
	if (db->owed) {
		list_del_init(&db->link);
		db->owed = 0;
	}
	spin_unlock_irqrestore(&home->lock, flags);
}

void vrdma_doorbells_forget(struct vrdma_qp *qp)
{
	vrdma_db_forget(to_vdev(qp->ibqp.device), &qp->db);
}
EXPORT_SYMBOL_IF_KUNIT(vrdma_doorbells_forget);
