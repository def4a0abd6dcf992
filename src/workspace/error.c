/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The calling thread's last workspace error. A thread-local record keeps the
 * call signatures close to the *at() calls they wrap (an fd or -errno) and
 * still lets every refusal say what, where and why.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ws_internal.h"

static _Thread_local struct fa_ws_error last;

static void copy(char *dst, const char *src)
{
	size_t n = src ? strnlen(src, PATH_MAX - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = 0;
}

int fa__ws_fail(const fa_ws *ws, const char *op, const char *path, int err, enum fa_why why)
{
	last.err = err;
	last.why = why;
	last.op = op;
	copy(last.path, path);
	copy(last.root, ws ? ws->root : NULL);
	last.detail[0] = 0;
	errno = err;
	return -err;
}

void fa__ws_detail(const char *root, const char *msg)
{
	copy(last.root, root);
	snprintf(last.detail, sizeof last.detail, "%s", msg ? msg : "");
}

int fa__ws_ok(void)
{
	last.err = 0;
	last.why = FA_WHY_NONE;
	return 0;
}

const struct fa_ws_error *fa_ws_last_error(void)
{
	return &last;
}

/*
 * The engine reports a refusal as -EACCES with a reason; anything else is
 * the kernel's own answer (ENOENT, ENOTDIR, ...) and passes through as is.
 */
int fa__ws_engine_fail(const fa_ws *ws, const char *op, const char *path, int rc,
		       const struct fa_decision *d)
{
	enum fa_why why = FA_WHY_NONE;

	if (rc == -EACCES && d->verdict != FA_ALLOW) {
		why = d->why;
		if (why == FA_WHY_NONE)
			why = FA_WHY_ERROR;
	}
	return fa__ws_fail(ws, op, path, -rc, why);
}

const char *fa_ws_why_name(enum fa_why why)
{
	return fa_why_name(why);
}

const char *fa_ws_why_text(enum fa_why why)
{
	return fa_why_text(why);
}

int fa_ws_symlinks_parse(const char *s, enum fa_symlinks *out)
{
	return fa_symlinks_parse(s, out);
}

char *fa_ws_strerror(const struct fa_ws_error *e, char *buf, size_t len)
{
	const char *op = e->op ? e->op : "operation";
	int n;

	if (!len)
		return buf;
	if (!e->err)
		n = snprintf(buf, len, "no error");
	else if (e->why != FA_WHY_NONE)
		n = snprintf(buf, len, "%s '%s' refused in workspace '%s' (%s: %s)", op, e->path,
			     e->root, fa_why_name(e->why), fa_why_text(e->why));
	else
		n = snprintf(buf, len, "%s '%s' in workspace '%s': %s", op, e->path, e->root,
			     strerror(e->err));
	if (e->err && e->detail[0] && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " - %s", e->detail);
	return buf;
}
