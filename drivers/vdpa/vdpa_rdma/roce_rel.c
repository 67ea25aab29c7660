// SPDX-License-Identifier: GPL-2.0
/*
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
