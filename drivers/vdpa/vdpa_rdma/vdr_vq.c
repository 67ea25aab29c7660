// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: virtqueues, the device worker and guest memory access.
 *
 * Every guest address goes through the device IOTLB: identity while the
 * device is bound to virtio_vdpa, the map vhost_vdpa installs otherwise.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <kunit/visibility.h>

#include "vdpa_rdma.h"
#include "vdr_xport.h"

static void vdr_vq_notify(struct vringh *vring)
{
	struct vdr_vq *vq = container_of(vring, struct vdr_vq, vring);

	if (vq->cb.callback)
		vq->cb.callback(vq->cb.private);
}

int vdr_vq_ready(struct vdr_dev *dev, struct vdr_vq *vq)
{
	u16 last_avail_idx = vq->vring.last_avail_idx;
	int ret;

	/* A bad size leaves the old ring in place: never use it then. */
	ret = vringh_init_iotlb(&vq->vring, dev->features, vq->num, true,
				(struct vring_desc *)(uintptr_t)vq->desc_addr,
				(struct vring_avail *)(uintptr_t)vq->driver_addr,
				(struct vring_used *)(uintptr_t)vq->device_addr);
	if (ret)
		return ret;
	/* No in-flight buffers survive a (re)start: used catches up. */
	vq->vring.last_avail_idx = last_avail_idx;
	vq->vring.last_used_idx = last_avail_idx;
	vq->vring.notify = vdr_vq_notify;
	return 0;
}

void vdr_vqs_reset(struct vdr_dev *dev)
{
	int i;

	for (i = 0; i < dev->nvqs; i++) {
		struct vdr_vq *vq = &dev->vqs[i];

		mutex_lock(&vq->lock);
		vq->ready = false;
		vq->desc_addr = 0;
		vq->driver_addr = 0;
		vq->device_addr = 0;
		vq->num = 0;
		vq->cb.callback = NULL;
		vq->cb.private = NULL;
		vringh_init_iotlb(&vq->vring, 0, VDR_VQ_NUM_MAX, false,
				  NULL, NULL, NULL);
		vq->vring.notify = NULL;
		mutex_unlock(&vq->lock);
	}
}

void vdr_vq_complete(struct vdr_vq *vq, u32 len)
{
	/* Buffer contents before the used index. */
	smp_wmb();
	vringh_complete_iotlb(&vq->vring, vq->head, len);
	/* Used index before the interrupt. */
	smp_wmb();
	local_bh_disable();
	if (vringh_need_notify_iotlb(&vq->vring) > 0)
		vringh_notify(&vq->vring);
	local_bh_enable();
}

/*
 * The queue looks empty: ask for a kick on the next buffer (event index
 * or flags), then look again.  Returns true when it really is empty.
 */
bool vdr_vq_idle(struct vdr_vq *vq)
{
	if (vringh_notify_enable_iotlb(&vq->vring))
		return true;
	/* A buffer slipped in; we are polling anyway. */
	vringh_notify_disable_iotlb(&vq->vring);
	return false;
}

void vdr_ctrl_schedule(struct vdr_dev *dev)
{
	queue_work(vdr_wq, &dev->ctrl_work);
}

void vdr_db_schedule(struct vdr_dev *dev)
{
	vdr_engine_queue(dev->db_engine, &dev->db_work);
}

/* The controlq and the eventqs, under dev->lock (model in vdpa_rdma.h). */
void vdr_ctrl_work_fn(struct work_struct *work)
{
	struct vdr_dev *dev = container_of(work, struct vdr_dev, ctrl_work);
	bool more = false;
	u16 i;

	mutex_lock(&dev->lock);
	if (!dev->running)
		goto out;
	if (dev->vqs[VIRTIO_RDMA_CTRLQ].ready)
		more |= vdr_ctrl_process(dev);
	for (i = 0; i < dev->nqp; i++)
		more |= vdr_events_deliver(dev, i);
out:
	mutex_unlock(&dev->lock);
	if (more)
		vdr_ctrl_schedule(dev);
}

/*
 * Doorbell buffers per run of db_work, and per notification processed in
 * the notifier's context, whose own doorbell is the first: each may run a
 * QP for one budget.
 */
#define VDR_DB_BUDGET		64
#define VDR_DB_INLINE_BUDGET	4

/* A budget of a doorbellq, under its lock; true when some is left. */
static bool vdr_dbq_run(struct vdr_dev *dev, u16 idx, int budget,
			bool in_caller)
{
	struct vdr_vq *vq = &dev->vqs[idx];

	lockdep_assert_held(&vq->lock);
	if (!READ_ONCE(dev->running) || !vq->ready)
		return false;
	return vdr_doorbells_process(dev, idx, budget, in_caller);
}

/*
 * The doorbellqs, without dev->lock: a doorbell never waits behind a
 * command.  Reset and the vq config ops stop this work before they touch
 * the doorbellqs (vdr_vq_quiesce()).
 */
void vdr_db_work_fn(struct kthread_work *work)
{
	struct vdr_dev *dev = container_of(work, struct vdr_dev, db_work);
	struct vdr_vq *vq;
	bool more = false;
	u16 i;

	if (!READ_ONCE(dev->running))
		return;
	for (i = 0; i < dev->nqp; i++) {
		vq = &dev->vqs[VIRTIO_RDMA_DOORBELLQ(i)];
		mutex_lock(&vq->lock);
		more |= vdr_dbq_run(dev, VIRTIO_RDMA_DOORBELLQ(i),
				    VDR_DB_BUDGET, false);
		mutex_unlock(&vq->lock);
	}
	if (more)
		vdr_db_schedule(dev);
}

static bool inline_doorbells = true;
module_param(inline_doorbells, bool, 0644);
MODULE_PARM_DESC(inline_doorbells,
		 "Whether a doorbell rung from a context that may sleep is processed there, instead of by a worker (default true)");

/*
 * Whether the notifier's context may sleep, as might_sleep() judges it: a
 * user QP's doorbell comes from its system call under virtio_vdpa, and a
 * VM's from the vhost worker under vhost_vdpa, while a kernel QP's
 * post_send may hold spinlocks.  A kernel that does not count preemption
 * cannot tell, and every doorbell then goes to db_work.
 */
static bool vdr_notifier_may_sleep(void)
{
	return preemptible() && !rcu_preempt_depth();
}

/**
 * vdr_db_kick - the driver notified doorbellq @idx
 * @dev: the device
 * @idx: the doorbellq
 *
 * Where the notifier may sleep, its doorbells are processed right here,
 * one budget (the QPs they name each run one budget too, or are
 * scheduled when busy), and db_work does the rest.  That saves the wakeup
 * of a worker per message, the largest cost of a small message under a
 * hypervisor: a ping-pong between two user QPs then runs each message's
 * sender and receiver in the sender's system call, as siw does.  A QP
 * whose packets take the wire is only scheduled (vdr_xqp_doorbell()).  The
 * notifier is the driver, which must not hold a lock that the work takes
 * (the driver's event callbacks may run, as from an interrupt).
 */
void vdr_db_kick(struct vdr_dev *dev, u16 idx)
{
	struct vdr_vq *vq = &dev->vqs[idx];
	bool more;

	if (!inline_doorbells || !vdr_notifier_may_sleep() ||
	    !mutex_trylock(&vq->lock)) {
		/* Busy: db_work waits for the lock, then looks again. */
		vdr_db_schedule(dev);
		return;
	}
	atomic_inc(&dev->inline_doorbells);
	more = vdr_dbq_run(dev, idx, VDR_DB_INLINE_BUDGET, true);
	mutex_unlock(&vq->lock);
	if (more)
		vdr_db_schedule(dev);
}

/*
 * Translate one chunk of [addr, addr + len) that stays within one IOTLB
 * entry and one page; returns the page and the offset in it.
 */
struct page *vdr_translate(struct vdr_dev *dev, u64 addr, u32 perm,
			   size_t *len, unsigned int *offset)
{
	struct vhost_iotlb_map *map;
	u64 pa, room;

	lockdep_assert(lockdep_is_held(&dev->iotlb_lock) ||
		       lockdep_is_held(&dev->iotlb_rw));

	map = vhost_iotlb_itree_first(&dev->iotlb, addr, addr);
	if (!map || (map->perm & perm) != perm)
		return NULL;
	pa = map->addr + (addr - map->start);
	if (!pfn_valid(PHYS_PFN(pa)))
		return NULL;
	*offset = offset_in_page(pa);
	room = min_t(u64, map->last - addr, PAGE_SIZE - 1 - *offset) + 1;
	*len = min_t(u64, *len, room);
	return pfn_to_page(PHYS_PFN(pa));
}

/* Copy from guest memory; -EFAULT when any byte is not readable. */
int vdr_mem_read(struct vdr_dev *dev, u64 addr, void *buf, size_t len)
{
	unsigned int offset;
	struct page *page;
	size_t chunk;
	void *va;

	if (!len)
		return 0;
	if (addr + len - 1 < addr)
		return -EFAULT;

	while (len) {
		/* One page per lock hold: reads can be megabytes long. */
		spin_lock(&dev->iotlb_lock);
		chunk = len;
		page = vdr_translate(dev, addr, VHOST_MAP_RO, &chunk, &offset);
		if (!page) {
			spin_unlock(&dev->iotlb_lock);
			return -EFAULT;
		}
		va = kmap_local_page(page);
		memcpy(buf, va + offset, chunk);
		kunmap_local(va);
		spin_unlock(&dev->iotlb_lock);
		buf += chunk;
		addr += chunk;
		len -= chunk;
	}
	return 0;
}

static void vdr_ring_unpin(struct page **pages, unsigned long n)
{
	while (n)
		put_page(pages[--n]);
}

/*
 * The pages of a ring at @addr: one DMA-contiguous area, or, with
 * VIRTIO_RDMA_F_RING_PAGES, the 4 KiB pages that the list at @addr names
 * (spec "Ring page lists").  Each must be one IOTLB mapping of one page.
 *
 * Rings stay mapped while their object lives, across any later set_map.
 * When the IOTLB is not this kernel's passthrough (vhost-vdpa: a VM's
 * memory), each page is taken with a reference of the ring's own, while
 * the translation is still current: a VM that unmaps the memory, and the
 * unpinning that follows in vhost-vdpa, cannot free a page the device
 * still writes.  *@pinned says which it was.
 */
static int vdr_ring_pages(struct vdr_dev *dev, u64 addr, struct page **pages,
			  unsigned long npages, bool *pinned)
{
	bool listed = vdr_has_feature(dev, VIRTIO_RDMA_F_RING_PAGES);
	__le64 *list = NULL;
	unsigned long i;
	unsigned int offset;
	size_t chunk;
	int ret = 0;

	if (listed) {
		list = kvmalloc_array(npages, sizeof(*list), GFP_KERNEL);
		if (!list)
			return -ENOMEM;
		if (vdr_mem_read(dev, addr, list, npages * sizeof(*list))) {
			kvfree(list);
			return -EFAULT;
		}
	}
	spin_lock(&dev->iotlb_lock);
	*pinned = !dev->iotlb_pt;
	for (i = 0; i < npages; i++) {
		u64 page = listed ? le64_to_cpu(list[i]) :
				    (addr & PAGE_MASK) + i * PAGE_SIZE;

		/* A listed page must be aligned (spec: INVAL). */
		if (offset_in_page(page)) {
			ret = -EINVAL;
			break;
		}
		chunk = PAGE_SIZE;
		pages[i] = vdr_translate(dev, page, VHOST_MAP_RW, &chunk,
					 &offset);
		/* The whole page must be one mapping of one page. */
		if (!pages[i] || offset || chunk != PAGE_SIZE ||
		    (*pinned && !try_get_page(pages[i]))) {
			ret = -EFAULT;
			break;
		}
	}
	spin_unlock(&dev->iotlb_lock);
	if (ret && *pinned)
		vdr_ring_unpin(pages, i);
	kvfree(list);
	return ret;
}

/*
 * Rings are accessed on every completion and work request, so they are
 * translated once, when the object is created, and mapped contiguously.
 * The driver keeps them until the destroying command completes (spec
 * "Driver requirements").
 */
int vdr_ring_map(struct vdr_dev *dev, struct vdr_ring *ring, u64 addr,
		 u32 depth, u32 stride)
{
	return vdr_ring_map_extra(dev, ring, addr, depth, stride, 0);
}
EXPORT_SYMBOL_IF_KUNIT(vdr_ring_map);

/* A ring followed by @extra bytes of its own (a TM-SRQ's release words). */
int vdr_ring_map_extra(struct vdr_dev *dev, struct vdr_ring *ring, u64 addr,
		       u32 depth, u32 stride, u32 extra)
{
	u64 size = VIRTIO_RDMA_RING_CTL_SIZE + (u64)depth * stride + extra;
	/* A listed ring starts at its first page; a contiguous one at addr. */
	unsigned int start = vdr_has_feature(dev, VIRTIO_RDMA_F_RING_PAGES) ?
			     0 : offset_in_page(addr);
	unsigned long npages;
	struct page **pages;
	bool pinned;
	int ret;
	void *va;

	if (addr + size - 1 < addr)
		return -EINVAL;
	npages = PAGE_ALIGN(start + size) >> PAGE_SHIFT;
	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	ret = vdr_ring_pages(dev, addr, pages, npages, &pinned);
	if (ret)
		goto out;

	va = vmap(pages, npages, VM_MAP, PAGE_KERNEL);
	if (!va) {
		if (pinned)
			vdr_ring_unpin(pages, npages);
		ret = -ENOMEM;
		goto out;
	}
	ring->pinned = pinned ? pages : NULL;
	ring->npinned = pinned ? npages : 0;
	if (pinned)
		pages = NULL;
	ring->vmap_base = va;
	ring->ctl = va + start;
	ring->entries = (void *)ring->ctl + VIRTIO_RDMA_RING_CTL_SIZE;
	ring->addr = addr;
	ring->depth = depth;
	ring->stride = stride;
out:
	kvfree(pages);
	return ret;
}

void vdr_ring_unmap(struct vdr_ring *ring)
{
	if (ring->vmap_base)
		vunmap(ring->vmap_base);
	if (ring->pinned) {
		vdr_ring_unpin(ring->pinned, ring->npinned);
		kvfree(ring->pinned);
	}
	memset(ring, 0, sizeof(*ring));
}
EXPORT_SYMBOL_IF_KUNIT(vdr_ring_unmap);
