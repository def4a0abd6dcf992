/*
 * syscall.c - syscall(2) for the file and exec syscalls.
 *
 * A program (or a runtime) that calls syscall(SYS_openat, ...) through
 * libc gets the same judgement as the libc function; the numbers are
 * routed to the same internal entry points; chdir and fchdir by number
 * are told to the engine's cwd cache like the libc calls (cwd.c). Inline
 * system call instructions and io_uring remain out of reach of any
 * preload.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef HAVE_LINUX_OPENAT2_H
#include <linux/openat2.h>
#endif

#include "wrap.h"

#define FA_DECL_AT1(name, ret, params) FA_HIDDEN ret fa_at1_##name FA_PREPEND_RA params;
#define FA_DECL_HAND(name, ret, params)
#define FA_SYM(name, ret, fail, params, args, shape, ...) FA_DECL_##shape(name, ret, params)
#include "symbols.def"
#undef FA_SYM

#define S(i) ((const char *)a[i])
#define I(i) ((int)a[i])

/* A write-open by number: judged and opened by the engine, or passed on. */
static long open_nr(void *ra, const char *call, int dirfd, const char *path, int flags,
		    mode_t mode, long nr, const long *a)
{
	int fd = fa_do_openat(ra, call, dirfd, path, flags, mode);

	if (fd != FA_PASS)
		return fd;
	return FA_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static long fdattr_nr(void *ra, const char *call, long nr, const long *a)
{
	if (fa_do_fdattr(ra, call, I(0)) < 0)
		return -1;
	return FA_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* A change of directory by number: the engine's cwd copy is held off meanwhile (cwd.c). */
static long cwd_nr(long nr, const long *a)
{
	long r;
	int e;

	if (!fa_cwd_cache_enabled())
		return FA_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	fa_cwd_hold();
	r = FA_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	e = errno;
	fa_cwd_release();
	errno = e;
	return r;
}

long syscall(long nr, ...)
{
	va_list ap;
	long a[6];
	void *ra = FA_RA();
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (FA_GATE_OPEN() || FA_GUARDED())
		return FA_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);

	switch (nr) {
#ifdef SYS_open
	case SYS_open:
		return open_nr(ra, "syscall(open)", AT_FDCWD, S(0), I(1), (mode_t)a[2], nr, a);
#endif
#ifdef SYS_creat
	case SYS_creat:
		return open_nr(ra, "syscall(creat)", AT_FDCWD, S(0), O_CREAT | O_WRONLY | O_TRUNC,
			       (mode_t)a[1], nr, a);
#endif
	case SYS_openat:
		return open_nr(ra, "syscall(openat)", I(0), S(1), I(2), (mode_t)a[3], nr, a);
#if defined(SYS_openat2) && defined(HAVE_LINUX_OPENAT2_H)
	case SYS_openat2: {
		const struct open_how *how = (const struct open_how *)a[2];
		int rc;

		if (!how || (size_t)a[3] < sizeof(how->flags) || !fa_is_write((int)how->flags))
			break;
		rc = fa_check_call("syscall(openat2)",
				   ((int)how->flags & O_TMPFILE) == O_TMPFILE ? FA_OP_DIR : FA_OP_WRITE,
				   I(0), S(1), (int)how->flags, ra);
		if (rc < 0 && rc != FA_PASS) {
			errno = -rc;
			return -1;
		}
		break;
	}
#endif
#ifdef SYS_unlink
	case SYS_unlink:
		return fa_at1_unlink(ra, S(0));
#endif
	case SYS_unlinkat:
		return fa_at1_unlinkat(ra, I(0), S(1), I(2));
#ifdef SYS_rmdir
	case SYS_rmdir:
		return fa_at1_rmdir(ra, S(0));
#endif
#ifdef SYS_rename
	case SYS_rename:
		return fa_do_renameat2(ra, "syscall(rename)", AT_FDCWD, S(0), AT_FDCWD, S(1), 0);
#endif
	case SYS_renameat:
		return fa_do_renameat2(ra, "syscall(renameat)", I(0), S(1), I(2), S(3), 0);
#ifdef SYS_renameat2
	case SYS_renameat2:
		return fa_do_renameat2(ra, "syscall(renameat2)", I(0), S(1), I(2), S(3),
				       (unsigned int)a[4]);
#endif
#ifdef SYS_link
	case SYS_link:
		return fa_do_linkat(ra, "syscall(link)", AT_FDCWD, S(0), AT_FDCWD, S(1), 0);
#endif
	case SYS_linkat:
		return fa_do_linkat(ra, "syscall(linkat)", I(0), S(1), I(2), S(3), I(4));
#ifdef SYS_symlink
	case SYS_symlink:
		return fa_do_symlinkat(ra, "syscall(symlink)", S(0), AT_FDCWD, S(1));
#endif
	case SYS_symlinkat:
		return fa_do_symlinkat(ra, "syscall(symlinkat)", S(0), I(1), S(2));
#ifdef SYS_mkdir
	case SYS_mkdir:
		return fa_at1_mkdir(ra, S(0), (mode_t)a[1]);
#endif
	case SYS_mkdirat:
		return fa_at1_mkdirat(ra, I(0), S(1), (mode_t)a[2]);
#ifdef SYS_mknod
	case SYS_mknod:
		return fa_at1_mknod(ra, S(0), (mode_t)a[1], (dev_t)a[2]);
#endif
	case SYS_mknodat:
		return fa_at1_mknodat(ra, I(0), S(1), (mode_t)a[2], (dev_t)a[3]);
#ifdef SYS_chmod
	case SYS_chmod:
		return fa_at1_chmod(ra, S(0), (mode_t)a[1]);
#endif
	case SYS_fchmodat:
		return fa_at1_fchmodat(ra, I(0), S(1), (mode_t)a[2], 0);
#ifdef SYS_fchmodat2
	case SYS_fchmodat2:
		if ((I(3) & AT_EMPTY_PATH) && S(1) && !*S(1))
			return fdattr_nr(ra, "syscall(fchmodat2)", nr, a);
		return fa_at1_fchmodat(ra, I(0), S(1), (mode_t)a[2], I(3));
#endif
	case SYS_fchmod:
		return fdattr_nr(ra, "syscall(fchmod)", nr, a);
#ifdef SYS_chown
	case SYS_chown:
		return fa_at1_chown(ra, S(0), (uid_t)a[1], (gid_t)a[2]);
#endif
#ifdef SYS_lchown
	case SYS_lchown:
		return fa_at1_lchown(ra, S(0), (uid_t)a[1], (gid_t)a[2]);
#endif
	case SYS_fchownat:
		return fa_do_fchownat(ra, "syscall(fchownat)", I(0), S(1), (uid_t)a[2], (gid_t)a[3],
				      I(4));
	case SYS_fchown:
		return fdattr_nr(ra, "syscall(fchown)", nr, a);
	case SYS_truncate: {
		int rc = fa_do_truncate(ra, "syscall(truncate)", S(0), (off64_t)a[1]);

		if (rc != FA_PASS)
			return rc;
		break;
	}
	case SYS_setxattr:
		return fa_at1_setxattr(ra, S(0), S(1), (const void *)a[2], (size_t)a[3], I(4));
	case SYS_lsetxattr:
		return fa_at1_lsetxattr(ra, S(0), S(1), (const void *)a[2], (size_t)a[3], I(4));
	case SYS_removexattr:
		return fa_at1_removexattr(ra, S(0), S(1));
	case SYS_lremovexattr:
		return fa_at1_lremovexattr(ra, S(0), S(1));
	case SYS_fsetxattr:
	case SYS_fremovexattr:
		return fdattr_nr(ra, "syscall(fxattr)", nr, a);
	case SYS_execve:
		return fa_do_execveat(ra, "syscall(execve)", AT_FDCWD, S(0), (char *const *)a[1],
				      (char *const *)a[2], 0);
#ifdef SYS_execveat
	case SYS_execveat:
		return fa_do_execveat(ra, "syscall(execveat)", I(0), S(1), (char *const *)a[2],
				      (char *const *)a[3], I(4));
#endif
	case SYS_chdir:
	case SYS_fchdir:
		return cwd_nr(nr, a);
	default:
		break;
	}
	return FA_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
