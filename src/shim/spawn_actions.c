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
 * rather than passed unread. musl keeps the same actions as a linked list
 * (src/process/fdop.h: newest first, each { next, prev, cmd, fd, srcfd,
 * oflag, mode, path[] }), read the same way and checked by the same probe.
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

#if (defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))) || \
	(defined(__linux__) && !defined(__GLIBC__))
#define FA_SPAWN_READABLE 1

enum { DO_CLOSE, DO_DUP2, DO_OPEN, DO_CHDIR, DO_FCHDIR, DO_CLOSEFROM, DO_TCSETPGRP, DO_NTAGS };

/* One action, whichever libc recorded it. */
struct action {
	int tag;
	int fd, newfd;
	const char *path;
	int oflag;
	mode_t mode;
};

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

#ifdef __GLIBC__
static int count(const posix_spawn_file_actions_t *fa)
{
	return fa->__used > 0 ? fa->__used : 0;
}

static void action_at(const posix_spawn_file_actions_t *fa, int i, struct action *out)
{
	const struct glibc_action *a = (const struct glibc_action *)fa->__actions + i;

	memset(out, 0, sizeof(*out));
	out->tag = a->tag;
	switch (a->tag) {
	case DO_CLOSE:
		out->fd = a->u.close.fd;
		break;
	case DO_DUP2:
		out->fd = a->u.dup2.fd;
		out->newfd = a->u.dup2.newfd;
		break;
	case DO_OPEN:
		out->fd = a->u.open.fd;
		out->path = a->u.open.path;
		out->oflag = a->u.open.oflag;
		out->mode = a->u.open.mode;
		break;
	case DO_CHDIR:
		out->path = a->u.chdir.path;
		break;
	case DO_FCHDIR:
		out->fd = a->u.fchdir.fd;
		break;
	case DO_CLOSEFROM:
		out->fd = a->u.closefrom.from;
		break;
	}
}
#else
struct musl_fdop {
	struct musl_fdop *next, *prev;
	int cmd, fd, srcfd, oflag;
	mode_t mode;
	char path[];
};
enum { MUSL_CLOSE = 1, MUSL_DUP2, MUSL_OPEN, MUSL_CHDIR, MUSL_FCHDIR };

static const struct musl_fdop *oldest(const posix_spawn_file_actions_t *fa, int *n)
{
	const struct musl_fdop *op = fa->__actions;

	*n = 0;
	if (!op)
		return NULL;
	for (*n = 1; op->next; op = op->next)
		++*n;
	return op;
}

static int count(const posix_spawn_file_actions_t *fa)
{
	int n;

	(void)oldest(fa, &n);
	return n;
}

/* The child runs the list from the oldest action to the newest. */
static void action_at(const posix_spawn_file_actions_t *fa, int i, struct action *out)
{
	int n;
	const struct musl_fdop *op = oldest(fa, &n);

	while (i-- > 0)
		op = op->prev;
	memset(out, 0, sizeof(*out));
	switch (op->cmd) {
	case MUSL_CLOSE:
		out->tag = DO_CLOSE;
		break;
	case MUSL_DUP2:
		out->tag = DO_DUP2;
		break;
	case MUSL_OPEN:
		out->tag = DO_OPEN;
		out->path = op->path;
		break;
	case MUSL_CHDIR:
		out->tag = DO_CHDIR;
		out->path = op->path;
		break;
	case MUSL_FCHDIR:
		out->tag = DO_FCHDIR;
		break;
	default:
		out->tag = DO_NTAGS;
	}
	out->fd = op->cmd == MUSL_DUP2 ? op->srcfd : op->fd;
	out->newfd = op->fd;
	out->oflag = op->oflag;
	out->mode = op->mode;
}
#endif

/* 1: the loaded libc lays its list out as above; -1: it does not; 0: not known yet. */
static int layout_ok;

static int probe_layout(void)
{
	posix_spawn_file_actions_t t;
	struct action a[4];
	int ok, i;

	if (posix_spawn_file_actions_init(&t))
		return -1;
	fa_tls.guard++;
	ok = !posix_spawn_file_actions_addclose(&t, 7) &&
	     !posix_spawn_file_actions_addopen(&t, 9, "/fa-probe", O_WRONLY | O_CREAT, 0640) &&
	     !posix_spawn_file_actions_adddup2(&t, 3, 4) &&
	     !posix_spawn_file_actions_addchdir_np(&t, "/fa-dir");
	fa_tls.guard--;
	ok = ok && count(&t) == 4;
	if (ok) {
		for (i = 0; i < 4; i++)
			action_at(&t, i, &a[i]);
		ok = a[0].tag == DO_CLOSE && a[0].fd == 7 &&
		     a[1].tag == DO_OPEN && a[1].fd == 9 && a[1].path &&
		     !strcmp(a[1].path, "/fa-probe") &&
		     a[1].oflag == (O_WRONLY | O_CREAT) && a[1].mode == 0640 &&
		     a[2].tag == DO_DUP2 && a[2].fd == 3 && a[2].newfd == 4 &&
		     a[3].tag == DO_CHDIR && a[3].path && !strcmp(a[3].path, "/fa-dir");
	}
	posix_spawn_file_actions_destroy(&t);
	return ok ? 1 : -1;
}

/* Did an action before index i leave fd naming something the parent does not hold? */
static int fd_changed_before(const posix_spawn_file_actions_t *fa, int i, int fd)
{
	struct action a;
	int k;

	for (k = 0; k < i; k++) {
		action_at(fa, k, &a);
		switch (a.tag) {
		case DO_CLOSE:
		case DO_OPEN:
			if (a.fd == fd)
				return 1;
			break;
		case DO_DUP2:
			if (a.newfd == fd)
				return 1;
			break;
		case DO_CLOSEFROM:
			if (fd >= a.fd)
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
static int where_step(struct where *w, const posix_spawn_file_actions_t *fa, int i,
		      const struct action *a)
{
	switch (a->tag) {
	case DO_CHDIR:
		where_chdir(w, a->path);
		return 1;
	case DO_FCHDIR:
		w->dirfd = a->fd;
		w->len = 0;
		w->lost = fd_changed_before(fa, i, w->dirfd);
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
	struct action a;
	struct where w;
	int i, n, moved = 0;

	if (!fa || !readable() || (n = count(fa)) == 0)
		return 0;
	w.dirfd = AT_FDCWD;
	w.lost = 0;
	w.len = 0;
	w.dir[0] = '\0';
	for (i = 0; i < n; i++) {
		action_at(fa, i, &a);
		moved |= where_step(&w, fa, i, &a);
	}
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
	struct action a;
	FA_POLS(pp);
	struct where w;
	int i, nact;

	if (!fa || (nact = count(fa)) == 0)
		return 0;
	fa_pols_get(&pp, FA_OP_WRITE, NULL);
	if (!pp.proc && !pp.ctx)
		return 0;
	if (!readable())
		return refuse(call, "(file actions)", -1, "spawn-actions-unreadable",
			      "this libc's posix_spawn file actions cannot be read, so their opens cannot be judged",
			      ra);
	w.dirfd = AT_FDCWD;
	w.lost = 0;
	w.len = 0;
	for (i = 0; i < nact; i++) {
		const char *path;
		enum fa_op op;
		int dirfd;

		action_at(fa, i, &a);
		if (where_step(&w, fa, i, &a))
			continue;
		switch (a.tag) {
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
		path = a.path;
		if (!fa_is_write(a.oflag) || !path)
			continue;
		op = (a.oflag & O_TMPFILE) == O_TMPFILE ? FA_OP_DIR : FA_OP_WRITE;
		dirfd = AT_FDCWD;
		if (path[0] != '/') {
			if (w.lost)
				return refuse(call, path, a.oflag, "spawn-actions-cwd",
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
		if (fa_check_call(call, op, dirfd, path, a.oflag, ra) < 0)
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
