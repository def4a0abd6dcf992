/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Building, sealing, printing and parsing policies (fail closed on
 * anything unclear), and the pure string helpers.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine_internal.h"
#include "tree.h"

static void lex_normalize(void **state)
{
	static const struct {
		const char *in, *out;
		ssize_t r;
	} cases[] = {
		{"a/../b", "b", 1}, {"a/./b/", "a/b", 3}, {"a//b", "a/b", 3},
		{".", "", 0}, {"", "", 0}, {"a/..", "", 0}, {"./a/b/../../c", "c", 1},
		{"..", NULL, -EXDEV}, {"a/../..", NULL, -EXDEV}, {"../x", NULL, -EXDEV},
		{"/abs", NULL, -EINVAL},
	};
	char out[PATH_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		ssize_t r = fa_lex_normalize(cases[i].in, out, sizeof out);

		assert_int_equal(r, cases[i].r);
		if (r >= 0)
			assert_string_equal(out, cases[i].out);
	}
	assert_int_equal(fa_lex_normalize("abcdef", out, 4), -ENAMETOOLONG);
}

static void fold_and_within(void **state)
{
	char out[PATH_MAX];

	(void)state;
	assert_int_equal(fa__fold_abs("/a/b/../c/./d//", out, sizeof out), 6);
	assert_string_equal(out, "/a/c/d");
	assert_int_equal(fa__fold_abs("/../..//x", out, sizeof out), 2);
	assert_string_equal(out, "/x");
	assert_int_equal(fa__fold_abs("/", out, sizeof out), 1);
	assert_true(fa__within("/x/a", 4, "/x/a", 4));
	assert_true(fa__within("/x/a/b", 6, "/x/a", 4));
	assert_false(fa__within("/x/ab", 5, "/x/a", 4));
	assert_false(fa__within("/x", 2, "/x/a", 4));
	assert_true(fa__within("/anything", 9, "/", 1));
	assert_true(fa__has_dotdot("a/../b"));
	assert_true(fa__has_dotdot(".."));
	assert_false(fa__has_dotdot("a/..b/c..d"));
}

static void split(void **state)
{
	static const struct {
		const char *in;
		size_t dlen;
		const char *name;
	} cases[] = {
		{"/a/b", 2, "b"}, {"a/b/", 1, "b/"}, {"b", 0, "b"}, {"/b", 1, "b"},
		{"/", 1, ""}, {"a//b//", 1, "b//"}, {"//x", 1, "x"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t dlen, nlen;
		const char *name;

		fa__split(cases[i].in, &dlen, &name, &nlen);
		assert_int_equal(dlen, cases[i].dlen);
		assert_string_equal(name, cases[i].name);
	}
}

static void fd_alias(void **state)
{
	(void)state;
	assert_int_equal(fa__fd_alias("/dev/stdout", 42), 1);
	assert_int_equal(fa__fd_alias("/dev/fd/7", 42), 7);
	assert_int_equal(fa__fd_alias("/proc/self/fd/12", 42), 12);
	assert_int_equal(fa__fd_alias("/proc/thread-self/fd/3", 42), 3);
	assert_int_equal(fa__fd_alias("/proc/42/fd/5", 42), 5);
	assert_int_equal(fa__fd_alias("/proc/43/fd/5", 42), -1);
	assert_int_equal(fa__fd_alias("/proc/self/fd/5/x", 42), -1);
	assert_int_equal(fa__fd_alias("/dev/fd/", 42), -1);
	assert_int_equal(fa__fd_alias("/dev/fdx/1", 42), -1);
}

static void portable_names(void **state)
{
	static const char *const bad[] = {
		"CON", "con", "Con.txt", "NUL.tar.gz", "aux", "PRN.", "COM1", "com9.log",
		"LPT1", "lpt9.x", "a:b", "stream:$DATA", "trailing.", "trailing ", "CON .txt",
	};
	static const char *const good[] = {
		"CONSOLE", "con1", "COM0", "COM10", "LPT", "file.txt", "nul_", ".hidden",
		"a.b.c", "x-CON", ".", "..",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (fa_name_portable(bad[i], strlen(bad[i])))
			fail_msg("'%s' passed as portable", bad[i]);
	for (i = 0; i < sizeof good / sizeof good[0]; i++)
		if (!fa_name_portable(good[i], strlen(good[i])))
			fail_msg("'%s' refused as not portable", good[i]);
	assert_false(fa_name_portable("", 0));
}

static void format_parse(void **state)
{
	char msg[256], a[8192], b[8192];
	fa_policy *p = fa_policy_new(), *q = fa_policy_new();

	(void)state;
	assert_int_equal(fa_policy_add_root(p, tp("root"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_cwd_root(p), 0);
	assert_int_equal(fa_policy_add_root(p, tp("root/in_link"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_deny(p, tp("root/proj/.git"), msg, sizeof msg), 0);
	fa_policy_set_symlinks(p, FA_SYM_BENEATH);
	assert_true(fa_policy_format(p, a, sizeof a) > 0);
	assert_int_equal(fa_policy_parse(q, a, msg, sizeof msg), 0);
	assert_true(fa_policy_format(q, b, sizeof b) > 0);
	assert_string_equal(a, b);
	assert_int_equal(fa_policy_symlinks(q), FA_SYM_BENEATH);
	assert_int_equal(fa_policy_nroots(q), 3);
	assert_string_equal(fa_policy_root(q, 1), ".");
	/* sealed: resolved paths are printed, and they parse back */
	assert_int_equal(fa_policy_seal(p, 1, msg, sizeof msg), 0);
	assert_string_equal(fa_policy_root(p, 2), tp("root/sub"));
	assert_true(fa_policy_format(p, a, sizeof a) > 0);
	assert_non_null(strstr(a, "symlinks beneath\n"));
	assert_non_null(strstr(a, "cwdroot\n"));
	assert_int_equal(fa_policy_format(p, a, 10), -ENAMETOOLONG);
	assert_int_equal(fa_policy_add_root(p, "/tmp", msg, sizeof msg), -EBUSY);
	fa_policy_free(p);
	fa_policy_free(q);

	p = fa_policy_new();
	assert_int_equal(fa_policy_parse(p, "# comment\n\nunrestricted\nsymlinks nofollow", msg,
					 sizeof msg), 0);
	assert_true(fa_policy_unrestricted(p));
	assert_int_equal(fa_policy_symlinks(p), FA_SYM_NOFOLLOW);
	assert_false(fa_policy_outside_symlinks(p));
	fa_policy_free(p);

	/* symlinks allowed to point outside: carried to children in the text */
	p = fa_policy_new();
	q = fa_policy_new();
	assert_int_equal(fa_policy_add_root(p, tp("root"), msg, sizeof msg), 0);
	fa_policy_set_outside_symlinks(p, 1);
	assert_true(fa_policy_format(p, a, sizeof a) > 0);
	assert_non_null(strstr(a, "outside-symlinks allow\n"));
	assert_int_equal(fa_policy_parse(q, a, msg, sizeof msg), 0);
	assert_true(fa_policy_outside_symlinks(q));
	fa_policy_free(p);
	fa_policy_free(q);
}

/* What a context's child carries: only what both policies allow. */
static void format_meet(void **state)
{
	char msg[256], a[8192], want[8192];
	fa_policy *p = fa_policy_new(), *q = fa_policy_new(), *r = fa_policy_new();
	ssize_t n;

	(void)state;
	assert_int_equal(fa_policy_add_root(p, tp("root"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_root(p, tp("outside"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_deny(p, tp("root/proj/.git"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_deny(p, tp("root/sub"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(p, 0, msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_root(q, tp("root/proj"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_root(q, "/nonexistent-fa-meet", msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_cwd_root(q), 0);
	fa_policy_set_symlinks(q, FA_SYM_BENEATH);
	fa_policy_set_outside_symlinks(q, 1);
	assert_int_equal(fa_policy_seal(q, 0, msg, sizeof msg), 0);
	snprintf(want, sizeof want, "symlinks beneath\nroot %s\ndeny %s\n", tp("root/proj"),
		 tp("root/proj/.git"));
	/* the deeper root; the deny inside it; no cwd root, no root only one side has */
	n = fa_policy_format_meet(p, q, a, sizeof a);
	assert_string_equal(a, want);
	assert_int_equal(n, (ssize_t)strlen(want));
	assert_int_equal(fa_policy_format_meet(q, p, NULL, 0), n);
	/* it parses back, as the child reads it */
	assert_int_equal(fa_policy_parse(r, a, msg, sizeof msg), 0);
	assert_int_equal(fa_policy_nroots(r), 1);
	assert_int_equal(fa_policy_ndeny(r), 1);
	assert_int_equal(fa_policy_format_meet(p, q, a, 10), -ENAMETOOLONG);
	/* with no process policy the context's is the child's whole policy */
	assert_true(fa_policy_format_meet(NULL, q, a, sizeof a) > 0);
	assert_true(fa_policy_format(q, want, sizeof want) > 0);
	assert_string_equal(a, want);
	fa_policy_free(p);
	fa_policy_free(q);
	fa_policy_free(r);
}

static void parse_fails_closed(void **state)
{
	static const char *const bad[] = {
		"root relative/path\n", "root\n", "deny\n", "symlinks sideways\n", "rooot /x\n",
		"root /a\nunknown\n", " root /a\n", "symlinks\n", "cwdroot extra\n",
		"outside-symlinks\n", "outside-symlinks yes\n",
	};
	char msg[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fa_policy *p = fa_policy_new();

		msg[0] = 0;
		if (fa_policy_parse(p, bad[i], msg, sizeof msg) >= 0)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(strstr(msg, "line "));
		fa_policy_free(p);
	}
}

static void build_errors(void **state)
{
	char msg[256], home[PATH_MAX], *old = getenv("HOME");
	fa_policy *p;

	(void)state;
	p = fa_policy_new();
	assert_int_equal(fa_policy_add_root(p, "/tmp/a\nroot /", msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "newline"));
	assert_int_equal(fa_policy_add_root(p, "", msg, sizeof msg), -EINVAL);
	assert_int_equal(fa_policy_add_root(p, "~nobody/x", msg, sizeof msg), -EINVAL);
	/* a deny subtree must lie inside a root */
	assert_int_equal(fa_policy_add_root(p, tp("root/sub"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_deny(p, tp("outside"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(p, 0, msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "not inside any allowed root"));
	fa_policy_free(p);
	/* a missing root is an error only when required */
	p = fa_policy_new();
	assert_int_equal(fa_policy_add_root(p, tp("root/missing/x"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(p, 1, msg, sizeof msg), -ENOENT);
	assert_non_null(strstr(msg, "does not exist"));
	fa_policy_free(p);
	p = fa_policy_new();
	assert_int_equal(fa_policy_add_root(p, tp("root/sub/file"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(p, 0, msg, sizeof msg), -ENOTDIR);
	fa_policy_free(p);
	p = fa_policy_new();
	fa_policy_set_unrestricted(p);
	assert_int_equal(fa_policy_add_root(p, tp("root"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_deny(p, tp("root/sub"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(p, 0, msg, sizeof msg), -EINVAL);
	fa_policy_free(p);
	/* "~" comes from $HOME; relative roots from the cwd now */
	strcpy(home, old ? old : "");
	setenv("HOME", tp("root"), 1);
	p = fa_policy_new();
	assert_int_equal(fa_policy_add_root(p, "~/sub", msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_root(p, "proj", msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(p, 1, msg, sizeof msg), 0);
	assert_string_equal(fa_policy_root(p, 0), tp("root/sub"));
	assert_string_equal(fa_policy_root(p, 1), tp("root/proj"));
	fa_policy_free(p);
	if (old)
		setenv("HOME", home, 1);
	else
		unsetenv("HOME");
	/* an unsealed policy decides nothing */
	p = fa_policy_new();
	{
		struct fa_decision d;

		assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "x", &d), FA_REJECT);
		assert_int_equal(fa_openat(p, AT_FDCWD, "x", O_WRONLY | O_CREAT, 0600, &d), -EACCES);
		assert_false(exists("root/x"));
	}
	fa_policy_free(p);
}

/* At most FA's 64 roots; the same directory named twice counts once. */
static void root_count(void **state)
{
	char msg[256], path[64];
	fa_policy *p = fa_policy_new();
	int i;

	(void)state;
	for (i = 0; i < 64; i++) {
		snprintf(path, sizeof path, "/nonexistent/%d", i);
		assert_int_equal(fa_policy_add_root(p, path, msg, sizeof msg), 0);
		/* named again: the same root */
		assert_int_equal(fa_policy_add_root(p, path, msg, sizeof msg), 0);
	}
	assert_int_equal(fa_policy_nroots(p), 64);
	assert_int_equal(fa_policy_add_root(p, "/nonexistent/7", msg, sizeof msg), 0);
	/* full: other names for a listed root are still that root */
	assert_int_equal(fa_policy_add_root(p, "/nonexistent/7/", msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_root(p, "/nonexistent/./8", msg, sizeof msg), 0);
	assert_int_equal(fa_policy_nroots(p), 64);
	assert_int_equal(fa_policy_add_root(p, "/nonexistent/64", msg, sizeof msg), -ENOSPC);
	assert_non_null(strstr(msg, "at most 64"));
	fa_policy_free(p);

	/* two names that resolve to one directory: one root once sealed */
	p = fa_policy_new();
	assert_int_equal(fa_policy_add_root(p, tp("root/sub"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_root(p, tp("root/in_link"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_root(p, tp("root/proj/../sub"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_root(p, tp("root"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_cwd_root(p), 0);
	assert_int_equal(fa_policy_add_cwd_root(p), 0);
	assert_int_equal(fa_policy_add_deny(p, tp("root/proj/.git"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(p, 1, msg, sizeof msg), 0);
	assert_int_equal(fa_policy_nroots(p), 3);
	assert_string_equal(fa_policy_root(p, 0), tp("root/sub"));
	assert_string_equal(fa_policy_root(p, 1), tp("root"));
	assert_string_equal(fa_policy_root(p, 2), ".");
	assert_true(fa_policy_root_fd(p, 0) >= 0);
	assert_true(fa_policy_root_fd(p, 1) >= 0);
	{
		struct fa_decision d;

		assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, tp("root/sub/x"), &d), FA_ALLOW);
		assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, tp("root/proj/.git/x"), &d),
				 FA_DENY);
		assert_int_equal(d.why, FA_WHY_DENY_SUBTREE);
	}
	fa_policy_free(p);
}

static void missing_root(void **state)
{
	char msg[256];
	fa_policy *p = fa_policy_new();
	struct fa_decision d;
	int fd;

	(void)state;
	assert_int_equal(fa_policy_add_root(p, tp("root/later"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(p, 0, msg, sizeof msg), 0);
	assert_int_equal(fa_policy_root_fd(p, 0), -1);
	assert_string_equal(fa_policy_root(p, 0), tp("root/later"));
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "later/x", &d), FA_ALLOW);
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "sub/x", &d), FA_DENY);
	/* created after sealing: judged by its lexical path */
	assert_int_equal(mkdir(tp("root/later"), 0755), 0);
	fd = fa_openat(p, AT_FDCWD, "later/f", O_WRONLY | O_CREAT, 0600, &d);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fa_openat(p, AT_FDCWD, "sub/f", O_WRONLY | O_CREAT, 0600, &d), -EACCES);
	unlink(tp("root/later/f"));
	rmdir(tp("root/later"));
	fa_policy_free(p);
}

static void pinned_and_read_only(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	int fd = fa_policy_root_fd(p, 0), st;
	pid_t pid;

	(void)state;
	/* pinned high, out of the way of programs that reuse low fds */
	assert_true(fd >= 10);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_GETFL) & O_PATH, O_PATH);
	assert_int_equal(fa_policy_root_fd(p, 5), -1);
	/* the sealed policy is read-only memory: a stray write faults */
	pid = fork();
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);	/* cmocka catches it otherwise */
		((volatile struct fa_policy *)p)->unrestricted = 1;
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	fa_policy_free(p);
}

/* Each symlink mode's row: its name parses back to it, and it orders the modes. */
static void symlink_modes_one_row_each(void **state)
{
	enum fa_symlinks m, back;
	char choices[64];
	size_t n;
	int i;

	(void)state;
	for (i = 0; i < FA_SYM_NMODES; i++) {
		m = (enum fa_symlinks)i;
		assert_int_equal(fa_symlinks_parse(fa_symlinks_name(m), &back), 0);
		assert_int_equal(back, m);
		assert_true(fa_symlinks_as_strict(m, m));
		assert_true(fa_symlinks_as_strict(m, FA_SYM_TRUST));
		assert_true(fa_symlinks_as_strict(FA_SYM_NOFOLLOW, m));
	}
	assert_false(fa_symlinks_as_strict(FA_SYM_TRUST, FA_SYM_BENEATH));
	assert_false(fa_symlinks_as_strict(FA_SYM_BENEATH, FA_SYM_NOFOLLOW));
	assert_false(fa_symlinks_as_strict((enum fa_symlinks)FA_SYM_NMODES, FA_SYM_TRUST));
	assert_string_equal(fa_symlinks_name((enum fa_symlinks)FA_SYM_NMODES), "unknown");
	assert_int_equal(fa_symlinks_parse("Trust", &back), -EINVAL);
	assert_int_equal(fa_symlinks_parse("", &back), -EINVAL);
	assert_int_equal(fa_symlinks_parse(NULL, &back), -EINVAL);
	/* "trust, beneath or nofollow": every name once, "or" before the last. */
	n = fa_symlinks_choices(choices, sizeof choices);
	assert_int_equal(n, strlen(choices));
	for (i = 0; i < FA_SYM_NMODES; i++)
		assert_non_null(strstr(choices, fa_symlinks_name((enum fa_symlinks)i)));
	assert_non_null(strstr(choices, " or "));
	assert_string_equal(strstr(choices, " or ") + 4,
			    fa_symlinks_name((enum fa_symlinks)(FA_SYM_NMODES - 1)));
	/* Cut to fit, never past the buffer. */
	fa_symlinks_choices(choices, 8);
	assert_string_equal(choices, "trust");
}

static void operation_classes_one_row_each(void **state)
{
	enum fa_op back;
	int i;

	(void)state;
	for (i = 0; i < FA_OP_NCLASSES; i++) {
		assert_int_equal(fa_op_parse(fa_op_name((enum fa_op)i), &back), 0);
		assert_int_equal(back, i);
	}
	assert_string_equal(fa_op_name(FA_OP_WRITE), "write");
	assert_string_equal(fa_op_name(FA_OP_REPLACE), "replace");
	assert_string_equal(fa_op_name((enum fa_op)FA_OP_NCLASSES), "unknown");
	assert_int_equal(fa_op_parse("unknown", &back), -EINVAL);
	assert_int_equal(fa_op_parse(NULL, &back), -EINVAL);
}

/* The helpers the shim and the Workspace take from the engine instead of their own copies. */
static void exported_path_helpers(void **state)
{
	char buf[PATH_MAX], cwd[PATH_MAX];
	int fd;

	(void)state;
	assert_true(fa_path_within("/a/b", "/a"));
	assert_true(fa_path_within("/a", "/a"));
	assert_true(fa_path_within("/a", "/"));
	assert_false(fa_path_within("/ab", "/a"));
	assert_false(fa_path_within("/a", "/a/b"));
	assert_false(fa_path_within("rel", "/"));
	assert_int_equal(fa_path_join("/a", 2, "b/c", buf, sizeof buf), 6);
	assert_string_equal(buf, "/a/b/c");
	assert_int_equal(fa_path_join("/a", 2, "b", buf, 4), -ENAMETOOLONG);
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(fa_fd_path(AT_FDCWD, buf, sizeof buf), (ssize_t)strlen(cwd));
	assert_string_equal(buf, cwd);
	fd = open("/", O_PATH | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(fa_fd_path(fd, buf, sizeof buf), 1);
	assert_string_equal(buf, "/");
	close(fd);
	errno = 12345;
	assert_int_equal(fa_fd_path(-7, buf, sizeof buf), -EBADF);
	assert_int_equal(errno, 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lex_normalize),
		cmocka_unit_test(fold_and_within),
		cmocka_unit_test(split),
		cmocka_unit_test(fd_alias),
		cmocka_unit_test(portable_names),
		BOTH(format_parse),
		cmocka_unit_test(format_meet),
		cmocka_unit_test(parse_fails_closed),
		BOTH(build_errors),
		BOTH(missing_root),
		BOTH(root_count),
		cmocka_unit_test(pinned_and_read_only),
		cmocka_unit_test(symlink_modes_one_row_each),
		cmocka_unit_test(operation_classes_one_row_each),
		cmocka_unit_test(exported_path_helpers),
	};

	return RUN_TAP("policy", tests);
}
