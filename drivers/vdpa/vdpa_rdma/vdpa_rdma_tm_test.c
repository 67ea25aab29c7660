// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * The tag list of a TM-SRQ (vdr_tm.c) without a device: matching in ADD
 * order under each entry's mask, entries added while software is behind
 * the unexpected messages (sw_cnt != hw_cnt) inactive until a sync,
 * SYNC_REQ in the ops' CQEs, refused ADDs and DELs (TM_ERR, reported
 * even unsignaled), the release of an index, and how a SEND's first
 * packet is classified by its TMH.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "vdpa_rdma.h"
#include "vdr_tm.h"

#define TAGS		8

static int env_init(struct kunit *test)
{
	struct vdr_tm *tm = kunit_kzalloc(test, sizeof(*tm), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tm);
	KUNIT_ASSERT_EQ(test, vdr_tm_init(tm, TAGS, VDR_TM_MAX_SGE,
					  GFP_KERNEL), 0);
	test->priv = tm;
	return 0;
}

static void env_exit(struct kunit *test)
{
	vdr_tm_fini(test->priv);
}

static u32 handle(u32 index, u32 gen)
{
	return index | gen << 16;
}

/* Apply an op; returns its CQE status, or -1 when it writes no CQE. */
static int op(struct kunit *test, u8 opcode, u8 flags, u32 h, u64 tag,
	      u64 mask, u8 num_sge, u32 cnt, struct vdr_tm_op_res *res)
{
	struct virtio_rdma_sge sge[VDR_TM_MAX_SGE] = { };
	struct virtio_rdma_tm_op o = { };

	o.wr_id = cpu_to_le64(0x77);
	o.recv_wr_id = cpu_to_le64(0x1000 + h);
	o.tag = cpu_to_le64(tag);
	o.mask = cpu_to_le64(mask);
	o.handle = cpu_to_le32(h);
	o.unexpected_cnt = cpu_to_le32(cnt);
	o.opcode = opcode;
	o.flags = flags;
	o.num_sge = num_sge;
	KUNIT_EXPECT_EQ(test, vdr_tm_op(test->priv, &o, sge, res), 0);
	return res->cqe ? res->status : -1;
}

static int add(struct kunit *test, u32 h, u64 tag, u64 mask)
{
	struct vdr_tm_op_res res;

	return op(test, VIRTIO_RDMA_TM_OP_ADD, VIRTIO_RDMA_TM_OP_F_SIGNALED,
		  h, tag, mask, 1, 0, &res);
}

static u32 match(struct kunit *test, u64 tag)
{
	struct vdr_tm_entry *e = vdr_tm_match(test->priv, tag);

	return e ? e->handle : 0;
}

static void match_order_and_mask(struct kunit *test)
{
	struct vdr_tm *tm = test->priv;

	KUNIT_EXPECT_EQ(test, add(test, handle(3, 1), 0x1234, 0xffff), 0);
	KUNIT_EXPECT_EQ(test, add(test, handle(1, 1), 0xab00, 0xff00), 0);
	KUNIT_EXPECT_EQ(test, add(test, handle(2, 1), 0x5634, 0x00ff), 0);
	/* Both 3 and 2 match 0x1234 under their masks: ADD order wins. */
	KUNIT_EXPECT_EQ(test, match(test, 0x1234), handle(3, 1));
	KUNIT_EXPECT_EQ(test, match(test, 0xff34), handle(2, 1));
	KUNIT_EXPECT_EQ(test, match(test, 0xabcd), handle(1, 1));
	/* Bits outside the mask do not count; inside they do. */
	KUNIT_EXPECT_EQ(test, match(test, 0xffff00001234ULL), handle(3, 1));
	KUNIT_EXPECT_EQ(test, match(test, 0x1235), 0U);
	/* Consumed: the next in order takes the tag. */
	vdr_tm_consume(tm, vdr_tm_match(tm, 0x1234));
	KUNIT_EXPECT_EQ(test, match(test, 0x1234), handle(2, 1));
	/* A zero mask matches anything. */
	KUNIT_EXPECT_EQ(test, add(test, handle(0, 1), 0, 0), 0);
	KUNIT_EXPECT_EQ(test, match(test, 0xdead), handle(0, 1));
}

static void inactive_until_sync(struct kunit *test)
{
	struct vdr_tm *tm = test->priv;
	struct vdr_tm_op_res res;

	KUNIT_EXPECT_EQ(test, add(test, handle(0, 1), 1, ~0ULL), 0);
	/* An unexpected message was delivered: software is behind. */
	tm->hw_cnt++;
	op(test, VIRTIO_RDMA_TM_OP_ADD, VIRTIO_RDMA_TM_OP_F_SIGNALED,
	   handle(1, 1), 2, ~0ULL, 1, 0, &res);
	KUNIT_EXPECT_EQ(test, res.status, VIRTIO_RDMA_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, res.tm_flags, VIRTIO_RDMA_TM_F_SYNC_REQ);
	/* The entry posted before stays active, the new one is not. */
	KUNIT_EXPECT_EQ(test, match(test, 1), handle(0, 1));
	KUNIT_EXPECT_EQ(test, match(test, 2), 0U);
	/* A sync with a stale count changes nothing. */
	op(test, VIRTIO_RDMA_TM_OP_SYNC,
	   VIRTIO_RDMA_TM_OP_F_SIGNALED | VIRTIO_RDMA_TM_OP_F_SYNC, 0, 0, 0, 0,
	   0, &res);
	KUNIT_EXPECT_EQ(test, res.wc_opcode, VIRTIO_RDMA_WC_OP_TM_SYNC);
	KUNIT_EXPECT_EQ(test, res.tm_flags, VIRTIO_RDMA_TM_F_SYNC_REQ);
	KUNIT_EXPECT_EQ(test, match(test, 2), 0U);
	/* Caught up: every posted entry becomes active. */
	op(test, VIRTIO_RDMA_TM_OP_SYNC,
	   VIRTIO_RDMA_TM_OP_F_SIGNALED | VIRTIO_RDMA_TM_OP_F_SYNC, 0, 0, 0, 0,
	   1, &res);
	KUNIT_EXPECT_EQ(test, res.status, VIRTIO_RDMA_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, res.tm_flags, 0);
	KUNIT_EXPECT_EQ(test, match(test, 2), handle(1, 1));
	KUNIT_EXPECT_FALSE(test, res.release);
}

static void sync_flag_before_add(struct kunit *test)
{
	struct vdr_tm *tm = test->priv;
	struct vdr_tm_op_res res;

	tm->hw_cnt = 5;
	/* F_SYNC applies before the ADD: it is active at once. */
	op(test, VIRTIO_RDMA_TM_OP_ADD,
	   VIRTIO_RDMA_TM_OP_F_SIGNALED | VIRTIO_RDMA_TM_OP_F_SYNC,
	   handle(4, 9), 7, ~0ULL, 1, 5, &res);
	KUNIT_EXPECT_EQ(test, res.status, VIRTIO_RDMA_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, res.tm_flags, 0);
	KUNIT_EXPECT_EQ(test, match(test, 7), handle(4, 9));
	/* Unsignaled and fine: no CQE. */
	KUNIT_EXPECT_EQ(test, op(test, VIRTIO_RDMA_TM_OP_ADD, 0, handle(5, 1),
				 8, ~0ULL, 0, 0, &res), -1);
	KUNIT_EXPECT_EQ(test, match(test, 8), handle(5, 1));
}

static void del_rules(struct kunit *test)
{
	struct vdr_tm *tm = test->priv;
	struct vdr_tm_op_res res;

	KUNIT_EXPECT_EQ(test, add(test, handle(2, 7), 1, ~0ULL), 0);
	/* A stale handle of the same index (an older generation): refused. */
	KUNIT_EXPECT_EQ(test, op(test, VIRTIO_RDMA_TM_OP_DEL, 0, handle(2, 6),
				 0, 0, 0, 0, &res), VIRTIO_RDMA_WC_TM_ERR);
	KUNIT_EXPECT_EQ(test, res.wc_opcode, VIRTIO_RDMA_WC_OP_TM_DEL);
	KUNIT_EXPECT_FALSE(test, res.release);
	KUNIT_EXPECT_EQ(test, match(test, 1), handle(2, 7));
	/* Out of range, or an index never used: refused. */
	KUNIT_EXPECT_EQ(test, op(test, VIRTIO_RDMA_TM_OP_DEL, 0,
				 handle(TAGS, 1), 0, 0, 0, 0, &res),
			VIRTIO_RDMA_WC_TM_ERR);
	KUNIT_EXPECT_EQ(test, op(test, VIRTIO_RDMA_TM_OP_DEL, 0, handle(3, 1),
				 0, 0, 0, 0, &res), VIRTIO_RDMA_WC_TM_ERR);
	/* The right handle, unsignaled: removed, released, no CQE. */
	KUNIT_EXPECT_EQ(test, op(test, VIRTIO_RDMA_TM_OP_DEL, 0, handle(2, 7),
				 0, 0, 0, 0, &res), -1);
	KUNIT_EXPECT_TRUE(test, res.release);
	KUNIT_EXPECT_EQ(test, res.rel_index, 2U);
	KUNIT_EXPECT_EQ(test, res.rel_handle, handle(2, 7));
	KUNIT_EXPECT_EQ(test, match(test, 1), 0U);
	/* A consumed entry cannot be deleted: its message owns it. */
	KUNIT_EXPECT_EQ(test, add(test, handle(2, 8), 1, ~0ULL), 0);
	vdr_tm_consume(tm, vdr_tm_match(tm, 1));
	KUNIT_EXPECT_EQ(test, op(test, VIRTIO_RDMA_TM_OP_DEL,
				 VIRTIO_RDMA_TM_OP_F_SIGNALED, handle(2, 8), 0,
				 0, 0, 0, &res), VIRTIO_RDMA_WC_TM_ERR);
	KUNIT_EXPECT_FALSE(test, res.release);
}

static void add_refusals(struct kunit *test)
{
	struct vdr_tm_op_res res;

	/* Errors are reported unsignaled too. */
	KUNIT_EXPECT_EQ(test, op(test, VIRTIO_RDMA_TM_OP_ADD, 0,
				 handle(TAGS, 1), 1, ~0ULL, 1, 0, &res),
			VIRTIO_RDMA_WC_TM_ERR);
	KUNIT_EXPECT_FALSE(test, res.release);	/* no word to write */
	KUNIT_EXPECT_EQ(test, op(test, VIRTIO_RDMA_TM_OP_ADD, 0, handle(1, 0),
				 1, ~0ULL, 1, 0, &res), VIRTIO_RDMA_WC_TM_ERR);
	KUNIT_EXPECT_TRUE(test, res.release);
	KUNIT_EXPECT_EQ(test, res.rel_handle, handle(1, 0));
	KUNIT_EXPECT_EQ(test, op(test, VIRTIO_RDMA_TM_OP_ADD, 0, handle(1, 1),
				 1, ~0ULL, VDR_TM_MAX_SGE + 1, 0, &res),
			VIRTIO_RDMA_WC_TM_ERR);
	KUNIT_EXPECT_TRUE(test, res.release);
	KUNIT_EXPECT_EQ(test, res.rel_index, 1U);
	KUNIT_EXPECT_EQ(test, match(test, 1), 0U);
	/* The index in use: refused, the entry there stays. */
	KUNIT_EXPECT_EQ(test, add(test, handle(1, 2), 1, ~0ULL), 0);
	KUNIT_EXPECT_EQ(test, add(test, handle(1, 3), 2, ~0ULL),
			VIRTIO_RDMA_WC_TM_ERR);
	KUNIT_EXPECT_EQ(test, match(test, 1), handle(1, 2));
	KUNIT_EXPECT_EQ(test, match(test, 2), 0U);
}

static void release_frees_index(struct kunit *test)
{
	struct vdr_tm *tm = test->priv;

	KUNIT_EXPECT_EQ(test, add(test, handle(6, 0xffff), 1, ~0ULL), 0);
	/* Posted: only a DEL lets it go. */
	KUNIT_EXPECT_FALSE(test, vdr_tm_release(tm, handle(6, 0xffff)));
	vdr_tm_consume(tm, vdr_tm_match(tm, 1));
	/* Consumed: the index stays taken until the last completion. */
	KUNIT_EXPECT_EQ(test, add(test, handle(6, 1), 1, ~0ULL),
			VIRTIO_RDMA_WC_TM_ERR);
	KUNIT_EXPECT_FALSE(test, vdr_tm_release(tm, handle(6, 1)));
	KUNIT_EXPECT_TRUE(test, vdr_tm_release(tm, handle(6, 0xffff)));
	KUNIT_EXPECT_FALSE(test, vdr_tm_release(tm, handle(6, 0xffff)));
	KUNIT_EXPECT_FALSE(test, vdr_tm_release(tm, handle(TAGS, 1)));
	/* The generation wrapped from 0xffff to 1: reused. */
	KUNIT_EXPECT_EQ(test, add(test, handle(6, 1), 1, ~0ULL), 0);
	KUNIT_EXPECT_EQ(test, match(test, 1), handle(6, 1));
}

static void unknown_opcode(struct kunit *test)
{
	struct virtio_rdma_tm_op o = { .opcode = 3 };
	struct vdr_tm_op_res res;

	KUNIT_EXPECT_EQ(test, vdr_tm_op(test->priv, &o, NULL, &res), -EINVAL);
}

static void ops_stride(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vdr_tm_ops_max_sge(0), 0U);
	KUNIT_EXPECT_EQ(test, vdr_tm_ops_max_sge(1), 4U);
	KUNIT_EXPECT_EQ(test, vdr_tm_ops_max_sge(3), (u32)VDR_TM_MAX_SGE);
}

static void sge_trim(struct kunit *test)
{
	struct virtio_rdma_sge s[3] = { };
	int i;

	for (i = 0; i < 3; i++)
		s[i].length = cpu_to_le32(100);
	KUNIT_EXPECT_EQ(test, vdr_tm_sge_trim(s, 3, 300), 3U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[2].length), 100U);
	KUNIT_EXPECT_EQ(test, vdr_tm_sge_trim(s, 3, 150), 2U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[1].length), 50U);
	KUNIT_EXPECT_EQ(test, vdr_tm_sge_trim(s, 3, 0), 0U);
}

static void classify(struct kunit *test)
{
	u8 buf[VDR_TM_MAX_RNDV_HDR + 1] = { };
	struct virtio_rdma_tmh *tmh = (void *)buf;

	tmh->opcode = VIRTIO_RDMA_TMH_EAGER;
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, 16, true), VDR_TM_MSG_EAGER);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, 15, true), VDR_TM_MSG_RECV);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, 4096, false),
			VDR_TM_MSG_EAGER);
	tmh->opcode = VIRTIO_RDMA_TMH_NO_TAG;
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, 16, true), VDR_TM_MSG_NO_TAG);
	tmh->opcode = VIRTIO_RDMA_TMH_FIN;
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, 32, true), VDR_TM_MSG_RECV);
	tmh->opcode = 0x7f;
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, 32, true), VDR_TM_MSG_RECV);
	/* A rendezvous request: one packet, TMH and RVH, within the limit. */
	tmh->opcode = VIRTIO_RDMA_TMH_RNDV;
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, 32, true), VDR_TM_MSG_RNDV);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, VDR_TM_MAX_RNDV_HDR, true),
			VDR_TM_MSG_RNDV);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, 31, true), VDR_TM_MSG_UNEXP);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, VDR_TM_MAX_RNDV_HDR + 1,
					      true), VDR_TM_MSG_UNEXP);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_kind(buf, 32, false), VDR_TM_MSG_UNEXP);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_wc_opcode(VDR_TM_MSG_RECV),
			VIRTIO_RDMA_WC_OP_RECV);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_wc_opcode(VDR_TM_MSG_NO_TAG),
			VIRTIO_RDMA_WC_OP_TM_NO_TAG);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_wc_opcode(VDR_TM_MSG_UNEXP),
			VIRTIO_RDMA_WC_OP_TM_RECV);
	KUNIT_EXPECT_EQ(test, vdr_tm_msg_wc_opcode(VDR_TM_MSG_EAGER),
			VIRTIO_RDMA_WC_OP_TM_RECV);
}

static struct kunit_case vdpa_rdma_tm_cases[] = {
	KUNIT_CASE(match_order_and_mask),
	KUNIT_CASE(inactive_until_sync),
	KUNIT_CASE(sync_flag_before_add),
	KUNIT_CASE(del_rules),
	KUNIT_CASE(add_refusals),
	KUNIT_CASE(release_frees_index),
	KUNIT_CASE(unknown_opcode),
	KUNIT_CASE(ops_stride),
	KUNIT_CASE(sge_trim),
	KUNIT_CASE(classify),
	{}
};

static struct kunit_suite vdpa_rdma_tm_suite = {
	.name = "vdpa_rdma_tm",
	.init = env_init,
	.exit = env_exit,
	.test_cases = vdpa_rdma_tm_cases,
};

kunit_test_suite(vdpa_rdma_tm_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit: vdpa_rdma tag matching (tag list, ops, classification)");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
