/* SPDX-License-Identifier: Apache-2.0 */
/*
 * shim_bridge.c - what the host (the fastaudit extension) tells the shim about
 * the code running on each thread, and what the shim tells it back.
 *
 * Each thread has a slot with its audit context. A count of the threads
 * whose slot holds a context (plus one while a resolver is registered) is
 * part of fa_gate, so a process with no context anywhere pays one branch.
 * Approvals are one-shot and per thread: the host saw the operation, its
 * host policy said yes, and the next libc call of that class on exactly
 * that path skips the context check (never the process policy).
 *
 * What the host publishes is freed by the host, and only when no thread
 * can still be judging with it: epoch-based reclamation. A judging call
 * is a read section (fa_read_enter/fa_read_exit, from fa_pols_get() to
 * the end of its struct fa_pols's scope); on entering, a thread writes
 * the current epoch into its own reader record. retire() ends an epoch;
 * reclaimable() is the oldest epoch a reader still in its section
 * announced. A reader writes only its own record: no lock, no
 * allocation, nothing a signal handler that judges a call of its own
 * could deadlock on (nested sections keep the outer one's epoch).
 */
#include "config.h"

#include <errno.h>
#include "linux_abi.h"
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sys.h"
#include "wrap.h"

int fa_ctx_gate;

static fa_ctx_resolver resolver;

/*
 * A thread that ends while it holds a context (pthread_exit, or a return
 * from its start routine in a thread the shim did not start) must give
 * its count back, or every later call in the process takes the slow path.
 * The key's value is set while the thread is counted, so that its
 * destructor runs at thread exit. Keys below PTHREAD_KEY_2NDLEVEL_SIZE
 * live in the thread descriptor itself: created in the constructor, this
 * one is among them and pthread_setspecific() never allocates.
 */
static pthread_key_t exit_key;
static int exit_key_ok;

/* ---- reclamation: who may still be reading what the host published ---- */

/* epoch 0 in a record: not judging */
struct reader {
	uint64_t epoch;
	int used;
};

#define NREADERS 64
struct readers {
	struct readers *next;
	struct reader r[NREADERS];
};

static struct readers readers0;
static uint64_t epoch = 1;
/* threads judging without a record of their own (none could be mapped) */
static int anon_readers;
/*
 * 1: the host's reclaimable() makes every thread pass a full barrier
 * (membarrier), so a reader's announcement needs only a compiler barrier.
 */
static int membarrier_ok;
/* registration was asked for (again in a child of fork(), which may not inherit it) */
static int membarrier_tried;

#define FA_TLS_IE __attribute__((tls_model("initial-exec")))
static __thread struct reader *my_reader FA_TLS_IE;
static __thread int read_depth FA_TLS_IE;
static __thread int read_anon FA_TLS_IE;
/* the epoch when the thread's cached answer (fa_tls.ctx) was obtained */
static __thread uint64_t slot_epoch FA_TLS_IE;
/*
 * The process the answer came from (fa_tls.ctx_pid), whose descriptor
 * learn_fd is. Not changed by fork(): the child's copy of the descriptor
 * closes when it execs, its parent's stays, so a forked child names its
 * parent's record.
 */
static pid_t self_pid;

static int take_reader(struct reader *r)
{
	int free_ = 0;

	if (!__atomic_compare_exchange_n(&r->used, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	my_reader = r;
	return 1;
}

/* A record of the calling thread's own: from the pool, or a new chunk (never unmapped). */
static struct reader *reader_get(void)
{
	struct readers *c, *head;
	int i;

	for (c = &readers0; c; c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE))
		for (i = 0; i < NREADERS; i++)
			if (!__atomic_load_n(&c->r[i].used, __ATOMIC_RELAXED) && take_reader(&c->r[i]))
				goto got;
	c = fa__sys_mmap(sizeof(*c), PROT_READ | PROT_WRITE);
	if (!c)
		return NULL;
	c->r[0].used = 1;
	my_reader = &c->r[0];
	head = __atomic_load_n(&readers0.next, __ATOMIC_RELAXED);
	do
		c->next = head;
	while (!__atomic_compare_exchange_n(&readers0.next, &head, c, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
got:
	/* given back by thread_gone() at thread exit */
	if (exit_key_ok)
		pthread_setspecific(exit_key, &fa_tls);
	return my_reader;
}

static void reader_put(void)
{
	if (!my_reader)
		return;
	__atomic_store_n(&my_reader->epoch, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&my_reader->used, 0, __ATOMIC_RELEASE);
	my_reader = NULL;
}

/*
 * Nested sections (a signal handler judging its own call, a report asking
 * for the context again) keep the outermost epoch: the depth goes up
 * first, and whoever finds the record empty fills it, so a handler that
 * interrupts the outer section before it announced announces for both.
 */
void fa_read_enter(void)
{
	struct reader *r;
	int e = errno;

	read_depth++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	r = my_reader ? my_reader : reader_get();
	if (!r) {
		if (!read_anon) {
			read_anon = 1;
			__atomic_add_fetch(&anon_readers, 1, __ATOMIC_SEQ_CST);
		}
	} else if (!__atomic_load_n(&r->epoch, __ATOMIC_RELAXED)) {
		/*
		 * Acquire: a reader that sees the epoch a retire() made also
		 * sees what was published before it, never an older pointer
		 * under the newer epoch (loads may pass loads on aarch64, and
		 * the host's membarrier orders only what comes after it).
		 */
		__atomic_store_n(&r->epoch, __atomic_load_n(&epoch, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELAXED);
		if (__atomic_load_n(&membarrier_ok, __ATOMIC_RELAXED))
			__atomic_signal_fence(__ATOMIC_SEQ_CST);
		else
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	errno = e;
}

void fa_read_exit(void)
{
	if (--read_depth > 0)
		return;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (my_reader)
		__atomic_store_n(&my_reader->epoch, 0, __ATOMIC_RELEASE);
	if (read_anon) {
		read_anon = 0;
		__atomic_sub_fetch(&anon_readers, 1, __ATOMIC_RELEASE);
	}
}

static uint64_t retire(void)
{
	return __atomic_fetch_add(&epoch, 1, __ATOMIC_SEQ_CST);
}

/* Make every thread of the process pass a full barrier: 1, or 0 if it cannot be done. */
static int barrier_all(void)
{
	if (!membarrier_tried) {
		membarrier_tried = 1;
#ifdef SYS_membarrier
		if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
			__atomic_store_n(&membarrier_ok, 1, __ATOMIC_SEQ_CST);
#endif
	}
	if (!__atomic_load_n(&membarrier_ok, __ATOMIC_SEQ_CST)) {
		/* the readers fence for themselves */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return 1;
	}
#ifdef SYS_membarrier
	return syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
	return 0;	/* not reached: membarrier_ok is never set without it */
#endif
}

static uint64_t reclaimable(void)
{
	uint64_t low = __atomic_load_n(&epoch, __ATOMIC_SEQ_CST), e;
	struct readers *c;
	int i, err = errno;

	/* without the barrier a reader's announcement may not be seen yet: free nothing */
	if (!barrier_all() || __atomic_load_n(&anon_readers, __ATOMIC_SEQ_CST)) {
		errno = err;
		return 0;
	}
	for (c = &readers0; c; c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE))
		for (i = 0; i < NREADERS; i++) {
			e = __atomic_load_n(&c->r[i].epoch, __ATOMIC_ACQUIRE);
			if (e && e < low)
				low = e;
		}
	errno = err;
	return low;
}

static void gate_add(int n)
{
	__atomic_add_fetch(&fa_ctx_gate, n, __ATOMIC_SEQ_CST);
	/* While the gate stood open no move was counted: count one now. */
	if (__atomic_add_fetch(&fa_gate, n, __ATOMIC_SEQ_CST) == n && n > 0)
		fa_cwd_changed();
}

/* Keep the thread's count in the gate in step with its slot. */
static void slot_store(const struct fa_thread_ctx *c)
{
	int want = c && c->policy != NULL;

	fa_tls.ctx_pid = self_pid;
	if (c)
		fa_tls.ctx = *c;
	else
		memset(&fa_tls.ctx, 0, sizeof(fa_tls.ctx));
	if (want && !fa_tls.counted) {
		fa_tls.counted = 1;
		gate_add(1);
		if (exit_key_ok)
			pthread_setspecific(exit_key, &fa_tls);
	} else if (!want && fa_tls.counted) {
		fa_tls.counted = 0;
		gate_add(-1);
	}
}

static void thread_gone(void *v)
{
	int e = errno;

	(void)v;
	slot_store(NULL);
	fa_tls.nappr = 0;
	reader_put();
	errno = e;
}

/*
 * The child of fork() has one thread: the counts of the others, and a
 * resolver that was registered, stay with the parent's threads. The
 * registration itself is inherited, so it still counts.
 */
static void after_fork_child(void)
{
	int want = fa_tls.counted + (__atomic_load_n(&resolver, __ATOMIC_RELAXED) != NULL);
	int have = __atomic_load_n(&fa_ctx_gate, __ATOMIC_RELAXED);

	struct readers *c;
	int i;

	if (want != have)
		gate_add(want - have);
	/* the other threads' sections ended with them */
	for (c = &readers0; c; c = c->next)
		for (i = 0; i < NREADERS; i++)
			if (&c->r[i] != my_reader)
				c->r[i].epoch = 0, c->r[i].used = 0;
	anon_readers = read_anon;
	membarrier_tried = 0;
}

void fa_bridge_init(void)
{
	self_pid = getpid();
	exit_key_ok = pthread_key_create(&exit_key, thread_gone) == 0;
	pthread_atfork(NULL, NULL, after_fork_child);
}

static void set_thread(const struct fa_thread_ctx *c)
{
	int e = errno;

	/* the host publishes a live policy: good until the next retire() */
	slot_epoch = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
	if (c && c->policy && fa_policy_read_globs(c->policy))
		__atomic_store_n(&fa_read_guard, 1, __ATOMIC_RELAXED);
	slot_store(c);
	if (!c || !c->policy)
		fa_tls.nappr = 0;
	errno = e;
}

static void set_resolver(fa_ctx_resolver fn)
{
	fa_ctx_resolver old = __atomic_exchange_n(&resolver, fn, __ATOMIC_SEQ_CST);

	if (!old && fn)
		gate_add(1);
	else if (old && !fn)
		gate_add(-1);
}

/* FNV-1a: approvals keep a digest, not the path, so the slot stays small. */
static uint64_t digest(const char *s, uint32_t *len)
{
	uint64_t h = 1469598103934665603ull;
	uint32_t n = 0;

	for (; s[n]; n++)
		h = (h ^ (unsigned char)s[n]) * 1099511628211ull;
	*len = n;
	return h;
}

static void add_approval(int op, const char *path)
{
	struct fa_approval *a;
	int e = errno;

	if (!path)
		return;
	if (fa_tls.nappr == FA_NAPPROVALS) {
		memmove(fa_tls.appr, fa_tls.appr + 1, sizeof(fa_tls.appr[0]) * (FA_NAPPROVALS - 1));
		fa_tls.nappr--;
	}
	a = &fa_tls.appr[fa_tls.nappr++];
	a->op = op;
	a->hash = digest(path, &a->len);
	errno = e;
}

static void approve(enum fa_op op, const char *path)
{
	add_approval((int)op, path);
}

static void approve_exec(const char *path)
{
	add_approval(FA_APPR_EXEC, path);
}

static void approve_exec_unconfined(const char *path)
{
	add_approval(FA_APPR_EXEC_UNCONFINED, path);
}

static void clear_approvals(void)
{
	fa_tls.nappr = 0;
}

/* Take a matching approval if one is pending. */
static int take_approval(int op, const char *path)
{
	uint32_t len;
	uint64_t h;
	int i;

	if (!fa_tls.nappr || !path)
		return 0;
	h = digest(path, &len);
	for (i = 0; i < fa_tls.nappr; i++) {
		if (fa_tls.appr[i].op != op || fa_tls.appr[i].len != len || fa_tls.appr[i].hash != h)
			continue;
		memmove(fa_tls.appr + i, fa_tls.appr + i + 1,
			sizeof(fa_tls.appr[0]) * (size_t)(fa_tls.nappr - i - 1));
		fa_tls.nappr--;
		/* the host's approval is what lets this one through: the trail keeps it */
		fa_report_approval(op < 0 ? "exec" : fa_op_name((enum fa_op)op), path, NULL, "host");
		return 1;
	}
	return 0;
}

/*
 * The answer for native worker threads. Two copies, switched by index, so
 * a reader never sees a half-written one; the host writes under its own
 * lock (the GIL). The policy, the one field a reader dereferences, is also
 * one word of its own: a reader that lost its turn for two publishes
 * still reads a policy that was published, whatever the copy holds.
 */
static struct fa_thread_ctx shared[2];
static int shared_cur;
static const fa_policy *shared_policy;

static void set_shared(const struct fa_thread_ctx *c)
{
	int next = !__atomic_load_n(&shared_cur, __ATOMIC_RELAXED);

	if (c && c->policy && fa_policy_read_globs(c->policy))
		__atomic_store_n(&fa_read_guard, 1, __ATOMIC_RELAXED);
	if (c)
		shared[next] = *c;
	else
		memset(&shared[next], 0, sizeof shared[next]);
	__atomic_store_n(&shared_policy, shared[next].policy, __ATOMIC_RELEASE);
	__atomic_store_n(&shared_cur, next, __ATOMIC_RELEASE);
}

static void shared_now(struct fa_thread_ctx *c)
{
	*c = shared[__atomic_load_n(&shared_cur, __ATOMIC_ACQUIRE)];
	c->policy = __atomic_load_n(&shared_policy, __ATOMIC_ACQUIRE);
}

/*
 * Ask the host for the current answer; keep the cached one if it cannot
 * say, unless something was retired since it was cached (it may be gone):
 * then the native workers' answer stands in. The epoch is read before the
 * answer, so an answer retired meanwhile is found stale next time.
 */
static void refresh(void)
{
	fa_ctx_resolver fn = __atomic_load_n(&resolver, __ATOMIC_ACQUIRE);
	uint64_t now = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
	struct fa_thread_ctx c;
	int r = 0;

	memset(&c, 0, sizeof(c));
	if (fn) {
		fa_tls.guard++;
		r = fn(&c);
		fa_tls.guard--;
	}
	if (r == FA_RESOLVE_SHARED)
		shared_now(&c);
	else if (!r && slot_epoch != now && fa_tls.ctx.policy)
		shared_now(&c), r = 1;
	if (r) {
		slot_epoch = now;
		slot_store(&c);
	}
}

void fa_pols_get_slow(struct fa_pols *pp, int op, const char *path)
{
	pp->proc = fa_proc.policy;
	pp->ctx = NULL;
	pp->ctx_exec_denied = 0;
	pp->held = 0;
	if (__atomic_load_n(&fa_ctx_gate, __ATOMIC_RELAXED) == 0)
		return;
	fa_read_enter();
	pp->held = 1;
	refresh();
	if (!fa_tls.ctx.policy)
		return;
	if (fa_tls.call_approved || take_approval(op, path))
		return;
	pp->ctx = fa_tls.ctx.policy;
}

void fa_call_approve(enum fa_op op, const char *path)
{
	fa_tls.call_approved = 0;
	fa_tls.call_op = (int)op + 1;
	if (__atomic_load_n(&fa_ctx_gate, __ATOMIC_RELAXED) == 0 || !fa_tls.nappr)
		return;
	refresh();
	if (fa_tls.ctx.policy)
		fa_tls.call_approved = take_approval((int)op, path);
}

void fa_call_done(void)
{
	fa_tls.call_approved = 0;
	fa_tls.call_op = 0;
}

/*
 * 1 if the thread's context forbids starting this program. Otherwise
 * *confine is the context's policy, which the program is to start under,
 * or NULL: no context, or the host let this one start unconfined.
 */
static __thread int child_held FA_TLS_IE;

static void child_hold(void)
{
	if (!child_held) {
		fa_read_enter();
		child_held = 1;
	}
}

void fa_child_ctx_done(void)
{
	if (child_held) {
		child_held = 0;
		fa_read_exit();
	}
}

void fa_child_ctx(const fa_policy *p)
{
	fa_tls.child_ctx = p;
	if (!p)
		fa_child_ctx_done();
}

/* The caller has run start-up (fa_exec_check()): the process policy is read. */
int fa_ctx_exec_denied(const char *path, const fa_policy **confine)
{
	*confine = NULL;
	if (__atomic_load_n(&fa_ctx_gate, __ATOMIC_RELAXED) == 0)
		return 0;
	/* the policy goes on into the child's environment: fa_child_ctx() */
	child_hold();
	refresh();
	if (!fa_tls.ctx.policy)
		return 0;
	if (take_approval(FA_APPR_EXEC_UNCONFINED, path))
		return 0;
	*confine = fa_tls.ctx.policy;
	if (fa_tls.ctx.exec_allowed)
		return 0;
	return !take_approval(FA_APPR_EXEC, path);
}

/* Asked only through fa_bridge_v1(), which ran start-up first (env.c). */
static const fa_policy *process_policy(void)
{
	return fa_proc.policy;
}

static int recent_denials(struct fa_denial *out, int max)
{
	return fa_recent(out, max);
}

static uint64_t denial_count(void)
{
	return fa_ndenials();
}

const struct fa_bridge fa_bridge_table = {
	.version = FA_BRIDGE_VERSION,
	.size = sizeof(struct fa_bridge),
	.engine_abi = FA_ENGINE_ABI,
	.set_thread = set_thread,
	.set_resolver = set_resolver,
	.approve = approve,
	.approve_exec = approve_exec,
	.approve_exec_unconfined = approve_exec_unconfined,
	.clear_approvals = clear_approvals,
	.recent_denials = recent_denials,
	.denial_count = denial_count,
	.process_policy = process_policy,
	.set_shared = set_shared,
	.retire = retire,
	.reclaimable = reclaimable,
	.moves = fa_moves,
	.set_denied = fa_report_tell,
};


/*
 * pthread_create: the new thread starts in its creator's context. The
 * hand-over record comes from a small static pool (mmap when it runs out),
 * never from the application's malloc.
 */
struct handover {
	int used;
	void *(*start)(void *);
	void *arg;
	struct fa_thread_ctx ctx;
	uint64_t epoch;           /* when the creator's answer was obtained */
	int mapped;
};

#define NHANDOVER 64
static struct handover pool[NHANDOVER];

static struct handover *handover_get(void)
{
	struct handover *h;
	int i;

	for (i = 0; i < NHANDOVER; i++) {
		if (!__atomic_exchange_n(&pool[i].used, 1, __ATOMIC_ACQUIRE)) {
			pool[i].mapped = 0;
			return &pool[i];
		}
	}
	h = fa__sys_mmap(sizeof(*h), PROT_READ | PROT_WRITE);
	if (!h)
		return NULL;
	h->mapped = 1;
	return h;
}

static void handover_put(struct handover *h)
{
	if (h->mapped)
		fa__sys_munmap(h, sizeof(*h));
	else
		__atomic_store_n(&h->used, 0, __ATOMIC_RELEASE);
}

static void *trampoline(void *p)
{
	struct handover *h = p;
	void *(*start)(void *) = h->start;
	void *arg = h->arg;
	void *ret;

	slot_epoch = h->epoch;
	slot_store(&h->ctx);
	handover_put(h);
	ret = start(arg);
	slot_store(NULL);
	return ret;
}

int FA_WRAPPER(pthread_create)(pthread_t *t, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
	struct handover *h;
	int rc;

	if (FA_GATE_OPEN() || !fa_tls.ctx.policy || FA_GUARDED())
		return FA_REAL(pthread_create)(t, attr, start, arg);
	h = handover_get();
	if (!h)
		return EAGAIN;
	h->start = start;
	h->arg = arg;
	h->ctx = fa_tls.ctx;
	h->epoch = slot_epoch;
	rc = FA_REAL(pthread_create)(t, attr, trampoline, h);
	if (rc)
		handover_put(h);
	return rc;
}
