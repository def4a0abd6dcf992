/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sys_darwin.c - the engine's door to the kernel on macOS.
 *
 * macOS keeps its system call ABI private (numbers and conventions change
 * between releases), so each function of sys.h goes through libSystem.
 * The contract stays Linux's: the answer, or -errno, and errno as the
 * caller left it. In the interposing image (libfashim.dylib) these calls
 * do not come back into the shim: dyld binds an interposing image's own
 * references to the originals.
 *
 * What Linux reaches through /proc is asked of the descriptor: a path
 * /proc/self/fd/N handed to openat or readlinkat (the engine reopens and
 * names descriptors that way) is answered with fcntl(F_GETPATH) and, for
 * a reopen, an fstat identity check of what the path opened.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sys.h"

/* libSystem's answer as the engine's: -errno on failure, errno restored. */
static long answer(long r, int saved)
{
	if (r == -1)
		r = -errno;
	errno = saved;
	return r;
}

/* N when path is /proc/self/fd/N (or /proc/thread-self/fd/N), else -1. */
static int proc_fd(const char *path)
{
	static const char self[] = "/proc/self/fd/", thread[] = "/proc/thread-self/fd/";
	const char *s;
	long n = 0;

	if (strncmp(path, self, sizeof self - 1) == 0)
		s = path + sizeof self - 1;
	else if (strncmp(path, thread, sizeof thread - 1) == 0)
		s = path + sizeof thread - 1;
	else
		return -1;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > 0x7fffffffL / 10)
			return -1;
		n = n * 10 + (*s - '0');
	}
	return (int)n;
}

/* What /proc/self/fd/N reads as: the path, or Linux's "type:[...]" for what has none. */
static ssize_t fd_link(int fd, char *buf, size_t len)
{
	char path[MAXPATHLEN];
	struct stat st;
	size_t n;

	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISSOCK(st.st_mode))
		strcpy(path, "socket:[]");
	else if (S_ISFIFO(st.st_mode))
		strcpy(path, "pipe:[]");
	else if (fcntl(fd, F_GETPATH, path) < 0)
		strcpy(path, "anon_inode:[]");	/* a descriptor no directory names */
	n = strlen(path);
	if (n > len)
		n = len;
	memcpy(buf, path, n);
	return (ssize_t)n;
}

/* The file fd names, opened anew with flags: the same file, or -1. */
static int reopen(int fd, int flags, mode_t mode)
{
	char path[MAXPATHLEN];
	struct stat was, now;
	int r;

	if (fstat(fd, &was) < 0 || fcntl(fd, F_GETPATH, path) < 0)
		return -1;
	r = open(path, flags | O_NOFOLLOW, mode);
	if (r < 0)
		return -1;
	if (fstat(r, &now) < 0 || now.st_dev != was.st_dev || now.st_ino != was.st_ino) {
		close(r);
		errno = EAGAIN;	/* renamed or replaced since: not the descriptor's file */
		return -1;
	}
	return r;
}

int fa__sys_openat2(int dirfd, const char *path, const struct fa__open_how *how)
{
	return -ENOSYS;
}

int fa__sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	int saved = errno, n = proc_fd(path), r;
	/* A look (no write, no create) never waits on a FIFO, as O_PATH would not. */
	int look = (flags & (O_ACCMODE | O_CREAT | O_TRUNC)) == O_RDONLY && !(flags & O_NONBLOCK);

	if (n >= 0)
		return (int)answer(reopen(n, flags, mode), saved);
	r = openat(dirfd, path, flags | (look ? O_NONBLOCK : 0), (int)mode);
	if (r >= 0 && look)
		fcntl(r, F_SETFL, fcntl(r, F_GETFL) & ~O_NONBLOCK);
	return (int)answer(r, saved);
}

int fa__sys_close(int fd)
{
	int saved = errno;

	return (int)answer(close(fd), saved);
}

ssize_t fa__sys_read(int fd, void *buf, size_t len)
{
	int saved = errno;

	return answer(read(fd, buf, len), saved);
}

ssize_t fa__sys_readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	int saved = errno, n = proc_fd(path);

	if (n >= 0)
		return answer(fd_link(n, buf, len), saved);
	return answer(readlinkat(dirfd, path, buf, len), saved);
}

int fa__sys_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *stx)
{
	struct stat st;
	int saved = errno, r;

	if (!*path && (flags & AT_EMPTY_PATH) && dirfd == AT_FDCWD)
		r = stat(".", &st);
	else if (!*path && (flags & AT_EMPTY_PATH))
		r = fstat(dirfd, &st);
	else
		r = fstatat(dirfd, path, &st, flags & AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return (int)answer(r, saved);
	memset(stx, 0, sizeof *stx);
	/* No mount ids: fa__statx_mount_id tells mounts apart by device. */
	stx->stx_mask = mask & (STATX_TYPE | STATX_MODE | STATX_NLINK | STATX_INO);
	stx->stx_mode = (uint16_t)st.st_mode;
	stx->stx_nlink = (uint32_t)st.st_nlink;
	stx->stx_ino = (uint64_t)st.st_ino;
	stx->stx_uid = st.st_uid;
	stx->stx_gid = st.st_gid;
	stx->stx_size = (uint64_t)st.st_size;
	stx->stx_dev_major = (uint32_t)major(st.st_dev);
	stx->stx_dev_minor = (uint32_t)minor(st.st_dev);
	return 0;
}

int fa__sys_type(int dirfd, const char *path, int follow)
{
	struct statx st;
	int r = fa__sys_statx(dirfd, path, (follow ? 0 : AT_SYMLINK_NOFOLLOW) | (*path ? 0 : AT_EMPTY_PATH),
			      STATX_TYPE, &st);

	if (r < 0)
		return r;
	return st.stx_mode & S_IFMT;
}

uint64_t fa__statx_mount_id(const struct statx *st)
{
	/* A volume is a device on macOS; as Linux before 5.8, bind mounts are not told apart. */
	return (1ull << 63) | ((uint64_t)st->stx_dev_major << 32) | st->stx_dev_minor;
}

int fa__sys_mount_id(int dirfd, const char *path, uint64_t *id)
{
	struct statx st;
	int r = fa__sys_statx(dirfd, path, AT_SYMLINK_NOFOLLOW | (*path ? 0 : AT_EMPTY_PATH), STATX_TYPE, &st);

	if (r < 0)
		return r;
	*id = fa__statx_mount_id(&st);
	return 0;
}

int fa__sys_getcwd(char *buf, size_t len)
{
	int saved = errno;

	if (!getcwd(buf, len))
		return (int)answer(-1, saved);
	errno = saved;
	/* Linux's system call counts the NUL. */
	return (int)strlen(buf) + 1;
}

int fa__sys_fcntl(int fd, int cmd, long arg)
{
	int saved = errno;

	return (int)answer(fcntl(fd, cmd, arg), saved);
}

int fa__sys_dup3(int oldfd, int newfd, int flags)
{
	int saved = errno, r;

	/* No dup3: dup2 and then the flag, which no exec of this process can fall between
	 * unless another thread execs; the engine's pins are made before threads matter. */
	if (oldfd == newfd || (flags & ~O_CLOEXEC))
		return -EINVAL;
	r = dup2(oldfd, newfd);
	if (r >= 0 && (flags & O_CLOEXEC) && fcntl(r, F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;

		close(r);
		errno = saved;
		return -e;
	}
	return (int)answer(r, saved);
}

int fa__sys_getpid(void)
{
	return getpid();
}

int fa__sys_fstatfs_magic(int fd, long *magic)
{
	struct statfs sf;
	int saved = errno;

	if (fstatfs(fd, &sf) < 0)
		return (int)answer(-1, saved);
	/* macOS's file system type number: no Linux magic (there is no procfs) ever matches it. */
	*magic = (long)sf.f_type;
	return 0;
}

int fa__sys_nofile_limit(unsigned long *soft)
{
	struct rlimit rl;
	int saved = errno;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return (int)answer(-1, saved);
	*soft = (unsigned long)rl.rlim_cur;
	return 0;
}

void *fa__sys_mmap(size_t len, int prot)
{
	int saved = errno;
	/* cppcheck-suppress invalidFunctionArg ; an anonymous mapping takes fd -1 */
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANON, -1, 0);

	errno = saved;
	/* cppcheck-suppress memleak ; the caller's, until fa__sys_munmap */
	return p == MAP_FAILED ? NULL : p;
}

void *fa__sys_mmap_shared(int fd, size_t len, int prot)
{
	int saved = errno;
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, 0);

	errno = saved;
	/* cppcheck-suppress memleak ; the caller's, until fa__sys_munmap */
	return p == MAP_FAILED ? NULL : p;
}

int fa__sys_munmap(void *addr, size_t len)
{
	int saved = errno;

	return (int)answer(munmap(addr, len), saved);
}

int fa__sys_mprotect(void *addr, size_t len, int prot)
{
	int saved = errno;

	return (int)answer(mprotect(addr, len, prot), saved);
}
