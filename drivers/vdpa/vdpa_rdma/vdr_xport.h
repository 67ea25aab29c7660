/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: the RoCEv2 transport (data path): memory access through MRs
 * (vdr_mem.c) and the UDP socket and IP encapsulation (vdr_net.c).
 */
#ifndef _VDPA_RDMA_XPORT_H
#define _VDPA_RDMA_XPORT_H

#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/virtio_rdma.h>

#include "roce_hdr.h"
#include "roce_rel.h"
#include "vdpa_rdma.h"

struct vdr_dev;
struct vdr_pd;
struct vdr_mr;
struct vdr_qp;
struct roce_pkt;

/* Per-device transport state (dev->xdev). */
struct vdr_xdev {
	struct vdr_dev *dev;
	struct list_head net_entry;	/* struct vdr_net devs */
	struct list_head local_entry;	/* same-host destinations */
	struct net *net;		/* NULL once detached */
};

/* What a packet carries in skb->cb from reception until its QP runs. */
struct vdr_skb_cb {
	/* From the same-host path (vdr_net.c): there is no ICRC to check. */
	bool same_host;
	/*
	 * PSNs the packet stands for: 1 on the wire; a same-host segment
	 * (below) carries the payload of several packets of one message.
	 */
	u16 npsn;
};

#define VDR_SKB_CB(skb)	((struct vdr_skb_cb *)(skb)->cb)

/* A QP type's opcode base: the transport bits of its BTH opcodes. */
static inline u8 vdr_qpt_opc(u8 type)
{
	switch (type) {
	case VIRTIO_RDMA_QPT_RC:
		return ROCE_OPC_RC;
	case VIRTIO_RDMA_QPT_UC:
		return ROCE_OPC_UC;
	case VIRTIO_RDMA_QPT_XRC_INI:
	case VIRTIO_RDMA_QPT_XRC_TGT:
		return ROCE_OPC_XRC;
	default:
		return ROCE_OPC_UD;
	}
}

/*
 * Same-host segments.  A packet that never leaves this kernel need not be
 * cut at the path MTU: the requester (and the responder for READ
 * responses) sends up to this many bytes of one message in one packet,
 * whose PSN is that of its first path-MTU packet and which stands for all
 * of them (skb->cb npsn).  The receiver executes it as that run of
 * packets, so PSNs, ACKs, NAKs, windows and retransmission are those of
 * the wire; what it saves is the per-packet work (an skb, a queueing and
 * a wakeup, a parse, a QP lookup, an ACK decision) 8 to 32 times over.
 * 32 KiB of payload keeps the skb within an order-4 allocation; a
 * segment that cannot be allocated goes as one path-MTU packet.  The
 * module parameter same_host_seg lowers the bound (0: no segments).
 */
#define VDR_SEG_MAX_BYTES	(32 * 1024)

static inline u32 vdr_skb_npsn(const struct sk_buff *skb)
{
	return max_t(u32, VDR_SKB_CB(skb)->npsn, 1);
}

/*
 * The wire packets of one QP's run, sent together when the run ends
 * (vdr_net.c): the first is routed and carries the others in its
 * frag_list, as one UDP GSO packet.
 */
struct vdr_wire_batch {
	struct sk_buff *head;
	struct sk_buff *last;		/* of head's frag_list; NULL: none */
	u16 n;				/* packets, the head's included */
};

/* ---- per-QP transport state (vdr_xqp.c, vdr_req.c, vdr_resp.c, vdr_comp.c) ---- */

/* Progress of a send WQE between fetch and completion. */
enum vdr_swqe_state {
	VDR_SWQE_SENDING,	/* packets still to send */
	VDR_SWQE_SENT,	/* every packet sent, waiting for the answer */
	VDR_SWQE_DONE,	/* status final, waiting for in-order completion */
};

/* A private copy of a send WQE: ring memory is read once. */
struct vdr_swqe {
	struct virtio_rdma_sq_wqe wqe;
	union {
		struct virtio_rdma_sge sge[VDR_MAX_SGE];
		u8 inl[VDR_MAX_INLINE];
	};
	u32 len;		/* message length */
	u32 first_psn;
	u32 last_psn;		/* READ: of the last response packet */
	u32 read_off;		/* READ: bytes placed */
	u8 state;
	u8 status;		/* VIRTIO_RDMA_WC_* once DONE */
	bool started;		/* first_psn/last_psn assigned */
	bool rd_atomic;
	bool soft_err;		/* UD address errors: the QP stays usable */
	bool malformed;		/* failed ring validation: QP_FATAL (spec) */
};

/* Responder's record of a READ or atomic, to answer its duplicates. */
struct vdr_rdatom {
	bool valid;
	u8 opcode;
	u32 psn;
	u32 last_psn;
	u64 va;
	u32 rkey;
	u32 len;
	u64 orig;
};

/* Timeouts in a row counted for the backoff (roce_rel_backoff_ns()). */
#define VDR_TMO_BACKOFF_MAX	6

struct vdr_xqp {
	struct vdr_qp *qp;
	struct vdr_dev *dev;
	struct kthread_work work;	/* runs the QP on its engine */
	struct vdr_engine *engine;	/* vdr_engine.c */
	bool dead;			/* being destroyed: run no more */
	/* Handoff (vdr_xqp_send()); all under the QP's lock. */
	bool running;			/* in a run; read by vdr_xqp_wake() */
	bool may_hand;			/* this run may hand off (vdr_xqp.c) */
	bool wire;			/* its last packet took the wire */
	struct vdr_xqp *handoff;	/* locked receiver to run after this */
	struct vdr_wire_batch txb;	/* this run's wire packets */
	struct sk_buff_head rxq;	/* packets for this QP (encap_rcv) */
	unsigned long events;		/* VDR_XQP_EV_*: timers, doorbells */

	/* Requester */
	struct vdr_swqe *swq;		/* sq.depth entries */
	u32 sq_fetched;			/* WQEs below this index are copied */
	u32 sq_next;			/* WQE being sent */
	u32 req_off;			/* bytes of it sent */
	u32 req_psn;			/* next PSN to send */
	u32 sent_psn;			/* after the highest PSN sent */
	u32 acked_psn;			/* last PSN acknowledged */
	u32 mtu;
	u8 retry_left;
	u8 rnr_left;
	u8 tmo_backoff;			/* timeouts since progress: timer doubles */
	u32 cwnd;			/* unacknowledged packets at most */
	struct roce_rel_rtt rtt;	/* of first transmissions (Karn) */
	u64 rtt_t0;			/* when rtt_psn was sent */
	u32 rtt_psn;
	bool rtt_valid;			/* rtt_psn is being timed */
	bool probe_armed;		/* the timer is the tail-loss probe */
	bool probed;			/* probe sent since the last progress */
	bool probing;			/* only probe_psn goes until an answer */
	u32 probe_psn;
	/* Bounded polling of a streaming SQ that drained (vdr_req_fetch()). */
	bool sq_behind;			/* newest WQE fetched behind others */
	bool sq_streaming;		/* that, or behind an unsignaled one */
	bool sq_small;			/* newest WQE fits one packet */
	/*
	 * Newest WQE needs more than one packet.  Not !sq_small: both are
	 * false until a WQE is fetched, and a responder that never posts
	 * must not count as a stream (vdr_xqp_wire_stream()).
	 */
	bool sq_big;
	bool sq_unsignaled;		/* newest WQE fetched completes silently */
	u8 sq_lingers;			/* looks since the SQ drained */
	bool rnr_wait;
	bool gap_valid;			/* went back to gap_psn already */
	u32 gap_psn;
	struct hrtimer retrans_timer;
	struct hrtimer rnr_timer;
	struct hrtimer linger_timer;	/* the next look at a drained SQ */

	/* Responder */
	u32 epsn;
	u32 msn;
	int prev_opcode;		/* ROCE_OPCODE_NONE between messages */
	bool nak_sent;
	bool comm_est;			/* COMM_EST raised in this RTR */
	bool ack_pending;
	u32 ack_psn;
	/*
	 * XRC_TGT (vdr_resp.c): the XRC SRQs of the message in progress
	 * (its first packet's: receives are taken from it), of the packet
	 * being executed (keys are checked against its PD) and of the READ
	 * being answered.  Kept under the QP's lock; DESTROY_SRQ clears
	 * them (vdr_resp_srq_gone()).
	 */
	struct vdr_srq *msg_srq;
	struct vdr_srq *pkt_srq;
	struct vdr_srq *rd_srq;
	/*
	 * A QP on a TM-SRQ: how its message in progress was classified at
	 * its first packet (VDR_TM_MSG_*), and for a tagged buffer (EAGER),
	 * which one and the TMH's tag and app_ctx for its CQEs.
	 */
	u8 tm_kind;
	u32 tm_handle;
	u32 tm_app_ctx;
	u64 tm_tag;
	bool rwqe_valid;
	struct virtio_rdma_rq_wqe rwqe;
	struct virtio_rdma_sge rsge[VDR_MAX_SGE];
	u32 recv_off;			/* SEND: bytes placed */
	u64 write_va;			/* RDMA WRITE in progress */
	u32 write_rkey;
	u32 write_left;
	u32 write_len;			/* its length: WRITE_WITH_IMM's byte_len */
	struct vdr_rdatom *rdatom;	/* nr_rdatom: max_dest_rd_atomic */
	unsigned int nr_rdatom;
	unsigned int rdatom_next;
	/*
	 * The READ being answered: responses go out a budget at a time, and
	 * later requests stay queued until its last response is sent (the
	 * responder answers in PSN order).
	 */
	struct vdr_rdatom rd_cur;
	u32 rd_off;
	u32 rd_psn;
	bool rd_active;
	u32 rd_seg_max;			/* same-host segments: vdr_seg_len() */
	struct rcu_head rcu;
};

#define VDR_XQP_EV_RETRANS	0
#define VDR_XQP_EV_RNR		1
#define VDR_XQP_EV_SQ_DB	2	/* an SQ doorbell */
#define VDR_XQP_EV_RQ_DB	3	/* an RQ doorbell */
#define VDR_XQP_EV_KICK		4	/* work came during a run (vdr_xqp_wake()) */

/* Runs again at most, in a row, for work that came during a run. */
#define VDR_XQP_RERUNS	2

/**
 * vdr_xqp_rerun - whether a QP's run goes on with another
 * @kicked: work came during the run that ended (vdr_xqp_wake())
 * @more: in: that run left work beyond its budget; out: the QP's work must
 *	be queued for what is left
 * @runs: reruns so far
 *
 * A run that left work beyond its budget goes behind the QPs queued
 * meanwhile, and so does work that keeps coming after VDR_XQP_RERUNS
 * reruns: at most 1 + VDR_XQP_RERUNS budgets in a row.
 */
static inline bool vdr_xqp_rerun(bool kicked, bool *more, unsigned int *runs)
{
	if (!kicked)
		return false;
	if (*more || *runs >= VDR_XQP_RERUNS) {
		*more = true;
		return false;
	}
	(*runs)++;
	return true;
}

/*
 * A batch of at least this many packets is a stream's; a ping-pong's run
 * sends its message and at most an ACK.
 */
#define VDR_WIRE_STREAM_PKTS	4

/**
 * vdr_xqp_overlap - whether a receiver runs apart from its sender
 * @npkts: packets the sender's run gave the receiver
 * @tx_stream: the sender posts behind its own WQEs (x->sq_behind), or its
 *	newest WQE moves more than one packet (x->sq_big: a READ request
 *	too, whose response is the stream)
 * @rx_behind: the receiver posts behind its own WQEs
 * @rx_idle: the receiver's engine runs nothing and has nothing queued
 *
 * Instead of after the sender in the sender's work (a handoff), the
 * receiver runs on its own engine, at once, when the two take part in a
 * stream and that engine is idle: they then overlap on two CPUs.  A
 * ping-pong has nothing to overlap, and a busy engine would only queue
 * the receiver behind other work.
 */
static inline bool vdr_xqp_overlap(u32 npkts, bool tx_stream, bool rx_behind,
				   bool rx_idle)
{
	return (npkts >= VDR_WIRE_STREAM_PKTS || tx_stream || rx_behind) &&
	       rx_idle;
}

/* Remember a doorbell (VIRTIO_RDMA_DOORBELL_SQ or _RQ) for the next run. */
static inline void vdr_xqp_note_doorbell(struct vdr_xqp *x, u32 type)
{
	set_bit(type == VIRTIO_RDMA_DOORBELL_SQ ? VDR_XQP_EV_SQ_DB :
		VDR_XQP_EV_RQ_DB, &x->events);
}

/*
 * Received packets a device holds for its QPs at most, like a NIC's buffer
 * or the kernel's input backlog (netdev_max_backlog): beyond, it drops, and
 * the senders' windows shrink on the loss.  Without a bound the same-host
 * path, which no netdev limits, queues whole windows of many QPs; the
 * queueing delay then outgrows the retransmission timeout and every
 * timeout sends the windows again (congestion collapse).  Sized for the
 * full windows (ROCE_REL_CWND_MAX) of 16 QPs: at 1000, ib_write_bw with 16
 * QPs on the wire dropped 1% of its packets at the receiver, and each loss
 * left a QP waiting for its timer (110 timeouts in six 3 s runs, against
 * 9 at 2048, none of them for a loss).
 */
#define VDR_RX_BACKLOG_MAX	2048

/* Packets a QP processes, and sends, per run of its work (fairness). */
#define VDR_XQP_BUDGET		64

/* ---- vdr_mem.c ---- */

/*
 * Errors of the key checks (spec "Key checks"), in the order they are
 * made.  The requester maps every one of them to LOC_PROT_ERR, the
 * responder to a remote access error NAK.
 */
#define VDR_MEM_ENOKEY	(-ENOKEY)	/* no MR or key byte mismatch */
#define VDR_MEM_EPD		(-EPERM)	/* of another PD or type 2 QP */
#define VDR_MEM_EINVALID	(-EKEYREVOKED)	/* free fast-reg MR or window */
#define VDR_MEM_EACCESS	(-EACCES)	/* access right not granted */
#define VDR_MEM_ERANGE	(-ERANGE)	/* outside the MR */
#define VDR_MEM_EFAULT	(-EFAULT)	/* page not reachable */

/* Atomic operations on 8 bytes of MR memory. */
enum vdr_atomic_op {
	VDR_ATOMIC_CMP_SWP,
	VDR_ATOMIC_FETCH_ADD,
};

/* Direction of a copy between a linear buffer and MR memory. */
enum vdr_copy_dir {
	VDR_TO_MEM,		/* buffer -> memory */
	VDR_FROM_MEM,		/* memory -> buffer */
};

int vdr_mr_check(struct vdr_dev *dev, struct vdr_pd *pd,
		 const struct vdr_qp *rqp, u32 key, u32 access, u64 addr,
		 u64 len);
int vdr_mr_copy(struct vdr_dev *dev, struct vdr_mr *mr, u64 addr,
		void *buf, u32 len, enum vdr_copy_dir dir);
int vdr_mr_rw(struct vdr_dev *dev, struct vdr_pd *pd,
	      const struct vdr_qp *rqp, u32 key, u32 access, u64 addr,
	      void *buf, u32 len, enum vdr_copy_dir dir);
int vdr_mr_atomic(struct vdr_dev *dev, struct vdr_mr *mr, u64 addr,
		  enum vdr_atomic_op op, u64 compare_add, u64 swap,
		  u64 *orig);
int vdr_mr_remote_atomic(struct vdr_dev *dev, struct vdr_pd *pd,
			 const struct vdr_qp *rqp, u32 rkey, u64 addr,
			 enum vdr_atomic_op op, u64 compare_add, u64 swap,
			 u64 *orig);

int vdr_sgl_check(struct vdr_dev *dev, struct vdr_pd *pd,
		  const struct virtio_rdma_sge *sge, u32 num, u32 access,
		  u64 *total);
int vdr_sgl_copy(struct vdr_dev *dev, struct vdr_pd *pd,
		 const struct virtio_rdma_sge *sge, u32 num, u32 access,
		 u64 offset, void *buf, u32 len, enum vdr_copy_dir dir);

int vdr_mr_fast_reg(struct vdr_dev *dev, struct vdr_pd *pd,
		    const struct virtio_rdma_wqe_reg_mr *wr);
int vdr_mr_invalidate(struct vdr_dev *dev, struct vdr_pd *pd,
		      const struct vdr_qp *rqp, u32 key);

/* ---- vdr_mkey.c ---- */

int vdr_mkey_configure(struct vdr_dev *dev, const struct vdr_qp *qp,
		       const struct virtio_rdma_wqe_mkey *wr,
		       const struct virtio_rdma_sge *sge, u32 num_sge);
void vdr_mkey_clear_locked(struct vdr_mr *mk);

/* ---- vdr_mw.c ---- */

int vdr_mw_bind(struct vdr_dev *dev, const struct vdr_qp *qp,
		const struct virtio_rdma_wqe_bind_mw *wr);
int vdr_mw_invalidate_locked(struct vdr_dev *dev, struct vdr_mr *w,
			     struct vdr_pd *pd, const struct vdr_qp *rqp,
			     u32 key);

/* ---- vdr_net.c ---- */

/* Room in front of a RoCE packet for the link, IP and UDP headers. */
#define VDR_NET_HEADROOM	(LL_MAX_HEADER + 40 + 8)

int vdr_net_register(void);
void vdr_net_unregister(void);
void vdr_net_init_dev(struct vdr_dev *dev);
int vdr_net_attach(struct vdr_dev *dev, struct net_device *ndev);
void vdr_net_detach(struct vdr_dev *dev);
void vdr_net_free(struct vdr_dev *dev);

/* ---- vdr_recv.c ---- */
int vdr_recv_queue(struct vdr_dev *dev, struct sk_buff *skb,
		   struct vdr_xqp **handoff);
bool vdr_recv_process(struct vdr_dev *dev, struct vdr_qp *qp, u32 *budget);
bool vdr_recv_must_wait(struct vdr_xqp *x, struct sk_buff *skb);

/* ---- vdr_xqp.c ---- */
int vdr_xqp_create(struct vdr_dev *dev, struct vdr_qp *qp);
void vdr_xqp_destroy(struct vdr_dev *dev, struct vdr_qp *qp);
void vdr_xqp_state(struct vdr_dev *dev, struct vdr_qp *qp, u8 next);
int vdr_xqp_prepare(struct vdr_qp *qp, u8 next, u32 max_dest_rd_atomic);
void vdr_xqp_schedule(struct vdr_xqp *x);
bool vdr_xqp_rx_enqueue(struct vdr_xqp *x, struct sk_buff *skb, u32 limit,
			struct vdr_xqp **handoff);
struct sk_buff *vdr_xqp_rx_dequeue(struct vdr_xqp *x);
void vdr_xqp_kick(struct vdr_dev *dev, struct vdr_qp *qp);
void vdr_xqp_doorbell(struct vdr_qp *qp, u32 type, bool in_caller)
	__releases(RCU);
void vdr_xqp_run_now(struct vdr_qp *qp);
void vdr_xqps_stop(struct vdr_dev *dev);
void vdr_xqps_resume(struct vdr_dev *dev);
void vdr_xqp_kill(struct vdr_qp *qp);
void vdr_xqp_fatal(struct vdr_dev *dev, struct vdr_qp *qp, int ev);
bool vdr_xqp_wire_begin(void);
void vdr_xqp_wire_deliver(struct vdr_xqp **handoff, u32 npkts);
int vdr_xqp_send(struct vdr_dev *dev, struct vdr_qp *qp,
		 const struct virtio_rdma_av *av, struct roce_pkt *pkt,
		 struct sk_buff *skb);
struct sk_buff *vdr_xqp_pkt_alloc(struct vdr_dev *dev,
				  struct roce_pkt *pkt, u8 **payload);
void vdr_xqp_timer_arm(struct vdr_xqp *x);

/* ---- vdr_req.c ---- */
bool vdr_req_process(struct vdr_dev *dev, struct vdr_qp *qp);
void vdr_req_acked(struct vdr_qp *qp);
void vdr_req_probe(struct vdr_dev *dev, struct vdr_qp *qp);
void vdr_req_retransmit(struct vdr_dev *dev, struct vdr_qp *qp,
			u32 psn);
u32 vdr_req_npkts(u32 len, u32 mtu);
u32 vdr_seg_len(u32 left, u32 mtu, s32 room, u32 seg_max);

/* ---- vdr_resp.c ---- */
void vdr_resp_packet(struct vdr_dev *dev, struct vdr_qp *qp,
		     struct sk_buff *skb, struct roce_pkt *pkt);
bool vdr_resp_read_continue(struct vdr_dev *dev, struct vdr_qp *qp,
			    u32 *budget);
void vdr_resp_flush_ack(struct vdr_dev *dev, struct vdr_qp *qp);

/* ---- vdr_tm.c ---- */
int vdr_tm_sq_done(struct vdr_dev *dev, struct vdr_qp *qp,
		   const struct vdr_swqe *w);

/* ---- vdr_comp.c ---- */
void vdr_comp_packet(struct vdr_dev *dev, struct vdr_qp *qp,
		     struct roce_pkt *pkt, u32 npsn);
void vdr_comp_run(struct vdr_dev *dev, struct vdr_qp *qp);
void vdr_comp_timeout(struct vdr_dev *dev, struct vdr_qp *qp);

struct sk_buff *vdr_net_alloc_skb(struct vdr_dev *dev, unsigned int len);
int vdr_net_xmit(struct vdr_dev *dev, const struct virtio_rdma_av *av,
		 struct sk_buff *skb, u16 sport, struct vdr_xqp **handoff,
		 struct vdr_wire_batch *batch, bool *wire);
int vdr_net_wire_flush(struct vdr_dev *dev, struct vdr_wire_batch *b,
		       struct vdr_xqp **handoff);
bool vdr_net_av_valid(const struct virtio_rdma_av *av, const u8 *sgid);
u32 vdr_net_seg_max(struct vdr_dev *dev, const struct virtio_rdma_av *av);
u16 vdr_net_sport(const struct virtio_rdma_av *av, u32 lqpn, u32 rqpn);

#endif /* _VDPA_RDMA_XPORT_H */
