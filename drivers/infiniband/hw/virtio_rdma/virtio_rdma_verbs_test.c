// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * KUnit suite virtio_rdma_verbs: drives a registered virtio_rdma ib_device
 * (virtio_rdma0) through the kernel verbs API.  Create/destroy loops check
 * that the driver and the device neither leak nor lose objects (restrack
 * counts, which is what "rdma res show" prints, return to their baseline);
 * negative cases check the driver's validation; the flush case checks that
 * a QP moved to ERR completes its receives with WR_FLUSH_ERR.
 *
 * Skips when no virtio_rdma0 exists (the scenario verbs-loops creates one).
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

static unsigned int loops = 1000;
module_param(loops, uint, 0444);
MODULE_PARM_DESC(loops, "Iterations of each create/destroy loop");

static char *ibdev = "virtio_rdma0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device to test");

struct vrt {
	struct ib_device *ib;
	struct ib_device_attr attr;
	struct ib_pd *pd;
	struct ib_cq *cq;
	int base[RDMA_RESTRACK_MAX];
};

static int vrt_count(struct vrt *t, enum rdma_restrack_type type)
{
	return rdma_restrack_count(t->ib, type, false);
}

static void vrt_snapshot(struct vrt *t, int *counts)
{
	int i;

	for (i = 0; i < RDMA_RESTRACK_MAX; i++)
		counts[i] = vrt_count(t, i);
}

/* Every restrack count equals the baseline plus the given deltas. */
static void vrt_expect(struct kunit *test, struct vrt *t, int dpd, int dcq,
		       int dqp, int dmr)
{
	KUNIT_EXPECT_EQ(test, vrt_count(t, RDMA_RESTRACK_PD),
			t->base[RDMA_RESTRACK_PD] + dpd);
	KUNIT_EXPECT_EQ(test, vrt_count(t, RDMA_RESTRACK_CQ),
			t->base[RDMA_RESTRACK_CQ] + dcq);
	KUNIT_EXPECT_EQ(test, vrt_count(t, RDMA_RESTRACK_QP),
			t->base[RDMA_RESTRACK_QP] + dqp);
	KUNIT_EXPECT_EQ(test, vrt_count(t, RDMA_RESTRACK_MR),
			t->base[RDMA_RESTRACK_MR] + dmr);
}

static int vrt_init(struct kunit *test)
{
	struct vrt *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	test->priv = t;
	t->ib = ib_device_get_by_name(ibdev, RDMA_DRIVER_UNKNOWN);
	if (!t->ib)
		return 0;
	t->attr = t->ib->attrs;
	vrt_snapshot(t, t->base);
	return 0;
}

static void vrt_exit(struct kunit *test)
{
	struct vrt *t = test->priv;

	if (!t || !t->ib)
		return;
	if (t->cq)
		ib_free_cq(t->cq);
	if (t->pd)
		ib_dealloc_pd(t->pd);
	/* Whatever a case created, it must have destroyed. */
	vrt_expect(test, t, 0, 0, 0, 0);
	ib_device_put(t->ib);
}

static struct vrt *vrt_get(struct kunit *test)
{
	struct vrt *t = test->priv;

	if (!t->ib)
		kunit_skip(test, "no RDMA device %s", ibdev);
	return t;
}

/* A PD and a CQ shared by the QP cases, counted in the baseline deltas. */
static void vrt_get_pd_cq(struct kunit *test, struct vrt *t)
{
	struct ib_pd *pd = ib_alloc_pd(t->ib, 0);
	struct ib_cq *cq;

	KUNIT_ASSERT_FALSE(test, IS_ERR(pd));
	t->pd = pd;
	cq = ib_alloc_cq(t->ib, NULL, 64, 0, IB_POLL_DIRECT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	t->cq = cq;
}

static struct ib_qp *vrt_create_qp(struct vrt *t, enum ib_qp_type type,
				   u32 wr, u32 sge)
{
	struct ib_qp_init_attr init = {
		.send_cq = t->cq,
		.recv_cq = t->cq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = wr,
			.max_recv_wr = wr,
			.max_send_sge = sge,
			.max_recv_sge = sge,
		},
	};

	return ib_create_qp(t->pd, &init);
}

static void vrt_pd_loop(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct ib_pd *pds[16];
	unsigned int i;

	for (i = 0; i < loops; i++) {
		struct ib_pd *pd = ib_alloc_pd(t->ib, 0);

		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pd), "iteration %u: %ld", i,
				       PTR_ERR(pd));
		/* ib_core's internal DMA MR is not tracked, hence MR +0. */
		KUNIT_EXPECT_NE(test, pd->local_dma_lkey, 0U);
		if (i == 0)
			vrt_expect(test, t, 1, 0, 0, 0);
		ib_dealloc_pd(pd);
	}
	vrt_expect(test, t, 0, 0, 0, 0);

	/* Several live at once, with distinct handles. */
	for (i = 0; i < ARRAY_SIZE(pds); i++) {
		pds[i] = ib_alloc_pd(t->ib, 0);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pds[i]));
	}
	vrt_expect(test, t, ARRAY_SIZE(pds), 0, 0, 0);
	for (i = 0; i < ARRAY_SIZE(pds); i++)
		ib_dealloc_pd(pds[i]);
}

static void vrt_cq_loop(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	unsigned int i;

	for (i = 0; i < loops; i++) {
		/* Odd sizes and every completion vector. */
		struct ib_cq *cq = ib_alloc_cq(t->ib, NULL, 1 + i % 300,
					       i % t->ib->num_comp_vectors,
					       IB_POLL_DIRECT);

		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(cq), "iteration %u: %ld", i,
				       PTR_ERR(cq));
		KUNIT_EXPECT_GE(test, cq->cqe, 1 + i % 300);
		if (i == 0)
			vrt_expect(test, t, 0, 1, 0, 0);
		ib_free_cq(cq);
	}
	vrt_expect(test, t, 0, 0, 0, 0);
}

static int vrt_modify(struct ib_qp *qp, struct ib_qp_attr *attr, int mask)
{
	return ib_modify_qp(qp, attr, mask);
}

/* A RoCE address vector to ourselves through GID index 0. */
static int vrt_self_av(struct vrt *t, struct rdma_ah_attr *ah)
{
	const struct ib_gid_attr *sgid;
	union ib_gid dgid;

	sgid = rdma_get_gid_attr(t->ib, 1, 0);
	if (IS_ERR(sgid))
		return PTR_ERR(sgid);
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(t->ib, 1);
	rdma_ah_set_port_num(ah, 1);
	dgid = sgid->gid;
	rdma_put_gid_attr(sgid);
	rdma_ah_set_grh(ah, &dgid, 0, 0, 64, 0);
	return 0;
}

static void vrt_qp_cycle(struct kunit *test, struct vrt *t, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = 1;
	if (qp->qp_type == IB_QPT_RC) {
		attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ;
		ret = vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
				 IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	} else {
		attr.qkey = 0x11111111;
		ret = vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
				 IB_QP_PORT | IB_QP_QKEY);
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "to INIT");

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	if (qp->qp_type == IB_QPT_RC) {
		KUNIT_ASSERT_EQ(test, vrt_self_av(t, &attr.ah_attr), 0);
		attr.path_mtu = IB_MTU_1024;
		attr.dest_qp_num = qp->qp_num;
		attr.rq_psn = 0x123;
		attr.max_dest_rd_atomic = 1;
		attr.min_rnr_timer = 12;
		ret = vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_AV |
				 IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				 IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
				 IB_QP_MIN_RNR_TIMER);
	} else {
		ret = vrt_modify(qp, &attr, IB_QP_STATE);
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "to RTR");

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0x456;
	if (qp->qp_type == IB_QPT_RC) {
		attr.timeout = 14;
		attr.retry_cnt = 7;
		attr.rnr_retry = 7;
		attr.max_rd_atomic = 1;
		ret = vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
				 IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				 IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
	} else {
		ret = vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
	}
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "to RTS");

	attr.qp_state = IB_QPS_ERR;
	KUNIT_ASSERT_EQ_MSG(test, vrt_modify(qp, &attr, IB_QP_STATE), 0,
			    "to ERR");
	attr.qp_state = IB_QPS_RESET;
	KUNIT_ASSERT_EQ_MSG(test, vrt_modify(qp, &attr, IB_QP_STATE), 0,
			    "to RESET");
}

static void vrt_qp_loop(struct kunit *test, enum ib_qp_type type)
{
	struct vrt *t = vrt_get(test);
	struct ib_qp_init_attr init;
	struct ib_qp_attr qattr;
	unsigned int i;

	vrt_get_pd_cq(test, t);
	for (i = 0; i < loops; i++) {
		struct ib_qp *qp = vrt_create_qp(t, type, 1 + i % 64,
						 1 + i % 4);

		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(qp), "iteration %u: %ld",
				       i, PTR_ERR(qp));
		KUNIT_EXPECT_GE(test, qp->qp_num, 2U);
		vrt_qp_cycle(test, t, qp);
		if (i == 0) {
			vrt_expect(test, t, 1, 1, 1, 0);
			KUNIT_EXPECT_EQ(test, ib_query_qp(qp, &qattr, 0, &init),
					0);
			KUNIT_EXPECT_EQ(test, qattr.qp_state, IB_QPS_RESET);
			KUNIT_EXPECT_EQ(test, init.qp_type, type);
			KUNIT_EXPECT_GE(test, init.cap.max_send_wr, 1U);
		}
		KUNIT_ASSERT_EQ(test, ib_destroy_qp(qp), 0);
	}
	vrt_expect(test, t, 1, 1, 0, 0);
}

static void vrt_qp_rc_loop(struct kunit *test)
{
	vrt_qp_loop(test, IB_QPT_RC);
}

static void vrt_qp_ud_loop(struct kunit *test)
{
	vrt_qp_loop(test, IB_QPT_UD);
}

static void vrt_mr_loop(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct scatterlist sg[2];
	unsigned int i;
	void *buf;
	int n;

	buf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	/*
	 * DMA MRs through the PD: every ib_alloc_pd() asks the driver for one
	 * (vrt_pd_loop does that loops times); here the remote-access kind,
	 * a few times only since ib_core logs each one.
	 */
	for (i = 0; i < 4; i++) {
		struct ib_pd *pd = ib_alloc_pd(t->ib, IB_PD_UNSAFE_GLOBAL_RKEY);

		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pd), "iteration %u: %ld", i,
				       PTR_ERR(pd));
		KUNIT_EXPECT_NE(test, pd->unsafe_global_rkey, 0U);
		KUNIT_EXPECT_NE(test, pd->local_dma_lkey, 0U);
		ib_dealloc_pd(pd);
	}

	vrt_get_pd_cq(test, t);
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], buf, PAGE_SIZE);
	sg_set_buf(&sg[1], buf + PAGE_SIZE, PAGE_SIZE);
	n = ib_dma_map_sg(t->ib, sg, 2, DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_GT(test, n, 0);
	for (i = 0; i < loops; i++) {
		struct ib_mr *mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 16);

		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(mr), "iteration %u: %ld", i,
				       PTR_ERR(mr));
		if (i == 0)
			vrt_expect(test, t, 1, 1, 0, 1);
		KUNIT_EXPECT_EQ(test, ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE),
				n);
		KUNIT_EXPECT_EQ(test, mr->length, 2 * PAGE_SIZE);
		KUNIT_EXPECT_EQ(test, ib_dereg_mr(mr), 0);
	}
	ib_dma_unmap_sg(t->ib, sg, 2, DMA_BIDIRECTIONAL);
	vrt_expect(test, t, 1, 1, 0, 0);
}

static void vrt_ah_loop(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct rdma_ah_attr attr;
	spinlock_t lock;	/* stands for ib_cm's */
	unsigned int i;

	spin_lock_init(&lock);
	vrt_get_pd_cq(test, t);
	KUNIT_ASSERT_EQ(test, vrt_self_av(t, &attr), 0);
	for (i = 0; i < loops; i++) {
		struct ib_ah *ah;

		/* As ib_cm does: under a spinlock, without SLEEPABLE. */
		spin_lock_bh(&lock);
		ah = rdma_create_ah(t->pd, &attr, 0);
		if (!IS_ERR(ah))
			rdma_destroy_ah(ah, 0);
		spin_unlock_bh(&lock);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ah), "iteration %u: %ld", i,
				       PTR_ERR(ah));
	}
	vrt_expect(test, t, 1, 1, 0, 0);
}

static void vrt_limits(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct ib_qp_init_attr init;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;

	vrt_get_pd_cq(test, t);

	cq = ib_alloc_cq(t->ib, NULL, t->attr.max_cqe + 1, 0, IB_POLL_DIRECT);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(cq), -EINVAL);
	if (!IS_ERR(cq))
		ib_free_cq(cq);
	cq = ib_alloc_cq(t->ib, NULL, t->attr.max_cqe, 0, IB_POLL_DIRECT);
	KUNIT_EXPECT_FALSE(test, IS_ERR(cq));
	if (!IS_ERR(cq))
		ib_free_cq(cq);

	qp = vrt_create_qp(t, IB_QPT_RC, t->attr.max_qp_wr + 1, 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EINVAL);
	qp = vrt_create_qp(t, IB_QPT_RC, 4, t->attr.max_send_sge + 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EINVAL);

	memset(&init, 0, sizeof(init));
	init.send_cq = t->cq;
	init.recv_cq = t->cq;
	init.qp_type = IB_QPT_RC;
	init.cap.max_send_wr = 4;
	init.cap.max_inline_data = 1U << 20;
	qp = ib_create_qp(t->pd, &init);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EINVAL);

	/* The largest QP the device allows is created, and its caps reported. */
	qp = vrt_create_qp(t, IB_QPT_RC, t->attr.max_qp_wr,
			   t->attr.max_send_sge);
	KUNIT_EXPECT_FALSE(test, IS_ERR(qp));
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);

	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG,
			 t->attr.max_fast_reg_page_list_len + 1);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(mr), -EINVAL);
	vrt_expect(test, t, 1, 1, 0, 0);
}

static void vrt_bad_transitions(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct ib_qp_attr attr = {};
	struct ib_qp *qp;
	int init_mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			IB_QP_ACCESS_FLAGS;

	vrt_get_pd_cq(test, t);
	qp = vrt_create_qp(t, IB_QPT_RC, 4, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));

	attr.qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE), -EINVAL);
	attr.qp_state = IB_QPS_RTS;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE), -EINVAL);
	/* INIT needs its required attributes. */
	attr.qp_state = IB_QPS_INIT;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE), -EINVAL);
	attr.pkey_index = 1;
	attr.port_num = 1;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, init_mask), -EINVAL);
	attr.pkey_index = 0;
	attr.qp_access_flags = 0x100000;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, init_mask), -EINVAL);
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, init_mask), 0);

	/* RTR with out-of-range attributes */
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, vrt_self_av(t, &attr.ah_attr), 0);
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = qp->qp_num;
	attr.max_dest_rd_atomic = t->attr.max_qp_rd_atom + 1;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_AV |
					 IB_QP_PATH_MTU | IB_QP_DEST_QPN |
					 IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
					 IB_QP_MIN_RNR_TIMER), -EINVAL);
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 32;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_AV |
					 IB_QP_PATH_MTU | IB_QP_DEST_QPN |
					 IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
					 IB_QP_MIN_RNR_TIMER), -EINVAL);
	attr.min_rnr_timer = 12;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_AV |
					 IB_QP_PATH_MTU | IB_QP_DEST_QPN |
					 IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
					 IB_QP_MIN_RNR_TIMER), 0);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 8;
	attr.rnr_retry = 7;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
					 IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					 IB_QP_RNR_RETRY |
					 IB_QP_MAX_QP_RD_ATOMIC), -EINVAL);
	attr.retry_cnt = 7;
	attr.max_rd_atomic = t->attr.max_qp_init_rd_atom + 1;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
					 IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					 IB_QP_RNR_RETRY |
					 IB_QP_MAX_QP_RD_ATOMIC), -EINVAL);
	/* Alternate paths are not supported. */
	attr.max_rd_atomic = 1;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
					 IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					 IB_QP_RNR_RETRY | IB_QP_ALT_PATH |
					 IB_QP_MAX_QP_RD_ATOMIC), -EINVAL);
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
					 IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
					 IB_QP_RNR_RETRY |
					 IB_QP_MAX_QP_RD_ATOMIC), 0);
	/* RTS back to RTR is not a transition. */
	attr.qp_state = IB_QPS_RTR;
	KUNIT_EXPECT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	vrt_expect(test, t, 1, 1, 0, 0);
}

struct vrt_flush {
	struct ib_cqe cqe;
	unsigned int done;
	unsigned int flushed;
};

static void vrt_flush_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vrt_flush *f = container_of(wc->wr_cqe, struct vrt_flush, cqe);

	f->done++;
	if (wc->status == IB_WC_WR_FLUSH_ERR)
		f->flushed++;
}

/* Receives posted in INIT complete with WR_FLUSH_ERR once the QP is in ERR. */
static void vrt_flush(struct kunit *test, enum ib_qp_type type)
{
	struct vrt *t = vrt_get(test);
	const struct ib_recv_wr *bad_recv;
	const struct ib_send_wr *bad_send;
	struct vrt_flush f = { .cqe.done = vrt_flush_done };
	struct ib_recv_wr rwr = { .wr_cqe = &f.cqe };
	struct ib_ud_wr udwr = {
		.wr = {
			.wr_cqe = &f.cqe,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_qpn = 1,
		.remote_qkey = 0x11111111,
	};
	struct ib_send_wr *swr = &udwr.wr;
	struct rdma_ah_attr ah_attr;
	struct ib_qp_attr attr = {};
	unsigned int i, nrecv = 8;
	struct ib_qp *qp;
	int mask;

	vrt_get_pd_cq(test, t);
	if (type == IB_QPT_UD) {
		/* UD sends carry an address vector: the WR is an ib_ud_wr. */
		KUNIT_ASSERT_EQ(test, vrt_self_av(t, &ah_attr), 0);
		udwr.ah = rdma_create_ah(t->pd, &ah_attr,
					 RDMA_CREATE_AH_SLEEPABLE);
		KUNIT_ASSERT_FALSE(test, IS_ERR(udwr.ah));
	}
	qp = vrt_create_qp(t, type, 16, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));

	/* Posting receives in RESET is an error. */
	KUNIT_EXPECT_NE(test, ib_post_recv(qp, &rwr, &bad_recv), 0);

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	if (type == IB_QPT_UD) {
		attr.qkey = 0x11111111;
		mask |= IB_QP_QKEY;
	} else {
		mask |= IB_QP_ACCESS_FLAGS;
	}
	KUNIT_ASSERT_EQ(test, vrt_modify(qp, &attr, mask), 0);
	/* Sends before RTS are refused by the driver. */
	KUNIT_EXPECT_EQ(test, ib_post_send(qp, swr, &bad_send), -EINVAL);
	for (i = 0; i < nrecv; i++)
		KUNIT_ASSERT_EQ(test, ib_post_recv(qp, &rwr, &bad_recv), 0);
	KUNIT_EXPECT_EQ(test, ib_process_cq_direct(t->cq, -1), 0);

	attr.qp_state = IB_QPS_ERR;
	KUNIT_ASSERT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE), 0);
	/* The device flushed before completing the command. */
	ib_process_cq_direct(t->cq, -1);
	KUNIT_EXPECT_EQ(test, f.done, nrecv);
	KUNIT_EXPECT_EQ(test, f.flushed, nrecv);

	/* WRs posted in ERR are flushed too, after their doorbell. */
	KUNIT_ASSERT_EQ(test, ib_post_send(qp, swr, &bad_send), 0);
	KUNIT_ASSERT_EQ(test, ib_post_recv(qp, &rwr, &bad_recv), 0);
	for (i = 0; i < 200 && f.done < nrecv + 2; i++) {
		ib_process_cq_direct(t->cq, -1);
		msleep(20);
	}
	KUNIT_EXPECT_EQ(test, f.done, nrecv + 2);
	KUNIT_EXPECT_EQ(test, f.flushed, nrecv + 2);

	/* And ib_drain_qp(), which every kernel ULP uses, returns. */
	ib_drain_qp(qp);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	if (udwr.ah)
		rdma_destroy_ah(udwr.ah, RDMA_DESTROY_AH_SLEEPABLE);
}

static void vrt_flush_rc(struct kunit *test)
{
	vrt_flush(test, IB_QPT_RC);
}

static void vrt_flush_ud(struct kunit *test)
{
	vrt_flush(test, IB_QPT_UD);
}

struct vrt_event {
	struct completion done;
	atomic_t comp;
};

static void vrt_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct vrt_event *e = ctx;

	atomic_inc(&e->comp);
	complete(&e->done);
}

/* An armed CQ gets a completion event (eventq COMP) for a new CQE. */
static void vrt_cq_event(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct ib_cq_init_attr cattr = { .cqe = 16, .comp_vector = 1 };
	const struct ib_recv_wr *bad;
	struct ib_recv_wr rwr = { .wr_id = 42 };
	struct ib_qp_attr attr = {};
	struct ib_qp_init_attr init;
	struct vrt_event e;
	struct ib_qp *qp;
	struct ib_cq *cq;
	struct ib_wc wc;

	init_completion(&e.done);
	atomic_set(&e.comp, 0);
	vrt_get_pd_cq(test, t);
	cattr.comp_vector %= t->ib->num_comp_vectors;
	cq = ib_create_cq(t->ib, vrt_comp_handler, NULL, &e, &cattr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));

	memset(&init, 0, sizeof(init));
	init.send_cq = cq;
	init.recv_cq = cq;
	init.qp_type = IB_QPT_RC;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = 4;
	init.cap.max_recv_sge = 1;
	qp = ib_create_qp(t->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	KUNIT_ASSERT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE |
					 IB_QP_PKEY_INDEX | IB_QP_PORT |
					 IB_QP_ACCESS_FLAGS), 0);
	KUNIT_ASSERT_EQ(test, ib_post_recv(qp, &rwr, &bad), 0);

	/* Nothing pending: arming reports no missed event. */
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 0);
	attr.qp_state = IB_QPS_ERR;
	KUNIT_ASSERT_EQ(test, vrt_modify(qp, &attr, IB_QP_STATE), 0);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&e.done, 5 * HZ), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&e.comp), 1);

	/* A CQE is there: arming again reports it, and polling returns it. */
	KUNIT_EXPECT_EQ(test, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
					       IB_CQ_REPORT_MISSED_EVENTS), 1);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 42);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_WR_FLUSH_ERR);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, qp);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 0);

	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	ib_destroy_cq(cq);
}

/* GID index of ::ffff:127.0.0.1 on the device's port, or -1. */
static int vrt_loopback_gid(struct vrt *t)
{
	const struct ib_gid_attr *a;
	union ib_gid gid = {};
	int i;

	gid.raw[10] = 0xff;
	gid.raw[11] = 0xff;
	gid.raw[12] = 127;
	gid.raw[15] = 1;
	for (i = 0; i < t->ib->port_data[1].immutable.gid_tbl_len; i++) {
		a = rdma_get_gid_attr(t->ib, 1, i);
		if (IS_ERR(a))
			continue;
		if (!memcmp(&a->gid, &gid, sizeof(gid))) {
			rdma_put_gid_attr(a);
			return i;
		}
		rdma_put_gid_attr(a);
	}
	return -1;
}

/* Polls @n completions within 5 s. */
static int vrt_poll(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	int got = 0, i, r;

	for (i = 0; i < 500 && got < n; i++) {
		r = ib_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep_range(5000, 10000);
	}
	return got;
}

struct vrt_lb {
	struct ib_qp *qp;
	struct ib_mr *mr;
	void *buf;
	u64 dma;
	struct rdma_ah_attr av;
};

static void vrt_lb_free(struct vrt *t, struct vrt_lb *lb)
{
	if (lb->mr && !IS_ERR(lb->mr))
		ib_dereg_mr(lb->mr);
	if (lb->qp && !IS_ERR(lb->qp))
		ib_destroy_qp(lb->qp);
	if (lb->dma)
		ib_dma_unmap_single(t->ib, lb->dma, 2 * PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
}

/* A QP connected to itself over ::ffff:127.0.0.1 (lo), in RTS. */
static void vrt_lb_setup(struct kunit *test, struct vrt *t, struct vrt_lb *lb,
			 enum ib_qp_type type)
{
	struct ib_qp_init_attr init = {
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 8,
			.max_recv_wr = 8,
			.max_send_sge = 2,
			.max_recv_sge = 2,
			.max_inline_data = 64,
		},
	};
	const struct ib_gid_attr *sgid;
	struct ib_qp_attr attr = {};
	union ib_gid dgid;
	int idx, mask;

	vrt_get_pd_cq(test, t);
	idx = vrt_loopback_gid(t);
	if (idx < 0)
		kunit_skip(test, "no ::ffff:127.0.0.1 GID: not on lo");
	sgid = rdma_get_gid_attr(t->ib, 1, idx);
	KUNIT_ASSERT_FALSE(test, IS_ERR(sgid));
	dgid = sgid->gid;
	rdma_put_gid_attr(sgid);
	lb->av.type = rdma_ah_find_type(t->ib, 1);
	rdma_ah_set_port_num(&lb->av, 1);
	rdma_ah_set_grh(&lb->av, &dgid, 0, idx, 64, 0);

	lb->buf = kunit_kzalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lb->buf);
	lb->dma = ib_dma_map_single(t->ib, lb->buf, 2 * PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_FALSE(test, ib_dma_mapping_error(t->ib, lb->dma));

	init.send_cq = t->cq;
	init.recv_cq = t->cq;
	lb->qp = ib_create_qp(t->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lb->qp));

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	if (type == IB_QPT_UD) {
		attr.qkey = 0x11111111;
		mask |= IB_QP_QKEY;
	} else {
		attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ;
		mask |= IB_QP_ACCESS_FLAGS;
	}
	KUNIT_ASSERT_EQ(test, vrt_modify(lb->qp, &attr, mask), 0);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	mask = IB_QP_STATE;
	if (type == IB_QPT_RC) {
		attr.ah_attr = lb->av;
		attr.path_mtu = IB_MTU_1024;
		attr.dest_qp_num = lb->qp->qp_num;
		attr.max_dest_rd_atomic = 4;
		attr.min_rnr_timer = 12;
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			IB_QP_MIN_RNR_TIMER;
	}
	KUNIT_ASSERT_EQ(test, vrt_modify(lb->qp, &attr, mask), 0);

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (type == IB_QPT_RC) {
		attr.timeout = 14;
		attr.retry_cnt = 7;
		attr.rnr_retry = 7;
		attr.max_rd_atomic = 4;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	}
	KUNIT_ASSERT_EQ(test, vrt_modify(lb->qp, &attr, mask), 0);
}

/* RC to itself: SEND with immediate, inline SEND, fast-reg, RDMA WRITE/READ. */
static void vrt_rc_traffic(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct vrt_lb lb = {};
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;
	u32 lkey = 0;
	struct ib_sge sge, rsge;
	struct ib_recv_wr rwr = { .wr_id = 100, .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr swr = {};
	struct ib_rdma_wr rdma = {};
	struct ib_reg_wr reg = {};
	struct scatterlist sg;
	struct ib_wc *wc;
	u8 *src, *dst;
	int i;

	/* Off the stack: KASAN makes this frame too large otherwise. */
	wc = kunit_kcalloc(test, 2, sizeof(*wc), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, wc);
	vrt_lb_setup(test, t, &lb, IB_QPT_RC);
	lkey = t->pd->local_dma_lkey;
	src = lb.buf;
	dst = lb.buf + PAGE_SIZE;
	for (i = 0; i < 256; i++)
		src[i] = i;

	/* SEND with immediate data into a posted receive */
	rsge = (struct ib_sge){ lb.dma + PAGE_SIZE, 256, lkey };
	KUNIT_ASSERT_EQ(test, ib_post_recv(lb.qp, &rwr, &rbad), 0);
	sge = (struct ib_sge){ lb.dma, 200, lkey };
	swr.wr_id = 1;
	swr.sg_list = &sge;
	swr.num_sge = 1;
	swr.opcode = IB_WR_SEND_WITH_IMM;
	swr.send_flags = IB_SEND_SIGNALED;
	swr.ex.imm_data = cpu_to_be32(0x12345678);
	ib_dma_sync_single_for_device(t->ib, lb.dma, 2 * PAGE_SIZE,
				      DMA_BIDIRECTIONAL);
	KUNIT_ASSERT_EQ(test, ib_post_send(lb.qp, &swr, &bad), 0);
	KUNIT_ASSERT_EQ(test, vrt_poll(t->cq, wc, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].opcode == IB_WC_RECV) {
			KUNIT_EXPECT_EQ(test, wc[i].wr_id, 100);
			KUNIT_EXPECT_EQ(test, wc[i].byte_len, 200);
			KUNIT_EXPECT_TRUE(test, wc[i].wc_flags & IB_WC_WITH_IMM);
			KUNIT_EXPECT_EQ(test, be32_to_cpu(wc[i].ex.imm_data),
					0x12345678);
		} else {
			KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_SEND);
			KUNIT_EXPECT_EQ(test, wc[i].wr_id, 1);
		}
	}
	ib_dma_sync_single_for_cpu(t->ib, lb.dma, 2 * PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_EQ(test, memcmp(src, dst, 200), 0);

	/* Inline SEND: the data travels in the WQE */
	memset(dst, 0, 256);
	KUNIT_ASSERT_EQ(test, ib_post_recv(lb.qp, &rwr, &rbad), 0);
	sge = (struct ib_sge){ (uintptr_t)src + 16, 48, 0 };
	swr.opcode = IB_WR_SEND;
	swr.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE;
	KUNIT_ASSERT_EQ(test, ib_post_send(lb.qp, &swr, &bad), 0);
	KUNIT_ASSERT_EQ(test, vrt_poll(t->cq, wc, 2), 2);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[1].status, IB_WC_SUCCESS);
	ib_dma_sync_single_for_cpu(t->ib, lb.dma, 2 * PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_EQ(test, memcmp(src + 16, dst, 48), 0);

	/* Fast registration of the second page for remote access */
	lb.mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(lb.mr));
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = lb.dma + PAGE_SIZE;
	sg_dma_len(&sg) = PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(lb.mr, &sg, 1, NULL, PAGE_SIZE), 1);
	ib_update_fast_reg_key(lb.mr, ib_inc_rkey(lb.mr->rkey) & 0xff);
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_id = 2;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = lb.mr;
	reg.key = lb.mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, ib_post_send(lb.qp, &reg.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, vrt_poll(t->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_REG_MR);

	/* RDMA WRITE src -> MR, then RDMA READ MR -> src + 1024 */
	memset(dst, 0, 256);
	ib_dma_sync_single_for_device(t->ib, lb.dma, 2 * PAGE_SIZE,
				      DMA_BIDIRECTIONAL);
	sge = (struct ib_sge){ lb.dma, 128, lkey };
	rdma.wr.wr_id = 3;
	rdma.wr.sg_list = &sge;
	rdma.wr.num_sge = 1;
	rdma.wr.opcode = IB_WR_RDMA_WRITE;
	rdma.wr.send_flags = IB_SEND_SIGNALED;
	rdma.remote_addr = lb.mr->iova + 64;
	rdma.rkey = lb.mr->rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(lb.qp, &rdma.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, vrt_poll(t->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_RDMA_WRITE);
	sge = (struct ib_sge){ lb.dma + 1024, 128, lkey };
	rdma.wr.wr_id = 4;
	rdma.wr.opcode = IB_WR_RDMA_READ;
	KUNIT_ASSERT_EQ(test, ib_post_send(lb.qp, &rdma.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, vrt_poll(t->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, wc[0].byte_len, 128);
	ib_dma_sync_single_for_cpu(t->ib, lb.dma, 2 * PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_EQ(test, memcmp(src, dst + 64, 128), 0);
	KUNIT_EXPECT_EQ(test, memcmp(src, src + 1024, 128), 0);

	/* LOCAL_INV, signalled */
	swr = (struct ib_send_wr){ .wr_id = 5, .opcode = IB_WR_LOCAL_INV,
				   .send_flags = IB_SEND_SIGNALED,
				   .ex.invalidate_rkey = lb.mr->rkey };
	KUNIT_ASSERT_EQ(test, ib_post_send(lb.qp, &swr, &bad), 0);
	KUNIT_ASSERT_EQ(test, vrt_poll(t->cq, wc, 1), 1);
	KUNIT_EXPECT_EQ(test, wc[0].status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc[0].opcode, IB_WC_LOCAL_INV);
	vrt_lb_free(t, &lb);
}

/* UD to itself: the receive carries the GRH and the network header type. */
static void vrt_ud_traffic(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct vrt_lb lb = {};
	const struct ib_send_wr *bad;
	const struct ib_recv_wr *rbad;
	struct ib_sge sge, rsge;
	struct ib_recv_wr rwr = { .wr_id = 100, .sg_list = &rsge, .num_sge = 1 };
	struct ib_ud_wr ud = {};
	struct ib_wc wc[2];
	u8 *src, *dst;
	int i;

	vrt_lb_setup(test, t, &lb, IB_QPT_UD);
	ud.ah = rdma_create_ah(t->pd, &lb.av, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ud.ah));
	src = lb.buf;
	dst = lb.buf + PAGE_SIZE;
	for (i = 0; i < 256; i++)
		src[i] = 255 - i;
	ib_dma_sync_single_for_device(t->ib, lb.dma, 2 * PAGE_SIZE,
				      DMA_BIDIRECTIONAL);

	rsge = (struct ib_sge){ lb.dma + PAGE_SIZE, 40 + 256,
				t->pd->local_dma_lkey };
	KUNIT_ASSERT_EQ(test, ib_post_recv(lb.qp, &rwr, &rbad), 0);
	sge = (struct ib_sge){ lb.dma, 100, t->pd->local_dma_lkey };
	ud.wr.wr_id = 1;
	ud.wr.sg_list = &sge;
	ud.wr.num_sge = 1;
	ud.wr.opcode = IB_WR_SEND;
	ud.wr.send_flags = IB_SEND_SIGNALED;
	ud.remote_qpn = lb.qp->qp_num;
	ud.remote_qkey = 0x11111111;
	KUNIT_ASSERT_EQ(test, ib_post_send(lb.qp, &ud.wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, vrt_poll(t->cq, wc, 2), 2);
	for (i = 0; i < 2; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_SUCCESS);
		if (wc[i].opcode != IB_WC_RECV)
			continue;
		KUNIT_EXPECT_EQ(test, wc[i].byte_len, 40 + 100);
		KUNIT_EXPECT_TRUE(test, wc[i].wc_flags & IB_WC_GRH);
		KUNIT_EXPECT_TRUE(test, wc[i].wc_flags &
				  IB_WC_WITH_NETWORK_HDR_TYPE);
		KUNIT_EXPECT_EQ(test, wc[i].network_hdr_type,
				RDMA_NETWORK_IPV4);
		KUNIT_EXPECT_EQ(test, wc[i].src_qp, lb.qp->qp_num);
	}
	ib_dma_sync_single_for_cpu(t->ib, lb.dma, 2 * PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
	KUNIT_EXPECT_EQ(test, memcmp(src, dst + 40, 100), 0);
	rdma_destroy_ah(ud.ah, RDMA_DESTROY_AH_SLEEPABLE);
	vrt_lb_free(t, &lb);
}

static void vrt_port(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct ib_port_attr pattr, aattr;
	spinlock_t lock;	/* a caller that cannot sleep */
	u16 pkey;
	int ret;

	/* Callers that cannot sleep get the same answer, without a command. */
	spin_lock_init(&lock);
	spin_lock(&lock);
	ret = ib_query_port(t->ib, 1, &aattr);
	spin_unlock(&lock);
	KUNIT_EXPECT_EQ(test, ret, 0);

	KUNIT_ASSERT_EQ(test, ib_query_port(t->ib, 1, &pattr), 0);
	KUNIT_EXPECT_EQ(test, aattr.state, pattr.state);
	KUNIT_EXPECT_EQ(test, aattr.active_mtu, pattr.active_mtu);
	KUNIT_EXPECT_EQ(test, aattr.max_mtu, pattr.max_mtu);
	KUNIT_EXPECT_EQ(test, aattr.gid_tbl_len, pattr.gid_tbl_len);
	KUNIT_EXPECT_EQ(test, aattr.port_cap_flags, pattr.port_cap_flags);
	KUNIT_EXPECT_EQ(test, rdma_port_get_link_layer(t->ib, 1),
			IB_LINK_LAYER_ETHERNET);
	KUNIT_EXPECT_TRUE(test, rdma_protocol_roce_udp_encap(t->ib, 1));
	KUNIT_EXPECT_FALSE(test, rdma_protocol_roce_eth_encap(t->ib, 1));
	KUNIT_EXPECT_GE(test, pattr.gid_tbl_len, 1);
	KUNIT_EXPECT_EQ(test, ib_query_pkey(t->ib, 1, 0, &pkey), 0);
	KUNIT_EXPECT_EQ(test, pkey, 0xffff);
	KUNIT_EXPECT_TRUE(test, t->ib->kverbs_provider);
	KUNIT_EXPECT_TRUE(test, t->attr.device_cap_flags &
			  IB_DEVICE_MEM_MGT_EXTENSIONS);
}

/*
 * XRC (VIRTIO_RDMA_F_XRC).  Kernel callers get no XRC_INI QPs and no XRC
 * SRQs (user space only); without the feature there are no XRC domains
 * either.  With it, a domain and a target QP (which has no rings, and is
 * the same for kernel and user callers) go through their life.
 */
static void vrt_xrc(struct kunit *test)
{
	struct vrt *t = vrt_get(test);
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_XRC_INI,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct ib_srq_init_attr sattr = {
		.srq_type = IB_SRQT_XRC,
		.attr = { .max_wr = 4, .max_sge = 1 },
	};
	struct ib_qp_init_attr *qinit;
	struct ib_qp_attr *attr;
	struct ib_xrcd *xrcd;
	struct ib_srq *srq;
	struct ib_qp *qp;

	vrt_get_pd_cq(test, t);
	init.send_cq = t->cq;
	qp = ib_create_qp(t->pd, &init);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(qp), -EOPNOTSUPP);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);

	if (!(t->attr.device_cap_flags & IB_DEVICE_XRC)) {
		xrcd = ib_alloc_xrcd_user(t->ib, NULL, NULL);
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(xrcd), -EOPNOTSUPP);
		if (!IS_ERR(xrcd))
			ib_dealloc_xrcd_user(xrcd, NULL);
		return;
	}

	/* Off the stack: the frame would pass the kernel's limit. */
	attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);
	qinit = kunit_kzalloc(test, sizeof(*qinit), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, attr && qinit);
	xrcd = ib_alloc_xrcd_user(t->ib, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(xrcd));
	sattr.ext.xrc.xrcd = xrcd;
	sattr.ext.cq = t->cq;
	srq = ib_create_srq(t->pd, &sattr);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(srq), -EOPNOTSUPP);
	if (!IS_ERR(srq))
		ib_destroy_srq(srq);

	memset(&init, 0, sizeof(init));
	init.qp_type = IB_QPT_XRC_TGT;
	init.xrcd = xrcd;
	qp = ib_create_qp(t->pd, &init);
	KUNIT_ASSERT_FALSE(test, IS_ERR(qp));
	KUNIT_EXPECT_GE(test, qp->qp_num, 2);
	KUNIT_EXPECT_EQ(test, init.cap.max_send_wr, 0);
	KUNIT_EXPECT_EQ(test, init.cap.max_recv_wr, 0);
	attr->qp_state = IB_QPS_INIT;
	attr->port_num = 1;
	attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	KUNIT_EXPECT_EQ(test, ib_modify_qp(qp, attr, IB_QP_STATE |
					   IB_QP_PKEY_INDEX | IB_QP_PORT |
					   IB_QP_ACCESS_FLAGS), 0);
	memset(attr, 0, sizeof(*attr));
	KUNIT_EXPECT_EQ(test, ib_query_qp(qp, attr, IB_QP_STATE, qinit), 0);
	KUNIT_EXPECT_EQ(test, attr->qp_state, IB_QPS_INIT);
	KUNIT_EXPECT_EQ(test, attr->cap.max_send_wr, 0);
	KUNIT_EXPECT_EQ(test, qinit->qp_type, IB_QPT_XRC_TGT);
	KUNIT_EXPECT_NULL(test, qinit->send_cq);
	KUNIT_EXPECT_EQ(test, ib_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, ib_dealloc_xrcd_user(xrcd, NULL), 0);
}

static struct kunit_case vrt_cases[] = {
	KUNIT_CASE(vrt_port),
	KUNIT_CASE_SLOW(vrt_pd_loop),
	KUNIT_CASE_SLOW(vrt_cq_loop),
	KUNIT_CASE_SLOW(vrt_qp_rc_loop),
	KUNIT_CASE_SLOW(vrt_qp_ud_loop),
	KUNIT_CASE_SLOW(vrt_mr_loop),
	KUNIT_CASE(vrt_ah_loop),
	KUNIT_CASE(vrt_limits),
	KUNIT_CASE(vrt_bad_transitions),
	KUNIT_CASE(vrt_flush_rc),
	KUNIT_CASE(vrt_flush_ud),
	KUNIT_CASE(vrt_cq_event),
	KUNIT_CASE(vrt_rc_traffic),
	KUNIT_CASE(vrt_ud_traffic),
	KUNIT_CASE(vrt_xrc),
	{}
};

static struct kunit_suite vrt_suite = {
	.name = "virtio_rdma_verbs",
	.init = vrt_init,
	.exit = vrt_exit,
	.test_cases = vrt_cases,
};

kunit_test_suite(vrt_suite);

MODULE_DESCRIPTION("KUnit: virtio_rdma through the kernel verbs API");
MODULE_LICENSE("Dual BSD/GPL");
