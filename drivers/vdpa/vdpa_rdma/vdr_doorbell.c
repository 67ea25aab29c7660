// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: doorbellq consumer.
 *
 * A doorbell only says "look at this ring again"; records of unknown type
 * or naming unknown QPs are ignored (spec "Doorbell queues").  Runs in
 * dev->db_work or in the notifier's context (vdr_db_kick()), under the
 * doorbellq's lock and without dev->lock: QPs are looked up under RCU and
 * run or scheduled (vdr_xqp_doorbell()), so a command never delays a
 * doorbell and the reverse.
 */
#include "vdpa_rdma.h"
#include "vdr_xport.h"

/* A TM-SRQ's ops ring: its work item runs the ops (vdr_tm.c). */
static void vdr_doorbell_srq_ops(struct vdr_dev *dev, u32 handle)
{
	struct vdr_srq *srq;

	if (!vdr_has_feature(dev, VIRTIO_RDMA_F_TM_SRQ))
		return;
	rcu_read_lock();
	srq = xa_load(&dev->srqs, handle);
	if (vdr_srq_is_tm(srq)) {
		vdr_stat_inc(dev, VIRTIO_RDMA_STAT_DOORBELLS);
		vdr_tm_srq_doorbell(srq);
	}
	rcu_read_unlock();
}

/*
 * Returns true when @budget buffers were processed, with more possibly
 * left.  @in_caller: processed in the notifier's context (vdr_db_kick()).
 */
bool vdr_doorbells_process(struct vdr_dev *dev, u16 qidx, int budget,
			   bool in_caller)
{
	struct vdr_vq *vq = &dev->vqs[qidx];
	struct virtio_rdma_doorbell db;
	struct vdr_qp *qp;
	size_t len;
	u32 type;
	int i, ret;

	for (i = 0; i < budget; i++) {
		ret = vringh_getdesc_iotlb(&vq->vring, &vq->riov, &vq->wiov,
					   &vq->head, GFP_KERNEL);
		if (ret < 0) {
			dev_err_ratelimited(&dev->vdpa.dev,
					    "doorbellq %u: bad descriptor chain (%d)\n",
					    qidx, ret);
			return false;
		}
		if (!ret) {
			if (vdr_vq_idle(vq))
				return false;
			continue;
		}

		for (len = vringh_kiov_length(&vq->riov); len >= sizeof(db);
		     len -= sizeof(db)) {
			ret = vringh_iov_pull_iotlb(&vq->vring, &vq->riov, &db,
						    sizeof(db));
			if (ret != sizeof(db))
				break;
			type = le32_to_cpu(db.type);
			if (type == VIRTIO_RDMA_DOORBELL_SRQ_OPS) {
				vdr_doorbell_srq_ops(dev, le32_to_cpu(db.handle));
				continue;
			}
			if (type != VIRTIO_RDMA_DOORBELL_SQ &&
			    type != VIRTIO_RDMA_DOORBELL_RQ)
				continue;
			rcu_read_lock();
			qp = xa_load(&dev->qps, le32_to_cpu(db.handle));
			if (!qp) {
				rcu_read_unlock();
				continue;
			}
			vdr_stat_inc(dev, VIRTIO_RDMA_STAT_DOORBELLS);
			vdr_xqp_doorbell(qp, type, in_caller);
		}
		vdr_vq_complete(vq, 0);
	}
	return true;
}
