// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: writing and reading RoCEv2 transport headers.
 *
 * Everything a peer sends is untrusted: vdr_roce_parse() checks every
 * length before it reads and reports each kind of malformed packet with its
 * own error, so that the transport engine can count and answer them (an RC
 * responder NAKs some, drops others) without looking at bytes itself.
 */
#include <kunit/visibility.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>

#include "roce.h"

static bool roce_pkt_fields_ok(const struct roce_pkt *pkt,
			       const struct roce_opcode_info *info)
{
	if (pkt->pad > 3 || pkt->dqpn > ROCE_QPN_MASK ||
	    pkt->psn > ROCE_PSN_MASK)
		return false;
	if (!(info->flags & ROCE_OPF_PAYLOAD) && (pkt->payload_len || pkt->pad))
		return false;
	if (pkt->pad != roce_pad_len(pkt->payload_len))
		return false;
	/* Only the last packet of a message may be padded: see parse. */
	if (pkt->pad && !(info->flags & ROCE_OPF_LAST))
		return false;
	if ((info->hdrs & ROCE_HDR_XRCETH) && pkt->xrc_srqn > ROCE_XRCSRQ_MASK)
		return false;
	if ((info->hdrs & ROCE_HDR_DETH) && pkt->deth.sqpn > ROCE_QPN_MASK)
		return false;
	if ((info->hdrs & ROCE_HDR_AETH) && pkt->aeth.msn > ROCE_AETH_MSN_MASK)
		return false;
	return true;
}

/**
 * vdr_roce_build() - write a packet's BTH and extension headers
 * @pkt: the packet; @pkt->info, @pkt->hdr_len and @pkt->payload are ignored
 * @buf: where the BTH goes
 * @size: room at @buf
 *
 * The caller appends @pkt->payload_len bytes of payload, @pkt->pad zero
 * bytes and the ICRC.
 *
 * Return: the length of the headers written, -EBADRQC for an opcode the
 * device does not know, -EINVAL for a field that does not fit its header or
 * a pad count that does not match the payload length, -ENOSPC if @size is
 * too small.
 */
int vdr_roce_build(const struct roce_pkt *pkt, void *buf, size_t size)
{
	const struct roce_opcode_info *info = vdr_roce_opcode(pkt->opcode);
	struct roce_bth *bth = buf;
	u8 *p = buf;
	u32 qpn;

	if (!info)
		return -EBADRQC;
	if (!roce_pkt_fields_ok(pkt, info))
		return -EINVAL;
	if (size < info->hdr_len)
		return -ENOSPC;

	bth->opcode = pkt->opcode;
	bth->flags = (pkt->se ? ROCE_BTH_SE : 0) |
		     (pkt->mig ? ROCE_BTH_MIG : 0) |
		     pkt->pad << ROCE_BTH_PAD_SHIFT | ROCE_BTH_TVER;
	put_unaligned_be16(pkt->pkey, &bth->pkey);
	qpn = pkt->dqpn | (pkt->fecn ? ROCE_BTH_FECN : 0) |
	      (pkt->becn ? ROCE_BTH_BECN : 0);
	put_unaligned_be32(qpn, &bth->qpn);
	roce_bth_set_apsn(bth, pkt->ack_req, pkt->psn);
	p += ROCE_BTH_BYTES;

	if (info->hdrs & ROCE_HDR_XRCETH) {
		roce_xrceth_set((struct roce_xrceth *)p, pkt->xrc_srqn);
		p += ROCE_XRCETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_DETH) {
		roce_deth_set((struct roce_deth *)p, pkt->deth.qkey,
			      pkt->deth.sqpn);
		p += ROCE_DETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_RETH) {
		roce_reth_set((struct roce_reth *)p, pkt->reth.va,
			      pkt->reth.rkey, pkt->reth.len);
		p += ROCE_RETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_ATOMICETH) {
		roce_atomiceth_set((struct roce_atomiceth *)p,
				   pkt->atomiceth.va, pkt->atomiceth.rkey,
				   pkt->atomiceth.swap_add,
				   pkt->atomiceth.compare);
		p += ROCE_ATOMICETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_AETH) {
		roce_aeth_set((struct roce_aeth *)p, pkt->aeth.syndrome,
			      pkt->aeth.msn);
		p += ROCE_AETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_ATOMICACKETH) {
		roce_atomicacketh_set((struct roce_atomicacketh *)p,
				      pkt->atomic_orig);
		p += ROCE_ATOMICACKETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_IMMDT) {
		roce_immdt_set((struct roce_immdt *)p, pkt->imm);
		p += ROCE_IMMDT_BYTES;
	}
	if (info->hdrs & ROCE_HDR_IETH) {
		roce_ieth_set((struct roce_ieth *)p, pkt->ieth_rkey);
		p += ROCE_IETH_BYTES;
	}

	return p - (u8 *)buf;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_build);

/**
 * vdr_roce_parse() - check and decode a received RoCEv2 packet
 * @buf: UDP payload: BTH, extension headers, payload, pad, ICRC
 * @len: its length (from the UDP header)
 * @pkt: decoded packet
 *
 * Checks what the transport headers alone can tell: the packet is long
 * enough for its opcode's headers and the ICRC, the transport version is
 * 0, and the pad count is consistent with the bytes left for the payload.
 * It neither checks the ICRC (that needs the IP header:
 * vdr_roce_icrc_check()) nor the payload length against the path MTU,
 * nor anything that depends on the QP.
 *
 * The BTH members of @pkt are set whenever the result is not -ENODATA, so
 * that a responder can answer a packet with an unknown opcode.
 *
 * Return: 0, or for a malformed packet:
 * -ENODATA	shorter than a BTH and an ICRC;
 * -EPROTO	transport version (TVer) not 0;
 * -EBADRQC	opcode unknown to the device;
 * -EMSGSIZE	shorter than the opcode's headers and an ICRC;
 * -E2BIG	bytes between headers and ICRC for an opcode without payload;
 * -EBADMSG	payload and pad not a multiple of 4 bytes;
 * -EOVERFLOW	pad count larger than the bytes after the headers;
 * -EINVAL	pad bytes in a FIRST or MIDDLE packet, which must carry a
 *		whole path MTU of payload.
 */
int vdr_roce_parse(const void *buf, size_t len, struct roce_pkt *pkt)
{
	const struct roce_opcode_info *info;
	const struct roce_bth *bth = buf;
	const u8 *p = buf;
	size_t area;

	memset(pkt, 0, sizeof(*pkt));
	if (len < ROCE_BTH_BYTES + ROCE_ICRC_BYTES)
		return -ENODATA;

	pkt->opcode = roce_bth_opcode(bth);
	pkt->se = roce_bth_se(bth);
	pkt->mig = roce_bth_mig(bth);
	pkt->pad = roce_bth_pad(bth);
	pkt->pkey = roce_bth_pkey(bth);
	pkt->fecn = roce_bth_fecn(bth);
	pkt->becn = roce_bth_becn(bth);
	pkt->dqpn = roce_bth_qpn(bth);
	pkt->ack_req = roce_bth_ack_req(bth);
	pkt->psn = roce_bth_psn(bth);

	if (roce_bth_tver(bth) != ROCE_BTH_TVER)
		return -EPROTO;
	info = vdr_roce_opcode(pkt->opcode);
	if (!info)
		return -EBADRQC;
	if (len < info->hdr_len + ROCE_ICRC_BYTES)
		return -EMSGSIZE;

	area = len - info->hdr_len - ROCE_ICRC_BYTES;
	if (!(info->flags & ROCE_OPF_PAYLOAD) && area)
		return -E2BIG;
	if (area % 4)
		return -EBADMSG;
	if (pkt->pad > area)
		return -EOVERFLOW;
	if (pkt->pad && !(info->flags & ROCE_OPF_LAST))
		return -EINVAL;

	p += ROCE_BTH_BYTES;
	if (info->hdrs & ROCE_HDR_XRCETH) {
		pkt->xrc_srqn = roce_xrceth_srqn((const void *)p);
		p += ROCE_XRCETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_DETH) {
		pkt->deth.qkey = roce_deth_qkey((const void *)p);
		pkt->deth.sqpn = roce_deth_sqpn((const void *)p);
		p += ROCE_DETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_RETH) {
		const struct roce_reth *reth = (const void *)p;

		pkt->reth.va = roce_reth_va(reth);
		pkt->reth.rkey = roce_reth_rkey(reth);
		pkt->reth.len = roce_reth_len(reth);
		p += ROCE_RETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_ATOMICETH) {
		const struct roce_atomiceth *ae = (const void *)p;

		pkt->atomiceth.va = roce_atomiceth_va(ae);
		pkt->atomiceth.rkey = roce_atomiceth_rkey(ae);
		pkt->atomiceth.swap_add = roce_atomiceth_swap_add(ae);
		pkt->atomiceth.compare = roce_atomiceth_compare(ae);
		p += ROCE_ATOMICETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_AETH) {
		pkt->aeth.syndrome = roce_aeth_syndrome((const void *)p);
		pkt->aeth.msn = roce_aeth_msn((const void *)p);
		p += ROCE_AETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_ATOMICACKETH) {
		pkt->atomic_orig = roce_atomicacketh_orig((const void *)p);
		p += ROCE_ATOMICACKETH_BYTES;
	}
	if (info->hdrs & ROCE_HDR_IMMDT) {
		pkt->imm = roce_immdt_imm((const void *)p);
		p += ROCE_IMMDT_BYTES;
	}
	if (info->hdrs & ROCE_HDR_IETH) {
		pkt->ieth_rkey = roce_ieth_rkey((const void *)p);
		p += ROCE_IETH_BYTES;
	}

	pkt->info = info;
	pkt->hdr_len = info->hdr_len;
	pkt->payload = p;
	pkt->payload_len = area - pkt->pad;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(vdr_roce_parse);
