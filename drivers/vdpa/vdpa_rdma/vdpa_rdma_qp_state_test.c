// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * The emulated device's QP state machine (drivers/vdpa/vdpa_rdma/vdr_qp_state.c)
 * must accept exactly what ib_core's ib_modify_qp_is_ok() accepts: a
 * transition ib_core allows but the device refuses breaks consumers, and
 * the reverse lets a driver that skips ib_core's check drive a QP into a
 * state the device's data path does not expect.
 *
 * For every (current state, next state, QP type) the device's required and
 * optional attribute sets are checked to be exactly ib_core's: the required
 * set plus the state must pass, dropping any required bit must fail, adding
 * any optional bit must pass and adding any other bit must fail.  Then the
 * device's verdict is compared with ib_core's on structured and
 * pseudo-random attribute masks.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/virtio_rdma.h>
#include <rdma/ib_verbs.h>

#include "vdr_qp_state.h"

#define NR_STATES	(VIRTIO_RDMA_QPS_ERR + 1)
#define RANDOM_MASKS	256

/* Every attribute bit of the device ABI and the ib_core bit it stands for. */
static const struct {
	u32 abi;
	u32 ib;
} attr_bits[] = {
	{ VIRTIO_RDMA_QP_STATE, IB_QP_STATE },
	{ VIRTIO_RDMA_QP_CUR_STATE, IB_QP_CUR_STATE },
	{ VIRTIO_RDMA_QP_EN_SQD_ASYNC_NOTIFY, IB_QP_EN_SQD_ASYNC_NOTIFY },
	{ VIRTIO_RDMA_QP_ACCESS_FLAGS, IB_QP_ACCESS_FLAGS },
	{ VIRTIO_RDMA_QP_PKEY_INDEX, IB_QP_PKEY_INDEX },
	{ VIRTIO_RDMA_QP_PORT, IB_QP_PORT },
	{ VIRTIO_RDMA_QP_QKEY, IB_QP_QKEY },
	{ VIRTIO_RDMA_QP_AV, IB_QP_AV },
	{ VIRTIO_RDMA_QP_PATH_MTU, IB_QP_PATH_MTU },
	{ VIRTIO_RDMA_QP_TIMEOUT, IB_QP_TIMEOUT },
	{ VIRTIO_RDMA_QP_RETRY_CNT, IB_QP_RETRY_CNT },
	{ VIRTIO_RDMA_QP_RNR_RETRY, IB_QP_RNR_RETRY },
	{ VIRTIO_RDMA_QP_RQ_PSN, IB_QP_RQ_PSN },
	{ VIRTIO_RDMA_QP_MAX_QP_RD_ATOMIC, IB_QP_MAX_QP_RD_ATOMIC },
	{ VIRTIO_RDMA_QP_MIN_RNR_TIMER, IB_QP_MIN_RNR_TIMER },
	{ VIRTIO_RDMA_QP_SQ_PSN, IB_QP_SQ_PSN },
	{ VIRTIO_RDMA_QP_MAX_DEST_RD_ATOMIC, IB_QP_MAX_DEST_RD_ATOMIC },
	{ VIRTIO_RDMA_QP_DEST_QPN, IB_QP_DEST_QPN },
};

static const struct {
	u8 abi;
	enum ib_qp_type ib;
	const char *name;
} qp_types[] = {
	{ VIRTIO_RDMA_QPT_GSI, IB_QPT_GSI, "GSI" },
	{ VIRTIO_RDMA_QPT_RC, IB_QPT_RC, "RC" },
	{ VIRTIO_RDMA_QPT_UC, IB_QPT_UC, "UC" },
	{ VIRTIO_RDMA_QPT_UD, IB_QPT_UD, "UD" },
};

static u32 all_abi_bits(void)
{
	u32 m = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(attr_bits); i++)
		m |= attr_bits[i].abi;
	return m;
}

static enum ib_qp_attr_mask to_ib_mask(u32 abi)
{
	u32 ib = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(attr_bits); i++)
		if (abi & attr_bits[i].abi)
			ib |= attr_bits[i].ib;
	return ib;
}

static bool ib_ok(u8 cur, u8 next, int t, u32 abi_mask)
{
	return ib_modify_qp_is_ok(cur, next, qp_types[t].ib,
				  to_ib_mask(abi_mask));
}

static bool dev_ok(u8 cur, u8 next, int t, u32 abi_mask)
{
	return vdr_qp_transition_ok(cur, next, qp_types[t].abi, abi_mask);
}

static void expect_same(struct kunit *test, u8 cur, u8 next, int t, u32 mask)
{
	bool ib = ib_ok(cur, next, t, mask);
	bool dev = dev_ok(cur, next, t, mask);

	KUNIT_EXPECT_TRUE_MSG(test, ib == dev,
			      "%s %u->%u mask 0x%x: ib_core %s, device %s",
			      qp_types[t].name, cur, next, mask,
			      ib ? "accepts" : "refuses",
			      dev ? "accepts" : "refuses");
}

/* The device's required/optional sets are exactly ib_core's. */
static void check_masks(struct kunit *test, u8 cur, u8 next, int t)
{
	u32 all = all_abi_bits(), req, opt, allowed, base, bit;
	const char *n = qp_types[t].name;
	int i;

	if (!vdr_qp_transition_masks(cur, next, qp_types[t].abi, &req,
				     &opt)) {
		/* ib_core must refuse it whatever the mask. */
		KUNIT_EXPECT_FALSE_MSG(test, ib_ok(cur, next, t, 0),
				       "%s %u->%u: ib_core has it", n, cur, next);
		KUNIT_EXPECT_FALSE_MSG(test,
				       ib_ok(cur, next, t, VIRTIO_RDMA_QP_STATE),
				       "%s %u->%u: ib_core has it", n, cur, next);
		KUNIT_EXPECT_FALSE_MSG(test, ib_ok(cur, next, t, all),
				       "%s %u->%u: ib_core has it", n, cur, next);
		for (i = 0; i < ARRAY_SIZE(attr_bits); i++) {
			bit = attr_bits[i].abi;
			KUNIT_EXPECT_FALSE_MSG(test,
					       ib_ok(cur, next, t, VIRTIO_RDMA_QP_STATE | bit),
					       "%s %u->%u +0x%x: ib_core has it",
					       n, cur, next, bit);
		}
		return;
	}

	base = req | VIRTIO_RDMA_QP_STATE;
	allowed = req | opt | VIRTIO_RDMA_QP_STATE;
	KUNIT_EXPECT_TRUE_MSG(test, ib_ok(cur, next, t, base),
			      "%s %u->%u: ib_core refuses required 0x%x",
			      n, cur, next, base);
	KUNIT_EXPECT_TRUE_MSG(test, ib_ok(cur, next, t, allowed),
			      "%s %u->%u: ib_core refuses allowed 0x%x",
			      n, cur, next, allowed);
	for (i = 0; i < ARRAY_SIZE(attr_bits); i++) {
		bit = attr_bits[i].abi;
		if (bit == VIRTIO_RDMA_QP_STATE)
			continue;
		if (req & bit)
			KUNIT_EXPECT_FALSE_MSG(test,
					       ib_ok(cur, next, t, base & ~bit),
					       "%s %u->%u: 0x%x is not required by ib_core",
					       n, cur, next, bit);
		else
			KUNIT_EXPECT_EQ_MSG(test,
					    ib_ok(cur, next, t, base | bit),
					    !!(opt & bit),
					    "%s %u->%u: optional 0x%x differs",
					    n, cur, next, bit);
	}
	/* The state bit itself is optional everywhere. */
	KUNIT_EXPECT_TRUE_MSG(test, ib_ok(cur, next, t, req),
			      "%s %u->%u: ib_core wants the state bit", n, cur,
			      next);
}

static void check_verdicts(struct kunit *test, u8 cur, u8 next, int t,
			   struct rnd_state *rnd)
{
	u32 all = all_abi_bits(), req = 0, opt = 0, bit;
	int i, j;

	vdr_qp_transition_masks(cur, next, qp_types[t].abi, &req, &opt);

	expect_same(test, cur, next, t, 0);
	expect_same(test, cur, next, t, all);
	for (i = 0; i < ARRAY_SIZE(attr_bits); i++) {
		bit = attr_bits[i].abi;
		expect_same(test, cur, next, t, bit);
		expect_same(test, cur, next, t, VIRTIO_RDMA_QP_STATE | bit);
		expect_same(test, cur, next, t, all & ~bit);
		expect_same(test, cur, next, t, req | VIRTIO_RDMA_QP_STATE | bit);
		expect_same(test, cur, next, t, (req | VIRTIO_RDMA_QP_STATE) & ~bit);
	}
	for (j = 0; j < RANDOM_MASKS; j++) {
		u32 r = prandom_u32_state(rnd);

		/* Uniform masks, and masks around the accepted region. */
		expect_same(test, cur, next, t, r & all);
		expect_same(test, cur, next, t, req | (r & (opt | VIRTIO_RDMA_QP_STATE)));
		expect_same(test, cur, next, t, (req | (r & opt)) ^ (BIT(r % 21) & all));
	}
}

static void qp_state_matches_ib(struct kunit *test)
{
	const int *tp = test->param_value;
	struct rnd_state rnd;
	u8 cur, next;

	prandom_seed_state(&rnd, 0x7672646d61ULL + *tp);
	for (cur = 0; cur < NR_STATES; cur++) {
		for (next = 0; next < NR_STATES; next++) {
			check_masks(test, cur, next, *tp);
			check_verdicts(test, cur, next, *tp, &rnd);
		}
	}
}

static const int type_params[] = { 0, 1, 2, 3 };

static void type_desc(const int *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", qp_types[*t].name);
}

KUNIT_ARRAY_PARAM(qp_type, type_params, type_desc);

/*
 * XRC QPs follow the RC rules with the attributes of the side they lack
 * optional (spec "XRC"): the device accepts whatever ib_core accepts for
 * them, and may accept more.
 */
static const struct {
	u8 abi;
	enum ib_qp_type ib;
} xrc_types[] = {
	{ VIRTIO_RDMA_QPT_XRC_INI, IB_QPT_XRC_INI },
	{ VIRTIO_RDMA_QPT_XRC_TGT, IB_QPT_XRC_TGT },
};

static void xrc_expect_accepts(struct kunit *test, u8 cur, u8 next, int t,
			       u32 mask)
{
	if (!ib_modify_qp_is_ok(cur, next, xrc_types[t].ib, to_ib_mask(mask)))
		return;
	KUNIT_EXPECT_TRUE_MSG(test,
			      vdr_qp_transition_ok(cur, next, xrc_types[t].abi,
						   mask),
			      "XRC type %u %u->%u mask 0x%x: ib_core accepts",
			      xrc_types[t].abi, cur, next, mask);
}

static void qp_state_xrc_accepts_ib(struct kunit *test)
{
	u32 all = all_abi_bits(), req, opt, r, acc;
	struct rnd_state rnd;
	u8 cur, next;
	int t, j;

	prandom_seed_state(&rnd, 0x787263);
	for (t = 0; t < ARRAY_SIZE(xrc_types); t++) {
		for (cur = 0; cur < NR_STATES; cur++) {
			for (next = 0; next < NR_STATES; next++) {
				vdr_qp_transition_masks(cur, next,
							xrc_types[t].abi, &req,
							&opt);
				acc = req | opt | VIRTIO_RDMA_QP_STATE;
				for (j = 0; j < RANDOM_MASKS; j++) {
					r = prandom_u32_state(&rnd);
					xrc_expect_accepts(test, cur, next, t,
							   r & all);
					xrc_expect_accepts(test, cur, next, t,
							   (r & acc) | req);
				}
			}
		}
	}
}

/* A few transitions spelled out, so a failure above has a readable twin. */
static void qp_state_known_cases(struct kunit *test)
{
	const u32 s = VIRTIO_RDMA_QP_STATE;
	const u32 rc_init = s | VIRTIO_RDMA_QP_PKEY_INDEX | VIRTIO_RDMA_QP_PORT |
			    VIRTIO_RDMA_QP_ACCESS_FLAGS;

	KUNIT_EXPECT_TRUE(test, vdr_qp_transition_ok(0, 1, VIRTIO_RDMA_QPT_RC,
						     rc_init));
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(0, 1, VIRTIO_RDMA_QPT_RC,
						      rc_init & ~VIRTIO_RDMA_QP_PORT));
	/* GSI takes no port in RESET->INIT. */
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(0, 1, VIRTIO_RDMA_QPT_GSI,
						      s | VIRTIO_RDMA_QP_PKEY_INDEX |
						      VIRTIO_RDMA_QP_PORT |
						      VIRTIO_RDMA_QP_QKEY));
	/* RESET->ERR does not exist, RTS->ERR needs nothing but the state. */
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(0, 6, VIRTIO_RDMA_QPT_RC, s));
	KUNIT_EXPECT_TRUE(test, vdr_qp_transition_ok(3, 6, VIRTIO_RDMA_QPT_RC, s));
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(3, 6, VIRTIO_RDMA_QPT_RC,
						      s | VIRTIO_RDMA_QP_CUR_STATE));
	/* Skipping RTR is not allowed. */
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(1, 3, VIRTIO_RDMA_QPT_UD,
						      s | VIRTIO_RDMA_QP_SQ_PSN));
	/* Out-of-range states and types are refused, not looked up. */
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(7, 0, VIRTIO_RDMA_QPT_RC, s));
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(0, 7, VIRTIO_RDMA_QPT_RC, s));
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(0, 0, 0, s));
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(0, 0, 5, s));
	/* What ib_core asks of XRC QPs: TIMEOUT and SQ_PSN, no RQ_PSN... */
	KUNIT_EXPECT_TRUE(test, vdr_qp_transition_ok(2, 3, VIRTIO_RDMA_QPT_XRC_TGT,
						     s | VIRTIO_RDMA_QP_TIMEOUT |
						     VIRTIO_RDMA_QP_SQ_PSN));
	KUNIT_EXPECT_TRUE(test, vdr_qp_transition_ok(2, 3, VIRTIO_RDMA_QPT_XRC_TGT,
						     s));
	KUNIT_EXPECT_TRUE(test, vdr_qp_transition_ok(1, 2, VIRTIO_RDMA_QPT_XRC_INI,
						     s | VIRTIO_RDMA_QP_AV |
						     VIRTIO_RDMA_QP_PATH_MTU |
						     VIRTIO_RDMA_QP_DEST_QPN));
	/* ... but the side the QP has stays required. */
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(2, 3, VIRTIO_RDMA_QPT_XRC_INI,
						      s | VIRTIO_RDMA_QP_SQ_PSN));
	KUNIT_EXPECT_FALSE(test, vdr_qp_transition_ok(1, 2, VIRTIO_RDMA_QPT_XRC_TGT,
						      s | VIRTIO_RDMA_QP_AV |
						      VIRTIO_RDMA_QP_PATH_MTU |
						      VIRTIO_RDMA_QP_DEST_QPN |
						      VIRTIO_RDMA_QP_RQ_PSN));
}

static struct kunit_case vdpa_rdma_qp_state_cases[] = {
	KUNIT_CASE_PARAM(qp_state_matches_ib, qp_type_gen_params),
	KUNIT_CASE(qp_state_known_cases),
	KUNIT_CASE(qp_state_xrc_accepts_ib),
	{}
};

static struct kunit_suite vdpa_rdma_qp_state_suite = {
	.name = "vdpa_rdma_qp_state",
	.test_cases = vdpa_rdma_qp_state_cases,
};

kunit_test_suite(vdpa_rdma_qp_state_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit: vdpa_rdma QP state machine against ib_modify_qp_is_ok()");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
