// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * Test module: registers one ib_device, "no_driver_id0", whose driver sets
 * no driver id (RDMA_DRIVER_UNKNOWN), as out-of-tree drivers may.  The
 * scenario driver-id checks that unloading virtio_rdma leaves it alone:
 * ib_unregister_driver(RDMA_DRIVER_UNKNOWN) would unregister it.
 *
 * The device only answers what ib_core asks while registering it: one port
 * speaking IB without MAD, CM or SA, so that no client opens QPs on it.
 */

#include <linux/module.h>
#include <rdma/ib_verbs.h>

struct nodrv_dev {
	struct ib_device ib;
};

static struct nodrv_dev *nodrv;

static int nodrv_query_device(struct ib_device *ib, struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	memset(attr, 0, sizeof(*attr));
	return 0;
}

static int nodrv_query_port(struct ib_device *ib, u32 port,
			    struct ib_port_attr *attr)
{
	attr->state = IB_PORT_DOWN;
	attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_1024;
	attr->active_mtu = IB_MTU_1024;
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	return 0;
}

static int nodrv_query_gid(struct ib_device *ib, u32 port, int index,
			   union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	return 0;
}

static int nodrv_query_pkey(struct ib_device *ib, u32 port, u16 index,
			    u16 *pkey)
{
	*pkey = 0xffff;
	return 0;
}

static int nodrv_get_port_immutable(struct ib_device *ib, u32 port,
				    struct ib_port_immutable *immutable)
{
	immutable->core_cap_flags = RDMA_CORE_CAP_PROT_IB;
	immutable->gid_tbl_len = 1;
	immutable->pkey_tbl_len = 1;
	return 0;
}

static const struct ib_device_ops nodrv_ops = {
	.owner = THIS_MODULE,
	/* .driver_id left RDMA_DRIVER_UNKNOWN: the point of this module */
	.get_port_immutable = nodrv_get_port_immutable,
	.query_device = nodrv_query_device,
	.query_gid = nodrv_query_gid,
	.query_pkey = nodrv_query_pkey,
	.query_port = nodrv_query_port,
};

static int __init nodrv_init(void)
{
	int err;

	nodrv = ib_alloc_device(nodrv_dev, ib);
	if (!nodrv)
		return -ENOMEM;
	nodrv->ib.node_type = RDMA_NODE_IB_CA;
	nodrv->ib.phys_port_cnt = 1;
	nodrv->ib.num_comp_vectors = 1;
	ib_set_device_ops(&nodrv->ib, &nodrv_ops);
	err = ib_register_device(&nodrv->ib, "no_driver_id%d", NULL);
	if (err) {
		ib_dealloc_device(&nodrv->ib);
		return err;
	}
	return 0;
}

static void __exit nodrv_exit(void)
{
	/* A no-op if someone else's ib_unregister_driver() already did it. */
	ib_unregister_device(&nodrv->ib);
	ib_dealloc_device(&nodrv->ib);
}

module_init(nodrv_init);
module_exit(nodrv_exit);

MODULE_DESCRIPTION("Test: an ib_device without a driver id");
MODULE_LICENSE("Dual BSD/GPL");
