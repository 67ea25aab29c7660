/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: a vDPA parent that emulates a virtio-rdma device
 * (Documentation/virtio-rdma-spec.rst) on top of an Ethernet netdev.
 *
 * Concurrency model
 * -----------------
 * Commands run on vdr_wq, an unbound workqueue, and the data path on the
 * engines (vdr_engine.c), a kernel thread per CPU, in four kinds of work
 * items:
 *
 * - dev->ctrl_work: the controlq and the eventqs.  It holds dev->lock,
 *   which also covers the vDPA config ops, the object tables (xarrays,
 *   counters), the GID table's writers and device reset.  Commands never
 *   wait behind traffic: nothing on the data path takes dev->lock.  Each
 *   eventq also has its own vq->lock, so that a QP's work can write the
 *   completion event it raised without waking ctrl_work (one scheduling
 *   hop less per event); it only tries that lock and leaves the event to
 *   ctrl_work when the eventq is busy.
 * - dev->db_work, on an engine: the doorbellqs.  It looks QPs up (RCU)
 *   and runs or schedules them (vdr_xqp_doorbell()).  A doorbell rung
 *   from a context that may sleep (a user QP's system call under
 *   virtio_vdpa, the vhost worker under vhost_vdpa) is processed right
 *   there instead, one budget, the rest left to db_work (vdr_db_kick()).
 *   Each doorbellq's vq->lock serialises the two.
 * - xqp->work, one per QP, on the engine the QP was given at creation:
 *   that QP's requester, responder and completer, under qp->lock.  One QP
 *   is processed by one CPU at a time and QPs of different engines in
 *   parallel.  Each run has a budget (packets received, packets sent,
 *   WQEs flushed) and queues itself again when work is left, behind the
 *   other QPs of its engine; work that comes while a run holds the QP
 *   makes that run go again, at most twice (vdr_xqp_wake()).  The engines
 *   run above the applications' priority (nice -10, vdr_engine.c).
 *
 * - srq->tm.work, one per TM-SRQ (vdr_tm.c): the ops of its ops ring, a
 *   budget per run, under no lock but srq->lock for the tag list; a
 *   doorbell only schedules it.
 *
 * Softirq context (UDP encap_rcv, the QP timers) only queues packets to a
 * QP and schedules its work.
 *
 * Lock order: dev->lock -> qp->lock -> mr->lock -> iotlb_lock -> iotlb_rw;
 * dev->lock -> doorbellq vq->lock -> qp->lock (taken with a trylock);
 * qp->lock -> srq->lock (the SRQ's consumer side, which the works of all
 * the QPs attached to it take, and a TM-SRQ's tag list, which its ops
 * work takes too; nothing is taken inside it but a workqueue's);
 * dev->lock -> eventq vq->lock (a QP's work only trylocks it) -> ev_lock;
 * cq->lock, ev_lock and gid_lock are innermost.
 *
 * Lifetimes: QPs, CQs, PDs and MRs are published in the xarrays by
 * commands and found there under RCU by the data path, and freed after a
 * grace period.  A QP's work is cancelled before the QP is freed, and no
 * one can queue it again by then (see vdr_xqp_destroy()).  The data path
 * uses an MR only between vdr_mr_get() and vdr_mr_put(), under mr->lock;
 * a command that destroys or replaces an MR takes mr->lock to mark it dead
 * before it completes, so the driver may release the MR's pages as soon as
 * it sees the completion (spec "Driver requirements").
 *
 * XRC SRQs are the one object the data path looks up by a number from the
 * wire (the XRCETH) and keeps between packets: an XRC_TGT QP holds the SRQ
 * of its message in progress and of the READ it answers, under its own
 * lock.  DESTROY_SRQ takes the SRQ out of the table, then the lock of every
 * XRC_TGT QP of its domain in turn to make the QP forget it
 * (vdr_resp_srq_gone()), and only then frees it: a QP's run never sees an
 * SRQ, nor the PD and CQ the SRQ holds, go away under it.
 */
#ifndef _VDPA_RDMA_H
#define _VDPA_RDMA_H

#include <linux/atomic.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/vdpa.h>
#include <linux/vhost_iotlb.h>
#include <linux/vringh.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/virtio_rdma.h>

#include "vdr_tm.h"

#define VDR_VENDOR_ID			0x1af4
#define VDR_VENDOR_PART_ID		(0x1040 + VIRTIO_ID_RDMA)
#define VDR_HW_VER			1
#define VDR_FW_VER			1

#define VDR_DEF_QUEUE_PAIRS		4
#define VDR_MAX_QUEUE_PAIRS		64
#define VDR_VQ_NUM_MAX		256

/* Device limits; QUERY_DEVICE reports exactly these (spec "Limits"). */
#define VDR_MAX_QP			1024
#define VDR_MAX_QP_WR			4096
#define VDR_MAX_SGE			16
#define VDR_MAX_SGE_RD		16
#define VDR_MAX_INLINE		192
#define VDR_MAX_SQ_WQE_SHIFT		3
#define VDR_MAX_RQ_WQE_SHIFT		5
#define VDR_MAX_CQ			1024
#define VDR_MAX_CQE			8192
#define VDR_MAX_PD			1024
#define VDR_MAX_MR			4096
#define VDR_MAX_FRPL_LEN		512
#define VDR_MAX_MR_SIZE		BIT_ULL(40)
#define VDR_PAGE_SIZE_CAP		0x3ff000ULL
#define VDR_MAX_MSG_SZ		BIT(31)
/* As rdma_rxe offers: a peer may ask for this many (perftest does). */
#define VDR_MAX_RD_ATOM		128
#define VDR_MAX_AH			65536
#define VDR_LOCAL_CA_ACK_DELAY	15
#define VDR_GID_TBL_LEN		64
/* With VIRTIO_RDMA_F_SRQ; the SRQ ring has the RQ's geometry. */
#define VDR_MAX_SRQ			1024
#define VDR_MAX_SRQ_WR		VDR_MAX_QP_WR
#define VDR_MAX_SRQ_SGE		VDR_MAX_SGE
/* With VIRTIO_RDMA_F_MW; windows share the MRs' key space. */
#define VDR_MAX_MW			4096
/*
 * With VIRTIO_RDMA_F_INDIRECT_MKEY: a layout's entries travel in the SGE
 * area of one SQ WQE, two SGE slots each.
 */
#define VDR_MAX_MKEY_ENTRIES		(VDR_MAX_SGE / 2)
/* With VIRTIO_RDMA_F_XRC; not in QUERY_DEVICE (verbs has no field). */
#define VDR_MAX_XRCD			1024

/*
 * Every handle fits 24 bits: QPNs by the BTH, MR indexes by the key (index
 * above the key byte), CQ and PD handles alike for one spelling.
 */
#define VDR_HANDLE_MAX			VIRTIO_RDMA_QPN_MASK

#define VDR_ACCESS_ALL	(VIRTIO_RDMA_ACCESS_LOCAL_WRITE | \
			 VIRTIO_RDMA_ACCESS_REMOTE_WRITE | \
			 VIRTIO_RDMA_ACCESS_REMOTE_READ | \
			 VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC)

struct vdr_dev;
struct vdr_engine;
struct vdr_xdev;

#define VDR_VQ_KVECS	4

struct vdr_vq {
	/*
	 * Eventqs: held while the vring is used, by ctrl_work, by a QP's work
	 * that delivers a completion event itself (vdr_event_raise_now()) and
	 * by the config ops and reset (inside dev->lock).
	 */
	struct mutex lock;
	struct vringh vring;
	struct vringh_kiov riov;
	struct vringh_kiov wiov;
	/*
	 * riov's and wiov's room for the chains the driver sends (one or two
	 * descriptors), so that taking one never allocates: when vringh fails
	 * to grow an iov it has already taken the chain's head, and the chain
	 * (a command, a doorbell) would be lost.
	 */
	struct kvec rkvec[VDR_VQ_KVECS];
	struct kvec wkvec[VDR_VQ_KVECS];
	u16 head;
	bool ready;
	u64 desc_addr;
	u64 driver_addr;
	u64 device_addr;
	u32 num;
	struct vdpa_callback cb;
};

/*
 * An event that is decided but not yet written to an eventq buffer.  The
 * node lives in the object the event names, so an event is pending at most
 * once per (object, type) and destroying the object drops it.
 */
struct vdr_event {
	struct list_head entry;
	u32 type;
	u32 handle;
	u32 data;
	u16 eventq;
	bool pending;
};

/* The one-shot faults of vdr_faults.c: CQE fields, then the others. */
enum {
	VDR_FAULT_CQE_QP,
	VDR_FAULT_CQE_WR_ID,
	VDR_FAULT_CQE_BYTE_LEN,
	VDR_FAULT_CQE_OPCODE,
	VDR_FAULT_CQE_STATUS,
	VDR_FAULT_RESP_HANDLE,
	VDR_FAULT_NR
};

#define VDR_FAULT_CQE_MASK	(BIT(VDR_FAULT_RESP_HANDLE) - 1)

/* A ring (SQ, RQ or CQ) in driver memory, mapped into the kernel. */
struct vdr_ring {
	void *vmap_base;
	struct virtio_rdma_ring_ctl *ctl;
	void *entries;
	u64 addr;
	u32 depth;
	u32 stride;
	/* The ring's pages, each with a reference, when not passthrough. */
	struct page **pinned;
	unsigned long npinned;
};

struct vdr_pd {
	u32 handle;
	u32 refs;		/* MRs and QPs in the PD */
	struct rcu_head rcu;
};

/* An XRC domain (vdr_xrcd.c); changed under dev->lock only. */
struct vdr_xrcd {
	u32 handle;
	u32 refs;		/* its XRC SRQs and XRC_TGT QPs */
	struct rcu_head rcu;
};

/*
 * A key names a memory region, a memory window (vdr_mw.c) or an indirect
 * memory key (vdr_mkey.c); all live in dev->mrs, so one lookup resolves any
 * lkey or rkey.
 */
enum vdr_mr_kind {
	VDR_MR_DMA,
	VDR_MR_USER,
	VDR_MR_FAST,
	VDR_MW_TYPE1,
	VDR_MW_TYPE2,
	VDR_MKEY,
};

/* One entry of an indirect memory key's layout (device copy). */
struct vdr_mkey_entry {
	u64 addr;
	u32 count;
	u32 skip;
	u32 lkey;
};

struct vdr_mr {
	u32 index;
	u32 key;
	enum vdr_mr_kind kind;
	bool valid;		/* FAST MRs start free; windows: bound */
	u32 access;
	struct vdr_pd *pd;
	u64 iova;		/* windows: the range the rkey reaches */
	u64 length;
	/* MRs: windows bound to it; DEREG_MR and replacement wait for 0. */
	atomic_t nr_mw;
	/* Windows: where the range lies, in the MR with key mw_mr_key. */
	u32 mw_mr_key;
	u64 mw_mr_addr;
	u64 mw_qp_serial;	/* type 2: the QP that bound it */
	/*
	 * Indirect memory keys: zero-based (iova 0), length = repeat * unit;
	 * valid once a layout is set.  Entries are allocated at CREATE_MKEY.
	 */
	struct vdr_mkey_entry *entries;
	u32 max_entries;
	u32 nr_entries;
	u32 repeat;
	u64 unit;		/* bytes of one repetition */
	u32 page_shift;
	u32 max_pages;		/* FAST */
	u64 page_list_addr;	/* FAST: driver-owned page list */
	u64 *pages;		/* USER, FAST: DMA addresses */
	/*
	 * Held by the data path while it uses the MR, shared; exclusive by
	 * whatever changes it.  See the model above.
	 */
	rwlock_t lock;
	bool dead;		/* deregistered or replaced */
	struct rcu_head rcu;
};

static inline bool vdr_key_is_mw(enum vdr_mr_kind kind)
{
	return kind == VDR_MW_TYPE1 || kind == VDR_MW_TYPE2;
}

struct vdr_cq {
	u32 handle;
	u32 eventq;
	u32 nr_qps;
	u32 nr_srqs;		/* XRC SRQs completing into it */
	/* Serialises CQE producers; the data path posts from several contexts. */
	spinlock_t lock;
	struct vdr_ring ring;
	u32 prod;		/* the device's copy; ring memory is untrusted */
	bool overflow;
	/*
	 * The arm word the last COMP event answered: RESIZE_CQ disarms it in
	 * the new ring if the driver copied it there after we had answered.
	 */
	u32 fired_arm;
	struct vdr_event comp_ev;
	struct vdr_event err_ev;
	struct rcu_head rcu;
};

/*
 * A TM-SRQ's ops ring and tag list (vdr_tm.c).  The doorbell path finds
 * the SRQ under RCU and schedules @work unless @dead; DESTROY_SRQ sets
 * @dead, then cancels @work.
 */
struct vdr_srq_tm {
	struct vdr_tm tm;		/* under srq->lock */
	struct vdr_ring ops;		/* in the ops area */
	__le32 *release;		/* after the ops: max_tags words */
	u32 cons;			/* the device's copy, by @work only */
	bool error;			/* impossible prod: no more ops */
	bool dead;			/* under srq->lock */
	struct vdr_dev *dev;
	struct work_struct work;	/* runs the ops */
};

/*
 * A shared receive queue (vdr_srq.c).  Commands change it under dev->lock;
 * the works of its QPs take WQEs under @lock.  An XRC SRQ (@xrcd set) is
 * found by the XRC_TGT QPs of its domain in dev->srqs, per packet, and
 * completes into its own @cq, as a TM-SRQ does.
 */
struct vdr_srq {
	u32 handle;
	u8 type;		/* VIRTIO_RDMA_SRQT_* */
	u32 nr_qps;		/* QPs attached; under dev->lock */
	struct vdr_pd *pd;
	struct vdr_xrcd *xrcd;	/* XRC only */
	struct vdr_cq *cq;	/* XRC and TM only */
	u32 max_sge;
	/* The consumer side: the QPs' works take WQEs on several CPUs. */
	spinlock_t lock;
	struct vdr_ring ring;
	u32 cons;		/* the device's copy; ring memory is untrusted */
	u32 limit;		/* 0: the limit event is not armed */
	struct vdr_event limit_ev;
	struct vdr_srq_tm tm;	/* TM only */
	struct rcu_head rcu;
};

static inline bool vdr_srq_is_tm(const struct vdr_srq *srq)
{
	return srq && srq->type == VIRTIO_RDMA_SRQT_TM;
}

/*
 * The limit event fires when a take leaves fewer than @limit WQEs in the
 * SRQ (IBA 10.2.9.2); a limit of 0 is disarmed.
 */
static inline bool vdr_srq_limit_hit(u32 limit, u32 count)
{
	return limit && count < limit;
}

enum {
	VDR_QP_EV_FATAL,
	VDR_QP_EV_REQ_ERR,
	VDR_QP_EV_ACCESS_ERR,
	VDR_QP_EV_SQ_DRAINED,
	VDR_QP_EV_COMM_EST,
	VDR_QP_EV_LAST_WQE,
	VDR_QP_NR_EV,
};

struct vdr_qp {
	/* Serialises the QP's work and the commands that change the QP. */
	struct mutex lock;
	u32 qpn;
	u64 serial;		/* unique for the device's life: QPNs recycle */
	u8 type;
	u8 state;
	bool sq_sig_all;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
	struct vdr_pd *pd;
	struct vdr_cq *scq;
	struct vdr_cq *rcq;
	struct vdr_ring sq;
	struct vdr_ring rq;		/* depth 0: no receive queue */
	struct vdr_srq *srq;		/* receives come from it; no RQ */
	struct vdr_xrcd *xrcd;		/* XRC_TGT: its domain */
	struct vdr_tm_qp *tm;		/* on a TM-SRQ: the internal SQ */
	u32 sq_cons;			/* device copies of the consumer indices */
	u32 rq_cons;
	struct virtio_rdma_qp_attr attr;	/* as last set by MODIFY_QP */
	struct vdr_event ev[VDR_QP_NR_EV];
	struct vdr_xqp *xqp;		/* transport state (xport.h) */
	struct rcu_head rcu;
};

/* RoCEv2 GIDs only: ADD_GID refuses the other types. */
struct vdr_gid {
	bool valid;
	u8 gid[16];
};

struct vdr_dev {
	struct vdpa_device vdpa;
	struct list_head list;		/* vdr_devs */
	char name[32];

	/* Config ops, commands, object tables, reset (model above). */
	struct mutex lock;
	struct work_struct ctrl_work;	/* controlq and eventqs */
	struct kthread_work db_work;	/* doorbellqs, on db_engine */
	struct vdr_engine *db_engine;
	/* DRIVER_OK and not suspended: the device does anything at all. */
	bool running;
	bool suspended;			/* vdr_suspend(), until resume or reset */
	u8 status;
	u32 generation;
	u64 features;
	u16 nqp;
	u16 nvqs;
	struct vdr_vq *vqs;
	struct virtio_rdma_config config;

	/*
	 * Guest memory as the device sees it: identity or the vhost map.
	 * Payload copies translate under iotlb_rw, shared, so that the QPs
	 * of all CPUs copy at once; vringh (which wants a spinlock) and the
	 * control path under iotlb_lock; a change of the map takes both,
	 * iotlb_lock first (vdr_iotlb_change()).
	 */
	spinlock_t iotlb_lock;
	rwlock_t iotlb_rw;
	struct vhost_iotlb iotlb;
	bool iotlb_pt;

	/* Bound netdev; NULL once it was unregistered (RCU for readers). */
	struct net_device __rcu *netdev;
	netdevice_tracker netdev_tracker;
	u8 mac[ETH_ALEN];
	bool port_active;
	bool same_host;		/* vdr_net.c: the same-host path is on */

	/* Pending events per eventq, in the order they became pending. */
	spinlock_t ev_lock;
	struct list_head *ev_pending;
	struct vdr_event port_active_ev;
	struct vdr_event port_err_ev;
	struct vdr_event fatal_ev;

	/* Object tables; changed only by commands, under @lock. */
	struct xarray pds;
	struct xarray mrs;
	struct xarray cqs;
	struct xarray qps;
	struct xarray srqs;
	struct xarray xrcds;
	/* Writers also hold dev->lock; the data path copies under it. */
	spinlock_t gid_lock;
	u32 pd_next, mr_next, cq_next, qp_next, srq_next, xrcd_next;
	u32 nr_pds, nr_mrs, nr_cqs, nr_qps, nr_srqs, nr_mws, nr_xrcds;
	u64 qp_serial;
	struct vdr_gid gids[VDR_GID_TBL_LEN];

	atomic64_t stats[VIRTIO_RDMA_NUM_STATS];
	/* Same-host segments sent (vdr_xport.h); debugfs only. */
	atomic_t same_host_segs;
	/* Receiving QPs run by a sender's work (vdr_xqp.c); debugfs only. */
	atomic_t same_host_handoffs;
	atomic_t wire_handoffs;
	atomic_t wire_batches;		/* GSO packets of 2 or more (vdr_net.c) */
	atomic_t wire_batched;		/* the packets in them */
	/* Notifications processed in the notifier's context (vdr_vq.c). */
	atomic_t inline_doorbells;
	/* Received packets queued to the QPs, all together (vdr_xqp.c). */
	atomic_t rx_backlog;

	/* RoCEv2 transport state (xport.h); NULL while not attached. */
	struct vdr_xdev *xdev;

	struct dentry *debugfs;		/* vdr_debugfs.c */
#if IS_ENABLED(CONFIG_VDPA_RDMA_FAULTS)
	u32 fault_ctrl_delay_ms;	/* vdr_faults.c */
	u32 fault_destroy_qp_delay_ms;
	unsigned long fault_armed;	/* BIT(VDR_FAULT_*) */
	u64 fault_val[VDR_FAULT_NR];
	struct vdr_event fault_event;
#endif

	/* Command buffers, used by ctrl_work under @lock only. */
	union {
		struct virtio_rdma_query_port_req query_port;
		struct virtio_rdma_destroy_pd_req destroy_pd;
		struct virtio_rdma_get_dma_mr_req get_dma_mr;
		struct virtio_rdma_create_mr_req create_mr;
		struct virtio_rdma_alloc_mr_req alloc_mr;
		struct virtio_rdma_dereg_mr_req dereg_mr;
		struct virtio_rdma_create_cq_req create_cq;
		struct virtio_rdma_destroy_cq_req destroy_cq;
		struct virtio_rdma_resize_cq_req resize_cq;
		struct virtio_rdma_create_qp_req create_qp;
		struct virtio_rdma_modify_qp_req modify_qp;
		struct virtio_rdma_query_qp_req query_qp;
		struct virtio_rdma_destroy_qp_req destroy_qp;
		struct virtio_rdma_add_gid_req add_gid;
		struct virtio_rdma_del_gid_req del_gid;
		struct virtio_rdma_create_srq_req create_srq;
		struct virtio_rdma_modify_srq_req modify_srq;
		struct virtio_rdma_query_srq_req query_srq;
		struct virtio_rdma_destroy_srq_req destroy_srq;
		struct virtio_rdma_alloc_mw_req alloc_mw;
		struct virtio_rdma_dealloc_mw_req dealloc_mw;
		struct virtio_rdma_create_mkey_req create_mkey;
		struct virtio_rdma_destroy_xrcd_req destroy_xrcd;
	} req;
	union {
		struct virtio_rdma_query_device_resp query_device;
		struct virtio_rdma_query_port_resp query_port;
		struct virtio_rdma_create_pd_resp create_pd;
		struct virtio_rdma_mr_resp mr;
		struct virtio_rdma_create_cq_resp create_cq;
		struct virtio_rdma_create_qp_resp create_qp;
		struct virtio_rdma_query_qp_resp query_qp;
		struct virtio_rdma_query_stats_resp query_stats;
		struct virtio_rdma_create_srq_resp create_srq;
		struct virtio_rdma_query_srq_resp query_srq;
		struct virtio_rdma_alloc_mw_resp alloc_mw;
		struct virtio_rdma_create_xrcd_resp create_xrcd;
	} resp;
};

static inline struct vdr_dev *vdpa_to_vdr(struct vdpa_device *vdpa)
{
	return container_of(vdpa, struct vdr_dev, vdpa);
}

static inline void vdr_stat_inc(struct vdr_dev *dev, unsigned int idx)
{
	atomic64_inc(&dev->stats[idx]);
}

static inline bool vdr_has_feature(struct vdr_dev *dev, unsigned int bit)
{
	return dev->features & BIT_ULL(bit);
}

/*
 * The MR, window or mkey a key names, by its index.  Caller holds
 * rcu_read_lock(); the object may be dead or of another generation: check
 * under its lock.
 */
static inline struct vdr_mr *vdr_key_lookup(struct vdr_dev *dev, u32 key)
{
	return xa_load(&dev->mrs, key >> VIRTIO_RDMA_KEY_INDEX_SHIFT);
}

static inline bool vdr_qp_is_ud(const struct vdr_qp *qp)
{
	return virtio_rdma_qpt_is_ud(qp->type);
}

static inline bool vdr_qpt_is_xrc(u8 type)
{
	return type == VIRTIO_RDMA_QPT_XRC_INI || type == VIRTIO_RDMA_QPT_XRC_TGT;
}

/*
 * The reliable connected transport's rules (ACKs, PSN windows, retries):
 * RC, and XRC, which is RC with another opcode base and an XRCETH.
 */
static inline bool vdr_qp_is_rc(const struct vdr_qp *qp)
{
	return qp->type == VIRTIO_RDMA_QPT_RC || vdr_qpt_is_xrc(qp->type);
}

/* A command's status for an errno of a mapping or allocation step. */
static inline int vdr_errno_status(int err)
{
	switch (err) {
	case -EFAULT:
		return VIRTIO_RDMA_STATUS_FAULT;
	case -EINVAL:
		return VIRTIO_RDMA_STATUS_INVAL;
	default:
		return VIRTIO_RDMA_STATUS_NOMEM;
	}
}

/* vdr_engine.c */
int vdr_engines_start(void);
void vdr_engines_stop(void);
struct vdr_engine *vdr_engine_get(unsigned int weight);
void vdr_engine_put(struct vdr_engine *e, unsigned int weight);
unsigned int vdr_engine_id(const struct vdr_engine *e);
void vdr_engine_queue(struct vdr_engine *e, struct kthread_work *work);
bool vdr_engine_idle(const struct vdr_engine *e);

/* vdr_vq.c */
void vdr_vqs_reset(struct vdr_dev *dev);
int vdr_vq_ready(struct vdr_dev *dev, struct vdr_vq *vq);
void vdr_vq_complete(struct vdr_vq *vq, u32 len);
bool vdr_vq_idle(struct vdr_vq *vq);
extern struct workqueue_struct *vdr_wq;
void vdr_ctrl_work_fn(struct work_struct *work);
void vdr_db_work_fn(struct kthread_work *work);
void vdr_ctrl_schedule(struct vdr_dev *dev);
void vdr_db_schedule(struct vdr_dev *dev);
void vdr_db_kick(struct vdr_dev *dev, u16 idx);
int vdr_mem_read(struct vdr_dev *dev, u64 addr, void *buf, size_t len);
struct page *vdr_translate(struct vdr_dev *dev, u64 addr, u32 perm,
			   size_t *len, unsigned int *offset);
int vdr_ring_map(struct vdr_dev *dev, struct vdr_ring *ring, u64 addr,
		 u32 depth, u32 stride);
int vdr_ring_map_extra(struct vdr_dev *dev, struct vdr_ring *ring, u64 addr,
		       u32 depth, u32 stride, u32 extra);
void vdr_ring_unmap(struct vdr_ring *ring);

static inline void *vdr_ring_entry(struct vdr_ring *ring, u32 idx)
{
	return ring->entries + (size_t)(idx & (ring->depth - 1)) * ring->stride;
}

/* vdr_ctrl.c */
bool vdr_ctrl_process(struct vdr_dev *dev);

/*
 * vdr_memcg.c: which cgroup pays for a user object's state.  VDR_GFP_OBJ
 * charges the active one (vdr_memcg_enter()); a user near its limit gets
 * NOMEM, not an OOM kill or a warning in the log.
 */
#define VDR_GFP_OBJ	(GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)

struct vdr_memcg {
	struct mem_cgroup *memcg;
	struct mem_cgroup *old;
};

#ifdef CONFIG_MEMCG
void vdr_memcg_enter(struct vdr_dev *dev, struct vdr_memcg *m, u64 addr);
void vdr_memcg_enter_ring(struct vdr_memcg *m, const struct vdr_ring *ring);
void vdr_memcg_leave(struct vdr_memcg *m);
#else
static inline void vdr_memcg_enter(struct vdr_dev *dev, struct vdr_memcg *m,
				   u64 addr)
{
}

static inline void vdr_memcg_enter_ring(struct vdr_memcg *m,
					const struct vdr_ring *ring)
{
}

static inline void vdr_memcg_leave(struct vdr_memcg *m)
{
}
#endif

/* vdr_event.c */
void vdr_event_init(struct vdr_event *ev, u32 type, u32 handle, u16 eventq);
void vdr_event_raise(struct vdr_dev *dev, struct vdr_event *ev, u32 data);
void vdr_event_raise_now(struct vdr_dev *dev, struct vdr_event *ev, u32 data);

/* vdr_faults.c: a buggy device on demand, for testing drivers */
#if IS_ENABLED(CONFIG_VDPA_RDMA_FAULTS)
extern const struct attribute_group vdr_faults_group;
void vdr_fault_ctrl_delay(struct vdr_dev *dev);
void vdr_fault_destroy_qp_delay(struct vdr_dev *dev, struct vdr_qp *qp);
void vdr_fault_cqe(struct vdr_dev *dev, struct virtio_rdma_cqe *cqe);
void vdr_fault_resp(struct vdr_dev *dev, u32 cmd);
#else
static inline void vdr_fault_ctrl_delay(struct vdr_dev *dev) { }
static inline void vdr_fault_destroy_qp_delay(struct vdr_dev *dev,
					      struct vdr_qp *qp) { }
static inline void vdr_fault_cqe(struct vdr_dev *dev,
				 struct virtio_rdma_cqe *cqe) { }
static inline void vdr_fault_resp(struct vdr_dev *dev, u32 cmd) { }
#endif

/* vdr_debugfs.c */
int vdr_suspend(struct vdpa_device *vdpa);
int vdr_resume(struct vdpa_device *vdpa);
void vdr_debugfs_add(struct vdr_dev *dev);
void vdr_debugfs_del(struct vdr_dev *dev);
void vdr_debugfs_init(void);
void vdr_debugfs_exit(void);
void vdr_event_cancel(struct vdr_dev *dev, struct vdr_event *ev);
void vdr_events_discard(struct vdr_dev *dev);
bool vdr_events_deliver(struct vdr_dev *dev, u16 eventq);
void vdr_events_deliver_all(struct vdr_dev *dev);

/* vdr_doorbell.c */
bool vdr_doorbells_process(struct vdr_dev *dev, u16 qidx, int budget,
			   bool in_caller);

/* vdr_netdev.c */
struct net_device *vdr_netdev_find(const u8 *mac);
void vdr_netdev_port_attr(struct vdr_dev *dev,
			  struct virtio_rdma_query_port_resp *resp);
bool vdr_netdev_port_active(struct net_device *ndev);
u8 vdr_mtu_to_ib(unsigned int mtu);
u8 vdr_active_mtu(struct vdr_dev *dev);
int vdr_netdev_register_notifier(void);
void vdr_netdev_unregister_notifier(void);
void vdr_dev_list_add(struct vdr_dev *dev);
void vdr_dev_list_del(struct vdr_dev *dev);

/* vdr_pd.c */
int vdr_cmd_create_pd(struct vdr_dev *dev);
int vdr_cmd_destroy_pd(struct vdr_dev *dev);
struct vdr_pd *vdr_pd_get(struct vdr_dev *dev, u32 handle);
void vdr_pd_put(struct vdr_pd *pd);
void vdr_pds_destroy(struct vdr_dev *dev);

/* vdr_xrcd.c */
int vdr_cmd_create_xrcd(struct vdr_dev *dev);
int vdr_cmd_destroy_xrcd(struct vdr_dev *dev);
struct vdr_xrcd *vdr_xrcd_get(struct vdr_dev *dev, u32 handle);
void vdr_xrcd_put(struct vdr_xrcd *xrcd);
void vdr_xrcds_destroy(struct vdr_dev *dev);

/* vdr_mr.c */
int vdr_cmd_get_dma_mr(struct vdr_dev *dev);
int vdr_cmd_create_mr(struct vdr_dev *dev);
int vdr_cmd_alloc_mr(struct vdr_dev *dev);
int vdr_cmd_dereg_mr(struct vdr_dev *dev);
int vdr_check_access(struct vdr_dev *dev, u32 access, bool is_mr);
struct vdr_mr *vdr_key_alloc(struct vdr_dev *dev, u32 pd_handle,
			     enum vdr_mr_kind kind, int *status);
void vdr_key_publish(struct vdr_dev *dev, struct vdr_mr *mr, u8 key_byte);
void vdr_key_unpublish(struct vdr_dev *dev, struct vdr_mr *mr);
void vdr_key_kill_locked(struct vdr_mr *mr) __releases(&mr->lock);

/* vdr_mkey.c */
int vdr_cmd_create_mkey(struct vdr_dev *dev);

/* vdr_mw.c */
int vdr_cmd_alloc_mw(struct vdr_dev *dev);
int vdr_cmd_dealloc_mw(struct vdr_dev *dev);
void vdr_mrs_destroy(struct vdr_dev *dev);

/* vdr_cq.c */
int vdr_cmd_create_cq(struct vdr_dev *dev);
int vdr_cmd_destroy_cq(struct vdr_dev *dev);
int vdr_cmd_resize_cq(struct vdr_dev *dev);
int vdr_cq_post(struct vdr_dev *dev, struct vdr_cq *cq,
		const struct virtio_rdma_cqe *cqe, bool solicited);
void vdr_cqs_destroy(struct vdr_dev *dev);

/* vdr_qp.c */
int vdr_cmd_create_qp(struct vdr_dev *dev);
int vdr_cmd_modify_qp(struct vdr_dev *dev);
int vdr_cmd_query_qp(struct vdr_dev *dev);
int vdr_cmd_destroy_qp(struct vdr_dev *dev);
u8 vdr_wc_opcode(u8 wr_opcode);
void vdr_qp_doorbell(struct vdr_dev *dev, struct vdr_qp *qp, u32 type);
void vdr_qp_set_err(struct vdr_dev *dev, struct vdr_qp *qp);
bool vdr_qp_flush(struct vdr_dev *dev, struct vdr_qp *qp);
void vdr_qps_destroy(struct vdr_dev *dev);

/* vdr_srq.c */
int vdr_cmd_create_srq(struct vdr_dev *dev);
int vdr_cmd_modify_srq(struct vdr_dev *dev);
int vdr_cmd_query_srq(struct vdr_dev *dev);
int vdr_cmd_destroy_srq(struct vdr_dev *dev);
int vdr_srq_take(struct vdr_srq *srq, struct virtio_rdma_rq_wqe *wqe,
		 struct virtio_rdma_sge *sge, bool *limit_hit);
int vdr_srq_take_locked(struct vdr_srq *srq, struct virtio_rdma_rq_wqe *wqe,
			struct virtio_rdma_sge *sge, bool *limit_hit);
bool vdr_srq_xrc_ok(const struct vdr_srq *srq, const struct vdr_xrcd *xrcd,
		    const struct vdr_srq *msg_srq, bool cont);
void vdr_srqs_destroy(struct vdr_dev *dev);

/* vdr_tm.c */
int vdr_tm_srq_check(struct vdr_dev *dev,
		     const struct virtio_rdma_create_srq_req *req);
int vdr_tm_srq_init(struct vdr_dev *dev, struct vdr_srq *srq,
		    const struct virtio_rdma_create_srq_req *req);
void vdr_tm_srq_fini(struct vdr_dev *dev, struct vdr_srq *srq);
void vdr_tm_srq_doorbell(struct vdr_srq *srq);
void vdr_tm_srqs_stop(struct vdr_dev *dev);
void vdr_tm_srqs_resume(struct vdr_dev *dev);
void vdr_tm_srq_release(struct vdr_srq *srq, u32 handle);
int vdr_tm_qp_create(struct vdr_qp *qp);
void vdr_tm_qp_free(struct vdr_qp *qp);
bool vdr_tm_sq_room(const struct vdr_qp *qp);
void vdr_tm_rndv_start(struct vdr_qp *qp, const struct vdr_tm_entry *e,
		       const u8 *payload);
void vdr_tm_sq_flush(struct vdr_dev *dev, struct vdr_qp *qp);

/* vdr_resp.c */
void vdr_resp_srq_flush(struct vdr_dev *dev, struct vdr_qp *qp);
void vdr_resp_srq_gone(struct vdr_qp *qp, struct vdr_srq *srq);

/* vdr_gid.c */
int vdr_cmd_add_gid(struct vdr_dev *dev);
int vdr_cmd_del_gid(struct vdr_dev *dev);
void vdr_gids_clear(struct vdr_dev *dev);

/* vdr_stats.c */
void vdr_cmd_query_stats(struct vdr_dev *dev);

#endif /* _VDPA_RDMA_H */
