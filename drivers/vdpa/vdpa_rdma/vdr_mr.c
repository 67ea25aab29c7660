// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: memory regions (DMA, registered with a page list, and
 * fast-registration MRs).
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"

/* Entries of one indirect page-list page (spec CREATE_MR). */
#define VDR_PL_PER_PAGE	512
#define VDR_PL_PAGE_SIZE	4096

static struct lock_class_key vdr_mr_lock_class;
static struct lock_class_key vdr_mw_lock_class;
static struct lock_class_key vdr_mkey_lock_class;

/*
 * Windows and indirect keys are locked before the MRs behind them
 * (vdr_mem.c): one lockdep class per kind, whichever command made the
 * object, makes that order visible.
 */
static void vdr_key_lock_init(struct vdr_mr *mr, enum vdr_mr_kind kind)
{
	rwlock_init(&mr->lock);
	if (vdr_key_is_mw(kind))
		lockdep_set_class(&mr->lock, &vdr_mw_lock_class);
	else if (kind == VDR_MKEY)
		lockdep_set_class(&mr->lock, &vdr_mkey_lock_class);
	else
		lockdep_set_class(&mr->lock, &vdr_mr_lock_class);
}

int vdr_check_access(struct vdr_dev *dev, u32 access, bool is_mr)
{
	u32 known = VDR_ACCESS_ALL;

	if (is_mr && vdr_has_feature(dev, VIRTIO_RDMA_F_MW))
		known |= VIRTIO_RDMA_ACCESS_MW_BIND;
	if (access & ~known)
		return VIRTIO_RDMA_STATUS_INVAL;
	/* IB: remote writes into an MR imply the local side may write too. */
	if (is_mr && (access & (VIRTIO_RDMA_ACCESS_REMOTE_WRITE |
				VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & VIRTIO_RDMA_ACCESS_LOCAL_WRITE))
		return VIRTIO_RDMA_STATUS_INVAL;
	if ((access & VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC) &&
	    !vdr_has_feature(dev, VIRTIO_RDMA_F_ATOMIC))
		return VIRTIO_RDMA_STATUS_ACCES;
	return VIRTIO_RDMA_STATUS_OK;
}

/**
 * vdr_key_alloc - a new MR or window with its index reserved
 * @dev: the device
 * @pd_handle: its PD (untrusted)
 * @kind: what it is; counted against that kind's limit
 * @status: set on failure
 *
 * Return: the object, not yet visible to lookups (vdr_key_publish()).
 */
struct vdr_mr *vdr_key_alloc(struct vdr_dev *dev, u32 pd_handle,
			     enum vdr_mr_kind kind, int *status)
{
	bool mw = vdr_key_is_mw(kind);
	struct vdr_mr *mr;
	struct vdr_pd *pd;
	u32 index;
	int ret;

	if (!xa_load(&dev->pds, pd_handle)) {
		*status = VIRTIO_RDMA_STATUS_NOENT;
		return NULL;
	}
	if (mw ? dev->nr_mws >= VDR_MAX_MW : dev->nr_mrs >= VDR_MAX_MR) {
		*status = VIRTIO_RDMA_STATUS_NOSPC;
		return NULL;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		*status = VIRTIO_RDMA_STATUS_NOMEM;
		return NULL;
	}
	vdr_key_lock_init(mr, kind);
	/* Reserve the index now; the MR becomes visible once filled in. */
	ret = xa_alloc_cyclic(&dev->mrs, &index, NULL,
			      XA_LIMIT(1, VDR_HANDLE_MAX), &dev->mr_next,
			      GFP_KERNEL);
	if (ret < 0) {
		kfree(mr);
		*status = ret == -EBUSY ? VIRTIO_RDMA_STATUS_NOSPC :
					  VIRTIO_RDMA_STATUS_NOMEM;
		return NULL;
	}
	pd = vdr_pd_get(dev, pd_handle);
	mr->pd = pd;
	mr->index = index;
	mr->kind = kind;
	if (mw)
		dev->nr_mws++;
	else
		dev->nr_mrs++;
	return mr;
}

/*
 * After this no access touches the object's pages: one in progress holds
 * mr->lock until it is done, later ones see it dead.  The object itself
 * goes after an RCU grace period, as lookups may still hold it.  Called
 * with mr->lock held; returns with it dropped.
 */
void vdr_key_kill_locked(struct vdr_mr *mr)
	__releases(&mr->lock)
{
	struct vdr_mkey_entry *entries;
	u64 *pages;

	mr->dead = true;
	mr->valid = false;
	pages = mr->pages;
	mr->pages = NULL;
	entries = mr->entries;
	mr->entries = NULL;
	write_unlock(&mr->lock);
	kvfree(pages);
	kfree(entries);
	vdr_pd_put(mr->pd);
	kfree_rcu(mr, rcu);
}

/* Takes the key out of the table; lookups already under way may see it. */
void vdr_key_unpublish(struct vdr_dev *dev, struct vdr_mr *mr)
{
	xa_erase(&dev->mrs, mr->index);
	if (vdr_key_is_mw(mr->kind))
		dev->nr_mws--;
	else
		dev->nr_mrs--;
}

static void vdr_key_free(struct vdr_dev *dev, struct vdr_mr *mr)
{
	vdr_key_unpublish(dev, mr);
	write_lock(&mr->lock);
	vdr_key_kill_locked(mr);
}

/*
 * The key byte is random, as rxe's is: indices are allocated in order, so
 * with a predictable byte a peer that has seen one key of the device could
 * name the next MR's key at the first guess.
 */
void vdr_key_publish(struct vdr_dev *dev, struct vdr_mr *mr, u8 key_byte)
{
	mr->key = (mr->index << VIRTIO_RDMA_KEY_INDEX_SHIFT) | key_byte;
	xa_store(&dev->mrs, mr->index, mr, GFP_KERNEL);
}

static void vdr_mr_publish(struct vdr_dev *dev, struct vdr_mr *mr,
			   u8 key_byte)
{
	struct virtio_rdma_mr_resp *r = &dev->resp.mr;

	vdr_key_publish(dev, mr, key_byte);
	r->mr_handle = cpu_to_le32(mr->index);
	r->lkey = cpu_to_le32(mr->key);
	r->rkey = cpu_to_le32(mr->key);
}

int vdr_cmd_get_dma_mr(struct vdr_dev *dev)
{
	const struct virtio_rdma_get_dma_mr_req *req = &dev->req.get_dma_mr;
	u32 access = le32_to_cpu(req->access_flags);
	struct vdr_mr *mr;
	int status;

	status = vdr_check_access(dev, access, true);
	if (status)
		return status;
	mr = vdr_key_alloc(dev, le32_to_cpu(req->pd_handle), VDR_MR_DMA,
			   &status);
	if (!mr)
		return status;
	mr->valid = true;
	mr->access = access;
	mr->iova = 0;
	mr->length = U64_MAX;
	vdr_mr_publish(dev, mr, get_random_u8());
	return VIRTIO_RDMA_STATUS_OK;
}

/* Checks and converts page addresses read from the driver. */
static int vdr_pages_check(u64 *pages, u32 n, u32 page_shift)
{
	u32 i;

	for (i = 0; i < n; i++) {
		pages[i] = le64_to_cpu((__force __le64)pages[i]);
		if (pages[i] & ((1ULL << page_shift) - 1))
			return VIRTIO_RDMA_STATUS_INVAL;
	}
	return VIRTIO_RDMA_STATUS_OK;
}

static int vdr_read_page_list(struct vdr_dev *dev, u64 *pages, u32 npages,
			      u32 page_shift, u64 addr, bool indirect)
{
	u32 nind, i, n;
	__le64 *ind;
	int status;

	if (!indirect) {
		/* Large lists: let others run between pages of the list. */
		for (i = 0; i < npages; i += n) {
			n = min_t(u32, npages - i, VDR_PL_PER_PAGE);
			if (vdr_mem_read(dev, addr + (u64)i * 8, pages + i,
					 (size_t)n * 8))
				return VIRTIO_RDMA_STATUS_FAULT;
			status = vdr_pages_check(pages + i, n, page_shift);
			if (status)
				return status;
			cond_resched();
		}
		return VIRTIO_RDMA_STATUS_OK;
	}

	nind = DIV_ROUND_UP(npages, VDR_PL_PER_PAGE);
	ind = kvmalloc_array(nind, sizeof(*ind), GFP_KERNEL);
	if (!ind)
		return VIRTIO_RDMA_STATUS_NOMEM;
	status = VIRTIO_RDMA_STATUS_FAULT;
	if (vdr_mem_read(dev, addr, ind, (size_t)nind * sizeof(*ind)))
		goto out;
	for (i = 0; i < nind; i++) {
		u64 pl = le64_to_cpu(ind[i]);

		status = VIRTIO_RDMA_STATUS_INVAL;
		if (pl & (VDR_PL_PAGE_SIZE - 1))
			goto out;
		n = min_t(u32, npages - i * VDR_PL_PER_PAGE,
			  VDR_PL_PER_PAGE);
		status = VIRTIO_RDMA_STATUS_FAULT;
		if (vdr_mem_read(dev, pl, pages + i * VDR_PL_PER_PAGE,
				 (size_t)n * 8))
			goto out;
		status = vdr_pages_check(pages + i * VDR_PL_PER_PAGE, n,
					 page_shift);
		if (status)
			goto out;
		cond_resched();
	}
out:
	kvfree(ind);
	return status;
}

/*
 * MR_F_REPLACE: the new registration takes the old one's index and key and
 * replaces it in the table in one step; an access sees the old or the new
 * one whole (each is checked and used under its own lock), and the old
 * object goes as on DEREG_MR.
 */
static int vdr_mr_replace(struct vdr_dev *dev, struct vdr_mr *old,
			  u32 pd_handle, struct vdr_mr **out)
{
	struct vdr_mr *mr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return VIRTIO_RDMA_STATUS_NOMEM;
	vdr_key_lock_init(mr, old->kind);
	mr->pd = vdr_pd_get(dev, pd_handle);
	mr->index = old->index;
	mr->key = old->key;
	mr->kind = old->kind;
	*out = mr;
	return VIRTIO_RDMA_STATUS_OK;
}

int vdr_cmd_create_mr(struct vdr_dev *dev)
{
	const struct virtio_rdma_create_mr_req *req = &dev->req.create_mr;
	u32 access = le32_to_cpu(req->access_flags);
	u32 page_shift = le32_to_cpu(req->page_shift);
	u32 npages = le32_to_cpu(req->npages);
	u32 flags = le32_to_cpu(req->flags);
	u64 iova = le64_to_cpu(req->iova);
	u64 length = le64_to_cpu(req->length);
	u64 pl_addr = le64_to_cpu(req->page_list_addr);
	struct vdr_mr *mr, *old = NULL;
	u32 known = VIRTIO_RDMA_MR_F_PL_INDIRECT;
	u64 *pages, off;
	int status;

	if (vdr_has_feature(dev, VIRTIO_RDMA_F_MR_REPLACE))
		known |= VIRTIO_RDMA_MR_F_REPLACE;
	status = vdr_check_access(dev, access, true);
	if (status)
		return status;
	if (flags & ~known)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (!(flags & VIRTIO_RDMA_MR_F_REPLACE) && req->replace_handle)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (flags & VIRTIO_RDMA_MR_F_REPLACE) {
		old = xa_load(&dev->mrs, le32_to_cpu(req->replace_handle));
		if (!old)
			return VIRTIO_RDMA_STATUS_NOENT;
		if (old->kind != VDR_MR_USER)
			return VIRTIO_RDMA_STATUS_INVAL;
	}
	if (page_shift >= 64 || !(VDR_PAGE_SIZE_CAP & BIT_ULL(page_shift)))
		return VIRTIO_RDMA_STATUS_INVAL;
	if (!length || length > VDR_MAX_MR_SIZE || iova + length - 1 < iova)
		return VIRTIO_RDMA_STATUS_INVAL;
	off = iova & ((1ULL << page_shift) - 1);
	if (npages != DIV_ROUND_UP_ULL(off + length, 1ULL << page_shift))
		return VIRTIO_RDMA_STATUS_INVAL;
	if (pl_addr & 7)
		return VIRTIO_RDMA_STATUS_INVAL;
	if (!xa_load(&dev->pds, le32_to_cpu(req->pd_handle)))
		return VIRTIO_RDMA_STATUS_NOENT;
	if (!old && dev->nr_mrs >= VDR_MAX_MR)
		return VIRTIO_RDMA_STATUS_NOSPC;

	/* Sized by the driver: fail rather than push the system into OOM. */
	pages = kvmalloc_array(npages, sizeof(*pages),
			       GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL);
	if (!pages)
		return VIRTIO_RDMA_STATUS_NOMEM;
	status = vdr_read_page_list(dev, pages, npages, page_shift, pl_addr,
				    flags & VIRTIO_RDMA_MR_F_PL_INDIRECT);
	if (status)
		goto err;

	if (old) {
		status = vdr_mr_replace(dev, old, le32_to_cpu(req->pd_handle),
					&mr);
		if (status)
			goto err;
	} else {
		mr = vdr_key_alloc(dev, le32_to_cpu(req->pd_handle),
				   VDR_MR_USER, &status);
		if (!mr)
			goto err;
	}
	mr->kind = VDR_MR_USER;
	mr->valid = true;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->page_shift = page_shift;
	mr->pages = pages;
	if (old) {
		/*
		 * Checked and swapped under the old MR's lock, which a bind
		 * holds from its checks to the count: no window is bound to
		 * the old one once the new one is in.  The slot exists, so the
		 * store allocates nothing.
		 */
		write_lock(&old->lock);
		if (atomic_read(&old->nr_mw)) {
			write_unlock(&old->lock);
			vdr_pd_put(mr->pd);
			kfree(mr);
			status = VIRTIO_RDMA_STATUS_BUSY;
			goto err;
		}
		xa_store(&dev->mrs, mr->index, mr, GFP_ATOMIC);
		vdr_key_kill_locked(old);
		dev->resp.mr.mr_handle = cpu_to_le32(mr->index);
		dev->resp.mr.lkey = cpu_to_le32(mr->key);
		dev->resp.mr.rkey = cpu_to_le32(mr->key);
	} else {
		vdr_mr_publish(dev, mr, get_random_u8());
	}
	return VIRTIO_RDMA_STATUS_OK;
err:
	kvfree(pages);
	return status;
}

int vdr_cmd_alloc_mr(struct vdr_dev *dev)
{
	const struct virtio_rdma_alloc_mr_req *req = &dev->req.alloc_mr;
	u32 max_pages = le32_to_cpu(req->max_pages);
	u64 pl_addr = le64_to_cpu(req->page_list_addr);
	struct vdr_mr *mr;
	u64 *pages;
	int status;

	if (!max_pages || max_pages > VDR_MAX_FRPL_LEN || (pl_addr & 7))
		return VIRTIO_RDMA_STATUS_INVAL;
	/* REG_MR fills it in place, under the MR's lock, without allocating. */
	pages = kvcalloc(max_pages, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages)
		return VIRTIO_RDMA_STATUS_NOMEM;
	mr = vdr_key_alloc(dev, le32_to_cpu(req->pd_handle), VDR_MR_FAST,
			   &status);
	if (!mr) {
		kvfree(pages);
		return status;
	}
	mr->pages = pages;
	mr->valid = false;
	mr->max_pages = max_pages;
	mr->page_list_addr = pl_addr;
	vdr_mr_publish(dev, mr, 0);
	return VIRTIO_RDMA_STATUS_OK;
}

int vdr_cmd_dereg_mr(struct vdr_dev *dev)
{
	u32 index = le32_to_cpu(dev->req.dereg_mr.mr_handle);
	struct vdr_mr *mr;

	mr = xa_load(&dev->mrs, index);
	if (!mr || vdr_key_is_mw(mr->kind))
		return VIRTIO_RDMA_STATUS_NOENT;
	/* A bind checks the MR under its lock: no window appears after this. */
	write_lock(&mr->lock);
	if (atomic_read(&mr->nr_mw)) {
		write_unlock(&mr->lock);
		return VIRTIO_RDMA_STATUS_BUSY;
	}
	vdr_key_unpublish(dev, mr);
	vdr_key_kill_locked(mr);
	return VIRTIO_RDMA_STATUS_OK;
}

void vdr_mrs_destroy(struct vdr_dev *dev)
{
	struct vdr_mr *mr;
	unsigned long idx;

	/* Windows and the MRs they are bound to go together: no unbinding. */
	xa_for_each(&dev->mrs, idx, mr)
		vdr_key_free(dev, mr);
	dev->mr_next = 0;
}
