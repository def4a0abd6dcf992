/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The O_PATH walk against the kernel's openat2, answer for answer.
 *
 * Two identical trees; every (path, open flags, RESOLVE_* set) case runs
 * through openat2 in one and through the walk in the other, in the same
 * order, so files created by one case exist in both for the next. The two
 * must agree: both fail with the same errno, or both open the same object
 * (same place relative to their tree, same type). A final check compares
 * the trees themselves, so neither route created anything the other did not.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine_internal.h"
#include "rm_tree.h"

static char top[2][64];

static void mk(const char *base, const char *rel, int kind, const char *link)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/%s", base, rel);
	switch (kind) {
	case 'd':
		assert_int_equal(mkdir(p, 0755), 0);
		break;
	case 'f':
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		assert_true(fd >= 0);
		close(fd);
		break;
	default:
		assert_int_equal(symlink(link, p), 0);
	}
}

static void make_tree(char *t)
{
	char abs[PATH_MAX];

	strcpy(t, "/tmp/fa-walk-XXXXXX");
	assert_non_null(mkdtemp(t));
	mk(t, "s", 'd', NULL);
	mk(t, "s/d", 'd', NULL);
	mk(t, "s/d/f", 'f', NULL);
	mk(t, "s/f", 'f', NULL);
	mk(t, "o", 'd', NULL);
	mk(t, "o/g", 'f', NULL);
	mk(t, "s/ld", 'l', "d");
	mk(t, "s/lf", 'l', "f");
	mk(t, "s/lld", 'l', "ld");
	mk(t, "s/d/lup", 'l', "../f");
	mk(t, "s/ldang", 'l', "nothere");
	mk(t, "s/ldangdir", 'l', "d/nothere");
	mk(t, "s/lout", 'l', "../o");
	mk(t, "s/loutf", 'l', "../o/g");
	mk(t, "s/loop", 'l', "loop");
	mk(t, "s/lproc", 'l', "/proc/self/cwd");
	mk(t, "s/lfd", 'l', "/proc/self/fd/0");
	snprintf(abs, sizeof abs, "%s/s/d", t);
	mk(t, "s/labs", 'l', abs);
}


/* What an fd names, relative to the tree it belongs to ("?" if neither). */
static void where(int fd, char *out, size_t len)
{
	char p[PATH_MAX];
	ssize_t n = fa__fd_path(fd, p, sizeof p);
	int i;

	snprintf(out, len, "?%.*s", (int)(len > 2 ? len - 2 : 0), n > 0 ? p : "");
	for (i = 0; n > 0 && i < 2; i++) {
		size_t tl = strlen(top[i]);

		if (strncmp(p, top[i], tl) == 0 && (p[tl] == '/' || !p[tl]))
			snprintf(out, len, "%s", p + tl);
	}
	if (n > 0 && !strncmp(p, "/proc/", 6))
		snprintf(out, len, "%s", p);
}

struct outcome {
	int err;		/* positive errno, 0 for an fd */
	int type;
	char at[PATH_MAX];
};

static void run(int which, const char *path, int flags, unsigned resolve, struct outcome *o)
{
	char s[PATH_MAX];
	int dfd, fd;

	snprintf(s, sizeof s, "%s/s", top[which]);
	dfd = open(s, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	if (which == 0)
		fd = fa__open_openat2(dfd, path, flags | O_CLOEXEC, 0644, resolve);
	else
		fd = fa__open_walk(dfd, path, flags | O_CLOEXEC, 0644, resolve);
	memset(o, 0, sizeof *o);
	if (fd < 0) {
		o->err = -fd;
	} else {
		o->type = fa__sys_type(fd, "", 0);
		where(fd, o->at, sizeof o->at);
		close(fd);
	}
	close(dfd);
}

static const char *const paths[] = {
	"f", "f/", "d", "d/", "d/f", "ld", "ld/", "ld/f", "lld", "lld/", "lld/f",
	"lf", "lf/", "d/lup", "ldang", "ldang/", "ldangdir", "lout", "lout/", "lout/g",
	"loutf", "loop", "loop/", "lproc", "lproc/x", "lfd", "labs", "labs/f",
	"d/../f", "d/../../o/g", "..", "../s/f", "/", "/tmp", ".", "new1", "new2/",
	"d/new3", "ld/new4", "lout/new5",
};

static const int openflags[] = {
	O_RDONLY, O_PATH, O_WRONLY, O_RDWR | O_APPEND, O_RDWR | O_CREAT,
	O_WRONLY | O_CREAT | O_EXCL, O_RDONLY | O_DIRECTORY, O_PATH | O_DIRECTORY,
	O_WRONLY | O_TRUNC,
};

static const unsigned resolves[] = {
	0, RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS, RESOLVE_NO_MAGICLINKS,
	RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
	RESOLVE_NO_XDEV, RESOLVE_BENEATH | RESOLVE_NO_XDEV,
};

static void walk_agrees_with_openat2(void **state)
{
	size_t p, f, r;
	int nofollow, bad = 0, cases = 0;

	(void)state;
	make_tree(top[0]);
	make_tree(top[1]);
	if (fa__open_openat2(AT_FDCWD, "/", O_PATH, 0, 0) == -ENOSYS)
		skip();
	for (r = 0; r < sizeof resolves / sizeof resolves[0]; r++)
		for (p = 0; p < sizeof paths / sizeof paths[0]; p++)
			for (f = 0; f < sizeof openflags / sizeof openflags[0]; f++)
				for (nofollow = 0; nofollow < 2; nofollow++) {
					int fl = openflags[f] | (nofollow ? O_NOFOLLOW : 0);
					struct outcome a, b;

					run(0, paths[p], fl, resolves[r], &a);
					run(1, paths[p], fl, resolves[r], &b);
					cases++;
					if (a.err == b.err && a.type == b.type && !strcmp(a.at, b.at))
						continue;
					bad++;
					print_message("%-12s flags %#08x resolve %#x: openat2 %s %s"
						      ", walk %s %s\n", paths[p], fl, resolves[r],
						      a.err ? strerror(a.err) : "fd", a.at,
						      b.err ? strerror(b.err) : "fd", b.at);
				}
	print_message("%d cases\n", cases);
	/* The same entries in both trees: created alike, nothing else. */
	{
		char cmd[512];

		snprintf(cmd, sizeof cmd, "cd %s && find . | sort > /tmp/.fa-walk-a.$PPID && "
			 "cd %s && find . | sort | cmp -s - /tmp/.fa-walk-a.$PPID; r=$?; "
			 "rm -f /tmp/.fa-walk-a.$PPID; exit $r", top[0], top[1]);
		if (system(cmd) != 0) {
			print_message("the two trees differ\n");
			bad++;
		}
	}
	rm_tree(top[0]);
	rm_tree(top[1]);
	assert_int_equal(bad, 0);
}

/* The cases that once differed, spelled out. */
static void walk_final_links(void **state)
{
	char s[PATH_MAX + 8];
	int dfd, fd;

	(void)state;
	make_tree(top[1]);
	snprintf(s, sizeof s, "%s/s", top[1]);
	dfd = open(s, O_PATH | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	/* A final link to a directory, opened O_DIRECTORY, is followed (not ENOTDIR). */
	fd = fa__open_walk(dfd, "ld", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0,
			   RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
	assert_true(fd >= 0);
	close(fd);
	fd = fa__open_walk(dfd, "lld", O_PATH | O_DIRECTORY | O_CLOEXEC, 0, RESOLVE_BENEATH);
	assert_true(fd >= 0);
	close(fd);
	/* No symlinks allowed: ELOOP, as openat2 says, whatever O_DIRECTORY says. */
	assert_int_equal(fa__open_walk(dfd, "ld", O_RDONLY | O_DIRECTORY, 0, RESOLVE_NO_SYMLINKS),
			 -ELOOP);
	assert_int_equal(fa__open_walk(dfd, "ld/", O_RDONLY, 0, RESOLVE_NO_SYMLINKS), -ELOOP);
	/* O_NOFOLLOW|O_DIRECTORY on a link: the kernel's ENOTDIR. */
	assert_int_equal(fa__open_walk(dfd, "ld", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0, 0),
			 -ENOTDIR);
	/* A trailing slash makes the kernel follow even under O_NOFOLLOW: never unchecked. */
	assert_int_equal(fa__open_walk(dfd, "lout/", O_RDONLY | O_NOFOLLOW, 0,
				       RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), -EXDEV);
	assert_int_equal(fa__open_walk(dfd, "lout/", O_RDONLY, 0, RESOLVE_BENEATH), -EXDEV);
	close(dfd);
	rm_tree(top[1]);
}

/*
 * Real mount points, read-only and harmless: lookups from '/' into /proc,
 * /dev and /dev/shm, with and without NO_XDEV.
 */
static void walk_agrees_across_mounts(void **state)
{
	static const char *const mpaths[] = {
		"proc", "proc/", "proc/self", "proc/self/status", "proc/../tmp", "dev",
		"dev/null", "dev/shm", "dev/shm/", "tmp", "/proc/self/status", "/tmp", "/",
		"proc/self/cwd", "proc/self/root/tmp", "dev/fd/0", "sys/kernel",
	};
	static const int mflags[] = {O_RDONLY, O_PATH, O_RDONLY | O_DIRECTORY, O_PATH | O_NOFOLLOW};
	static const unsigned mres[] = {0, RESOLVE_NO_XDEV, RESOLVE_BENEATH | RESOLVE_NO_XDEV,
					RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS, RESOLVE_BENEATH};
	size_t p, f, r;
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), bad = 0;

	(void)state;
	assert_true(root >= 0);
	if (fa__open_openat2(AT_FDCWD, "/", O_PATH, 0, 0) == -ENOSYS)
		skip();
	top[0][0] = top[1][0] = 0;
	for (r = 0; r < sizeof mres / sizeof mres[0]; r++)
		for (p = 0; p < sizeof mpaths / sizeof mpaths[0]; p++)
			for (f = 0; f < sizeof mflags / sizeof mflags[0]; f++) {
				int a = fa__open_openat2(root, mpaths[p], mflags[f] | O_CLOEXEC, 0,
							 mres[r]);
				int b = fa__open_walk(root, mpaths[p], mflags[f] | O_CLOEXEC, 0,
						      mres[r]);
				struct stat sa, sb;

				if ((a < 0 || b < 0) ? a == b :
				    (fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
				     sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino)) {
					if (a >= 0)
						close(a), close(b);
					continue;
				}
				bad++;
				print_message("/ + %-20s flags %#x resolve %#x: openat2 %d, walk %d\n",
					      mpaths[p], mflags[f], mres[r], a, b);
				if (a >= 0)
					close(a);
				if (b >= 0)
					close(b);
			}
	close(root);
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walk_agrees_with_openat2),
		cmocka_unit_test(walk_final_links),
		cmocka_unit_test(walk_agrees_across_mounts),
	};

	/*
	 * "dev/fd/0" and the "lfd" link name whatever fd 0 is; make it the
	 * same thing under every harness (a pipe, a tty, nothing at all).
	 */
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null < 0 || dup2(null, 0) < 0)
		return 99;
	if (null != 0)
		close(null);
	/*
	 * Links to /proc/self/cwd are followed with O_CREAT when no resolve
	 * flag forbids it: let them land in a scratch directory of our own.
	 */
	char scratch[] = "/tmp/fa-walk-cwd.XXXXXX";
	int rc;

	if (!mkdtemp(scratch) || chdir(scratch) < 0)
		return 99;
	cmocka_set_message_output(CM_OUTPUT_TAP);
	rc = cmocka_run_group_tests_name("walk", tests, NULL, NULL);
	if (chdir("/") == 0)
		rm_tree(scratch);
	return rc;
}
