/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fa_enums.h - the names the policy engine shares with its installed API:
 * symlink modes and the reasons for a refusal.
 *
 * Defined once, here, and included by both fa_policy.h (the engine) and
 * fa_workspace.h (installed with it), so a Workspace user compiles against
 * the engine's own values. Each mode is one row of FA_SYMLINKS_MODES: the
 * enum, its name in every front end (fa-run --symlinks, fa-check, FA_POLICY,
 * mk_audit(symlinks=), Workspace(symlinks=)), its parser, and what it
 * refuses, which orders the modes (fa_symlinks_as_strict()), all come from
 * that row.
 */
#ifndef FA_ENUMS_H
#define FA_ENUMS_H

/* The links a mode refuses (its "refuses" column): a mode with more bits is stricter. */
#define FA_SYML_ABSOLUTE 0x1u  /* an absolute link, wherever it points */
#define FA_SYML_ESCAPING 0x2u  /* a relative link that leads out of the root */
#define FA_SYML_INSIDE   0x4u  /* a relative link that stays beneath the root */

/* X(enumerator, name, refuses) */
#define FA_SYMLINKS_MODES(X)                                                              \
	/* parent resolved like realpath, final link followed, judged where it lands */       \
	X(FA_SYM_TRUST, "trust", 0)                                                           \
	/* whole path, final link included, stays beneath the root (openat2 RESOLVE_BENEATH) */ \
	X(FA_SYM_BENEATH, "beneath", FA_SYML_ABSOLUTE | FA_SYML_ESCAPING)                     \
	/* no symlink anywhere in the path */                                                 \
	X(FA_SYM_NOFOLLOW, "nofollow", FA_SYML_ABSOLUTE | FA_SYML_ESCAPING | FA_SYML_INSIDE)

#define FA__SYM_ENUMERATOR(id, name, refuses) id,
#define FA__SYM_ONE(id, name, refuses) +1
enum fa_symlinks { FA_SYMLINKS_MODES(FA__SYM_ENUMERATOR) };
enum { FA_SYM_NMODES = 0 FA_SYMLINKS_MODES(FA__SYM_ONE) };
#undef FA__SYM_ENUMERATOR
#undef FA__SYM_ONE

enum fa_why {
	FA_WHY_NONE = 0,
	FA_WHY_OUTSIDE,        /* not beneath any write root */
	FA_WHY_NO_ROOTS,       /* the policy has no roots at all */
	FA_WHY_DENY_SUBTREE,   /* inside a deny subtree */
	FA_WHY_PROTECTS_DENY,  /* the target is a deny dir or one of its ancestors */
	FA_WHY_SYMLINK,        /* a symlink not allowed by the symlink mode */
	FA_WHY_MAGICLINK,      /* a /proc magic link */
	FA_WHY_LINK_TARGET,    /* a symlink target or hard-link source outside the roots */
	FA_WHY_ESCAPES,        /* '..' climbs out of the root (fa-check, Workspace) */
	FA_WHY_ABSOLUTE,       /* absolute path where a relative one is required (Workspace) */
	FA_WHY_EMPTY,          /* empty path */
	FA_WHY_TOO_LONG,       /* longer than PATH_MAX */
	FA_WHY_BAD_FD,         /* dirfd is not an open directory */
	FA_WHY_XDEV,           /* crosses a mount point where the mode forbids it */
	FA_WHY_PORTABLE,       /* not a portable file name (reserved device name, ':', trailing dot) */
	FA_WHY_DENY_PATTERN,   /* a deny pattern names it, or something beneath it moved or removed */
	FA_WHY_DENY_READ,      /* a read-deny pattern names the file opened for reading */
	FA_WHY_ERROR,          /* resolution failed for another reason; see err */
};

#endif
