/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: RoCEv2 transport headers as they are on the wire (InfiniBand
 * Architecture Specification vol. 1, chapter 9.2, and its Annex A17 for
 * RoCEv2), byte-compatible with rdma_rxe.
 *
 * Every header is a multiple of 4 bytes and follows the BTH at a 4-byte
 * offset, so the layouts use only u8 and __be16/__be32 fields and need no
 * packing; 64-bit values are split into high and low words because an
 * AtomicETH would otherwise get a hole after its R_Key.  A received packet
 * may start at any address (the UDP payload of an Ethernet frame is only
 * 2-byte aligned), so the accessors go through get/put_unaligned.
 */
#ifndef _VDPA_RDMA_ROCE_HDR_H
#define _VDPA_RDMA_ROCE_HDR_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>
#include <linux/unaligned.h>
#include <linux/wordpart.h>

#define ROCE_UDP_PORT		4791

/* Opcode: transport in bits 7-5, operation in bits 4-0. */
#define ROCE_OPC_TRANSPORT_MASK	0xe0
#define ROCE_OPC_RC		0x00
#define ROCE_OPC_UC		0x20
#define ROCE_OPC_RD		0x40
#define ROCE_OPC_UD		0x60
#define ROCE_OPC_CNP		0x80
#define ROCE_OPC_XRC		0xa0

#define ROCE_OP_SEND_FIRST			0x00
#define ROCE_OP_SEND_MIDDLE			0x01
#define ROCE_OP_SEND_LAST			0x02
#define ROCE_OP_SEND_LAST_WITH_IMMEDIATE	0x03
#define ROCE_OP_SEND_ONLY			0x04
#define ROCE_OP_SEND_ONLY_WITH_IMMEDIATE	0x05
#define ROCE_OP_RDMA_WRITE_FIRST		0x06
#define ROCE_OP_RDMA_WRITE_MIDDLE		0x07
#define ROCE_OP_RDMA_WRITE_LAST			0x08
#define ROCE_OP_RDMA_WRITE_LAST_WITH_IMMEDIATE	0x09
#define ROCE_OP_RDMA_WRITE_ONLY			0x0a
#define ROCE_OP_RDMA_WRITE_ONLY_WITH_IMMEDIATE	0x0b
#define ROCE_OP_RDMA_READ_REQUEST		0x0c
#define ROCE_OP_RDMA_READ_RESPONSE_FIRST	0x0d
#define ROCE_OP_RDMA_READ_RESPONSE_MIDDLE	0x0e
#define ROCE_OP_RDMA_READ_RESPONSE_LAST		0x0f
#define ROCE_OP_RDMA_READ_RESPONSE_ONLY		0x10
#define ROCE_OP_ACKNOWLEDGE			0x11
#define ROCE_OP_ATOMIC_ACKNOWLEDGE		0x12
#define ROCE_OP_COMPARE_SWAP			0x13
#define ROCE_OP_FETCH_ADD			0x14
#define ROCE_OP_SEND_LAST_WITH_INVALIDATE	0x16
#define ROCE_OP_SEND_ONLY_WITH_INVALIDATE	0x17
/* Defined by IBA 1.5 and sent by rdma_rxe; this device does not offer them. */
#define ROCE_OP_FLUSH				0x1c
#define ROCE_OP_ATOMIC_WRITE			0x1d

#define ROCE_RC(op)	(ROCE_OPC_RC | ROCE_OP_##op)
#define ROCE_UC(op)	(ROCE_OPC_UC | ROCE_OP_##op)
#define ROCE_UD(op)	(ROCE_OPC_UD | ROCE_OP_##op)
#define ROCE_XRC(op)	(ROCE_OPC_XRC | ROCE_OP_##op)

/* Base Transport Header */
struct roce_bth {
	u8 opcode;
	u8 flags;		/* SE, MigReq, PadCnt, TVer */
	__be16 pkey;
	__be32 qpn;		/* FECN, BECN, resv6a, DestQP */
	__be32 apsn;		/* AckReq, resv7, PSN */
};

#define ROCE_BTH_SE		0x80
#define ROCE_BTH_MIG		0x40
#define ROCE_BTH_PAD_MASK	0x30
#define ROCE_BTH_PAD_SHIFT	4
#define ROCE_BTH_TVER_MASK	0x0f
#define ROCE_BTH_TVER		0
#define ROCE_BTH_FECN		BIT(31)
#define ROCE_BTH_BECN		BIT(30)
#define ROCE_BTH_RESV6A_MASK	GENMASK(29, 24)
#define ROCE_BTH_ACK_REQ	BIT(31)
#define ROCE_BTH_RESV7_MASK	GENMASK(30, 24)

#define ROCE_QPN_MASK		GENMASK(23, 0)
#define ROCE_PSN_BITS		24
#define ROCE_PSN_MASK		GENMASK(ROCE_PSN_BITS - 1, 0)
#define ROCE_DEFAULT_PKEY	0xffff
#define ROCE_MULTICAST_QPN	0xffffff

/* RDMA Extended Transport Header */
struct roce_reth {
	__be32 va_hi;
	__be32 va_lo;
	__be32 rkey;
	__be32 dma_len;
};

/* ACK Extended Transport Header */
struct roce_aeth {
	__be32 smsn;		/* Syndrome, MSN */
};

#define ROCE_AETH_MSN_MASK	GENMASK(23, 0)
#define ROCE_AETH_SYN_SHIFT	24

/*
 * AETH syndrome: bit 7 reserved, bits 6-5 the type, bits 4-0 a credit
 * count (ACK), a timer code (RNR NAK) or a NAK code.
 */
#define ROCE_AETH_TYPE_MASK		0x60
#define ROCE_AETH_VALUE_MASK		0x1f
#define ROCE_AETH_ACK			0x00
#define ROCE_AETH_RNR_NAK		0x20
#define ROCE_AETH_RSVD			0x40
#define ROCE_AETH_NAK			0x60
/* Credit count "invalid": end-to-end flow control is not used. */
#define ROCE_AETH_ACK_UNLIMITED		(ROCE_AETH_ACK | 0x1f)
#define ROCE_AETH_NAK_PSN_SEQ_ERR	(ROCE_AETH_NAK | 0)
#define ROCE_AETH_NAK_INVALID_REQ	(ROCE_AETH_NAK | 1)
#define ROCE_AETH_NAK_REM_ACCESS_ERR	(ROCE_AETH_NAK | 2)
#define ROCE_AETH_NAK_REM_OP_ERR	(ROCE_AETH_NAK | 3)
#define ROCE_AETH_NAK_INVALID_RD_REQ	(ROCE_AETH_NAK | 4)

/* Atomic Extended Transport Header */
struct roce_atomiceth {
	__be32 va_hi;
	__be32 va_lo;
	__be32 rkey;
	__be32 swap_add_hi;
	__be32 swap_add_lo;
	__be32 compare_hi;
	__be32 compare_lo;
};

/* Atomic Acknowledge Extended Transport Header */
struct roce_atomicacketh {
	__be32 orig_hi;
	__be32 orig_lo;
};

/* Immediate Data Extended Transport Header */
struct roce_immdt {
	__be32 imm;
};

/* Invalidate Extended Transport Header */
struct roce_ieth {
	__be32 rkey;
};

/*
 * XRC Extended Transport Header (IBA annex A14): the XRC SRQ a request is
 * for at the target, in every XRC request packet right after the BTH.
 */
struct roce_xrceth {
	__be32 srqn;		/* resv8, XRCSRQ */
};

#define ROCE_XRCSRQ_MASK	GENMASK(23, 0)

/* Datagram Extended Transport Header */
struct roce_deth {
	__be32 qkey;
	__be32 sqpn;		/* resv8, SrcQP */
};

#define ROCE_GSI_QKEY		0x80010000

#define ROCE_BTH_BYTES		12
#define ROCE_RETH_BYTES		16
#define ROCE_AETH_BYTES		4
#define ROCE_ATOMICETH_BYTES	28
#define ROCE_ATOMICACKETH_BYTES	8
#define ROCE_IMMDT_BYTES	4
#define ROCE_IETH_BYTES		4
#define ROCE_DETH_BYTES		8
#define ROCE_XRCETH_BYTES	4
#define ROCE_ICRC_BYTES		4

static_assert(sizeof(struct roce_bth) == ROCE_BTH_BYTES);
static_assert(sizeof(struct roce_reth) == ROCE_RETH_BYTES);
static_assert(sizeof(struct roce_aeth) == ROCE_AETH_BYTES);
static_assert(sizeof(struct roce_atomiceth) == ROCE_ATOMICETH_BYTES);
static_assert(sizeof(struct roce_atomicacketh) == ROCE_ATOMICACKETH_BYTES);
static_assert(sizeof(struct roce_immdt) == ROCE_IMMDT_BYTES);
static_assert(sizeof(struct roce_ieth) == ROCE_IETH_BYTES);
static_assert(sizeof(struct roce_deth) == ROCE_DETH_BYTES);
static_assert(sizeof(struct roce_xrceth) == ROCE_XRCETH_BYTES);

static inline u64 roce_get_be64(const __be32 *hi, const __be32 *lo)
{
	return (u64)get_unaligned_be32(hi) << 32 | get_unaligned_be32(lo);
}

static inline void roce_put_be64(u64 v, __be32 *hi, __be32 *lo)
{
	put_unaligned_be32(upper_32_bits(v), hi);
	put_unaligned_be32(lower_32_bits(v), lo);
}

/* BTH */
static inline u8 roce_bth_opcode(const struct roce_bth *bth)
{
	return bth->opcode;
}

static inline bool roce_bth_se(const struct roce_bth *bth)
{
	return bth->flags & ROCE_BTH_SE;
}

static inline bool roce_bth_mig(const struct roce_bth *bth)
{
	return bth->flags & ROCE_BTH_MIG;
}

static inline u8 roce_bth_pad(const struct roce_bth *bth)
{
	return (bth->flags & ROCE_BTH_PAD_MASK) >> ROCE_BTH_PAD_SHIFT;
}

static inline u8 roce_bth_tver(const struct roce_bth *bth)
{
	return bth->flags & ROCE_BTH_TVER_MASK;
}

static inline u16 roce_bth_pkey(const struct roce_bth *bth)
{
	return get_unaligned_be16(&bth->pkey);
}

static inline u32 roce_bth_qpn(const struct roce_bth *bth)
{
	return get_unaligned_be32(&bth->qpn) & ROCE_QPN_MASK;
}

static inline bool roce_bth_fecn(const struct roce_bth *bth)
{
	return get_unaligned_be32(&bth->qpn) & ROCE_BTH_FECN;
}

static inline bool roce_bth_becn(const struct roce_bth *bth)
{
	return get_unaligned_be32(&bth->qpn) & ROCE_BTH_BECN;
}

static inline bool roce_bth_ack_req(const struct roce_bth *bth)
{
	return get_unaligned_be32(&bth->apsn) & ROCE_BTH_ACK_REQ;
}

static inline u32 roce_bth_psn(const struct roce_bth *bth)
{
	return get_unaligned_be32(&bth->apsn) & ROCE_PSN_MASK;
}

/* Retransmission rewrites only these two fields of a saved packet. */
static inline void roce_bth_set_apsn(struct roce_bth *bth, bool ack_req,
				     u32 psn)
{
	put_unaligned_be32((ack_req ? ROCE_BTH_ACK_REQ : 0) |
			   (psn & ROCE_PSN_MASK), &bth->apsn);
}

/* RETH */
static inline u64 roce_reth_va(const struct roce_reth *reth)
{
	return roce_get_be64(&reth->va_hi, &reth->va_lo);
}

static inline u32 roce_reth_rkey(const struct roce_reth *reth)
{
	return get_unaligned_be32(&reth->rkey);
}

static inline u32 roce_reth_len(const struct roce_reth *reth)
{
	return get_unaligned_be32(&reth->dma_len);
}

static inline void roce_reth_set(struct roce_reth *reth, u64 va, u32 rkey,
				 u32 len)
{
	roce_put_be64(va, &reth->va_hi, &reth->va_lo);
	put_unaligned_be32(rkey, &reth->rkey);
	put_unaligned_be32(len, &reth->dma_len);
}

/* AETH */
static inline u8 roce_aeth_syndrome(const struct roce_aeth *aeth)
{
	return get_unaligned_be32(&aeth->smsn) >> ROCE_AETH_SYN_SHIFT;
}

static inline u32 roce_aeth_msn(const struct roce_aeth *aeth)
{
	return get_unaligned_be32(&aeth->smsn) & ROCE_AETH_MSN_MASK;
}

static inline void roce_aeth_set(struct roce_aeth *aeth, u8 syndrome, u32 msn)
{
	put_unaligned_be32((u32)syndrome << ROCE_AETH_SYN_SHIFT |
			   (msn & ROCE_AETH_MSN_MASK), &aeth->smsn);
}

/* AtomicETH */
static inline u64 roce_atomiceth_va(const struct roce_atomiceth *ae)
{
	return roce_get_be64(&ae->va_hi, &ae->va_lo);
}

static inline u32 roce_atomiceth_rkey(const struct roce_atomiceth *ae)
{
	return get_unaligned_be32(&ae->rkey);
}

static inline u64 roce_atomiceth_swap_add(const struct roce_atomiceth *ae)
{
	return roce_get_be64(&ae->swap_add_hi, &ae->swap_add_lo);
}

static inline u64 roce_atomiceth_compare(const struct roce_atomiceth *ae)
{
	return roce_get_be64(&ae->compare_hi, &ae->compare_lo);
}

static inline void roce_atomiceth_set(struct roce_atomiceth *ae, u64 va,
				      u32 rkey, u64 swap_add, u64 compare)
{
	roce_put_be64(va, &ae->va_hi, &ae->va_lo);
	put_unaligned_be32(rkey, &ae->rkey);
	roce_put_be64(swap_add, &ae->swap_add_hi, &ae->swap_add_lo);
	roce_put_be64(compare, &ae->compare_hi, &ae->compare_lo);
}

/* AtomicAckETH */
static inline u64 roce_atomicacketh_orig(const struct roce_atomicacketh *aa)
{
	return roce_get_be64(&aa->orig_hi, &aa->orig_lo);
}

static inline void roce_atomicacketh_set(struct roce_atomicacketh *aa,
					 u64 orig)
{
	roce_put_be64(orig, &aa->orig_hi, &aa->orig_lo);
}

/*
 * ImmDt: an opaque 4-byte value that travels unchanged from the work
 * request to the completion, so it stays in network byte order.
 */
static inline __be32 roce_immdt_imm(const struct roce_immdt *immdt)
{
	return get_unaligned(&immdt->imm);
}

static inline void roce_immdt_set(struct roce_immdt *immdt, __be32 imm)
{
	put_unaligned(imm, &immdt->imm);
}

/* IETH */
static inline u32 roce_ieth_rkey(const struct roce_ieth *ieth)
{
	return get_unaligned_be32(&ieth->rkey);
}

static inline void roce_ieth_set(struct roce_ieth *ieth, u32 rkey)
{
	put_unaligned_be32(rkey, &ieth->rkey);
}

/* DETH */
static inline u32 roce_deth_qkey(const struct roce_deth *deth)
{
	return get_unaligned_be32(&deth->qkey);
}

static inline u32 roce_deth_sqpn(const struct roce_deth *deth)
{
	return get_unaligned_be32(&deth->sqpn) & ROCE_QPN_MASK;
}

static inline void roce_deth_set(struct roce_deth *deth, u32 qkey, u32 sqpn)
{
	put_unaligned_be32(qkey, &deth->qkey);
	put_unaligned_be32(sqpn & ROCE_QPN_MASK, &deth->sqpn);
}

/* XRCETH: the reserved bits are sent as 0 and ignored on receipt. */
static inline u32 roce_xrceth_srqn(const struct roce_xrceth *xrceth)
{
	return get_unaligned_be32(&xrceth->srqn) & ROCE_XRCSRQ_MASK;
}

static inline void roce_xrceth_set(struct roce_xrceth *xrceth, u32 srqn)
{
	put_unaligned_be32(srqn & ROCE_XRCSRQ_MASK, &xrceth->srqn);
}

#endif /* _VDPA_RDMA_ROCE_HDR_H */
