/* SPDX-License-Identifier: Apache-2.0 */
/*
 * denial.c - the text and JSON forms of a denial (see denial.h).
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stddef.h>
#include <string.h>

#include "denial.h"
#include "sys.h"

#define F(name, kind, member) \
	{ name, "\"" name "\":", sizeof("\"" name "\":") - 1, kind, \
	  offsetof(struct fa_denial_view, member) }

const struct fa_denial_field fa_denial_fields[] = {
	F("time", FA_FIELD_TIME, when),
	F("seq", FA_FIELD_U64, seq),
	F("pid", FA_FIELD_INT, pid),
	F("tid", FA_FIELD_INT, tid),
	F("call", FA_FIELD_STR, call),
	F("op", FA_FIELD_STR, op),
	F("path", FA_FIELD_PATH, path),
	F("resolved", FA_FIELD_PATH, resolved),
	F("path2", FA_FIELD_PATH, path2),
	F("resolved2", FA_FIELD_PATH, resolved2),
	F("flags", FA_FIELD_FLAGS, flags),
	F("mode", FA_FIELD_MODE, mode),
	F("rule", FA_FIELD_STR, rule),
	F("reason", FA_FIELD_STR, reason),
	F("policy", FA_FIELD_POLICY, from_context),
	F("enforced", FA_FIELD_BOOL, enforced),
	F("caller", FA_FIELD_PATH, caller),
	F("roots", FA_FIELD_ROOTS, roots),
	F("fix", FA_FIELD_STR, fix),
	F("approved_by", FA_FIELD_STR, approved_by),
};

const int fa_denial_nfields = (int)(sizeof(fa_denial_fields) / sizeof(fa_denial_fields[0]));

const char *fa_denial_root(const struct fa_denial_view *v, int i, const char **at)
{
	const char *r;

	if (v->policy)
		return i < fa_policy_nroots(v->policy) ? fa_policy_root(v->policy, i) : NULL;
	r = *at ? *at : v->roots;
	if (!r || !*r)
		return NULL;
	*at = r + strlen(r) + 1;
	return r;
}

#define AT(v, f, type) (*(type const *)((const char *)(v) + (f)->off))

void fa_put_oflags(struct fa_buf *b, int flags)
{
	static const struct {
		int bit;
		const char *name;
	} names[] = {
		{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_TRUNC, "O_TRUNC" },
		{ O_APPEND, "O_APPEND" }, { O_NOFOLLOW, "O_NOFOLLOW" }, { O_CLOEXEC, "O_CLOEXEC" },
		{ O_NONBLOCK, "O_NONBLOCK" }, { O_NOCTTY, "O_NOCTTY" }, { O_SYNC, "O_SYNC" },
	};
	size_t i;

	if ((flags & O_TMPFILE) == O_TMPFILE) {
		fa_puts(b, (flags & O_ACCMODE) == O_RDWR ? "O_RDWR|O_TMPFILE" : "O_WRONLY|O_TMPFILE");
		flags &= ~O_TMPFILE;
	} else {
		fa_puts(b, (flags & O_ACCMODE) == O_RDWR ? "O_RDWR" :
			   (flags & O_ACCMODE) == O_WRONLY ? "O_WRONLY" : "O_RDONLY");
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if ((flags & names[i].bit) == names[i].bit) {
			fa_putc(b, '|');
			fa_puts(b, names[i].name);
		}
	}
}

static void put2(struct fa_buf *b, unsigned v)
{
	char t[2] = { (char)('0' + v / 10 % 10), (char)('0' + v % 10) };

	fa_putn(b, t, 2);
}

void fa_put_time(struct fa_buf *b, const struct timespec *ts)
{
	long long days = ts->tv_sec / 86400, secs = ts->tv_sec % 86400;
	long long z, era, y;
	unsigned doe, yoe, doy, mp, d, m;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	/* Howard Hinnant's civil_from_days. */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = (long long)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;

	fa_putu(b, (unsigned long long)(y + (m <= 2)));
	fa_putc(b, '-');
	put2(b, m);
	fa_putc(b, '-');
	put2(b, d);
	fa_putc(b, 'T');
	put2(b, (unsigned)(secs / 3600));
	fa_putc(b, ':');
	put2(b, (unsigned)(secs / 60 % 60));
	fa_putc(b, ':');
	put2(b, (unsigned)(secs % 60));
	fa_putc(b, '.');
	fa_putc(b, (char)('0' + ts->tv_nsec / 100000000 % 10));
	put2(b, (unsigned)(ts->tv_nsec / 1000000 % 100));
	fa_putc(b, 'Z');
}

int fa_denial_field_text(struct fa_buf *b, const struct fa_denial_view *v,
			 const struct fa_denial_field *f)
{
	switch (f->kind) {
	case FA_FIELD_TIME:
		fa_put_time(b, &v->when);
		return 1;
	case FA_FIELD_FLAGS:
		if (AT(v, f, int) == -1)
			return 0;
		fa_put_oflags(b, AT(v, f, int));
		return 1;
	case FA_FIELD_MODE:
		if (AT(v, f, int) == -1)
			return 0;
		fa_puto(b, (unsigned)AT(v, f, int));
		return 1;
	case FA_FIELD_POLICY:
		fa_puts(b, AT(v, f, int) ? "context" : "process");
		return 1;
	default:
		return 0;
	}
}

void fa_denial_json(struct fa_buf *b, const struct fa_denial_view *v)
{
	int i;

	fa_putc(b, '{');
	for (i = 0; i < fa_denial_nfields; i++) {
		const struct fa_denial_field *f = &fa_denial_fields[i];

		if (i)
			fa_putc(b, ',');
		fa_putn(b, f->key, f->keylen);
		switch (f->kind) {
		case FA_FIELD_STR:
		case FA_FIELD_PATH:
			fa_put_json(b, AT(v, f, const char *));
			break;
		case FA_FIELD_U64:
			fa_putu(b, AT(v, f, uint64_t));
			break;
		case FA_FIELD_INT:
			if (AT(v, f, int) < 0)
				fa_putc(b, '-');
			fa_putu(b, AT(v, f, int) < 0 ? -(unsigned long long)AT(v, f, int) :
				    (unsigned long long)AT(v, f, int));
			break;
		case FA_FIELD_BOOL:
			fa_puts(b, AT(v, f, int) ? "true" : "false");
			break;
		case FA_FIELD_ROOTS: {
			const char *r, *at = NULL;
			int k;

			if (!FA_DENIAL_HAS_ROOTS(v)) {
				fa_puts(b, "null");
				break;
			}
			fa_putc(b, '[');
			for (k = 0; (r = fa_denial_root(v, k, &at)); k++) {
				if (k)
					fa_putc(b, ',');
				fa_put_json(b, r);
			}
			fa_putc(b, ']');
			break;
		}
		default:
			/* These texts are plain ASCII: no escape needed. */
			if ((f->kind == FA_FIELD_FLAGS || f->kind == FA_FIELD_MODE) &&
			    AT(v, f, int) == -1) {
				fa_puts(b, "null");
				break;
			}
			fa_putc(b, '"');
			fa_denial_field_text(b, v, f);
			fa_putc(b, '"');
			break;
		}
	}
	fa_putc(b, '}');
}

static void put_quoted(struct fa_buf *b, const char *s)
{
	fa_putc(b, '"');
	fa_put_shown(b, s ? s : "");
	fa_putc(b, '"');
}

static void put_roots(struct fa_buf *b, const struct fa_denial_view *v)
{
	const char *r, *at = NULL;
	int i;

	fa_puts(b, " (roots:");
	for (i = 0; (r = fa_denial_root(v, i, &at)); i++) {
		fa_putc(b, ' ');
		fa_put_shown(b, r);
	}
	if (!i)
		fa_puts(b, " none");
	fa_putc(b, ')');
}

void fa_denial_text(struct fa_buf *b, const struct fa_denial_view *v)
{
	const char *judged = v->resolved2 ? v->resolved2 : v->resolved;

	fa_puts(b, v->from_context ? "fastaudit: " : "fa-run: ");
	fa_puts(b, v->enforced ? "denied " : "would deny ");
	fa_put_shown(b, v->call);
	fa_putc(b, '(');
	put_quoted(b, v->path);
	if (v->path2) {
		fa_puts(b, ", ");
		put_quoted(b, v->path2);
	}
	if (v->flags != -1) {
		fa_puts(b, ", ");
		fa_put_oflags(b, v->flags);
	}
	if (v->mode != -1) {
		fa_puts(b, ", ");
		fa_puto(b, (unsigned)v->mode);
	}
	fa_puts(b, "): ");
	if (judged) {
		fa_put_shown(b, judged);
		fa_puts(b, ": ");
	}
	fa_put_shown(b, v->reason ? v->reason : "denied");
	if (FA_DENIAL_HAS_ROOTS(v))
		put_roots(b, v);
	if (v->rule || v->from_context) {
		fa_puts(b, " [");
		if (v->rule)
			fa_put_shown(b, v->rule);
		if (v->rule && v->from_context)
			fa_puts(b, ", ");
		if (v->from_context)
			fa_puts(b, "audit context");
		fa_putc(b, ']');
	}
	if (v->fix) {
		fa_puts(b, "; to allow: ");
		fa_put_shown(b, v->fix);
	}
}

/* ---- the fix ---- */

/* path begins with the directory dir (dir itself or beneath it) */
static int beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n] || (n == 1 && dir[0] == '/'));
}

/* The deny subtree of the policy that holds path, or NULL. */
static const char *deny_of(const struct fa_denial_view *v, const char *path)
{
	int i;

	if (!v->policy || !path)
		return NULL;
	for (i = 0; i < fa_policy_ndeny(v->policy); i++)
		if (beneath(path, fa_policy_deny(v->policy, i)) ||
		    beneath(fa_policy_deny(v->policy, i), path))
			return fa_policy_deny(v->policy, i);
	return NULL;
}

/* fa_place_holder() for a path whose parent is known to be a directory. */
static int parent_dir(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (path[0] != '/' || n == 0 || n >= len)
		return 0;
	memcpy(out, path, n);
	out[n] = '\0';
	return 1;
}

/*
 * A directory judged as itself (a temporary file opened in it, a chdir into
 * it): where only / holds it (/tmp, /srv), the directory itself is the
 * root that allows it.
 */
static int top_dir_itself(const struct fa_denial_view *v, const char *judged, char *out,
			  size_t len)
{
	size_t n;

	if (!v->op || (strcmp(v->op, "dir") && strcmp(v->op, "chdir")))
		return 0;
	n = strlen(judged);
	if (judged[0] != '/' || n < 2 || n >= len || strchr(judged + 1, '/'))
		return 0;
	memcpy(out, judged, n + 1);
	return 1;
}

static void put_root_fix(struct fa_buf *b, const struct fa_denial_view *v, const char *judged)
{
	char dir[PATH_MAX];
	const char *why;

	if (!judged || !((v->held ? parent_dir(judged, dir, sizeof(dir)) :
			  fa_place_holder(judged, dir, sizeof(dir))) ||
			 top_dir_itself(v, judged, dir, sizeof(dir)))) {
		fa_puts(b, "nothing short of / holds it: allow no such write");
		return;
	}
	why = fa_place_sensitive(dir, NULL);
	if (why) {
		fa_puts(b, "think twice: ");
		fa_puts(b, dir);
		fa_puts(b, " is a sensitive place (");
		fa_puts(b, why);
		fa_puts(b, "); if the write is really meant, ");
	}
	if (v->from_context) {
		fa_puts(b, "add ");
		fa_puts(b, dir);
		fa_puts(b, " to mk_audit([...])'s roots");
	} else {
		fa_puts(b, "add -w ");
		fa_puts(b, dir);
		fa_puts(b, " to fa-run");
	}
}

/*
 * Which pattern refused, and the one way to allow it: a pattern is the
 * run's or the host's, set before the code ran; nothing inside can widen it.
 */
static void put_glob_fix(struct fa_buf *b, const struct fa_denial_view *v, const char *judged,
			 int read)
{
	int g = judged && v->policy ? fa_policy_glob_for(v->policy, judged, read, 1) : -1;
	const char *pat = g >= 0 ? fa_policy_glob(v->policy, g, NULL) : NULL;

	fa_puts(b, read ? "the read-deny pattern " : "the deny pattern ");
	if (pat) {
		fa_putc(b, '\'');
		fa_puts(b, pat);
		fa_puts(b, "' ");
	}
	fa_puts(b, "names ");
	fa_puts(b, judged ? judged : "it");
	if (v->from_context) {
		fa_puts(b, read ? ": drop it from mk_audit(deny_read=[...])"
				: ": drop it from mk_audit(deny=[...])");
	} else {
		fa_puts(b, read ? ": remove --deny-read " : ": remove --deny-glob ");
		if (pat) {
			fa_putc(b, '\'');
			fa_puts(b, pat);
			fa_putc(b, '\'');
		}
		fa_puts(b, read ? " (or the policy file's deny-read line) from fa-run"
				: " (or the policy file's deny line) from fa-run");
	}
	fa_puts(b, "; nothing inside the run can widen it");
}

static int rule_is(const struct fa_denial_view *v, const char *name)
{
	return v->rule && !strcmp(v->rule, name);
}

int fa_denial_fix(struct fa_buf *b, const struct fa_denial_view *v)
{
	const char *judged = v->resolved2 ? v->resolved2 : v->resolved, *d, *base;
	size_t start = b->len;

	if (rule_is(v, "outside-roots") || rule_is(v, "no-roots")) {
		put_root_fix(b, v, judged);
	} else if (rule_is(v, "deny-subtree") || rule_is(v, "protects-deny")) {
		d = deny_of(v, judged);
		fa_puts(b, "a deny subtree covers it");
		if (d) {
			fa_puts(b, " (");
			fa_puts(b, d);
			fa_putc(b, ')');
		}
		fa_puts(b, v->from_context ? ": drop it from the context's deny list" :
					     ": drop that --deny from fa-run");
	} else if (rule_is(v, "deny-pattern") || rule_is(v, "deny-read")) {
		put_glob_fix(b, v, judged, rule_is(v, "deny-read"));
	} else if (rule_is(v, "link-target") && v->op && !strcmp(v->op, "link")) {
		/* A hard link is the source's own inode: only a root that holds the source allows it. */
		put_root_fix(b, v, judged);
	} else if (rule_is(v, "link-target")) {
		fa_puts(b, v->from_context ? "pass allow_outside_symlinks=True to mk_audit()" :
					     "add --allow-outside-symlinks to fa-run");
	} else if (rule_is(v, "symlink")) {
		fa_puts(b, v->from_context ? "pass symlinks='trust' to mk_audit(), or write to "
					     "where the link leads" :
					     "use --symlinks=trust, or write to where the link leads");
	} else if (rule_is(v, "exec-denied") || rule_is(v, "exec-not-listed")) {
		base = v->resolved ? v->resolved : v->path;
		fa_puts(b, "exec is denied: add --allow-exec ");
		fa_puts(b, base ? base : "PROG");
		fa_puts(b, " to fa-run");
	} else if (rule_is(v, "exec-in-context")) {
		fa_puts(b, "exec is denied in the audit context: approve it from the host "
			   "(before_deny returning True, or a tool started through track_call)");
	} else if (rule_is(v, "floor")) {
		fa_puts(b, "the kernel floor refused what the policy allows: fa-run --landlock=off");
	}
	return b->len > start;
}

/* The record's fields and the view's, paired: one list for both directions. */
#define SCALARS(X) X(seq) X(when) X(pid) X(tid) X(from_context) X(enforced) X(flags) X(mode)
/* record field, view field, bit in 'cut' (-1: a name of the project's own, which fits) */
#define STRINGS(X) \
	X(call, call, -1) X(op, op, -1) X(why, rule, -1) \
	X(reason, reason, FA_DENIAL_CUT_REASON) X(path, path, FA_DENIAL_CUT_PATH) \
	X(resolved, resolved, FA_DENIAL_CUT_RESOLVED) X(path2, path2, FA_DENIAL_CUT_PATH2) \
	X(resolved2, resolved2, FA_DENIAL_CUT_RESOLVED2) X(caller, caller, FA_DENIAL_CUT_CALLER) \
	X(fix, fix, FA_DENIAL_CUT_FIX)

static const char *present(const char *s)
{
	return s[0] ? s : NULL;
}

void fa_denial_view_of(struct fa_denial_view *v, const struct fa_denial *d)
{
	memset(v, 0, sizeof(*v));
#define S(f) v->f = d->f;
#define T(rf, vf, bit) v->vf = present(d->rf);
	SCALARS(S)
	STRINGS(T)
#undef S
#undef T
	v->roots = d->has_roots ? d->roots : NULL;
}

static void store(char *dst, size_t n, const char *src, uint32_t *cut, int bit)
{
	size_t k = src ? strlen(src) : 0;

	if (k >= n) {
		k = n - 1;
		if (bit >= 0)
			*cut |= 1u << bit;
	}
	memcpy(dst, src ? src : "", k);
	dst[k] = '\0';
}

/* Each root and its NUL, then an empty string; 0 when the view has no roots. */
static int store_roots(char *dst, size_t n, const struct fa_denial_view *v, uint32_t *cut)
{
	const char *r, *at = NULL;
	size_t used = 0, k;
	int i;

	if (!FA_DENIAL_HAS_ROOTS(v))
		return 0;
	for (i = 0; (r = fa_denial_root(v, i, &at)); i++) {
		k = strlen(r) + 1;
		if (used + k + 1 > n) {
			*cut |= 1u << FA_DENIAL_CUT_ROOTS;
			break;
		}
		memcpy(dst + used, r, k);
		used += k;
	}
	dst[used] = '\0';
	return 1;
}

void fa_denial_record(struct fa_denial *d, const struct fa_denial_view *v)
{
	d->cut = 0;
#define S(f) d->f = v->f;
#define T(rf, vf, bit) store(d->rf, sizeof(d->rf), v->vf, &d->cut, bit);
	SCALARS(S)
	STRINGS(T)
#undef S
#undef T
	d->has_roots = store_roots(d->roots, sizeof(d->roots), v, &d->cut);
}

static void load(char *dst, const char *src, size_t n)
{
	size_t k = strnlen(src, n - 1);

	memcpy(dst, src, k);
	dst[k] = '\0';
}

void fa_denial_copy(struct fa_denial *o, const struct fa_denial *d)
{
	size_t k = 0;

	memcpy(o, d, offsetof(struct fa_denial, call));
#define T(rf, vf, bit) load(o->rf, d->rf, sizeof(o->rf));
	STRINGS(T)
#undef T
	/* the list of roots up to its final empty string */
	while (k + 1 < sizeof(d->roots) && (d->roots[k] || (k && d->roots[k - 1])))
		k++;
	memcpy(o->roots, d->roots, k);
	o->roots[k] = '\0';
}
