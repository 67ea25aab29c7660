/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vdpa_rdma: the RoCEv2 transport (data path): memory access through MRs
 * (mem.c) and the UDP socket and IP encapsulation (net.c).
 */
#ifndef _VDPA_RDMA_XPORT_H
#define _VDPA_RDMA_XPORT_H

#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/virtio_rdma.h>

struct vrdma_dev;
struct vrdma_pd;
struct vrdma_mr;

/* Per-device transport state (dev->xdev). */
struct vrdma_xdev {
	struct vrdma_dev *dev;
	struct list_head net_entry;	/* struct vrdma_net devs */
	struct net *net;		/* NULL once detached */
	struct sk_buff_head rxq;	/* received, for the worker */
};

/* ---- mem.c ---- */

/*
 * Errors of the key checks (spec "Key checks"), in the order they are
 * made.  The requester maps every one of them to LOC_PROT_ERR, the
 * responder to a remote access error NAK.
 */
#define VRDMA_MEM_ENOKEY	(-ENOKEY)	/* no MR or key byte mismatch */
#define VRDMA_MEM_EPD		(-EPERM)	/* MR of another PD */
#define VRDMA_MEM_EINVALID	(-EKEYREVOKED)	/* free fast-reg MR */
#define VRDMA_MEM_EACCESS	(-EACCES)	/* access right not granted */
#define VRDMA_MEM_ERANGE	(-ERANGE)	/* outside the MR */
#define VRDMA_MEM_EFAULT	(-EFAULT)	/* page not reachable */

/* Atomic operations on 8 bytes of MR memory. */
enum vrdma_atomic_op {
	VRDMA_ATOMIC_CMP_SWP,
	VRDMA_ATOMIC_FETCH_ADD,
};

/* Direction of a copy between a linear buffer and MR memory. */
enum vrdma_copy_dir {
	VRDMA_TO_MEM,		/* buffer -> memory */
	VRDMA_FROM_MEM,		/* memory -> buffer */
};

struct vrdma_mr *vrdma_mr_check(struct vrdma_dev *dev, struct vrdma_pd *pd,
				u32 key, u32 access, u64 addr, u64 len,
				int *err);
int vrdma_mr_copy(struct vrdma_dev *dev, struct vrdma_mr *mr, u64 addr,
		  void *buf, u32 len, enum vrdma_copy_dir dir);
int vrdma_mr_atomic(struct vrdma_dev *dev, struct vrdma_mr *mr, u64 addr,
		    enum vrdma_atomic_op op, u64 compare_add, u64 swap,
		    u64 *orig);

int vrdma_sgl_check(struct vrdma_dev *dev, struct vrdma_pd *pd,
		    const struct virtio_rdma_sge *sge, u32 num, u32 access,
		    u64 *total);
int vrdma_sgl_copy(struct vrdma_dev *dev, struct vrdma_pd *pd,
		   const struct virtio_rdma_sge *sge, u32 num, u32 access,
		   u64 offset, void *buf, u32 len, enum vrdma_copy_dir dir);

int vrdma_mr_fast_reg(struct vrdma_dev *dev, struct vrdma_pd *pd,
		      const struct virtio_rdma_wqe_reg_mr *wr);
int vrdma_mr_invalidate(struct vrdma_dev *dev, struct vrdma_pd *pd, u32 key);

/* ---- net.c ---- */

/* Room in front of a RoCE packet for the link, IP and UDP headers. */
#define VRDMA_NET_HEADROOM	(LL_MAX_HEADER + 40 + 8)

int vrdma_net_register(void);
void vrdma_net_unregister(void);
int vrdma_net_attach(struct vrdma_dev *dev, struct net_device *ndev);
void vrdma_net_detach(struct vrdma_dev *dev);
void vrdma_net_free(struct vrdma_dev *dev);
struct sk_buff *vrdma_net_rx_dequeue(struct vrdma_dev *dev);

/* ---- recv.c ---- */
bool vrdma_rx_process(struct vrdma_dev *dev);

struct sk_buff *vrdma_net_alloc_skb(struct vrdma_dev *dev, unsigned int len);
int vrdma_net_prepare(struct vrdma_dev *dev, const struct virtio_rdma_av *av,
		      struct sk_buff *skb, u16 sport);
int vrdma_net_send(struct vrdma_dev *dev, struct sk_buff *skb);
u16 vrdma_net_sport(const struct virtio_rdma_av *av, u32 lqpn, u32 rqpn);

#endif /* _VDPA_RDMA_XPORT_H */
