/* SPDX-License-Identifier: Apache-2.0 */
/*
 * linkfree_cache.c - paths found free of links beneath a root, kept per
 * thread, so that writing one file again and again asks the kernel once.
 *
 * fa_check_verdict() proves a path has no link on its way down from the
 * root's pinned directory, nor at its end, with one system call (judge.c,
 * linkfree_way()). The Python hook may keep that proof, handing the
 * engine a count (fa_trust_moves()) that grows with what can put a link
 * on a path proved free of them: a rename, a new symlink or hard link (a
 * mkdir or a new file cannot). An entry is good while the count is what
 * it was read as before the proof; a count of 0 keeps nothing. The
 * directory that held a path proved is kept too: a new name in it needs
 * its final component looked at, no more.
 *
 * Two counts serve. With libfashim.so loaded, the shim's (cwd_cache.c
 * fa_moves()): every rename, directory removal and link made through
 * libc, and the shim judges the very call the hook lets through, beneath
 * the pinned root again, so a proof gone stale costs only the hook's own
 * refusal (the shim refuses with EACCES and its note). Without it, the
 * hook's (pyhook's moves.c): the audit events that move or link, and no
 * trust while the process may have children; there the hook's allow is
 * the last word, and a link made where the hook cannot see it (native
 * code, another process, a mount) lets a write through it (README, "The
 * hook's kept proofs").
 */
#include "config.h"

#include <string.h>

#include "engine_internal.h"

#define NPATHS 8
#define NDIRS 4
#define KEPT_PATH 256

static uint64_t (*source)(void);

struct entry {
	const fa_policy *p;
	uint64_t gen;		/* 0: empty */
	unsigned how;
	unsigned short len, rootlen;
	char path[KEPT_PATH];
};

/* The thread's entries, in a block of its own (thread_block.c). */
struct kept {
	struct entry paths[NPATHS], dirs[NDIRS];
	unsigned next[2];
};
static struct fa__tblock blocks = FA__TBLOCK(struct kept);
static __thread void *my_kept;

void fa_trust_moves(uint64_t (*moves)(void))
{
	__atomic_store_n(&source, moves, __ATOMIC_SEQ_CST);
}

uint64_t fa__linkfree_gen(void)
{
	uint64_t (*fn)(void) = __atomic_load_n(&source, __ATOMIC_ACQUIRE);

	return fn ? fn() : 0;
}

/* The thread's table t (its length in *n), or NULL when it has none. */
static struct entry *table(enum fa__kept t, unsigned *n, struct kept **k)
{
	*k = fa__tblock(&blocks, &my_kept);
	*n = t == FA_KEPT_DIR ? NDIRS : NPATHS;
	if (!*k)
		return NULL;
	return t == FA_KEPT_DIR ? (*k)->dirs : (*k)->paths;
}

static int same_key(const struct entry *e, const fa_policy *p, const char *path, size_t len,
		    size_t rootlen, unsigned how)
{
	return e->p == p && e->len == len && e->rootlen == rootlen && e->how == how &&
	       fa__same(e->path, path, len);
}

int fa__linkfree_known(enum fa__kept t, const fa_policy *p, const char *path, size_t len,
		       size_t rootlen, unsigned how, uint64_t gen)
{
	unsigned i, n;
	struct kept *k;
	const struct entry *e;

	if (!gen || !(e = table(t, &n, &k)))
		return 0;
	for (i = 0; i < n; i++)
		if (e[i].gen == gen && same_key(&e[i], p, path, len, rootlen, how))
			return 1;
	return 0;
}

/* In the path's own stale entry if it has one, else in the next in turn. */
void fa__linkfree_keep(enum fa__kept t, const fa_policy *p, const char *path, size_t len,
		       size_t rootlen, unsigned how, uint64_t gen)
{
	unsigned i, n;
	struct kept *k;
	struct entry *e;

	if (!gen || len >= KEPT_PATH || !(e = table(t, &n, &k)))
		return;
	for (i = 0; i < n && !same_key(&e[i], p, path, len, rootlen, how); i++)
		;
	if (i == n)
		i = k->next[t]++ % n;
	e[i].p = p;
	e[i].gen = gen;
	e[i].how = how;
	e[i].len = (unsigned short)len;
	e[i].rootlen = (unsigned short)rootlen;
	memcpy(e[i].path, path, len);
}
