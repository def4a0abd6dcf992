/* SPDX-License-Identifier: Apache-2.0 */
/*
 * thread_block.c - the engine's per-thread caches (the cwd's path, what
 * dirfds name, paths proved free of links) in blocks mapped on a thread's
 * first use and unmapped when it ends, each reached through one pointer of
 * thread-local storage.
 *
 * Why not __thread arrays: libfashim.so is loaded with the program and
 * reaches its TLS with the initial-exec model, so its whole TLS segment
 * must fit in the static TLS block glibc sizes at start-up. With an
 * LD_AUDIT module loaded, glibc leaves less than 2 KB of it, and 15 KB of
 * cached paths made every program fail to load ("cannot allocate memory
 * in static TLS block").
 *
 * A block comes from a raw mmap, never from the application's malloc, and
 * goes back through a pthread key's destructor when its thread ends. The
 * key is made on first use; a key past the first 32 (for which glibc's
 * pthread_setspecific may allocate) is not used, and no block is had: the
 * caches then stay empty, which every caller takes as a miss.
 */
#include "config.h"

#include <pthread.h>
#include <sys/mman.h>

#include "engine_internal.h"

/* glibc's keys below this need no allocation in pthread_setspecific. */
#define FIRST_LEVEL_KEYS 32

enum { NO_KEY, MAKING, READY, NEVER };

struct head {
	void **mine;		/* the thread's pointer to this block */
	size_t len;
};

/* Room for the head, keeping the payload 16-byte aligned. */
#define HEAD 16
_Static_assert(sizeof(struct head) <= HEAD, "the head fits its room");

static void give_back(void *p)
{
	struct head *h = p;

	*h->mine = NULL;
	fa__sys_munmap(h, h->len);
}

static int key_ready(struct fa__tblock *b)
{
	int state = __atomic_load_n(&b->state, __ATOMIC_ACQUIRE), expect = NO_KEY;

	if (state == READY)
		return 1;
	if (state != NO_KEY ||
	    !__atomic_compare_exchange_n(&b->state, &expect, MAKING, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return 0;	/* being made by another thread, or not to be had */
	if (pthread_key_create(&b->key, give_back) != 0) {
		__atomic_store_n(&b->state, NEVER, __ATOMIC_RELEASE);
		return 0;
	}
	if ((unsigned long)b->key >= FIRST_LEVEL_KEYS) {
		pthread_key_delete(b->key);
		__atomic_store_n(&b->state, NEVER, __ATOMIC_RELEASE);
		return 0;
	}
	__atomic_store_n(&b->state, READY, __ATOMIC_RELEASE);
	return 1;
}

void *fa__tblock_new(struct fa__tblock *b, void **mine)
{
	size_t len = (HEAD + b->size + 4095) & ~(size_t)4095;
	struct head *h;

	if (!key_ready(b))
		return NULL;
	h = fa__sys_mmap(len, PROT_READ | PROT_WRITE);
	if (!h)
		return NULL;
	if (*mine) {
		/* A signal handler made one meanwhile: that one serves. */
		fa__sys_munmap(h, len);
		return *mine;
	}
	h->mine = mine;
	h->len = len;
	if (pthread_setspecific(b->key, h) != 0) {
		fa__sys_munmap(h, len);
		return NULL;
	}
	*mine = (char *)h + HEAD;
	return *mine;
}
