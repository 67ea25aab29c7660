/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the RoCEv2 packet layer.  It turns packets into structured data
 * and back (opcode table, build, parse, ICRC) so that the transport engine
 * never touches wire bytes; vdpa_rdma_pkt_test.c checks it, among other
 * things against packets captured from rdma_rxe.
 */
#ifndef _VDPA_RDMA_ROCE_H
#define _VDPA_RDMA_ROCE_H

#include <linux/bits.h>
#include <linux/crc32.h>
#include <linux/types.h>

#include "roce_hdr.h"

/*
 * Extension headers, in the order IBA 9.2 and annex A14 place them after
 * the BTH for every opcode (XRCETH or DETH, RETH or AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH): an opcode's headers appear on the wire in
 * the order of this enum.
 */
enum roce_ext {
	ROCE_EXT_XRCETH,
	ROCE_EXT_DETH,
	ROCE_EXT_RETH,
	ROCE_EXT_ATOMICETH,
	ROCE_EXT_AETH,
	ROCE_EXT_ATOMICACKETH,
	ROCE_EXT_IMMDT,
	ROCE_EXT_IETH,
	ROCE_EXT_NUM
};

#define ROCE_HDR_XRCETH		BIT(ROCE_EXT_XRCETH)
#define ROCE_HDR_DETH		BIT(ROCE_EXT_DETH)
#define ROCE_HDR_RETH		BIT(ROCE_EXT_RETH)
#define ROCE_HDR_ATOMICETH	BIT(ROCE_EXT_ATOMICETH)
#define ROCE_HDR_AETH		BIT(ROCE_EXT_AETH)
#define ROCE_HDR_ATOMICACKETH	BIT(ROCE_EXT_ATOMICACKETH)
#define ROCE_HDR_IMMDT		BIT(ROCE_EXT_IMMDT)
#define ROCE_HDR_IETH		BIT(ROCE_EXT_IETH)

/* QP types an opcode is valid on (the GSI QP is a UD QP). */
#define ROCE_QPT_RC		BIT(0)
#define ROCE_QPT_UC		BIT(1)
#define ROCE_QPT_UD		BIT(2)
#define ROCE_QPT_XRC		BIT(3)

/*
 * Opcode properties.  REQ packets are consumed by the responder, RESP
 * packets by the requester.  FIRST/MIDDLE/LAST place a packet in its
 * message (ONLY is FIRST and LAST).  NEEDS_ACK: an RC request the responder
 * must acknowledge, with an ACKNOWLEDGE for SEND and RDMA WRITE, with the
 * response itself for RDMA READ and atomics.
 */
#define ROCE_OPF_REQ		BIT(0)
#define ROCE_OPF_RESP		BIT(1)
#define ROCE_OPF_FIRST		BIT(2)
#define ROCE_OPF_MIDDLE		BIT(3)
#define ROCE_OPF_LAST		BIT(4)
#define ROCE_OPF_ONLY		(ROCE_OPF_FIRST | ROCE_OPF_LAST)
#define ROCE_OPF_PAYLOAD	BIT(5)
#define ROCE_OPF_NEEDS_ACK	BIT(6)
#define ROCE_OPF_SEND		BIT(7)
#define ROCE_OPF_WRITE		BIT(8)
#define ROCE_OPF_READ		BIT(9)
#define ROCE_OPF_ATOMIC		BIT(10)
#define ROCE_OPF_READ_RESP	BIT(11)
#define ROCE_OPF_ACK		BIT(12)
#define ROCE_OPF_ATOMIC_ACK	BIT(13)
#define ROCE_OPF_IMM		BIT(14)
#define ROCE_OPF_INV		BIT(15)

/* The operation kinds; a message never mixes two of them. */
#define ROCE_OPF_KIND_MASK	(ROCE_OPF_SEND | ROCE_OPF_WRITE | \
				 ROCE_OPF_READ | ROCE_OPF_ATOMIC | \
				 ROCE_OPF_READ_RESP | ROCE_OPF_ACK | \
				 ROCE_OPF_ATOMIC_ACK)

struct roce_opcode_info {
	const char *name;
	u16 flags;		/* ROCE_OPF_* */
	u8 qpts;		/* ROCE_QPT_* */
	u8 hdrs;		/* ROCE_HDR_*, in enum roce_ext order on the wire */
	u8 hdr_len;		/* BTH and extension headers */
};

/* "No packet yet" for the previous opcode of vdr_roce_opcode_seq_ok(). */
#define ROCE_OPCODE_NONE	(-1)

const struct roce_opcode_info *vdr_roce_opcode(u8 opcode);
unsigned int vdr_roce_ext_len(enum roce_ext ext);
bool vdr_roce_opcode_seq_ok(int prev, u8 next);

/*
 * A packet's BTH and extension headers as values.  vdr_roce_build() reads
 * the extension header members the opcode has and ignores the others;
 * vdr_roce_parse() fills them and zeroes the others.
 */
struct roce_pkt {
	const struct roce_opcode_info *info;	/* set by parse */
	u8 opcode;
	u8 pad;
	bool se;
	bool mig;
	bool fecn;
	bool becn;
	bool ack_req;
	u16 pkey;
	u32 dqpn;
	u32 psn;

	u32 xrc_srqn;		/* XRCETH */
	struct {
		u32 qkey;
		u32 sqpn;
	} deth;
	struct {
		u64 va;
		u32 rkey;
		u32 len;
	} reth;
	struct {
		u64 va;
		u32 rkey;
		u64 swap_add;
		u64 compare;
	} atomiceth;
	struct {
		u8 syndrome;
		u32 msn;
	} aeth;
	u64 atomic_orig;	/* AtomicAckETH */
	__be32 imm;		/* ImmDt, opaque */
	u32 ieth_rkey;		/* IETH */

	u32 hdr_len;		/* BTH + extension headers = payload offset */
	u32 payload_len;	/* without the pad bytes */
	const u8 *payload;	/* set by parse */
};

static inline u8 roce_pad_len(u32 payload_len)
{
	return -payload_len & 3;
}

int vdr_roce_build(const struct roce_pkt *pkt, void *buf, size_t size);
int vdr_roce_parse(const void *buf, size_t len, struct roce_pkt *pkt);

/* Where the RoCEv2 packet sits in an IP packet. */
struct roce_l3 {
	u8 ipver;		/* 4 or 6 */
	u16 udp_off;		/* = IP header length */
	u16 sport;
	u16 dport;
	u32 bth_off;		/* UDP payload: BTH to ICRC */
	u32 bth_len;
};

int vdr_roce_l3_parse(const void *buf, size_t len, int ipver,
		      struct roce_l3 *l3);

/*
 * ICRC (IBA Annex A17.3.3): CRC-32 over 8 bytes of ones standing for the
 * LRH, the IP and UDP headers and the BTH with their variant fields set to
 * ones, then the rest of the packet up to the ICRC, which is the complement
 * of the CRC in little-endian byte order.
 *
 * A sender that builds the headers in place and gathers the payload from
 * elsewhere runs vdr_roce_icrc_hdr() over the contiguous IP, UDP and BTH
 * headers, roce_icrc_update() over everything after the BTH, and stores
 * roce_icrc_final().
 */
#define ROCE_ICRC_SEED		0xdebb20e3	/* crc32_le(~0, 8 x 0xff) */

u32 vdr_roce_icrc_hdr(const void *iph, int ipver);
int vdr_roce_icrc(const void *buf, size_t len, int ipver, u32 *icrc);
int vdr_roce_icrc_check(const void *buf, size_t len, int ipver);
int vdr_roce_icrc_generate(void *buf, size_t len, int ipver);

u32 roce_icrc_update(u32 crc, const void *p, size_t len);
void vdr_roce_icrc_init(void);
void vdr_roce_icrc_exit(void);

static inline u32 roce_icrc_final(u32 crc)
{
	return ~crc;
}

#endif /* _VDPA_RDMA_ROCE_H */
