/*
 * dirent.c - calls that add, remove, rename or link directory entries.
 *
 * The one-path calls are generated from symbols.def (generated.c). Rename
 * pins both parents and runs renameat2() on the two pinned directories;
 * link and symlink pin the new entry's parent and judge the source (or
 * the symlink's target) under the same policies.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "wrap.h"

FA_HIDDEN int fa_at1_mknodat(void *fa_ra, int dirfd, const char *path, mode_t mode, dev_t dev);

/*
 * The pre-2.33 names are compatibility symbols a newer libc may lack: old
 * binaries calling them get mknodat, checked like any other mknodat.
 */
int __xmknod(int ver, const char *path, mode_t mode, dev_t *dev)
{
	(void)ver;
	if (FA_GATE_OPEN())
		return FA_REAL(mknodat)(AT_FDCWD, path, mode, *dev);
	return fa_at1_mknodat(FA_RA(), AT_FDCWD, path, mode, *dev);
}

int __xmknodat(int ver, int dirfd, const char *path, mode_t mode, dev_t *dev)
{
	(void)ver;
	if (FA_GATE_OPEN())
		return FA_REAL(mknodat)(dirfd, path, mode, *dev);
	return fa_at1_mknodat(FA_RA(), dirfd, path, mode, *dev);
}

/* remove(): unlink, or rmdir when the entry is a directory, as libc does. */
int fa_remove_at(int dirfd, const char *name)
{
	if (FA_REAL(unlinkat)(dirfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return -1;
	return FA_REAL(unlinkat)(dirfd, name, AT_REMOVEDIR);
}

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static int real_renameat2(int ofd, const char *from, int nfd, const char *to, unsigned int flags)
{
	if (!flags)
		return FA_REAL(renameat)(ofd, from, nfd, to);
#ifdef HAVE_RENAMEAT2
	return FA_REAL(renameat2)(ofd, from, nfd, to, flags);
#else
	return (int)FA_REAL(syscall)(SYS_renameat2, ofd, from, nfd, to, flags);
#endif
}

/*
 * Both sides are entries that change: the source is protected like a
 * removal (a deny subtree or its ancestor cannot be moved away), the
 * destination is created, or protected too for an exchange.
 */
int fa_do_renameat2(void *ra, const char *call, int fromfd, const char *from,
		    int tofd, const char *to, unsigned int flags)
{
	struct fa_spin a, b;
	int saved = errno, rc, v;
	enum fa_op src = flags & RENAME_EXCHANGE ? FA_OP_EXCHANGE : FA_OP_RENAME;
	enum fa_op dst = flags & RENAME_EXCHANGE ? FA_OP_EXCHANGE : FA_OP_CREATE;

	if (FA_GUARDED())
		return real_renameat2(fromfd, from, tofd, to, flags);
	fa_call_approve(src, from);
	fa_tls.call_path2 = to;
	rc = fa_pin_call(call, src, fromfd, from, NULL, &a, ra);
	fa_tls.call_path2 = NULL;
	if (rc < 0) {
		fa_call_done();
		errno = -rc;
		return -1;
	}
	rc = fa_pin_call(call, dst, tofd, to, from, &b, ra);
	fa_call_done();
	if (rc < 0) {
		fa_unpin_call(&a);
		errno = -rc;
		return -1;
	}
	errno = saved;
	v = real_renameat2(a.fd, a.name, b.fd, b.name, flags);
	saved = errno;
	fa_unpin_call(&a);
	fa_unpin_call(&b);
	errno = saved;
	return v;
}

int rename(const char *from, const char *to)
{
	if (FA_GATE_OPEN())
		return fa_real_rename(from, to);
	return fa_do_renameat2(FA_RA(), "rename", AT_FDCWD, from, AT_FDCWD, to, 0);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	if (FA_GATE_OPEN())
		return fa_real_renameat(fromfd, from, tofd, to);
	return fa_do_renameat2(FA_RA(), "renameat", fromfd, from, tofd, to, 0);
}

#ifdef HAVE_RENAMEAT2
int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags)
{
	if (FA_GATE_OPEN())
		return fa_real_renameat2(fromfd, from, tofd, to, flags);
	return fa_do_renameat2(FA_RA(), "renameat2", fromfd, from, tofd, to, flags);
}
#endif

/*
 * A hard link makes the source reachable from the destination: the source
 * must resolve inside a root (the engine judges it, through /proc/self/fd
 * magic links and AT_EMPTY_PATH fds alike), the destination is created.
 */
int fa_do_linkat(void *ra, const char *call, int fromfd, const char *from,
		 int tofd, const char *to, int flags)
{
	struct fa_spin b;
	int saved = errno, rc, v;

	if (FA_GUARDED())
		return FA_REAL(linkat)(fromfd, from, tofd, to, flags);
	fa_call_approve(FA_OP_LINK, from);
	rc = fa_check2_call(call, FA_OP_LINK, fromfd, from, tofd, to, ra);
	if (rc < 0 && rc != FA_PASS) {
		fa_call_done();
		errno = -rc;
		return -1;
	}
	rc = fa_pin_call(call, FA_OP_CREATE, tofd, to, from, &b, ra);
	fa_call_done();
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	errno = saved;
	v = FA_REAL(linkat)(fromfd, from, b.fd, b.name, flags);
	saved = errno;
	fa_unpin_call(&b);
	errno = saved;
	return v;
}

int link(const char *from, const char *to)
{
	if (FA_GATE_OPEN())
		return fa_real_link(from, to);
	return fa_do_linkat(FA_RA(), "link", AT_FDCWD, from, AT_FDCWD, to, 0);
}

int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	if (FA_GATE_OPEN())
		return fa_real_linkat(fromfd, from, tofd, to, flags);
	return fa_do_linkat(FA_RA(), "linkat", fromfd, from, tofd, to, flags);
}

/* A new symlink: its parent is created into, its target must stay inside. */
int fa_do_symlinkat(void *ra, const char *call, const char *target, int dirfd,
		    const char *path)
{
	struct fa_spin s;
	struct fa_pols pp;
	struct fa_decision d;
	int saved = errno, rc, v, i;
	const fa_policy *pol[2];

	if (FA_GUARDED())
		return FA_REAL(symlinkat)(target, dirfd, path);
	fa_call_approve(FA_OP_SYMLINK, path);
	rc = fa_pin_call(call, FA_OP_CREATE, dirfd, path, target, &s, ra);
	if (rc < 0) {
		fa_call_done();
		errno = -rc;
		return -1;
	}
	if (s.pinned) {
		fa_pols_get(&pp, FA_OP_SYMLINK, path);
		pol[0] = pp.proc;
		pol[1] = pp.ctx;
		for (i = 0; i < 2; i++) {
			struct fa_event ev;

			if (!pol[i])
				continue;
			d.verdict = FA_ALLOW;
			if (fa_check_symlink_target(pol[i], &s.pin, target, &d) == FA_ALLOW)
				continue;
			fa_event_init(&ev, call, fa_op_name(FA_OP_SYMLINK), target, path, ra);
			fa_event_decision(&ev, pol[i], &d, i == 1);
			if (fa_report(&ev)) {
				fa_call_done();
				fa_unpin_call(&s);
				errno = EACCES;
				return -1;
			}
		}
	}
	fa_call_done();
	errno = saved;
	v = FA_REAL(symlinkat)(target, s.fd, s.name);
	saved = errno;
	fa_unpin_call(&s);
	errno = saved;
	return v;
}

int symlink(const char *target, const char *path)
{
	if (FA_GATE_OPEN())
		return fa_real_symlink(target, path);
	return fa_do_symlinkat(FA_RA(), "symlink", target, AT_FDCWD, path);
}

int symlinkat(const char *target, int dirfd, const char *path)
{
	if (FA_GATE_OPEN())
		return fa_real_symlinkat(target, dirfd, path);
	return fa_do_symlinkat(FA_RA(), "symlinkat", target, dirfd, path);
}
