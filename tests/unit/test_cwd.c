/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The engine's cwd cache: relative calls judged on the thread's copy of
 * the cwd's path, with no getcwd, and the same answers as without it.
 *
 * "No getcwd" is shown, not assumed: the cases that claim it run in a
 * child whose seccomp filter refuses getcwd, where anything that still
 * read the directory would fail. Every case runs with openat2 and with
 * the forced walk.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "tree.h"

#define WFLAGS (O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)

/* The shim's part: a chdir told to the engine. */
static void cd(const char *rel)
{
	fa_cwd_hold();
	assert_int_equal(chdir(rel[0] == '/' ? rel : tp(rel)), 0);
	fa_cwd_release();
}

static int refuse_getcwd(void)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getcwd, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog fprog = {sizeof prog / sizeof prog[0], prog};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog);
}

/* Run fn in a child that cannot read its cwd; its exit status, 0 = all held. */
static int without_getcwd(int (*fn)(fa_policy *), fa_policy *p)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		if (refuse_getcwd() != 0)
			_exit(99);
		_exit(fn(p));
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int served(fa_policy *p)
{
	struct fa_decision d;
	struct fa_pin pin;
	int fd, bad = 0;
	char want[PATH_MAX];

	fd = fa_openat(p, AT_FDCWD, "sub/cached", WFLAGS, 0600, &d);
	bad |= fd < 0;
	if (fd >= 0)
		close(fd);
	snprintf(want, sizeof want, "%s", tp("root/sub/cached"));
	bad |= (strcmp(d.path, want) != 0 || d.root != 0) << 1;
	/* A bare name's parent is the cwd itself: nothing to open. */
	bad |= (fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "bare", &pin, &d) != 0 ||
		pin.fd != AT_FDCWD || strcmp(pin.name, "bare") != 0) << 2;
	fa_unpin(&pin);
	bad |= (fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, "./sub/cached", &pin, &d) != 0 ||
		pin.fd < 0 || strcmp(pin.name, "cached") != 0) << 3;
	if (pin.fd >= 0 && unlinkat(pin.fd, pin.name, 0) != 0)
		bad |= 1 << 4;
	fa_unpin(&pin);
	bad |= (fa_check(p, FA_OP_WRITE, AT_FDCWD, "sub/x", &d) != FA_ALLOW) << 5;
	/* A lexical deny is not final (a link may lead back out): never opened here. */
	fd = fa_openat(p, AT_FDCWD, "proj/.git/x", WFLAGS, 0600, &d);
	bad |= (fd >= 0) << 6;
	return bad;
}

static int stale_after_change(fa_policy *p)
{
	struct fa_decision d;

	fa_cwd_changed();
	/* The copy must be read again, and cannot be: the call fails closed. */
	return fa_openat(p, AT_FDCWD, "sub/after", WFLAGS, 0600, &d) >= 0;
}

static int held_off(fa_policy *p)
{
	struct fa_decision d;
	int bad;

	fa_cwd_hold();
	bad = fa_check(p, FA_OP_WRITE, AT_FDCWD, "sub/x", &d) == FA_ALLOW;
	fa_cwd_release();
	return bad;
}

/* Whether this process can install a seccomp filter (qemu-user cannot). */
static int seccomp_works(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(refuse_getcwd() != 0);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void cache_serves_relative_calls(void **state)
{
	fa_policy *p;
	struct fa_decision d;

	(void)state;
	if (!seccomp_works()) {
		puts("# no seccomp filters in this process (an emulator?): skipped");
		skip();
	}
	p = tree_policy(FA_SYM_TRUST);
	cd("root");
	/* One relative call reads the directory; the child inherits the copy. */
	assert_int_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, "x", &d), FA_ALLOW);
	/* The walk reads where it starts from itself; openat2 has the kernel do it. */
	if (fa_resolve_uses_openat2())
		assert_int_equal(without_getcwd(served, p), 0);
	assert_false(exists("root/sub/cached"));
	assert_false(exists("root/proj/.git/x"));
	assert_int_equal(without_getcwd(stale_after_change, p), 0);
	assert_false(exists("root/sub/after"));
	assert_int_equal(without_getcwd(held_off, p), 0);
	fa_policy_free(p);
}

static void changed_follows_chdir(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d;
	int fd;

	(void)state;
	cd("outside");
	assert_int_equal(fa_openat(p, AT_FDCWD, "new", WFLAGS, 0600, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_OUTSIDE);
	assert_false(exists("outside/new"));
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "new", &d), FA_DENY);
	cd("root/sub");
	fd = fa_openat(p, AT_FDCWD, "new", WFLAGS, 0600, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_true(exists("root/sub/new"));
	unlink(tp("root/sub/new"));
	/* Above the root: the part below the cwd decides. */
	cd(".");
	fd = fa_openat(p, AT_FDCWD, "root/sub/new", WFLAGS, 0600, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_string_equal(d.path, tp("root/sub/new"));
	unlink(tp("root/sub/new"));
	assert_int_equal(fa_openat(p, AT_FDCWD, "rootab/new", WFLAGS, 0600, &d), -EACCES);
	assert_false(exists("rootab/new"));
	/* A directory opened for writing: the kernel's EISDIR comes first. */
	assert_int_equal(fa_openat(p, AT_FDCWD, "root", O_WRONLY, 0, &d), -EISDIR);
	cd("root");
	fa_policy_free(p);
}

static void cwd_in_deny_subtree(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d;
	struct fa_pin pin;

	(void)state;
	cd("root/proj/.git");
	assert_int_equal(fa_openat(p, AT_FDCWD, "x", WFLAGS, 0600, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_DENY_SUBTREE);
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "y", &pin, &d), -EACCES);
	assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, "config", &pin, &d), -EACCES);
	assert_int_equal(fa_openat(p, AT_FDCWD, ".", O_TMPFILE | O_WRONLY, 0600, &d), -EACCES);
	assert_false(exists("root/proj/.git/x"));
	assert_true(exists("root/proj/.git/config"));
	cd("root/proj");
	assert_int_equal(fa_openat(p, AT_FDCWD, ".git/x", WFLAGS, 0600, &d), -EACCES);
	assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, ".git", &pin, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_PROTECTS_DENY);
	assert_int_equal(fa_pin_parent(p, FA_OP_RENAME, AT_FDCWD, ".git/", &pin, &d), -EACCES);
	assert_false(exists("root/proj/.git/x"));
	cd("root");
	fa_policy_free(p);
}

static void relative_dotdot_and_links(void **state)
{
	int m;

	(void)state;
	for (m = FA_SYM_TRUST; m <= FA_SYM_NOFOLLOW; m++) {
		fa_policy *p = tree_policy((enum fa_symlinks)m);
		struct fa_decision d;
		struct fa_pin pin;
		int fd;

		cd("root/sub");
		fd = fa_openat(p, AT_FDCWD, "../sub/dd", WFLAGS, 0600, &d);
		assert_true(fd >= 0);
		close(fd);
		assert_true(exists("root/sub/dd"));
		unlink(tp("root/sub/dd"));
		assert_int_equal(fa_openat(p, AT_FDCWD, "../../outside/dd", WFLAGS, 0600, &d), -EACCES);
		assert_int_equal(fa_openat(p, AT_FDCWD, "../proj/.git/dd", WFLAGS, 0600, &d), -EACCES);
		assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "../../outside/dd", &pin,
					       &d), -EACCES);
		assert_false(exists("outside/dd"));
		cd("root");
		/* Through links: each mode's answer, never the link's target by accident. */
		assert_int_equal(fa_openat(p, AT_FDCWD, "out_link/x", WFLAGS, 0600, &d), -EACCES);
		assert_int_equal(fa_openat(p, AT_FDCWD, "file_link_out", WFLAGS, 0600, &d), -EACCES);
		assert_int_equal(fa_openat(p, AT_FDCWD, "dangle_out", WFLAGS, 0600, &d), -EACCES);
		assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "out_link/x", &pin, &d),
				 -EACCES);
		assert_int_equal(fa_pin_parent(p, FA_OP_ATTR, AT_FDCWD, "file_link_out", &pin, &d),
				 -EACCES);
		assert_false(exists("outside/x"));
		assert_false(exists("outside/newfile"));
		fd = fa_openat(p, AT_FDCWD, "in_link/x", WFLAGS, 0600, &d);
		if (m == FA_SYM_NOFOLLOW) {
			assert_int_equal(fd, -EACCES);
		} else {
			assert_true(fd >= 0);
			close(fd);
			assert_true(exists("root/sub/x"));
			unlink(tp("root/sub/x"));
		}
		fa_policy_free(p);
	}
}

/*
 * The cache changes the cost, never the answer: every relative path of the
 * tree, every operation, every mode, judged with the cache and with it
 * held off must agree on verdict, reason and path.
 */
static void same_answers_as_without(void **state)
{
	static const char *dirs[] = {"root", "root/sub", "root/proj", "root/proj/.git", "outside", "."};
	static const char *paths[] = {
		"x", "sub/x", "./sub//x/", "sub", ".", "..", "../x", "sub/../x", "in_link/x",
		"out_link/x", "abs_in_link/x", "file_link_in", "file_link_out", "dangle_in",
		"dangle_out", "loop", "loop/x", "proj/.git", "proj/.git/x", "proj", ".git",
		"config", "root/x", "rootab/x", "secret", "nonexist/x", "sub/file/x",
	};
	static const enum fa_op ops[] = {
		FA_OP_WRITE, FA_OP_CREATE, FA_OP_REMOVE, FA_OP_ATTR, FA_OP_DIR, FA_OP_CHDIR,
	};
	size_t i, j, k;
	int m;

	(void)state;
	for (m = FA_SYM_TRUST; m <= FA_SYM_NOFOLLOW; m++) {
		fa_policy *p = tree_policy((enum fa_symlinks)m);

		for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
			cd(dirs[i]);
			for (j = 0; j < sizeof paths / sizeof paths[0]; j++) {
				for (k = 0; k < sizeof ops / sizeof ops[0]; k++) {
					struct fa_decision a, b;
					struct fa_pin pa, pb;
					enum fa_verdict va, vb;
					int ra, rb;

					va = fa_check(p, ops[k], AT_FDCWD, paths[j], &a);
					ra = fa_pin_parent(p, ops[k], AT_FDCWD, paths[j], &pa, &a);
					fa_cwd_hold();
					vb = fa_check(p, ops[k], AT_FDCWD, paths[j], &b);
					rb = fa_pin_parent(p, ops[k], AT_FDCWD, paths[j], &pb, &b);
					fa_cwd_release();
					if (va != vb || ra != rb || a.verdict != b.verdict ||
					    a.why != b.why || (ra == 0 && strcmp(a.path, b.path)))
						fail_msg("mode %d in %s: %s %s: cached %d/%d %s %s, "
							 "read %d/%d %s %s", m, dirs[i],
							 fa_op_name(ops[k]), paths[j], va, ra,
							 fa_why_name(a.why), a.path, vb, rb,
							 fa_why_name(b.why), b.path);
					fa_unpin(&pa);
					fa_unpin(&pb);
				}
			}
		}
		cd("root");
		fa_policy_free(p);
	}
}

/*
 * A rename judged by the engine may move the cwd: the next relative call
 * names the directory by its new path, not the old one.
 */
static void rename_invalidates(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d;
	struct fa_pin from, to;

	(void)state;
	assert_int_equal(mkdir(tp("root/moving"), 0755), 0);
	cd("root/moving");
	assert_int_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, "x", &d), FA_ALLOW);
	assert_string_equal(d.path, tp("root/moving/x"));
	assert_int_equal(fa_pin_parent(p, FA_OP_RENAME, AT_FDCWD, tp("root/moving"), &from, &d), 0);
	assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, tp("root/moved"), &to, &d), 0);
	assert_int_equal(renameat(from.fd, from.name, to.fd, to.name), 0);
	fa_unpin(&from);
	fa_unpin(&to);
	assert_int_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, "x", &d), FA_ALLOW);
	assert_string_equal(d.path, tp("root/moved/x"));
	cd("root");
	assert_int_equal(rmdir(tp("root/moved")), 0);
	fa_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(cache_serves_relative_calls),
		BOTH(changed_follows_chdir),
		BOTH(cwd_in_deny_subtree),
		BOTH(relative_dotdot_and_links),
		BOTH(same_answers_as_without),
		BOTH(rename_invalidates),
	};

	fa_cwd_cache_enable();
	return RUN_TAP("cwd", tests);
}
