/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sys.h - the engine's only way into the kernel.
 *
 * The engine is linked into libfashim.so, which interposes the libc file
 * functions and also syscall(). A call through libc from here would re-enter
 * the shim (or its dlsym bootstrap), so on x86_64 and aarch64 every call is a
 * bare trap instruction (fa__sys6 below): no libc, no errno, no interposer.
 * Other architectures use syscall(); there the shim must let calls coming
 * from the engine through (its wrapper is reentrancy-guarded anyway).
 *
 * Every function returns the kernel's answer: >= 0, or -errno. errno is
 * never read or written.
 *
 * On macOS (FA_DARWIN) the system call ABI is private: sys_darwin.c
 * implements the same functions through libSystem, and darwin_abi.h gives
 * the Linux names the engine speaks their macOS meaning.
 */
#ifndef FA_SYS_H
#define FA_SYS_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#ifdef FA_DARWIN
#include "darwin_abi.h"
#else
#include <sys/syscall.h>
#endif

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

#ifndef RESOLVE_NO_XDEV
#define RESOLVE_NO_XDEV		0x01
#define RESOLVE_NO_MAGICLINKS	0x02
#define RESOLVE_NO_SYMLINKS	0x04
#define RESOLVE_BENEATH		0x08
#define RESOLVE_IN_ROOT		0x10
#endif

/*
 * struct statx and the STATX_* bits the engine asks for, as the kernel lays
 * them out, for a libc that has none (musl before 1.2.5): the engine makes
 * the system call itself, so only the layout matters.
 */
#ifndef STATX_TYPE
#define STATX_TYPE	0x0001u
#define STATX_MODE	0x0002u
#define STATX_NLINK	0x0004u
#define STATX_INO	0x0100u
struct statx_timestamp {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t fa_pad;
};
struct statx {
	uint32_t stx_mask;
	uint32_t stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink;
	uint32_t stx_uid;
	uint32_t stx_gid;
	uint16_t stx_mode;
	uint16_t fa_pad0;
	uint64_t stx_ino;
	uint64_t stx_size;
	uint64_t stx_blocks;
	uint64_t stx_attributes_mask;
	struct statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major;
	uint32_t stx_rdev_minor;
	uint32_t stx_dev_major;
	uint32_t stx_dev_minor;
	uint64_t fa_spare[14];
};
#endif

/* struct open_how, spelled out so that old headers do not matter. */
struct fa__open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};

#ifdef FA_DARWIN
#define FA_SYS_RAW 0
#elif defined(__x86_64__) || defined(__aarch64__)
#define FA_SYS_RAW 1
static inline long fa__sys6(long n, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			     : "rcx", "r11", "memory");
	return ret;
#else
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ __volatile__("svc 0"
			     : "+r"(x0)
			     : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			     : "memory", "cc");
	return x0;
#endif
}
#else
#define FA_SYS_RAW 0
long fa__sys6(long n, long a, long b, long c, long d, long e, long f);
#endif

int fa__sys_openat2(int dirfd, const char *path, const struct fa__open_how *how);
int fa__sys_openat(int dirfd, const char *path, int flags, mode_t mode);
int fa__sys_close(int fd);
ssize_t fa__sys_read(int fd, void *buf, size_t len);
ssize_t fa__sys_readlinkat(int dirfd, const char *path, char *buf, size_t len);
int fa__sys_statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st);
int fa__sys_getcwd(char *buf, size_t len);
int fa__sys_fcntl(int fd, int cmd, long arg);
int fa__sys_dup3(int oldfd, int newfd, int flags);
int fa__sys_getpid(void);
int fa__sys_fstatfs_magic(int fd, long *magic);
int fa__sys_nofile_limit(unsigned long *soft);
/* Anonymous private memory, or NULL. */
void *fa__sys_mmap(size_t len, int prot);
/* fd's first len bytes mapped shared, or NULL. */
void *fa__sys_mmap_shared(int fd, size_t len, int prot);
int fa__sys_munmap(void *addr, size_t len);
int fa__sys_mprotect(void *addr, size_t len, int prot);

/*
 * The mount dirfd/path lies on (a final symlink not followed, a mount
 * point seen as the mounted root): the kernel's mount id (5.8+), else a
 * value made from the device number. Only compared with other answers of
 * this call.
 */
int fa__sys_mount_id(int dirfd, const char *path, uint64_t *id);
/* STATX_MNT_ID, which older headers lack. */
#define FA_STATX_MNT_ID 0x1000u
/* The mount id a statx asked with FA_STATX_MNT_ID returned (the device before Linux 5.8). */
uint64_t fa__statx_mount_id(const struct statx *st);
/* The file type (S_IFMT bits) of dirfd/path, or -errno. */
int fa__sys_type(int dirfd, const char *path, int follow);

#endif
