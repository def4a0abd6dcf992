/*
 * raw_syscall.h - a system call made with the instruction itself, not
 * through libc's syscall(): what floor and floorstatic use for the writes
 * no preload can see. Needs no libc (floorstatic has none). Defines
 * HAVE_RAW_SYSCALL where the instruction is written out.
 */
#ifndef FA_TEST_RAW_SYSCALL_H
#define FA_TEST_RAW_SYSCALL_H

#if defined(__x86_64__) || defined(__aarch64__)
#define HAVE_RAW_SYSCALL 1

/* -errno on failure, as the kernel returns it. */
static inline long raw_syscall4(long nr, long a, long b, long c, long d)
{
	long ret;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
#else
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	ret = x0;
#endif
	return ret;
}
#endif

#endif
