// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the engines, the kernel threads that run the QPs' work.
 *
 * One kthread_worker per CPU online at load time, not bound to a CPU, so
 * that the scheduler spreads the busy ones; each QP is given the least
 * used at creation, and its work always runs there (vdr_xqp.c), as do
 * each device's doorbellqs.  Bound to CPUs, they did worse (wire, one QP
 * of 64 KiB writes: 138 against 164 MB/s; 64 B sends 217 against 290
 * K/s).
 *
 * They run above the applications: a device's work is what an
 * application that busy-polls its CQ waits for, and at an equal share the
 * polling kept half of a CPU from it (2 vCPUs, wire ib_write_bw 64 KiB,
 * 4 QPs: 161-165 MB/s at nice 0, 168 at -5, 207-210 at -10).  Not at -20:
 * with a worker per busy QP (a WQ_HIGHPRI unbound workqueue) the
 * applications starved, perftest with 16 QPs of 1 MiB polling no
 * completion for seconds.  One thread per CPU at -10 leaves an
 * application a tenth of a CPU that an engine wants, enough to post and
 * poll (the same perftest: 600 iterations in 3 s), and bounds what the
 * device runs at once.
 */
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "vdpa_rdma.h"

static int engine_nice = -10;
module_param(engine_nice, int, 0444);
MODULE_PARM_DESC(engine_nice,
		 "Nice level of the threads that run the QPs (default -10)");

/* One per CPU, up to this many: idle ones cost only their stacks. */
#define VDR_ENGINES_MAX	64

struct vdr_engine {
	struct kthread_worker *worker;
	unsigned int users;		/* weight given to it, vdr_engines_lock */
};

static struct vdr_engine *vdr_engines;
static unsigned int vdr_nr_engines;
static DEFINE_SPINLOCK(vdr_engines_lock);

/*
 * The engine of a new QP (or device's doorbellqs): the one with the
 * fewest users, each counted with its @weight, 0 for one that is mostly
 * idle.  Taken in turn, QPs that talk to each other shared an engine
 * whenever an odd number of others had been created between them, and
 * took turns on one CPU.  Under a lock: the two ends of a perftest
 * connection create their QPs at the same moment, and without it both
 * saw the same counts and took the same engine.  vdr_engine_put() with
 * the same weight when the work is cancelled.
 */
struct vdr_engine *vdr_engine_get(unsigned int weight)
{
	struct vdr_engine *e = &vdr_engines[0];
	unsigned int i;

	spin_lock(&vdr_engines_lock);
	for (i = 1; i < vdr_nr_engines; i++)
		if (vdr_engines[i].users < e->users)
			e = &vdr_engines[i];
	e->users += weight;
	spin_unlock(&vdr_engines_lock);
	return e;
}

/* The engine's number, as in its thread's name (debugfs). */
unsigned int vdr_engine_id(const struct vdr_engine *e)
{
	return e - vdr_engines;
}

void vdr_engine_put(struct vdr_engine *e, unsigned int weight)
{
	if (!e)
		return;
	spin_lock(&vdr_engines_lock);
	e->users -= weight;
	spin_unlock(&vdr_engines_lock);
}

void vdr_engine_queue(struct vdr_engine *e, struct kthread_work *work)
{
	kthread_queue_work(e->worker, work);
}

/*
 * Whether @e runs nothing and has nothing queued: a hint, read without its
 * lock, for a sender deciding where its receiver runs (vdr_xqp.c).
 */
bool vdr_engine_idle(const struct vdr_engine *e)
{
	return !READ_ONCE(e->worker->current_work) &&
	       list_empty(&e->worker->work_list);
}

void vdr_engines_stop(void)
{
	unsigned int i;

	for (i = 0; i < vdr_nr_engines; i++)
		kthread_destroy_worker(vdr_engines[i].worker);
	kfree(vdr_engines);
	vdr_engines = NULL;
	vdr_nr_engines = 0;
}

int vdr_engines_start(void)
{
	unsigned int i, n = min_t(unsigned int, num_online_cpus(),
				  VDR_ENGINES_MAX);
	struct kthread_worker *w;

	if (engine_nice < MIN_NICE || engine_nice > MAX_NICE)
		return -EINVAL;
	vdr_engines = kcalloc(n, sizeof(*vdr_engines), GFP_KERNEL);
	if (!vdr_engines)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		w = kthread_create_worker(0, "vdpa_rdma/%u", i);
		if (IS_ERR(w)) {
			vdr_engines_stop();
			return PTR_ERR(w);
		}
		sched_set_normal(w->task, engine_nice);
		vdr_engines[vdr_nr_engines++].worker = w;
	}
	return 0;
}
