/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linux_abi.h - the few kernel interfaces the project uses beyond libc:
 * from the kernel's own headers where the system has them, spelled out
 * here where it has none (musl toolchains often ship no <linux/...>).
 * Every value below is the kernel's stable user ABI (include/uapi/linux/).
 */
#ifndef FA_LINUX_ABI_H
#define FA_LINUX_ABI_H

#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* ---- file attribute ioctls (linux/fs.h) ---- */
#if __has_include(<linux/fs.h>)
#include <linux/fs.h>
#else
struct fsxattr {
	uint32_t fsx_xflags;
	uint32_t fsx_extsize;
	uint32_t fsx_nextents;
	uint32_t fsx_projid;
	uint32_t fsx_cowextsize;
	unsigned char fsx_pad[8];
};
#define FS_IOC_SETFLAGS _IOW('f', 2, long)
#define FS_IOC32_SETFLAGS _IOW('f', 2, int)
#define FS_IOC_FSSETXATTR _IOW('X', 32, struct fsxattr)
#endif

/* ---- membarrier(2) commands (linux/membarrier.h) ---- */
#if __has_include(<linux/membarrier.h>)
#include <linux/membarrier.h>
#else
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED (1 << 3)
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#endif

/* ---- capget(2) and file capabilities (linux/capability.h) ---- */
#if __has_include(<linux/capability.h>)
#include <linux/capability.h>
#else
#define _LINUX_CAPABILITY_VERSION_3 0x20080522
#define _LINUX_CAPABILITY_U32S_3 2
typedef struct __user_cap_header_struct {
	uint32_t version;
	int pid;
} *cap_user_header_t;
typedef struct __user_cap_data_struct {
	uint32_t effective;
	uint32_t permitted;
	uint32_t inheritable;
} *cap_user_data_t;
#define VFS_CAP_REVISION_MASK 0xFF000000
#define VFS_CAP_REVISION_1 0x01000000
#define VFS_CAP_FLAGS_EFFECTIVE 0x000001
struct vfs_ns_cap_data {
	uint32_t magic_etc;
	struct {
		uint32_t permitted;
		uint32_t inheritable;
	} data[2];
	uint32_t rootid;
};
#endif

/* ---- netlink (linux/netlink.h) and the audit protocol (linux/audit.h) ---- */
#if __has_include(<linux/netlink.h>)
#include <linux/netlink.h>
#else
#define NETLINK_AUDIT 9
struct sockaddr_nl {
	unsigned short nl_family;
	unsigned short nl_pad;
	uint32_t nl_pid;
	uint32_t nl_groups;
};
struct nlmsghdr {
	uint32_t nlmsg_len;
	uint16_t nlmsg_type;
	uint16_t nlmsg_flags;
	uint32_t nlmsg_seq;
	uint32_t nlmsg_pid;
};
struct nlmsgerr {
	int error;
	struct nlmsghdr msg;
};
#define NLM_F_REQUEST 0x01
#define NLMSG_ERROR 0x2
#define NLMSG_ALIGNTO 4U
#define NLMSG_ALIGN(len) (((len) + NLMSG_ALIGNTO - 1) & ~(NLMSG_ALIGNTO - 1))
#define NLMSG_HDRLEN ((int)NLMSG_ALIGN(sizeof(struct nlmsghdr)))
#define NLMSG_LENGTH(len) ((len) + NLMSG_HDRLEN)
#define NLMSG_DATA(nlh) ((void *)(((char *)(nlh)) + NLMSG_HDRLEN))
#define NLMSG_NEXT(nlh, len) \
	((len) -= NLMSG_ALIGN((nlh)->nlmsg_len), \
	 (struct nlmsghdr *)(((char *)(nlh)) + NLMSG_ALIGN((nlh)->nlmsg_len)))
#endif
#if __has_include(<linux/audit.h>)
#include <linux/audit.h>
#else
#define AUDIT_GET 1000
#define AUDIT_NLGRP_READLOG 1
/* The head of the kernel's struct audit_status: all that is read of it. */
struct audit_status {
	uint32_t mask;
	uint32_t enabled;
	uint32_t failure;
	uint32_t pid;
	uint32_t rate_limit;
	uint32_t backlog_limit;
	uint32_t lost;
	uint32_t backlog;
	uint32_t feature_bitmap;
	uint32_t backlog_wait_time;
	uint32_t backlog_wait_time_actual;
};
#endif

/*
 * ---- renameat2(2) flags (linux/fs.h; glibc's <stdio.h> has them too, with
 * the same text, so either may come first) ----
 */
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

#endif
