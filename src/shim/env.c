/* SPDX-License-Identifier: Apache-2.0 */
/*
 * env.c - the process policy, read from the environment once.
 *
 * The constructor runs before main() because programs such as env(1)
 * clear the environment before their first write; a wrapper reached
 * earlier (another library's constructor) runs the same code first.
 * Anything malformed is fatal: a guard that cannot read its policy must
 * not run the program unconfined.
 *
 * Start-up sits on top of the shim's other state: it fills in the process
 * state (proc.c), the report's (report.c) and the bridge's (shim_bridge.c),
 * and none of them calls it back. A wrapper that runs first reaches it
 * from above, through the judging helpers (fa_pols_get(), fa_exec_check()),
 * and the host reaches it through fa_bridge_v1() below, so whatever they
 * ask of the lower files is asked after it.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sys.h"
#include "wrap.h"
#include "floor/landlock.h"

/* ---- a bump allocator on mmap: policy strings live as long as the process ---- */
static char *arena;
static size_t arena_left;

void *fa_arena_alloc(size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (n > arena_left) {
		size_t sz = n > 65536 ? n : 65536;
		/* The system call, not mmap(): the program may have its own. */
		char *a = fa__sys_mmap(sz, PROT_READ | PROT_WRITE);

		if (!a)
			return NULL;
		arena = a;
		arena_left = sz;
	}
	p = arena;
	arena += n;
	arena_left -= n;
	return p;
}

char *fa_arena_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = fa_arena_alloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

static __attribute__((noreturn)) void invalid(const char *var, const char *why)
{
	struct fa_buf m;
	char buf[1024];

	m.p = buf;
	m.len = 0;
	m.cap = sizeof(buf);
	fa_puts(&m, "libfashim: invalid ");
	fa_puts(&m, var);
	fa_puts(&m, ": ");
	fa_put_shown(&m, why);
	fa_putc(&m, '\n');
	(void)!write(2, m.p, strlen(m.p));
	_exit(125);
}

static int flag_var(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v || !strcmp(v, "0"))
		return 0;
	if (!strcmp(v, "1"))
		return 1;
	invalid(name, "expected 0 or 1");
}

static void read_exec(void)
{
	const char *v = getenv("FA_EXEC"), *l, *s;
	char *copy, *line, *save = NULL;
	int n = 0;

	if (!v)
		return;
	fa_proc.active = 1;
	if (fa_exec_mode_parse(v, &fa_proc.exec) < 0)
		invalid("FA_EXEC", "expected allow, deny or list");
	l = getenv("FA_EXEC_ALLOW");
	if (fa_proc.exec != FA_EXEC_LIST) {
		if (l && *l)
			invalid("FA_EXEC_ALLOW", "set while FA_EXEC is not 'list'");
		return;
	}
	if (!l)
		l = "";
	for (s = l; *s; s++)
		n += *s == '\n';
	fa_proc.exec_allow = fa_arena_alloc(sizeof(char *) * (size_t)(n + 1));
	copy = fa_arena_strdup(l);
	if (!fa_proc.exec_allow || !copy)
		invalid("FA_EXEC_ALLOW", "out of memory");
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] != '/')
			invalid("FA_EXEC_ALLOW", "program paths must be absolute");
		fa_proc.exec_allow[fa_proc.nexec_allow++] = line;
	}
}

static void read_policy(void)
{
	const char *v = getenv("FA_POLICY");
	char msg[512];
	fa_policy *p;
	int i, fd, n = 0, lo = 0, hi = 0;

	if (!v)
		return;
	fa_proc.active = 1;
	p = fa_policy_new();
	if (!p)
		invalid("FA_POLICY", "out of memory");
	msg[0] = '\0';
	if (fa_policy_parse(p, v, msg, sizeof(msg)) < 0)
		invalid("FA_POLICY", msg[0] ? msg : "cannot parse");
	msg[0] = '\0';
	if (fa_policy_seal(p, 0, msg, sizeof(msg)) < 0)
		invalid("FA_POLICY", msg[0] ? msg : "cannot resolve the roots");
	fa_proc.policy = p;
	if (fa_policy_read_globs(p))
		__atomic_store_n(&fa_read_guard, 1, __ATOMIC_RELAXED);
	for (i = 0; i < fa_policy_nroots(p); i++) {
		fd = fa_policy_root_fd(p, i);
		if (fd < 0)
			continue;
		if (!n || fd < lo)
			lo = fd;
		if (!n || fd > hi)
			hi = fd;
		n++;
	}
	if (n) {
		fa_proc.pin_lo = (unsigned)lo;
		fa_proc.pin_span = (unsigned)(hi - lo);
		fa_proc.npinned = n;
	}
}

/*
 * fa-run's tally: a descriptor inherited from fa-run, kept open (and kept
 * from close(), like the pinned roots) so that children inherit it too.
 * The number must be a number; a descriptor that is no longer the tally
 * (closed by a raw system call before an exec) only means that this
 * process and its children go uncounted (their denials are still printed
 * and logged).
 */
static void read_counts(void)
{
	const char *v = getenv("FA_COUNTS"), *s;
	struct fa_counts *c;
	struct stat st;
	long fd = 0;
	void *m;

	if (!v)
		return;
	for (s = v; *s >= '0' && *s <= '9' && fd < 0x7fffffff; s++)
		fd = fd * 10 + (*s - '0');
	if (!*v || *s || fd > 0x7fffffff)
		invalid("FA_COUNTS", "expected a descriptor number");
	if (fstat((int)fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct fa_counts))
		return;
	m = fa__sys_mmap_shared((int)fd, sizeof(*c), PROT_READ | PROT_WRITE);
	if (!m)
		return;
	c = m;
	if (__atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) != FA_COUNTS_MAGIC) {
		fa__sys_munmap(m, sizeof(*c));
		return;
	}
	fa_proc.counts = c;
	fa_proc.counts_fd = (int)fd;
	/* kept from close() and close_range() with the pinned roots (fd.c) */
	if (!fa_proc.npinned) {
		fa_proc.pin_lo = (unsigned)fd;
		fa_proc.pin_span = 0;
	} else {
		unsigned lo = fa_proc.pin_lo, hi = fa_proc.pin_lo + fa_proc.pin_span;

		lo = (unsigned)fd < lo ? (unsigned)fd : lo;
		hi = (unsigned)fd > hi ? (unsigned)fd : hi;
		fa_proc.pin_lo = lo;
		fa_proc.pin_span = hi - lo;
	}
}

/*
 * What children get back whatever environment they are started with.
 * The shim's own path and LD_PRELOAD are kept in every process: a
 * context's approved child needs them even where no process policy is.
 * A floor request this process carried out is passed on as a floor that
 * is there (Landlock domains are inherited; another layer would only
 * count towards the kernel's limit of 16).
 */
static void snapshot_env(int floor_applied)
{
	extern char **environ;
	char **e;
	int n = 0;
	Dl_info info;

	for (e = environ; e && *e; e++)
		n += !strncmp(*e, "FA_", 3);
	fa_proc.fa_env = fa_arena_alloc(sizeof(char *) * (size_t)(n + 2));
	if (!fa_proc.fa_env)
		invalid("FA_POLICY", "out of memory");
	for (e = environ; e && *e; e++) {
		if (!strncmp(*e, "FA_FLOOR_APPLY=", 15) || !strncmp(*e, "FA_FLOOR=", 9))
			continue;
		if (fa_proc.active && !strncmp(*e, "FA_", 3) && strchr(*e, '='))
			fa_proc.fa_env[fa_proc.nfa_env++] = fa_arena_strdup(*e);
		else if (!strncmp(*e, FA_PRELOAD_EQ, FA_PRELOAD_EQ_LEN))
			fa_proc.ld_preload = fa_arena_strdup(*e);
	}
	if (fa_proc.active && (fa_proc.floor || floor_applied))
		fa_proc.fa_env[fa_proc.nfa_env++] = "FA_FLOOR=1";
	fa_tls.guard++;
	if (dladdr((void *)fa_init, &info) && info.dli_fname)
		fa_proc.self = fa_arena_strdup(info.dli_fname);
	fa_tls.guard--;
}

/*
 * FA_FLOOR_APPLY=1: this process is the approved child of an audit
 * context, and its policy is to have the kernel floor under it from here
 * on, as fa-run gives its command (auto: where the kernel has Landlock).
 * Applied before main(), so the program's own calls, and every program it
 * starts, static ones included, are confined by the kernel too. Where it
 * cannot be had the preload alone enforces the policy, as under
 * fa-run --landlock=off. Returns 1 when the floor is on.
 */
static int apply_floor(void)
{
	struct fa_floor f;
	char why[PATH_MAX + 128];
	int r;

	if (!flag_var("FA_FLOOR_APPLY") || !fa_proc.policy || fa_policy_unrestricted(fa_proc.policy))
		return 0;
	fa_tls.guard++;
	r = fa_floor_build(&f, FA_FLOOR_AUTO, fa_proc.policy, 0, NULL, NULL, fa_proc.log, why,
			   sizeof(why));
	if (r == 1) {
		/* this image is the program: its own refusals are the ones to log */
		f.log_same_exec = 1;
		r = fa_floor_enforce(&f, why, sizeof(why)) == 0;
	}
	fa_tls.guard--;
	return r == 1;
}

void fa_init(void)
{
	int expect = 0, floor_applied;

	if (!__atomic_compare_exchange_n(&fa_init_state, &expect, 1, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	fa_resolve_all();
	fa_bridge_init();
	fa_report_init();
	if (flag_var("FA_FORCE_FALLBACK"))
		fa_resolve_force_fallback(1);
	read_policy();
	read_exec();
	fa_proc.report = flag_var("FA_REPORT");
	fa_proc.quiet = flag_var("FA_QUIET");
	fa_proc.from_context = flag_var("FA_FROM_CONTEXT");
	/* Under the kernel floor such programs run confined by the kernel. */
	fa_proc.floor = flag_var("FA_FLOOR");
	fa_proc.allow_static = flag_var("FA_ALLOW_STATIC") | fa_proc.floor;
	fa_proc.log = getenv("FA_LOG");
	fa_proc.log_approvals = flag_var("FA_LOG_APPROVALS");
	if (fa_proc.log) {
		if (fa_proc.log[0] != '/')
			invalid("FA_LOG", "the log file must be an absolute path");
		fa_proc.log = fa_arena_strdup(fa_proc.log);
		if (fa_report_log_unusable())
			invalid("FA_LOG", fa_report_log_unusable());
	}
	fa_proc.learn = getenv("FA_LEARN");
	if (fa_proc.learn) {
		if (fa_proc.learn[0] != '/')
			invalid("FA_LEARN", "must be an absolute path");
		fa_proc.learn = fa_arena_strdup(fa_proc.learn);
	}
	read_counts();
	floor_applied = apply_floor();
	fa_proc.floor |= floor_applied;
	fa_proc.allow_static |= floor_applied;
	fa_proc.floor_entries = fa_proc.floor && !fa_proc.report && !fa_proc.learn &&
				fa_floor_decides_entries(fa_proc.policy);
	snapshot_env(floor_applied);
	__atomic_store_n(&fa_init_state, 2, __ATOMIC_RELEASE);
	__atomic_add_fetch(&fa_gate, fa_proc.active ? 0 : -1, __ATOMIC_SEQ_CST);
}

__attribute__((constructor)) static void fa_shim_ctor(void)
{
	fa_init();
}

/*
 * The bridge is handed to the host only once start-up is done: a host
 * that asks from another library's constructor, before ours has run,
 * finds the process policy read (the table's process_policy()).
 */
const struct fa_bridge *fa_bridge_v1(void)
{
	fa_init_ensure();
	return &fa_bridge_table;
}
