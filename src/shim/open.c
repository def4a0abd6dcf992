/* SPDX-License-Identifier: Apache-2.0 */
/*
 * open.c - the opens that fit no shape of symbols.def: fopen/freopen,
 * truncate, open_by_handle_at. (open, openat, creat and their twins are
 * generated.)
 *
 * fopen and freopen open through the engine too, so the file the stream
 * writes is the file that was judged. Read-only opens cost one test of
 * the flags more than libc's own mode test, and no call.
 *
 * The *64 twins are defined here with _FILE_OFFSET_BITS unset, so that
 * "fopen" is fopen and not a redirect to fopen64.
 */
#include "config.h"
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "wrap.h"

/* fopen's mode string as open flags; what follows a ',' is libc's alone. */
int fa_stdio_flags(const char *mode)
{
	int flags;
	const char *m;

	switch (mode[0]) {
	case 'r':
		flags = O_RDONLY;
		break;
	case 'w':
		flags = O_WRONLY | O_CREAT | O_TRUNC;
		break;
	case 'a':
		flags = O_WRONLY | O_CREAT | O_APPEND;
		break;
	default:
		return 0;       /* libc answers EINVAL */
	}
	for (m = mode + 1; *m && *m != ','; m++) {
		if (*m == '+')
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		else if (*m == 'x')
			flags |= O_EXCL;
		else if (*m == 'e')
			flags |= O_CLOEXEC;
	}
	return flags;
}

/*
 * The mode libc reopens the engine's file with: an exclusive create has
 * happened by then, so 'x' goes.
 */
static const char *reopen_mode(const char *mode, const struct fa_spin *s, char *m, size_t len)
{
	size_t i, k = 0;

	if (s->rfd < 0 || !strchr(mode, 'x') || strlen(mode) >= len)
		return mode;
	for (i = 0; mode[i]; i++)
		if (mode[i] != 'x')
			m[k++] = mode[i];
	m[k] = '\0';
	return m;
}

/* The stream on an fd the engine opened; the fd is closed if none can be made. */
FILE *fa_stream_of(int fd, const char *mode)
{
	struct fa_spin s;
	FILE *f;

	/* stdio closes it where the shim cannot see: no mark survives that. */
	fa_fd_forget(fd);
	fa_tls.guard++;
	f = fdopen(fd, mode);
	fa_tls.guard--;
	if (!f) {
		fa_spin_init(&s);
		s.rfd = fd;
		fa_unpin_call(&s);
	}
	return f;
}

/*
 * A plain mode opens through the engine and wraps the fd. ",ccs=" needs
 * libc's own open to set up the conversion: libc opens the engine's file
 * again through its /proc/self/fd link.
 */
static FILE *fopen_slow(void *ra, const char *call, const char *path, const char *mode,
			int extra, FILE *(*real)(const char *, const char *))
{
	int flags = fa_stdio_flags(mode), fd;
	struct fa_spin s;
	char m[32];
	FILE *f;

	if (!fa_is_write(flags)) {
		if (FA_READS_GUARDED() && fa_read_call(call, AT_FDCWD, path, flags | extra, 0, ra, &fd)) {
			if (fd < 0 || !strchr(mode, ','))
				return fd < 0 ? NULL : fa_stream_of(fd, mode);
			/* ",ccs=": libc opens the very file judged, through its fd */
			struct fa_buf b = { m, 0, sizeof(m) };

			fa_spin_init(&s);
			s.rfd = fd;
			fa_puts(&b, "/proc/self/fd/");
			fa_putu(&b, (unsigned)fd);
			f = real(m, mode);
			fa_unpin_call(&s);
			return f;
		}
		f = real(path, mode);
		if (f)
			fa_fd_forget(fileno(f));
		return f;
	}
	if (!strchr(mode, ',')) {
		if (!fa_open_call(call, AT_FDCWD, path, flags | extra, 0666, ra, &fd))
			return real(path, mode);
		return fd < 0 ? NULL : fa_stream_of(fd, mode);
	}
	if (fa_reopen_call(call, path, flags | extra, &s, ra))
		return NULL;
	f = real(s.name, reopen_mode(mode, &s, m, sizeof(m)));
	fa_unpin_call(&s);
	return f;
}

FILE *FA_WRAPPER(fopen)(const char *path, const char *mode)
{
	if (FA_GATE_OPEN())
		return fa_real_fopen(path, mode);
	return fopen_slow(FA_RA(), "fopen", path, mode, 0, FA_REAL(fopen));
}

#ifdef HAVE_LFS64
FILE *FA_WRAPPER(fopen64)(const char *path, const char *mode)
{
	if (FA_GATE_OPEN())
		return fa_real_fopen64(path, mode);
	return fopen_slow(FA_RA(), "fopen64", path, mode, O_LARGEFILE, FA_REAL(fopen64));
}
#endif

#ifdef HAVE__IO_FOPEN
FILE *FA_WRAPPER(_IO_fopen)(const char *path, const char *mode)
{
	if (FA_GATE_OPEN())
		return fa_real__IO_fopen(path, mode);
	return fopen_slow(FA_RA(), "_IO_fopen", path, mode, 0, FA_REAL(_IO_fopen));
}
#endif

/*
 * freopen must keep the caller's FILE: the engine opens the file and libc
 * reopens that very file through its /proc/self/fd link. With no path,
 * libc reopens the stream's own fd through that link by itself: judged as
 * the reopen it is, so a read-only stream upgraded to writing is a write
 * to the file it names. No guard is held around libc's part: it calls no
 * wrapper, and a signal handler that runs while it blocks (flushing to a
 * full pipe) is judged like any other code.
 */
static FILE *freopen_slow(void *ra, const char *call, const char *path, const char *mode,
			  FILE *stream, int extra,
			  FILE *(*real)(const char *, const char *, FILE *))
{
	char link[40], m[32];
	struct fa_buf b = { link, 0, sizeof(link) };
	struct fa_spin s;
	int flags = fa_stdio_flags(mode) | extra;
	FILE *f;

	/* libc reopens into the stream's fd number where no wrapper sees it. */
	if (stream)
		fa_fd_forget(fileno(stream));
	if (!fa_is_write(flags))
		return real(path, mode, stream);
	if (!path) {
		int fd = fileno(stream);

		if (fd < 0)
			return real(path, mode, stream);
		fa_puts(&b, "/proc/self/fd/");
		fa_putu(&b, (unsigned)fd);
	}
	if (fa_reopen_call(call, path ? path : link, flags, &s, ra))
		return NULL;
	f = real(s.rfd >= 0 ? s.name : path, reopen_mode(mode, &s, m, sizeof(m)), stream);
	fa_unpin_call(&s);
	return f;
}

FILE *FA_WRAPPER(freopen)(const char *path, const char *mode, FILE *f)
{
	if (FA_GATE_OPEN())
		return fa_real_freopen(path, mode, f);
	return freopen_slow(FA_RA(), "freopen", path, mode, f, 0, FA_REAL(freopen));
}

#ifdef HAVE_LFS64
FILE *FA_WRAPPER(freopen64)(const char *path, const char *mode, FILE *f)
{
	if (FA_GATE_OPEN())
		return fa_real_freopen64(path, mode, f);
	return freopen_slow(FA_RA(), "freopen64", path, mode, f, O_LARGEFILE, FA_REAL(freopen64));
}
#endif

/*
 * truncate(path) is judged and performed as a write-open without O_TRUNC
 * followed by ftruncate on that fd: the file cut is the file judged.
 * Returns 0 when no policy applies (the caller truncates by path), 1 with
 * *rc set otherwise.
 */
int fa_do_truncate(void *ra, const char *call, const char *path, int64_t len, int *rc)
{
	int fd;

	if (!fa_open_call(call, AT_FDCWD, path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0,
			  ra, &fd))
		return 0;
	*rc = fd < 0 ? -1 : fa_ftruncate64(fd, len);
	if (fd >= 0) {
		struct fa_spin s;

		fa_spin_init(&s);
		s.rfd = fd;
		fa_unpin_call(&s);
	}
	return 1;
}

int FA_WRAPPER(truncate)(const char *path, off_t len)
{
	int rc;

	if (FA_GATE_OPEN())
		return fa_real_truncate(path, len);
	return fa_do_truncate(FA_RA(), "truncate", path, len, &rc) ? rc : FA_REAL(truncate)(path, len);
}

#ifdef HAVE_LFS64
int FA_WRAPPER(truncate64)(const char *path, off64_t len)
{
	int rc;

	if (FA_GATE_OPEN())
		return fa_real_truncate64(path, len);
	return fa_do_truncate(FA_RA(), "truncate64", path, len, &rc) ? rc
								: FA_REAL(truncate64)(path, len);
}
#endif

/*
 * A handle names no path until it is open. Opened O_PATH first (a read),
 * then opened for writing through its /proc/self/fd link by the engine:
 * an upgrade of a descriptor that is not open for writing, judged by the
 * file it names, and the file opened is the file judged.
 */
#ifndef FA_DARWIN
int fa_open_by_handle(void *ra, const char *call, int mount_fd, struct file_handle *h, int flags,
		      int *fdp)
{
	char link[40];
	struct fa_buf b = { link, 0, sizeof(link) };
	struct fa_spin s;
	int pfd;

	if (!fa_is_write(flags) || FA_GUARDED())
		return 0;
	pfd = FA_REAL(open_by_handle_at)(mount_fd, h, O_PATH | O_CLOEXEC | (flags & O_NOFOLLOW));
	if (pfd < 0) {
		*fdp = -1;
		return 1;
	}
	fa_puts(&b, "/proc/self/fd/");
	fa_putu(&b, (unsigned)pfd);
	fa_spin_init(&s);
	s.rfd = pfd;
	if (!fa_open_call(call, AT_FDCWD, link, flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW), 0, ra,
			  fdp)) {
		fa_unpin_call(&s);
		return 0;
	}
	fa_unpin_call(&s);
	return 1;
}

int FA_WRAPPER(open_by_handle_at)(int mount_fd, struct file_handle *h, int flags)
{
	int fd;

	if (FA_GATE_OPEN())
		return fa_real_open_by_handle_at(mount_fd, h, flags);
	if (fa_open_by_handle(FA_RA(), "open_by_handle_at", mount_fd, h, flags, &fd))
		return fd;
	return FA_REAL(open_by_handle_at)(mount_fd, h, flags);
}
#endif
