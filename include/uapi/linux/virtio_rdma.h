/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma device ABI.
 *
 * The normative text is Documentation/virtio-rdma-spec.rst; this header
 * implements it and the KUnit suite virtio_rdma_abi (beside the driver)
 * pins every size and offset.
 * All multi-byte fields are little-endian except immediate data, which is
 * an opaque 4-byte value carried in network order on the wire.
 */
#ifndef _UAPI_LINUX_VIRTIO_RDMA_H
#define _UAPI_LINUX_VIRTIO_RDMA_H

#include <linux/types.h>
#include <linux/virtio_types.h>
#include <linux/virtio_ids.h>

/* Not yet assigned upstream: virtio_ids.h stops at 41. */
#ifndef VIRTIO_ID_RDMA
#define VIRTIO_ID_RDMA				42
#endif

/* Device-specific feature bits */
#define VIRTIO_RDMA_F_SRQ			0
#define VIRTIO_RDMA_F_TM_SRQ			1	/* needs VIRTIO_RDMA_F_SRQ */
#define VIRTIO_RDMA_F_MW			2
#define VIRTIO_RDMA_F_ATOMIC			3
#define VIRTIO_RDMA_F_RESIZE			4	/* CQ resize only */
#define VIRTIO_RDMA_F_INDIRECT_MKEY		5
#define VIRTIO_RDMA_F_MR_REPLACE		6
#define VIRTIO_RDMA_F_RING_PAGES		7	/* rings as page lists */
#define VIRTIO_RDMA_F_XRC			8	/* needs VIRTIO_RDMA_F_SRQ */

/* Configuration space; limits are in the QUERY_DEVICE response instead. */
struct virtio_rdma_config {
	__u8 mac[6];
	__le16 num_queue_pairs;
	__le32 reserved[6];
};

/* Virtqueue numbering: controlq, then (eventq i, doorbellq i) pairs. */
#define VIRTIO_RDMA_CTRLQ			0
#define VIRTIO_RDMA_EVENTQ(i)			(1 + 2 * (i))
#define VIRTIO_RDMA_DOORBELLQ(i)		(2 + 2 * (i))

/* ---- Control queue ---- */

#define VIRTIO_RDMA_CMD_QUERY_DEVICE		1
#define VIRTIO_RDMA_CMD_QUERY_PORT		2
#define VIRTIO_RDMA_CMD_CREATE_PD		3
#define VIRTIO_RDMA_CMD_DESTROY_PD		4
#define VIRTIO_RDMA_CMD_GET_DMA_MR		5
#define VIRTIO_RDMA_CMD_CREATE_MR		6
#define VIRTIO_RDMA_CMD_ALLOC_MR		7
#define VIRTIO_RDMA_CMD_DEREG_MR		8
#define VIRTIO_RDMA_CMD_CREATE_CQ		9
#define VIRTIO_RDMA_CMD_DESTROY_CQ		10
#define VIRTIO_RDMA_CMD_CREATE_QP		11
#define VIRTIO_RDMA_CMD_MODIFY_QP		12
#define VIRTIO_RDMA_CMD_QUERY_QP		13
#define VIRTIO_RDMA_CMD_DESTROY_QP		14
#define VIRTIO_RDMA_CMD_ADD_GID			15
#define VIRTIO_RDMA_CMD_DEL_GID			16
#define VIRTIO_RDMA_CMD_QUERY_STATS		17
/* With VIRTIO_RDMA_F_SRQ */
#define VIRTIO_RDMA_CMD_CREATE_SRQ		18
#define VIRTIO_RDMA_CMD_MODIFY_SRQ		19
#define VIRTIO_RDMA_CMD_QUERY_SRQ		20
#define VIRTIO_RDMA_CMD_DESTROY_SRQ		21
/* With VIRTIO_RDMA_F_RESIZE */
#define VIRTIO_RDMA_CMD_RESIZE_CQ		22
/* With VIRTIO_RDMA_F_MW */
#define VIRTIO_RDMA_CMD_ALLOC_MW		23
#define VIRTIO_RDMA_CMD_DEALLOC_MW		24
/* With VIRTIO_RDMA_F_INDIRECT_MKEY; DEREG_MR destroys them */
#define VIRTIO_RDMA_CMD_CREATE_MKEY		25
/* With VIRTIO_RDMA_F_XRC */
#define VIRTIO_RDMA_CMD_CREATE_XRCD		26
#define VIRTIO_RDMA_CMD_DESTROY_XRCD		27

/* Command status; the errno each maps to is fixed by the spec. */
#define VIRTIO_RDMA_STATUS_OK			0
#define VIRTIO_RDMA_STATUS_INVAL		1	/* -EINVAL */
#define VIRTIO_RDMA_STATUS_NOENT		2	/* -ENOENT */
#define VIRTIO_RDMA_STATUS_NOMEM		3	/* -ENOMEM */
#define VIRTIO_RDMA_STATUS_NOSPC		4	/* -ENOSPC */
#define VIRTIO_RDMA_STATUS_BUSY			5	/* -EBUSY */
#define VIRTIO_RDMA_STATUS_PERM			6	/* -EPERM */
#define VIRTIO_RDMA_STATUS_ACCES		7	/* -EACCES */
#define VIRTIO_RDMA_STATUS_OPNOTSUPP		8	/* -EOPNOTSUPP */
#define VIRTIO_RDMA_STATUS_FAULT		9	/* -EFAULT */
#define VIRTIO_RDMA_STATUS_MALFORMED		10	/* -EIO */

struct virtio_rdma_cmd_hdr {
	__le32 cmd;
	__le32 reserved;
};

struct virtio_rdma_cmd_resp_hdr {
	__le32 status;
	__le32 reserved;
};

/* Same values as enum ib_access_flags so they pass through unchanged. */
#define VIRTIO_RDMA_ACCESS_LOCAL_WRITE		0x1
#define VIRTIO_RDMA_ACCESS_REMOTE_WRITE		0x2
#define VIRTIO_RDMA_ACCESS_REMOTE_READ		0x4
#define VIRTIO_RDMA_ACCESS_REMOTE_ATOMIC	0x8
/* With VIRTIO_RDMA_F_MW: MRs that windows may be bound to; windows only */
#define VIRTIO_RDMA_ACCESS_MW_BIND		0x10
#define VIRTIO_RDMA_ACCESS_ZERO_BASED		0x20

/* QUERY_DEVICE: no request body. */
#define VIRTIO_RDMA_DEVICE_CAP_MEM_MGT_EXTENSIONS	0x1ULL
#define VIRTIO_RDMA_DEVICE_CAP_RC_RNR_NAK_GEN		0x2ULL
#define VIRTIO_RDMA_DEVICE_CAP_PORT_ACTIVE_EVENT	0x4ULL
#define VIRTIO_RDMA_DEVICE_CAP_SYS_IMAGE_GUID		0x8ULL
#define VIRTIO_RDMA_DEVICE_CAP_CURR_QP_STATE_MOD	0x10ULL

/* Same values as enum ib_atomic_cap */
#define VIRTIO_RDMA_ATOMIC_NONE			0
#define VIRTIO_RDMA_ATOMIC_HCA			1
#define VIRTIO_RDMA_ATOMIC_GLOB			2

struct virtio_rdma_query_device_resp {
	__le64 fw_ver;
	/* GUIDs are byte strings in transmission order, like the MAC. */
	__u8 sys_image_guid[8];
	__u8 node_guid[8];
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le32 vendor_id;
	__le32 vendor_part_id;
	__le32 hw_ver;
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_send_sge;
	__le32 max_recv_sge;
	__le32 max_sge_rd;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_qp_rd_atom;
	__le32 max_qp_init_rd_atom;
	__le32 max_ah;
	__le32 max_fast_reg_page_list_len;
	__le32 max_inline_data;
	__le16 max_pkeys;
	__u8 local_ca_ack_delay;
	__u8 atomic_cap;
	__le64 device_cap_flags;
	__le32 max_msg_sz;
	__u8 max_sq_wqe_shift;
	__u8 max_rq_wqe_shift;
	__le16 reserved1;
	/* Zero unless VIRTIO_RDMA_F_SRQ was negotiated. */
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_srq_sge;
	/* Zero unless VIRTIO_RDMA_F_MW was negotiated. */
	__le32 max_mw;
	/* Zero unless VIRTIO_RDMA_F_INDIRECT_MKEY was negotiated. */
	__le32 max_mkey_entries;
	/* Zero unless VIRTIO_RDMA_F_TM_SRQ was negotiated. */
	__le32 max_tm_tags;		/* tags in one TM-SRQ's list */
	__le32 max_tm_ops;		/* depth of a TM-SRQ's ops ring */
	__le32 max_tm_sge;		/* SGEs of one tagged buffer */
	__le32 max_rndv_hdr_size;	/* bytes of a rendezvous request */
	__le32 reserved[23];
};

/* Same values as enum ib_port_state / ib_port_phys_state / ib_mtu */
#define VIRTIO_RDMA_PORT_DOWN			1
#define VIRTIO_RDMA_PORT_INIT			2
#define VIRTIO_RDMA_PORT_ARMED			3
#define VIRTIO_RDMA_PORT_ACTIVE			4

#define VIRTIO_RDMA_PORT_PHYS_DISABLED		3
#define VIRTIO_RDMA_PORT_PHYS_LINK_UP		5

#define VIRTIO_RDMA_MTU_256			1
#define VIRTIO_RDMA_MTU_512			2
#define VIRTIO_RDMA_MTU_1024			3
#define VIRTIO_RDMA_MTU_2048			4
#define VIRTIO_RDMA_MTU_4096			5

#define VIRTIO_RDMA_PORT_CAP_CM_SUP		0x1
#define VIRTIO_RDMA_PORT_CAP_IP_BASED_GIDS	0x2

struct virtio_rdma_query_port_req {
	__le32 port;
	__le32 reserved;
};

struct virtio_rdma_query_port_resp {
	__u8 state;
	__u8 max_mtu;
	__u8 active_mtu;
	__u8 phys_state;
	__le32 gid_tbl_len;
	__le32 port_cap_flags;
	__le32 max_msg_sz;
	__le16 active_speed;
	__u8 active_width;
	__u8 reserved1;
	__le16 pkey_tbl_len;
	__le16 reserved2;
	__le32 reserved[10];
};

/* CREATE_PD: no request body. */
struct virtio_rdma_create_pd_resp {
	__le32 pd_handle;
	__le32 reserved;
};

/* DESTROY_PD: no response body. */
struct virtio_rdma_destroy_pd_req {
	__le32 pd_handle;
	__le32 reserved;
};

/* lkey/rkey = (MR index << 8) | key byte; the MR handle is the index. */
#define VIRTIO_RDMA_KEY_INDEX_SHIFT		8
#define VIRTIO_RDMA_KEY_BYTE_MASK		0xffU

struct virtio_rdma_get_dma_mr_req {
	__le32 pd_handle;
	__le32 access_flags;
};

/* Response of GET_DMA_MR, CREATE_MR and ALLOC_MR */
struct virtio_rdma_mr_resp {
	__le32 mr_handle;
	__le32 lkey;
	__le32 rkey;
	__le32 reserved;
};

/* page_list_addr holds the DMA addresses of 4 KiB pages of page addresses */
#define VIRTIO_RDMA_MR_F_PL_INDIRECT		0x1
/* With VIRTIO_RDMA_F_MR_REPLACE: re-register replace_handle, keeping its keys */
#define VIRTIO_RDMA_MR_F_REPLACE		0x2

struct virtio_rdma_create_mr_req {
	__le32 pd_handle;
	__le32 access_flags;
	__le64 iova;
	__le64 length;
	__le64 page_list_addr;
	__le32 npages;
	__le32 page_shift;
	__le32 flags;
	__le32 replace_handle;		/* with MR_F_REPLACE, else 0 */
};

struct virtio_rdma_alloc_mr_req {
	__le32 pd_handle;
	__le32 max_pages;
	__le64 page_list_addr;
};

/* DEREG_MR: no response body. */
struct virtio_rdma_dereg_mr_req {
	__le32 mr_handle;
	__le32 reserved;
};

/*
 * CREATE_MKEY: an indirect memory key of @pd_handle whose layouts may have
 * up to @max_entries entries; answered with virtio_rdma_mr_resp, unconfigured.
 */
struct virtio_rdma_create_mkey_req {
	__le32 pd_handle;
	__le32 max_entries;
};

/* Same values as enum ib_mw_type */
#define VIRTIO_RDMA_MW_TYPE_1			1
#define VIRTIO_RDMA_MW_TYPE_2			2

struct virtio_rdma_alloc_mw_req {
	__le32 pd_handle;
	__u8 type;
	__u8 reserved[3];
};

/* The window's rkey has the MR key format; its index is the handle. */
struct virtio_rdma_alloc_mw_resp {
	__le32 mw_handle;
	__le32 rkey;
};

/* DEALLOC_MW: no response body. */
struct virtio_rdma_dealloc_mw_req {
	__le32 mw_handle;
	__le32 reserved;
};

struct virtio_rdma_create_cq_req {
	__le64 ring_addr;
	__le64 ring_size;
	__le32 depth;
	__le32 eventq;
	__le32 reserved[2];
};

struct virtio_rdma_create_cq_resp {
	__le32 cq_handle;
	__le32 reserved;
};

/* DESTROY_CQ: no response body. */
struct virtio_rdma_destroy_cq_req {
	__le32 cq_handle;
	__le32 reserved;
};

/*
 * RESIZE_CQ (VIRTIO_RDMA_F_RESIZE): moves the CQ to a new ring of @depth
 * entries; the ring has CREATE_CQ's geometry rules.  No response body.
 */
struct virtio_rdma_resize_cq_req {
	__le32 cq_handle;
	__le32 depth;
	__le64 ring_addr;
	__le64 ring_size;
	__le32 reserved[2];
};

/* Same values as enum ib_qp_type */
#define VIRTIO_RDMA_QPT_GSI			1
#define VIRTIO_RDMA_QPT_RC			2
#define VIRTIO_RDMA_QPT_UC			3
#define VIRTIO_RDMA_QPT_UD			4
/* With VIRTIO_RDMA_F_XRC */
#define VIRTIO_RDMA_QPT_XRC_INI			9
#define VIRTIO_RDMA_QPT_XRC_TGT			10

#define VIRTIO_RDMA_GSI_QPN			1

struct virtio_rdma_create_qp_req {
	__le32 pd_handle;
	__u8 qp_type;
	__u8 sq_sig_all;
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;
	__le32 send_cq;
	__le32 recv_cq;
	__le32 sq_depth;
	__le32 rq_depth;
	__le32 max_send_sge;
	__le32 max_recv_sge;
	__le32 max_inline_data;
	__le32 srq_handle;		/* with VIRTIO_RDMA_F_SRQ, else 0 */
	__le64 sq_ring_addr;
	__le64 sq_ring_size;
	__le64 rq_ring_addr;
	__le64 rq_ring_size;
	__le32 xrcd_handle;		/* XRC_TGT only, else 0 */
	__le32 reserved;
};

struct virtio_rdma_create_qp_resp {
	__le32 qp_handle;
	__le32 reserved;
};

/* Same values as enum ib_qp_state */
#define VIRTIO_RDMA_QPS_RESET			0
#define VIRTIO_RDMA_QPS_INIT			1
#define VIRTIO_RDMA_QPS_RTR			2
#define VIRTIO_RDMA_QPS_RTS			3
#define VIRTIO_RDMA_QPS_SQD			4
#define VIRTIO_RDMA_QPS_SQE			5
#define VIRTIO_RDMA_QPS_ERR			6

/* Same bit positions as enum ib_qp_attr_mask */
#define VIRTIO_RDMA_QP_STATE			0x1
#define VIRTIO_RDMA_QP_CUR_STATE		0x2
#define VIRTIO_RDMA_QP_EN_SQD_ASYNC_NOTIFY	0x4
#define VIRTIO_RDMA_QP_ACCESS_FLAGS		0x8
#define VIRTIO_RDMA_QP_PKEY_INDEX		0x10
#define VIRTIO_RDMA_QP_PORT			0x20
#define VIRTIO_RDMA_QP_QKEY			0x40
#define VIRTIO_RDMA_QP_AV			0x80
#define VIRTIO_RDMA_QP_PATH_MTU			0x100
#define VIRTIO_RDMA_QP_TIMEOUT			0x200
#define VIRTIO_RDMA_QP_RETRY_CNT		0x400
#define VIRTIO_RDMA_QP_RNR_RETRY		0x800
#define VIRTIO_RDMA_QP_RQ_PSN			0x1000
#define VIRTIO_RDMA_QP_MAX_QP_RD_ATOMIC		0x2000
#define VIRTIO_RDMA_QP_MIN_RNR_TIMER		0x8000
#define VIRTIO_RDMA_QP_SQ_PSN			0x10000
#define VIRTIO_RDMA_QP_MAX_DEST_RD_ATOMIC	0x20000
#define VIRTIO_RDMA_QP_DEST_QPN			0x100000

/* Same values as enum rdma_network_type / ib_gid_type */
#define VIRTIO_RDMA_NETWORK_IPV4		2
#define VIRTIO_RDMA_NETWORK_IPV6		3

#define VIRTIO_RDMA_GID_TYPE_ROCE_V1		1
#define VIRTIO_RDMA_GID_TYPE_ROCE_V2		2

/* Address vector: carried in UD WQEs and in the QP primary path. */
struct virtio_rdma_av {
	__u8 dgid[16];
	__u8 dmac[6];
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 network_type;
	__le16 reserved;
	__le32 flow_label;
};

struct virtio_rdma_qp_attr {
	__u8 qp_state;
	__u8 cur_qp_state;
	__u8 path_mtu;
	__u8 en_sqd_async_notify;
	__u8 sq_draining;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 min_rnr_timer;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 port_num;
	__le16 pkey_index;
	__le16 reserved1;
	__le32 qkey;
	__le32 rq_psn;
	__le32 sq_psn;
	__le32 dest_qp_num;
	__le32 qp_access_flags;
	__le32 reserved2;
	struct virtio_rdma_av av;
	__le32 reserved[6];
};

/* MODIFY_QP: no response body. */
struct virtio_rdma_modify_qp_req {
	__le32 qp_handle;
	__le32 attr_mask;
	struct virtio_rdma_qp_attr attr;
};

struct virtio_rdma_query_qp_req {
	__le32 qp_handle;
	__le32 attr_mask;
};

struct virtio_rdma_query_qp_resp {
	struct virtio_rdma_qp_attr attr;
};

/* DESTROY_QP: no response body. */
struct virtio_rdma_destroy_qp_req {
	__le32 qp_handle;
	__le32 reserved;
};

/*
 * Shared receive queues (VIRTIO_RDMA_F_SRQ).  The ring has the RQ's layout
 * and WQE format; its stride is 16 << wqe_shift.  An XRC SRQ
 * (VIRTIO_RDMA_F_XRC) also names its XRC domain and the CQ its receives
 * complete into.
 */
#define VIRTIO_RDMA_SRQT_BASIC			0
#define VIRTIO_RDMA_SRQT_XRC			1
#define VIRTIO_RDMA_SRQT_TM			2	/* VIRTIO_RDMA_F_TM_SRQ */

struct virtio_rdma_create_srq_req {
	__le32 pd_handle;
	__le32 depth;
	__le32 max_sge;
	__le32 srq_limit;
	__u8 wqe_shift;
	__u8 srq_type;
	__u8 reserved1[2];
	__le32 xrcd_handle;		/* XRC only, else 0 */
	__le64 ring_addr;
	__le64 ring_size;
	__le32 cq_handle;		/* XRC and TM only, else 0 */
	__le32 reserved2;
	/*
	 * TM only, else 0: the tag list's size and the ops area, which holds
	 * a ring_ctl, @ops_depth ops of stride 64 << @ops_shift, then
	 * @max_num_tags __le32 release words (see "Tag matching").
	 */
	__le32 max_num_tags;
	__le32 ops_depth;
	__le64 ops_addr;
	__le64 ops_size;
	__u8 ops_shift;
	__u8 reserved3[7];
};

struct virtio_rdma_create_srq_resp {
	__le32 srq_handle;
	__le32 reserved;
};

/* Same bit positions as enum ib_srq_attr_mask */
#define VIRTIO_RDMA_SRQ_MAX_WR			0x1
#define VIRTIO_RDMA_SRQ_LIMIT			0x2

/* MODIFY_SRQ: no response body. */
struct virtio_rdma_modify_srq_req {
	__le32 srq_handle;
	__le32 attr_mask;
	__le32 srq_limit;
	__le32 reserved;
};

struct virtio_rdma_query_srq_req {
	__le32 srq_handle;
	__le32 reserved;
};

struct virtio_rdma_query_srq_resp {
	__le32 max_wr;
	__le32 max_sge;
	__le32 srq_limit;
	__le32 reserved;
};

/* DESTROY_SRQ: no response body. */
struct virtio_rdma_destroy_srq_req {
	__le32 srq_handle;
	__le32 reserved;
};

/*
 * XRC domains (VIRTIO_RDMA_F_XRC).  CREATE_XRCD has no request body;
 * DESTROY_XRCD has no response body.
 */
struct virtio_rdma_create_xrcd_resp {
	__le32 xrcd_handle;
	__le32 reserved;
};

struct virtio_rdma_destroy_xrcd_req {
	__le32 xrcd_handle;
	__le32 reserved;
};

/* ADD_GID and DEL_GID: no response body. */
struct virtio_rdma_add_gid_req {
	__le32 index;
	__le32 gid_type;
	__u8 gid[16];
};

struct virtio_rdma_del_gid_req {
	__le32 index;
	__le32 reserved;
};

/*
 * QUERY_STATS: no request body.  Counters are free-running since the device
 * was created; the device fills num_counters entries and zeroes the rest.
 */
#define VIRTIO_RDMA_STAT_TX_PACKETS		0
#define VIRTIO_RDMA_STAT_TX_BYTES		1
#define VIRTIO_RDMA_STAT_RX_PACKETS		2
#define VIRTIO_RDMA_STAT_RX_BYTES		3
#define VIRTIO_RDMA_STAT_RX_DROPPED		4	/* malformed or no QP */
#define VIRTIO_RDMA_STAT_ICRC_ERRORS		5
#define VIRTIO_RDMA_STAT_RETRANSMITS		6
#define VIRTIO_RDMA_STAT_RETRY_EXCEEDED		7
#define VIRTIO_RDMA_STAT_RNR_NAK_RCVD		8
#define VIRTIO_RDMA_STAT_RNR_NAK_SENT		9
#define VIRTIO_RDMA_STAT_SEQ_NAK_RCVD		10
#define VIRTIO_RDMA_STAT_SEQ_NAK_SENT		11
#define VIRTIO_RDMA_STAT_DUPLICATE_REQ		12
#define VIRTIO_RDMA_STAT_ACK_TIMEOUTS		13
#define VIRTIO_RDMA_STAT_CMD_ERRORS		14	/* rejected commands */
#define VIRTIO_RDMA_STAT_BAD_WQE		15	/* rejected WQEs */
#define VIRTIO_RDMA_STAT_DOORBELLS		16
#define VIRTIO_RDMA_STAT_EVENTS			17
#define VIRTIO_RDMA_NUM_STATS			18
#define VIRTIO_RDMA_MAX_STATS			32

struct virtio_rdma_query_stats_resp {
	__le32 num_counters;
	__le32 reserved;
	__le64 counters[VIRTIO_RDMA_MAX_STATS];
};

/* ---- Event queues ---- */

#define VIRTIO_RDMA_EVENT_COMP			1	/* handle: CQ */
#define VIRTIO_RDMA_EVENT_CQ_ERR		2	/* handle: CQ */
#define VIRTIO_RDMA_EVENT_QP_FATAL		3	/* handle: QP */
#define VIRTIO_RDMA_EVENT_QP_REQ_ERR		4	/* handle: QP */
#define VIRTIO_RDMA_EVENT_QP_ACCESS_ERR		5	/* handle: QP */
#define VIRTIO_RDMA_EVENT_QP_LAST_WQE_REACHED	6	/* handle: QP, with an SRQ */
#define VIRTIO_RDMA_EVENT_SQ_DRAINED		7	/* handle: QP */
#define VIRTIO_RDMA_EVENT_COMM_EST		8	/* handle: QP */
#define VIRTIO_RDMA_EVENT_PORT_ACTIVE		9	/* handle: port */
#define VIRTIO_RDMA_EVENT_PORT_ERR		10	/* handle: port */
#define VIRTIO_RDMA_EVENT_DEVICE_FATAL		11	/* handle: 0 */
#define VIRTIO_RDMA_EVENT_SRQ_LIMIT_REACHED	12	/* handle: SRQ */
#define VIRTIO_RDMA_EVENT_SRQ_ERR		13	/* handle: TM-SRQ, bad ops ring */

struct virtio_rdma_event {
	__le32 type;
	__le32 handle;
	__le32 data;
	__le32 reserved;
};

/*
 * Tag matching (VIRTIO_RDMA_F_TM_SRQ).  A TM-SRQ is an SRQ (its ring takes
 * the buffers of unexpected messages) with a list of tagged buffers that
 * the driver changes through the ops ring of its ops area; after the ops
 * come @max_num_tags __le32 release words, where the device writes a
 * handle when it lets go of it (consumed, deleted, or refused).  See the
 * spec's "Tag matching" for the rules.
 */
#define VIRTIO_RDMA_TM_OP_BASE_SHIFT		6	/* stride 64 << shift */

/* Same values as enum ibv_ops_wr_opcode */
#define VIRTIO_RDMA_TM_OP_ADD			0
#define VIRTIO_RDMA_TM_OP_DEL			1
#define VIRTIO_RDMA_TM_OP_SYNC			2

/* Same values as enum ibv_ops_flags */
#define VIRTIO_RDMA_TM_OP_F_SIGNALED		0x1
#define VIRTIO_RDMA_TM_OP_F_SYNC		0x2

/* A handle's low 16 bits index the list; the high 16, non-zero, vary. */
#define VIRTIO_RDMA_TM_HANDLE_INDEX_MASK	0xffffU

struct virtio_rdma_tm_op {
	__le64 wr_id;
	__le64 recv_wr_id;		/* ADD: the tagged buffer's wr_id */
	__le64 tag;			/* ADD */
	__le64 mask;			/* ADD */
	__le32 handle;			/* ADD, DEL */
	__le32 unexpected_cnt;		/* with VIRTIO_RDMA_TM_OP_F_SYNC */
	__u8 opcode;
	__u8 flags;
	__u8 num_sge;			/* ADD: SGEs after this header */
	__u8 reserved[21];
};

/* The tag-matching header (TMH) of a SEND's payload; big-endian. */
#define VIRTIO_RDMA_TMH_NO_TAG			0
#define VIRTIO_RDMA_TMH_RNDV			1
#define VIRTIO_RDMA_TMH_FIN			2
#define VIRTIO_RDMA_TMH_EAGER			3

struct virtio_rdma_tmh {
	__u8 opcode;
	__u8 reserved[3];
	__be32 app_ctx;
	__be64 tag;
};

/* After the TMH of a RNDV request: where the sender's data is. */
struct virtio_rdma_rvh {
	__be64 va;
	__be32 rkey;
	__be32 len;
};

/* ---- Doorbell queues ---- */

#define VIRTIO_RDMA_DOORBELL_SQ			1	/* handle: QP */
#define VIRTIO_RDMA_DOORBELL_RQ			2	/* handle: QP */
#define VIRTIO_RDMA_DOORBELL_CQ			3	/* reserved */
#define VIRTIO_RDMA_DOORBELL_SRQ_OPS		4	/* handle: TM-SRQ */

struct virtio_rdma_doorbell {
	__le32 type;
	__le32 handle;
};

/* ---- Rings in driver memory (SQ, RQ, CQ) ---- */

#define VIRTIO_RDMA_RING_CTL_SIZE		128

/* Producer and consumer words sit in different cache lines. */
struct virtio_rdma_ring_ctl {
	__le32 prod;
	__le32 reserved1[15];
	__le32 cons;
	__le32 notify;
	__le32 flags;
	__le32 reserved2[13];
};

/* ring_ctl.flags, written by the device */
#define VIRTIO_RDMA_RING_F_ERROR		0x1
#define VIRTIO_RDMA_RING_F_OVERFLOW		0x2

/* CQ ring_ctl.notify (arm word), written by the driver */
#define VIRTIO_RDMA_CQ_ARM_SN_MASK		0x3fffffffU
#define VIRTIO_RDMA_CQ_ARM_SOLICITED		0x40000000U
#define VIRTIO_RDMA_CQ_ARM_ARMED		0x80000000U

/* Same values as enum ib_wr_opcode */
#define VIRTIO_RDMA_WR_RDMA_WRITE		0
#define VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM	1
#define VIRTIO_RDMA_WR_SEND			2
#define VIRTIO_RDMA_WR_SEND_WITH_IMM		3
#define VIRTIO_RDMA_WR_RDMA_READ		4
#define VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP	5
#define VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD	6
#define VIRTIO_RDMA_WR_LOCAL_INV		7
#define VIRTIO_RDMA_WR_BIND_MW			8	/* VIRTIO_RDMA_F_MW */
#define VIRTIO_RDMA_WR_SEND_WITH_INV		9
#define VIRTIO_RDMA_WR_REG_MR			0x20
/* Device-specific, with VIRTIO_RDMA_F_INDIRECT_MKEY */
#define VIRTIO_RDMA_WR_MKEY_CONFIGURE		0x30

/* Same values as enum ib_send_flags */
#define VIRTIO_RDMA_WQE_F_FENCE			0x1
#define VIRTIO_RDMA_WQE_F_SIGNALED		0x2
#define VIRTIO_RDMA_WQE_F_SOLICITED		0x4
#define VIRTIO_RDMA_WQE_F_INLINE		0x8

#define VIRTIO_RDMA_SQ_WQE_BASE_SHIFT		6	/* stride 64 << shift */
#define VIRTIO_RDMA_RQ_WQE_BASE_SHIFT		4	/* stride 16 << shift */

struct virtio_rdma_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

struct virtio_rdma_wqe_rdma {
	__le64 remote_addr;
	__le32 rkey;
	__le32 reserved[7];
};

struct virtio_rdma_wqe_atomic {
	__le64 remote_addr;
	__le64 compare_add;
	__le64 swap;
	__le32 rkey;
	__le32 reserved[3];
};

struct virtio_rdma_wqe_ud {
	struct virtio_rdma_av av;
	__le32 remote_qpn;
	__le32 remote_qkey;
};

struct virtio_rdma_wqe_reg_mr {
	__le32 key;
	__le32 access_flags;
	__le64 iova;
	__le64 length;
	__le32 page_shift;
	__le32 npages;
	__le32 reserved[2];
};

/*
 * BIND_MW: binds the window that @rkey's index names to [@addr, @addr +
 * @length) of the MR @mr_lkey, under @rkey from now on; a @length of 0
 * unbinds a type 1 window.
 */
struct virtio_rdma_wqe_bind_mw {
	__le32 rkey;
	__le32 mr_lkey;
	__le64 addr;
	__le64 length;
	__le32 access_flags;
	__le32 reserved[3];
};

/*
 * MKEY_CONFIGURE: sets the access rights (with MKEY_F_ACCESS) and the layout
 * (with MKEY_F_LAYOUT: @num_entries entries, repeated @repeat_count times)
 * of the indirect memory key @key.  The entries follow the header in the SGE
 * area, two SGE slots each (num_sge = 2 * num_entries).
 */
#define VIRTIO_RDMA_MKEY_F_ACCESS		0x1
#define VIRTIO_RDMA_MKEY_F_LAYOUT		0x2

struct virtio_rdma_wqe_mkey {
	__le32 key;
	__le32 access_flags;
	__le32 repeat_count;
	__le16 num_entries;
	__u8 flags;
	__u8 reserved1;
	__le32 reserved[6];
};

/* bytes_count bytes at addr of MR lkey, then bytes_skip bytes skipped */
struct virtio_rdma_mkey_entry {
	__le64 addr;
	__le32 bytes_count;
	__le32 bytes_skip;
	__le32 lkey;
	__le32 reserved[3];
};

/* Followed by num_sge SGEs, or by length bytes of inline data. */
struct virtio_rdma_sq_wqe {
	__le64 wr_id;
	__u8 opcode;
	__u8 flags;
	__u8 num_sge;
	__u8 reserved1;
	union {
		__be32 imm_data;
		__le32 invalidate_rkey;
	} ex;
	__le32 length;
	__le32 xrc_srqn;	/* XRC_INI: the target's XRC SRQ, else 0 */
	union {
		struct virtio_rdma_wqe_rdma rdma;
		struct virtio_rdma_wqe_atomic atomic;
		struct virtio_rdma_wqe_ud ud;
		struct virtio_rdma_wqe_reg_mr reg_mr;
		struct virtio_rdma_wqe_bind_mw bind_mw;
		struct virtio_rdma_wqe_mkey mkey;
	} wr;
};

/* Followed by num_sge SGEs. */
struct virtio_rdma_rq_wqe {
	__le64 wr_id;
	__u8 num_sge;
	__u8 reserved[7];
};

/* Same values as enum ib_wc_status */
#define VIRTIO_RDMA_WC_SUCCESS			0
#define VIRTIO_RDMA_WC_LOC_LEN_ERR		1
#define VIRTIO_RDMA_WC_LOC_QP_OP_ERR		2
#define VIRTIO_RDMA_WC_LOC_EEC_OP_ERR		3
#define VIRTIO_RDMA_WC_LOC_PROT_ERR		4
#define VIRTIO_RDMA_WC_WR_FLUSH_ERR		5
#define VIRTIO_RDMA_WC_MW_BIND_ERR		6
#define VIRTIO_RDMA_WC_BAD_RESP_ERR		7
#define VIRTIO_RDMA_WC_LOC_ACCESS_ERR		8
#define VIRTIO_RDMA_WC_REM_INV_REQ_ERR		9
#define VIRTIO_RDMA_WC_REM_ACCESS_ERR		10
#define VIRTIO_RDMA_WC_REM_OP_ERR		11
#define VIRTIO_RDMA_WC_RETRY_EXC_ERR		12
#define VIRTIO_RDMA_WC_RNR_RETRY_EXC_ERR	13
#define VIRTIO_RDMA_WC_LOC_RDD_VIOL_ERR		14
#define VIRTIO_RDMA_WC_REM_INV_RD_REQ_ERR	15
#define VIRTIO_RDMA_WC_REM_ABORT_ERR		16
#define VIRTIO_RDMA_WC_INV_EECN_ERR		17
#define VIRTIO_RDMA_WC_INV_EEC_STATE_ERR	18
#define VIRTIO_RDMA_WC_FATAL_ERR		19
#define VIRTIO_RDMA_WC_RESP_TIMEOUT_ERR		20
#define VIRTIO_RDMA_WC_GENERAL_ERR		21
/* With VIRTIO_RDMA_F_TM_SRQ */
#define VIRTIO_RDMA_WC_TM_ERR			22
#define VIRTIO_RDMA_WC_TM_RNDV_INCOMPLETE	23

/*
 * Same values as enum ib_wc_opcode in Linux 6.12; older kernels number
 * IB_WC_REG_MR differently, so drivers map REG_MR explicitly.
 */
#define VIRTIO_RDMA_WC_OP_SEND			0
#define VIRTIO_RDMA_WC_OP_RDMA_WRITE		1
#define VIRTIO_RDMA_WC_OP_RDMA_READ		2
#define VIRTIO_RDMA_WC_OP_COMP_SWAP		3
#define VIRTIO_RDMA_WC_OP_FETCH_ADD		4
#define VIRTIO_RDMA_WC_OP_BIND_MW		5
#define VIRTIO_RDMA_WC_OP_LOCAL_INV		6
#define VIRTIO_RDMA_WC_OP_REG_MR		10
#define VIRTIO_RDMA_WC_OP_MKEY_CONFIGURE	0x30	/* device-specific */
/* Device-specific, with VIRTIO_RDMA_F_TM_SRQ: a TM-SRQ's ops */
#define VIRTIO_RDMA_WC_OP_TM_ADD		0x31
#define VIRTIO_RDMA_WC_OP_TM_DEL		0x32
#define VIRTIO_RDMA_WC_OP_TM_SYNC		0x33
#define VIRTIO_RDMA_WC_OP_RECV			0x80
#define VIRTIO_RDMA_WC_OP_RECV_RDMA_WITH_IMM	0x81
/* Device-specific, with VIRTIO_RDMA_F_TM_SRQ: a TM-SRQ's receives */
#define VIRTIO_RDMA_WC_OP_TM_RECV		0x82
#define VIRTIO_RDMA_WC_OP_TM_NO_TAG		0x83

/* Same values as enum ib_wc_flags */
#define VIRTIO_RDMA_WC_F_GRH			0x1
#define VIRTIO_RDMA_WC_F_WITH_IMM		0x2
#define VIRTIO_RDMA_WC_F_WITH_INV		0x4
#define VIRTIO_RDMA_WC_F_WITH_SMAC		0x10
#define VIRTIO_RDMA_WC_F_WITH_VLAN		0x20
#define VIRTIO_RDMA_WC_F_WITH_NETWORK_HDR_TYPE	0x40

/* cqe.tm_flags, with VIRTIO_RDMA_F_TM_SRQ */
#define VIRTIO_RDMA_TM_F_SYNC_REQ		0x1
#define VIRTIO_RDMA_TM_F_MATCH			0x2
#define VIRTIO_RDMA_TM_F_DATA_VALID		0x4

#define VIRTIO_RDMA_VLAN_NONE			0xffff

/* Bytes of GRH (or IPv4 header at offset 20) before UD receive payload */
#define VIRTIO_RDMA_UD_GRH_SIZE			40

struct virtio_rdma_cqe {
	__le64 wr_id;
	__u8 status;
	__u8 opcode;
	__u8 flags;
	__u8 network_hdr_type;
	__le32 byte_len;
	__le32 qp_handle;
	union {
		__be32 imm_data;
		__le32 invalidated_rkey;
	} ex;
	__le32 src_qp;
	__le16 pkey_index;
	__le16 vlan_id;
	__u8 smac[6];
	__u8 tm_flags;			/* VIRTIO_RDMA_TM_F_* */
	__u8 reserved1;
	__le32 vendor_err;
	/* TM_RECV with TM_F_MATCH: the TMH's app_ctx and tag, else 0 */
	__le32 tm_app_ctx;
	__le64 tm_tag;
	__le32 reserved[2];
};

/* ---- Ring arithmetic and WQE/CQE rules ---- */

/*
 * Pure functions of ring indices and ABI values, shared by the driver, the
 * rdma-core provider and the device so that they cannot drift apart.  Like
 * vring_need_event() they contain no barriers: the caller orders its loads
 * and stores as the spec's "Memory ordering" section requires.
 */

/* An SQ/RQ notify this far ahead of prod asks for no doorbell (spec). */
#define VIRTIO_RDMA_NOTIFY_OFF			0x80000000U

/* CQEs are 64 bytes: the CQ stride is 1 << VIRTIO_RDMA_CQE_SHIFT. */
#define VIRTIO_RDMA_CQE_SHIFT			6

/* QPNs (qp_handle, src_qp, remote_qpn, dest_qp_num) are 24 bits wide. */
#define VIRTIO_RDMA_QPN_MASK			0xffffffU

/*
 * After moving an SQ/RQ prod from @old_prod to @new_prod, the driver rings
 * a doorbell if the device's event index @notify lies in [old, new); a
 * notify VIRTIO_RDMA_NOTIFY_OFF ahead of prod never does.
 */
static inline int virtio_rdma_need_doorbell(__u32 notify, __u32 new_prod,
					    __u32 old_prod)
{
	return (__u32)(new_prod - notify - 1) < (__u32)(new_prod - old_prod);
}

/* A producer index @prod is possible only if prod - cons <= depth. */
static inline int virtio_rdma_ring_valid(__u32 prod, __u32 cons, __u32 depth)
{
	return (__u32)(prod - cons) <= depth;
}

/* The producer may not write at @prod; an impossible @cons counts as full. */
static inline int virtio_rdma_ring_full(__u32 prod, __u32 cons, __u32 depth)
{
	return (__u32)(prod - cons) >= depth;
}

/* log2 of the SQ stride for a CREATE_QP sq_wqe_shift (64 << shift). */
static inline __u32 virtio_rdma_sq_stride_log2(__u32 sq_wqe_shift)
{
	return VIRTIO_RDMA_SQ_WQE_BASE_SHIFT + sq_wqe_shift;
}

/* log2 of the RQ stride for a CREATE_QP rq_wqe_shift (16 << shift). */
static inline __u32 virtio_rdma_rq_stride_log2(__u32 rq_wqe_shift)
{
	return VIRTIO_RDMA_RQ_WQE_BASE_SHIFT + rq_wqe_shift;
}

/* Bytes of ring_ctl plus @depth entries of 1 << @stride_log2 bytes. */
static inline __u64 virtio_rdma_ring_bytes(__u32 depth, __u32 stride_log2)
{
	return VIRTIO_RDMA_RING_CTL_SIZE + ((__u64)depth << stride_log2);
}

/* Byte offset of free-running entry @idx in a ring of @depth (2^n). */
static inline __u64 virtio_rdma_ring_entry_offset(__u32 idx, __u32 depth,
						  __u32 stride_log2)
{
	return VIRTIO_RDMA_RING_CTL_SIZE +
	       ((__u64)(idx & (depth - 1)) << stride_log2);
}

/* SGEs after the 64-byte header of an SQ WQE of stride 1 << stride_log2 */
static inline __u32 virtio_rdma_sq_stride_sges(__u32 stride_log2)
{
	return ((1U << stride_log2) - sizeof(struct virtio_rdma_sq_wqe)) /
	       sizeof(struct virtio_rdma_sge);
}

/* Inline bytes after the 64-byte header of an SQ WQE */
static inline __u32 virtio_rdma_sq_stride_inline(__u32 stride_log2)
{
	return (1U << stride_log2) - sizeof(struct virtio_rdma_sq_wqe);
}

/* SGEs after the 16-byte header of an RQ WQE */
static inline __u32 virtio_rdma_rq_stride_sges(__u32 stride_log2)
{
	return ((1U << stride_log2) - sizeof(struct virtio_rdma_rq_wqe)) /
	       sizeof(struct virtio_rdma_sge);
}

static inline int virtio_rdma_qpt_is_ud(__u8 qp_type)
{
	return qp_type == VIRTIO_RDMA_QPT_UD || qp_type == VIRTIO_RDMA_QPT_GSI;
}

/*
 * Whether a send WQE @op is defined for @qp_type (spec "Send queue WQE").
 * Atomics also need VIRTIO_RDMA_F_ATOMIC: see virtio_rdma_wr_op_atomic().
 */
static inline int virtio_rdma_wr_op_ok(__u8 qp_type, __u8 op)
{
	/*
	 * XRC_INI sends what RC sends except BIND_MW (a type 2 window names
	 * one QP, and an XRC target's accesses go through SRQs' PDs);
	 * XRC_TGT has no send queue.
	 */
	if (qp_type == VIRTIO_RDMA_QPT_XRC_TGT)
		return 0;
	if (qp_type == VIRTIO_RDMA_QPT_XRC_INI) {
		if (op == VIRTIO_RDMA_WR_BIND_MW)
			return 0;
		qp_type = VIRTIO_RDMA_QPT_RC;
	}
	switch (op) {
	case VIRTIO_RDMA_WR_SEND:
	case VIRTIO_RDMA_WR_SEND_WITH_IMM:
		return 1;
	case VIRTIO_RDMA_WR_RDMA_WRITE:
	case VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM:
		return !virtio_rdma_qpt_is_ud(qp_type);
	case VIRTIO_RDMA_WR_RDMA_READ:
	case VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP:
	case VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD:
	case VIRTIO_RDMA_WR_SEND_WITH_INV:
		return qp_type == VIRTIO_RDMA_QPT_RC;
	case VIRTIO_RDMA_WR_LOCAL_INV:
	case VIRTIO_RDMA_WR_REG_MR:
		return qp_type != VIRTIO_RDMA_QPT_GSI;
	case VIRTIO_RDMA_WR_BIND_MW:
		return qp_type == VIRTIO_RDMA_QPT_RC ||
		       qp_type == VIRTIO_RDMA_QPT_UC;
	case VIRTIO_RDMA_WR_MKEY_CONFIGURE:
		return qp_type != VIRTIO_RDMA_QPT_GSI;
	default:
		return 0;
	}
}

/* The 8-byte atomics, which need VIRTIO_RDMA_F_ATOMIC. */
static inline int virtio_rdma_wr_op_atomic(__u8 op)
{
	return op == VIRTIO_RDMA_WR_ATOMIC_CMP_AND_SWP ||
	       op == VIRTIO_RDMA_WR_ATOMIC_FETCH_AND_ADD;
}

/* Whether @op may carry VIRTIO_RDMA_WQE_F_INLINE data. */
static inline int virtio_rdma_wr_op_inline(__u8 op)
{
	switch (op) {
	case VIRTIO_RDMA_WR_SEND:
	case VIRTIO_RDMA_WR_SEND_WITH_IMM:
	case VIRTIO_RDMA_WR_SEND_WITH_INV:
	case VIRTIO_RDMA_WR_RDMA_WRITE:
	case VIRTIO_RDMA_WR_RDMA_WRITE_WITH_IMM:
		return 1;
	default:
		return 0;
	}
}

/* Whether a CQE @op is one of the VIRTIO_RDMA_WC_OP_* values. */
static inline int virtio_rdma_wc_op_valid(__u8 op)
{
	switch (op) {
	case VIRTIO_RDMA_WC_OP_SEND:
	case VIRTIO_RDMA_WC_OP_RDMA_WRITE:
	case VIRTIO_RDMA_WC_OP_RDMA_READ:
	case VIRTIO_RDMA_WC_OP_COMP_SWAP:
	case VIRTIO_RDMA_WC_OP_FETCH_ADD:
	case VIRTIO_RDMA_WC_OP_BIND_MW:
	case VIRTIO_RDMA_WC_OP_LOCAL_INV:
	case VIRTIO_RDMA_WC_OP_REG_MR:
	case VIRTIO_RDMA_WC_OP_MKEY_CONFIGURE:
	case VIRTIO_RDMA_WC_OP_RECV:
	case VIRTIO_RDMA_WC_OP_RECV_RDMA_WITH_IMM:
		return 1;
	default:
		return 0;
	}
}

/*
 * The completion status a driver reports for a CQE: a status it does not
 * know is GENERAL_ERR, and so is a successful CQE with an opcode it does
 * not know (nothing in it could be trusted).
 */
static inline __u8 virtio_rdma_wc_status(__u8 status, __u8 op)
{
	if (status > VIRTIO_RDMA_WC_GENERAL_ERR)
		return VIRTIO_RDMA_WC_GENERAL_ERR;
	if (status == VIRTIO_RDMA_WC_SUCCESS && !virtio_rdma_wc_op_valid(op))
		return VIRTIO_RDMA_WC_GENERAL_ERR;
	return status;
}

#endif /* _UAPI_LINUX_VIRTIO_RDMA_H */
