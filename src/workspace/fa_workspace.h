/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fa_workspace.h - files beneath a pinned root directory.
 *
 * A workspace is a directory opened once and pinned by a file descriptor.
 * Every operation takes a path relative to it and is resolved by the kernel
 * beneath that descriptor (openat2 RESOLVE_BENEATH, or an O_NOFOLLOW walk
 * where openat2 is missing), then performed on the directory that was
 * resolved: there is no window between the check and the use in which a
 * renamed directory or a swapped symlink could send the operation elsewhere.
 *
 * Decisions come from the same policy engine as fa-check and libfashim.so,
 * so the three give the same answer for the same path.
 *
 * Return values: 0 (or an fd, or a length) on success, -errno on failure;
 * errno is set to the same value. A refused path fails with -EACCES and the
 * reason is in fa_ws_last_error() (per thread), which also names the
 * operation, the path as given and the workspace root. Natural failures
 * (ENOENT, EEXIST, ENOTDIR, ...) keep their errno and have why FA_WHY_NONE.
 *
 * A workspace is immutable once open: operations may run concurrently from
 * several threads; fa_ws_close() must not race with them.
 */
#ifndef FA_WORKSPACE_H
#define FA_WORKSPACE_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "fa_enums.h"   /* enum fa_symlinks, enum fa_why: the engine's own */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fa_ws fa_ws;

/* fa_ws_open() flags */
#define FA_WS_PORTABLE  0x1u    /* refuse names other systems cannot hold (CON, a:b, "x.") */
#define FA_WS_NO_XDEV   0x2u    /* refuse paths that cross a mount point below the root */

/* fa_ws_rename() flags */
#define FA_WS_NOREPLACE 0x1u    /* fail with EEXIST if the destination exists */
#define FA_WS_EXCHANGE  0x2u    /* swap the two entries atomically */

struct fa_ws_error {
	int err;                /* positive errno, 0 if the last call succeeded */
	enum fa_why why;        /* FA_WHY_NONE for a natural error */
	const char *op;         /* "open", "mkdir", "rename", ... */
	char path[PATH_MAX];    /* the offending path, as the caller gave it */
	char root[PATH_MAX];    /* the workspace root */
	char detail[256];       /* why a workspace could not be opened, or "" */
};

/*
 * Open a workspace on the existing directory 'root' (made absolute and
 * resolved once). 'deny' is a NULL-terminated list of subtrees inside the
 * root that no operation may touch (absolute, or relative to the root), or
 * NULL. A root or deny list that cannot be used is an error: the workspace
 * fails closed. *err (if non-NULL) is filled on failure.
 */
int fa_ws_open(const char *root, const char *const *deny, enum fa_symlinks symlinks,
	       unsigned flags, fa_ws **out, struct fa_ws_error *err);

/*
 * A workspace on the directory 'rel' of ws, pinned by its own fd. Its
 * containment composes with the parent's: it is resolved beneath the
 * parent, inherits the parent's symlink mode, flags and the deny subtrees
 * that fall inside it, and cannot reach anything outside itself.
 */
int fa_ws_sub(fa_ws *ws, const char *rel, fa_ws **out);
void fa_ws_close(fa_ws *ws);

const char *fa_ws_root(const fa_ws *ws);
/* The pinned O_PATH directory fd; owned by the workspace. */
int fa_ws_root_fd(const fa_ws *ws);
enum fa_symlinks fa_ws_symlinks(const fa_ws *ws);
unsigned fa_ws_flags(const fa_ws *ws);

/*
 * Open rel with any open(2) flags; O_CLOEXEC is always added. Returns a
 * new fd. Opens for reading are confined exactly like opens for writing.
 */
int fa_ws_openat(fa_ws *ws, const char *rel, int flags, mode_t mode);
/*
 * Like fa_ws_openat(), but the root is the directory that the workspace's
 * root path names now, not the pinned one: one lookup along the whole path,
 * with no symlink, magic link or mount point allowed on it, so a root
 * renamed or made again is followed at no extra cost. Returns -EAGAIN,
 * recording no error, when the path needs more than that (a link on the
 * way, a deny subtree, FA_WS_NO_XDEV): the caller then makes sure the
 * pinned root is still the one its path names and calls fa_ws_openat().
 */
int fa_ws_openat_bypath(fa_ws *ws, const char *rel, int flags, mode_t mode);
int fa_ws_mkdir(fa_ws *ws, const char *rel, mode_t mode, int parents, int exist_ok);
int fa_ws_unlink(fa_ws *ws, const char *rel);
int fa_ws_rmdir(fa_ws *ws, const char *rel);
int fa_ws_rename(fa_ws *ws, const char *from, const char *to, unsigned flags);
/* A hard link 'to' naming the file 'from' (a symlink 'from' is linked itself). */
int fa_ws_link(fa_ws *ws, const char *from, const char *to);
/* A symlink 'linkrel' -> 'target'; the target must be relative and resolve inside. */
int fa_ws_symlink(fa_ws *ws, const char *target, const char *linkrel);
int fa_ws_stat(fa_ws *ws, const char *rel, struct stat *st, int follow);
/* Like readlink(2): no terminating NUL, returns the length. */
ssize_t fa_ws_readlink(fa_ws *ws, const char *rel, char *buf, size_t len);

/*
 * List a directory (without "." and ".."). The callback returns 0 to go on
 * or anything else to stop; that value is then returned.
 */
typedef int (*fa_ws_dir_cb)(void *arg, const char *name, unsigned char d_type);
int fa_ws_listdir(fa_ws *ws, const char *rel, fa_ws_dir_cb cb, void *arg);
/* The same, as a malloc'd NULL-terminated array freed by fa_ws_free_names(). */
int fa_ws_listdir_array(fa_ws *ws, const char *rel, char ***names, size_t *count);
void fa_ws_free_names(char **names);

/*
 * Replace rel with exactly 'data': written to an unnamed temporary file in
 * the destination directory (O_TMPFILE, or a randomly named one where the
 * file system lacks it), fsync'd, moved into place with one rename, then
 * the directory is fsync'd. Readers and a crash see the old content or the
 * new, never a torn or missing file. A new file gets 'mode' less the
 * umask; a replaced file keeps its mode.
 */
int fa_ws_atomic_write(fa_ws *ws, const char *rel, const void *data, size_t len, mode_t mode);

/* The calling thread's last error (err == 0 after a success). */
const struct fa_ws_error *fa_ws_last_error(void);
/* "mkdir '../x' in workspace '/srv/ws': refused (escapes: '..' climbs out of the root)" */
char *fa_ws_strerror(const struct fa_ws_error *e, char *buf, size_t len);
/* The engine's stable reason names: "escapes", "absolute", "deny-subtree", ... */
const char *fa_ws_why_name(enum fa_why why);
const char *fa_ws_why_text(enum fa_why why);
int fa_ws_symlinks_parse(const char *s, enum fa_symlinks *out);

/* Resolve with the O_NOFOLLOW walk instead of openat2 (for tests). */
void fa_ws_force_fallback(int on);
int fa_ws_uses_openat2(void);

#ifdef __cplusplus
}
#endif
#endif
