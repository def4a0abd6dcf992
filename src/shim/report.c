/*
 * report.c - what a denial says, and where.
 *
 * Every denial produces one human line on fd 2 (unless FA_QUIET), one
 * JSON line appended to FA_LOG (if set), and an entry in a lock-free ring
 * the host reads back through the bridge. Nothing here allocates: lines
 * are built on the stack, the log is opened, appended and closed per
 * denial so that no descriptor of ours lingers where the program could
 * close or reuse it.
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "wrap.h"

void fa_putn(struct fa_buf *b, const char *s, size_t n)
{
	if (b->len >= b->cap)
		return;
	if (n > b->cap - 1 - b->len)
		n = b->cap - 1 - b->len;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void fa_puts(struct fa_buf *b, const char *s)
{
	fa_putn(b, s ? s : "(null)", strlen(s ? s : "(null)"));
}

void fa_putc(struct fa_buf *b, char c)
{
	fa_putn(b, &c, 1);
}

void fa_putu(struct fa_buf *b, unsigned long long v)
{
	char t[24];
	int i = sizeof(t);

	do
		t[--i] = (char)('0' + v % 10);
	while (v /= 10);
	fa_putn(b, t + i, sizeof(t) - (size_t)i);
}

void fa_puto(struct fa_buf *b, unsigned v)
{
	char t[16];
	int i = sizeof(t);

	do
		t[--i] = (char)('0' + (v & 7));
	while (v >>= 3);
	t[--i] = '0';
	fa_putn(b, t + i, sizeof(t) - (size_t)i);
}

void fa_put_oflags(struct fa_buf *b, int flags)
{
	static const struct {
		int bit;
		const char *name;
	} names[] = {
		{ O_CREAT, "O_CREAT" }, { O_EXCL, "O_EXCL" }, { O_TRUNC, "O_TRUNC" },
		{ O_APPEND, "O_APPEND" }, { O_NOFOLLOW, "O_NOFOLLOW" }, { O_CLOEXEC, "O_CLOEXEC" },
		{ O_NONBLOCK, "O_NONBLOCK" }, { O_NOCTTY, "O_NOCTTY" }, { O_SYNC, "O_SYNC" },
	};
	size_t i;

	if ((flags & O_TMPFILE) == O_TMPFILE) {
		fa_puts(b, (flags & O_ACCMODE) == O_RDWR ? "O_RDWR|O_TMPFILE" : "O_WRONLY|O_TMPFILE");
		flags &= ~O_TMPFILE;
	} else {
		fa_puts(b, (flags & O_ACCMODE) == O_RDWR ? "O_RDWR" :
			   (flags & O_ACCMODE) == O_WRONLY ? "O_WRONLY" : "O_RDONLY");
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if ((flags & names[i].bit) == names[i].bit) {
			fa_putc(b, '|');
			fa_puts(b, names[i].name);
		}
	}
}

static void put_json_str(struct fa_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (!s) {
		fa_puts(b, "null");
		return;
	}
	fa_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			fa_putc(b, '\\');
			fa_putc(b, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			fa_puts(b, "\\u00");
			fa_putc(b, hex[c >> 4]);
			fa_putc(b, hex[c & 15]);
		} else {
			fa_putc(b, (char)c);
		}
	}
	fa_putc(b, '"');
}

static void put2(struct fa_buf *b, unsigned v)
{
	fa_putc(b, (char)('0' + v / 10 % 10));
	fa_putc(b, (char)('0' + v % 10));
}

/* UTC from the epoch, without gmtime (which may take the tz lock). */
static void put_time(struct fa_buf *b, const struct timespec *ts)
{
	long long days = ts->tv_sec / 86400, secs = ts->tv_sec % 86400;
	long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long y = (long long)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	unsigned d = doy - (153 * mp + 2) / 5 + 1;
	unsigned m = mp < 10 ? mp + 3 : mp - 9;

	fa_putu(b, (unsigned long long)(y + (m <= 2)));
	fa_putc(b, '-');
	put2(b, m);
	fa_putc(b, '-');
	put2(b, d);
	fa_putc(b, 'T');
	put2(b, (unsigned)(secs / 3600));
	fa_putc(b, ':');
	put2(b, (unsigned)(secs / 60 % 60));
	fa_putc(b, ':');
	put2(b, (unsigned)(secs % 60));
	fa_putc(b, '.');
	fa_putc(b, (char)('0' + ts->tv_nsec / 100000000));
	fa_putc(b, (char)('0' + ts->tv_nsec / 10000000 % 10));
	fa_putc(b, (char)('0' + ts->tv_nsec / 1000000 % 10));
	fa_putc(b, 'Z');
}

/* ---- the ring: a seqlock per slot, writers never wait ---- */
#define RING 64

static struct slot {
	uint64_t seq;             /* odd while being written */
	struct fa_denial d;
} ring[RING];
static uint64_t ndenials;

static void copy(char *dst, size_t n, const char *src)
{
	size_t k = src ? strlen(src) : 0;

	if (k >= n)
		k = n - 1;
	if (k)
		memcpy(dst, src, k);
	dst[k] = '\0';
}

static void ring_put(const struct fa_event *ev, const struct timespec *ts, const char *caller)
{
	uint64_t seq = __atomic_add_fetch(&ndenials, 1, __ATOMIC_SEQ_CST);
	struct slot *s = &ring[seq % RING];

	__atomic_store_n(&s->seq, seq * 2 + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	s->d.seq = seq;
	s->d.when = *ts;
	s->d.pid = (int)getpid();
	s->d.tid = (int)gettid();
	copy(s->d.call, sizeof(s->d.call), ev->call);
	copy(s->d.op, sizeof(s->d.op), ev->op);
	copy(s->d.why, sizeof(s->d.why), ev->why);
	copy(s->d.path, sizeof(s->d.path), ev->d && ev->d->path[0] ? ev->d->path : ev->path);
	copy(s->d.path2, sizeof(s->d.path2), ev->path2);
	copy(s->d.caller, sizeof(s->d.caller), caller);
	s->d.from_context = ev->from_context;
	__atomic_store_n(&s->seq, seq * 2 + 2, __ATOMIC_RELEASE);
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
		out[n] = s->d;
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

static void put_roots(struct fa_buf *b, const fa_policy *p)
{
	int i, n = fa_policy_nroots(p);

	if (fa_policy_unrestricted(p))
		return;
	fa_puts(b, " (roots:");
	if (!n)
		fa_puts(b, " none");
	for (i = 0; i < n; i++) {
		fa_putc(b, ' ');
		fa_puts(b, fa_policy_root(p, i));
	}
	fa_putc(b, ')');
}

static void put_call(struct fa_buf *b, const struct fa_event *ev)
{
	fa_puts(b, ev->call);
	fa_puts(b, "(\"");
	fa_puts(b, ev->path ? ev->path : "");
	fa_putc(b, '"');
	if (ev->path2) {
		fa_puts(b, ", \"");
		fa_puts(b, ev->path2);
		fa_putc(b, '"');
	}
	if (ev->flags != -1) {
		fa_puts(b, ", ");
		fa_put_oflags(b, ev->flags);
	}
	if (ev->mode != -1) {
		fa_puts(b, ", ");
		fa_puto(b, (unsigned)ev->mode);
	}
	fa_putc(b, ')');
}

static void write_line(const struct fa_event *ev)
{
	char buf[PATH_MAX * 2 + 512];
	struct fa_buf b = { buf, 0, sizeof(buf) };

	fa_puts(&b, ev->from_context ? "fastaudit: " : "fa-run: ");
	fa_puts(&b, fa_proc.report && !ev->from_context ? "would deny " : "denied ");
	put_call(&b, ev);
	fa_puts(&b, ": ");
	if (ev->d && ev->d->path[0]) {
		fa_puts(&b, ev->d->path);
		fa_puts(&b, ": ");
	}
	fa_puts(&b, ev->text);
	if (ev->policy && ev->d)
		put_roots(&b, ev->policy);
	if (ev->from_context)
		fa_puts(&b, " [audit context]");
	fa_putc(&b, '\n');
	(void)!write(2, b.p, b.len);
}

static void write_log(const struct fa_event *ev, const struct timespec *ts, const char *caller)
{
	char buf[PATH_MAX * 4 + 1024];
	struct fa_buf b = { buf, 0, sizeof(buf) };
	int fd;

	fa_puts(&b, "{\"time\":\"");
	put_time(&b, ts);
	fa_puts(&b, "\",\"pid\":");
	fa_putu(&b, (unsigned long long)getpid());
	fa_puts(&b, ",\"call\":");
	put_json_str(&b, ev->call);
	fa_puts(&b, ",\"op\":");
	put_json_str(&b, ev->op);
	fa_puts(&b, ",\"path\":");
	put_json_str(&b, ev->path);
	fa_puts(&b, ",\"resolved\":");
	put_json_str(&b, !ev->second && ev->d && ev->d->path[0] ? ev->d->path : NULL);
	fa_puts(&b, ",\"path2\":");
	put_json_str(&b, ev->path2);
	fa_puts(&b, ",\"resolved2\":");
	put_json_str(&b, ev->second && ev->d && ev->d->path[0] ? ev->d->path : NULL);
	fa_puts(&b, ",\"flags\":");
	if (ev->flags != -1) {
		char fb[160];
		struct fa_buf f = { fb, 0, sizeof(fb) };

		fa_put_oflags(&f, ev->flags);
		put_json_str(&b, fb);
	} else {
		fa_puts(&b, "null");
	}
	fa_puts(&b, ",\"rule\":");
	put_json_str(&b, ev->why);
	fa_puts(&b, ",\"reason\":");
	put_json_str(&b, ev->text);
	fa_puts(&b, ",\"policy\":\"");
	fa_puts(&b, ev->from_context ? "context" : "process");
	fa_puts(&b, "\",\"enforced\":");
	fa_puts(&b, fa_proc.report && !ev->from_context ? "false" : "true");
	fa_puts(&b, ",\"caller\":");
	put_json_str(&b, caller);
	fa_puts(&b, "}\n");
	if (b.len == b.cap - 1)
		return;
	fd = FA_REAL(openat)(AT_FDCWD, fa_proc.log,
				 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return;
	(void)!write(fd, b.p, b.len);
	FA_REAL(close)(fd);
}

int fa_report(const struct fa_event *ev)
{
	struct timespec ts;
	const char *caller = NULL;
	Dl_info info;

	clock_gettime(CLOCK_REALTIME, &ts);
	fa_tls.guard++;
	if (ev->ra && dladdr(ev->ra, &info) && info.dli_fname)
		caller = info.dli_fname;
	fa_tls.guard--;
	if (caller && !*caller)
		caller = "(main program)";
	ring_put(ev, &ts, caller);
	if (!fa_proc.quiet)
		write_line(ev);
	if (fa_proc.log)
		write_log(ev, &ts, caller);
	return !(fa_proc.report && !ev->from_context);
}
