/* SPDX-License-Identifier: Apache-2.0 */
/*
 * landlock_abi.h - the Landlock interface as the kernel defines it.
 *
 * The installed kernel headers may predate the rights the running kernel
 * knows (truncate came with ABI 3, ioctl-dev with 5, audit flags with 7),
 * so the numbers live here, under names of our own that cannot clash with
 * <linux/landlock.h>. They are fixed by the kernel's ABI and never change.
 */
#ifndef FA_LANDLOCK_ABI_H
#define FA_LANDLOCK_ABI_H

#include <stdint.h>
#include <sys/syscall.h>

/* The same numbers on every architecture (the unified syscall table). */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif

struct fa_ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;  /* ABI 4 */
	uint64_t scoped;              /* ABI 6 */
};

struct fa_ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#define FA_LL_CREATE_RULESET_VERSION (1U << 0)
#define FA_LL_RULE_PATH_BENEATH 1

#define FA_LL_FS_EXECUTE     (1ULL << 0)
#define FA_LL_FS_WRITE_FILE  (1ULL << 1)
#define FA_LL_FS_READ_FILE   (1ULL << 2)
#define FA_LL_FS_READ_DIR    (1ULL << 3)
#define FA_LL_FS_REMOVE_DIR  (1ULL << 4)
#define FA_LL_FS_REMOVE_FILE (1ULL << 5)
#define FA_LL_FS_MAKE_CHAR   (1ULL << 6)
#define FA_LL_FS_MAKE_DIR    (1ULL << 7)
#define FA_LL_FS_MAKE_REG    (1ULL << 8)
#define FA_LL_FS_MAKE_SOCK   (1ULL << 9)
#define FA_LL_FS_MAKE_FIFO   (1ULL << 10)
#define FA_LL_FS_MAKE_BLOCK  (1ULL << 11)
#define FA_LL_FS_MAKE_SYM    (1ULL << 12)
#define FA_LL_FS_REFER       (1ULL << 13) /* ABI 2 */
#define FA_LL_FS_TRUNCATE    (1ULL << 14) /* ABI 3 */
#define FA_LL_FS_IOCTL_DEV   (1ULL << 15) /* ABI 5 */

/* landlock_restrict_self() flags, ABI 7: what the kernel's audit log records. */
#define FA_LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)
#define FA_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON   (1U << 1)

/* The rights a rule on a file (not a directory) may carry. */
#define FA_LL_FS_FILE_RIGHTS \
	(FA_LL_FS_EXECUTE | FA_LL_FS_WRITE_FILE | FA_LL_FS_READ_FILE | FA_LL_FS_TRUNCATE | \
	 FA_LL_FS_IOCTL_DEV)

#endif
