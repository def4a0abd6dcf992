/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Deny patterns: the matcher against a table and against an obvious
 * recursive model, and the engine judging writes and reads by them on the
 * resolved path, with nothing created by a refusal.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine_internal.h"
#include "tree.h"

static int m(const char *pat, const char *path, int prefix)
{
	return fa__glob_match(pat, strlen(pat), path, strlen(path), prefix);
}

static void matcher_table(void **state)
{
	static const struct {
		const char *pat, *path;
		int full, prefix;
	} cases[] = {
		{"**/.env", ".env", 1, 1},
		{"**/.env", "a/b/.env", 1, 1},
		{"**/.env", "a/.envrc", 0, 0},
		{"**/.env", "a/b", 0, 0},		/* any directory could hold one: no ancestry */
		{"**/.git/**", "r/.git", 1, 1},
		{"**/.git/**", "r/.git/objects/x", 1, 1},
		{"**/.git/**", "r", 0, 0},
		{"**/.git/**", "r/.gitignore", 0, 0},
		{"**/*.pem", "k.pem", 1, 1},
		{"**/*.pem", "d/.x.pem", 1, 1},
		{"**/*.pem", "d/pem", 0, 0},
		{"**/*.pem", "a.pem/b", 0, 0},
		{"secrets/**", "secrets", 1, 1},
		{"secrets/**", "secrets/a/b", 1, 1},
		{"secrets/**", "src/secrets", 0, 0},
		{"a/b/c", "a", 0, 2},
		{"a/b/c", "a/b", 0, 2},
		{"a/b/c", "a/b/c", 1, 1},
		{"a/b/c", "a/b/c/d", 0, 0},
		{"a/*/c", "a/x/c", 1, 1},
		{"a/*/c", "a/x/y/c", 0, 0},		/* '*' never crosses '/' */
		{"a/**/c", "a/x/y/c", 1, 1},
		{"a/**/c", "a/c", 1, 1},
		{"a/**/c", "a/x", 0, 2},
		{"a?c", "abc", 1, 1},
		{"a?c", "ac", 0, 0},
		{"[ab]x", "bx", 1, 1},
		{"[!ab]x", "bx", 0, 0},
		{"[!ab]x", "cx", 1, 1},
		{"[a-c]", "b", 1, 1},
		{"\\*", "*", 1, 1},
		{"\\*", "x", 0, 0},
		{"[x", "[x", 1, 1},			/* no closing ']': literal */
		{"*", "", 0, 2},
		{"id_*", "id_rsa", 1, 1},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (m(cases[i].pat, cases[i].path, 0) != cases[i].full ||
		    m(cases[i].pat, cases[i].path, 1) != cases[i].prefix)
			fail_msg("'%s' on '%s': %d/%d, want %d/%d", cases[i].pat, cases[i].path,
				 m(cases[i].pat, cases[i].path, 0), m(cases[i].pat, cases[i].path, 1),
				 cases[i].full, cases[i].prefix);
	}
}

/* ---- the model: segments and components, tried every way there is ---- */

#define MAXS 8
struct split {
	int n;
	char s[MAXS][16];
};

static void split(const char *in, struct split *o)
{
	const char *c = in;

	o->n = 0;
	while (*c) {
		size_t k = strcspn(c, "/");

		memcpy(o->s[o->n], c, k);
		o->s[o->n][k] = 0;
		o->n++;
		c += k;
		if (*c)
			c++;
	}
}

static int model_full(const struct split *p, int i, const struct split *c, int j)
{
	int k;

	if (i == p->n)
		return j == c->n;
	if (!strcmp(p->s[i], "**")) {
		for (k = j; k <= c->n; k++)
			if (model_full(p, i + 1, c, k))
				return 1;
		return 0;
	}
	return j < c->n && fnmatch(p->s[i], c->s[j], 0) == 0 && model_full(p, i + 1, c, j + 1);
}

/* Some alignment uses up the path with pattern left, its last component not the lead's. */
static int model_prefix(const struct split *p, int i, const struct split *c, int j, int last,
			int lead)
{
	int k, rest = 0;

	if (j == c->n) {
		for (k = i; k < p->n; k++)
			rest |= strcmp(p->s[k], "**") != 0;
		return rest && !(lead && last <= 0);
	}
	if (i == p->n)
		return 0;
	if (!strcmp(p->s[i], "**")) {
		if (model_prefix(p, i + 1, c, j, last, lead))
			return 1;
		return model_prefix(p, i, c, j + 1, i, lead);
	}
	return fnmatch(p->s[i], c->s[j], 0) == 0 && model_prefix(p, i + 1, c, j + 1, i, lead);
}

static void random_word(char *out, int n, const char *const *alpha, int na)
{
	int i;

	out[0] = 0;
	for (i = 0; i < n; i++) {
		if (i)
			strcat(out, "/");
		strcat(out, alpha[rand() % na]);
	}
}

static void matcher_model(void **state)
{
	static const char *const segs[] = {"a", "b", "**", "*", "a*", "?", "[ab]", "[!a]", "*b", ".a",
					   "*.a", "b.a"};
	static const char *const comps[] = {"a", "b", "ab", "ba", ".a", "bb", "b.a", "a.b.a"};
	char pat[128], path[128];
	struct split ps, cs;
	int i, full, pre, lead, tails = 0, filtered = 0;

	(void)state;
	srand(27);
	for (i = 0; i < 200000; i++) {
		random_word(pat, 1 + rand() % 5, segs, 12);
		if (i % 7 == 0)	/* "**" NAME "**" */
			snprintf(pat, sizeof pat, "**/%s/**", comps[rand() % 8]);
		random_word(path, rand() % 6, comps, 8);
		split(pat, &ps);
		split(path, &cs);
		lead = !strcmp(ps.s[0], "**");
		full = model_full(&ps, 0, &cs, 0);
		pre = full ? 1 : model_prefix(&ps, 0, &cs, 0, -1, lead) ? 2 : 0;
		if (m(pat, path, 0) != full || m(pat, path, 1) != pre)
			fail_msg("'%s' on '%s': %d/%d, model %d/%d", pat, path, m(pat, path, 0),
				 m(pat, path, 1), full, pre);
		/* the shortcut for a lone leading "**" */
		if (fa__glob_tail(pat) &&
		    fa__glob_tail_match(pat, strlen(pat), fa__glob_tail(pat), path, strlen(path)) != full)
			fail_msg("'%s' on '%s' by its tail: %d, model %d", pat, path,
				 !full, full);
		tails += fa__glob_tail(pat) != 0;
		/* where fa__glob_find() takes a whole match for the ancestry too */
		if (fa__glob_tail(pat) == 1 && pre != full)
			fail_msg("'%s' on '%s': names a directory above, %d/%d", pat, path, full, pre);
		/* the filter only ever rules out what does not match */
		if (full && (fa__glob_need(pat) & ~fa__glob_have(path, strlen(path))))
			fail_msg("'%s' on '%s': filtered out, but it matches", pat, path);
		filtered += (fa__glob_need(pat) & ~fa__glob_have(path, strlen(path))) != 0;
	}
	assert_true(tails > 5000);
	assert_true(filtered > 10000);
	assert_int_equal(fa__glob_tail("**/a/*.b"), 2);
	assert_int_equal(fa__glob_tail("**/ab/**"), 0);	/* a DIR form: compiled_forms */
	assert_int_equal(fa__glob_tail("**/a*/**"), 0);
	assert_int_equal(fa__glob_tail("**/a/b/**"), 0);
	assert_int_equal(fa__glob_tail("**/a/**/b"), 0);
	assert_int_equal(fa__glob_tail("a/b"), 0);
}

static void patterns_kept_clean(void **state)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
		{"./secrets//x/", "secrets/x/**"}, {"**/.git/", "**/.git/**"}, {"a/**/", "a/**"},
		{"/abs/*.pem", "/abs/*.pem"}, {"**", "**"}, {"./~x", "\\~x"}, {"./!x/", "\\!x/**"},
	};
	static const char *const bad[] = {"", "!x", "a/../b", "/", ".", "a\\", "a\\/b", "a\nb"};
	char out[PATH_MAX];
	const char *err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		assert_true(fa__glob_clean(ok[i].in, out, sizeof out, &err) > 0);
		assert_string_equal(out, ok[i].out);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(fa__glob_clean(bad[i], out, sizeof out, &err), -EINVAL);
		assert_non_null(err);
	}
	assert_int_equal(fa__glob_kind("**/x"), FA__GLOB_ANY);
	assert_int_equal(fa__glob_kind("/x/**"), FA__GLOB_ABS);
	assert_int_equal(fa__glob_kind("x/**"), FA__GLOB_ROOT);
	assert_true(fa_glob_is_pattern("**/.env"));
	assert_false(fa_glob_is_pattern("out/.env"));
	assert_int_equal(fa_glob_match("**/.env", "/p/q/.env"), 1);
	assert_int_equal(fa_glob_match("/p/*/.env", "/p/q/.env"), 1);
	assert_int_equal(fa_glob_match("/p/*/.env", "/p/q/r/.env"), 0);
	assert_int_equal(fa_glob_match("!x", "/x"), -EINVAL);
}

/* ---- compiled forms: what each pattern becomes, and that it answers as the walk does ---- */

static void compiled_forms(void **state)
{
	static const struct {
		const char *in;
		int form;
		const char *lit;
	} cases[] = {
		{"**/.env", FA__GLOB_NAME, ".env"},
		{"**/.ENV", FA__GLOB_NAME, ".ENV"},		/* case is kept: ".env" is another name */
		{"**/\\*.pem", FA__GLOB_NAME, "*.pem"},		/* escaped: a name with a star */
		{"**/.e\\nv", FA__GLOB_NAME, ".env"},
		{"**/*.pem", FA__GLOB_SUFFIX, ".pem"},
		{"**/*.tar.gz", FA__GLOB_SUFFIX, ".tar.gz"},
		{"**/*\\*", FA__GLOB_SUFFIX, "*"},
		{"**/.git/**", FA__GLOB_DIR, ".git"},
		{"**/.git/", FA__GLOB_DIR, ".git"},		/* "dir/" is dir and all it holds */
		{"**/a\\?/**", FA__GLOB_DIR, "a?"},
		{"secrets/**", FA__GLOB_SUBTREE, "secrets"},
		{"./secrets/", FA__GLOB_SUBTREE, "secrets"},
		{"a/b/**", FA__GLOB_SUBTREE, "a/b"},
		{"a\\*/**", FA__GLOB_SUBTREE, "a*"},
		{"a/b/c", FA__GLOB_EXACT, "a/b/c"},
		{"./~x", FA__GLOB_EXACT, "~x"},
		{"/abs/x/**", FA__GLOB_SUBTREE, "abs/x"},
		{"/h\\[1\\]/.netrc", FA__GLOB_EXACT, "h[1]/.netrc"},
		/* what looks like a fast form but is not */
		{"**/a*b", FA__GLOB_GENERAL, ""},
		{"**/[ab].env", FA__GLOB_GENERAL, ""},
		{"**/?env", FA__GLOB_GENERAL, ""},
		{"**/*", FA__GLOB_GENERAL, ""},
		{"**/**", FA__GLOB_GENERAL, ""},
		{"**", FA__GLOB_GENERAL, ""},
		{"**/", FA__GLOB_GENERAL, ""},
		{"**/*.*", FA__GLOB_GENERAL, ""},
		{"**/**.pem", FA__GLOB_GENERAL, ""},
		{"**/*.pem/**", FA__GLOB_GENERAL, ""},
		{"**/.git/**/x", FA__GLOB_GENERAL, ""},
		{"**/a/b", FA__GLOB_GENERAL, ""},
		{"**/a/b/**", FA__GLOB_GENERAL, ""},
		{"**/[x", FA__GLOB_GENERAL, ""},		/* a '[' never closed: still the walk's */
		{"config/*.json", FA__GLOB_GENERAL, "config"},	/* the literal lead filters */
		{"build/**/*.o", FA__GLOB_GENERAL, "build"},
		{"a/**/**", FA__GLOB_GENERAL, "a"},
		{"*.pem", FA__GLOB_GENERAL, ""},
		{"[x/**", FA__GLOB_GENERAL, ""},
		{"/p/*/.env", FA__GLOB_GENERAL, "p"},
	};
	char clean[PATH_MAX], lit[PATH_MAX];
	struct fa__glob g;
	const char *err;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_true(fa__glob_clean(cases[i].in, clean, sizeof clean, &err) > 0);
		memset(&g, 0, sizeof g);
		n = fa__glob_compile(&g, clean, lit);
		lit[n] = 0;
		if (g.form != cases[i].form || strcmp(lit, cases[i].lit))
			fail_msg("'%s': form %d '%s', want %d '%s'", cases[i].in, g.form, lit,
				 cases[i].form, cases[i].lit);
	}
}

#define NROOTS 3
static char roots[NROOTS][PATH_MAX];
static int nroots;

/* The walk alone on each pattern, the first whole match else the first beneath. */
static int reference(const fa_policy *p, int read, const char *path, int prefix, int *how)
{
	size_t len = strlen(path);
	int i, j, best = -1;

	*how = 0;
	for (i = 0; i < fa_policy_nglobs(p); i++) {
		int rd, r = 0;
		const char *pat = fa_policy_glob(p, i, &rd);

		if (rd != read)
			continue;
		if (pat[0] == '/')
			r = fa__glob_match(pat + 1, strlen(pat) - 1, path + 1, len - 1, prefix);
		else if (fa__glob_kind(pat) == FA__GLOB_ANY)
			r = fa__glob_match(pat, strlen(pat), path + 1, len - 1, prefix);
		for (j = 0; fa__glob_kind(pat) == FA__GLOB_ROOT && j < nroots && r != 1; j++) {
			size_t rl = strlen(roots[j]);
			int k;

			if (len <= rl || strncmp(path, roots[j], rl) || (rl > 1 && path[rl] != '/'))
				continue;
			rl = rl == 1 ? 0 : rl;
			k = fa__glob_match(pat, strlen(pat), path + rl + 1, len - rl - 1, prefix);
			r = k > r ? k : r;
		}
		if (r == 1) {
			*how = 1;
			return i;
		}
		if (r == 2 && best < 0) {
			best = i;
			*how = 2;
		}
	}
	return best;
}

static void forms_agree_with_walk(void **state)
{
	static const char *const pats[] = {
		"**/.env", "**/.ENV", "**/*.pem", "**/*.env", "**/.git/**", "**/a/", "**/\\*.pem",
		"**/*\\*", "**/.e\\nv", "secrets/**", "a/b", "a/b/**", "sub/a/**", "a\\*/**",
		"**/a*b", "**/[ab].env", "**/*", "**", "**/?env", "**/.env/x", "**/*.pem/**",
		"**/a/*.pem", "a/*/b", "a/**/b", "config/*.json", "build/**/*.o", "*.pem", "[x",
		"a/[x/**", "**/[x", "**/.git/**/b", "**/a/b", "/ABS", "/ABS/a/**", "/ABS/*.pem",
		"/x/.git/**", "/x/a", "proj/.git/a/**", "proj/*/b", "proj/.git", ".git/a",
		"**/.git", "**/*git",	/* a root's own name */
		"/*/.git/**", "/[x]/a",	/* absolute, no literal first */
	};
	static const char *const comps[] = {
		"a", "b", "ab", "a*b", "axb", ".env", ".ENV", "x.pem", ".pem", "pem", "*.pem",
		"x*", "*", "a.env", "b.env", "[ab].env", "[x", ".git", "secrets", "config",
		"x.json", "build", "x.o", "sub", "env", "a*",
	};
	const char *bases[] = {"", "/x", tp("root"), tp("root/proj/.git"), tp("root/sub"),
			       tp("rootab"), tp("root/proj")};
	char path[PATH_MAX], abs[PATH_MAX], msg[256];
	int it, i, k, forms = 0, hits[3] = {0, 0, 0};

	(void)state;
	srand(2727);
	for (it = 0; it < 3000; it++) {
		fa_policy *p = fa_policy_new();
		struct fa__jctx c;
		int setup = it % 3;

		/* nested roots, one with a ".git" of its own; the live cwd; "/" */
		nroots = 0;
		if (setup == 0) {
			snprintf(roots[nroots++], PATH_MAX, "%s", tp("root"));
			snprintf(roots[nroots++], PATH_MAX, "%s", tp("root/proj/.git"));
		} else if (setup == 1) {
			assert_int_equal(chdir(tp("root/proj/.git")), 0);
			assert_int_equal(fa_policy_add_cwd_root(p), 0);
			snprintf(roots[nroots++], PATH_MAX, "%s", tp("root/proj/.git"));
			snprintf(roots[nroots++], PATH_MAX, "%s", tp("root/sub"));
		} else {
			snprintf(roots[nroots++], PATH_MAX, "/");
		}
		for (i = setup == 1; i < nroots; i++)
			assert_int_equal(fa_policy_add_root(p, roots[i], msg, sizeof msg), 0);
		for (i = 1 + rand() % 12; i > 0; i--) {
			const char *pat = pats[rand() % (int)(sizeof pats / sizeof pats[0])];

			/* "/ABS": the tree's own root, so that anchored literals meet real paths */
			if (!strncmp(pat, "/ABS", 4))
				snprintf(abs, sizeof abs, "%s%s", tp("root"), pat + 4);
			else
				snprintf(abs, sizeof abs, "%s", pat);
			if ((rand() % 4 ? fa_policy_add_deny_glob : fa_policy_add_deny_read)(
				    p, abs, msg, sizeof msg) != 0)
				fail_msg("%s: %s", abs, msg);
		}
		if (fa_policy_seal(p, 0, msg, sizeof msg) != 0)
			fail_msg("seal: %s", msg);
		for (i = 0; i < fa_policy_nglobs(p); i++)
			forms |= 1 << p->globs[i].form;
		fa__jctx_init(&c, p, 0);
		for (k = 0; k < 40; k++) {
			int n = rand() % 5, read = rand() % 4 == 0, prefix = rand() % 2;
			int want, how, wanthow, got, root;
			size_t rootlen;

			snprintf(path, sizeof path, "%s", bases[rand() % 7]);
			while (n--) {
				strcat(path, rand() % 16 ? "/" : "//");
				strcat(path, comps[rand() % (int)(sizeof comps / sizeof comps[0])]);
			}
			if (!path[0] || rand() % 16 == 0)
				strcat(path, "/");
			want = reference(p, read, path, prefix, &wanthow);
			got = fa__glob_find(&c, path, strlen(path), read, prefix,
					    FA__GLOB_ROOT_UNKNOWN, 0, &how);
			if ((got != want || how != wanthow) && !chdir(tp("root")))
				fail_msg("%s (%s, prefix %d): pattern %d (%s) how %d, the walk's %d "
					 "(%s) how %d", path, read ? "read" : "write", prefix, got,
					 got >= 0 ? fa_policy_glob(p, got, NULL) : "-", how, want,
					 want >= 0 ? fa_policy_glob(p, want, NULL) : "-", wanthow);
			/* the same with the root the caller found already */
			root = fa__find_root(&c, path, strlen(path), &rootlen);
			assert_int_equal(fa__glob_find(&c, path, strlen(path), read, prefix, root,
						       rootlen, &how), want);
			hits[wanthow]++;
		}
		fa_policy_free(p);
		if (setup == 1)
			assert_int_equal(chdir(tp("root")), 0);
	}
	/* every form met, and matches of both kinds */
	assert_int_equal(forms, (1 << FA__GLOB_NFORMS) - 1);
	assert_true(hits[1] > 5000 && hits[2] > 1000);
}

/* ---- the engine: T/root with patterns ---- */

static fa_policy *glob_policy(const char *const *writes, const char *const *reads)
{
	char msg[256];
	fa_policy *p = fa_policy_new();

	assert_non_null(p);
	assert_int_equal(fa_policy_add_root(p, tp("root"), msg, sizeof msg), 0);
	for (; writes && *writes; writes++)
		if (fa_policy_add_deny_glob(p, *writes, msg, sizeof msg) != 0)
			fail_msg("deny-glob %s: %s", *writes, msg);
	for (; reads && *reads; reads++)
		if (fa_policy_add_deny_read(p, *reads, msg, sizeof msg) != 0)
			fail_msg("deny-read %s: %s", *reads, msg);
	if (fa_policy_seal(p, 1, msg, sizeof msg) != 0)
		fail_msg("seal: %s", msg);
	return p;
}

static void expect(const fa_policy *p, enum fa_op op, const char *path, enum fa_verdict v)
{
	struct fa_decision d;

	if (fa_check(p, op, AT_FDCWD, path, &d) != v)
		fail_msg("%s %s: %s (%s), want %d", fa_op_name(op), path,
			 d.verdict == FA_ALLOW ? "allowed" : "refused", fa_why_name(d.why), v);
	if (v == FA_DENY)
		assert_int_equal(d.why, FA_WHY_DENY_PATTERN);
}

static void writes_by_pattern(void **state)
{
	static const char *const w[] = {"**/.env", "**/*.pem", "sub/keep/**", NULL};
	fa_policy *p = glob_policy(w, NULL);
	static const enum fa_op ops[] = {FA_OP_WRITE, FA_OP_CREATE, FA_OP_REMOVE, FA_OP_ATTR,
					 FA_OP_LATTR, FA_OP_RENAME, FA_OP_REPLACE};
	struct fa_decision d, d2;
	size_t i;
	int fd;

	(void)state;
	assert_int_equal(mkdir(tp("root/sub/keep"), 0755), 0);
	for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		/* as given, through '..', through a symlinked directory, absolute */
		expect(p, ops[i], ".env", FA_DENY);
		expect(p, ops[i], "sub/.env", FA_DENY);
		expect(p, ops[i], "proj/../sub/k.pem", FA_DENY);
		expect(p, ops[i], "in_link/.env", FA_DENY);
		expect(p, ops[i], tp("root/abs_in_link/x.pem"), FA_DENY);
		expect(p, ops[i], "sub/keep/f", FA_DENY);
		/* anchored to the root: a "keep" elsewhere is free */
		expect(p, ops[i], "proj/sub/keep/f", FA_ALLOW);
		expect(p, ops[i], "sub/env", FA_ALLOW);
		expect(p, ops[i], "sub/x.pem.txt", FA_ALLOW);
	}
	/* a directory holding what a pattern names is protected as a whole */
	expect(p, FA_OP_REMOVE, "sub/keep", FA_DENY);
	expect(p, FA_OP_RENAME, "in_link/keep", FA_DENY);
	expect(p, FA_OP_RENAME, "sub", FA_DENY);
	/* a "**" prefix: any directory might hold one, and still does after a move */
	expect(p, FA_OP_RENAME, "proj", FA_ALLOW);
	expect(p, FA_OP_WRITE, "sub", FA_ALLOW);
	/* a hard link's source and a rename's destination, two paths */
	assert_int_equal(fa_check2(p, FA_OP_LINK, AT_FDCWD, "sub/file", AT_FDCWD, "sub/x.pem", &d,
				   &d2), FA_DENY);
	assert_int_equal(d2.why, FA_WHY_DENY_PATTERN);
	assert_int_equal(fa_check2(p, FA_OP_RENAME, AT_FDCWD, "sub/file", AT_FDCWD, "in_link/.env",
				   &d, &d2), FA_DENY);
	/* check = use: refused with nothing made */
	fd = fa_openat(p, AT_FDCWD, "proj/../in_link/.env", O_WRONLY | O_CREAT, 0600, &d);
	assert_int_equal(fd, -EACCES);
	assert_int_equal(d.why, FA_WHY_DENY_PATTERN);
	assert_string_equal(d.path, tp("root/sub/.env"));
	assert_false(exists("root/sub/.env"));
	fd = fa_openat(p, AT_FDCWD, "sub/new.txt", O_WRONLY | O_CREAT, 0600, &d);
	assert_true(fd >= 0);
	close(fd);
	unlink(tp("root/sub/new.txt"));
	{
		struct fa_pin pin;

		assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "sub/keep/d", &pin, &d),
				 -EACCES);
		assert_int_equal(fa_pin_parent(p, FA_OP_REMOVE, AT_FDCWD, "sub/keep", &pin, &d),
				 -EACCES);
		assert_int_equal(fa_pin_parent(p, FA_OP_CREATE, AT_FDCWD, "sub/plain", &pin, &d), 0);
		fa_unpin(&pin);
	}
	assert_int_equal(fa_policy_glob_for(p, tp("root/sub/keep"), 0, 1), 2);
	assert_int_equal(fa_policy_glob_for(p, tp("root/sub/a.pem"), 0, 0), 1);
	assert_int_equal(fa_policy_glob_for(p, tp("root/sub/a.txt"), 0, 1), -1);
	rmdir(tp("root/sub/keep"));
	fa_policy_free(p);
}

static void text_and_meet(void **state)
{
	static const char *const w[] = {"**/.env", "sub/*.pem", NULL};
	static const char *const r[] = {"**/*.key", NULL};
	fa_policy *p = glob_policy(w, r), *q, *narrow;
	char text[8192], msg[256], want[PATH_MAX * 2];
	int read, i;

	(void)state;
	assert_true(fa_policy_format(p, text, sizeof text) > 0);
	assert_non_null(strstr(text, "deny-glob **/.env\n"));
	assert_non_null(strstr(text, "deny-glob sub/*.pem\n"));
	assert_non_null(strstr(text, "deny-read **/*.key\n"));
	q = fa_policy_new();
	assert_int_equal(fa_policy_parse(q, text, msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(q, 0, msg, sizeof msg), 0);
	assert_int_equal(fa_policy_nglobs(q), 3);
	assert_int_equal(fa_policy_write_globs(q), 2);
	assert_int_equal(fa_policy_read_globs(q), 1);
	assert_string_equal(fa_policy_glob(q, 2, &read), "**/*.key");
	assert_int_equal(read, 1);
	/* the meet anchors a root's pattern where the root is: it stays what it was */
	narrow = fa_policy_new();
	assert_int_equal(fa_policy_add_root(narrow, tp("root/sub"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(narrow, 0, msg, sizeof msg), 0);
	assert_true(fa_policy_format_meet(p, narrow, text, sizeof text) > 0);
	snprintf(want, sizeof want, "deny-glob %s/sub/*.pem\n", tp("root"));
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "deny-read **/*.key\n"));
	/* fail closed */
	assert_int_equal(fa_policy_add_deny_glob(narrow, "x", msg, sizeof msg), -EBUSY);
	fa_policy_free(q);
	q = fa_policy_new();
	assert_int_equal(fa_policy_add_deny_glob(q, "!x", msg, sizeof msg), -EINVAL);
	assert_non_null(strstr(msg, "negation"));
	assert_int_equal(fa_policy_add_deny_glob(q, "a/../b", msg, sizeof msg), -EINVAL);
	assert_int_equal(fa_policy_parse(q, "deny-glob \n", msg, sizeof msg), -EINVAL);
	assert_int_equal(fa_policy_add_deny_read(q, "sub/x", msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(q, 0, msg, sizeof msg), -EINVAL);	/* anchored, no roots */
	fa_policy_free(q);
	q = fa_policy_new();
	fa_policy_set_unrestricted(q);
	assert_int_equal(fa_policy_add_deny_glob(q, "**/.env", msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(q, 0, msg, sizeof msg), -EINVAL);
	fa_policy_free(q);
	q = fa_policy_new();
	assert_int_equal(fa_policy_add_deny_read(q, "secrets", msg, sizeof msg), 0);
	assert_true(fa_policy_read_globs(q) > 10);
	i = fa_policy_read_globs(q);
	assert_int_equal(fa_policy_add_deny_read(q, "./secrets", msg, sizeof msg), 0);
	assert_string_equal(fa_policy_glob(q, i, &read), "\\secrets");
	/* a '[' in $HOME is itself, not a set */
	{
		char *old = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

		setenv("HOME", "/h[1]", 1);
		assert_int_equal(fa_policy_add_deny_read(q, "~/.netrc", msg, sizeof msg), 0);
		assert_string_equal(fa_policy_glob(q, i + 1, &read), "/h\\[1\\]/.netrc");
		if (old)
			setenv("HOME", old, 1);
		else
			unsetenv("HOME");
		free(old);
	}
	/* "./secrets" is anchored to the roots: none, no policy */
	assert_int_equal(fa_policy_seal(q, 0, msg, sizeof msg), -EINVAL);
	assert_int_equal(fa_policy_add_root(q, tp("root"), msg, sizeof msg), 0);
	assert_int_equal(fa_policy_seal(q, 0, msg, sizeof msg), 0);
	assert_int_equal(fa_policy_glob_for(q, "/h[1]/.netrc", 1, 0), i + 1);
	assert_int_equal(fa_policy_glob_for(q, "/h1/.netrc", 1, 0), -1);
	fa_policy_free(q);
	fa_policy_free(narrow);
	fa_policy_free(p);
}

static void reads_by_pattern(void **state)
{
	static const char *const r[] = {"**/*.key", "sub/file", NULL};
	fa_policy *p = glob_policy(NULL, r), *none = glob_policy(NULL, NULL);
	struct fa_decision d;
	char buf[16], proc[64];
	int fd;

	(void)state;
	fd = open(tp("root/sub/a.key"), O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mkdir(tp("root/sub/d.key"), 0755), 0);
	/* the file itself, by any name */
	assert_int_equal(fa_read_openat(p, AT_FDCWD, "sub/a.key", O_RDONLY, 0, &d), -EACCES);
	assert_int_equal(d.why, FA_WHY_DENY_READ);
	assert_string_equal(d.path, tp("root/sub/a.key"));
	assert_int_equal(fa_read_openat(p, AT_FDCWD, "in_link/a.key", O_RDONLY, 0, &d), -EACCES);
	assert_int_equal(fa_read_openat(p, AT_FDCWD, "proj/../sub/file", O_RDONLY, 0, &d), -EACCES);
	assert_int_equal(fa_read_openat(p, AT_FDCWD, "file_link_in", O_RDONLY, 0, &d), -EACCES);
	assert_int_equal(fa_check(p, FA_OP_READ, AT_FDCWD, "file_link_in", &d), FA_DENY);
	/* an O_PATH open reads nothing; reopening it through /proc is a read */
	fd = open(tp("root/sub/a.key"), O_PATH | O_CLOEXEC);
	assert_true(fd >= 0);
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	assert_int_equal(fa_read_openat(p, AT_FDCWD, proc, O_RDONLY, 0, &d), -EACCES);
	assert_string_equal(d.path, tp("root/sub/a.key"));
	close(fd);
	fd = fa_read_openat(p, AT_FDCWD, "sub/a.key", O_PATH | O_CLOEXEC, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	/* a link not followed is the link: the open's own error */
	assert_int_equal(fa_read_openat(p, AT_FDCWD, "file_link_in", O_RDONLY | O_NOFOLLOW, 0, &d),
			 -ELOOP);
	/* a directory may be listed; another file read; a missing one fails by itself */
	fd = fa_read_openat(p, AT_FDCWD, "sub/d.key", O_RDONLY | O_DIRECTORY, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	fd = fa_read_openat(p, AT_FDCWD, "sub/d.key", O_RDONLY, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	fd = fa_read_openat(p, AT_FDCWD, "proj/.git/config", O_RDONLY | O_CLOEXEC, 0, &d);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	assert_int_equal(read(fd, buf, sizeof buf), 7);
	close(fd);
	assert_int_equal(fa_read_openat(p, AT_FDCWD, "sub/none", O_RDONLY, 0, &d), -ENOENT);
	/* no read pattern: a plain open */
	fd = fa_read_openat(none, AT_FDCWD, "sub/a.key", O_RDONLY, 0, &d);
	assert_true(fd >= 0);
	close(fd);
	/* writes are not what read patterns judge */
	expect(p, FA_OP_WRITE, "sub/a.key", FA_ALLOW);
	unlink(tp("root/sub/a.key"));
	rmdir(tp("root/sub/d.key"));
	fa_policy_free(none);
	fa_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(matcher_table),
		cmocka_unit_test(matcher_model),
		cmocka_unit_test(patterns_kept_clean),
		cmocka_unit_test(compiled_forms),
		cmocka_unit_test(forms_agree_with_walk),
		BOTH(writes_by_pattern),
		cmocka_unit_test(text_and_meet),
		BOTH(reads_by_pattern),
	};

	return RUN_TAP("glob", tests);
}
