// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * mw_check DEV_W GID_INDEX_W DEV_P GID_INDEX_P
 *
 * Memory windows between two devices, with plain verbs.  Device W owns the
 * windows: its MR grants no remote access of its own (LOCAL_WRITE and
 * MW_BIND only), and device P reaches that memory only through window
 * rkeys, by RDMA WRITE and READ over RC QPs connected W <-> P.  Checked:
 * the MR's own rkey is refused; type 1 and 2 windows get distinct rkeys; a type 2 window bound by an
 * IBV_WR_BIND_MW WQE (VA-based and zero-based) lets P write and read
 * exactly its range and nothing outside it; its access rights hold; it
 * dies by LOCAL_INV, by P's SEND_WITH_INV (the receive reports the key) and
 * by ibv_dealloc_mw, and rebinds with a new key tag after LOCAL_INV; it
 * works only through the QP that bound it; an MR with a bound window
 * cannot be deregistered until the window goes; a type 1 window bound,
 * rebound and unbound by ibv_bind_mw works through any QP of its PD with
 * its current key only, refuses IBV_ACCESS_ZERO_BASED and is not
 * invalidated by LOCAL_INV; and each bind the IB specification forbids
 * completes with IBV_WC_MW_BIND_ERR.  After every WRITE the whole of W's
 * buffer is compared with what it must hold.  An error completion moves a
 * QP to ERR: the QP pair then goes back through RESET to RTS.  Where
 * rdma_rxe departs from the specification (it checks an access through a
 * window against the MR's bounds, reports IBV_WC_WITH_INV as bit 2 of
 * wc_flags, and completes a failed bind or LOCAL_INV with
 * IBV_WC_WR_FLUSH_ERR), the departure is accepted only when W is an rxe
 * device, with a "note:" line.  Windows go before the QPs and MRs: rxe
 * cannot destroy a QP that a type 2 window is bound to.  Prints one line
 * per check and exits non-zero if any failed.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "vt.h"

#define BUF_LEN		(16 * 1024)
#define RECV_LEN	64
#define WAIT_MS		5000
#define NPAIR		2
#define RW		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
/* post_wait() and friends: no completion within WAIT_MS; the post failed. */
#define NO_WC		(-1)
#define NO_POST		(-2)

/* Memory of W that P may reach through windows, and what it must hold. */
struct region {
	const char *name;
	uint8_t *buf;
	struct ibv_mr *mr;
	uint8_t want[BUF_LEN];
};

static struct vt_dev dw, dp;
static struct ibv_qp *wq[NPAIR], *pq[NPAIR];
static struct region rw = { .name = "W's buffer" };
static struct region r9 = { .name = "W's second buffer" };
static uint8_t *pbuf, *wrecv, *xbuf;
static struct ibv_mr *pmr, *wrecv_mr;
static uint64_t next_wr_id = 1;
static unsigned int seq;
static int post_err;
static bool w_rxe;	/* W is rdma_rxe: its known departures are accepted */

static uint8_t *buf_new(size_t len)
{
	uint8_t *b = aligned_alloc(4096, len);

	if (!b)
		vt_die("aligned_alloc");
	return b;
}

static void region_init(struct region *r, unsigned int salt)
{
	size_t i;

	r->buf = buf_new(BUF_LEN);
	for (i = 0; i < BUF_LEN; i++)
		r->want[i] = (uint8_t)(i * 7 + salt);
	memcpy(r->buf, r->want, BUF_LEN);
	/* No remote access of its own: only windows give P a way in. */
	r->mr = ibv_reg_mr(dw.pd, r->buf, BUF_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	if (!r->mr)
		vt_die("ibv_reg_mr LOCAL_WRITE | MW_BIND");
}

static struct ibv_qp *qp_new(struct vt_dev *d)
{
	struct ibv_qp_init_attr a = {
		.send_cq = d->cq,
		.recv_cq = d->cq,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(d->pd, &a);

	if (!qp)
		vt_die("ibv_create_qp");
	return qp;
}

/* How the QP of @self in pair @i connects to its peer's. */
static struct vt_conn conn_of(int i, struct vt_dev *self)
{
	bool w = self == &dw;
	struct vt_conn c = {
		.dgid = (w ? &dp : &dw)->gid,
		.sgid_index = self->gidx,
		.dqpn = (w ? pq[i] : wq[i])->qp_num,
		.psn = 0x100,
		.access = RW,
	};

	return c;
}

static void pair_connect(int i)
{
	struct vt_conn cw = conn_of(i, &dw), cp = conn_of(i, &dp);

	vt_qp_connect(wq[i], &cw);
	vt_qp_connect(pq[i], &cp);
}

/* Takes what is left on @d's CQ: flushed WQEs of a QP that went to ERR. */
static void drain(struct vt_dev *d)
{
	struct ibv_wc wc[16];
	int n, i;

	while ((n = ibv_poll_cq(d->cq, 16, wc)) > 0)
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
				printf("  (%s: stray completion wr_id %llu: %s)\n",
				       d->name, (unsigned long long)wc[i].wr_id,
				       ibv_wc_status_str(wc[i].status));
}

/* After an error completion: both QPs of pair @i through RESET to RTS. */
/* RESET, then INIT, of @self's QP in pair @i: 0 or an errno. */
static int qp_reinit(int i, struct vt_dev *self)
{
	struct ibv_qp *qp = self == &dw ? wq[i] : pq[i];
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct vt_conn c = conn_of(i, self);
	int err = ibv_modify_qp(qp, &a, IBV_QP_STATE);

	return err ? err : vt_qp_modify(qp, &c, IBV_QPS_INIT);
}

/* INIT -> RTR -> RTS of @self's QP in pair @i; exits on a failure. */
static void qp_rts(int i, struct vt_dev *self)
{
	struct ibv_qp *qp = self == &dw ? wq[i] : pq[i];
	struct vt_conn c = conn_of(i, self);

	int err = vt_qp_modify(qp, &c, IBV_QPS_RTR);

	if (!err)
		err = vt_qp_modify(qp, &c, IBV_QPS_RTS);
	if (err) {
		errno = err;
		vt_die("modify_qp RTR, RTS");
	}
}

/*
 * After an error completion: both QPs of pair @i back to RTS.  rxe moves a
 * QP to ERR from its completer a little after it has delivered the error
 * completion, and a RESET that comes in between is undone (INIT is then
 * EINVAL): reset again until INIT holds, for at most a second.
 */
static void pair_reset(int i)
{
	uint64_t end = vt_now_ms() + 1000;
	int err;

	for (;;) {
		drain(&dw);
		drain(&dp);
		err = qp_reinit(i, &dw);
		if (!err)
			err = qp_reinit(i, &dp);
		if (!err || vt_now_ms() > end)
			break;
		vt_sleep_us(20000);
	}
	if (err) {
		errno = err;
		vt_die("modify_qp RESET, INIT");
	}
	qp_rts(i, &dw);
	qp_rts(i, &dp);
}

/* The completion of WR @wr_id on @d's CQ, within WAIT_MS. */
static bool wait_wc(struct vt_dev *d, uint64_t wr_id, struct ibv_wc *wc)
{
	uint64_t end = vt_now_ms() + WAIT_MS;
	int r;

	while (vt_now_ms() < end) {
		r = ibv_poll_cq(d->cq, 1, wc);
		if (r < 0)
			return false;
		if (!r) {
			sched_yield();
			continue;
		}
		if (wc->wr_id == wr_id)
			return true;
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			printf("  (%s: stray completion wr_id %llu: %s)\n",
			       d->name, (unsigned long long)wc->wr_id,
			       ibv_wc_status_str(wc->status));
	}
	return false;
}

/* How many completions @d's CQ gets in @ms. */
static int quiet_for(struct vt_dev *d, int ms)
{
	uint64_t end = vt_now_ms() + ms;
	struct ibv_wc wc;
	int n = 0;

	while (vt_now_ms() < end)
		if (ibv_poll_cq(d->cq, 1, &wc) > 0)
			n++;
		else
			sched_yield();
	return n;
}

static const char *st(int s)
{
	static char b[64];

	if (s == NO_WC)
		return "no completion";
	if (s == NO_POST) {
		snprintf(b, sizeof(b), "ibv_post_send %s", vt_errname(post_err));
		return b;
	}
	return ibv_wc_status_str(s);
}

/*
 * Whether @s, the status of W's failed local operation (a bind or a
 * LOCAL_INV), is rxe's IBV_WC_WR_FLUSH_ERR in place of the operation's own
 * error: rxe moves the QP to ERR and then flushes the whole send queue,
 * the failed WQE with it.
 */
static bool rxe_flushed(int s, const char *what)
{
	if (!w_rxe || s != IBV_WC_WR_FLUSH_ERR)
		return false;
	printf("note: rxe completes a failed local operation with IBV_WC_WR_FLUSH_ERR, not its own error: %s\n",
	       what);
	return true;
}

/*
 * Posts @wr, signaled, on @qp of @d and waits for its completion (in @wc):
 * its status, NO_POST or NO_WC.
 */
static int post_wait(struct vt_dev *d, struct ibv_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_wc *wc)
{
	struct ibv_send_wr *bad;

	wr->wr_id = next_wr_id++;
	wr->send_flags |= IBV_SEND_SIGNALED;
	post_err = ibv_post_send(qp, wr, &bad);
	if (post_err)
		return NO_POST;
	if (!wait_wc(d, wr->wr_id, wc))
		return NO_WC;
	return wc->status;
}

/* The first byte of @r that differs from what it must hold, or -1. */
static long region_diff(const struct region *r)
{
	size_t i;

	if (!memcmp(r->buf, r->want, BUF_LEN))
		return -1;
	for (i = 0; r->buf[i] == r->want[i]; i++)
		;
	return (long)i;
}

/*
 * Whether both of W's buffers hold what they must, byte for byte; a
 * difference is shown, and taken as the new reference so that one fault
 * fails one check.
 */
static bool intact(void)
{
	struct region *rs[] = { &rw, &r9 };
	unsigned int i;
	bool ok = true;
	long d;

	for (i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		if (!rs[i]->buf)
			continue;
		d = region_diff(rs[i]);
		if (d < 0)
			continue;
		printf("  %s: byte %ld is 0x%02x, not 0x%02x\n", rs[i]->name,
		       d, rs[i]->buf[d], rs[i]->want[d]);
		memcpy(rs[i]->want, rs[i]->buf, BUF_LEN);
		ok = false;
	}
	return ok;
}

/* P's RDMA @op of @len bytes of its buffer over pair @i: the status. */
static int p_rdma(int i, enum ibv_wr_opcode op, size_t len, uint64_t raddr,
		  uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)pbuf,
		.length = len,
		.lkey = pmr->lkey,
	};
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op };
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return post_wait(&dp, pq[i], &wr, &wc);
}

/* P's data for a WRITE that lands at @off of @r: differs in every byte. */
static void p_data(const struct region *r, size_t off, size_t len)
{
	uint8_t x = 0x80 | (seq++ & 0x7f);
	size_t i;

	for (i = 0; i < len; i++)
		pbuf[i] = r->want[off + i] ^ x;
}

/*
 * P writes @len bytes to (@raddr, @rkey) over pair @i: they must land at
 * @off of @r and nowhere else.
 */
static void expect_write(int i, struct region *r, size_t off, size_t len,
			 uint64_t raddr, uint32_t rkey, const char *what)
{
	int s;

	p_data(r, off, len);
	s = p_rdma(i, IBV_WR_RDMA_WRITE, len, raddr, rkey);
	if (s == IBV_WC_SUCCESS)
		memcpy(r->want + off, pbuf, len);
	vt_check(s == IBV_WC_SUCCESS && intact(),
		 "%s: WRITE of %zu bytes with rkey 0x%x: %s, at offset %zu of %s and nowhere else",
		 what, len, rkey, st(s), off, r->name);
	if (s != IBV_WC_SUCCESS)
		pair_reset(i);
}

/*
 * P's WRITE of @len bytes to (@raddr, @rkey) over pair @i must complete
 * with IBV_WC_REM_ACCESS_ERR and change nothing.  @off of @r is where it
 * would land if the device checked the window's MR instead of the window:
 * rxe does (its responder looks a window up by key, access and QP, then
 * checks the address against the MR's bounds only), so with @bounds that
 * is accepted when W is rxe.
 */
static void expect_denied(int i, struct region *r, size_t off, size_t len,
			  uint64_t raddr, uint32_t rkey, bool bounds,
			  const char *what)
{
	bool landed;
	int s;

	p_data(r, off, len);
	s = p_rdma(i, IBV_WR_RDMA_WRITE, len, raddr, rkey);
	if (s == IBV_WC_SUCCESS && bounds && w_rxe) {
		landed = !memcmp(r->buf + off, pbuf, len);
		memcpy(r->buf + off, r->want + off, len);
		printf("note: rxe checks a window access against the bounds of the window's MR, not the window's: %s\n",
		       what);
		vt_check(landed && intact(),
			 "%s: WRITE of %zu bytes with rkey 0x%x: success, landed at offset %zu of %s (rxe; the specification says IBV_WC_REM_ACCESS_ERR)",
			 what, len, rkey, off, r->name);
		return;
	}
	vt_check(s == IBV_WC_REM_ACCESS_ERR && intact(),
		 "%s: WRITE of %zu bytes with rkey 0x%x: %s, %s unchanged",
		 what, len, rkey, st(s), r->name);
	if (s != IBV_WC_SUCCESS)
		pair_reset(i);
}

/* P reads @len bytes at (@raddr, @rkey) over pair @i: @off of @r. */
static void expect_read(int i, struct region *r, size_t off, size_t len,
			uint64_t raddr, uint32_t rkey, const char *what)
{
	bool same;
	int s;

	memset(pbuf, 0, len);
	s = p_rdma(i, IBV_WR_RDMA_READ, len, raddr, rkey);
	same = !memcmp(pbuf, r->want + off, len);
	vt_check(s == IBV_WC_SUCCESS && same && intact(),
		 "%s: READ of %zu bytes with rkey 0x%x: %s, %s",
		 what, len, rkey, st(s), same ? "identical" : "different");
	if (s != IBV_WC_SUCCESS)
		pair_reset(i);
}

/*
 * W binds type 2 window @mw to @mr with an IBV_WR_BIND_MW WQE on pair @i,
 * the next key tag: the completion's status.
 */
static int bind2(int i, struct ibv_mw *mw, struct ibv_mr *mr, uint64_t addr,
		 uint64_t len, unsigned int access, struct ibv_wc *wc)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_BIND_MW };
	int s;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	s = post_wait(&dw, wq[i], &wr, wc);
	/*
	 * libibverbs leaves mw->rkey alone for a type 2 window.  rxe's
	 * provider names the window by mw->rkey in the next bind WQE and rxe
	 * wants the key the window has now, so an application that rebinds
	 * a type 2 window keeps mw->rkey current, as this does.
	 */
	if (s == IBV_WC_SUCCESS)
		mw->rkey = wr.bind_mw.rkey;
	return s;
}

static bool bind2_ok(int i, struct ibv_mw *mw, struct ibv_mr *mr,
		     uint64_t addr, uint64_t len, unsigned int access,
		     const char *what)
{
	uint32_t old = mw->rkey;
	struct ibv_wc wc;
	bool ok;
	int s;

	s = bind2(i, mw, mr, addr, len, access, &wc);
	ok = s == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW &&
	     mw->rkey != old;
	vt_check(ok, "%s: IBV_WR_BIND_MW of %llu bytes, access 0x%x: %s, opcode %d, rkey 0x%x -> 0x%x",
		 what, (unsigned long long)len, access, st(s),
		 s == IBV_WC_SUCCESS ? (int)wc.opcode : -1, old, mw->rkey);
	if (s != IBV_WC_SUCCESS)
		pair_reset(i);
	return ok;
}

/* A new type 2 window on @mr, bound on pair @i; NULL if that failed. */
static struct ibv_mw *window2(int i, struct ibv_mr *mr, uint64_t addr,
			      uint64_t len, unsigned int access,
			      const char *what)
{
	struct ibv_mw *mw = ibv_alloc_mw(dw.pd, IBV_MW_TYPE_2);

	if (!mw) {
		vt_check(false, "%s: ibv_alloc_mw type 2: %s", what,
			 vt_errname(errno));
		return NULL;
	}
	if (!bind2_ok(i, mw, mr, addr, len, access, what)) {
		ibv_dealloc_mw(mw);
		return NULL;
	}
	return mw;
}

/* A bind the specification forbids: IBV_WC_MW_BIND_ERR, a fresh window. */
static void expect_bind_err(struct ibv_mr *mr, uint64_t addr, uint64_t len,
			    unsigned int access, const char *what)
{
	struct ibv_mw *mw = ibv_alloc_mw(dw.pd, IBV_MW_TYPE_2);
	struct ibv_wc wc;
	int s;

	if (!mw) {
		vt_check(false, "%s: ibv_alloc_mw type 2: %s", what,
			 vt_errname(errno));
		return;
	}
	s = bind2(0, mw, mr, addr, len, access, &wc);
	vt_check(s == IBV_WC_MW_BIND_ERR || rxe_flushed(s, what), "%s: %s",
		 what, st(s));
	if (s != IBV_WC_SUCCESS)
		pair_reset(0);
	ibv_dealloc_mw(mw);
}

static int local_inv(int i, uint32_t rkey, struct ibv_wc *wc)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_LOCAL_INV };

	wr.invalidate_rkey = rkey;
	return post_wait(&dw, wq[i], &wr, wc);
}

/*
 * ibv_bind_mw of type 1 window @mw on pair @i: the verb's return in @err,
 * then the completion's status (NO_POST if the verb failed).
 */
static int bind1(int i, struct ibv_mw *mw, struct ibv_mr *mr, uint64_t addr,
		 uint64_t len, unsigned int access, int *err,
		 struct ibv_wc *wc)
{
	struct ibv_mw_bind b = {
		.wr_id = next_wr_id++,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = {
			.mr = mr,
			.addr = addr,
			.length = len,
			.mw_access_flags = access,
		},
	};
	uint32_t old = mw->rkey;
	int s;

	*err = ibv_bind_mw(wq[i], mw, &b);
	post_err = *err;
	if (*err)
		return NO_POST;
	s = wait_wc(&dw, b.wr_id, wc) ? (int)wc->status : NO_WC;
	/* ibv_bind_mw(3): the caller undoes the new rkey of a failed bind. */
	if (s != IBV_WC_SUCCESS)
		mw->rkey = old;
	return s;
}

static bool bind1_ok(int i, struct ibv_mw *mw, struct ibv_mr *mr,
		     uint64_t addr, uint64_t len, unsigned int access,
		     const char *what)
{
	uint32_t old = mw->rkey;
	struct ibv_wc wc;
	int s, err;
	bool ok;

	s = bind1(i, mw, mr, addr, len, access, &err, &wc);
	ok = !err && s == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW &&
	     mw->rkey != old;
	vt_check(ok, "%s: ibv_bind_mw of %llu bytes, access 0x%x: %d, completion %s, opcode %d, rkey 0x%x -> 0x%x",
		 what, (unsigned long long)len, access, err, st(s),
		 s == IBV_WC_SUCCESS ? (int)wc.opcode : -1, old, mw->rkey);
	if (s != IBV_WC_SUCCESS && s != NO_POST)
		pair_reset(i);
	return ok;
}

static struct ibv_mw *mw1;	/* the type 1 window of checks 10 and 12 */

/* 1: both types allocate, with different rkeys. */
static void check_alloc(void)
{
	struct ibv_mw *mw2;
	int err;

	mw1 = ibv_alloc_mw(dw.pd, IBV_MW_TYPE_1);
	vt_check(mw1 && mw1->type == IBV_MW_TYPE_1,
		 "1 alloc: ibv_alloc_mw type 1: %s, rkey 0x%x",
		 mw1 ? "allocated" : vt_errname(errno), mw1 ? mw1->rkey : 0);
	mw2 = ibv_alloc_mw(dw.pd, IBV_MW_TYPE_2);
	vt_check(mw2 && mw2->type == IBV_MW_TYPE_2,
		 "1 alloc: ibv_alloc_mw type 2: %s, rkey 0x%x",
		 mw2 ? "allocated" : vt_errname(errno), mw2 ? mw2->rkey : 0);
	if (mw1 && mw2)
		vt_check(mw1->rkey != mw2->rkey, "1 alloc: the rkeys differ");
	if (mw2) {
		err = ibv_dealloc_mw(mw2);
		vt_check(!err, "1 alloc: ibv_dealloc_mw of an unbound window: %d",
			 err);
	}
}

/* 2: a VA-based type 2 window: its range only. */
static void check_va(void)
{
	const char *w = "2 VA window [4096, 12288)";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_mw *mw;

	mw = window2(0, rw.mr, base + 4096, 8192, RW, w);
	if (!mw)
		return;
	expect_write(0, &rw, 4096, 8192, base + 4096, mw->rkey, w);
	expect_read(0, &rw, 4096, 8192, base + 4096, mw->rkey, w);
	expect_denied(0, &rw, 4095, 1, base + 4095, mw->rkey, true,
		      "2 VA window: 1 byte just before its start");
	ibv_dealloc_mw(mw);
	/* A fresh window: whether a window outlives its QP's RESET is not checked. */
	mw = window2(0, rw.mr, base + 4096, 8192, RW, w);
	if (!mw)
		return;
	expect_denied(0, &rw, 12287, 2, base + 12287, mw->rkey, true,
		      "2 VA window: 2 bytes ending 1 past its end");
	ibv_dealloc_mw(mw);
}

/* 3: a zero-based type 2 window: remote address 0 is its start. */
static void check_zero_based(void)
{
	const char *w = "3 zero-based window [4096, 8192)";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_mw *mw;

	mw = window2(0, rw.mr, base + 4096, 4096, RW | IBV_ACCESS_ZERO_BASED, w);
	if (!mw)
		return;
	expect_write(0, &rw, 4096, 16, 0, mw->rkey, "3 zero-based window: at 0");
	expect_write(0, &rw, 4196, 16, 100, mw->rkey,
		     "3 zero-based window: at 100");
	expect_read(0, &rw, 4196, 16, 100, mw->rkey,
		    "3 zero-based window: at 100");
	expect_denied(0, &rw, 8192, 16, 4096, mw->rkey, true,
		      "3 zero-based window: at 4096, past its end");
	ibv_dealloc_mw(mw);
}

/* 4: the window's rights, not the MR's. */
static void check_rights(void)
{
	const char *w = "4 read-only window";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_mw *mw;

	mw = window2(0, rw.mr, base + 4096, 4096, IBV_ACCESS_REMOTE_READ, w);
	if (!mw)
		return;
	expect_read(0, &rw, 4096, 4096, base + 4096, mw->rkey, w);
	expect_denied(0, &rw, 4096, 64, base + 4096, mw->rkey, false, w);
	ibv_dealloc_mw(mw);
}

/* 5: LOCAL_INV ends a type 2 window; a rebind gives it a new key. */
static void check_local_inv(void)
{
	const char *w = "5 invalidated window";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t key;
	int s;

	mw = window2(0, rw.mr, base + 4096, 4096, RW, w);
	if (!mw)
		return;
	key = mw->rkey;
	expect_write(0, &rw, 4096, 64, base + 4096, key,
		     "5 invalidated window: before LOCAL_INV");
	s = local_inv(0, key, &wc);
	vt_check(s == IBV_WC_SUCCESS && wc.opcode == IBV_WC_LOCAL_INV,
		 "5 invalidated window: LOCAL_INV of 0x%x: %s, opcode %d", key,
		 st(s), s == IBV_WC_SUCCESS ? (int)wc.opcode : -1);
	if (s != IBV_WC_SUCCESS)
		pair_reset(0);
	expect_denied(0, &rw, 4096, 64, base + 4096, key, false,
		      "5 invalidated window: after LOCAL_INV");
	if (bind2_ok(0, mw, rw.mr, base + 4096, 4096, RW,
		     "5 invalidated window: rebound with the next key tag")) {
		expect_write(0, &rw, 4096, 64, base + 4096, mw->rkey,
			     "5 rebound window: the new key");
		expect_denied(0, &rw, 4096, 64, base + 4096, key, false,
			      "5 rebound window: the old key");
	}
	ibv_dealloc_mw(mw);
}

/* 6: P's SEND_WITH_INV ends a type 2 window of W's. */
static void check_remote_inv(void)
{
	const char *w = "6 remotely invalidated window";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_sge rsge = {
		.addr = (uintptr_t)wrecv,
		.length = RECV_LEN,
		.lkey = wrecv_mr->lkey,
	}, ssge = {
		.addr = (uintptr_t)pbuf,
		.length = 16,
		.lkey = pmr->lkey,
	};
	struct ibv_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = {
		.sg_list = &ssge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV,
	};
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t key;
	bool got, inv;
	int s;

	mw = window2(0, rw.mr, base + 4096, 4096, RW, w);
	if (!mw)
		return;
	key = mw->rkey;
	rwr.wr_id = next_wr_id++;
	if (ibv_post_recv(wq[0], &rwr, &rbad))
		vt_die("ibv_post_recv");
	memset(pbuf, 0x5a, 16);
	swr.invalidate_rkey = key;
	s = post_wait(&dp, pq[0], &swr, &wc);
	vt_check(s == IBV_WC_SUCCESS, "%s: P's SEND_WITH_INV of 0x%x: %s", w,
		 key, st(s));
	got = wait_wc(&dw, rwr.wr_id, &wc);
	inv = got && (wc.wc_flags & IBV_WC_WITH_INV);
	/*
	 * rxe writes the kernel's IB_WC_WITH_INVALIDATE (1 << 2) into a user
	 * CQ, which is IBV_WC_IP_CSUM_OK in libibverbs, not IBV_WC_WITH_INV
	 * (1 << 3).  rxe sets bit 2 for nothing else.
	 */
	if (got && !inv && w_rxe && (wc.wc_flags & IBV_WC_IP_CSUM_OK)) {
		printf("note: rxe reports the invalidation in wc_flags as 0x%x (the kernel's IB_WC_WITH_INVALIDATE), not IBV_WC_WITH_INV (0x%x)\n",
		       IBV_WC_IP_CSUM_OK, IBV_WC_WITH_INV);
		inv = true;
	}
	vt_check(got && wc.status == IBV_WC_SUCCESS &&
		 wc.opcode == IBV_WC_RECV && inv &&
		 wc.invalidated_rkey == key && wc.byte_len == 16,
		 "%s: W's receive: %s, opcode %d, byte_len %u, wc_flags 0x%x, invalidated_rkey 0x%x",
		 w, got ? ibv_wc_status_str(wc.status) : "no completion",
		 got ? (int)wc.opcode : -1, got ? wc.byte_len : 0,
		 got ? wc.wc_flags : 0, got ? wc.invalidated_rkey : 0);
	if (s != IBV_WC_SUCCESS || !got || wc.status != IBV_WC_SUCCESS)
		pair_reset(0);
	expect_denied(0, &rw, 4096, 64, base + 4096, key, false,
		      "6 remotely invalidated window: after SEND_WITH_INV");
	ibv_dealloc_mw(mw);
}

/* 7: a type 2 window works through the QP that bound it only. */
static void check_qp_bound(void)
{
	const char *w = "7 window bound on QP pair 0";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_mw *mw;

	mw = window2(0, rw.mr, base + 4096, 4096, RW, w);
	if (!mw)
		return;
	expect_write(0, &rw, 4096, 64, base + 4096, mw->rkey,
		     "7 window bound on QP pair 0: through QP pair 0");
	expect_denied(1, &rw, 4096, 64, base + 4096, mw->rkey, false,
		      "7 window bound on QP pair 0: through QP pair 1");
	ibv_dealloc_mw(mw);
}

/* 8: ibv_dealloc_mw ends a bound window. */
static void check_dealloc(void)
{
	const char *w = "8 deallocated window";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_mw *mw;
	uint32_t key;
	int err;

	mw = window2(0, rw.mr, base + 4096, 4096, RW, w);
	if (!mw)
		return;
	key = mw->rkey;
	expect_write(0, &rw, 4096, 64, base + 4096, key,
		     "8 deallocated window: before ibv_dealloc_mw");
	err = ibv_dealloc_mw(mw);
	vt_check(!err, "%s: ibv_dealloc_mw of a bound window: %d", w, err);
	expect_denied(0, &rw, 4096, 64, base + 4096, key, false,
		      "8 deallocated window: after ibv_dealloc_mw");
}

/* 9: an MR with a bound window stays until the window goes. */
static void check_dereg(void)
{
	const char *w = "9 window on a second MR";
	struct ibv_mw *mw;
	uint64_t base;
	int err;

	region_init(&r9, 11);
	base = (uintptr_t)r9.buf;
	mw = window2(0, r9.mr, base, 4096, RW, w);
	if (!mw)
		return;
	err = ibv_dereg_mr(r9.mr);
	vt_check(err == EBUSY || err == EINVAL,
		 "%s: ibv_dereg_mr of the MR refused: %s", w,
		 err ? vt_errname(err) : "0, deregistered");
	if (!err) {
		r9.mr = NULL;
		ibv_dealloc_mw(mw);
		return;
	}
	expect_write(0, &r9, 0, 256, base, mw->rkey,
		     "9 window on a second MR: after the refused dereg");
	err = ibv_dealloc_mw(mw);
	vt_check(!err, "%s: ibv_dealloc_mw: %d", w, err);
	err = ibv_dereg_mr(r9.mr);
	vt_check(!err, "%s: ibv_dereg_mr once the window is gone: %s", w,
		 err ? vt_errname(err) : "0");
	if (!err)
		r9.mr = NULL;
}

/* 10: a type 1 window through ibv_bind_mw: bind, rebind, unbind. */
static void check_type1(void)
{
	const char *w = "10 type 1 window";
	uint64_t base = (uintptr_t)rw.buf;
	uint32_t k1, k2, k3, old;
	struct ibv_wc wc;
	int s, err, n;

	if (!mw1)
		return;
	if (!bind1_ok(0, mw1, rw.mr, base, 4096, IBV_ACCESS_REMOTE_WRITE, w))
		return;
	k1 = mw1->rkey;
	expect_write(0, &rw, 0, 64, base, k1,
		     "10 type 1 window [0, 4096): through QP pair 0");
	/* Type 1 belongs to the PD, not to a QP. */
	expect_write(1, &rw, 64, 64, base + 64, k1,
		     "10 type 1 window [0, 4096): through QP pair 1");
	if (!bind1_ok(0, mw1, rw.mr, base + 8192, 4096,
		      IBV_ACCESS_REMOTE_WRITE, "10 type 1 window: rebound"))
		return;
	k2 = mw1->rkey;
	expect_write(0, &rw, 8192, 64, base + 8192, k2,
		     "10 type 1 window rebound [8192, 12288): the new key");
	expect_denied(0, &rw, 0, 64, base, k1, false,
		      "10 type 1 window rebound: the previous key");
	if (!bind1_ok(0, mw1, rw.mr, base, 0, 0,
		      "10 type 1 window: unbound (length 0)"))
		return;
	k3 = mw1->rkey;
	expect_denied(0, &rw, 8192, 64, base + 8192, k2, false,
		      "10 type 1 window unbound: the key it had");
	expect_denied(0, &rw, 8192, 64, base + 8192, k3, false,
		      "10 type 1 window unbound: the key the unbind gave");
	old = mw1->rkey;
	s = bind1(0, mw1, rw.mr, base, 4096, RW | IBV_ACCESS_ZERO_BASED, &err,
		  &wc);
	n = s == NO_POST ? quiet_for(&dw, 200) : 1;
	vt_check(err == EINVAL && !n && mw1->rkey == old,
		 "10 type 1 window: ibv_bind_mw with IBV_ACCESS_ZERO_BASED: %s, %d completions, rkey %s",
		 err ? vt_errname(err) : "0", n,
		 mw1->rkey == old ? "unchanged" : "changed");
	if (s != NO_POST && s != IBV_WC_SUCCESS)
		pair_reset(0);
}

/* 11: binds the specification forbids complete with IBV_WC_MW_BIND_ERR. */
static void check_bind_errors(void)
{
	uint64_t base = (uintptr_t)rw.buf, xb = (uintptr_t)xbuf;
	struct ibv_mr *nolw, *nobind, *other;
	struct ibv_pd *pd2;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	int err, s, n;

	expect_bind_err(rw.mr, base + 8192, BUF_LEN, RW,
			"11 bind error: a window past the MR's end");
	expect_bind_err(rw.mr, base - 4096, 8192, RW,
			"11 bind error: a window starting before the MR");

	nolw = ibv_reg_mr(dw.pd, xbuf, BUF_LEN, IBV_ACCESS_MW_BIND);
	if (!nolw)
		vt_die("ibv_reg_mr MW_BIND");
	expect_bind_err(nolw, xb, 4096, IBV_ACCESS_REMOTE_WRITE,
			"11 bind error: REMOTE_WRITE on an MR without LOCAL_WRITE");
	/* The same MR takes a read-only window. */
	mw = window2(0, nolw, xb, 4096, IBV_ACCESS_REMOTE_READ,
		     "11 REMOTE_READ window on the MR without LOCAL_WRITE");
	if (mw)
		ibv_dealloc_mw(mw);

	nobind = ibv_reg_mr(dw.pd, xbuf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!nobind)
		vt_die("ibv_reg_mr LOCAL_WRITE");
	expect_bind_err(nobind, xb, 4096, RW,
			"11 bind error: an MR without MW_BIND");

	mw = window2(0, rw.mr, base + 4096, 4096, RW,
		     "11 type 2 window bound once");
	if (mw) {
		s = bind2(0, mw, rw.mr, base + 4096, 4096, RW, &wc);
		vt_check(s == IBV_WC_MW_BIND_ERR ||
			 rxe_flushed(s, "a type 2 window already bound"),
			 "11 bind error: a type 2 window already bound: %s",
			 st(s));
		if (s != IBV_WC_SUCCESS)
			pair_reset(0);
		ibv_dealloc_mw(mw);
	}

	pd2 = ibv_alloc_pd(dw.ctx);
	if (!pd2)
		vt_die("ibv_alloc_pd");
	other = ibv_reg_mr(pd2, xbuf, BUF_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	if (!other)
		vt_die("ibv_reg_mr in a second PD");
	expect_bind_err(other, xb, 4096, RW,
			"11 bind error: an MR of another PD");
	if (mw1) {
		/* libibverbs' ibv_bind_mw checks this itself. */
		s = bind1(0, mw1, other, xb, 4096, RW, &err, &wc);
		n = s == NO_POST ? quiet_for(&dw, 200) : 1;
		vt_check(err == EPERM && !n,
			 "11 type 1 window: ibv_bind_mw to an MR of another PD: %s, %d completions",
			 err ? vt_errname(err) : "0", n);
		if (s != NO_POST && s != IBV_WC_SUCCESS)
			pair_reset(0);
	}
	if (ibv_dereg_mr(other) || ibv_dereg_mr(nobind) || ibv_dereg_mr(nolw) ||
	    ibv_dealloc_pd(pd2))
		vt_die("dereg the bind-error MRs");
}

/* 12: LOCAL_INV cannot end a type 1 window. */
static void check_type1_local_inv(void)
{
	const char *w = "12 type 1 window";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_wc wc;
	uint32_t key;
	int s, err;

	if (!mw1)
		return;
	if (!bind1_ok(0, mw1, rw.mr, base, 4096, IBV_ACCESS_REMOTE_WRITE, w))
		return;
	key = mw1->rkey;
	s = local_inv(0, key, &wc);
	vt_check((s >= 0 && s != IBV_WC_SUCCESS &&
		  s != IBV_WC_WR_FLUSH_ERR) ||
		 rxe_flushed(s, "LOCAL_INV of a type 1 window"),
		 "%s: LOCAL_INV of its rkey 0x%x: an error completion (%s)", w,
		 key, st(s));
	if (s != IBV_WC_SUCCESS)
		pair_reset(0);
	expect_write(0, &rw, 128, 64, base + 128, key,
		     "12 type 1 window: still bound after the LOCAL_INV");
	err = ibv_dealloc_mw(mw1);
	vt_check(!err, "%s: ibv_dealloc_mw of a bound type 1 window: %d", w,
		 err);
	mw1 = NULL;
}

/*
 * 13: a QP destroyed while a type 2 window it bound is still bound: the
 * QP that takes its place (even with the same number) does not inherit
 * the window, and the window still deallocates.  Not on rxe, whose QP
 * destruction waits for such windows and then oopses (rxe 6.12).
 */
static void check_qp_destroy_bound(void)
{
	const char *w = "13 window of a destroyed QP";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_mw *mw;

	if (w_rxe)
		return;
	mw = window2(0, rw.mr, base + 4096, 4096, RW, w);
	if (!mw)
		return;
	vt_check(!ibv_destroy_qp(wq[0]), "%s: ibv_destroy_qp", w);
	ibv_destroy_qp(pq[0]);
	wq[0] = qp_new(&dw);
	pq[0] = qp_new(&dp);
	pair_connect(0);
	expect_denied(0, &rw, 4096, 64, base + 4096, mw->rkey, false,
		      "13 window of a destroyed QP: through its successor");
	vt_check(!ibv_dealloc_mw(mw), "%s: ibv_dealloc_mw", w);
}

/*
 * 14: the process ends with windows of both types bound and their MR
 * registered: the kernel's cleanup of the context takes them down (the
 * scenario then deletes the device; kmemleak and the kernel log judge).
 */
static void exit_with_windows(void)
{
	const char *w = "14 exit with bound windows";
	uint64_t base = (uintptr_t)rw.buf;
	struct ibv_mw *m1;

	if (!window2(1, rw.mr, base, 4096, RW, w))
		return;
	m1 = ibv_alloc_mw(dw.pd, IBV_MW_TYPE_1);
	vt_check(m1 && bind1_ok(1, m1, rw.mr, base + 8192, 4096, RW, w),
		 "%s: both bound, exiting without cleanup", w);
	printf("mw_check: %d checks, %d failures\n", vt_checks, vt_failures);
	exit(vt_failures ? 1 : 0);
}

int main(int argc, char **argv)
{
	uint64_t t0 = vt_now_ms();
	int i;

	vt_dev_args(argc, argv,
		    "usage: %s DEV_W GIDX_W DEV_P GIDX_P\n"
		    "  DEV_W owns the memory and its windows, DEV_P accesses them\n",
		    64, &dw, &dp);
	w_rxe = !strncmp(ibv_get_device_name(dw.ctx->device), "rxe", 3);
	printf("mw_check: windows on %s (gid index %d), accessed by %s (gid index %d)\n",
	       dw.name, dw.gidx, dp.name, dp.gidx);

	region_init(&rw, 3);
	wrecv = buf_new(4096);
	xbuf = buf_new(BUF_LEN);
	pbuf = buf_new(BUF_LEN);
	wrecv_mr = ibv_reg_mr(dw.pd, wrecv, 4096, IBV_ACCESS_LOCAL_WRITE);
	pmr = ibv_reg_mr(dp.pd, pbuf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	if (!wrecv_mr || !pmr)
		vt_die("ibv_reg_mr");
	for (i = 0; i < NPAIR; i++) {
		wq[i] = qp_new(&dw);
		pq[i] = qp_new(&dp);
		pair_connect(i);
	}

	/* Without a window, W's MR is closed to P. */
	expect_denied(0, &rw, 0, 64, (uintptr_t)rw.buf, rw.mr->rkey, false,
		      "0 the MR's own rkey (no remote access)");

	check_alloc();
	check_va();
	check_zero_based();
	check_rights();
	check_local_inv();
	check_remote_inv();
	check_qp_bound();
	check_dealloc();
	check_dereg();
	check_type1();
	check_bind_errors();
	check_type1_local_inv();
	check_qp_destroy_bound();
	if (!w_rxe && getenv("MW_CHECK_EXIT_BOUND"))
		exit_with_windows();

	for (i = 0; i < NPAIR; i++) {
		ibv_destroy_qp(wq[i]);
		ibv_destroy_qp(pq[i]);
	}
	if (mw1)
		ibv_dealloc_mw(mw1);
	if (r9.mr)
		ibv_dereg_mr(r9.mr);
	ibv_dereg_mr(rw.mr);
	ibv_dereg_mr(wrecv_mr);
	ibv_dereg_mr(pmr);
	ibv_destroy_cq(dw.cq);
	ibv_destroy_cq(dp.cq);
	ibv_dealloc_pd(dw.pd);
	ibv_dealloc_pd(dp.pd);
	ibv_close_device(dw.ctx);
	ibv_close_device(dp.ctx);
	printf("mw_check: %d checks, %d failures, %llu ms\n", vt_checks,
	       vt_failures, (unsigned long long)(vt_now_ms() - t0));
	return vt_failures ? 1 : 0;
}
