/*
 * open.c - the open family, creat, fopen/freopen, truncate.
 *
 * A write-open is one fa_openat(): the engine judges and opens in one
 * step. fopen and freopen open through the engine too and wrap the fd, so
 * the file the stream writes is the file that was judged. Read-only opens
 * cost one test of the flags more than libc's own mode test, and no call.
 *
 * The *64 twins are defined here with _FILE_OFFSET_BITS unset, so that
 * "open" is open and not a redirect to open64.
 */
#include "config.h"
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "wrap.h"

int fa_do_openat(void *ra, const char *call, int dirfd, const char *path, int flags,
		 mode_t mode)
{
	int saved, fd;

	if (!fa_is_write(flags) || FA_GUARDED())
		return FA_PASS;
	saved = errno;
	fd = fa_open_call(call, dirfd, path, flags, fa_needs_mode(flags) ? mode : 0, ra);
	if (fd == FA_PASS) {
		errno = saved;
		return FA_PASS;
	}
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	errno = saved;
	return fd;
}

#define MODE_ARG(flags, mode) \
	do { \
		if (fa_needs_mode(flags)) { \
			va_list ap; \
			va_start(ap, flags); \
			mode = va_arg(ap, mode_t); \
			va_end(ap); \
		} \
	} while (0)

#define FA_OPEN(name, extra) \
	int name(const char *path, int flags, ...) \
	{ \
		mode_t mode = 0; \
		int fd; \
		MODE_ARG(flags, mode); \
		if (FA_GATE_OPEN()) \
			return fa_real_##name(path, flags, mode); \
		if (!fa_is_write(flags)) \
			return FA_REAL(name)(path, flags, mode); \
		fd = fa_do_openat(FA_RA(), #name, AT_FDCWD, path, flags | (extra), mode); \
		return fd != FA_PASS ? fd : FA_REAL(name)(path, flags, mode); \
	}

#define FA_OPENAT(name, extra) \
	int name(int dirfd, const char *path, int flags, ...) \
	{ \
		mode_t mode = 0; \
		int fd; \
		MODE_ARG(flags, mode); \
		if (FA_GATE_OPEN()) \
			return fa_real_##name(dirfd, path, flags, mode); \
		if (!fa_is_write(flags)) \
			return FA_REAL(name)(dirfd, path, flags, mode); \
		fd = fa_do_openat(FA_RA(), #name, dirfd, path, flags | (extra), mode); \
		return fd != FA_PASS ? fd : FA_REAL(name)(dirfd, path, flags, mode); \
	}

/* Fortified entry points take no mode; with O_CREAT libc itself aborts. */
#define FA_OPEN_2(name, extra) \
	int name(const char *path, int flags) \
	{ \
		int fd; \
		if (FA_GATE_OPEN() || fa_needs_mode(flags)) \
			return FA_REAL(name)(path, flags); \
		fd = fa_do_openat(FA_RA(), #name, AT_FDCWD, path, flags | (extra), 0); \
		return fd != FA_PASS ? fd : FA_REAL(name)(path, flags); \
	}

#define FA_OPENAT_2(name, extra) \
	int name(int dirfd, const char *path, int flags) \
	{ \
		int fd; \
		if (FA_GATE_OPEN() || fa_needs_mode(flags)) \
			return FA_REAL(name)(dirfd, path, flags); \
		fd = fa_do_openat(FA_RA(), #name, dirfd, path, flags | (extra), 0); \
		return fd != FA_PASS ? fd : FA_REAL(name)(dirfd, path, flags); \
	}

#define FA_CREAT(name, extra) \
	int name(const char *path, mode_t mode) \
	{ \
		int fd; \
		if (FA_GATE_OPEN()) \
			return fa_real_##name(path, mode); \
		fd = fa_do_openat(FA_RA(), #name, AT_FDCWD, path, \
				  O_CREAT | O_WRONLY | O_TRUNC | (extra), mode); \
		return fd != FA_PASS ? fd : FA_REAL(name)(path, mode); \
	}

FA_OPEN(open, 0)
FA_OPEN(open64, O_LARGEFILE)
FA_OPEN(__open, 0)
FA_OPEN(__open64, O_LARGEFILE)
FA_OPENAT(openat, 0)
FA_OPENAT(openat64, O_LARGEFILE)
FA_OPEN_2(__open_2, 0)
FA_OPEN_2(__open64_2, O_LARGEFILE)
FA_OPENAT_2(__openat_2, 0)
FA_OPENAT_2(__openat64_2, O_LARGEFILE)
FA_CREAT(creat, 0)
FA_CREAT(creat64, O_LARGEFILE)

/*
 * fopen's mode string as open flags; -1 for what only libc understands
 * (",ccs=" conversions), which is then judged first and opened by libc.
 */
static int stdio_flags(const char *mode)
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
	return *m == ',' && fa_is_write(flags) ? -1 : flags;
}

static FILE *wrap_fd(int fd, const char *mode)
{
	FILE *f;
	int e;

	fa_tls.guard++;
	f = fdopen(fd, mode);
	fa_tls.guard--;
	if (!f) {
		e = errno;
		FA_REAL(close)(fd);
		errno = e;
	}
	return f;
}

static FILE *fopen_slow(void *ra, const char *call, const char *path, const char *mode,
			int extra, FILE *(*real)(const char *, const char *))
{
	int flags = stdio_flags(mode), fd, rc;

	if (flags == -1) {
		rc = fa_check_call(call, FA_OP_WRITE, AT_FDCWD, path, O_WRONLY | O_CREAT, ra);
		if (rc < 0 && rc != FA_PASS) {
			errno = -rc;
			return NULL;
		}
		return real(path, mode);
	}
	fd = fa_do_openat(ra, call, AT_FDCWD, path, flags | extra, 0666);
	if (fd == FA_PASS)
		return real(path, mode);
	if (fd < 0)
		return NULL;
	return wrap_fd(fd, mode);
}

FILE *fopen(const char *path, const char *mode)
{
	if (FA_GATE_OPEN())
		return fa_real_fopen(path, mode);
	return fopen_slow(FA_RA(), "fopen", path, mode, 0, FA_REAL(fopen));
}

FILE *fopen64(const char *path, const char *mode)
{
	if (FA_GATE_OPEN())
		return fa_real_fopen64(path, mode);
	return fopen_slow(FA_RA(), "fopen64", path, mode, O_LARGEFILE, FA_REAL(fopen64));
}

/*
 * freopen must keep the caller's FILE. The file is opened through the
 * engine and libc reopens that very file through its /proc/self/fd link
 * (an exclusive-create mode loses its 'x': the file exists by then).
 */
static FILE *freopen_slow(void *ra, const char *call, const char *path, const char *mode,
			  FILE *stream, int extra,
			  FILE *(*real)(const char *, const char *, FILE *))
{
	char link[64], m[32];
	struct fa_buf b = { link, 0, sizeof(link) };
	size_t i, k = 0;
	int flags, fd, e;
	FILE *f;

	if (!path)
		return real(path, mode, stream);
	flags = stdio_flags(mode);
	if (flags == -1 || strlen(mode) >= sizeof(m)) {
		int rc = fa_check_call(call, FA_OP_WRITE, AT_FDCWD, path, O_WRONLY | O_CREAT, ra);

		if (rc < 0 && rc != FA_PASS) {
			errno = -rc;
			return NULL;
		}
		return real(path, mode, stream);
	}
	fd = fa_do_openat(ra, call, AT_FDCWD, path, flags | extra | O_CLOEXEC, 0666);
	if (fd == FA_PASS)
		return real(path, mode, stream);
	if (fd < 0)
		return NULL;
	for (i = 0; mode[i]; i++)
		if (mode[i] != 'x')
			m[k++] = mode[i];
	m[k] = '\0';
	fa_puts(&b, "/proc/self/fd/");
	fa_putu(&b, (unsigned)fd);
	fa_tls.guard++;
	f = real(link, m, stream);
	fa_tls.guard--;
	e = errno;
	FA_REAL(close)(fd);
	errno = e;
	return f;
}

FILE *freopen(const char *path, const char *mode, FILE *f)
{
	if (FA_GATE_OPEN())
		return fa_real_freopen(path, mode, f);
	return freopen_slow(FA_RA(), "freopen", path, mode, f, 0, FA_REAL(freopen));
}

FILE *freopen64(const char *path, const char *mode, FILE *f)
{
	if (FA_GATE_OPEN())
		return fa_real_freopen64(path, mode, f);
	return freopen_slow(FA_RA(), "freopen64", path, mode, f, O_LARGEFILE, FA_REAL(freopen64));
}

/*
 * truncate(path) is judged and performed as a write-open without O_TRUNC
 * followed by ftruncate on that fd: the file cut is the file judged.
 */
int fa_do_truncate(void *ra, const char *call, const char *path, off64_t len)
{
	int saved = errno, fd, rc, e;

	if (FA_GUARDED())
		return FA_PASS;
	fd = fa_open_call(call, AT_FDCWD, path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0, ra);
	if (fd == FA_PASS) {
		errno = saved;
		return FA_PASS;
	}
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	errno = saved;
	rc = ftruncate64(fd, len);
	e = errno;
	FA_REAL(close)(fd);
	errno = e;
	return rc;
}

int truncate(const char *path, off_t len)
{
	int rc;

	if (FA_GATE_OPEN())
		return fa_real_truncate(path, len);
	rc = fa_do_truncate(FA_RA(), "truncate", path, len);
	return rc != FA_PASS ? rc : FA_REAL(truncate)(path, len);
}

int truncate64(const char *path, off64_t len)
{
	int rc;

	if (FA_GATE_OPEN())
		return fa_real_truncate64(path, len);
	rc = fa_do_truncate(FA_RA(), "truncate64", path, len);
	return rc != FA_PASS ? rc : FA_REAL(truncate64)(path, len);
}
