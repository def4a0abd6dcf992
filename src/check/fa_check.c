/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fa-check: the policy engine as a path oracle. One JSON line per path,
 * in PathFence's shape: allow (path, root, rel), deny (path, reason) or
 * reject (reason).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fa_policy.h"
#include "json.h"

static void usage(FILE *f)
{
	int i;

	fputs("usage: fa-check --allow DIR [--allow DIR]... [--deny DIR]...\n"
	      "                [--deny-glob PATTERN]... [--deny-read PATTERN]... [--read]\n"
	      "                [--symlinks=", f);
	for (i = 0; i < FA_SYM_NMODES; i++)
		fprintf(f, "%s%s", i ? "|" : "", fa_symlinks_name((enum fa_symlinks)i));
	fputs("] [--portable] [--] PATH...\n"
	      "\n"
	      "Judge each PATH against the write roots and print one JSON line per path:\n"
	      "  {\"input\":...,\"decision\":\"allow\",\"path\":...,\"root\":...,\"rel\":...}\n"
	      "  {\"input\":...,\"decision\":\"deny\",\"path\":...,\"reason\":...}\n"
	      "  {\"input\":...,\"decision\":\"reject\",\"reason\":...}\n"
	      "A relative PATH is taken relative to the first --allow directory; '..'\n"
	      "climbing above it is rejected (\"escapes\"). An absolute PATH is matched\n"
	      "against every root. Symlinks are resolved per --symlinks (default trust).\n"
	      "--portable also rejects names other systems cannot hold (CON, NUL, COM1,\n"
	      "LPT1... with any extension, ':', a trailing dot or space).\n"
	      "--deny-glob denies what a gitignore-like pattern names (\"deny-pattern\");\n"
	      "--read judges each PATH as a read instead, by the --deny-read patterns\n"
	      "alone (\"deny-read\"; 'secrets' is the built-in set; see fa-run(1)).\n"
	      "\n"
	      "Exit status: 0 every path allowed, 1 some path denied or rejected,\n"
	      "2 usage or policy error (nothing is judged).\n",
	      f);
}

/* A JSON string, written by the project's one JSON writer (json.h). */
static void json_str(const char *s)
{
	char small[1024], *big = NULL;
	struct fa_buf b = FA_BUF_INIT(small);

	fa_put_json(&b, s);
	if (!fa_buf_fits(&b)) {
		big = malloc(b.len + 1);
		if (!big) {
			fprintf(stderr, "fa-check: %s\n", strerror(ENOMEM));
			exit(2);
		}
		b = (struct fa_buf){ big, 0, b.len + 1 };
		fa_put_json(&b, s);
	}
	fwrite(b.p, 1, b.len, stdout);
	free(big);
}

/* A user's string in a one-line message: no control byte reaches the terminal. */
static char *shown(const char *s)
{
	struct fa_buf b = { NULL, 0, 0 };
	char *p;

	fa_put_shown(&b, s);
	p = malloc(b.len + 1);
	if (!p)
		return NULL;
	b = (struct fa_buf){ p, 0, b.len + 1 };
	fa_put_shown(&b, s);
	return p;
}

/* "fa-check: WHAT USER: WHY", the user's string and the reason shown safely. */
static void complain(const char *what, const char *user, const char *why)
{
	char *su = shown(user), *sw = shown(why);

	fprintf(stderr, "fa-check: %s%s: %s\n", what, su ? su : "?", sw ? sw : "?");
	free(su);
	free(sw);
}

static int portable_rel(const char *rel)
{
	const char *s = rel;

	while (*s) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n && !fa_name_portable(s, n))
			return 0;
		s += n + (e ? 1 : 0);
	}
	return 1;
}

/* A read of input (relative: to the first root), judged by the read patterns. */
static enum fa_verdict judge_read(const fa_policy *p, const char *input, struct fa_decision *d)
{
	char abs[PATH_MAX];
	const char *base = fa_policy_root(p, 0);

	if (input[0] != '/' && base && strcmp(base, ".") &&
	    fa_path_join(base, strlen(base), input, abs, sizeof abs) >= 0)
		input = abs;
	return fa_check_read(p, AT_FDCWD, input, 0, d);
}

static int judge(const fa_policy *p, const char *input, int portable, int read)
{
	struct fa_decision d;
	enum fa_verdict v = read ? judge_read(p, input, &d) : fa_check_path(p, input, &d);
	char cwd[PATH_MAX];
	const char *root = NULL, *rel = ".";

	if (read && !d.path[0])
		snprintf(d.path, sizeof d.path, "%s", input);
	if (v == FA_ALLOW && d.root >= 0) {
		size_t rl;

		root = fa_policy_root(p, d.root);
		if (root && strcmp(root, ".") == 0)
			root = getcwd(cwd, sizeof cwd) ? cwd : NULL;
		rl = root ? strlen(root) : 0;
		if (root && strlen(d.path) > rl)
			rel = d.path + rl + (root[rl - 1] == '/' ? 0 : 1);
		if (portable && !portable_rel(rel)) {
			v = FA_REJECT;
			d.why = FA_WHY_PORTABLE;
		}
	}
	fputs("{\"input\":", stdout);
	json_str(input);
	switch (v) {
	case FA_ALLOW:
		fputs(",\"decision\":\"allow\",\"path\":", stdout);
		json_str(d.path);
		if (root) {
			fputs(",\"root\":", stdout);
			json_str(root);
			fputs(",\"rel\":", stdout);
			json_str(rel);
		}
		break;
	case FA_DENY:
		fputs(",\"decision\":\"deny\",\"path\":", stdout);
		json_str(d.path);
		fputs(",\"reason\":", stdout);
		json_str(fa_why_name(d.why));
		break;
	default:
		fputs(",\"decision\":\"reject\",\"reason\":", stdout);
		json_str(fa_why_name(d.why));
		break;
	}
	fputs("}\n", stdout);
	return v == FA_ALLOW ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"allow", required_argument, NULL, 'a'},
		{"deny", required_argument, NULL, 'd'},
		{"deny-glob", required_argument, NULL, 'g'},
		{"deny-read", required_argument, NULL, 'r'},
		{"read", no_argument, NULL, 'R'},
		{"symlinks", required_argument, NULL, 's'},
		{"portable", no_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char msg[512];
	fa_policy *p = fa_policy_new();
	int c, r, portable = 0, nallow = 0, status = 0, i, read = 0;

	if (!p) {
		fprintf(stderr, "fa-check: cannot build a policy: %s\n", strerror(ENOMEM));
		return 2;
	}
	if (getenv("FA_FORCE_FALLBACK") && strcmp(getenv("FA_FORCE_FALLBACK"), "1") == 0)
		fa_resolve_force_fallback(1);
	while ((c = getopt_long(argc, argv, "+a:d:g:r:Rs:ph", opts, NULL)) != -1) {
		enum fa_symlinks mode;

		switch (c) {
		case 'a':
			r = fa_policy_add_root(p, optarg, msg, sizeof msg);
			if (r < 0) {
				complain("--allow ", optarg, msg);
				return 2;
			}
			nallow++;
			break;
		case 'd':
			r = fa_policy_add_deny(p, optarg, msg, sizeof msg);
			if (r < 0) {
				complain("--deny ", optarg, msg);
				return 2;
			}
			break;
		case 'g':
		case 'r':
			r = c == 'g' ? fa_policy_add_deny_glob(p, optarg, msg, sizeof msg)
				     : fa_policy_add_deny_read(p, optarg, msg, sizeof msg);
			if (r < 0) {
				complain(c == 'g' ? "--deny-glob " : "--deny-read ", optarg, msg);
				return 2;
			}
			break;
		case 'R':
			read = 1;
			break;
		case 's':
			if (fa_symlinks_parse(optarg, &mode) < 0) {
				char why[80] = "not ";

				fa_symlinks_choices(why + 4, sizeof why - 4);
				complain("--symlinks=", optarg, why);
				return 2;
			}
			fa_policy_set_symlinks(p, mode);
			break;
		case 'p':
			portable = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!nallow) {
		fputs("fa-check: at least one --allow DIR is required\n", stderr);
		usage(stderr);
		return 2;
	}
	if (optind >= argc) {
		fputs("fa-check: no PATH to check\n", stderr);
		usage(stderr);
		return 2;
	}
	r = fa_policy_seal(p, 0, msg, sizeof msg);
	if (r < 0) {
		complain("bad policy", "", msg);
		return 2;
	}
	for (i = optind; i < argc; i++)
		status |= judge(p, argv[i], portable, read);
	fa_policy_free(p);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "fa-check: cannot write the answer: %s\n", strerror(errno));
		return 2;
	}
	return status;
}
