// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * lat_probe: a small RC ping-pong timed per iteration, and the loads it is
 * measured beside (scenarios fairness and soak).
 *
 *   lat_probe pingpong DEV_A GIDX_A DEV_B GIDX_B ITERS [SIZE]
 *	QP x on DEV_A and QP y on DEV_B, one process: x SENDs SIZE bytes
 *	(default 64), y answers with as many, ITERS times.  Prints
 *	"pingpong: N iters, us per iteration: min .. p50 .. p90 .. p99 ..
 *	max .. mean .." (one iteration is a round trip).
 *
 *   lat_probe flood DEV GIDX SECONDS
 *	Rings the SQ doorbell of an RC QP in RTS whose SQ is empty, as fast
 *	as it can, for SECONDS (or until SIGTERM); prints the count.
 *
 *   lat_probe read DEV_A GIDX_A DEV_B GIDX_B SECONDS [SIZE [DEPTH]]
 *	A bulk READ stream: an RC QP on DEV_B reads SIZE bytes (default
 *	8 MiB) of an MR on DEV_A, DEPTH READs (default 2) outstanding, for
 *	SECONDS (or until SIGTERM), sleeping on completion events in between
 *	(it leaves the CPU to the others).  Prints the count and MB/s.
 *
 *   lat_probe flush DEV GIDX SECONDS [DEPTH]
 *	Over and over for SECONDS (or until SIGTERM): an RC QP with DEPTH
 *	(default max_qp_wr) receives posted and DEPTH SENDs stalled by a
 *	peer that has no receive (RNR, retried forever) is moved to ERR and
 *	all its flushed completions are polled.  Prints rounds and CQEs.
 *
 * Exit status 0, or 1 with a line "FAIL: ...".
 */
#include "scale_common.h"

#include <signal.h>

#include <infiniband/virtio_rdmadv.h>

#define MAX_SIZE	4096
#define NWC		64

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* Stop at SIGTERM or when @end (us) has passed. */
static bool done(uint64_t end)
{
	return stop || now_us() >= end;
}

static struct ibv_mr *buf_mr(struct sdev *d, size_t len, int access)
{
	void *buf = aligned_alloc(4096, len);
	struct ibv_mr *mr;

	if (!buf)
		vt_die("aligned_alloc");
	memset(buf, 0, len);
	mr = ibv_reg_mr(d->pd, buf, len, IBV_ACCESS_LOCAL_WRITE | access);
	if (!mr)
		vt_die("ibv_reg_mr");
	return mr;
}

static void mr_free(struct ibv_mr *mr)
{
	void *buf = mr->addr;

	if (ibv_dereg_mr(mr))
		vt_die("ibv_dereg_mr");
	free(buf);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int pingpong_main(char **argv, int argc)
{
	struct sdev a, b;
	struct ibv_cq *xs, *xr, *ys, *yr;
	struct ibv_qp *x, *y;
	struct ibv_mr *xm, *ym;
	struct ibv_wc wc[NWC];
	int iters = atoi(argv[4]);
	int size = argc > 5 ? atoi(argv[5]) : 64;
	int i, xout = 0, yout = 0;
	uint64_t *t, t0, sum = 0, tsum;

	if (iters < 1 || size < 1 || size > MAX_SIZE) {
		fprintf(stderr, "pingpong: ITERS >= 1, 1 <= SIZE <= %d\n", MAX_SIZE);
		return 2;
	}
	t = calloc(iters, sizeof(*t));
	if (!t)
		vt_die("calloc");
	sdev_open(&a, argv[0], atoi(argv[1]));
	sdev_open(&b, argv[2], atoi(argv[3]));
	xs = ibv_create_cq(a.ctx, 64, NULL, NULL, 0);
	xr = ibv_create_cq(a.ctx, 64, NULL, NULL, 0);
	ys = ibv_create_cq(b.ctx, 64, NULL, NULL, 0);
	yr = ibv_create_cq(b.ctx, 64, NULL, NULL, 0);
	if (!xs || !xr || !ys || !yr)
		vt_die("ibv_create_cq");
	x = rc_qp_new(&a, xs, xr, 16, 16);
	y = rc_qp_new(&b, ys, yr, 16, 16);
	if (!x || !y)
		vt_die("ibv_create_qp");
	rc_pair(x, &a, y, &b, 1);
	xm = buf_mr(&a, 2 * MAX_SIZE, 0);
	ym = buf_mr(&b, 2 * MAX_SIZE, 0);
	post_recv(x, 0, (uint8_t *)xm->addr + MAX_SIZE, size, xm->lkey);
	post_recv(y, 0, (uint8_t *)ym->addr + MAX_SIZE, size, ym->lkey);
	for (i = 0; i < iters; i++) {
		/* Send completions are reaped when the SQ would fill. */
		while (xout >= 8)
			xout -= poll_some(xs, wc, NWC, "x's SEND");
		while (yout >= 8)
			yout -= poll_some(ys, wc, NWC, "y's SEND");
		t0 = now_us();
		post_send(x, i, IBV_WR_SEND, xm->addr, size, xm->lkey, 0, 0);
		xout++;
		poll_some(yr, wc, 1, "y's receive");
		post_recv(y, 0, (uint8_t *)ym->addr + MAX_SIZE, size, ym->lkey);
		post_send(y, i, IBV_WR_SEND, ym->addr, size, ym->lkey, 0, 0);
		yout++;
		poll_some(xr, wc, 1, "x's receive");
		post_recv(x, 0, (uint8_t *)xm->addr + MAX_SIZE, size, xm->lkey);
		t[i] = now_us() - t0;
		sum += t[i];
	}
	while (xout > 0)
		xout -= poll_some(xs, wc, NWC, "x's SEND");
	while (yout > 0)
		yout -= poll_some(ys, wc, NWC, "y's SEND");
	qsort(t, iters, sizeof(*t), cmp_u64);
	/*
	 * tmean, the mean of the fastest 99%: a delay that lasts shows in it,
	 * a vCPU the host took away for 100 ms once (TCG on a busy host) not.
	 */
	for (i = 0, tsum = 0; i < iters - iters / 100; i++)
		tsum += t[i];
	printf("pingpong: %d iters of %d B, us per iteration: min %llu p50 %llu p90 %llu p99 %llu max %llu mean %llu tmean %llu\n",
	       iters, size, (unsigned long long)t[0],
	       (unsigned long long)t[iters / 2],
	       (unsigned long long)t[iters * 9 / 10],
	       (unsigned long long)t[iters * 99 / 100],
	       (unsigned long long)t[iters - 1],
	       (unsigned long long)(sum / iters),
	       (unsigned long long)(tsum / (iters - iters / 100)));
	if (ibv_destroy_qp(x) || ibv_destroy_qp(y) || ibv_destroy_cq(xs) ||
	    ibv_destroy_cq(xr) || ibv_destroy_cq(ys) || ibv_destroy_cq(yr))
		vt_die("teardown");
	mr_free(xm);
	mr_free(ym);
	sdev_close(&a);
	sdev_close(&b);
	free(t);
	return 0;
}

static int flood_main(char **argv)
{
	struct sdev d;
	struct ibv_cq *cq;
	struct ibv_qp *x, *y;
	uint64_t end, n = 0, t0;
	int err;

	sdev_open(&d, argv[0], atoi(argv[1]));
	cq = ibv_create_cq(d.ctx, 16, NULL, NULL, 0);
	if (!cq)
		vt_die("ibv_create_cq");
	x = rc_qp_new(&d, cq, cq, 1, 1);
	y = rc_qp_new(&d, cq, cq, 1, 1);
	if (!x || !y)
		vt_die("ibv_create_qp");
	rc_pair(x, &d, y, &d, 1);
	printf("flood: ringing QP %u's doorbell\n", x->qp_num);
	t0 = now_us();
	end = t0 + strtoull(argv[2], NULL, 0) * 1000000;
	while (!done(end)) {
		err = virtio_rdmadv_ring_doorbell(x, VIRTIO_RDMADV_SQ);
		if (err) {
			errno = err;
			vt_die("virtio_rdmadv_ring_doorbell");
		}
		n++;
	}
	printf("flood: %llu doorbells in %.1f s\n", (unsigned long long)n,
	       (now_us() - t0) / 1e6);
	if (ibv_destroy_qp(x) || ibv_destroy_qp(y) || ibv_destroy_cq(cq))
		vt_die("teardown");
	sdev_close(&d);
	return 0;
}

/* The next completion of @cq, sleeping on @ch for it (WAIT_MS at most). */
static void wait_event(struct ibv_cq *cq, struct ibv_comp_channel *ch,
		       struct ibv_wc *wc)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			vt_die("ibv_poll_cq");
		if (n)
			break;
		if (ibv_req_notify_cq(cq, 0))
			vt_die("ibv_req_notify_cq");
		/* What completed before the arm is not announced: look again. */
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			vt_die("ibv_poll_cq");
		if (n)
			break;
		/* SIGTERM interrupts the wait: the READs in flight finish. */
		do {
			n = poll(&pfd, 1, WAIT_MS);
		} while (n < 0 && errno == EINTR);
		if (n != 1) {
			printf("FAIL: no completion event in %d ms\n", WAIT_MS);
			exit(1);
		}
		if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
			vt_die("ibv_get_cq_event");
		ibv_ack_cq_events(ev_cq, 1);
	}
	if (wc->status != IBV_WC_SUCCESS)
		die_wc("a READ", wc);
}

static int read_main(char **argv, int argc)
{
	struct sdev a, b;
	struct ibv_comp_channel *ch;
	struct ibv_cq *xcq, *ycq;
	struct ibv_qp *x, *y;
	struct ibv_mr *xm, *ym;
	struct ibv_wc wc;
	size_t size = argc > 5 ? strtoull(argv[5], NULL, 0) : 8 << 20;
	int depth = argc > 6 ? atoi(argv[6]) : 2;
	uint64_t end, t0, n = 0;
	int out = 0;

	if (depth < 1 || depth > 16 || !size || size > (1U << 30)) {
		fprintf(stderr, "read: 1 <= DEPTH <= 16, 1 <= SIZE <= 1 GiB\n");
		return 2;
	}
	sdev_open(&a, argv[0], atoi(argv[1]));
	sdev_open(&b, argv[2], atoi(argv[3]));
	ch = ibv_create_comp_channel(b.ctx);
	xcq = ibv_create_cq(a.ctx, 16, NULL, NULL, 0);
	ycq = ibv_create_cq(b.ctx, 32, NULL, ch, 0);
	if (!ch || !xcq || !ycq)
		vt_die("CQs");
	x = rc_qp_new(&a, xcq, xcq, 16, 1);
	y = rc_qp_new(&b, ycq, ycq, 16, 1);
	if (!x || !y)
		vt_die("ibv_create_qp");
	rc_pair(x, &a, y, &b, 1);
	xm = buf_mr(&a, size, IBV_ACCESS_REMOTE_READ);
	ym = buf_mr(&b, size, 0);
	printf("read: QP %u reads %zu bytes at a time from QP %u\n", y->qp_num,
	       size, x->qp_num);
	t0 = now_us();
	end = t0 + strtoull(argv[4], NULL, 0) * 1000000;
	while (!done(end) || out) {
		while (out < depth && !done(end)) {
			post_send(y, n, IBV_WR_RDMA_READ, ym->addr, size,
				  ym->lkey, (uintptr_t)xm->addr, xm->rkey);
			out++;
		}
		wait_event(ycq, ch, &wc);
		out--;
		n++;
	}
	printf("read: %llu READs of %zu bytes in %.1f s, %.1f MB/s\n",
	       (unsigned long long)n, size, (now_us() - t0) / 1e6,
	       n * size / (double)(now_us() - t0));
	if (ibv_destroy_qp(x) || ibv_destroy_qp(y) || ibv_destroy_cq(xcq) ||
	    ibv_destroy_cq(ycq) || ibv_destroy_comp_channel(ch))
		vt_die("teardown");
	mr_free(xm);
	mr_free(ym);
	sdev_close(&a);
	sdev_close(&b);
	return 0;
}

/* One round of flush: returns how many CQEs the move to ERR produced. */
static int flush_round(struct sdev *d, struct ibv_mr *mr, int depth)
{
	struct ibv_qp_attr err_attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_cq *cq, *pcq;
	struct ibv_qp *x, *y;
	struct ibv_wc wc[NWC];
	uint64_t end;
	int i, n, got = 0;

	cq = ibv_create_cq(d->ctx, 2 * depth, NULL, NULL, 0);
	pcq = ibv_create_cq(d->ctx, 16, NULL, NULL, 0);
	if (!cq || !pcq)
		vt_die("ibv_create_cq");
	x = rc_qp_new(d, cq, cq, depth, depth);
	y = rc_qp_new(d, pcq, pcq, 1, 1);
	if (!x || !y)
		vt_die("ibv_create_qp");
	/* y has no receive and asks for 491 ms between RNR retries. */
	rc_pair(x, d, y, d, 31);
	for (i = 0; i < depth; i++)
		post_recv(x, i, mr->addr, 64, mr->lkey);
	for (i = 0; i < depth; i++)
		post_send(x, i, IBV_WR_SEND, mr->addr, 64, mr->lkey, 0, 0);
	errno = ibv_modify_qp(x, &err_attr, IBV_QP_STATE);
	if (errno)
		vt_die("ibv_modify_qp ERR");
	end = now_us() + WAIT_MS * 1000ULL;
	while (got < 2 * depth && now_us() < end) {
		n = ibv_poll_cq(cq, NWC, wc);
		if (n < 0)
			vt_die("ibv_poll_cq");
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
				die_wc("a flushed WR", &wc[i]);
		got += n;
	}
	if (got != 2 * depth) {
		printf("FAIL: flush: %d of %d WRs flushed in %d ms\n", got,
		       2 * depth, WAIT_MS);
		exit(1);
	}
	if (ibv_destroy_qp(x) || ibv_destroy_qp(y) || ibv_destroy_cq(cq) ||
	    ibv_destroy_cq(pcq))
		vt_die("teardown");
	return got;
}

static int flush_main(char **argv, int argc)
{
	struct sdev d;
	struct ibv_mr *mr;
	uint64_t end, t0, cqes = 0;
	int depth, rounds = 0;

	sdev_open(&d, argv[0], atoi(argv[1]));
	depth = argc > 3 ? atoi(argv[3]) : d.attr.max_qp_wr;
	mr = buf_mr(&d, 4096, 0);
	printf("flush: QPs of %d SENDs and %d receives moved to ERR, one after another\n",
	       depth, depth);
	t0 = now_us();
	end = t0 + strtoull(argv[2], NULL, 0) * 1000000;
	while (!done(end)) {
		cqes += flush_round(&d, mr, depth);
		rounds++;
	}
	printf("flush: %d rounds of a QP with %d SENDs and %d receives moved to ERR, %llu CQEs in %.1f s\n",
	       rounds, depth, depth, (unsigned long long)cqes,
	       (now_us() - t0) / 1e6);
	mr_free(mr);
	sdev_close(&d);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_term);
	if ((argc == 7 || argc == 8) && !strcmp(argv[1], "pingpong"))
		return pingpong_main(argv + 2, argc - 2);
	if (argc == 5 && !strcmp(argv[1], "flood"))
		return flood_main(argv + 2);
	if (argc >= 7 && argc <= 9 && !strcmp(argv[1], "read"))
		return read_main(argv + 2, argc - 2);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "flush"))
		return flush_main(argv + 2, argc - 2);
	fprintf(stderr, "usage: %s pingpong DEV_A GIDX_A DEV_B GIDX_B ITERS [SIZE]\n"
		"       %s flood DEV GIDX SECONDS\n"
		"       %s read DEV_A GIDX_A DEV_B GIDX_B SECONDS [SIZE [DEPTH]]\n"
		"       %s flush DEV GIDX SECONDS [DEPTH]\n",
		argv[0], argv[0], argv[0], argv[0]);
	return 2;
}
