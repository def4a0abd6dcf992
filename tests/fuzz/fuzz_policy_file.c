/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_policy_file.c - the policy file parser (policy_file.c) against a
 * model of the format, and against the command line that says the same.
 *
 * The model reads the text the obvious way: lines at '\n'; a line too long
 * or ending in '\r' is refused; trailing blanks go; a blank or '#' line is
 * nothing; otherwise the key runs to the first blank and the value starts
 * after the blanks that follow. Each key's rules are written out here again
 * (the symlink and exec modes by their names, contradictions, "allow-exec"
 * after "exec allow" and the other way round, deny subtrees beneath a root
 * of the file). Meanwhile it builds the policy fa-run would build from the
 * equivalent options (-w /fz/VALUE, --deny /fz/VALUE, --deny-glob VALUE,
 * --deny-read VALUE, --symlinks=MODE, --allow-outside-symlinks): the same
 * engine calls, given the path as a user types it, unfolded.
 *
 * A file the model accepts must be accepted, and, once both are sealed, give
 * the same policy text as the options, the same root count, exec rule and
 * allow list. A file the model refuses must be refused. Where the model
 * cannot know (a "~" path, a path the disk may resolve, lengths at the
 * limits, a full table) only the invariants are checked: a refusal names
 * the file, a line that exists and a column >= 1, and leaves no list
 * behind. The file is always /fz/policy: no such directory, so its paths
 * resolve lexically and nothing on disk matters. The text is the input up
 * to its first NUL, or made from a recipe (below).
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "model.h"

#define FILE_NAME "/fz/policy"
#define DIR_NAME "/fz"
#define MAX_LINE (PATH_MAX + 64)
#define MAX_LIST 256

static char text[1 << 16];

enum verdict { ACCEPT, REFUSE, UNSURE };

struct model {
	fa_policy *q;                /* what the equivalent options build */
	int roots, execs;
	int sym_set, sym;
	int exec_set, exec;          /* 0 allow, 1 deny, 2 list */
	char *list[MAX_LIST];        /* the allow-exec values as the file means them */
	/* the folded paths, for "a deny subtree lies beneath a root of the file" */
	char *rootp[MAX_LIST], *denyp[MAX_LIST];
	int nrootp, ndenyp, lexical; /* lexical: every one lies in /fz, which does not exist */
	/*
	 * A value beside the file that climbs out of /fz: the file folds it
	 * before the engine resolves what is left on disk, the options hand
	 * the engine /fz/.. unfolded, and /fz does not exist. A real policy
	 * file's directory exists, where both come to the same: not compared.
	 */
	int climbs;
	int tilde_deny;              /* a deny subtree under ~: not among denyp */
};

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

static int name_in(const char *v, const char *const *names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	return -1;
}

/* The absolute path a relative value means: the file's directory, then the value. */
static int beside_file(const char *v, char *out, size_t len)
{
	int n = snprintf(out, len, "%s/%s", DIR_NAME, v);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static char *folded(const char *abs)
{
	char out[PATH_MAX];

	return model_fold(abs, 1, out, sizeof out) < 0 ? NULL : strdup(out);
}

/*
 * A name longer than NAME_MAX: sealing refuses it (ENAMETOOLONG) when the
 * directory above it exists, and keeps it beneath one that does not, so
 * "/fz/../tmp/LONG" seals and its fold "/tmp/LONG" does not.
 */
static int long_name(const char *path)
{
	size_t n;

	for (; *path; path += n) {
		path += strspn(path, "/");
		n = strcspn(path, "/");
		if (n > NAME_MAX)
			return 1;
	}
	return 0;
}

static enum verdict path_line(struct model *m, int root, const char *v)
{
	char cmd[PATH_MAX + 8], msg[PATH_MAX + 64];
	char *f;

	if (v[0] == '~') {
		/* expanded from $HOME by the engine, on either road; the disk decides beneath what */
		m->lexical = 0;
		m->tilde_deny |= !root;
		snprintf(cmd, sizeof cmd, "%s", v);
	} else if (v[0] == '/') {
		snprintf(cmd, sizeof cmd, "%s", v);
	} else if (beside_file(v, cmd, sizeof cmd) < 0) {
		return UNSURE;
	}
	/* near the limit, folding decides which road fits */
	if (strlen(cmd) >= PATH_MAX - 8 || long_name(cmd))
		return UNSURE;
	if ((root ? fa_policy_add_root : fa_policy_add_deny)(m->q, cmd, msg, sizeof msg) < 0)
		return UNSURE;
	if (v[0] != '~') {
		f = folded(cmd);
		if (!f)
			return UNSURE;
		if (!model_within(f, DIR_NAME) || !strcmp(f, DIR_NAME)) {
			m->lexical = 0;
			m->climbs |= v[0] != '/';
		}
		if ((root ? m->nrootp : m->ndenyp) >= MAX_LIST) {
			free(f);
			return UNSURE;
		}
		if (root)
			m->rootp[m->nrootp++] = f;
		else
			m->denyp[m->ndenyp++] = f;
	}
	if (root)
		m->roots++;
	return ACCEPT;
}

/*
 * A pattern line ("deny-glob", "deny-read", or "deny" with a wildcard), as
 * fa-run's --deny-glob / --deny-read would give it: refused for a '!', a
 * '..' component, a '\\' escaping nothing or a '/', a '~' not followed by
 * '/', or nothing but '.' and '/' ("secrets" for reads is the built-in set).
 */
static enum verdict pattern_line(struct model *m, int read, const char *v)
{
	char msg[PATH_MAX + 64];
	const char *c;
	size_t n, i;
	int named = 0;

	if (v[0] == '!' || (v[0] == '~' && v[1] && v[1] != '/'))
		return REFUSE;
	for (i = 0; v[i]; i++)
		if (v[i] == '\\' && (!v[++i] || v[i] == '/'))
			return REFUSE;
	for (c = v; *c; c += n) {
		c += strspn(c, "/");
		n = strcspn(c, "/");
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return REFUSE;
		named |= n && !(n == 1 && c[0] == '.');
	}
	if (!named)
		return REFUSE;
	if (strlen(v) >= PATH_MAX - 16)
		return UNSURE;
	if ((read ? fa_policy_add_deny_read : fa_policy_add_deny_glob)(m->q, v, msg, sizeof msg) < 0)
		return UNSURE;	/* a full table, $HOME */
	return v[0] == '~' ? UNSURE : ACCEPT;
}

static enum verdict one(struct model *m, const char *k, size_t kl, const char *v)
{
	static const char *const keys[] = { "root", "deny", "symlinks", "outside-symlinks", "exec",
					    "allow-exec", "deny-glob", "deny-read" };
	static const char *const syms[] = { "trust", "beneath", "nofollow" };
	static const enum fa_symlinks sym_of[] = { FA_SYM_TRUST, FA_SYM_BENEATH, FA_SYM_NOFOLLOW };
	static const char *const execs[] = { "allow", "deny", "list" };
	char key[32], abs[PATH_MAX + 8], out[PATH_MAX];
	int i;

	if (kl >= sizeof key)
		return REFUSE;
	memcpy(key, k, kl);
	key[kl] = '\0';
	i = name_in(key, keys, 8);
	if (i < 0 || !*v)
		return REFUSE;
	if (i == 6 || i == 7 || (i == 1 && strpbrk(v, "*?[")))
		return pattern_line(m, i == 7, v);
	switch (i) {
	case 0:
	case 1:
		return path_line(m, i == 0, v);
	case 2:
		i = name_in(v, syms, 3);
		if (i < 0 || (m->sym_set && m->sym != i))
			return REFUSE;
		m->sym_set = 1;
		m->sym = i;
		fa_policy_set_symlinks(m->q, sym_of[i]);
		return ACCEPT;
	case 3:
		if (strcmp(v, "allow"))
			return REFUSE;
		fa_policy_set_outside_symlinks(m->q, 1);
		return ACCEPT;
	case 4:
		i = name_in(v, execs, 3);
		if (i < 0 || (m->exec_set && m->exec != i) || (i == 0 && m->execs))
			return REFUSE;
		m->exec_set = 1;
		m->exec = i;
		return ACCEPT;
	default:
		if (m->exec_set && m->exec == 0)
			return REFUSE;
		if (m->execs >= MAX_LIST)
			return UNSURE;
		if (!strchr(v, '/') || v[0] == '/' || v[0] == '~') {
			m->list[m->execs++] = strdup(v);
			return ACCEPT;
		}
		if (beside_file(v, abs, sizeof abs) < 0 || model_fold(abs, 1, out, sizeof out) < 0)
			return UNSURE;
		m->list[m->execs++] = strdup(out);
		return ACCEPT;
	}
}

/* The model's verdict on the whole text; *lines: how many lines it has. */
static enum verdict model(struct model *m, const char *t, int *lines)
{
	enum verdict all = ACCEPT, v;
	const char *s = t;
	int i, j;

	*lines = 0;
	while (*s) {
		const char *e = strchr(s, '\n'), *k;
		size_t n = e ? (size_t)(e - s) : strlen(s), kl;
		char line[MAX_LINE];

		(*lines)++;
		v = ACCEPT;
		if (n >= MAX_LINE || (n && s[n - 1] == '\r')) {
			v = REFUSE;
		} else {
			memcpy(line, s, n);
			while (n && blank(line[n - 1]))
				n--;
			line[n] = '\0';
			for (k = line; blank(*k); k++)
				;
			if (*k && *k != '#') {
				const char *val;

				for (kl = 0; k[kl] && !blank(k[kl]); kl++)
					;
				for (val = k + kl; blank(*val); val++)
					;
				v = one(m, k, kl, val);
			}
		}
		s = e ? e + 1 : s + strlen(s);
		/* the first refusal decides; an unsure line before it leaves it unsure */
		if (v == REFUSE)
			return all == ACCEPT ? REFUSE : UNSURE;
		if (v == UNSURE)
			all = UNSURE;
	}
	if (all != ACCEPT || !m->roots)
		return all;
	/* a file that names roots holds its own deny subtrees, strictly beneath one */
	for (i = 0; i < m->ndenyp; i++) {
		for (j = 0; j < m->nrootp; j++)
			if (model_within(m->denyp[i], m->rootp[j]) && strcmp(m->denyp[i], m->rootp[j]))
				break;
		if (j == m->nrootp)
			return m->lexical ? REFUSE : UNSURE;
	}
	if (m->tilde_deny)
		return UNSURE;
	return m->lexical || !m->ndenyp ? ACCEPT : UNSURE;
}

static void model_free(struct model *m)
{
	int i;

	fa_policy_free(m->q);
	for (i = 0; i < m->execs; i++)
		free(m->list[i]);
	for (i = 0; i < m->nrootp; i++)
		free(m->rootp[i]);
	for (i = 0; i < m->ndenyp; i++)
		free(m->denyp[i]);
}

static void mismatch(const char *what)
{
	fprintf(stderr, "mismatch: %s; the file:\n%s\n", what, text);
	abort();
}

static int by_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The lines of a policy text, sorted, each once: sealing keeps the first of
 * two names for one root but every name of a deny subtree, and the file
 * folds a path before the engine sees it, so "d" and "d/" are one entry
 * there and two from the options: the same rules.
 */
static int lines_of(char *t, char **v, int max)
{
	int n = 0, i, k = 0;
	char *l;

	for (l = strtok(t, "\n"); l && n < max; l = strtok(NULL, "\n"))
		v[n++] = l;
	qsort(v, (size_t)n, sizeof *v, by_line);
	for (i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]))
			v[k++] = v[i];
	return k;
}

/* Both sealed the same way, and the same rules out of each. */
static void same_policy(fa_policy *p, fa_policy *q)
{
	static char a[1 << 18], b[1 << 18];
	static char *la[2 * (FA__MAX_ROOTS + FA__MAX_DENY) + 4];
	static char *lb[2 * (FA__MAX_ROOTS + FA__MAX_DENY) + 4];
	char msg[PATH_MAX + 256];
	int na, nb, i;
	int rp = fa_policy_seal(p, 0, msg, sizeof msg), rq = fa_policy_seal(q, 0, msg, sizeof msg);

	if ((rp < 0) != (rq < 0))
		mismatch(rp < 0 ? "the file's policy does not seal, the options' does"
				: "the options' policy does not seal, the file's does");
	if (rp < 0)
		return;
	if (fa_policy_format(p, a, sizeof a) < 0 || fa_policy_format(q, b, sizeof b) < 0)
		return;
	na = lines_of(a, la, (int)(sizeof la / sizeof la[0]));
	nb = lines_of(b, lb, (int)(sizeof lb / sizeof lb[0]));
	for (i = 0; i < na && i < nb && !strcmp(la[i], lb[i]); i++)
		;
	if (na != nb || i < na) {
		fprintf(stderr, "file: %s\noptions: %s\n", i < na ? la[i] : "(end)",
			i < nb ? lb[i] : "(end)");
		mismatch("the file and the options give different policies");
	}
}

/*
 * An input starting with RECIPE is not text but a recipe for one, so that
 * files of valid lines (where a wrong acceptance or a wrong policy hides)
 * come often: each pair of bytes is a line, a key and a value from short
 * lists (a byte beyond a list is a word of the input's own, up to the next
 * 0xff). Either way the model reads only the text.
 */
#define RECIPE 0xfa

static size_t from_recipe(const uint8_t *d, size_t n)
{
	static const char *const keys[] = { "root ", "deny ", "symlinks ", "outside-symlinks ",
					    "exec ", "allow-exec ", "  root\t", "# ", "deny-glob ",
					    "deny-read " };
	static const char *const values[] = { "trust", "beneath", "nofollow", "allow", "deny", "list",
					      "a", "a/b", "a/b/", "../c", "/fz/a/../d", "~/e", "sh",
					      "bin/t", "/", "a ", "x\r", "**/.env", "a/*.pem",
					      "/fz/**/k", "!x", "secrets", "a/../*" };
	size_t o = 0, i = 1, k;
	const char *v;

	while (i + 1 < n && o + 2 * PATH_MAX < sizeof text) {
		k = d[i++] % (sizeof keys / sizeof keys[0]);
		o += (size_t)snprintf(text + o, sizeof text - o, "%s", keys[k]);
		if (d[i] < sizeof values / sizeof values[0]) {
			v = values[d[i++]];
			o += (size_t)snprintf(text + o, sizeof text - o, "%s", v);
		} else {
			for (i++; i < n && d[i] != 0xff && d[i] && o + 2 < sizeof text; i++)
				text[o++] = (char)d[i];
			i++;
		}
		text[o++] = '\n';
	}
	text[o] = '\0';
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fa_policy_file pf;
	struct model m;
	char msg[PATH_MAX + 256];
	int lines, r, line, col, i;
	enum verdict want;
	fa_policy *p;

	if (size >= sizeof text)
		return 0;
	if (size && data[0] == RECIPE) {
		from_recipe(data, size);
	} else {
		memcpy(text, data, size);
		text[size] = '\0';
	}
	memset(&m, 0, sizeof m);
	m.lexical = 1;
	m.q = fa_policy_new();
	p = fa_policy_new();
	if (!p || !m.q) {
		fa_policy_free(p);
		model_free(&m);
		return 0;
	}
	want = model(&m, text, &lines);
	r = fa_policy_file_parse(p, text, FILE_NAME, &pf, msg, sizeof msg);
	if (r == 0) {
		if (want == REFUSE)
			mismatch("accepted a file the model refuses");
		if (want == ACCEPT) {
			if (pf.nroots != m.roots)
				mismatch("root count differs");
			if (pf.symlinks_set != m.sym_set || pf.exec_set != m.exec_set)
				mismatch("a mode line is lost or invented");
			if (pf.nallow_exec != m.execs)
				mismatch("allow-exec count differs");
			for (i = 0; i < m.execs; i++)
				if (strcmp(pf.allow_exec[i], m.list[i]))
					mismatch("an allow-exec value differs");
			if ((m.exec_set || m.execs) &&
			    (int)pf.exec != (m.exec_set ? (int)(m.exec == 0 ? FA_EXEC_ALLOW :
							  m.exec == 1 ? FA_EXEC_DENY : FA_EXEC_LIST)
							: (int)FA_EXEC_LIST))
				mismatch("the exec rule differs");
			if (!m.climbs)
				same_policy(p, m.q);
		}
		fa_policy_file_free(&pf);
	} else {
		if (want == ACCEPT) {
			fprintf(stderr, "%s\n", msg);
			mismatch("refused a file the model accepts");
		}
		if (strncmp(msg, FILE_NAME ":", sizeof(FILE_NAME)) ||
		    sscanf(msg + sizeof(FILE_NAME), "%d:%d: ", &line, &col) != 2 || line < 1 ||
		    line > lines || col < 1)
			mismatch("a refusal does not name a line and column");
		if (pf.allow_exec || pf.nallow_exec)
			mismatch("a refused file left its allow list");
	}
	fa_policy_free(p);
	model_free(&m);
	return 0;
}
