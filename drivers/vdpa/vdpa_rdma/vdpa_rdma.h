/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vdpa_rdma: a vDPA parent that emulates a virtio-rdma device
 * (Documentation/virtio-rdma-spec.rst) on top of an Ethernet netdev.
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
#include <linux/xarray.h>
#include <linux/virtio_rdma.h>

#define VRDMA_VENDOR_ID			0x1af4
#define VRDMA_VENDOR_PART_ID		(0x1040 + VIRTIO_ID_RDMA)
#define VRDMA_HW_VER			1
#define VRDMA_FW_VER			1

#define VRDMA_DEF_QUEUE_PAIRS		4
#define VRDMA_MAX_QUEUE_PAIRS		64
#define VRDMA_VQ_NUM_MAX		256

/* Device limits; QUERY_DEVICE reports exactly these (spec "Limits"). */
#define VRDMA_MAX_QP			1024
#define VRDMA_MAX_QP_WR			4096
#define VRDMA_MAX_SGE			16
#define VRDMA_MAX_SGE_RD		16
#define VRDMA_MAX_INLINE		192
#define VRDMA_MAX_SQ_WQE_SHIFT		3
#define VRDMA_MAX_RQ_WQE_SHIFT		5
#define VRDMA_MAX_CQ			1024
#define VRDMA_MAX_CQE			8192
#define VRDMA_MAX_PD			1024
#define VRDMA_MAX_MR			4096
#define VRDMA_MAX_FRPL_LEN		512
#define VRDMA_MAX_MR_SIZE		BIT_ULL(40)
#define VRDMA_PAGE_SIZE_CAP		0x3ff000ULL
#define VRDMA_MAX_MSG_SZ		BIT(31)
#define VRDMA_MAX_RD_ATOM		16
#define VRDMA_MAX_AH			65536
#define VRDMA_LOCAL_CA_ACK_DELAY	15
#define VRDMA_GID_TBL_LEN		64

#define VRDMA_QPN_MAX			((1U << 24) - 1)
#define VRDMA_MR_INDEX_MAX		((1U << 24) - 1)

#define VRDMA_ACCESS_ALL	(VIRTIO_RDMA_ACCESS_LOCAL_WRITE | \
				 VIRTIO_RDMA_ACCESS_REMOTE_WRITE | \
				 VIRTIO_RDMA_ACCESS_REMOTE_READ | \
				 VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC)

struct vrdma_dev;
struct vrdma_xdev;

struct vrdma_vq {
	struct vringh vring;
	struct vringh_kiov riov;
	struct vringh_kiov wiov;
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
struct vrdma_event {
	struct list_head entry;
	u32 type;
	u32 handle;
	u32 data;
	u16 eventq;
	bool pending;
};

/* A ring (SQ, RQ or CQ) in driver memory, mapped into the kernel. */
struct vrdma_ring {
	void *vmap_base;
	struct virtio_rdma_ring_ctl *ctl;
	void *entries;
	u64 addr;
	u32 depth;
	u32 stride;
};

/* An SQ/RQ notify this far ahead of prod asks for no doorbell (spec). */
#define VRDMA_NOTIFY_OFF	0x80000000U

struct vrdma_pd {
	u32 handle;
	u32 refs;		/* MRs and QPs in the PD */
	struct rcu_head rcu;
};

enum vrdma_mr_kind {
	VRDMA_MR_DMA,
	VRDMA_MR_USER,
	VRDMA_MR_FAST,
};

struct vrdma_mr {
	u32 index;
	u32 key;
	enum vrdma_mr_kind kind;
	bool valid;		/* FAST MRs start free */
	u32 access;
	struct vrdma_pd *pd;
	u64 iova;
	u64 length;
	u32 page_shift;
	u32 npages;
	u32 max_pages;		/* FAST */
	u64 page_list_addr;	/* FAST: driver-owned page list */
	u64 *pages;		/* USER, FAST after REG_MR: DMA addresses */
	struct rcu_head rcu;
};

struct vrdma_cq {
	u32 handle;
	u32 eventq;
	u32 nr_qps;
	/* Serialises CQE producers; the data path posts from several contexts. */
	spinlock_t lock;
	struct vrdma_ring ring;
	u32 prod;		/* the device's copy; ring memory is untrusted */
	bool overflow;
	struct vrdma_event comp_ev;
	struct vrdma_event err_ev;
	struct rcu_head rcu;
};

enum {
	VRDMA_QP_EV_FATAL,
	VRDMA_QP_EV_REQ_ERR,
	VRDMA_QP_EV_ACCESS_ERR,
	VRDMA_QP_EV_SQ_DRAINED,
	VRDMA_QP_EV_COMM_EST,
	VRDMA_QP_NR_EV,
};

struct vrdma_qp {
	u32 qpn;
	u8 type;
	u8 state;
	bool sq_sig_all;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
	struct vrdma_pd *pd;
	struct vrdma_cq *scq;
	struct vrdma_cq *rcq;
	struct vrdma_ring sq;
	struct vrdma_ring rq;		/* depth 0: no receive queue */
	u32 sq_cons;			/* device copies of the consumer indices */
	u32 rq_cons;
	struct virtio_rdma_qp_attr attr;	/* as last set by MODIFY_QP */
	struct vrdma_event ev[VRDMA_QP_NR_EV];
	struct vrdma_xqp *xqp;		/* transport state (xport.h) */
	struct rcu_head rcu;
};

struct vrdma_gid {
	bool valid;
	u32 type;
	u8 gid[16];
};

struct vrdma_dev {
	struct vdpa_device vdpa;
	struct list_head list;		/* vrdma_devs */
	char name[32];

	/* Serialises config ops, commands and doorbells against reset. */
	struct mutex lock;
	struct kthread_worker *worker;
	struct kthread_work work;
	bool running;
	u8 status;
	u32 generation;
	u64 features;
	u16 nqp;
	u16 nvqs;
	struct vrdma_vq *vqs;
	struct virtio_rdma_config config;

	/* Guest memory as the device sees it: identity or the vhost map. */
	spinlock_t iotlb_lock;
	struct vhost_iotlb iotlb;
	bool iotlb_pt;

	/* Bound netdev; NULL once it was unregistered (RCU for readers). */
	struct net_device __rcu *netdev;
	netdevice_tracker netdev_tracker;
	u8 mac[ETH_ALEN];
	bool port_active;
	bool fatal;

	/* Pending events per eventq, in the order they became pending. */
	spinlock_t ev_lock;
	struct list_head *ev_pending;
	struct vrdma_event port_active_ev;
	struct vrdma_event port_err_ev;
	struct vrdma_event fatal_ev;

	/* Object tables; changed only by commands, under @lock. */
	struct xarray pds;
	struct xarray mrs;
	struct xarray cqs;
	struct xarray qps;
	u32 pd_next, mr_next, cq_next, qp_next;
	u32 nr_pds, nr_mrs, nr_cqs, nr_qps;
	u8 key_seq;
	struct vrdma_gid gids[VRDMA_GID_TBL_LEN];

	atomic64_t stats[VIRTIO_RDMA_NUM_STATS];

	/* RoCEv2 transport state (xport.h); NULL while not attached. */
	struct vrdma_xdev *xdev;

	struct dentry *debugfs;		/* debugfs.c */

	/* Command buffers, used by the worker under @lock only. */
	union {
		struct virtio_rdma_query_port_req query_port;
		struct virtio_rdma_destroy_pd_req destroy_pd;
		struct virtio_rdma_get_dma_mr_req get_dma_mr;
		struct virtio_rdma_create_mr_req create_mr;
		struct virtio_rdma_alloc_mr_req alloc_mr;
		struct virtio_rdma_dereg_mr_req dereg_mr;
		struct virtio_rdma_create_cq_req create_cq;
		struct virtio_rdma_destroy_cq_req destroy_cq;
		struct virtio_rdma_create_qp_req create_qp;
		struct virtio_rdma_modify_qp_req modify_qp;
		struct virtio_rdma_query_qp_req query_qp;
		struct virtio_rdma_destroy_qp_req destroy_qp;
		struct virtio_rdma_add_gid_req add_gid;
		struct virtio_rdma_del_gid_req del_gid;
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
	} resp;
};

static inline struct vrdma_dev *vdpa_to_vrdma(struct vdpa_device *vdpa)
{
	return container_of(vdpa, struct vrdma_dev, vdpa);
}

static inline void vrdma_stat_inc(struct vrdma_dev *dev, unsigned int idx)
{
	atomic64_inc(&dev->stats[idx]);
}

static inline bool vrdma_has_feature(struct vrdma_dev *dev, unsigned int bit)
{
	return dev->features & BIT_ULL(bit);
}

/* vq.c */
void vrdma_vqs_reset(struct vrdma_dev *dev);
int vrdma_vq_ready(struct vrdma_dev *dev, struct vrdma_vq *vq);
void vrdma_vq_complete(struct vrdma_vq *vq, u32 len);
bool vrdma_vq_idle(struct vrdma_vq *vq);
void vrdma_work_fn(struct kthread_work *work);
void vrdma_schedule(struct vrdma_dev *dev);
int vrdma_mem_read(struct vrdma_dev *dev, u64 addr, void *buf, size_t len);
struct page *vrdma_translate(struct vrdma_dev *dev, u64 addr, u32 perm,
			     size_t *len, unsigned int *offset);
int vrdma_ring_map(struct vrdma_dev *dev, struct vrdma_ring *ring, u64 addr,
		   u32 depth, u32 stride);
void vrdma_ring_unmap(struct vrdma_ring *ring);

static inline void *vrdma_ring_entry(struct vrdma_ring *ring, u32 idx)
{
	return ring->entries + (size_t)(idx & (ring->depth - 1)) * ring->stride;
}

/* ctrl.c */
bool vrdma_ctrl_process(struct vrdma_dev *dev);

/* event.c */
void vrdma_event_init(struct vrdma_event *ev, u32 type, u32 handle, u16 eventq);
void vrdma_event_raise(struct vrdma_dev *dev, struct vrdma_event *ev, u32 data);

/* debugfs.c */
void vrdma_debugfs_add(struct vrdma_dev *dev);
void vrdma_debugfs_del(struct vrdma_dev *dev);
void vrdma_debugfs_init(void);
void vrdma_debugfs_exit(void);
void vrdma_event_cancel(struct vrdma_dev *dev, struct vrdma_event *ev);
void vrdma_events_discard(struct vrdma_dev *dev);
bool vrdma_events_deliver(struct vrdma_dev *dev, u16 eventq);
void vrdma_events_deliver_all(struct vrdma_dev *dev);

/* doorbell.c */
bool vrdma_doorbells_process(struct vrdma_dev *dev, u16 qidx);

/* netdev.c */
struct net_device *vrdma_netdev_find(const u8 *mac);
void vrdma_netdev_port_attr(struct vrdma_dev *dev,
			    struct virtio_rdma_query_port_resp *resp);
bool vrdma_netdev_port_active(struct net_device *ndev);
u8 vrdma_mtu_to_ib(unsigned int mtu);
u8 vrdma_active_mtu(struct vrdma_dev *dev);
int vrdma_netdev_register_notifier(void);
void vrdma_netdev_unregister_notifier(void);
void vrdma_dev_list_add(struct vrdma_dev *dev);
void vrdma_dev_list_del(struct vrdma_dev *dev);

/* pd.c */
int vrdma_cmd_create_pd(struct vrdma_dev *dev);
int vrdma_cmd_destroy_pd(struct vrdma_dev *dev);
struct vrdma_pd *vrdma_pd_get(struct vrdma_dev *dev, u32 handle);
void vrdma_pd_put(struct vrdma_pd *pd);
void vrdma_pds_destroy(struct vrdma_dev *dev);

/* mr.c */
int vrdma_cmd_get_dma_mr(struct vrdma_dev *dev);
int vrdma_cmd_create_mr(struct vrdma_dev *dev);
int vrdma_cmd_alloc_mr(struct vrdma_dev *dev);
int vrdma_cmd_dereg_mr(struct vrdma_dev *dev);
int vrdma_check_access(struct vrdma_dev *dev, u32 access, bool is_mr);
void vrdma_mrs_destroy(struct vrdma_dev *dev);

/* cq.c */
int vrdma_cmd_create_cq(struct vrdma_dev *dev);
int vrdma_cmd_destroy_cq(struct vrdma_dev *dev);
int vrdma_cq_post(struct vrdma_dev *dev, struct vrdma_cq *cq,
		  const struct virtio_rdma_cqe *cqe, bool solicited);
void vrdma_cqs_destroy(struct vrdma_dev *dev);

/* qp.c */
int vrdma_cmd_create_qp(struct vrdma_dev *dev);
int vrdma_cmd_modify_qp(struct vrdma_dev *dev);
int vrdma_cmd_query_qp(struct vrdma_dev *dev);
int vrdma_cmd_destroy_qp(struct vrdma_dev *dev);
u8 vrdma_wc_opcode(u8 wr_opcode);
void vrdma_qp_doorbell(struct vrdma_dev *dev, struct vrdma_qp *qp, u32 type);
void vrdma_qp_set_err(struct vrdma_dev *dev, struct vrdma_qp *qp);
void vrdma_qps_destroy(struct vrdma_dev *dev);

/* gid.c */
int vrdma_cmd_add_gid(struct vrdma_dev *dev);
int vrdma_cmd_del_gid(struct vrdma_dev *dev);
void vrdma_gids_clear(struct vrdma_dev *dev);

/* stats.c */
void vrdma_cmd_query_stats(struct vrdma_dev *dev);

#endif /* _VDPA_RDMA_H */
