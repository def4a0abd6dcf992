/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fa_policy.h - the one policy engine.
 *
 * Used by libfashim.so, fa-run, fa-check, the Workspace API and the Python
 * extension. Nothing here allocates through malloc after fa_policy_seal()
 * (the policy lives in its own mmap'd arena), takes a lock, or calls a libc
 * function that the shim interposes: raw syscalls go through src/sys.h.
 *
 * Errors are returned as -errno; errno itself is never relied upon.
 */
#ifndef FA_POLICY_H
#define FA_POLICY_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fa_enums.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fa_policy fa_policy;

/*
 * Operation classes: which path is judged, and whether a deny subtree is
 * protected "as a whole" (the target itself may not be a deny dir or an
 * ancestor of one).
 */
/* X(enumerator, name); the name is the one logs, JSON and Python speak. */
#define FA_OPS(X)                                                                         \
	X(FA_OP_WRITE, "write")       /* open for writing/creating, truncate(path): the parent */ \
	X(FA_OP_CREATE, "create")     /* mkdir, mknod, mkfifo, bind(AF_UNIX), mk*temp: the parent */ \
	X(FA_OP_REMOVE, "remove")     /* unlink, rmdir, remove: the parent; deny subtrees protected */ \
	X(FA_OP_ATTR, "attr")         /* chmod, chown, xattr: the parent; deny subtrees protected */ \
	X(FA_OP_DIR, "dir")           /* the path itself is a directory written into (O_TMPFILE, tempfile dir) */ \
	X(FA_OP_CHDIR, "chdir")       /* the destination itself */ \
	X(FA_OP_RENAME, "rename")     /* two paths: source protected like REMOVE, destination like WRITE */ \
	X(FA_OP_EXCHANGE, "exchange") /* two paths, both protected like REMOVE */ \
	X(FA_OP_LINK, "link")         /* two paths: the source must resolve inside a root; destination like CREATE */ \
	X(FA_OP_SYMLINK, "symlink")   /* path = the new link (CREATE); path2 = target text, must resolve inside a root */ \
	X(FA_OP_LATTR, "lattr")       /* lchown, lutimes, AT_SYMLINK_NOFOLLOW: ATTR on the entry itself, final link not followed */ \
	X(FA_OP_REPLACE, "replace")   /* a rename's destination: the parent, like CREATE, but an entry there is replaced */ \
	X(FA_OP_READ, "read")         /* a read-open: the file itself, by the read patterns alone (fa_check_read) */

#define FA__OP_ENUMERATOR(id, name) id,
#define FA__OP_ONE(id, name) +1
enum fa_op { FA_OPS(FA__OP_ENUMERATOR) };
enum { FA_OP_NCLASSES = 0 FA_OPS(FA__OP_ONE) };
#undef FA__OP_ENUMERATOR
#undef FA__OP_ONE

enum fa_verdict {
	FA_ALLOW = 0,
	FA_DENY,        /* a real, resolvable path that the policy does not allow */
	FA_REJECT,      /* the request itself is unusable (empty, too long, escapes lexically, bad fd) */
};

/* "outside-roots", "deny-subtree", ... : stable identifiers for logs and JSON. */
const char *fa_why_name(enum fa_why why);
/* A short human sentence: "not under any allowed root", ... */
const char *fa_why_text(enum fa_why why);
/* fa_why_text() of FA_WHY_ERROR, saying which kernel error (an errno) stopped it. */
const char *fa_why_error_text(int err);
const char *fa_op_name(enum fa_op op);
/* The class named name (fa_op_name's inverse): 0, or -EINVAL. */
int fa_op_parse(const char *name, enum fa_op *out);

struct fa_decision {
	enum fa_verdict verdict;
	enum fa_why why;
	int root;               /* index of the root the path is under, or -1 */
	int err;                /* positive errno from resolution, 0 if none */
	char path[PATH_MAX];    /* absolute resolved path that was judged (or the best known form) */
	/*
	 * What the judge met at path's final component, asked in path's
	 * parent directory while it held that directory open: 0 nothing
	 * there, 1 an entry; -1 not asked. 0 and 1 both say that the
	 * directory holding path exists.
	 */
	int found;
};

/* ---- building a policy ------------------------------------------------ */

/*
 * A new, empty policy (no roots: every write denied). The caller adds roots
 * and deny subtrees, then seals it. Returns NULL with *err = -errno.
 */
fa_policy *fa_policy_new(void);
void fa_policy_free(fa_policy *p);

/*
 * Add a write root. "~" and "~/..." are expanded from $HOME; relative paths
 * are made absolute against the current directory now. The special path "."
 * passed to fa_policy_add_cwd_root() instead means "the current directory at
 * the time of each check". Returns 0 or -errno; msg (if non-NULL) receives a
 * human reason on failure.
 */
int fa_policy_add_root(fa_policy *p, const char *path, char *msg, size_t msglen);
int fa_policy_add_cwd_root(fa_policy *p);
int fa_policy_add_deny(fa_policy *p, const char *path, char *msg, size_t msglen);
/*
 * Deny patterns (glob.c): gitignore-like, "*" within a component, "**"
 * across them; a pattern that starts with a "**" segment matches at any
 * depth, "/..." and "~/..." from /, anything else beneath each write root. A write pattern protects what it
 * names as a deny subtree does (create, write, truncate, rename, link,
 * remove, chmod, mkdir); a read pattern refuses read-opens of the files it
 * names (a directory may still be listed). Reads are judged only by read
 * patterns: roots never restrict them. fa_policy_add_deny_read() takes the
 * name "secrets" for the built-in set, fa_secret_patterns. 0 or -errno with
 * msg saying why (a '!', a '..', an empty pattern, too many).
 */
int fa_policy_add_deny_glob(fa_policy *p, const char *pattern, char *msg, size_t msglen);
int fa_policy_add_deny_read(fa_policy *p, const char *pattern, char *msg, size_t msglen);
/*
 * Every pattern of src into p, meaning what it meant in src: one anchored
 * to src's roots becomes one pattern from / per root (a cwd root's stays
 * as it is), so p's roots do not move it. For a policy that meets src.
 */
int fa_policy_add_globs_of(fa_policy *p, const fa_policy *src, char *msg, size_t msglen);
/* 1 if s has a wildcard ('*', '?', '['): a deny entry that is a pattern, not a path. */
int fa_glob_is_pattern(const char *s);
/* 1 if pattern names path (absolute, or relative to where pattern is anchored), 0, -EINVAL. */
int fa_glob_match(const char *pattern, const char *path);
/* The built-in sets, NULL-terminated: reads (--deny-read=secrets), and writes --learn warns of. */
extern const char *const fa_secret_patterns[];
extern const char *const fa_secret_write_patterns[];
void fa_policy_set_symlinks(fa_policy *p, enum fa_symlinks mode);
/*
 * Let symlinks be created whatever their target (by default a target
 * outside the roots is refused, as in the seed). A symlink writes nothing
 * where it points, and a write through it is judged where it lands; hard
 * links are never allowed to reach outside.
 */
void fa_policy_set_outside_symlinks(fa_policy *p, int allow);
/* No path restriction at all (the seed's roots=None). */
void fa_policy_set_unrestricted(fa_policy *p);
/*
 * Learn mode (mk_audit(learn=True)): the engine judges as usual; libfashim.so
 * reports each refusal as not enforced and lets the call through, so that
 * a native write the audit hook never saw is recorded, not refused.
 */
void fa_policy_set_learning(fa_policy *p);
/*
 * Resolve every root and deny subtree once (realpath semantics), pin each
 * existing root with an O_PATH directory fd, and freeze the policy. A root
 * that does not exist is kept, matched by its lexical path, unless
 * require_existing is set, in which case sealing fails. Returns 0 or -errno.
 */
int fa_policy_seal(fa_policy *p, int require_existing, char *msg, size_t msglen);

/*
 * The policy as text, one "key value" per line: "symlinks trust",
 * "outside-symlinks allow", "root /abs", "cwdroot", "deny /abs",
 * "unrestricted". Used to pass the
 * policy to children in the environment. fa_policy_parse() accepts exactly
 * what fa_policy_format() writes (plus blank lines and '#' comments) and
 * fails on anything else. Format returns the length, or -ENAMETOOLONG.
 */
ssize_t fa_policy_format(const fa_policy *p, char *buf, size_t len);
int fa_policy_parse(fa_policy *p, const char *text, char *msg, size_t msglen);
/*
 * The policy that allows only what both a and b allow, in the same text:
 * the deeper of each pair of nested roots, every deny subtree of either
 * that lies in one of them, the stricter symlink mode. A NULL or
 * unrestricted side leaves the other. With buf NULL, only the length.
 */
ssize_t fa_policy_format_meet(const fa_policy *a, const fa_policy *b, char *buf, size_t len);

/* Inspection, for audit_state(), fa-check and messages. */
int fa_policy_nroots(const fa_policy *p);
const char *fa_policy_root(const fa_policy *p, int i);   /* "." for the cwd root */
int fa_policy_ndeny(const fa_policy *p);
const char *fa_policy_deny(const fa_policy *p, int i);
/* The patterns: i-th text as kept ('~' expanded), *read 1 for a read pattern. */
int fa_policy_nglobs(const fa_policy *p);
const char *fa_policy_glob(const fa_policy *p, int i, int *read);
/* How many deny writes, how many deny reads. */
int fa_policy_write_globs(const fa_policy *p);
int fa_policy_read_globs(const fa_policy *p);
/*
 * The index of the pattern (read or write) that names path (absolute, as
 * judged), or with prefix one that names something beneath it; -1: none.
 * For messages: which line to remove.
 */
int fa_policy_glob_for(const fa_policy *p, const char *path, int read, int prefix);
enum fa_symlinks fa_policy_symlinks(const fa_policy *p);
int fa_policy_outside_symlinks(const fa_policy *p);
/* The pinned O_PATH directory fd of root i, or -1 (cwd root, missing root). */
int fa_policy_root_fd(const fa_policy *p, int i);
int fa_policy_unrestricted(const fa_policy *p);
int fa_policy_learning(const fa_policy *p);
/* The mode's name in FA_SYMLINKS_MODES, "unknown" for another value. */
const char *fa_symlinks_name(enum fa_symlinks mode);
/* The mode named s: 0, or -EINVAL (s NULL or no mode's name). */
int fa_symlinks_parse(const char *s, enum fa_symlinks *out);
/*
 * 1 if mode a refuses every link mode b refuses (by their rows' "refuses"
 * column), so that a policy in mode a allows nothing more than one in b
 * would, links considered; 0 otherwise, and for an unknown mode.
 */
int fa_symlinks_as_strict(enum fa_symlinks a, enum fa_symlinks b);
/* "trust, beneath or nofollow", for messages; the length, truncated to fit. */
size_t fa_symlinks_choices(char *buf, size_t len);

/* ---- policy files (policy_file.c) ---------------------------------------- */

/*
 * Who may start programs: the modes of fa-run's --exec and of a policy
 * file's "exec" line, and of FA_EXEC. "list" is an allow list.
 */
enum fa_exec_mode { FA_EXEC_ALLOW, FA_EXEC_DENY, FA_EXEC_LIST };
const char *fa_exec_mode_name(enum fa_exec_mode mode);
int fa_exec_mode_parse(const char *s, enum fa_exec_mode *out);

/*
 * What a policy file says beyond the fa_policy it fills: the rules that
 * are not the engine's (exec), and which settings it gave at all, so that
 * a caller adding its own options can tell a contradiction from a default.
 */
struct fa_policy_file {
	int nroots;                 /* "root" lines */
	int symlinks_set;           /* a "symlinks" line; the mode is in the policy */
	enum fa_symlinks symlinks;
	int exec_set;               /* an "exec" line */
	enum fa_exec_mode exec;     /* FA_EXEC_LIST when only "allow-exec" lines */
	char **allow_exec;          /* "allow-exec" values: a name, or an absolute path */
	int nallow_exec;
	char path[PATH_MAX];        /* the file, for messages */
};

/*
 * Read a policy file into p (not sealed; the caller may add to it) and pf.
 * The format is documented in fa-run(1): "key value" lines, '#' comments.
 * Relative paths are taken from the file's own directory. On any problem
 * returns -errno with "FILE:LINE:COL: what" in msg. fa_policy_file_parse()
 * takes the text instead; file names it (its directory is the base).
 * fa_policy_file_free() releases pf's lists (malloc'd: not for the shim).
 */
int fa_policy_file_read(fa_policy *p, const char *file, struct fa_policy_file *pf,
			char *msg, size_t msglen);
int fa_policy_file_parse(fa_policy *p, const char *text, const char *file,
			 struct fa_policy_file *pf, char *msg, size_t msglen);
void fa_policy_file_free(struct fa_policy_file *pf);

/* ---- places, and the roots a run needed (places.c) ------------------------ */

/*
 * The nearest existing directory holding path (its parent, or above): the
 * directory a write to path needs. 1 with out filled; 0 when only / holds
 * it, or path is not absolute.
 */
int fa_place_holder(const char *path, char *out, size_t len);
/*
 * Why granting dir as a write root is more than a run likely means, or
 * NULL: keys (~/.ssh, ~/.gnupg), $HOME itself and its dotfiles, system
 * places (/, /etc, /usr), a ".git" that is not inside project (NULL
 * project: any ".git"), a directory above project.
 */
const char *fa_place_sensitive(const char *dir, const char *project);

struct fa_suggested_root {
	char path[PATH_MAX];
	const char *sensitive;      /* fa_place_sensitive(): shown, not granted */
};

/*
 * The narrowest write roots holding every directory in dirs (each already
 * a directory a write needed, fa_place_holder()): duplicates and
 * directories beneath another dropped; two or more siblings collapse into
 * their parent, again and again, while that parent is neither sensitive,
 * nor / or a top-level directory (/tmp, /home), nor $HOME, nor above
 * project (project itself is fine). Writes out at most max entries, sorted,
 * and returns how many, or -EINVAL.
 */
int fa_suggest_roots(const char *const *dirs, int n, const char *project,
		     struct fa_suggested_root *out, int max);

/* ---- deciding --------------------------------------------------------- */

/*
 * Judge one operation without performing it. dirfd is AT_FDCWD or an open
 * directory; relative paths are resolved against what dirfd really names.
 * For two-path operations use fa_check2(). Fills *d (always).
 */
enum fa_verdict fa_check(const fa_policy *p, enum fa_op op, int dirfd,
			 const char *path, struct fa_decision *d);
/*
 * fa_check() for a caller that acts on the verdict alone, as a hook in
 * front of the real call does: the same verdict and the same *d for a
 * refusal, but on FA_ALLOW d->err is unspecified (the real call reports
 * a missing parent itself), which lets a path with no link on the way be
 * settled without asking which of its components is missing.
 */
enum fa_verdict fa_check_verdict(const fa_policy *p, enum fa_op op, int dirfd,
				 const char *path, struct fa_decision *d);
enum fa_verdict fa_check2(const fa_policy *p, enum fa_op op,
			  int dirfd1, const char *path1,
			  int dirfd2, const char *path2,
			  struct fa_decision *d1, struct fa_decision *d2);

/*
 * PathFence's contract, for fa-check and the Workspace: 'rel' is joined to
 * root 'root_index' (absolute inputs are matched against all roots); a
 * lexical '..' escape is FA_REJECT/FA_WHY_ESCAPES; otherwise the resolved
 * path is judged like an FA_OP_WRITE of the path itself.
 */
enum fa_verdict fa_check_path(const fa_policy *p, const char *path,
			      struct fa_decision *d);

/*
 * A read of (dirfd, path) with these open flags, judged by the read
 * patterns alone: the file it names, resolved (links followed unless
 * O_NOFOLLOW), must match none. A directory is never refused (listing is
 * allowed). FA_ALLOW also when the path does not resolve: the open fails
 * by itself then.
 */
enum fa_verdict fa_check_read(const fa_policy *p, int dirfd, const char *path, int flags,
			      struct fa_decision *d);
/*
 * Open for reading through the read patterns: the path is resolved once
 * (an O_PATH open), the object judged by its real path, and that very
 * object opened (through /proc/self/fd), so nothing can change between.
 * An fd, -errno, or -EACCES with *d filled. Not for write flags.
 */
int fa_read_openat(const fa_policy *p, int dirfd, const char *path, int flags, mode_t mode,
		   struct fa_decision *d);

/* ---- check = use ------------------------------------------------------ */

/*
 * Open for writing: judge and open in one step, so nothing can change in
 * between (one openat2 beneath the pinned root in the common case). Returns
 * an fd, or -errno; a denial returns -EACCES with *d filled. Read-only
 * opens are passed straight through.
 */
int fa_openat(const fa_policy *p, int dirfd, const char *path, int flags,
	      mode_t mode, struct fa_decision *d);

/*
 * Stricter variants for callers that own the whole tree (the Workspace
 * API), as a bit set 'how':
 *   FA_HOW_STRICT   no exceptions outside the roots: an existing device or
 *                   FIFO, or a /dev/fd/N alias of a writable descriptor, is
 *                   refused like any other path (and never opened to find
 *                   out what it is);
 *   FA_HOW_READS    read-only and O_PATH opens are judged and confined too:
 *                   the object itself must lie inside a root and outside the
 *                   deny subtrees (a root itself may be opened);
 *   FA_HOW_NO_XDEV  no mount point may be crossed below the root
 *                   (RESOLVE_NO_XDEV; the walk compares mount ids): refused
 *                   with FA_WHY_XDEV.
 * fa_openat() and fa_pin_parent() are these with how = 0.
 */
#define FA_HOW_STRICT  0x1u
#define FA_HOW_READS   0x2u
#define FA_HOW_NO_XDEV 0x4u
/*
 *   FA_HOW_BY_PATH  the roots are the directories their paths name now, not
 *                   the pinned ones: the open walks the whole path with no
 *                   symlink, magic link or '..' on it (one lookup). Anything
 *                   needing more (a link on the way, a deny subtree, a root
 *                   itself, NO_XDEV) fails with -EAGAIN, judged by nobody:
 *                   the caller checks its root and asks again without it.
 */
#define FA_HOW_BY_PATH 0x8u

int fa_openat_how(const fa_policy *p, int dirfd, const char *path, int flags,
		  mode_t mode, unsigned how, struct fa_decision *d);

/*
 * A pinned parent directory: for entry-changing calls, the caller runs the
 * real *at() call as op(pin.fd, pin.name, ...) so that the directory that
 * was checked is the directory that is changed.
 */
struct fa_pin {
	int fd;                 /* O_PATH fd of the checked parent, or dirfd passed through */
	int owned;              /* fd must be closed by fa_unpin() */
	const char *name;       /* final component, points into buf or into the caller's path */
	char buf[NAME_MAX + 1];
	int moves;              /* a rename: fa_unpin() reports that the cwd may have moved */
};

/*
 * Judge op on path and pin its parent. Returns 0 (allowed: use pin), or
 * -errno: -EACCES with *d filled on a denial, another -errno when the
 * path cannot be resolved (the caller reports that errno unchanged).
 */
int fa_pin_parent(const fa_policy *p, enum fa_op op, int dirfd, const char *path,
		  struct fa_pin *pin, struct fa_decision *d);
int fa_pin_parent_how(const fa_policy *p, enum fa_op op, int dirfd, const char *path,
		      unsigned how, struct fa_pin *pin, struct fa_decision *d);
void fa_unpin(struct fa_pin *pin);

/*
 * After a refusal, for a caller that judged with fa_check() or stacks two
 * policies: the errno the kernel would have failed the call with before it
 * asked for permission, or 0 when it would have performed the call. Found
 * by lookups that create nothing; the refused call is not run either way,
 * so the answer only chooses between that errno and the denial.
 */
int fa_kernel_first(enum fa_op op, int dirfd, const char *path);
int fa_kernel_first_open(int dirfd, const char *path, int flags);
/* rename (renameat2 flags) and link (linkat flags): both paths at once. */
int fa_kernel_first_rename(int fromfd, const char *from, int tofd, const char *to,
			   unsigned flags);
int fa_kernel_first_link(int fromfd, const char *from, int tofd, const char *to, int flags);
/* unlinkat with its flags: AT_REMOVEDIR is rmdir, which takes "dir/". */
int fa_kernel_first_unlink(int dirfd, const char *path, int flags);

/*
 * For symlink creation: does 'target', read relative to the directory
 * pinned in 'pin', resolve inside a root? For hard links the source is
 * judged with fa_check(FA_OP_LINK...).
 */
enum fa_verdict fa_check_symlink_target(const fa_policy *p, const struct fa_pin *pin,
					const char *target, struct fa_decision *d);

/* ---- lexical helpers (no I/O) ----------------------------------------- */

/*
 * Normalise a relative path lexically: drop '.', empty components and
 * trailing slashes, fold 'a/..'. Returns the length written to out ("" for
 * the start directory itself), -EXDEV if '..' climbs above the start,
 * -ENAMETOOLONG, or -EINVAL for an absolute path.
 */
ssize_t fa_lex_normalize(const char *rel, char *out, size_t len);
/*
 * PathFence's portable-name rule for one component: no reserved device name
 * (CON, PRN, AUX, NUL, COM1-9, LPT1-9, any case, any extension), no ':',
 * no trailing dot or space. 1 if portable.
 */
int fa_name_portable(const char *name, size_t len);

/* ---- path helpers for the shim and the Workspace (no libc, errno untouched) ---- */

/* 1 if path is base or lies below it, by whole components ("/" holds every absolute path). */
int fa_path_within(const char *path, const char *base);
/*
 * The absolute path an fd names (readlink of /proc/self/fd/N; AT_FDCWD:
 * the current directory) into buf; its length, or -errno.
 */
ssize_t fa_fd_path(int fd, char *buf, size_t len);
/* base (absolute, blen bytes) joined with rel into out: the length, or -ENAMETOOLONG. */
ssize_t fa_path_join(const char *base, size_t blen, const char *rel, char *out, size_t len);

/* ---- the current directory, cached --------------------------------------- */

/*
 * Keep the current directory's path per thread, read again only after a
 * change, so that a relative write-open costs its one openat2 and no
 * getcwd. Off by default: only a caller that sees every change of
 * directory in the process may turn it on, and must then report each one:
 * fa_cwd_changed() after it, or fa_cwd_hold() before and fa_cwd_release()
 * after a call that changes directory, or may keep changing it until it
 * returns (the cache is not used while any hold is taken). Renames judged
 * by the engine count as changes by themselves.
 */
void fa_cwd_cache_enable(void);
int fa_cwd_cache_enabled(void);
void fa_cwd_changed(void);
void fa_cwd_hold(void);
void fa_cwd_release(void);
/* In the child of a fork(): the copies are this process's now (call from an atfork handler). */
void fa_cwd_forked(void);
/*
 * A counter in memory every process of a run shares (fa-run's tally,
 * counts.h): renames and removals of directories are counted there too,
 * and every copy is stamped with it, so that a directory one process of
 * the run moves is read again by all of them. Without it only this
 * process's own moves are seen.
 */
void fa_cwd_share(uint64_t *moves);
/*
 * With the cache on, what a dirfd names is kept too: the caller reports
 * every moment an fd number may stop naming what it named (closed,
 * replaced by dup2, handed out by an open) and every directory it removes
 * (fa_cwd_changed()).
 */
void fa_fd_moved(int fd);
void fa_fd_moved_range(unsigned first, unsigned last);
/*
 * With the cache on, keep the last directory pinned beneath a root open at
 * a number of its own, above fd (an open directory): the number, which the
 * caller must keep from the program like the pinned roots, or -1.
 */
int fa_parent_cache_enable(int fd);
/* That number, or -1. */
int fa_parent_cache_fd(void);

/*
 * fa_check_verdict() may keep, per thread, the paths it proved free of
 * links beneath a root, for as long as moves() returns what it returned
 * before the proof. moves() must grow with every rename and new link that
 * may move a kept path, and return 0 while it cannot tell (nothing is kept
 * or trusted then); NULL keeps nothing (the default). The Python hook
 * hands the shim's count, or its own (linkfree_cache.c).
 */
void fa_trust_moves(uint64_t (*moves)(void));
/*
 * The count the shim gives such a caller (cwd_cache.c): what
 * fa_cwd_changed() counts (renames, removals of directories, changes of
 * directory) and every new link, fa_link_made() (symlink, hard link).
 */
void fa_link_made(void);
uint64_t fa_moves(void);

/* ---- tuning and tests ------------------------------------------------- */

/*
 * Force the O_PATH/O_NOFOLLOW walk instead of openat2 (tests run both).
 * Also set by FA_FORCE_FALLBACK=1 in the environment, read by the caller.
 */
void fa_resolve_force_fallback(int on);
int fa_resolve_uses_openat2(void);

#ifdef __cplusplus
}
#endif
#endif
