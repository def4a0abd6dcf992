/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Check = use: fa_openat, fa_pin_parent, fa_check_symlink_target. Every
 * denial must leave the file system exactly as it was.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys.h"
#include "tree.h"

#define WFLAGS (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)

static char *slurp(const char *rel, char *buf, size_t len)
{
	FILE *f = fopen(tp(rel), "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, len - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void openat_allowed(void **state)
{
	int m;

	(void)state;
	for (m = FA_SYM_TRUST; m <= FA_SYM_NOFOLLOW; m++) {
		fa_policy *p = tree_policy((enum fa_symlinks)m);
		struct fa_decision d;
		int fd, dfd;

		unlink(tp("root/sub/new"));
		fd = fa_openat(p, AT_FDCWD, "sub/new", WFLAGS, 0600, &d);
		assert_true(fd >= 0);
		assert_int_equal(d.verdict, FA_ALLOW);
		assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		assert_int_equal(fcntl(fd, F_GETFL) & O_ACCMODE, O_WRONLY);
		assert_int_equal(write(fd, "x", 1), 1);
		close(fd);
		assert_true(exists("root/sub/new"));
		/* by absolute path, and relative to a dirfd */
		fd = fa_openat(p, AT_FDCWD, tp("root/sub/new"), O_RDWR | O_APPEND, 0, &d);
		assert_true(fd >= 0);
		close(fd);
		dfd = open(tp("root/sub"), O_PATH | O_DIRECTORY);
		fd = fa_openat(p, dfd, "new2", WFLAGS | O_EXCL, 0644, &d);
		assert_true(fd >= 0);
		close(fd);
		assert_true(exists("root/sub/new2"));
		/* natural errors stay natural */
		assert_int_equal(fa_openat(p, dfd, "new2", WFLAGS | O_EXCL, 0644, &d), -EEXIST);
		assert_int_equal(fa_openat(p, AT_FDCWD, "nonexist/f", WFLAGS, 0644, &d), -ENOENT);
		assert_int_equal(fa_openat(p, AT_FDCWD, "sub/nf/", WFLAGS, 0644, &d), -EISDIR);
		assert_false(exists("root/sub/nf"));
		assert_int_equal(fa_openat(p, AT_FDCWD, "sub", O_WRONLY, 0, &d), -EISDIR);
		unlink(tp("root/sub/new2"));
		unlink(tp("root/sub/new"));
		close(dfd);
		fa_policy_free(p);
	}
}

static void openat_denied_no_side_effect(void **state)
{
	static const char *const denied[] = {
		"../outside/new", "out_link/new", "sub/../../outside/new", "proj/.git/new",
		"dangle_out", "file_link_out", "/proc/self/cwd/sub/new", "../rootab/new",
	};
	char buf[64];
	size_t i;
	int m;

	(void)state;
	for (m = FA_SYM_TRUST; m <= FA_SYM_NOFOLLOW; m++) {
		fa_policy *p = tree_policy((enum fa_symlinks)m);

		for (i = 0; i < sizeof denied / sizeof denied[0]; i++) {
			struct fa_decision d;
			int fd = fa_openat(p, AT_FDCWD, denied[i], WFLAGS, 0644, &d);

			if (fd != -EACCES)
				print_error("# %s %s: %d\n", fa_symlinks_name(m), denied[i], fd);
			assert_int_equal(fd, -EACCES);
			assert_int_not_equal(d.verdict, FA_ALLOW);
			assert_int_not_equal(d.why, FA_WHY_NONE);
			assert_true(d.path[0] == '/');
		}
		assert_false(exists("outside/new"));
		assert_false(exists("outside/newfile"));
		assert_false(exists("root/proj/.git/new"));
		assert_false(exists("root/sub/new"));
		assert_false(exists("rootab/new"));
		assert_string_equal(slurp("outside/secret", buf, sizeof buf), "secret\n");
		/* O_TMPFILE: the directory written into is what counts */
		assert_int_equal(fa_openat(p, AT_FDCWD, tp("outside"), O_TMPFILE | O_WRONLY, 0600,
					   &(struct fa_decision){0}), -EACCES);
		fa_policy_free(p);
	}
}

static void openat_symlinks_per_mode(void **state)
{
	fa_policy *trust = tree_policy(FA_SYM_TRUST);
	fa_policy *beneath = tree_policy(FA_SYM_BENEATH);
	fa_policy *nofollow = tree_policy(FA_SYM_NOFOLLOW);
	struct fa_decision d;
	char buf[64];
	int fd;

	(void)state;
	fd = open(tp("root/sub/file"), O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "inside\n", 7), 7);
	close(fd);
	fd = fa_openat(trust, AT_FDCWD, "in_link/a", WFLAGS, 0644, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_true(exists("root/sub/a"));
	fd = fa_openat(beneath, AT_FDCWD, "in_link/b", WFLAGS, 0644, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_true(exists("root/sub/b"));
	assert_int_equal(fa_openat(nofollow, AT_FDCWD, "in_link/c", WFLAGS, 0644, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_SYMLINK);
	assert_false(exists("root/sub/c"));
	assert_int_equal(fa_openat(beneath, AT_FDCWD, "abs_in_link/c", WFLAGS, 0644, &d), -EACCES);
	assert_false(exists("root/sub/c"));

	/* a final link is followed (trust, beneath), refused (nofollow) */
	fd = fa_openat(trust, AT_FDCWD, "file_link_in", O_WRONLY | O_APPEND, 0, &d);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "t", 1), 1);
	close(fd);
	fd = fa_openat(beneath, AT_FDCWD, "file_link_in", O_WRONLY | O_APPEND, 0, &d);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "b", 1), 1);
	close(fd);
	assert_string_equal(slurp("root/sub/file", buf, sizeof buf), "inside\ntb");
	assert_int_equal(fa_openat(nofollow, AT_FDCWD, "file_link_in", O_WRONLY, 0, &d), -EACCES);
	/* O_NOFOLLOW keeps its meaning */
	assert_int_equal(fa_openat(trust, AT_FDCWD, "file_link_in", O_WRONLY | O_NOFOLLOW, 0, &d),
			 -ELOOP);
	/* creating through a dangling link inside creates its target */
	fd = fa_openat(trust, AT_FDCWD, "dangle_in", WFLAGS, 0644, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_true(exists("root/sub/newfile"));
	unlink(tp("root/sub/newfile"));
	fd = fa_openat(beneath, AT_FDCWD, "dangle_in", WFLAGS, 0644, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_true(exists("root/sub/newfile"));
	unlink(tp("root/sub/newfile"));
	unlink(tp("root/sub/a"));
	unlink(tp("root/sub/b"));
	fa_policy_free(trust);
	fa_policy_free(beneath);
	fa_policy_free(nofollow);
}

static void openat_devices_and_fds(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_NOFOLLOW);
	struct fa_decision d;
	char alias[64];
	int fd, pfd[2], ro_out, ro_in;

	(void)state;
	fd = fa_openat(p, AT_FDCWD, "/dev/null", O_WRONLY, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	fd = fa_openat(p, AT_FDCWD, "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0666, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fa_openat(p, AT_FDCWD, "/dev/null", O_WRONLY | O_CREAT | O_EXCL, 0666, &d),
			 -EEXIST);
	/* a FIFO outside the roots changes no directory entry when opened */
	assert_int_equal(mkfifo(tp("outside/fifo"), 0600), 0);
	fd = fa_openat(p, AT_FDCWD, tp("outside/fifo"), O_RDWR, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	unlink(tp("outside/fifo"));

	/* an fd already open for writing may be reopened */
	assert_int_equal(pipe(pfd), 0);
	snprintf(alias, sizeof alias, "/dev/fd/%d", pfd[1]);
	fd = fa_openat(p, AT_FDCWD, alias, O_WRONLY, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	snprintf(alias, sizeof alias, "/proc/%d/fd/%d", (int)getpid(), pfd[1]);
	fd = fa_openat(p, AT_FDCWD, alias, O_WRONLY, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	/* a read-only fd is judged by the file it names */
	ro_out = open(tp("outside/secret"), O_RDONLY);
	ro_in = open(tp("root/sub/file"), O_RDONLY);
	snprintf(alias, sizeof alias, "/proc/self/fd/%d", ro_out);
	assert_int_equal(fa_openat(p, AT_FDCWD, alias, O_WRONLY | O_TRUNC, 0, &d), -EACCES);
	snprintf(alias, sizeof alias, "/dev/fd/%d", ro_out);
	assert_int_equal(fa_openat(p, AT_FDCWD, alias, O_WRONLY | O_TRUNC, 0, &d), -EACCES);
	snprintf(alias, sizeof alias, "/dev/fd/%d", ro_in);
	fd = fa_openat(p, AT_FDCWD, alias, O_WRONLY | O_APPEND, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	{
		char buf[64];

		assert_string_equal(slurp("outside/secret", buf, sizeof buf), "secret\n");
	}
	/* reads are passed straight through, wherever they are */
	fd = fa_openat(p, AT_FDCWD, tp("outside/secret"), O_RDONLY, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	close(ro_out);
	close(ro_in);
	close(pfd[0]);
	close(pfd[1]);
	fa_policy_free(p);
}

/* FA_HOW_STRICT: the same calls refused, and a FIFO never opened (it would block). */
static void openat_how_strict(void **state)
{
	const unsigned how = FA_HOW_STRICT;
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d;
	struct fa_pin pin;
	char alias[64];
	int pfd[2];

	(void)state;
	assert_int_equal(fa_openat_how(p, AT_FDCWD, "/dev/null", O_WRONLY, 0, how, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_OUTSIDE);
	assert_int_equal(mkfifo(tp("outside/fifo"), 0600), 0);
	assert_int_equal(symlink("../outside/fifo", tp("root/fifo_link")), 0);
	/* O_WRONLY on a FIFO with no reader would block here if it were opened */
	assert_int_equal(fa_openat_how(p, AT_FDCWD, tp("outside/fifo"), O_WRONLY, 0, how, &d),
			 -EACCES);
	assert_int_equal(fa_openat_how(p, AT_FDCWD, "fifo_link", O_WRONLY, 0, how, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_OUTSIDE);
	assert_int_equal(fa_pin_parent_how(p, FA_OP_WRITE, AT_FDCWD, tp("outside/fifo"), how, &pin,
					   &d), -EACCES);
	assert_int_equal(pipe(pfd), 0);
	snprintf(alias, sizeof alias, "/dev/fd/%d", pfd[1]);
	assert_int_equal(fa_openat_how(p, AT_FDCWD, alias, O_WRONLY, 0, how, &d), -EACCES);
	/* without it, the shim's exceptions stand */
	assert_int_equal(fa_pin_parent(p, FA_OP_WRITE, AT_FDCWD, tp("outside/fifo"), &pin, &d), 0);
	fa_unpin(&pin);
	close(pfd[0]);
	close(pfd[1]);
	unlink(tp("root/fifo_link"));
	unlink(tp("outside/fifo"));
	fa_policy_free(p);
}

/* FA_HOW_READS: reads confined like writes; the root itself may be read. */
static void openat_how_reads(void **state)
{
	const unsigned how = FA_HOW_STRICT | FA_HOW_READS;
	fa_policy *p = tree_policy(FA_SYM_BENEATH);
	struct fa_decision d;
	int fd;

	(void)state;
	fd = fa_openat_how(p, AT_FDCWD, tp("root/sub/file"), O_RDONLY, 0, how, &d);
	assert_true(fd >= 0);
	close(fd);
	fd = fa_openat_how(p, AT_FDCWD, tp("root"), O_RDONLY | O_DIRECTORY, 0, how, &d);
	assert_true(fd >= 0);
	assert_int_equal(d.root, 0);
	close(fd);
	fd = fa_openat_how(p, AT_FDCWD, "file_link_in", O_PATH, 0, how, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fa_openat_how(p, AT_FDCWD, tp("outside/secret"), O_RDONLY, 0, how, &d),
			 -EACCES);
	assert_int_equal(d.why, FA_WHY_OUTSIDE);
	assert_int_equal(fa_openat_how(p, AT_FDCWD, "file_link_out", O_RDONLY, 0, how, &d), -EACCES);
	assert_int_equal(fa_openat_how(p, AT_FDCWD, "out_link", O_PATH | O_DIRECTORY, 0, how, &d),
			 -EACCES);
	assert_int_equal(fa_openat_how(p, AT_FDCWD, "proj/.git/config", O_RDONLY, 0, how, &d),
			 -EACCES);
	assert_int_equal(d.why, FA_WHY_DENY_SUBTREE);
	/* the link itself, not followed, lies inside */
	fd = fa_openat_how(p, AT_FDCWD, "file_link_out", O_PATH | O_NOFOLLOW, 0, how, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fa_openat_how(p, AT_FDCWD, "sub/missing", O_RDONLY, 0, how, &d), -ENOENT);
	assert_int_equal(d.verdict, FA_ALLOW);
	fa_policy_free(p);
}

/* FA_HOW_NO_XDEV with a root of '/': /proc is another mount, /etc is not. */
static void openat_how_no_xdev(void **state)
{
	const unsigned how = FA_HOW_STRICT | FA_HOW_READS | FA_HOW_NO_XDEV;
	struct fa_decision d;
	struct fa_pin pin;
	struct stat a, b;
	uint64_t m1, m2;
	char msg[256];
	fa_policy *p;
	int mode, fd;

	(void)state;
	if (stat("/", &a) != 0 || stat("/proc/self", &b) != 0 || a.st_dev == b.st_dev)
		skip();
	/* qemu-user's statx says it gave the mount id and leaves it 0. */
	if (fa__sys_mount_id(AT_FDCWD, "/", &m1) != 0 || fa__sys_mount_id(AT_FDCWD, "/proc", &m2) != 0 ||
	    m1 == m2) {
		puts("# statx gives / and /proc one mount id here (an emulator): skipped");
		skip();
	}
	for (mode = FA_SYM_TRUST; mode <= FA_SYM_NOFOLLOW; mode++) {
		p = fa_policy_new();
		assert_int_equal(fa_policy_add_root(p, "/", msg, sizeof msg), 0);
		fa_policy_set_symlinks(p, (enum fa_symlinks)mode);
		assert_int_equal(fa_policy_seal(p, 1, msg, sizeof msg), 0);
		assert_int_equal(fa_openat_how(p, AT_FDCWD, "/proc/self/status", O_RDONLY, 0, how, &d),
				 -EACCES);
		assert_int_equal(d.why, FA_WHY_XDEV);
		assert_int_equal(fa_openat_how(p, AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY, 0, how,
					       &d), -EACCES);
		assert_int_equal(d.why, FA_WHY_XDEV);
		assert_int_equal(fa_openat_how(p, AT_FDCWD, "/proc/../proc/self/x",
					       O_WRONLY | O_CREAT, 0600, how, &d), -EACCES);
		/* nofollow resolves a climb in one piece: the link /proc/self refuses it first */
		assert_int_equal(d.why, mode == FA_SYM_NOFOLLOW ? FA_WHY_SYMLINK : FA_WHY_XDEV);
		assert_int_equal(fa_pin_parent_how(p, FA_OP_CREATE, AT_FDCWD, "/proc/self/x", how,
						   &pin, &d), -EACCES);
		assert_int_equal(d.why, FA_WHY_XDEV);
		/* the root's own mount, and the mount point's entry itself */
		fd = fa_openat_how(p, AT_FDCWD, tp("root/sub/file"), O_RDONLY, 0, how, &d);
		if (stat(T, &b) == 0 && b.st_dev == a.st_dev) {
			assert_true(fd >= 0);
			close(fd);
		} else if (fd >= 0) {
			close(fd);
		}
		fd = fa_openat_how(p, AT_FDCWD, "/proc", O_PATH | O_NOFOLLOW, 0,
				   how & ~FA_HOW_NO_XDEV, &d);
		assert_true(fd >= 0);
		close(fd);
		/* without the flag, the same read crosses */
		fd = fa_openat_how(p, AT_FDCWD, "/proc/self/status", O_RDONLY, 0,
				   how & ~FA_HOW_NO_XDEV, &d);
		if (mode == FA_SYM_NOFOLLOW) {
			assert_int_equal(fd, -EACCES);	/* /proc/self is a link */
		} else {
			assert_true(fd >= 0);
			close(fd);
		}
		fa_policy_free(p);
	}
}

static void openat_tmpfile(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d;
	int fd;

	(void)state;
	fd = fa_openat(p, AT_FDCWD, tp("root"), O_TMPFILE | O_WRONLY, 0600, &d);
	if (fd == -EOPNOTSUPP || fd == -EISDIR) {
		fa_policy_free(p);
		skip();
	}
	assert_true(fd >= 0);
	close(fd);
	fd = fa_openat(p, AT_FDCWD, "sub", O_TMPFILE | O_RDWR, 0600, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fa_openat(p, AT_FDCWD, "proj/.git", O_TMPFILE | O_RDWR, 0600, &d), -EACCES);
	assert_int_equal(fa_openat(p, AT_FDCWD, "..", O_TMPFILE | O_RDWR, 0600, &d), -EACCES);
	fa_policy_free(p);
}

static void pin_parent(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d;
	struct fa_pin pin;
	char big[PATH_MAX + 8];

	(void)state;
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "sub/newdir/", &pin, &d), 0);
	assert_string_equal(pin.name, "newdir/");
	assert_int_equal(mkdirat(pin.fd, pin.name, 0755), 0);
	fa_unpin(&pin);
	assert_true(exists("root/sub/newdir"));
	assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, "in_link/newdir//", &pin, &d), 0);
	assert_int_equal(unlinkat(pin.fd, pin.name, AT_REMOVEDIR), 0);
	fa_unpin(&pin);
	assert_false(exists("root/sub/newdir"));
	/* a trailing slash on a file keeps the kernel's ENOTDIR */
	assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, "sub/file/", &pin, &d), 0);
	assert_int_equal(unlinkat(pin.fd, pin.name, 0), -1);
	assert_int_equal(errno, ENOTDIR);
	fa_unpin(&pin);
	assert_true(exists("root/sub/file"));

	assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, "proj", &pin, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_PROTECTS_DENY);
	assert_int_equal(pin.fd, -1);
	assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, "../outside/secret", &pin, &d),
			 -EACCES);
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "out_link/x", &pin, &d), -EACCES);
	/* a hard link's new name: the entry itself, not what a link there names */
	assert_int_equal(fa_pin_parent(p, FA_OP_LINK, AT_FDCWD, "dangle_out", &pin, &d), 0);
	assert_string_equal(pin.name, "dangle_out");
	fa_unpin(&pin);
	assert_int_equal(fa_pin_parent(p, FA_OP_LINK, AT_FDCWD, "../outside/hl", &pin, &d), -EACCES);
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "", &pin, &d), -ENOENT);
	assert_int_equal(d.why, FA_WHY_EMPTY);
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, big, &pin, &d), -ENAMETOOLONG);
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "nonexist/x", &pin, &d), -ENOENT);
	assert_int_equal(d.verdict, FA_ALLOW);
	/* "." and ".." as the final component keep the kernel's own errors */
	assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, "sub/.", &pin, &d), 0);
	assert_int_equal(unlinkat(pin.fd, pin.name, AT_REMOVEDIR), -1);
	assert_int_equal(errno, EINVAL);
	fa_unpin(&pin);
	assert_true(exists("root/sub"));
	fa_policy_free(p);
	assert_false(exists("outside/x"));
	assert_true(exists("outside/secret"));
}

static void symlink_targets(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d;
	struct fa_pin pin;

	(void)state;
	assert_int_equal(fa_pin_parent(p, FA_OP_SYMLINK, AT_FDCWD, "sub/sl", &pin, &d), 0);
	assert_int_equal(fa_check_symlink_target(p, &pin, "file", &d), FA_ALLOW);
	assert_string_equal(d.path, tp("root/sub/file"));
	assert_int_equal(fa_check_symlink_target(p, &pin, "../in_link/x", &d), FA_ALLOW);
	assert_int_equal(fa_check_symlink_target(p, &pin, "../../outside/secret", &d), FA_DENY);
	assert_int_equal(d.why, FA_WHY_LINK_TARGET);
	assert_int_equal(fa_check_symlink_target(p, &pin, "/etc", &d), FA_DENY);
	assert_int_equal(fa_check_symlink_target(p, &pin, "../out_link/x", &d), FA_DENY);
	assert_int_equal(fa_check_symlink_target(p, &pin, "../proj/.git", &d), FA_DENY);
	assert_int_equal(fa_check_symlink_target(p, &pin, "", &d), FA_REJECT);
	fa_unpin(&pin);
	fa_policy_free(p);
}

/*
 * beneath follows relative links that stay under the root and refuses
 * absolute ones, even into the same root (the kernel's RESOLVE_BENEATH):
 * the refusal names the link.
 */
static void beneath_names_the_link(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_BENEATH);
	struct fa_decision d;
	struct fa_pin pin;
	int fd;

	(void)state;
	fd = fa_openat(p, AT_FDCWD, "in_link/ok", O_WRONLY | O_CREAT, 0600, &d);
	assert_true(fd >= 0);
	close(fd);
	unlink(tp("root/sub/ok"));
	assert_int_equal(fa_openat(p, AT_FDCWD, "abs_in_link/x", O_WRONLY | O_CREAT, 0600, &d),
			 -EACCES);
	assert_int_equal(d.why, FA_WHY_SYMLINK);
	assert_string_equal(d.path, tp("root/abs_in_link"));
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "abs_in_link/x", &pin, &d),
			 -EACCES);
	assert_string_equal(d.path, tp("root/abs_in_link"));
	assert_int_equal(fa_openat(p, AT_FDCWD, "file_link_out", O_WRONLY, 0, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_SYMLINK);
	assert_string_equal(d.path, tp("root/file_link_out"));
	assert_int_equal(fa_openat(p, AT_FDCWD, "out_link/new", O_WRONLY | O_CREAT, 0600, &d),
			 -EACCES);
	assert_string_equal(d.path, tp("root/out_link"));
	assert_false(exists("root/sub/x"));
	assert_false(exists("outside/new"));
	fa_policy_free(p);
}

/* Symlinks may be allowed to point anywhere; hard links never. */
static void outside_symlinks(void **state)
{
	char msg[256];
	fa_policy *p = fa_policy_new();
	struct fa_decision d, d2;
	struct fa_pin pin;

	(void)state;
	assert_int_equal(fa_policy_add_root(p, tp("root"), msg, sizeof msg), 0);
	fa_policy_set_outside_symlinks(p, 1);
	assert_int_equal(fa_policy_seal(p, 1, msg, sizeof msg), 0);
	assert_int_equal(fa_pin_parent(p, FA_OP_SYMLINK, AT_FDCWD, "sub/sl", &pin, &d), 0);
	assert_int_equal(fa_check_symlink_target(p, &pin, "../../outside/secret", &d), FA_ALLOW);
	assert_int_equal(fa_check_symlink_target(p, &pin, "/etc/passwd", &d), FA_ALLOW);
	assert_int_equal(fa_check_symlink_target(p, &pin, "", &d), FA_REJECT);
	fa_unpin(&pin);
	assert_int_equal(fa_check2(p, FA_OP_SYMLINK, AT_FDCWD, "sub/sl", AT_FDCWD, "/etc/passwd",
				   &d, &d2), FA_ALLOW);
	/* the new link's own directory still counts */
	assert_int_equal(fa_check2(p, FA_OP_SYMLINK, AT_FDCWD, tp("outside/sl"), AT_FDCWD, "x",
				   &d, &d2), FA_DENY);
	assert_int_equal(fa_pin_parent(p, FA_OP_SYMLINK, AT_FDCWD, tp("outside/sl"), &pin, &d),
			 -EACCES);
	/* a hard link to a file outside stays refused */
	assert_int_equal(fa_check2(p, FA_OP_LINK, AT_FDCWD, tp("outside/secret"), AT_FDCWD,
				   "sub/hl", &d, &d2), FA_DENY);
	assert_int_equal(d.why, FA_WHY_LINK_TARGET);
	/* a write through a link that leads out is judged where it lands */
	assert_int_equal(fa_openat(p, AT_FDCWD, "file_link_out", O_WRONLY | O_TRUNC, 0, &d),
			 -EACCES);
	assert_string_equal(d.path, tp("outside/secret"));
	fa_policy_free(p);
	/* by default the refusal names the way to allow it */
	assert_non_null(strstr(fa_why_text(FA_WHY_LINK_TARGET), "--allow-outside-symlinks"));
}

/* A filter that answers errno for openat2 only. */
static int refuse_openat2(int err)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 437, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = {sizeof prog / sizeof prog[0], prog};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}

/*
 * openat2 taken away by a seccomp filter (EPERM) or missing (ENOSYS): the
 * engine notices, walks instead, and answers the same.
 */
static void seccomp_fallback(void **state)
{
	static const int errs[] = {EPERM, ENOSYS};
	size_t i;

	(void)state;
	fa_resolve_force_fallback(0);
	for (i = 0; i < sizeof errs / sizeof errs[0]; i++) {
		fa_policy *p = tree_policy(FA_SYM_BENEATH);
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			struct fa_decision d;
			int fd, bad = 0;

			if (refuse_openat2(errs[i]) != 0)
				_exit(77);
			/* The very first calls must already take the walk. */
			fd = fa_openat(p, AT_FDCWD, "sub/seccomp", O_WRONLY | O_CREAT, 0600, &d);
			bad |= fd < 0;
			bad |= (fa_check(p, FA_OP_CREATE, AT_FDCWD, "in_link/new", &d) != FA_ALLOW) << 1;
			bad |= (fa_check(p, FA_OP_CREATE, AT_FDCWD, "out_link/new", &d) != FA_DENY ||
				d.why != FA_WHY_SYMLINK) << 2;
			bad |= (fa_openat(p, AT_FDCWD, "out_link/new", O_WRONLY | O_CREAT, 0600, &d) !=
				-EACCES) << 3;
			bad |= (fa_resolve_uses_openat2() != 0) << 4;
			_exit(bad);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		fa_policy_free(p);
		assert_true(WIFEXITED(st));
		if (WEXITSTATUS(st) == 77)
			skip();
		assert_int_equal(WEXITSTATUS(st), 0);
		assert_true(exists("root/sub/seccomp"));
		assert_false(exists("outside/new"));
		unlink(tp("root/sub/seccomp"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(openat_allowed),
		BOTH(openat_denied_no_side_effect),
		BOTH(openat_symlinks_per_mode),
		BOTH(openat_devices_and_fds),
		BOTH(openat_how_strict),
		BOTH(openat_how_reads),
		BOTH(openat_how_no_xdev),
		BOTH(openat_tmpfile),
		BOTH(pin_parent),
		BOTH(symlink_targets),
		BOTH(outside_symlinks),
		BOTH(beneath_names_the_link),
		cmocka_unit_test(seccomp_fallback),
	};

	return RUN_TAP("use", tests);
}
