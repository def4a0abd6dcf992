/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by the workspace's own files; not installed. */
#ifndef FA_WS_INTERNAL_H
#define FA_WS_INTERNAL_H

#include "fa_policy.h"
#include "workspace/fa_workspace.h"

struct fa_ws {
	fa_policy *pol;
	int rootfd;             /* borrowed from pol */
	unsigned flags;
	enum fa_symlinks symlinks;
	const char *root;       /* borrowed from pol */
};

/* A caller's path after the lexical step. */
struct ws_path {
	const char *given;
	int slash;              /* ended in '/' (or "/."): must name a directory */
	size_t len;
	char norm[PATH_MAX];    /* "" names the root itself */
	char abs[PATH_MAX];     /* root + norm: what the engine judges */
};

/*
 * How the engine is asked to judge for a workspace: no exceptions for
 * devices or descriptor aliases outside the root (nothing is opened to
 * find out what it is), reads confined like writes, mounts if asked.
 */
static inline unsigned fa__ws_how(const fa_ws *ws)
{
	return FA_HOW_STRICT | FA_HOW_READS | (ws->flags & FA_WS_NO_XDEV ? FA_HOW_NO_XDEV : 0);
}

/* Record the outcome of an operation; they return -err (or 0). */
int fa__ws_fail(const fa_ws *ws, const char *op, const char *path, int err, enum fa_why why);
int fa__ws_ok(void);
/* Attach the engine's explanation to the error just recorded. */
void fa__ws_detail(const char *root, const char *msg);
/* An engine result (rc < 0) with its decision turned into the workspace's error. */
int fa__ws_engine_fail(const fa_ws *ws, const char *op, const char *path, int rc,
		       const struct fa_decision *d);

/* The lexical step: relative, no '..' above the root, portable if asked. */
int fa__ws_lex(const fa_ws *ws, const char *op, const char *rel, struct ws_path *wp);
/*
 * Pin the parent of wp (which must not be the root) for an engine operation
 * class. The pin's name points into wp, which must outlive it.
 */
int fa__ws_pin(const fa_ws *ws, const char *op, enum fa_op fop, const struct ws_path *wp,
	       struct fa_pin *pin);
/* 1 if fd (or its entry name) lies in a deny subtree. */
int fa__ws_denied(const fa_ws *ws, int fd, const char *name);
/* Open the object wp names itself, following a final symlink only inside the root. */
int fa__ws_open_final(const fa_ws *ws, const char *op, const struct ws_path *wp, int flags,
		      mode_t mode);

#endif
