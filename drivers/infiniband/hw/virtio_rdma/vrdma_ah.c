// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma address handles.  The device keeps no AH objects: the
 * address vector travels in each UD WQE, so an AH is driver memory only and
 * creating one never sleeps (ib_cm creates AHs under a spinlock).
 */

#include <net/ipv6.h>

#include "vrdma.h"

/* Shared by AHs and the primary path of RC/UC QPs. */
int vrdma_av_from_attr(struct vrdma_dev *dev, struct virtio_rdma_av *av,
		       const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh;
	int ntype;
	bool v4;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    rdma_ah_get_port_num(attr) != VRDMA_PORT ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	if (!grh->sgid_attr || grh->sgid_index >= dev->gid_tbl_len)
		return -EINVAL;

	ntype = rdma_gid_attr_network_type(grh->sgid_attr);
	if (ntype != RDMA_NETWORK_IPV4 && ntype != RDMA_NETWORK_IPV6)
		return -EINVAL;
	/* The destination must be in the source GID's address family. */
	v4 = ntype == RDMA_NETWORK_IPV4;
	if (ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw) != v4)
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->network_type = ntype == RDMA_NETWORK_IPV4 ?
			   VIRTIO_RDMA_NETWORK_IPV4 : VIRTIO_RDMA_NETWORK_IPV6;
	av->flow_label = cpu_to_le32(grh->flow_label & 0xfffff);
	return 0;
}

int vrdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	return vrdma_av_from_attr(to_vdev(ibah->device), &to_vah(ibah)->av,
				  init->ah_attr);
}

int vrdma_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return 0;
}
