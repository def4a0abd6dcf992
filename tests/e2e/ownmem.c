/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ownmem.c - a program with memory functions of its own (mmap, munmap,
 * malloc and friends) that fail until main has set them up, as a program
 * with its own allocator may: the shim, which runs before main, must not
 * call them. Writes ok to IN, then tries OUT; prints what the second
 * open answered.
 *
 *   ownmem IN OUT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int ready;
static char heap[1 << 20];
static size_t used;

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	(void)addr, (void)len, (void)prot, (void)flags, (void)fd, (void)off;
	errno = ready ? ENOSYS : ENOMEM;
	return MAP_FAILED;
}

int munmap(void *addr, size_t len)
{
	(void)addr, (void)len;
	errno = EFAULT;
	return -1;
}

void *malloc(size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (!ready || used + n > sizeof(heap)) {
		errno = ENOMEM;
		return NULL;
	}
	used += n;
	return heap + used - n;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t a, size_t b)
{
	void *p = b && a > sizeof(heap) / b ? NULL : malloc(a * b);

	if (p)
		memset(p, 0, a * b);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q = malloc(n);

	if (q && p)
		memmove(q, p, n);	/* the heap only grows: p's bytes lie below q */
	return q;
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 3)
		return 2;
	ready = 1;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "ok\n", 3) != 3)
		return 1;
	close(fd);
	fd = open(argv[2], O_WRONLY | O_CREAT, 0644);
	printf("%s\n", fd >= 0 ? "opened" : strerror(errno));
	return 0;
}
