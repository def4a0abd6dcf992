/* SPDX-License-Identifier: Apache-2.0 */
/*
 * floor-exec [--minimal] ROOT... -- COMMAND [ARG]... - run COMMAND under a
 * Landlock ruleset alone, with no preload. For the benchmarks' floor
 * columns; not installed.
 *
 *   (default)  the ruleset fa-run builds by default for write roots
 *              ROOT... (devices and inherited descriptors included)
 *   --minimal  the smallest ruleset that refuses writes outside the first
 *              ROOT: the write-class rights every open does not ask for
 *              (no truncate, no device ioctls), one rule on ROOT, built
 *              here with the kernel's calls alone; the kernel's own cost,
 *              against which the floor is measured
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fa_policy.h"
#include "floor/landlock.h"
#include "floor/landlock_abi.h"

static int minimal(const char *root, int abi, char *msg, size_t len)
{
	struct fa_ll_ruleset_attr attr = { 0 };
	struct fa_ll_path_beneath_attr pb;
	int rs, fd;

	attr.handled_access_fs = FA_LL_FS_WRITE_FILE | FA_LL_FS_REMOVE_DIR |
				 FA_LL_FS_REMOVE_FILE | FA_LL_FS_MAKE_CHAR | FA_LL_FS_MAKE_DIR |
				 FA_LL_FS_MAKE_REG | FA_LL_FS_MAKE_SOCK | FA_LL_FS_MAKE_FIFO |
				 FA_LL_FS_MAKE_BLOCK | FA_LL_FS_MAKE_SYM |
				 (abi >= 2 ? FA_LL_FS_REFER : 0);
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr.handled_access_fs), 0);
	if (rs < 0) {
		snprintf(msg, len, "landlock_create_ruleset: %s", strerror(errno));
		return -1;
	}
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, len, "%s: %s", root, strerror(errno));
		return -1;
	}
	pb.allowed_access = attr.handled_access_fs;
	pb.parent_fd = fd;
	if (syscall(SYS_landlock_add_rule, rs, FA_LL_RULE_PATH_BENEATH, &pb, 0) < 0) {
		snprintf(msg, len, "landlock_add_rule %s: %s", root, strerror(errno));
		return -1;
	}
	close(fd);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, rs, 0) < 0) {
		snprintf(msg, len, "landlock_restrict_self: %s", strerror(errno));
		return -1;
	}
	close(rs);
	return 0;
}

int main(int argc, char **argv)
{
	struct fa_floor f;
	char msg[4096];
	int i, first = 1, abi, small = 0;
	fa_policy *p;

	if (argc > 1 && !strcmp(argv[1], "--minimal"))
		small = first = 2;
	for (i = first; i < argc && strcmp(argv[i], "--"); i++)
		;
	if (i >= argc - 1 || i == first) {
		fprintf(stderr, "usage: floor-exec [--minimal] ROOT... -- COMMAND [ARG]...\n");
		return 125;
	}
	abi = fa_floor_abi();
	if (abi < 0) {
		fprintf(stderr, "floor-exec: no Landlock: %s\n", strerror(-abi));
		return 125;
	}
	if (small) {
		if (minimal(argv[first], abi, msg, sizeof(msg)) < 0)
			goto fail;
	} else {
		p = fa_policy_new();
		if (!p) {
			snprintf(msg, sizeof(msg), "out of memory");
			goto fail;
		}
		for (int r = first; r < i; r++)
			if (fa_policy_add_root(p, argv[r], msg, sizeof(msg)) < 0)
				goto fail;
		if (fa_policy_seal(p, 1, msg, sizeof(msg)) < 0)
			goto fail;
		/* fa-run's own builder: the same rules, the same handled rights. */
		if (fa_floor_build(&f, FA_FLOOR_ON, p, 0, NULL, NULL, NULL, msg, sizeof(msg)) != 1 ||
		    fa_floor_enforce(&f, msg, sizeof(msg)) < 0)
			goto fail;
		fa_policy_free(p);
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "floor-exec: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
fail:
	fprintf(stderr, "floor-exec: %s\n", msg);
	return 125;
}
