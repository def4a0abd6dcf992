/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fa_policy_layout.h - the layout of a sealed policy in memory.
 *
 * A policy is read in place by whichever copy of the engine is handed its
 * pointer: the Python extension builds one with its own engine and passes
 * it to the shim's through the bridge (src/shim/fa_bridge.h). So this
 * layout is part of what crosses, and FA_POLICY_LAYOUT fingerprints it
 * (every size, offset and limit below) for the bridge's ABI check. Only
 * the engine reads the fields; everyone else goes through fa_policy.h.
 */
#ifndef FA_POLICY_LAYOUT_H
#define FA_POLICY_LAYOUT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "fa_policy.h"

#define FA__MAX_ROOTS 64
#define FA__MAX_DENY 64
#define FA__MAX_GLOB 64
#define FA__POLICY_MAGIC 0x66617031u

struct fa__ent {
	int fd;		/* pinned O_PATH directory fd, or -1 */
	int cwd;	/* root: the live current directory */
	int root;	/* deny: index of the root that holds it */
	uint32_t off;	/* the path, in the pool */
	uint32_t len;
};

/* A deny pattern (glob.c): the cleaned text in the pool, and how it is anchored. */
enum { FA__GLOB_ROOT, FA__GLOB_ANY, FA__GLOB_ABS };
/*
 * What a pattern is compiled to when it is added: most are one literal
 * tested without the general walk. ANY: "**" "/" NAME, "**" "/" "*" SUFFIX,
 * "**" "/" NAME "/" "**"; ROOT and ABS: literal segments, alone or then
 * "/" "**". GENERAL: the walk, after its literal leading segments.
 */
enum {
	FA__GLOB_GENERAL,
	FA__GLOB_NAME,		/* the path's last component is the literal */
	FA__GLOB_SUFFIX,	/* the path's last component ends with it */
	FA__GLOB_DIR,		/* a component of the path is it */
	FA__GLOB_EXACT,		/* the path beneath the anchor is it */
	FA__GLOB_SUBTREE,	/* the path beneath the anchor is it or beneath it */
	FA__GLOB_NFORMS
};
struct fa__glob {
	uint32_t off;	/* the pattern, in the pool */
	uint32_t len;
	int kind;	/* FA__GLOB_*: beneath each root, at any depth, from / */
	int read;	/* 1: keeps matching files from being read; 0: from being written */
	/*
	 * A leading "**" and no other: how many segments follow it, which
	 * name the path's last components (a match looks at those alone);
	 * else 0.
	 */
	int tail;
	/*
	 * One bit per whole-component literal segment (".git") and per
	 * extension segment ("*.pem"): a path lacking one of them cannot
	 * match, which a write finds with one pass over the path.
	 */
	uint64_t need;
	int form;	/* FA__GLOB_NAME...: what the pattern was compiled to */
	/*
	 * The literal its form tests, escapes taken, in the pool; for a
	 * GENERAL ROOT or ABS pattern its leading literal segments ("" if none).
	 */
	uint32_t lit;
	uint32_t litlen;
};

/* The patterns by form, as bits of their indices (glob.c), set by sealing. */
struct fa__glob_set {
	uint64_t of[2];			/* by read: the patterns that judge writes, reads */
	uint64_t form[FA__GLOB_NFORMS];
	uint64_t last;			/* NAME, SUFFIX: a bit for each literal's last byte */
	uint64_t dir_lens;		/* DIR: a bit for each literal's length */
	uint64_t rooted;		/* the ROOT patterns */
	uint64_t headless;		/* ROOT patterns with no literal leading segment */
	uint64_t heads;			/* a bit for each ROOT literal's first segment */
	uint64_t absolute;		/* the ABS patterns */
	uint64_t abs_headless;		/* ABS patterns with no literal leading segment */
	uint64_t abs_heads;		/* a bit for each ABS literal's first segment */
	uint64_t root_dirs[FA__MAX_ROOTS];	/* DIR patterns a root's own components satisfy */
	/* heads' bits of the first component of a root beneath each root above it */
	uint64_t root_heads[FA__MAX_ROOTS];
};

/*
 * The whole policy lives in one anonymous mapping, made read-only by
 * fa_policy_seal(): nothing is allocated through malloc, and code running
 * under the policy cannot loosen it by writing to it.
 */
struct fa_policy {
	uint32_t magic;
	int sealed;
	int unrestricted;
	int symlinks;
	int outside_symlinks;	/* symlinks may be created whatever their target */
	int nroots;
	int ndeny;
	/*
	 * mk_audit(learn=True): judged as usual, but libfashim.so reports a
	 * refusal and lets the call through. In what was padding on 64-bit
	 * targets: the sizes and offsets of the other fields stay.
	 */
	int learning;
	size_t mapsize;
	size_t used;
	struct fa__ent roots[FA__MAX_ROOTS];
	struct fa__ent deny[FA__MAX_DENY];
	int nglob;		/* patterns in globs[], of both kinds */
	int wglobs;		/* how many deny writes: 0 costs a write nothing */
	int rglobs;		/* how many deny reads: 0 costs a read nothing */
	struct fa__glob globs[FA__MAX_GLOB];
	/* Each root's own components as a pattern filter sees them (glob.c), set by sealing. */
	uint64_t root_have[FA__MAX_ROOTS];
	struct fa__glob_set gset;
	char pool[];
};


/* One step of a 32-bit FNV-1-style fold, a constant expression. */
#define FA_ABI_MIX(h, v) ((uint32_t)((uint32_t)(h) * 0x01000193u) ^ (uint32_t)(v))

#define FA__OFF(h, type, member) FA_ABI_MIX(h, offsetof(type, member))
#define FA__ENT_LAYOUT(h)                                                        \
	FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA_ABI_MIX(h, sizeof(struct fa__ent)), \
	struct fa__ent, fd), struct fa__ent, cwd), struct fa__ent, root),           \
	struct fa__ent, off), struct fa__ent, len)
#define FA__GLOB_LAYOUT(h)                                                       \
	FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA_ABI_MIX(h, sizeof(struct fa__glob)), \
	struct fa__glob, off), struct fa__glob, len), struct fa__glob, kind),       \
	struct fa__glob, read), struct fa__glob, tail), struct fa__glob, need)
/*
 * The compiled forms' fields, folded in flat: one mix of a weighted sum
 * of their offsets and sizes. Each nested mix is brackets deeper, and
 * compilers bound that depth (clang: 256) in the fingerprint the bridge
 * takes.
 */
#define FA__FORMS_LAYOUT(h)                                                      \
	FA_ABI_MIX(h, offsetof(struct fa__glob, form) * 3u + offsetof(struct fa__glob, lit) * 5u + \
	offsetof(struct fa__glob, litlen) * 7u + sizeof(struct fa__glob_set) * 11u +   \
	FA__GLOB_NFORMS * 13u + offsetof(struct fa__glob_set, of) * 17u +            \
	offsetof(struct fa__glob_set, form) * 19u + offsetof(struct fa__glob_set, last) * 23u + \
	offsetof(struct fa__glob_set, dir_lens) * 29u +                             \
	offsetof(struct fa__glob_set, rooted) * 31u +                               \
	offsetof(struct fa__glob_set, headless) * 37u +                             \
	offsetof(struct fa__glob_set, heads) * 41u +                                \
	offsetof(struct fa__glob_set, absolute) * 43u +                             \
	offsetof(struct fa__glob_set, abs_headless) * 47u +                         \
	offsetof(struct fa__glob_set, abs_heads) * 53u +                            \
	offsetof(struct fa__glob_set, root_dirs) * 59u +                            \
	offsetof(struct fa__glob_set, root_heads) * 61u)
#define FA__POLICY_FIELDS(h)                                                      \
	FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(                              \
	FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF(FA__OFF( \
	FA__OFF(FA__OFF(FA__OFF(FA_ABI_MIX(h, sizeof(struct fa_policy)),            \
	struct fa_policy, magic), struct fa_policy, sealed),                        \
	struct fa_policy, unrestricted), struct fa_policy, symlinks),               \
	struct fa_policy, outside_symlinks), struct fa_policy, nroots),             \
	struct fa_policy, ndeny), struct fa_policy, learning),                      \
	struct fa_policy, mapsize),                                                 \
	struct fa_policy, used), struct fa_policy, roots),                          \
	struct fa_policy, deny), struct fa_policy, nglob),                          \
	struct fa_policy, wglobs), struct fa_policy, rglobs),                       \
	struct fa_policy, globs), struct fa_policy, root_have), struct fa_policy, gset), \
	struct fa_policy, pool)
/* The limits a reader relies on, then the fields. */
#define FA_POLICY_LAYOUT                                                          \
	FA__POLICY_FIELDS(FA__FORMS_LAYOUT(FA__GLOB_LAYOUT(FA__ENT_LAYOUT(          \
	FA_ABI_MIX(FA_ABI_MIX(FA_ABI_MIX(FA_ABI_MIX(FA_ABI_MIX(FA_ABI_MIX(          \
	FA_ABI_MIX(0x811c9dc5u, FA__POLICY_MAGIC),                                   \
	FA__MAX_ROOTS), FA__MAX_DENY), FA__MAX_GLOB), PATH_MAX), FA_SYM_NMODES),    \
	FA_OP_NCLASSES)))))

#endif
