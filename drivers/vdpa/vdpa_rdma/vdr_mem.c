// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: data memory access.
 *
 * Every byte the transport reads or writes on behalf of a work request or
 * an incoming packet goes through here: the key checks of the spec ("Key
 * checks"), the translation I/O virtual address -> DMA address through the
 * MR, and DMA address -> page through the device IOTLB.  Fast registration
 * and invalidation change MRs in SQ order from the data path.
 *
 * QPs run in parallel (model in vdpa_rdma.h): an MR is looked up under
 * RCU and used under its own lock, from the key checks to the end of the
 * copy, so a concurrent fast registration, invalidation, DEREG_MR or
 * replacement is seen either entirely or not at all, and once a command
 * has marked an MR dead no access touches its pages any more.  Accesses
 * take that lock shared (it is a rwlock): the QPs that copy into or out of
 * one MR, as every perftest with several QPs does, copy at the same time;
 * whatever changes the MR takes it exclusive.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"
#include "vdr_xport.h"

static bool vdr_mr_in_bounds(const struct vdr_mr *mr, u64 addr, u64 len)
{
	u64 off;

	if (addr < mr->iova)
		return false;
	off = addr - mr->iova;
	return off <= mr->length && len <= mr->length - off;
}

/* The key checks (spec "Key checks") on a locked MR; 0 or VDR_MEM_*. */
static int vdr_mr_check_locked(const struct vdr_mr *mr, struct vdr_pd *pd,
			       u32 key, u32 access, u64 addr, u64 len)
{
	if (mr->dead || mr->key != key)
		return VDR_MEM_ENOKEY;
	if (mr->pd != pd)
		return VDR_MEM_EPD;
	if (!mr->valid)
		return VDR_MEM_EINVALID;
	if ((mr->access & access) != access)
		return VDR_MEM_EACCESS;
	if (!vdr_mr_in_bounds(mr, addr, len))
		return VDR_MEM_ERANGE;
	return 0;
}

/*
 * DMA address of @addr inside @mr and the number of bytes (at most @len)
 * that are contiguous from there.  @addr is within the MR.
 */
static u64 vdr_mr_dma(const struct vdr_mr *mr, u64 addr, u32 *len)
{
	u64 page_size, off, in_page;

	if (mr->kind == VDR_MR_DMA)
		return addr;

	page_size = 1ULL << mr->page_shift;
	off = (addr - mr->iova) + (mr->iova & (page_size - 1));
	in_page = off & (page_size - 1);
	*len = min_t(u64, *len, page_size - in_page);
	return mr->pages[off >> mr->page_shift] + in_page;
}

/**
 * vdr_mr_copy - copy between a buffer and checked MR memory
 * @dev: the device
 * @mr: a locked MR that passed the key checks for this range
 * @addr: I/O virtual address in @mr
 * @buf: kernel buffer
 * @len: bytes to copy
 * @dir: direction
 *
 * Return: 0, or VDR_MEM_EFAULT when the IOTLB does not map a page.
 */
int vdr_mr_copy(struct vdr_dev *dev, struct vdr_mr *mr, u64 addr,
		void *buf, u32 len, enum vdr_copy_dir dir)
{
	u32 perm = dir == VDR_TO_MEM ? VHOST_MAP_WO : VHOST_MAP_RO;
	unsigned int offset;
	struct page *page;
	size_t chunk;
	u32 seg;
	u64 dma;
	void *va;
	int ret = 0;

	lockdep_assert_held_read(&mr->lock);
	read_lock(&dev->iotlb_rw);
	while (len) {
		seg = len;
		dma = vdr_mr_dma(mr, addr, &seg);
		while (seg) {
			chunk = seg;
			page = vdr_translate(dev, dma, perm, &chunk, &offset);
			if (!page) {
				ret = VDR_MEM_EFAULT;
				goto out;
			}
			va = kmap_local_page(page);
			if (dir == VDR_TO_MEM)
				memcpy(va + offset, buf, chunk);
			else
				memcpy(buf, va + offset, chunk);
			kunmap_local(va);
			buf += chunk;
			dma += chunk;
			addr += chunk;
			len -= chunk;
			seg -= chunk;
		}
	}
out:
	read_unlock(&dev->iotlb_rw);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_mr_copy);

/**
 * vdr_mr_atomic - 8-byte atomic operation on checked MR memory
 * @dev: the device
 * @mr: a locked MR that passed the key checks for 8 bytes at @addr
 * @addr: 8-byte aligned I/O virtual address
 * @op: compare-and-swap or fetch-and-add
 * @compare_add: value to compare (CMP_SWP) or to add (FETCH_ADD)
 * @swap: value to store when the comparison succeeds (CMP_SWP)
 * @orig: the value before the operation
 *
 * The operation is atomic against every other access through the CPU's
 * atomic instructions, so also against atomics from other devices.
 *
 * Return: 0, -EINVAL for a misaligned address, or VDR_MEM_EFAULT.
 */
int vdr_mr_atomic(struct vdr_dev *dev, struct vdr_mr *mr, u64 addr,
		  enum vdr_atomic_op op, u64 compare_add, u64 swap,
		  u64 *orig)
{
	unsigned int offset;
	struct page *page;
	size_t chunk = sizeof(u64);
	u32 seg = sizeof(u64);
	u64 dma, old;
	u64 *p;
	void *va;

	lockdep_assert_held_read(&mr->lock);
	if (addr & (sizeof(u64) - 1))
		return -EINVAL;
	dma = vdr_mr_dma(mr, addr, &seg);
	/* MR pages are at least 4 KiB: an aligned u64 never straddles. */
	if (seg != sizeof(u64) || (dma & (sizeof(u64) - 1)))
		return -EINVAL;

	read_lock(&dev->iotlb_rw);
	page = vdr_translate(dev, dma, VHOST_MAP_RW, &chunk, &offset);
	if (!page || chunk != sizeof(u64)) {
		read_unlock(&dev->iotlb_rw);
		return VDR_MEM_EFAULT;
	}
	va = kmap_local_page(page);
	p = va + offset;
	/*
	 * One instruction each, never a retry loop: the word is in memory
	 * its owner may rewrite as fast as it likes, and a loop would keep
	 * this CPU under iotlb_rw for as long as it does.
	 */
	if (op == VDR_ATOMIC_CMP_SWP)
		old = cmpxchg64(p, compare_add, swap);
	else
		old = atomic64_fetch_add(compare_add, (atomic64_t *)p);
	kunmap_local(va);
	read_unlock(&dev->iotlb_rw);
	*orig = old;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_mr_atomic);

/*
 * The window checks (spec "Memory windows") on a locked window: its key,
 * PD and state, the QP of a type 2 window, its rights and its range.
 * Only remote accesses (@rqp set) may name a window: it has no lkey.
 */
static int vdr_mw_check_locked(const struct vdr_mr *w, struct vdr_pd *pd,
			       const struct vdr_qp *rqp, u32 key, u32 access,
			       u64 addr, u64 len)
{
	if (w->dead || w->key != key || !rqp)
		return VDR_MEM_ENOKEY;
	if (w->pd != pd)
		return VDR_MEM_EPD;
	if (!w->valid)
		return VDR_MEM_EINVALID;
	if (w->kind == VDR_MW_TYPE2 && w->mw_qp_serial != rqp->serial)
		return VDR_MEM_EPD;
	if ((w->access & access) != access)
		return VDR_MEM_EACCESS;
	if (!vdr_mr_in_bounds(w, addr, len))
		return VDR_MEM_ERANGE;
	return 0;
}

/*
 * The checks on the MR behind a window, at the MR address @addr: it is
 * still the registration the window was bound to and still valid (a fast
 * registration MR may have been invalidated since), and still holds the
 * range.  Its own remote rights do not matter; the window's do.
 */
static int vdr_mw_mr_check_locked(const struct vdr_mr *mr,
				  const struct vdr_mr *w, u32 access,
				  u64 addr, u64 len)
{
	if (mr->dead || mr->key != w->mw_mr_key)
		return VDR_MEM_ENOKEY;
	if (!mr->valid)
		return VDR_MEM_EINVALID;
	if ((access & (VIRTIO_RDMA_ACCESS_REMOTE_WRITE |
		       VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & VIRTIO_RDMA_ACCESS_LOCAL_WRITE))
		return VDR_MEM_EACCESS;
	if (!vdr_mr_in_bounds(mr, addr, len))
		return VDR_MEM_ERANGE;
	return 0;
}

/* What to do with checked memory: nothing, a copy or an atomic. */
struct vdr_key_op {
	enum { VDR_KEY_CHECK, VDR_KEY_COPY, VDR_KEY_ATOMIC } what;
	void *buf;			/* COPY */
	enum vdr_copy_dir dir;
	enum vdr_atomic_op aop;		/* ATOMIC */
	u64 compare_add;
	u64 swap;
	u64 *orig;
};

static int vdr_key_op_run(struct vdr_dev *dev, struct vdr_mr *mr, u64 addr,
			  u32 len, const struct vdr_key_op *op)
{
	switch (op->what) {
	case VDR_KEY_COPY:
		return vdr_mr_copy(dev, mr, addr, op->buf, len, op->dir);
	case VDR_KEY_ATOMIC:
		return vdr_mr_atomic(dev, mr, addr, op->aop, op->compare_add,
				     op->swap, op->orig);
	default:
		return 0;
	}
}

/*
 * An access through a window: the window's lock, then the MR's, held from
 * the checks to the end of the operation, so that an invalidation, unbind
 * or DEALLOC_MW (window lock) and a DEREG_MR (MR lock) are seen entirely or
 * not at all.  Windows are always locked before MRs.
 */
static int vdr_mw_access(struct vdr_dev *dev, struct vdr_mr *w,
			 struct vdr_pd *pd, const struct vdr_qp *rqp, u32 key,
			 u32 access, u64 addr, u64 len,
			 const struct vdr_key_op *op)
{
	struct vdr_mr *mr;
	u64 mr_addr;
	int err;

	read_lock(&w->lock);
	err = vdr_mw_check_locked(w, pd, rqp, key, access, addr, len);
	if (err)
		goto out;
	mr_addr = w->mw_mr_addr + (addr - w->iova);
	mr = vdr_key_lookup(dev, w->mw_mr_key);
	err = VDR_MEM_EINVALID;
	if (mr) {
		read_lock(&mr->lock);
		err = vdr_mw_mr_check_locked(mr, w, access, mr_addr, len);
		if (!err)
			err = vdr_key_op_run(dev, mr, mr_addr, len, op);
		read_unlock(&mr->lock);
	}
out:
	read_unlock(&w->lock);
	return err;
}

/*
 * Where offset @off of an indirect memory key lies: the entry, the MR
 * address there and the bytes of the chunk from there (at most @left).
 * @off is below mk->repeat * mk->unit.
 */
static const struct vdr_mkey_entry *
vdr_mkey_locate(const struct vdr_mr *mk, u64 off, u64 left, u64 *mr_addr,
		u32 *chunk)
{
	const struct vdr_mkey_entry *e;
	u64 r, w;
	u32 i;

	r = div64_u64_rem(off, mk->unit, &w);
	for (i = 0; i < mk->nr_entries; i++) {
		e = &mk->entries[i];
		if (w < e->count) {
			/* CONFIGURE checked that this lies in the MR. */
			*mr_addr = e->addr + r * ((u64)e->count + e->skip) + w;
			*chunk = min_t(u64, left, e->count - w);
			return e;
		}
		w -= e->count;
	}
	return NULL;
}

/*
 * The checks on an MR behind an indirect memory key, at the MR address
 * @addr: still an MR of the key's PD under the entry's key, valid, holding
 * the chunk, and writable when the access writes.  Its own remote rights do
 * not matter; the key's do.
 */
static int vdr_mkey_mr_check_locked(const struct vdr_mr *mr,
				    const struct vdr_mr *mk, u32 lkey,
				    u32 access, u64 addr, u64 len)
{
	if (mr->dead || mr->key != lkey)
		return VDR_MEM_ENOKEY;
	if (mr->pd != mk->pd)
		return VDR_MEM_EPD;
	if (!mr->valid)
		return VDR_MEM_EINVALID;
	if ((access & ~VIRTIO_RDMA_ACCESS_REMOTE_READ) &&
	    !(mr->access & VIRTIO_RDMA_ACCESS_LOCAL_WRITE))
		return VDR_MEM_EACCESS;
	if (!vdr_mr_in_bounds(mr, addr, len))
		return VDR_MEM_ERANGE;
	return 0;
}

/*
 * An access through an indirect memory key: the key's checks (as an MR's:
 * its rights and its zero-based range), then chunk by chunk the MR behind
 * each piece under its lock, nested in the key's.  A check alone stops at
 * the key: the chunks' MRs are checked when they are accessed, so that a
 * check of a long range costs nothing per chunk.  An atomic needs its 8
 * bytes in one chunk.
 */
static int vdr_mkey_access(struct vdr_dev *dev, struct vdr_mr *mk,
			   struct vdr_pd *pd, u32 key, u32 access, u64 addr,
			   u64 len, const struct vdr_key_op *op)
{
	const struct vdr_mkey_entry *e;
	struct vdr_key_op piece = *op;
	struct vdr_mr *mr;
	u64 mr_addr;
	u32 chunk;
	int err;

	read_lock(&mk->lock);
	err = vdr_mr_check_locked(mk, pd, key, access, addr, len);
	if (err || op->what == VDR_KEY_CHECK)
		goto out;
	while (len) {
		e = vdr_mkey_locate(mk, addr, len, &mr_addr, &chunk);
		err = VDR_MEM_ERANGE;
		if (!e || (op->what == VDR_KEY_ATOMIC && chunk != len))
			break;
		mr = vdr_key_lookup(dev, e->lkey);
		err = VDR_MEM_ENOKEY;
		if (!mr || mr->kind == VDR_MKEY || vdr_key_is_mw(mr->kind))
			break;
		read_lock(&mr->lock);
		err = vdr_mkey_mr_check_locked(mr, mk, e->lkey, access,
					       mr_addr, chunk);
		if (!err)
			err = vdr_key_op_run(dev, mr, mr_addr, chunk, &piece);
		read_unlock(&mr->lock);
		if (err)
			break;
		if (op->what == VDR_KEY_COPY)
			piece.buf += chunk;
		addr += chunk;
		len -= chunk;
	}
out:
	read_unlock(&mk->lock);
	return err;
}

/* The key checks for an access, then @op on the memory, under RCU. */
static int vdr_key_access(struct vdr_dev *dev, struct vdr_pd *pd,
			  const struct vdr_qp *rqp, u32 key, u32 access,
			  u64 addr, u64 len, const struct vdr_key_op *op)
{
	struct vdr_mr *mr;
	int err = VDR_MEM_ENOKEY;

	rcu_read_lock();
	mr = vdr_key_lookup(dev, key);
	if (mr && vdr_key_is_mw(mr->kind)) {
		err = vdr_mw_access(dev, mr, pd, rqp, key, access, addr, len,
				    op);
	} else if (mr && mr->kind == VDR_MKEY) {
		err = vdr_mkey_access(dev, mr, pd, key, access, addr, len, op);
	} else if (mr) {
		read_lock(&mr->lock);
		err = vdr_mr_check_locked(mr, pd, key, access, addr, len);
		if (!err)
			err = vdr_key_op_run(dev, mr, addr, len, op);
		read_unlock(&mr->lock);
	}
	rcu_read_unlock();
	return err;
}

/**
 * vdr_mr_check - the key checks for one access
 * @dev: the device
 * @pd: the PD of the QP making the access
 * @rqp: the QP a remote access arrived on; NULL for a local one
 * @key: lkey or rkey from the work request or packet (untrusted)
 * @access: VIRTIO_RDMA_ACCESS_* rights needed, 0 for a local read
 * @addr: first I/O virtual address accessed
 * @len: number of bytes accessed
 *
 * Return: 0, or a VDR_MEM_* error naming the first check that failed.
 */
int vdr_mr_check(struct vdr_dev *dev, struct vdr_pd *pd,
		 const struct vdr_qp *rqp, u32 key, u32 access, u64 addr,
		 u64 len)
{
	const struct vdr_key_op op = { .what = VDR_KEY_CHECK };

	return vdr_key_access(dev, pd, rqp, key, access, addr, len, &op);
}
EXPORT_SYMBOL_IF_KUNIT(vdr_mr_check);

/**
 * vdr_mr_rw - key checks, then a copy between a buffer and MR memory
 * @dev: the device
 * @pd: the PD of the QP making the access
 * @rqp: the QP a remote access arrived on; NULL for a local one
 * @key: lkey or rkey (untrusted)
 * @access: rights needed (VIRTIO_RDMA_ACCESS_*, 0 for a local read)
 * @addr: I/O virtual address
 * @buf: kernel buffer
 * @len: bytes to copy
 * @dir: direction
 *
 * Return: 0 or a VDR_MEM_* error.
 */
int vdr_mr_rw(struct vdr_dev *dev, struct vdr_pd *pd,
	      const struct vdr_qp *rqp, u32 key, u32 access, u64 addr,
	      void *buf, u32 len, enum vdr_copy_dir dir)
{
	const struct vdr_key_op op = {
		.what = VDR_KEY_COPY, .buf = buf, .dir = dir,
	};

	return vdr_key_access(dev, pd, rqp, key, access, addr, len, &op);
}
EXPORT_SYMBOL_IF_KUNIT(vdr_mr_rw);

/**
 * vdr_mr_remote_atomic - key checks, then an atomic on 8 bytes of an MR
 * @dev: the device
 * @pd: the responder QP's PD
 * @rqp: the responder QP
 * @rkey: from the AtomicETH (untrusted)
 * @addr: from the AtomicETH
 * @op: compare-and-swap or fetch-and-add
 * @compare_add: as for vdr_mr_atomic()
 * @swap: as for vdr_mr_atomic()
 * @orig: the value before the operation
 *
 * Return: 0, a VDR_MEM_* error, or -EINVAL for a misaligned address.
 */
int vdr_mr_remote_atomic(struct vdr_dev *dev, struct vdr_pd *pd,
			 const struct vdr_qp *rqp, u32 rkey, u64 addr,
			 enum vdr_atomic_op op, u64 compare_add, u64 swap,
			 u64 *orig)
{
	const struct vdr_key_op kop = {
		.what = VDR_KEY_ATOMIC, .aop = op, .compare_add = compare_add,
		.swap = swap, .orig = orig,
	};

	return vdr_key_access(dev, pd, rqp, rkey,
			      VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC, addr,
			      sizeof(u64), &kop);
}
EXPORT_SYMBOL_IF_KUNIT(vdr_mr_remote_atomic);

static u32 vdr_sge_len(const struct virtio_rdma_sge *sge)
{
	return le32_to_cpu(READ_ONCE(sge->length));
}

/**
 * vdr_sgl_check - key checks for every SGE of a work request
 * @dev: the device
 * @pd: the QP's PD
 * @sge: SGEs as the driver wrote them (a private copy: they are read once)
 * @num: number of SGEs, already checked against the QP's limit
 * @access: rights every SGE needs (LOCAL_WRITE for receive buffers)
 * @total: set to the sum of the SGE lengths
 *
 * SGEs of length 0 are skipped, as the spec says for receive WQEs and IB
 * for every SGE.
 *
 * Return: 0 or a VDR_MEM_* error (-EOVERFLOW when the total exceeds the
 * maximum message size).
 */
int vdr_sgl_check(struct vdr_dev *dev, struct vdr_pd *pd,
		  const struct virtio_rdma_sge *sge, u32 num, u32 access,
		  u64 *total)
{
	u64 sum = 0;
	u32 i, len;
	int err;

	for (i = 0; i < num; i++) {
		len = vdr_sge_len(&sge[i]);
		if (!len)
			continue;
		err = vdr_mr_check(dev, pd, NULL, le32_to_cpu(sge[i].lkey),
				   access, le64_to_cpu(sge[i].addr), len);
		if (err)
			return err;
		sum += len;
	}
	if (sum > VDR_MAX_MSG_SZ)
		return -EOVERFLOW;
	*total = sum;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_sgl_check);

/**
 * vdr_sgl_copy - copy between a buffer and a part of an SGE list
 * @dev: the device
 * @pd: the QP's PD
 * @sge: the SGE list (private copy)
 * @num: number of SGEs
 * @access: rights needed, as for vdr_sgl_check()
 * @offset: byte offset into the data the SGE list describes
 * @buf: kernel buffer
 * @len: bytes to copy
 * @dir: direction
 *
 * Every MR is looked up and checked again: a command may have deregistered
 * it since the work request started (multi-packet messages span several
 * runs of the QP's work).
 *
 * Return: 0, a VDR_MEM_* error, or -EMSGSIZE when the SGEs are too short.
 */
int vdr_sgl_copy(struct vdr_dev *dev, struct vdr_pd *pd,
		 const struct virtio_rdma_sge *sge, u32 num, u32 access,
		 u64 offset, void *buf, u32 len, enum vdr_copy_dir dir)
{
	u32 i, sl, n;
	u64 addr;
	int err;

	for (i = 0; i < num && len; i++) {
		sl = vdr_sge_len(&sge[i]);
		if (offset >= sl) {
			offset -= sl;
			continue;
		}
		addr = le64_to_cpu(sge[i].addr) + offset;
		n = min_t(u64, sl - offset, len);
		err = vdr_mr_rw(dev, pd, NULL, le32_to_cpu(sge[i].lkey),
				access, addr, buf, n, dir);
		if (err)
			return err;
		buf += n;
		len -= n;
		offset = 0;
	}
	return len ? -EMSGSIZE : 0;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_sgl_copy);

/*
 * Reads the page list (allocated for max_pages by ALLOC_MR) and makes the
 * MR valid; on failure it stays invalid.  Caller holds mr->lock.
 */
static int vdr_mr_fast_reg_locked(struct vdr_dev *dev, struct vdr_mr *mr,
				  u32 key, u32 access, u64 iova, u64 length,
				  u32 page_shift, u32 npages)
{
	u32 i;

	if (vdr_mem_read(dev, mr->page_list_addr, mr->pages,
			 (size_t)npages * sizeof(*mr->pages)))
		return -EFAULT;
	for (i = 0; i < npages; i++) {
		mr->pages[i] = le64_to_cpu((__force __le64)mr->pages[i]);
		if (mr->pages[i] & ((1ULL << page_shift) - 1))
			return -EINVAL;
	}
	mr->key = key;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->page_shift = page_shift;
	mr->valid = true;
	return 0;
}

/**
 * vdr_mr_fast_reg - execute a REG_MR work request
 * @dev: the device
 * @pd: the QP's PD
 * @wr: the reg_mr part of the WQE (private copy)
 *
 * Return: 0, or -EINVAL (the WQE completes with LOC_QP_OP_ERR) or -EFAULT
 * (page list unreadable).
 */
int vdr_mr_fast_reg(struct vdr_dev *dev, struct vdr_pd *pd,
		    const struct virtio_rdma_wqe_reg_mr *wr)
{
	u32 key = le32_to_cpu(wr->key);
	u32 access = le32_to_cpu(wr->access_flags);
	u32 page_shift = le32_to_cpu(wr->page_shift);
	u32 npages = le32_to_cpu(wr->npages);
	u64 iova = le64_to_cpu(wr->iova);
	u64 length = le64_to_cpu(wr->length);
	struct vdr_mr *mr;
	int ret = -EINVAL;
	u64 off;

	if (vdr_check_access(dev, access, true))
		return -EINVAL;
	if (page_shift >= 64 || !(VDR_PAGE_SIZE_CAP & BIT_ULL(page_shift)))
		return -EINVAL;
	if (!length || length > VDR_MAX_MR_SIZE || iova + length - 1 < iova)
		return -EINVAL;
	off = iova & ((1ULL << page_shift) - 1);
	if (!npages ||
	    npages != DIV_ROUND_UP_ULL(off + length, 1ULL << page_shift))
		return -EINVAL;

	rcu_read_lock();
	mr = vdr_key_lookup(dev, key);
	if (mr) {
		write_lock(&mr->lock);
		if (!mr->dead && mr->kind == VDR_MR_FAST && mr->pd == pd &&
		    !mr->valid && npages <= mr->max_pages)
			ret = vdr_mr_fast_reg_locked(dev, mr, key, access, iova,
						     length, page_shift,
						     npages);
		write_unlock(&mr->lock);
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_mr_fast_reg);

/**
 * vdr_mr_invalidate - LOCAL_INV or an incoming SEND_WITH_INV
 * @dev: the device
 * @pd: the QP's PD
 * @rqp: for SEND_WITH_INV the QP it arrived on; NULL for LOCAL_INV
 * @key: the full current key of an MR or a window
 *
 * Return: 0, or -EINVAL when @key names no valid fast-registration MR of
 * @pd, nor a type 2 window of @pd bound (for @rqp), nor (for LOCAL_INV) a
 * configured indirect memory key of @pd.
 */
int vdr_mr_invalidate(struct vdr_dev *dev, struct vdr_pd *pd,
		      const struct vdr_qp *rqp, u32 key)
{
	struct vdr_mr *mr;
	int ret = -EINVAL;

	rcu_read_lock();
	mr = vdr_key_lookup(dev, key);
	if (mr) {
		write_lock(&mr->lock);
		if (vdr_key_is_mw(mr->kind)) {
			ret = vdr_mw_invalidate_locked(dev, mr, pd, rqp, key);
		} else if (mr->kind == VDR_MKEY) {
			/* No remote invalidation of an indirect key (spec). */
			if (!rqp && !mr->dead && mr->key == key &&
			    mr->pd == pd && mr->valid) {
				vdr_mkey_clear_locked(mr);
				ret = 0;
			}
		} else if (!mr->dead && mr->kind == VDR_MR_FAST &&
			   mr->key == key && mr->pd == pd && mr->valid) {
			mr->valid = false;
			ret = 0;
		}
		write_unlock(&mr->lock);
	}
	rcu_read_unlock();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_mr_invalidate);
