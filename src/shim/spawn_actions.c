/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spawn_actions.c - the opens a posix_spawn file-actions list asks for.
 *
 * posix_spawn_file_actions_addopen() records an open that glibc performs
 * in the child, through its internal open, before the exec: no wrapper
 * ever sees it. The spawn wrappers therefore read the list and judge
 * every write-class open in it before anything is started. The list's
 * entries are glibc-private (posix/spawn_int.h): a tag, then a union whose
 * open member is { int fd; char *path; int oflag; mode_t mode; }. Tags
 * have only ever been appended (close, dup2, open; chdir and fchdir in
 * 2.29; closefrom in 2.34; tcsetpgrp in 2.35). The layout is taken from
 * the headers of the glibc built against and checked once at run time
 * against the glibc actually loaded; when it does not match, or an entry
 * has a tag this file does not know, a list is refused under a policy
 * rather than passed unread.
 *
 * The judgement is made in the parent just before the spawn: the child's
 * open can still race with a rename in between (no check = use here).
 * Relative paths are resolved as the child will: against the parent's
 * cwd, or against what earlier chdir/fchdir actions in the list select;
 * so is the program itself, which the child execs after the whole list.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "wrap.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
#define FA_SPAWN_READABLE 1

enum { DO_CLOSE, DO_DUP2, DO_OPEN, DO_CHDIR, DO_FCHDIR, DO_CLOSEFROM, DO_TCSETPGRP, DO_NTAGS };

struct glibc_action {
	int tag;
	union {
		struct {
			int fd;
		} close;
		struct {
			int fd, newfd;
		} dup2;
		struct {
			int fd;
			char *path;
			int oflag;
			mode_t mode;
		} open;
		struct {
			char *path;
		} chdir;
		struct {
			int fd;
		} fchdir;
		struct {
			int from;
		} closefrom;
	} u;
};

/* 1: the loaded glibc lays its list out as above; -1: it does not; 0: not known yet. */
static int layout_ok;

static int probe_layout(void)
{
	posix_spawn_file_actions_t t;
	const struct glibc_action *a;
	int ok;

	if (posix_spawn_file_actions_init(&t))
		return -1;
	fa_tls.guard++;
	ok = !posix_spawn_file_actions_addclose(&t, 7) &&
	     !posix_spawn_file_actions_addopen(&t, 9, "/fa-probe", O_WRONLY | O_CREAT, 0640) &&
	     !posix_spawn_file_actions_adddup2(&t, 3, 4) &&
	     !posix_spawn_file_actions_addchdir_np(&t, "/fa-dir");
	fa_tls.guard--;
	a = (const struct glibc_action *)t.__actions;
	ok = ok && t.__used == 4 &&
	     a[0].tag == DO_CLOSE && a[0].u.close.fd == 7 &&
	     a[1].tag == DO_OPEN && a[1].u.open.fd == 9 && a[1].u.open.path &&
	     !strcmp(a[1].u.open.path, "/fa-probe") &&
	     a[1].u.open.oflag == (O_WRONLY | O_CREAT) && a[1].u.open.mode == 0640 &&
	     a[2].tag == DO_DUP2 && a[2].u.dup2.fd == 3 && a[2].u.dup2.newfd == 4 &&
	     a[3].tag == DO_CHDIR && a[3].u.chdir.path && !strcmp(a[3].u.chdir.path, "/fa-dir");
	posix_spawn_file_actions_destroy(&t);
	return ok ? 1 : -1;
}

/* Did an action before index i leave fd naming something the parent does not hold? */
static int fd_changed_before(const struct glibc_action *a, int i, int fd)
{
	int k;

	for (k = 0; k < i; k++) {
		switch (a[k].tag) {
		case DO_CLOSE:
			if (a[k].u.close.fd == fd)
				return 1;
			break;
		case DO_DUP2:
			if (a[k].u.dup2.newfd == fd)
				return 1;
			break;
		case DO_OPEN:
			if (a[k].u.open.fd == fd)
				return 1;
			break;
		case DO_CLOSEFROM:
			if (fd >= a[k].u.closefrom.from)
				return 1;
			break;
		}
	}
	return 0;
}

/* The child's working directory so far: dir, relative to dirfd ("" = dirfd itself). */
struct where {
	int dirfd;
	int lost;               /* an fchdir to an fd made by the list itself, or too long */
	size_t len;
	char dir[PATH_MAX];
};

static void where_chdir(struct where *w, const char *path)
{
	size_t n = strlen(path);

	if (path[0] == '/') {
		w->dirfd = AT_FDCWD;
		w->len = 0;
	}
	if (w->len + n + 2 > sizeof(w->dir)) {
		w->lost = 1;
		return;
	}
	if (w->len && w->dir[w->len - 1] != '/')
		w->dir[w->len++] = '/';
	memcpy(w->dir + w->len, path, n + 1);
	w->len += n;
}

/* Apply action i if it changes directory; 1 if it did. */
static int where_step(struct where *w, const struct glibc_action *a, int i)
{
	switch (a[i].tag) {
	case DO_CHDIR:
		where_chdir(w, a[i].u.chdir.path);
		return 1;
	case DO_FCHDIR:
		w->dirfd = a[i].u.fchdir.fd;
		w->len = 0;
		w->lost = fd_changed_before(a, i, w->dirfd);
		return 1;
	default:
		return 0;
	}
}

static int readable(void)
{
	int ok = __atomic_load_n(&layout_ok, __ATOMIC_ACQUIRE);

	if (!ok) {
		ok = probe_layout();
		__atomic_store_n(&layout_ok, ok, __ATOMIC_RELEASE);
	}
	return ok > 0;
}

int fa_spawn_actions_cwd(const posix_spawn_file_actions_t *fa, int *dirfd, char *dir, size_t len)
{
	const struct glibc_action *a;
	struct where w;
	int i, moved = 0;

	if (!fa || fa->__used <= 0 || !readable())
		return 0;
	a = (const struct glibc_action *)fa->__actions;
	w.dirfd = AT_FDCWD;
	w.lost = 0;
	w.len = 0;
	w.dir[0] = '\0';
	for (i = 0; i < fa->__used; i++)
		moved |= where_step(&w, a, i);
	if (!moved)
		return 0;
	if (w.lost || w.len + 1 > len)
		return -1;
	*dirfd = w.dirfd;
	memcpy(dir, w.dir, w.len + 1);
	return 1;
}

static int refuse(const char *call, const char *path, int flags, const char *why,
		  const char *text, void *ra)
{
	FA_POLS(pp);
	struct fa_event ev;

	fa_pols_get(&pp, FA_OP_WRITE, NULL);
	fa_event_init(&ev, call, fa_op_name(FA_OP_WRITE), path, NULL, ra);
	ev.flags = flags;
	ev.why = why;
	ev.text = text;
	ev.policy = pp.proc ? pp.proc : pp.ctx;
	ev.from_context = !pp.proc;
	return fa_report(&ev) ? -EACCES : 0;
}

int fa_spawn_actions_check(const char *call, const posix_spawn_file_actions_t *fa, void *ra)
{
	char full[PATH_MAX];
	const struct glibc_action *a;
	FA_POLS(pp);
	struct where w;
	int i;

	if (!fa || fa->__used <= 0)
		return 0;
	fa_pols_get(&pp, FA_OP_WRITE, NULL);
	if (!pp.proc && !pp.ctx)
		return 0;
	if (!readable())
		return refuse(call, "(file actions)", -1, "spawn-actions-unreadable",
			      "this libc's posix_spawn file actions cannot be read, so their opens cannot be judged",
			      ra);
	a = (const struct glibc_action *)fa->__actions;
	w.dirfd = AT_FDCWD;
	w.lost = 0;
	w.len = 0;
	for (i = 0; i < fa->__used; i++) {
		const char *path;
		enum fa_op op;
		int dirfd;

		if (where_step(&w, a, i))
			continue;
		switch (a[i].tag) {
		case DO_CLOSE:
		case DO_DUP2:
		case DO_CLOSEFROM:
		case DO_TCSETPGRP:
			continue;
		case DO_OPEN:
			break;
		default:
			return refuse(call, "(file actions)", -1, "spawn-actions-unreadable",
				      "a posix_spawn file action of a kind this guard does not know",
				      ra);
		}
		path = a[i].u.open.path;
		if (!fa_is_write(a[i].u.open.oflag) || !path)
			continue;
		op = (a[i].u.open.oflag & O_TMPFILE) == O_TMPFILE ? FA_OP_DIR : FA_OP_WRITE;
		dirfd = AT_FDCWD;
		if (path[0] != '/') {
			if (w.lost)
				return refuse(call, path, a[i].u.open.oflag, "spawn-actions-cwd",
					      "opened relative to a directory the file actions themselves set up, which cannot be judged before the spawn",
					      ra);
			dirfd = w.dirfd;
			if (w.len) {
				size_t n = strlen(path);

				if (w.len + n + 2 > sizeof(full))
					return -ENAMETOOLONG;
				memcpy(full, w.dir, w.len);
				full[w.len] = '/';
				memcpy(full + w.len + 1, path, n + 1);
				path = full;
			}
		}
		if (fa_check_call(call, op, dirfd, path, a[i].u.open.oflag, ra) < 0)
			return -errno;
	}
	return 0;
}
#else
int fa_spawn_actions_cwd(const posix_spawn_file_actions_t *fa, int *dirfd, char *dir, size_t len)
{
	(void)fa, (void)dirfd, (void)dir, (void)len;
	return 0;
}

/* Another libc: the list cannot be read, so under a policy it is refused. */
int fa_spawn_actions_check(const char *call, const posix_spawn_file_actions_t *fa, void *ra)
{
	FA_POLS(pp);
	struct fa_event ev;

	if (!fa)
		return 0;
	fa_pols_get(&pp, FA_OP_WRITE, NULL);
	if (!pp.proc && !pp.ctx)
		return 0;
	fa_event_init(&ev, call, fa_op_name(FA_OP_WRITE), "(file actions)", NULL, ra);
	ev.why = "spawn-actions-unreadable";
	ev.text = "this libc's posix_spawn file actions cannot be read, so their opens cannot be judged";
	ev.policy = pp.proc ? pp.proc : pp.ctx;
	ev.from_context = !pp.proc;
	return fa_report(&ev) ? -EACCES : 0;
}
#endif
