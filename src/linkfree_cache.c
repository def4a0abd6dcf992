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
 * it was read as before the proof; a count of 0 keeps nothing.
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

#define NKEPT 8
#define KEPT_PATH 256

static uint64_t (*source)(void);

static __thread struct {
	const fa_policy *p;
	uint64_t gen;		/* 0: empty */
	unsigned how;
	unsigned short len, rootlen;
	char path[KEPT_PATH];
} kept[NKEPT];
static __thread unsigned next;

void fa_trust_moves(uint64_t (*moves)(void))
{
	__atomic_store_n(&source, moves, __ATOMIC_SEQ_CST);
}

uint64_t fa__linkfree_gen(void)
{
	uint64_t (*fn)(void) = __atomic_load_n(&source, __ATOMIC_ACQUIRE);

	return fn ? fn() : 0;
}

static int same_key(unsigned i, const fa_policy *p, const char *path, size_t len,
		    size_t rootlen, unsigned how)
{
	return kept[i].p == p && kept[i].len == len && kept[i].rootlen == rootlen &&
	       kept[i].how == how && fa__same(kept[i].path, path, len);
}

int fa__linkfree_known(const fa_policy *p, const char *path, size_t len, size_t rootlen,
		       unsigned how, uint64_t gen)
{
	unsigned i;

	for (i = 0; i < NKEPT; i++)
		if (kept[i].gen == gen && same_key(i, p, path, len, rootlen, how))
			return 1;
	return 0;
}

/* In the path's own stale entry if it has one, else in the next in turn. */
void fa__linkfree_keep(const fa_policy *p, const char *path, size_t len, size_t rootlen,
		       unsigned how, uint64_t gen)
{
	unsigned i;

	if (!gen || len >= KEPT_PATH)
		return;
	for (i = 0; i < NKEPT && !same_key(i, p, path, len, rootlen, how); i++)
		;
	if (i == NKEPT)
		i = next++ % NKEPT;
	kept[i].p = p;
	kept[i].gen = gen;
	kept[i].how = how;
	kept[i].len = (unsigned short)len;
	kept[i].rootlen = (unsigned short)rootlen;
	memcpy(kept[i].path, path, len);
}
