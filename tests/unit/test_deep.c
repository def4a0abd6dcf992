/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Below PATH_MAX's depth: a tree some 6000 bytes deep, reached through
 * directory fds and the current directory as rm -rf and find do. Inside
 * the root every call works; outside, and inside a deny subtree, it is
 * refused with EACCES and creates nothing.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree.h"

#define LEVELS 60	/* 60 names of 100 bytes: 6000 bytes below the top */

static char seg[101];

/* mkdirat down LEVELS levels from rel; the deepest directory, opened. */
static int dig(const char *rel)
{
	int fd = open(tp(rel), O_RDONLY | O_DIRECTORY | O_CLOEXEC), i;

	assert_true(fd >= 0);
	for (i = 0; i < LEVELS; i++) {
		int nfd;

		assert_int_equal(mkdirat(fd, seg, 0755), 0);
		nfd = openat(fd, seg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(nfd >= 0);
		close(fd);
		fd = nfd;
	}
	return fd;
}

/* Remove what dig() made, bottom up, through fds: no path is too long. */
static void fill_in(const char *rel)
{
	int fds[LEVELS + 1], i;

	fds[0] = open(tp(rel), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 1; i <= LEVELS && fds[i - 1] >= 0; i++)
		fds[i] = openat(fds[i - 1], seg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = i - 1; i >= 0; i--) {
		if (fds[i] < 0)
			continue;
		unlinkat(fds[i], "f", 0);
		unlinkat(fds[i], "g", 0);
		unlinkat(fds[i], "d", AT_REMOVEDIR);
		if (i < LEVELS)
			unlinkat(fds[i], seg, AT_REMOVEDIR);
		close(fds[i]);
	}
}

/* One symlink mode's policy and fresh deep trees: inside the root, outside it, in the deny subtree. */
struct deep {
	fa_policy *p;
	int in, out, git;
};

/* Runs check once for each symlink mode, on trees dug for it and removed after. */
static void each_mode(void (*check)(struct deep *))
{
	struct deep t;
	int m;

	memset(seg, 'd', 100);
	for (m = FA_SYM_TRUST; m <= FA_SYM_NOFOLLOW; m++) {
		t.p = tree_policy((enum fa_symlinks)m);
		t.in = dig("root/sub");
		t.out = dig("outside");
		t.git = dig("root/proj/.git");
		check(&t);
		close(t.in);
		close(t.out);
		close(t.git);
		fill_in("root/sub");
		fill_in("outside");
		fill_in("root/proj/.git");
		fa_policy_free(t.p);
	}
}

static void fds_check(struct deep *t)
{
	fa_policy *p = t->p;
	int in = t->in, out = t->out, git = t->git, fd;
	struct fa_decision d;
	struct fa_pin pin;
	char buf[PATH_MAX], link[64];

	/* /proc/self/fd cannot name these: the string route has nothing */
	snprintf(link, sizeof link, "/proc/self/fd/%d", in);
	assert_int_equal(readlink(link, buf, sizeof buf), -1);
	/* inside: open, create a directory, remove both */
	fd = fa_openat(p, in, "f", O_WRONLY | O_CREAT | O_TRUNC, 0600, &d);
	assert_true(fd >= 0);
	assert_int_equal(d.verdict, FA_ALLOW);
	close(fd);
	assert_int_equal(faccessat(in, "f", F_OK, 0), 0);
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, in, "d", &pin, &d), 0);
	assert_int_equal(mkdirat(pin.fd, pin.name, 0755), 0);
	fa_unpin(&pin);
	assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, in, "d", &pin, &d), 0);
	assert_int_equal(unlinkat(pin.fd, pin.name, AT_REMOVEDIR), 0);
	fa_unpin(&pin);
	assert_int_equal(fa_check(p, FA_OP_REMOVE, in, "f", &d), FA_ALLOW);
	/* relative to a parent of the deep directory, the path itself long */
	assert_int_equal(fa_check(p, FA_OP_CREATE, in, "../g", &d), FA_ALLOW);
	/* outside: refused, nothing made */
	assert_int_equal(fa_openat(p, out, "f", O_WRONLY | O_CREAT, 0600, &d), -EACCES);
	assert_int_equal(d.verdict, FA_DENY);
	assert_int_equal(d.why, FA_WHY_OUTSIDE);
	assert_non_null(strstr(d.path, "/outside/"));
	assert_int_not_equal(faccessat(out, "f", F_OK, 0), 0);
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, out, "d", &pin, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_OUTSIDE);
	assert_int_equal(fa_check(p, FA_OP_REMOVE, out, "x", &d), FA_DENY);
	/* the kernel's order holds down there too */
	assert_int_equal(fa_openat(p, out, "none", O_RDWR, 0, &d), -ENOENT);
	/* a hard link's source is judged where it lies, file or not */
	{
		struct fa_decision d2;
		int f = openat(out, "f", O_WRONLY | O_CREAT, 0600);

		assert_true(f >= 0);
		close(f);
		assert_int_equal(fa_check2(p, FA_OP_LINK, in, "f", in, "h", &d, &d2), FA_ALLOW);
		assert_int_equal(fa_check2(p, FA_OP_LINK, out, "f", in, "h", &d, &d2), FA_DENY);
		assert_int_equal(d.why, FA_WHY_LINK_TARGET);
		assert_int_equal(unlinkat(out, "f", 0), 0);
	}
	/* a deny subtree between the root and the directory */
	assert_int_equal(fa_openat(p, git, "f", O_WRONLY | O_CREAT, 0600, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_DENY_SUBTREE);
	assert_int_not_equal(faccessat(git, "f", F_OK, 0), 0);
}

static void deep_fds(void **state)
{
	(void)state;
	each_mode(fds_check);
}

/* The current directory that deep: getcwd cannot say where it is. */
static void cwd_check(struct deep *t)
{
	fa_policy *p = t->p;
	struct fa_decision d;
	struct fa_pin pin;
	char buf[PATH_MAX];
	int fd;

	assert_int_equal(fchdir(t->in), 0);
	assert_null(getcwd(buf, sizeof buf));
	fd = fa_openat(p, AT_FDCWD, "g", O_WRONLY | O_CREAT, 0600, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, "g", &pin, &d), 0);
	assert_int_equal(unlinkat(pin.fd, pin.name, 0), 0);
	fa_unpin(&pin);
	assert_int_equal(fchdir(t->out), 0);
	assert_int_equal(fa_openat(p, AT_FDCWD, "g", O_WRONLY | O_CREAT, 0600, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_OUTSIDE);
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "d", &pin, &d), -EACCES);
	assert_int_not_equal(faccessat(t->out, "g", F_OK, 0), 0);
	assert_int_not_equal(faccessat(t->out, "d", F_OK, 0), 0);
	assert_int_equal(chdir(tp("root")), 0);
}

static void deep_cwd(void **state)
{
	(void)state;
	each_mode(cwd_check);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(deep_fds),
		BOTH(deep_cwd),
	};

	return RUN_TAP("deep", tests);
}
