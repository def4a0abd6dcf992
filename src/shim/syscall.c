/* SPDX-License-Identifier: Apache-2.0 */
/*
 * syscall.c - syscall(2) for the file and exec syscalls.
 *
 * A program (or a runtime) that calls syscall(SYS_openat, ...) through
 * libc gets the same judgement as the libc function: the FA_NR lines of
 * symbols.def route each number to the wrapper of its libc twin, or to a
 * short function here where the kernel's form has no libc twin. chdir and
 * fchdir by number are told to the engine's cwd cache like the libc calls
 * (chdir.c). Inline system call instructions and io_uring remain out of
 * reach of any preload.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys.h"
#include "wrap.h"

/*
 * Numbers newer than the headers may be (fchmodat2: Linux 6.6;
 * setxattrat/removexattrat: 6.13): those of the unified table every
 * architecture has shared since 5.x. A kernel without them answers ENOSYS
 * after the shim has judged the call.
 */
#if defined(__x86_64__) || defined(__aarch64__) || defined(__riscv) || defined(__i386__) || \
	defined(__arm__)
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif
#endif

#define FA_DECL(name, ret, params) FA_HIDDEN ret fa_w_##name FA_PREPEND_RA params;
#define FA_DECL_AT1(name, ret, params) FA_DECL(name, ret, params)
#define FA_DECL_ATFD(name, ret, params) FA_DECL(name, ret, params)
#define FA_DECL_FD(name, ret, params) FA_DECL(name, ret, params)
#define FA_DECL_REOPEN(name, ret, params) FA_DECL(name, ret, params)
#define FA_DECL_OPEN(name, ret, params)
#define FA_DECL_OPEN2(name, ret, params)
#define FA_DECL_OPENX(name, ret, params)
#define FA_DECL_CHECK(name, ret, params)
#define FA_DECL_VIA(name, ret, params)
#define FA_DECL_TEMP(name, ret, params)
#define FA_DECL_EXEC(name, ret, params)
#define FA_DECL_SPAWN(name, ret, params)
#define FA_DECL_CWD(name, ret, params)
#define FA_DECL_KEEPFD(name, ret, params)
#define FA_DECL_THREAD(name, ret, params)
#define FA_DECL_HAND(name, ret, params)
#define FA_SYM(name, ret, fail, params, args, shape, ...) FA_DECL_##shape(name, ret, params)
#include "symbols.def"
#undef FA_SYM

#define S(i) ((const char *)a[i])
#define I(i) ((int)a[i])
#define U(i) ((unsigned long)a[i])
#define P(i) ((void *)a[i])
#define REAL() FA_REAL(syscall)(nr, a[0], a[1], a[2], a[3], a[4], a[5])

/* An open by number: a write judged and opened by the engine, a read by the read patterns. */
static long fa_open_nr(void *ra, const char *call, int dirfd, const char *path, int flags,
		       mode_t mode, long nr, const long *a)
{
	int fd;

	if (fa_is_write(flags) ? fa_open_call(call, dirfd, path, flags, mode, ra, &fd)
			       : FA_READS_GUARDED() &&
				 fa_read_call(call, dirfd, path, flags, mode, ra, &fd))
		return fd;
	return REAL();
}

/*
 * openat2 keeps its resolve flags, which the engine's open cannot carry:
 * judged, then performed by the kernel as asked. struct open_how is read
 * as sys.h spells it, so a build without kernel headers judges it too.
 */
static long fa_openat2_nr(void *ra, const char *call, long nr, const long *a)
{
	const struct fa__open_how *how = P(2);
	size_t size = U(3);
	int flags;
	enum fa_op op;

	if (!how || size < sizeof(how->flags) || !fa_is_write((int)how->flags))
		return REAL();
	flags = (int)how->flags;
	op = (flags & O_TMPFILE) == O_TMPFILE ? FA_OP_DIR : FA_OP_WRITE;
	if (size >= offsetof(struct fa__open_how, resolve) + sizeof(how->resolve) &&
	    (how->resolve & RESOLVE_IN_ROOT)) {
		if (fa_in_root_call(call, op, I(0), S(1), flags, ra))
			return -1;
	} else if (fa_check_call(call, op, I(0), S(1), flags, ra)) {
		return -1;
	}
	return REAL();
}

static long fa_handle_nr(void *ra, const char *call, int mount_fd, struct file_handle *h,
			 int flags, long nr, const long *a)
{
	int fd;

	if (fa_open_by_handle(ra, call, mount_fd, h, flags, &fd))
		return fd;
	return REAL();
}

static long fa_truncate_nr(void *ra, const char *call, const char *path, int64_t len, long nr,
			   const long *a)
{
	int rc;

	if (fa_do_truncate(ra, call, path, len, &rc))
		return rc;
	return REAL();
}

/* A change to what fd a[0] names. */
static long fa_fd_nr(void *ra, const char *call, long nr, const long *a)
{
	if (fa_fd_call(call, I(0), ra))
		return -1;
	return REAL();
}

/* The *at() forms that act on dirfd itself given AT_EMPTY_PATH and "". */
static int on_fd(const long *a, int flags)
{
	return (flags & AT_EMPTY_PATH) && S(1) && !*S(1);
}

#ifdef SYS_fchmodat2
/*
 * fchmodat2(dirfd, path, mode, flags): run on the pinned parent by number,
 * so that a kernel without it answers ENOSYS as it does bare (libc's
 * fchmodat would make another system call).
 */
static long fa_fchmodat2_nr(void *ra, const char *call, long nr, const long *a)
{
	struct fa_spin s;
	long rc;

	if (on_fd(a, I(3)))
		return fa_fd_nr(ra, call, nr, a);
	if (fa_pin_call(call, I(3) & AT_SYMLINK_NOFOLLOW ? FA_OP_LATTR : FA_OP_ATTR, I(0), S(1),
			NULL, &s, ra))
		return -1;
	rc = FA_REAL(syscall)(nr, (long)s.fd, (long)s.name, a[2], a[3]);
	fa_unpin_call(&s);
	return rc;
}
#endif

#ifdef SYS_setxattrat
/*
 * setxattrat(dirfd, path, at_flags, name, args, size) and
 * removexattrat(dirfd, path, at_flags, name): run on the pinned parent
 * by number, the kernel's own form.
 */
static long fa_xattrat_nr(void *ra, const char *call, long nr, const long *a)
{
	struct fa_spin s;
	long rc;

	if (on_fd(a, I(2)))
		return fa_fd_nr(ra, call, nr, a);
	if (fa_pin_call(call, I(2) & AT_SYMLINK_NOFOLLOW ? FA_OP_LATTR : FA_OP_ATTR, I(0), S(1),
			NULL, &s, ra))
		return -1;
	rc = FA_REAL(syscall)(nr, (long)s.fd, (long)s.name, a[2], a[3], a[4], a[5]);
	fa_unpin_call(&s);
	return rc;
}
#endif

/* The kernel's mq_open and mq_unlink take the name without libc's leading '/'. */
static long mq_nr(void *ra, const char *call, enum fa_op op, long nr, const long *a)
{
	char name[NAME_MAX + 2];
	struct fa_buf b = { name, 0, sizeof(name) };

	if (S(0) && strlen(S(0)) <= NAME_MAX) {
		fa_putc(&b, '/');
		fa_puts(&b, S(0));
		if (fa_mq_check(ra, call, op, name))
			return -1;
	}
	return REAL();
}

static long fa_mq_open_nr(void *ra, const char *call, long nr, const long *a)
{
	if (!(I(1) & O_CREAT))
		return REAL();
	return mq_nr(ra, call, FA_OP_CREATE, nr, a);
}

static long fa_mq_unlink_nr(void *ra, const char *call, long nr, const long *a)
{
	return mq_nr(ra, call, FA_OP_REMOVE, nr, a);
}

/* A descriptor closed or replaced by number: as the KEEPFD lines of symbols.def (fd.c). */
static long fa_keepfd_nr(int fd, int cond, long nr, const long *a)
{
	long r;

	if (FA_UNLIKELY(fa_pinned_range(fd)) && fa_is_root_fd(fd) && cond) {
		errno = EBADF;
		return -1;
	}
	if (cond)
		fa_fd_forget(fd);
	r = REAL();
	if (cond)
		FA_FD_MOVED(fd);
	return r;
}

/* A change of directory by number: the engine's cwd copy is held off meanwhile (chdir.c). */
static long fa_cwd_nr(long nr, const long *a)
{
	long r;
	int e;

	if (!fa_cwd_cache_enabled())
		return REAL();
	fa_cwd_hold();
	r = REAL();
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
		return REAL();

	switch (nr) {
#define FA_NR(sys, expr) \
	case SYS_##sys: { \
		static const char CALL[] = "syscall(" #sys ")"; \
		(void)CALL; \
		return (expr); \
	}
#define FA_SYM(...)
#include "symbols.def"
#undef FA_SYM
#undef FA_NR
	default:
		break;
	}
	return REAL();
}
