/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * virtio-rdma guest driver: building against kernels older than the one the
 * sources are written for (6.12).  Guests run distribution kernels, Debian
 * 12's 6.1 among them ("make compat61").  The other sources use the current
 * kernel API only; this header supplies it, or the driver's names for it, on
 * older kernels, so that it is the only file that tests LINUX_VERSION_CODE
 * and it reduces to nothing on a current kernel.
 */
#ifndef VRDMA_COMPAT_H
#define VRDMA_COMPAT_H

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/virtio_config.h>

#include "vrdma.h"

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)

#define vrdma_create_cq_op	vrdma_create_cq

#else

/*
 * ib_device_ops.create_cq took the ib_udata until 6.11 and takes the uverbs
 * attribute bundle since.  Both uverbs callers passed &attrs->driver_udata,
 * kernel callers NULL: the bundle is the one the udata is embedded in.
 */
static inline int vrdma_create_cq_op(struct ib_cq *ibcq,
				     const struct ib_cq_init_attr *attr,
				     struct ib_udata *udata)
{
	struct uverbs_attr_bundle *attrs = NULL;

	if (udata)
		attrs = container_of(udata, struct uverbs_attr_bundle,
				     driver_udata);
	return vrdma_create_cq(ibcq, attr, attrs);
}

/*
 * virtio_find_vqs() takes one struct virtqueue_info per queue since 6.11
 * and a callback array and a name array before.  Only the fields the driver
 * sets exist here: a use of another one fails to build on old kernels
 * instead of being dropped.
 */
struct virtqueue_info {
	const char *name;
	vq_callback_t *callback;
};

static inline int vrdma_virtio_find_vqs(struct virtio_device *vdev,
					unsigned int nvqs,
					struct virtqueue *vqs[],
					struct virtqueue_info vqs_info[],
					struct irq_affinity *desc)
{
	vq_callback_t **callbacks;
	const char **names;
	unsigned int i;
	int err = -ENOMEM;

	callbacks = kcalloc(nvqs, sizeof(*callbacks), GFP_KERNEL);
	names = kcalloc(nvqs, sizeof(*names), GFP_KERNEL);
	if (callbacks && names) {
		for (i = 0; i < nvqs; i++) {
			callbacks[i] = vqs_info[i].callback;
			names[i] = vqs_info[i].name;
		}
		err = virtio_find_vqs(vdev, nvqs, vqs, callbacks, names, desc);
	}
	kfree(names);
	kfree(callbacks);
	return err;
}

#define virtio_find_vqs		vrdma_virtio_find_vqs

#endif /* LINUX_VERSION_CODE */

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)

/* vm_flags is changed through these since 6.3, directly before. */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

#endif /* LINUX_VERSION_CODE */

#endif /* VRDMA_COMPAT_H */
