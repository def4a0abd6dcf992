/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_check.c - fa_check_path(), the core of fa-check, against the model,
 * and fa_check_verdict() against fa_check().
 *
 * The policy: one root holding a small tree with no symlinks (directories
 * a and a/b, files f and a/g) and the deny subtree a/b. Without symlinks
 * the answer depends on the text alone, so the model can give it: a
 * relative path is folded and '..' above the root is "escapes"; an
 * absolute one is folded; then inside the deny subtree is "deny-subtree",
 * inside the root is allowed, anything else is "outside-roots".
 *
 * Input bytes pick the path's pieces from a small alphabet (names that
 * exist, names that do not, '.', '..', empty components, the root and its
 * parent as absolute prefixes), so that most inputs mean something.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fa_policy.h"
#include "model.h"

static char base[PATH_MAX], root[PATH_MAX], denyd[PATH_MAX];
static fa_policy *pol;
static char path[2 * PATH_MAX];

static void cleanup(void)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof p, "%s/a/g", root);
	unlink(p);
	snprintf(p, sizeof p, "%s/f", root);
	unlink(p);
	rmdir(denyd);
	snprintf(p, sizeof p, "%s/a", root);
	rmdir(p);
	rmdir(root);
	rmdir(base);
}

static void mk(const char *rel, int dir)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (dir ? mkdir(p, 0700) : close(creat(p, 0600))) {
		perror(p);
		exit(2);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char msg[256], tmpl[PATH_MAX];
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	(void)argv;
	snprintf(tmpl, sizeof tmpl, "%s/fa-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	tmp = mkdtemp(tmpl);
	if (!tmp || !realpath(tmp, base)) {
		perror("mkdtemp");
		exit(2);
	}
	snprintf(root, sizeof root, "%s/r", base);
	if (mkdir(root, 0700)) {
		perror(root);
		exit(2);
	}
	atexit(cleanup);
	mk("a", 1);
	mk("a/b", 1);
	mk("f", 0);
	mk("a/g", 0);
	snprintf(denyd, sizeof denyd, "%s/a/b", root);
	pol = fa_policy_new();
	if (!pol || fa_policy_add_root(pol, root, msg, sizeof msg) ||
	    fa_policy_add_deny(pol, denyd, msg, sizeof msg) ||
	    fa_policy_seal(pol, 1, msg, sizeof msg)) {
		fprintf(stderr, "fuzz_check: policy: %s\n", msg);
		exit(2);
	}
	return 0;
}

static const char *const names[] = {
	"a", "b", "f", "g", "x", "..", ".", "", "ab", "b.", "r", "\x7f\xff",
};

/* Build the path from the input: a prefix choice, then one name per byte. */
static void make_path(const uint8_t *data, size_t size)
{
	size_t o = 0, i;
	const char *pre;

	switch (data[0] & 3) {
	case 0:
		pre = "";		/* relative to the root */
		break;
	case 1:
		pre = root;
		break;
	case 2:
		pre = base;
		break;
	default:
		pre = "/";
		break;
	}
	o = strlen(pre);
	memcpy(path, pre, o);
	for (i = 1; i < size && o < PATH_MAX + 64; i++) {
		const char *n = names[data[i] % (sizeof names / sizeof names[0])];
		size_t k = strlen(n);

		if (o > 0 || (data[i] & 0x80))
			path[o++] = '/';
		memcpy(path + o, n, k);
		o += k;
	}
	path[o] = 0;
}

static void fail(const char *what, const struct fa_decision *d, enum fa_verdict v)
{
	fprintf(stderr, "fuzz_check: %s on \"%s\": engine verdict %d why %s path \"%s\"\n",
		what, path, (int)v, fa_why_name(d->why), d->path);
	abort();
}

/*
 * fa_check_verdict() against fa_check() on the same absolute path: the
 * same decision for each operation, but for the errno of an allow.
 */
static void same_verdicts(void)
{
	static const enum fa_op ops[] = {FA_OP_WRITE, FA_OP_REMOVE, FA_OP_CREATE, FA_OP_DIR};
	static struct fa_decision a, b;
	size_t i;

	for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
		enum fa_verdict va = fa_check(pol, ops[i], AT_FDCWD, path, &a);
		enum fa_verdict vb = fa_check_verdict(pol, ops[i], AT_FDCWD, path, &b);

		if (va != vb || a.why != b.why || a.root != b.root || strcmp(a.path, b.path) != 0 ||
		    (va != FA_ALLOW && a.err != b.err))
			fail("fa_check_verdict differs from fa_check", &b, vb);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fa_decision d;
	static char folded[PATH_MAX], rel[PATH_MAX];
	enum fa_verdict v, want;
	enum fa_why why;
	size_t plen;

	if (size < 1)
		return 0;
	make_path(data, size);
	v = fa_check_path(pol, path, &d);
	plen = strlen(path);

	if (plen == 0) {
		want = FA_REJECT;
		why = FA_WHY_EMPTY;
	} else if (plen >= PATH_MAX) {
		want = FA_REJECT;
		why = FA_WHY_TOO_LONG;
	} else if (path[0] != '/') {
		ssize_t n = model_fold(path, 0, rel, sizeof rel);

		if (n == -EXDEV) {
			want = FA_REJECT;
			why = FA_WHY_ESCAPES;
		} else if (n < 0 ||
			   (size_t)snprintf(folded, sizeof folded, "%s%s%s", root, n ? "/" : "",
					    rel) >= sizeof folded) {
			want = FA_REJECT;
			why = FA_WHY_TOO_LONG;
		} else {
			goto judge;
		}
	} else if (model_fold(path, 1, folded, sizeof folded) < 0) {
		want = FA_REJECT;
		why = FA_WHY_TOO_LONG;
	} else {
		goto judge;
	}
	if (v != want || d.why != why)
		fail("reject differs from the model", &d, v);
	return 0;

judge:
	if (model_within(folded, denyd)) {
		want = FA_DENY;
		why = FA_WHY_DENY_SUBTREE;
	} else if (model_within(folded, root)) {
		want = FA_ALLOW;
		why = FA_WHY_NONE;
	} else {
		want = FA_DENY;
		why = FA_WHY_OUTSIDE;
	}
	if (v != want || d.why != why)
		fail("verdict differs from the model", &d, v);
	if (strcmp(d.path, folded) != 0)
		fail("judged path differs from the model", &d, v);
	if (path[0] == '/')
		same_verdicts();
	return 0;
}
