/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A workspace: a sealed engine policy with exactly one root, whose pinned
 * O_PATH fd is the start of every lookup.
 *
 * Each operation runs in two steps. The lexical step (fa_lex_normalize)
 * refuses what no file system state can make valid: absolute paths and '..'
 * above the root. The kernel step hands the normalised path to the engine,
 * which resolves it beneath the root fd (openat2 RESOLVE_BENEATH, or its
 * O_NOFOLLOW walk) and returns either the opened file or the pinned parent
 * directory; the operation then runs on that fd. Nothing here resolves a
 * path component by itself except a final symlink, which is read and fed
 * back to the engine as a new path beneath the same root.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ws_internal.h"

static int fail_open(const char *root, int err, enum fa_why why, const char *msg,
		     struct fa_ws_error *out)
{
	fa__ws_fail(NULL, "open workspace", root, err, why);
	fa__ws_detail(root, msg);
	if (out)
		*out = *fa_ws_last_error();
	return -err;
}

static int ws_build(const char *root, const char *const *deny, enum fa_symlinks symlinks,
		    unsigned flags, fa_ws **out, struct fa_ws_error *err)
{
	char msg[256] = "";
	char joined[PATH_MAX];
	fa_policy *p;
	fa_ws *ws;
	int rc, i;

	*out = NULL;
	if (!root || !*root)
		return fail_open(root, ENOENT, FA_WHY_EMPTY, "no root directory given", err);
	if ((unsigned)symlinks >= FA_SYM_NMODES)
		return fail_open(root, EINVAL, FA_WHY_NONE, "unknown symlink mode", err);
	if (flags & ~(FA_WS_PORTABLE | FA_WS_NO_XDEV))
		return fail_open(root, EINVAL, FA_WHY_NONE, "unknown workspace flags", err);
	p = fa_policy_new();
	if (!p)
		return fail_open(root, ENOMEM, FA_WHY_NONE, "out of memory", err);
	rc = fa_policy_add_root(p, root, msg, sizeof msg);
	for (i = 0; rc == 0 && deny && deny[i]; i++) {
		const char *d = deny[i];

		if (!*d) {
			rc = -EINVAL;
			snprintf(msg, sizeof msg, "empty deny path");
		} else if (d[0] != '/') {
			/* relative deny paths name something inside the root */
			if (snprintf(joined, sizeof joined, "%s/%s", root, d) >= (int)sizeof joined) {
				rc = -ENAMETOOLONG;
				snprintf(msg, sizeof msg, "deny path too long");
			} else {
				rc = fa_policy_add_deny(p, joined, msg, sizeof msg);
			}
		} else {
			rc = fa_policy_add_deny(p, d, msg, sizeof msg);
		}
	}
	if (rc == 0) {
		fa_policy_set_symlinks(p, symlinks);
		rc = fa_policy_seal(p, 1, msg, sizeof msg);
	}
	if (rc == 0 && (fa_policy_nroots(p) != 1 || fa_policy_root_fd(p, 0) < 0)) {
		rc = -ENOTDIR;
		snprintf(msg, sizeof msg, "the root is not a usable directory");
	}
	/* A deny subtree outside the root could never match: the caller erred. */
	for (i = 0; rc == 0 && i < fa_policy_ndeny(p); i++) {
		if (!fa_path_within(fa_policy_deny(p, i), fa_policy_root(p, 0))) {
			rc = -EINVAL;
			snprintf(msg, sizeof msg, "deny path '%s' is not inside the root",
				 fa_policy_deny(p, i));
		}
	}
	if (rc < 0) {
		fa_policy_free(p);
		return fail_open(root, -rc, FA_WHY_NONE, msg, err);
	}
	ws = calloc(1, sizeof *ws);
	if (!ws) {
		fa_policy_free(p);
		return fail_open(root, ENOMEM, FA_WHY_NONE, "out of memory", err);
	}
	ws->pol = p;
	ws->rootfd = fa_policy_root_fd(p, 0);
	ws->root = fa_policy_root(p, 0);
	ws->flags = flags;
	ws->symlinks = symlinks;
	*out = ws;
	return fa__ws_ok();
}

int fa_ws_open(const char *root, const char *const *deny, enum fa_symlinks symlinks,
	       unsigned flags, fa_ws **out, struct fa_ws_error *err)
{
	int rc = ws_build(root, deny, symlinks, flags, out, err);

	if (rc == 0 && err)
		memset(err, 0, sizeof *err);
	return rc;
}

void fa_ws_close(fa_ws *ws)
{
	if (!ws)
		return;
	fa_policy_free(ws->pol);
	free(ws);
}

const char *fa_ws_root(const fa_ws *ws)
{
	return ws->root;
}

int fa_ws_root_fd(const fa_ws *ws)
{
	return ws->rootfd;
}

enum fa_symlinks fa_ws_symlinks(const fa_ws *ws)
{
	return ws->symlinks;
}

unsigned fa_ws_flags(const fa_ws *ws)
{
	return ws->flags;
}

void fa_ws_force_fallback(int on)
{
	fa_resolve_force_fallback(on);
}

int fa_ws_uses_openat2(void)
{
	return fa_resolve_uses_openat2();
}

/* ---- the lexical step -------------------------------------------------- */

static int names_dir(const char *rel, size_t n)
{
	if (rel[n - 1] == '/')
		return 1;
	if (strcmp(rel, ".") == 0 || strcmp(rel, "..") == 0)
		return 1;
	if (n >= 2 && strcmp(rel + n - 2, "/.") == 0)
		return 1;
	return n >= 3 && strcmp(rel + n - 3, "/..") == 0;
}

int fa__ws_lex(const fa_ws *ws, const char *op, const char *rel, struct ws_path *wp)
{
	ssize_t r;
	size_t n;

	wp->given = rel ? rel : "";
	wp->slash = 0;
	wp->len = 0;
	wp->norm[0] = 0;
	wp->abs[0] = 0;
	if (!rel || !*rel)
		return fa__ws_fail(ws, op, "", ENOENT, FA_WHY_EMPTY);
	if (rel[0] == '/')
		return fa__ws_fail(ws, op, rel, EACCES, FA_WHY_ABSOLUTE);
	n = strnlen(rel, PATH_MAX);
	if (n >= PATH_MAX)
		return fa__ws_fail(ws, op, rel, ENAMETOOLONG, FA_WHY_TOO_LONG);
	wp->slash = names_dir(rel, n);
	r = fa_lex_normalize(rel, wp->norm, sizeof wp->norm);
	if (r == -EXDEV)
		return fa__ws_fail(ws, op, rel, EACCES, FA_WHY_ESCAPES);
	if (r == -EINVAL)
		return fa__ws_fail(ws, op, rel, EACCES, FA_WHY_ABSOLUTE);
	if (r == -ENAMETOOLONG)
		return fa__ws_fail(ws, op, rel, ENAMETOOLONG, FA_WHY_TOO_LONG);
	if (r < 0)
		return fa__ws_fail(ws, op, rel, (int)-r, FA_WHY_ERROR);
	wp->len = (size_t)r;
	{
		/* root + "/" + norm, on every call: no printf machinery here */
		size_t rl = strlen(ws->root), sep = r && !(rl == 1 && ws->root[0] == '/');

		if (rl + sep + (size_t)r >= sizeof wp->abs)
			return fa__ws_fail(ws, op, rel, ENAMETOOLONG, FA_WHY_TOO_LONG);
		memcpy(wp->abs, ws->root, rl);
		wp->abs[rl] = '/';
		memcpy(wp->abs + rl + sep, wp->norm, (size_t)r + 1);
	}
	if (ws->flags & FA_WS_PORTABLE) {
		const char *c = wp->norm, *e;

		while (*c) {
			e = strchrnul(c, '/');
			if (!fa_name_portable(c, (size_t)(e - c)))
				return fa__ws_fail(ws, op, rel, EACCES, FA_WHY_PORTABLE);
			c = *e ? e + 1 : e;
		}
	}
	return 0;
}

/* ---- the kernel step --------------------------------------------------- */

/*
 * The engine is given the absolute form root + norm: it recognises the root
 * by its string and resolves the rest beneath the root's pinned fd, so a
 * root renamed meanwhile is still the directory used (and no readlink of a
 * dirfd is needed to find out where a lookup starts).
 */
int fa__ws_pin(const fa_ws *ws, const char *op, enum fa_op fop, const struct ws_path *wp,
	       struct fa_pin *pin)
{
	struct fa_decision d;
	int rc;

	rc = fa_pin_parent_how(ws->pol, fop, AT_FDCWD, wp->abs, fa__ws_how(ws), pin, &d);
	if (rc < 0)
		return fa__ws_engine_fail(ws, op, wp->given, rc, &d);
	if (pin->fd == AT_FDCWD) {
		/* the strict engine pins a directory of the root, never the cwd */
		fa_unpin(pin);
		return fa__ws_fail(ws, op, wp->given, EACCES, FA_WHY_OUTSIDE);
	}
	return 0;
}

/*
 * 1 if what fd names (or its entry 'name', when given) lies in a deny
 * subtree, judged on the real path the kernel reports for the fd.
 */
int fa__ws_denied(const fa_ws *ws, int fd, const char *name)
{
	char real[PATH_MAX];
	ssize_t n;
	int i;

	if (!fa_policy_ndeny(ws->pol))
		return 0;
	n = fa_fd_path(fd, real, sizeof real);
	if (n < 0)
		return 1;
	if (name && (n = fa_path_join(real, (size_t)n, name, real, sizeof real)) < 0)
		return 1;
	for (i = 0; i < fa_policy_ndeny(ws->pol); i++) {
		const char *d = fa_policy_deny(ws->pol, i);

		if (fa_path_within(real, d))
			return 1;
	}
	return 0;
}

/*
 * Every open, reads and O_PATH included, is judged and performed by the
 * engine in one step: one openat2 beneath the root fd in the common case,
 * deny subtrees judged on the path, and nothing outside the root opened,
 * not even a device or a FIFO to see what it is.
 */
int fa__ws_open_final(const fa_ws *ws, const char *op, const struct ws_path *wp, int flags,
		      mode_t mode)
{
	struct fa_decision d;
	int fd;

	fd = fa_openat_how(ws->pol, AT_FDCWD, wp->abs, flags | O_CLOEXEC, mode, fa__ws_how(ws), &d);
	if (fd < 0)
		return fa__ws_engine_fail(ws, op, wp->given, fd, &d);
	if (d.root < 0) {
		/* only an object inside the root may come back */
		close(fd);
		return fa__ws_fail(ws, op, wp->given, EACCES, FA_WHY_OUTSIDE);
	}
	return fd;
}

int fa_ws_openat(fa_ws *ws, const char *rel, int flags, mode_t mode)
{
	struct ws_path wp;
	int fd;

	if ((fd = fa__ws_lex(ws, "open", rel, &wp)) < 0)
		return fd;
	if (wp.slash && (flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE)
		return fa__ws_fail(ws, "open", rel, EISDIR, FA_WHY_NONE);
	if (wp.slash)
		flags |= O_DIRECTORY;
	fd = fa__ws_open_final(ws, "open", &wp, flags, mode);
	if (fd >= 0)
		fa__ws_ok();
	return fd;
}

int fa_ws_openat_bypath(fa_ws *ws, const char *rel, int flags, mode_t mode)
{
	struct fa_decision d;
	struct ws_path wp;
	int fd;

	if ((fd = fa__ws_lex(ws, "open", rel, &wp)) < 0)
		return fd;
	if (wp.slash && (flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE)
		return fa__ws_fail(ws, "open", rel, EISDIR, FA_WHY_NONE);
	if (wp.slash)
		flags |= O_DIRECTORY;
	fd = fa_openat_how(ws->pol, AT_FDCWD, wp.abs, flags | O_CLOEXEC, mode,
			   fa__ws_how(ws) | FA_HOW_BY_PATH, &d);
	if (fd == -EAGAIN) {
		fa__ws_ok();
		errno = EAGAIN;
		return fd;
	}
	if (fd < 0)
		return fa__ws_engine_fail(ws, "open", rel, fd, &d);
	fa__ws_ok();
	return fd;
}

/* ---- sub-workspaces ---------------------------------------------------- */

static int same_dir(const fa_ws *child, const struct stat *pinned)
{
	struct stat st;

	return fstat(child->rootfd, &st) == 0 && st.st_dev == pinned->st_dev &&
	       st.st_ino == pinned->st_ino;
}

int fa_ws_sub(fa_ws *ws, const char *rel, fa_ws **out)
{
	const char *deny[64 + 1];
	char childroot[PATH_MAX];
	struct stat pinned;
	struct ws_path wp;
	fa_ws *child, *denied;
	int fd, rc, i, nd = 0;

	*out = NULL;
	if ((rc = fa__ws_lex(ws, "subworkspace", rel, &wp)) < 0)
		return rc;
	fd = fa__ws_open_final(ws, "subworkspace", &wp, O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	rc = fstat(fd, &pinned);
	close(fd);
	if (rc < 0)
		return fa__ws_fail(ws, "subworkspace", rel, errno, FA_WHY_NONE);
	if (snprintf(childroot, sizeof childroot, "%s/%s", ws->root, wp.norm) >=
	    (int)sizeof childroot)
		return fa__ws_fail(ws, "subworkspace", rel, ENAMETOOLONG, FA_WHY_TOO_LONG);
	rc = ws_build(childroot, NULL, ws->symlinks, ws->flags, &child, NULL);
	if (rc < 0)
		return fa__ws_fail(ws, "subworkspace", rel, -rc, FA_WHY_NONE);
	/*
	 * The child was sealed by path; it composes with the parent only if
	 * that path still names the directory resolved beneath the parent.
	 */
	if (!same_dir(child, &pinned)) {
		fa_ws_close(child);
		return fa__ws_fail(ws, "subworkspace", rel, EACCES, FA_WHY_ESCAPES);
	}
	for (i = 0; i < fa_policy_ndeny(ws->pol); i++) {
		const char *d = fa_policy_deny(ws->pol, i);

		if (fa_path_within(child->root, d)) {
			fa_ws_close(child);
			return fa__ws_fail(ws, "subworkspace", rel, EACCES, FA_WHY_DENY_SUBTREE);
		}
		if (fa_path_within(d, child->root) && nd < 64)
			deny[nd++] = d;
		else if (fa_path_within(d, child->root))
			rc = -E2BIG;
	}
	deny[nd] = NULL;
	if (nd && rc == 0) {
		rc = ws_build(child->root, deny, ws->symlinks, ws->flags, &denied, NULL);
		if (rc == 0 && !same_dir(denied, &pinned)) {
			fa_ws_close(denied);
			rc = -EAGAIN;
		}
		if (rc == 0) {
			fa_ws_close(child);
			child = denied;
		}
	}
	if (rc < 0) {
		fa_ws_close(child);
		return fa__ws_fail(ws, "subworkspace", rel, -rc, FA_WHY_NONE);
	}
	*out = child;
	return fa__ws_ok();
}
