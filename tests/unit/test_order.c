/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel's order of checks: a refused call that the kernel would have
 * failed for another reason first (an existing entry, a missing one, a
 * file where a directory must be) gets the kernel's errno and no denial;
 * a call the kernel would have performed is still denied. Nothing is ever
 * created, and each case is compared with what the kernel itself answers.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree.h"

/* The kernel's own answer for an open, made where nothing can be harmed. */
static int bare_open(const char *path, int flags)
{
	int fd = open(path, flags, 0600);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return -errno;
}

/* A call the kernel fails by itself: its errno, and no denial. */
static void kernel(int rc, int want, const struct fa_decision *d)
{
	assert_int_equal(rc, -want);
	assert_int_equal(d->verdict, FA_REJECT);
	assert_int_equal(d->why, FA_WHY_ERROR);
	assert_int_equal(d->err, want);
}

static void denied(int rc, const struct fa_decision *d)
{
	assert_int_equal(rc, -EACCES);
	assert_int_equal(d->verdict, FA_DENY);
}

static int pin(const fa_policy *p, enum fa_op op, const char *path, struct fa_decision *d)
{
	struct fa_pin pn;
	int rc = fa_pin_parent(p, op, AT_FDCWD, path, &pn, d);

	if (rc == 0)
		fa_unpin(&pn);
	return rc;
}

static void entries(void **state)
{
	int m;

	(void)state;
	for (m = FA_SYM_TRUST; m <= FA_SYM_NOFOLLOW; m++) {
		fa_policy *p = tree_policy((enum fa_symlinks)m);
		struct fa_decision d;

		/* mkdir of what exists: outside, a root itself, "/" */
		kernel(pin(p, FA_OP_CREATE, tp("outside"), &d), EEXIST, &d);
		kernel(pin(p, FA_OP_CREATE, tp("root"), &d), EEXIST, &d);
		kernel(pin(p, FA_OP_CREATE, tp("outside/secret/"), &d), EEXIST, &d);
		kernel(pin(p, FA_OP_CREATE, "/", &d), EEXIST, &d);
		/* a parent that is missing, or a file */
		kernel(pin(p, FA_OP_CREATE, tp("outside/none/new"), &d), ENOENT, &d);
		kernel(pin(p, FA_OP_CREATE, tp("outside/secret/new"), &d), ENOTDIR, &d);
		/* would be created: denied */
		denied(pin(p, FA_OP_CREATE, tp("outside/new"), &d), &d);
		assert_int_equal(d.why, FA_WHY_OUTSIDE);
		/* removals and renames of what is not there */
		kernel(pin(p, FA_OP_REMOVE, tp("outside/none"), &d), ENOENT, &d);
		kernel(pin(p, FA_OP_RENAME, tp("outside/none"), &d), ENOENT, &d);
		denied(pin(p, FA_OP_REMOVE, tp("outside/secret"), &d), &d);
		denied(pin(p, FA_OP_RENAME, tp("outside/secret"), &d), &d);
		/* a rename's destination is replaced, not refused as existing */
		denied(pin(p, FA_OP_REPLACE, tp("outside/secret"), &d), &d);
		denied(pin(p, FA_OP_REPLACE, tp("outside/new"), &d), &d);
		kernel(pin(p, FA_OP_REPLACE, tp("outside/none/new"), &d), ENOENT, &d);
		/* attributes: a missing target, followed or not */
		kernel(pin(p, FA_OP_ATTR, tp("outside/none"), &d), ENOENT, &d);
		denied(pin(p, FA_OP_ATTR, tp("outside/secret"), &d), &d);
		/* a deny subtree: the same order */
		kernel(pin(p, FA_OP_CREATE, tp("root/proj/.git/config"), &d), EEXIST, &d);
		kernel(pin(p, FA_OP_REMOVE, tp("root/proj/.git/none"), &d), ENOENT, &d);
		denied(pin(p, FA_OP_REMOVE, tp("root/proj/.git/config"), &d), &d);
		assert_int_equal(d.why, FA_WHY_DENY_SUBTREE);
		assert_false(exists("outside/new"));
		assert_false(exists("outside/none"));
		fa_policy_free(p);
	}
}

static void opens(void **state)
{
	static const struct {
		const char *rel;
		int flags;
	} cases[] = {
		{"outside/none", O_RDWR},
		{"outside/none", O_WRONLY | O_TRUNC},
		{"outside/none/x", O_WRONLY | O_CREAT},
		{"outside/secret/x", O_WRONLY | O_CREAT},
		{"outside/secret", O_WRONLY | O_CREAT | O_EXCL},
		{"outside", O_WRONLY},
		{"outside", O_RDWR | O_CREAT},
		{"outside", O_RDONLY | O_CREAT},
		{"outside/secret", O_WRONLY | O_DIRECTORY},
		{"root/file_link_out", O_WRONLY | O_NOFOLLOW},
		{"outside/new/", O_WRONLY | O_CREAT},
		{"outside/none", O_RDWR | O_TMPFILE},
		{"outside/secret", O_RDWR | O_TMPFILE},
		{"root/sub/file/../new", O_WRONLY | O_CREAT},
		{"root/none/../new", O_WRONLY | O_CREAT},
	};
	size_t i;
	int m;

	(void)state;
	for (m = FA_SYM_TRUST; m <= FA_SYM_NOFOLLOW; m++) {
		fa_policy *p = tree_policy((enum fa_symlinks)m);
		struct fa_decision d;

		for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			int want = bare_open(tp(cases[i].rel), cases[i].flags);
			int rc = fa_openat(p, AT_FDCWD, tp(cases[i].rel), cases[i].flags, 0600, &d);

			if (rc != want)
				print_error("# %s %s %#x: %d, the kernel %d\n", fa_symlinks_name(m),
					    cases[i].rel, cases[i].flags, rc, want);
			assert_true(want < 0 && want != -EACCES);
			assert_int_equal(rc, want);
			assert_int_not_equal(d.verdict, FA_DENY);
		}
		/* what the kernel would open or create stays a denial */
		denied(fa_openat(p, AT_FDCWD, tp("outside/secret"), O_RDWR, 0, &d), &d);
		denied(fa_openat(p, AT_FDCWD, tp("outside/new"), O_WRONLY | O_CREAT, 0600, &d), &d);
		denied(fa_openat(p, AT_FDCWD, tp("outside"), O_RDWR | O_TMPFILE, 0600, &d), &d);
		/* the Workspace's strict calls never look outside */
		assert_int_equal(fa_openat_how(p, AT_FDCWD, tp("outside/none"), O_RDWR, 0,
					       FA_HOW_STRICT, &d), -EACCES);
		assert_false(exists("outside/new"));
		assert_false(exists("root/new"));
		fa_policy_free(p);
	}
}

/* Inside the root too: what is before a '..' must be a directory. */
static void dotdot_after_file(void **state)
{
	int m;

	(void)state;
	for (m = FA_SYM_TRUST; m <= FA_SYM_NOFOLLOW; m++) {
		fa_policy *p = tree_policy((enum fa_symlinks)m);
		struct fa_decision d;

		assert_int_equal(pin(p, FA_OP_CREATE, tp("root/sub/file/../new"), &d), -ENOTDIR);
		assert_int_equal(pin(p, FA_OP_CREATE, "sub/file/../new", &d), -ENOTDIR);
		assert_int_equal(fa_openat(p, AT_FDCWD, "sub/file/../new", O_WRONLY | O_CREAT, 0600,
					   &d), -ENOTDIR);
		assert_int_equal(pin(p, FA_OP_CREATE, "sub/none/../new", &d), -ENOENT);
		assert_false(exists("root/sub/new"));
		assert_false(exists("root/new"));
		fa_policy_free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(entries),
		BOTH(opens),
		BOTH(dotdot_after_file),
	};

	return RUN_TAP("order", tests);
}
