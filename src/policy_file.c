/* SPDX-License-Identifier: Apache-2.0 */
/*
 * policy_file.c - the policy file users write and fa-run --learn writes.
 *
 * One "key value" per line; '#' starts a comment line; blank lines are
 * ignored. Keys: root, deny, deny-glob, deny-read, symlinks,
 * outside-symlinks, exec, allow-exec (fa-policy(5) documents them). Relative paths are taken from
 * the file's own directory, so a file kept in a project means the same
 * from anywhere; a deny value with a wildcard is a pattern, anchored like
 * fa-run's --deny-glob to each root. Every error names FILE:LINE:COL, the column of the word that
 * is wrong, and fails the whole file: nothing of a bad file is used.
 *
 * The engine's own names are used: fa_symlinks_parse() for the symlink
 * modes, fa_exec_mode_parse() here for the exec modes (also fa-run's and
 * the shim's).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

#define MAX_FILE (1 << 20)

static const char *const exec_names[] = {
	[FA_EXEC_ALLOW] = "allow", [FA_EXEC_DENY] = "deny", [FA_EXEC_LIST] = "list",
};

const char *fa_exec_mode_name(enum fa_exec_mode mode)
{
	return (unsigned)mode <= FA_EXEC_LIST ? exec_names[mode] : "unknown";
}

int fa_exec_mode_parse(const char *s, enum fa_exec_mode *out)
{
	unsigned i;

	for (i = 0; s && i <= FA_EXEC_LIST; i++)
		if (!strcmp(s, exec_names[i])) {
			*out = (enum fa_exec_mode)i;
			return 0;
		}
	return -EINVAL;
}

struct where {
	const char *file;
	int line;
	char *msg;
	size_t msglen;
};

static int err_at(const struct where *w, int col, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int err_at(const struct where *w, int col, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->msg && w->msglen) {
		n = w->line ? snprintf(w->msg, w->msglen, "%s:%d:%d: ", w->file, w->line, col)
			    : snprintf(w->msg, w->msglen, "%s: ", w->file);
		if (n >= 0 && (size_t)n < w->msglen) {
			va_start(ap, fmt);
			vsnprintf(w->msg + n, w->msglen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return err;
}

/* The file's path made absolute, and its directory (the base for relative paths). */
static int file_dir(const char *file, char *abs, char *dir, size_t len)
{
	char cwd[PATH_MAX];
	char *slash;

	if (file[0] == '/') {
		if (strlen(file) >= len)
			return -ENAMETOOLONG;
		strcpy(abs, file);
	} else {
		if (fa__sys_getcwd(cwd, sizeof cwd) < 0 || cwd[0] != '/')
			return -ENOENT;
		if (fa__join(cwd, strlen(cwd), file, abs, len) < 0)
			return -ENAMETOOLONG;
	}
	strcpy(dir, abs);
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return 0;
}

/* A path value: "~" as the engine expands it; relative from the file's directory. */
static int value_path(const char *v, const char *dir, char *out, size_t len)
{
	char joined[PATH_MAX];

	if (v[0] == '/' || v[0] == '~') {
		if (strlen(v) >= len)
			return -ENAMETOOLONG;
		strcpy(out, v);
		return 0;
	}
	if (fa__join(dir, strlen(dir), v, joined, sizeof joined) < 0)
		return -ENAMETOOLONG;
	return fa__fold_abs(joined, out, len) < 0 ? -ENAMETOOLONG : 0;
}

static int add_exec(struct fa_policy_file *pf, const char *v)
{
	char **na = realloc(pf->allow_exec, sizeof(char *) * (size_t)(pf->nallow_exec + 1));

	if (!na)
		return -ENOMEM;
	pf->allow_exec = na;
	na[pf->nallow_exec] = strdup(v);
	if (!na[pf->nallow_exec])
		return -ENOMEM;
	pf->nallow_exec++;
	return 0;
}

void fa_policy_file_free(struct fa_policy_file *pf)
{
	int i;

	if (!pf)
		return;
	for (i = 0; i < pf->nallow_exec; i++)
		free(pf->allow_exec[i]);
	free(pf->allow_exec);
	pf->allow_exec = NULL;
	pf->nallow_exec = 0;
}

/* One line, already cut from its comment-free text: key at col 1 + (key - line). */
static int one_line(fa_policy *p, struct fa_policy_file *pf, const struct where *w,
		    const char *line, const char *dir, int *deny_line, int *deny_col,
		    int *exec_line, int *ndeny)
{
	char key[32], path[PATH_MAX], sub[PATH_MAX + 64];
	const char *k = line, *v;
	size_t kl;
	int r, kcol, vcol;

	while (*k == ' ' || *k == '\t')
		k++;
	kcol = (int)(k - line) + 1;
	kl = strcspn(k, " \t");
	v = k + kl;
	while (*v == ' ' || *v == '\t')
		v++;
	vcol = (int)(v - line) + 1;
	if (kl >= sizeof key)
		return err_at(w, kcol, -EINVAL, "unknown key '%.31s...'", k);
	memcpy(key, k, kl);
	key[kl] = '\0';
	if (strcmp(key, "root") && strcmp(key, "deny") && strcmp(key, "deny-glob") &&
	    strcmp(key, "deny-read") && strcmp(key, "symlinks") && strcmp(key, "outside-symlinks") &&
	    strcmp(key, "exec") && strcmp(key, "allow-exec"))
		return err_at(w, kcol, -EINVAL,
			      "unknown key '%s': expected root, deny, deny-glob, deny-read, symlinks, "
			      "outside-symlinks, exec or allow-exec", key);
	if (!*v)
		return err_at(w, vcol, -EINVAL, "'%s' needs a value", key);

	if (!strcmp(key, "deny-read") || !strcmp(key, "deny-glob") ||
	    (!strcmp(key, "deny") && fa_glob_is_pattern(v))) {
		r = !strcmp(key, "deny-read") ? fa_policy_add_deny_read(p, v, sub, sizeof sub)
					      : fa_policy_add_deny_glob(p, v, sub, sizeof sub);
		if (r < 0)
			return err_at(w, vcol, r, "%s", sub);
	} else if (!strcmp(key, "root") || !strcmp(key, "deny")) {
		if (value_path(v, dir, path, sizeof path) < 0)
			return err_at(w, vcol, -ENAMETOOLONG, "path too long");
		int before = fa_policy_ndeny(p);

		r = key[0] == 'r' ? fa_policy_add_root(p, path, sub, sizeof sub)
				  : fa_policy_add_deny(p, path, sub, sizeof sub);
		if (r < 0)
			return err_at(w, vcol, r, "%s", sub);
		if (key[0] == 'r') {
			pf->nroots++;
		} else if (fa_policy_ndeny(p) > before && *ndeny < FA__MAX_DENY) {
			/* a subtree named again is the same entry: checked once, at its first line */
			deny_line[*ndeny] = w->line;
			deny_col[*ndeny] = vcol;
			(*ndeny)++;
		}
	} else if (!strcmp(key, "symlinks")) {
		enum fa_symlinks m;
		char modes[64];

		fa_symlinks_choices(modes, sizeof modes);
		if (fa_symlinks_parse(v, &m) < 0)
			return err_at(w, vcol, -EINVAL, "unknown symlink mode '%.64s': expected %s", v,
				      modes);
		if (pf->symlinks_set && m != pf->symlinks)
			return err_at(w, vcol, -EINVAL, "symlinks %s contradicts symlinks %s above: give one",
				      v, fa_symlinks_name(pf->symlinks));
		pf->symlinks_set = 1;
		pf->symlinks = m;
		fa_policy_set_symlinks(p, m);
	} else if (!strcmp(key, "outside-symlinks")) {
		if (strcmp(v, "allow"))
			return err_at(w, vcol, -EINVAL, "expected 'outside-symlinks allow'");
		fa_policy_set_outside_symlinks(p, 1);
	} else if (!strcmp(key, "exec")) {
		enum fa_exec_mode m;

		if (fa_exec_mode_parse(v, &m) < 0)
			return err_at(w, vcol, -EINVAL,
				      "unknown exec mode '%.64s': expected allow, deny or list", v);
		if (pf->exec_set && m != pf->exec)
			return err_at(w, vcol, -EINVAL, "exec %s contradicts exec %s above: give one", v,
				      fa_exec_mode_name(pf->exec));
		if (m == FA_EXEC_ALLOW && pf->nallow_exec)
			return err_at(w, vcol, -EINVAL,
				      "exec allow contradicts the allow-exec lines above: give one");
		pf->exec_set = 1;
		pf->exec = m;
		*exec_line = w->line;
	} else {
		if (pf->exec_set && pf->exec == FA_EXEC_ALLOW)
			return err_at(w, kcol, -EINVAL,
				      "allow-exec contradicts 'exec allow' on line %d: give one", *exec_line);
		/* A bare name is looked up on PATH by whoever runs the program. */
		if (strchr(v, '/') && value_path(v, dir, path, sizeof path) < 0)
			return err_at(w, vcol, -ENAMETOOLONG, "path too long");
		if (add_exec(pf, strchr(v, '/') ? path : v) < 0)
			return err_at(w, vcol, -ENOMEM, "out of memory");
	}
	return 0;
}

/* 1 if the deny subtree at index i (as the policy holds it) lies beneath a root of the file. */
static int deny_has_root(const fa_policy *p, int i)
{
	char d[PATH_MAX], r[PATH_MAX];
	ssize_t dl, rl;
	int j, missing;

	dl = fa__realpath_prefix(fa_policy_deny(p, i), d, sizeof d, &missing);
	if (dl < 0)
		return 1; /* sealing says what is wrong with it */
	for (j = 0; j < fa_policy_nroots(p); j++) {
		rl = fa__realpath_prefix(fa_policy_root(p, j), r, sizeof r, &missing);
		if (rl >= 0 && dl > rl && fa__within(d, (size_t)dl, r, (size_t)rl))
			return 1;
	}
	return 0;
}

int fa_policy_file_parse(fa_policy *p, const char *text, const char *file,
			 struct fa_policy_file *pf, char *msg, size_t msglen)
{
	char abs[PATH_MAX], dir[PATH_MAX];
	int deny_line[FA__MAX_DENY], deny_col[FA__MAX_DENY], ndeny = 0, exec_line = 0;
	int deny0 = fa_policy_ndeny(p), i, r;
	struct where w = { file, 0, msg, msglen };
	const char *s = text;

	memset(pf, 0, sizeof(*pf));
	if (msg && msglen)
		msg[0] = '\0';
	if (!file || !*file)
		file = w.file = "(policy)";
	r = file_dir(file, abs, dir, sizeof dir);
	if (r < 0)
		return err_at(&w, 0, r, "cannot find the file's directory: %s", strerror(-r));
	snprintf(pf->path, sizeof pf->path, "%s", file);
	while (*s) {
		char line[PATH_MAX + 64];
		const char *e = strchr(s, '\n'), *t;
		size_t n = e ? (size_t)(e - s) : strlen(s);

		w.line++;
		if (n >= sizeof line) {
			r = err_at(&w, 1, -EINVAL, "line too long");
			goto bad;
		}
		memcpy(line, s, n);
		line[n] = '\0';
		s += n + (e ? 1 : 0);
		if (n && line[n - 1] == '\r') {
			r = err_at(&w, (int)n, -EINVAL, "a carriage return (DOS line ends)");
			goto bad;
		}
		/* Trailing blanks are not part of a path anyone meant. */
		while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = '\0';
		for (t = line; *t == ' ' || *t == '\t'; t++)
			;
		if (!*t || *t == '#')
			continue;
		r = one_line(p, pf, &w, line, dir, deny_line, deny_col, &exec_line, &ndeny);
		if (r < 0)
			goto bad;
	}
	if (pf->nallow_exec && !pf->exec_set)
		pf->exec = FA_EXEC_LIST;
	/* A file that names its roots must hold its own deny subtrees. */
	if (pf->nroots)
		for (i = 0; i < ndeny; i++)
			if (!deny_has_root(p, deny0 + i)) {
				w.line = deny_line[i];
				r = err_at(&w, deny_col[i], -EINVAL,
					   "deny subtree %s is not inside any root of the file",
					   fa_policy_deny(p, deny0 + i));
				goto bad;
			}
	return 0;
bad:
	fa_policy_file_free(pf);
	return r;
}

int fa_policy_file_read(fa_policy *p, const char *file, struct fa_policy_file *pf,
			char *msg, size_t msglen)
{
	struct where w = { file, 0, msg, msglen };
	char *text;
	size_t have = 0;
	long n;
	int fd, r;

	memset(pf, 0, sizeof(*pf));
	fd = fa__sys_openat(AT_FDCWD, file, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return err_at(&w, 0, fd, "cannot read the policy file: %s", strerror(-fd));
	text = malloc(MAX_FILE + 1);
	if (!text) {
		fa__sys_close(fd);
		return err_at(&w, 0, -ENOMEM, "out of memory");
	}
	for (;;) {
		n = fa__sys_read(fd, text + have, MAX_FILE + 1 - have);
		if (n == -EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		if (have > MAX_FILE)
			break;
	}
	fa__sys_close(fd);
	if (n < 0) {
		free(text);
		return err_at(&w, 0, (int)n, "cannot read the policy file: %s", strerror((int)-n));
	}
	if (have > MAX_FILE) {
		free(text);
		return err_at(&w, 0, -EFBIG, "larger than %d bytes: not a policy file", MAX_FILE);
	}
	text[have] = '\0';
	if (strlen(text) != have) {
		free(text);
		return err_at(&w, 0, -EINVAL, "a NUL byte: not a policy file");
	}
	r = fa_policy_file_parse(p, text, file, pf, msg, msglen);
	free(text);
	return r;
}
