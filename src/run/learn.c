/* SPDX-License-Identifier: Apache-2.0 */
/*
 * learn.c - fa-run --learn: the narrowest policy a run needed.
 *
 * The command runs with nothing denied (report mode). Every process of the
 * run appends each would-be denial to one record of fa-run's (a memfd,
 * learn_record.h), named to them in FA_LEARN as /proc/<fa-run>/fd/<n> (the
 * preload writes it, report.c); fa-run reads it when the command has
 * exited. No file of the user's is needed, and nothing is left behind
 * when fa-run dies.
 *
 * The roots come from the engine's one rule (fa_suggest_roots(), places.c),
 * the same one a denial's fix and the Python host use. Sensitive places are
 * named in comments, never granted: the user decides.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "learn_record.h"
#include "run/learn.h"

int fa_learn_start(struct fa_learn *l, char *why, size_t len)
{
	char num[64];
	const char *slash;

	if (!getcwd(l->project, sizeof(l->project))) {
		snprintf(why, len, "cannot get the current directory: %s", strerror(errno));
		return -1;
	}
	if (l->out) {
		char dir[PATH_MAX];

		/* Fail now, not after a long run: the file's directory must take it. */
		slash = strrchr(l->out, '/');
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - l->out) + (slash == l->out) : 1,
			 slash ? l->out : ".");
		if (!*l->out || access(dir, W_OK) < 0) {
			snprintf(why, len, "%s: cannot write there: %s", l->out,
				 *l->out ? strerror(errno) : "empty file name");
			return -1;
		}
	}
	l->fd = fa_learn_record_new();
	if (l->fd < 0) {
		snprintf(why, len, "cannot make the record: %s", strerror(errno));
		return -1;
	}
	snprintf(num, sizeof(num), "/proc/%d/fd/%d", (int)getpid(), l->fd);
	if (setenv("FA_LEARN", num, 1) < 0) {
		snprintf(why, len, "cannot set FA_LEARN: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * A fa-run started inside fa-run --learn finds the outer run's record in
 * FA_LEARN. What is learned is the outer policy, and libfashim.so gives
 * every program the outer run starts the outer run's FA_* variables, the
 * nested run's command included: the outer record sees each would-be
 * denial of the outer policy there too. Only a kernel floor of the nested
 * run would hide them, refusing the write (and the record, a file outside
 * its roots) first; the nested policy can only narrow the outer one, so
 * while the outer run learns, the nested run's floor is off as well.
 */
int fa_learn_nested(void)
{
	const char *s = getenv("FA_LEARN"), *pol = getenv("FA_POLICY");

	/* Both, as an outer fa-run passes them on: FA_LEARN alone starts no learning run. */
	return s && *s == '/' && pol;
}

/* ---- a list of strings, kept unique ---- */

struct list {
	char **v;
	int n;
};

static int has(const struct list *s, const char *x)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], x))
			return 1;
	return 0;
}

static void add(struct list *s, const char *x)
{
	char **nv;

	if (has(s, x))
		return;
	nv = realloc(s->v, sizeof(char *) * (size_t)(s->n + 1));
	if (!nv || !(nv[s->n] = strdup(x))) {
		s->v = nv ? nv : s->v;
		return;
	}
	s->v = nv;
	s->n++;
}

static void addf(struct list *s, const char *a, const char *b)
{
	char *x;

	if (asprintf(&x, "%s%s", a, b) < 0)
		return;
	add(s, x);
	free(x);
}

static void drop(struct list *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* path is dir or beneath it */
static int within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/' || (n == 1 && *dir == '/'));
}

/* What the run needed, read from the record. */
struct needs {
	struct list dirs;       /* directories written in outside every root */
	struct list execs;      /* programs refused */
	struct list undeny;     /* deny subtrees written beneath */
	struct list unglob;     /* the user's deny patterns the run wrote to */
	struct list secrets;    /* "path\npattern": written, and a common secret pattern names it */
	struct list other;      /* "op path (rule)" nobody can grant by a root */
	int trust, outside, calls;
	uint64_t lost;          /* would-be denials past the record's bound */
};

static void take(struct needs *nd, const struct fa_learn *l, const char *op, const char *rule,
		 const char *path)
{
	char dir[PATH_MAX];
	int i;

	nd->calls++;
	/* A policy file has one path a line: such a path is shown, not granted. */
	if (strpbrk(path, "\n\r")) {
		add(&nd->other, "a path with a line break in it");
	} else if (!strcmp(op, "exec")) {
		add(&nd->execs, path);
	} else if (!strcmp(rule, "outside-roots") || !strcmp(rule, "no-roots") ||
		   (!strcmp(rule, "link-target") && strcmp(op, "symlink"))) {
		/* A hard link's source must lie inside a root: its directory is needed. */
		add(&nd->dirs, fa_place_holder(path, dir, sizeof(dir)) ? dir : "/");
	} else if (!strcmp(rule, "deny-subtree") || !strcmp(rule, "protects-deny")) {
		for (i = 0; i < fa_policy_ndeny(l->policy); i++)
			if (within(path, fa_policy_deny(l->policy, i)) ||
			    within(fa_policy_deny(l->policy, i), path))
				add(&nd->undeny, fa_policy_deny(l->policy, i));
	} else if (!strcmp(rule, "deny-pattern")) {
		int read, g = fa_policy_glob_for(l->policy, path, 0, 1);
		const char *pat = fa_policy_glob(l->policy, g, &read);
		char *x;

		if (pat && g < l->user_globs) {
			add(&nd->unglob, pat);
		} else if (pat) {
			nd->calls--;	/* watched, not refused by the policy in force */
			if (asprintf(&x, "%s\n%s", path, pat) >= 0) {
				add(&nd->secrets, x);
				free(x);
			}
		}
	} else if (!strcmp(rule, "symlink")) {
		nd->trust = 1;
	} else if (!strcmp(rule, "link-target")) {
		nd->outside = 1;
	} else {
		char *x;

		if (asprintf(&x, "%s %s (%s)", op, path, rule) >= 0) {
			add(&nd->other, x);
			free(x);
		}
	}
}

struct taking {
	struct needs *nd;
	const struct fa_learn *l;
};

static void take_one(void *arg, const char *call, const char *op, const char *rule,
		     const char *path)
{
	struct taking *t = arg;

	(void)call;
	take(t->nd, t->l, op, rule, path);
}

static void read_record(struct needs *nd, const struct fa_learn *l)
{
	struct taking t = { nd, l };
	struct stat st;
	size_t at = 0;
	char *buf;

	if (fstat(l->fd, &st) < 0 || st.st_size <= 0)
		return;
	buf = mmap(NULL, (size_t)st.st_size + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE, l->fd, 0);
	if (buf == MAP_FAILED)
		return;
	nd->lost = fa_learn_record_read(buf, (size_t)st.st_size, &at, take_one, &t);
	munmap(buf, (size_t)st.st_size + 1);
}

/* A policy as the lines of a policy file (comments excluded), for the diff. */
static void policy_lines(struct list *out, const struct fa_learn *l, const struct needs *nd,
			 const struct fa_suggested_root *sug, int nsug)
{
	const char *a, *e;
	int i;

	for (i = 0; i < fa_policy_nroots(l->policy); i++) {
		const char *r = fa_policy_root(l->policy, i);
		int j;

		/* A root the learned ones hold is one line too many. */
		for (j = 0; j < nsug; j++)
			if (!sug[j].sensitive && within(r, sug[j].path))
				break;
		if (j == nsug)
			addf(out, "root ", r);
	}
	for (i = 0; i < nsug; i++)
		if (!sug[i].sensitive)
			addf(out, "root ", sug[i].path);
	for (i = 0; i < fa_policy_ndeny(l->policy); i++)
		if (!nd || !has(&nd->undeny, fa_policy_deny(l->policy, i)))
			addf(out, "deny ", fa_policy_deny(l->policy, i));
	for (i = 0; i < fa_policy_nglobs(l->policy) && i < l->user_globs; i++) {
		int read;
		const char *g = fa_policy_glob(l->policy, i, &read);

		if (read)
			addf(out, "deny-read ", g);
		else if (!nd || !has(&nd->unglob, g))
			addf(out, "deny-glob ", g);
	}
	if (nd && nd->trust)
		add(out, "symlinks trust");
	else if (fa_policy_symlinks(l->policy) != FA_SYM_TRUST)
		addf(out, "symlinks ", fa_symlinks_name(fa_policy_symlinks(l->policy)));
	if (fa_policy_outside_symlinks(l->policy) || (nd && nd->outside))
		add(out, "outside-symlinks allow");
	if (l->exec == FA_EXEC_ALLOW)
		return;
	if (l->allow || (nd && nd->execs.n))
		add(out, "exec list");
	else
		add(out, "exec deny");
	for (a = l->allow; a && *a; a = *e ? e + 1 : e) {
		char prog[PATH_MAX];

		e = strchrnul(a, '\n');
		snprintf(prog, sizeof(prog), "%.*s", (int)(e - a), a);
		addf(out, "allow-exec ", prog);
	}
	for (i = 0; nd && i < nd->execs.n; i++)
		addf(out, "allow-exec ", nd->execs.v[i]);
}

/* The learned policy as a policy file: the lines, and comments for what it does not grant. */
static void put_policy(FILE *f, const struct fa_learn *l, const struct needs *nd,
		       const struct list *lines, const struct fa_suggested_root *sug, int nsug)
{
	int i;

	fputs("# learned by fa-run --learn from:", f);
	for (i = 0; l->argv[i]; i++) {
		const char *c;

		fputc(' ', f);
		/* One comment line, whatever the arguments hold. */
		for (c = l->argv[i]; *c; c++)
			fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
	}
	fputc('\n', f);
	for (i = 0; i < lines->n; i++)
		fprintf(f, "%s\n", lines->v[i]);
	for (i = 0; i < nsug; i++)
		if (sug[i].sensitive)
			fprintf(f, "# not granted: %s (%s); the run wrote there: add 'root %s' only "
				"if that is meant\n", sug[i].path, sug[i].sensitive, sug[i].path);
	for (i = 0; i < nd->undeny.n; i++)
		fprintf(f, "# dropped: deny %s (the run wrote beneath it)\n", nd->undeny.v[i]);
	for (i = 0; i < nd->unglob.n; i++)
		fprintf(f, "# dropped: deny-glob %s (the run wrote what it names)\n", nd->unglob.v[i]);
	for (i = 0; i < nd->secrets.n; i++) {
		const char *pat = strchr(nd->secrets.v[i], '\n') + 1;

		fprintf(f, "# secret? the run wrote %.*s, which the common secret pattern %s names: "
			"'deny-glob %s' keeps such files from being written\n",
			(int)(pat - 1 - nd->secrets.v[i]), nd->secrets.v[i], pat, pat);
	}
	for (i = 0; i < nd->other.n; i++)
		fprintf(f, "# also refused, no root would allow it: %s\n", nd->other.v[i]);
}

void fa_learn_report(struct fa_learn *l)
{
	struct needs nd = { 0 };
	struct fa_suggested_root *sug = NULL;
	struct list now = { 0 }, learned = { 0 };
	int nsug = 0, i;

	/*
	 * The preload gives the command the outer run's variables: it ran
	 * under the outer policy, into the outer record. What this run's
	 * policy would have refused was never judged: nothing can be learned
	 * for it, and a policy learned from an empty record would be a lie.
	 */
	if (l->nested) {
		fprintf(stderr, "fa-run --learn: inside fa-run --learn: the command ran under the "
			"outer run's policy, and what it would have been refused went to the outer "
			"run's record; this run learns nothing%s\n",
			l->out ? " and writes no file" : "");
		return;
	}
	read_record(&nd, l);
	if (nd.dirs.n) {
		sug = calloc((size_t)nd.dirs.n, sizeof(*sug));
		if (sug)
			nsug = fa_suggest_roots((const char *const *)nd.dirs.v, nd.dirs.n, l->project,
						sug, nd.dirs.n);
		if (nsug < 0)
			nsug = 0;
	}
	policy_lines(&now, l, NULL, NULL, 0);
	policy_lines(&learned, l, &nd, sug, nsug);
	if (!nd.calls)
		fputs("fa-run --learn: nothing would have been denied; the policy in force "
		      "allows this run:\n", stderr);
	else
		fprintf(stderr, "fa-run --learn: %d call%s would have been denied; the narrowest "
			"policy that allows this run:\n", nd.calls, nd.calls == 1 ? "" : "s");
	if (nd.lost)
		fprintf(stderr, "fa-run --learn: %llu more would have been denied and are not in the "
			"record, which holds %u bytes: the policy below may not allow the whole run\n",
			(unsigned long long)nd.lost, FA_LEARN_MAX);
	put_policy(stderr, l, &nd, &learned, sug, nsug);
	if (nd.calls) {
		fputs("fa-run --learn: against the policy in force:\n", stderr);
		for (i = 0; i < now.n; i++)
			fprintf(stderr, "%c%s\n", has(&learned, now.v[i]) ? ' ' : '-', now.v[i]);
		for (i = 0; i < learned.n; i++)
			if (!has(&now, learned.v[i]))
				fprintf(stderr, "+%s\n", learned.v[i]);
	}
	if (l->out) {
		FILE *f = fopen(l->out, "we");
		int ok = 0;

		if (f) {
			put_policy(f, l, &nd, &learned, sug, nsug);
			ok = !ferror(f);
			ok = fclose(f) == 0 && ok;
		}
		if (ok)
			fprintf(stderr, "fa-run --learn: written to %s; use it with: fa-run --policy "
				"%s ...\n", l->out, l->out);
		else
			fprintf(stderr, "fa-run --learn: cannot write %s: %s\n", l->out,
				strerror(errno ? errno : EIO));
	}
	drop(&now);
	drop(&learned);
	drop(&nd.dirs);
	drop(&nd.execs);
	drop(&nd.undeny);
	drop(&nd.unglob);
	drop(&nd.secrets);
	drop(&nd.other);
	free(sug);
}
