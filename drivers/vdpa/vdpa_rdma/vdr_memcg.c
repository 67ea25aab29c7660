// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: which memory cgroup pays for an object's state.
 *
 * Control commands run in the device's worker (vdr_ctrl_work_fn), a kworker
 * of the root cgroup: GFP_KERNEL_ACCOUNT alone would charge nobody.  The
 * device cannot see which task sent a command, but it can see whose memory
 * the object lives in: the guest driver allocates a user object's rings
 * charged to the creating task's cgroup (__GFP_ACCOUNT), so the device
 * charges the object's own state (QP, shadow SQ, responder resources, CQ,
 * SRQ) to the cgroup of the ring's first page.  Kernel objects' rings are
 * charged to nobody, and neither is their state.
 */
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/vmalloc.h>

#include "vdpa_rdma.h"

#ifdef CONFIG_MEMCG
/* A referenced memcg of @page, or NULL when it is charged to none. */
static struct mem_cgroup *vdr_page_memcg(struct page *page)
{
	struct folio *folio = page_folio(page);
	struct mem_cgroup *memcg;

	/* Slab objects have a cgroup each, not their folio: never a ring. */
	if (folio_test_slab(folio))
		return NULL;
	rcu_read_lock();
	memcg = folio_memcg(folio);
	if (memcg && !css_tryget(&memcg->css))
		memcg = NULL;
	rcu_read_unlock();
	return memcg;
}

/*
 * Until vdr_memcg_leave(), charge GFP_KERNEL_ACCOUNT allocations to the
 * cgroup of the first page of the ring at @addr (a ring address of the
 * command, not yet mapped).  An address the IOTLB does not map charges
 * nobody: the command fails on it anyway.
 */
void vdr_memcg_enter(struct vdr_dev *dev, struct vdr_memcg *m, u64 addr)
{
	struct page *page;
	unsigned int off;
	size_t len = 1;
	__le64 first;

	m->memcg = NULL;
	m->old = NULL;
	/* A page list's first entry is the ring's first page. */
	if (vdr_has_feature(dev, VIRTIO_RDMA_F_RING_PAGES)) {
		if (vdr_mem_read(dev, addr, &first, sizeof(first)))
			return;
		addr = le64_to_cpu(first);
	}
	/* The driver keeps the ring until the command completes (spec). */
	spin_lock(&dev->iotlb_lock);
	page = vdr_translate(dev, addr, VHOST_MAP_RO, &len, &off);
	m->memcg = page ? vdr_page_memcg(page) : NULL;
	spin_unlock(&dev->iotlb_lock);
	m->old = m->memcg ? set_active_memcg(m->memcg) : NULL;
}

/* The same for an object whose ring is mapped already. */
void vdr_memcg_enter_ring(struct vdr_memcg *m, const struct vdr_ring *ring)
{
	m->memcg = ring->vmap_base ?
		   vdr_page_memcg(vmalloc_to_page(ring->vmap_base)) : NULL;
	m->old = m->memcg ? set_active_memcg(m->memcg) : NULL;
}

void vdr_memcg_leave(struct vdr_memcg *m)
{
	if (!m->memcg)
		return;
	set_active_memcg(m->old);
	mem_cgroup_put(m->memcg);
	m->memcg = NULL;
}
#endif
