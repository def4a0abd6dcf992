/* SPDX-License-Identifier: Apache-2.0 */
/* Raw system calls for the engine; see sys.h for why libc is not used. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "sys.h"

#if !FA_SYS_RAW
long fa__sys6(long n, long a, long b, long c, long d, long e, long f)
{
	int saved = errno;
	long r = syscall(n, a, b, c, d, e, f);
	if (r == -1)
		r = -errno;
	errno = saved;
	return r;
}
#endif

#define S6(n, a, b, c, d, e, f) \
	fa__sys6((n), (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), (long)(f))

int fa__sys_openat2(int dirfd, const char *path, const struct fa__open_how *how)
{
	return (int)S6(SYS_openat2, dirfd, path, how, sizeof *how, 0, 0);
}

int fa__sys_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	return (int)S6(SYS_openat, dirfd, path, flags, mode, 0, 0);
}

int fa__sys_close(int fd)
{
	return (int)S6(SYS_close, fd, 0, 0, 0, 0, 0);
}

ssize_t fa__sys_read(int fd, void *buf, size_t len)
{
	return S6(SYS_read, fd, buf, len, 0, 0, 0);
}

ssize_t fa__sys_readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	return S6(SYS_readlinkat, dirfd, path, buf, len, 0, 0);
}

int fa__sys_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st)
{
	return (int)S6(SYS_statx, dirfd, path, flags, mask, st, 0);
}

int fa__sys_type(int dirfd, const char *path, int follow)
{
	struct statx st;
	int flags = AT_NO_AUTOMOUNT | (follow ? 0 : AT_SYMLINK_NOFOLLOW);
	int r;

	if (!*path)
		flags |= AT_EMPTY_PATH;
	r = fa__sys_statx(dirfd, path, flags, STATX_TYPE, &st);
	if (r < 0)
		return r;
	return st.stx_mode & S_IFMT;
}

uint64_t fa__statx_mount_id(const struct statx *st)
{
	/* glibc's struct statx keeps stx_mnt_id in its padding, at the kernel's offset. */
	enum { MNT_ID_OFFSET = 0x90 };
	uint64_t mnt;

	_Static_assert(sizeof *st >= MNT_ID_OFFSET + sizeof mnt, "struct statx too small");
	if (st->stx_mask & FA_STATX_MNT_ID) {
		memcpy(&mnt, (const char *)st + MNT_ID_OFFSET, sizeof mnt);
		return mnt;
	}
	/* Kernels before 5.8: the device tells file systems apart, not bind mounts. */
	return (1ull << 63) | ((uint64_t)st->stx_dev_major << 32) | st->stx_dev_minor;
}

int fa__sys_mount_id(int dirfd, const char *path, uint64_t *id)
{
	struct statx st;
	int flags = AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | (*path ? 0 : AT_EMPTY_PATH);
	int r = fa__sys_statx(dirfd, path, flags, STATX_TYPE | FA_STATX_MNT_ID, &st);

	if (r < 0)
		return r;
	*id = fa__statx_mount_id(&st);
	return 0;
}

int fa__sys_getcwd(char *buf, size_t len)
{
	/* The kernel returns the length including the NUL. */
	return (int)S6(SYS_getcwd, buf, len, 0, 0, 0, 0);
}

int fa__sys_fcntl(int fd, int cmd, long arg)
{
	return (int)S6(SYS_fcntl, fd, cmd, arg, 0, 0, 0);
}

int fa__sys_dup3(int oldfd, int newfd, int flags)
{
	return (int)S6(SYS_dup3, oldfd, newfd, flags, 0, 0, 0);
}

int fa__sys_getpid(void)
{
	return (int)S6(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

int fa__sys_fstatfs_magic(int fd, long *magic)
{
	struct statfs sf;
	int r = (int)S6(SYS_fstatfs, fd, &sf, 0, 0, 0, 0);

	if (r < 0)
		return r;
	*magic = (long)sf.f_type;
	return 0;
}

int fa__sys_nofile_limit(unsigned long *soft)
{
	struct rlimit rl;
	int r = (int)S6(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, &rl, 0, 0);

	if (r < 0)
		return r;
	*soft = rl.rlim_cur;
	return 0;
}

void *fa__sys_mmap(size_t len, int prot)
{
	long r = S6(SYS_mmap, 0, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (r < 0 && r > -4096)
		return NULL;
	return (void *)r;
}

void *fa__sys_mmap_shared(int fd, size_t len, int prot)
{
	long r = S6(SYS_mmap, 0, len, prot, MAP_SHARED, fd, 0);

	if (r < 0 && r > -4096)
		return NULL;
	return (void *)r;
}

int fa__sys_munmap(void *addr, size_t len)
{
	return (int)S6(SYS_munmap, addr, len, 0, 0, 0, 0);
}

int fa__sys_mprotect(void *addr, size_t len, int prot)
{
	return (int)S6(SYS_mprotect, addr, len, prot, 0, 0, 0);
}
