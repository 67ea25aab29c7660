// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * The RoCEv2 packet layer of vdpa_rdma (drivers/vdpa/vdpa_rdma/roce*):
 * header layouts, the opcode table and sequence rules, build/parse, the
 * ICRC and PSN arithmetic.  The device must be byte-compatible with
 * rdma_rxe, so besides synthetic packets the suite decodes, checks and
 * rebuilds packets that rxe put on the wire (vdpa_rdma_rxe_vectors.h, made
 * by tools/capture-rxe-vectors).
 *
 * Packets are parsed from buffers of exactly their length: with KASAN, a
 * read past the end fails the run.
 */
#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <net/ip.h>

#include "roce.h"
#include "roce_psn.h"
#include "vdpa_rdma_rxe_vectors.h"

#define RC(op)	ROCE_RC(op)
#define UC(op)	ROCE_UC(op)
#define UD(op)	ROCE_UD(op)
#define XRC(op)	ROCE_XRC(op)

/* Every opcode the device knows, with its header length as rdma_rxe has it. */
static const struct {
	u8 opcode;
	u8 hdr_len;
} known_opcodes[] = {
	{ RC(SEND_FIRST), 12 },
	{ RC(SEND_MIDDLE), 12 },
	{ RC(SEND_LAST), 12 },
	{ RC(SEND_LAST_WITH_IMMEDIATE), 16 },
	{ RC(SEND_ONLY), 12 },
	{ RC(SEND_ONLY_WITH_IMMEDIATE), 16 },
	{ RC(RDMA_WRITE_FIRST), 28 },
	{ RC(RDMA_WRITE_MIDDLE), 12 },
	{ RC(RDMA_WRITE_LAST), 12 },
	{ RC(RDMA_WRITE_LAST_WITH_IMMEDIATE), 16 },
	{ RC(RDMA_WRITE_ONLY), 28 },
	{ RC(RDMA_WRITE_ONLY_WITH_IMMEDIATE), 32 },
	{ RC(RDMA_READ_REQUEST), 28 },
	{ RC(RDMA_READ_RESPONSE_FIRST), 16 },
	{ RC(RDMA_READ_RESPONSE_MIDDLE), 12 },
	{ RC(RDMA_READ_RESPONSE_LAST), 16 },
	{ RC(RDMA_READ_RESPONSE_ONLY), 16 },
	{ RC(ACKNOWLEDGE), 16 },
	{ RC(ATOMIC_ACKNOWLEDGE), 24 },
	{ RC(COMPARE_SWAP), 40 },
	{ RC(FETCH_ADD), 40 },
	{ RC(SEND_LAST_WITH_INVALIDATE), 16 },
	{ RC(SEND_ONLY_WITH_INVALIDATE), 16 },
	{ UC(SEND_FIRST), 12 },
	{ UC(SEND_MIDDLE), 12 },
	{ UC(SEND_LAST), 12 },
	{ UC(SEND_LAST_WITH_IMMEDIATE), 16 },
	{ UC(SEND_ONLY), 12 },
	{ UC(SEND_ONLY_WITH_IMMEDIATE), 16 },
	{ UC(RDMA_WRITE_FIRST), 28 },
	{ UC(RDMA_WRITE_MIDDLE), 12 },
	{ UC(RDMA_WRITE_LAST), 12 },
	{ UC(RDMA_WRITE_LAST_WITH_IMMEDIATE), 16 },
	{ UC(RDMA_WRITE_ONLY), 28 },
	{ UC(RDMA_WRITE_ONLY_WITH_IMMEDIATE), 32 },
	{ UD(SEND_ONLY), 20 },
	{ UD(SEND_ONLY_WITH_IMMEDIATE), 24 },
};

/*
 * The XRC opcodes (IBA annex A14), which rdma_rxe does not have: RC's
 * headers, plus a 4-byte XRCETH in every request.
 */
static const struct {
	u8 opcode;
	u8 hdr_len;
} xrc_opcodes[] = {
	{ XRC(SEND_FIRST), 16 },
	{ XRC(SEND_MIDDLE), 16 },
	{ XRC(SEND_LAST), 16 },
	{ XRC(SEND_LAST_WITH_IMMEDIATE), 20 },
	{ XRC(SEND_ONLY), 16 },
	{ XRC(SEND_ONLY_WITH_IMMEDIATE), 20 },
	{ XRC(RDMA_WRITE_FIRST), 32 },
	{ XRC(RDMA_WRITE_MIDDLE), 16 },
	{ XRC(RDMA_WRITE_LAST), 16 },
	{ XRC(RDMA_WRITE_LAST_WITH_IMMEDIATE), 20 },
	{ XRC(RDMA_WRITE_ONLY), 32 },
	{ XRC(RDMA_WRITE_ONLY_WITH_IMMEDIATE), 36 },
	{ XRC(RDMA_READ_REQUEST), 32 },
	{ XRC(RDMA_READ_RESPONSE_FIRST), 16 },
	{ XRC(RDMA_READ_RESPONSE_MIDDLE), 12 },
	{ XRC(RDMA_READ_RESPONSE_LAST), 16 },
	{ XRC(RDMA_READ_RESPONSE_ONLY), 16 },
	{ XRC(ACKNOWLEDGE), 16 },
	{ XRC(ATOMIC_ACKNOWLEDGE), 24 },
	{ XRC(COMPARE_SWAP), 44 },
	{ XRC(FETCH_ADD), 44 },
	{ XRC(SEND_LAST_WITH_INVALIDATE), 20 },
	{ XRC(SEND_ONLY_WITH_INVALIDATE), 20 },
};

#define NR_OPCODES	(ARRAY_SIZE(known_opcodes) + ARRAY_SIZE(xrc_opcodes))

/* The @i-th of every opcode the device knows, rxe's then XRC's. */
static u8 opcode_at(unsigned int i)
{
	if (i < ARRAY_SIZE(known_opcodes))
		return known_opcodes[i].opcode;
	return xrc_opcodes[i - ARRAY_SIZE(known_opcodes)].opcode;
}

static int known_hdr_len(u8 opcode)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(known_opcodes); i++)
		if (known_opcodes[i].opcode == opcode)
			return known_opcodes[i].hdr_len;
	for (i = 0; i < ARRAY_SIZE(xrc_opcodes); i++)
		if (xrc_opcodes[i].opcode == opcode)
			return xrc_opcodes[i].hdr_len;
	return -1;
}

static u8 *copy_exact(struct kunit *test, const void *src, size_t len)
{
	u8 *p = kunit_kmalloc(test, len ?: 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	memcpy(p, src, len);
	return p;
}

/* ---- header layouts ---------------------------------------------------- */

static void roce_hdr_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct roce_bth), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_bth, flags), 1);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_bth, pkey), 2);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_bth, qpn), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_bth, apsn), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct roce_reth), 16);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_reth, rkey), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_reth, dma_len), 12);
	KUNIT_EXPECT_EQ(test, sizeof(struct roce_aeth), 4);
	KUNIT_EXPECT_EQ(test, sizeof(struct roce_atomiceth), 28);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_atomiceth, rkey), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_atomiceth, swap_add_hi), 12);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_atomiceth, compare_hi), 20);
	KUNIT_EXPECT_EQ(test, sizeof(struct roce_atomicacketh), 8);
	KUNIT_EXPECT_EQ(test, sizeof(struct roce_immdt), 4);
	KUNIT_EXPECT_EQ(test, sizeof(struct roce_ieth), 4);
	KUNIT_EXPECT_EQ(test, sizeof(struct roce_deth), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct roce_deth, sqpn), 4);
	KUNIT_EXPECT_EQ(test, sizeof(struct roce_xrceth), 4);
	KUNIT_EXPECT_EQ(test, ROCE_UDP_PORT, 4791);

	KUNIT_EXPECT_EQ(test, vdr_roce_ext_len(ROCE_EXT_XRCETH), 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_ext_len(ROCE_EXT_DETH), 8);
	KUNIT_EXPECT_EQ(test, vdr_roce_ext_len(ROCE_EXT_RETH), 16);
	KUNIT_EXPECT_EQ(test, vdr_roce_ext_len(ROCE_EXT_ATOMICETH), 28);
	KUNIT_EXPECT_EQ(test, vdr_roce_ext_len(ROCE_EXT_AETH), 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_ext_len(ROCE_EXT_ATOMICACKETH), 8);
	KUNIT_EXPECT_EQ(test, vdr_roce_ext_len(ROCE_EXT_IMMDT), 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_ext_len(ROCE_EXT_IETH), 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_ext_len(ROCE_EXT_NUM), 0);
}

/* Accessors on hand-assembled bytes, at an odd address. */
static void roce_hdr_accessors(struct kunit *test)
{
	static const u8 bth_bytes[] = {
		0x0a, 0xf5, 0x12, 0x34, 0xc1, 0xab, 0xcd, 0xef,
		0xff, 0x01, 0x02, 0x03,
	};
	static const u8 ext_bytes[] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, /* va */
		0x11, 0x22, 0x33, 0x44,				/* rkey */
		0x81, 0x92, 0xa3, 0xb4, 0xc5, 0xd6, 0xe7, 0xf8, /* swap_add */
		0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87, /* compare */
	};
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct roce_atomiceth *ae;
	struct roce_bth *bth;
	struct roce_reth *reth;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	bth = (struct roce_bth *)(buf + 1);
	memcpy(bth, bth_bytes, sizeof(bth_bytes));
	KUNIT_EXPECT_EQ(test, roce_bth_opcode(bth), 0x0a);
	KUNIT_EXPECT_TRUE(test, roce_bth_se(bth));
	KUNIT_EXPECT_TRUE(test, roce_bth_mig(bth));
	KUNIT_EXPECT_EQ(test, roce_bth_pad(bth), 3);
	KUNIT_EXPECT_EQ(test, roce_bth_tver(bth), 5);
	KUNIT_EXPECT_EQ(test, roce_bth_pkey(bth), 0x1234);
	KUNIT_EXPECT_TRUE(test, roce_bth_fecn(bth));
	KUNIT_EXPECT_TRUE(test, roce_bth_becn(bth));
	KUNIT_EXPECT_EQ(test, roce_bth_qpn(bth), 0xabcdef);
	KUNIT_EXPECT_TRUE(test, roce_bth_ack_req(bth));
	KUNIT_EXPECT_EQ(test, roce_bth_psn(bth), 0x010203);
	roce_bth_set_apsn(bth, false, 0x1fedcba);
	KUNIT_EXPECT_EQ(test, buf[9], 0x00);
	KUNIT_EXPECT_EQ(test, buf[10], 0xfe);
	KUNIT_EXPECT_EQ(test, buf[11], 0xdc);
	KUNIT_EXPECT_EQ(test, buf[12], 0xba);
	KUNIT_EXPECT_FALSE(test, roce_bth_ack_req(bth));

	memset(buf, 0, 64);
	ae = (struct roce_atomiceth *)(buf + 3);
	memcpy(ae, ext_bytes, sizeof(ext_bytes));
	KUNIT_EXPECT_EQ(test, roce_atomiceth_va(ae), 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, roce_atomiceth_rkey(ae), 0x11223344);
	KUNIT_EXPECT_EQ(test, roce_atomiceth_swap_add(ae), 0x8192a3b4c5d6e7f8ULL);
	KUNIT_EXPECT_EQ(test, roce_atomiceth_compare(ae), 0xf0e1d2c3b4a59687ULL);
	memset(buf, 0, 64);
	roce_atomiceth_set(ae, 0x0102030405060708ULL, 0x11223344,
			   0x8192a3b4c5d6e7f8ULL, 0xf0e1d2c3b4a59687ULL);
	KUNIT_EXPECT_MEMEQ(test, ae, ext_bytes, sizeof(ext_bytes));

	reth = (struct roce_reth *)(buf + 2);
	roce_reth_set(reth, 0x0102030405060708ULL, 0x11223344, 0x80000001);
	KUNIT_EXPECT_MEMEQ(test, reth, ext_bytes, 12);
	KUNIT_EXPECT_EQ(test, roce_reth_len(reth), 0x80000001);

	roce_aeth_set((struct roce_aeth *)(buf + 1), ROCE_AETH_NAK_REM_ACCESS_ERR,
		      0x2abcdef);
	KUNIT_EXPECT_EQ(test, buf[1], 0x62);
	KUNIT_EXPECT_EQ(test, buf[2], 0xab);
	KUNIT_EXPECT_EQ(test, roce_aeth_msn((struct roce_aeth *)(buf + 1)),
			0xabcdef);
	roce_deth_set((struct roce_deth *)(buf + 1), ROCE_GSI_QKEY, 0xff000001);
	KUNIT_EXPECT_EQ(test, buf[1], 0x80);
	KUNIT_EXPECT_EQ(test, buf[2], 0x01);
	KUNIT_EXPECT_EQ(test, buf[5], 0x00);
	KUNIT_EXPECT_EQ(test, buf[8], 0x01);
	KUNIT_EXPECT_EQ(test, roce_deth_sqpn((struct roce_deth *)(buf + 1)), 1);
	roce_immdt_set((struct roce_immdt *)(buf + 1), cpu_to_be32(0xa1b2c3d4));
	KUNIT_EXPECT_EQ(test, buf[1], 0xa1);
	KUNIT_EXPECT_EQ(test, buf[4], 0xd4);
	/* XRCETH: the reserved byte is written as 0 and ignored on receipt. */
	memset(buf, 0xee, 64);
	roce_xrceth_set((struct roce_xrceth *)(buf + 1), 0xff123456);
	KUNIT_EXPECT_EQ(test, buf[1], 0x00);
	KUNIT_EXPECT_EQ(test, buf[2], 0x12);
	KUNIT_EXPECT_EQ(test, buf[4], 0x56);
	buf[1] = 0xa5;
	KUNIT_EXPECT_EQ(test, roce_xrceth_srqn((struct roce_xrceth *)(buf + 1)),
			0x123456);
}

/* ---- opcode table ------------------------------------------------------ */

static void roce_opcode_table(struct kunit *test)
{
	unsigned int op, n = 0;

	for (op = 0; op < 256; op++) {
		const struct roce_opcode_info *info = vdr_roce_opcode(op);
		int want_len = known_hdr_len(op);
		unsigned int len = ROCE_BTH_BYTES, e;
		u16 f, pos, t = op & ROCE_OPC_TRANSPORT_MASK;

		if (want_len < 0) {
			KUNIT_EXPECT_NULL_MSG(test, info, "opcode 0x%02x", op);
			continue;
		}
		KUNIT_ASSERT_NOT_NULL_MSG(test, info, "opcode 0x%02x", op);
		n++;
		f = info->flags;
		KUNIT_EXPECT_NOT_NULL(test, info->name);
		for (e = 0; e < ROCE_EXT_NUM; e++)
			if (info->hdrs & BIT(e))
				len += vdr_roce_ext_len(e);
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len, len, "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, info->hdr_len, want_len, "%s",
				    info->name);

		KUNIT_EXPECT_EQ_MSG(test, info->qpts,
				    t == ROCE_OPC_RC ? ROCE_QPT_RC :
				    t == ROCE_OPC_UC ? ROCE_QPT_UC :
				    t == ROCE_OPC_XRC ? ROCE_QPT_XRC : ROCE_QPT_UD,
				    "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, hweight16(f & (ROCE_OPF_REQ |
							 ROCE_OPF_RESP)), 1,
				    "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, hweight16(f & ROCE_OPF_KIND_MASK), 1,
				    "%s", info->name);
		pos = f & (ROCE_OPF_ONLY | ROCE_OPF_MIDDLE);
		KUNIT_EXPECT_TRUE_MSG(test, pos == ROCE_OPF_FIRST ||
				      pos == ROCE_OPF_MIDDLE ||
				      pos == ROCE_OPF_LAST ||
				      pos == ROCE_OPF_ONLY, "%s", info->name);
		/* Only RC and XRC requests are acknowledged. */
		KUNIT_EXPECT_EQ_MSG(test, !!(f & ROCE_OPF_NEEDS_ACK),
				    (t == ROCE_OPC_RC || t == ROCE_OPC_XRC) &&
				    (f & ROCE_OPF_REQ), "%s", info->name);
		/* Every XRC request has an XRCETH, no response has one. */
		KUNIT_EXPECT_EQ_MSG(test, !!(info->hdrs & ROCE_HDR_XRCETH),
				    t == ROCE_OPC_XRC && (f & ROCE_OPF_REQ),
				    "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(f & ROCE_OPF_PAYLOAD),
				    !!(f & (ROCE_OPF_SEND | ROCE_OPF_WRITE |
					    ROCE_OPF_READ_RESP)),
				    "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(f & ROCE_OPF_IMM),
				    !!(info->hdrs & ROCE_HDR_IMMDT), "%s",
				    info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(f & ROCE_OPF_INV),
				    !!(info->hdrs & ROCE_HDR_IETH), "%s",
				    info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->hdrs & ROCE_HDR_DETH),
				    t == ROCE_OPC_UD, "%s", info->name);
		/* RETH opens an RDMA WRITE or READ; later packets go on. */
		KUNIT_EXPECT_EQ_MSG(test, !!(info->hdrs & ROCE_HDR_RETH),
				    (f & (ROCE_OPF_WRITE | ROCE_OPF_READ)) &&
				    (f & ROCE_OPF_FIRST), "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->hdrs & ROCE_HDR_ATOMICETH),
				    !!(f & ROCE_OPF_ATOMIC), "%s", info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->hdrs & ROCE_HDR_ATOMICACKETH),
				    !!(f & ROCE_OPF_ATOMIC_ACK), "%s",
				    info->name);
		KUNIT_EXPECT_EQ_MSG(test, !!(info->hdrs & ROCE_HDR_AETH),
				    (f & ROCE_OPF_RESP) &&
				    !(f & ROCE_OPF_MIDDLE), "%s", info->name);
	}
	KUNIT_EXPECT_EQ(test, n, NR_OPCODES);

	/* Spot checks of what the rules above cannot tell apart. */
	KUNIT_EXPECT_EQ(test, vdr_roce_opcode(RC(RDMA_READ_REQUEST))->flags,
			ROCE_OPF_REQ | ROCE_OPF_READ | ROCE_OPF_ONLY |
			ROCE_OPF_NEEDS_ACK);
	KUNIT_EXPECT_EQ(test, vdr_roce_opcode(RC(SEND_LAST_WITH_INVALIDATE))->flags,
			ROCE_OPF_REQ | ROCE_OPF_SEND | ROCE_OPF_PAYLOAD |
			ROCE_OPF_LAST | ROCE_OPF_INV | ROCE_OPF_NEEDS_ACK);
	KUNIT_EXPECT_EQ(test, vdr_roce_opcode(UC(RDMA_WRITE_MIDDLE))->flags,
			ROCE_OPF_REQ | ROCE_OPF_WRITE | ROCE_OPF_PAYLOAD |
			ROCE_OPF_MIDDLE);
	KUNIT_EXPECT_STREQ(test, vdr_roce_opcode(UD(SEND_ONLY))->name,
			   "UD_SEND_ONLY");
	KUNIT_EXPECT_STREQ(test, vdr_roce_opcode(0xa4)->name, "XRC_SEND_ONLY");
	KUNIT_EXPECT_EQ(test, vdr_roce_opcode(XRC(RDMA_WRITE_FIRST))->hdrs,
			ROCE_HDR_XRCETH | ROCE_HDR_RETH);
	KUNIT_EXPECT_EQ(test, vdr_roce_opcode(XRC(ACKNOWLEDGE))->hdrs,
			ROCE_HDR_AETH);
	/* The XRC opcodes are RC's with the transport bits 101. */
	KUNIT_EXPECT_EQ(test, XRC(SEND_FIRST), 0xa0);
	KUNIT_EXPECT_EQ(test, XRC(ACKNOWLEDGE), 0xb1);
	KUNIT_EXPECT_EQ(test, XRC(SEND_ONLY_WITH_INVALIDATE), 0xb7);
	KUNIT_EXPECT_NULL(test, vdr_roce_opcode(XRC(FLUSH)));
	KUNIT_EXPECT_NULL(test, vdr_roce_opcode(0xb5));
	/* Left out on purpose: the device offers neither. */
	KUNIT_EXPECT_NULL(test, vdr_roce_opcode(RC(FLUSH)));
	KUNIT_EXPECT_NULL(test, vdr_roce_opcode(RC(ATOMIC_WRITE)));
}

static void roce_opcode_sequence(struct kunit *test)
{
	static const struct {
		int prev;
		u8 next;
		bool ok;
	} cases[] = {
		{ ROCE_OPCODE_NONE, RC(SEND_FIRST), true },
		{ ROCE_OPCODE_NONE, RC(SEND_ONLY), true },
		{ ROCE_OPCODE_NONE, RC(RDMA_READ_REQUEST), true },
		{ ROCE_OPCODE_NONE, RC(SEND_MIDDLE), false },
		{ ROCE_OPCODE_NONE, RC(SEND_LAST), false },
		{ ROCE_OPCODE_NONE, RC(RDMA_WRITE_LAST_WITH_IMMEDIATE), false },
		{ ROCE_OPCODE_NONE, RC(RDMA_READ_RESPONSE_MIDDLE), false },
		{ ROCE_OPCODE_NONE, RC(ACKNOWLEDGE), true },
		{ ROCE_OPCODE_NONE, 0x15, false },
		{ RC(SEND_FIRST), RC(SEND_MIDDLE), true },
		{ RC(SEND_FIRST), RC(SEND_LAST), true },
		{ RC(SEND_FIRST), RC(SEND_LAST_WITH_IMMEDIATE), true },
		{ RC(SEND_FIRST), RC(SEND_LAST_WITH_INVALIDATE), true },
		{ RC(SEND_MIDDLE), RC(SEND_MIDDLE), true },
		{ RC(SEND_MIDDLE), RC(SEND_LAST), true },
		{ RC(SEND_FIRST), RC(SEND_FIRST), false },
		{ RC(SEND_MIDDLE), RC(SEND_ONLY), false },
		{ RC(SEND_MIDDLE), RC(RDMA_WRITE_FIRST), false },
		{ RC(SEND_MIDDLE), RC(RDMA_WRITE_MIDDLE), false },
		{ RC(SEND_FIRST), RC(RDMA_WRITE_LAST), false },
		{ RC(SEND_FIRST), RC(RDMA_READ_REQUEST), false },
		{ RC(SEND_FIRST), RC(FETCH_ADD), false },
		{ RC(SEND_FIRST), UC(SEND_MIDDLE), false },
		{ RC(SEND_LAST), RC(SEND_MIDDLE), false },
		{ RC(SEND_LAST), RC(SEND_LAST), false },
		{ RC(SEND_LAST), RC(SEND_FIRST), true },
		{ RC(SEND_LAST), RC(RDMA_WRITE_ONLY), true },
		{ RC(SEND_ONLY), RC(COMPARE_SWAP), true },
		{ RC(SEND_ONLY_WITH_INVALIDATE), RC(RDMA_READ_REQUEST), true },
		{ RC(RDMA_WRITE_FIRST), RC(RDMA_WRITE_MIDDLE), true },
		{ RC(RDMA_WRITE_MIDDLE), RC(RDMA_WRITE_LAST_WITH_IMMEDIATE), true },
		{ RC(RDMA_WRITE_FIRST), RC(SEND_LAST), false },
		{ RC(RDMA_WRITE_LAST), RC(RDMA_WRITE_MIDDLE), false },
		{ RC(RDMA_READ_REQUEST), RC(RDMA_READ_REQUEST), true },
		{ RC(FETCH_ADD), RC(SEND_MIDDLE), false },
		{ RC(SEND_ONLY), RC(ACKNOWLEDGE), false },
		{ RC(ACKNOWLEDGE), RC(SEND_ONLY), false },
		{ RC(RDMA_READ_RESPONSE_FIRST), RC(RDMA_READ_RESPONSE_MIDDLE), true },
		{ RC(RDMA_READ_RESPONSE_MIDDLE), RC(RDMA_READ_RESPONSE_LAST), true },
		{ RC(RDMA_READ_RESPONSE_FIRST), RC(ACKNOWLEDGE), false },
		{ RC(RDMA_READ_RESPONSE_LAST), RC(RDMA_READ_RESPONSE_MIDDLE), false },
		{ RC(RDMA_READ_RESPONSE_LAST), RC(ATOMIC_ACKNOWLEDGE), true },
		{ RC(ACKNOWLEDGE), RC(RDMA_READ_RESPONSE_ONLY), true },
		{ RC(ACKNOWLEDGE), RC(ACKNOWLEDGE), true },
		{ UC(SEND_FIRST), UC(SEND_LAST_WITH_IMMEDIATE), true },
		{ UC(SEND_FIRST), UC(SEND_FIRST), false },
		{ UC(RDMA_WRITE_FIRST), UC(RDMA_WRITE_LAST), true },
		{ UC(RDMA_WRITE_ONLY), UC(SEND_ONLY), true },
		{ UC(SEND_LAST), RC(SEND_ONLY), false },
		{ UD(SEND_ONLY), UD(SEND_ONLY_WITH_IMMEDIATE), true },
		{ UD(SEND_ONLY), RC(SEND_ONLY), false },
		{ ROCE_OPCODE_NONE, XRC(SEND_FIRST), true },
		{ XRC(SEND_FIRST), XRC(SEND_MIDDLE), true },
		{ XRC(RDMA_WRITE_MIDDLE), XRC(RDMA_WRITE_LAST_WITH_IMMEDIATE),
		  true },
		{ XRC(SEND_FIRST), RC(SEND_LAST), false },
		{ RC(SEND_FIRST), XRC(SEND_LAST), false },
		{ XRC(SEND_ONLY), XRC(ACKNOWLEDGE), false },
		{ XRC(ACKNOWLEDGE), XRC(RDMA_READ_RESPONSE_ONLY), true },
		{ 0x15, RC(SEND_ONLY), false },
		{ 256, RC(SEND_ONLY), false },
		{ -2, RC(SEND_ONLY), false },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    vdr_roce_opcode_seq_ok(cases[i].prev,
							   cases[i].next),
				    cases[i].ok, "prev 0x%x next 0x%02x",
				    cases[i].prev, cases[i].next);
}

/* ---- build and parse --------------------------------------------------- */

static void random_pkt(struct rnd_state *rnd, u8 opcode, u32 payload_len,
		       struct roce_pkt *pkt)
{
	u32 r = prandom_u32_state(rnd);

	memset(pkt, 0, sizeof(*pkt));
	pkt->opcode = opcode;
	pkt->se = r & 1;
	pkt->mig = r & 2;
	pkt->fecn = r & 4;
	pkt->becn = r & 8;
	pkt->ack_req = r & 16;
	pkt->pkey = r >> 16;
	pkt->dqpn = prandom_u32_state(rnd) & ROCE_QPN_MASK;
	pkt->psn = prandom_u32_state(rnd) & ROCE_PSN_MASK;
	pkt->pad = roce_pad_len(payload_len);
	pkt->payload_len = payload_len;
	pkt->deth.qkey = prandom_u32_state(rnd);
	pkt->deth.sqpn = prandom_u32_state(rnd) & ROCE_QPN_MASK;
	pkt->reth.va = (u64)prandom_u32_state(rnd) << 32 | prandom_u32_state(rnd);
	pkt->reth.rkey = prandom_u32_state(rnd);
	pkt->reth.len = prandom_u32_state(rnd);
	pkt->atomiceth.va = (u64)prandom_u32_state(rnd) << 32 | 0xf8;
	pkt->atomiceth.rkey = prandom_u32_state(rnd);
	pkt->atomiceth.swap_add = (u64)prandom_u32_state(rnd) << 32 | r;
	pkt->atomiceth.compare = (u64)r << 32 | prandom_u32_state(rnd);
	pkt->aeth.syndrome = prandom_u32_state(rnd);
	pkt->aeth.msn = prandom_u32_state(rnd) & ROCE_AETH_MSN_MASK;
	pkt->atomic_orig = (u64)prandom_u32_state(rnd) << 31 | r;
	pkt->imm = (__force __be32)prandom_u32_state(rnd);
	pkt->ieth_rkey = prandom_u32_state(rnd);
	pkt->xrc_srqn = prandom_u32_state(rnd) & ROCE_XRCSRQ_MASK;
}

/* What parse must return for a built packet: absent headers read as 0. */
static void expected_parse(const struct roce_pkt *in, struct roce_pkt *out)
{
	const struct roce_opcode_info *info = vdr_roce_opcode(in->opcode);

	*out = *in;
	if (!(info->hdrs & ROCE_HDR_DETH))
		memset(&out->deth, 0, sizeof(out->deth));
	if (!(info->hdrs & ROCE_HDR_RETH))
		memset(&out->reth, 0, sizeof(out->reth));
	if (!(info->hdrs & ROCE_HDR_ATOMICETH))
		memset(&out->atomiceth, 0, sizeof(out->atomiceth));
	if (!(info->hdrs & ROCE_HDR_AETH))
		memset(&out->aeth, 0, sizeof(out->aeth));
	if (!(info->hdrs & ROCE_HDR_ATOMICACKETH))
		out->atomic_orig = 0;
	if (!(info->hdrs & ROCE_HDR_IMMDT))
		out->imm = 0;
	if (!(info->hdrs & ROCE_HDR_IETH))
		out->ieth_rkey = 0;
	if (!(info->hdrs & ROCE_HDR_XRCETH))
		out->xrc_srqn = 0;
	out->info = info;
	out->hdr_len = info->hdr_len;
}

static void expect_pkt_eq(struct kunit *test, const struct roce_pkt *got,
			  const struct roce_pkt *want)
{
	const char *name = want->info ? want->info->name : "?";

	KUNIT_EXPECT_PTR_EQ_MSG(test, got->info, want->info, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->opcode, want->opcode, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->pad, want->pad, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->se, want->se, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->mig, want->mig, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->fecn, want->fecn, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->becn, want->becn, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->ack_req, want->ack_req, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->pkey, want->pkey, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->dqpn, want->dqpn, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->psn, want->psn, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->deth.qkey, want->deth.qkey, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->deth.sqpn, want->deth.sqpn, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->reth.va, want->reth.va, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->reth.rkey, want->reth.rkey, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->reth.len, want->reth.len, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->atomiceth.va, want->atomiceth.va, "%s",
			    name);
	KUNIT_EXPECT_EQ_MSG(test, got->atomiceth.rkey, want->atomiceth.rkey,
			    "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->atomiceth.swap_add,
			    want->atomiceth.swap_add, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->atomiceth.compare,
			    want->atomiceth.compare, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->aeth.syndrome, want->aeth.syndrome, "%s",
			    name);
	KUNIT_EXPECT_EQ_MSG(test, got->aeth.msn, want->aeth.msn, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->atomic_orig, want->atomic_orig, "%s",
			    name);
	KUNIT_EXPECT_EQ_MSG(test, (__force u32)got->imm, (__force u32)want->imm,
			    "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->ieth_rkey, want->ieth_rkey, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->xrc_srqn, want->xrc_srqn, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->hdr_len, want->hdr_len, "%s", name);
	KUNIT_EXPECT_EQ_MSG(test, got->payload_len, want->payload_len, "%s",
			    name);
}

/*
 * Build @in at @shift bytes into an exact-size buffer, followed by payload,
 * pad and a stand-in ICRC, then parse it back.
 */
static void roundtrip(struct kunit *test, const struct roce_pkt *in,
		      unsigned int shift)
{
	u32 len = vdr_roce_opcode(in->opcode)->hdr_len + in->payload_len +
		  in->pad + ROCE_ICRC_BYTES;
	struct roce_pkt want, got;
	u8 *buf, *pkt;
	int n, i;

	buf = kunit_kzalloc(test, shift + len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	pkt = buf + shift;
	n = vdr_roce_build(in, pkt, len);
	KUNIT_ASSERT_EQ(test, n, vdr_roce_opcode(in->opcode)->hdr_len);
	for (i = 0; i < in->payload_len; i++)
		pkt[n + i] = i * 13 + 1;

	KUNIT_ASSERT_EQ(test, vdr_roce_parse(pkt, len, &got), 0);
	expected_parse(in, &want);
	expect_pkt_eq(test, &got, &want);
	KUNIT_EXPECT_PTR_EQ(test, got.payload, (const u8 *)pkt + n);

	/* Bytes the IBA fixes, whatever the values. */
	KUNIT_EXPECT_EQ(test, pkt[0], in->opcode);
	KUNIT_EXPECT_EQ(test, pkt[1] & ROCE_BTH_TVER_MASK, 0);
	KUNIT_EXPECT_EQ(test, pkt[4] & 0x3f, 0);	/* resv6a */
	KUNIT_EXPECT_EQ(test, pkt[8] & 0x7f, 0);	/* resv7 */
	if (want.info->hdrs & ROCE_HDR_DETH)
		KUNIT_EXPECT_EQ(test, pkt[ROCE_BTH_BYTES + 4], 0); /* resv8 */
	/* The XRCETH right after the BTH, its reserved byte 0. */
	if (want.info->hdrs & ROCE_HDR_XRCETH) {
		KUNIT_EXPECT_EQ(test, pkt[ROCE_BTH_BYTES], 0);
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(pkt + ROCE_BTH_BYTES),
				in->xrc_srqn);
	}
}

static void roce_build_parse_roundtrip(struct kunit *test)
{
	static const u32 last_lens[] = { 0, 1, 2, 3, 4, 5, 61, 255, 256, 4096 };
	static const u32 mid_lens[] = { 0, 4, 256, 4096 };
	struct rnd_state rnd;
	struct roce_pkt in;
	int i, j, shift;

	prandom_seed_state(&rnd, 4791);
	for (i = 0; i < NR_OPCODES; i++) {
		u8 op = opcode_at(i);
		u16 f = vdr_roce_opcode(op)->flags;
		const u32 *lens = last_lens;
		int nlens = ARRAY_SIZE(last_lens);

		if (!(f & ROCE_OPF_PAYLOAD)) {
			nlens = 1;
		} else if (!(f & ROCE_OPF_LAST)) {
			lens = mid_lens;
			nlens = ARRAY_SIZE(mid_lens);
		}
		for (j = 0; j < nlens; j++) {
			for (shift = 0; shift < 4; shift++) {
				random_pkt(&rnd, op, lens[j], &in);
				roundtrip(test, &in, shift);
			}
		}
	}

	/* Extremes of every field. */
	random_pkt(&rnd, RC(RDMA_WRITE_ONLY_WITH_IMMEDIATE), 3, &in);
	in.dqpn = ROCE_QPN_MASK;
	in.psn = ROCE_PSN_MASK;
	in.pkey = 0xffff;
	in.reth.va = U64_MAX;
	in.reth.rkey = U32_MAX;
	in.reth.len = U32_MAX;
	in.se = true;
	in.mig = true;
	in.fecn = true;
	in.becn = true;
	in.ack_req = true;
	roundtrip(test, &in, 1);
	random_pkt(&rnd, RC(ATOMIC_ACKNOWLEDGE), 0, &in);
	in.aeth.syndrome = 0xff;
	in.aeth.msn = ROCE_AETH_MSN_MASK;
	in.atomic_orig = U64_MAX;
	in.dqpn = 0;
	in.psn = 0;
	roundtrip(test, &in, 3);
}

/* A UD SEND ONLY WITH IMMEDIATE, byte by byte. */
static void roce_build_bytes(struct kunit *test)
{
	static const u8 want[] = {
		0x65, 0xb0, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
		0x80, 0x12, 0x34, 0x56,
		0x80, 0x01, 0x00, 0x00, 0x00, 0xab, 0xcd, 0xef,
		0xde, 0xad, 0xbe, 0xef,
	};
	struct roce_pkt pkt = {
		.opcode = UD(SEND_ONLY_WITH_IMMEDIATE),
		.se = true,
		.pad = 3,
		.pkey = ROCE_DEFAULT_PKEY,
		.dqpn = 1,
		.ack_req = true,
		.psn = 0x123456,
		.deth = { .qkey = ROCE_GSI_QKEY, .sqpn = 0xabcdef },
		.imm = cpu_to_be32(0xdeadbeef),
		.payload_len = 1,
	};
	u8 buf[sizeof(want)];

	KUNIT_ASSERT_EQ(test, vdr_roce_build(&pkt, buf, sizeof(buf)),
			(int)sizeof(want));
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(want));
}

/*
 * XRC packets byte by byte, from IBA annex A14: the XRCETH right after the
 * BTH and before any RETH, AtomicETH, ImmDt or IETH of a request; none in
 * a response.  Each is built, then parsed back, also with the XRCETH's
 * reserved byte set, which the receiver ignores.
 */
static const struct {
	struct roce_pkt pkt;
	u8 bytes[44];
	u8 len;
} xrc_vectors[] = {
	{
		.pkt = { .opcode = 0xa4, .pkey = 0xffff, .dqpn = 0x000011,
			 .ack_req = true, .psn = 0x000007,
			 .xrc_srqn = 0x123456 },
		.bytes = { 0xa4, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11,
			   0x80, 0x00, 0x00, 0x07,
			   0x00, 0x12, 0x34, 0x56 },
		.len = 16,
	}, {
		.pkt = { .opcode = 0xa6, .pkey = 0xffff, .dqpn = 0xabcdef,
			 .psn = 0xfedcba, .xrc_srqn = 0x000001,
			 .reth = { .va = 0x0102030405060708ULL,
				   .rkey = 0x11223344, .len = 0x2000 } },
		.bytes = { 0xa6, 0x00, 0xff, 0xff, 0x00, 0xab, 0xcd, 0xef,
			   0x00, 0xfe, 0xdc, 0xba,
			   0x00, 0x00, 0x00, 0x01,
			   0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
			   0x11, 0x22, 0x33, 0x44, 0x00, 0x00, 0x20, 0x00 },
		.len = 32,
	}, {
		.pkt = { .opcode = 0xb1, .pkey = 0xffff, .dqpn = 0x000022,
			 .psn = 0x000009, .xrc_srqn = 0x123456,
			 .aeth = { .syndrome = ROCE_AETH_NAK_INVALID_REQ,
				   .msn = 0x000003 } },
		.bytes = { 0xb1, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x22,
			   0x00, 0x00, 0x00, 0x09,
			   0x61, 0x00, 0x00, 0x03 },
		.len = 16,
	}, {
		.pkt = { .opcode = 0xb3, .pkey = 0xffff, .dqpn = 0x000033,
			 .ack_req = true, .psn = 0x000100,
			 .xrc_srqn = 0xffffff,
			 .atomiceth = { .va = 0x1000, .rkey = 0x55,
					.swap_add = 0x2, .compare = 0x1 } },
		.bytes = { 0xb3, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x33,
			   0x80, 0x00, 0x01, 0x00,
			   0x00, 0xff, 0xff, 0xff,
			   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
			   0x00, 0x00, 0x00, 0x55,
			   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
			   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 },
		.len = 44,
	}, {
		.pkt = { .opcode = 0xa5, .se = true, .pkey = 0xffff,
			 .dqpn = 0x000044, .psn = 0x000001,
			 .xrc_srqn = 0x000abc,
			 .imm = cpu_to_be32(0xdeadbeef) },
		.bytes = { 0xa5, 0x80, 0xff, 0xff, 0x00, 0x00, 0x00, 0x44,
			   0x00, 0x00, 0x00, 0x01,
			   0x00, 0x00, 0x0a, 0xbc,
			   0xde, 0xad, 0xbe, 0xef },
		.len = 20,
	}, {
		.pkt = { .opcode = 0xb7, .pkey = 0xffff, .dqpn = 0x000055,
			 .psn = 0x000002, .xrc_srqn = 0x000002,
			 .ieth_rkey = 0xcafe0001 },
		.bytes = { 0xb7, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x55,
			   0x00, 0x00, 0x00, 0x02,
			   0x00, 0x00, 0x00, 0x02,
			   0xca, 0xfe, 0x00, 0x01 },
		.len = 20,
	}, {
		/* A READ response: AETH only, as RC's. */
		.pkt = { .opcode = 0xad, .pkey = 0xffff, .dqpn = 0x000066,
			 .psn = 0x000010,
			 .aeth = { .syndrome = ROCE_AETH_ACK_UNLIMITED,
				   .msn = 0x000001 } },
		.bytes = { 0xad, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x66,
			   0x00, 0x00, 0x00, 0x10,
			   0x1f, 0x00, 0x00, 0x01 },
		.len = 16,
	},
};

static void roce_xrc_bytes(struct kunit *test)
{
	struct roce_pkt want, got;
	u8 buf[64], *b;
	int i;

	for (i = 0; i < ARRAY_SIZE(xrc_vectors); i++) {
		const struct roce_pkt *in = &xrc_vectors[i].pkt;
		u8 len = xrc_vectors[i].len;

		memset(buf, 0xee, sizeof(buf));
		KUNIT_ASSERT_EQ_MSG(test, vdr_roce_build(in, buf, sizeof(buf)),
				    (int)len, "opcode 0x%02x", in->opcode);
		KUNIT_EXPECT_MEMEQ_MSG(test, buf, xrc_vectors[i].bytes, len,
				       "opcode 0x%02x", in->opcode);

		memset(buf + len, 0, ROCE_ICRC_BYTES);
		expected_parse(in, &want);
		b = copy_exact(test, buf, len + ROCE_ICRC_BYTES);
		KUNIT_ASSERT_EQ(test, vdr_roce_parse(b, len + ROCE_ICRC_BYTES,
						     &got), 0);
		expect_pkt_eq(test, &got, &want);
		if (!(want.info->hdrs & ROCE_HDR_XRCETH))
			continue;
		b[ROCE_BTH_BYTES] = 0xff;
		KUNIT_ASSERT_EQ(test, vdr_roce_parse(b, len + ROCE_ICRC_BYTES,
						     &got), 0);
		expect_pkt_eq(test, &got, &want);
	}
}

static void roce_build_errors(struct kunit *test)
{
	struct roce_pkt ok = {
		.opcode = RC(SEND_ONLY), .payload_len = 5, .pad = 3,
	};
	struct roce_pkt p;
	u8 buf[64];

	KUNIT_EXPECT_EQ(test, vdr_roce_build(&ok, buf, sizeof(buf)), 12);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&ok, buf, 12), 12);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&ok, buf, 11), -ENOSPC);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&ok, buf, 0), -ENOSPC);

	p = ok;
	p.opcode = 0x15;
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EBADRQC);
	p.opcode = RC(FLUSH);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EBADRQC);

	p = ok;
	p.pad = 4;
	p.payload_len = 4;
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EINVAL);
	p = ok;
	p.pad = 2;		/* 5 bytes need 3 */
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EINVAL);
	p = ok;
	p.dqpn = BIT(24);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EINVAL);
	p = ok;
	p.psn = BIT(24);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EINVAL);
	p = ok;
	p.opcode = RC(SEND_FIRST);	/* only the last packet is padded */
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EINVAL);

	memset(&p, 0, sizeof(p));
	p.opcode = RC(ACKNOWLEDGE);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), 16);
	p.payload_len = 4;
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EINVAL);
	p.payload_len = 0;
	p.aeth.msn = BIT(24);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EINVAL);

	memset(&p, 0, sizeof(p));
	p.opcode = UD(SEND_ONLY);
	p.deth.sqpn = BIT(24);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EINVAL);
	/* Fields of headers the opcode does not have are ignored. */
	p.deth.sqpn = 0;
	p.aeth.msn = BIT(24);
	p.xrc_srqn = BIT(24);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), 20);

	/* An XRC SRQ number has 24 bits; an XRC response has no XRCETH. */
	memset(&p, 0, sizeof(p));
	p.opcode = XRC(SEND_ONLY);
	p.xrc_srqn = ROCE_XRCSRQ_MASK;
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), 16);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, 15), -ENOSPC);
	p.xrc_srqn = BIT(24);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), -EINVAL);
	p.opcode = XRC(ACKNOWLEDGE);
	KUNIT_EXPECT_EQ(test, vdr_roce_build(&p, buf, sizeof(buf)), 16);
}

/* Build @pkt and its payload into an exact-size buffer of @len bytes. */
static u8 *make_pkt(struct kunit *test, const struct roce_pkt *pkt, u32 len)
{
	u8 *tmp = kunit_kzalloc(test, 128, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tmp);
	KUNIT_ASSERT_GT(test, vdr_roce_build(pkt, tmp, 128), 0);
	return copy_exact(test, tmp, len);
}

static int parse_exact(struct kunit *test, const void *src, size_t len,
		       struct roce_pkt *pkt)
{
	return vdr_roce_parse(copy_exact(test, src, len), len, pkt);
}

static void roce_parse_errors(struct kunit *test)
{
	struct roce_pkt send = {
		.opcode = RC(SEND_ONLY), .psn = 0x345678, .dqpn = 0x11,
		.payload_len = 5, .pad = 3,
	};
	struct roce_pkt ack = { .opcode = RC(ACKNOWLEDGE), .psn = 7 };
	struct roce_pkt write = { .opcode = RC(RDMA_WRITE_ONLY), .psn = 9 };
	struct roce_pkt first = { .opcode = RC(SEND_FIRST), .payload_len = 8 };
	struct roce_pkt got;
	u8 *b;
	u32 len;

	/* A valid one, as the reference for the broken ones. */
	b = make_pkt(test, &send, 12 + 8 + 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), 0);
	KUNIT_EXPECT_EQ(test, got.payload_len, 5);

	for (len = 0; len < ROCE_BTH_BYTES + ROCE_ICRC_BYTES; len++)
		KUNIT_EXPECT_EQ_MSG(test, parse_exact(test, b, len, &got),
				    -ENODATA, "len %u", len);

	b[1] = (b[1] & ~ROCE_BTH_TVER_MASK) | 1;
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), -EPROTO);
	/* The BTH is decoded anyway, for the responder's NAK. */
	KUNIT_EXPECT_EQ(test, got.psn, 0x345678);
	KUNIT_EXPECT_EQ(test, got.dqpn, 0x11);
	KUNIT_EXPECT_NULL(test, got.info);
	b[1] &= ~ROCE_BTH_TVER_MASK;

	b[0] = 0x15;
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), -EBADRQC);
	KUNIT_EXPECT_EQ(test, got.opcode, 0x15);
	KUNIT_EXPECT_EQ(test, got.psn, 0x345678);
	b[0] = RC(FLUSH);
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), -EBADRQC);
	b[0] = ROCE_OPC_CNP;
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), -EBADRQC);
	b[0] = UD(SEND_FIRST);
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), -EBADRQC);

	/* Room for a BTH and an ICRC, not for the RETH. */
	b = make_pkt(test, &write, 28 + 4);
	for (len = 16; len < 28 + 4; len++)
		KUNIT_EXPECT_EQ_MSG(test, parse_exact(test, b, len, &got),
				    -EMSGSIZE, "len %u", len);
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 32, &got), 0);
	KUNIT_EXPECT_EQ(test, got.payload_len, 0);

	/* An opcode without payload, with some. */
	b = make_pkt(test, &ack, 16 + 4 + 4);
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 24, &got), -E2BIG);
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 21, &got), -E2BIG);
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 20, &got), 0);
	/* ... and with a pad count. */
	b[1] |= 2 << ROCE_BTH_PAD_SHIFT;
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 20, &got), -EOVERFLOW);

	/* Payload and pad not a multiple of 4. */
	b = make_pkt(test, &send, 12 + 8 + 4);
	for (len = 17; len < 24; len++)
		if (len != 20)
			KUNIT_EXPECT_EQ_MSG(test, parse_exact(test, b, len, &got),
					    -EBADMSG, "len %u", len);
	/* More pad than bytes. */
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 16, &got), -EOVERFLOW);
	b[1] &= ~ROCE_BTH_PAD_MASK;
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 16, &got), 0);
	KUNIT_EXPECT_EQ(test, got.payload_len, 0);
	b[1] |= 1 << ROCE_BTH_PAD_SHIFT;
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 20, &got), 0);
	KUNIT_EXPECT_EQ(test, got.payload_len, 3);

	/* A padded FIRST packet. */
	b = make_pkt(test, &first, 12 + 8 + 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), 0);
	b[1] |= 1 << ROCE_BTH_PAD_SHIFT;
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), -EINVAL);
	b[0] = RC(SEND_MIDDLE);
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), -EINVAL);
	b[0] = RC(SEND_LAST);
	KUNIT_EXPECT_EQ(test, vdr_roce_parse(b, 24, &got), 0);
	KUNIT_EXPECT_EQ(test, got.payload_len, 7);
}

/* An XRC request without room for its XRCETH, or its RETH. */
static void roce_parse_xrc_short(struct kunit *test)
{
	struct roce_pkt xrc_write = {
		.opcode = XRC(RDMA_WRITE_ONLY), .xrc_srqn = 0xabcdef,
	};
	struct roce_pkt xrc_send = { .opcode = XRC(SEND_ONLY), .xrc_srqn = 1 };
	struct roce_pkt got;
	u8 *b;
	u32 len;

	b = make_pkt(test, &xrc_write, 32 + 4);
	for (len = 16; len < 32 + 4; len++)
		KUNIT_EXPECT_EQ_MSG(test, parse_exact(test, b, len, &got),
				    -EMSGSIZE, "len %u", len);
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 36, &got), 0);
	KUNIT_EXPECT_EQ(test, got.xrc_srqn, 0xabcdef);
	b = make_pkt(test, &xrc_send, 16 + 4);
	for (len = 16; len < 16 + 4; len++)
		KUNIT_EXPECT_EQ_MSG(test, parse_exact(test, b, len, &got),
				    -EMSGSIZE, "len %u", len);
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 20, &got), 0);
	KUNIT_EXPECT_EQ(test, got.payload_len, 0);
	/* The same bytes as an RC SEND: what was the XRCETH is payload. */
	b[0] = RC(SEND_ONLY);
	KUNIT_EXPECT_EQ(test, parse_exact(test, b, 20, &got), 0);
	KUNIT_EXPECT_EQ(test, got.payload_len, 4);
}

/* Random bytes, often with a valid opcode: accept consistently or reject. */
static void roce_parse_fuzz(struct kunit *test)
{
	struct rnd_state rnd;
	struct roce_pkt got;
	u8 src[96];
	int i, err;

	prandom_seed_state(&rnd, 0x1dead);
	for (i = 0; i < 4000; i++) {
		u32 len = prandom_u32_state(&rnd) % (sizeof(src) + 1);
		u8 *b;

		prandom_bytes_state(&rnd, src, sizeof(src));
		if (i & 1) {
			src[0] = opcode_at(prandom_u32_state(&rnd) %
					   NR_OPCODES);
			src[1] &= ~ROCE_BTH_TVER_MASK;
		}
		b = copy_exact(test, src, len);
		err = vdr_roce_parse(b, len, &got);
		if (err) {
			KUNIT_EXPECT_TRUE(test, err == -ENODATA ||
					  err == -EPROTO || err == -EBADRQC ||
					  err == -EMSGSIZE || err == -E2BIG ||
					  err == -EBADMSG || err == -EOVERFLOW ||
					  err == -EINVAL);
		} else {
			KUNIT_EXPECT_EQ(test, got.hdr_len + got.payload_len +
					got.pad + ROCE_ICRC_BYTES, len);
			KUNIT_EXPECT_PTR_EQ(test, got.payload,
					    (const u8 *)b + got.hdr_len);
			KUNIT_EXPECT_EQ(test, got.hdr_len, got.info->hdr_len);
		}
		kunit_kfree(test, b);
	}
}

/* ---- PSN arithmetic ---------------------------------------------------- */

static void roce_psn_arith(struct kunit *test)
{
	struct rnd_state rnd;
	int i;

	KUNIT_EXPECT_EQ(test, roce_psn_mask(0x1000001), 1);
	KUNIT_EXPECT_EQ(test, roce_psn_add(0xffffff, 1), 0);
	KUNIT_EXPECT_EQ(test, roce_psn_add(0xfffffe, 5), 3);
	KUNIT_EXPECT_EQ(test, roce_psn_add(0x123456, 0), 0x123456);
	KUNIT_EXPECT_EQ(test, roce_psn_add(0, 0xffffff), 0xffffff);
	KUNIT_EXPECT_EQ(test, roce_psn_sub(0, 1), 0xffffff);
	KUNIT_EXPECT_EQ(test, roce_psn_sub(2, 5), 0xfffffd);

	KUNIT_EXPECT_EQ(test, roce_psn_diff(5, 5), 0);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(0, 0xffffff), 1);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(0xffffff, 0), -1);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(3, 0xfffffd), 6);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(0x7fffff, 0), 0x7fffff);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(0x800000, 0), -0x800000);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(0, 0x800000), -0x800000);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(0x800001, 0), -0x7fffff);
	KUNIT_EXPECT_EQ(test, roce_psn_diff(0x1000005, 5), 0);

	KUNIT_EXPECT_TRUE(test, roce_psn_before(0xfffffe, 1));
	KUNIT_EXPECT_FALSE(test, roce_psn_before(1, 0xfffffe));
	KUNIT_EXPECT_TRUE(test, roce_psn_after(1, 0xfffffe));
	KUNIT_EXPECT_FALSE(test, roce_psn_after(0xfffffe, 1));
	KUNIT_EXPECT_FALSE(test, roce_psn_before(7, 7));
	KUNIT_EXPECT_FALSE(test, roce_psn_after(7, 7));
	KUNIT_EXPECT_TRUE(test, roce_psn_before_eq(7, 7));
	KUNIT_EXPECT_TRUE(test, roce_psn_after_eq(7, 7));
	KUNIT_EXPECT_TRUE(test, roce_psn_after_eq(0, 0xffffff));
	KUNIT_EXPECT_TRUE(test, roce_psn_before_eq(0xffffff, 0));
	/* The last PSN of the valid window, and the first duplicate. */
	KUNIT_EXPECT_TRUE(test, roce_psn_after(0x7fffff + 0x100, 0x100));
	KUNIT_EXPECT_TRUE(test, roce_psn_before(0x800000 + 0x100, 0x100));
	/* Exactly 2^23 apart: each is before the other. */
	KUNIT_EXPECT_TRUE(test, roce_psn_before(0x800000, 0));
	KUNIT_EXPECT_TRUE(test, roce_psn_before(0, 0x800000));
	KUNIT_EXPECT_EQ(test, roce_psn_diff(ROCE_PSN_WINDOW, 0),
			-(s32)ROCE_PSN_WINDOW);

	KUNIT_EXPECT_TRUE(test, roce_psn_in_range(0xfffffe, 0xfffffe, 4));
	KUNIT_EXPECT_TRUE(test, roce_psn_in_range(0x000001, 0xfffffe, 4));
	KUNIT_EXPECT_FALSE(test, roce_psn_in_range(0x000002, 0xfffffe, 4));
	KUNIT_EXPECT_FALSE(test, roce_psn_in_range(0xfffffd, 0xfffffe, 4));
	KUNIT_EXPECT_FALSE(test, roce_psn_in_range(5, 5, 0));

	prandom_seed_state(&rnd, 23);
	for (i = 0; i < 10000; i++) {
		u32 a = prandom_u32_state(&rnd) & ROCE_PSN_MASK;
		s32 d = (s32)(prandom_u32_state(&rnd) % BIT(24)) - 0x800000;
		u32 b = roce_psn_add(a, d);

		KUNIT_ASSERT_EQ(test, roce_psn_diff(b, a), d);
		KUNIT_ASSERT_EQ(test, roce_psn_before(b, a), d < 0);
		KUNIT_ASSERT_EQ(test, roce_psn_after(b, a), d > 0);
		KUNIT_ASSERT_EQ(test, roce_psn_sub(b, d), a);
		if (d != -0x800000)
			KUNIT_ASSERT_EQ(test, roce_psn_diff(a, b), -d);
	}
}

/* ---- IP, UDP and ICRC -------------------------------------------------- */

/* A whole RoCEv2 IP packet around @pkt, ICRC generated; *@len its length. */
static u8 *make_ip_pkt(struct kunit *test, int ipver,
		       const struct roce_pkt *pkt, u32 *len)
{
	u32 ip_len = ipver == 4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	u32 roce_len = vdr_roce_opcode(pkt->opcode)->hdr_len +
		       pkt->payload_len + pkt->pad + ROCE_ICRC_BYTES;
	u32 udp_len = sizeof(struct udphdr) + roce_len;
	struct udphdr *udph;
	u8 *b, *payload;
	int i;

	*len = ip_len + udp_len;
	b = kunit_kzalloc(test, *len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	if (ipver == 4) {
		struct iphdr *iph = (struct iphdr *)b;

		iph->version = 4;
		iph->ihl = 5;
		iph->tos = 0x2e;
		iph->tot_len = htons(*len);
		iph->id = htons(0x3456);
		iph->frag_off = htons(IP_DF);
		iph->ttl = 64;
		iph->protocol = IPPROTO_UDP;
		iph->check = (__force __sum16)0x1234;
		iph->saddr = htonl(0x0a000001);
		iph->daddr = htonl(0x0a000002);
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)b;

		ip6h->version = 6;
		ip6h->priority = 0xa;
		ip6h->flow_lbl[0] = 0x51;
		ip6h->flow_lbl[1] = 0x23;
		ip6h->flow_lbl[2] = 0x45;
		ip6h->payload_len = htons(udp_len);
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = 64;
		ip6h->saddr.s6_addr[0] = 0xfd;
		ip6h->saddr.s6_addr[15] = 1;
		ip6h->daddr.s6_addr[0] = 0xfd;
		ip6h->daddr.s6_addr[15] = 2;
	}
	udph = (struct udphdr *)(b + ip_len);
	udph->source = htons(0xc123);
	udph->dest = htons(ROCE_UDP_PORT);
	udph->len = htons(udp_len);
	udph->check = (__force __sum16)0x5555;
	KUNIT_ASSERT_GT(test, vdr_roce_build(pkt, udph + 1, roce_len), 0);
	payload = (u8 *)(udph + 1) + vdr_roce_opcode(pkt->opcode)->hdr_len;
	for (i = 0; i < pkt->payload_len; i++)
		payload[i] = i + 0x40;
	KUNIT_ASSERT_EQ(test, vdr_roce_icrc_generate(b, *len, ipver), 0);
	return b;
}

/* Bytes that routers may change and the ICRC therefore leaves out. */
static bool icrc_masked(int ipver, u32 off)
{
	if (ipver == 4)
		return off == 1 || off == 8 || off == 10 || off == 11 ||
		       off == 26 || off == 27 || off == 32;
	return off <= 3 || off == 7 || off == 46 || off == 47 || off == 52;
}

static void roce_icrc_seed(struct kunit *test)
{
	static const u8 lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};

	KUNIT_EXPECT_EQ(test, crc32_le(~0U, lrh, sizeof(lrh)), ROCE_ICRC_SEED);
}

static void icrc_bytes(struct kunit *test, int ipver)
{
	struct roce_pkt pkt = {
		.opcode = RC(RDMA_WRITE_ONLY_WITH_IMMEDIATE), .dqpn = 0x12,
		.psn = 0xfffffe, .ack_req = true, .pkey = 0xffff,
		.reth = { .va = 0x1000, .rkey = 0x77, .len = 5 },
		.imm = cpu_to_be32(1), .payload_len = 5, .pad = 3,
	};
	struct roce_l3 l3;
	u32 len, off, icrc, crc;
	u8 *b, *c;
	int err;

	b = make_ip_pkt(test, ipver, &pkt, &len);
	KUNIT_ASSERT_EQ(test, vdr_roce_icrc_check(b, len, ipver), 0);

	for (off = 0; off < len; off++) {
		c = copy_exact(test, b, len);
		c[off] ^= 0x01;
		err = vdr_roce_l3_parse(c, len, ipver, &l3);
		if (err) {
			/* A length, version or protocol byte. */
			KUNIT_EXPECT_EQ_MSG(test,
					    vdr_roce_icrc_check(c, len, ipver),
					    err, "IPv%d byte %u", ipver, off);
		} else {
			KUNIT_EXPECT_EQ_MSG(test,
					    vdr_roce_icrc_check(c, len, ipver),
					    icrc_masked(ipver, off) ? 0 : -EILSEQ,
					    "IPv%d byte %u", ipver, off);
		}
		kunit_kfree(test, c);
	}

	/* Generating rewrites exactly the ICRC. */
	c = copy_exact(test, b, len);
	memset(c + len - 4, 0, 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_icrc_generate(c, len, ipver), 0);
	KUNIT_EXPECT_MEMEQ(test, c, b, len);

	/* The piecewise form that a sender gathering its payload uses. */
	KUNIT_ASSERT_EQ(test, vdr_roce_l3_parse(b, len, ipver, &l3), 0);
	crc = vdr_roce_icrc_hdr(b, ipver);
	for (off = l3.bth_off + ROCE_BTH_BYTES; off < len - 4; off += 7)
		crc = roce_icrc_update(crc, b + off, min(7U, len - 4 - off));
	KUNIT_ASSERT_EQ(test, vdr_roce_icrc(b, len, ipver, &icrc), 0);
	KUNIT_EXPECT_EQ(test, roce_icrc_final(crc), icrc);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(b + len - 4), icrc);

	/* Link-layer padding after the IP packet is not part of it. */
	c = kunit_kzalloc(test, len + 6, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	memcpy(c, b, len);
	memset(c + len, 0xa5, 6);
	KUNIT_EXPECT_EQ(test, vdr_roce_icrc_check(c, len + 6, ipver), 0);
}

static void roce_icrc_ipv4(struct kunit *test)
{
	icrc_bytes(test, 4);
}

static void roce_icrc_ipv6(struct kunit *test)
{
	icrc_bytes(test, 6);
}

static void roce_l3_errors(struct kunit *test)
{
	/* Long enough that an IPv4 packet could hold an IPv6 header. */
	struct roce_pkt pkt = { .opcode = RC(SEND_ONLY), .payload_len = 32 };
	struct roce_l3 l3;
	struct iphdr *iph;
	struct ipv6hdr *ip6h;
	u32 len4, len6, n;
	u8 *b4, *b6, *c;

	b4 = make_ip_pkt(test, 4, &pkt, &len4);
	b6 = make_ip_pkt(test, 6, &pkt, &len6);
	KUNIT_ASSERT_EQ(test, vdr_roce_l3_parse(b4, len4, 4, &l3), 0);
	KUNIT_EXPECT_EQ(test, l3.ipver, 4);
	KUNIT_EXPECT_EQ(test, l3.udp_off, 20);
	KUNIT_EXPECT_EQ(test, l3.bth_off, 28);
	KUNIT_EXPECT_EQ(test, l3.bth_len, 12 + 32 + 4);
	KUNIT_EXPECT_EQ(test, l3.sport, 0xc123);
	KUNIT_EXPECT_EQ(test, l3.dport, ROCE_UDP_PORT);
	KUNIT_ASSERT_EQ(test, vdr_roce_l3_parse(b6, len6, 6, &l3), 0);
	KUNIT_EXPECT_EQ(test, l3.udp_off, 40);
	KUNIT_EXPECT_EQ(test, l3.bth_off, 48);

	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(b4, len4, 5, &l3), -EINVAL);
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(b4, len4, 6, &l3), -EPROTO);
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(b6, len6, 4, &l3), -EPROTO);
	for (n = 0; n < 20 + 8 + 16; n++)
		KUNIT_EXPECT_EQ_MSG(test,
				    vdr_roce_l3_parse(copy_exact(test, b4, n),
						      n, 4, &l3),
				    -ENODATA, "len %u", n);
	for (n = 0; n < 40 + 8 + 16; n++)
		KUNIT_EXPECT_EQ_MSG(test,
				    vdr_roce_l3_parse(copy_exact(test, b6, n),
						      n, 6, &l3),
				    -ENODATA, "len %u", n);
	/* Shorter than the IP header says. */
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(copy_exact(test, b4, len4 - 1),
						len4 - 1, 4, &l3), -EMSGSIZE);
	KUNIT_EXPECT_EQ(test, vdr_roce_icrc_check(copy_exact(test, b6, len6 - 4),
						  len6 - 4, 6), -EMSGSIZE);

	c = copy_exact(test, b4, len4);
	iph = (struct iphdr *)c;
	iph->protocol = IPPROTO_TCP;
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len4, 4, &l3), -EPROTO);
	iph->protocol = IPPROTO_UDP;
	iph->ihl = 6;
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len4, 4, &l3), -EOPNOTSUPP);
	iph->ihl = 5;
	iph->frag_off = htons(IP_DF | IP_MF);
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len4, 4, &l3), -EOPNOTSUPP);
	iph->frag_off = htons(8);
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len4, 4, &l3), -EOPNOTSUPP);
	iph->frag_off = 0;
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len4, 4, &l3), 0);
	iph->tot_len = htons(len4 - 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len4, 4, &l3), -EMSGSIZE);
	iph->tot_len = htons(20 + 8 + 12);
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len4, 4, &l3), -EMSGSIZE);
	iph->tot_len = htons(len4);
	((struct udphdr *)(iph + 1))->len = htons(len4 - 20 - 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len4, 4, &l3), -EMSGSIZE);

	c = copy_exact(test, b6, len6);
	ip6h = (struct ipv6hdr *)c;
	ip6h->nexthdr = IPPROTO_FRAGMENT;
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len6, 6, &l3), -EOPNOTSUPP);
	ip6h->nexthdr = IPPROTO_HOPOPTS;
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len6, 6, &l3), -EOPNOTSUPP);
	ip6h->nexthdr = IPPROTO_TCP;
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len6, 6, &l3), -EPROTO);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->payload_len = htons(len6 - 40 + 4);
	KUNIT_EXPECT_EQ(test, vdr_roce_l3_parse(c, len6, 6, &l3), -EMSGSIZE);
}

/* ---- packets captured from rdma_rxe ------------------------------------ */

static void rxe_vector_desc(const struct vdpa_rdma_rxe_vector *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rxe_vector, vdpa_rdma_rxe_vectors, rxe_vector_desc);

/*
 * The generator's VEC_* bits, as ROCE_HDR_* bits: it numbers rxe's headers
 * on its own, and rxe has no XRCETH.
 */
static u8 vec_hdrs(u8 has)
{
	static const struct {
		u8 vec;
		u8 hdr;
	} map[] = {
		{ VEC_DETH, ROCE_HDR_DETH },
		{ VEC_RETH, ROCE_HDR_RETH },
		{ VEC_ATOMICETH, ROCE_HDR_ATOMICETH },
		{ VEC_AETH, ROCE_HDR_AETH },
		{ VEC_ATOMICACKETH, ROCE_HDR_ATOMICACKETH },
		{ VEC_IMMDT, ROCE_HDR_IMMDT },
		{ VEC_IETH, ROCE_HDR_IETH },
	};
	u8 hdrs = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (has & map[i].vec)
			hdrs |= map[i].hdr;
	return hdrs;
}

static void roce_rxe_vector(struct kunit *test)
{
	const struct vdpa_rdma_rxe_vector *v = test->param_value;
	const u8 *data = copy_exact(test, v->data, v->len);
	struct roce_pkt pkt;
	struct roce_l3 l3;
	u8 hdr[64];
	u8 *c;
	u32 icrc;

	KUNIT_ASSERT_EQ(test, vdr_roce_l3_parse(data, v->len, v->ipver, &l3), 0);
	KUNIT_EXPECT_EQ(test, l3.dport, ROCE_UDP_PORT);
	KUNIT_EXPECT_EQ(test, l3.bth_off + l3.bth_len, v->len);

	KUNIT_ASSERT_EQ(test, vdr_roce_parse(data + l3.bth_off, l3.bth_len,
					     &pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt.opcode, v->opcode);
	KUNIT_EXPECT_EQ(test, pkt.se, v->se);
	KUNIT_EXPECT_EQ(test, pkt.mig, v->mig);
	KUNIT_EXPECT_EQ(test, pkt.pad, v->pad);
	KUNIT_EXPECT_EQ(test, pkt.pkey, v->pkey);
	KUNIT_EXPECT_EQ(test, pkt.dqpn, v->dqpn);
	KUNIT_EXPECT_EQ(test, pkt.ack_req, v->ack_req);
	KUNIT_EXPECT_EQ(test, pkt.psn, v->psn);
	KUNIT_EXPECT_FALSE(test, pkt.fecn);
	KUNIT_EXPECT_FALSE(test, pkt.becn);
	KUNIT_EXPECT_EQ(test, pkt.hdr_len, v->hdr_len);
	KUNIT_EXPECT_EQ(test, pkt.payload_len, v->payload_len);
	KUNIT_EXPECT_PTR_EQ(test, pkt.payload, data + l3.bth_off + v->hdr_len);
	/* The generator numbers the headers in enum roce_ext order. */
	KUNIT_EXPECT_EQ(test, pkt.info->hdrs, vec_hdrs(v->has));
	if (v->has & VEC_DETH) {
		KUNIT_EXPECT_EQ(test, pkt.deth.qkey, v->qkey);
		KUNIT_EXPECT_EQ(test, pkt.deth.sqpn, v->sqpn);
	}
	if (v->has & VEC_RETH) {
		KUNIT_EXPECT_EQ(test, pkt.reth.va, v->va);
		KUNIT_EXPECT_EQ(test, pkt.reth.rkey, v->rkey);
		KUNIT_EXPECT_EQ(test, pkt.reth.len, v->dma_len);
	}
	if (v->has & VEC_ATOMICETH) {
		KUNIT_EXPECT_EQ(test, pkt.atomiceth.va, v->va);
		KUNIT_EXPECT_EQ(test, pkt.atomiceth.rkey, v->rkey);
		KUNIT_EXPECT_EQ(test, pkt.atomiceth.swap_add, v->swap_add);
		KUNIT_EXPECT_EQ(test, pkt.atomiceth.compare, v->compare);
	}
	if (v->has & VEC_AETH) {
		KUNIT_EXPECT_EQ(test, pkt.aeth.syndrome, v->syndrome);
		KUNIT_EXPECT_EQ(test, pkt.aeth.msn, v->msn);
	}
	if (v->has & VEC_ATOMICACKETH)
		KUNIT_EXPECT_EQ(test, pkt.atomic_orig, v->orig);
	if (v->has & VEC_IMMDT)
		KUNIT_EXPECT_EQ(test, be32_to_cpu(pkt.imm), v->imm);
	if (v->has & VEC_IETH)
		KUNIT_EXPECT_EQ(test, pkt.ieth_rkey, v->ieth_rkey);

	/* rxe's ICRC is the one this device computes. */
	KUNIT_EXPECT_EQ(test, vdr_roce_icrc_check(data, v->len, v->ipver), 0);
	KUNIT_ASSERT_EQ(test, vdr_roce_icrc(data, v->len, v->ipver, &icrc), 0);
	KUNIT_EXPECT_EQ(test, icrc, v->icrc);
	c = copy_exact(test, v->data, v->len);
	memset(c + v->len - ROCE_ICRC_BYTES, 0, ROCE_ICRC_BYTES);
	KUNIT_ASSERT_EQ(test, vdr_roce_icrc_generate(c, v->len, v->ipver), 0);
	KUNIT_EXPECT_MEMEQ(test, c, v->data, v->len);

	/* Built from the decoded fields, the headers are rxe's bytes. */
	KUNIT_ASSERT_EQ(test, vdr_roce_build(&pkt, hdr, sizeof(hdr)),
			(int)v->hdr_len);
	KUNIT_EXPECT_MEMEQ(test, hdr, data + l3.bth_off, v->hdr_len);
}

/* The capture must keep covering every opcode and AETH kind rxe sends. */
static void roce_rxe_vector_coverage(struct kunit *test)
{
	bool ack = false, rnr = false, nak_seq = false, nak_acc = false, v6 = false;
	int i, j;

	for (i = 0; i < ARRAY_SIZE(known_opcodes); i++) {
		bool found = false;

		for (j = 0; j < ARRAY_SIZE(vdpa_rdma_rxe_vectors); j++)
			found |= vdpa_rdma_rxe_vectors[j].ipver == 4 &&
				 vdpa_rdma_rxe_vectors[j].opcode ==
				 known_opcodes[i].opcode;
		KUNIT_EXPECT_TRUE_MSG(test, found, "no IPv4 vector for %s",
				      vdr_roce_opcode(known_opcodes[i].opcode)->name);
	}
	for (j = 0; j < ARRAY_SIZE(vdpa_rdma_rxe_vectors); j++) {
		const struct vdpa_rdma_rxe_vector *v = &vdpa_rdma_rxe_vectors[j];

		v6 |= v->ipver == 6;
		if (v->opcode != RC(ACKNOWLEDGE))
			continue;
		ack |= v->syndrome == ROCE_AETH_ACK_UNLIMITED;
		rnr |= (v->syndrome & ROCE_AETH_TYPE_MASK) == ROCE_AETH_RNR_NAK;
		nak_seq |= v->syndrome == ROCE_AETH_NAK_PSN_SEQ_ERR;
		nak_acc |= v->syndrome == ROCE_AETH_NAK_REM_ACCESS_ERR;
	}
	KUNIT_EXPECT_TRUE(test, ack);
	KUNIT_EXPECT_TRUE(test, rnr);
	KUNIT_EXPECT_TRUE(test, nak_seq);
	KUNIT_EXPECT_TRUE(test, nak_acc);
	KUNIT_EXPECT_TRUE(test, v6);
}

static struct kunit_case vdpa_rdma_pkt_cases[] = {
	KUNIT_CASE(roce_hdr_layout),
	KUNIT_CASE(roce_hdr_accessors),
	KUNIT_CASE(roce_opcode_table),
	KUNIT_CASE(roce_opcode_sequence),
	KUNIT_CASE(roce_build_parse_roundtrip),
	KUNIT_CASE(roce_build_bytes),
	KUNIT_CASE(roce_xrc_bytes),
	KUNIT_CASE(roce_build_errors),
	KUNIT_CASE(roce_parse_errors),
	KUNIT_CASE(roce_parse_xrc_short),
	KUNIT_CASE(roce_parse_fuzz),
	KUNIT_CASE(roce_psn_arith),
	KUNIT_CASE(roce_icrc_seed),
	KUNIT_CASE(roce_icrc_ipv4),
	KUNIT_CASE(roce_icrc_ipv6),
	KUNIT_CASE(roce_l3_errors),
	KUNIT_CASE_PARAM(roce_rxe_vector, rxe_vector_gen_params),
	KUNIT_CASE(roce_rxe_vector_coverage),
	{}
};

static struct kunit_suite vdpa_rdma_pkt_suite = {
	.name = "vdpa_rdma_pkt",
	.test_cases = vdpa_rdma_pkt_cases,
};

kunit_test_suite(vdpa_rdma_pkt_suite);

MODULE_DESCRIPTION("KUnit tests for the vdpa_rdma RoCEv2 packet layer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
