/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shim_judge.c - one call judged under every policy that applies to it.
 *
 * Two policies can apply at once: the process policy (fa-run) and the
 * audit context of the calling thread. Both must allow. The first one
 * both judges and pins (or opens), so that what is checked is what is
 * used; the second judges the pinned parent by fd, which names the same
 * directory whatever happens to the path meanwhile.
 *
 * A write-open has no pinned parent to hand to the second policy: the
 * engine opens in one step. It is opened through the narrower policy when
 * one covers the other (every root of the narrower lies inside a root of
 * the wider, clear of the wider's deny subtrees, and its symlink mode is
 * at least as strict): whatever the narrower lets that one openat2 reach,
 * the wider allows, so check = use holds for both. The common stack, a
 * context whose workspace lies inside fa-run's roots, is such a case.
 * Otherwise the context judges the path and the process policy opens it:
 * a symlink or rename swapped in between can then lead the open outside
 * the context's roots (never outside the process policy's), the one
 * check-then-use window left. Closing it needs both policies judged
 * inside the same resolution, which the engine does not offer.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "sys.h"
#include "wrap.h"

/*
 * Where the engine reaches the kernel through libc's syscall() (not on
 * x86_64 or aarch64, where it traps directly), its calls must not be
 * judged again by the syscall() wrapper.
 */
#if FA_SYS_RAW
#define ENGINE(x) (x)
#else
#define ENGINE(x) \
	(__extension__({ \
		__typeof__(x) fa_r_; \
		fa_tls.guard++; \
		fa_r_ = (x); \
		fa_tls.guard--; \
		fa_r_; \
	}))
#endif

static void event_init(struct fa_event *ev, const char *call, enum fa_op op,
		       const char *path, const char *other, void *ra)
{
	fa_event_init(ev, call,
		      fa_op_name(fa_tls.call_op ? (enum fa_op)(fa_tls.call_op - 1) : fa_host_op(op)),
		      path, other, ra);
}

/* A refusal by the engine, as opposed to an errno from the file system. */
static int refused(int rc, const struct fa_decision *d)
{
	return rc == -EACCES && d->verdict != FA_ALLOW;
}

/*
 * After a refusal: the errno the kernel would have failed the call with
 * before any permission check (order.c), given instead of a denial. A
 * rename or link is looked at whole: one of its paths alone cannot say.
 */
static int kernel_first(enum fa_op op, int dirfd, const char *path)
{
	const struct fa_whole *w = fa_tls.call_whole;

	/* Only for that call's own paths, not a signal handler's call meanwhile. */
	if (!w || (path != w->p1 && path != w->p2))
		return ENGINE(fa_kernel_first(op, dirfd, path));
	switch (w->kind) {
	case FA_WHOLE_LINK:
		return ENGINE(fa_kernel_first_link(w->fd1, w->p1, w->fd2, w->p2, (int)w->flags));
	case FA_WHOLE_UNLINK:
		return ENGINE(fa_kernel_first_unlink(w->fd1, w->p1, (int)w->flags));
	default:
		return ENGINE(fa_kernel_first_rename(w->fd1, w->p1, w->fd2, w->p2, w->flags));
	}
}

static int deny(struct fa_event *ev, const fa_policy *p, const struct fa_decision *d,
		int from_context)
{
	fa_event_decision(ev, p, d, from_context);
	return fa_report(ev);
}

static void spin_plain(struct fa_spin *s, int dirfd, const char *path)
{
	s->pinned = 0;
	s->fd = dirfd;
	s->name = path;
}

/* "dir/" stays "name/" so that the kernel still insists on a directory. */
static void spin_use_pin(struct fa_spin *s, const char *path)
{
	size_t n = strlen(path), k;

	s->pinned = 1;
	s->fd = s->pin.fd;
	s->name = s->pin.name;
	if (n == 0 || path[n - 1] != '/')
		return;
	k = strlen(s->pin.name);
	if (k == 0 || s->pin.name[k - 1] == '/' || k + 2 > sizeof(s->nbuf))
		return;
	memcpy(s->nbuf, s->pin.name, k);
	s->nbuf[k] = '/';
	s->nbuf[k + 1] = '\0';
	s->name = s->nbuf;
}

static void pin_event(struct fa_event *ev, const char *call, enum fa_op op, const char *path,
		      const char *shown1, void *ra)
{
	if (shown1) {
		event_init(ev, call, op, shown1, path, ra);
		ev->second = 1;
	} else {
		event_init(ev, call, op, path, fa_tls.call_path2, ra);
	}
}

/* The end of every helper: errno as the caller had it, or the failure. */
static int done(int saved, int rc)
{
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	errno = saved;
	return 0;
}

static int pin_call(const char *call, enum fa_op op, int dirfd, const char *path,
		    const char *shown1, struct fa_spin *s, void *ra)
{
	FA_POLS(pp);
	struct fa_decision d;
	struct fa_event ev;
	const fa_policy *first, *second;
	int rc, e;

	fa_pols_get(&pp, fa_host_op(op), path);
	if (!pp.proc && !pp.ctx)
		return 0;
	first = pp.proc ? pp.proc : pp.ctx;
	second = pp.proc ? pp.ctx : NULL;

	d.verdict = FA_ALLOW;
	rc = ENGINE(fa_pin_parent(first, op, dirfd, path, &s->pin, &d));
	if (refused(rc, &d)) {
		/* The engine has answered for this path; the whole call may say more. */
		if (fa_tls.call_whole && (e = kernel_first(op, dirfd, path)))
			return -e;
		pin_event(&ev, call, op, path, shown1, ra);
		return deny(&ev, first, &d, first == pp.ctx) ? -EACCES : 0;
	}
	if (rc < 0) {
		/* An error on this path; the whole call may fail on another first. */
		if (fa_tls.call_whole && (e = kernel_first(op, dirfd, path)))
			return -e;
		return rc;
	}
	spin_use_pin(s, path);
	if (second) {
		d.verdict = FA_ALLOW;
		if (ENGINE(fa_check(second, op, s->pin.fd, s->pin.name, &d)) != FA_ALLOW) {
			if ((e = kernel_first(op, dirfd, path))) {
				fa_unpin_call(s);
				return -e;
			}
			pin_event(&ev, call, op, path, shown1, ra);
			if (deny(&ev, second, &d, 1)) {
				fa_unpin_call(s);
				return -EACCES;
			}
		}
	}
	return 0;
}

int fa_pin_call(const char *call, enum fa_op op, int dirfd, const char *path,
		const char *shown1, struct fa_spin *s, void *ra)
{
	int saved = errno;

	fa_spin_init(s);
	spin_plain(s, dirfd, path);
	if (FA_GUARDED())
		return 0;
	return done(saved, pin_call(call, op, dirfd, path, shown1, s, ra));
}

/*
 * Under a floor that decides entry changes (env.c, fa_floor_decides_entries())
 * the process policy, when no context applies, is the floor's: the call is
 * exact as bare libc is, since it runs on the caller's own arguments, and
 * the kernel refuses what lies outside the roots.
 */
static int floor_decides(const struct fa_pols *pp)
{
	return fa_proc.floor_entries && pp->proc && !pp->ctx;
}

static int floor_decides_now(enum fa_op op, const char *path)
{
	FA_POLS(pp);

	if (!fa_proc.floor_entries || FA_GUARDED() || (op != FA_OP_CREATE && op != FA_OP_REMOVE))
		return 0;
	fa_pols_get(&pp, fa_host_op(op), path);
	return floor_decides(&pp);
}

int fa_pin_entry_call(const char *call, enum fa_op op, int dirfd, const char *path,
		      struct fa_spin *s, void *ra)
{
	if (!floor_decides_now(op, path))
		return fa_pin_call(call, op, dirfd, path, NULL, s, ra);
	fa_spin_init(s);
	spin_plain(s, dirfd, path);
	s->floor.call = call;
	s->floor.path = path;
	s->floor.ra = ra;
	s->floor.op = (int)op;
	s->floor.dirfd = dirfd;
	s->floor.whole = fa_tls.call_whole;
	s->floor.saved = errno;
	/* 0 after the call: it succeeded, and the caller's errno comes back */
	errno = 0;
	return 0;
}

/*
 * The kernel refused a call left to the floor: judged now as it would have
 * been before, for the line and the log. The engine refuses it (a denial
 * as any other, the call already undone by the kernel), or allows it: then
 * the floor alone refused, and is named. errno stays the kernel's.
 */
static void floor_explain(const struct fa_spin *s)
{
	struct fa_spin j;
	struct fa_event ev;
	int r;

	fa_spin_init(&j);
	spin_plain(&j, s->floor.dirfd, s->floor.path);
	fa_tls.call_whole = s->floor.whole;
	r = pin_call(s->floor.call, (enum fa_op)s->floor.op, s->floor.dirfd, s->floor.path, NULL,
		     &j, s->floor.ra);
	fa_tls.call_whole = NULL;
	if (r == 0) {
		event_init(&ev, s->floor.call, (enum fa_op)s->floor.op, s->floor.path, NULL,
			   s->floor.ra);
		ev.why = "floor";
		ev.text = "refused by the kernel floor (Landlock), which the policy allowed";
		(void)fa_report(&ev);
		fa_unpin_call(&j);
		r = -EACCES;
	}
	/*
	 * Landlock asks before some of the kernel's own checks (rmdir of a
	 * file is ENOTDIR only after it): the answer the call gets is the one
	 * bare libc gives, as when it is judged first.
	 */
	errno = -r;
}

void fa_unpin_after(struct fa_spin *s, int failed)
{
	if (FA_UNLIKELY(s->floor.call != NULL)) {
		if (!failed && errno == 0)
			errno = s->floor.saved;
		else if (errno == EACCES)
			floor_explain(s);
		s->floor.call = NULL;
	}
	fa_unpin_call(s);
}

void fa_unpin_call(struct fa_spin *s)
{
	int saved = errno;

	if (s->pinned)
		fa_unpin(&s->pin);
	if (s->rfd >= 0) {
		fa_fd_forget(s->rfd);
		FA_REAL(close)(s->rfd);
	}
	s->pinned = 0;
	s->rfd = -1;
	errno = saved;
}

/*
 * Does 'wide' allow everything 'narrow' can allow a write-open to reach?
 * Only roots that were resolved and pinned count: a root kept by its
 * lexical path (missing when sealed) or the live cwd root may name
 * something else by the time of the call.
 */
static int covers(const fa_policy *wide, const fa_policy *narrow)
{
	int i, j, k, nw = fa_policy_nroots(wide), nd = fa_policy_ndeny(wide);

	if (fa_policy_unrestricted(wide))
		return 1;
	/* A pattern may name something anywhere beneath a root: judged by each policy. */
	if (fa_policy_write_globs(wide))
		return 0;
	/* A learning policy lets everything through: only wide's own check stands. */
	if (fa_policy_unrestricted(narrow) || fa_policy_learning(narrow) ||
	    !fa_symlinks_as_strict(fa_policy_symlinks(narrow), fa_policy_symlinks(wide)))
		return 0;
	for (i = 0; i < fa_policy_nroots(narrow); i++) {
		const char *r = fa_policy_root(narrow, i);

		if (fa_policy_root_fd(narrow, i) < 0)
			return 0;
		for (j = 0; j < nw; j++)
			if (fa_policy_root_fd(wide, j) >= 0 && fa_path_within(r, fa_policy_root(wide, j)))
				break;
		if (j == nw)
			return 0;
		for (k = 0; k < nd; k++) {
			const char *dd = fa_policy_deny(wide, k);

			if (fa_path_within(dd, r) || fa_path_within(r, dd))
				return 0;
		}
	}
	return 1;
}

/* Built only when there is something to report: an allowed open pays nothing for it. */
static void open_event(struct fa_event *ev, const char *call, enum fa_op op, const char *path,
		       int flags, mode_t mode, void *ra)
{
	event_init(ev, call, op, path, NULL, ra);
	ev->flags = flags;
	ev->mode = fa_needs_mode(flags) ? (int)mode : -1;
}

/*
 * The policy allowed it and the kernel still said EACCES: under fa-run's
 * Landlock floor that is the floor (a device or a root the ruleset does not
 * name as the policy does). Said as such, never as the policy's refusal.
 */
static void floor_refused(const char *call, enum fa_op op, const char *path, int flags,
			  mode_t mode, const struct fa_decision *d, void *ra)
{
	struct fa_event ev;

	open_event(&ev, call, op, path, flags, mode, ra);
	ev.d = d;
	ev.why = "floor";
	ev.text = "refused by the kernel floor (Landlock), which the policy allowed";
	(void)fa_report(&ev);
}

static int open_call(const char *call, int dirfd, const char *path, int flags,
		     mode_t mode, void *ra, int *fdp)
{
	FA_POLS(pp);
	struct fa_decision d;
	struct fa_event ev;
	const fa_policy *opener;
	enum fa_op op = (flags & O_TMPFILE) == O_TMPFILE ? FA_OP_DIR : FA_OP_WRITE;
	int fd;

	fa_pols_get(&pp, op, path);
	if (!pp.proc && !pp.ctx)
		return 0;
	/*
	 * A new file under a floor that decides entry changes: made as bare
	 * libc makes it; only beneath a root may the kernel make it, so it is
	 * marked as such. Refused, it is judged below, for the message, and
	 * (the kernel having made nothing) tried once more only if allowed.
	 */
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) && !(flags & O_PATH) &&
	    (flags & O_TMPFILE) != O_TMPFILE && floor_decides(&pp)) {
		fd = fa__sys_openat(dirfd, path, flags, mode);
		if (fd != -EACCES) {
			if (fd >= 0)
				fa_fd_mark(fd);
			*fdp = fd;
			return 1;
		}
	}
	opener = pp.proc ? pp.proc : pp.ctx;
	if (pp.proc && pp.ctx && covers(pp.proc, pp.ctx)) {
		opener = pp.ctx;
	} else if (pp.proc && pp.ctx && !covers(pp.ctx, pp.proc)) {
		d.verdict = FA_ALLOW;
		if (ENGINE(fa_check(pp.ctx, op, dirfd, path, &d)) != FA_ALLOW &&
		    d.why != FA_WHY_ERROR) {
			int e = ENGINE(fa_kernel_first_open(dirfd, path, flags));

			if (e) {
				*fdp = -e;
				return 1;
			}
			open_event(&ev, call, op, path, flags, mode, ra);
			if (deny(&ev, pp.ctx, &d, 1)) {
				*fdp = -EACCES;
				return 1;
			}
		}
	}
	d.verdict = FA_ALLOW;
	fd = ENGINE(fa_openat(opener, dirfd, path, flags, mode, &d));
	if (FA_LIKELY(!refused(fd, &d))) {
		if (FA_UNLIKELY(fd == -EACCES) && fa_proc.floor)
			floor_refused(call, op, path, flags, mode, &d, ra);
		/*
		 * Judged a file inside a root by the process policy (which opened
		 * it, or covers the context that did); a device or a reopened
		 * descriptor (no root) stays judged by what it names.
		 */
		if (fd >= 0) {
			if (pp.proc && d.root >= 0 && !(flags & O_PATH))
				fa_fd_mark(fd);
			else
				fa_fd_forget(fd);
		}
		*fdp = fd;
		return 1;
	}
	open_event(&ev, call, op, path, flags, mode, ra);
	if (!deny(&ev, opener, &d, opener == pp.ctx))
		return 0;
	*fdp = -EACCES;
	return 1;
}

int fa_open_call(const char *call, int dirfd, const char *path, int flags,
		 mode_t mode, void *ra, int *fdp)
{
	int saved, fd;

	if (FA_GUARDED())
		return 0;
	saved = errno;
	if (!open_call(call, dirfd, path, flags, fa_needs_mode(flags) ? mode : 0, ra, &fd)) {
		errno = saved;
		return 0;
	}
	if (fd < 0) {
		errno = -fd;
		fd = -1;
	} else {
		errno = saved;
	}
	*fdp = fd;
	return 1;
}

/* A policy that judges reads: one with a read pattern. */
static const fa_policy *reads_of(const fa_policy *p)
{
	return p && fa_policy_read_globs(p) ? p : NULL;
}

int fa_read_call(const char *call, int dirfd, const char *path, int flags, mode_t mode,
		 void *ra, int *fdp)
{
	FA_POLS(pp);
	struct fa_decision d;
	struct fa_event ev;
	const fa_policy *opener, *other;
	int saved, fd;

	/*
	 * Listing a directory is never refused, nor an O_PATH open, which
	 * reads nothing (reopening it through /proc is an open judged again).
	 */
	if (FA_GUARDED() || (flags & (O_DIRECTORY | O_PATH)))
		return 0;
	saved = errno;
	fa_pols_get(&pp, FA_OP_READ, path);
	opener = reads_of(pp.proc) ? pp.proc : reads_of(pp.ctx);
	other = opener == pp.proc ? reads_of(pp.ctx) : NULL;
	if (!opener) {
		errno = saved;
		return 0;
	}
	/* Two policies with read patterns: the context's judged first, the open by the other. */
	if (other && ENGINE(fa_check_read(other, dirfd, path, flags, &d)) != FA_ALLOW) {
		open_event(&ev, call, FA_OP_READ, path, flags, mode, ra);
		if (deny(&ev, other, &d, 1)) {
			*fdp = -1;
			errno = EACCES;
			return 1;
		}
	}
	d.verdict = FA_ALLOW;
	fd = ENGINE(fa_read_openat(opener, dirfd, path, flags, mode, &d));
	if (refused(fd, &d)) {
		open_event(&ev, call, FA_OP_READ, path, flags, mode, ra);
		if (!deny(&ev, opener, &d, opener == pp.ctx)) {
			/* reported, not enforced: the call goes through as it was */
			errno = saved;
			return 0;
		}
	}
	if (fd >= 0) {
		fa_fd_forget(fd);
		errno = saved;
	} else {
		errno = -fd;
		fd = -1;
	}
	*fdp = fd;
	return 1;
}

int fa_reopen_call(const char *call, const char *path, int flags, struct fa_spin *s, void *ra)
{
	struct fa_buf b = { s->nbuf, 0, sizeof(s->nbuf) };
	int fd;

	fa_spin_init(s);
	s->fd = AT_FDCWD;
	s->name = path;
	if (!fa_open_call(call, AT_FDCWD, path, flags | O_CLOEXEC, 0666, ra, &fd))
		return 0;
	if (fd < 0)
		return -1;
	s->rfd = fd;
	fa_puts(&b, "/proc/self/fd/");
	fa_putu(&b, (unsigned)fd);
	s->name = s->nbuf;
	return 0;
}

static int check_call(const char *call, enum fa_op op, int dirfd, const char *path,
		      int flags, int missing_denies, void *ra)
{
	FA_POLS(pp);
	struct fa_decision d;
	struct fa_event ev;
	const fa_policy *pol[2];
	int i;

	fa_pols_get(&pp, fa_host_op(op), path);
	if (!pp.proc && !pp.ctx)
		return 0;
	pol[0] = pp.proc;
	pol[1] = pp.ctx;
	event_init(&ev, call, op, path, NULL, ra);
	ev.flags = flags;
	for (i = 0; i < 2; i++) {
		if (!pol[i])
			continue;
		d.verdict = FA_ALLOW;
		if (ENGINE(fa_check(pol[i], op, dirfd, path, &d)) == FA_ALLOW)
			continue;
		if (d.why == FA_WHY_ERROR && d.err > 0) {
			if (!missing_denies)
				return -d.err;
			d.verdict = FA_DENY;
			d.why = FA_WHY_OUTSIDE;
		} else if (!missing_denies) {
			/*
			 * flags, when given, are the open(2) flags of the call, but
			 * for the directory openat2(RESOLVE_IN_ROOT) resolves in.
			 */
			int opens = flags >= 0 && (op != FA_OP_DIR || (flags & O_TMPFILE) == O_TMPFILE);
			int e = opens ? ENGINE(fa_kernel_first_open(dirfd, path, flags))
				      : kernel_first(op, dirfd, path);

			if (e)
				return -e;
		}
		if (deny(&ev, pol[i], &d, i == 1))
			return -EACCES;
	}
	return 0;
}

int fa_check_call(const char *call, enum fa_op op, int dirfd, const char *path,
		  int flags, void *ra)
{
	int saved = errno;

	if (FA_GUARDED())
		return 0;
	return done(saved, check_call(call, op, dirfd, path, flags, 0, ra));
}

int fa_check_missing_call(const char *call, enum fa_op op, const char *path, void *ra)
{
	int saved = errno;

	if (FA_GUARDED())
		return 0;
	return done(saved, check_call(call, op, AT_FDCWD, path, -1, 1, ra));
}

static int check2_call(const char *call, enum fa_op op, int dirfd1, const char *path1,
		       int dirfd2, const char *path2, void *ra)
{
	FA_POLS(pp);
	struct fa_decision d1, d2;
	struct fa_event ev;
	const fa_policy *pol[2];
	int i, e;

	fa_pols_get(&pp, op, path1);
	if (!pp.proc && !pp.ctx)
		return 0;
	pol[0] = pp.proc;
	pol[1] = pp.ctx;
	event_init(&ev, call, op, path1, path2, ra);
	for (i = 0; i < 2; i++) {
		const struct fa_decision *bad;

		if (!pol[i])
			continue;
		d1.verdict = d2.verdict = FA_ALLOW;
		if (ENGINE(fa_check2(pol[i], op, dirfd1, path1, dirfd2, path2, &d1, &d2)) == FA_ALLOW)
			continue;
		bad = d1.verdict != FA_ALLOW ? &d1 : &d2;
		/*
		 * The kernel's answer first: after a refusal, or an error on one
		 * path where the whole call may fail on the other first.
		 */
		e = 0;
		if (bad->why != FA_WHY_ERROR || fa_tls.call_whole)
			e = bad == &d2 ? kernel_first(op, dirfd2, path2) : kernel_first(op, dirfd1, path1);
		if (e)
			return -e;
		if (bad->why == FA_WHY_ERROR && bad->err > 0)
			return -bad->err;
		ev.second = bad == &d2;
		if (deny(&ev, pol[i], bad, i == 1))
			return -EACCES;
	}
	return 0;
}

int fa_check2_call(const char *call, enum fa_op op, int dirfd1, const char *path1,
		   int dirfd2, const char *path2, void *ra)
{
	int saved = errno;

	if (FA_GUARDED())
		return 0;
	return done(saved, check2_call(call, op, dirfd1, path1, dirfd2, path2, ra));
}

/*
 * fchmod/fchown/f*xattr act on the inode an fd names; that inode's entry
 * is judged like the path call would judge it. An fd that names no entry
 * (pipe, socket, memfd, a deleted file) changes nothing a policy covers.
 * One the shim opened for writing under the process policy is judged
 * already (fd.c).
 */
int fa_fd_call(const char *call, int fd, void *ra)
{
	char path[PATH_MAX];
	ssize_t n;
	FA_POLS(pp);
	int saved = errno;

	if (FA_GUARDED())
		return 0;
	fa_pols_get(&pp, FA_OP_ATTR, NULL);
	if (!pp.proc && !pp.ctx)
		return 0;
	if (!pp.ctx && fa_fd_marked(fd))
		return 0;
	n = fa_fd_path(fd, path, sizeof(path));
	errno = saved;
	if (n <= 0 || path[0] != '/')
		return 0;
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		return 0;
	return fa_check_call(call, FA_OP_ATTR, AT_FDCWD, path, -1, ra);
}

/* A new symlink's target, judged from the pinned parent it will be made in. */
int fa_symlink_target_call(const char *call, const char *target, const char *path,
			   const struct fa_spin *s, void *ra)
{
	FA_POLS(pp);
	struct fa_decision d;
	struct fa_event ev;
	const fa_policy *pol[2];
	int i, e, saved = errno;

	fa_pols_get(&pp, FA_OP_SYMLINK, path);
	pol[0] = pp.proc;
	pol[1] = pp.ctx;
	for (i = 0; i < 2; i++) {
		if (!pol[i])
			continue;
		d.verdict = FA_ALLOW;
		if (ENGINE(fa_check_symlink_target(pol[i], &s->pin, target, &d)) == FA_ALLOW)
			continue;
		/* The kernel looks the new name up before anything asks about the target. */
		if ((e = ENGINE(fa_kernel_first(FA_OP_SYMLINK, s->fd, s->name))))
			return done(saved, -e);
		event_init(&ev, call, FA_OP_SYMLINK, target, path, ra);
		if (deny(&ev, pol[i], &d, i == 1))
			return done(saved, -EACCES);
	}
	errno = saved;
	return 0;
}

static int deny_beneath(const fa_policy *p, const char *dir)
{
	int k;

	for (k = 0; p && k < fa_policy_ndeny(p); k++)
		if (fa_path_within(fa_policy_deny(p, k), dir))
			return 1;
	/* a pattern may name something beneath any directory */
	return p && fa_policy_write_globs(p);
}

/*
 * openat2(RESOLVE_IN_ROOT): the kernel resolves the path beneath dirfd as
 * if it were "/" ('..' stops there, absolute links start there), so what
 * it can reach is dirfd's subtree. That subtree is judged as a whole: the
 * directory must be inside a root (as a directory written into), and the
 * path is judged as given only where that cannot decide: dirfd is "/"
 * (the same resolution as without the flag) or a deny subtree lies
 * beneath it.
 */
int fa_in_root_call(const char *call, enum fa_op op, int dirfd, const char *path, int flags,
		    void *ra)
{
	char dir[PATH_MAX];
	FA_POLS(pp);
	ssize_t n;
	int saved = errno;

	if (FA_GUARDED())
		return 0;
	fa_pols_get(&pp, op, path);
	if (!pp.proc && !pp.ctx)
		return 0;
	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	if (dirfd == AT_FDCWD) {
		n = readlink("/proc/self/cwd", dir, sizeof(dir) - 1);
		if (n > 0)
			dir[n] = '\0';
	} else {
		n = fa_fd_path(dirfd, dir, sizeof(dir));
	}
	errno = saved;
	if (n <= 0 || dir[0] != '/' || !strcmp(dir, "/"))
		return fa_check_call(call, op, dirfd, path, flags, ra);
	if (fa_check_call(call, FA_OP_DIR, AT_FDCWD, dir, flags, ra))
		return -1;
	if (deny_beneath(pp.proc, dir) || deny_beneath(pp.ctx, dir))
		return fa_check_call(call, op, dirfd, path, flags, ra);
	return 0;
}
