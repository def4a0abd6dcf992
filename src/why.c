/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Names and sentences for decisions, operation classes and symlink modes:
 * one table each, shared by logs, JSON, messages and every front end's
 * parser. The class and mode tables are made from their rows in
 * fa_policy.h and fa_enums.h.
 */
#include <errno.h>
#include <string.h>

#include "fa_policy.h"

static const struct {
	const char *name;
	const char *text;
} whys[] = {
	[FA_WHY_NONE] = {"none", "allowed"},
	[FA_WHY_OUTSIDE] = {"outside-roots", "not under any allowed root"},
	[FA_WHY_NO_ROOTS] = {"no-roots", "no write roots are allowed"},
	[FA_WHY_DENY_SUBTREE] = {"deny-subtree", "inside a denied subtree"},
	[FA_WHY_PROTECTS_DENY] = {"protects-deny", "would move, remove or change a denied subtree or its ancestor"},
	[FA_WHY_SYMLINK] = {"symlink", "a symlink not allowed by the symlink mode (beneath: an absolute link, or one leading out of the root; nofollow: any link)"},
	[FA_WHY_MAGICLINK] = {"magic-link", "a /proc magic link cannot be followed for a write"},
	[FA_WHY_LINK_TARGET] = {"link-target", "the link target is not under any allowed root (a symlink may point outside with fa-run --allow-outside-symlinks or mk_audit(allow_outside_symlinks=True); a hard link never)"},
	[FA_WHY_ESCAPES] = {"escapes", "'..' climbs out of the root"},
	[FA_WHY_ABSOLUTE] = {"absolute", "an absolute path where a relative one is required"},
	[FA_WHY_EMPTY] = {"empty", "empty path"},
	[FA_WHY_TOO_LONG] = {"too-long", "path too long"},
	[FA_WHY_BAD_FD] = {"bad-fd", "the directory descriptor is not an open directory"},
	[FA_WHY_XDEV] = {"mount-crossing", "crosses a mount point"},
	[FA_WHY_PORTABLE] = {"not-portable", "not a portable file name"},
	[FA_WHY_DENY_PATTERN] = {"deny-pattern", "a deny pattern protects it (it names the path, or a file the change would move or remove)"},
	[FA_WHY_DENY_READ] = {"deny-read", "a read-deny pattern keeps this file from being read"},
	[FA_WHY_ERROR] = {"error", "the path could not be resolved"},
};

const char *fa_why_name(enum fa_why why)
{
	if ((unsigned)why >= sizeof whys / sizeof whys[0] || !whys[why].name)
		return "unknown";
	return whys[why].name;
}

const char *fa_why_text(enum fa_why why)
{
	if ((unsigned)why >= sizeof whys / sizeof whys[0] || !whys[why].text)
		return "unknown reason";
	return whys[why].text;
}

/*
 * A path the engine could not resolve is refused with the kernel's answer
 * (fa_decision.err): the sentence says which, since "could not be resolved"
 * alone leaves a user guessing between a permission, a loop and a race.
 * Static text: the shim reports from inside a wrapper, where strerror(),
 * which the application may interpose, is not called.
 */
const char *fa_why_error_text(int err)
{
	switch (err) {
	case EACCES:
		return "the path could not be resolved: a directory on the way cannot be searched by this user (EACCES)";
	case ELOOP:
		return "the path could not be resolved: too many symbolic links on the way (ELOOP)";
	case ENOENT:
		return "the path could not be resolved: a directory on the way does not exist (ENOENT)";
	case ENOTDIR:
		return "the path could not be resolved: a component on the way is not a directory (ENOTDIR)";
	case ENAMETOOLONG:
		return "the path could not be resolved: it grows too long as its links are followed (ENAMETOOLONG)";
	case EAGAIN:
		return "the path could not be resolved: it kept changing while it was resolved (EAGAIN)";
	case EXDEV:
		return "the path could not be resolved: it crosses a mount point (EXDEV)";
	default:
		return fa_why_text(FA_WHY_ERROR);
	}
}

#define NAME_ROW(id, name) [id] = name,
#define SYM_NAME_ROW(id, name, refuses) [id] = name,
#define SYM_REFUSES_ROW(id, name, refuses) [id] = (refuses),
static const char *const op_names[] = { FA_OPS(NAME_ROW) };
static const char *const symlinks_names[] = { FA_SYMLINKS_MODES(SYM_NAME_ROW) };
static const unsigned symlinks_refuses[] = { FA_SYMLINKS_MODES(SYM_REFUSES_ROW) };
#undef NAME_ROW
#undef SYM_NAME_ROW
#undef SYM_REFUSES_ROW

_Static_assert(sizeof op_names / sizeof op_names[0] == FA_OP_NCLASSES, "one name per class");
_Static_assert(sizeof symlinks_names / sizeof symlinks_names[0] == FA_SYM_NMODES,
	       "one name per symlink mode");

static int lookup(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; s && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *fa_op_name(enum fa_op op)
{
	return (unsigned)op < FA_OP_NCLASSES ? op_names[op] : "unknown";
}

int fa_op_parse(const char *name, enum fa_op *out)
{
	int i = lookup(op_names, FA_OP_NCLASSES, name);

	if (i < 0)
		return -EINVAL;
	*out = (enum fa_op)i;
	return 0;
}

const char *fa_symlinks_name(enum fa_symlinks mode)
{
	return (unsigned)mode < FA_SYM_NMODES ? symlinks_names[mode] : "unknown";
}

int fa_symlinks_parse(const char *s, enum fa_symlinks *out)
{
	int i = lookup(symlinks_names, FA_SYM_NMODES, s);

	if (i < 0)
		return -EINVAL;
	*out = (enum fa_symlinks)i;
	return 0;
}

int fa_symlinks_as_strict(enum fa_symlinks a, enum fa_symlinks b)
{
	unsigned ra, rb;

	if ((unsigned)a >= FA_SYM_NMODES || (unsigned)b >= FA_SYM_NMODES)
		return 0;
	ra = symlinks_refuses[a];
	rb = symlinks_refuses[b];
	return (ra & rb) == rb;
}

size_t fa_symlinks_choices(char *buf, size_t len)
{
	size_t o = 0;
	int i;

	if (!len)
		return 0;
	for (i = 0; i < FA_SYM_NMODES; i++) {
		const char *sep = i == 0 ? "" : i == FA_SYM_NMODES - 1 ? " or " : ", ";
		size_t n = strlen(sep) + strlen(symlinks_names[i]);

		if (o + n >= len)
			break;
		strcpy(buf + o, sep);
		strcat(buf + o, symlinks_names[i]);
		o += n;
	}
	buf[o] = 0;
	return o;
}
