/* SPDX-License-Identifier: Apache-2.0 */
/*
 * reads.c - read-opens judged by the read patterns.
 *
 * Roots never restrict reading; a read pattern does ("~/.ssh/id_rsa",
 * "**" then ".env"), opt in. The file a read-open would reach is found
 * by one resolution, an O_PATH open of the path as the caller gave it,
 * whose real name (/proc/self/fd) is what the patterns are matched
 * against: "a/../.env" and a symlinked directory name the file they
 * lead to. The open itself then goes through that very descriptor, so a
 * link swapped in between reaches nothing new. A directory is never
 * refused: listing one shows names, not contents; nor is an O_PATH open,
 * which reads nothing.
 *
 * The common case needs less: the path made absolute (the cwd and a
 * dirfd's name are kept by cwd_cache.c and dirfd_cache.c) and folded is
 * matched as it is, and when no pattern names it, opened as that very
 * string with no symlink allowed on the way (openat2): a success proves
 * the string was the file's real name, a link on the way (ELOOP) sends
 * the call to the resolution above.
 *
 * A policy with no read pattern never gets here: the shim and the hook
 * look at the count first.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "engine_internal.h"

/*
 * Judge the object (dirfd, path) resolves to. *fdp: its O_PATH fd, or
 * -errno when it does not resolve (allowed: the open fails by itself).
 */
static enum fa_verdict judge_read(const fa_policy *p, int dirfd, const char *path, int flags,
				  struct fa_decision *d, int *fdp)
{
	struct fa__jctx c;
	ssize_t n;
	int fd, how, type;

	*fdp = -1;
	fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
	d->found = -1;
	d->path[0] = 0;
	if (!fa__policy_ok(p)) {
		fa__decide(d, FA_REJECT, FA_WHY_ERROR, -1, EINVAL);
		return FA_REJECT;
	}
	if (!path) {
		fa__decide(d, FA_REJECT, FA_WHY_EMPTY, -1, EFAULT);
		return FA_REJECT;
	}
	fd = fa__sys_openat(dirfd, path, O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW), 0);
	*fdp = fd;
	if (fd < 0)
		return FA_ALLOW;
	n = fa__fd_path(fd, d->path, sizeof d->path);
	if (n < 0 || d->path[0] != '/') {
		/* No name to match: refused rather than guessed (no /proc, a deleted file). */
		if (n >= 0 || fa__sys_type(fd, "", 0) != S_IFDIR) {
			fa__decide(d, FA_DENY, FA_WHY_ERROR, -1, n < 0 ? (int)-n : ENOENT);
			return FA_DENY;
		}
		return FA_ALLOW;
	}
	fa__jctx_init(&c, p, 0);
	c.cached = 1;
	if (fa__glob_find(&c, d->path, (size_t)n, 1, 0, FA__GLOB_ROOT_UNKNOWN, 0, &how) < 0)
		return FA_ALLOW;
	type = fa__sys_type(fd, "", 0);
	if (type == S_IFDIR)
		return FA_ALLOW;
	fa__decide(d, FA_DENY, FA_WHY_DENY_READ, fa__find_root(&c, d->path, (size_t)n, NULL), 0);
	return FA_DENY;
}

enum fa_verdict fa_check_read(const fa_policy *p, int dirfd, const char *path, int flags,
			      struct fa_decision *d)
{
	enum fa_verdict v;
	int fd;

	if (p && p->magic == FA__POLICY_MAGIC && p->sealed && (!p->rglobs || (flags & O_PATH))) {
		fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
		d->found = -1;
		d->path[0] = 0;
		return FA_ALLOW;
	}
	v = judge_read(p, dirfd, path, flags, d, &fd);
	if (fd >= 0)
		fa__sys_close(fd);
	return v;
}

/*
 * The open as the caller's string, folded, when no pattern names it and
 * no link is on its way: an fd or the kernel's -errno; 1 when the full
 * resolution must decide.
 */
static int open_named(const fa_policy *p, int dirfd, const char *path, int flags, mode_t mode,
		      struct fa_decision *d)
{
	char abs[PATH_MAX];
	struct fa__jctx c;
	enum fa_why why;
	ssize_t n;
	size_t len;
	int how, fd;

	if (!path || !*path || !fa__openat2_usable())
		return 1;
	fa__jctx_init(&c, p, 0);
	c.cached = 1;
	c.by_name = 1;	/* opened by the name: a dirfd's is read from the kernel */
	n = fa__absolute(&c, dirfd, path, abs, sizeof abs, &why);
	if (n < 0)
		return 1;
	len = (size_t)n;
	if (fa__scan_abs_len(abs, len)) {
		n = fa__fold_abs(abs, d->path, sizeof d->path);
		if (n < 0)
			return 1;
		len = (size_t)n;
	} else {
		memcpy(d->path, abs, len + 1);
	}
	if (fa__glob_find(&c, d->path, len, 1, 0, FA__GLOB_ROOT_UNKNOWN, 0, &how) >= 0)
		return 1;
	fd = fa__open_openat2(AT_FDCWD, d->path, flags, mode,
			      RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd == -ELOOP || fd == -EXDEV || fd == -EAGAIN || fd == -ENOSYS || fd == -EINVAL ||
	    fd == -EPERM)
		return 1;
	return fd;
}

int fa_read_openat(const fa_policy *p, int dirfd, const char *path, int flags, mode_t mode,
		   struct fa_decision *d)
{
	char proc[32] = "/proc/self/fd/";
	int fd, r;

	if (!p || p->magic != FA__POLICY_MAGIC || !p->rglobs || (flags & (O_DIRECTORY | O_PATH))) {
		fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
		d->path[0] = 0;
		return fa__sys_openat(dirfd, path, flags, mode);
	}
	if (!fa__policy_ok(p) || !path) {
		fa__decide(d, FA_REJECT, path ? FA_WHY_ERROR : FA_WHY_EMPTY, -1, EINVAL);
		return -EFAULT;
	}
	fa__decide(d, FA_ALLOW, FA_WHY_NONE, -1, 0);
	d->found = -1;
	r = open_named(p, dirfd, path, flags, mode, d);
	if (r != 1)
		return r;
	if (judge_read(p, dirfd, path, flags, d, &fd) != FA_ALLOW) {
		if (fd >= 0)
			fa__sys_close(fd);
		return -EACCES;
	}
	if (fd < 0)
		return fd;	/* the open would fail the same way */
	/* A final link not to be followed: the open's own answer. */
	if ((flags & O_NOFOLLOW) && fa__sys_type(fd, "", 0) == S_IFLNK) {
		fa__sys_close(fd);
		return -ELOOP;
	}
	fa__utoa((unsigned long)fd, proc + 14);
	r = fa__sys_openat(AT_FDCWD, proc, flags & ~O_NOFOLLOW, mode);
	fa__sys_close(fd);
	return r;
}
