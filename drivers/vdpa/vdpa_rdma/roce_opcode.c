// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the RoCEv2 opcodes this device sends and accepts (IBA 9.2 and
 * table 38) and the order in which a QP's packets may follow each other.
 *
 * FLUSH and ATOMIC F_WRITE are left out on purpose: the device does not offer
 * them, so a peer that sends them gets what any unknown opcode gets, an
 * invalid request.
 */
#include <kunit/visibility.h>
#include <linux/export.h>
#include <linux/kernel.h>

#include "roce.h"

/*
 * @len is the BTH and the extension headers in @h; the KUnit suite checks
 * it against the header sizes.
 */
#define OP(t, op, f, h, len)						\
	[ROCE_OPC_##t | ROCE_OP_##op] = {				\
		.name = #t "_" #op,					\
		.flags = (f),						\
		.qpts = ROCE_QPT_##t,					\
		.hdrs = (h),						\
		.hdr_len = (len),					\
	}

/* Shorthands for the table only. */
#define F_REQ		ROCE_OPF_REQ
#define F_RESP		ROCE_OPF_RESP
#define F_FIRST		ROCE_OPF_FIRST
#define F_MIDDLE	ROCE_OPF_MIDDLE
#define F_LAST		ROCE_OPF_LAST
#define F_ONLY		ROCE_OPF_ONLY
#define F_IMM		ROCE_OPF_IMM
#define F_INV		ROCE_OPF_INV
#define F_ACKED		ROCE_OPF_NEEDS_ACK
#define F_SEND		(F_REQ | ROCE_OPF_SEND | ROCE_OPF_PAYLOAD)
#define F_WRITE		(F_REQ | ROCE_OPF_WRITE | ROCE_OPF_PAYLOAD)
#define F_READ		(F_REQ | ROCE_OPF_READ | F_ONLY | F_ACKED)
#define F_ATOMIC	(F_REQ | ROCE_OPF_ATOMIC | F_ONLY | F_ACKED)
#define F_READ_RESP	(F_RESP | ROCE_OPF_READ_RESP | ROCE_OPF_PAYLOAD)
#define H_XRC		ROCE_HDR_XRCETH
#define H_DETH		ROCE_HDR_DETH
#define H_RETH		ROCE_HDR_RETH
#define H_ATOMIC	ROCE_HDR_ATOMICETH
#define H_AETH		ROCE_HDR_AETH
#define H_ATOMICACK	ROCE_HDR_ATOMICACKETH
#define H_IMM		ROCE_HDR_IMMDT
#define H_IETH		ROCE_HDR_IETH

/*
 * RC, UC and XRC share the SEND and RDMA WRITE operations; only RC and XRC
 * acknowledge.
 */
static const struct roce_opcode_info roce_opcodes[256] = {
	OP(RC, SEND_FIRST, F_SEND | F_FIRST | F_ACKED, 0, 12),
	OP(RC, SEND_MIDDLE, F_SEND | F_MIDDLE | F_ACKED, 0, 12),
	OP(RC, SEND_LAST, F_SEND | F_LAST | F_ACKED, 0, 12),
	OP(RC, SEND_LAST_WITH_IMMEDIATE,
	   F_SEND | F_LAST | F_IMM | F_ACKED, H_IMM, 16),
	OP(RC, SEND_ONLY, F_SEND | F_ONLY | F_ACKED, 0, 12),
	OP(RC, SEND_ONLY_WITH_IMMEDIATE,
	   F_SEND | F_ONLY | F_IMM | F_ACKED, H_IMM, 16),
	OP(RC, RDMA_WRITE_FIRST, F_WRITE | F_FIRST | F_ACKED, H_RETH, 28),
	OP(RC, RDMA_WRITE_MIDDLE, F_WRITE | F_MIDDLE | F_ACKED, 0, 12),
	OP(RC, RDMA_WRITE_LAST, F_WRITE | F_LAST | F_ACKED, 0, 12),
	OP(RC, RDMA_WRITE_LAST_WITH_IMMEDIATE,
	   F_WRITE | F_LAST | F_IMM | F_ACKED, H_IMM, 16),
	OP(RC, RDMA_WRITE_ONLY, F_WRITE | F_ONLY | F_ACKED, H_RETH, 28),
	OP(RC, RDMA_WRITE_ONLY_WITH_IMMEDIATE,
	   F_WRITE | F_ONLY | F_IMM | F_ACKED, H_RETH | H_IMM, 32),
	OP(RC, RDMA_READ_REQUEST, F_READ, H_RETH, 28),
	OP(RC, RDMA_READ_RESPONSE_FIRST, F_READ_RESP | F_FIRST, H_AETH, 16),
	OP(RC, RDMA_READ_RESPONSE_MIDDLE, F_READ_RESP | F_MIDDLE, 0, 12),
	OP(RC, RDMA_READ_RESPONSE_LAST, F_READ_RESP | F_LAST, H_AETH, 16),
	OP(RC, RDMA_READ_RESPONSE_ONLY, F_READ_RESP | F_ONLY, H_AETH, 16),
	OP(RC, ACKNOWLEDGE, F_RESP | ROCE_OPF_ACK | F_ONLY, H_AETH, 16),
	OP(RC, ATOMIC_ACKNOWLEDGE,
	   F_RESP | ROCE_OPF_ATOMIC_ACK | F_ONLY, H_AETH | H_ATOMICACK, 24),
	OP(RC, COMPARE_SWAP, F_ATOMIC, H_ATOMIC, 40),
	OP(RC, FETCH_ADD, F_ATOMIC, H_ATOMIC, 40),
	OP(RC, SEND_LAST_WITH_INVALIDATE,
	   F_SEND | F_LAST | F_INV | F_ACKED, H_IETH, 16),
	OP(RC, SEND_ONLY_WITH_INVALIDATE,
	   F_SEND | F_ONLY | F_INV | F_ACKED, H_IETH, 16),

	OP(UC, SEND_FIRST, F_SEND | F_FIRST, 0, 12),
	OP(UC, SEND_MIDDLE, F_SEND | F_MIDDLE, 0, 12),
	OP(UC, SEND_LAST, F_SEND | F_LAST, 0, 12),
	OP(UC, SEND_LAST_WITH_IMMEDIATE, F_SEND | F_LAST | F_IMM, H_IMM, 16),
	OP(UC, SEND_ONLY, F_SEND | F_ONLY, 0, 12),
	OP(UC, SEND_ONLY_WITH_IMMEDIATE, F_SEND | F_ONLY | F_IMM, H_IMM, 16),
	OP(UC, RDMA_WRITE_FIRST, F_WRITE | F_FIRST, H_RETH, 28),
	OP(UC, RDMA_WRITE_MIDDLE, F_WRITE | F_MIDDLE, 0, 12),
	OP(UC, RDMA_WRITE_LAST, F_WRITE | F_LAST, 0, 12),
	OP(UC, RDMA_WRITE_LAST_WITH_IMMEDIATE,
	   F_WRITE | F_LAST | F_IMM, H_IMM, 16),
	OP(UC, RDMA_WRITE_ONLY, F_WRITE | F_ONLY, H_RETH, 28),
	OP(UC, RDMA_WRITE_ONLY_WITH_IMMEDIATE,
	   F_WRITE | F_ONLY | F_IMM, H_RETH | H_IMM, 32),

	/*
	 * XRC (IBA annex A14): RC's operations and their responses, every
	 * request with an XRCETH in front of its other headers.
	 */
	OP(XRC, SEND_FIRST, F_SEND | F_FIRST | F_ACKED, H_XRC, 16),
	OP(XRC, SEND_MIDDLE, F_SEND | F_MIDDLE | F_ACKED, H_XRC, 16),
	OP(XRC, SEND_LAST, F_SEND | F_LAST | F_ACKED, H_XRC, 16),
	OP(XRC, SEND_LAST_WITH_IMMEDIATE,
	   F_SEND | F_LAST | F_IMM | F_ACKED, H_XRC | H_IMM, 20),
	OP(XRC, SEND_ONLY, F_SEND | F_ONLY | F_ACKED, H_XRC, 16),
	OP(XRC, SEND_ONLY_WITH_IMMEDIATE,
	   F_SEND | F_ONLY | F_IMM | F_ACKED, H_XRC | H_IMM, 20),
	OP(XRC, RDMA_WRITE_FIRST, F_WRITE | F_FIRST | F_ACKED,
	   H_XRC | H_RETH, 32),
	OP(XRC, RDMA_WRITE_MIDDLE, F_WRITE | F_MIDDLE | F_ACKED, H_XRC, 16),
	OP(XRC, RDMA_WRITE_LAST, F_WRITE | F_LAST | F_ACKED, H_XRC, 16),
	OP(XRC, RDMA_WRITE_LAST_WITH_IMMEDIATE,
	   F_WRITE | F_LAST | F_IMM | F_ACKED, H_XRC | H_IMM, 20),
	OP(XRC, RDMA_WRITE_ONLY, F_WRITE | F_ONLY | F_ACKED, H_XRC | H_RETH, 32),
	OP(XRC, RDMA_WRITE_ONLY_WITH_IMMEDIATE,
	   F_WRITE | F_ONLY | F_IMM | F_ACKED, H_XRC | H_RETH | H_IMM, 36),
	OP(XRC, RDMA_READ_REQUEST, F_READ, H_XRC | H_RETH, 32),
	OP(XRC, RDMA_READ_RESPONSE_FIRST, F_READ_RESP | F_FIRST, H_AETH, 16),
	OP(XRC, RDMA_READ_RESPONSE_MIDDLE, F_READ_RESP | F_MIDDLE, 0, 12),
	OP(XRC, RDMA_READ_RESPONSE_LAST, F_READ_RESP | F_LAST, H_AETH, 16),
	OP(XRC, RDMA_READ_RESPONSE_ONLY, F_READ_RESP | F_ONLY, H_AETH, 16),
	OP(XRC, ACKNOWLEDGE, F_RESP | ROCE_OPF_ACK | F_ONLY, H_AETH, 16),
	OP(XRC, ATOMIC_ACKNOWLEDGE,
	   F_RESP | ROCE_OPF_ATOMIC_ACK | F_ONLY, H_AETH | H_ATOMICACK, 24),
	OP(XRC, COMPARE_SWAP, F_ATOMIC, H_XRC | H_ATOMIC, 44),
	OP(XRC, FETCH_ADD, F_ATOMIC, H_XRC | H_ATOMIC, 44),
	OP(XRC, SEND_LAST_WITH_INVALIDATE,
	   F_SEND | F_LAST | F_INV | F_ACKED, H_XRC | H_IETH, 20),
	OP(XRC, SEND_ONLY_WITH_INVALIDATE,
	   F_SEND | F_ONLY | F_INV | F_ACKED, H_XRC | H_IETH, 20),

	OP(UD, SEND_ONLY, F_SEND | F_ONLY, H_DETH, 20),
	OP(UD, SEND_ONLY_WITH_IMMEDIATE,
	   F_SEND | F_ONLY | F_IMM, H_DETH | H_IMM, 24),
};

/**
 * vdr_roce_opcode() - what an opcode carries and means
 * @opcode: BTH opcode
 *
 * Return: the opcode's properties, or NULL if the device does not know it.
 */
const struct roce_opcode_info *vdr_roce_opcode(u8 opcode)
{
	const struct roce_opcode_info *info = &roce_opcodes[opcode];

	return info->flags ? info : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_opcode);

/**
 * vdr_roce_ext_len() - size of an extension header
 * @ext: the header
 *
 * Return: its size in bytes, 0 for a value outside enum roce_ext.
 */
unsigned int vdr_roce_ext_len(enum roce_ext ext)
{
	switch (ext) {
	case ROCE_EXT_XRCETH:
		return ROCE_XRCETH_BYTES;
	case ROCE_EXT_DETH:
		return ROCE_DETH_BYTES;
	case ROCE_EXT_RETH:
		return ROCE_RETH_BYTES;
	case ROCE_EXT_ATOMICETH:
		return ROCE_ATOMICETH_BYTES;
	case ROCE_EXT_AETH:
		return ROCE_AETH_BYTES;
	case ROCE_EXT_ATOMICACKETH:
		return ROCE_ATOMICACKETH_BYTES;
	case ROCE_EXT_IMMDT:
		return ROCE_IMMDT_BYTES;
	case ROCE_EXT_IETH:
		return ROCE_IETH_BYTES;
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_ext_len);

/**
 * vdr_roce_opcode_seq_ok() - may @next follow @prev on the same stream
 * @prev: opcode of the previous in-sequence packet of the stream, or
 *	ROCE_OPCODE_NONE at the start of the stream
 * @next: opcode of the packet that follows it (next PSN)
 *
 * A stream is what one side receives on one QP: requests at the responder,
 * responses at the requester.  Inside a multi-packet message only F_MIDDLE
 * and F_LAST packets of the same operation may follow; between messages only
 * a F_FIRST or F_ONLY packet may.  The caller passes packets whose PSN is the
 * expected one: duplicates and PSN gaps are the transport's business (a UC
 * responder that detects a gap drops the partial message and restarts the
 * stream with ROCE_OPCODE_NONE).
 *
 * Return: true if the sequence is valid.
 */
bool vdr_roce_opcode_seq_ok(int prev, u8 next)
{
	const struct roce_opcode_info *n = vdr_roce_opcode(next);
	const struct roce_opcode_info *p;
	u16 class = ROCE_OPF_REQ | ROCE_OPF_RESP;

	if (!n)
		return false;
	if (prev == ROCE_OPCODE_NONE)
		return n->flags & ROCE_OPF_FIRST;
	if (prev < 0 || prev > U8_MAX)
		return false;
	p = vdr_roce_opcode(prev);
	if (!p)
		return false;
	if ((prev & ROCE_OPC_TRANSPORT_MASK) != (next & ROCE_OPC_TRANSPORT_MASK) ||
	    (p->flags & class) != (n->flags & class))
		return false;

	if (!(p->flags & ROCE_OPF_LAST))
		return !(n->flags & ROCE_OPF_FIRST) &&
		       (p->flags & ROCE_OPF_KIND_MASK) ==
		       (n->flags & ROCE_OPF_KIND_MASK);
	return n->flags & ROCE_OPF_FIRST;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_opcode_seq_ok);
