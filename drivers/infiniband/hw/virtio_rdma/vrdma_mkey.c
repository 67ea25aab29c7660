// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma indirect memory keys (VIRTIO_RDMA_F_INDIRECT_MKEY) for user
 * space: a driver-specific uverbs object (include/uapi/rdma/virtio_rdma-abi.h)
 * whose create and destroy methods are the device's CREATE_MKEY and
 * DEREG_MR.  The provider configures a key with MKEY_CONFIGURE work
 * requests on a QP's SQ; the kernel never sees those.
 */

#define UVERBS_MODULE_NAME virtio_rdma
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>
#include <rdma/virtio_rdma-abi.h>

#include "vrdma.h"

struct vrdma_mkey {
	struct ib_pd *pd;
	u32 handle;
};

static int vrdma_mkey_destroy(struct ib_uobject *uobj,
			      enum rdma_remove_reason why,
			      struct uverbs_attr_bundle *attrs)
{
	struct vrdma_mkey *mkey = uobj->object;
	struct vrdma_dev *dev = to_vdev(mkey->pd->device);
	struct virtio_rdma_dereg_mr_req req = {
		.mr_handle = cpu_to_le32(mkey->handle),
	};
	int err;

	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_DEREG_MR, &req, sizeof(req),
			NULL, 0);
	/* A broken device is reset before it is freed: nothing to keep. */
	if (err && !READ_ONCE(dev->broken))
		return err;
	atomic_dec(&mkey->pd->usecnt);
	kfree(mkey);
	return 0;
}

#define VRDMA_MKEY_CREATE	UVERBS_HANDLER(VIRTIO_RDMA_METHOD_MKEY_CREATE)

static int VRDMA_MKEY_CREATE(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj;
	struct ib_pd *pd;
	struct virtio_rdma_create_mkey_req req = {};
	struct virtio_rdma_mr_resp resp;
	struct vrdma_mkey *mkey;
	struct vrdma_dev *dev;
	u32 max_entries, key;
	int err;

	uobj = uverbs_attr_get_uobject(attrs,
				       VIRTIO_RDMA_ATTR_MKEY_CREATE_HANDLE);
	pd = uverbs_attr_get_obj(attrs, VIRTIO_RDMA_ATTR_MKEY_CREATE_PD_HANDLE);
	dev = to_vdev(pd->device);
	err = uverbs_copy_from(&max_entries, attrs,
			       VIRTIO_RDMA_ATTR_MKEY_CREATE_MAX_ENTRIES);
	if (err)
		return err;
	if (!max_entries || max_entries > dev->caps.max_mkey_entries)
		return -EINVAL;
	mkey = kzalloc(sizeof(*mkey), GFP_KERNEL);
	if (!mkey)
		return -ENOMEM;
	req.pd_handle = cpu_to_le32(to_vpd(pd)->handle);
	req.max_entries = cpu_to_le32(max_entries);
	err = vrdma_cmd(dev, VIRTIO_RDMA_CMD_CREATE_MKEY, &req, sizeof(req),
			&resp, sizeof(resp));
	if (err) {
		kfree(mkey);
		return err;
	}
	mkey->pd = pd;
	mkey->handle = le32_to_cpu(resp.mr_handle);
	key = le32_to_cpu(resp.lkey);
	atomic_inc(&pd->usecnt);
	uobj->object = mkey;
	uverbs_finalize_uobj_create(attrs, VIRTIO_RDMA_ATTR_MKEY_CREATE_HANDLE);

	err = uverbs_copy_to(attrs, VIRTIO_RDMA_ATTR_MKEY_CREATE_LKEY, &key,
			     sizeof(key));
	if (err)
		return err;
	key = le32_to_cpu(resp.rkey);
	return uverbs_copy_to(attrs, VIRTIO_RDMA_ATTR_MKEY_CREATE_RKEY, &key,
			      sizeof(key));
}

/* A mandatory __u32 attribute of the create method. */
#define VRDMA_MKEY_U32(dir, name)					\
	UVERBS_ATTR_PTR_##dir(VIRTIO_RDMA_ATTR_MKEY_CREATE_##name,	\
			      UVERBS_ATTR_TYPE(u32), UA_MANDATORY)

DECLARE_UVERBS_NAMED_METHOD(VIRTIO_RDMA_METHOD_MKEY_CREATE,
			    UVERBS_ATTR_IDR(VIRTIO_RDMA_ATTR_MKEY_CREATE_HANDLE,
					    VIRTIO_RDMA_OBJECT_MKEY,
					    UVERBS_ACCESS_NEW, UA_MANDATORY),
			    UVERBS_ATTR_IDR(VIRTIO_RDMA_ATTR_MKEY_CREATE_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ, UA_MANDATORY),
			    VRDMA_MKEY_U32(IN, MAX_ENTRIES),
			    VRDMA_MKEY_U32(OUT, LKEY),
			    VRDMA_MKEY_U32(OUT, RKEY));

DECLARE_UVERBS_NAMED_METHOD_DESTROY(VIRTIO_RDMA_METHOD_MKEY_DESTROY,
				    UVERBS_ATTR_IDR(VIRTIO_RDMA_ATTR_MKEY_DESTROY_HANDLE,
						    VIRTIO_RDMA_OBJECT_MKEY,
						    UVERBS_ACCESS_DESTROY,
						    UA_MANDATORY));

DECLARE_UVERBS_NAMED_OBJECT(VIRTIO_RDMA_OBJECT_MKEY,
			    UVERBS_TYPE_ALLOC_IDR(vrdma_mkey_destroy),
			    &UVERBS_METHOD(VIRTIO_RDMA_METHOD_MKEY_CREATE),
			    &UVERBS_METHOD(VIRTIO_RDMA_METHOD_MKEY_DESTROY));

static bool vrdma_mkey_supported(struct ib_device *ibdev)
{
	return to_vdev(ibdev)->caps.max_mkey_entries;
}

#define VRDMA_MKEY_SUPPORTED	UAPI_DEF_IS_OBJ_SUPPORTED(vrdma_mkey_supported)

const struct uapi_definition vrdma_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE_NAMED(VIRTIO_RDMA_OBJECT_MKEY,
				      VRDMA_MKEY_SUPPORTED),
	{}
};
