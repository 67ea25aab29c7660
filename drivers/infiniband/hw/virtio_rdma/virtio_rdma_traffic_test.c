// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * KUnit suite virtio_rdma_traffic: RoCEv2 traffic between two QPs of a
 * virtio_rdma ib_device (default virtio_rdma0) through the kernel verbs
 * API.  The packets leave through the device's netdev (lo in the scenario
 * kernel-traffic) and come back through its UDP socket, so every case
 * runs requester, responder and completer on the wire.
 *
 * Skips when the device does not exist or has no RoCEv2 IPv4 GID.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/virtio_rdma.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *ibdev = "virtio_rdma0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device to test");
static char *faults = "";
module_param(faults, charp, 0444);
MODULE_PARM_DESC(faults,
		 "The device's fault-injection directory (vdpa_rdma: /sys/bus/vdpa/devices/NAME/faults), for the cases that need a buggy device");

#define VTT_BUF		16384
#define VTT_WAIT_MS	5000
/* 256 packets at MTU 1024: twice the device's largest send window */
#define VTT_BIG		SZ_256K

struct vtt {
	struct ib_device *ib;
	struct ib_pd *pd;
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];
	u8 *buf[3];
	u64 dma[3];
	u32 sgid_index;
	union ib_gid gid;
	bool rtr_only;		/* vtt_pair leaves qp[1] in RTR */
	u8 *big;		/* one message longer than the send window */
	u64 big_dma;
	atomic_t comm_est[2];	/* IB_EVENT_COMM_EST per QP */
};

static int vtt_find_gid(struct vtt *t)
{
	const struct ib_gid_attr *attr;
	int i;

	for (i = 0; i < t->ib->port_data[1].immutable.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(t->ib, 1, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw)) {
			t->sgid_index = i;
			t->gid = attr->gid;
			rdma_put_gid_attr(attr);
			return 0;
		}
		rdma_put_gid_attr(attr);
	}
	return -ENOENT;
}

static int vtt_init(struct kunit *test)
{
	struct vtt *t;
	int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	test->priv = t;
	t->ib = ib_device_get_by_name(ibdev, RDMA_DRIVER_UNKNOWN);
	if (!t->ib)
		kunit_skip(test, "no RDMA device %s", ibdev);
	if (vtt_find_gid(t)) {
		ib_device_put(t->ib);
		t->ib = NULL;
		kunit_skip(test, "%s has no RoCEv2 IPv4 GID", ibdev);
	}
	t->pd = ib_alloc_pd(t->ib, IB_PD_UNSAFE_GLOBAL_RKEY);
	KUNIT_ASSERT_FALSE(test, IS_ERR(t->pd));
	for (i = 0; i < 2; i++) {
		t->cq[i] = ib_alloc_cq(t->ib, NULL, 64, 0, IB_POLL_DIRECT);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t->cq[i]));
	}
	for (i = 0; i < 3; i++) {
		t->buf[i] = kzalloc(VTT_BUF, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, t->buf[i]);
		t->dma[i] = ib_dma_map_single(t->ib, t->buf[i], VTT_BUF,
					      DMA_BIDIRECTIONAL);
		KUNIT_ASSERT_FALSE(test, ib_dma_mapping_error(t->ib,
							      t->dma[i]));
	}
	return 0;
}

static void vtt_exit(struct kunit *test)
{
	struct vtt *t = test->priv;
	int i;

	if (!t || !t->ib)
		return;
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(t->qp[i]))
			ib_destroy_qp(t->qp[i]);
	for (i = 0; i < 3; i++) {
		if (t->buf[i])
			ib_dma_unmap_single(t->ib, t->dma[i], VTT_BUF,
					    DMA_BIDIRECTIONAL);
		kfree(t->buf[i]);
	}
	if (t->big) {
		ib_dma_unmap_single(t->ib, t->big_dma, VTT_BIG, DMA_TO_DEVICE);
		kfree(t->big);
	}
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(t->cq[i]))
			ib_free_cq(t->cq[i]);
	if (!IS_ERR_OR_NULL(t->pd))
		ib_dealloc_pd(t->pd);
	ib_device_put(t->ib);
}

static void vtt_ah(struct vtt *t, struct rdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, 1);
	rdma_ah_set_grh(ah, &t->gid, 0, t->sgid_index, 64, 0);
}

static void vtt_qp_event(struct ib_event *ev, void *ctx)
{
	struct vtt *t = ctx;

	if (ev->event == IB_EVENT_COMM_EST)
		atomic_inc(&t->comm_est[ev->element.qp == t->qp[1]]);
}

/* Two QPs of @type connected to each other (UD: only brought to RTS). */
static void vtt_pair(struct kunit *test, enum ib_qp_type type, u8 rnr_retry,
		     u8 timeout, u8 retry_cnt)
{
	struct vtt *t = test->priv;
	struct ib_qp_init_attr init = { };
	struct ib_qp_attr a;
	int i, mask;

	init.qp_type = type;
	init.event_handler = vtt_qp_event;
	init.qp_context = t;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.cap.max_send_wr = 16;
	init.cap.max_recv_wr = 16;
	init.cap.max_send_sge = 2;
	init.cap.max_recv_sge = 2;
	for (i = 0; i < 2; i++) {
		init.send_cq = t->cq[i];
		init.recv_cq = t->cq[i];
		t->qp[i] = ib_create_qp(t->pd, &init);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t->qp[i]));
	}
	for (i = 0; i < 2; i++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IB_QPS_INIT;
		a.pkey_index = 0;
		a.port_num = 1;
		mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
		if (type == IB_QPT_UD) {
			a.qkey = 0x1234;
			mask |= IB_QP_QKEY;
		} else {
			a.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
					    IB_ACCESS_REMOTE_READ |
					    IB_ACCESS_REMOTE_ATOMIC;
			mask |= IB_QP_ACCESS_FLAGS;
		}
		KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[i], &a, mask), 0);

		memset(&a, 0, sizeof(a));
		a.qp_state = IB_QPS_RTR;
		mask = IB_QP_STATE;
		if (type != IB_QPT_UD) {
			vtt_ah(t, &a.ah_attr);
			a.path_mtu = IB_MTU_1024;
			a.dest_qp_num = t->qp[!i]->qp_num;
			a.rq_psn = 100 + !i;
			mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				IB_QP_RQ_PSN;
			if (type == IB_QPT_RC) {
				a.max_dest_rd_atomic = 4;
				a.min_rnr_timer = 1;
				mask |= IB_QP_MAX_DEST_RD_ATOMIC |
					IB_QP_MIN_RNR_TIMER;
			}
		}
		KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[i], &a, mask), 0);
		if (i == 1 && t->rtr_only)
			break;

		memset(&a, 0, sizeof(a));
		a.qp_state = IB_QPS_RTS;
		a.sq_psn = 100 + i;
		mask = IB_QP_STATE | IB_QP_SQ_PSN;
		if (type == IB_QPT_RC) {
			a.timeout = timeout;
			a.retry_cnt = retry_cnt;
			a.rnr_retry = rnr_retry;
			a.max_rd_atomic = 4;
			mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC;
		}
		KUNIT_ASSERT_EQ(test, ib_modify_qp(t->qp[i], &a, mask), 0);
	}
}

static int vtt_poll(struct vtt *t, int i, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(VTT_WAIT_MS);
	int n;

	for (;;) {
		n = ib_poll_cq(t->cq[i], 1, wc);
		if (n || time_after(jiffies, end))
			return n;
		usleep_range(100, 500);
	}
}

static void vtt_post_recv(struct kunit *test, int q, int b, u32 off, u32 len,
			  u64 wr_id)
{
	struct vtt *t = test->priv;
	const struct ib_recv_wr *bad;
	struct ib_sge sge = {
		.addr = t->dma[b] + off,
		.length = len,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	};

	KUNIT_ASSERT_EQ(test, ib_post_recv(t->qp[q], &wr, &bad), 0);
}

static void vtt_post_rdma(struct kunit *test, int q, enum ib_wr_opcode op,
			  int b, u32 len, u64 raddr, u32 rkey, u32 lkey,
			  u64 wr_id)
{
	struct vtt *t = test->priv;
	const struct ib_send_wr *bad;
	struct ib_sge sge = {
		.addr = t->dma[b], .length = len, .lkey = lkey,
	};
	struct ib_rdma_wr wr = { };

	wr.wr.wr_id = wr_id;
	wr.wr.opcode = op;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.wr.ex.imm_data = cpu_to_be32(0xabcd);
	wr.remote_addr = raddr;
	wr.rkey = rkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[q], &wr.wr, &bad), 0);
}

static void vtt_expect_wc(struct kunit *test, int i, u64 wr_id,
			  enum ib_wc_status status, enum ib_wc_opcode op,
			  u32 len)
{
	struct vtt *t = test->priv;
	struct ib_wc wc;

	KUNIT_ASSERT_EQ(test, vtt_poll(t, i, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, wr_id);
	KUNIT_EXPECT_EQ(test, wc.status, status);
	if (status != IB_WC_SUCCESS)
		return;
	KUNIT_EXPECT_EQ(test, wc.opcode, op);
	if (len != U32_MAX)
		KUNIT_EXPECT_EQ(test, wc.byte_len, len);
}

static void vtt_fill(struct vtt *t, int b, u32 len, u8 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		t->buf[b][i] = seed + i * 7;
}

static void vtt_rc_send(struct kunit *test)
{
	struct vtt *t = test->priv;
	u32 len = 3000;	/* three packets at 1024 */

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	vtt_fill(t, 0, len, 1);
	vtt_post_recv(test, 1, 1, 0, VTT_BUF, 11);
	vtt_post_rdma(test, 0, IB_WR_SEND, 0, len, 0, 0,
		      t->pd->local_dma_lkey, 10);
	vtt_expect_wc(test, 0, 10, IB_WC_SUCCESS, IB_WC_SEND, U32_MAX);
	vtt_expect_wc(test, 1, 11, IB_WC_SUCCESS, IB_WC_RECV, len);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], len), 0);
}

/*
 * A responder still in RTR accepts the requests of its RTS peer, and its
 * first packet raises COMM_EST, which ib_cm uses when the RTU was lost.
 */
static void vtt_rc_comm_est(struct kunit *test)
{
	struct vtt *t = test->priv;
	unsigned long end = jiffies + msecs_to_jiffies(VTT_WAIT_MS);
	struct ib_qp_attr a;
	struct ib_qp_init_attr init;

	t->rtr_only = true;
	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	vtt_fill(t, 0, 100, 3);
	vtt_post_recv(test, 1, 1, 0, VTT_BUF, 21);
	vtt_post_rdma(test, 0, IB_WR_SEND, 0, 100, 0, 0,
		      t->pd->local_dma_lkey, 20);
	vtt_expect_wc(test, 0, 20, IB_WC_SUCCESS, IB_WC_SEND, U32_MAX);
	vtt_expect_wc(test, 1, 21, IB_WC_SUCCESS, IB_WC_RECV, 100);
	while (!atomic_read(&t->comm_est[1]) && time_before(jiffies, end))
		usleep_range(100, 500);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->comm_est[1]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->comm_est[0]), 0);
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[1], &a, IB_QP_STATE, &init),
			0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_RTR);
}

/* Writes @val to the device's fault knob @name; the write's result. */
static ssize_t vtt_fault_write(struct kunit *test, const char *name,
			       const char *val)
{
	char path[256];
	struct file *f;
	loff_t pos = 0;
	ssize_t ret;

	if (!*faults)
		kunit_skip(test, "no fault injection (module parameter faults)");
	snprintf(path, sizeof(path), "%s/%s", faults, name);
	f = filp_open(path, O_WRONLY, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f), "cannot open %s", path);
	ret = kernel_write(f, val, strlen(val), &pos);
	filp_close(f, NULL);
	return ret;
}

/* Writes @val to the device's fault knob @name (vdpa_rdma's vdr_faults.c). */
static void vtt_fault(struct kunit *test, const char *name, u64 val)
{
	char buf[24];

	scnprintf(buf, sizeof(buf), "%llu\n", val);
	KUNIT_EXPECT_EQ(test, vtt_fault_write(test, name, buf),
			(ssize_t)strlen(buf));
}

/*
 * The port counter @name as "rdma statistic" reads it (the driver's own
 * count of what it rejected from the device is "device_errors"); -1 if the
 * device has no such counter.
 */
static s64 vtt_counter(struct kunit *test, const char *name)
{
	struct vtt *t = test->priv;
	struct rdma_hw_stats *s;
	s64 val = -1;
	int i;

	if (!t->ib->ops.alloc_hw_port_stats || !t->ib->ops.get_hw_stats)
		return -1;
	s = t->ib->ops.alloc_hw_port_stats(t->ib, 1);
	KUNIT_ASSERT_NOT_NULL(test, s);
	mutex_lock(&s->lock);
	if (t->ib->ops.get_hw_stats(t->ib, s, 1, s->num_counters) > 0) {
		for (i = 0; i < s->num_counters; i++)
			if (!strcmp(s->descs[i].name, name))
				val = s->value[i];
	}
	mutex_unlock(&s->lock);
	rdma_free_hw_stats_struct(s);
	return val;
}

/* The device_errors counter, once it has reached @want (VTT_WAIT_MS). */
static s64 vtt_dev_errors(struct kunit *test, s64 want)
{
	unsigned long end = jiffies + msecs_to_jiffies(VTT_WAIT_MS);
	s64 n;

	for (;;) {
		n = vtt_counter(test, "device_errors");
		if (n >= want || n < 0 || time_after(jiffies, end))
			return n;
		usleep_range(1000, 2000);
	}
}

/*
 * A buggy device writes a CQE into CQ 0 that names the QP of CQ 1: poll_cq
 * must not hand that QP out (its destroy fences only its own CQs' pollers)
 * and the next completion is ordinary.
 */
static void vtt_cqe_foreign_qp(struct kunit *test)
{
	struct vtt *t = test->priv;
	u32 rkey = t->pd->unsafe_global_rkey;
	u32 lkey = t->pd->local_dma_lkey;
	struct ib_wc wc;
	int n;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	/* A WRITE makes one CQE, the requester's, in CQ 0. */
	vtt_fault(test, "cqe_qp_handle", t->qp[1]->qp_num);
	vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, 64, t->dma[1], rkey, lkey,
		      30);
	msleep(200);
	n = ib_poll_cq(t->cq[0], 1, &wc);
	if (n == 1)
		KUNIT_EXPECT_PTR_NE_MSG(test, wc.qp, t->qp[1],
					"CQ 0 handed out QP %u of CQ 1",
					t->qp[1]->qp_num);
	vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, 64, t->dma[1], rkey, lkey,
		      31);
	KUNIT_ASSERT_EQ(test, vtt_poll(t, 0, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 31);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, t->qp[0]);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
}

/*
 * A CQE whose wr_id the device made up: the driver gave it a token (queue
 * and slot), and one that names no slot of the QP is dropped and counted,
 * never handed to the consumer as its wr_id (an ib_cqe pointer for most
 * kernel consumers).  Then a slot past the SQ's depth.
 */
static void vtt_cqe_bad_wr_id(struct kunit *test)
{
	struct vtt *t = test->priv;
	u32 rkey = t->pd->unsafe_global_rkey;
	u32 lkey = t->pd->local_dma_lkey;
	u64 bad[] = { 0xdead0000beefULL, 1ULL << 32 | 4096 };
	struct ib_wc wc;
	s64 errs;
	int i;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	errs = vtt_counter(test, "device_errors");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		vtt_fault(test, "cqe_wr_id", bad[i]);
		vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, 64, t->dma[1], rkey,
			      lkey, 40 + i);
		vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, 64, t->dma[1], rkey,
			      lkey, 50 + i);
		KUNIT_ASSERT_EQ(test, vtt_poll(t, 0, &wc), 1);
		KUNIT_EXPECT_EQ_MSG(test, wc.wr_id, 50 + i,
				    "the CQE with wr_id %#llx reached the consumer",
				    bad[i]);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	}
	KUNIT_EXPECT_EQ(test, vtt_dev_errors(test, errs + 2), errs + 2);
}

/*
 * A receive CQE whose byte_len is more than the buffer posted: it
 * completes with IB_WC_LOC_LEN_ERR (the consumer must not read past its
 * buffer); the next receive is ordinary.  The send is unsignaled, so the
 * receive's CQE is the only one the fault can land on.
 */
static void vtt_cqe_long_recv(struct kunit *test)
{
	struct vtt *t = test->priv;
	struct ib_sge sge = {
		.addr = t->dma[0], .length = 100, .lkey = t->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = 60, .opcode = IB_WR_SEND, .sg_list = &sge, .num_sge = 1,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc;
	s64 errs;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	errs = vtt_counter(test, "device_errors");
	vtt_post_recv(test, 1, 1, 0, 100, 61);
	vtt_fault(test, "cqe_byte_len", 5000);
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[0], &wr, &bad), 0);
	KUNIT_ASSERT_EQ(test, vtt_poll(t, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 61);
	KUNIT_EXPECT_EQ_MSG(test, wc.status, IB_WC_LOC_LEN_ERR,
			    "a receive of %u bytes into 100 completed with status %d",
			    wc.byte_len, wc.status);

	vtt_post_recv(test, 1, 1, 0, 100, 63);
	vtt_post_rdma(test, 0, IB_WR_SEND, 0, 100, 0, 0,
		      t->pd->local_dma_lkey, 62);
	vtt_expect_wc(test, 0, 62, IB_WC_SUCCESS, IB_WC_SEND, U32_MAX);
	vtt_expect_wc(test, 1, 63, IB_WC_SUCCESS, IB_WC_RECV, 100);
	KUNIT_EXPECT_EQ(test, vtt_dev_errors(test, errs + 1), errs + 1);
}

/* A successful CQE with an unknown opcode, then an unknown status. */
static void vtt_cqe_bad_op_status(struct kunit *test)
{
	struct vtt *t = test->priv;
	u32 rkey = t->pd->unsafe_global_rkey;
	u32 lkey = t->pd->local_dma_lkey;
	static const char * const knob[] = { "cqe_opcode", "cqe_status" };
	s64 errs;
	int i;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	errs = vtt_counter(test, "device_errors");
	for (i = 0; i < ARRAY_SIZE(knob); i++) {
		vtt_fault(test, knob[i], 200);
		vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, 64, t->dma[1], rkey,
			      lkey, 70 + i);
		vtt_expect_wc(test, 0, 70 + i, IB_WC_GENERAL_ERR, 0, 0);
	}
	vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, 64, t->dma[1], rkey, lkey,
		      72);
	vtt_expect_wc(test, 0, 72, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, U32_MAX);
	KUNIT_EXPECT_EQ(test, vtt_dev_errors(test, errs + 2), errs + 2);
}

/* Raises an event through the fault knob, once the last one went out. */
static void vtt_event(struct kunit *test, u32 type, u32 handle)
{
	unsigned long end = jiffies + msecs_to_jiffies(VTT_WAIT_MS);
	char buf[32];
	ssize_t ret;

	scnprintf(buf, sizeof(buf), "%u %u\n", type, handle);
	for (;;) {
		ret = vtt_fault_write(test, "event", buf);
		if (ret != -EBUSY || time_after(jiffies, end))
			break;
		usleep_range(1000, 2000);
	}
	KUNIT_EXPECT_EQ_MSG(test, ret, (ssize_t)strlen(buf), "event %s", buf);
}

/*
 * Events naming no CQ, QP or SRQ the driver knows are ignored, as the spec
 * requires (they may follow a destroy); an event of a type no spec defines
 * is the device's error, counted, and not taken as fatal for the QP it
 * names.  The QP still works.
 */
static void vtt_event_bogus(struct kunit *test)
{
	struct vtt *t = test->priv;
	u32 rkey = t->pd->unsafe_global_rkey;
	u32 lkey = t->pd->local_dma_lkey;
	struct ib_qp_init_attr init;
	struct ib_qp_attr a;
	s64 errs;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	errs = vtt_counter(test, "device_errors");
	vtt_event(test, VIRTIO_RDMA_EVENT_COMP, 0x7fffffff);
	vtt_event(test, VIRTIO_RDMA_EVENT_CQ_ERR, 0);
	vtt_event(test, VIRTIO_RDMA_EVENT_QP_FATAL, 0xffffff);
	vtt_event(test, VIRTIO_RDMA_EVENT_QP_FATAL, U32_MAX);
	vtt_event(test, VIRTIO_RDMA_EVENT_SRQ_LIMIT_REACHED, 12345);
	vtt_event(test, 999, t->qp[0]->qp_num);
	KUNIT_EXPECT_EQ(test, vtt_dev_errors(test, errs + 1), errs + 1);
	KUNIT_ASSERT_EQ(test, ib_query_qp(t->qp[0], &a, IB_QP_STATE, &init), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_RTS);
	vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, 64, t->dma[1], rkey, lkey,
		      80);
	vtt_expect_wc(test, 0, 80, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, U32_MAX);
}

/*
 * A create command whose response names the handle of a live QP: the
 * create fails and the live QP is left alone (a destroy of its handle
 * would take it from the device) and still moves data.  The device now
 * holds a QP the driver cannot name, and is marked broken: later commands
 * fail.  So this case runs last, and the handles the spec rules out (0, a
 * QPN of 25 bits), which break the device the same way, have none here.
 */
static void vtt_resp_bad_handle(struct kunit *test)
{
	struct vtt *t = test->priv;
	u32 rkey = t->pd->unsafe_global_rkey;
	u32 lkey = t->pd->local_dma_lkey;
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.send_cq = t->cq[0],
		.recv_cq = t->cq[0],
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ib_pd *pd;
	struct ib_qp *qp;
	s64 errs;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	errs = vtt_counter(test, "device_errors");
	vtt_fault(test, "resp_handle", t->qp[0]->qp_num);
	qp = ib_create_qp(t->pd, &init);
	KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(qp), "a second QP of handle %u",
			      t->qp[0]->qp_num);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	KUNIT_EXPECT_EQ(test, vtt_dev_errors(test, errs + 1), errs + 1);

	vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, 64, t->dma[1], rkey, lkey,
		      90);
	vtt_expect_wc(test, 0, 90, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, U32_MAX);

	pd = ib_alloc_pd(t->ib, 0);
	KUNIT_EXPECT_TRUE_MSG(test, IS_ERR(pd),
			      "a PD of a device marked broken");
	if (!IS_ERR(pd))
		ib_dealloc_pd(pd);
}

static void vtt_rc_write_read(struct kunit *test)
{
	struct vtt *t = test->priv;
	u32 rkey = t->pd->unsafe_global_rkey;
	u32 lkey = t->pd->local_dma_lkey;
	u32 len = 5000;
	struct ib_wc wc;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	vtt_fill(t, 0, len, 3);
	vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, len, t->dma[1], rkey,
		      lkey, 20);
	vtt_expect_wc(test, 0, 20, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, U32_MAX);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], len), 0);

	vtt_post_rdma(test, 0, IB_WR_RDMA_READ, 2, len, t->dma[1], rkey,
		      lkey, 21);
	vtt_expect_wc(test, 0, 21, IB_WC_SUCCESS, IB_WC_RDMA_READ, len);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[2], len), 0);

	/* WRITE_WITH_IMM consumes a receive on the peer. */
	vtt_post_recv(test, 1, 2, 0, 16, 23);
	vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE_WITH_IMM, 0, 100, t->dma[1],
		      rkey, lkey, 22);
	vtt_expect_wc(test, 0, 22, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, U32_MAX);
	KUNIT_ASSERT_EQ(test, vtt_poll(t, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV_RDMA_WITH_IMM);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xabcd);
}

static void vtt_rc_atomic(struct kunit *test)
{
	struct vtt *t = test->priv;
	const struct ib_send_wr *bad;
	struct ib_atomic_wr wr = { };
	struct ib_sge sge = {
		.addr = t->dma[0], .length = 8,
		.lkey = t->pd->local_dma_lkey,
	};
	u64 *remote = (u64 *)t->buf[1];
	struct ib_reg_wr reg = { };
	struct scatterlist sg;
	struct ib_mr *mr;

	if (!(t->ib->attrs.atomic_cap))
		kunit_skip(test, "no atomics");
	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	/* The PD's global rkey has no atomic right: fast-register one. */
	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, VTT_BUF / PAGE_SIZE + 1);
	KUNIT_ASSERT_FALSE(test, IS_ERR(mr));
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = t->dma[1];
	sg_dma_len(&sg) = VTT_BUF;
	KUNIT_ASSERT_EQ(test, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1);
	reg.wr.wr_id = 29;
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = mr;
	reg.key = mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[1], &reg.wr, &bad), 0);
	vtt_expect_wc(test, 1, 29, IB_WC_SUCCESS, IB_WC_REG_MR, U32_MAX);
	*remote = 40;
	wr.wr.wr_id = 30;
	wr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.remote_addr = mr->iova;
	wr.rkey = mr->rkey;
	wr.compare_add = 2;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[0], &wr.wr, &bad), 0);
	vtt_expect_wc(test, 0, 30, IB_WC_SUCCESS, IB_WC_FETCH_ADD, 8);
	KUNIT_EXPECT_EQ(test, *(u64 *)t->buf[0], 40);
	KUNIT_EXPECT_EQ(test, *remote, 42);

	wr.wr.wr_id = 31;
	wr.wr.opcode = IB_WR_ATOMIC_CMP_AND_SWP;
	wr.compare_add = 42;
	wr.swap = 7;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[0], &wr.wr, &bad), 0);
	vtt_expect_wc(test, 0, 31, IB_WC_SUCCESS, IB_WC_COMP_SWAP, 8);
	KUNIT_EXPECT_EQ(test, *(u64 *)t->buf[0], 42);
	KUNIT_EXPECT_EQ(test, *remote, 7);
	ib_destroy_qp(t->qp[1]);
	t->qp[1] = NULL;
	ib_dereg_mr(mr);
}

static void vtt_uc_send(struct kunit *test)
{
	struct vtt *t = test->priv;
	u32 len = 2500;

	vtt_pair(test, IB_QPT_UC, 0, 0, 0);
	vtt_fill(t, 0, len, 5);
	vtt_post_recv(test, 1, 1, 0, VTT_BUF, 41);
	vtt_post_rdma(test, 0, IB_WR_SEND, 0, len, 0, 0,
		      t->pd->local_dma_lkey, 40);
	vtt_expect_wc(test, 0, 40, IB_WC_SUCCESS, IB_WC_SEND, U32_MAX);
	vtt_expect_wc(test, 1, 41, IB_WC_SUCCESS, IB_WC_RECV, len);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1], len), 0);
}

static void vtt_ud_send(struct kunit *test)
{
	struct vtt *t = test->priv;
	const struct ib_send_wr *bad;
	struct rdma_ah_attr aha;
	struct ib_ud_wr wr = { };
	struct ib_sge sge = {
		.addr = t->dma[0], .length = 200,
		.lkey = t->pd->local_dma_lkey,
	};
	struct ib_wc wc;
	struct ib_ah *ah;

	vtt_pair(test, IB_QPT_UD, 0, 0, 0);
	vtt_ah(t, &aha);
	ah = rdma_create_ah(t->pd, &aha, RDMA_CREATE_AH_SLEEPABLE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
	vtt_fill(t, 0, 200, 9);
	vtt_post_recv(test, 1, 1, 0, 1024, 51);
	wr.wr.wr_id = 50;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.ah = ah;
	wr.remote_qpn = t->qp[1]->qp_num;
	wr.remote_qkey = 0x1234;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[0], &wr.wr, &bad), 0);
	vtt_expect_wc(test, 0, 50, IB_WC_SUCCESS, IB_WC_SEND, U32_MAX);
	KUNIT_ASSERT_EQ(test, vtt_poll(t, 1, &wc), 1);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 240);
	KUNIT_EXPECT_EQ(test, wc.src_qp, t->qp[0]->qp_num);
	KUNIT_EXPECT_TRUE(test, wc.wc_flags & IB_WC_GRH);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf[0], t->buf[1] + 40, 200), 0);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

static void vtt_err_bad_rkey(struct kunit *test)
{
	struct vtt *t = test->priv;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	vtt_post_rdma(test, 0, IB_WR_RDMA_WRITE, 0, 64, t->dma[1],
		      t->pd->unsafe_global_rkey ^ 0x100, t->pd->local_dma_lkey,
		      60);
	vtt_expect_wc(test, 0, 60, IB_WC_REM_ACCESS_ERR, 0, 0);
}

static void vtt_err_bad_lkey(struct kunit *test)
{
	struct vtt *t = test->priv;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	vtt_post_rdma(test, 0, IB_WR_SEND, 0, 64, 0, 0,
		      t->pd->local_dma_lkey ^ 0x100, 61);
	vtt_expect_wc(test, 0, 61, IB_WC_LOC_PROT_ERR, 0, 0);
}

static void vtt_err_rnr(struct kunit *test)
{
	struct vtt *t = test->priv;

	vtt_pair(test, IB_QPT_RC, 0, 14, 7);
	vtt_post_rdma(test, 0, IB_WR_SEND, 0, 64, 0, 0,
		      t->pd->local_dma_lkey, 62);
	vtt_expect_wc(test, 0, 62, IB_WC_RNR_RETRY_EXC_ERR, 0, 0);
}

static void vtt_err_retry(struct kunit *test)
{
	struct vtt *t = test->priv;

	vtt_pair(test, IB_QPT_RC, 7, 8, 2);
	KUNIT_ASSERT_EQ(test, ib_destroy_qp(t->qp[1]), 0);
	t->qp[1] = NULL;
	vtt_post_rdma(test, 0, IB_WR_SEND, 0, 64, 0, 0,
		      t->pd->local_dma_lkey, 63);
	vtt_expect_wc(test, 0, 63, IB_WC_RETRY_EXC_ERR, 0, 0);
}

/*
 * The window stops a long message part-way; with every packet lost, the
 * retransmission timer must still be running for it (it used to be armed
 * only by a message's last packet), so the retries run out.
 */
static void vtt_err_retry_window(struct kunit *test)
{
	struct vtt *t = test->priv;
	const struct ib_send_wr *bad;
	struct ib_sge sge = { .length = VTT_BIG };
	struct ib_send_wr wr = {
		.wr_id = 64, .opcode = IB_WR_SEND, .sg_list = &sge,
		.num_sge = 1, .send_flags = IB_SEND_SIGNALED,
	};

	t->big = kzalloc(VTT_BIG, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->big);
	t->big_dma = ib_dma_map_single(t->ib, t->big, VTT_BIG, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(t->ib, t->big_dma)) {
		kfree(t->big);
		t->big = NULL;
		KUNIT_FAIL(test, "DMA mapping of %u bytes failed", VTT_BIG);
		return;
	}
	vtt_pair(test, IB_QPT_RC, 7, 8, 2);
	KUNIT_ASSERT_EQ(test, ib_destroy_qp(t->qp[1]), 0);
	t->qp[1] = NULL;
	sge.addr = t->big_dma;
	sge.lkey = t->pd->local_dma_lkey;
	KUNIT_ASSERT_EQ(test, ib_post_send(t->qp[0], &wr, &bad), 0);
	vtt_expect_wc(test, 0, 64, IB_WC_RETRY_EXC_ERR, 0, 0);
}

/*
 * ib_resize_cq on the receive CQ with completions in it: grown while
 * messages arrive, refused below the unpolled count, shrunk to exactly
 * it; every receive completes once, in order.  The responder writes a
 * receive's CQE before it acknowledges the message, so once a send has
 * completed its receive's CQE is in the receive CQ.
 */
#define VTT_RESIZE_N	12

static void vtt_post_sends(struct kunit *test, int first, int n)
{
	struct vtt *t = test->priv;
	int i;

	for (i = first; i < first + n; i++) {
		vtt_post_recv(test, 1, 1, 0, 64, 1000 + i);
		vtt_post_rdma(test, 0, IB_WR_SEND, 0, 8, 0, 0,
			      t->pd->local_dma_lkey, i);
	}
}

static void vtt_cq_resize(struct kunit *test)
{
	struct vtt *t = test->priv;
	struct ib_cq *cq = t->cq[1];
	struct ib_wc wc;
	int i;

	vtt_pair(test, IB_QPT_RC, 7, 14, 7);
	vtt_post_sends(test, 0, VTT_RESIZE_N);
	/* Grow while the device is writing receive CQEs. */
	KUNIT_ASSERT_EQ(test, ib_resize_cq(cq, 200), 0);
	KUNIT_EXPECT_EQ(test, cq->cqe, 256);
	for (i = 0; i < VTT_RESIZE_N; i++)
		vtt_expect_wc(test, 0, i, IB_WC_SUCCESS, IB_WC_SEND, U32_MAX);

	/* 12 unpolled: a depth of 8 cannot hold them; nothing changes. */
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, cq->cqe, 256);
	for (i = 0; i < 5; i++)
		vtt_expect_wc(test, 1, 1000 + i, IB_WC_SUCCESS, IB_WC_RECV, 8);
	/* 7 unpolled fit 8 (7 rounded up); then fill the ring exactly. */
	KUNIT_ASSERT_EQ(test, ib_resize_cq(cq, 7), 0);
	KUNIT_EXPECT_EQ(test, cq->cqe, 8);
	vtt_post_sends(test, VTT_RESIZE_N, 1);
	vtt_expect_wc(test, 0, VTT_RESIZE_N, IB_WC_SUCCESS, IB_WC_SEND,
		      U32_MAX);

	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ib_resize_cq(cq, t->ib->attrs.max_cqe + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cq->cqe, 8);
	for (i = 5; i <= VTT_RESIZE_N; i++)
		vtt_expect_wc(test, 1, 1000 + i, IB_WC_SUCCESS, IB_WC_RECV, 8);
	KUNIT_EXPECT_EQ(test, ib_poll_cq(cq, 1, &wc), 0);

	/* Still a working CQ: grow it empty, and one more message. */
	KUNIT_ASSERT_EQ(test, ib_resize_cq(cq, 64), 0);
	vtt_post_sends(test, VTT_RESIZE_N + 1, 1);
	vtt_expect_wc(test, 0, VTT_RESIZE_N + 1, IB_WC_SUCCESS, IB_WC_SEND,
		      U32_MAX);
	vtt_expect_wc(test, 1, 1000 + VTT_RESIZE_N + 1, IB_WC_SUCCESS,
		      IB_WC_RECV, 8);
}

static struct kunit_case vtt_cases[] = {
	KUNIT_CASE(vtt_rc_send),
	KUNIT_CASE(vtt_rc_comm_est),
	KUNIT_CASE(vtt_rc_write_read),
	KUNIT_CASE(vtt_rc_atomic),
	KUNIT_CASE(vtt_uc_send),
	KUNIT_CASE(vtt_ud_send),
	KUNIT_CASE(vtt_err_bad_rkey),
	KUNIT_CASE(vtt_err_bad_lkey),
	KUNIT_CASE(vtt_err_rnr),
	KUNIT_CASE(vtt_err_retry),
	KUNIT_CASE(vtt_err_retry_window),
	KUNIT_CASE(vtt_cq_resize),
	KUNIT_CASE(vtt_cqe_foreign_qp),
	KUNIT_CASE(vtt_cqe_bad_wr_id),
	KUNIT_CASE(vtt_cqe_long_recv),
	KUNIT_CASE(vtt_cqe_bad_op_status),
	KUNIT_CASE(vtt_event_bogus),
	/* Last: it leaves the device marked broken. */
	KUNIT_CASE(vtt_resp_bad_handle),
	{}
};

static struct kunit_suite vtt_suite = {
	.name = "virtio_rdma_traffic",
	.init = vtt_init,
	.exit = vtt_exit,
	.test_cases = vtt_cases,
};

kunit_test_suite(vtt_suite);

MODULE_DESCRIPTION("KUnit: RoCEv2 traffic through a virtio_rdma device");
MODULE_LICENSE("GPL");
