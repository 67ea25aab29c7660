// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * KUnit: the work request ids of kernel queues (vrdma_wrid.c), which the
 * device never sees: a WQE carries a token, and a CQE's token gives back
 * what was posted.  Pure bookkeeping on rings in memory, the device played
 * by the test: it takes an SRQ's receives in ring order when messages
 * start, as the spec says, and completes them in any order.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "vrdma.h"

#define VR_WRID_DEPTH	4

struct vr_wrid_env {
	struct vrdma_srq srq;
	struct vrdma_qp qp;
};

static struct vr_wrid_env *vr_wrid_env(struct kunit *test, bool srq)
{
	struct vr_wrid_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	struct vrdma_ring *ring;

	KUNIT_ASSERT_NOT_NULL(test, e);
	ring = srq ? &e->srq.ring : &e->qp.rq;
	ring->depth = VR_WRID_DEPTH;
	KUNIT_ASSERT_EQ(test, vrdma_wrids_alloc(ring, srq), 0);
	if (srq)
		e->qp.ibqp.srq = &e->srq.ibsrq;
	return e;
}

/* The consumer posts receive @wr_id at the ring's head; returns its token. */
static __le64 vr_wrid_post(struct kunit *test, struct vrdma_ring *ring,
			   u64 wr_id)
{
	struct ib_sge sge = { .length = 64 };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };
	__le64 token;

	KUNIT_ASSERT_EQ(test, vrdma_wrid_recv(ring, &wr, &token), 0);
	ring->head++;
	return token;
}

/* The consumer polls the CQE the device wrote with @token. */
static bool vr_wrid_poll(struct vrdma_qp *qp, __le64 token, u64 *wr_id)
{
	struct virtio_rdma_cqe cqe = { .wr_id = token };
	struct vrdma_wrid w;

	if (!vrdma_wrid_take(qp, &cqe, &w))
		return false;
	*wr_id = w.wr_id;
	return true;
}

/*
 * One QP takes the SRQ's first receive for a long message while others
 * take, complete and get back the rest: the consumer posts again, and its
 * new receives land in ring slots the device freed when it took them,
 * among them the first one's.  The long message's completion must still
 * give the first receive's wr_id.
 */
static void vr_wrid_srq_any_order(struct kunit *test)
{
	struct vr_wrid_env *e = vr_wrid_env(test, true);
	struct vrdma_ring *ring = &e->srq.ring;
	__le64 tok[VR_WRID_DEPTH], again[VR_WRID_DEPTH - 1], held;
	struct ib_recv_wr wr = { .wr_id = 999 };
	u64 wr_id;
	int i;

	for (i = 0; i < VR_WRID_DEPTH; i++)
		tok[i] = vr_wrid_post(test, ring, 100 + i);
	held = tok[0];
	/* All four taken; the last three complete and are polled. */
	for (i = 1; i < VR_WRID_DEPTH; i++) {
		KUNIT_ASSERT_TRUE(test, vr_wrid_poll(&e->qp, tok[i], &wr_id));
		KUNIT_EXPECT_EQ(test, wr_id, 100 + i);
	}
	/* Reposted into ring slots 0, 1 and 2. */
	for (i = 0; i < VR_WRID_DEPTH - 1; i++)
		again[i] = vr_wrid_post(test, ring, 200 + i);
	/* Four receives posted and unpolled: the fifth is refused. */
	KUNIT_EXPECT_EQ(test, vrdma_wrid_recv(ring, &wr, &tok[1]), -ENOMEM);

	KUNIT_ASSERT_TRUE(test, vr_wrid_poll(&e->qp, held, &wr_id));
	KUNIT_EXPECT_EQ(test, wr_id, 100);
	for (i = 0; i < VR_WRID_DEPTH - 1; i++) {
		KUNIT_ASSERT_TRUE(test, vr_wrid_poll(&e->qp, again[i], &wr_id));
		KUNIT_EXPECT_EQ(test, wr_id, 200 + i);
	}
	vrdma_wrids_free(ring);
}

/* A device that completes one receive twice, or names no receive. */
static void vr_wrid_srq_lies(struct kunit *test)
{
	struct vr_wrid_env *e = vr_wrid_env(test, true);
	struct vrdma_ring *ring = &e->srq.ring;
	__le64 tok = vr_wrid_post(test, ring, 7);
	u64 wr_id;

	KUNIT_EXPECT_TRUE(test, vr_wrid_poll(&e->qp, tok, &wr_id));
	KUNIT_EXPECT_FALSE(test, vr_wrid_poll(&e->qp, tok, &wr_id));
	/* An entry never posted, one past the table, a queue of nothing. */
	KUNIT_EXPECT_FALSE(test, vr_wrid_poll(&e->qp, cpu_to_le64(2ULL << 32 | 3),
					      &wr_id));
	KUNIT_EXPECT_FALSE(test, vr_wrid_poll(&e->qp,
					      cpu_to_le64(2ULL << 32 |
							  VR_WRID_DEPTH),
					      &wr_id));
	KUNIT_EXPECT_FALSE(test, vr_wrid_poll(&e->qp, cpu_to_le64(7ULL << 32),
					      &wr_id));
	/* Every entry is free again: four posts fit. */
	vr_wrid_post(test, ring, 1);
	vr_wrid_post(test, ring, 2);
	vr_wrid_post(test, ring, 3);
	vr_wrid_post(test, ring, 4);
	vrdma_wrids_free(ring);
}

/* A QP's own RQ completes in order: its shadow is the ring slot's. */
static void vr_wrid_rq_in_order(struct kunit *test)
{
	struct vr_wrid_env *e = vr_wrid_env(test, false);
	struct vrdma_ring *ring = &e->qp.rq;
	__le64 tok;
	u64 wr_id;
	int i;

	for (i = 0; i < 2 * VR_WRID_DEPTH; i++) {
		tok = vr_wrid_post(test, ring, 300 + i);
		KUNIT_EXPECT_EQ(test, le64_to_cpu(tok),
				2ULL << 32 | (i % VR_WRID_DEPTH));
		KUNIT_ASSERT_TRUE(test, vr_wrid_poll(&e->qp, tok, &wr_id));
		KUNIT_EXPECT_EQ(test, wr_id, 300 + i);
	}
	vrdma_wrids_free(ring);
}

static struct kunit_case virtio_rdma_wrid_cases[] = {
	KUNIT_CASE(vr_wrid_srq_any_order),
	KUNIT_CASE(vr_wrid_srq_lies),
	KUNIT_CASE(vr_wrid_rq_in_order),
	{}
};

static struct kunit_suite virtio_rdma_wrid_suite = {
	.name = "virtio_rdma_wrid",
	.test_cases = virtio_rdma_wrid_cases,
};

kunit_test_suite(virtio_rdma_wrid_suite);

MODULE_DESCRIPTION("KUnit: virtio_rdma work request ids");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
