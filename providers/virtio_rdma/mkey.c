// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * Indirect memory keys (virtio_rdmadv.h): created and destroyed through the
 * driver's uverbs object (an ioctl, include/uapi/rdma/virtio_rdma-abi.h),
 * configured by MKEY_CONFIGURE work requests that the ibv_wr_* builders of
 * a QP made by virtio_rdmadv_create_qp() write into the SQ.  The device
 * checks every layout and every access; the provider only refuses what
 * could never be right (setter misuse, counts, unknown bits).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <rdma/rdma_user_ioctl_cmds.h>

#include "vru.h"

#define VRU_MKEY_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

struct vru_mkey {
	struct virtio_rdmadv_mkey dv;
	struct ibv_context *context;
	uint32_t handle;		/* the uverbs object's */
	uint16_t max_entries;
};

static struct vru_mkey *to_vru_mkey(struct virtio_rdmadv_mkey *mkey)
{
	return container_of(mkey, struct vru_mkey, dv);
}

/* One method of the driver's MKEY object; @attrs are copied back. */
static int vru_mkey_ioctl(struct ibv_context *context, uint16_t method,
			  struct ib_uverbs_attr *attrs, unsigned int n)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[5];
	} buf = {};
	unsigned int i;

	if (n > 5)
		return EINVAL;
	buf.hdr.length = sizeof(buf.hdr) + n * sizeof(*attrs);
	buf.hdr.object_id = VIRTIO_RDMA_OBJECT_MKEY;
	buf.hdr.method_id = method;
	buf.hdr.num_attrs = n;
	buf.hdr.driver_id = RDMA_DRIVER_VIRTIO_RDMA;
	for (i = 0; i < n; i++) {
		buf.attrs[i] = attrs[i];
		buf.attrs[i].flags |= UVERBS_ATTR_F_MANDATORY;
	}
	if (ioctl(context->cmd_fd, RDMA_VERBS_IOCTL, &buf.hdr))
		/* A kernel or device without the object. */
		return errno == EPROTONOSUPPORT ? EOPNOTSUPP : errno;
	memcpy(attrs, buf.attrs, n * sizeof(*attrs));
	return 0;
}

struct virtio_rdmadv_mkey *
virtio_rdmadv_create_mkey(struct virtio_rdmadv_mkey_init_attr *attr)
{
	struct ib_uverbs_attr a[5] = {};
	struct vru_mkey *mkey;
	uint32_t lkey, rkey;
	int err;

	if (!attr || !attr->pd || attr->create_flags || !attr->max_entries) {
		errno = EINVAL;
		return NULL;
	}
	if (!vru_is_ours(attr->pd->context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mkey = calloc(1, sizeof(*mkey));
	if (!mkey)
		return NULL;
	a[0].attr_id = VIRTIO_RDMA_ATTR_MKEY_CREATE_HANDLE;
	a[1].attr_id = VIRTIO_RDMA_ATTR_MKEY_CREATE_PD_HANDLE;
	a[1].data = attr->pd->handle;
	a[2].attr_id = VIRTIO_RDMA_ATTR_MKEY_CREATE_MAX_ENTRIES;
	a[2].len = sizeof(uint32_t);
	a[2].data = attr->max_entries;
	a[3].attr_id = VIRTIO_RDMA_ATTR_MKEY_CREATE_LKEY;
	a[3].len = sizeof(lkey);
	a[3].data = (uintptr_t)&lkey;
	a[4].attr_id = VIRTIO_RDMA_ATTR_MKEY_CREATE_RKEY;
	a[4].len = sizeof(rkey);
	a[4].data = (uintptr_t)&rkey;
	err = vru_mkey_ioctl(attr->pd->context,
			     VIRTIO_RDMA_METHOD_MKEY_CREATE, a, 5);
	if (err) {
		free(mkey);
		errno = err;
		return NULL;
	}
	mkey->context = attr->pd->context;
	mkey->handle = a[0].data;
	mkey->max_entries = attr->max_entries;
	mkey->dv.lkey = lkey;
	mkey->dv.rkey = rkey;
	return &mkey->dv;
}

int virtio_rdmadv_destroy_mkey(struct virtio_rdmadv_mkey *dv)
{
	struct vru_mkey *mkey = to_vru_mkey(dv);
	struct ib_uverbs_attr a = {
		.attr_id = VIRTIO_RDMA_ATTR_MKEY_DESTROY_HANDLE,
		.data = mkey->handle,
	};
	int err;

	err = vru_mkey_ioctl(mkey->context, VIRTIO_RDMA_METHOD_MKEY_DESTROY,
			     &a, 1);
	if (err)
		return err;
	free(mkey);
	return 0;
}

struct ibv_qp *virtio_rdmadv_create_qp(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr,
				       struct virtio_rdmadv_qp_init_attr *dv)
{
	uint64_t ops = 0;
	struct ibv_qp *qp;

	if (!vru_is_ours(context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) ||
	    (dv && (dv->comp_mask &
		    ~(uint64_t)VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))) {
		errno = EINVAL;
		return NULL;
	}
	if (dv && (dv->comp_mask &
		   VIRTIO_RDMADV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS))
		ops = dv->send_ops_flags;
	if (ops & ~(uint64_t)VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = vru_create_qp_ex(context, attr);
	if (qp && (ops & VIRTIO_RDMADV_QP_EX_WITH_MKEY_CONFIGURE))
		vru_qp_dv_init(to_vru_qp(qp));
	return qp;
}

struct virtio_rdmadv_qp_ex *
virtio_rdmadv_qp_ex_from_ibv_qp_ex(struct ibv_qp_ex *qpx)
{
	struct vru_qp *qp;

	if (!qpx || !vru_is_ours(qpx->qp_base.context))
		return NULL;
	qp = qpex_to_vru_qp(qpx);
	return qp->dv_mkey ? &qp->dv : NULL;
}

static struct vru_qp *dv_to_vru_qp(struct virtio_rdmadv_qp_ex *dv)
{
	return container_of(dv, struct vru_qp, dv);
}

static void vru_wr_mkey_configure(struct virtio_rdmadv_qp_ex *dv,
				  struct virtio_rdmadv_mkey *mkey,
				  uint8_t num_setters,
				  struct virtio_rdmadv_mkey_conf_attr *attr)
{
	struct vru_qp *qp = dv_to_vru_qp(dv);
	struct virtio_rdma_sq_wqe *wqe;

	wqe = vru_wr_next(&qp->vqp.qp_ex, VIRTIO_RDMA_WR_MKEY_CONFIGURE);
	if (!wqe)
		return;
	/* There are two kinds of setter: access and one layout. */
	if (!mkey || num_setters > 2 ||
	    (attr && (attr->conf_flags || attr->comp_mask))) {
		qp->wr_err = EINVAL;
		return;
	}
	wqe->wr.mkey.key = htole32(mkey->lkey);
	qp->mkey_owed = num_setters;
	qp->mkey_given = 0;
	qp->mkey_max = to_vru_mkey(mkey)->max_entries;
}

/*
 * The WQE a setter completes: the one the last builder was a configuration
 * of, owed a setter of this @kind (VIRTIO_RDMA_MKEY_F_*) not given yet.
 */
static struct virtio_rdma_sq_wqe *vru_mkey_setter(struct vru_qp *qp,
						  uint8_t kind)
{
	struct virtio_rdma_sq_wqe *wqe = qp->wr_cur;

	if (qp->wr_err)
		return NULL;
	if (!wqe || wqe->opcode != VIRTIO_RDMA_WR_MKEY_CONFIGURE ||
	    !qp->mkey_owed || (qp->mkey_given & kind)) {
		qp->wr_err = EINVAL;
		return NULL;
	}
	qp->mkey_owed--;
	qp->mkey_given |= kind;
	wqe->wr.mkey.flags |= kind;
	return wqe;
}

static void vru_wr_set_mkey_access_flags(struct virtio_rdmadv_qp_ex *dv,
					 uint32_t access_flags)
{
	struct vru_qp *qp = dv_to_vru_qp(dv);
	struct virtio_rdma_sq_wqe *wqe;

	wqe = vru_mkey_setter(qp, VIRTIO_RDMA_MKEY_F_ACCESS);
	if (!wqe)
		return;
	if (access_flags & ~(uint32_t)VRU_MKEY_ACCESS) {
		qp->wr_err = EINVAL;
		return;
	}
	wqe->wr.mkey.access_flags = htole32(access_flags);
}

/* A layout of @n entries, two SGE slots each, repeated @repeat times. */
static struct virtio_rdma_mkey_entry *
vru_mkey_layout(struct vru_qp *qp, uint32_t repeat, uint16_t n)
{
	struct virtio_rdma_sq_wqe *wqe;

	wqe = vru_mkey_setter(qp, VIRTIO_RDMA_MKEY_F_LAYOUT);
	if (!wqe)
		return NULL;
	if (!repeat || !n || n > qp->mkey_max ||
	    2U * n > qp->max_send_sge) {
		qp->wr_err = EINVAL;
		return NULL;
	}
	wqe->num_sge = 2 * n;
	wqe->wr.mkey.num_entries = htole16(n);
	wqe->wr.mkey.repeat_count = htole32(repeat);
	return (struct virtio_rdma_mkey_entry *)(wqe + 1);
}

static void vru_mkey_entry(struct vru_qp *qp, struct virtio_rdma_mkey_entry *e,
			   uint64_t addr, uint32_t count, uint32_t skip,
			   uint32_t lkey)
{
	if (!count)
		qp->wr_err = EINVAL;
	memset(e, 0, sizeof(*e));
	e->addr = htole64(addr);
	e->bytes_count = htole32(count);
	e->bytes_skip = htole32(skip);
	e->lkey = htole32(lkey);
}

static void vru_wr_set_mkey_layout_list(struct virtio_rdmadv_qp_ex *dv,
					uint16_t num_sges,
					const struct ibv_sge *sge)
{
	struct vru_qp *qp = dv_to_vru_qp(dv);
	struct virtio_rdma_mkey_entry *e;
	uint16_t i;

	e = vru_mkey_layout(qp, 1, num_sges);
	for (i = 0; e && i < num_sges; i++)
		vru_mkey_entry(qp, &e[i], sge[i].addr, sge[i].length, 0,
			       sge[i].lkey);
}

static void vru_wr_set_mkey_layout_interleaved(
	struct virtio_rdmadv_qp_ex *dv, uint32_t repeat_count,
	uint16_t num_interleaved,
	const struct virtio_rdmadv_mr_interleaved *data)
{
	struct vru_qp *qp = dv_to_vru_qp(dv);
	struct virtio_rdma_mkey_entry *e;
	uint16_t i;

	e = vru_mkey_layout(qp, repeat_count, num_interleaved);
	for (i = 0; e && i < num_interleaved; i++)
		vru_mkey_entry(qp, &e[i], data[i].addr, data[i].bytes_count,
			       data[i].bytes_skip, data[i].lkey);
}

void vru_qp_dv_init(struct vru_qp *qp)
{
	qp->dv_mkey = true;
	qp->dv.comp_mask = 0;
	qp->dv.wr_mkey_configure = vru_wr_mkey_configure;
	qp->dv.wr_set_mkey_access_flags = vru_wr_set_mkey_access_flags;
	qp->dv.wr_set_mkey_layout_list = vru_wr_set_mkey_layout_list;
	qp->dv.wr_set_mkey_layout_interleaved =
		vru_wr_set_mkey_layout_interleaved;
}
