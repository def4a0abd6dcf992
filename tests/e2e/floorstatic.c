/*
 * floorstatic PATH - a static program with no libc at all: it creates
 * PATH and writes "x" with the system call instruction. Exits 0 when the
 * write happened, else the errno that refused it (13: EACCES). No dynamic
 * loader ever runs, so no preload can see it: only the kernel can refuse.
 */
#include <fcntl.h>
#include <sys/syscall.h>

static long sys4(long nr, long a, long b, long c, long d)
{
	long ret;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	ret = x0;
#else
#error "floorstatic: x86_64 and aarch64 only"
#endif
	return ret;
}

static __attribute__((noreturn)) void quit(long status)
{
	for (;;)
		sys4(SYS_exit_group, status, 0, 0, 0);
}

/* Called from _start with the initial stack pointer (argc, argv...). */
__attribute__((used, noreturn)) void floor_main(long *sp)
{
	long argc = sp[0], fd;
	const char *path = (const char *)sp[2];

	if (argc < 2)
		quit(2);
	fd = sys4(SYS_openat, AT_FDCWD, (long)path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		quit(-fd);
	sys4(SYS_write, fd, (long)"x\n", 2, 0);
	sys4(SYS_close, fd, 0, 0, 0);
	quit(0);
}

#if defined(__x86_64__)
__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall floor_main\n");
#elif defined(__aarch64__)
__asm__(".globl _start\n_start:\n\tmov x0, sp\n\tbl floor_main\n");
#endif
