/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * A ring's control words (prod, cons, notify, arm: struct virtio_rdma_ring_ctl)
 * as the programs that rewrite their own mapped rings (tools/hostile,
 * tools/fuzz) touch them: aligned 32-bit little-endian words shared with the
 * device.
 */
#ifndef VT_RING_H
#define VT_RING_H

#include <endian.h>
#include <stdatomic.h>
#include <stdint.h>

#include <linux/virtio_rdma.h>

static inline uint32_t ring_load(__le32 *p)
{
	return le32toh(atomic_load_explicit((_Atomic(uint32_t) *)p,
					    memory_order_relaxed));
}

static inline void ring_store(__le32 *p, uint32_t v)
{
	atomic_store_explicit((_Atomic(uint32_t) *)p, htole32(v),
			      memory_order_relaxed);
}

/* Entries before a prod are written before it (the spec's ordering). */
static inline void ring_store_release(__le32 *p, uint32_t v)
{
	atomic_store_explicit((_Atomic(uint32_t) *)p, htole32(v),
			      memory_order_release);
}

#endif /* VT_RING_H */
