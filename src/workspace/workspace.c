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

/* Symlinks followed for one final component, as the kernel's MAXSYMLINKS. */
#define WS_MAX_HOPS 40

static int fail_open(const char *root, int err, enum fa_why why, const char *msg,
		     struct fa_ws_error *out)
{
	fa__ws_fail(NULL, "open workspace", root, err, why);
	fa__ws_detail(root, msg);
	if (out)
		*out = *fa_ws_last_error();
	return -err;
}

/* Is b equal to a or beneath it, by whole components? */
static int path_within(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (n == 1 && a[0] == '/')
		return 1;
	return strncmp(a, b, n) == 0 && (b[n] == 0 || b[n] == '/');
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
	if ((unsigned)symlinks > FA_SYM_NOFOLLOW)
		return fail_open(root, EINVAL, FA_WHY_NONE, "unknown symlink mode", err);
	if (flags & ~FA_WS_PORTABLE)
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
		if (!path_within(fa_policy_root(p, 0), fa_policy_deny(p, i))) {
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

int fa__ws_pin(const fa_ws *ws, const char *op, enum fa_op fop, const struct ws_path *wp,
	       struct fa_pin *pin)
{
	struct fa_decision d;
	int rc;

	rc = fa_pin_parent(ws->pol, fop, ws->rootfd, wp->norm, pin, &d);
	if (rc < 0)
		return fa__ws_engine_fail(ws, op, wp->given, rc, &d);
	return 0;
}

/*
 * A final symlink met while opening: replace the last component of cur by
 * the link's text and normalise again, so that the next round resolves the
 * target from the root fd like any other path. An absolute or climbing
 * target leaves the root.
 */
static int splice_link(const fa_ws *ws, const char *op, const struct ws_path *wp,
		       const struct fa_pin *pin, char *cur)
{
	char target[PATH_MAX], joined[2 * PATH_MAX];
	char *slash;
	ssize_t n;

	n = readlinkat(pin->fd, pin->name, target, sizeof target - 1);
	if (n < 0)
		return -errno;
	target[n] = 0;
	if (ws->symlinks == FA_SYM_NOFOLLOW)
		return fa__ws_fail(ws, op, wp->given, EACCES, FA_WHY_SYMLINK);
	if (target[0] == '/')
		return fa__ws_fail(ws, op, wp->given, EACCES, FA_WHY_SYMLINK);
	slash = strrchr(cur, '/');
	if (slash)
		snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - cur), cur, target);
	else
		snprintf(joined, sizeof joined, "%s", target);
	n = fa_lex_normalize(joined, cur, PATH_MAX);
	if (n == -EXDEV || n == -EINVAL)
		return fa__ws_fail(ws, op, wp->given, EACCES, FA_WHY_SYMLINK);
	if (n < 0)
		return fa__ws_fail(ws, op, wp->given, (int)-n, FA_WHY_NONE);
	return 1;
}

int fa__ws_open_final(const fa_ws *ws, const char *op, const struct ws_path *wp, int flags,
		      mode_t mode)
{
	char cur[PATH_MAX];
	struct fa_pin pin;
	struct ws_path step;
	int hops, fd, rc, e;
	int follow = !(flags & O_NOFOLLOW);

	memcpy(cur, wp->norm, wp->len + 1);
	for (hops = 0;; hops++) {
		if (!cur[0]) {
			fd = openat(ws->rootfd, ".", (flags & ~O_NOFOLLOW) | O_CLOEXEC, mode);
			if (fd < 0)
				return fa__ws_fail(ws, op, wp->given, errno, FA_WHY_NONE);
			return fd;
		}
		step.given = wp->given;
		step.slash = 0;
		step.len = strlen(cur);
		memcpy(step.norm, cur, step.len + 1);
		rc = fa__ws_pin(ws, op, FA_OP_WRITE, &step, &pin);
		if (rc < 0)
			return rc;
		fd = openat(pin.fd, pin.name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
		e = errno;
		if (fd >= 0 && (flags & O_PATH) && follow) {
			struct stat st;

			/* O_PATH|O_NOFOLLOW opens the link itself rather than failing */
			if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
				close(fd);
				fd = -1;
				e = ELOOP;
			}
		}
		if (fd >= 0) {
			fa_unpin(&pin);
			return fd;
		}
		if (!follow || (e != ELOOP && e != ENOTDIR)) {
			fa_unpin(&pin);
			return fa__ws_fail(ws, op, wp->given, e, FA_WHY_NONE);
		}
		if (hops >= WS_MAX_HOPS) {
			fa_unpin(&pin);
			return fa__ws_fail(ws, op, wp->given, ELOOP, FA_WHY_NONE);
		}
		rc = splice_link(ws, op, wp, &pin, cur);
		fa_unpin(&pin);
		if (rc == -EINVAL)      /* not a symlink: the open's own error stands */
			return fa__ws_fail(ws, op, wp->given, e, FA_WHY_NONE);
		if (rc < 0)
			return rc;
	}
}

static int is_write(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) ||
	       (flags & O_TMPFILE) == O_TMPFILE;
}

int fa_ws_openat(fa_ws *ws, const char *rel, int flags, mode_t mode)
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
	if (is_write(flags)) {
		fd = fa_openat(ws->pol, ws->rootfd, wp.len ? wp.norm : ".", flags | O_CLOEXEC, mode,
			       &d);
		if (fd < 0)
			return fa__ws_engine_fail(ws, "open", rel, fd, &d);
	} else {
		fd = fa__ws_open_final(ws, "open", &wp, flags, mode);
		if (fd < 0)
			return fd;
	}
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

		if (path_within(d, child->root)) {
			fa_ws_close(child);
			return fa__ws_fail(ws, "subworkspace", rel, EACCES, FA_WHY_DENY_SUBTREE);
		}
		if (path_within(child->root, d) && nd < 64)
			deny[nd++] = d;
		else if (path_within(child->root, d))
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
