/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma guest driver: shared definitions.
 *
 * The device ABI is include/uapi/linux/virtio_rdma.h, specified by
 * Documentation/virtio-rdma-spec.rst.
 *
 * Concurrency model
 * -----------------
 * The driver has no thread of its own: verbs run in their callers'
 * contexts and the device's notifications arrive as virtqueue callbacks.
 *
 * - Control commands: added to and reaped from the controlq under
 *   dev->ctrl_lock (irq-safe, never held while waiting); the caller sleeps
 *   until the device answers, or the command times out and the device is
 *   marked broken, keeping what the device may still use on
 *   dev->orphans/orphan_rings/orphan_umems until reset: nothing the device
 *   may reach (buffers, rings, pinned user pages) is freed before the
 *   device has confirmed the object gone or has been reset.
 * - Data path: kernel QPs write WQEs into their rings under qp->sq_lock /
 *   qp->rq_lock, kernel SRQs under srq->lock; a CQ's ring head and arm sequence are under cq->lock,
 *   which destroy_qp also takes to fence pollers.  User QPs and CQs never
 *   enter the kernel on the data path (the provider owns their rings).
 * - Doorbells: any CPU, on the doorbellq picked by the CPU, under
 *   dbq->lock (irq-safe: kernel ULPs post from any context).  Ringing never
 *   waits: when that doorbellq and the QP's home doorbellq are both full the
 *   doorbell is owed (qp->db_owed and qp->db_link, under the home dbq->lock)
 *   and the home doorbellq's callback, armed only while something is owed,
 *   sends it when the device returns a record.  destroy_qp unlinks the QP
 *   under the same lock.
 * - Events: each eventq's callback under eventq->lock.
 * - qp->modify_lock serialises modify_qp with the QP's own state cache;
 *   dev->netdev_lock covers the bound netdev pointer.
 *
 * Lock order: qp->modify_lock -> dev->ctrl_lock; cq->lock, qp->sq_lock,
 * qp->rq_lock, srq->lock and dbq->lock are innermost and never held across a command
 * (nor two dbq->locks at once).
 *
 * Logging: ibdev_*() where only a registered ib_device is involved (verbs,
 * CQ and QP events, doorbells); dev_*() on the virtio device for what also
 * runs during probe, before registration (control commands, the event
 * queues, binding to the netdev).
 */
#ifndef VIRTIO_RDMA_H
#define VIRTIO_RDMA_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/virtio.h>
#include <linux/xarray.h>
#include <linux/virtio_rdma.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#define VRDMA_PORT			1
#define VRDMA_PKEY_DEFAULT		0xffff
/* A TM-SRQ's ops stride is 64 << ops_shift, ops_shift 0..3 (spec). */
#define VRDMA_TM_MAX_OPS_SHIFT		3

/* Limits of the device, from QUERY_DEVICE, in CPU byte order. */
struct vrdma_caps {
	u64 fw_ver;
	u64 max_mr_size;
	u64 page_size_cap;
	u64 device_cap_flags;
	__be64 node_guid;
	__be64 sys_image_guid;
	u32 vendor_id;
	u32 vendor_part_id;
	u32 hw_ver;
	u32 max_qp;
	u32 max_qp_wr;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_sge_rd;
	u32 max_cq;
	u32 max_cqe;
	u32 max_mr;
	u32 max_pd;
	u32 max_qp_rd_atom;
	u32 max_qp_init_rd_atom;
	u32 max_ah;
	u32 max_fast_reg_page_list_len;
	u32 max_inline_data;
	u32 max_msg_sz;
	u16 max_pkeys;
	u8 local_ca_ack_delay;
	u8 atomic_cap;
	u8 max_sq_wqe_shift;
	u8 max_rq_wqe_shift;
	/* 0 without VIRTIO_RDMA_F_SRQ */
	u32 max_srq;
	u32 max_srq_wr;
	u32 max_srq_sge;
	u32 max_mw;		/* 0 without VIRTIO_RDMA_F_MW */
	u32 max_mkey_entries;	/* 0 without VIRTIO_RDMA_F_INDIRECT_MKEY */
	/* 0 without VIRTIO_RDMA_F_TM_SRQ */
	u32 max_tm_tags;
	u32 max_tm_ops;
	u32 max_tm_sge;
	u32 max_rndv_hdr_size;
};

/* What a kernel consumer posted in a ring slot (vrdma_wrid.c). */
struct vrdma_wrid {
	u64 wr_id;
	u32 len;		/* receives: the bytes their SGEs hold */
	bool posted;		/* a CQE may name it */
};

/* An SQ, RQ or CQ ring in driver memory (spec: "Rings"; vrdma_ring.c). */
struct vrdma_ring {
	void *buf;
	dma_addr_t dma;		/* what commands carry: the ring or its page list */
	size_t size;
	u32 depth;		/* power of two */
	u32 shift;		/* log2 of the entry stride */
	u32 head;		/* the index this side owns: SQ/RQ prod, CQ cons */
	/* VIRTIO_RDMA_F_RING_PAGES: the pages, and their list for the device */
	struct page **pages;
	unsigned int npages;
	__le64 *pl;
	dma_addr_t pl_dma;
	/* Kernel SQ, RQ, SRQ: one per slot, out of the device's reach */
	struct vrdma_wrid *wrids;
	/*
	 * Kernel SRQ: the free entries of wrids, taken when a receive is
	 * posted and given back when its completion is polled (vrdma_wrid.c).
	 */
	u32 *wrid_free;
	u32 wrid_nfree;
	spinlock_t wrid_lock;	/* wrid_free; taken inside srq->lock, cq->lock */
};

static inline struct virtio_rdma_ring_ctl *vrdma_ring_ctl(struct vrdma_ring *r)
{
	return r->buf;
}

static inline void *vrdma_ring_entry(struct vrdma_ring *r, u32 idx)
{
	return r->buf + virtio_rdma_ring_entry_offset(idx, r->depth, r->shift);
}

struct vrdma_eventq {
	struct virtqueue *vq;
	/* Held while events are handled, so destroy can fence them. */
	spinlock_t lock;
	struct virtio_rdma_event *bufs;
	unsigned int nbufs;
};

struct vrdma_dbq {
	struct virtqueue *vq;
	spinlock_t lock;		/* vq, the free stack, the owed list */
	struct virtio_rdma_doorbell *recs;
	u16 *free;		/* stack of free record slots */
	unsigned int nfree;
	unsigned int nrecs;
	/* Doorbell sources (vrdma_db.link) whose home this is, owed one */
	struct list_head owed;
};

/*
 * What rings doorbells: a QP (its SQ and RQ) or a TM-SRQ (its ops ring).
 * Doorbells owed while the doorbellqs were full: BIT(VIRTIO_RDMA_DOORBELL_*)
 * in @owed and @link on the home doorbellq's owed list, under its lock.
 */
struct vrdma_db {
	u32 handle;
	u8 owed;
	struct list_head link;
};

struct vrdma_dev {
	struct ib_device ib;
	struct virtio_device *vdev;
	struct device *dma_dev;
	/* Lent to a dma_dev that has none (software vDPA parents) */
	struct device_dma_parameters dma_parms;
	bool dev_dma_parms_lent;

	/* vrdma_devs list and netdev binding, under vrdma_devs_lock */
	struct list_head list;
	bool registered;
	bool netdev_lost;
	/* Bound netdev, NULL once it unregistered; readers take netdev_lock. */
	spinlock_t netdev_lock;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	u8 mac[ETH_ALEN];
	enum ib_port_state port_state;	/* last state dispatched */

	/* Control queue */
	struct virtqueue *ctrlq;
	spinlock_t ctrl_lock;		/* ctrlq, broken, orphan lists */
	bool broken;			/* a command timed out or DEVICE_FATAL */
	struct list_head orphans;	/* timed-out commands, freed after reset */
	struct list_head orphan_rings;	/* rings of objects a broken device kept */
	struct list_head orphan_umems;	/* MR pages a broken device may reach */

	unsigned int npairs;
	struct vrdma_eventq *evqs;
	struct vrdma_dbq *dbqs;
	char **vq_names;

	struct vrdma_caps caps;
	bool atomic;
	bool mr_replace;	/* VIRTIO_RDMA_F_MR_REPLACE: rereg keeps keys */
	bool srq;		/* VIRTIO_RDMA_F_SRQ */
	bool resize;		/* VIRTIO_RDMA_F_RESIZE: CQ resize */
	bool mw;		/* VIRTIO_RDMA_F_MW: memory windows */
	bool mkey;		/* VIRTIO_RDMA_F_INDIRECT_MKEY */
	bool ring_pages;	/* VIRTIO_RDMA_F_RING_PAGES: rings of single pages */
	bool xrc;		/* VIRTIO_RDMA_F_XRC (only with VIRTIO_RDMA_F_SRQ) */
	bool tm;		/* VIRTIO_RDMA_F_TM_SRQ (only with VIRTIO_RDMA_F_SRQ) */
	struct virtio_rdma_query_port_resp port;	/* at probe */
	u32 gid_tbl_len;
	u8 max_mtu;

	struct xarray cqs;	/* handle -> vrdma_cq, for events */
	/*
	 * handle -> vrdma_qp, for events and CQEs; an XRC_TGT QP only once
	 * it left RESET (vrdma_modify_qp())
	 */
	struct xarray qps;
	struct xarray srqs;	/* handle -> vrdma_srq, for events */

	struct dentry *debugfs;	/* CONFIG_INFINIBAND_VIRTIO_RDMA_RAW_CMD */
	/* Values the device must not have produced, rejected (vrdma_dev_err) */
	atomic_t dev_errors;
};

/*
 * The device wrote something the spec rules out (a CQE, an event or a
 * command response): counted, and logged at a rate it cannot flood.
 */
#define vrdma_dev_err(dev, fmt, ...)					\
	do {								\
		struct vrdma_dev *__vd = (dev);				\
									\
		atomic_inc(&__vd->dev_errors);				\
		ibdev_warn_ratelimited(&__vd->ib, fmt, ##__VA_ARGS__);	\
	} while (0)

struct vrdma_ucontext {
	struct ib_ucontext ibuc;
};

struct vrdma_pd {
	struct ib_pd ibpd;
	u32 handle;
};

struct vrdma_cq {
	struct ib_cq ibcq;
	u32 handle;
	u32 eventq;
	spinlock_t lock;		/* ring head and arm_sn; fences destroy_qp */
	u32 arm_sn;
	/*
	 * Its QPs by handle, as send or receive CQ: a CQE naming any other
	 * QP is the device's error, and that QP's destroy does not fence
	 * this CQ's poll (vrdma_qp_unpublish()).
	 */
	struct xarray qps;
	struct vrdma_ring ring;
	/* Serialises resizes: uverbs lets two of them run on one CQ. */
	struct mutex resize_lock;
	/*
	 * Kernel CQ, while RESIZE_CQ is outstanding (under @lock): the ring
	 * the device is switching to, which gets every cons and arm word
	 * stored to @ring first (spec "RESIZE_CQ").
	 */
	bool resizing;
	struct vrdma_ring next;
	/* User CQ: the mmap entry that owns the ring (vrdma_uverbs.c) */
	struct rdma_user_mmap_entry *ring_umap;
};

/*
 * A QP.  XRC_INI QPs (user space only) have an SQ and a send CQ but no
 * receive side; XRC_TGT QPs have neither rings nor CQs nor a PD (their
 * receives come from the XRC SRQ each packet names), and no doorbells.
 */
struct vrdma_qp {
	struct ib_qp ibqp;
	u32 handle;
	/* Serialises MODIFY_QP so that ->state matches the device. */
	struct mutex modify_lock;
	enum ib_qp_state state;
	u8 sq_sig_all;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
	spinlock_t sq_lock;		/* sq ring head */
	spinlock_t rq_lock;		/* rq ring head */
	struct vrdma_ring sq;
	struct vrdma_ring rq;
	struct vrdma_db db;	/* SQ and RQ doorbells; db.handle is @handle */
	/* User QP: doorbells only; mmap entries own the rings (vrdma_uverbs.c) */
	bool user;
	struct rdma_user_mmap_entry *sq_umap;
	struct rdma_user_mmap_entry *rq_umap;
};

struct vrdma_srq {
	struct ib_srq ibsrq;
	u32 handle;
	u32 max_sge;
	spinlock_t lock;		/* ring head of a kernel SRQ */
	struct vrdma_ring ring;
	/* User SRQ: the mmap entry that owns the ring (vrdma_uverbs.c) */
	bool user;
	struct rdma_user_mmap_entry *ring_umap;
	/*
	 * TM-SRQ (user space only): the ops area (ring_ctl, ops, then the
	 * release words), its mmap entry and its doorbell.
	 */
	struct vrdma_ring ops;
	struct rdma_user_mmap_entry *ops_umap;
	u32 max_num_tags;
	struct vrdma_db db;
};

struct vrdma_mw {
	struct ib_mw ibmw;
	u32 handle;
};

struct vrdma_xrcd {
	struct ib_xrcd ibxrcd;
	u32 handle;
};

struct vrdma_mr {
	struct ib_mr ibmr;
	u32 handle;
	struct ib_umem *umem;
	int access;		/* user MRs: as registered, for rereg */
	/* Fast-registration page list, device-readable for the MR's life. */
	__le64 *pl;
	dma_addr_t pl_dma;
	u32 pl_max;
	u32 npages;
};

struct vrdma_ah {
	struct ib_ah ibah;
	struct virtio_rdma_av av;
};

static inline struct vrdma_dev *to_vdev(struct ib_device *ib)
{
	return container_of(ib, struct vrdma_dev, ib);
}

static inline struct vrdma_pd *to_vpd(struct ib_pd *pd)
{
	return container_of(pd, struct vrdma_pd, ibpd);
}

static inline struct vrdma_cq *to_vcq(struct ib_cq *cq)
{
	return container_of(cq, struct vrdma_cq, ibcq);
}

static inline struct vrdma_qp *to_vqp(struct ib_qp *qp)
{
	return container_of(qp, struct vrdma_qp, ibqp);
}

static inline struct vrdma_srq *to_vsrq(struct ib_srq *srq)
{
	return container_of(srq, struct vrdma_srq, ibsrq);
}

static inline struct vrdma_mr *to_vmr(struct ib_mr *mr)
{
	return container_of(mr, struct vrdma_mr, ibmr);
}

static inline struct vrdma_mw *to_vmw(struct ib_mw *mw)
{
	return container_of(mw, struct vrdma_mw, ibmw);
}

static inline struct vrdma_xrcd *to_vxrcd(struct ib_xrcd *xrcd)
{
	return container_of(xrcd, struct vrdma_xrcd, ibxrcd);
}

static inline struct vrdma_ah *to_vah(struct ib_ah *ah)
{
	return container_of(ah, struct vrdma_ah, ibah);
}

/* vrdma_ctrl.c */
int vrdma_cmd(struct vrdma_dev *dev, u32 cmd, const void *req, size_t req_len,
	      void *resp, size_t resp_len);
int vrdma_cmd_raw(struct vrdma_dev *dev, const void *out, size_t out_len,
		  void *in, size_t in_len, u32 *used);
void vrdma_ctrlq_done(struct virtqueue *vq);
void vrdma_ctrl_cleanup(struct vrdma_dev *dev);
void vrdma_mark_broken(struct vrdma_dev *dev, const char *why);
void vrdma_orphan_ring(struct vrdma_dev *dev, struct vrdma_ring *ring);
void vrdma_orphan_umem(struct vrdma_dev *dev, struct ib_umem *umem);
int vrdma_check_handle(struct vrdma_dev *dev, const char *kind, u32 handle,
		       u32 min, u32 max);
bool vrdma_create_undo(struct vrdma_dev *dev, const char *kind, u32 handle,
		       int err, u32 cmd, const void *dreq, size_t dlen);

/* vrdma_ring.c */
bool vrdma_ring_pages_ok(struct device *dma_dev);
int vrdma_ring_alloc(struct vrdma_dev *dev, struct vrdma_ring *ring,
		     u32 depth, u32 shift, bool user);
int vrdma_ring_alloc_tail(struct vrdma_dev *dev, struct vrdma_ring *ring,
			  u32 depth, u32 shift, size_t tail, bool user);
void vrdma_ring_release(struct device *dma_dev, struct vrdma_ring *ring);
int vrdma_ring_mmap(struct vrdma_ring *ring, struct vm_area_struct *vma);
/* vrdma_cq.c */
void vrdma_ring_free(struct vrdma_dev *dev, struct vrdma_ring *ring);

/* vrdma_event.c */
int vrdma_eventqs_init(struct vrdma_dev *dev);
void vrdma_eventqs_free(struct vrdma_dev *dev);
void vrdma_dbq_setup(struct vrdma_dbq *dbq, struct virtqueue *vq);
int vrdma_dbqs_init(struct vrdma_dev *dev);
void vrdma_dbqs_free(struct vrdma_dev *dev);
void vrdma_eventq_done(struct virtqueue *vq);
void vrdma_eventqs_fence(struct vrdma_dev *dev);
void vrdma_dbq_done(struct virtqueue *vq);
void vrdma_db_init(struct vrdma_db *db, u32 handle);
int vrdma_db_ring(struct vrdma_dev *dev, struct vrdma_db *db, u32 type);
void vrdma_db_forget(struct vrdma_dev *dev, struct vrdma_db *db);
int vrdma_ring_doorbell(struct vrdma_qp *qp, u32 type);
void vrdma_doorbells_forget(struct vrdma_qp *qp);

/* vrdma_device.c */
int vrdma_query_device_caps(struct vrdma_dev *dev);
int vrdma_query_port_caps(struct vrdma_dev *dev);
int vrdma_query_device(struct ib_device *ib, struct ib_device_attr *attr,
		       struct ib_udata *udata);
int vrdma_query_port(struct ib_device *ib, u32 port,
		     struct ib_port_attr *attr);
int vrdma_query_pkey(struct ib_device *ib, u32 port, u16 index, u16 *pkey);
int vrdma_get_port_immutable(struct ib_device *ib, u32 port,
			     struct ib_port_immutable *immutable);
enum rdma_link_layer vrdma_get_link_layer(struct ib_device *ib, u32 port);
void vrdma_get_fw_str(struct ib_device *ib, char *str);
void vrdma_port_event(struct vrdma_dev *dev, enum ib_port_state state);
enum ib_port_state vrdma_netdev_port_state(struct vrdma_dev *dev);
int vrdma_netdev_init(void);
void vrdma_netdev_exit(void);
int vrdma_bind_netdev(struct vrdma_dev *dev);
void vrdma_unbind_netdev(struct vrdma_dev *dev);
void vrdma_registered(struct vrdma_dev *dev);
void vrdma_devs_lock(void);
void vrdma_devs_unlock(void);

/* vrdma_gid.c */
int vrdma_add_gid(const struct ib_gid_attr *attr, void **context);
int vrdma_del_gid(const struct ib_gid_attr *attr, void **context);

/* vrdma_pd.c */
int vrdma_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int vrdma_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);

/* vrdma_cq.c */
int vrdma_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct uverbs_attr_bundle *attrs);
int vrdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int vrdma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int vrdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
extern const struct ib_device_ops vrdma_resize_ops;
int vrdma_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);

/* vrdma_qp.c */
u8 vrdma_qp_type(enum ib_qp_type type);
int vrdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int vrdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int vrdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int vrdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

/* vrdma_mw.c */
extern const struct ib_device_ops vrdma_mw_ops;
int vrdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int vrdma_dealloc_mw(struct ib_mw *ibmw);

/* vrdma_xrcd.c */
extern const struct ib_device_ops vrdma_xrcd_ops;
int vrdma_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int vrdma_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/* vrdma_mkey.c */
extern const struct uapi_definition vrdma_uapi_defs[];

/* vrdma_srq.c */
extern const struct ib_device_ops vrdma_srq_ops;
int vrdma_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int vrdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int vrdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int vrdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int vrdma_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* vrdma_wr.c */
int vrdma_copy_sges(struct virtio_rdma_sge *dst, const struct ib_sge *src,
		    int num, u32 max);
bool vrdma_ring_full(struct vrdma_ring *ring);
int vrdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int vrdma_ring_put_recvs(struct vrdma_ring *ring,
			 const struct ib_recv_wr **wr, u32 max_sge);
int vrdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);

/* vrdma_wrid.c */
int vrdma_wrids_alloc(struct vrdma_ring *ring, bool any_order);
void vrdma_wrids_free(struct vrdma_ring *ring);
__le64 vrdma_wrid_send(struct vrdma_ring *sq, u64 wr_id);
int vrdma_wrid_recv(struct vrdma_ring *rq, const struct ib_recv_wr *wr,
		    __le64 *token);
bool vrdma_wrid_take(struct vrdma_qp *qp, const struct virtio_rdma_cqe *cqe,
		     struct vrdma_wrid *w);
void vrdma_cq_srq_forget(struct vrdma_cq *cq, struct vrdma_qp *qp);

/* vrdma_mr.c */
struct ib_mr *vrdma_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *vrdma_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata);
struct ib_mr *vrdma_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			     u32 max_num_sg);
int vrdma_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
struct ib_mr *vrdma_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *pd, struct ib_udata *udata);
int vrdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* vrdma_ah.c */
int vrdma_av_from_attr(struct vrdma_dev *dev, struct virtio_rdma_av *av,
		       const struct rdma_ah_attr *attr);
int vrdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int vrdma_destroy_ah(struct ib_ah *ibah, u32 flags);

/* vrdma_uverbs.c */
int vrdma_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void vrdma_dealloc_ucontext(struct ib_ucontext *uctx);
void vrdma_disassociate_ucontext(struct ib_ucontext *uctx);
int vrdma_query_ucontext(struct ib_ucontext *uctx,
			 struct uverbs_attr_bundle *attrs);
int vrdma_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void vrdma_mmap_free(struct rdma_user_mmap_entry *e);
void vrdma_user_ring_release(struct vrdma_ring *ring,
			     struct rdma_user_mmap_entry **entry, bool busy);
int vrdma_ucq_check(struct ib_udata *udata);
int vrdma_ucq_respond(struct vrdma_dev *dev, struct vrdma_cq *cq,
		      struct ib_udata *udata);
int vrdma_ucq_resize_check(struct ib_udata *udata);
int vrdma_ucq_resize_ring(struct vrdma_dev *dev, struct ib_udata *udata,
			  struct vrdma_ring *ring,
			  struct rdma_user_mmap_entry **entry);
int vrdma_ucq_resize_respond(struct vrdma_cq *cq, struct ib_udata *udata);
int vrdma_uqp_check(struct vrdma_dev *dev, struct ib_udata *udata,
		    int *sq_shift, int *rq_shift);
int vrdma_uqp_respond(struct vrdma_dev *dev, struct vrdma_qp *qp,
		      struct ib_udata *udata);
int vrdma_usrq_check(struct vrdma_dev *dev, struct ib_udata *udata, bool tm,
		     u32 *max_ops);
int vrdma_usrq_respond(struct vrdma_dev *dev, struct vrdma_srq *srq,
		       struct ib_udata *udata);

/* vrdma_stats.c */
struct rdma_hw_stats *vrdma_alloc_hw_port_stats(struct ib_device *ib,
						u32 port);
int vrdma_get_hw_stats(struct ib_device *ib, struct rdma_hw_stats *stats,
		       u32 port, int index);

/* vrdma_debugfs.c: the raw_cmd test interface, a debug option */
#if IS_ENABLED(CONFIG_INFINIBAND_VIRTIO_RDMA_RAW_CMD)
void vrdma_debugfs_init(void);
void vrdma_debugfs_exit(void);
void vrdma_debugfs_add(struct vrdma_dev *dev);
void vrdma_debugfs_remove(struct vrdma_dev *dev);
#else
static inline void vrdma_debugfs_init(void) {}
static inline void vrdma_debugfs_exit(void) {}
static inline void vrdma_debugfs_add(struct vrdma_dev *dev) {}
static inline void vrdma_debugfs_remove(struct vrdma_dev *dev) {}
#endif

#endif /* VIRTIO_RDMA_H */
