/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: RC reliability decisions as pure functions (roce_rel.c).
 *
 * The requester, responder and completer feed these the few numbers of
 * QP state a decision depends on and act on the answer; KUnit
 * (vdpa_rdma_xport_test.c) checks them without a device.
 */
#ifndef _VDPA_RDMA_ROCE_REL_H
#define _VDPA_RDMA_ROCE_REL_H

#include <linux/types.h>

/* The requester's view of its send PSN window and retry budgets. */
struct roce_rel_req {
	u32 acked_psn;		/* last PSN acknowledged */
	u32 next_psn;		/* next PSN to send */
	u8 retry_left;		/* timeouts and sequence NAKs left */
	u8 rnr_left;		/* RNR NAKs left */
	u8 rnr_retry;		/* the QP's rnr_retry: 7 is infinite */
	bool gap_valid;		/* a go-back-N to gap_psn is under way */
	u32 gap_psn;
};

enum roce_rel_action {
	ROCE_REL_IGNORE,	/* stale, duplicate or not for us */
	ROCE_REL_PROGRESS,	/* PSNs up to psn are acknowledged */
	ROCE_REL_RNR_WAIT,	/* ack before psn, wait, then go back to psn */
	ROCE_REL_GO_BACK,	/* ack before psn, go back to psn now */
	ROCE_REL_FAIL,		/* ack before psn, the WQE at psn fails */
};

struct roce_rel_decision {
	enum roce_rel_action action;
	u32 psn;
	u8 status;		/* VIRTIO_RDMA_WC_* for ROCE_REL_FAIL */
	bool use_retry;		/* consumes one of retry_left */
	bool use_rnr;		/* consumes one of rnr_left */
};

void roce_rel_aeth(const struct roce_rel_req *r, u8 syndrome, u32 psn,
		   struct roce_rel_decision *d);

/* The retransmission timer expired. */
enum roce_rel_tmo {
	ROCE_TMO_NONE,		/* nothing outstanding or an RNR wait */
	ROCE_TMO_RETRY,		/* go back to acked_psn + 1, one retry used */
	ROCE_TMO_FAIL,		/* retry_cnt exhausted: RETRY_EXC_ERR */
};

enum roce_rel_tmo roce_rel_timeout(const struct roce_rel_req *r,
				   bool outstanding, bool rnr_wait);

/* A READ response packet against the PSN the READ expects next. */
enum roce_rel_rresp {
	ROCE_RRESP_ACCEPT,	/* the next one: place it */
	ROCE_RRESP_DUP,		/* already placed: drop */
	ROCE_RRESP_GAP,		/* one is missing: re-request from expect */
	ROCE_RRESP_GAP_WAIT,	/* missing, re-requested already: drop */
};

enum roce_rel_rresp roce_rel_read_resp(const struct roce_rel_req *r,
				       u32 expect, u32 psn);

/* A request packet against the responder's expected PSN. */
enum roce_rel_rpsn {
	ROCE_RPSN_OK,		/* the expected PSN */
	ROCE_RPSN_DUP,		/* before it: a duplicate */
	ROCE_RPSN_NAK,		/* after it: send a PSN sequence error NAK */
	ROCE_RPSN_DROP,		/* after it, NAK already sent: drop */
};

enum roce_rel_rpsn roce_rel_resp_psn(u32 epsn, u32 psn, bool nak_sent);

/* What a UC responder does with a request PSN (roce_rel_uc_psn()). */
enum roce_rel_upsn {
	ROCE_UPSN_OK,		/* the expected PSN */
	ROCE_UPSN_NEW,		/* another PSN, starting a message: take it */
	ROCE_UPSN_DROP,		/* another PSN, inside a message: drop */
};

enum roce_rel_upsn roce_rel_uc_psn(u32 epsn, u32 psn, bool first);

/* Retransmission timeout for the QP attribute @timeout, 0 = none. */
u64 roce_rel_timeout_ns(u8 timeout);

/* Round-trip estimate, and the retransmission and probe timers from it. */
struct roce_rel_rtt {
	u64 srtt_ns;			/* smoothed RTT, 0 = not measured yet */
	u64 rttvar_ns;			/* its mean deviation */
};

void roce_rel_rtt_sample(struct roce_rel_rtt *rtt, u64 sample_ns);
u64 roce_rel_rto_ns(const struct roce_rel_rtt *rtt, u64 timeout_ns);
/* The timer waits at most 4x the Local ACK Timeout, and may wait 1 s. */
#define ROCE_REL_RTO_FLOOR_NS	NSEC_PER_SEC
u64 roce_rel_backoff_ns(u64 rto_ns, u64 timeout_ns, unsigned int backoff);
u64 roce_rel_probe_ns(const struct roce_rel_rtt *rtt, u64 rto_ns);

/* The requester's window of unacknowledged packets, in packets. */
#define ROCE_REL_CWND_MIN	8
#define ROCE_REL_CWND_MAX	128
u32 roce_rel_cwnd_loss(u32 cwnd);
u32 roce_rel_cwnd_ack(u32 cwnd);

#endif /* _VDPA_RDMA_ROCE_REL_H */
