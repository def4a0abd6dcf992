/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tmp.c - temporary files and named IPC objects that create or remove entries.
 *
 * Under a policy the mk*temp family is performed here, beneath the pinned
 * parent of the template (same letters, same attempts, same errors as
 * libc), so the directory judged is where the file appears. tmpfile() is
 * libc's own O_TMPFILE open in /tmp, judged as a write into that
 * directory. Without a policy libc does the work.
 */
#include "config.h"
#undef _FILE_OFFSET_BITS
#undef _FORTIFY_SOURCE

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "wrap.h"

#define ATTEMPTS (62 * 62 * 62)

static const char letters[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}


/*
 * Returns 0 when no policy applies (libc does the work), else 1 with *out
 * the fd (or 0 for a directory, 'dir'), or -1 with errno set.
 */
int fa_make_temp(void *ra, const char *call, char *tmpl, int suffixlen, int flags,
		     int dir, int *out)
{
	struct fa_spin s;
	size_t len = strlen(tmpl), nlen;
	char *x, *nx;
	uint64_t st = 0;
	int i, k, fd = -1;
	struct timespec ts;

	*out = -1;
	if (suffixlen < 0 || len < (size_t)suffixlen + 6 ||
	    memcmp(tmpl + len - (size_t)suffixlen - 6, "XXXXXX", 6)) {
		errno = EINVAL;
		return 1;
	}
	if (fa_pin_call(call, FA_OP_CREATE, AT_FDCWD, tmpl, NULL, &s, ra))
		return 1;
	if (!s.pinned)
		return 0;
	x = tmpl + len - (size_t)suffixlen - 6;
	nlen = strlen(s.name);
	nx = (char *)s.name + nlen - (size_t)suffixlen - 6;
	if (nlen < (size_t)suffixlen + 6 || memcmp(nx, "XXXXXX", 6)) {
		fa_unpin_call(&s);
		errno = EINVAL;
		return 1;
	}
#ifdef HAVE_GETRANDOM
	if (getrandom(&st, sizeof(st), GRND_NONBLOCK) != sizeof(st)) {
#else
	if (getentropy(&st, sizeof(st)) != 0) {
#endif
		clock_gettime(CLOCK_MONOTONIC, &ts);
		st = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	}
	st |= 1;
	for (i = 0; i < ATTEMPTS; i++) {
		uint64_t r = next_random(&st);

		for (k = 0; k < 6; k++, r /= 62)
			nx[k] = x[k] = letters[r % 62];
		if (!dir)
			fd = FA_REAL(openat)(s.fd, s.name,
					     (flags & ~O_ACCMODE) | O_RDWR | O_CREAT | O_EXCL, 0600);
		else
			fd = FA_REAL(mkdirat)(s.fd, s.name, 0700);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		memcpy(x, "XXXXXX", 6);
	fa_unpin_call(&s);
	*out = fd;
	return 1;
}

char *FA_WRAPPER(mkdtemp)(char *tmpl)
{
	int rc;

	if (FA_GATE_OPEN())
		return fa_real_mkdtemp(tmpl);
	if (!fa_make_temp(FA_RA(), "mkdtemp", tmpl, 0, 0, 1, &rc))
		return FA_REAL(mkdtemp)(tmpl);
	return rc < 0 ? NULL : tmpl;
}

/* libc's tmpfile(): an unnamed O_TMPFILE file in P_tmpdir, as "w+". */
static FILE *tmpfile_slow(void *ra, const char *call, int extra, FILE *(*real)(void))
{
	int fd;

	if (!fa_open_call(call, AT_FDCWD, P_tmpdir, O_RDWR | O_TMPFILE | O_EXCL | extra, 0600, ra,
			  &fd))
		return real();
	if (fd >= 0)
		return fa_stream_of(fd, "w+");
	if (errno == EACCES)
		return NULL;
	/* No O_TMPFILE here: libc names and unlinks a file in the same directory. */
	if (fa_check_call(call, FA_OP_DIR, AT_FDCWD, P_tmpdir, -1, ra))
		return NULL;
	return real();
}

FILE *FA_WRAPPER(tmpfile)(void)
{
	if (FA_GATE_OPEN())
		return fa_real_tmpfile();
	return tmpfile_slow(FA_RA(), "tmpfile", 0, FA_REAL(tmpfile));
}

#ifdef HAVE_LFS64
FILE *FA_WRAPPER(tmpfile64)(void)
{
	if (FA_GATE_OPEN())
		return fa_real_tmpfile64();
	return tmpfile_slow(FA_RA(), "tmpfile64", O_LARGEFILE, FA_REAL(tmpfile64));
}
#endif

/* A semaphore's file in /dev/shm: glibc puts "sem." before its name, musl nothing. */
#ifdef __GLIBC__
#define SEM_PREFIX "sem."
#else
#define SEM_PREFIX ""
#endif

/* The file behind a POSIX IPC name, as libc spells it; 0 if libc will refuse the name. */
static int ipc_path(const char *prefix, const char *name, char *buf, size_t len)
{
	struct fa_buf b = { buf, 0, len };

	while (*name == '/')
		name++;
	if (!*name || strchr(name, '/') || strlen(name) > NAME_MAX - 4)
		return 0;
	fa_puts(&b, "/dev/shm/");
	fa_puts(&b, prefix);
	fa_puts(&b, name);
	return 1;
}

sem_t *FA_WRAPPER(sem_open)(const char *name, int oflag, ...)
{
	char path[PATH_MAX];
	mode_t mode = 0;
	unsigned int value = 0;

	if (oflag & O_CREAT) {
		va_list ap;

		va_start(ap, oflag);
		mode = (mode_t)va_arg(ap, int);
		value = va_arg(ap, unsigned int);
		va_end(ap);
	}
	if (FA_GATE_OPEN() || !(oflag & O_CREAT) || !ipc_path(SEM_PREFIX, name, path, sizeof(path)))
		return FA_REAL(sem_open)(name, oflag, mode, value);
	if (fa_check_call("sem_open", FA_OP_CREATE, AT_FDCWD, path, oflag, FA_RA()))
		return SEM_FAILED;
	return FA_REAL(sem_open)(name, oflag, mode, value);
}

/* shm_open is an open of /dev/shm/NAME with O_NOFOLLOW|O_CLOEXEC. */
#ifndef FA_DARWIN
int FA_WRAPPER(shm_open)(const char *name, int oflag, mode_t mode)
{
	char path[PATH_MAX];
	int fd;

	if (FA_GATE_OPEN())
		return fa_real_shm_open(name, oflag, mode);
	if (ipc_path("", name, path, sizeof(path)) &&
	    fa_open_call("shm_open", AT_FDCWD, path, oflag | O_NOFOLLOW | O_CLOEXEC, mode, FA_RA(),
			 &fd))
		return fd;
	return FA_REAL(shm_open)(name, oflag, mode);
}
#endif

/* The removal of an IPC name is an unlink in its directory, run on the pinned parent. */
static int ipc_unlink(void *ra, const char *call, const char *path)
{
	struct fa_spin s;
	int rc;

	if (fa_pin_call(call, FA_OP_REMOVE, AT_FDCWD, path, NULL, &s, ra))
		return -1;
	rc = FA_REAL(unlinkat)(s.fd, s.name, 0);
	fa_unpin_call(&s);
	return rc;
}

int FA_WRAPPER(shm_unlink)(const char *name)
{
	char path[PATH_MAX];

	if (FA_GATE_OPEN() || !ipc_path("", name, path, sizeof(path)))
		return FA_REAL(shm_unlink)(name);
	return ipc_unlink(FA_RA(), "shm_unlink", path);
}

int FA_WRAPPER(sem_unlink)(const char *name)
{
	char path[PATH_MAX];

	if (FA_GATE_OPEN() || !ipc_path(SEM_PREFIX, name, path, sizeof(path)))
		return FA_REAL(sem_unlink)(name);
	return ipc_unlink(FA_RA(), "sem_unlink", path);
}

/*
 * A message queue is an entry of the mqueue file system, which the kernel
 * creates whether or not it is mounted: judged at /dev/mqueue/NAME, and
 * where nothing is mounted there, outside every root. The kernel has no
 * *at() form for it: judged, then performed by name.
 */
static int mq_path(const char *name, char *buf, size_t len)
{
	struct fa_buf b = { buf, 0, len };

	if (!name || name[0] != '/' || !name[1] || strchr(name + 1, '/') ||
	    strlen(name) > NAME_MAX)
		return 0;
	fa_puts(&b, "/dev/mqueue");
	fa_puts(&b, name);
	return 1;
}

int fa_mq_check(void *ra, const char *call, enum fa_op op, const char *name)
{
	char path[PATH_MAX];

	if (!mq_path(name, path, sizeof(path)))
		return 0;
	return fa_check_missing_call(call, op, path, ra);
}

#ifndef FA_DARWIN
mqd_t FA_WRAPPER(mq_open)(const char *name, int oflag, ...)
{
	mode_t mode = 0;
	struct mq_attr *attr = NULL;

	if (oflag & O_CREAT) {
		va_list ap;

		va_start(ap, oflag);
		mode = (mode_t)va_arg(ap, int);
		attr = va_arg(ap, struct mq_attr *);
		va_end(ap);
	}
	if (FA_GATE_OPEN() || !(oflag & O_CREAT))
		return FA_REAL(mq_open)(name, oflag, mode, attr);
	if (fa_mq_check(FA_RA(), "mq_open", FA_OP_CREATE, name))
		return (mqd_t)-1;
	return FA_REAL(mq_open)(name, oflag, mode, attr);
}

int FA_WRAPPER(mq_unlink)(const char *name)
{
	if (FA_GATE_OPEN())
		return fa_real_mq_unlink(name);
	if (fa_mq_check(FA_RA(), "mq_unlink", FA_OP_REMOVE, name))
		return -1;
	return FA_REAL(mq_unlink)(name);
}
#endif
