/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The escape table: paths that try to leave the root (by '..', absolute
 * paths, symlinks, magic links, sibling prefixes, deny subtrees...) crossed
 * with every operation class and every symlink mode, through openat2 and
 * through the O_PATH walk. Each row says what each mode must answer.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tree.h"

enum { W = 1 << FA_OP_WRITE, C = 1 << FA_OP_CREATE, R = 1 << FA_OP_REMOVE,
       A = 1 << FA_OP_ATTR, D = 1 << FA_OP_DIR, H = 1 << FA_OP_CHDIR };
#define PARENT (W | C | R | A)
#define SELF (D | H)
#define ALL (PARENT | SELF)

/* verdict per mode: trust, beneath, nofollow; why 0 = not checked */
#define Y FA_ALLOW
#define N FA_DENY
#define X FA_REJECT

struct row {
	const char *path;	/* "@" = the tree's top directory */
	unsigned ops;
	enum fa_verdict v[3];
	enum fa_why why[3];
};

static const struct row rows[] = {
	{"sub/new", ALL, {Y, Y, Y}, {0}},
	{"@/root/sub/new", ALL, {Y, Y, Y}, {0}},
	{"new", PARENT, {Y, Y, Y}, {0}},
	{"//@/root/sub/new", PARENT, {Y, Y, Y}, {0}},
	{"sub//new", ALL, {Y, Y, Y}, {0}},
	{"./sub/./new", ALL, {Y, Y, Y}, {0}},
	{"sub/new/", ALL, {Y, Y, Y}, {0}},
	{"sub/new//", ALL, {Y, Y, Y}, {0}},
	{"sub/../sub/new", ALL, {Y, Y, Y}, {0}},
	{"../outside/new", ALL, {N, N, N}, {FA_WHY_OUTSIDE, FA_WHY_OUTSIDE, FA_WHY_OUTSIDE}},
	{"sub/../../outside/new", ALL, {N, N, N}, {FA_WHY_OUTSIDE, FA_WHY_OUTSIDE, FA_WHY_OUTSIDE}},
	{"../../../../../../../../../../../etc/x", ALL, {N, N, N}, {0}},
	{"@/outside/new", ALL, {N, N, N}, {FA_WHY_OUTSIDE, FA_WHY_OUTSIDE, FA_WHY_OUTSIDE}},
	{"@/outside/x/", ALL, {N, N, N}, {0}},
	{"@/rootab/new", ALL, {N, N, N}, {FA_WHY_OUTSIDE, FA_WHY_OUTSIDE, FA_WHY_OUTSIDE}},
	{"@/root/../rootab/new", ALL, {N, N, N}, {0}},
	{"@/rootab", ALL, {N, N, N}, {0}},
	{"@/root", PARENT, {N, N, N}, {FA_WHY_OUTSIDE, FA_WHY_OUTSIDE, FA_WHY_OUTSIDE}},
	{"@/root", SELF, {Y, Y, Y}, {0}},
	{".", SELF, {Y, Y, Y}, {0}},
	{"..", SELF, {N, N, N}, {0}},
	{"/", ALL, {N, N, N}, {0}},
	/* symlinked parents */
	{"in_link/new", ALL, {Y, Y, N}, {0, 0, FA_WHY_SYMLINK}},
	{"abs_in_link/new", ALL, {Y, N, N}, {0, FA_WHY_SYMLINK, FA_WHY_SYMLINK}},
	{"out_link/new", ALL, {N, N, N}, {FA_WHY_OUTSIDE, FA_WHY_SYMLINK, FA_WHY_SYMLINK}},
	{"out_link/secret", W, {N, N, N}, {0}},
	{"in_link/../sub/new", ALL, {Y, Y, N}, {0, 0, FA_WHY_SYMLINK}},
	{"out_link/../root/sub/new", ALL, {Y, N, N}, {0, FA_WHY_SYMLINK, FA_WHY_SYMLINK}},
	{"out_link/../outside/new", ALL, {N, N, N}, {0}},
	/* final-component symlinks: followed for writes and attributes only */
	{"file_link_in", W | A | SELF, {Y, Y, N}, {0, 0, FA_WHY_SYMLINK}},
	{"file_link_in", C | R, {Y, Y, Y}, {0}},
	/* a link leading out: outside in trust, the mode's refusal in beneath */
	{"file_link_out", W | A | SELF, {N, N, N}, {FA_WHY_OUTSIDE, FA_WHY_SYMLINK, FA_WHY_SYMLINK}},
	{"file_link_out", C | R, {Y, Y, Y}, {0}},
	{"dangle_in", W | SELF, {Y, Y, N}, {0, 0, FA_WHY_SYMLINK}},
	{"dangle_out", W | SELF, {N, N, N}, {FA_WHY_OUTSIDE, FA_WHY_SYMLINK, FA_WHY_SYMLINK}},
	{"dangle_out", C | R, {Y, Y, Y}, {0}},
	{"loop", W, {N, N, N}, {0}},
	{"in_link", SELF, {Y, Y, N}, {0}},
	{"abs_in_link", SELF, {Y, N, N}, {0}},
	{"out_link", SELF, {N, N, N}, {0}},
	/* magic links never let a write escape */
	{"/proc/self/cwd/new", ALL, {N, N, N}, {0}},
	{"/proc/self/root@/root/new", PARENT, {N, N, N}, {0}},
	/* missing parents: judged by the string */
	{"nonexist/deeper/new", ALL, {Y, Y, Y}, {0}},
	{"@/outside/nonexist/new", ALL, {N, N, N}, {0}},
	/* deny subtrees, and their ancestors for remove/attr */
	{"proj/x", ALL, {Y, Y, Y}, {0}},
	{"proj/.git/config", ALL, {N, N, N},
	 {FA_WHY_DENY_SUBTREE, FA_WHY_DENY_SUBTREE, FA_WHY_DENY_SUBTREE}},
	{"proj/.git/new", W | C, {N, N, N},
	 {FA_WHY_DENY_SUBTREE, FA_WHY_DENY_SUBTREE, FA_WHY_DENY_SUBTREE}},
	{"proj/.git", W | C | SELF, {N, N, N},
	 {FA_WHY_DENY_SUBTREE, FA_WHY_DENY_SUBTREE, FA_WHY_DENY_SUBTREE}},
	{"proj/.git", R | A, {N, N, N},
	 {FA_WHY_PROTECTS_DENY, FA_WHY_PROTECTS_DENY, FA_WHY_PROTECTS_DENY}},
	{"proj/.git/", R, {N, N, N}, {FA_WHY_PROTECTS_DENY, FA_WHY_PROTECTS_DENY, FA_WHY_PROTECTS_DENY}},
	{"proj", R | A, {N, N, N},
	 {FA_WHY_PROTECTS_DENY, FA_WHY_PROTECTS_DENY, FA_WHY_PROTECTS_DENY}},
	{"proj/", R, {N, N, N}, {FA_WHY_PROTECTS_DENY, FA_WHY_PROTECTS_DENY, FA_WHY_PROTECTS_DENY}},
	{"proj", W | C | SELF, {Y, Y, Y}, {0}},
	{"sub/../proj", R, {N, N, N}, {0}},
	{"in_link/../proj", R, {N, N, N}, {0}},
	{"proj/.git/../../proj", R, {N, N, N}, {0}},
	/* unusable requests */
	{"", ALL, {X, X, X}, {FA_WHY_EMPTY, FA_WHY_EMPTY, FA_WHY_EMPTY}},
};

static const char *expand(const char *path, char *buf)
{
	const char *at = strchr(path, '@');

	if (!at)
		return path;
	snprintf(buf, PATH_MAX * 2, "%.*s%s%s", (int)(at - path), path, T, at + 1);
	return buf;
}

static void run_rows(enum fa_symlinks mode)
{
	fa_policy *p = tree_policy(mode);
	size_t i;
	int op, failures = 0;

	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char buf[PATH_MAX * 2];
		const char *path = expand(rows[i].path, buf);

		for (op = FA_OP_WRITE; op <= FA_OP_CHDIR; op++) {
			struct fa_decision d;
			enum fa_verdict v;

			if (!(rows[i].ops & (1u << op)))
				continue;
			v = fa_check(p, (enum fa_op)op, AT_FDCWD, path, &d);
			if (v != rows[i].v[mode] ||
			    (rows[i].why[mode] && d.why != rows[i].why[mode])) {
				print_error("# mode %s op %s path '%s': got %d (%s) path %s, want %d (%s)\n",
					    fa_symlinks_name(mode), fa_op_name((enum fa_op)op),
					    rows[i].path, v, fa_why_name(d.why), d.path,
					    rows[i].v[mode], fa_why_name(rows[i].why[mode]));
				failures++;
			}
			if (v == FA_ALLOW)
				assert_int_equal(d.why, FA_WHY_NONE);
			else
				assert_int_not_equal(d.why, FA_WHY_NONE);
		}
	}
	fa_policy_free(p);
	assert_int_equal(failures, 0);
}

static void table_trust(void **state)
{
	(void)state;
	run_rows(FA_SYM_TRUST);
}

static void table_beneath(void **state)
{
	(void)state;
	run_rows(FA_SYM_BENEATH);
}

static void table_nofollow(void **state)
{
	(void)state;
	run_rows(FA_SYM_NOFOLLOW);
}

/* The judged path is the real one, and the root index is reported. */
static void resolved_paths(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d;

	(void)state;
	assert_int_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, "in_link/new", &d), FA_ALLOW);
	assert_string_equal(d.path, tp("root/sub/new"));
	assert_int_equal(d.root, 0);
	assert_int_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, "file_link_out", &d), FA_DENY);
	assert_string_equal(d.path, tp("outside/secret"));
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "sub/../sub//x/", &d), FA_ALLOW);
	assert_string_equal(d.path, tp("root/sub/x"));
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "nonexist/a/b", &d), FA_ALLOW);
	assert_int_equal(d.err, ENOENT);
	assert_string_equal(d.path, tp("root/nonexist/a/b"));
	fa_policy_free(p);
}

/*
 * Paths below the root's top level, for the operations that follow a final
 * link: existing, missing at the end, missing higher up, a file in the
 * way, links at the end. Every mode, and the decision must be the same
 * whether openat2 or the O_PATH walk resolves it (the walk never takes a
 * shortcut), down to the error and the path reported; fa_check_verdict()
 * the same but for an allow's error.
 */
static void deep_follow(void **state)
{
	static const struct {
		const char *path;
		enum fa_verdict v[3];
		int err;	/* -1: not checked */
		const char *real;	/* the reported path under root/ (trust) */
	} cases[] = {
		{"sub/file", {Y, Y, Y}, 0, "sub/file"},
		{"sub/new", {Y, Y, Y}, 0, "sub/new"},
		{"deep/a/b/c/f", {Y, Y, Y}, 0, "deep/a/b/c/f"},
		{"deep/a/b/c/new", {Y, Y, Y}, 0, "deep/a/b/c/new"},
		{"deep/a/b/nonexist/new", {Y, Y, Y}, ENOENT, "deep/a/b/nonexist/new"},
		{"nonexist/deeper/new", {Y, Y, Y}, ENOENT, "nonexist/deeper/new"},
		{"sub/nonexist/new", {Y, Y, Y}, ENOENT, "sub/nonexist/new"},
		{"sub/file/x", {Y, Y, Y}, ENOTDIR, "sub/file/x"},
		{"sub/./new", {Y, Y, Y}, 0, "sub/new"},
		{"sub//new/", {Y, Y, Y}, 0, "sub/new"},
		{"proj/.git/config", {N, N, N}, 0, "proj/.git/config"},
		{"proj/.git/new", {N, N, N}, 0, "proj/.git/new"},
		{"proj/.git/x/new", {N, N, N}, ENOENT, "proj/.git/x/new"},
		{"deep/a/in", {Y, Y, N}, -1, "sub/file"},
		{"deep/a/out", {N, N, N}, -1, NULL},
		{"deep/a/dangle", {Y, Y, N}, -1, "deep/a/b/none"},
		{"deep/a/in/x", {Y, Y, N}, -1, NULL},
		{"deep/a/blink/c/f", {Y, Y, N}, -1, "deep/a/b/c/f"},
		{"deep/fifo", {Y, Y, Y}, 0, "deep/fifo"},
		{"in_link/new", {Y, Y, N}, -1, "sub/new"},
	};
	static const enum fa_op ops[] = {FA_OP_WRITE, FA_OP_ATTR, FA_OP_DIR, FA_OP_CHDIR};
	int mode, failures = 0;
	size_t i, k;

	(void)state;
	assert_int_equal(system("mkdir -p deep/a/b/c && : > deep/a/b/c/f && "
				"mkfifo deep/fifo && "
				"ln -s ../../sub/file deep/a/in && "
				"ln -s ../../../outside/secret deep/a/out && "
				"ln -s b/none deep/a/dangle && ln -s b deep/a/blink"), 0);
	for (mode = FA_SYM_TRUST; mode <= FA_SYM_NOFOLLOW; mode++) {
		fa_policy *p = tree_policy((enum fa_symlinks)mode);

		for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			for (k = 0; k < sizeof ops / sizeof ops[0]; k++) {
				struct fa_decision d, w, dv;
				enum fa_verdict v, vw, vv;
				char want[PATH_MAX];

				snprintf(want, sizeof want, "%s/root/%s", T,
					 cases[i].real ? cases[i].real : "");

				v = fa_check(p, ops[k], AT_FDCWD, cases[i].path, &d);
				/* The verdict alone: all of d but an allow's errno. */
				vv = fa_check_verdict(p, ops[k], AT_FDCWD, cases[i].path, &dv);
				if (vv != v || dv.why != d.why || dv.root != d.root ||
				    strcmp(dv.path, d.path) != 0 || (v != FA_ALLOW && dv.err != d.err)) {
					print_error("# mode %s op %s '%s': fa_check %d %s %d %s, "
						    "fa_check_verdict %d %s %d %s\n",
						    fa_symlinks_name((enum fa_symlinks)mode),
						    fa_op_name(ops[k]), cases[i].path, v,
						    fa_why_name(d.why), d.err, d.path, vv,
						    fa_why_name(dv.why), dv.err, dv.path);
					failures++;
				}
				fa_resolve_force_fallback(1);
				vw = fa_check(p, ops[k], AT_FDCWD, cases[i].path, &w);
				fa_resolve_force_fallback(0);
				if (ops[k] != FA_OP_WRITE && ops[k] != FA_OP_ATTR)
					goto same;	/* directories: only the agreement */
				if (v != cases[i].v[mode] ||
				    (cases[i].err >= 0 && d.err != cases[i].err) ||
				    (mode == FA_SYM_TRUST && cases[i].real &&
				     strcmp(d.path, want) != 0)) {
					print_error("# mode %s op %s '%s': got %d (%s) err %d path %s\n",
						    fa_symlinks_name((enum fa_symlinks)mode),
						    fa_op_name(ops[k]), cases[i].path, v,
						    fa_why_name(d.why), d.err, d.path);
					failures++;
				}
same:
				if (v != vw || d.why != w.why || d.err != w.err || d.root != w.root ||
				    strcmp(d.path, w.path) != 0) {
					print_error("# mode %s op %s '%s': openat2 %d %s %d %s, walk %d %s %d %s\n",
						    fa_symlinks_name((enum fa_symlinks)mode),
						    fa_op_name(ops[k]), cases[i].path, v,
						    fa_why_name(d.why), d.err, d.path, vw,
						    fa_why_name(w.why), w.err, w.path);
					failures++;
				}
			}
		}
		fa_policy_free(p);
	}
	assert_int_equal(system("rm -rf deep"), 0);
	assert_int_equal(failures, 0);
}

static void overlong(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d;
	char *big = malloc(PATH_MAX + 64);
	size_t i;

	(void)state;
	for (i = 0; i < PATH_MAX + 62; i += 2)
		memcpy(big + i, "a/", 2);
	big[PATH_MAX + 62] = 0;
	assert_int_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, big, &d), FA_REJECT);
	assert_int_equal(d.why, FA_WHY_TOO_LONG);
	assert_int_equal(d.err, ENAMETOOLONG);
	/* Short enough alone, too long once joined to the cwd. */
	memset(big, 'b', PATH_MAX - 8);
	for (i = 200; i < PATH_MAX - 8; i += 200)
		big[i] = '/';
	big[PATH_MAX - 8] = 0;
	assert_int_not_equal(fa_check(p, FA_OP_WRITE, AT_FDCWD, big, &d), FA_ALLOW);
	free(big);
	fa_policy_free(p);
}

/* A dirfd is judged by what it names, never by the cwd. */
static void dirfds(void **state)
{
	int m;

	(void)state;
	for (m = FA_SYM_TRUST; m <= FA_SYM_NOFOLLOW; m++) {
		fa_policy *p = tree_policy((enum fa_symlinks)m);
		struct fa_decision d;
		char magic[64];
		int in = open(tp("root/sub"), O_PATH | O_DIRECTORY);
		int out = open(tp("outside"), O_RDONLY | O_DIRECTORY);
		int file = open(tp("root/sub/file"), O_RDONLY);

		assert_true(in >= 0 && out >= 0 && file >= 0);
		assert_int_equal(fa_check(p, FA_OP_WRITE, in, "new", &d), FA_ALLOW);
		assert_string_equal(d.path, tp("root/sub/new"));
		assert_int_equal(fa_check(p, FA_OP_REMOVE, in, "../../outside/secret", &d), FA_DENY);
		assert_int_equal(fa_check(p, FA_OP_CREATE, out, "new", &d), FA_DENY);
		assert_int_equal(d.why, FA_WHY_OUTSIDE);
		assert_int_equal(fa_check(p, FA_OP_CREATE, out, "../root/sub/new", &d), FA_ALLOW);
		assert_int_equal(fa_check(p, FA_OP_CREATE, out, tp("root/new"), &d), FA_ALLOW);
		assert_int_equal(fa_check(p, FA_OP_CREATE, file, "new", &d), FA_REJECT);
		assert_int_equal(d.why, FA_WHY_BAD_FD);
		assert_int_equal(fa_check(p, FA_OP_CREATE, 987, "new", &d), FA_REJECT);
		assert_int_equal(d.why, FA_WHY_BAD_FD);
		/* The magic link to an allowed directory is still refused for writes. */
		snprintf(magic, sizeof magic, "/proc/self/fd/%d/new", in);
		assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, magic, &d), FA_DENY);
		close(in);
		close(out);
		close(file);
		fa_policy_free(p);
	}
}

struct row2 {
	enum fa_op op;
	const char *a, *b;
	enum fa_verdict v, v1, v2;
	enum fa_why why;	/* of the denied side, 0 = not checked */
};

static const struct row2 rows2[] = {
	{FA_OP_RENAME, "sub/file", "sub/f2", Y, Y, Y, 0},
	{FA_OP_RENAME, "sub/file", "@/outside/x", N, Y, N, FA_WHY_OUTSIDE},
	{FA_OP_RENAME, "@/outside/secret", "sub/s", N, N, Y, FA_WHY_OUTSIDE},
	{FA_OP_RENAME, "proj", "sub/p2", N, N, Y, FA_WHY_PROTECTS_DENY},
	{FA_OP_RENAME, "proj/.git", "x", N, N, Y, FA_WHY_PROTECTS_DENY},
	{FA_OP_RENAME, "sub/file", "proj/.git/hooks", N, Y, N, FA_WHY_DENY_SUBTREE},
	{FA_OP_EXCHANGE, "sub/file", "proj/x", Y, Y, Y, 0},
	{FA_OP_EXCHANGE, "sub", "proj", N, Y, N, FA_WHY_PROTECTS_DENY},
	{FA_OP_LINK, "sub/file", "sub/hl", Y, Y, Y, 0},
	{FA_OP_LINK, "@/outside/secret", "sub/hl", N, N, Y, FA_WHY_LINK_TARGET},
	{FA_OP_LINK, "out_link/secret", "sub/hl", N, N, Y, 0},
	{FA_OP_LINK, "proj/.git/config", "sub/hl", N, N, Y, FA_WHY_DENY_SUBTREE},
	{FA_OP_LINK, "sub/file", "@/outside/hl", N, Y, N, FA_WHY_OUTSIDE},
	{FA_OP_SYMLINK, "sub/sl", "file", Y, Y, Y, 0},
	{FA_OP_SYMLINK, "sub/sl", "nonexist/x", Y, Y, Y, 0},
	{FA_OP_SYMLINK, "sub/sl", "../../outside/secret", N, Y, N, FA_WHY_LINK_TARGET},
	{FA_OP_SYMLINK, "sub/sl", "/etc/passwd", N, Y, N, FA_WHY_LINK_TARGET},
	{FA_OP_SYMLINK, "sub/sl", "../proj/.git/config", N, Y, N, FA_WHY_DENY_SUBTREE},
	{FA_OP_SYMLINK, "@/outside/sl", "x", N, N, 0, FA_WHY_OUTSIDE},
};

static void two_paths(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	size_t i;
	int failures = 0;

	(void)state;
	for (i = 0; i < sizeof rows2 / sizeof rows2[0]; i++) {
		const struct row2 *r = &rows2[i];
		char b1[PATH_MAX * 2], b2[PATH_MAX * 2];
		struct fa_decision d1, d2;
		enum fa_verdict v = fa_check2(p, r->op, AT_FDCWD, expand(r->a, b1), AT_FDCWD,
					      expand(r->b, b2), &d1, &d2);
		enum fa_why why = d1.verdict != FA_ALLOW ? d1.why : d2.why;

		if (v != r->v || d1.verdict != r->v1 || (r->op != FA_OP_SYMLINK || r->v1 == Y ?
							  d2.verdict != r->v2 : 0) ||
		    (r->why && why != r->why)) {
			print_error("# %s '%s' '%s': got %d (%d %s / %d %s), want %d (%d/%d %s)\n",
				    fa_op_name(r->op), r->a, r->b, v, d1.verdict, fa_why_name(d1.why),
				    d2.verdict, fa_why_name(d2.why), r->v, r->v1, r->v2,
				    fa_why_name(r->why));
			failures++;
		}
	}
	fa_policy_free(p);
	assert_int_equal(failures, 0);
}

/* Hard links from an fd (AT_EMPTY_PATH, /proc/self/fd/N) judge what it names. */
static void link_from_fd(void **state)
{
	fa_policy *p = tree_policy(FA_SYM_TRUST);
	struct fa_decision d1, d2;
	char alias[64];
	int out = open(tp("outside/secret"), O_RDONLY);
	int in = open(tp("root/sub/file"), O_RDONLY);

	(void)state;
	assert_true(out >= 0 && in >= 0);
	assert_int_equal(fa_check2(p, FA_OP_LINK, out, "", AT_FDCWD, "sub/hl", &d1, &d2), FA_DENY);
	assert_int_equal(d1.why, FA_WHY_LINK_TARGET);
	assert_int_equal(fa_check2(p, FA_OP_LINK, in, "", AT_FDCWD, "sub/hl", &d1, &d2), FA_ALLOW);
	snprintf(alias, sizeof alias, "/proc/self/fd/%d", out);
	assert_int_equal(fa_check2(p, FA_OP_LINK, AT_FDCWD, alias, AT_FDCWD, "sub/hl", &d1, &d2),
			 FA_DENY);
	snprintf(alias, sizeof alias, "/proc/self/fd/%d", in);
	assert_int_equal(fa_check2(p, FA_OP_LINK, AT_FDCWD, alias, AT_FDCWD, "sub/hl", &d1, &d2),
			 FA_ALLOW);
	close(out);
	close(in);
	fa_policy_free(p);
}

/* "." as a root: the current directory at each check. */
static void cwd_root(void **state)
{
	char msg[128];
	fa_policy *p = fa_policy_new();
	struct fa_decision d;

	(void)state;
	assert_int_equal(fa_policy_add_cwd_root(p), 0);
	assert_int_equal(fa_policy_seal(p, 0, msg, sizeof msg), 0);
	assert_string_equal(fa_policy_root(p, 0), ".");
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "sub/new", &d), FA_ALLOW);
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "../outside/new", &d), FA_DENY);
	assert_int_equal(chdir(tp("root/sub")), 0);
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "new", &d), FA_ALLOW);
	assert_string_equal(d.path, tp("root/sub/new"));
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "../new", &d), FA_DENY);
	assert_int_equal(fa_check(p, FA_OP_CHDIR, AT_FDCWD, "..", &d), FA_DENY);
	assert_int_equal(chdir(tp("root")), 0);
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, "sub/new", &d), FA_ALLOW);
	fa_policy_free(p);
}

/* Whole components: a root /x/a holds neither /x/ab nor /x/a-b. */
static void sibling_roots(void **state)
{
	char msg[128];
	fa_policy *p = fa_policy_new();
	struct fa_decision d;

	(void)state;
	assert_int_equal(fa_policy_add_root(p, tp("root"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_add_root(p, tp("rootab"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(p, 1, msg, sizeof msg), 0);
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, tp("rootab/x"), &d), FA_ALLOW);
	assert_int_equal(d.root, 1);
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, tp("root/x"), &d), FA_ALLOW);
	assert_int_equal(d.root, 0);
	assert_int_equal(fa_check(p, FA_OP_CREATE, AT_FDCWD, tp("rootabc/x"), &d), FA_DENY);
	fa_policy_free(p);
}

static void unrestricted_and_empty(void **state)
{
	char msg[128];
	fa_policy *p = fa_policy_new(), *none = fa_policy_new();
	struct fa_decision d;

	(void)state;
	fa_policy_set_unrestricted(p);
	assert_int_equal(fa_policy_seal(p, 0, msg, sizeof msg), 0);
	assert_int_equal(fa_check(p, FA_OP_REMOVE, AT_FDCWD, "/etc/passwd", &d), FA_ALLOW);
	assert_int_equal(fa_policy_seal(none, 0, msg, sizeof msg), 0);
	assert_int_equal(fa_check(none, FA_OP_CREATE, AT_FDCWD, "sub/x", &d), FA_DENY);
	assert_int_equal(d.why, FA_WHY_NO_ROOTS);
	fa_policy_free(p);
	fa_policy_free(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(table_trust),
		BOTH(table_beneath),
		BOTH(table_nofollow),
		BOTH(resolved_paths),
		BOTH(deep_follow),
		BOTH(overlong),
		BOTH(dirfds),
		BOTH(two_paths),
		BOTH(link_from_fd),
		BOTH(cwd_root),
		BOTH(sibling_roots),
		BOTH(unrestricted_and_empty),
	};

	return RUN_TAP("escape", tests);
}
