// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: RC reliability decisions (IBA 9.7.5, 9.9), as pure functions
 * of the QP state they need.  See roce_rel.h.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/virtio_rdma.h>

#include "roce_hdr.h"
#include "roce_psn.h"
#include "roce_rel.h"

/* Timers shorter than this only cause spurious retransmissions. */
#define ROCE_REL_MIN_TIMEOUT_NS	(500 * NSEC_PER_USEC)
/* Scheduling jitter of a software responder, on top of twice the RTT. */
#define ROCE_REL_PROBE_SLACK_NS	(1 * NSEC_PER_MSEC)
#define ROCE_REL_PROBE_MIN_NS	(10 * NSEC_PER_MSEC)

static u8 roce_rel_nak_status(u8 code)
{
	switch (code) {
	case ROCE_AETH_NAK_INVALID_REQ & ROCE_AETH_VALUE_MASK:
		return VIRTIO_RDMA_WC_REM_INV_REQ_ERR;
	case ROCE_AETH_NAK_REM_ACCESS_ERR & ROCE_AETH_VALUE_MASK:
		return VIRTIO_RDMA_WC_REM_ACCESS_ERR;
	case ROCE_AETH_NAK_INVALID_RD_REQ & ROCE_AETH_VALUE_MASK:
		return VIRTIO_RDMA_WC_REM_INV_RD_REQ_ERR;
	default:
		return VIRTIO_RDMA_WC_REM_OP_ERR;
	}
}

/**
 * roce_rel_aeth - what the requester does with an AETH
 * @r: the requester's window and budgets
 * @syndrome: the AETH syndrome
 * @psn: the PSN of the packet that carries it
 * @d: the decision
 *
 * An ACK is valid for a PSN in (acked_psn, next_psn): it acknowledges up to
 * that PSN.  A NAK names the PSN the responder expects (sequence error) or
 * the one it refused, in [acked_psn + 1, next_psn).  Anything else is a
 * stale or duplicated response and is ignored.  A PSN sequence error NAK
 * consumes a retry like a timeout does (as rdma_rxe does); one that
 * repeats the go-back-N already under way is a duplicate.  rnr_retry 7 is
 * infinite; retry_cnt 7 is not.
 */
void roce_rel_aeth(const struct roce_rel_req *r, u8 syndrome, u32 psn,
		   struct roce_rel_decision *d)
{
	u32 lo = roce_psn_add(r->acked_psn, 1);
	u32 n = roce_psn_sub(r->next_psn, lo);

	memset(d, 0, sizeof(*d));
	d->action = ROCE_REL_IGNORE;
	d->psn = psn;
	if (!roce_psn_in_range(psn, lo, n))
		return;

	switch (syndrome & ROCE_AETH_TYPE_MASK) {
	case ROCE_AETH_ACK:
		d->action = ROCE_REL_PROGRESS;
		return;
	case ROCE_AETH_RNR_NAK:
		if (r->rnr_retry != 7 && !r->rnr_left) {
			d->action = ROCE_REL_FAIL;
			d->status = VIRTIO_RDMA_WC_RNR_RETRY_EXC_ERR;
			return;
		}
		d->action = ROCE_REL_RNR_WAIT;
		d->use_rnr = r->rnr_retry != 7;
		return;
	case ROCE_AETH_NAK:
		if (syndrome & ROCE_AETH_VALUE_MASK) {
			d->action = ROCE_REL_FAIL;
			d->status = roce_rel_nak_status(syndrome &
							ROCE_AETH_VALUE_MASK);
			return;
		}
		if (r->gap_valid && r->gap_psn == psn)
			return;
		if (!r->retry_left) {
			d->action = ROCE_REL_FAIL;
			d->status = VIRTIO_RDMA_WC_RETRY_EXC_ERR;
			return;
		}
		d->action = ROCE_REL_GO_BACK;
		d->use_retry = true;
		return;
	default:
		return;	/* reserved type */
	}
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_aeth);

/**
 * roce_rel_timeout - what an expired retransmission timer does
 * @r: the requester's window and budgets
 * @outstanding: a request is sent and not acknowledged
 * @rnr_wait: an RNR NAK wait is under way (its own timer retries)
 */
enum roce_rel_tmo roce_rel_timeout(const struct roce_rel_req *r,
				   bool outstanding, bool rnr_wait)
{
	if (!outstanding || rnr_wait)
		return ROCE_TMO_NONE;
	return r->retry_left ? ROCE_TMO_RETRY : ROCE_TMO_FAIL;
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_timeout);

/**
 * roce_rel_read_resp - classify a READ response against the next PSN
 * @r: the requester's state (its go-back-N marker)
 * @expect: the PSN of the next response the READ needs
 * @psn: the response's PSN
 *
 * Responses after @expect mean one was lost (or reordered): the READ is
 * requested again from @expect right away rather than after a timeout,
 * once per gap.
 */
enum roce_rel_rresp roce_rel_read_resp(const struct roce_rel_req *r,
				       u32 expect, u32 psn)
{
	if (psn == expect)
		return ROCE_RRESP_ACCEPT;
	if (roce_psn_before(psn, expect))
		return ROCE_RRESP_DUP;
	if (r->gap_valid && r->gap_psn == expect)
		return ROCE_RRESP_GAP_WAIT;
	return ROCE_RRESP_GAP;
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_read_resp);

/**
 * roce_rel_resp_psn - classify a request PSN at the responder
 * @epsn: the expected PSN
 * @psn: the request's PSN
 * @nak_sent: a sequence error NAK for @epsn was sent already
 *
 * IBA 9.7.2: the half of the PSN space before @epsn holds duplicates, the
 * half at and after it valid or out-of-sequence requests.  One NAK per
 * gap: the requester goes back on the first.
 */
enum roce_rel_rpsn roce_rel_resp_psn(u32 epsn, u32 psn, bool nak_sent)
{
	s32 d = roce_psn_diff(psn, epsn);

	if (!d)
		return ROCE_RPSN_OK;
	if (d < 0)
		return ROCE_RPSN_DUP;
	return nak_sent ? ROCE_RPSN_DROP : ROCE_RPSN_NAK;
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_resp_psn);

/**
 * roce_rel_uc_psn - classify a request PSN at a UC responder
 * @epsn: the expected PSN
 * @psn: the request's PSN
 * @first: the packet starts a message (FIRST or ONLY)
 *
 * UC has no retransmission, hence no duplicates: a PSN before @epsn is as
 * wrong as one after it (IBA 9.7.3, UC responder).  Either way the message
 * in progress is lost; a packet that starts a message begins the next one,
 * any other is dropped (as are the rest of its message, whose PSNs then
 * differ from the expected one too).
 */
enum roce_rel_upsn roce_rel_uc_psn(u32 epsn, u32 psn, bool first)
{
	if (psn == epsn)
		return ROCE_UPSN_OK;
	return first ? ROCE_UPSN_NEW : ROCE_UPSN_DROP;
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_uc_psn);

/**
 * roce_rel_timeout_ns - the Local ACK Timeout of a QP attribute
 * @timeout: 0 (no timer) or 1-31: 4.096 us * 2^timeout
 *
 * Return: nanoseconds, 0 for none; at least ROCE_REL_MIN_TIMEOUT_NS, since
 * a software device on a shared CPU can take longer than the shortest IB
 * timeouts to answer and retransmitting then only adds load.
 */
u64 roce_rel_timeout_ns(u8 timeout)
{
	if (!timeout)
		return 0;
	return max_t(u64, 4096ULL << min_t(u8, timeout, 31),
		     ROCE_REL_MIN_TIMEOUT_NS);
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_timeout_ns);

/**
 * roce_rel_rtt_sample - fold one round-trip sample into the estimate
 * @rtt: smoothed RTT and its mean deviation, all 0 before the first sample
 * @sample_ns: time from sending a packet that asked for an ACK to its ACK
 *
 * As TCP does (RFC 6298): the first sample sets the RTT and half of it as
 * the deviation; later ones move the RTT by 1/8 and the deviation by 1/4
 * of the difference.
 */
void roce_rel_rtt_sample(struct roce_rel_rtt *rtt, u64 sample_ns)
{
	u64 err;

	sample_ns = sample_ns ?: 1;
	if (!rtt->srtt_ns) {
		rtt->srtt_ns = sample_ns;
		rtt->rttvar_ns = sample_ns / 2;
		return;
	}
	err = rtt->srtt_ns > sample_ns ? rtt->srtt_ns - sample_ns :
					 sample_ns - rtt->srtt_ns;
	rtt->rttvar_ns = rtt->rttvar_ns - (rtt->rttvar_ns >> 2) + (err >> 2);
	rtt->srtt_ns = rtt->srtt_ns - (rtt->srtt_ns >> 3) + (sample_ns >> 3);
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_rtt_sample);

/*
 * The longest the retransmission timer ever waits: four times the Local
 * ACK Timeout, or ROCE_REL_RTO_FLOOR_NS when that is longer.
 */
static u64 roce_rel_rto_max_ns(u64 timeout_ns)
{
	return max_t(u64, 4 * timeout_ns, ROCE_REL_RTO_FLOOR_NS);
}

/* The longest a response can plausibly take: SRTT + 4 * RTTVAR. */
static u64 roce_rel_rtt_bound(const struct roce_rel_rtt *rtt)
{
	return rtt->srtt_ns + 4 * rtt->rttvar_ns;
}

/**
 * roce_rel_rto_ns - the retransmission timeout to arm
 * @rtt: the RTT estimate
 * @timeout_ns: the Local ACK Timeout (roce_rel_timeout_ns()), 0 for none
 *
 * The Local ACK Timeout is the least the requester waits.  A software
 * responder on a shared CPU often answers later than the consumer's
 * timeout, and every early expiry sends the window again, which delays
 * the answer further (16 QPs of 1 MiB writes on a starved 2-vCPU guest
 * sent each window dozens of times over at a 67 ms timeout); the timer
 * therefore waits as long as the measured RTT says a response can take,
 * up to roce_rel_rto_max_ns(), so that a real loss is still found soon.
 *
 * Return: nanoseconds, 0 for none.
 */
u64 roce_rel_rto_ns(const struct roce_rel_rtt *rtt, u64 timeout_ns)
{
	if (!timeout_ns || !rtt->srtt_ns)
		return timeout_ns;
	return clamp_t(u64, roce_rel_rtt_bound(rtt), timeout_ns,
		       roce_rel_rto_max_ns(timeout_ns));
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_rto_ns);

/**
 * roce_rel_backoff_ns - the retransmission timeout after timeouts in a row
 * @rto_ns: the timeout from roce_rel_rto_ns()
 * @timeout_ns: the Local ACK Timeout, 0 for none
 * @backoff: timeouts since the last progress
 *
 * Each timeout in a row doubles the wait, so that a responder slower than
 * the timeout is not sent the whole window again and again, but never
 * beyond roce_rel_rto_max_ns(): without a bound, a few losses of one packet in a
 * row at rdma_cm's 0.5 s timeout, stretched by a long RTT on a starved
 * CPU, stall the QP for longer than nvme-rdma's 30 s I/O timeout.
 *
 * Return: nanoseconds, 0 for none.
 */
u64 roce_rel_backoff_ns(u64 rto_ns, u64 timeout_ns, unsigned int backoff)
{
	u64 cap = roce_rel_rto_max_ns(timeout_ns);

	if (!rto_ns || rto_ns >= cap)
		return rto_ns;
	/* rto_ns < cap < 2^40: no shift below overflows before the clamp. */
	return min_t(u64, rto_ns << min(backoff, 20U), cap);
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_backoff_ns);

/**
 * roce_rel_probe_ns - when to probe for a lost tail
 * @rtt: the RTT estimate
 * @rto_ns: the retransmission timeout, 0 if the QP has none
 *
 * A lost last packet, or a lost ACK for it, is otherwise noticed only when
 * the retransmission timer expires (rdma_cm's RoCE default is 0.5 s), and
 * so is a lost sequence NAK, after which the responder drops everything
 * but the PSN it expects.  Once no ACK can still be on its way - twice the
 * RTT, and no less than SRTT + 4 * RTTVAR, plus slack for scheduling - the
 * requester goes back to the first unacknowledged PSN once, without using
 * up the retry count; the newest packet it sends again asks for an ACK.
 * A probe before that point only sends a window again for nothing.
 *
 * Return: the probe delay, or 0 for no probe (RTT unknown, or a probe
 * would not come sooner than half the timeout).
 */
u64 roce_rel_probe_ns(const struct roce_rel_rtt *rtt, u64 rto_ns)
{
	u64 ns;

	if (!rtt->srtt_ns || !rto_ns)
		return 0;
	ns = max(2 * rtt->srtt_ns, roce_rel_rtt_bound(rtt));
	ns = max_t(u64, ns + ROCE_REL_PROBE_SLACK_NS, ROCE_REL_PROBE_MIN_NS);
	return ns < rto_ns / 2 ? ns : 0;
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_probe_ns);

/**
 * roce_rel_cwnd_loss - the window after a loss (sequence NAK or timeout)
 * @cwnd: the current window
 *
 * Go-back-N sends everything after a lost packet again, so on a lossy path
 * a full window costs up to a window per loss; halving bounds that.
 *
 * Return: half the window, at least ROCE_REL_CWND_MIN.
 */
u32 roce_rel_cwnd_loss(u32 cwnd)
{
	return max_t(u32, cwnd / 2, ROCE_REL_CWND_MIN);
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_cwnd_loss);

/**
 * roce_rel_cwnd_ack - the window after an acknowledgment that made progress
 * @cwnd: the current window
 *
 * Return: one packet more, at most ROCE_REL_CWND_MAX.
 */
u32 roce_rel_cwnd_ack(u32 cwnd)
{
	return min_t(u32, cwnd + 1, ROCE_REL_CWND_MAX);
}
EXPORT_SYMBOL_IF_KUNIT(roce_rel_cwnd_ack);
