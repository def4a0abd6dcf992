/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fa-run - run a command with its writes and execs confined.
 *
 * Everything is validated before the command starts: the roots and deny
 * subtrees are resolved and sealed by the engine (they must exist), the
 * programs of --allow-exec are found on PATH now, the log file must be
 * writable, the shim must exist. Then fa-run replaces itself with the
 * command, LD_PRELOAD and the FA_* policy variables in its environment,
 * so the command's exit status is fa-run's. With the kernel floor on,
 * fa-run stays as the parent instead: the floor is applied in the child
 * before the exec, and the parent passes the command's status on and can
 * say at exit what the floor may have refused unseen.
 *
 * Exit status: the command's; 125 for fa-run's own errors; 126 when the
 * command was found but cannot run; 127 when it was not found.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fa_policy.h"
#include "path_search.h"
#include "floor/elf.h"
#include "floor/landlock.h"
#include "floor/landlock_abi.h"
#include "run/learn.h"

#define EXIT_FAIL 125
#define EXIT_CANNOT 126
#define EXIT_NOTFOUND 127

#ifndef FA_LIBDIR
#define FA_LIBDIR "/usr/local/lib"
#endif
#ifndef FA_LIBDIR_FROM_BINDIR
#define FA_LIBDIR_FROM_BINDIR ""
#endif

static const char *prog = "fa-run";

static void usage(FILE *f)
{
	char modes[64];

	fa_symlinks_choices(modes, sizeof modes);
	fprintf(f,
"Usage: fa-run [OPTION]... [--] COMMAND [ARG]...\n"
"Run COMMAND with its writes confined to the given directories and its\n"
"program starts governed by policy. Children stay confined.\n"
"\n"
"  -w, --write DIR         allow writes beneath DIR (repeatable); with none,\n"
"                          the directory fa-run starts in; no implicit /tmp\n"
"      --deny DIR          deny writes beneath DIR, a subtree of a write root\n"
"      --deny-glob PATTERN deny writes to what PATTERN names (repeatable):\n"
"                          gitignore-like, anchored to each write root\n"
"                          unless it starts with '**/' ('**/.env',\n"
"                          '**/.git/**', '**/*.pem', 'secrets/**'); the\n"
"                          files it names are protected as a whole (create,\n"
"                          write, truncate, rename, link, remove, chmod, mkdir)\n"
"      --deny-read PATTERN refuse read-opens of the files PATTERN names\n"
"                          (repeatable; '~/' is $HOME; directories may still\n"
"                          be listed); --deny-read=secrets names the built-in\n"
"                          set of keys and credentials (see fa-run(1))\n"
"      --exec=MODE         allow (default): programs may start;\n"
"                          deny: no program may start; two different\n"
"                          modes are an error\n"
"      --allow-exec PROG   only the listed programs may start (repeatable;\n"
"                          PROG is looked up on PATH now); with --exec=deny\n"
"                          it means the same, with --exec=allow it is an error\n"
"      --allow-static      allow starting static, set-user/group-ID and\n"
"                          file-capability programs, which the preload cannot\n"
"                          follow (they run unconfined; under the kernel\n"
"                          floor they run anyway, confined by the kernel)\n"
"      --symlinks=MODE     %s (default trust); two\n"
"                          different modes are an error, never an override\n"
"      --allow-outside-symlinks\n"
"                          allow creating symlinks whose target lies outside\n"
"                          the roots (writes through them are still judged\n"
"                          where they land; hard links stay refused)\n"
"      --policy FILE       read write roots, deny subtrees, the symlink mode\n"
"                          and exec rules from FILE (see fa-run(1)); options\n"
"                          add to it: -w and --deny add, --allow-exec adds\n"
"                          to its list; a mode that differs from the file's\n"
"                          is an error; with the file's roots, the start\n"
"                          directory is no root unless -w names it\n"
"      --report            report what would be denied, deny nothing\n"
"                          (turns the kernel floor off)\n"
"      --learn[=FILE]      like --report, silently; at exit print the\n"
"                          narrowest policy that allows the run (sensitive\n"
"                          places named in comments, not granted) and how\n"
"                          it differs from the policy in force; =FILE also\n"
"                          writes it as a file for --policy\n"
"      --landlock=MODE     the kernel floor under the preload (Landlock),\n"
"                          which refuses writes outside the roots that the\n"
"                          preload cannot see (static programs, direct\n"
"                          system calls, io_uring):\n"
"                          auto (default): on where the kernel has it;\n"
"                          on: fail (125) where it cannot be had;\n"
"                          strict: as on, and the kernel also refuses\n"
"                          truncation outside the roots and ioctls on\n"
"                          devices other than the terminal and the null\n"
"                          devices, which makes every open, reads too, pay\n"
"                          a check (on and auto leave both to the preload,\n"
"                          which sees libc's truncate but no direct system\n"
"                          call, and no device ioctl; a read-only open\n"
"                          then costs nothing); off: the preload alone\n"
"      --verbose           say which kernel floor applies, and whether its\n"
"                          refusals can be named from the kernel's audit log\n"
"      --log FILE          append one JSON line per denial to FILE; its \"fix\"\n"
"                          says what would have allowed it\n"
"      --log-approvals     also log what an approval let through: a program\n"
"                          of --allow-exec started, a write or exec a Python\n"
"                          host approved (\"approved_by\"); needs --log\n"
"      --quiet             no message on stderr for a denial, and no summary\n"
"                          at exit\n"
"      --help              show this help and exit\n"
"      --version           show the version and exit\n"
"\n"
"A denied call fails with EACCES (Permission denied) and changes nothing;\n"
"its message ends with the smallest change that would have allowed it\n"
"(\"; to allow: add -w DIR to fa-run\"). When anything was denied, fa-run\n"
"(which stays the command's parent) says at exit how many calls were, in\n"
"the command and all its children:\n"
"  fa-run: 3 denials (2 paths, 1 exec); see FILE\n"
"Environment: FA_SHIM overrides the shim to preload.\n"
"Exit status: COMMAND's; 125 if fa-run fails; 126 if COMMAND cannot be\n"
"run; 127 if COMMAND is not found.\n", modes);
}

static __attribute__((noreturn, format(printf, 2, 3))) void die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* PROG as execvp would find it; returns 0 and fills out, or -errno. */
static int find_program(const char *name, char *out, size_t len)
{
	struct fa_path_search ps;
	char buf[PATH_MAX];
	struct stat st;
	int err = ENOENT, rc;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (snprintf(out, len, "%s", name) >= (int)len)
			return -ENAMETOOLONG;
		return access(out, F_OK) ? -errno : 0;
	}
	fa_path_search_init(&ps, name);
	while ((rc = fa_path_search_next(&ps, buf, sizeof(buf))) != 0) {
		if (rc > 0 && !stat(buf, &st) && S_ISREG(st.st_mode)) {
			if (!access(buf, X_OK)) {
				snprintf(out, len, "%s", buf);
				return 0;
			}
			err = EACCES;
		}
	}
	return -err;
}

static const char *find_shim(char *buf, size_t len)
{
	const char *env = getenv("FA_SHIM");
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (env && *env) {
		if (access(env, R_OK))
			die(EXIT_FAIL, "FA_SHIM=%s: %s", env, strerror(errno));
		return env;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if (snprintf(buf, len, "%.*s/src/.libs/libfashim.so",
				     (int)(len - 32), self) < (int)len && !access(buf, R_OK))
				return buf;
			/* A moved prefix, or the Python package, which carries
			 * bin/ and lib/ inside itself: the shim of this very
			 * install before any other one. */
			if (FA_LIBDIR_FROM_BINDIR[0] &&
			    snprintf(buf, len, "%s/%s/libfashim.so", self,
				     FA_LIBDIR_FROM_BINDIR) < (int)len && !access(buf, R_OK))
				return buf;
		}
	}
	snprintf(buf, len, "%s/libfashim.so", FA_LIBDIR);
	if (access(buf, R_OK))
		die(EXIT_FAIL, "cannot find libfashim.so (looked in the build tree, in %s "
		    "from fa-run's directory and in %s; FA_SHIM can name it)",
		    FA_LIBDIR_FROM_BINDIR[0] ? FA_LIBDIR_FROM_BINDIR : "nothing", FA_LIBDIR);
	return buf;
}

/* The shim first (after the ASan runtime it needs), then what was there. */
static void set_preload(const char *shim)
{
	const char *old = getenv("LD_PRELOAD");
	size_t n = strlen(shim) + (old ? strlen(old) : 0) + PATH_MAX + 4;
	char *v = malloc(n), *copy, *tok, *save = NULL;

	if (!v)
		die(EXIT_FAIL, "out of memory");
	v[0] = '\0';
#ifdef FA_ASAN_LIB
	strcat(v, FA_ASAN_LIB);
	strcat(v, " ");
#endif
	strcat(v, shim);
	if (old) {
		copy = strdup(old);
		if (!copy)
			die(EXIT_FAIL, "out of memory");
		for (tok = strtok_r(copy, " :", &save); tok; tok = strtok_r(NULL, " :", &save)) {
			if (!strcmp(tok, shim))
				continue;
#ifdef FA_ASAN_LIB
			if (!strcmp(tok, FA_ASAN_LIB))
				continue;
#endif
			strcat(v, " ");
			strcat(v, tok);
		}
		free(copy);
	}
	if (setenv("LD_PRELOAD", v, 1))
		die(EXIT_FAIL, "cannot set LD_PRELOAD: %s", strerror(errno));
	free(v);
}

static void set(const char *name, const char *value)
{
	if (setenv(name, value, 1))
		die(EXIT_FAIL, "cannot set %s: %s", name, strerror(errno));
}

/* An absolute path for the log, which must be appendable now. */
static char *log_path(const char *given)
{
	char cwd[PATH_MAX], *abs;
	int fd;

	if (given[0] == '/') {
		abs = strdup(given);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			die(EXIT_FAIL, "--log %s: cannot get the current directory: %s", given,
			    strerror(errno));
		if (asprintf(&abs, "%s/%s", cwd, given) < 0)
			abs = NULL;
	}
	if (!abs)
		die(EXIT_FAIL, "out of memory");
	fd = open(abs, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		die(EXIT_FAIL, "--log %s: %s", given, strerror(errno));
	close(fd);
	return abs;
}

/*
 * The run's tally (counts.h), read at exit unless --quiet wants no summary: a memfd
 * the command inherits (FA_COUNTS names the descriptor), moved up out of
 * the low numbers that shells and scripts use for themselves; the preload
 * keeps it from close() as it keeps its pinned roots. Under the
 * kernel floor no process of the run may reach fa-run's own /proc entry,
 * so inheriting is the one way in.
 */
static struct fa_counts *make_counts(void)
{
	char num[16];
	struct fa_counts *c;
	int fd = memfd_create("fa-run-counts", MFD_CLOEXEC), high, want = 960;
	struct rlimit rl;

	if (fd < 0 || ftruncate(fd, sizeof(*c)) < 0)
		die(EXIT_FAIL, "cannot make the denial counter: %s", strerror(errno));
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		die(EXIT_FAIL, "cannot map the denial counter: %s", strerror(errno));
	c->magic = FA_COUNTS_MAGIC;
	/* below the roots the preload pins, which it places at the top (policy.c) */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 1100)
		want = rl.rlim_cur > 96 ? (int)rl.rlim_cur - 64 : 10;
	high = fcntl(fd, F_DUPFD, want);
	if (high < 0)
		high = fcntl(fd, F_DUPFD, 3);
	if (high < 0)
		die(EXIT_FAIL, "cannot pass the denial counter on: %s", strerror(errno));
	close(fd);
	snprintf(num, sizeof(num), "%d", high);
	set("FA_COUNTS", num);
	return c;
}

/* One more program for the allow list: found on PATH now, kept by its real path. */
static void allow_program(char **allow, size_t *allowlen, const char *name, const char *what)
{
	char found[PATH_MAX], canon[PATH_MAX], *na;
	struct stat st;
	int r;

	r = find_program(name, found, sizeof(found));
	if (r < 0)
		die(EXIT_FAIL, "%s %s: %s", what, name, strerror(-r));
	if (!realpath(found, canon))
		die(EXIT_FAIL, "%s %s: %s", what, name, strerror(errno));
	/* A directory or a file nobody may run is a mistake in the list, not a program. */
	if (stat(canon, &st) < 0 || !S_ISREG(st.st_mode) || access(canon, X_OK) < 0)
		die(EXIT_FAIL, "%s %s: not an executable file", what, name);
	na = realloc(*allow, *allowlen + strlen(canon) + 2);
	if (!na)
		die(EXIT_FAIL, "out of memory");
	*allow = na;
	if (*allowlen)
		na[(*allowlen)++] = '\n';
	strcpy(na + *allowlen, canon);
	*allowlen += strlen(canon);
}

/* --landlock=on and strict fail where the floor cannot be had; auto and off do not. */
static int floor_demanded(enum fa_floor_mode m)
{
	return m == FA_FLOOR_ON || m == FA_FLOOR_STRICT;
}

/* For --verbose: what the floor's ruleset handles of what every open asks for. */
static const char *floor_handles(const struct fa_floor *f)
{
	int trunc = !!(f->handled & FA_LL_FS_TRUNCATE), ioctl = !!(f->handled & FA_LL_FS_IOCTL_DEV);

	if (trunc && ioctl)
		return "truncate and device ioctls too (every open pays a check)";
	if (trunc)
		return "truncate too, device ioctls not (this kernel's Landlock cannot)";
	return "truncate and device ioctls left to the preload (a read-only open asks "
	       "the floor nothing)";
}

enum {
	OPT_DENY = 256, OPT_EXEC, OPT_ALLOW_EXEC, OPT_ALLOW_STATIC, OPT_SYMLINKS, OPT_REPORT,
	OPT_LOG, OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_LANDLOCK, OPT_VERBOSE, OPT_OUTSIDE_SYMLINKS,
	OPT_LOG_APPROVALS, OPT_POLICY, OPT_LEARN, OPT_DENY_GLOB, OPT_DENY_READ,
};

static const struct option options[] = {
	{ "write", required_argument, NULL, 'w' },
	{ "deny", required_argument, NULL, OPT_DENY },
	{ "deny-glob", required_argument, NULL, OPT_DENY_GLOB },
	{ "deny-read", required_argument, NULL, OPT_DENY_READ },
	{ "exec", required_argument, NULL, OPT_EXEC },
	{ "allow-exec", required_argument, NULL, OPT_ALLOW_EXEC },
	{ "allow-static", no_argument, NULL, OPT_ALLOW_STATIC },
	{ "symlinks", required_argument, NULL, OPT_SYMLINKS },
	{ "allow-outside-symlinks", no_argument, NULL, OPT_OUTSIDE_SYMLINKS },
	{ "report", no_argument, NULL, OPT_REPORT },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "learn", optional_argument, NULL, OPT_LEARN },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "log-approvals", no_argument, NULL, OPT_LOG_APPROVALS },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "landlock", required_argument, NULL, OPT_LANDLOCK },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	char msg[512], shimbuf[PATH_MAX], found[PATH_MAX], canon[PATH_MAX], why[PATH_MAX + 128];
	char *allow = NULL, *logfile = NULL, *text;
	const char *policy_file = NULL;
	struct fa_policy_file pf = { 0 };
	struct fa_learn learn = { 0 };
	size_t allowlen = 0;
	const char *exec_mode = NULL, *sym_given = NULL, *shim;
	enum fa_symlinks sym = FA_SYM_TRUST;
	int nroots = 0, report = 0, quiet = 0, allow_static = 0, log_approvals = 0, c, r, fd;
	enum fa_floor_mode landlock = FA_FLOOR_AUTO;
	struct fa_floor floor;
	struct fa_watch watch = { 0 };
	struct fa_counts *counts;
	int floor_on, verbose = 0;
	fa_policy *p;
	ssize_t n;

	p = fa_policy_new();
	if (!p)
		die(EXIT_FAIL, "out of memory");
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+w:", options, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (fa_policy_add_root(p, optarg, msg, sizeof(msg)) < 0)
				die(EXIT_FAIL, "-w %s: %s", optarg, msg);
			nroots++;
			break;
		case OPT_DENY:
			if (fa_policy_add_deny(p, optarg, msg, sizeof(msg)) < 0)
				die(EXIT_FAIL, "--deny %s: %s", optarg, msg);
			break;
		case OPT_DENY_GLOB:
			if (fa_policy_add_deny_glob(p, optarg, msg, sizeof(msg)) < 0)
				die(EXIT_FAIL, "--deny-glob %s: %s", optarg, msg);
			break;
		case OPT_DENY_READ:
			if (fa_policy_add_deny_read(p, optarg, msg, sizeof(msg)) < 0)
				die(EXIT_FAIL, "--deny-read %s: %s", optarg, msg);
			break;
		case OPT_EXEC: {
			enum fa_exec_mode m;

			if (fa_exec_mode_parse(optarg, &m) < 0 || m == FA_EXEC_LIST)
				die(EXIT_FAIL, "--exec=%s: expected allow or deny", optarg);
			if (exec_mode && strcmp(exec_mode, optarg))
				die(EXIT_FAIL, "--exec=%s contradicts --exec=%s: give one", optarg,
				    exec_mode);
			exec_mode = optarg;
			break;
		}
		case OPT_ALLOW_EXEC:
			allow_program(&allow, &allowlen, optarg, "--allow-exec");
			break;
		case OPT_POLICY:
			if (policy_file)
				die(EXIT_FAIL, "--policy %s: a second policy file (after %s): give one",
				    optarg, policy_file);
			policy_file = optarg;
			if (fa_policy_file_read(p, optarg, &pf, why, sizeof(why)) < 0)
				die(EXIT_FAIL, "--policy %s", why);
			nroots += pf.nroots;
			for (r = 0; r < pf.nallow_exec; r++) {
				snprintf(msg, sizeof(msg), "%s: allow-exec", optarg);
				allow_program(&allow, &allowlen, pf.allow_exec[r], msg);
			}
			break;
		case OPT_LEARN:
			report = 1;
			learn.on = 1;
			learn.out = optarg;
			break;
		case OPT_ALLOW_STATIC:
			allow_static = 1;
			break;
		case OPT_SYMLINKS: {
			enum fa_symlinks m;
			char modes[64];

			fa_symlinks_choices(modes, sizeof modes);
			if (fa_symlinks_parse(optarg, &m) < 0)
				die(EXIT_FAIL, "--symlinks=%s: expected %s", optarg, modes);
			/* A second, different mode is a contradiction, not an override. */
			if (sym_given && m != sym)
				die(EXIT_FAIL, "--symlinks=%s contradicts --symlinks=%s: give one", optarg,
				    sym_given);
			sym = m;
			sym_given = optarg;
			break;
		}
		case OPT_OUTSIDE_SYMLINKS:
			fa_policy_set_outside_symlinks(p, 1);
			break;
		case OPT_REPORT:
			report = 1;
			break;
		case OPT_LOG:
			free(logfile);
			logfile = log_path(optarg);
			break;
		case OPT_QUIET:
			quiet = 1;
			break;
		case OPT_LOG_APPROVALS:
			log_approvals = 1;
			break;
		case OPT_LANDLOCK:
			if (fa_floor_mode_parse(optarg, &landlock) < 0)
				die(EXIT_FAIL, "--landlock=%s: expected " FA_FLOOR_MODES, optarg);
			break;
		case OPT_VERBOSE:
			verbose = 1;
			break;
		case OPT_HELP:
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("fa-run (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
			return 0;
		default:
			if (optopt && optopt < 256)
				die(EXIT_FAIL, "invalid option -- '%c'\nTry 'fa-run --help'.", optopt);
			die(EXIT_FAIL, "invalid option '%s'\nTry 'fa-run --help'.", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		die(EXIT_FAIL, "no command given\nTry 'fa-run --help'.");
	/* The file and the options add up; a different mode is a contradiction, never an override. */
	if (policy_file && pf.symlinks_set && sym_given && pf.symlinks != sym)
		die(EXIT_FAIL, "--symlinks=%s contradicts 'symlinks %s' in %s: give one", sym_given,
		    fa_symlinks_name(pf.symlinks), policy_file);
	if (policy_file && pf.symlinks_set && !sym_given)
		sym = pf.symlinks;
	/* "list" with no program is "deny": both allow only what is listed. */
	if (policy_file && pf.exec_set && exec_mode &&
	    strcmp(exec_mode, pf.exec == FA_EXEC_ALLOW ? "allow" : "deny"))
		die(EXIT_FAIL, "--exec=%s contradicts 'exec %s' in %s: give one", exec_mode,
		    fa_exec_mode_name(pf.exec), policy_file);
	if (policy_file && pf.exec_set && pf.exec == FA_EXEC_ALLOW && allow)
		die(EXIT_FAIL, "--allow-exec contradicts 'exec allow' in %s: give one", policy_file);
	if (policy_file && pf.exec_set && !exec_mode)
		exec_mode = fa_exec_mode_name(pf.exec);
	if (exec_mode && !strcmp(exec_mode, "list"))
		exec_mode = "deny";
	if (learn.on && floor_demanded(landlock))
		die(EXIT_FAIL, "--landlock=%s cannot be combined with --learn, which denies nothing",
		    fa_floor_mode_name(landlock));
	if (log_approvals && !logfile)
		die(EXIT_FAIL, "--log-approvals needs --log FILE to write to");
	/* --allow-exec is an allow list: with --exec=deny it means itself; --exec=allow contradicts it. */
	if (allow && exec_mode && !strcmp(exec_mode, "allow"))
		die(EXIT_FAIL, "--exec=allow contradicts --allow-exec: give one");

	if (!nroots) {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)))
			die(EXIT_FAIL, "cannot get the current directory: %s", strerror(errno));
		if (fa_policy_add_root(p, cwd, msg, sizeof(msg)) < 0)
			die(EXIT_FAIL, "%s: %s", cwd, msg);
	}
	fa_policy_set_symlinks(p, sym);
	/* --learn watches the writes a common secret pattern names: reported, never refused. */
	learn.user_globs = fa_policy_nglobs(p);
	for (r = 0; learn.on && fa_secret_write_patterns[r]; r++)
		if (fa_policy_add_deny_glob(p, fa_secret_write_patterns[r], msg, sizeof(msg)) < 0)
			break;
	msg[0] = '\0';
	if (fa_policy_seal(p, 1, msg, sizeof(msg)) < 0)
		die(EXIT_FAIL, "%s%s%s", policy_file ? policy_file : "", policy_file ? ": " : "",
		    msg[0] ? msg : "cannot build the policy");
	text = malloc(1 << 18);
	if (!text)
		die(EXIT_FAIL, "out of memory");
	n = fa_policy_format(p, text, 1 << 18);
	if (n < 0)
		die(EXIT_FAIL, "the policy is too large to pass on");

	/* The command itself: it must exist, and a static one would escape the preload. */
	r = find_program(argv[optind], found, sizeof(found));
	if (r < 0)
		die(r == -ENOENT ? EXIT_NOTFOUND : EXIT_CANNOT, "%s: %s", argv[optind], strerror(-r));

	/* The kernel floor, from the same policy; report mode denies nothing. */
	if (report && floor_demanded(landlock))
		die(EXIT_FAIL, "--landlock=%s cannot be combined with --report, which denies nothing",
		    fa_floor_mode_name(landlock));
	if (!report && fa_learn_nested()) {
		if (floor_demanded(landlock))
			die(EXIT_FAIL, "--landlock=%s cannot be used inside fa-run --learn, "
			    "which denies nothing", fa_floor_mode_name(landlock));
		fprintf(stderr, "%s: inside fa-run --learn: nothing is denied: "
			"the kernel floor (Landlock) is off\n", prog);
		landlock = FA_FLOOR_OFF;
	}
	if (report && landlock == FA_FLOOR_AUTO) {
		fprintf(stderr, "%s: %s: the kernel floor (Landlock) is off\n", prog,
			learn.on ? "--learn: nothing is denied" : "--report");
		landlock = FA_FLOOR_OFF;
	}
	floor_on = fa_floor_build(&floor, landlock, p, allow || (exec_mode && !strcmp(exec_mode, "deny")),
				  found, allow, logfile, why, sizeof(why));
	if (floor_on < 0)
		die(EXIT_FAIL, "--landlock=%s: the kernel floor cannot be had: %s",
		    fa_floor_mode_name(landlock), why);
	if (verbose && floor_on)
		fprintf(stderr, "%s: kernel floor: Landlock ABI %d: writes beneath %d root%s%s; %s%s\n",
			prog, floor.abi, fa_policy_nroots(p), fa_policy_nroots(p) == 1 ? "" : "s",
			floor.exec ? ", execute for the allowed programs only" : "",
			floor_handles(&floor),
			floor.nskipped ? "; some inherited writable descriptors name files it "
					 "cannot cover, re-opening them by name will fail" : "");
	else if (verbose)
		fprintf(stderr, "%s: kernel floor: off%s%s\n", prog, why[0] ? ": " : "", why);

	fd = open(found, O_RDONLY | O_CLOEXEC);
	/* Execute-only: its mode bits can still be read. */
	if (fd < 0 && errno == EACCES)
		fd = open(found, O_PATH | O_CLOEXEC);
	if (fd >= 0 && (!allow_static || floor_on)) {
		enum fa_prog_kind k = fa_prog_check(fd, found, argv + optind, AT_FDCWD, canon,
						    sizeof(canon));

		/* Under the floor such programs run, confined by the kernel. */
		if (floor_on && (k == FA_PROG_SETID || k == FA_PROG_CAPS))
			fprintf(stderr, "%s: %s: %s program: runs without its privileges under the "
				"kernel floor (no_new_privs)\n", prog, canon[0] ? canon : found,
				k == FA_PROG_SETID ? "set-user/group-ID" : "file-capability");
		else if (!floor_on && k != FA_PROG_OK && strcmp(canon, found))
			die(EXIT_CANNOT, "%s: runs %s, a %s", found, canon, fa_prog_text(k));
		else if (!floor_on && k != FA_PROG_OK)
			die(EXIT_CANNOT, "%s: %s", found, fa_prog_text(k));
	}
	if (fd >= 0)
		close(fd);

	if (getenv("FA_POLICY"))
		fprintf(stderr, "%s: already running under a policy: the outer policy still applies\n",
			prog);
	shim = find_shim(shimbuf, sizeof(shimbuf));
	unsetenv("FA_EXEC_ALLOW");
	unsetenv("FA_REPORT");
	unsetenv("FA_QUIET");
	unsetenv("FA_LOG");
	unsetenv("FA_ALLOW_STATIC");
	unsetenv("FA_FLOOR");
	unsetenv("FA_COUNTS");
	unsetenv("FA_LOG_APPROVALS");
	set("FA_POLICY", text);
	set("FA_EXEC", allow ? fa_exec_mode_name(FA_EXEC_LIST) : exec_mode ? exec_mode :
		    fa_exec_mode_name(FA_EXEC_ALLOW));
	if (allow)
		set("FA_EXEC_ALLOW", allow);
	if (report)
		set("FA_REPORT", "1");
	if (quiet)
		set("FA_QUIET", "1");
	if (logfile)
		set("FA_LOG", logfile);
	if (log_approvals)
		set("FA_LOG_APPROVALS", "1");
	learn.nested = learn.on && fa_learn_nested();
	unsetenv("FA_LEARN");
	if (learn.on) {
		/* The learned policy says it all at exit: no line per call. */
		set("FA_QUIET", "1");
		learn.policy = p;
		learn.exec = allow ? FA_EXEC_LIST : exec_mode && !strcmp(exec_mode, "deny") ?
			     FA_EXEC_DENY : FA_EXEC_ALLOW;
		learn.allow = allow;
		learn.argv = argv + optind;
		if (fa_learn_start(&learn, why, sizeof(why)) < 0)
			die(EXIT_FAIL, "--learn: %s", why);
		watch.learn = &learn;
	}
	if (allow_static)
		set("FA_ALLOW_STATIC", "1");
	/*
	 * Whether strict or not, the floor itself is inherited by every
	 * process of the run and cannot be dropped; the floor an approved
	 * child of an audit context adds on top (the default one) only
	 * narrows it. So no variable says strict: nothing re-applies it.
	 */
	if (floor_on)
		set("FA_FLOOR", "1");
	set_preload(shim);
#ifdef FA_ASAN_LIB
	if (!getenv("ASAN_OPTIONS"))
		set("ASAN_OPTIONS", "detect_leaks=0");
#endif
	if (!learn.on)
		fa_policy_free(p);
	free(text);
	fa_policy_file_free(&pf);
	watch.quiet = quiet;
	watch.verbose = verbose;
	watch.log = logfile;

	/*
	 * The run's shared page, always: its processes tell each other of the
	 * directories they move through it. The summary at exit needs fa-run
	 * to outlive the command: it stays the parent.
	 */
	counts = make_counts();
	if (!quiet && !learn.on)
		watch.counts = counts;
	if (floor_on || !quiet || learn.on)
		fa_floor_run(floor_on ? &floor : NULL, argv + optind, &watch);
	execvp(argv[optind], argv + optind);
	r = errno;
	die(r == ENOENT ? EXIT_NOTFOUND : EXIT_CANNOT, "%s: %s", argv[optind], strerror(r));
}
