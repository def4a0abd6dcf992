/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine_internal.h - what the engine's files share with each other (and
 * with the Workspace API and the shim, which link the same convenience
 * library). Public names are fa_*, internal ones fa__*.
 */
#ifndef FA_ENGINE_INTERNAL_H
#define FA_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "fa_policy.h"
#include "fa_policy_layout.h"
#include "sys.h"

/* Bounded retry of openat2 on EAGAIN (libpathrs measured 128 as enough). */
#define FA__EAGAIN_RETRIES 128
/* Symlinks followed in one resolution, as the kernel's MAXSYMLINKS. */
#define FA__MAX_LINKS 40

static inline const char *fa__str(const fa_policy *p, const struct fa__ent *e)
{
	return p->pool + e->off;
}

/* ---- match.c: pure string work, no I/O ---- */

/*
 * The next component of the path at *s: skips slashes, returns where the
 * component starts with its length in *n, and leaves *s just past it;
 * NULL when only slashes are left. Every walk over a path's components
 * is this loop; inline because the lexical folder runs it on every write.
 */
static inline const char *fa__next_comp(const char **s, size_t *n)
{
	const char *p = *s, *c;

	while (*p == '/')
		p++;
	if (!*p) {
		*s = p;
		return NULL;
	}
	c = p;
	while (*p && *p != '/')
		p++;
	*n = (size_t)(p - c);
	*s = p;
	return c;
}

/*
 * n bytes of a and b equal. Inline, eight bytes a step: a root compare is
 * a few words, less than the call into memcmp.
 */
static inline int fa__same(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

	if (n < 8) {
		while (n && *a == *b)
			a++, b++, n--;
		return n == 0;
	}
	for (; n > 8; a += 8, b += 8, n -= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return 0;
	}
	/* The last word overlaps the one before: no byte loop for the tail. */
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

/* 1 if path (plen bytes) is base or lies below it, by whole components. */
static inline int fa__within(const char *path, size_t plen, const char *base, size_t blen)
{
	/* "/" holds every absolute path. */
	if (blen == 1 && base[0] == '/')
		return plen >= 1 && path[0] == '/';
	if (plen < blen || !fa__same(path, base, blen))
		return 0;
	return plen == blen || path[blen] == '/';
}
/*
 * Fold an absolute path lexically ('.', '//', 'a/..', '..' at '/' stays).
 * Returns the length, or -ENAMETOOLONG.
 */
ssize_t fa__fold_abs(const char *in, char *out, size_t len);
/* 1 if some component of path is "..". */
int fa__has_dotdot(const char *path);
/*
 * One pass over an absolute path: its length in *len, and FA__SCAN_FOLD if
 * folding would change it ('//', '.', a trailing '/'), FA__SCAN_DOTDOT if
 * a component is "..". 0: the path is already in folded form.
 */
#define FA__SCAN_FOLD 1
#define FA__SCAN_DOTDOT 2
int fa__scan_abs(const char *path, size_t *len);
/* The same for a path whose length is known. */
int fa__scan_abs_len(const char *path, size_t len);
/*
 * base (blen bytes, already folded, absolute) + rel with its empty and '.'
 * components dropped, into out. -EXDEV if rel has a '..' component,
 * -ENAMETOOLONG, -EINVAL for an absolute rel; else the length.
 */
ssize_t fa__join_clean(const char *base, size_t blen, const char *rel, char *out, size_t len);
/*
 * Split a path into its directory part and final component, ignoring
 * trailing slashes: *dlen is the length of the directory part (0 for a
 * bare name, 1 for "/x"), *name / *nlen the final component without
 * trailing slashes (nlen 0 only for "/" or a path of slashes).
 */
void fa__split(const char *path, size_t *dlen, const char **name, size_t *nlen);
/*
 * /dev/fd/N, /dev/stdin|stdout|stderr, /proc/self/fd/N,
 * /proc/thread-self/fd/N, /proc/<pid>/fd/N: N, or -1.
 */
int fa__fd_alias(const char *path, int pid);
/* Our pid when path could be /proc/<pid>/..., else 0: no syscall for the rest. */
static inline int fa__alias_pid(const char *path)
{
	return path[0] == '/' && path[1] == 'p' && path[2] == 'r' && path[3] == 'o' &&
	       path[4] == 'c' && path[5] == '/' ? fa__sys_getpid() : 0;
}
/* Join base (absolute) and rel into out; -ENAMETOOLONG if it does not fit. */
ssize_t fa__join(const char *base, size_t blen, const char *rel, char *out, size_t len);
/* The decimal form of n into buf; returns the length. */
size_t fa__utoa(unsigned long n, char *buf);

/* ---- glob.c: deny patterns ---- */

/*
 * Pattern pat (plen bytes, cleaned, no leading '/') against path (len
 * bytes, relative to where the pattern is anchored): 1 when it names path;
 * with prefix, 2 when it names something beneath path (path may hold a
 * match: moving or removing it moves or removes that too) and a leading
 * "**" is not all that got there; else 0.
 */
int fa__glob_match(const char *pat, size_t plen, const char *path, size_t len, int prefix);
/* FA__GLOB_ABS, FA__GLOB_ANY or FA__GLOB_ROOT for a cleaned pattern. */
int fa__glob_kind(const char *pat);
/* struct fa__glob's tail: how many segments follow a lone leading "**", else 0. */
int fa__glob_tail(const char *pat);
/*
 * fa__glob_match() without prefix for such a pattern: only the path's last
 * tail components can be what the segments name (each takes one).
 */
int fa__glob_tail_match(const char *pat, size_t plen, int tail, const char *path, size_t len);
/* The components a path must hold for pat to name it, as bits (struct fa__glob's need). */
uint64_t fa__glob_need(const char *pat);
/* The same bits of the components path holds: need & ~have means no match. */
uint64_t fa__glob_have(const char *path, size_t len);
/*
 * g's kind, tail, need and form for the cleaned pattern pat; the literal
 * the form tests, escapes taken, into lit (strlen(pat) + 1 bytes), its
 * length the return value. The caller keeps it in the pool (g->lit).
 */
size_t fa__glob_compile(struct fa__glob *g, const char *pat, char *lit);
/* At sealing: p->gset and p->root_have from the patterns and roots. */
void fa__glob_seal(fa_policy *p);
/*
 * A pattern as given, '~' already expanded, in the one form it is kept
 * in: no "." or empty segments, "dir/" as dir with a final "**". The length, or -errno
 * with *err saying what is wrong (NULL when it is only too long).
 */
ssize_t fa__glob_clean(const char *in, char *out, size_t len, const char **err);
struct fa__jctx;
/*
 * The index of the first pattern of the kind (read or write) that names
 * path (absolute, judged): *how 1; with prefix, else one that names
 * something beneath it: *how 2; -1 for none. root and rootlen: the root
 * (fa__find_root()) that holds path, -1 for none, when the caller knows
 * it; FA__GLOB_ROOT_UNKNOWN when not.
 */
#define FA__GLOB_ROOT_UNKNOWN (-2)
int fa__glob_find(struct fa__jctx *c, const char *path, size_t len, int read, int prefix,
		  int root, size_t rootlen, int *how);

/* ---- resolve*.c ---- */

/*
 * Like openat2(dirfd, path, {flags, mode, resolve}), with EAGAIN retried
 * a bounded number of times and the O_PATH walk used when openat2 is
 * missing, refused, or forced off. Returns an fd or -errno.
 */
int fa__open(int dirfd, const char *path, int flags, mode_t mode, unsigned resolve);
int fa__open_openat2(int dirfd, const char *path, int flags, mode_t mode, unsigned resolve);
int fa__open_walk(int dirfd, const char *path, int flags, mode_t mode, unsigned resolve);
/* 1 when fa__open takes the openat2 route. */
int fa__openat2_usable(void);
/* Flags openat2 accepts (it refuses unknown bits, unlike openat): resolve_openat2.c. */
int fa__openat2_flags(int flags);

/* ---- fd_path.c ---- */
/* The absolute path an fd names (readlink of /proc/self/fd/N); length or -errno. */
ssize_t fa__fd_path(int fd, char *buf, size_t len);

/* ---- thread_block.c: a cache's memory, one block per thread ---- */
struct fa__tblock {
	size_t size;		/* what the cache keeps per thread */
	int state;		/* its key: none yet, being made, ready, not to be had */
	pthread_key_t key;
};
#define FA__TBLOCK(type) { sizeof(type), 0, 0 }
void *fa__tblock_new(struct fa__tblock *b, void **mine);
/*
 * The calling thread's block of b (zeroed when new), whose address the
 * thread keeps in *mine (a __thread pointer); NULL when none can be had.
 */
static inline void *fa__tblock(struct fa__tblock *b, void **mine)
{
	return *mine ? *mine : fa__tblock_new(b, mine);
}

/* ---- cwd_cache.c ---- */
struct fa__cwdv {
	const char *path;	/* the thread's copy: valid until the next call */
	size_t len;
	unsigned long gen;	/* the generation it is current for */
};
/* 1 with *v filled when the cache is on and current (refilled if need be). */
int fa__cwd_cached(struct fa__cwdv *v);
/* 1 if the directory may have changed since *v was taken. */
int fa__cwd_moved(const struct fa__cwdv *v);
/* The generation copies are stamped with: 0 while off or while a change is under way. */
unsigned long fa__cwd_generation(void);
/* The process whose memory holds the copies (a vfork child is not it). */
int fa__cwd_owner(void);

/* ---- linkfree_cache.c: paths proved free of links, per thread ---- */
/* The caller's count of moves (fa_trust_moves()), or 0: keep nothing. */
uint64_t fa__linkfree_gen(void);
/*
 * path (absolute, folded, len bytes, its root rootlen of them) was proved
 * to meet no link from p's root down to its end, with these RESOLVE_*
 * flags, under count gen. Two tables: the paths judged (FA_KEPT_PATH), and
 * the directories that held them (FA_KEPT_DIR), so that a new name in a
 * directory proved asks after its final component alone.
 */
enum fa__kept { FA_KEPT_PATH, FA_KEPT_DIR };
int fa__linkfree_known(enum fa__kept t, const fa_policy *p, const char *path, size_t len,
		       size_t rootlen, unsigned how, uint64_t gen);
void fa__linkfree_keep(enum fa__kept t, const fa_policy *p, const char *path, size_t len,
		       size_t rootlen, unsigned how, uint64_t gen);

/* ---- dirfd_cache.c ---- */
/*
 * How much the caller relies on the name of a dirfd:
 *   FA_DIRFD_NOW    it acts on the name: read from the kernel now, never
 *                   from a copy (a directory moved by another process is
 *                   found where it lies);
 *   FA_DIRFD_SAME   it judges by the name and acts through dirfd: a copy
 *                   serves once a statx shows dirfd is the directory it
 *                   was taken for;
 *   FA_DIRFD_KEPT   the same, and the copy serves without a system call
 *                   while nothing the caller sees may have changed it.
 * A copy can name where the directory was before a process outside the
 * caller's sight moved it: a judgement that can be stale, never a place
 * to act in.
 */
enum fa__dirfd_trust { FA_DIRFD_NOW, FA_DIRFD_SAME, FA_DIRFD_KEPT };
/*
 * The absolute path the directory dirfd names; length, or -errno with
 * *why set (not a directory, removed).
 */
ssize_t fa__dirfd_path(int dirfd, char *out, size_t len, enum fa__dirfd_trust trust,
		       enum fa_why *why);
/* What the number fd has been through: a change means it may name something else. */
unsigned fa__fd_gen(int fd);

/* ---- parent_cache.c: the last directory pinned, kept open ---- */
/*
 * The kept descriptor of path (folded, absolute) resolved beneath its root
 * of p with these RESOLVE_* flags under the current generation, now the
 * caller's until fa__parent_release(); -1 when it holds another, is busy,
 * or is no longer the directory rel beneath base (the same path, as the
 * caller would open it) names now.
 */
int fa__parent_take(const fa_policy *p, const char *path, size_t len, unsigned how, int base,
		    const char *rel);
/*
 * fd, just resolved for path under generation gen, kept in the caller's
 * place: the kept number is returned (the caller's until released) and fd
 * closed, or fd itself when it cannot be kept.
 */
int fa__parent_keep(int fd, const fa_policy *p, const char *path, size_t len, unsigned how,
		    unsigned long gen);
/* Where a pinned directory's fd would be closed: the kept one is given back. */
void fa__parent_release(int fd);

/* ---- policy.c ---- */
int fa__policy_ok(const fa_policy *p);
/* Resolve an absolute path like realpath, keeping a missing tail lexically. */
ssize_t fa__realpath_prefix(const char *abs, char *out, size_t len, int *missing);

/* ---- order.c: what the kernel would answer first ---- */

/* What a call needs of its path before the kernel asks for permission. */
enum fa__must {
	FA__MUST_BE_NEW,		/* mkdir, mknod: EEXIST if it is there */
	FA__MUST_BE_NEW_FILE,		/* link, symlink: the same, and no "name/" */
	FA__MUST_EXIST,			/* unlink, rename's source, lchown */
	FA__MUST_EXIST_PLAIN,		/* rmdir, remove: the same, by a name other than "." or ".." */
	FA__MUST_EXIST_FOLLOWED,	/* chmod, chown, truncate: a final link followed */
	FA__MUST_BE_DIR,		/* O_TMPFILE, chdir: the directory itself */
	FA__MUST_HAVE_PARENT,		/* rename's destination: created or replaced */
};
/* What op needs of its path. */
enum fa__must fa__must_for(enum fa_op op);
/*
 * After a denial: the errno the kernel would fail the call with before
 * any permission check, or 0 when it would have performed it.
 */
int fa__kernel_first(enum fa__must must, int dirfd, const char *path);
/* The same for an open with these flags. */
int fa__kernel_first_open(int dirfd, const char *path, int flags);

/* ---- deep.c: below PATH_MAX's depth ---- */

struct fa__jctx;
struct fa__rule;
/*
 * (dirfd, path) relative, its absolute form longer than PATH_MAX: judge
 * the directory the rule looks at by identity and return it opened
 * (O_PATH) with *name the final component to act on ("." when the rule
 * judges the object itself). -EACCES with *d filled on a denial, another
 * -errno when the kernel cannot reach it.
 */
int fa__deep_pin(struct fa__jctx *c, const struct fa__rule *rule, int dirfd, const char *path,
		 struct fa_decision *d, const char **name);

/* ---- judge.c: the judge shared by fa_check*, fa_openat, fa_pin_parent ---- */

/*
 * Per-call state: the policy and the current directory, read at most once
 * (into cwdbuf, or taken from the per-thread copy of cwd_cache.c when 'cached'
 * allows it).
 */
struct fa__jctx {
	const fa_policy *p;
	unsigned how;		/* FA_HOW_* of the call */
	int cached;		/* a pure decision: the cached cwd may serve */
	int by_name;		/* acts on the judged name, never through a dirfd */
	int verdict_only;	/* d->err of an allow is not wanted (fa_check_verdict) */
	int cwdlen;		/* 0: not read yet; -1: unknown */
	const char *cwd;
	char cwdbuf[PATH_MAX];
};

static inline void fa__jctx_init(struct fa__jctx *c, const fa_policy *p, unsigned how)
{
	c->p = p;
	c->how = how;
	c->cached = 0;
	c->by_name = 0;
	c->verdict_only = 0;
	c->cwdlen = 0;
	c->cwd = c->cwdbuf;
}

/* Which path an operation judges, and how. */
struct fa__rule {
	int self;		/* the target itself must be inside (else: its parent) */
	int follow;		/* a final symlink is followed (per the mode) */
	int protect;		/* the target may not be a deny dir or hold one */
	/*
	 * A link's target: a chain of links that never ends (the kernel's
	 * ELOOP) reaches nothing, and is judged by every place it names.
	 */
	int loops;
	enum fa_why outside;	/* the reason given when outside every root */
};

struct fa__res {
	char *path;		/* PATH_MAX buffer: the real directory (best known form) */
	int pfd;		/* its O_PATH fd, -1 if none */
	int pfd_owned;
	int root;
	int err;		/* positive errno met during resolution */
	enum fa_why why;	/* a resolution-level denial (symlink, magic link) */
};

/* The parent a checked operation acts in. */
struct fa__pinned {
	int fd;
	int owned;
	int err;		/* why there is no fd (the parent does not exist...) */
	int followed;		/* a final symlink was followed while judging */
};

/*
 * 1: unrestricted, 0: to be judged, or -errno with *d filled. *len (if
 * not NULL): the length of path when 0 is returned.
 */
int fa__precheck(const fa_policy *p, const char *path, struct fa_decision *d, size_t *len);
void fa__rule_for(enum fa_op op, struct fa__rule *rule);
enum fa_verdict fa__judge_abs(struct fa__jctx *c, const char *abs, const struct fa__rule *rule,
			      struct fa_decision *d, struct fa__pinned *keep);
enum fa_verdict fa__check_one(struct fa__jctx *c, const struct fa__rule *rule, int write,
			      int dirfd, const char *path, struct fa_decision *d);

/* ---- where.c: the path a check judges, its root, its decision ---- */
const char *fa__cwd(struct fa__jctx *c);
/* The absolute form of (dirfd, path): length, or -errno with *why set. */
ssize_t fa__absolute(struct fa__jctx *c, int dirfd, const char *path, char *out, size_t len,
		     enum fa_why *why);
/* The root (longest match) that holds path, or -1. */
int fa__find_root(struct fa__jctx *c, const char *path, size_t plen, size_t *rootlen);
void fa__decide(struct fa_decision *d, enum fa_verdict v, enum fa_why why, int root, int err);
/* RESOLVE_NO_XDEV when the call forbids mount crossings, else 0. */
static inline unsigned fa__xdev(const struct fa__jctx *c)
{
	return c->how & FA_HOW_NO_XDEV ? RESOLVE_NO_XDEV : 0;
}

/* ---- resolve_mode.c: a directory resolved under the symlink mode ---- */

/* Resolve the directory raw (absolute) into *r: its real path and O_PATH fd. */
void fa__resolve_dir(struct fa__jctx *c, const char *raw, struct fa__res *r);
/* The same for raw's parent; *name and *nlen: its final component, within raw. */
void fa__resolve_parent(struct fa__jctx *c, const char *raw, struct fa__res *r,
			const char **name, size_t *nlen);
void fa__res_close(struct fa__res *r);
/* Where resolution beneath a root starts: the cwd (a live cwd root), its pinned fd, or -1. */
static inline int fa__root_fd(const fa_policy *p, int root)
{
	return p->roots[root].cwd ? AT_FDCWD : p->roots[root].fd;
}
/*
 * 1 when a call under root walks the path's whole string from "/" (no
 * link, magic link or '..' allowed on it) rather than from the root's
 * pinned fd: for every caller but one that owns its tree (FA_HOW_STRICT,
 * the Workspace, whose roots are the directories pinned), so that a root
 * moved by a process out of sight changes no place a call acts in.
 */
static inline int fa__by_string(const struct fa__jctx *c, int root)
{
	return (c->how & FA_HOW_BY_PATH) ||
	       (!(c->how & FA_HOW_STRICT) && root >= 0 && !c->p->roots[root].cwd);
}
/* The base fd (fa__root_fd) and *rel for opening path beneath root. */
int fa__root_base(struct fa__jctx *c, int root, const char *path, size_t rootlen,
		  const char **rel);
/* in without '.' and empty components (keeping '..'): length or -ENAMETOOLONG. */
ssize_t fa__clean(const char *in, char *out, size_t len);
/*
 * openat2 answers EXDEV both for an escape and for a mount crossing: after
 * an EXDEV under NO_XDEV, 1 if the crossing was the cause (looked up again
 * as O_PATH without it, nothing opened for real).
 */
int fa__crossed_mount(int base, const char *rel, unsigned resolve);

#endif
