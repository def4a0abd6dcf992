/*
 * fa_enums.h - the names the policy engine shares with its installed API:
 * symlink modes and the reasons for a refusal.
 *
 * Defined once, here, and included by both fa_policy.h (the engine) and
 * fa_workspace.h (installed with it), so a Workspace user compiles against
 * the engine's own values. Each mode is one row of FA_SYMLINKS_MODES: the
 * enum, its name in every front end (fa-run --symlinks, fa-check, FA_POLICY,
 * mk_audit(symlinks=), Workspace(symlinks=)) and its parser all come from
 * that row. Rows go from the most lenient to the strictest: a mode refuses
 * every path an earlier one refuses.
 */
#ifndef FA_ENUMS_H
#define FA_ENUMS_H

/* X(enumerator, name) */
#define FA_SYMLINKS_MODES(X)                                                              \
	X(FA_SYM_TRUST, "trust")       /* parent resolved like realpath, final link followed */ \
	X(FA_SYM_BENEATH, "beneath")   /* whole path, final link included, stays beneath the root */ \
	X(FA_SYM_NOFOLLOW, "nofollow") /* no symlink anywhere in the path */

#define FA__SYM_ENUMERATOR(id, name) id,
#define FA__SYM_ONE(id, name) +1
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
	FA_WHY_ERROR,          /* resolution failed for another reason; see err */
};

#endif
