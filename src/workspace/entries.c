/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Directory-entry operations. Each one pins the parent directory through
 * the engine (which judges the operation class: a deny subtree and its
 * ancestors cannot be removed or renamed) and then runs the *at() call on
 * that pinned fd with the final name, never following a final symlink, so
 * the directory that was judged is the directory that changes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux_abi.h"	/* RENAME_NOREPLACE, RENAME_EXCHANGE */
#include "ws_internal.h"

/* renameat2 through the kernel where libc has no wrapper (musl). */
#ifndef HAVE_RENAMEAT2
#include <sys/syscall.h>
static int renameat2(int ofd, const char *from, int nfd, const char *to, unsigned flags)
{
	return (int)syscall(SYS_renameat2, ofd, from, nfd, to, flags);
}
#endif

/* A path written with a trailing slash must name a directory. */
static int slash_needs_dir(const fa_ws *ws, const char *op, const struct ws_path *wp,
			   const struct fa_pin *pin)
{
	struct stat st;

	if (!wp->slash)
		return 0;
	if (fstatat(pin->fd, pin->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return fa__ws_fail(ws, op, wp->given, errno, FA_WHY_NONE);
	if (!S_ISDIR(st.st_mode))
		return fa__ws_fail(ws, op, wp->given, ENOTDIR, FA_WHY_NONE);
	return 0;
}

/* exist_ok: 1 the entry may exist if it is a directory, 2 anything may exist */
static int mkdir_one(fa_ws *ws, const struct ws_path *wp, mode_t mode, int exist_ok)
{
	struct fa_pin pin;
	int rc, e = 0, fd;

	if ((rc = fa__ws_pin(ws, "mkdir", FA_OP_CREATE, wp, &pin)) < 0)
		return rc;
	if (mkdirat(pin.fd, pin.name, mode) < 0)
		e = errno;
	fa_unpin(&pin);
	if (!e || (e == EEXIST && exist_ok == 2))
		return 0;
	if (e != EEXIST || !exist_ok)
		return fa__ws_fail(ws, "mkdir", wp->given, e, FA_WHY_NONE);
	/* it exists: a directory, or a link to one inside, is what was asked */
	fd = fa__ws_open_final(ws, "mkdir", wp, O_PATH | O_DIRECTORY, 0);
	if (fd == -ENOTDIR)
		return fa__ws_fail(ws, "mkdir", wp->given, EEXIST, FA_WHY_NONE);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int fa_ws_mkdir(fa_ws *ws, const char *rel, mode_t mode, int parents, int exist_ok)
{
	struct ws_path wp, part;
	char *c;
	int rc;

	if ((rc = fa__ws_lex(ws, "mkdir", rel, &wp)) < 0)
		return rc;
	if (!wp.len)
		return exist_ok ? fa__ws_ok() : fa__ws_fail(ws, "mkdir", rel, EEXIST, FA_WHY_NONE);
	if (parents) {
		/* each ancestor is pinned and created beneath the root in turn */
		size_t base = strlen(wp.abs) - wp.len;

		part = wp;
		for (c = strchr(part.norm, '/'); c; c = strchr(c + 1, '/')) {
			part.len = (size_t)(c - part.norm);
			*c = 0;
			part.abs[base + part.len] = 0;
			rc = mkdir_one(ws, &part, 0777, 2);
			*c = '/';
			part.abs[base + part.len] = '/';
			if (rc < 0)
				return rc;
		}
	}
	if ((rc = mkdir_one(ws, &wp, mode, exist_ok)) < 0)
		return rc;
	return fa__ws_ok();
}

static int remove_entry(fa_ws *ws, const char *op, const char *rel, int atflags)
{
	struct ws_path wp;
	struct fa_pin pin;
	int rc;

	if ((rc = fa__ws_lex(ws, op, rel, &wp)) < 0)
		return rc;
	if (!wp.len)    /* the pinned root itself stays */
		return fa__ws_fail(ws, op, rel, atflags ? EBUSY : EISDIR, FA_WHY_NONE);
	if ((rc = fa__ws_pin(ws, op, FA_OP_REMOVE, &wp, &pin)) < 0)
		return rc;
	if (!atflags)
		rc = slash_needs_dir(ws, op, &wp, &pin);
	if (rc == 0 && unlinkat(pin.fd, pin.name, atflags) < 0)
		rc = fa__ws_fail(ws, op, rel, errno, FA_WHY_NONE);
	fa_unpin(&pin);
	return rc < 0 ? rc : fa__ws_ok();
}

int fa_ws_unlink(fa_ws *ws, const char *rel)
{
	return remove_entry(ws, "unlink", rel, 0);
}

int fa_ws_rmdir(fa_ws *ws, const char *rel)
{
	return remove_entry(ws, "rmdir", rel, AT_REMOVEDIR);
}

int fa_ws_rename(fa_ws *ws, const char *from, const char *to, unsigned flags)
{
	struct ws_path a, b;
	struct fa_pin pa, pb;
	unsigned rflags = 0;
	enum fa_op dst_op;
	int rc;

	if (flags & ~(FA_WS_NOREPLACE | FA_WS_EXCHANGE) ||
	    (flags & FA_WS_NOREPLACE && flags & FA_WS_EXCHANGE))
		return fa__ws_fail(ws, "rename", from, EINVAL, FA_WHY_NONE);
	if ((rc = fa__ws_lex(ws, "rename", from, &a)) < 0 ||
	    (rc = fa__ws_lex(ws, "rename", to, &b)) < 0)
		return rc;
	if (!a.len || !b.len)
		return fa__ws_fail(ws, "rename", a.len ? to : from, EBUSY, FA_WHY_NONE);
	if (flags & FA_WS_NOREPLACE)
		rflags = RENAME_NOREPLACE, dst_op = FA_OP_CREATE;
	else if (flags & FA_WS_EXCHANGE)
		rflags = RENAME_EXCHANGE, dst_op = FA_OP_REMOVE;
	else
		dst_op = FA_OP_REMOVE;  /* what it replaces is removed */
	if ((rc = fa__ws_pin(ws, "rename", FA_OP_REMOVE, &a, &pa)) < 0)
		return rc;
	if ((rc = fa__ws_pin(ws, "rename", dst_op, &b, &pb)) < 0) {
		fa_unpin(&pa);
		return rc;
	}
	rc = slash_needs_dir(ws, "rename", &a, &pa);
	if (rc == 0 && (flags & FA_WS_EXCHANGE))
		rc = slash_needs_dir(ws, "rename", &b, &pb);
	if (rc == 0 && renameat2(pa.fd, pa.name, pb.fd, pb.name, rflags) < 0) {
		int e = errno;

		rc = fa__ws_fail(ws, "rename", e == EEXIST || e == ENOTEMPTY ? to : from, e,
				 FA_WHY_NONE);
	}
	fa_unpin(&pb);
	fa_unpin(&pa);
	return rc < 0 ? rc : fa__ws_ok();
}

int fa_ws_link(fa_ws *ws, const char *from, const char *to)
{
	struct ws_path a, b;
	struct fa_pin pa, pb;
	int rc;

	if ((rc = fa__ws_lex(ws, "link", from, &a)) < 0 ||
	    (rc = fa__ws_lex(ws, "link", to, &b)) < 0)
		return rc;
	if (!a.len)
		return fa__ws_fail(ws, "link", from, EPERM, FA_WHY_NONE);
	if (!b.len)
		return fa__ws_fail(ws, "link", to, EEXIST, FA_WHY_NONE);
	/* the entry itself is linked: its parent is pinned, a deny subtree stays in */
	if ((rc = fa__ws_pin(ws, "link", FA_OP_CREATE, &a, &pa)) < 0)
		return rc;
	if (fa__ws_denied(ws, pa.fd, pa.name)) {
		fa_unpin(&pa);
		return fa__ws_fail(ws, "link", from, EACCES, FA_WHY_DENY_SUBTREE);
	}
	if ((rc = fa__ws_pin(ws, "link", FA_OP_CREATE, &b, &pb)) < 0) {
		fa_unpin(&pa);
		return rc;
	}
	if (b.slash)
		rc = fa__ws_fail(ws, "link", to, ENOENT, FA_WHY_NONE);
	else if (linkat(pa.fd, pa.name, pb.fd, pb.name, 0) < 0)
		rc = fa__ws_fail(ws, "link", errno == EEXIST ? to : from, errno, FA_WHY_NONE);
	fa_unpin(&pb);
	fa_unpin(&pa);
	return rc < 0 ? rc : fa__ws_ok();
}

int fa_ws_symlink(fa_ws *ws, const char *target, const char *linkrel)
{
	char joined[2 * PATH_MAX], norm[PATH_MAX];
	struct fa_decision d;
	struct ws_path wp;
	struct fa_pin pin;
	const char *slash;
	ssize_t n;
	int rc;

	if ((rc = fa__ws_lex(ws, "symlink", linkrel, &wp)) < 0)
		return rc;
	if (!wp.len || wp.slash)
		return fa__ws_fail(ws, "symlink", linkrel, EEXIST, FA_WHY_NONE);
	if (!target || !*target)
		return fa__ws_fail(ws, "symlink", linkrel, ENOENT, FA_WHY_EMPTY);
	/* Lexically first: the text of the link, read from its directory. */
	if (target[0] == '/')
		return fa__ws_fail(ws, "symlink", target, EACCES, FA_WHY_ABSOLUTE);
	slash = strrchr(wp.norm, '/');
	if (slash)
		snprintf(joined, sizeof joined, "%.*s/%s", (int)(slash - wp.norm), wp.norm, target);
	else
		snprintf(joined, sizeof joined, "%s", target);
	n = fa_lex_normalize(joined, norm, sizeof norm);
	if (n == -EXDEV)
		return fa__ws_fail(ws, "symlink", target, EACCES, FA_WHY_LINK_TARGET);
	if (n < 0)
		return fa__ws_fail(ws, "symlink", target, n == -ENAMETOOLONG ? ENAMETOOLONG : EINVAL,
				   n == -ENAMETOOLONG ? FA_WHY_TOO_LONG : FA_WHY_NONE);
	if ((rc = fa__ws_pin(ws, "symlink", FA_OP_CREATE, &wp, &pin)) < 0)
		return rc;
	/* Then by the engine, through the directory the link will live in. */
	if (fa_check_symlink_target(ws->pol, &pin, target, &d) != FA_ALLOW) {
		enum fa_why why = d.why == FA_WHY_NONE ? FA_WHY_LINK_TARGET : d.why;

		rc = fa__ws_fail(ws, "symlink", target, EACCES, why);
	} else if (symlinkat(target, pin.fd, pin.name) < 0) {
		rc = fa__ws_fail(ws, "symlink", linkrel, errno, FA_WHY_NONE);
	}
	fa_unpin(&pin);
	return rc < 0 ? rc : fa__ws_ok();
}

int fa_ws_stat(fa_ws *ws, const char *rel, struct stat *st, int follow)
{
	struct ws_path wp;
	struct fa_pin pin;
	int rc, fd;

	if ((rc = fa__ws_lex(ws, "stat", rel, &wp)) < 0)
		return rc;
	if (!wp.len || follow || wp.slash) {
		fd = fa__ws_open_final(ws, "stat", &wp, O_PATH | (wp.slash ? O_DIRECTORY : 0) |
			(follow || wp.slash ? 0 : O_NOFOLLOW), 0);
		if (fd < 0)
			return fd;
		rc = fstat(fd, st);
		close(fd);
		if (rc < 0)
			return fa__ws_fail(ws, "stat", rel, errno, FA_WHY_NONE);
		return fa__ws_ok();
	}
	if ((rc = fa__ws_pin(ws, "stat", FA_OP_CREATE, &wp, &pin)) < 0)
		return rc;
	if (fa__ws_denied(ws, pin.fd, pin.name))
		rc = fa__ws_fail(ws, "stat", rel, EACCES, FA_WHY_DENY_SUBTREE);
	else if (fstatat(pin.fd, pin.name, st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = fa__ws_fail(ws, "stat", rel, errno, FA_WHY_NONE);
	fa_unpin(&pin);
	return rc < 0 ? rc : fa__ws_ok();
}

ssize_t fa_ws_readlink(fa_ws *ws, const char *rel, char *buf, size_t len)
{
	struct ws_path wp;
	struct fa_pin pin;
	ssize_t n;
	int rc;

	if ((rc = fa__ws_lex(ws, "readlink", rel, &wp)) < 0)
		return rc;
	if (!wp.len || wp.slash)
		return fa__ws_fail(ws, "readlink", rel, EINVAL, FA_WHY_NONE);
	if ((rc = fa__ws_pin(ws, "readlink", FA_OP_CREATE, &wp, &pin)) < 0)
		return rc;
	if (fa__ws_denied(ws, pin.fd, pin.name))
		n = fa__ws_fail(ws, "readlink", rel, EACCES, FA_WHY_DENY_SUBTREE);
	else if ((n = readlinkat(pin.fd, pin.name, buf, len)) < 0)
		n = fa__ws_fail(ws, "readlink", rel, errno, FA_WHY_NONE);
	fa_unpin(&pin);
	if (n >= 0)
		fa__ws_ok();
	return n;
}

int fa_ws_listdir(fa_ws *ws, const char *rel, fa_ws_dir_cb cb, void *arg)
{
	struct ws_path wp;
	struct dirent *de;
	DIR *dir;
	int fd, rc = 0;

	if ((fd = fa__ws_lex(ws, "listdir", rel, &wp)) < 0)
		return fd;
	fd = fa__ws_open_final(ws, "listdir", &wp, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fd;
	dir = fdopendir(fd);
	if (!dir) {
		rc = fa__ws_fail(ws, "listdir", rel, errno, FA_WHY_NONE);
		close(fd);
		return rc;
	}
	fa__ws_ok();
	for (;;) {
		errno = 0;
		/* cppcheck-suppress readdirCalled ; the stream is this call's alone (readdir_r is deprecated) */
		de = readdir(dir);
		if (!de) {
			if (errno)
				rc = fa__ws_fail(ws, "listdir", rel, errno, FA_WHY_NONE);
			break;
		}
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		rc = cb(arg, de->d_name, de->d_type);
		if (rc)
			break;
	}
	closedir(dir);
	return rc;
}

struct name_list {
	char **names;
	size_t n, cap;
};

static int add_name(void *arg, const char *name, unsigned char d_type)
{
	struct name_list *l = arg;

	if (l->n + 1 >= l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char **v = realloc(l->names, cap * sizeof *v);

		if (!v)
			return -ENOMEM;
		l->names = v;
		l->cap = cap;
	}
	l->names[l->n] = strdup(name);
	if (!l->names[l->n])
		return -ENOMEM;
	l->names[++l->n] = NULL;
	return 0;
}

void fa_ws_free_names(char **names)
{
	char **p;

	if (!names)
		return;
	for (p = names; *p; p++)
		free(*p);
	free(names);
}

int fa_ws_listdir_array(fa_ws *ws, const char *rel, char ***names, size_t *count)
{
	struct name_list l = {0};
	int rc;

	*names = NULL;
	if (count)
		*count = 0;
	rc = fa_ws_listdir(ws, rel, add_name, &l);
	if (rc == 0 && !l.names) {
		l.names = calloc(1, sizeof *l.names);
		if (!l.names)
			rc = -ENOMEM;
	}
	if (rc < 0) {
		fa_ws_free_names(l.names);
		if (rc == -ENOMEM)
			return fa__ws_fail(ws, "listdir", rel, ENOMEM, FA_WHY_NONE);
		return rc;
	}
	*names = l.names;
	if (count)
		*count = l.n;
	return fa__ws_ok();
}
