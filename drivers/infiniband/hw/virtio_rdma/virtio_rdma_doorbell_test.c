// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * KUnit: the driver's doorbell queues (vrdma_event.c) against a fake
 * device that consumes doorbells only when the test says so.
 *
 * The doorbellqs are real split virtqueues (vring_create_virtqueue() on a
 * virtio_device that is never registered, without VIRTIO_F_ACCESS_PLATFORM
 * so that descriptors hold physical addresses); the test plays the device
 * on the ring memory: it reads the available ring, records each doorbell,
 * fills the used ring and interrupts exactly when the driver's flags or
 * used event ask for it, as vringh does in vdpa_rdma.  So it can hold every
 * record in flight, which the real device hardly ever lets happen, and
 * check that a doorbell rung then is owed once, delivered once the device
 * returns a record, and forgotten when its QP is destroyed.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ring.h>

#include "vrdma.h"

#define VR_DB_NUM	4	/* records (descriptors) per doorbellq */
#define VR_DB_LOG	64
#define VR_SQ		VIRTIO_RDMA_DOORBELL_SQ
#define VR_RQ		VIRTIO_RDMA_DOORBELL_RQ

struct vr_db_queue {
	struct virtqueue *vq;
	u16 last_avail;
	unsigned int kicks;
	unsigned int irqs;
	unsigned int nlog;
	struct {
		u32 type;
		u32 handle;
	} log[VR_DB_LOG];
};

struct vr_db_fake {
	struct virtio_device vdev;
	struct vrdma_dev *dev;
	struct vr_db_queue q[2];
};

static struct vr_db_fake *vr_db_fake_of(struct virtqueue *vq)
{
	return container_of(vq->vdev, struct vr_db_fake, vdev);
}

static struct vr_db_queue *vr_db_queue_of(struct virtqueue *vq)
{
	return &vr_db_fake_of(vq)->q[(vq->index - VIRTIO_RDMA_DOORBELLQ(0)) / 2];
}

/* A kick; with event index, the device asks for one on every buffer. */
static bool vr_db_notify(struct virtqueue *vq)
{
	const struct vring *vr = virtqueue_get_vring(vq);

	vring_avail_event(vr) = READ_ONCE(vr->avail->idx);
	vr_db_queue_of(vq)->kicks++;
	return true;
}

static void vr_db_fake_free(void *data)
{
	struct vr_db_fake *f = data;
	unsigned int i;

	/* Warns if a doorbell is still owed: every case drains its queues. */
	vrdma_dbqs_free(f->dev);
	for (i = 0; i < f->dev->npairs; i++)
		if (f->q[i].vq)
			vring_del_virtqueue(f->q[i].vq);
	kfree(f->dev->dbqs);
	kfree(f->dev);
}

/* The driver's state after probe, as far as doorbells go. */
static struct vr_db_fake *vr_db_fake_new(struct kunit *test,
					 unsigned int npairs, bool event_idx)
{
	struct vr_db_fake *f;
	struct vrdma_dev *dev;
	unsigned int i;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->dbqs = kcalloc(npairs, sizeof(*dev->dbqs), GFP_KERNEL);
	if (!dev->dbqs)
		kfree(dev);
	KUNIT_ASSERT_NOT_NULL(test, dev->dbqs);
	dev->npairs = npairs;
	dev->vdev = &f->vdev;
	f->dev = dev;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vr_db_fake_free, f),
			0);

	f->vdev.features = BIT_ULL(VIRTIO_F_VERSION_1);
	if (event_idx)
		f->vdev.features |= BIT_ULL(VIRTIO_RING_F_EVENT_IDX);
	INIT_LIST_HEAD(&f->vdev.vqs);
	spin_lock_init(&f->vdev.vqs_list_lock);
	for (i = 0; i < npairs; i++) {
		f->q[i].vq = vring_create_virtqueue(VIRTIO_RDMA_DOORBELLQ(i),
						    VR_DB_NUM, SMP_CACHE_BYTES,
						    &f->vdev, true, false, false,
						    vr_db_notify, vrdma_dbq_done,
						    "doorbellq");
		KUNIT_ASSERT_NOT_NULL(test, f->q[i].vq);
		vrdma_dbq_setup(&dev->dbqs[i], f->q[i].vq);
	}
	__virtio_unbreak_device(&f->vdev);
	f->vdev.priv = dev;
	KUNIT_ASSERT_EQ(test, vrdma_dbqs_init(dev), 0);
	KUNIT_ASSERT_EQ(test, dev->dbqs[0].nrecs, VR_DB_NUM);
	return f;
}

static struct vrdma_qp *vr_db_qp(struct kunit *test, struct vr_db_fake *f,
				 u32 handle)
{
	struct vrdma_qp *qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->ibqp.device = &f->dev->ib;
	qp->handle = handle;
	vrdma_db_init(&qp->db, handle);	/* as vrdma_create_qp() */
	return qp;
}

/*
 * The device: take up to @max buffers from doorbellq @qi, log their
 * records, mark them used, then interrupt if the driver asked for it.
 */
static unsigned int vr_db_consume(struct vr_db_fake *f, unsigned int qi,
				  unsigned int max)
{
	struct vr_db_queue *q = &f->q[qi];
	struct virtio_device *vdev = &f->vdev;
	const struct vring *vr = virtqueue_get_vring(q->vq);
	struct virtio_rdma_doorbell *rec;
	u16 avail, old, used, head, i, flags;
	unsigned int n = 0, len, off;
	bool irq;

	avail = virtio16_to_cpu(vdev, READ_ONCE(vr->avail->idx));
	old = virtio16_to_cpu(vdev, vr->used->idx);
	used = old;
	smp_rmb();	/* ring entries after the index */
	for (; q->last_avail != avail && n < max; q->last_avail++, n++) {
		head = virtio16_to_cpu(vdev,
				       vr->avail->ring[q->last_avail % vr->num]);
		i = head;
		do {
			rec = phys_to_virt(virtio64_to_cpu(vdev, vr->desc[i].addr));
			len = virtio32_to_cpu(vdev, vr->desc[i].len);
			flags = virtio16_to_cpu(vdev, vr->desc[i].flags);
			for (off = 0; off + sizeof(*rec) <= len; off += sizeof(*rec), rec++) {
				if (q->nlog == VR_DB_LOG)
					continue;
				q->log[q->nlog].type = le32_to_cpu(rec->type);
				q->log[q->nlog].handle = le32_to_cpu(rec->handle);
				q->nlog++;
			}
			i = virtio16_to_cpu(vdev, vr->desc[i].next);
		} while (flags & VRING_DESC_F_NEXT);
		vr->used->ring[used % vr->num].id = cpu_to_virtio32(vdev, head);
		vr->used->ring[used % vr->num].len = 0;
		used++;
	}
	if (!n)
		return 0;
	smp_wmb();	/* used entries before the index */
	vr->used->idx = cpu_to_virtio16(vdev, used);
	smp_mb();	/* the index before reading the driver's wish */
	if (virtio_has_feature(vdev, VIRTIO_RING_F_EVENT_IDX))
		irq = vring_need_event(virtio16_to_cpu(vdev, vring_used_event(vr)),
				       used, old);
	else
		irq = !(virtio16_to_cpu(vdev, vr->avail->flags) &
			VRING_AVAIL_F_NO_INTERRUPT);
	if (irq) {
		q->irqs++;
		vring_interrupt(0, q->vq);
	}
	return n;
}

static void vr_db_expect_log(struct kunit *test, struct vr_db_queue *q,
			     unsigned int idx, u32 type, u32 handle)
{
	KUNIT_ASSERT_GT(test, q->nlog, idx);
	KUNIT_EXPECT_EQ_MSG(test, q->log[idx].type, type, "record %u", idx);
	KUNIT_EXPECT_EQ_MSG(test, q->log[idx].handle, handle, "record %u", idx);
}

static unsigned int vr_db_count(struct vr_db_queue *q, u32 type, u32 handle)
{
	unsigned int i, n = 0;

	for (i = 0; i < q->nlog; i++)
		n += q->log[i].type == type && q->log[i].handle == handle;
	return n;
}

static void vr_db_param_desc(const bool *event_idx, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s",
		 *event_idx ? "event index" : "interrupt flags");
}

static const bool vr_db_event_idx[] = { false, true };
KUNIT_ARRAY_PARAM(vr_db_modes, vr_db_event_idx, vr_db_param_desc);

/* Ring @n doorbells SQ, RQ, SQ, ... of QPs handle, handle + 1, ... */
static void vr_db_fill(struct kunit *test, struct vr_db_fake *f, u32 handle,
		       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test,
				vrdma_ring_doorbell(vr_db_qp(test, f, handle + i / 2),
						    i & 1 ? VR_RQ : VR_SQ), 0);
}

/*
 * Every record in flight: a doorbell is owed, once per type however often
 * the QP rings, not spun for and not lost; the first record the device
 * returns carries it, and with nothing owed the callback is off again.
 */
static void vr_db_owed_delivered(struct kunit *test)
{
	const bool *event_idx = test->param_value;
	struct vr_db_fake *f = vr_db_fake_new(test, 1, *event_idx);
	struct vr_db_queue *q = &f->q[0];
	struct vrdma_qp *c = vr_db_qp(test, f, 7);

	vr_db_fill(test, f, 1, VR_DB_NUM);	/* QPs 1 and 2 */
	KUNIT_EXPECT_EQ(test, q->kicks, VR_DB_NUM);
	KUNIT_EXPECT_EQ(test, f->dev->dbqs[0].nfree, 0);

	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(c, VR_SQ), 0);
	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(c, VR_SQ), 0);
	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(c, VR_RQ), 0);
	KUNIT_EXPECT_EQ(test, c->db.owed, BIT(VR_SQ) | BIT(VR_RQ));
	KUNIT_EXPECT_FALSE(test, list_empty(&c->db.link));
	KUNIT_EXPECT_EQ(test, q->kicks, VR_DB_NUM);

	/* One record back: the armed callback sends the SQ doorbell. */
	KUNIT_EXPECT_EQ(test, vr_db_consume(f, 0, 1), 1);
	KUNIT_EXPECT_EQ(test, q->irqs, 1);
	KUNIT_EXPECT_EQ(test, c->db.owed, BIT(VR_RQ));
	KUNIT_EXPECT_EQ(test, q->kicks, VR_DB_NUM + 1);

	/* The rest: still armed for the RQ doorbell. */
	KUNIT_EXPECT_EQ(test, vr_db_consume(f, 0, VR_DB_LOG), VR_DB_NUM);
	KUNIT_EXPECT_EQ(test, q->irqs, 2);
	KUNIT_EXPECT_EQ(test, c->db.owed, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->db.link));
	KUNIT_EXPECT_TRUE(test, list_empty(&f->dev->dbqs[0].owed));

	/* Nothing owed: no interrupt for the last one, nor for later ones. */
	KUNIT_EXPECT_EQ(test, vr_db_consume(f, 0, VR_DB_LOG), 1);
	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(c, VR_SQ), 0);
	KUNIT_EXPECT_EQ(test, vr_db_consume(f, 0, VR_DB_LOG), 1);
	KUNIT_EXPECT_EQ(test, q->irqs, 2);

	KUNIT_ASSERT_EQ(test, q->nlog, VR_DB_NUM + 3);
	vr_db_expect_log(test, q, 0, VR_SQ, 1);
	vr_db_expect_log(test, q, 3, VR_RQ, 2);
	vr_db_expect_log(test, q, 4, VR_SQ, 7);
	vr_db_expect_log(test, q, 5, VR_RQ, 7);
	vr_db_expect_log(test, q, 6, VR_SQ, 7);
	KUNIT_EXPECT_EQ(test, vr_db_count(q, VR_RQ, 7), 1);
}

/*
 * Destroy of an owed QP (vrdma_destroy_qp() calls vrdma_doorbells_forget()):
 * it leaves the owed list, the memory goes (KASAN watches), and the QP
 * behind it on the list still gets its doorbell.
 */
static void vr_db_owed_destroy(struct kunit *test)
{
	const bool *event_idx = test->param_value;
	struct vr_db_fake *f = vr_db_fake_new(test, 1, *event_idx);
	struct vr_db_queue *q = &f->q[0];
	struct vrdma_qp *c, *d = vr_db_qp(test, f, 9);
	unsigned int n;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->ibqp.device = &f->dev->ib;
	c->handle = 8;
	vrdma_db_init(&c->db, 8);

	vr_db_fill(test, f, 1, VR_DB_NUM);
	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(c, VR_SQ), 0);
	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(d, VR_SQ), 0);
	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(c, VR_RQ), 0);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&f->dev->dbqs[0].owed,
						   struct vrdma_db, link), &c->db);

	vrdma_doorbells_forget(c);
	KUNIT_EXPECT_EQ(test, c->db.owed, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&c->db.link));
	kfree(c);
	KUNIT_EXPECT_PTR_EQ(test, list_first_entry(&f->dev->dbqs[0].owed,
						   struct vrdma_db, link), &d->db);

	/* Drain: the device sees d's doorbell and nothing of QP 8. */
	for (n = 0; n < 8 && vr_db_consume(f, 0, VR_DB_LOG); n++)
		;
	KUNIT_EXPECT_EQ(test, q->nlog, VR_DB_NUM + 1);
	vr_db_expect_log(test, q, VR_DB_NUM, VR_SQ, 9);
	KUNIT_EXPECT_EQ(test, vr_db_count(q, VR_SQ, 8) + vr_db_count(q, VR_RQ, 8),
			0);
	KUNIT_EXPECT_TRUE(test, list_empty(&f->dev->dbqs[0].owed));
	KUNIT_EXPECT_GE(test, q->irqs, 1);

	/* Forgetting a QP that owes nothing changes nothing. */
	vrdma_doorbells_forget(d);
	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(d, VR_RQ), 0);
	KUNIT_EXPECT_EQ(test, vr_db_consume(f, 0, VR_DB_LOG), 1);
	vr_db_expect_log(test, q, VR_DB_NUM + 1, VR_RQ, 9);
}

/*
 * Two doorbellqs: a doorbell that finds the CPU's doorbellq full goes to
 * the QP's home doorbellq (handle % npairs) and is owed there, and only
 * there is the callback armed.  Interrupt flags only: in event-index mode
 * virtio_ring's disable leaves used_event at 0, so the first completion
 * on a fresh queue interrupts whatever the driver wants.
 */
static void vr_db_home_queue(struct kunit *test)
{
	struct vr_db_fake *f = vr_db_fake_new(test, 2, false);
	struct vr_db_queue *lq, *hq;
	struct vrdma_qp *x;
	unsigned int local;

	migrate_disable();
	local = raw_smp_processor_id() % 2;
	lq = &f->q[local];
	hq = &f->q[!local];
	/* Handles of QPs at home on the local queue are even + local. */
	vr_db_fill(test, f, 2 + local, 1);
	vr_db_fill(test, f, 4 + local, 1);
	vr_db_fill(test, f, 6 + local, 1);
	vr_db_fill(test, f, 8 + local, 1);
	KUNIT_EXPECT_EQ(test, lq->kicks, VR_DB_NUM);

	/* Local queue full, home queue free: sent there at once. */
	x = vr_db_qp(test, f, 11 - local);
	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(x, VR_SQ), 0);
	KUNIT_EXPECT_EQ(test, x->db.owed, 0);
	KUNIT_EXPECT_EQ(test, hq->kicks, 1);
	/* Fill the home queue too (its QPs cannot go anywhere else). */
	vr_db_fill(test, f, 13 - local, 1);
	vr_db_fill(test, f, 15 - local, 1);
	vr_db_fill(test, f, 17 - local, 1);
	KUNIT_EXPECT_EQ(test, hq->kicks, VR_DB_NUM);
	KUNIT_EXPECT_EQ(test, vrdma_ring_doorbell(x, VR_RQ), 0);
	KUNIT_EXPECT_EQ(test, x->db.owed, BIT(VR_RQ));
	KUNIT_EXPECT_TRUE(test, list_empty(&f->dev->dbqs[local].owed));

	/* Only the home queue's callback is armed. */
	KUNIT_EXPECT_EQ(test, vr_db_consume(f, local, 1), 1);
	KUNIT_EXPECT_EQ(test, lq->irqs, 0);
	KUNIT_EXPECT_EQ(test, x->db.owed, BIT(VR_RQ));
	KUNIT_EXPECT_EQ(test, vr_db_consume(f, !local, 1), 1);
	KUNIT_EXPECT_EQ(test, hq->irqs, 1);
	KUNIT_EXPECT_EQ(test, x->db.owed, 0);
	migrate_enable();

	KUNIT_EXPECT_EQ(test, vr_db_consume(f, !local, VR_DB_LOG), VR_DB_NUM);
	KUNIT_EXPECT_EQ(test, hq->nlog, VR_DB_NUM + 1);
	vr_db_expect_log(test, hq, 0, VR_SQ, 11 - local);
	vr_db_expect_log(test, hq, VR_DB_NUM, VR_RQ, 11 - local);
	KUNIT_EXPECT_EQ(test, vr_db_consume(f, local, VR_DB_LOG), VR_DB_NUM - 1);
	KUNIT_EXPECT_EQ(test, lq->nlog, VR_DB_NUM);
	KUNIT_EXPECT_EQ(test, lq->irqs + hq->irqs, 1);
}

/* Steady state, device keeping up: the callback stays off. */
static void vr_db_steady(struct kunit *test)
{
	const bool *event_idx = test->param_value;
	struct vr_db_fake *f = vr_db_fake_new(test, 1, *event_idx);
	struct vr_db_queue *q = &f->q[0];
	struct vrdma_qp *a = vr_db_qp(test, f, 1);
	unsigned int i;

	for (i = 0; i < 4 * VR_DB_NUM; i++) {
		KUNIT_ASSERT_EQ(test, vrdma_ring_doorbell(a, VR_SQ), 0);
		KUNIT_ASSERT_EQ(test, vr_db_consume(f, 0, 1), 1);
	}
	KUNIT_EXPECT_EQ(test, q->nlog, 4 * VR_DB_NUM);
	KUNIT_EXPECT_EQ(test, q->kicks, 4 * VR_DB_NUM);
	/* Event index: virtio_ring's disable leaves used_event 0 (see above). */
	KUNIT_EXPECT_LE(test, q->irqs, *event_idx ? 1U : 0U);
	KUNIT_EXPECT_EQ(test, a->db.owed, 0);
}

static struct kunit_case virtio_rdma_doorbell_cases[] = {
	KUNIT_CASE_PARAM(vr_db_owed_delivered, vr_db_modes_gen_params),
	KUNIT_CASE_PARAM(vr_db_owed_destroy, vr_db_modes_gen_params),
	KUNIT_CASE(vr_db_home_queue),
	KUNIT_CASE_PARAM(vr_db_steady, vr_db_modes_gen_params),
	{}
};

static struct kunit_suite virtio_rdma_doorbell_suite = {
	.name = "virtio_rdma_doorbell",
	.test_cases = virtio_rdma_doorbell_cases,
};

kunit_test_suite(virtio_rdma_doorbell_suite);

MODULE_DESCRIPTION("KUnit tests of the virtio-rdma driver's doorbell queues");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
