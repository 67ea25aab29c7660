// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * KUnit: the RC reliability decisions of the vdpa_rdma transport
 * (drivers/vdpa/vdpa_rdma/roce_rel.c) and the PSN window arithmetic they
 * rest on, including windows that straddle the 2^24 wrap.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/virtio_rdma.h>

#include "roce_hdr.h"
#include "roce_psn.h"
#include "roce_rel.h"
#include "vdr_xport.h"

#define PSN_MAX		ROCE_PSN_MASK		/* 0xffffff */
#define HALF		ROCE_PSN_WINDOW		/* 2^23 */

/* A requester with PSNs [acked + 1, next) outstanding. */
static struct roce_rel_req req(u32 acked, u32 next)
{
	return (struct roce_rel_req) {
		.acked_psn = acked,
		.next_psn = next,
		.retry_left = 7,
		.rnr_left = 7,
		.rnr_retry = 6,
	};
}

static void xport_psn_arith(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, roce_psn_add(PSN_MAX, 1), 0u);
	KUNIT_EXPECT_EQ(test, roce_psn_add(PSN_MAX - 1, 5), 3u);
	KUNIT_EXPECT_EQ(test, roce_psn_sub(0, 1), PSN_MAX);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(0, PSN_MAX), 1);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(PSN_MAX, 0), -1);
	KUNIT_EXPECT_TRUE(test, roce_psn_after(2, PSN_MAX - 2));
	KUNIT_EXPECT_TRUE(test, roce_psn_before(PSN_MAX - 2, 2));
	/* The two halves: HALF - 1 ahead is after, HALF ahead is before. */
	KUNIT_EXPECT_EQ(test, roce_psn_diff(HALF - 1, 0), (s32)(HALF - 1));
	KUNIT_EXPECT_EQ(test, roce_psn_diff(HALF, 0), -(s32)HALF);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(0, HALF), -(s32)HALF);
	KUNIT_EXPECT_TRUE(test, roce_psn_in_range(0, PSN_MAX - 1, 3));
	KUNIT_EXPECT_FALSE(test, roce_psn_in_range(1, PSN_MAX - 1, 3));
	KUNIT_EXPECT_TRUE(test, roce_psn_in_range(PSN_MAX - 1, PSN_MAX - 1, 1));
	KUNIT_EXPECT_FALSE(test, roce_psn_in_range(5, 5, 0));
}

static void xport_ack_progress(struct kunit *test)
{
	struct roce_rel_req r = req(99, 110);
	struct roce_rel_decision d;

	roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, 105, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_PROGRESS);
	KUNIT_EXPECT_EQ(test, d.psn, 105u);
	KUNIT_EXPECT_FALSE(test, d.use_retry);
	roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, 109, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_PROGRESS);
}

/* ACKs for PSNs acknowledged already or never sent are ignored. */
static void xport_ack_stale(struct kunit *test)
{
	struct roce_rel_req r = req(99, 110);
	struct roce_rel_decision d;

	roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, 99, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_IGNORE);
	roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, 50, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_IGNORE);
	roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, 110, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_IGNORE);
	roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, 99 + HALF, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_IGNORE);
	/* Nothing outstanding: every ACK is stale. */
	r = req(109, 110);
	roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, 109, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_IGNORE);
	/* A reserved AETH type. */
	r = req(99, 110);
	roce_rel_aeth(&r, ROCE_AETH_RSVD, 105, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_IGNORE);
}

/* The window (acked, next) straddles the wrap. */
static void xport_ack_wrap(struct kunit *test)
{
	struct roce_rel_req r = req(PSN_MAX - 3, 4);
	struct roce_rel_decision d;
	u32 ok[] = { PSN_MAX - 2, PSN_MAX, 0, 3 };
	u32 bad[] = { PSN_MAX - 3, PSN_MAX - 4, 4, 5, HALF };
	int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, ok[i], &d);
		KUNIT_EXPECT_EQ_MSG(test, d.action, ROCE_REL_PROGRESS,
				    "psn %#x", ok[i]);
		roce_rel_aeth(&r, ROCE_AETH_NAK_PSN_SEQ_ERR, ok[i], &d);
		KUNIT_EXPECT_EQ_MSG(test, d.action, ROCE_REL_GO_BACK,
				    "psn %#x", ok[i]);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, bad[i], &d);
		KUNIT_EXPECT_EQ_MSG(test, d.action, ROCE_REL_IGNORE,
				    "psn %#x", bad[i]);
		roce_rel_aeth(&r, ROCE_AETH_NAK_PSN_SEQ_ERR, bad[i], &d);
		KUNIT_EXPECT_EQ_MSG(test, d.action, ROCE_REL_IGNORE,
				    "psn %#x", bad[i]);
	}
	/* Window ending exactly at the wrap. */
	r = req(PSN_MAX - 1, 0);
	roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, PSN_MAX, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_PROGRESS);
	roce_rel_aeth(&r, ROCE_AETH_ACK_UNLIMITED, 0, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_IGNORE);
}

/* A sequence NAK goes back and costs a retry; its duplicate is ignored. */
static void xport_nak_seq(struct kunit *test)
{
	struct roce_rel_req r = req(99, 110);
	struct roce_rel_decision d;

	roce_rel_aeth(&r, ROCE_AETH_NAK_PSN_SEQ_ERR, 103, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_GO_BACK);
	KUNIT_EXPECT_EQ(test, d.psn, 103u);
	KUNIT_EXPECT_TRUE(test, d.use_retry);
	KUNIT_EXPECT_FALSE(test, d.use_rnr);

	r.gap_valid = true;
	r.gap_psn = 103;
	roce_rel_aeth(&r, ROCE_AETH_NAK_PSN_SEQ_ERR, 103, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_IGNORE);
	KUNIT_EXPECT_FALSE(test, d.use_retry);
	roce_rel_aeth(&r, ROCE_AETH_NAK_PSN_SEQ_ERR, 106, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_GO_BACK);

	r = req(99, 110);
	r.retry_left = 0;
	roce_rel_aeth(&r, ROCE_AETH_NAK_PSN_SEQ_ERR, 103, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_FAIL);
	KUNIT_EXPECT_EQ(test, d.status, VIRTIO_RDMA_WC_RETRY_EXC_ERR);
}

static void xport_nak_errors(struct kunit *test)
{
	static const struct { u8 syn; u8 status; } cases[] = {
		{ ROCE_AETH_NAK_INVALID_REQ, VIRTIO_RDMA_WC_REM_INV_REQ_ERR },
		{ ROCE_AETH_NAK_REM_ACCESS_ERR, VIRTIO_RDMA_WC_REM_ACCESS_ERR },
		{ ROCE_AETH_NAK_REM_OP_ERR, VIRTIO_RDMA_WC_REM_OP_ERR },
		{ ROCE_AETH_NAK_INVALID_RD_REQ,
		  VIRTIO_RDMA_WC_REM_INV_RD_REQ_ERR },
		{ ROCE_AETH_NAK | 0x1f, VIRTIO_RDMA_WC_REM_OP_ERR },
	};
	struct roce_rel_req r = req(99, 110);
	struct roce_rel_decision d;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		roce_rel_aeth(&r, cases[i].syn, 100, &d);
		KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_FAIL);
		KUNIT_EXPECT_EQ(test, d.status, cases[i].status);
		KUNIT_EXPECT_FALSE(test, d.use_retry);
	}
	/* A NAK for a PSN outside the window is stale. */
	roce_rel_aeth(&r, ROCE_AETH_NAK_REM_ACCESS_ERR, 98, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_IGNORE);
}

/* rnr_retry 7 is infinite; 0-6 count down to RNR_RETRY_EXC_ERR. */
static void xport_rnr(struct kunit *test)
{
	struct roce_rel_req r = req(99, 110);
	struct roce_rel_decision d;

	roce_rel_aeth(&r, ROCE_AETH_RNR_NAK | 14, 100, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_RNR_WAIT);
	KUNIT_EXPECT_TRUE(test, d.use_rnr);
	KUNIT_EXPECT_FALSE(test, d.use_retry);

	r.rnr_left = 0;
	roce_rel_aeth(&r, ROCE_AETH_RNR_NAK | 14, 100, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_FAIL);
	KUNIT_EXPECT_EQ(test, d.status, VIRTIO_RDMA_WC_RNR_RETRY_EXC_ERR);

	r.rnr_retry = 7;
	roce_rel_aeth(&r, ROCE_AETH_RNR_NAK | 14, 100, &d);
	KUNIT_EXPECT_EQ(test, d.action, ROCE_REL_RNR_WAIT);
	KUNIT_EXPECT_FALSE(test, d.use_rnr);
}

/* retry_cnt 7 is a count like any other (only rnr_retry 7 is infinite). */
static void xport_timeout(struct kunit *test)
{
	struct roce_rel_req r = req(99, 110);

	KUNIT_EXPECT_EQ(test, roce_rel_timeout(&r, true, false), ROCE_TMO_RETRY);
	KUNIT_EXPECT_EQ(test, roce_rel_timeout(&r, false, false), ROCE_TMO_NONE);
	KUNIT_EXPECT_EQ(test, roce_rel_timeout(&r, true, VDR_SEG_MAX_BYTES), ROCE_TMO_NONE);
	r.retry_left = 0;
	KUNIT_EXPECT_EQ(test, roce_rel_timeout(&r, true, false), ROCE_TMO_FAIL);
	r.rnr_retry = 7;
	KUNIT_EXPECT_EQ(test, roce_rel_timeout(&r, true, false), ROCE_TMO_FAIL);
}

static void xport_timeout_ns(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, roce_rel_timeout_ns(0), 0ull);
	KUNIT_EXPECT_EQ(test, roce_rel_timeout_ns(1), 500000ull);
	KUNIT_EXPECT_EQ(test, roce_rel_timeout_ns(14), 4096ull << 14);
	KUNIT_EXPECT_EQ(test, roce_rel_timeout_ns(18), 4096ull << 18);
	KUNIT_EXPECT_EQ(test, roce_rel_timeout_ns(31), 4096ull << 31);
	KUNIT_EXPECT_EQ(test, roce_rel_timeout_ns(255), 4096ull << 31);
}

static void xport_rtt_sample(struct kunit *test)
{
	struct roce_rel_rtt r = {};

	/* The first sample: the RTT, and half of it as deviation. */
	roce_rel_rtt_sample(&r, 800000);
	KUNIT_EXPECT_EQ(test, r.srtt_ns, 800000ull);
	KUNIT_EXPECT_EQ(test, r.rttvar_ns, 400000ull);
	/* Then 7/8 old + 1/8 new, and 3/4 old deviation + 1/4 |error|. */
	roce_rel_rtt_sample(&r, 1600000);
	KUNIT_EXPECT_EQ(test, r.srtt_ns, 900000ull);
	KUNIT_EXPECT_EQ(test, r.rttvar_ns, 500000ull);
	roce_rel_rtt_sample(&r, 100000);
	KUNIT_EXPECT_EQ(test, r.srtt_ns, 800000ull);
	KUNIT_EXPECT_EQ(test, r.rttvar_ns, 575000ull);
	/* A zero sample still counts as a measurement. */
	r = (struct roce_rel_rtt){};
	roce_rel_rtt_sample(&r, 0);
	KUNIT_EXPECT_EQ(test, r.srtt_ns, 1ull);
}

static void xport_rto_ns(struct kunit *test)
{
	u64 t = roce_rel_timeout_ns(14);	/* 67.1 ms */
	struct roce_rel_rtt r = {};

	/* Unmeasured, or no timer: the attribute as it is. */
	KUNIT_EXPECT_EQ(test, roce_rel_rto_ns(&r, t), t);
	r.srtt_ns = 100000000;
	KUNIT_EXPECT_EQ(test, roce_rel_rto_ns(&r, 0), 0ull);
	/*
	 * SRTT + 4 * RTTVAR, never below the timeout nor above 4x it or
	 * 1 s, whichever is longer.
	 */
	r = (struct roce_rel_rtt){ .srtt_ns = 60000000, .rttvar_ns = 10000000 };
	KUNIT_EXPECT_EQ(test, roce_rel_rto_ns(&r, t), 100000000ull);
	r.rttvar_ns = 1000000;
	KUNIT_EXPECT_EQ(test, roce_rel_rto_ns(&r, t), t);
	/* A starved responder: 460 ms, beyond 4x the 67 ms timeout. */
	r.rttvar_ns = 100000000;
	KUNIT_EXPECT_EQ(test, roce_rel_rto_ns(&r, t), 460000000ull);
	r.rttvar_ns = 1000000000;
	KUNIT_EXPECT_EQ(test, roce_rel_rto_ns(&r, t),
			(u64)ROCE_REL_RTO_FLOOR_NS);
	/* rdma_cm's 0.54 s timeout: up to 4x, 2.1 s. */
	t = roce_rel_timeout_ns(17);
	KUNIT_EXPECT_EQ(test, roce_rel_rto_ns(&r, t), 4 * t);
}

static void xport_probe_ns(struct kunit *test)
{
	u64 rto = roce_rel_timeout_ns(17);	/* rdma_cm's RoCE default */
	struct roce_rel_rtt r = {};

	/* No RTT measured or no timer: no probe. */
	KUNIT_EXPECT_EQ(test, roce_rel_probe_ns(&r, rto), 0ull);
	r.srtt_ns = 1000000;
	KUNIT_EXPECT_EQ(test, roce_rel_probe_ns(&r, 0), 0ull);
	/* max(2 * SRTT, SRTT + 4 * RTTVAR) + 1 ms, at least 10 ms */
	r = (struct roce_rel_rtt){ .srtt_ns = 8000000, .rttvar_ns = 1000000 };
	KUNIT_EXPECT_EQ(test, roce_rel_probe_ns(&r, rto), 17000000ull);
	r.rttvar_ns = 4000000;
	KUNIT_EXPECT_EQ(test, roce_rel_probe_ns(&r, rto), 25000000ull);
	r = (struct roce_rel_rtt){ .srtt_ns = 1000000, .rttvar_ns = 500000 };
	KUNIT_EXPECT_EQ(test, roce_rel_probe_ns(&r, rto), 10000000ull);
	/* Not when it would not come well before the timeout. */
	r = (struct roce_rel_rtt){ .srtt_ns = 8000000, .rttvar_ns = 1000000 };
	KUNIT_EXPECT_EQ(test, roce_rel_probe_ns(&r, 34000000), 0ull);
	KUNIT_EXPECT_EQ(test, roce_rel_probe_ns(&r, 34000002), 17000000ull);
}

/* Doubling per timeout in a row, bounded by 4x the timeout or 1 s. */
static void xport_backoff(struct kunit *test)
{
	u64 t = 536870912ull;		/* rdma_cm's RoCE timeout 17: 0.54 s */
	u64 p = 67108864ull;		/* perftest's timeout 14: 67 ms */

	KUNIT_EXPECT_EQ(test, roce_rel_backoff_ns(0, 0, 3), 0ull);
	KUNIT_EXPECT_EQ(test, roce_rel_backoff_ns(t, t, 0), t);
	KUNIT_EXPECT_EQ(test, roce_rel_backoff_ns(t, t, 1), 2 * t);
	KUNIT_EXPECT_EQ(test, roce_rel_backoff_ns(t, t, 2), 4 * t);
	/* Three timeouts in a row wait 4x, not 8x: 2.1 s, not 4.3 s. */
	KUNIT_EXPECT_EQ(test, roce_rel_backoff_ns(t, t, 3), 4 * t);
	KUNIT_EXPECT_EQ(test, roce_rel_backoff_ns(4 * t, t, 6), 4 * t);
	/* A short timeout may back off to the floor. */
	KUNIT_EXPECT_EQ(test, roce_rel_backoff_ns(p, p, 3), 8 * p);
	KUNIT_EXPECT_EQ(test, roce_rel_backoff_ns(p, p, 6),
			(u64)ROCE_REL_RTO_FLOOR_NS);
	/* Any count, no overflow. */
	KUNIT_EXPECT_EQ(test, roce_rel_backoff_ns(p, p, 255),
			(u64)ROCE_REL_RTO_FLOOR_NS);
}

static void xport_cwnd(struct kunit *test)
{
	u32 w = ROCE_REL_CWND_MAX;
	int i;

	KUNIT_EXPECT_EQ(test, roce_rel_cwnd_ack(w), (u32)ROCE_REL_CWND_MAX);
	w = roce_rel_cwnd_loss(w);
	KUNIT_EXPECT_EQ(test, w, (u32)ROCE_REL_CWND_MAX / 2);
	for (i = 0; i < 10; i++)
		w = roce_rel_cwnd_loss(w);
	KUNIT_EXPECT_EQ(test, w, (u32)ROCE_REL_CWND_MIN);
	KUNIT_EXPECT_EQ(test, roce_rel_cwnd_ack(w), (u32)ROCE_REL_CWND_MIN + 1);
	for (i = 0; i < 200; i++)
		w = roce_rel_cwnd_ack(w);
	KUNIT_EXPECT_EQ(test, w, (u32)ROCE_REL_CWND_MAX);
}

static void xport_read_resp(struct kunit *test)
{
	struct roce_rel_req r = req(99, 120);

	KUNIT_EXPECT_EQ(test, roce_rel_read_resp(&r, 105, 105),
			ROCE_RRESP_ACCEPT);
	KUNIT_EXPECT_EQ(test, roce_rel_read_resp(&r, 105, 104),
			ROCE_RRESP_DUP);
	KUNIT_EXPECT_EQ(test, roce_rel_read_resp(&r, 105, 107),
			ROCE_RRESP_GAP);
	r.gap_valid = true;
	r.gap_psn = 105;
	KUNIT_EXPECT_EQ(test, roce_rel_read_resp(&r, 105, 108),
			ROCE_RRESP_GAP_WAIT);
	KUNIT_EXPECT_EQ(test, roce_rel_read_resp(&r, 106, 108),
			ROCE_RRESP_GAP);
	/* Across the wrap. */
	r.gap_valid = false;
	KUNIT_EXPECT_EQ(test, roce_rel_read_resp(&r, PSN_MAX, 0),
			ROCE_RRESP_GAP);
	KUNIT_EXPECT_EQ(test, roce_rel_read_resp(&r, 0, PSN_MAX),
			ROCE_RRESP_DUP);
	KUNIT_EXPECT_EQ(test, roce_rel_read_resp(&r, 0, 0),
			ROCE_RRESP_ACCEPT);
}

static void xport_resp_psn(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(10, 10, false), ROCE_RPSN_OK);
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(10, 10, VDR_SEG_MAX_BYTES), ROCE_RPSN_OK);
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(10, 9, false), ROCE_RPSN_DUP);
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(10, 11, false), ROCE_RPSN_NAK);
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(10, 11, VDR_SEG_MAX_BYTES), ROCE_RPSN_DROP);
	/* Across the wrap, and the half-space boundary. */
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(0, PSN_MAX, false),
			ROCE_RPSN_DUP);
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(PSN_MAX, 0, false),
			ROCE_RPSN_NAK);
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(PSN_MAX, PSN_MAX, false),
			ROCE_RPSN_OK);
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(0, HALF - 1, false),
			ROCE_RPSN_NAK);
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(0, HALF, false),
			ROCE_RPSN_DUP);
	KUNIT_EXPECT_EQ(test, roce_rel_resp_psn(5, 5 + HALF, false),
			ROCE_RPSN_DUP);
}

/*
 * UC has no duplicates: a packet behind the expected PSN is a sequence
 * error like one ahead of it, never part of the message in progress.
 */
static void xport_uc_psn(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, roce_rel_uc_psn(10, 10, false), ROCE_UPSN_OK);
	KUNIT_EXPECT_EQ(test, roce_rel_uc_psn(10, 10, true), ROCE_UPSN_OK);
	KUNIT_EXPECT_EQ(test, roce_rel_uc_psn(10, 9, false), ROCE_UPSN_DROP);
	KUNIT_EXPECT_EQ(test, roce_rel_uc_psn(10, 9, true), ROCE_UPSN_NEW);
	KUNIT_EXPECT_EQ(test, roce_rel_uc_psn(10, 11, false), ROCE_UPSN_DROP);
	KUNIT_EXPECT_EQ(test, roce_rel_uc_psn(10, 11, true), ROCE_UPSN_NEW);
	KUNIT_EXPECT_EQ(test, roce_rel_uc_psn(0, PSN_MAX, false),
			ROCE_UPSN_DROP);
	KUNIT_EXPECT_EQ(test, roce_rel_uc_psn(5, 5 + HALF, false),
			ROCE_UPSN_DROP);
}

/*
 * Packets per message: one for an empty message, and no wrap-around for
 * lengths near 2^32 (a READ's length comes from the wire: 0 packets would
 * make its last PSN precede its first).
 */
static void xport_npkts(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vdr_req_npkts(0, 1024), 1U);
	KUNIT_EXPECT_EQ(test, vdr_req_npkts(1, 1024), 1U);
	KUNIT_EXPECT_EQ(test, vdr_req_npkts(1024, 1024), 1U);
	KUNIT_EXPECT_EQ(test, vdr_req_npkts(1025, 1024), 2U);
	KUNIT_EXPECT_EQ(test, vdr_req_npkts(U32_MAX, 4096), 1U << 20);
	KUNIT_EXPECT_EQ(test, vdr_req_npkts(U32_MAX - 100, 256), 1U << 24);
}

/*
 * Same-host segments: whole path-MTU packets, as many as the window's room
 * and VDR_SEG_MAX_BYTES allow; one packet on the wire or with no room.
 */
static void xport_seg_len(struct kunit *test)
{
	const u32 seg = VDR_SEG_MAX_BYTES;

	/* The wire: one path MTU, or what is left. */
	KUNIT_EXPECT_EQ(test, vdr_seg_len(65536, 1024, 128, 0), 1024U);
	KUNIT_EXPECT_EQ(test, vdr_seg_len(100, 1024, 128, 0), 100U);
	/* A bound below one packet is one packet. */
	KUNIT_EXPECT_EQ(test, vdr_seg_len(65536, 4096, 128, 1024), 4096U);
	/* A bound between multiples: whole packets below it. */
	KUNIT_EXPECT_EQ(test, vdr_seg_len(65536, 4096, 128, 10000), 8192U);
	/* Same host: up to the bound, in whole packets. */
	KUNIT_EXPECT_EQ(test, vdr_seg_len(65536, 1024, 128, seg), seg);
	KUNIT_EXPECT_EQ(test, vdr_seg_len(65536, 4096, 128, seg), seg);
	KUNIT_EXPECT_EQ(test, vdr_seg_len(5000, 1024, 128, seg), 5000U);
	/* The window's room bounds it, and never below one packet. */
	KUNIT_EXPECT_EQ(test, vdr_seg_len(65536, 1024, 3, seg), 3072U);
	KUNIT_EXPECT_EQ(test, vdr_seg_len(65536, 1024, 1, seg), 1024U);
	KUNIT_EXPECT_EQ(test, vdr_seg_len(65536, 1024, 0, seg), 1024U);
	KUNIT_EXPECT_EQ(test, vdr_seg_len(65536, 1024, -5, seg), 1024U);
	/* A 2 GiB message: no overflow, a segment is a multiple of the MTU. */
	KUNIT_EXPECT_EQ(test, vdr_seg_len(U32_MAX, 256, S32_MAX, seg), seg);
	KUNIT_EXPECT_EQ(test, vdr_seg_len(0, 4096, 128, seg), 0U);
}

/*
 * Work that came during a run: run again while the run took all it had,
 * VDR_XQP_RERUNS times at most; what is left then, or what a run left
 * beyond its budget, goes to a worker, behind the QPs queued meanwhile.
 */
static void xport_rerun(struct kunit *test)
{
	unsigned int runs = 0, i;
	bool more = false;

	/* Nothing came: the run ends, and nothing is queued. */
	KUNIT_EXPECT_FALSE(test, vdr_xqp_rerun(false, &more, &runs));
	KUNIT_EXPECT_FALSE(test, more);
	for (i = 0; i < VDR_XQP_RERUNS; i++)
		KUNIT_EXPECT_TRUE(test, vdr_xqp_rerun(true, &more, &runs));
	KUNIT_EXPECT_FALSE(test, more);
	KUNIT_EXPECT_FALSE(test, vdr_xqp_rerun(true, &more, &runs));
	KUNIT_EXPECT_TRUE(test, more);
	KUNIT_EXPECT_EQ(test, runs, VDR_XQP_RERUNS);

	/* A run that used its whole budget never reruns. */
	runs = 0;
	more = true;
	KUNIT_EXPECT_FALSE(test, vdr_xqp_rerun(true, &more, &runs));
	KUNIT_EXPECT_TRUE(test, more);
	KUNIT_EXPECT_EQ(test, runs, 0U);
	/* ... and is queued again without a kick as well. */
	KUNIT_EXPECT_FALSE(test, vdr_xqp_rerun(false, &more, &runs));
	KUNIT_EXPECT_TRUE(test, more);
}

static void xport_overlap(struct kunit *test)
{
	/* A ping-pong's message, or its message and an ACK: handed off. */
	KUNIT_EXPECT_FALSE(test, vdr_xqp_overlap(1, false, false, true));
	KUNIT_EXPECT_FALSE(test, vdr_xqp_overlap(VDR_WIRE_STREAM_PKTS - 1,
						 false, false, true));
	/* A stream's batch, to an idle engine: apart. */
	KUNIT_EXPECT_TRUE(test, vdr_xqp_overlap(VDR_WIRE_STREAM_PKTS,
						false, false, true));
	/* An ACK or a READ request of a stream: apart too. */
	KUNIT_EXPECT_TRUE(test, vdr_xqp_overlap(1, false, true, true));
	KUNIT_EXPECT_TRUE(test, vdr_xqp_overlap(1, true, false, true));
	/* Never to a busy engine. */
	KUNIT_EXPECT_FALSE(test, vdr_xqp_overlap(64, true, true, false));
}

static struct kunit_case xport_cases[] = {
	KUNIT_CASE(xport_rerun),
	KUNIT_CASE(xport_overlap),
	KUNIT_CASE(xport_npkts),
	KUNIT_CASE(xport_seg_len),
	KUNIT_CASE(xport_psn_arith),
	KUNIT_CASE(xport_ack_progress),
	KUNIT_CASE(xport_ack_stale),
	KUNIT_CASE(xport_ack_wrap),
	KUNIT_CASE(xport_nak_seq),
	KUNIT_CASE(xport_nak_errors),
	KUNIT_CASE(xport_rnr),
	KUNIT_CASE(xport_timeout),
	KUNIT_CASE(xport_timeout_ns),
	KUNIT_CASE(xport_rtt_sample),
	KUNIT_CASE(xport_rto_ns),
	KUNIT_CASE(xport_probe_ns),
	KUNIT_CASE(xport_backoff),
	KUNIT_CASE(xport_cwnd),
	KUNIT_CASE(xport_read_resp),
	KUNIT_CASE(xport_resp_psn),
	KUNIT_CASE(xport_uc_psn),
	{}
};

static struct kunit_suite xport_suite = {
	.name = "vdpa_rdma_xport",
	.test_cases = xport_cases,
};

kunit_test_suite(xport_suite);

MODULE_DESCRIPTION("KUnit: vdpa_rdma RC reliability decisions");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
