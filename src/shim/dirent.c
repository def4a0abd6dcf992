/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dirent.c - calls that add, remove, rename or link directory entries.
 *
 * Every wrapper here is generated from symbols.def (generated.c): the
 * one-path calls as AT1 lines, the two-path calls as VIA lines of the
 * entry points below, which syscall() shares. Rename
 * pins both parents and runs renameat2() on the two pinned directories;
 * link and symlink pin the new entry's parent and judge the source (or
 * the symlink's target) under the same policies.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "linux_abi.h"	/* RENAME_EXCHANGE */
#include "wrap.h"

/*
 * A directory removed: a dirfd that names it must not be taken for the
 * name any longer (a new directory may be made there), so the engine's
 * copies are read again, as after a rename.
 */
int fa_rmdir_at(int dirfd, const char *name)
{
	int rc = FA_REAL(unlinkat)(dirfd, name, AT_REMOVEDIR);

	if (rc == 0)
		fa_cwd_changed();
	return rc;
}

/*
 * remove(): unlink, or rmdir when the entry is a directory, as libc does,
 * errno included: glibc leaves EISDIR behind a directory removed, musl
 * (raw system calls) leaves errno alone.
 */
int fa_remove_at(int dirfd, const char *name)
{
	int saved = errno;

	if (FA_REAL(unlinkat)(dirfd, name, 0) == 0)
		return 0;
	if (errno != EISDIR)
		return -1;
#ifdef __GLIBC__
	(void)saved;
#else
	errno = saved;
#endif
	return fa_rmdir_at(dirfd, name);
}

/*
 * unlink and rmdir are one operation to the engine; the kernel tells them
 * apart before it asks for permission (unlink of "dir/" is EISDIR), so
 * the call is kept whole for the answer after a refusal.
 */
int fa_do_unlinkat(void *ra, const char *call, int dirfd, const char *path, int flags)
{
	struct fa_spin s;
	struct fa_whole whole = { FA_WHOLE_UNLINK, dirfd, -1, path, NULL, (unsigned)flags };
	int rc;

	fa_tls.call_whole = &whole;
	rc = fa_pin_entry_call(call, FA_OP_REMOVE, dirfd, path, &s, ra);
	fa_tls.call_whole = NULL;
	if (rc < 0)
		return -1;
	rc = flags == AT_REMOVEDIR ? fa_rmdir_at(s.fd, s.name) : FA_REAL(unlinkat)(s.fd, s.name, flags);
	fa_unpin_after(&s, rc < 0);
	return rc;
}

static int real_renameat2(int ofd, const char *from, int nfd, const char *to, unsigned int flags)
{
	if (!flags)
		return FA_REAL(renameat)(ofd, from, nfd, to);
#if defined(HAVE_RENAMEAT2)
	return FA_REAL(renameat2)(ofd, from, nfd, to, flags);
#elif defined(SYS_renameat2)
	return (int)FA_REAL(syscall)(SYS_renameat2, ofd, from, nfd, to, flags);
#else
	errno = EINVAL;	/* no rename flags in this kernel */
	return -1;
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
	struct fa_whole whole = { FA_WHOLE_RENAME, fromfd, tofd, from, to, flags };
	int rc;
	enum fa_op src = flags & RENAME_EXCHANGE ? FA_OP_EXCHANGE : FA_OP_RENAME;
	enum fa_op dst = flags & RENAME_EXCHANGE ? FA_OP_EXCHANGE : FA_OP_REPLACE;

	fa_call_approve(src, from);
	fa_tls.call_path2 = to;
	fa_tls.call_whole = &whole;
	rc = fa_pin_call(call, src, fromfd, from, NULL, &a, ra);
	fa_tls.call_path2 = NULL;
	if (rc == 0 && fa_pin_call(call, dst, tofd, to, from, &b, ra) < 0) {
		fa_unpin_call(&a);
		rc = -1;
	}
	fa_tls.call_whole = NULL;
	fa_call_done();
	if (rc < 0)
		return -1;
	rc = real_renameat2(a.fd, a.name, b.fd, b.name, flags);
	/* after the move too: what was proved of the old names is stale */
	if (rc == 0)
		fa_cwd_changed();
	fa_unpin_call(&a);
	fa_unpin_call(&b);
	return rc;
}

/*
 * A hard link makes the source reachable from the destination: the source
 * must resolve inside a root (the engine judges it, through /proc/self/fd
 * magic links and AT_EMPTY_PATH fds alike), the destination is created.
 */
int fa_do_linkat(void *ra, const char *call, int fromfd, const char *from,
		 int tofd, const char *to, int flags)
{
	struct fa_spin b;
	struct fa_whole whole = { FA_WHOLE_LINK, fromfd, tofd, from, to, (unsigned)flags };
	int rc;

	fa_call_approve(FA_OP_LINK, from);
	fa_tls.call_whole = &whole;
	rc = fa_check2_call(call, FA_OP_LINK, fromfd, from, tofd, to, ra);
	if (rc == 0)
		rc = fa_pin_call(call, FA_OP_CREATE, tofd, to, from, &b, ra);
	fa_tls.call_whole = NULL;
	fa_call_done();
	if (rc < 0)
		return -1;
	rc = FA_REAL(linkat)(fromfd, from, b.fd, b.name, flags);
	if (rc == 0)
		fa_link_made();	/* of a symlink, it is one more */
	fa_unpin_call(&b);
	return rc;
}

/*
 * A new symlink: its parent is created into, its target must stay inside.
 * The kernel reads the target's text before it looks at anything else:
 * an empty or overlong one fails whatever the new name is.
 */
int fa_do_symlinkat(void *ra, const char *call, const char *target, int dirfd,
		    const char *path)
{
	struct fa_spin s;
	int rc;

	fa_call_approve(FA_OP_SYMLINK, path);
	if (target && (!*target || strnlen(target, PATH_MAX) == PATH_MAX)) {
		fa_call_done();
		errno = *target ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	/*
	 * Only mkdir makes "name/": the kernel answers a symlink by such a name
	 * with EEXIST or ENOENT and makes nothing, so it answers first here.
	 */
	if (path && *path && path[strnlen(path, PATH_MAX) - 1] == '/') {
		fa_call_done();
		return FA_REAL(symlinkat)(target, dirfd, path);
	}
	rc = fa_pin_call(call, FA_OP_CREATE, dirfd, path, target, &s, ra);
	if (rc == 0 && s.pinned && fa_symlink_target_call(call, target, path, &s, ra) < 0) {
		fa_unpin_call(&s);
		rc = -1;
	}
	fa_call_done();
	if (rc < 0)
		return -1;
	rc = FA_REAL(symlinkat)(target, s.fd, s.name);
	if (rc == 0)
		fa_link_made();
	fa_unpin_call(&s);
	return rc;
}

