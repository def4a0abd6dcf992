/*
 * floorstatic PATH - a static program with no libc at all: it creates
 * PATH and writes "x" with the system call instruction. Exits 0 when the
 * write happened, else the errno that refused it (13: EACCES). No dynamic
 * loader ever runs, so no preload can see it: only the kernel can refuse.
 */
#include <fcntl.h>
#include <sys/syscall.h>

#include "raw_syscall.h"

#ifndef HAVE_RAW_SYSCALL
#error "floorstatic: x86_64 and aarch64 only"
#endif

static __attribute__((noreturn)) void quit(long status)
{
	for (;;)
		raw_syscall4(SYS_exit_group, status, 0, 0, 0);
}

/* Called from _start with the initial stack pointer (argc, argv...). */
__attribute__((used, noreturn)) void floor_main(long *sp)
{
	long argc = sp[0], fd;
	const char *path = (const char *)sp[2];

	if (argc < 2)
		quit(2);
	fd = raw_syscall4(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		quit(-fd);
	raw_syscall4(SYS_write, fd, (long)"x\n", 2, 0);
	raw_syscall4(SYS_close, fd, 0, 0, 0);
	quit(0);
}

#if defined(__x86_64__)
__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall floor_main\n");
#elif defined(__aarch64__)
__asm__(".globl _start\n_start:\n\tmov x0, sp\n\tbl floor_main\n");
#endif
