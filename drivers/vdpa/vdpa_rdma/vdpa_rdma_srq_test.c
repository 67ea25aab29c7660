// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * The device side of a shared receive queue (vdr_srq.c): how a QP takes a
 * WQE out of the SRQ's ring (index arithmetic across the u32 wrap, an
 * empty ring, a prod the driver made up, a malformed WQE taken once), and
 * the limit event's rule: armed by a non-zero limit, fired by the take
 * that leaves fewer WQEs than the limit, then disarmed (one-shot), and
 * the domain check an XRC_TGT QP makes on each request's XRC SRQ.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"

#define DEPTH		8
#define SHIFT		1			/* stride 32: one SGE */
#define STRIDE		(16 << SHIFT)

struct env {
	struct vdr_srq srq;
	void *mem;
};

static int env_init(struct kunit *test)
{
	struct env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->mem = kunit_kzalloc(test, VIRTIO_RDMA_RING_CTL_SIZE + DEPTH * STRIDE,
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->mem);
	spin_lock_init(&e->srq.lock);
	e->srq.ring.ctl = e->mem;
	e->srq.ring.entries = e->mem + VIRTIO_RDMA_RING_CTL_SIZE;
	e->srq.ring.depth = DEPTH;
	e->srq.ring.stride = STRIDE;
	e->srq.max_sge = 1;
	test->priv = e;
	return 0;
}

/* The driver's side: a WQE at @idx with @nsge SGEs, then prod. */
static void post(struct env *e, u32 idx, u8 nsge)
{
	struct virtio_rdma_rq_wqe *w = vdr_ring_entry(&e->srq.ring, idx);
	struct virtio_rdma_sge *s = (void *)(w + 1);

	memset(w, 0, STRIDE);
	w->wr_id = cpu_to_le64(0x1000ULL + idx);
	w->num_sge = nsge;
	s->addr = cpu_to_le64(0xabc0ULL + idx);
	s->length = cpu_to_le32(64);
	e->srq.ring.ctl->prod = cpu_to_le32(idx + 1);
}

static void start_at(struct env *e, u32 idx)
{
	e->srq.cons = idx;
	e->srq.ring.ctl->prod = cpu_to_le32(idx);
	e->srq.ring.ctl->cons = cpu_to_le32(idx);
}

static void take_in_order_across_wrap(struct kunit *test)
{
	struct env *e = test->priv;
	struct virtio_rdma_rq_wqe w;
	struct virtio_rdma_sge s[VDR_MAX_SGE];
	bool hit;
	u32 i, start = 0xfffffffcU;

	start_at(e, start);
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), -ENOENT);
	for (i = 0; i < DEPTH; i++)
		post(e, start + i, 1);
	for (i = 0; i < DEPTH; i++) {
		KUNIT_ASSERT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), 0);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(w.wr_id), 0x1000ULL + (u32)(start + i));
		KUNIT_EXPECT_EQ(test, le64_to_cpu(s[0].addr), 0xabc0ULL + (u32)(start + i));
		/* cons is published as soon as the WQE is copied out. */
		KUNIT_EXPECT_EQ(test, le32_to_cpu(e->srq.ring.ctl->cons), start + i + 1);
		KUNIT_EXPECT_FALSE(test, hit);
	}
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), -ENOENT);
	KUNIT_EXPECT_EQ(test, e->srq.cons, start + DEPTH);
}

static void bad_prod_and_wqe(struct kunit *test)
{
	struct env *e = test->priv;
	struct virtio_rdma_rq_wqe w;
	struct virtio_rdma_sge s[VDR_MAX_SGE];
	bool hit;

	start_at(e, 5);
	/* More WQEs than the ring holds: nothing is taken. */
	e->srq.ring.ctl->prod = cpu_to_le32(5 + DEPTH + 1);
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), -EOVERFLOW);
	KUNIT_EXPECT_EQ(test, e->srq.cons, 5U);
	e->srq.ring.ctl->prod = cpu_to_le32(4);	/* behind cons */
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), -EOVERFLOW);

	/* num_sge above the SRQ's max_sge: taken once, reported, gone. */
	start_at(e, 5);
	post(e, 5, 2);
	post(e, 6, 1);
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), -EINVAL);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(w.wr_id), 0x1005ULL);
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(w.wr_id), 0x1006ULL);
	/* A stride too small for the SGEs is malformed too. */
	e->srq.max_sge = VDR_MAX_SGE;
	post(e, 7, 2);
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), -EINVAL);
}

static void limit_rule(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, vdr_srq_limit_hit(0, 0));
	KUNIT_EXPECT_FALSE(test, vdr_srq_limit_hit(4, 4));
	KUNIT_EXPECT_TRUE(test, vdr_srq_limit_hit(4, 3));
	KUNIT_EXPECT_TRUE(test, vdr_srq_limit_hit(1, 0));
	KUNIT_EXPECT_FALSE(test, vdr_srq_limit_hit(1, 1));
}

static void limit_one_shot(struct kunit *test)
{
	struct env *e = test->priv;
	struct virtio_rdma_rq_wqe w;
	struct virtio_rdma_sge s[VDR_MAX_SGE];
	bool hit;
	u32 i;

	start_at(e, 0);
	for (i = 0; i < 6; i++)
		post(e, i, 1);
	e->srq.limit = 4;
	/* 6 -> 5 -> 4: not below the limit yet. */
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), 0);
	KUNIT_EXPECT_FALSE(test, hit);
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), 0);
	KUNIT_EXPECT_FALSE(test, hit);
	/* 4 -> 3: fires and disarms. */
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), 0);
	KUNIT_EXPECT_TRUE(test, hit);
	KUNIT_EXPECT_EQ(test, e->srq.limit, 0U);
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), 0);
	KUNIT_EXPECT_FALSE(test, hit);
	/* Re-armed above the count, the next take fires; an empty one never. */
	e->srq.limit = 8;
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), 0);
	KUNIT_EXPECT_TRUE(test, hit);
	e->srq.limit = 8;
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), 0);
	KUNIT_EXPECT_TRUE(test, hit);
	e->srq.limit = 8;
	KUNIT_EXPECT_EQ(test, vdr_srq_take(&e->srq, &w, s, &hit), -ENOENT);
	KUNIT_EXPECT_FALSE(test, hit);
	KUNIT_EXPECT_EQ(test, e->srq.limit, 8U);
}

/*
 * Spec "XRC", "At the target": an XRC SRQ of the QP's domain, and inside a
 * message the SRQ of its first packet.
 */
static struct vdr_xrcd xd1 = { .handle = 1 }, xd2 = { .handle = 2 };
static struct vdr_srq xa = { .handle = 10, .xrcd = &xd1 };
static struct vdr_srq xb = { .handle = 11, .xrcd = &xd1 };
static struct vdr_srq xother = { .handle = 12, .xrcd = &xd2 };
static struct vdr_srq xbasic = { .handle = 13 };

static const struct {
	const struct vdr_srq *srq;	/* what the XRCETH names */
	const struct vdr_srq *msg_srq;	/* the message's first packet's */
	bool cont;			/* a middle or last packet */
	bool ok;
} xrc_cases[] = {
	/* First (or only) packets: any XRC SRQ of the domain. */
	{ &xa, NULL, false, true },
	{ &xb, &xa, false, true },
	/* No such SRQ, a basic one, another domain's. */
	{ NULL, NULL, false, false },
	{ &xbasic, NULL, false, false },
	{ &xother, NULL, false, false },
	{ &xother, &xother, true, false },
	/* Middle and last packets: their first packet's SRQ only... */
	{ &xa, &xa, true, true },
	{ &xb, &xa, true, false },
	/* ... which DESTROY_SRQ may have made the QP forget. */
	{ &xa, NULL, true, false },
};

static void xrc_domain_check(struct kunit *test)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(xrc_cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    vdr_srq_xrc_ok(xrc_cases[i].srq, &xd1,
						   xrc_cases[i].msg_srq,
						   xrc_cases[i].cont),
				    xrc_cases[i].ok, "case %d", i);
}

static struct kunit_case vdpa_rdma_srq_cases[] = {
	KUNIT_CASE(take_in_order_across_wrap),
	KUNIT_CASE(bad_prod_and_wqe),
	KUNIT_CASE(limit_rule),
	KUNIT_CASE(limit_one_shot),
	KUNIT_CASE(xrc_domain_check),
	{}
};

static struct kunit_suite vdpa_rdma_srq_suite = {
	.name = "vdpa_rdma_srq",
	.init = env_init,
	.test_cases = vdpa_rdma_srq_cases,
};

kunit_test_suite(vdpa_rdma_srq_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit: vdpa_rdma shared receive queues (take, limit event, XRC)");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
