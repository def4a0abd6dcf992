/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shim side of the bridge, driven the way a host does: a context
 * policy set on a thread, approvals, the denial ring, a resolver,
 * pthread_create inheritance, the count of threads holding a context.
 * No process policy: outside a context nothing is judged.
 */
#include "config.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "under_shim.h"

extern char **environ;

/* The context every test here sets: its only root is T/a; T/b is outside. */
static fa_policy *pol;
/* The denial count before the three denials the tests below make. */
static uint64_t before;

static const char *fixture(void)
{
	mkdir(at("a"), 0755);
	mkdir(at("b"), 0755);
	return NULL;
}

static int spawn_true(void)
{
	char *argv[] = { (char *)"true", NULL };
	pid_t pid;
	int st, rc = posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ);

	if (rc)
		return rc;
	waitpid(pid, &st, 0);
	return 0;
}

static void bridge_agrees(void **state)
{
	(void)state;
	assert_non_null(br);
	assert_int_equal(br->version, FA_BRIDGE_VERSION);
	assert_int_equal(br->size, sizeof(struct fa_bridge));
	assert_int_equal(br->engine_abi, FA_ENGINE_ABI);
}

static void no_process_policy(void **state)
{
	(void)state;
	assert_null(br->process_policy());
}

static void free_outside_context(void **state)
{
	(void)state;
	assert_int_equal(create(at("b/free")), 0);
}

static void inside_root_allowed(void **state)
{
	(void)state;
	enter(pol, 0);
	before = br->denial_count();
	assert_int_equal(create(at("a/in")), 0);
}

static void allowed_keeps_errno(void **state)
{
	int n, e;

	(void)state;
	enter(pol, 0);
	errno = 1234;
	n = create(at("a/in2"));
	e = errno;
	assert_int_equal(n, 0);
	assert_int_equal(e, 1234);
}

static void outside_root_denied(void **state)
{
	(void)state;
	enter(pol, 0);
	assert_int_equal(create(at("b/out")), EACCES);
	assert_false(exists(at("b/out")));
}

static void unlink_outside_denied(void **state)
{
	(void)state;
	enter(pol, 0);
	assert_int_equal(unlink(at("b/free")), -1);
	assert_int_equal(errno, EACCES);
	assert_true(exists(at("b/free")));
}

static void rename_out_denied(void **state)
{
	(void)state;
	enter(pol, 0);
	assert_int_equal(rename(at("a/in"), at("b/moved")), -1);
	assert_int_equal(errno, EACCES);
	assert_true(exists(at("a/in")));
	assert_false(exists(at("b/moved")));
}

static void three_denials_counted(void **state)
{
	(void)state;
	assert_int_equal(br->denial_count(), before + 3);
}

static void recent_denials_in_order(void **state)
{
	struct fa_denial dn[8];
	int n = br->recent_denials(dn, 8);

	(void)state;
	assert_true(n >= 3);
	assert_int_equal(dn[n - 1].from_context, 1);
	assert_string_equal(dn[n - 1].call, "rename");
	assert_int_equal(dn[n - 3].seq + 2, dn[n - 1].seq);
}

static void denial_has_path_and_pid(void **state)
{
	struct fa_denial dn[8];
	int n = br->recent_denials(dn, 8);

	(void)state;
	assert_true(n >= 3);
	assert_non_null(strstr(dn[n - 3].path, "/b/out"));
	assert_int_equal(dn[n - 3].pid, getpid());
}

static void approval_once(void **state)
{
	(void)state;
	enter(pol, 0);
	br->approve(FA_OP_WRITE, at("b/out"));
	assert_int_equal(create(at("b/out")), 0);
	assert_true(exists(at("b/out")));
}

static void approval_names_one_path(void **state)
{
	(void)state;
	enter(pol, 0);
	assert_int_equal(create(at("b/out2")), EACCES);
}

static void approval_used_up(void **state)
{
	(void)state;
	enter(pol, 0);
	assert_int_equal(create(at("b/out")), EACCES);
}

static void clear_approvals(void **state)
{
	(void)state;
	enter(pol, 0);
	br->approve(FA_OP_WRITE, at("b/out"));
	br->clear_approvals();
	assert_int_equal(create(at("b/out")), EACCES);
}

static void no_exec_refuses_spawn(void **state)
{
	(void)state;
	enter(pol, 0);
	assert_int_equal(spawn_true(), EACCES);
}

static void approved_exec_starts(void **state)
{
	(void)state;
	enter(pol, 0);
	br->approve_exec("/bin/true");
	assert_int_equal(spawn_true(), 0);
}

static void *thread_writes(void *arg)
{
	int *res = arg;

	res[0] = create(at("a/t_in"));
	res[1] = create(at("b/t_out"));
	return NULL;
}

static void thread_inherits(void **state)
{
	pthread_t t;
	int res[2] = { -1, -1 };

	(void)state;
	enter(pol, 0);
	pthread_create(&t, NULL, thread_writes, res);
	pthread_join(t, NULL);
	assert_int_equal(res[0], 0);
	assert_int_equal(res[1], EACCES);
	assert_false(exists(at("b/t_out")));
}

static void free_after_leaving(void **state)
{
	(void)state;
	enter(NULL, 0);
	assert_int_equal(create(at("b/after")), 0);
}

static int resolved_calls;

static int resolver(struct fa_thread_ctx *out)
{
	resolved_calls++;
	out->policy = pol;
	out->exec_allowed = 1;
	return 1;
}

static void resolver_used(void **state)
{
	(void)state;
	enter(NULL, 0);
	br->set_resolver(resolver);
	assert_int_equal(create(at("b/resolved")), EACCES);
	assert_true(resolved_calls > 0);
	br->set_resolver(NULL);
}

static void nothing_checked_without_either(void **state)
{
	(void)state;
	br->set_resolver(NULL);
	enter(NULL, 0);
	assert_int_equal(create(at("b/free2")), 0);
}

static void exec_allowed_starts(void **state)
{
	(void)state;
	enter(pol, 1);
	assert_int_equal(spawn_true(), 0);
	enter(NULL, 0);
}

/*
 * The shim's count of threads holding a context is internal; the test
 * reads it through the library's own symbol table (.symtab survives in a
 * build-tree library), so that what it checks is the count itself.
 */
static const int *find_ctx_gate(void)
{
	Dl_info info;
	struct stat st;
	const ElfW(Ehdr) *eh;
	const ElfW(Shdr) *sh;
	const int *found = NULL;
	void *map;
	int fd, i;

	if (!dladdr((void *)dlsym(RTLD_DEFAULT, "fa_bridge_v1"), &info) || !info.dli_fname)
		return NULL;
	fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(*eh)) {
		close(fd);
		return NULL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return NULL;
	eh = map;
	sh = (const ElfW(Shdr) *)((const char *)map + eh->e_shoff);
	for (i = 0; i < eh->e_shnum && !found; i++) {
		const ElfW(Sym) *sym;
		const char *names;
		size_t k, n;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		sym = (const ElfW(Sym) *)((const char *)map + sh[i].sh_offset);
		names = (const char *)map + sh[sh[i].sh_link].sh_offset;
		n = sh[i].sh_size / sizeof(*sym);
		for (k = 0; k < n; k++) {
			if (!strcmp(names + sym[k].st_name, "fa_ctx_gate")) {
				found = (const int *)((char *)info.dli_fbase + sym[k].st_value);
				break;
			}
		}
	}
	munmap(map, (size_t)st.st_size);
	return found;
}

static const int *ctx_gate;

static int gate_now(void)
{
	return __atomic_load_n(ctx_gate, __ATOMIC_SEQ_CST);
}

static void need_gate(void)
{
	ctx_gate = ctx_gate ? ctx_gate : find_ctx_gate();
	if (!ctx_gate)
		skip();
}

/* Enters a context and ends: arg 0 returns, 1 calls pthread_exit. */
static void *thread_holds(void *arg)
{
	enter(pol, 0);
	if (*(int *)arg)
		pthread_exit(NULL);
	return NULL;
}

/* Started inside a context (the shim's trampoline), ends by pthread_exit. */
static void *thread_exits(void *arg)
{
	(void)arg;
	pthread_exit(NULL);
}

static int ready_fd[2], go_fd[2];

/* Holds a context until the main thread says go. */
static void *thread_waits(void *arg)
{
	char c;

	(void)arg;
	enter(pol, 0);
	if (write(ready_fd[1], "r", 1) != 1 || read(go_fd[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static void ending_thread_gives_count_back(void **state)
{
	pthread_t t;
	int g0, how;

	(void)state;
	need_gate();
	g0 = gate_now();
	for (how = 0; how < 2; how++) {
		pthread_create(&t, NULL, thread_holds, &how);
		pthread_join(t, NULL);
	}
	assert_int_equal(gate_now(), g0);
}

static void started_thread_gives_count_back(void **state)
{
	pthread_t t;
	int g0;

	(void)state;
	need_gate();
	g0 = gate_now();
	enter(pol, 0);
	pthread_create(&t, NULL, thread_exits, NULL);
	pthread_join(t, NULL);
	enter(NULL, 0);
	assert_int_equal(gate_now(), g0);
}

static void live_thread_counted_not_in_child(void **state)
{
	pthread_t t;
	pid_t pid;
	int g0, st, counted;
	char c;

	(void)state;
	need_gate();
	g0 = gate_now();
	assert_int_equal(pipe(ready_fd), 0);
	assert_int_equal(pipe(go_fd), 0);
	pthread_create(&t, NULL, thread_waits, NULL);
	assert_int_equal(read(ready_fd[0], &c, 1), 1);
	counted = gate_now() == g0 + 1;
	pid = fork();
	if (pid == 0)
		_exit(gate_now() == g0 ? 0 : 1);
	waitpid(pid, &st, 0);
	assert_int_equal(write(go_fd[1], "g", 1), 1);
	pthread_join(t, NULL);
	close(ready_fd[0]);
	close(ready_fd[1]);
	close(go_fd[0]);
	close(go_fd[1]);
	/* Asserted after the thread is gone, so that a failure leaves none behind. */
	assert_true(counted);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		HOLDS(bridge_agrees, "the bridge is found; its version, size and engine ABI agree"),
		HOLDS(no_process_policy, "no process policy without FA_POLICY"),
		HOLDS(free_outside_context, "outside any context a write anywhere is allowed"),
		HOLDS(inside_root_allowed, "in a context a write inside its root is allowed"),
		HOLDS(allowed_keeps_errno, "an allowed write leaves errno alone"),
		HOLDS(outside_root_denied, "a write outside the root fails with EACCES and creates nothing"),
		HOLDS(unlink_outside_denied, "unlink outside is denied and the file stays"),
		HOLDS(rename_out_denied, "rename from inside to outside is denied, nothing moves"),
		HOLDS(three_denials_counted, "those three denials are counted"),
		HOLDS(recent_denials_in_order, "recent denials name the call, in order"),
		HOLDS(denial_has_path_and_pid, "a recorded denial carries the resolved path and pid"),
		HOLDS(approval_once, "an approved write goes through once"),
		HOLDS(approval_names_one_path, "an approval is for its path: another is still denied"),
		HOLDS(approval_used_up, "an approval is used up by the write it allowed"),
		HOLDS(clear_approvals, "clear_approvals drops pending approvals"),
		HOLDS(no_exec_refuses_spawn, "a context without exec permission refuses posix_spawn"),
		HOLDS(approved_exec_starts, "an approved exec starts in a context without exec permission"),
		HOLDS(thread_inherits, "a thread started in a context inherits it"),
		HOLDS(free_after_leaving, "after leaving the context writes are free again"),
		HOLDS(resolver_used, "a resolver's answer is used when the slot is empty"),
		HOLDS(nothing_checked_without_either, "without resolver and context nothing is checked"),
		HOLDS(exec_allowed_starts, "a context with exec permission lets programs start"),
		HOLDS(ending_thread_gives_count_back,
		      "a thread that returns or calls pthread_exit in a context gives its count back"),
		HOLDS(started_thread_gives_count_back,
		      "a thread started in a context that calls pthread_exit gives its count back"),
		HOLDS(live_thread_counted_not_in_child,
		      "a live thread holding a context is counted, and a forked child does not count it"),
	};
	int r;

	(void)argc;
	under_shim(argv, fixture);
	pol = context_policy(at("a"));
	r = RUN_UNDER_SHIM("bridge", tests);
	fa_policy_free(pol);
	return r;
}
