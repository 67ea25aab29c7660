// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * The test programs' shared helpers: see vt.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vt.h"

int vt_checks;
int vt_failures;

void vt_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	vt_checks++;
	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		vt_failures++;
}

void vt_die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

const char *vt_errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "?";
}

uint64_t vt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void vt_sleep_us(unsigned int us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

struct ibv_device *vt_find_device(const char *name)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		vt_die("ibv_get_device_list");
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			return list[i];	/* the list stays: it owns the device */
	printf("FAIL: no device %s\n", name);
	exit(1);
}

struct ibv_context *vt_open_device(const char *name)
{
	struct ibv_context *ctx = ibv_open_device(vt_find_device(name));

	if (!ctx)
		vt_die("ibv_open_device");
	return ctx;
}

static void vt_dev_open(struct vt_dev *d, int cqe)
{
	d->ctx = vt_open_device(d->name);
	d->pd = ibv_alloc_pd(d->ctx);
	d->cq = ibv_create_cq(d->ctx, cqe, NULL, NULL, 0);
	if (!d->pd || !d->cq)
		vt_die("pd/cq");
	if (ibv_query_gid(d->ctx, 1, d->gidx, &d->gid))
		vt_die("ibv_query_gid");
}

void vt_dev_args(int argc, char **argv, const char *usage, int cqe,
		 struct vt_dev *x, struct vt_dev *y)
{
	if (argc != 5) {
		fprintf(stderr, usage, argv[0]);
		exit(2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	x->name = argv[1];
	x->gidx = atoi(argv[2]);
	y->name = argv[3];
	y->gidx = atoi(argv[4]);
	vt_dev_open(x, cqe);
	vt_dev_open(y, cqe);
}

int vt_qp_modify(struct ibv_qp *qp, const struct vt_conn *c,
		 enum ibv_qp_state to)
{
	bool ud = qp->qp_type == IBV_QPT_UD, rc = qp->qp_type == IBV_QPT_RC;
	/* An XRC QP is the requester or the responder half of an RC QP. */
	bool ini = rc || qp->qp_type == IBV_QPT_XRC_SEND;
	bool tgt = rc || qp->qp_type == IBV_QPT_XRC_RECV;
	struct ibv_qp_attr a = { .qp_state = to };
	int mask = IBV_QP_STATE;

	switch (to) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qkey = c->qkey;
		a.qp_access_flags = c->access;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			(ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
		break;
	case IBV_QPS_RTR:
		if (!ud) {
			a.path_mtu = IBV_MTU_1024;
			a.dest_qp_num = c->dqpn;
			a.rq_psn = c->psn;
			a.ah_attr.is_global = 1;
			a.ah_attr.grh.dgid = c->dgid;
			a.ah_attr.grh.sgid_index = c->sgid_index;
			a.ah_attr.grh.hop_limit = 1;
			a.ah_attr.port_num = 1;
			mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				IBV_QP_RQ_PSN;
		}
		if (tgt) {
			a.max_dest_rd_atomic = 1;
			a.min_rnr_timer = c->min_rnr_timer ? c->min_rnr_timer : 1;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
		break;
	case IBV_QPS_RTS:
		a.sq_psn = c->psn;
		mask |= IBV_QP_SQ_PSN;
		if (ini || tgt) {
			a.timeout = c->timeout ? c->timeout : 14;
			mask |= IBV_QP_TIMEOUT;
		}
		if (ini) {
			a.retry_cnt = c->retry_cnt ? c->retry_cnt : 7;
			a.rnr_retry = c->rnr_retry ? c->rnr_retry : 7;
			a.max_rd_atomic = 1;
			mask |= IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				IBV_QP_MAX_QP_RD_ATOMIC;
		}
		break;
	default:
		break;
	}
	return ibv_modify_qp(qp, &a, mask);
}

void vt_qp_connect(struct ibv_qp *qp, const struct vt_conn *c)
{
	static const struct {
		enum ibv_qp_state to;
		const char *what;
	} steps[] = {
		{ IBV_QPS_INIT, "modify_qp INIT" },
		{ IBV_QPS_RTR, "modify_qp RTR" },
		{ IBV_QPS_RTS, "modify_qp RTS" },
	};
	unsigned int i;
	int err;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		err = vt_qp_modify(qp, c, steps[i].to);
		if (err) {
			errno = err;
			vt_die(steps[i].what);
		}
	}
}

int vt_post_slots(struct ibv_qp *qp, struct ibv_srq *srq, uint8_t *buf,
		  struct ibv_mr *mr, size_t slot, unsigned int first,
		  unsigned int n)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	unsigned int i;
	int err;

	for (i = first; i < first + n; i++) {
		sge.addr = (uintptr_t)buf + i * slot;
		sge.length = slot;
		sge.lkey = mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		err = srq ? ibv_post_srq_recv(srq, &wr, &bad) :
			    ibv_post_recv(qp, &wr, &bad);
		if (err)
			return err;
	}
	return 0;
}

uint8_t vt_victim_pattern(size_t i)
{
	return (uint8_t)(i * 131 + 17);
}

int vt_victim_main(const char *devname, int out_fd, int in_fd)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	struct vt_victim vi;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t i, bad = 0;
	char c;
	int n;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < (size_t)n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		return 2;
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, VT_VICTIM_LEN);
	if (!pd || !buf)
		return 2;
	for (i = 0; i < VT_VICTIM_LEN; i++)
		buf[i] = vt_victim_pattern(i);
	mr = ibv_reg_mr(pd, buf, VT_VICTIM_LEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		return 2;
	vi.lkey = mr->lkey;
	vi.rkey = mr->rkey;
	vi.addr = (uintptr_t)buf;
	vi.len = VT_VICTIM_LEN;
	if (write(out_fd, &vi, sizeof(vi)) != sizeof(vi))
		return 2;
	/* A byte or EOF: the attacker may have been killed; check either way. */
	if (read(in_fd, &c, 1) < 0)
		return 2;
	for (i = 0; i < VT_VICTIM_LEN; i++) {
		if (buf[i] != vt_victim_pattern(i)) {
			if (!bad)
				printf("FAIL: victim: byte %zu of its MR changed: 0x%02x\n",
				       i, buf[i]);
			bad++;
		}
	}
	if (bad)
		printf("FAIL: victim: %zu bytes of its MR changed\n", bad);
	else
		printf("ok: victim: its %d-byte MR is unchanged\n", VT_VICTIM_LEN);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	free(buf);
	return bad ? 1 : 0;
}
