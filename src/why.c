/* Names and sentences for decisions: one table, shared by logs, JSON and messages. */
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

const char *fa_op_name(enum fa_op op)
{
	static const char *const names[] = {
		[FA_OP_WRITE] = "write", [FA_OP_CREATE] = "create",
		[FA_OP_REMOVE] = "remove", [FA_OP_ATTR] = "attr",
		[FA_OP_DIR] = "dir", [FA_OP_CHDIR] = "chdir",
		[FA_OP_RENAME] = "rename", [FA_OP_EXCHANGE] = "exchange",
		[FA_OP_LINK] = "link", [FA_OP_SYMLINK] = "symlink",
		[FA_OP_LATTR] = "lattr",
		[FA_OP_REPLACE] = "replace",
	};
	if ((unsigned)op >= sizeof names / sizeof names[0] || !names[op])
		return "unknown";
	return names[op];
}
