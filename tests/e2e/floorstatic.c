/* SPDX-License-Identifier: Apache-2.0 */
/*
 * floorstatic PATH - a static program with no libc at all: it creates
 * PATH and writes "x" with the system call instruction. Exits 0 when the
 * write happened, else the errno that refused it (13: EACCES). No dynamic
 * loader ever runs, so no preload can see it: only the kernel can refuse.
 */
#include "config.h"

#include <fcntl.h>
#include <sys/syscall.h>

/* The engine's trap instruction: the header only, no libc is linked. */
#include "sys.h"

#if !FA_SYS_RAW
#error "floorstatic: x86_64 and aarch64 only"
#endif

static __attribute__((noreturn)) void quit(long status)
{
	for (;;)
		fa__sys6(SYS_exit_group, status, 0, 0, 0, 0, 0);
}

/* Called from _start with the initial stack pointer (argc, argv...). */
__attribute__((used, noreturn)) void floor_main(long *sp)
{
	long argc = sp[0], fd;
	const char *path = (const char *)sp[2];

	if (argc < 2)
		quit(2);
	fd = fa__sys6(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644, 0, 0);
	if (fd < 0)
		quit(-fd);
	fa__sys6(SYS_write, fd, (long)"x\n", 2, 0, 0, 0);
	fa__sys6(SYS_close, fd, 0, 0, 0, 0, 0);
	quit(0);
}

#if defined(__x86_64__)
__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall floor_main\n");
#elif defined(__aarch64__)
__asm__(".globl _start\n_start:\n\tmov x0, sp\n\tbl floor_main\n");
#endif
