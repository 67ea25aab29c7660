/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Standalone build only: rdma-core's providers take container_of() from
 * <ccan/container_of.h>, which Debian does not ship.
 */
#ifndef VRU_COMPAT_CCAN_CONTAINER_OF_H
#define VRU_COMPAT_CCAN_CONTAINER_OF_H

#include <stddef.h>

#define container_of(member_ptr, containing_type, member)		\
	((containing_type *)((char *)(member_ptr) -			\
			     offsetof(containing_type, member)))

#endif /* VRU_COMPAT_CCAN_CONTAINER_OF_H */
