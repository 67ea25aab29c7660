// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: which MODIFY_QP transitions and attribute masks the device
 * accepts.  The rules are those of the InfiniBand Architecture
 * specification (QP state transition tables) for a RoCE port, so a driver
 * that passes ib_core's checks is never refused here and a driver that
 * skips them cannot push a QP into a state the data path does not expect.
 * vdpa_rdma_qp_state_test.c compares this with ib_modify_qp_is_ok().
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/virtio_rdma.h>

#include "vdr_qp_state.h"

#define QP(x)	VIRTIO_RDMA_QP_##x

/* Attributes RESET->INIT requires and INIT->INIT accepts. */
static u32 vdr_init_attrs(u8 type)
{
	switch (type) {
	case VIRTIO_RDMA_QPT_GSI:
		return QP(PKEY_INDEX) | QP(QKEY);
	case VIRTIO_RDMA_QPT_UD:
		return QP(PKEY_INDEX) | QP(PORT) | QP(QKEY);
	default:
		return QP(PKEY_INDEX) | QP(PORT) | QP(ACCESS_FLAGS);
	}
}

/* Optional attributes of RTS->RTS and SQD->RTS. */
static u32 vdr_to_rts_opt(u8 type)
{
	switch (type) {
	case VIRTIO_RDMA_QPT_RC:
		return QP(CUR_STATE) | QP(ACCESS_FLAGS) | QP(MIN_RNR_TIMER);
	case VIRTIO_RDMA_QPT_UC:
		return QP(CUR_STATE) | QP(ACCESS_FLAGS);
	default:
		return QP(CUR_STATE) | QP(QKEY);
	}
}

/*
 * The attributes of the side an XRC QP does not have (spec "XRC"): it
 * takes them as RC does, but never needs them.
 */
static u32 vdr_xrc_unused_attrs(u8 type)
{
	switch (type) {
	case VIRTIO_RDMA_QPT_XRC_INI:
		return QP(RQ_PSN) | QP(MIN_RNR_TIMER) | QP(MAX_DEST_RD_ATOMIC);
	case VIRTIO_RDMA_QPT_XRC_TGT:
		return QP(SQ_PSN) | QP(TIMEOUT) | QP(RETRY_CNT) | QP(RNR_RETRY) |
		       QP(MAX_QP_RD_ATOMIC);
	default:
		return 0;
	}
}

/* The rules of GSI, RC, UC and UD QPs. */
static bool vdr_qp_masks(u8 cur, u8 next, u8 type, u32 *req, u32 *opt)
{
	bool datagram = type == VIRTIO_RDMA_QPT_UD ||
			type == VIRTIO_RDMA_QPT_GSI;

	*req = 0;
	*opt = 0;

	/* Any state may be reset; any but RESET may be moved to ERR. */
	if (next == VIRTIO_RDMA_QPS_RESET)
		return true;
	if (next == VIRTIO_RDMA_QPS_ERR)
		return cur != VIRTIO_RDMA_QPS_RESET;

	switch (cur) {
	case VIRTIO_RDMA_QPS_RESET:
		if (next != VIRTIO_RDMA_QPS_INIT)
			return false;
		*req = vdr_init_attrs(type);
		return true;

	case VIRTIO_RDMA_QPS_INIT:
		if (next == VIRTIO_RDMA_QPS_INIT) {
			*opt = vdr_init_attrs(type);
			return true;
		}
		if (next != VIRTIO_RDMA_QPS_RTR)
			return false;
		if (datagram) {
			*opt = QP(PKEY_INDEX) | QP(QKEY);
			return true;
		}
		*req = QP(AV) | QP(PATH_MTU) | QP(DEST_QPN) | QP(RQ_PSN);
		if (type == VIRTIO_RDMA_QPT_RC)
			*req |= QP(MAX_DEST_RD_ATOMIC) | QP(MIN_RNR_TIMER);
		*opt = QP(ACCESS_FLAGS) | QP(PKEY_INDEX);
		return true;

	case VIRTIO_RDMA_QPS_RTR:
		if (next != VIRTIO_RDMA_QPS_RTS)
			return false;
		*req = QP(SQ_PSN);
		if (type == VIRTIO_RDMA_QPT_RC) {
			*req |= QP(TIMEOUT) | QP(RETRY_CNT) | QP(RNR_RETRY) |
				QP(MAX_QP_RD_ATOMIC);
			*opt = QP(CUR_STATE) | QP(ACCESS_FLAGS) |
			       QP(MIN_RNR_TIMER);
		} else if (type == VIRTIO_RDMA_QPT_UC) {
			*opt = QP(CUR_STATE) | QP(ACCESS_FLAGS);
		} else {
			*opt = QP(CUR_STATE) | QP(QKEY);
		}
		return true;

	case VIRTIO_RDMA_QPS_RTS:
		if (next == VIRTIO_RDMA_QPS_RTS) {
			*opt = vdr_to_rts_opt(type);
			return true;
		}
		if (next == VIRTIO_RDMA_QPS_SQD) {
			*opt = QP(EN_SQD_ASYNC_NOTIFY);
			return true;
		}
		return false;

	case VIRTIO_RDMA_QPS_SQD:
		if (next == VIRTIO_RDMA_QPS_RTS) {
			*opt = vdr_to_rts_opt(type);
			return true;
		}
		if (next != VIRTIO_RDMA_QPS_SQD)
			return false;
		/* While drained, the path and its parameters may change. */
		if (type == VIRTIO_RDMA_QPT_RC)
			*opt = QP(PORT) | QP(AV) | QP(TIMEOUT) | QP(RETRY_CNT) |
			       QP(RNR_RETRY) | QP(MAX_QP_RD_ATOMIC) |
			       QP(MAX_DEST_RD_ATOMIC) | QP(ACCESS_FLAGS) |
			       QP(PKEY_INDEX) | QP(MIN_RNR_TIMER);
		else if (type == VIRTIO_RDMA_QPT_UC)
			*opt = QP(AV) | QP(ACCESS_FLAGS) | QP(PKEY_INDEX);
		else
			*opt = QP(PKEY_INDEX) | QP(QKEY);
		return true;

	case VIRTIO_RDMA_QPS_SQE:
		/* SQE exists only for UD/UC in IB; RC may just leave it. */
		if (next != VIRTIO_RDMA_QPS_RTS)
			return false;
		if (type == VIRTIO_RDMA_QPT_UC)
			*opt = QP(CUR_STATE) | QP(ACCESS_FLAGS);
		else if (datagram)
			*opt = QP(CUR_STATE) | QP(QKEY);
		return true;
	}
	return false;
}

/**
 * vdr_qp_transition_masks - the attributes a transition takes
 * @cur: current state (VIRTIO_RDMA_QPS_*), at most ERR
 * @next: requested state, at most ERR
 * @type: VIRTIO_RDMA_QPT_GSI, RC, UC, UD, XRC_INI or XRC_TGT
 * @req: set to the attributes the transition requires
 * @opt: set to the attributes it accepts besides those and the state
 *
 * XRC QPs follow the RC rules, except that the attributes of the side
 * they lack are optional: whatever ib_core lets through for them passes.
 *
 * Return: false when the transition does not exist.
 */
bool vdr_qp_transition_masks(u8 cur, u8 next, u8 type, u32 *req, u32 *opt)
{
	u32 unused = vdr_xrc_unused_attrs(type);
	bool ok;

	ok = vdr_qp_masks(cur, next, unused ? VIRTIO_RDMA_QPT_RC : type, req,
			  opt);
	*opt |= *req & unused;
	*req &= ~unused;
	return ok;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_qp_transition_masks);

/**
 * vdr_qp_transition_ok - may a QP of @type move from @cur to @next?
 * @cur: current state (VIRTIO_RDMA_QPS_*)
 * @next: requested state
 * @type: VIRTIO_RDMA_QPT_*
 * @mask: VIRTIO_RDMA_QP_* attribute mask of the MODIFY_QP
 *
 * Every required attribute of the transition must be in @mask and nothing
 * but required, optional and the state itself may be.
 */
bool vdr_qp_transition_ok(u8 cur, u8 next, u8 type, u32 mask)
{
	u32 req, opt;

	if (cur > VIRTIO_RDMA_QPS_ERR || next > VIRTIO_RDMA_QPS_ERR)
		return false;
	if ((type < VIRTIO_RDMA_QPT_GSI || type > VIRTIO_RDMA_QPT_UD) &&
	    type != VIRTIO_RDMA_QPT_XRC_INI && type != VIRTIO_RDMA_QPT_XRC_TGT)
		return false;
	if (!vdr_qp_transition_masks(cur, next, type, &req, &opt))
		return false;
	if ((mask & req) != req)
		return false;
	return !(mask & ~(req | opt | QP(STATE)));
}
EXPORT_SYMBOL_IF_KUNIT(vdr_qp_transition_ok);
