// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * The device's data memory access (drivers/vdpa/vdpa_rdma/vdr_mem.c): the key
 * checks in the order the spec gives them, I/O virtual address translation
 * through page-list MRs (pages deliberately out of order, accesses crossing
 * page boundaries), SGE lists with offsets and empty SGEs, 8-byte atomics,
 * the fast-registration state machine (REG_MR, LOCAL_INV, stale keys), and
 * memory windows (vdr_mw.c): the bind rules of both types, accesses through
 * a window (its QP, rights and range, zero-based addressing, the MR behind
 * it), invalidation, unbinding and rebinding under a new key, and indirect
 * memory keys (vdr_mkey.c): list and interleaved layouts resolved byte for
 * byte, repeat counts, bounds at every edge, the configuration rules.
 * The device here is a bare struct with an identity IOTLB, as when bound to
 * virtio_vdpa.  Test bodies use EXPECT only: the helpers that take an MR's
 * lock, as the data path does, must reach the unlock.
 */
#include <kunit/test.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"
#include "vdr_xport.h"

#define IOVA		0x10800ULL	/* 2 KiB into its first 4 KiB page */
#define MR_LEN		4096ULL
#define KEY(idx, b)	((u32)(idx) << VIRTIO_RDMA_KEY_INDEX_SHIFT | (b))

struct env {
	struct vdr_dev *dev;
	struct vdr_pd pd, pd2;
	struct page *pg[3];		/* data pages, page-list page */
	u64 pages[2];
	struct vdr_mr user, dma, fast;
	struct vdr_mr mw1, mw2;		/* type 1 and type 2 windows */
	struct vdr_mr mk;		/* an indirect memory key */
	struct vdr_qp *qa, *qb, *qc;	/* QPs of pd, pd, pd2 */
};

static u64 phys(struct page *p)
{
	return page_to_phys(p);
}

static int env_init(struct kunit *test)
{
	struct env *e;
	int i;

	e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e);
	test->priv = e;
	e->dev = kunit_kzalloc(test, sizeof(*e->dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->dev);
	spin_lock_init(&e->dev->iotlb_lock);
	rwlock_init(&e->dev->iotlb_rw);
	vhost_iotlb_init(&e->dev->iotlb, 16, 0);
	KUNIT_ASSERT_EQ(test, vhost_iotlb_add_range(&e->dev->iotlb, 0,
						    ULONG_MAX, 0,
						    VHOST_MAP_RW), 0);
	xa_init(&e->dev->mrs);
	e->dev->features = BIT_ULL(VIRTIO_RDMA_F_ATOMIC) |
			   BIT_ULL(VIRTIO_RDMA_F_MW);

	for (i = 0; i < 3; i++) {
		e->pg[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, e->pg[i]);
	}
	/* The MR's first page is pg[1], its second pg[0]. */
	e->pages[0] = phys(e->pg[1]);
	e->pages[1] = phys(e->pg[0]);

	e->user = (struct vdr_mr) {
		.index = 1, .key = KEY(1, 0x11), .kind = VDR_MR_USER,
		.valid = true, .access = VIRTIO_RDMA_ACCESS_LOCAL_WRITE |
					  VIRTIO_RDMA_ACCESS_REMOTE_WRITE |
					  VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC |
					  VIRTIO_RDMA_ACCESS_MW_BIND,
		.pd = &e->pd, .iova = IOVA, .length = MR_LEN,
		.page_shift = PAGE_SHIFT, .pages = e->pages,
	};
	e->dma = (struct vdr_mr) {
		.index = 2, .key = KEY(2, 0x22), .kind = VDR_MR_DMA,
		.valid = true, .access = VIRTIO_RDMA_ACCESS_LOCAL_WRITE,
		.pd = &e->pd, .iova = 0, .length = U64_MAX,
	};
	e->fast = (struct vdr_mr) {
		.index = 3, .key = KEY(3, 0), .kind = VDR_MR_FAST,
		.valid = false, .pd = &e->pd, .max_pages = 4,
		.page_list_addr = phys(e->pg[2]),
	};
	/* As ALLOC_MR does: REG_MR fills the page list in place. */
	e->fast.pages = kvcalloc(4, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->fast.pages);
	rwlock_init(&e->user.lock);
	rwlock_init(&e->dma.lock);
	rwlock_init(&e->fast.lock);
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&e->dev->mrs, 1, &e->user,
					      GFP_KERNEL)), 0);
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&e->dev->mrs, 2, &e->dma,
					      GFP_KERNEL)), 0);
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&e->dev->mrs, 3, &e->fast,
					      GFP_KERNEL)), 0);

	/* Windows as ALLOC_MW leaves them: type 1 unbound, type 2 free. */
	e->mw1 = (struct vdr_mr) {
		.index = 4, .key = KEY(4, 0x40), .kind = VDR_MW_TYPE1,
		.pd = &e->pd,
	};
	e->mw2 = (struct vdr_mr) {
		.index = 5, .key = KEY(5, 0x50), .kind = VDR_MW_TYPE2,
		.pd = &e->pd,
	};
	rwlock_init(&e->mw1.lock);
	rwlock_init(&e->mw2.lock);
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&e->dev->mrs, 4, &e->mw1,
					      GFP_KERNEL)), 0);
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&e->dev->mrs, 5, &e->mw2,
					      GFP_KERNEL)), 0);
	/* As CREATE_MKEY leaves it: no layout, no rights. */
	e->mk = (struct vdr_mr) {
		.index = 6, .key = KEY(6, 0x60), .kind = VDR_MKEY,
		.pd = &e->pd, .max_entries = VDR_MAX_MKEY_ENTRIES,
	};
	e->mk.entries = kunit_kcalloc(test, VDR_MAX_MKEY_ENTRIES,
				      sizeof(*e->mk.entries), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->mk.entries);
	rwlock_init(&e->mk.lock);
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&e->dev->mrs, 6, &e->mk,
					      GFP_KERNEL)), 0);
	e->qa = kunit_kzalloc(test, sizeof(*e->qa), GFP_KERNEL);
	e->qb = kunit_kzalloc(test, sizeof(*e->qb), GFP_KERNEL);
	e->qc = kunit_kzalloc(test, sizeof(*e->qc), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, e->qa && e->qb && e->qc);
	*e->qa = (struct vdr_qp) { .pd = &e->pd, .serial = 1 };
	*e->qb = (struct vdr_qp) { .pd = &e->pd, .serial = 2 };
	*e->qc = (struct vdr_qp) { .pd = &e->pd2, .serial = 3 };
	return 0;
}

static void env_exit(struct kunit *test)
{
	struct env *e = test->priv;
	int i;

	if (!e || !e->dev)
		return;
	kvfree(e->fast.pages);
	xa_destroy(&e->dev->mrs);
	vhost_iotlb_reset(&e->dev->iotlb);
	for (i = 0; i < 3; i++)
		if (e->pg[i])
			__free_page(e->pg[i]);
}

static int check(struct env *e, struct vdr_pd *pd, u32 key, u32 access,
		 u64 addr, u64 len)
{
	return vdr_mr_check(e->dev, pd, NULL, key, access, addr, len);
}

/* vdr_mr_copy() and vdr_mr_atomic() run under the MR's lock. */
static int copy(struct env *e, struct vdr_mr *mr, u64 addr, void *buf,
		u32 len, enum vdr_copy_dir dir)
{
	int ret;

	read_lock(&mr->lock);
	ret = vdr_mr_copy(e->dev, mr, addr, buf, len, dir);
	read_unlock(&mr->lock);
	return ret;
}

static int atomic_op(struct env *e, u64 addr, enum vdr_atomic_op op,
		     u64 compare_add, u64 swap, u64 *orig)
{
	int ret;

	read_lock(&e->user.lock);
	ret = vdr_mr_atomic(e->dev, &e->user, addr, op, compare_add, swap,
			    orig);
	read_unlock(&e->user.lock);
	return ret;
}

static void key_checks(struct kunit *test)
{
	struct env *e = test->priv;
	u32 lw = VIRTIO_RDMA_ACCESS_LOCAL_WRITE;

	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x11), lw, IOVA, MR_LEN),
			0);
	/* Empty and out-of-range indices, stale key byte. */
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(9, 0x11), 0, IOVA, 1),
			VDR_MEM_ENOKEY);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, 0xffffffff, 0, IOVA, 1),
			VDR_MEM_ENOKEY);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x12), 0, IOVA, 1),
			VDR_MEM_ENOKEY);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd2, KEY(1, 0x11), 0, IOVA, 1),
			VDR_MEM_EPD);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x11),
				    VIRTIO_RDMA_ACCESS_REMOTE_READ, IOVA, 1),
			VDR_MEM_EACCESS);
	/* Bounds: before, after, straddling the end, wrapping. */
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x11), 0, IOVA - 1, 1),
			VDR_MEM_ERANGE);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x11), 0, IOVA + MR_LEN,
				    1), VDR_MEM_ERANGE);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x11), 0,
				    IOVA + MR_LEN - 8, 9), VDR_MEM_ERANGE);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x11), 0, IOVA + 8,
				    U64_MAX - 4), VDR_MEM_ERANGE);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x11), 0,
				    IOVA + MR_LEN, 0), 0);
	/* A free fast-registration MR. */
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(3, 0), 0, 0, 1),
			VDR_MEM_EINVALID);
	/* A DMA MR covers every address. */
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(2, 0x22), lw, U64_MAX - 8,
				    8), 0);
}

static void copy_crosses_pages(struct kunit *test)
{
	struct env *e = test->priv;
	u8 out[256], in[256];
	u8 *p0, *p1;
	int i;

	for (i = 0; i < sizeof(out); i++)
		out[i] = i ^ 0x5a;
	/* IOVA + 0x780 is 0xf80 into the MR's first page (pg[1]). */
	KUNIT_EXPECT_EQ(test, copy(e, &e->user, IOVA + 0x780,
				   out, sizeof(out), VDR_TO_MEM), 0);
	p0 = page_address(e->pg[0]);
	p1 = page_address(e->pg[1]);
	KUNIT_EXPECT_MEMEQ(test, p1 + 0xf80, out, 128);
	KUNIT_EXPECT_MEMEQ(test, p0, out + 128, 128);
	memset(in, 0, sizeof(in));
	KUNIT_EXPECT_EQ(test, copy(e, &e->user, IOVA + 0x780,
				   in, sizeof(in), VDR_FROM_MEM), 0);
	KUNIT_EXPECT_MEMEQ(test, in, out, sizeof(out));

	/* The same bytes through the DMA MR. */
	memset(in, 0, sizeof(in));
	KUNIT_EXPECT_EQ(test, copy(e, &e->dma,
				   phys(e->pg[1]) + 0xf80, in, 128,
				   VDR_FROM_MEM), 0);
	KUNIT_EXPECT_MEMEQ(test, in, out, 128);
}

static void set_sge(struct virtio_rdma_sge *s, u64 addr, u32 len, u32 key)
{
	s->addr = cpu_to_le64(addr);
	s->length = cpu_to_le32(len);
	s->lkey = cpu_to_le32(key);
}

static void sge_lists(struct kunit *test)
{
	struct env *e = test->priv;
	u32 lw = VIRTIO_RDMA_ACCESS_LOCAL_WRITE;
	struct virtio_rdma_sge sge[3];
	u8 buf[100], back[100];
	u64 total = 0;
	int i;

	set_sge(&sge[0], IOVA, 10, KEY(1, 0x11));
	set_sge(&sge[1], 0, 0, 0xdeadbeef);	/* empty: never checked */
	set_sge(&sge[2], IOVA + 0x800, 90, KEY(1, 0x11));
	KUNIT_EXPECT_EQ(test, vdr_sgl_check(e->dev, &e->pd, sge, 3, lw,
					    &total), 0);
	KUNIT_EXPECT_EQ(test, total, 100);

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = i;
	/* 95 bytes from offset 5: 5 into SGE 0, 90 into SGE 2. */
	KUNIT_EXPECT_EQ(test, vdr_sgl_copy(e->dev, &e->pd, sge, 3, lw, 5,
					   buf, 95, VDR_TO_MEM), 0);
	KUNIT_EXPECT_MEMEQ(test, (u8 *)page_address(e->pg[1]) + 0x805, buf, 5);
	KUNIT_EXPECT_MEMEQ(test, page_address(e->pg[0]),
			   buf + 5, 90);
	KUNIT_EXPECT_EQ(test, vdr_sgl_copy(e->dev, &e->pd, sge, 3, 0, 5,
					   back, 95, VDR_FROM_MEM), 0);
	KUNIT_EXPECT_MEMEQ(test, back, buf, 95);

	/* Past the end of the list, and a bad key on the way. */
	KUNIT_EXPECT_EQ(test, vdr_sgl_copy(e->dev, &e->pd, sge, 3, lw, 5,
					   buf, 96, VDR_TO_MEM), -EMSGSIZE);
	set_sge(&sge[2], IOVA + 0x800, 90, KEY(1, 0x10));
	KUNIT_EXPECT_EQ(test, vdr_sgl_check(e->dev, &e->pd, sge, 3, lw,
					    &total), VDR_MEM_ENOKEY);
	KUNIT_EXPECT_EQ(test, vdr_sgl_copy(e->dev, &e->pd, sge, 3, lw, 0,
					   buf, 20, VDR_TO_MEM),
			VDR_MEM_ENOKEY);
}

static void atomics(struct kunit *test)
{
	struct env *e = test->priv;
	u64 *word = page_address(e->pg[1]) + 0x808;	/* IOVA + 8 */
	u64 orig = 0;

	*word = 100;
	KUNIT_EXPECT_EQ(test, atomic_op(e, IOVA + 8,
					VDR_ATOMIC_FETCH_ADD, 5, 0,
					&orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 100);
	KUNIT_EXPECT_EQ(test, *word, 105);
	/* Compare fails: unchanged, original returned. */
	KUNIT_EXPECT_EQ(test, atomic_op(e, IOVA + 8,
					VDR_ATOMIC_CMP_SWP, 1, 7,
					&orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 105);
	KUNIT_EXPECT_EQ(test, *word, 105);
	KUNIT_EXPECT_EQ(test, atomic_op(e, IOVA + 8,
					VDR_ATOMIC_CMP_SWP, 105, 7,
					&orig), 0);
	KUNIT_EXPECT_EQ(test, orig, 105);
	KUNIT_EXPECT_EQ(test, *word, 7);
	KUNIT_EXPECT_EQ(test, atomic_op(e, IOVA + 4,
					VDR_ATOMIC_FETCH_ADD, 1, 0,
					&orig), -EINVAL);
}

static void reg_wr(struct virtio_rdma_wqe_reg_mr *w, u32 key, u64 iova,
		   u64 len, u32 npages)
{
	memset(w, 0, sizeof(*w));
	w->key = cpu_to_le32(key);
	w->access_flags = cpu_to_le32(VIRTIO_RDMA_ACCESS_LOCAL_WRITE |
				      VIRTIO_RDMA_ACCESS_REMOTE_READ);
	w->iova = cpu_to_le64(iova);
	w->length = cpu_to_le64(len);
	w->page_shift = cpu_to_le32(PAGE_SHIFT);
	w->npages = cpu_to_le32(npages);
}

static void fast_registration(struct kunit *test)
{
	struct env *e = test->priv;
	__le64 *pl = page_address(e->pg[2]);
	struct virtio_rdma_wqe_reg_mr w;
	u32 key = KEY(3, 0x77);
	u8 buf[16] = "fast-registered";

	pl[0] = cpu_to_le64(phys(e->pg[0]));
	pl[1] = cpu_to_le64(phys(e->pg[1]));

	/* npages must match iova and length; a misaligned page is refused. */
	reg_wr(&w, key, 0x5000, 0x1000, 2);
	KUNIT_EXPECT_EQ(test, vdr_mr_fast_reg(e->dev, &e->pd, &w), -EINVAL);
	reg_wr(&w, key, 0x5000, 0x2000, 2);
	KUNIT_EXPECT_EQ(test, vdr_mr_fast_reg(e->dev, &e->pd2, &w), -EINVAL);
	pl[1] = cpu_to_le64(phys(e->pg[1]) + 8);
	KUNIT_EXPECT_EQ(test, vdr_mr_fast_reg(e->dev, &e->pd, &w), -EINVAL);
	KUNIT_EXPECT_FALSE(test, e->fast.valid);
	pl[1] = cpu_to_le64(phys(e->pg[1]));

	KUNIT_EXPECT_EQ(test, vdr_mr_fast_reg(e->dev, &e->pd, &w), 0);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(3, 0), 0, 0x5000, 1),
			VDR_MEM_ENOKEY);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, key,
				    VIRTIO_RDMA_ACCESS_REMOTE_READ, 0x5000,
				    0x2000), 0);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, key,
				    VIRTIO_RDMA_ACCESS_REMOTE_WRITE, 0x5000,
				    1), VDR_MEM_EACCESS);
	KUNIT_EXPECT_EQ(test, copy(e, &e->fast, 0x6000, buf,
				   sizeof(buf), VDR_TO_MEM), 0);
	KUNIT_EXPECT_MEMEQ(test, page_address(e->pg[1]), buf, sizeof(buf));
	/* A valid MR cannot be registered again before invalidation. */
	KUNIT_EXPECT_EQ(test, vdr_mr_fast_reg(e->dev, &e->pd, &w), -EINVAL);

	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL, KEY(3, 0x78)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd2, NULL, key),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL,
						KEY(1, 0x11)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL, key), 0);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, key, 0, 0x5000, 1),
			VDR_MEM_EINVALID);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL, key),
			-EINVAL);
}

/*
 * A deregistered or replaced MR is marked dead under its lock before the
 * command completes: no later access may pass the checks or touch it, even
 * through a lookup that still finds it (RCU).
 */
static void dead_mr(struct kunit *test)
{
	struct env *e = test->priv;
	u8 buf[8] = { 0 };

	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x11), 0, IOVA, 8), 0);
	e->user.dead = true;
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(1, 0x11), 0, IOVA, 8),
			VDR_MEM_ENOKEY);
	KUNIT_EXPECT_EQ(test, vdr_mr_rw(e->dev, &e->pd, NULL, KEY(1, 0x11), 0, IOVA,
					buf, sizeof(buf), VDR_FROM_MEM),
			VDR_MEM_ENOKEY);
	e->fast.dead = true;
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL, KEY(3, 0)),
			-EINVAL);
}

/* A BIND_MW work request's bind part. */
static struct virtio_rdma_wqe_bind_mw bind_wr(u32 rkey, u32 lkey, u64 addr,
					      u64 len, u32 access)
{
	return (struct virtio_rdma_wqe_bind_mw) {
		.rkey = cpu_to_le32(rkey), .mr_lkey = cpu_to_le32(lkey),
		.addr = cpu_to_le64(addr), .length = cpu_to_le64(len),
		.access_flags = cpu_to_le32(access),
	};
}

static int bind(struct env *e, struct vdr_qp *qp, u32 rkey, u32 lkey,
		u64 addr, u64 len, u32 access)
{
	struct virtio_rdma_wqe_bind_mw w = bind_wr(rkey, lkey, addr, len,
						   access);

	return vdr_mw_bind(e->dev, qp, &w);
}

/* A remote access through @qp, as the responder makes it. */
static int remote(struct env *e, struct vdr_qp *qp, u32 rkey, u32 access,
		  u64 addr, void *buf, u32 len, enum vdr_copy_dir dir)
{
	return vdr_mr_rw(e->dev, qp->pd, qp, rkey, access, addr, buf, len,
			 dir);
}

#define RW	(VIRTIO_RDMA_ACCESS_REMOTE_WRITE | VIRTIO_RDMA_ACCESS_REMOTE_READ)
#define RWR	VIRTIO_RDMA_ACCESS_REMOTE_WRITE
#define RRD	VIRTIO_RDMA_ACCESS_REMOTE_READ

/*
 * Type 2: bound once by one QP, reached only through it, within its range
 * and rights; bytes land in the MR behind it; invalidation frees it, from
 * the remote side only through its QP.
 */
static void mw_type2(struct kunit *test)
{
	struct env *e = test->priv;
	u32 k2 = KEY(5, 0x51);
	u8 in[64], out[64];
	int i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = i + 1;
	/* A free window reaches nothing. */
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, KEY(5, 0x50), RWR, IOVA, in, 1,
				     VDR_TO_MEM), VDR_MEM_EINVALID);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k2, KEY(1, 0x11), IOVA + 16, 64,
				   RW), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->user.nr_mw), 1);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, k2, RWR, IOVA + 16, in, 64,
				     VDR_TO_MEM), 0);
	KUNIT_EXPECT_EQ(test, vdr_mr_rw(e->dev, &e->pd, NULL, KEY(1, 0x11), 0,
					IOVA + 16, out, 64, VDR_FROM_MEM), 0);
	KUNIT_EXPECT_MEMEQ(test, in, out, 64);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, k2, RRD, IOVA + 16, out, 64,
				     VDR_FROM_MEM), 0);
	/* The range's edges, rights, key byte, QP, PD, and no lkey use. */
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, k2, RWR, IOVA + 15, in, 1,
				     VDR_TO_MEM), VDR_MEM_ERANGE);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, k2, RWR, IOVA + 17, in, 64,
				     VDR_TO_MEM), VDR_MEM_ERANGE);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, k2,
				     VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC,
				     IOVA + 16, in, 8, VDR_TO_MEM),
			VDR_MEM_EACCESS);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, KEY(5, 0x50), RWR, IOVA + 16,
				     in, 1, VDR_TO_MEM), VDR_MEM_ENOKEY);
	KUNIT_EXPECT_EQ(test, remote(e, e->qb, k2, RWR, IOVA + 16, in, 1,
				     VDR_TO_MEM), VDR_MEM_EPD);
	KUNIT_EXPECT_EQ(test, remote(e, e->qc, k2, RWR, IOVA + 16, in, 1,
				     VDR_TO_MEM), VDR_MEM_EPD);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, k2, 0, IOVA + 16, 1),
			VDR_MEM_ENOKEY);
	/* Bound: no second bind until it is free again. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, KEY(5, 0x52), KEY(1, 0x11), IOVA,
				   8, RW), -EINVAL);
	/* Invalidation: key, PD, and remotely only through its QP. */
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL,
						KEY(5, 0x50)), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd2, NULL, k2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, e->qb, k2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, e->qa, k2), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->user.nr_mw), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, k2, RWR, IOVA + 16, in, 1,
				     VDR_TO_MEM), VDR_MEM_EINVALID);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL, k2),
			-EINVAL);
	/* Free again: another QP may bind it, zero-based this time. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qb, KEY(5, 0x53), KEY(1, 0x11),
				   IOVA + 100, 10,
				   RW | VIRTIO_RDMA_ACCESS_ZERO_BASED), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qb, KEY(5, 0x53), RWR, 0, in, 10,
				     VDR_TO_MEM), 0);
	KUNIT_EXPECT_EQ(test, vdr_mr_rw(e->dev, &e->pd, NULL, KEY(1, 0x11), 0,
					IOVA + 100, out, 10, VDR_FROM_MEM), 0);
	KUNIT_EXPECT_MEMEQ(test, in, out, 10);
	KUNIT_EXPECT_EQ(test, remote(e, e->qb, KEY(5, 0x53), RWR, 1, in, 10,
				     VDR_TO_MEM), VDR_MEM_ERANGE);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, KEY(5, 0x53), RWR, 0, in, 1,
				     VDR_TO_MEM), VDR_MEM_EPD);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL,
						KEY(5, 0x53)), 0);
}

/*
 * Type 1: never zero-based, rebound in place under a new key, unbound by
 * a bind of length 0, untouched by invalidation; any QP of its PD reaches
 * it.
 */
static void mw_type1(struct kunit *test)
{
	struct env *e = test->priv;
	u8 buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	KUNIT_EXPECT_EQ(test, bind(e, e->qa, KEY(4, 0x41), KEY(1, 0x11), IOVA,
				   8, RWR | VIRTIO_RDMA_ACCESS_ZERO_BASED),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, KEY(4, 0x41), KEY(1, 0x11), IOVA,
				   8, RWR), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qb, KEY(4, 0x41), RWR, IOVA, buf, 8,
				     VDR_TO_MEM), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qb, KEY(4, 0x41), RRD, IOVA, buf, 8,
				     VDR_FROM_MEM), VDR_MEM_EACCESS);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL,
						KEY(4, 0x41)), -EINVAL);
	/* Rebinding moves it and retires the old key. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qb, KEY(4, 0x42), KEY(1, 0x11),
				   IOVA + 8, 8, RRD), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->user.nr_mw), 1);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, KEY(4, 0x41), RWR, IOVA, buf, 8,
				     VDR_TO_MEM), VDR_MEM_ENOKEY);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, KEY(4, 0x42), RRD, IOVA + 8,
				     buf, 8, VDR_FROM_MEM), 0);
	/* Length 0 unbinds: no MR needed, nothing reachable. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, KEY(4, 0x43), 0, 0, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->user.nr_mw), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, KEY(4, 0x43), RRD, IOVA + 8,
				     buf, 1, VDR_FROM_MEM), VDR_MEM_EINVALID);
}

/* Every bind rule that concerns the MR, the QP or the arguments. */
static void mw_bind_rules(struct kunit *test)
{
	struct env *e = test->priv;
	u32 lkey = KEY(1, 0x11), k = KEY(5, 0x51);

	/* The QP's PD must be the window's and the MR's. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qc, k, lkey, IOVA, 8, RW), -EINVAL);
	/* The MR: its key byte, MW_BIND, a window inside it. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, KEY(1, 0x12), IOVA, 8, RW),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, KEY(2, 0x22), 0, 8, RRD),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, lkey, IOVA - 1, 8, RW),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, lkey, IOVA + 1, MR_LEN, RW),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, lkey, U64_MAX - 3, 8, RW),
			-EINVAL);
	/* No window behind a window, none on a free fast-registration MR. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, KEY(4, 0x40), 0, 8, RW),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, KEY(3, 0), 0, 8, RW), -EINVAL);
	/* Only window rights; a key that names no window. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, lkey, IOVA, 8,
				   VIRTIO_RDMA_ACCESS_MW_BIND), -EINVAL);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, KEY(1, 0x13), lkey, IOVA, 8, RW),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, KEY(9, 0), lkey, IOVA, 8, RW),
			-EINVAL);
	/* Type 2 windows are never bound with length 0. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, lkey, IOVA, 0, RW), -EINVAL);
	/* Remote writes need an MR that allows local writes. */
	e->user.access &= ~VIRTIO_RDMA_ACCESS_LOCAL_WRITE;
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, lkey, IOVA, 8, RWR), -EINVAL);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, k, lkey, IOVA, 8, RRD), 0);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL, k), 0);
	e->user.access |= VIRTIO_RDMA_ACCESS_LOCAL_WRITE;
	/* None of the failures left a count behind. */
	KUNIT_EXPECT_EQ(test, atomic_read(&e->user.nr_mw), 0);
}

/*
 * The MR behind a window is checked at every access: an invalidated fast
 * registration MR, or one registered again under another key, is out of
 * reach through the window too.
 */
static void mw_over_fast_mr(struct kunit *test)
{
	struct env *e = test->priv;
	struct virtio_rdma_wqe_reg_mr w = {
		.key = cpu_to_le32(KEY(3, 0x31)),
		.access_flags = cpu_to_le32(VIRTIO_RDMA_ACCESS_LOCAL_WRITE |
					    VIRTIO_RDMA_ACCESS_MW_BIND),
		.iova = cpu_to_le64(0x5000), .length = cpu_to_le64(4096),
		.page_shift = cpu_to_le32(PAGE_SHIFT),
		.npages = cpu_to_le32(1),
	};
	__le64 *pl = page_address(e->pg[2]);
	u8 buf[4] = { 9, 9, 9, 9 };

	pl[0] = cpu_to_le64(phys(e->pg[0]));
	KUNIT_ASSERT_EQ(test, vdr_mr_fast_reg(e->dev, &e->pd, &w), 0);
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, KEY(5, 0x51), KEY(3, 0x31),
				   0x5000, 4096, RW), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, KEY(5, 0x51), RWR, 0x5000, buf,
				     4, VDR_TO_MEM), 0);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL,
						KEY(3, 0x31)), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, KEY(5, 0x51), RWR, 0x5000, buf,
				     4, VDR_TO_MEM), VDR_MEM_EINVALID);
	w.key = cpu_to_le32(KEY(3, 0x32));
	KUNIT_ASSERT_EQ(test, vdr_mr_fast_reg(e->dev, &e->pd, &w), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, KEY(5, 0x51), RWR, 0x5000, buf,
				     4, VDR_TO_MEM), VDR_MEM_ENOKEY);
	/* Freeing the window drops the MR's count whatever the MR's key. */
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, e->qa,
						KEY(5, 0x51)), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e->fast.nr_mw), 0);
}

#define MK	KEY(6, 0x60)

/* An MKEY_CONFIGURE WQE's parts, as the requester hands them over. */
static int mk_conf(struct env *e, struct vdr_qp *qp, u8 flags, u32 access,
		   u32 repeat, const struct virtio_rdma_mkey_entry *ent, u32 n)
{
	struct virtio_rdma_wqe_mkey wr = {
		.key = cpu_to_le32(MK), .access_flags = cpu_to_le32(access),
		.repeat_count = cpu_to_le32(repeat),
		.num_entries = cpu_to_le16(n), .flags = flags,
	};
	struct virtio_rdma_sge sge[VDR_MAX_SGE] = { };

	if (n)
		memcpy(sge, ent, n * sizeof(*ent));
	return vdr_mkey_configure(e->dev, qp, &wr, sge, 2 * n);
}

static struct virtio_rdma_mkey_entry mk_ent(u64 addr, u32 count, u32 skip,
					    u32 lkey)
{
	return (struct virtio_rdma_mkey_entry) {
		.addr = cpu_to_le64(addr), .bytes_count = cpu_to_le32(count),
		.bytes_skip = cpu_to_le32(skip), .lkey = cpu_to_le32(lkey),
	};
}

#define MKF	(VIRTIO_RDMA_MKEY_F_ACCESS | VIRTIO_RDMA_MKEY_F_LAYOUT)
#define MKA	(VIRTIO_RDMA_ACCESS_LOCAL_WRITE | RW | \
		 VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC)

/* Reads @len bytes of the user MR at @iova through its own lkey. */
static void user_read(struct kunit *test, struct env *e, u64 iova, void *buf,
		      u32 len)
{
	KUNIT_EXPECT_EQ(test, vdr_mr_rw(e->dev, &e->pd, NULL, KEY(1, 0x11), 0,
					iova, buf, len, VDR_FROM_MEM), 0);
}

/*
 * A list layout: three chunks of the user MR (its last byte included),
 * written through the rkey whole and across a chunk boundary, read back
 * through the lkey, and the range's edges.
 */
static void mkey_list(struct kunit *test)
{
	struct env *e = test->priv;
	struct virtio_rdma_mkey_entry l[3] = {
		mk_ent(IOVA, 100, 0, KEY(1, 0x11)),
		mk_ent(IOVA + 2000, 50, 0, KEY(1, 0x11)),
		mk_ent(IOVA + 4000, 96, 0, KEY(1, 0x11)),
	};
	u8 in[246], out[246];
	int i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = i ^ 0x5a;
	/* Unconfigured: nothing, not even a local read. */
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, MK, 0, 0, 1), VDR_MEM_EINVALID);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 1, l, 3), 0);
	KUNIT_EXPECT_EQ(test, e->mk.length, 246);
	KUNIT_EXPECT_EQ(test, remote(e, e->qb, MK, RWR, 0, in, 246,
				     VDR_TO_MEM), 0);
	user_read(test, e, IOVA, out, 100);
	user_read(test, e, IOVA + 2000, out + 100, 50);
	user_read(test, e, IOVA + 4000, out + 150, 96);
	KUNIT_EXPECT_MEMEQ(test, in, out, 246);
	memset(out, 0, sizeof(out));
	KUNIT_EXPECT_EQ(test, vdr_mr_rw(e->dev, &e->pd, NULL, MK, 0, 0, out,
					246, VDR_FROM_MEM), 0);
	KUNIT_EXPECT_MEMEQ(test, in, out, 246);
	/* Across the first boundary: 10 bytes in each chunk. */
	memset(in, 0xee, 20);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RWR, 90, in, 20,
				     VDR_TO_MEM), 0);
	user_read(test, e, IOVA + 90, out, 10);
	user_read(test, e, IOVA + 2000, out + 10, 10);
	KUNIT_EXPECT_MEMEQ(test, in, out, 20);
	user_read(test, e, IOVA + 2010, out, 1);
	KUNIT_EXPECT_EQ(test, out[0], 110 ^ 0x5a);
	/* The edges of [0, 246). */
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 245, out, 1,
				     VDR_FROM_MEM), 0);
	KUNIT_EXPECT_EQ(test, out[0], 245 ^ 0x5a);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 246, out, 1,
				     VDR_FROM_MEM), VDR_MEM_ERANGE);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 245, out, 2,
				     VDR_FROM_MEM), VDR_MEM_ERANGE);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, MK, 0, U64_MAX, 2),
			VDR_MEM_ERANGE);
	/* Key byte and PD. */
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, KEY(6, 0x61), 0, 0, 1),
			VDR_MEM_ENOKEY);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd2, MK, 0, 0, 1), VDR_MEM_EPD);
}

/*
 * The interleaved layout of three repetitions of 16 bytes of the user MR
 * followed by 4 skipped and 8 bytes of the page-list page through the DMA
 * MR: every byte where the layout puts it, the skipped ones untouched, an
 * atomic within a chunk and not across two.
 */
static void mkey_interleaved(struct kunit *test)
{
	struct env *e = test->priv;
	u64 pg2 = phys(e->pg[2]);
	struct virtio_rdma_mkey_entry l[2] = {
		mk_ent(IOVA, 16, 4, KEY(1, 0x11)),
		mk_ent(pg2, 8, 0, KEY(2, 0x22)),
	};
	u8 in[72], out[72], skip[4];
	u8 *p2 = page_address(e->pg[2]);
	u64 orig;
	int r, i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = i + 1;
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 3, l, 2), 0);
	KUNIT_EXPECT_EQ(test, e->mk.length, 72);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RWR, 0, in, 72,
				     VDR_TO_MEM), 0);
	for (r = 0; r < 3; r++) {
		user_read(test, e, IOVA + r * 20, out, 16);
		KUNIT_EXPECT_MEMEQ(test, out, in + r * 24, 16);
		KUNIT_EXPECT_MEMEQ(test, p2 + r * 8, in + r * 24 + 16, 8);
		user_read(test, e, IOVA + r * 20 + 16, skip, 4);
		KUNIT_EXPECT_EQ(test, skip[0] | skip[1] | skip[2] | skip[3], 0);
	}
	KUNIT_EXPECT_EQ(test, p2[24], 0);
	/* Offset 40 is repetition 1, entry 1: page byte 8. */
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 40, out, 8,
				     VDR_FROM_MEM), 0);
	KUNIT_EXPECT_MEMEQ(test, out, p2 + 8, 8);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 71, out, 1,
				     VDR_FROM_MEM), 0);
	KUNIT_EXPECT_EQ(test, out[0], 72);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 72, out, 1,
				     VDR_FROM_MEM), VDR_MEM_ERANGE);
	/* Atomics: 8 bytes in one chunk only. */
	KUNIT_EXPECT_EQ(test, vdr_mr_remote_atomic(e->dev, &e->pd, e->qa, MK,
						   16, VDR_ATOMIC_FETCH_ADD, 1,
						   0, &orig), 0);
	KUNIT_EXPECT_EQ(test, vdr_mr_remote_atomic(e->dev, &e->pd, e->qa, MK,
						   8, VDR_ATOMIC_FETCH_ADD, 1,
						   0, &orig), 0);
	KUNIT_EXPECT_EQ(test, vdr_mr_remote_atomic(e->dev, &e->pd, e->qa, MK,
						   12, VDR_ATOMIC_FETCH_ADD, 1,
						   0, &orig), VDR_MEM_ERANGE);
}

/*
 * Configuration rules, rights, what keeps a configuration, LOCAL_INV, and
 * the MRs behind the key checked at every access.
 */
static void mkey_rules(struct kunit *test)
{
	struct env *e = test->priv;
	struct virtio_rdma_mkey_entry ok = mk_ent(IOVA, 64, 0, KEY(1, 0x11));
	struct virtio_rdma_mkey_entry bad;
	u8 buf[8] = { 0 };

	/* Entries: windows, keys, other PDs, out of the MR, empty, overflow. */
	bad = mk_ent(0, 8, 0, KEY(4, 0x40));
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 1, &bad, 1), -EINVAL);
	bad = mk_ent(0, 8, 0, MK);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 1, &bad, 1), -EINVAL);
	bad = mk_ent(IOVA, 8, 0, KEY(1, 0x12));
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 1, &bad, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qc, MKF, MKA, 1, &ok, 1), -EINVAL);
	bad = mk_ent(IOVA + 4000, 96, 1, KEY(1, 0x11));
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 1, &bad, 1), 0);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 2, &bad, 1), -EINVAL);
	bad = mk_ent(IOVA, 0, 0, KEY(1, 0x11));
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 1, &bad, 1), -EINVAL);
	bad = mk_ent(0, U32_MAX, U32_MAX, KEY(2, 0x22));
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, U32_MAX, &bad, 1),
			-EINVAL);
	bad = mk_ent(0, U32_MAX, 0, KEY(2, 0x22));
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 1024, &bad, 1),
			-EINVAL);
	/* Counts and bits of the WQE itself. */
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 0, &ok, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 1, &ok, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, VIRTIO_RDMA_ACCESS_MW_BIND,
				      1, &ok, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, VIRTIO_RDMA_MKEY_F_LAYOUT, RRD,
				      1, &ok, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF | 4, MKA, 1, &ok, 1),
			-EINVAL);
	e->mk.max_entries = 1;
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, MKA, 1,
				      (struct virtio_rdma_mkey_entry[]){ ok, ok },
				      2), -EINVAL);
	e->mk.max_entries = VDR_MAX_MKEY_ENTRIES;

	/* Rights: a read-only key; access alone keeps the layout. */
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, RRD, 1, &ok, 1), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RWR, 0, buf, 8, VDR_TO_MEM),
			VDR_MEM_EACCESS);
	KUNIT_EXPECT_EQ(test, check(e, &e->pd, MK,
				    VIRTIO_RDMA_ACCESS_LOCAL_WRITE, 0, 8),
			VDR_MEM_EACCESS);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, VIRTIO_RDMA_MKEY_F_ACCESS, RW,
				      0, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, e->mk.length, 64);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RWR, 0, buf, 8, VDR_TO_MEM),
			0);
	/* The MR behind it: no local write, then gone. */
	e->user.access &= ~VIRTIO_RDMA_ACCESS_LOCAL_WRITE;
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RWR, 0, buf, 8, VDR_TO_MEM),
			VDR_MEM_EACCESS);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 0, buf, 8,
				     VDR_FROM_MEM), 0);
	e->user.access |= VIRTIO_RDMA_ACCESS_LOCAL_WRITE;
	e->user.dead = true;
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 0, buf, 8,
				     VDR_FROM_MEM), VDR_MEM_ENOKEY);
	e->user.dead = false;
	/* LOCAL_INV only: no remote invalidation of an indirect key. */
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, e->qa, MK),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL, MK), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 0, buf, 8,
				     VDR_FROM_MEM), VDR_MEM_EINVALID);
	KUNIT_EXPECT_EQ(test, vdr_mr_invalidate(e->dev, &e->pd, NULL, MK),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mk_conf(e, e->qa, MKF, RRD, 1, &ok, 1), 0);
	KUNIT_EXPECT_EQ(test, remote(e, e->qa, MK, RRD, 0, buf, 8,
				     VDR_FROM_MEM), 0);
	/* No window over an indirect key. */
	KUNIT_EXPECT_EQ(test, bind(e, e->qa, KEY(5, 0x51), MK, 0, 8, RRD),
			-EINVAL);
}

/*
 * A ring in memory that is not this kernel's passthrough (a VM's, through
 * vhost-vdpa) holds a reference on each page for as long as it is mapped:
 * the VM unmapping that memory, and vhost-vdpa unpinning it, cannot free
 * a page the device still writes.  The kernel's own memory (virtio_vdpa's
 * passthrough) takes none.
 */
static void ring_pages_held(struct kunit *test)
{
	struct env *e = test->priv;
	struct page *pg = e->pg[2];
	struct vdr_ring ring = {};
	int refs = page_ref_count(pg);

	/* One page: the control block and 4 entries of 64 bytes. */
	KUNIT_ASSERT_EQ(test, vdr_ring_map(e->dev, &ring, phys(pg), 4, 64), 0);
	KUNIT_EXPECT_EQ(test, page_ref_count(pg), refs + 1);
	/* set_map without the page: the ring keeps it. */
	spin_lock(&e->dev->iotlb_lock);
	write_lock(&e->dev->iotlb_rw);
	vhost_iotlb_reset(&e->dev->iotlb);
	write_unlock(&e->dev->iotlb_rw);
	spin_unlock(&e->dev->iotlb_lock);
	KUNIT_EXPECT_EQ(test, page_ref_count(pg), refs + 1);
	vdr_ring_unmap(&ring);
	KUNIT_EXPECT_EQ(test, page_ref_count(pg), refs);

	/*
	 * Only the first page of a two-page ring is mapped: the ring fails
	 * and gives back the reference it took on the first.
	 */
	KUNIT_ASSERT_EQ(test, vhost_iotlb_add_range(&e->dev->iotlb, 0x10000,
						    0x10fff, phys(pg),
						    VHOST_MAP_RW), 0);
	KUNIT_EXPECT_EQ(test, vdr_ring_map(e->dev, &ring, 0x10000, 128, 64),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, page_ref_count(pg), refs);
	KUNIT_EXPECT_NULL(test, ring.vmap_base);

	/* Passthrough: the kernel's own memory, no reference. */
	e->dev->iotlb_pt = true;
	KUNIT_ASSERT_EQ(test, vdr_ring_map(e->dev, &ring, 0x10000, 4, 64), 0);
	KUNIT_EXPECT_EQ(test, page_ref_count(pg), refs);
	KUNIT_EXPECT_NULL(test, ring.pinned);
	vdr_ring_unmap(&ring);
	KUNIT_EXPECT_EQ(test, page_ref_count(pg), refs);
}

static struct kunit_case vdpa_rdma_mem_cases[] = {
	KUNIT_CASE(dead_mr),
	KUNIT_CASE(key_checks),
	KUNIT_CASE(copy_crosses_pages),
	KUNIT_CASE(sge_lists),
	KUNIT_CASE(atomics),
	KUNIT_CASE(fast_registration),
	KUNIT_CASE(mw_type2),
	KUNIT_CASE(mw_type1),
	KUNIT_CASE(mw_bind_rules),
	KUNIT_CASE(mw_over_fast_mr),
	KUNIT_CASE(mkey_list),
	KUNIT_CASE(mkey_interleaved),
	KUNIT_CASE(mkey_rules),
	KUNIT_CASE(ring_pages_held),
	{}
};

static struct kunit_suite vdpa_rdma_mem_suite = {
	.name = "vdpa_rdma_mem",
	.init = env_init,
	.exit = env_exit,
	.test_cases = vdpa_rdma_mem_cases,
};

kunit_test_suite(vdpa_rdma_mem_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit: vdpa_rdma data memory access (keys, MRs, windows, mkeys, atomics, rings)");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
