// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * tm_check DEV_A GID_INDEX_A DEV_B GID_INDEX_B
 *
 * Tag matching (VIRTIO_RDMA_F_TM_SRQ) between two devices: an RC QP of
 * device A on a TM-SRQ (the server) and an RC QP of device B (the client,
 * which only sends, and receives the rendezvous FINs).  Checks what
 * rdma-core's tests/test_tag_matching.py does not: tm_caps and the errors
 * of create_srq_ex and create_qp; DEL success, DEL of a consumed tag
 * (IBV_WC_TM_ERR); a stale handle after its index was reused; an
 * unsignaled DEL freeing its index; a full tag list and a full ops ring
 * (ENOMEM and bad_op); a bad num_sge (EINVAL and bad_op); the phase rule
 * (an ADD with a stale unexpected_cnt completes with IBV_WC_TM_SYNC_REQ
 * and does not match until a SYNC levels the counts); app_ctx delivered
 * as the tag's priv; a multi-packet eager message (MATCH, then
 * DATA_VALID); a wildcard mask; rendezvous into a too small buffer
 * (IBV_WC_TM_RNDV_INCOMPLETE, the headers in the buffer), a good one and
 * one whose rkey is invalid (an error completion for its tag).  Prints one
 * line per check and exits non-zero if any failed.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/tm_types.h>
#include <infiniband/verbs.h>

#include "vt.h"

#define NTAGS		8	/* the TM-SRQ's tag list: small, so indexes recur */
#define NOPS		4	/* its ops ring */
#define NUNEXP		32	/* unexpected-message buffers on its ring */
#define USLOT		4096
#define TSLOT		8192	/* a tagged buffer */
#define SBUF		(NUNEXP * USLOT + 8 * TSLOT)
#define CBUF		(64 * 1024)
#define C_RNDV		(16 * 1024)	/* where the client's rendezvous data is */
#define C_FIN		(32 * 1024)	/* the client's receive slots */
#define FIN_SLOT	256
#define NFIN		8
#define WAIT_MS		5000
#define TMH		sizeof(struct ibv_tmh)
#define RVH		sizeof(struct ibv_rvh)
#define WRID_SYNC	0x5151

struct cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	unsigned int flags;
	uint32_t byte_len;
	uint64_t tag;
	uint32_t priv;
};

static struct vt_dev da, db;		/* server, client */
static struct ibv_cq_ex *scq;		/* the TM-SRQ's CQ */
static struct ibv_srq *srq;
static struct ibv_qp *sqp, *cqp;
static struct ibv_mr *smr, *cmr;
static uint8_t *sbuf, *cbuf;
static struct ibv_device_attr_ex dattr;
static uint32_t unexp;			/* unexpected messages seen */
/* A client receive (a FIN) polled while waiting for a send completion */
static struct ibv_wc fin_wc;
static bool fin_pending;
/*
 * The send may fail: a READ with a bad rkey moves the client's QP to ERR,
 * which may flush the request before its ACK arrived.
 */
static bool send_may_fail;
static unsigned int next_uslot;		/* the next unexpected buffer to repost */

static uint8_t pattern(unsigned int seed, size_t i)
{
	return (uint8_t)(seed * 29 + i * 13 + 7);
}

static uint8_t *tslot(unsigned int n)
{
	return sbuf + NUNEXP * USLOT + (size_t)n * TSLOT;
}

/*
 * The next completion of the TM-SRQ's CQ: through the ibv_cq_ex readers,
 * or with @wc through ibv_poll_cq (no tag information there).
 */
static bool next_cqe(struct cqe *c, bool wc)
{
	struct ibv_poll_cq_attr pa = {};
	uint64_t end = vt_now_ms() + WAIT_MS;
	struct ibv_wc w;
	int r;

	memset(c, 0, sizeof(*c));
	if (wc) {
		do {
			r = ibv_poll_cq(ibv_cq_ex_to_cq(scq), 1, &w);
		} while (!r && vt_now_ms() < end);
		if (r != 1)
			return false;
		c->wr_id = w.wr_id;
		c->status = w.status;
		c->opcode = w.opcode;
		c->flags = w.wc_flags;
		c->byte_len = w.byte_len;
		return true;
	}
	do {
		r = ibv_start_poll(scq, &pa);
	} while (r == ENOENT && vt_now_ms() < end);
	if (r)
		return false;
	c->wr_id = scq->wr_id;
	c->status = scq->status;
	c->opcode = ibv_wc_read_opcode(scq);
	c->flags = ibv_wc_read_wc_flags(scq);
	c->byte_len = ibv_wc_read_byte_len(scq);
	if (c->opcode == IBV_WC_TM_RECV || c->opcode == IBV_WC_TM_NO_TAG) {
		struct ibv_wc_tm_info ti;

		ibv_wc_read_tm_info(scq, &ti);
		c->tag = ti.tag;
		c->priv = ti.priv;
	}
	ibv_end_poll(scq);
	return true;
}

static void show(const char *what, const struct cqe *c)
{
	printf("  %s: wr_id %#llx %s opcode %d flags %#x len %u tag %#llx priv %#x\n",
	       what, (unsigned long long)c->wr_id, ibv_wc_status_str(c->status),
	       c->opcode, c->flags, c->byte_len, (unsigned long long)c->tag,
	       c->priv);
}

/* The next CQE is @op for @wr_id with @status and exactly @flags. */
static bool expect(const char *what, struct cqe *c, enum ibv_wc_opcode op,
		   uint64_t wr_id, enum ibv_wc_status status, unsigned int flags,
		   bool wc)
{
	if (!next_cqe(c, wc)) {
		printf("  %s: no completion\n", what);
		return false;
	}
	if (c->opcode != op || c->wr_id != wr_id || c->status != status ||
	    c->flags != flags) {
		show(what, c);
		return false;
	}
	return true;
}

static int post_ops(struct ibv_ops_wr *op, struct ibv_ops_wr **bad)
{
	return ibv_post_srq_ops(srq, op, bad);
}

/* ADD of tagged buffer @slot (@len bytes); 0 or the errno, with *@handle. */
static int add_tag(uint64_t tag, uint64_t mask, uint64_t wr_id,
		   unsigned int slot, uint32_t len, int flags, uint32_t cnt,
		   uint32_t *handle)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)tslot(slot),
		.length = len,
		.lkey = smr->lkey,
	};
	struct ibv_ops_wr op = {
		.wr_id = wr_id,
		.opcode = IBV_WR_TAG_ADD,
		.flags = flags,
		.tm = {
			.unexpected_cnt = cnt,
			.add = {
				.recv_wr_id = wr_id,
				.sg_list = &sge,
				.num_sge = 1,
				.tag = tag,
				.mask = mask,
			},
		},
	}, *bad;
	int err;

	memset(tslot(slot), 0, len);
	err = post_ops(&op, &bad);
	if (!err)
		*handle = op.tm.handle;
	return err;
}

/*
 * A signaled ADD in step with the unexpected count; true if it succeeded.
 * The device frees a tag's index just after the completion that ends the
 * tag: a free index may take a moment to show.
 */
static bool add_ok(uint64_t tag, uint64_t mask, uint64_t wr_id,
		   unsigned int slot, uint32_t len, uint32_t *handle)
{
	uint64_t end = vt_now_ms() + WAIT_MS;
	struct cqe c = {};
	int err;

	do {
		err = add_tag(tag, mask, wr_id, slot, len,
			      IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC, unexp, handle);
	} while (err == ENOMEM && vt_now_ms() < end);
	if (err) {
		printf("  ADD: %s\n", vt_errname(err));
		return false;
	}
	return expect("ADD", &c, IBV_WC_TM_ADD, wr_id, IBV_WC_SUCCESS, 0,
		      false);
}

static int del_tag(uint32_t handle, uint64_t wr_id, int flags)
{
	struct ibv_ops_wr op = {
		.wr_id = wr_id,
		.opcode = IBV_WR_TAG_DEL,
		.flags = flags,
		.tm = { .handle = handle },
	}, *bad;

	return post_ops(&op, &bad);
}

/* A signaled DEL; true if it completed with @status. */
static bool del_is(uint32_t handle, uint64_t wr_id, enum ibv_wc_status status,
		   bool wc)
{
	struct cqe c = {};

	if (del_tag(handle, wr_id, IBV_OPS_SIGNALED))
		return false;
	return expect("DEL", &c, IBV_WC_TM_DEL, wr_id, status, 0, wc);
}

/* A signaled SYNC to @cnt; true if it completed with exactly @flags. */
static bool sync_to(uint32_t cnt, unsigned int flags)
{
	struct ibv_ops_wr op = {
		.wr_id = WRID_SYNC,
		.opcode = IBV_WR_TAG_SYNC,
		.flags = IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC,
		.tm = { .unexpected_cnt = cnt },
	}, *bad;
	struct cqe c = {};

	if (post_ops(&op, &bad))
		return false;
	return expect("SYNC", &c, IBV_WC_TM_SYNC, WRID_SYNC, IBV_WC_SUCCESS,
		      flags, false);
}

/*
 * The client sends a message of @len bytes after a TMH of @op, @tag and
 * @app_ctx (@extra, if any, right after the TMH, then a pattern of @seed)
 * and waits for its send completion.
 */
static bool client_send(uint8_t op, uint64_t tag, uint32_t app_ctx,
			const void *extra, size_t elen, size_t len,
			unsigned int seed)
{
	struct ibv_tmh *tmh = (struct ibv_tmh *)cbuf;
	struct ibv_sge sge = {
		.addr = (uintptr_t)cbuf,
		.length = len,
		.lkey = cmr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = tag,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint64_t end = vt_now_ms() + WAIT_MS;
	struct ibv_wc wc;
	size_t i;
	int r;

	memset(tmh, 0, TMH);
	tmh->opcode = op;
	tmh->app_ctx = htobe32(app_ctx);
	tmh->tag = htobe64(tag);
	memcpy(cbuf + TMH, extra, elen);
	for (i = TMH + elen; i < len; i++)
		cbuf[i] = pattern(seed, i);
	if (ibv_post_send(cqp, &wr, &bad))
		return false;
	do {
		r = ibv_poll_cq(db.cq, 1, &wc);
		if (r == 1 && wc.opcode == IBV_WC_RECV && !fin_pending) {
			fin_wc = wc;
			fin_pending = true;
			r = 0;
		}
	} while (!r && vt_now_ms() < end);
	if (r == 1 && wc.wr_id == tag && send_may_fail)
		return true;
	if (r != 1 || wc.status != IBV_WC_SUCCESS || wc.wr_id != tag) {
		printf("  client send: %d completions, %s\n", r,
		       r == 1 ? ibv_wc_status_str(wc.status) : "-");
		return false;
	}
	return true;
}

static bool eager(uint64_t tag, uint32_t app_ctx, size_t len,
		  unsigned int seed)
{
	return client_send(IBV_TMH_EAGER, tag, app_ctx, NULL, 0, len, seed);
}

/* The payload of a message sent by client_send() after its TMH. */
static bool payload_at(const uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(seed, TMH + i))
			return false;
	return true;
}

/*
 * The next CQE is an unexpected message: TM_RECV without flags or tag, in
 * an SRQ buffer with its TMH.  Counted, and its buffer is posted again.
 */
static bool expect_unexpected(const char *what, uint64_t tag, size_t len)
{
	const struct ibv_tmh *tmh;
	struct cqe c = {};

	if (!next_cqe(&c, false)) {
		printf("  %s: no completion\n", what);
		return false;
	}
	if (c.opcode != IBV_WC_TM_RECV || c.status != IBV_WC_SUCCESS ||
	    c.flags || c.tag || c.wr_id >= NUNEXP || c.byte_len != len) {
		show(what, &c);
		return false;
	}
	unexp++;
	tmh = (const struct ibv_tmh *)(sbuf + c.wr_id * USLOT);
	if (vt_post_slots(NULL, srq, sbuf, smr, USLOT, c.wr_id, 1))
		vt_die("ibv_post_srq_recv");
	next_uslot++;
	return be64toh(tmh->tag) == tag && tmh->opcode == IBV_TMH_EAGER;
}

/* ---------------------------------------------------------- setup -- */

static void setup_server(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 256,
		.wc_flags = IBV_WC_STANDARD_FLAGS | IBV_WC_EX_WITH_TM_INFO,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = NUNEXP, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM,
		.srq_type = IBV_SRQT_TM,
		.pd = da.pd,
		.tm_cap = { .max_num_tags = NTAGS, .max_ops = NOPS },
	};
	const struct ibv_tm_caps *t = &dattr.tm_caps;
	struct ibv_srq *bad;

	if (ibv_query_device_ex(da.ctx, NULL, &dattr))
		vt_die("ibv_query_device_ex");
	vt_check((t->flags & IBV_TM_CAP_RC) && t->max_num_tags >= NTAGS &&
		 t->max_ops >= NOPS && t->max_sge >= 1 &&
		 t->max_rndv_hdr_size >= TMH + RVH,
		 "tm_caps: flags %#x, %u tags, %u ops, %u SGEs, rendezvous header %u",
		 t->flags, t->max_num_tags, t->max_ops, t->max_sge,
		 t->max_rndv_hdr_size);
	if (!(t->flags & IBV_TM_CAP_RC)) {
		printf("FAIL: no tag matching on %s\n", da.name);
		exit(1);
	}
	scq = ibv_create_cq_ex(da.ctx, &ca);
	vt_check(scq, "create_cq_ex with IBV_WC_EX_WITH_TM_INFO: %s",
		 scq ? "ok" : vt_errname(errno));
	if (!scq)
		exit(1);
	sa.cq = ibv_cq_ex_to_cq(scq);

	/* Bad geometry is refused before anything is made. */
	sa.tm_cap.max_num_tags = t->max_num_tags + 1;
	bad = ibv_create_srq_ex(da.ctx, &sa);
	vt_check(!bad && errno == EINVAL,
		 "create_srq_ex: max_num_tags above tm_caps -> EINVAL (%s)",
		 bad ? "created" : vt_errname(errno));
	sa.tm_cap.max_num_tags = NTAGS;
	sa.tm_cap.max_ops = t->max_ops + 1;
	bad = ibv_create_srq_ex(da.ctx, &sa);
	vt_check(!bad && errno == EINVAL,
		 "create_srq_ex: max_ops above tm_caps -> EINVAL (%s)",
		 bad ? "created" : vt_errname(errno));
	sa.tm_cap.max_ops = 0;
	bad = ibv_create_srq_ex(da.ctx, &sa);
	vt_check(!bad && errno == EINVAL, "create_srq_ex: max_ops 0 -> EINVAL (%s)",
		 bad ? "created" : vt_errname(errno));
	sa.tm_cap.max_ops = NOPS;
	srq = ibv_create_srq_ex(da.ctx, &sa);
	if (!srq)
		vt_die("ibv_create_srq_ex(IBV_SRQT_TM)");
}

static struct ibv_qp *tm_qp(enum ibv_qp_type type, uint32_t send_wr)
{
	struct ibv_qp_init_attr a = {
		.send_cq = ibv_cq_ex_to_cq(scq),
		.recv_cq = ibv_cq_ex_to_cq(scq),
		.srq = srq,
		.cap = { .max_send_wr = send_wr },
		.qp_type = type,
	};

	return ibv_create_qp(da.pd, &a);
}

static void setup_qps(void)
{
	struct ibv_qp_init_attr ca = {
		.send_cq = db.cq,
		.recv_cq = db.cq,
		.cap = {
			.max_send_wr = 16, .max_recv_wr = NFIN,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	struct vt_conn c = { .psn = 0x200 };
	struct ibv_send_wr swr = {}, *sbad;
	struct ibv_qp *bad;

	bad = tm_qp(IBV_QPT_RC, 1);
	vt_check(!bad && errno == EINVAL,
		 "create_qp on a TM-SRQ with max_send_wr 1 -> EINVAL (%s)",
		 bad ? "created" : vt_errname(errno));
	bad = tm_qp(IBV_QPT_UD, 0);
	vt_check(!bad && errno == EINVAL, "UD QP on a TM-SRQ -> EINVAL (%s)",
		 bad ? "created" : vt_errname(errno));
	sqp = tm_qp(IBV_QPT_RC, 0);
	if (!sqp)
		vt_die("create_qp on the TM-SRQ");
	cqp = ibv_create_qp(db.pd, &ca);
	if (!cqp)
		vt_die("ibv_create_qp (client)");

	c.dgid = db.gid;
	c.sgid_index = da.gidx;
	c.dqpn = cqp->qp_num;
	c.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_WRITE;
	vt_qp_connect(sqp, &c);
	c.dgid = da.gid;
	c.sgid_index = db.gidx;
	c.dqpn = sqp->qp_num;
	vt_qp_connect(cqp, &c);

	vt_check(ibv_post_send(sqp, &swr, &sbad) == EINVAL,
		 "post_send on a QP of a TM-SRQ (no send queue) -> EINVAL");
	if (vt_post_slots(cqp, NULL, cbuf + C_FIN, cmr, FIN_SLOT, 0, NFIN))
		vt_die("ibv_post_recv (client)");
	if (vt_post_slots(NULL, srq, sbuf, smr, USLOT, 0, NUNEXP))
		vt_die("ibv_post_srq_recv");
}

/* --------------------------------------------------------- checks -- */

/* DEL of a posted tag; the tag no longer matches; DEL of a consumed one. */
static void check_del(void)
{
	uint32_t h;
	struct cqe c = {};
	bool ok;

	ok = add_ok(0x100, ~0ULL, 1, 0, TSLOT, &h) &&
	     del_is(h, 2, IBV_WC_SUCCESS, true);
	vt_check(ok, "DEL of a posted tag: IBV_WC_TM_DEL, success");
	ok = eager(0x100, 0, TMH + 64, 1) &&
	     expect_unexpected("deleted tag", 0x100, TMH + 64) &&
	     sync_to(unexp, 0);
	vt_check(ok, "a deleted tag does not match: the message is unexpected");

	ok = add_ok(0x101, ~0ULL, 3, 0, TSLOT, &h) &&
	     eager(0x101, 0x11, TMH + 100, 2) &&
	     expect("eager", &c, IBV_WC_TM_RECV, 3, IBV_WC_SUCCESS,
		    IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID, false) &&
	     c.byte_len == 100 && c.tag == 0x101 &&
	     payload_at(tslot(0), 100, 2);
	vt_check(ok, "eager single-packet match: MATCH|DATA_VALID, tag, byte_len, data");
	vt_check(ok && del_is(h, 4, IBV_WC_TM_ERR, true),
		 "DEL of a consumed tag -> IBV_WC_TM_ERR");
}

/* A handle whose index was reused: DEL with it fails, the new tag stays. */
static void check_stale_handle(void)
{
	uint32_t h1, h2 = 0;
	struct cqe c = {};
	bool ok;
	int i;

	ok = add_ok(0x200, ~0ULL, 10, 0, TSLOT, &h1) &&
	     del_is(h1, 11, IBV_WC_SUCCESS, false);
	for (i = 0; ok && i < 2 * NTAGS; i++) {
		ok = add_ok(0x201, ~0ULL, 12, 1, TSLOT, &h2);
		if (!ok || (h2 & 0xffff) == (h1 & 0xffff))
			break;
		ok = del_is(h2, 13, IBV_WC_SUCCESS, false);
	}
	ok = ok && (h2 & 0xffff) == (h1 & 0xffff) && h2 != h1;
	vt_check(ok, "index %u reused with a new handle (%#x, was %#x)",
		 h1 & 0xffff, h2, h1);
	vt_check(ok && del_is(h1, 14, IBV_WC_TM_ERR, false),
		 "DEL with the stale handle of a reused index -> IBV_WC_TM_ERR");
	ok = ok && eager(0x201, 0x22, TMH + 200, 3) &&
	     expect("eager", &c, IBV_WC_TM_RECV, 12, IBV_WC_SUCCESS,
		    IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID, false) &&
	     payload_at(tslot(1), 200, 3);
	vt_check(ok, "the stale DEL left the index's new tag posted: it matches");
}

/*
 * An unsignaled DEL gives no completion and frees its index: every index
 * can be taken again afterwards, and one more ADD finds the list full.
 */
static void check_unsignaled_del(void)
{
	uint32_t h, hs[NTAGS];
	unsigned int n = 0, i;
	struct ibv_ops_wr sync = {
		.wr_id = WRID_SYNC,
		.opcode = IBV_WR_TAG_SYNC,
		.flags = IBV_OPS_SIGNALED,
	}, *bad;
	struct cqe c = {};
	bool ok;
	int err;

	ok = add_ok(0x300, ~0ULL, 20, 0, TSLOT, &h) && !del_tag(h, 21, 0) &&
	     !post_ops(&sync, &bad) &&
	     expect("SYNC after an unsignaled DEL", &c, IBV_WC_TM_SYNC,
		    WRID_SYNC, IBV_WC_SUCCESS, 0, false);
	vt_check(ok, "unsignaled DEL: no completion (the next op's comes first)");
	for (n = 0; ok && n < NTAGS; n++)
		ok = add_ok(0x310 + n, ~0ULL, 30 + n, 0, 64, &hs[n]);
	vt_check(ok, "unsignaled DEL freed its index: %u of %u tags posted after it",
		 n, NTAGS);
	err = add_tag(0x3ff, ~0ULL, 40, 0, 64, IBV_OPS_SIGNALED, 0, &h);
	vt_check(err == ENOMEM, "ADD with every tag posted -> ENOMEM (%s)",
		 vt_errname(err));
	for (i = 0; i < n; i++)
		ok &= del_is(hs[i], 50 + i, IBV_WC_SUCCESS, false);
	vt_check(ok, "DEL of the %u tags", n);
}

/* ENOMEM on a full ops ring, EINVAL on a bad op: bad_op and what was posted. */
static void check_ring_errors(void)
{
	struct ibv_ops_wr ops[NOPS + 1], *bad = NULL;
	struct ibv_sge sge[8] = {};
	struct cqe c = {};
	unsigned int i;
	int err, k;
	bool ok;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i <= NOPS; i++) {
		ops[i].wr_id = 60 + i;
		ops[i].opcode = IBV_WR_TAG_SYNC;
		ops[i].next = i < NOPS ? &ops[i + 1] : NULL;
	}
	/* The last one posted is signaled: its completion says all are done. */
	ops[NOPS - 1].flags = IBV_OPS_SIGNALED;
	err = post_ops(ops, &bad);
	k = bad ? (int)(bad - ops) : -1;
	/* The device may not have stored cons after its last op just yet. */
	vt_check(err == ENOMEM && (k == NOPS || k == NOPS - 1),
		 "%u ops on a ring of %u -> ENOMEM, bad_op the first op that did not fit (%s, op %d)",
		 NOPS + 1, NOPS, vt_errname(err), k);
	vt_check(err == ENOMEM && k > 0 &&
		 expect("last op of a full ring", &c, IBV_WC_TM_SYNC,
			ops[k - 1].wr_id, IBV_WC_SUCCESS, 0, false),
		 "the ops before bad_op were posted and completed in order");

	for (i = 0; i < 8; i++) {
		sge[i].addr = (uintptr_t)tslot(0) + i * 64;
		sge[i].length = 64;
		sge[i].lkey = smr->lkey;
	}
	memset(ops, 0, sizeof(ops));
	ops[0].wr_id = 70;
	ops[0].opcode = IBV_WR_TAG_SYNC;
	ops[0].flags = IBV_OPS_SIGNALED;
	ops[0].next = &ops[1];
	ops[1].wr_id = 71;
	ops[1].opcode = IBV_WR_TAG_ADD;
	ops[1].flags = IBV_OPS_SIGNALED;
	ops[1].tm.add.sg_list = sge;
	ops[1].tm.add.num_sge = dattr.tm_caps.max_sge + 1;
	ops[1].tm.add.tag = 0x400;
	ops[1].tm.add.mask = ~0ULL;
	bad = NULL;
	err = post_ops(ops, &bad);
	vt_check(err == EINVAL && bad == &ops[1],
		 "ADD with num_sge %u > max_sge -> EINVAL, bad_op it (%s)",
		 dattr.tm_caps.max_sge + 1, vt_errname(err));
	ok = expect("op before a bad one", &c, IBV_WC_TM_SYNC, 70,
		    IBV_WC_SUCCESS, 0, false);
	vt_check(ok, "the op before the bad one was posted");
	ops[0].next = NULL;
	ops[0].opcode = (enum ibv_ops_wr_opcode)7;
	bad = NULL;
	err = post_ops(ops, &bad);
	vt_check(err == EINVAL && bad == &ops[0], "unknown opcode -> EINVAL (%s)",
		 vt_errname(err));
	ops[0].opcode = IBV_WR_TAG_SYNC;
	ops[0].flags = 0x80;
	bad = NULL;
	err = post_ops(ops, &bad);
	vt_check(err == EINVAL && bad == &ops[0], "unknown flag -> EINVAL (%s)",
		 vt_errname(err));
}

/*
 * The phase rule: after an unexpected message an ADD with the old count
 * asks for a sync and its tag does not match; after the SYNC it does.
 */
static void check_phase(void)
{
	uint32_t h;
	struct cqe c = {};
	bool ok;

	ok = eager(0x500, 0, TMH + 32, 5) &&
	     expect_unexpected("unexpected before the ADD", 0x500, TMH + 32);
	vt_check(ok, "a message without a posted tag is unexpected (TM_RECV, no flags, TMH in the SRQ buffer)");
	ok = ok && !add_tag(0x500, ~0ULL, 80, 2, TSLOT,
			    IBV_OPS_SIGNALED | IBV_OPS_TM_SYNC, unexp - 1, &h) &&
	     expect("stale ADD", &c, IBV_WC_TM_ADD, 80, IBV_WC_SUCCESS,
		    IBV_WC_TM_SYNC_REQ, true);
	vt_check(ok, "ADD with a stale unexpected_cnt completes with IBV_WC_TM_SYNC_REQ");
	ok = ok && eager(0x500, 0, TMH + 32, 6) &&
	     expect_unexpected("message before the SYNC", 0x500, TMH + 32);
	vt_check(ok, "its tag does not match before a SYNC");
	vt_check(ok && sync_to(unexp, 0),
		 "SYNC to the unexpected count (%u): no SYNC_REQ", unexp);
	ok = ok && eager(0x500, 0x55, TMH + 48, 7) &&
	     expect("after SYNC", &c, IBV_WC_TM_RECV, 80, IBV_WC_SUCCESS,
		    IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID, false) &&
	     c.tag == 0x500 && payload_at(tslot(2), 48, 7);
	vt_check(ok, "after the SYNC the tag matches");
}

/* app_ctx as priv; a wildcard mask; a message over several packets. */
static void check_eager(void)
{
	size_t big = 5000;	/* path MTU 1024: five packets */
	uint32_t h;
	struct cqe c = {};
	bool ok;

	ok = add_ok(0x5500, ~0xffULL, 90, 3, TSLOT, &h) &&
	     eager(0x55ab, 0xa5a5f00d, TMH + 77, 8) &&
	     expect("wildcard", &c, IBV_WC_TM_RECV, 90, IBV_WC_SUCCESS,
		    IBV_WC_TM_MATCH | IBV_WC_TM_DATA_VALID, false);
	vt_check(ok && c.tag == 0x55ab && c.byte_len == 77 &&
		 payload_at(tslot(3), 77, 8),
		 "wildcard: tag 0x55ab matches 0x5500 under mask ~0xff: the message's tag (%#llx), data",
		 (unsigned long long)c.tag);
	vt_check(ok && c.priv == 0xa5a5f00d,
		 "app_ctx delivered as the tag's priv (%#x)", c.priv);

	ok = add_ok(0x600, ~0ULL, 91, 4, TSLOT, &h) &&
	     eager(0x600, 0x66, TMH + big, 9) &&
	     expect("first packet", &c, IBV_WC_TM_RECV, 91, IBV_WC_SUCCESS,
		    IBV_WC_TM_MATCH, false) && c.tag == 0x600 && c.priv == 0x66;
	vt_check(ok, "multi-packet eager: MATCH alone first (tag, priv)");
	ok = ok && expect("last packet", &c, IBV_WC_TM_RECV, 91,
			  IBV_WC_SUCCESS, IBV_WC_TM_DATA_VALID, false) &&
	     c.byte_len == big && payload_at(tslot(4), big, 9);
	vt_check(ok, "then DATA_VALID with byte_len %zu (%u) and the payload",
		 big, c.byte_len);
}

/* A rendezvous request for @len bytes at the client's C_RNDV with @rkey. */
static bool rndv(uint64_t tag, uint32_t app_ctx, uint32_t rkey, uint32_t len,
		 size_t hdr)
{
	struct ibv_rvh rvh = {
		.va = htobe64((uintptr_t)cbuf + C_RNDV),
		.rkey = htobe32(rkey),
		.len = htobe32(len),
	};
	size_t i;

	for (i = 0; i < len; i++)
		cbuf[C_RNDV + i] = pattern(11, i);
	return client_send(IBV_TMH_RNDV, tag, app_ctx, &rvh, RVH, hdr, 10);
}

static bool client_fin(uint64_t tag)
{
	uint64_t end = vt_now_ms() + WAIT_MS;
	const struct ibv_tmh *tmh;
	struct ibv_wc wc;
	int r;

	if (fin_pending) {
		wc = fin_wc;
		fin_pending = false;
		r = 1;
	} else {
		do {
			r = ibv_poll_cq(db.cq, 1, &wc);
		} while (!r && vt_now_ms() < end);
	}
	if (r != 1 || wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
	    wc.wr_id >= NFIN) {
		printf("  FIN: %d completions\n", r);
		return false;
	}
	tmh = (const struct ibv_tmh *)(cbuf + C_FIN + wc.wr_id * FIN_SLOT);
	if (vt_post_slots(cqp, NULL, cbuf + C_FIN, cmr, FIN_SLOT, wc.wr_id, 1))
		vt_die("ibv_post_recv (client)");
	return wc.byte_len == TMH + RVH && tmh->opcode == IBV_TMH_FIN &&
	       be64toh(tmh->tag) == tag;
}

static void check_rndv(void)
{
	uint32_t h, len = 3000;
	size_t hdr = TMH + RVH + 16, i;
	struct cqe c = {};
	bool ok;

	if (dattr.tm_caps.max_rndv_hdr_size < hdr)
		hdr = TMH + RVH;
	/* The tag's buffer holds the headers but not the data. */
	ok = add_ok(0x700, ~0ULL, 100, 5, hdr, &h) &&
	     rndv(0x700, 0x77, cmr->rkey, len, hdr) &&
	     expect("incomplete", &c, IBV_WC_TM_RECV, 100,
		    IBV_WC_TM_RNDV_INCOMPLETE, IBV_WC_TM_MATCH, false);
	for (i = 0; ok && i < hdr; i++)
		ok = tslot(5)[i] == cbuf[i];
	vt_check(ok, "rendezvous into a buffer of %zu bytes: IBV_WC_TM_RNDV_INCOMPLETE, MATCH, the headers in the buffer",
		 hdr);

	ok = add_ok(0x701, ~0ULL, 101, 6, TSLOT, &h) &&
	     rndv(0x701, 0x78, cmr->rkey, len, hdr) &&
	     expect("rendezvous", &c, IBV_WC_TM_RECV, 101, IBV_WC_SUCCESS,
		    IBV_WC_TM_MATCH, false) && c.tag == 0x701 && c.priv == 0x78;
	ok = ok && client_fin(0x701) &&
	     expect("rendezvous data", &c, IBV_WC_TM_RECV, 101,
		    IBV_WC_SUCCESS, IBV_WC_TM_DATA_VALID, false) &&
	     c.byte_len == len;
	for (i = 0; ok && i < len; i++)
		ok = tslot(6)[i] == pattern(11, i);
	vt_check(ok, "rendezvous of %u bytes: MATCH, FIN to the sender, DATA_VALID, data",
		 len);

	/* Last: a failed READ puts the server's QP in ERR. */
	send_may_fail = true;
	ok = add_ok(0x702, ~0ULL, 102, 7, TSLOT, &h) &&
	     rndv(0x702, 0x79, cmr->rkey ^ 0x5a, len, hdr) &&
	     expect("rendezvous", &c, IBV_WC_TM_RECV, 102, IBV_WC_SUCCESS,
		    IBV_WC_TM_MATCH, false);
	ok = ok && next_cqe(&c, false) && c.wr_id == 102 &&
	     c.opcode == IBV_WC_TM_RECV && c.status != IBV_WC_SUCCESS;
	vt_check(ok, "rendezvous with an invalid rkey: an error completion for the tag (%s)",
		 ibv_wc_status_str(c.status));
}

int main(int argc, char **argv)
{
	vt_dev_args(argc, argv, "usage: %s DEV_A GIDX_A DEV_B GIDX_B\n", 64,
		    &da, &db);
	sbuf = aligned_alloc(4096, SBUF);
	cbuf = aligned_alloc(4096, CBUF);
	if (!sbuf || !cbuf)
		vt_die("aligned_alloc");
	memset(cbuf, 0, CBUF);
	smr = ibv_reg_mr(da.pd, sbuf, SBUF, IBV_ACCESS_LOCAL_WRITE);
	cmr = ibv_reg_mr(db.pd, cbuf, CBUF,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!smr || !cmr)
		vt_die("ibv_reg_mr");
	setup_server();
	setup_qps();

	check_del();
	check_stale_handle();
	check_unsignaled_del();
	check_ring_errors();
	check_phase();
	check_eager();
	check_rndv();

	printf("%d checks, %d failed\n", vt_checks, vt_failures);
	return vt_failures ? 1 : 0;
}
