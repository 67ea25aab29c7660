// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * cq_resize DEV GID_INDEX
 *
 * ibv_resize_cq with completions in the CQ, through plain verbs on one
 * device: two RC QPs connected to each other, A sends, B receives into the
 * CQ under test.  The CQ grows while receive completions are still being
 * written, a shrink below the unpolled count fails with EINVAL and leaves
 * the CQ as it was, a shrink to exactly that count works, and every
 * receive's wr_id comes out of ibv_poll_cq exactly once and in order.
 * Then: sizes 0 and above max_cqe fail with EINVAL; the ring stays mapped
 * once (the old mapping goes); an armed CQ raises its completion event
 * after a resize, and an event already raised before a resize is neither
 * lost nor raised twice.  Last, the final ring is polled while this program
 * counts libibverbs' write() and ioctl() calls on the uverbs command fd
 * (it defines both, so the dynamic linker binds libibverbs' calls to them):
 * ibv_poll_cq after a resize needs no system call.
 *
 * The responder writes a receive's CQE before it acknowledges the message,
 * so once a send has completed on A, its receive's CQE is in B's CQ: that
 * is how the test knows what the CQ holds without polling it.
 *
 * Prints one line per check; exits non-zero if any failed.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <infiniband/verbs.h>

#include "vt.h"

#define MSG		64
#define NSLOT		64
#define WAIT_MS		5000
#define BURST		12

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static struct ibv_cq *scq;	/* A's completions */
static struct ibv_cq *cq;	/* the CQ under test: B's receives */
static struct ibv_comp_channel *ch;
static struct ibv_qp *qa, *qb;
static union ibv_gid gid;
static int gidx;
static uint8_t *buf;
static uint64_t next_wr;	/* wr_id of the next message */
static uint64_t next_poll;	/* wr_id the next polled receive must have */

static void qp_connect(struct ibv_qp *qp, uint32_t dqpn)
{
	struct vt_conn c = {
		.dgid = gid,
		.sgid_index = gidx,
		.dqpn = dqpn,
		.psn = 0x100,
	};

	vt_qp_connect(qp, &c);
}

static struct ibv_qp *qp_new(struct ibv_cq *recv_cq)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq,
		.recv_cq = recv_cq,
		.cap = {
			.max_send_wr = 32,
			.max_recv_wr = 32,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	if (!qp)
		vt_die("ibv_create_qp");
	return qp;
}

/* @n messages from A to B, each with its receive posted first. */
static void send_msgs(int n)
{
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_send_wr swr = {}, *sbad;
	struct ibv_sge sge;
	int i;

	for (i = 0; i < n; i++, next_wr++) {
		sge.addr = (uintptr_t)buf + (next_wr % NSLOT) * MSG;
		sge.length = MSG;
		sge.lkey = mr->lkey;
		rwr.wr_id = next_wr;
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		if (ibv_post_recv(qb, &rwr, &rbad))
			vt_die("ibv_post_recv");
		swr.wr_id = next_wr;
		swr.sg_list = &sge;
		swr.num_sge = 1;
		swr.opcode = IBV_WR_SEND;
		swr.send_flags = IBV_SEND_SIGNALED;
		if (ibv_post_send(qa, &swr, &sbad))
			vt_die("ibv_post_send");
	}
}

/* Waits until the last @n sends completed: their receives are in @cq. */
static void wait_sends(int n)
{
	uint64_t end = vt_now_ms() + WAIT_MS;
	struct ibv_wc wc;
	int got = 0, r;

	while (got < n && vt_now_ms() < end) {
		r = ibv_poll_cq(scq, 1, &wc);
		if (r < 0)
			vt_die("ibv_poll_cq (sends)");
		if (r && wc.status != IBV_WC_SUCCESS) {
			printf("FAIL: send %llu: %s\n",
			       (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
			exit(1);
		}
		got += r;
	}
	if (got < n) {
		printf("FAIL: %d of %d sends completed in %d ms\n", got, n,
		       WAIT_MS);
		exit(1);
	}
}

/*
 * Polls @n receives from the CQ under test (in ones and in batches, as
 * applications do) and checks that they are the next @n wr_ids in order.
 */
static void poll_recvs(int n, const char *when)
{
	uint64_t end = vt_now_ms() + WAIT_MS, first = next_poll;
	struct ibv_wc wc[4];
	int got = 0, r, i;
	bool ok = true;

	while (got < n && vt_now_ms() < end) {
		r = ibv_poll_cq(cq, n - got < 4 ? n - got : 4, wc);
		if (r < 0)
			vt_die("ibv_poll_cq");
		for (i = 0; i < r; i++, next_poll++)
			if (wc[i].wr_id != next_poll ||
			    wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].opcode != IBV_WC_RECV) {
				printf("  got wr_id %llu status %s, want %llu\n",
				       (unsigned long long)wc[i].wr_id,
				       ibv_wc_status_str(wc[i].status),
				       (unsigned long long)next_poll);
				ok = false;
			}
		got += r;
	}
	vt_check(ok && got == n, "%s: receives %llu..%llu once each, in order (%d of %d)",
	      when, (unsigned long long)first,
	      (unsigned long long)first + n - 1, got, n);
}

static void expect_empty(const char *when)
{
	struct ibv_wc wc;
	int r = ibv_poll_cq(cq, 1, &wc);

	vt_check(r == 0, "%s: nothing more in the CQ (poll gave %d)", when, r);
}

static int resize(int cqe)
{
	int err = ibv_resize_cq(cq, cqe);

	return err < 0 ? errno : err;
}

/* Lines of /proc/self/maps that map the uverbs device (the rings). */
static int ring_maps(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		vt_die("/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs"))
			n++;
	fclose(f);
	return n;
}

/* Whether a completion event for the CQ arrives within @ms. */
static bool comp_event(int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;

	if (poll(&pfd, 1, ms) <= 0)
		return false;
	if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
		vt_die("ibv_get_cq_event");
	ibv_ack_cq_events(ev_cq, 1);
	return ev_cq == cq;
}

/*
 * libibverbs enters the kernel with write() (legacy commands) and ioctl()
 * on the command fd.  Defined here, they take its calls: count those on
 * the command fd and pass everything on as the system call.
 */
static int counted_fd = -1;
static int fd_calls;

ssize_t write(int fd, const void *data, size_t len)
{
	if (fd == counted_fd)
		fd_calls++;
	return syscall(SYS_write, fd, data, len);
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd == counted_fd)
		fd_calls++;
	return syscall(SYS_ioctl, fd, req, arg);
}

/* Polls the last @n receives, counting system calls on the command fd. */
static void poll_without_syscalls(int n)
{
	struct ibv_device_attr attr;

	counted_fd = ctx->cmd_fd;
	/* The control: a verb that must enter the kernel is counted. */
	fd_calls = 0;
	if (ibv_query_device(ctx, &attr))
		vt_die("ibv_query_device");
	vt_check(fd_calls > 0, "control: ibv_query_device counted %d call(s) on the command fd",
	      fd_calls);
	fd_calls = 0;
	poll_recvs(n, "polled while counting system calls");
	vt_check(fd_calls == 0, "ibv_poll_cq on the resized ring: %d call(s) on the command fd",
	      fd_calls);
	counted_fd = -1;
}

int main(int argc, char **argv)
{
	struct ibv_device_attr attr;
	int err, maps;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DEV GID_INDEX\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	gidx = atoi(argv[2]);
	ctx = vt_open_device(argv[1]);
	if (ibv_query_device(ctx, &attr) || ibv_query_gid(ctx, 1, gidx, &gid))
		vt_die("ibv_query_device/gid");
	pd = ibv_alloc_pd(ctx);
	buf = calloc(NSLOT, MSG);
	if (!pd || !buf)
		vt_die("pd/buf");
	mr = ibv_reg_mr(pd, buf, NSLOT * MSG, IBV_ACCESS_LOCAL_WRITE);
	ch = ibv_create_comp_channel(ctx);
	scq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	cq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	if (!mr || !ch || !scq || !cq)
		vt_die("mr/channel/cq");
	qa = qp_new(scq);
	qb = qp_new(cq);
	qp_connect(qa, qb->qp_num);
	qp_connect(qb, qa->qp_num);
	maps = ring_maps();
	vt_check(cq->cqe == 16, "created with 16 CQEs: cqe %d", cq->cqe);

	/* Grow while the receive CQEs are being written. */
	send_msgs(BURST);
	err = resize(100);
	vt_check(!err && cq->cqe == 128,
	      "grow to 100 with %d receives in flight: %s, cqe %d", BURST,
	      strerror(err), cq->cqe);
	wait_sends(BURST);

	/* BURST unpolled: 8 cannot hold them, and the CQ stays as it was. */
	err = resize(8);
	vt_check(err == EINVAL && cq->cqe == 128,
	      "shrink to 8 below %d unpolled: %s (want EINVAL), cqe %d",
	      BURST, strerror(err), cq->cqe);
	poll_recvs(5, "after the refused shrink");

	/* 7 unpolled: exactly a depth of 8. */
	err = resize(7);
	vt_check(!err && cq->cqe == 8, "shrink to 7 with 7 unpolled: %s, cqe %d",
	      strerror(err), cq->cqe);
	send_msgs(1);
	wait_sends(1);
	err = resize(4);
	vt_check(err == EINVAL && cq->cqe == 8,
	      "shrink a full 8-entry CQ to 4: %s (want EINVAL), cqe %d",
	      strerror(err), cq->cqe);
	poll_recvs(8, "after growing and shrinking");
	expect_empty("after growing and shrinking");

	err = resize(0);
	vt_check(err == EINVAL, "resize to 0: %s (want EINVAL)", strerror(err));
	err = resize(attr.max_cqe + 1);
	vt_check(err == EINVAL, "resize to max_cqe + 1 (%d): %s (want EINVAL)",
	      attr.max_cqe + 1, strerror(err));
	err = resize(attr.max_cqe);
	vt_check(!err && cq->cqe == attr.max_cqe, "resize to max_cqe: %s, cqe %d",
	      strerror(err), cq->cqe);
	vt_check(ring_maps() == maps,
	      "ring mappings after 3 resizes: %d, as before (%d): old ones unmapped",
	      ring_maps(), maps);

	/* Armed across a resize: the next completion raises the event. */
	if (ibv_req_notify_cq(cq, 0))
		vt_die("ibv_req_notify_cq");
	err = resize(32);
	vt_check(!err && cq->cqe == 32, "resize an armed CQ to 32: %s",
	      strerror(err));
	send_msgs(1);
	vt_check(comp_event(WAIT_MS), "completion event after the resize");
	poll_recvs(1, "armed across a resize");

	/* An event raised before a resize: delivered once, not again. */
	if (ibv_req_notify_cq(cq, 0))
		vt_die("ibv_req_notify_cq");
	send_msgs(1);
	wait_sends(1);
	err = resize(64);
	vt_check(!err && cq->cqe == 64, "resize after the event was raised: %s",
	      strerror(err));
	vt_check(comp_event(WAIT_MS), "the event raised before the resize arrives");
	vt_check(!comp_event(300), "and only once");
	poll_recvs(1, "event before a resize");

	/* A last burst on the final ring, polled without re-arming. */
	send_msgs(BURST);
	wait_sends(BURST);
	poll_recvs(BURST, "on the last ring");
	expect_empty("on the last ring");

	/* And once more, counting system calls on the command fd. */
	send_msgs(BURST);
	wait_sends(BURST);
	poll_without_syscalls(BURST);

	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_cq(cq);
	ibv_destroy_cq(scq);
	ibv_destroy_comp_channel(ch);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(buf);
	printf("%s: cq_resize, %d failure(s)\n", vt_failures ? "FAIL" : "ok",
	       vt_failures);
	return vt_failures ? 1 : 0;
}
