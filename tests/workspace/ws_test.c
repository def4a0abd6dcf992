/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Workspace C API, through its installed header only: the escape table
 * crossed with every operation (openat2 and the forced walk), a rename-swap
 * race, atomic_write killed at random points, sub-workspace containment.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../libc_compat.h"

#include "workspace/fa_workspace.h"

static char base[PATH_MAX / 4], root[PATH_MAX / 2], outside[PATH_MAX / 2];

__attribute__((format(printf, 1, 2))) static void mk(const char *fmt, ...)
{
	char p[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p, sizeof p, fmt, ap);
	va_end(ap);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int setup(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];

	snprintf(base, sizeof base, "%s/fa-ws-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(base));
	snprintf(root, sizeof root, "%s/root", base);
	snprintf(outside, sizeof outside, "%s/outside", base);
	mk("%s", root);
	mk("%s", outside);
	mk("%s/a", root);
	mk("%s/a/b", root);
	mk("%s/secret", root);
	snprintf(p, sizeof p, "%s/a/b/f", root);
	put(p, "inside");
	snprintf(p, sizeof p, "%s/victim", outside);
	put(p, "outside");
	snprintf(p, sizeof p, "%s/a/out", root);
	assert_int_equal(symlink("../../outside", p), 0);
	snprintf(p, sizeof p, "%s/a/abs", root);
	assert_int_equal(symlink(outside, p), 0);
	snprintf(p, sizeof p, "%s/cwdlink", root);
	assert_int_equal(symlink("/proc/self/cwd", p), 0);
	snprintf(p, sizeof p, "%s/a/inb", root);
	assert_int_equal(symlink("b", p), 0);
	snprintf(q, sizeof q, "%s/a/absfile", root);
	snprintf(p, sizeof p, "%s/victim", outside);
	assert_int_equal(symlink(p, q), 0);
	fa_ws_force_fallback(*state != NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
	fa_ws_force_fallback(0);
	return 0;
}

static fa_ws *open_ws(enum fa_symlinks mode)
{
	const char *deny[] = {"secret", NULL};
	struct fa_ws_error err;
	fa_ws *ws = NULL;

	assert_int_equal(fa_ws_open(root, deny, mode, 0, &ws, &err), 0);
	assert_non_null(ws);
	return ws;
}

/* ---- the escape table ------------------------------------------------- */

struct esc {
	const char *path;
	enum fa_why why[3];
};

static const struct esc escapes[] = {
	{"../x", {FA_WHY_ESCAPES}},
	{"..", {FA_WHY_ESCAPES}},
	{"a/../../x", {FA_WHY_ESCAPES}},
	{"a//..//..//outside/victim", {FA_WHY_ESCAPES}},
	{"/etc/passwd", {FA_WHY_ABSOLUTE}},
	{"//x", {FA_WHY_ABSOLUTE}},
	{"a/out/victim", {FA_WHY_SYMLINK, FA_WHY_OUTSIDE}},
	{"a/out/new", {FA_WHY_SYMLINK, FA_WHY_OUTSIDE}},
	{"a/abs/victim", {FA_WHY_SYMLINK, FA_WHY_OUTSIDE}},
	{"a/abs/d/x", {FA_WHY_SYMLINK, FA_WHY_OUTSIDE}},
	{"cwdlink/x", {FA_WHY_SYMLINK, FA_WHY_OUTSIDE, FA_WHY_MAGICLINK}},
	{"secret/x", {FA_WHY_DENY_SUBTREE, FA_WHY_PROTECTS_DENY}},
	{"a/../secret/x", {FA_WHY_DENY_SUBTREE, FA_WHY_PROTECTS_DENY}},
};

enum { OP_OPEN_W, OP_OPEN_R, OP_CREAT_EXCL, OP_MKDIR, OP_MKDIR_P, OP_UNLINK, OP_RMDIR,
       OP_RENAME_SRC, OP_RENAME_DST, OP_EXCHANGE, OP_LINK_SRC, OP_LINK_DST, OP_SYMLINK,
       OP_STAT, OP_LSTAT, OP_READLINK, OP_LISTDIR, OP_ATOMIC, OP_SUB, OP_COUNT };

static int count_cb(void *arg, const char *name, unsigned char type)
{
	(*(int *)arg)++;
	return 0;
}

static int run_op(fa_ws *ws, int op, const char *p)
{
	struct stat st;
	char buf[64];
	fa_ws *sub = NULL;
	int n = 0, rc;

	switch (op) {
	case OP_OPEN_W:
		rc = fa_ws_openat(ws, p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		break;
	case OP_OPEN_R:
		rc = fa_ws_openat(ws, p, O_RDONLY, 0);
		break;
	case OP_CREAT_EXCL:
		rc = fa_ws_openat(ws, p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		break;
	case OP_MKDIR: return fa_ws_mkdir(ws, p, 0755, 0, 0);
	case OP_MKDIR_P: return fa_ws_mkdir(ws, p, 0755, 1, 1);
	case OP_UNLINK: return fa_ws_unlink(ws, p);
	case OP_RMDIR: return fa_ws_rmdir(ws, p);
	case OP_RENAME_SRC: return fa_ws_rename(ws, p, "a/b/moved", 0);
	case OP_RENAME_DST: return fa_ws_rename(ws, "a/b/f", p, 0);
	case OP_EXCHANGE: return fa_ws_rename(ws, "a/b/f", p, FA_WS_EXCHANGE);
	case OP_LINK_SRC: return fa_ws_link(ws, p, "a/b/hard");
	case OP_LINK_DST: return fa_ws_link(ws, "a/b/f", p);
	case OP_SYMLINK: return fa_ws_symlink(ws, "b/f", p);
	case OP_STAT: return fa_ws_stat(ws, p, &st, 1);
	case OP_LSTAT: return fa_ws_stat(ws, p, &st, 0);
	case OP_READLINK: return (int)fa_ws_readlink(ws, p, buf, sizeof buf);
	case OP_LISTDIR: return fa_ws_listdir(ws, p, count_cb, &n);
	case OP_ATOMIC: return fa_ws_atomic_write(ws, p, "data", 4, 0644);
	case OP_SUB:
		rc = fa_ws_sub(ws, p, &sub);
		fa_ws_close(sub);
		return rc;
	default:
		return 0;
	}
	if (rc >= 0)
		close(rc);
	return rc;
}

static void escape_table(void **state)
{
	size_t i;
	int op;
	fa_ws *ws = open_ws(FA_SYM_BENEATH);
	char victim[PATH_MAX], content[32] = "";
	FILE *f;

	snprintf(victim, sizeof victim, "%s/victim", outside);
	for (i = 0; i < sizeof escapes / sizeof escapes[0]; i++) {
		for (op = 0; op < OP_COUNT; op++) {
			const struct fa_ws_error *e;
			int rc = run_op(ws, op, escapes[i].path), ok;

			e = fa_ws_last_error();
			ok = rc == -EACCES && e->err == EACCES &&
			     (e->why == escapes[i].why[0] || e->why == escapes[i].why[1] ||
			      (escapes[i].why[2] && e->why == escapes[i].why[2]));
			if (!ok)
				print_error("op %d on '%s': rc %d why %s\n", op, escapes[i].path, rc,
					    fa_ws_why_name(e->why));
			assert_true(ok);
			assert_string_equal(e->root, root);
		}
	}
	/* nothing outside changed */
	assert_int_equal(count_entries(outside), 1);
	f = fopen(victim, "r");
	assert_non_null(f);
	assert_non_null(fgets(content, sizeof content, f));
	fclose(f);
	assert_string_equal(content, "outside");
	fa_ws_close(ws);
}

static void natural_errors(void **state)
{
	fa_ws *ws = open_ws(FA_SYM_BENEATH), *bad = NULL;
	struct fa_ws_error err;
	char msg[512];

	assert_int_equal(fa_ws_openat(ws, "nothere", O_RDONLY, 0), -ENOENT);
	assert_int_equal(fa_ws_last_error()->why, FA_WHY_NONE);
	assert_int_equal(fa_ws_mkdir(ws, "a", 0755, 0, 0), -EEXIST);
	assert_int_equal(fa_ws_mkdir(ws, "a", 0755, 0, 1), 0);
	assert_int_equal(fa_ws_unlink(ws, "a"), -EISDIR);
	assert_int_equal(fa_ws_rmdir(ws, "a/b/f"), -ENOTDIR);
	assert_int_equal(fa_ws_openat(ws, "a/b/f/", O_RDONLY, 0), -ENOTDIR);
	assert_int_equal(fa_ws_openat(ws, "", O_RDONLY, 0), -ENOENT);
	assert_int_equal(fa_ws_last_error()->why, FA_WHY_EMPTY);
	assert_int_equal(fa_ws_rename(ws, "a/b/f", "a", FA_WS_NOREPLACE), -EEXIST);
	assert_int_equal(fa_ws_open("/nonexistent/dir", NULL, FA_SYM_BENEATH, 0, &bad, &err),
			 -ENOENT);
	assert_null(bad);
	assert_int_equal(fa_ws_open(root, (const char *[]){"/etc", NULL}, FA_SYM_BENEATH, 0,
				    &bad, &err), -EINVAL);
	assert_true(err.detail[0] != 0);
	fa_ws_openat(ws, "../x", O_RDONLY, 0);
	fa_ws_strerror(fa_ws_last_error(), msg, sizeof msg);
	assert_non_null(strstr(msg, "../x"));
	assert_non_null(strstr(msg, root));
	assert_non_null(strstr(msg, "escapes"));
	fa_ws_close(ws);
}

static void operations(void **state)
{
	fa_ws *ws = open_ws(FA_SYM_BENEATH), *sub = NULL;
	char **names = NULL, buf[16];
	struct stat st;
	size_t n = 0;
	int fd;

	assert_int_equal(fa_ws_mkdir(ws, "p/q/r", 0755, 1, 0), 0);
	fd = fa_ws_openat(ws, "p/q/r/f", O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(fa_ws_rename(ws, "p/q/r/f", "p/g", 0), 0);
	assert_int_equal(fa_ws_link(ws, "p/g", "p/h"), 0);
	assert_int_equal(fa_ws_stat(ws, "p/h", &st, 1), 0);
	assert_int_equal(st.st_nlink, 2);
	assert_int_equal(fa_ws_symlink(ws, "g", "p/s"), 0);
	assert_int_equal(fa_ws_readlink(ws, "p/s", buf, sizeof buf), 1);
	assert_int_equal(fa_ws_listdir_array(ws, "p", &names, &n), 0);
	assert_int_equal(n, 4);
	fa_ws_free_names(names);
	assert_int_equal(fa_ws_atomic_write(ws, "p/g", "new", 3, 0644), 0);
	assert_int_equal(fa_ws_stat(ws, "p/g", &st, 0), 0);
	assert_int_equal(st.st_size, 3);
	assert_int_equal(fa_ws_sub(ws, "p", &sub), 0);
	assert_int_equal(fa_ws_stat(sub, "g", &st, 0), 0);
	assert_int_equal(fa_ws_openat(sub, "../a/b/f", O_RDONLY, 0), -EACCES);
	assert_int_equal(fa_ws_openat(sub, "../a/b/f", O_RDONLY, 0), -EACCES);
	fa_ws_close(sub);
	assert_int_equal(fa_ws_unlink(ws, "p/s"), 0);
	assert_int_equal(fa_ws_unlink(ws, "p/h"), 0);
	assert_int_equal(fa_ws_unlink(ws, "p/g"), 0);
	assert_int_equal(fa_ws_rmdir(ws, "p/q/r"), 0);
	fa_ws_close(ws);
}

static void portable(void **state)
{
	struct fa_ws_error err;
	fa_ws *ws = NULL;

	assert_int_equal(fa_ws_open(root, NULL, FA_SYM_BENEATH, FA_WS_PORTABLE, &ws, &err), 0);
	assert_int_equal(fa_ws_openat(ws, "a/CON.txt", O_WRONLY | O_CREAT, 0644), -EACCES);
	assert_int_equal(fa_ws_last_error()->why, FA_WHY_PORTABLE);
	assert_int_equal(fa_ws_mkdir(ws, "x:y", 0755, 0, 0), -EACCES);
	assert_int_equal(fa_ws_atomic_write(ws, "dot.", "x", 1, 0644), -EACCES);
	fa_ws_close(ws);
}

/* ---- a rename-swap race ------------------------------------------------ */

static void rename_swap_race(void **state)
{
	char d[PATH_MAX], l[PATH_MAX];
	fa_ws *ws = open_ws(FA_SYM_BENEATH);
	struct timespec t0, t;
	long rounds = 0, ok = 0;
	pid_t pid;
	int status;

	snprintf(d, sizeof d, "%s/d", root);
	snprintf(l, sizeof l, "%s/l", root);
	mk("%s", d);
	assert_int_equal(symlink(outside, l), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			renameat2(AT_FDCWD, d, AT_FDCWD, l, RENAME_EXCHANGE);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int fd = fa_ws_openat(ws, "d/f", O_WRONLY | O_CREAT, 0644);

		if (fd >= 0) {
			close(fd);
			ok++;
		}
		ok += fa_ws_mkdir(ws, "d/n", 0755, 0, 1) == 0;
		ok += fa_ws_unlink(ws, "d/f") == 0;
		ok += fa_ws_atomic_write(ws, "d/a", "x", 1, 0644) == 0;
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 1000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	print_message("# race: %ld rounds, %ld operations allowed, outside untouched\n", rounds, ok);
	assert_true(rounds > 100);
	assert_true(ok > 0);
	assert_int_equal(count_entries(outside), 1);
	fa_ws_close(ws);
}

/* ---- atomic_write killed at random points ------------------------------ */

#define A_LEN 4096
#define B_LEN 20000

static void atomic_write_kill(void **state)
{
	static char a[A_LEN], b[B_LEN], got[B_LEN + 1];
	char path[PATH_MAX];
	fa_ws *ws = open_ws(FA_SYM_BENEATH);
	struct timespec t0, t;
	int rounds = 0, torn = 0, status;
	unsigned seed = (unsigned)getpid();

	memset(a, 'A', sizeof a);
	memset(b, 'B', sizeof b);
	snprintf(path, sizeof path, "%s/a/target", root);
	assert_int_equal(fa_ws_atomic_write(ws, "a/target", a, sizeof a, 0644), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pid_t pid = fork();
		int fd;
		ssize_t n;

		assert_true(pid >= 0);
		if (pid == 0) {
			for (int i = 0;; i++)
				fa_ws_atomic_write(ws, "a/target", i & 1 ? a : b,
						   i & 1 ? sizeof a : sizeof b, 0644);
		}
		usleep((useconds_t)(rand_r(&seed) % 3000));
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		n = read(fd, got, sizeof got);
		close(fd);
		if (!((n == A_LEN && memcmp(got, a, A_LEN) == 0) ||
		      (n == B_LEN && memcmp(got, b, B_LEN) == 0)))
			torn++;
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 2000);
	print_message("# atomic_write: %d kills, %d torn or missing\n", rounds, torn);
	assert_true(rounds > 50);
	assert_int_equal(torn, 0);
	fa_ws_close(ws);
}

static void why_names(void **state)
{
	assert_string_equal(fa_ws_why_name(FA_WHY_ESCAPES), "escapes");
	assert_string_equal(fa_ws_why_name(FA_WHY_ABSOLUTE), "absolute");
	assert_string_equal(fa_ws_why_name(FA_WHY_SYMLINK), "symlink");
	assert_string_equal(fa_ws_why_name(FA_WHY_MAGICLINK), "magic-link");
	assert_string_equal(fa_ws_why_name(FA_WHY_XDEV), "mount-crossing");
	assert_string_equal(fa_ws_why_name(FA_WHY_DENY_SUBTREE), "deny-subtree");
	assert_string_equal(fa_ws_why_name(FA_WHY_PORTABLE), "not-portable");
	assert_string_equal(fa_ws_why_name(FA_WHY_ERROR), "error");
}

#define BOTH(f) cmocka_unit_test_prestate_setup_teardown(f, setup, teardown, NULL), \
	cmocka_unit_test_prestate_setup_teardown(f, setup, teardown, (void *)1)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(why_names),
		BOTH(escape_table),
		BOTH(natural_errors),
		BOTH(operations),
		BOTH(portable),
		BOTH(rename_swap_race),
		cmocka_unit_test_prestate_setup_teardown(atomic_write_kill, setup, teardown, NULL),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
