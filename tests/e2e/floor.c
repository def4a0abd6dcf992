/* SPDX-License-Identifier: Apache-2.0 */
/*
 * floor MODE ARG... - writes the preload cannot see, for the kernel floor
 * tests. Exits 0 when the write happened, else the errno that refused it
 * (13: EACCES; 38: ENOSYS, io_uring refused).
 *
 *   raw PATH            openat(O_CREAT) + write through the syscall
 *                       instruction itself: no libc function is called
 *   raw-truncate PATH   truncate(PATH, 0) through the syscall instruction
 *   raw-otrunc PATH     openat(PATH, O_RDONLY|O_TRUNC) through the syscall
 *                       instruction: a read-only open that truncates
 *   ioctl-dev PATH      open the device PATH read-only and ask it TCGETS:
 *                       0 when the driver answered (ENOTTY included), the
 *                       errno when the ioctl was refused; 77 when PATH
 *                       cannot be opened here
 *   uring-open PATH     an io_uring IORING_OP_OPENAT creating PATH
 *   uring-rename A B    an io_uring IORING_OP_RENAMEAT of A to B
 *   raw-exec PROG ARG...
 *                       execve(PROG) through the syscall instruction: the
 *                       preload's exec rules never see it; PROG's status
 *   no-landlock ERRNO PROG ARG...
 *                       run PROG with landlock_create_ruleset() failing
 *                       with ERRNO (a kernel or container without it)
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "sys.h"

static long raw3(long nr, long a, long b, long c, long d)
{
#if FA_SYS_RAW
	/* The engine's own trap: the same instruction, no libc on the way. */
	return fa__sys6(nr, a, b, c, d, 0, 0);
#else
	return syscall(nr, a, b, c, d); /* no raw form here: the test skips */
#endif
}

static int raw_write(const char *path)
{
	long fd = raw3(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return (int)-fd;
	raw3(SYS_write, fd, (long)"x\n", 2, 0);
	raw3(SYS_close, fd, 0, 0, 0);
	return 0;
}

static int raw_truncate(const char *path)
{
	long r = raw3(SYS_truncate, (long)path, 0, 0, 0);

	return r < 0 ? (int)-r : 0;
}

static int raw_otrunc(const char *path)
{
	long fd = raw3(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_TRUNC, 0);

	if (fd < 0)
		return (int)-fd;
	raw3(SYS_close, fd, 0, 0, 0);
	return 0;
}

/* Landlock refuses a device ioctl (EACCES) before any driver sees it. */
static int ioctl_dev(const char *path)
{
	struct termios t;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
		return 77;
	}
	if (ioctl(fd, TCGETS, &t) < 0 && errno != ENOTTY && errno != EINVAL)
		return errno;
	close(fd);
	return 0;
}

/* One submission on a ring of one entry; the completion's res. */
static int uring_one(void (*fill)(struct io_uring_sqe *, char **), char **arg)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	unsigned *sq_tail, *sq_array, *cq_head, *cq_tail;
	char *sq, *cq;
	size_t sqlen, cqlen;
	int fd, res;

	memset(&p, 0, sizeof(p));
	fd = (int)syscall(__NR_io_uring_setup, 1, &p);
	if (fd < 0)
		return -errno;
	sqlen = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cqlen = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if ((p.features & IORING_FEAT_SINGLE_MMAP) && cqlen > sqlen)
		sqlen = cqlen;
	sq = mmap(NULL, sqlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		  IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cqlen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
			  IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -errno;
	}
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sqes == MAP_FAILED)
		return -errno;
	sq_tail = (unsigned *)(sq + p.sq_off.tail);
	sq_array = (unsigned *)(sq + p.sq_off.array);
	cq_head = (unsigned *)(cq + p.cq_off.head);
	cq_tail = (unsigned *)(cq + p.cq_off.tail);
	memset(&sqes[0], 0, sizeof(sqes[0]));
	fill(&sqes[0], arg);
	sq_array[0] = 0;
	__atomic_store_n(sq_tail, *sq_tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head)
		return -EIO;
	cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) + (*cq_head & *(unsigned *)(cq + p.cq_off.ring_mask));
	res = cqe->res;
	__atomic_store_n(cq_head, *cq_head + 1, __ATOMIC_RELEASE);
	close(fd);
	return res;
}

static void fill_open(struct io_uring_sqe *s, char **arg)
{
	s->opcode = IORING_OP_OPENAT;
	s->fd = AT_FDCWD;
	s->addr = (unsigned long)arg[0];
	s->len = 0644;
	s->open_flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
}

static void fill_rename(struct io_uring_sqe *s, char **arg)
{
	s->opcode = IORING_OP_RENAMEAT;
	s->fd = AT_FDCWD;
	s->addr = (unsigned long)arg[0];
	s->len = (unsigned)AT_FDCWD;
	s->addr2 = (unsigned long)arg[1];
}

/* landlock_create_ruleset() fails with err; everything else runs. */
static int no_landlock(int err)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 444 /* landlock_create_ruleset */, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned)(err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
	extern char **environ;
	int r;

	if (argc >= 3 && !strcmp(argv[1], "raw")) {
#if !defined(__x86_64__) && !defined(__aarch64__)
		return 77;
#endif
		return raw_write(argv[2]);
	}
	if (argc >= 3 && !strcmp(argv[1], "raw-truncate")) {
#if !defined(__x86_64__) && !defined(__aarch64__)
		return 77;
#endif
		return raw_truncate(argv[2]);
	}
	if (argc >= 3 && !strcmp(argv[1], "raw-otrunc")) {
#if !defined(__x86_64__) && !defined(__aarch64__)
		return 77;
#endif
		return raw_otrunc(argv[2]);
	}
	if (argc >= 3 && !strcmp(argv[1], "ioctl-dev"))
		return ioctl_dev(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "raw-exec")) {
#if !defined(__x86_64__) && !defined(__aarch64__)
		return 77;
#endif
		return (int)-raw3(SYS_execve, (long)argv[2], (long)(argv + 2), (long)environ, 0);
	}
	if (argc >= 3 && !strcmp(argv[1], "uring-open")) {
		r = uring_one(fill_open, argv + 2);
		if (r >= 0) {
			if (write(r, "x\n", 2) != 2)
				return errno;
			close(r);
		}
		return r < 0 ? -r : 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "uring-rename")) {
		r = uring_one(fill_rename, argv + 2);
		return r < 0 ? -r : 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "no-landlock")) {
		if (no_landlock(atoi(argv[2])) < 0) {
			perror("floor: seccomp");
			return 99;
		}
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
	fprintf(stderr, "usage: floor raw|raw-truncate|raw-otrunc|ioctl-dev|raw-exec|uring-open|"
		"uring-rename|no-landlock ...\n");
	return 2;
}
