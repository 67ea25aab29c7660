// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma ring memory (spec "Rings"): SQ, RQ, SRQ and CQ rings.
 *
 * With VIRTIO_RDMA_F_RING_PAGES (spec "Ring page lists") a ring is single
 * pages the device finds through a page list; the kernel sees them through
 * vmap(), the provider through vm_insert_pages().  No allocation is larger
 * than a page but the list (8 bytes a page, rounded up to a power of two:
 * 8 KiB for the largest ring the device allows), so a user sizing QPs
 * cannot drive the allocator into high-order compaction.  Without the
 * feature a ring is one dma_alloc_coherent() area.
 *
 * A user object's ring is charged to the creating task's memory cgroup
 * (__GFP_ACCOUNT: the page allocator charges the pages, dma-direct passes
 * the flag on) and, sized by the user, fails quietly: ENOMEM, no warning in
 * the log, no OOM kill.
 */

#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "vrdma.h"
#include "vrdma_compat.h"

/*
 * Off: contiguous rings even where the device offers page lists, for tools
 * that write control commands with contiguous rings through raw_cmd.
 */
static bool ring_pages = true;
module_param(ring_pages, bool, 0644);
MODULE_PARM_DESC(ring_pages,
		 "Rings as page lists where the device offers them (read when a device is probed)");

/*
 * Page rings need pages the CPU and the device share without syncs: a
 * mapping that bounces or needs cache maintenance would break them.  Asked
 * once, before the features are accepted (vrdma_validate()).
 */
bool vrdma_ring_pages_ok(struct device *dma_dev)
{
	struct page *page;
	dma_addr_t dma;
	bool ok;

	if (!READ_ONCE(ring_pages))
		return false;
#if PAGE_SIZE != SZ_4K
	return false;	/* the spec's list entries are 4 KiB pages */
#endif
	if (!dma_dev)
		return false;
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return false;
	dma = dma_map_page(dma_dev, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
	ok = !dma_mapping_error(dma_dev, dma);
	if (ok) {
		ok = !dma_need_sync(dma_dev, dma);
		dma_unmap_page(dma_dev, dma, PAGE_SIZE, DMA_BIDIRECTIONAL);
	}
	__free_page(page);
	return ok;
}

static void vrdma_ring_free_pages(struct device *dma_dev,
				  struct vrdma_ring *ring)
{
	unsigned int i;

	if (ring->buf)
		vunmap(ring->buf);
	if (ring->pl_dma)
		dma_unmap_single(dma_dev, ring->pl_dma,
				 ring->npages * sizeof(*ring->pl), DMA_TO_DEVICE);
	for (i = 0; ring->pages && i < ring->npages && ring->pages[i]; i++) {
		dma_unmap_page(dma_dev, le64_to_cpu(ring->pl[i]), PAGE_SIZE,
			       DMA_BIDIRECTIONAL);
		/* A process may still map it: the page goes with the last. */
		put_page(ring->pages[i]);
	}
	kvfree(ring->pages);
	kfree(ring->pl);
	ring->pages = NULL;
	ring->pl = NULL;
}

static int vrdma_ring_alloc_pages(struct device *dma_dev,
				  struct vrdma_ring *ring, gfp_t gfp)
{
	unsigned int i, n = ring->size >> PAGE_SHIFT;
	dma_addr_t dma;

	ring->npages = n;
	ring->pages = kvcalloc(n, sizeof(*ring->pages), gfp);
	/* Power-of-two sizes are naturally aligned: 128 as the spec asks. */
	ring->pl = kzalloc(roundup_pow_of_two(max_t(size_t, n * sizeof(*ring->pl),
						    VIRTIO_RDMA_RING_CTL_SIZE)),
			   gfp);
	if (!ring->pages || !ring->pl)
		goto err;
	for (i = 0; i < n; i++) {
		/* Zeroed: the pages are mapped into user space. */
		ring->pages[i] = alloc_page(gfp | __GFP_ZERO);
		if (!ring->pages[i])
			goto err;
		dma = dma_map_page(dma_dev, ring->pages[i], 0, PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dma_dev, dma)) {
			put_page(ring->pages[i]);
			ring->pages[i] = NULL;
			goto err;
		}
		ring->pl[i] = cpu_to_le64(dma);
	}
	ring->buf = vmap(ring->pages, n, VM_MAP, PAGE_KERNEL);
	if (!ring->buf)
		goto err;
	dma = dma_map_single(dma_dev, ring->pl, n * sizeof(*ring->pl),
			     DMA_TO_DEVICE);
	if (dma_mapping_error(dma_dev, dma))
		goto err;
	ring->pl_dma = dma;
	ring->dma = dma;
	return 0;

err:
	vrdma_ring_free_pages(dma_dev, ring);
	ring->buf = NULL;
	return -ENOMEM;
}

/* A ring of @depth entries of 1 << @shift bytes, for a user object if @user. */
int vrdma_ring_alloc(struct vrdma_dev *dev, struct vrdma_ring *ring,
		     u32 depth, u32 shift, bool user)
{
	return vrdma_ring_alloc_tail(dev, ring, depth, shift, 0, user);
}

/*
 * A ring followed by @tail more bytes in the same memory (a TM-SRQ's
 * release words, spec "Tag matching"), zeroed as the ring_ctl is.
 */
int vrdma_ring_alloc_tail(struct vrdma_dev *dev, struct vrdma_ring *ring,
			  u32 depth, u32 shift, size_t tail, bool user)
{
	size_t used = VIRTIO_RDMA_RING_CTL_SIZE + ((size_t)depth << shift);
	gfp_t gfp = user ? GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL :
			   GFP_KERNEL;

	ring->depth = depth;
	ring->shift = shift;
	ring->head = 0;
	ring->pages = NULL;
	ring->pl = NULL;
	ring->pl_dma = 0;
	/* Whole pages, so the ring can later be mapped into user space. */
	ring->size = PAGE_ALIGN(used + tail);
	if (dev->ring_pages)
		return vrdma_ring_alloc_pages(dev->dma_dev, ring, gfp);
	ring->buf = dma_alloc_coherent(dev->dma_dev, ring->size, &ring->dma,
				       gfp);
	if (!ring->buf)
		return -ENOMEM;
	memset(ring->buf, 0, VIRTIO_RDMA_RING_CTL_SIZE);
	memset(ring->buf + used, 0, tail);
	return 0;
}

/*
 * Frees what vrdma_ring_alloc() made, given the device it was made for
 * (an mmap entry may outlive the ib_device).
 */
void vrdma_ring_release(struct device *dma_dev, struct vrdma_ring *ring)
{
	if (ring->pages)
		vrdma_ring_free_pages(dma_dev, ring);
	else if (ring->buf)
		dma_free_coherent(dma_dev, ring->size, ring->buf, ring->dma);
	ring->buf = NULL;
}

/* Maps all of @ring at the start of @vma (its size is the ring's). */
int vrdma_ring_mmap(struct vrdma_ring *ring, struct vm_area_struct *vma)
{
	unsigned long n = ring->npages;

	if (!ring->pages)
		return -EOPNOTSUPP;
	/* As rdma_user_mmap_io(): no growing by mremap, not in core dumps. */
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return vm_insert_pages(vma, vma->vm_start, ring->pages, &n);
}
