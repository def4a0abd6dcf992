/*
 * bridge_test - the shim side of the bridge, driven the way a host does:
 * a context policy set on a thread, approvals, the denial ring, a
 * resolver, pthread_create inheritance. TAP output. The program re-runs
 * itself with the shim preloaded ($FA_SHIM) when it is not.
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

#include "fa_bridge.h"
#include "fa_policy.h"

extern char **environ;

static int ntest, nfail;
static char A[PATH_MAX], B[PATH_MAX];
static const struct fa_bridge *br;
static fa_policy *pol;

static void ok(int cond, const char *what)
{
	ntest++;
	if (!cond)
		nfail++;
	printf("%sok %d - %s\n", cond ? "" : "not ", ntest, what);
	fflush(stdout);
}

static int exists(const char *dir, const char *name)
{
	char p[PATH_MAX + 64];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

/* open(dir/name, O_WRONLY|O_CREAT): 0, or the errno. */
static int create(const char *dir, const char *name)
{
	char p[PATH_MAX + 64];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void enter(int exec_allowed)
{
	struct fa_thread_ctx c = { .policy = pol, .exec_allowed = exec_allowed };

	br->set_thread(&c);
}

static void *thread_writes(void *arg)
{
	int *res = arg;

	res[0] = create(A, "t_in");
	res[1] = create(B, "t_out");
	return NULL;
}

static int resolved_calls;

static int resolver(struct fa_thread_ctx *out)
{
	resolved_calls++;
	out->policy = pol;
	out->exec_allowed = 1;
	return 1;
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

/* Enters a context and ends: arg 0 returns, 1 calls pthread_exit. */
static void *thread_holds(void *arg)
{
	enter(0);
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
	enter(0);
	if (write(ready_fd[1], "r", 1) != 1 || read(go_fd[0], &c, 1) != 1)
		return NULL;
	return NULL;
}

static void thread_exit_tests(void)
{
	int g0, how, st;
	pthread_t t;
	pid_t pid;
	char c;

	if (!ctx_gate) {
		for (how = 0; how < 4; how++)
			ok(1, "# SKIP the shim has no symbol table to read its counts from");
		return;
	}
	g0 = gate_now();
	for (how = 0; how < 2; how++) {
		pthread_create(&t, NULL, thread_holds, &how);
		pthread_join(t, NULL);
	}
	ok(gate_now() == g0, "a thread that returns or calls pthread_exit in a context gives its count back");
	enter(0);
	pthread_create(&t, NULL, thread_exits, NULL);
	pthread_join(t, NULL);
	br->set_thread(NULL);
	ok(gate_now() == g0, "a thread started in a context that calls pthread_exit gives its count back");

	if (pipe(ready_fd) < 0 || pipe(go_fd) < 0)
		return;
	pthread_create(&t, NULL, thread_waits, NULL);
	if (read(ready_fd[0], &c, 1) != 1)
		return;
	ok(gate_now() == g0 + 1, "a live thread holding a context is counted");
	pid = fork();
	if (pid == 0)
		_exit(gate_now() == g0 ? 0 : 1);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "a forked child does not count the threads it did not inherit");
	if (write(go_fd[1], "g", 1) != 1)
		return;
	pthread_join(t, NULL);
	close(ready_fd[0]);
	close(ready_fd[1]);
	close(go_fd[0]);
	close(go_fd[1]);
}

static void reexec(char **argv)
{
	const char *shim = getenv("FA_SHIM");
	char v[PATH_MAX * 2];

	if (!shim) {
		printf("1..0 # SKIP FA_SHIM not set\n");
		exit(0);
	}
#ifdef FA_ASAN_LIB
	snprintf(v, sizeof(v), "%s %s", FA_ASAN_LIB, shim);
	setenv("ASAN_OPTIONS", "detect_leaks=0", 0);
#else
	snprintf(v, sizeof(v), "%s", shim);
#endif
	setenv("LD_PRELOAD", v, 1);
	execv("/proc/self/exe", argv);
	printf("1..0 # SKIP cannot re-run under the shim: %s\n", strerror(errno));
	exit(0);
}

int main(int argc, char **argv)
{
	fa_bridge_fn fn = (fa_bridge_fn)dlsym(RTLD_DEFAULT, "fa_bridge_v1");
	struct fa_denial dn[8];
	char msg[256], tmpl[] = "/tmp/fa-bridge.XXXXXX", p[PATH_MAX + 64];
	uint64_t before;
	pthread_t t;
	int res[2], n, e;

	(void)argc;
	if (!fn)
		reexec(argv);
	unsetenv("FA_POLICY");
	printf("1..26\n");
	br = fn();
	ok(br && br->version == FA_BRIDGE_VERSION && br->size == sizeof(struct fa_bridge) &&
	   br->engine_abi == FA_ENGINE_ABI, "bridge found, version, size and engine ABI agree");
	ok(br->process_policy() == NULL, "no process policy without FA_POLICY");

	if (!mkdtemp(tmpl))
		return 1;
	snprintf(A, sizeof(A), "%s/a", tmpl);
	snprintf(B, sizeof(B), "%s/b", tmpl);
	mkdir(A, 0755);
	mkdir(B, 0755);
	pol = fa_policy_new();
	if (!pol || fa_policy_add_root(pol, A, msg, sizeof(msg)) < 0 ||
	    fa_policy_seal(pol, 1, msg, sizeof(msg)) < 0) {
		printf("Bail out! policy: %s\n", msg);
		return 1;
	}

	ok(create(B, "free") == 0, "outside any context a write anywhere is allowed");
	enter(0);
	before = br->denial_count();
	ok(create(A, "in") == 0, "in a context a write inside its root is allowed");
	errno = 1234;
	n = create(A, "in2");
	e = errno;
	ok(n == 0 && e == 1234, "an allowed write leaves errno alone");
	ok(create(B, "out") == EACCES && !exists(B, "out"),
	   "a write outside the root fails with EACCES and creates nothing");
	snprintf(p, sizeof(p), "%s/free", B);
	ok(unlink(p) < 0 && errno == EACCES && exists(B, "free"),
	   "unlink outside is denied and the file stays");
	snprintf(p, sizeof(p), "%s/in", A);
	{
		char q[PATH_MAX + 64];

		snprintf(q, sizeof(q), "%s/moved", B);
		ok(rename(p, q) < 0 && errno == EACCES && exists(A, "in") && !exists(B, "moved"),
		   "rename from inside to outside is denied, nothing moves");
	}
	ok(br->denial_count() == before + 3, "three denials counted");
	n = br->recent_denials(dn, 8);
	ok(n >= 3 && dn[n - 1].from_context == 1 && !strcmp(dn[n - 1].call, "rename") &&
	   dn[n - 3].seq + 2 == dn[n - 1].seq, "recent denials name the call, in order");
	ok(n >= 3 && strstr(dn[n - 3].path, "/b/out") && dn[n - 3].pid == getpid(),
	   "a recorded denial carries the resolved path and pid");

	snprintf(p, sizeof(p), "%s/out", B);
	br->approve(FA_OP_WRITE, p);
	ok(create(B, "out") == 0 && exists(B, "out"), "an approved write goes through once");
	ok(create(B, "out2") == EACCES, "another path is still denied");
	ok(create(B, "out") == EACCES, "the approval was used up");
	br->approve(FA_OP_WRITE, p);
	br->clear_approvals();
	ok(create(B, "out") == EACCES, "clear_approvals drops pending approvals");

	ok(spawn_true() == EACCES, "a context without exec permission refuses posix_spawn");
	br->approve_exec("/bin/true");
	ok(spawn_true() == 0, "an approved exec starts");

	res[0] = res[1] = -1;
	pthread_create(&t, NULL, thread_writes, res);
	pthread_join(t, NULL);
	ok(res[0] == 0 && res[1] == EACCES && !exists(B, "t_out"),
	   "a thread started in a context inherits it");

	br->set_thread(NULL);
	ok(create(B, "after") == 0, "after leaving the context writes are free again");

	br->set_resolver(resolver);
	ok(create(B, "resolved") == EACCES && resolved_calls > 0,
	   "a resolver's answer is used when the slot is empty");
	br->set_resolver(NULL);
	br->set_thread(NULL);
	ok(create(B, "free2") == 0, "without resolver and context nothing is checked");

	enter(1);
	ok(spawn_true() == 0, "a context with exec permission lets programs start");
	br->set_thread(NULL);

	ctx_gate = find_ctx_gate();
	thread_exit_tests();

	snprintf(p, sizeof(p), "rm -rf %s", tmpl);
	if (system(p))
		return 1;
	fa_policy_free(pol);
	return nfail != 0;
}
