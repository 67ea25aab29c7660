/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copyright (c) 2026 The virtio-rdma authors
 *
 * vdpa_rdma: 24-bit packet sequence numbers.
 *
 * PSNs wrap at 2^24.  IBA 9.7.2 splits the PSN space around a reference
 * (the expected PSN) into two halves of 2^23: the PSNs in the half at and
 * after the reference are "valid" (current or ahead), those in the half
 * before it are "duplicates".  roce_psn_diff() gives that reading as a
 * signed distance in [-2^23, 2^23); a distance of exactly 2^23 therefore
 * counts as "before" in both directions, which is what makes the two
 * halves cover the whole space without overlap around any reference.
 */
#ifndef _VDPA_RDMA_ROCE_PSN_H
#define _VDPA_RDMA_ROCE_PSN_H

#include <linux/bitops.h>
#include <linux/types.h>

#include "roce_hdr.h"

#define ROCE_PSN_WINDOW		BIT(ROCE_PSN_BITS - 1)

static inline u32 roce_psn_mask(u32 psn)
{
	return psn & ROCE_PSN_MASK;
}

static inline u32 roce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & ROCE_PSN_MASK;
}

static inline u32 roce_psn_sub(u32 psn, u32 n)
{
	return (psn - n) & ROCE_PSN_MASK;
}

/* Signed distance from @b to @a, in [-2^23, 2^23). */
static inline s32 roce_psn_diff(u32 a, u32 b)
{
	return sign_extend32((a - b) & ROCE_PSN_MASK, ROCE_PSN_BITS - 1);
}

static inline bool roce_psn_before(u32 a, u32 b)
{
	return roce_psn_diff(a, b) < 0;
}

static inline bool roce_psn_before_eq(u32 a, u32 b)
{
	return roce_psn_diff(a, b) <= 0;
}

static inline bool roce_psn_after(u32 a, u32 b)
{
	return roce_psn_diff(a, b) > 0;
}

static inline bool roce_psn_after_eq(u32 a, u32 b)
{
	return roce_psn_diff(a, b) >= 0;
}

/* Whether @psn lies in [@first, @first + @n), across the wrap. */
static inline bool roce_psn_in_range(u32 psn, u32 first, u32 n)
{
	return ((psn - first) & ROCE_PSN_MASK) < n;
}

#endif /* _VDPA_RDMA_ROCE_PSN_H */
