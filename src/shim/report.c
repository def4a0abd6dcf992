/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c - what a denial says, and where.
 *
 * One function (build) describes a denial; from that one description come
 * the human line on fd 2 (unless FA_QUIET), the JSON line appended to
 * FA_LOG (if set), and the record in a lock-free ring that the host reads
 * back through the bridge and renders with the same code (denial.c).
 *
 * Nothing here allocates from the application: a line is built on the
 * stack, or, when it does not fit there (long paths, many escapes), in a
 * private mapping of exactly its size, so that a line is never cut and is
 * written with one write() (an O_APPEND log stays one line per denial
 * even with several writers). The log is opened, appended and closed per
 * denial so that no descriptor of ours lingers where the program could
 * close or reuse it.
 *
 * Under fa-run --learn each denial also goes, as one short record
 * (learn_record.h), to FA_LEARN, a file fa-run reads when the command
 * exits. A context of mk_audit(learn=True) has its policy in learn mode:
 * its refusals are reported as not enforced and go to its learner's
 * record; a program such a context starts gets that record as FA_LEARN.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_SYS_AUXV_H
#include <sys/auxv.h>
#endif
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "denial.h"
#include "learn_record.h"
#include "sys.h"
#include "wrap.h"

/*
 * The program's own file, read once at start-up: dladdr() names the main
 * program by argv[0], which the program chose. When the program was
 * started through ld.so, /proc/self/exe is ld.so, and the kernel's map of
 * the program's headers names the file instead.
 */
static char exe[PATH_MAX];
static void *main_base;

#ifndef FA_DARWIN
static void exe_from_maps(const void *phdr)
{
	char buf[4096 + PATH_MAX + 128];
	size_t have = 0;
	int fd = FA_REAL(openat)(AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC, 0);

	if (fd < 0)
		return;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *line = buf, *nl;

		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			unsigned long lo, hi;
			char *slash = memchr(line, '/', (size_t)(nl - line));

			*nl = '\0';
			lo = strtoul(line, &line, 16);
			hi = *line == '-' ? strtoul(line + 1, NULL, 16) : 0;
			if (slash && (unsigned long)phdr >= lo && (unsigned long)phdr < hi &&
			    (size_t)(nl - slash) < sizeof(exe)) {
				memcpy(exe, slash, (size_t)(nl - slash) + 1);
				FA_REAL(close)(fd);
				return;
			}
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;
	}
	FA_REAL(close)(fd);
}
#endif

void fa_report_init(void)
{
#ifdef FA_DARWIN
	/* dyld names the program and where it is mapped (interpose_darwin.c). */
	fa_dyld_main(exe, sizeof(exe), &main_base);
#else
	const void *phdr = (const void *)getauxval(AT_PHDR);
	Dl_info info;
	ssize_t n;

	fa_tls.guard++;
	if (phdr && dladdr(phdr, &info))
		main_base = info.dli_fbase;
	fa_tls.guard--;
	/* No AT_BASE: the kernel started ld.so itself, which then loaded the program. */
	if (getauxval(AT_BASE) == 0 && phdr)
		exe_from_maps(phdr);
	if (exe[0])
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
#endif
}

static const char *caller_of(void *ra)
{
	const char *c = NULL;
	Dl_info info;

	if (!ra)
		return NULL;
	fa_tls.guard++;
	if (dladdr(ra, &info))
		c = main_base && info.dli_fbase == main_base && exe[0] ? exe : info.dli_fname;
	fa_tls.guard--;
	return c && *c ? c : NULL;
}

/* ---- the ring: a seqlock per slot, writers never wait ---- */
#define RING 64

static struct slot {
	uint64_t seq;             /* odd while being written */
	struct fa_denial d;
} ring[RING];
static uint64_t ndenials;

static void ring_put(const struct fa_denial_view *v)
{
	struct slot *s = &ring[v->seq % RING];

	__atomic_store_n(&s->seq, v->seq * 2 + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	fa_denial_record(&s->d, v);
	__atomic_store_n(&s->seq, v->seq * 2 + 2, __ATOMIC_RELEASE);
}

int fa_recent(struct fa_denial *out, int max)
{
	uint64_t last = __atomic_load_n(&ndenials, __ATOMIC_ACQUIRE), seq;
	int n = 0;

	if (max <= 0)
		return 0;
	seq = last > (uint64_t)max ? last - (uint64_t)max + 1 : 1;
	if (last >= RING && seq <= last - RING)
		seq = last - RING + 1;
	for (; seq <= last; seq++) {
		struct slot *s = &ring[seq % RING];
		uint64_t before = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);

		if (before != seq * 2 + 2)
			continue;
		fa_denial_copy(&out[n], &s->d);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != before)
			continue;
		n++;
	}
	return n;
}

uint64_t fa_ndenials(void)
{
	return __atomic_load_n(&ndenials, __ATOMIC_ACQUIRE);
}

/* The host that hears of each refusal as it is made (fa_bridge.h). */
static void (*host_denied)(const struct fa_denial_view *v);

void fa_report_tell(void (*fn)(const struct fa_denial_view *v))
{
	__atomic_store_n(&host_denied, fn, __ATOMIC_RELEASE);
}

/* ---- the one description of a denial ---- */

static const char *judged(const struct fa_event *ev, int second)
{
	return ev->d && ev->d->path[0] && !ev->second == !second ? ev->d->path : NULL;
}

static const char *present(const char *s)
{
	return s && *s ? s : NULL;
}

/*
 * The policy judged is the process policy of a program a context started:
 * whether it is enforced is the process's (FA_REPORT, when that context
 * learns), not a context of this process's.
 */
static int own_child(const struct fa_event *ev)
{
	return fa_proc.from_context && ev->policy && ev->policy == fa_proc.policy;
}

static void build(struct fa_denial_view *v, const struct fa_event *ev)
{
	memset(v, 0, sizeof(*v));
	v->seq = __atomic_add_fetch(&ndenials, 1, __ATOMIC_SEQ_CST);
	clock_gettime(CLOCK_REALTIME, &v->when);
	v->pid = (int)getpid();
	v->tid = (int)gettid();
	v->call = ev->call ? ev->call : "?";
	v->op = ev->op ? ev->op : "?";
	v->path = present(ev->path);
	v->resolved = judged(ev, 0) ? judged(ev, 0) : present(ev->resolved);
	v->path2 = present(ev->path2);
	v->resolved2 = judged(ev, 1);
	v->flags = ev->flags;
	v->mode = ev->mode;
	v->rule = present(ev->why);
	v->reason = present(ev->text);
	v->from_context = ev->from_context;
	/* fa-run --report/--learn let fa-run's refusals through; a learning context, its own. */
	v->enforced = ev->from_context && !own_child(ev) ? !fa_policy_learning(ev->policy)
							  : !fa_proc.report;
	v->caller = caller_of(ev->ra);
	/* Roots explain a judged path; an unrestricted policy has none to show. */
	if (ev->d && ev->policy && !fa_policy_unrestricted(ev->policy))
		v->policy = ev->policy;
}

/* ---- writing one line whole ---- */

typedef void render_fn(struct fa_buf *b, const struct fa_denial_view *v);

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Render v and its newline, then write it to fd in one piece: 0 or -errno. */
static int emit(int fd, render_fn *render, const struct fa_denial_view *v)
{
	char stack[4096];
	struct fa_buf b = FA_BUF_INIT(stack);
	void *map = NULL;
	size_t mlen = 0;
	int rc;

	render(&b, v);
	fa_putc(&b, '\n');
	if (!fa_buf_fits(&b)) {
		mlen = b.len + 1;
		map = fa__sys_mmap(mlen, PROT_READ | PROT_WRITE);
		if (!map)
			return -ENOMEM;
		b = (struct fa_buf){ map, 0, mlen };
		render(&b, v);
		fa_putc(&b, '\n');
	}
	rc = write_all(fd, b.p, b.len);
	if (map)
		fa__sys_munmap(map, mlen);
	return rc;
}

static int write_log(const struct fa_denial_view *v)
{
	int fd, rc;

	fd = FA_REAL(openat)(AT_FDCWD, fa_proc.log,
			     O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	rc = emit(fd, fa_denial_json, v);
	FA_REAL(close)(fd);
	return rc;
}

/*
 * The log could not take the line: say so, so that the denial is not lost
 * unseen. Kept out of line: its buffer is not on every denial's stack.
 */
static __attribute__((noinline)) void log_failed(int err)
{
	char buf[PATH_MAX + 160];
	struct fa_buf b = FA_BUF_INIT(buf);

	fa_puts(&b, "libfashim: cannot append to the log ");
	fa_put_shown(&b, fa_proc.log);
	fa_puts(&b, " (");
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	fa_puts(&b, strerrorname_np(err) ? strerrorname_np(err) : "error");
#else
	fa_puts(&b, "errno ");
	fa_putu(&b, (unsigned)err);
#endif
	fa_puts(&b, "): the denial above is not in it\n");
	(void)write_all(2, b.p, fa_buf_fits(&b) ? b.len : b.cap - 1);
}

const char *fa_report_log_unusable(void)
{
	static char why[PATH_MAX + 160];
	struct fa_buf b = FA_BUF_INIT(why);
	int fd = FA_REAL(openat)(AT_FDCWD, fa_proc.log,
				 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);

	if (fd >= 0) {
		FA_REAL(close)(fd);
		return NULL;
	}
	fa_puts(&b, fa_proc.log);
	fa_puts(&b, ": cannot be opened for appending: ");
	fa_puts(&b, strerror(errno));
	return why;
}

void fa_report_approval(const char *op, const char *path, const char *resolved,
			const char *by)
{
	struct fa_denial_view v;
	int saved = errno, rc;

	if (!fa_proc.log || !fa_proc.log_approvals)
		return;
	/* Not a denial: no seq of the denials' order, no rule, no fix. */
	memset(&v, 0, sizeof(v));
	clock_gettime(CLOCK_REALTIME, &v.when);
	v.pid = (int)getpid();
	v.tid = (int)gettid();
	v.op = op;
	v.path = present(path);
	v.resolved = present(resolved);
	v.flags = v.mode = -1;
	v.from_context = !strcmp(by, "host");
	v.approved_by = by;
	rc = write_log(&v);
	if (rc)
		log_failed(-rc);
	errno = saved;
}

int fa_ctx_learn_record(char *buf, size_t len)
{
	const fa_policy *p = fa_tls.ctx.policy;
	struct fa_buf b = { buf, 0, len };

	if (!p || !fa_policy_learning(p) || fa_tls.ctx.learn_fd < 0)
		return 0;
	fa_puts(&b, "/proc/");
	fa_putu(&b, (unsigned)fa_tls.ctx_pid);
	fa_puts(&b, "/fd/");
	fa_putu(&b, (unsigned)fa_tls.ctx.learn_fd);
	return fa_buf_fits(&b);
}

/*
 * One record, one write: O_APPEND keeps records of concurrent processes
 * whole. Past the bound, the count in the header goes up instead.
 */
static void write_learn(const char *to, const struct fa_denial_view *v)
{
	char buf[PATH_MAX + 192];
	struct fa_buf b = FA_BUF_INIT(buf);
	const char *path = v->resolved2 ? v->resolved2 : v->resolved ? v->resolved : v->path;
	struct stat st;
	uint64_t *lost;
	int fd;

	if (!path)
		return;
	fa_puts(&b, v->call);
	fa_putc(&b, '\t');
	fa_puts(&b, v->op);
	fa_putc(&b, '\t');
	fa_puts(&b, v->rule ? v->rule : "");
	fa_putc(&b, '\t');
	fa_puts(&b, path);
	fa_putc(&b, '\0');
	if (!fa_buf_fits(&b))
		return;
	fd = FA_REAL(openat)(AT_FDCWD, to, O_RDWR | O_APPEND | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (!fa_learn_record_is(fd) || fstat(fd, &st) < 0) {
		/* not a record, or not one of ours: nothing is written */
	} else if ((size_t)st.st_size + b.len <= FA_LEARN_MAX) {
		(void)write_all(fd, b.p, b.len);
	} else {
		lost = fa__sys_mmap_shared(fd, FA_LEARN_HEADER, PROT_READ | PROT_WRITE);
		if (lost) {
			__atomic_add_fetch(lost, 1, __ATOMIC_RELAXED);
			fa__sys_munmap(lost, FA_LEARN_HEADER);
		}
	}
	FA_REAL(close)(fd);
}



int fa_report(const struct fa_event *ev)
{
	struct fa_denial_view v;
	char fix[PATH_MAX + 256], to[64];
	struct fa_buf fb = FA_BUF_INIT(fix);
	int saved = errno, log_rc = 0;

	build(&v, ev);
	if (fa_denial_fix(&fb, &v))
		v.fix = fix;
	if (fa_proc.counts) {
		__atomic_add_fetch(strcmp(v.op, "exec") ? &fa_proc.counts->paths :
							  &fa_proc.counts->execs, 1, __ATOMIC_RELAXED);
		if (!v.enforced)
			__atomic_add_fetch(&fa_proc.counts->reported, 1, __ATOMIC_RELAXED);
	}
	ring_put(&v);
	/* told first: what follows may block (stderr, the log) */
	if (v.enforced) {
		void (*tell)(const struct fa_denial_view *) =
			__atomic_load_n(&host_denied, __ATOMIC_ACQUIRE);

		if (tell) {
			fa_tls.guard++;
			tell(&v);
			fa_tls.guard--;
		}
	}
	/*
	 * What fa-run's policy (or, in a program a learning context started,
	 * that context's) would deny; a learning context's own go to its record.
	 */
	if (fa_proc.learn && (!v.from_context || own_child(ev)))
		write_learn(fa_proc.learn, &v);
	else if (v.from_context && !v.enforced && fa_ctx_learn_record(to, sizeof(to)))
		write_learn(to, &v);
	if (fa_proc.log)
		log_rc = write_log(&v);
	if (!fa_proc.quiet || log_rc)
		(void)emit(2, fa_denial_text, &v);
	if (log_rc)
		log_failed(-log_rc);
	errno = saved;
	return v.enforced;
}
