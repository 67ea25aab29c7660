// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: eventq delivery.
 *
 * An event is first made pending (a node in the object it names, linked on
 * its eventq's list) and written when the driver has a buffer posted, so
 * none is lost when the eventq runs dry and none is queued twice.
 */
#include <uapi/linux/virtio_config.h>

#include "vdpa_rdma.h"

#define VDR_EVENT_BUDGET	64

void vdr_event_init(struct vdr_event *ev, u32 type, u32 handle, u16 eventq)
{
	INIT_LIST_HEAD(&ev->entry);
	ev->type = type;
	ev->handle = handle;
	ev->data = 0;
	ev->eventq = eventq;
	ev->pending = false;
}

static void vdr_event_pend(struct vdr_dev *dev, struct vdr_event *ev,
			   u32 data)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->ev_lock, flags);
	ev->data = data;
	if (!ev->pending) {
		list_add_tail(&ev->entry, &dev->ev_pending[ev->eventq]);
		ev->pending = true;
	} else if (ev->type == VIRTIO_RDMA_EVENT_PORT_ACTIVE ||
		   ev->type == VIRTIO_RDMA_EVENT_PORT_ERR) {
		/* The last port event delivered must be the current state. */
		list_move_tail(&ev->entry, &dev->ev_pending[ev->eventq]);
	}
	spin_unlock_irqrestore(&dev->ev_lock, flags);
}

/* From any context: ctrl_work writes the event. */
void vdr_event_raise(struct vdr_dev *dev, struct vdr_event *ev, u32 data)
{
	vdr_event_pend(dev, ev, data);
	vdr_ctrl_schedule(dev);
}

void vdr_event_cancel(struct vdr_dev *dev, struct vdr_event *ev)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->ev_lock, flags);
	if (ev->pending) {
		list_del_init(&ev->entry);
		ev->pending = false;
	}
	spin_unlock_irqrestore(&dev->ev_lock, flags);
}

void vdr_events_discard(struct vdr_dev *dev)
{
	struct vdr_event *ev, *tmp;
	unsigned long flags;
	u16 i;

	if (!dev->ev_pending)
		return;
	spin_lock_irqsave(&dev->ev_lock, flags);
	for (i = 0; i < dev->nqp; i++) {
		list_for_each_entry_safe(ev, tmp, &dev->ev_pending[i], entry) {
			list_del_init(&ev->entry);
			ev->pending = false;
		}
	}
	spin_unlock_irqrestore(&dev->ev_lock, flags);
}

/*
 * Takes the oldest pending event of @eventq into @rec.  Only ctrl_work
 * (@ctrl) writes DEVICE_FATAL, which changes the device status under
 * dev->lock; others leave it, and what follows it, to ctrl_work.
 */
static bool vdr_event_pop(struct vdr_dev *dev, u16 eventq, bool ctrl,
			  struct virtio_rdma_event *rec)
{
	struct vdr_event *ev;
	unsigned long flags;

	spin_lock_irqsave(&dev->ev_lock, flags);
	ev = list_first_entry_or_null(&dev->ev_pending[eventq],
				      struct vdr_event, entry);
	if (ev && !ctrl && ev->type == VIRTIO_RDMA_EVENT_DEVICE_FATAL)
		ev = NULL;
	if (ev) {
		list_del_init(&ev->entry);
		ev->pending = false;
		rec->type = cpu_to_le32(ev->type);
		rec->handle = cpu_to_le32(ev->handle);
		rec->data = cpu_to_le32(ev->data);
		rec->reserved = 0;
	}
	spin_unlock_irqrestore(&dev->ev_lock, flags);
	return ev;
}

static bool vdr_events_empty(struct vdr_dev *dev, u16 eventq)
{
	unsigned long flags;
	bool empty;

	spin_lock_irqsave(&dev->ev_lock, flags);
	empty = list_empty(&dev->ev_pending[eventq]);
	spin_unlock_irqrestore(&dev->ev_lock, flags);
	return empty;
}

/*
 * Writes pending events of @eventq into its buffers, under the eventq's
 * lock.  Returns true when events are left that ctrl_work must write: the
 * budget ran out, or (for a caller other than ctrl_work) DEVICE_FATAL is
 * next.
 */
static bool __vdr_events_deliver(struct vdr_dev *dev, u16 eventq, bool ctrl)
{
	struct vdr_vq *vq = &dev->vqs[VIRTIO_RDMA_EVENTQ(eventq)];
	struct virtio_rdma_event rec;
	int i, ret;

	lockdep_assert_held(&vq->lock);
	if (!vq->ready)
		return false;

	for (i = 0; i < VDR_EVENT_BUDGET; i++) {
		if (vdr_events_empty(dev, eventq))
			return false;
		ret = vringh_getdesc_iotlb(&vq->vring, &vq->riov, &vq->wiov,
					   &vq->head, GFP_KERNEL);
		if (ret < 0)
			return false;
		if (!ret) {
			/* No buffer: the events stay pending until a kick. */
			if (vdr_vq_idle(vq))
				return false;
			continue;
		}
		if (vringh_kiov_length(&vq->wiov) < sizeof(rec)) {
			/* Useless buffer; give it back empty and go on. */
			vdr_vq_complete(vq, 0);
			continue;
		}
		if (!vdr_event_pop(dev, eventq, ctrl, &rec)) {
			vringh_abandon_iotlb(&vq->vring, 1);
			return !vdr_events_empty(dev, eventq);
		}
		ret = vringh_iov_push_iotlb(&vq->vring, &vq->wiov, &rec,
					    sizeof(rec));
		vdr_vq_complete(vq, ret == sizeof(rec) ? sizeof(rec) : 0);
		if (ret == sizeof(rec))
			vdr_stat_inc(dev, VIRTIO_RDMA_STAT_EVENTS);
		/* Spec: after DEVICE_FATAL the device needs a reset. */
		if (rec.type == cpu_to_le32(VIRTIO_RDMA_EVENT_DEVICE_FATAL)) {
			lockdep_assert_held(&dev->lock);
			dev->status |= VIRTIO_CONFIG_S_NEEDS_RESET;
		}
	}
	return true;
}

/* ctrl_work, under dev->lock.  Returns true when events are left. */
bool vdr_events_deliver(struct vdr_dev *dev, u16 eventq)
{
	struct vdr_vq *vq = &dev->vqs[VIRTIO_RDMA_EVENTQ(eventq)];
	bool more;

	lockdep_assert_held(&dev->lock);
	mutex_lock(&vq->lock);
	more = __vdr_events_deliver(dev, eventq, true);
	mutex_unlock(&vq->lock);
	return more;
}

void vdr_events_deliver_all(struct vdr_dev *dev)
{
	u16 i;

	for (i = 0; i < dev->nqp; i++)
		vdr_events_deliver(dev, i);
}

/**
 * vdr_event_raise_now - raise an event and write it at once if possible
 * @dev: the device
 * @ev: the event
 * @data: its data
 *
 * For a QP's work that just wrote a CQE into an armed CQ: waking ctrl_work
 * to write the completion event would add a scheduling hop to the latency
 * of every event-driven consumer.  Process context, no spinlock held.  When
 * ctrl_work (or another QP) holds the eventq, or events are left, ctrl_work
 * is scheduled, as by vdr_event_raise().
 */
void vdr_event_raise_now(struct vdr_dev *dev, struct vdr_event *ev, u32 data)
{
	struct vdr_vq *vq = &dev->vqs[VIRTIO_RDMA_EVENTQ(ev->eventq)];
	bool more = true;

	might_sleep();
	vdr_event_pend(dev, ev, data);
	if (mutex_trylock(&vq->lock)) {
		/* Reset clears running, then takes vq->lock to reset the vq. */
		if (READ_ONCE(dev->running))
			more = __vdr_events_deliver(dev, ev->eventq, false);
		mutex_unlock(&vq->lock);
	}
	if (more)
		vdr_ctrl_schedule(dev);
}
